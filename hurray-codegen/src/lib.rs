//! `hurray-codegen`: loads the Hurray spec tables, validates them, checks amendments
//! against the released history, and emits Rust code and Markdown tables.
//!
//! Phases: TOML ([`load`](mod@load)) → raw serde mirror with spans ([`raw`]) → typed model
//! ([`lower`], then [`layout`] and [`analysis`] fill in positions, sizes and shapes) → checks
//! that collect every diagnostic ([`validate`]) → emitters that only read the model and cannot
//! fail ([`emit`], with every text rendering in [`render`]). Writing files happens at the edge
//! ([`build`]).

pub mod amend;
pub mod analysis;
pub mod artifacts;
pub mod build;
pub mod catalogue;
pub mod compat;
pub mod diag;
pub mod emit;
pub mod explain;
#[cfg(feature = "schema")]
pub mod json_schema;
pub mod layout;
pub mod lints;
pub mod load;
pub mod lower;
pub mod model;
/// Spec overlays of the amendment fixtures and the second runtimes of the evolvability
/// tests: for this repository's tests, not a public API.
#[doc(hidden)]
pub mod overlay;
mod phases;
pub mod playbook;
pub mod raw;
pub mod render;
pub mod schema;
pub mod source;
pub mod validate;

/// The one version type of the Hurray tools, re-exported for the derive.
pub use hurray_version as version;

use std::path::Path;

use diag::Diagnostics;
pub use phases::{Loaded, finish};
use source::SourceMap;

/// Load, lower, lay out and validate a spec directory.
pub fn load(dir: &Path) -> std::io::Result<Loaded> {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let raw = load::load_dir(dir, &mut sources, &mut diags)?;
    Ok(finish(raw, sources, diags))
}

/// Load, lower, lay out and validate a spec tree already in memory, such as the tables
/// `hurray-spec-tables` embeds: `files` are `(path relative to root, text)` pairs, `root` the
/// directory they came from (diagnostics name files under it). Release records and
/// migrations among `files` are ignored, as [`load()`] ignores them.
pub fn load_files<'a>(
    root: impl AsRef<Path>,
    files: impl IntoIterator<Item = &'a (&'a str, &'a str)>,
) -> Loaded {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let raw = load::load_memory(
        root.as_ref(),
        files.into_iter().copied(),
        &mut sources,
        &mut diags,
    );
    finish(raw, sources, diags)
}

/// [`load_files`] for the archived tables of a release (`files`, relative to the archive's
/// directory `root`), completed from the current tables (`current`, relative to
/// `current_root`; the files `load_files` would ignore are ignored) where the archive was
/// written before a key of theirs existed ([`load::RawSpec::complete_from`]).
pub fn load_archive<'a>(
    root: impl AsRef<Path>,
    files: impl IntoIterator<Item = &'a (&'a str, &'a str)>,
    current_root: impl AsRef<Path>,
    current: impl IntoIterator<Item = &'a (&'a str, &'a str)>,
) -> Loaded {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let mut raw = load::load_memory(
        root.as_ref(),
        files.into_iter().copied(),
        &mut sources,
        &mut diags,
    );
    let now = load::load_memory(
        current_root.as_ref(),
        current.into_iter().copied(),
        &mut SourceMap::default(),
        &mut Diagnostics::default(),
    );
    raw.complete_from(&now);
    finish(raw, sources, diags)
}

/// `hurray-spec check`: load and validate a spec directory; with `against`, also compare it
/// with another spec tree.
pub fn check(dir: &Path, against: Option<&Path>) -> std::io::Result<Loaded> {
    let mut loaded = load(dir)?;
    let other = match against {
        Some(a) => {
            let o = load(a)?;
            match o.clean() {
                Some(s) => Some(amend::snapshot::of_spec(s).0),
                None => {
                    loaded.diags.push(
                        diag::Diagnostic::new(
                            &lints::TOML_SYNTAX,
                            None,
                            format!(
                                "the spec tree given to --against ({}) does not load cleanly",
                                a.display()
                            ),
                        )
                        .help(format!(
                            "run `hurray-spec check --spec {}` first",
                            a.display()
                        )),
                    );
                    None
                }
            }
        }
        None => None,
    };
    // Always compared with the history, errors or not: a draft spec applies only the status
    // rule (a spec marked draft again after a release must hear so, whatever else is wrong).
    if let Some(spec) = &loaded.spec {
        let mut diags = diag::Diagnostics::default();
        amend::check(spec, dir, other.as_ref(), &mut loaded.sources, &mut diags);
        loaded.diags.extend(diags);
    }
    loaded.diags.fold_consequences();
    loaded.diags.sort();
    Ok(loaded)
}

/// For unit tests: this checkout's package directory. Cargo's value when it runs the tests (a
/// test binary built in another checkout that shares the target directory is reused here,
/// with that checkout's compile-time path), else the compile-time one.
#[cfg(test)]
pub(crate) fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
        || env!("CARGO_MANIFEST_DIR").into(),
        std::path::PathBuf::from,
    )
}
