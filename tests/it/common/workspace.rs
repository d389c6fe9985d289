//! A copy of the workspace to build in: the end-to-end tests that build the workspace's
//! crates from an edited copy (a spec broken mid-edit, the evolution playbook's scenarios).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The cargo running the tests (cargo sets `CARGO` for the processes it runs).
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The target directory a copy of the workspace builds in: `$HURRAY_E2E_TARGET` when set,
/// else `own` (one of the test's own, beside its copy). `.ci/run` sets it to the test's own
/// target directory, as two checkouts of a user's sharing one do: the copy reuses every
/// dependency built there, and the checkout key keeps its spec its own. Cargo then judges the
/// workspace's crates fresh by the copy's files, so do not point it at a target directory you
/// go on editing against.
pub fn e2e_target(own: PathBuf) -> PathBuf {
    std::env::var_os("HURRAY_E2E_TARGET")
        .map(PathBuf::from)
        .unwrap_or(own)
}

/// The target directory the tests were built in (`…/target/debug/hurray-spec` → `…/target`).
pub fn target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_hurray-spec"))
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in <target>/<profile>/")
        .to_path_buf()
}

/// Copy a tree, without `target/` and `.git/`, keeping each file's modification time so that
/// cargo, which fingerprints path dependencies by it, reuses an earlier build of the copy.
pub fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        let kind = e.file_type().unwrap();
        if kind.is_symlink() {
            // A link inside the tree (a crate embedding spec/) stays a link in the copy.
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
            #[cfg(not(unix))]
            if src.is_dir() {
                copy_sources(&src, &dst);
            } else {
                std::fs::copy(&src, &dst).unwrap();
            }
        } else if kind.is_dir() {
            copy_sources(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
            let modified = std::fs::metadata(&src).unwrap().modified().unwrap();
            std::fs::File::options()
                .write(true)
                .open(&dst)
                .unwrap()
                .set_modified(modified)
                .unwrap();
        }
    }
}

/// Run cargo in the copy, offline, with the copy's own target directory.
pub fn cargo_in(workspace: &Path, target: &Path, args: &[&str]) -> Output {
    cargo()
        .args(args)
        .current_dir(workspace)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CARGO_MAKEFLAGS")
        .output()
        .expect("cargo runs")
}
