//! The edge where generated code meets the file system: used by build scripts and by the
//! CLI's `docs` command. Files are written only when their content changes, so rebuilds stay
//! incremental.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diag::{self, Format};

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
/// the rendered diagnostics if the spec has errors, and write the code to `$OUT_DIR/<file>`.
///
/// The tables reach the build script as a build dependency, so cargo reruns it whenever they
/// change; the script itself need only print `cargo:rerun-if-changed=build.rs`.
pub fn generate_runtime(root: &Path, files: &[(&str, &str)], file: &str) {
    let loaded = crate::load_files(root, files);
    let what = format!("the spec in {}", root.display());
    write_runtime(&loaded, &what, &out_dir().join(file));
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
    let work = out_dir().join("overlay");
    let base = work.join("base");
    if let Err(e) = write_tree(&base, files) {
        panic!(
            "hurray-codegen: cannot write the spec tree of {} to {}: {e}",
            root.display(),
            base.display()
        );
    }
    let (_, tree) = match crate::overlay::materialize(&base, edit_toml, &work) {
        Ok(x) => x,
        Err(e) => panic!("hurray-codegen: cannot apply {}: {e}", edit_toml.display()),
    };
    let loaded = match crate::check(&tree, None) {
        Ok(l) => l,
        Err(e) => panic!("hurray-codegen: cannot read {}: {e}", tree.display()),
    };
    let what = format!(
        "the spec in {} overlaid with {}",
        root.display(),
        edit_toml.display()
    );
    write_runtime(&loaded, &what, &out_dir().join(file));
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

/// Emit the runtime code of a loaded spec to `out`, or fail the build with its diagnostics.
fn write_runtime(loaded: &crate::Loaded, what: &str, out: &Path) {
    let Some(code) = runtime_code(loaded) else {
        let text = diag::render(&loaded.sources, loaded.diags.items(), Format::Human);
        panic!(
            "hurray-codegen: {what} has errors; run `cargo run --bin hurray-spec -- check`\n{text}"
        );
    };
    if let Err(e) = write_if_changed(out, &code) {
        panic!("hurray-codegen: cannot write {}: {e}", out.display());
    }
}
