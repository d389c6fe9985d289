//! `hurray-spec check`.

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::diag::{self, Format};

pub fn run(spec: &Path, against: Option<&Path>, format: Format) -> ExitCode {
    let loaded = match hurray_codegen::load(spec) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot read spec: {e}");
            return ExitCode::from(2);
        }
    };
    let _ = against;
    let out = diag::render(&loaded.sources, loaded.diags.items(), format);
    out!("{out}");
    if loaded.diags.has_errors() {
        ExitCode::from(1)
    } else {
        if format == Format::Human {
            eprintln!("spec: clean");
        }
        ExitCode::SUCCESS
    }
}
