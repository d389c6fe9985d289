//! `hurray-spec gen rust`: the runtime code the build script generates from a spec tree, to
//! review how an amendment changes the generated API (or to diff two revisions). With
//! `--out DIR --check` it compares instead of writing. `refresh` keeps the checked-in
//! snapshot (`docs/generated/hurray_generated.rs`) current through [`snapshot`].

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::artifacts::{self, REFRESH_COMMAND, SNAPSHOT_DIR};
use hurray_codegen::build::{RUNTIME_FILE, runtime_code};

use super::written::write_reported;

use super::rules::load_clean;

/// Write (or with `check` compare) the checked-in snapshot of the runtime code,
/// `docs/generated/hurray_generated.rs`: what the build script writes, under a line naming
/// the command that refreshes it.
pub fn snapshot(spec: &Path, check: bool) -> ExitCode {
    let loaded = match load_clean(spec) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(code) = runtime_code(&loaded) else {
        return ExitCode::from(1);
    };
    let path = Path::new(SNAPSHOT_DIR).join(RUNTIME_FILE);
    let text = artifacts::snapshot(&code);
    if check {
        return stale(&path, &text);
    }
    if write_reported(&path, &text).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Exit 1 naming `path` and the refresh command when it does not hold `text`.
fn stale(path: &Path, text: &str) -> ExitCode {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "error: {} is out of date (the generated runtime code changed)\nrun `{REFRESH_COMMAND}`",
        path.display()
    );
    ExitCode::from(1)
}

/// Print the formatted runtime code of the spec at `spec` to standard output, or write it to
/// `out/hurray_generated.rs` (the name the build script gives it under `OUT_DIR`); with
/// `check` (and `out`), exit 1 when that file differs instead of writing it.
pub fn rust(spec: &Path, out: Option<&Path>, check: bool) -> ExitCode {
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
    if check {
        return stale(&path, &code);
    }
    if write_reported(&path, &code).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
