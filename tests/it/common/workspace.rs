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

/// The one copy of the workspace every end-to-end test builds in, `<dir>/workspace`, with
/// the format's public sources linked beside it (`<dir>/shared`, as `../shared` is beside the
/// repository), and the lock a test holds while it uses the copy. One copy, not one per test
/// or scenario: cargo tells path packages apart by their path, so a copy at a new path
/// compiles every crate of the workspace again, while the same copy, brought up to date file
/// by file ([`sync_sources`]), recompiles only what its changed files reach (for a scenario
/// that amends spec/, the crates generated from it).
pub fn e2e_copy() -> (std::sync::MutexGuard<'static, ()>, PathBuf) {
    static IN_USE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed while holding it left the copy as any test may find it: synced anew.
    let guard = IN_USE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = std::env::temp_dir().join("hurray-e2e");
    let workspace = dir.join("workspace");
    sync_sources(&crate::common::root(), &workspace);
    // Made anew each time: an earlier run's link may name a checkout that is gone.
    let shared = dir.join("shared");
    if shared.symlink_metadata().is_ok_and(|m| m.is_symlink()) {
        std::fs::remove_file(&shared).unwrap();
    }
    let _ = std::fs::remove_dir_all(&shared);
    let from = crate::common::shared().canonicalize().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&from, &shared).unwrap();
    #[cfg(not(unix))]
    crate::common::fixtures::copy_dir(&from, &shared);
    (guard, workspace)
}

/// Make `to` a copy of the tree `from` (without its `target/` and `.git/`; `to`'s `.git/` is
/// removed) as a checkout does: a file whose bytes are already there is left alone, keeping
/// its modification time, and every other file is written, with a new one; what `from` lacks
/// is removed. Cargo fingerprints path packages by their files' modification times, so an
/// earlier build of `to` stays fresh exactly where the bytes are the same.
pub fn sync_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let skipped = |name: &std::ffi::OsStr| name == "target" || name == ".git";
    let _ = std::fs::remove_dir_all(to.join(".git"));
    let mut present = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if skipped(&name) {
            continue;
        }
        present.insert(name.clone());
        let (src, dst) = (e.path(), to.join(&name));
        let kind = e.file_type().unwrap();
        let there = dst.symlink_metadata().ok().map(|m| m.file_type());
        if kind.is_symlink() {
            // A link inside the tree (a crate embedding spec/) stays a link in the copy.
            let link = std::fs::read_link(&src).unwrap();
            if there.is_some_and(|t| t.is_symlink())
                && std::fs::read_link(&dst).is_ok_and(|l| l == link)
            {
                continue;
            }
            remove(&dst);
            #[cfg(unix)]
            std::os::unix::fs::symlink(&link, &dst).unwrap();
            #[cfg(not(unix))]
            if src.is_dir() {
                sync_sources(&src, &dst);
            } else {
                std::fs::copy(&src, &dst).unwrap();
            }
        } else if kind.is_dir() {
            if there.is_some_and(|t| !t.is_dir()) {
                remove(&dst);
            }
            sync_sources(&src, &dst);
        } else {
            let bytes = std::fs::read(&src).unwrap();
            if there.is_some_and(|t| t.is_file()) && std::fs::read(&dst).is_ok_and(|b| b == bytes) {
                continue;
            }
            remove(&dst);
            std::fs::write(&dst, &bytes).unwrap();
            std::fs::set_permissions(&dst, e.metadata().unwrap().permissions()).unwrap();
        }
    }
    for e in std::fs::read_dir(to).unwrap() {
        let name = e.unwrap().file_name();
        if !skipped(&name) && !present.contains(&name) {
            remove(&to.join(name));
        }
    }
}

/// Remove a file, a link or a whole directory, whichever is there.
fn remove(path: &Path) {
    match path.symlink_metadata() {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path).unwrap(),
        Ok(_) => std::fs::remove_file(path).unwrap(),
        Err(_) => {}
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
