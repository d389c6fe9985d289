//! `hurray-spec export`: descriptions of the format for other tools, generated from the spec
//! and checked in — today a Kaitai Struct description (`export kaitai`).

use std::path::Path;
use std::process::ExitCode;

use super::written::write_reported;
use hurray_codegen::emit::kaitai;

use super::rules::load_clean;

/// `export kaitai`: write `hurray.ksy` into `out`, or with `check` fail when it differs.
pub fn kaitai(spec: &Path, out: &Path, check: bool) -> ExitCode {
    let loaded = match load_clean(spec) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(model) = loaded.clean() else {
        return ExitCode::from(1);
    };
    let text = kaitai::ksy(model);
    let path = out.join(kaitai::FILE_NAME);
    if check {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            eprintln!(
                "error: {} is out of date\nrun `{}`",
                path.display(),
                kaitai::COMMAND
            );
            return ExitCode::from(1);
        }
        return ExitCode::SUCCESS;
    }
    if write_reported(&path, &text).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
