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

/// For a build script: load `spec_dir`, fail the build with rendered diagnostics if it has
/// errors, and write the generated runtime code to `$OUT_DIR/<file>`.
pub fn generate_runtime(spec_dir: &Path, file: &str) {
    emit_rerun(spec_dir);
    let loaded = match crate::load(spec_dir) {
        Ok(l) => l,
        Err(e) => panic!("hurray-codegen: cannot read {}: {e}", spec_dir.display()),
    };
    let Some(spec) = loaded.clean() else {
        let text = diag::render(&loaded.sources, loaded.diags.items(), Format::Human);
        panic!(
            "hurray-codegen: the spec in {} has errors; run `cargo run --bin hurray-spec -- check`\n{text}",
            spec_dir.display()
        );
    };
    let code = crate::emit::rust::runtime(spec);
    let out =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"))
            .join(file);
    if let Err(e) = write_if_changed(&out, &code) {
        panic!("hurray-codegen: cannot write {}: {e}", out.display());
    }
}

/// `cargo:rerun-if-changed` for the spec directory and every file in it.
pub fn emit_rerun(spec_dir: &Path) {
    println!("cargo:rerun-if-changed={}", spec_dir.display());
    if let Ok(files) = crate::load::spec_files(spec_dir) {
        for f in files {
            println!("cargo:rerun-if-changed={}", f.display());
        }
    }
    for sub in ["tags", "flags", "structures", "rules"] {
        println!("cargo:rerun-if-changed={}", spec_dir.join(sub).display());
    }
}

/// For a build script: generate a runtime from `spec_dir` with the overlay `edit_toml`
/// applied (the second runtimes of the evolvability tests).
pub fn generate_runtime_with_overlay(spec_dir: &Path, edit_toml: &Path, file: &str) {
    println!("cargo:rerun-if-changed={}", edit_toml.display());
    emit_rerun(spec_dir);
    let out =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    let (_, tree) = match crate::overlay::materialize(spec_dir, edit_toml, &out.join("overlay")) {
        Ok(x) => x,
        Err(e) => panic!("hurray-codegen: cannot apply {}: {e}", edit_toml.display()),
    };
    let loaded = match crate::check(&tree, None) {
        Ok(l) => l,
        Err(e) => panic!("hurray-codegen: cannot read {}: {e}", tree.display()),
    };
    let Some(spec) = loaded.clean() else {
        let text = diag::render(&loaded.sources, loaded.diags.items(), Format::Human);
        panic!(
            "hurray-codegen: the overlaid spec {} has errors\n{text}",
            tree.display()
        );
    };
    let code = crate::emit::rust::runtime(spec);
    if let Err(e) = write_if_changed(&out.join(file), &code) {
        panic!("hurray-codegen: cannot write {file}: {e}");
    }
}
