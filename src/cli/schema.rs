//! `hurray-spec schema`: write (or check) the JSON Schema of every kind of spec file, and the
//! `#:schema` directive on the first line of every spec file that points an editor at it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hurray_codegen::schema::{self, COMMAND, Kind};

use super::written::write_reported;

/// Write every schema to `out` (default: the tree's `schema/` folder) and, when they go to
/// the tree's own folder, set the directive of every spec file; with `check`, change nothing
/// and exit 1 if anything differs.
pub fn run(spec: &Path, out: Option<&Path>, check: bool) -> ExitCode {
    let own = spec.join(schema::DIR);
    let out = out.map_or_else(|| own.clone(), Path::to_path_buf);
    let mut stale = Vec::new();
    for (kind, text) in hurray_codegen::json_schema::generate() {
        let path = out.join(kind.file_name());
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(path.display().to_string());
            }
        } else if write_reported(&path, &text).is_err() {
            return ExitCode::from(2);
        }
    }
    // Directives name the tree's own schema folder: a copy written elsewhere is for other
    // tools, and leaves the spec files alone.
    if same_dir(&out, &own) {
        let files = match directed_files(spec) {
            Ok(files) => files,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", spec.display());
                return ExitCode::from(2);
            }
        };
        for (path, relative, kind) in files {
            let Ok(text) = std::fs::read_to_string(&path) else {
                eprintln!("error: cannot read {}", path.display());
                return ExitCode::from(2);
            };
            let directed = schema::with_directive(&text, &kind.directive(&relative));
            if directed == text {
                continue;
            }
            if check {
                stale.push(format!("{} (its `#:schema` line)", path.display()));
            } else if write_reported(&path, &directed).is_err() {
                return ExitCode::from(2);
            }
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "error: the JSON Schemas of the spec files are out of date: {}\nrun `{COMMAND}`",
            stale.join(", ")
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Every spec file that carries a directive on its first line, with its path relative to the
/// tree and its kind: the files `check` loads and the migrations. Release records are left
/// out: they are append-only, and `hurray-spec release` writes each with its directive.
fn directed_files(spec: &Path) -> std::io::Result<Vec<(PathBuf, String, Kind)>> {
    let mut paths = hurray_codegen::load::spec_files(spec)?;
    let migrations = spec.join(hurray_codegen::amend::migration::DIR);
    if migrations.is_dir() {
        let mut more: Vec<PathBuf> = std::fs::read_dir(&migrations)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        more.sort();
        paths.extend(more);
    }
    Ok(paths
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|path| {
            let relative = path
                .strip_prefix(spec)
                .ok()?
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let kind = Kind::of(&relative)?;
            Some((path, relative, kind))
        })
        .collect())
}
