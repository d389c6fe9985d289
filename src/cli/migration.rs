//! `hurray-spec migration AXIS`: write the complete skeleton of the S5 migration a major bump
//! of AXIS needs, from the last release record to the spec as amended, for the editor to fill.

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::amend::{AxisNames, history, migration, snapshot};
use hurray_codegen::diag::{self, Format};
use hurray_codegen::schema::{Kind, with_directive};

use super::rules::load_clean;
use super::written::write_reported;

/// Write `spec/migrations/<axis>-<K>-to-<K+1>.toml`, K the axis's major at the last release.
/// An existing file is left alone unless `force`.
pub fn run(spec: &Path, axis: &str, force: bool) -> ExitCode {
    let loaded = match load_clean(spec) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(model) = loaded.clean() else {
        return ExitCode::from(1);
    };
    let mut sources = hurray_codegen::source::SourceMap::default();
    let mut diags = hurray_codegen::diag::Diagnostics::default();
    let history = history::load(spec, &mut sources, &mut diags);
    if diags.error_count() > 0 {
        eprint!("{}", diag::render(&sources, diags.items(), Format::Human));
        return ExitCode::from(1);
    }
    let Some(base) = history.latest() else {
        eprintln!(
            "error: no release record: a migration maps the last release onto the next major"
        );
        return ExitCode::from(1);
    };
    let (cur, _) = snapshot::of_spec(model);
    let names = AxisNames::of(model);
    let Some(text) = migration::scaffold(base, &cur, axis, names.scheme_parent) else {
        let axes: Vec<&str> = base.axis.iter().map(|a| a.name.as_str()).collect();
        eprintln!(
            "error: the last release has no axis `{axis}` (its axes: {})",
            axes.join(", ")
        );
        return ExitCode::from(2);
    };
    let Some(from) = base
        .axis
        .iter()
        .find(|a| a.name == axis)
        .and_then(|a| a.version.split('.').next()?.parse::<u16>().ok())
    else {
        return ExitCode::from(2);
    };
    let name = migration::file_name(axis, from);
    let path = spec.join(migration::DIR).join(&name);
    if path.exists() && !force {
        eprintln!(
            "error: {} exists; it is left alone (`--force` writes the skeleton over it)",
            path.display()
        );
        return ExitCode::from(1);
    }
    let relative = format!("{}/{name}", migration::DIR);
    let text = with_directive(&text, &Kind::Migration.directive(&relative));
    if write_reported(&path, &text).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
