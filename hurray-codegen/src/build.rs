//! The edge where generated code meets the file system: used by build scripts and by the
//! CLI's `docs` command. Files are written only when their content changes, so rebuilds stay
//! incremental.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diag;

/// Write `content` to `path` unless it already holds exactly that.
pub fn write_if_changed(path: &Path, content: &str) -> std::io::Result<bool> {
    if fs::read_to_string(path).is_ok_and(|old| old == content) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(path, content)?;
    Ok(true)
}

/// The environment variable that keys a build to the checkout it comes from: the repository's
/// `.cargo/config.toml` sets it to the checkout's absolute path, and every build script that
/// generates from the checkout's files reruns when it changes. cargo gives each clone of a
/// workspace the same build directories and judges freshness by modification times, so
/// without it two clones sharing a target directory would reuse each other's generated code.
pub const CHECKOUT_ENV: &str = "HURRAY_SPEC_CHECKOUT";

/// Tell cargo to rerun the calling build script when it builds for another checkout
/// ([`CHECKOUT_ENV`]).
fn key_to_checkout() {
    println!("cargo:rerun-if-env-changed={CHECKOUT_ENV}");
}

/// The file the runtime's build script writes under `OUT_DIR` (and `hurray-spec gen rust
/// --out DIR` under `DIR`).
pub const RUNTIME_FILE: &str = "hurray_generated.rs";

/// The runtime code of a loaded spec, formatted: exactly what the build scripts write, and
/// what `hurray-spec gen rust` prints. `None` when the spec has errors (`loaded.diags` says
/// which).
pub fn runtime_code(loaded: &crate::Loaded) -> Option<String> {
    loaded.clean().map(crate::emit::rust::runtime)
}

/// For a build script: generate the runtime from a spec tree in memory (the tables
/// `hurray-spec-tables` embeds: `(path relative to root, text)` pairs), fail the build with
/// the spec's errors if it has any, and write the code to `$OUT_DIR/<file>`.
///
/// The tables reach the build script as a build dependency, so cargo reruns it whenever they
/// change; the script itself need only print `cargo:rerun-if-changed=build.rs`.
pub fn generate_runtime(root: &Path, files: &[(&str, &str)], file: &str) {
    key_to_checkout();
    let loaded = crate::load_files(root, files);
    write_runtime(root, &loaded, "the runtime", &out_dir().join(file));
}

/// For the build script of one of this repository's second runtimes: generate
/// `hurray_generated.rs` from the embedded tables `root`/`files` with the overlay at
/// `overlay`, a path relative to the crate's manifest directory. Not a public API.
#[doc(hidden)]
pub fn generate_test_runtime(root: &Path, files: &[(&str, &str)], overlay: &str) {
    let here = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    println!("cargo:rerun-if-changed=build.rs");
    generate_runtime_with_overlay(root, files, &here.join(overlay), "hurray_generated.rs");
}

/// For a build script: generate a runtime from a spec tree in memory with the overlay
/// `edit_toml` applied (the second runtimes of the evolvability tests). The tree is written
/// under `$OUT_DIR/overlay`, overlaid there, and checked against its release records. For this
/// repository's second runtimes, not a public API.
#[doc(hidden)]
pub fn generate_runtime_with_overlay(
    root: &Path,
    files: &[(&str, &str)],
    edit_toml: &Path,
    file: &str,
) {
    println!("cargo:rerun-if-changed={}", edit_toml.display());
    key_to_checkout();
    // A broken spec is reported once, by the build of the runtime generated from it; here
    // one line says so.
    if crate::load_files(root, files).clean().is_none() {
        fail(&[format!(
            "cannot generate a runtime: the spec in {} has errors (the build of hurray-runtime lists them); every finding: {}",
            shown(root).display(),
            check_command(root)
        )]);
    }
    let work = out_dir().join("overlay");
    let base = work.join("base");
    if let Err(e) = write_tree(&base, files) {
        fail(&[format!(
            "cannot write the spec tree of {} to {}: {e}",
            root.display(),
            base.display()
        )]);
    }
    let tree = match crate::overlay::materialize(&base, edit_toml, &work) {
        Ok(m) => m.tree,
        Err(e) => fail(&[format!("cannot apply the overlay {e}")]),
    };
    let loaded = match crate::check(&tree, None) {
        Ok(l) => l,
        Err(e) => fail(&[format!("cannot read {}: {e}", tree.display())]),
    };
    let what = format!(
        "a runtime from the spec amended by {} (the overlay must make an amendment `check` accepts)",
        edit_toml.display()
    );
    write_runtime(&tree, &loaded, &what, &out_dir().join(file));
}

