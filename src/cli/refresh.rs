//! `hurray-spec refresh`: regenerate every checked-in artifact of the spec in one command (the
//! Markdown tables, the Kaitai description, the JSON Schemas and the spec files' directives,
//! the snapshot of the generated runtime code, the evolution playbook's parts rendered from
//! its fixtures), or with `--check` report every stale one.

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::artifacts::{DOCS_DIR, KAITAI_DIR, REFRESH_COMMAND};
use hurray_codegen::playbook;

use super::rules::load_clean;
use super::written::write_reported;
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
        playbook_page(spec, check),
    ];
    if codes.contains(&ExitCode::from(2)) {
        ExitCode::from(2)
    } else if codes.iter().all(|c| *c == ExitCode::SUCCESS) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Render the evolution playbook's generated parts (`hurray_codegen::playbook`) on `spec`, in
/// a repository that has the page; elsewhere (an installed `hurray-spec` on another
/// repository) there is nothing to do.
fn playbook_page(spec: &Path, check: bool) -> ExitCode {
    let path = Path::new(playbook::PAGE);
    let Ok(page) = std::fs::read_to_string(path) else {
        return ExitCode::SUCCESS;
    };
    let scratch = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot make a scratch directory: {e}");
            return ExitCode::from(2);
        }
    };
    // A scenario already played on this tree (its edit is in the spec) keeps its rendering.
    let rendered = playbook::render_keeping(Path::new("."), spec, &page, scratch.path());
    let text = match rendered {
        Ok((t, kept)) => {
            for k in kept {
                eprintln!("note: {}: {k}", path.display());
            }
            t
        }
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    if check {
        if text == page {
            return ExitCode::SUCCESS;
        }
        eprintln!(
            "error: {} is out of date (its scenarios render differently on this spec)\nrun `{REFRESH_COMMAND}`",
            path.display()
        );
        return ExitCode::from(1);
    }
    match write_reported(path, &text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(()) => ExitCode::from(2),
    }
}
