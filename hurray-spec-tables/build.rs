//! Embeds the spec tree: lists every TOML file under this package's `spec/` (in the source
//! repository a symbolic link to the one `spec/` that spec editors edit; in the published
//! package the files themselves) and writes to `OUT_DIR` an array of `include_str!`s, so the
//! crate is recompiled whenever a table changes, is added or is removed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The variable that keys a build to its checkout (set in the repository's
/// `.cargo/config.toml`; `hurray_codegen::build::CHECKOUT_ENV` names the same).
const CHECKOUT_ENV: &str = "HURRAY_SPEC_CHECKOUT";

fn main() {
    let manifest = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let link = manifest.join("spec");
    let root = match std::fs::canonicalize(&link) {
        Ok(root) if root.is_dir() => root,
        _ => panic!(
            "hurray-spec-tables: {} is not the spec directory; in a clone of the repository it \
             is a symbolic link to ../spec (on Windows, clone with `git config core.symlinks true`)",
            link.display()
        ),
    };

    let mut files = Vec::new();
    if let Err(e) = collect(&root, &root, &mut files) {
        panic!("hurray-spec-tables: cannot list {}: {e}", root.display());
    }
    files.sort();

    let mut code = String::from("&[\n");
    for (relative, absolute) in &files {
        writeln!(code, "    ({relative:?}, include_str!({absolute:?})),")
            .expect("writing to a String cannot fail");
    }
    code.push_str("]\n");

    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("spec_files.rs");
    if std::fs::read_to_string(&out).ok().as_deref() != Some(code.as_str())
        && let Err(e) = std::fs::write(&out, &code)
    {
        panic!("hurray-spec-tables: cannot write {}: {e}", out.display());
    }

    // Cargo scans a directory named here recursively, so an added or removed table reruns
    // this script; an edited one is also tracked by rustc through `include_str!`.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", root.display());
    // Modification times alone cannot tell two checkouts apart: cargo gives every clone of
    // the workspace the same build directory, and a clone whose tables are older than
    // another clone's last build would reuse it. The repository's `.cargo/config.toml` sets
    // this variable to the checkout's path, so building from another checkout reruns this
    // script, which then names that checkout's tables.
    println!("cargo:rerun-if-env-changed={CHECKOUT_ENV}");
    println!(
        "cargo:rustc-env=HURRAY_SPEC_TABLES_ROOT={}",
        root.to_str().expect("the spec directory's path is UTF-8")
    );
}

/// Every `*.toml` file under `dir`, as (path relative to `root` with `/` separators, absolute
/// path).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            let relative = path
                .strip_prefix(root)
                .expect("a listed file lies under the listed root")
                .components()
                .map(|c| c.as_os_str().to_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| not_utf8(&path))?
                .join("/");
            let absolute = path.to_str().ok_or_else(|| not_utf8(&path))?.to_owned();
            out.push((relative, absolute));
        }
    }
    Ok(())
}

fn not_utf8(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("{} is not a UTF-8 path", path.display()),
    )
}
