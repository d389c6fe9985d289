//! `hurray-spec gen rust`: the runtime code the build script generates from a spec tree, to
//! review how an amendment changes the generated API (or to diff two revisions).

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::build::{RUNTIME_FILE, runtime_code};

use super::written::write_reported;

use super::rules::load_clean;

/// Print the formatted runtime code of the spec at `spec` to standard output, or write it to
/// `out/hurray_generated.rs` (the name the build script gives it under `OUT_DIR`).
pub fn rust(spec: &Path, out: Option<&Path>) -> ExitCode {
    let loaded = match load_clean(spec) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(code) = runtime_code(&loaded) else {
        return ExitCode::from(1);
    };
    let Some(dir) = out else {
        out!("{code}");
        return ExitCode::SUCCESS;
    };
    let path = dir.join(RUNTIME_FILE);
    if write_reported(&path, &code).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