/// Which spec the released runtime of a spec tree is generated from
/// ([`generate_released_runtime`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Released {
    /// No release has an older major than the spec on any axis (or nothing is released):
    /// the released runtime is the current one.
    Current,
    /// An axis's major is above a release's: the released runtime is generated from the
    /// archived tables (`releases/NNNN/`) of the latest such release (the last release while
    /// the new major is pending, the last of the previous major once it is released).
    Archive {
        /// That release's sequence number.
        sequence: u32,
        /// The axes whose major is pending, with the released and the current major.
        pending: Vec<(String, u8, u8)>,
    },
}

/// Which spec the released runtime of the embedded tree `files` comes from: the archive of
/// the latest release of an older major on some axis (the data `hurray migrate` reads), else
/// the current spec.
/// The records are the files `releases/NNNN.toml`; `None` when the current spec does not
/// load cleanly.
pub fn released(root: &Path, files: &[(&str, &str)]) -> Option<Released> {
    let loaded = crate::load_files(root, files);
    let spec = loaded.clean()?;
    let (current, _) = crate::amend::snapshot::of_spec(spec);
    let mut records: Vec<crate::amend::snapshot::Snapshot> = files
        .iter()
        .filter(|(path, _)| {
            path.strip_prefix(crate::amend::history::DIR)
                .and_then(|p| p.strip_prefix('/'))
                .is_some_and(|name| !name.contains('/') && name.ends_with(".toml"))
        })
        .filter_map(|(_, text)| toml::from_str::<crate::amend::snapshot::Snapshot>(text).ok())
        .collect();
    records.sort_by_key(|r| std::cmp::Reverse(r.release.sequence));
    // The latest release of an older major on some axis: before the new major is released
    // that is the last release, and after it the last one of the previous major, whose data
    // still needs migrating.
    let older = |r: &crate::amend::snapshot::Snapshot| -> Vec<(String, u8, u8)> {
        current
            .axis
            .iter()
            .filter_map(|a| {
                let (_, now) = current.version(&a.name)?;
                let (_, then) = r.version(&a.name)?;
                (now.major > then.major).then(|| (a.name.clone(), then.major, now.major))
            })
            .collect()
    };
    Some(
        match records
            .iter()
            .map(|r| (r, older(r)))
            .find(|(_, p)| !p.is_empty())
        {
            None => Released::Current,
            Some((r, pending)) => Released::Archive {
                sequence: r.release.sequence,
                pending,
            },
        },
    )
}

/// The `cfg` [`generate_released_runtime`] sets when it generated from an archive: the
/// released runtime's crate then compiles the runtime's source against that code, and
/// otherwise re-exports the current runtime.
pub const RELEASED_CFG: &str = "hurray_released_archive";

