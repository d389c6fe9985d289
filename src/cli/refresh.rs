//! `hurray-spec refresh`: regenerate every checked-in artifact of the spec in one command (the
//! Markdown tables, the Kaitai description, the JSON Schemas and the spec files' directives,
//! the snapshot of the generated runtime code), or with `--check` report every stale one.

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::artifacts::{DOCS_DIR, KAITAI_DIR};

use super::rules::load_clean;
use super::{docs, export, generate, schema};

/// Run every generating command on `spec`, writing into the repository's folders (relative to
/// the current directory), or checking them with `check`. Every command runs, so one call
/// reports every stale artifact; the exit code is the worst of theirs (2 for an I/O error,
/// else 1 for a stale artifact).
pub fn run(spec: &Path, check: bool) -> ExitCode {
    // A spec with errors is reported once, not by each command.
    if let Err(code) = load_clean(spec) {
        return code;
    }
    let codes = [
        docs::run(spec, Path::new(DOCS_DIR), check),
        export::kaitai(spec, Path::new(KAITAI_DIR), check),
        schema::run(spec, None, check),
        generate::snapshot(spec, check),
    ];
    if codes.contains(&ExitCode::from(2)) {
        ExitCode::from(2)
    } else if codes.iter().all(|c| *c == ExitCode::SUCCESS) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
