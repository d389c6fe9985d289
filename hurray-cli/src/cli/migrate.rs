//! `hurray migrate --to AXIS=MAJOR.0 IN -o OUT`: data of an older major rewritten into the
//! new one as the spec's migration specification says (S5; `hurray_runtime::migrate`).
//!
//! The data is read by the **released** build (the runtime of the old major), exported as a
//! runtime-neutral document, and imported by the **new** build, which applies its generated
//! migration table and writes with its own writer. This binary links both:
//! `hurray-runtime-released`, generated from the archived tables of the last release
//! (`spec/releases/NNNN/`) while this checkout's spec has a pending major, and
//! `hurray-runtime`, generated from this checkout's `spec/`. While the spec has no pending
//! major the two are one runtime, no migration is defined onto its majors and the command
//! refuses (`migration-undefined`). The tests pair the released runtime with the one
//! generated from `tests/runtime-major2` through the same two calls (`tests/it/migrate.rs`).

use std::path::Path;
use std::process::ExitCode;

use hurray_runtime as new;
use hurray_runtime_released as released;

use super::exit::{self, Rejection, Report};

/// `descriptor=2.0`: the axis and the major (the minor must be 0: a migration writes the
/// first version of the new major the data needs, W1).
pub fn target(s: &str) -> Result<(String, u16), String> {
    let (axis, version) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected AXIS=MAJOR.0 (`descriptor=2.0`)"))?;
    let (major, minor) = version.split_once('.').unwrap_or((version, "0"));
    let major: u16 = major
        .parse()
        .map_err(|_| format!("`{version}`: expected MAJOR.0"))?;
    if minor != "0" {
        return Err(format!(
            "`{version}`: a migration goes to a major (MAJOR.0); the writer declares the lowest minor the data needs"
        ));
    }
    if new::axes::Axis::from_name(axis).is_none() {
        let known: Vec<_> = new::axes::Axis::ALL.iter().map(|a| a.name()).collect();
        return Err(format!("no axis `{axis}` (known: {})", known.join(", ")));
    }
    Ok((axis.to_string(), major))
}

/// Run the command: read `input`, migrate, write `output` atomically.
pub fn run(input: &Path, output: &Path, to: &str, json: bool) -> ExitCode {
    let (axis, major) = match target(to) {
        Ok(t) => t,
        Err(e) => return exit::usage_error(e),
    };
    let bytes = match std::fs::read(input) {
        Ok(b) => b,
        Err(e) => return exit::usage_error(format!("{}: {e}", input.display())),
    };
    let report = Report { input, json };
    let export = match released::migrate::export(&bytes, &released::ReaderConfig::new()) {
        Ok(x) => x,
        Err(e) => {
            return report.rejection(&Rejection {
                line: e.to_string(),
                code: e.code(),
                rule: e.rule().map(|r| r.id()),
                offset: e.offset(),
                detail: e.detail(),
            });
        }
    };
    match new::migrate::import(&export, &bytes, &axis, major) {
        Ok(out) => match new::writer::write_atomically(output, &out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => exit::usage_error(format!("{}: {e}", output.display())),
        },
        Err(e) => report.migration_refused(&e),
    }
}