/// For the build script of the released runtime (`hurray-runtime-released`, the reader of
/// `hurray migrate`): when the embedded spec has a pending major ([`released`]), generate
/// the runtime from the last release's archived tables into `$OUT_DIR/<file>` and set the
/// cfg [`RELEASED_CFG`]; otherwise generate nothing (the crate re-exports the current
/// runtime, so a tree without a pending major compiles the runtime once). A pending major
/// whose release has no archive fails the build, naming the release.
pub fn generate_released_runtime(root: &Path, files: &[(&str, &str)], file: &str) -> Released {
    key_to_checkout();
    println!("cargo::rustc-check-cfg=cfg({RELEASED_CFG})");
    let Some(which) = released(root, files) else {
        fail(&[format!(
            "cannot generate the released runtime: the spec in {} has errors (the build of hurray-runtime lists them); every finding: {}",
            shown(root).display(),
            check_command(root)
        )]);
    };
    if let Released::Archive { sequence, pending } = &which {
        let archived = crate::amend::archive::embedded(files, *sequence);
        let dir = crate::amend::archive::dir(root, *sequence);
        let majors = pending
            .iter()
            .map(|(axis, then, now)| format!("{axis} {then} → {now}"))
            .collect::<Vec<_>>()
            .join(", ");
        if archived.is_empty() {
            fail(&[format!(
                "cannot generate the released runtime: the spec has a pending major ({majors}) but release {sequence} has no archived tables in {}; a release written before archives existed is archived by copying its tables there once (`hurray-spec check` verifies the copy against the record)",
                dir.display()
            )]);
        }
        let loaded = crate::load_archive(&dir, &archived, root, files);
        let what = format!(
            "the released runtime from the archive of release {sequence} (pending major: {majors})"
        );
        write_runtime(&dir, &loaded, &what, &out_dir().join(file));
        println!("cargo::rustc-cfg={RELEASED_CFG}");
    }
    which
}

fn out_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"))
}

/// Write `files` (`(path relative to dir, text)`) as a fresh directory tree at `dir`.
fn write_tree(dir: &Path, files: &[(&str, &str)]) -> std::io::Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    for (relative, text) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, text)?;
    }
    Ok(())
}

/// Emit the runtime code of a loaded spec (from `spec_dir`) to `out`, or fail the build with
/// the spec's errors.
fn write_runtime(spec_dir: &Path, loaded: &crate::Loaded, what: &str, out: &Path) {
    let Some(code) = runtime_code(loaded) else {
        fail_with_diagnostics(spec_dir, loaded, what);
    };
    if let Err(e) = write_if_changed(out, &code) {
        fail(&[format!("cannot write {}: {e}", out.display())]);
    }
}

/// The spec directory as the user knows it: without `..` steps or links.
fn shown(spec_dir: &Path) -> PathBuf {
    fs::canonicalize(spec_dir).unwrap_or_else(|_| spec_dir.to_path_buf())
}

/// The command that shows a spec's every finding with its source lines and help.
fn check_command(spec_dir: &Path) -> String {
    format!(
        "cargo run --bin hurray-spec -- check --spec {}",
        shown(spec_dir).display()
    )
}

/// Fail the build script with `lines`, each shown by cargo as one `error:` line. A build
/// script that exits non-zero has cargo replay its whole stdout and stderr (every
/// `rerun-if-changed` line included); `cargo::error=` lines are shown alone, once, and fail
/// the build just the same.
fn fail(lines: &[String]) -> ! {
    for block in lines {
        for line in block.lines() {
            println!("cargo::error={line}");
        }
    }
    std::process::exit(0)
}

/// Fail with the errors of a spec that does not load cleanly: each on one line with its
/// location (relative to the directory holding the spec) and help, then the command that
/// shows every finding, with the amendment verdicts, rendered with its source.
fn fail_with_diagnostics(spec_dir: &Path, loaded: &crate::Loaded, what: &str) -> ! {
    let root = shown(spec_dir);
    let base = root.parent().unwrap_or(&root);
    let errors: Vec<_> = loaded
        .diags
        .items()
        .iter()
        .filter(|d| d.level == diag::Level::Error)
        .collect();
    let mut lines = vec![format!(
        "cannot generate {what}: the spec in {} has {} error(s)",
        root.display(),
        errors.len()
    )];
    for d in errors {
        let at = d
            .span
            .map(|s| {
                let f = loaded.sources.get(s.file);
                let path = shown(&f.path);
                let path = path.strip_prefix(base).unwrap_or(&path);
                format!("{}:{}: ", path.display(), f.line_col(s.start as usize))
            })
            .unwrap_or_default();
        lines.push(format!("  {at}error[{}]: {}", d.lint.id, d.message));
        if let Some(h) = &d.help {
            lines.push(format!("    help: {h}"));
        }
    }
    lines.push(format!(
        "every finding, with its source line: {}",
        check_command(spec_dir)
    ));
    fail(&lines)
}
