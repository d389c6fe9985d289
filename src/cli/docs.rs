//! `hurray-spec docs`: write (or check) the generated Markdown tables.

use std::path::Path;
use std::process::ExitCode;

use super::written::write_reported;
use hurray_codegen::emit::markdown;

use super::rules::load_clean;

pub fn run(spec: &Path, out: &Path, check: bool) -> ExitCode {
    let loaded = match load_clean(spec) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(model) = loaded.clean() else {
        return ExitCode::from(1);
    };
    let mut stale = Vec::new();
    for (name, text) in markdown::pages(model) {
        let path = out.join(&name);
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(path.display().to_string());
            }
        } else {
            if write_reported(&path, &text).is_err() {
                return ExitCode::from(2);
            }
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "error: generated docs are out of date: {}\nrun `{}`",
            stale.join(", "),
            markdown::COMMAND
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
