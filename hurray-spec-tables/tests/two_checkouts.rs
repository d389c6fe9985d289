//! Two checkouts of the repository with different specs, built into one target directory (a
//! global `CARGO_TARGET_DIR`, git worktrees): each build embeds its own checkout's tables,
//! whichever checkout was built last and however old its files are.
//!
//! cargo gives every clone of a workspace the same build directories (a member is hashed by
//! its path relative to the workspace root) and judges freshness by modification times, so
//! without the checkout key (`HURRAY_SPEC_CHECKOUT`, set by `.cargo/config.toml`) a clone whose
//! tables are older than the other clone's last build reused that build: the other spec.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository this package lies in.
fn repository() -> PathBuf {
    manifest_dir()
        .parent()
        .expect("the package lies in the repository")
        .to_path_buf()
}

/// Copy the repository's working tree (tracked files and untracked ones git does not ignore,
/// symbolic links as links) to `to`.
fn copy_checkout(from: &Path, to: &Path) {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(from)
        .output()
        .expect("git lists the working tree (the test copies a clone of the repository)");
    assert!(listed.status.success(), "git ls-files failed: {listed:?}");
    let names = String::from_utf8(listed.stdout).expect("the repository's paths are UTF-8");
    for name in names.split('\0').filter(|n| !n.is_empty()) {
        let source = from.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&source) else {
            continue; // tracked, deleted in the working tree
        };
        let target = to.join(name);
        std::fs::create_dir_all(target.parent().expect("a file has a parent"))
            .expect("the copy's directories are created");
        if meta.file_type().is_symlink() {
            let link = std::fs::read_link(&source).expect("the link reads");
            std::os::unix::fs::symlink(link, &target).expect("the link is copied");
        } else {
            std::fs::copy(&source, &target).expect("the file is copied");
        }
    }
}

/// What one build of `hurray-spec-tables` in a checkout did.
#[derive(Debug)]
struct Build {
    /// The files the built crate embeds: the absolute paths in its generated `include_str!`s.
    embedded: BTreeSet<PathBuf>,
    /// Whether cargo reused the library it had (nothing rebuilt).
    fresh: bool,
}

/// Build `hurray-spec-tables` in `checkout` into `target`, as a user would from the
/// checkout's root.
fn build(checkout: &Path, target: &Path) -> Build {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "build",
            "--offline",
            "--quiet",
            "-p",
            "hurray-spec-tables",
            "--message-format=json",
        ])
        .current_dir(checkout)
        .env("CARGO_TARGET_DIR", target)
        // The key comes from the checkout's own `.cargo/config.toml`, not from the cargo
        // that runs this test.
        .env_remove("HURRAY_SPEC_CHECKOUT")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building {} failed:\n{}",
        checkout.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut out_dir = None;
    let mut fresh = None;
    for line in String::from_utf8(out.stdout)
        .expect("cargo's messages are UTF-8")
        .lines()
    {
        let message: serde_json::Value = serde_json::from_str(line).expect("a JSON message");
        let ours = message["package_id"]
            .as_str()
            .is_some_and(|id| id.contains("hurray-spec-tables"));
        if !ours {
            continue;
        }
        match message["reason"].as_str() {
            Some("build-script-executed") => {
                out_dir = message["out_dir"].as_str().map(PathBuf::from);
            }
            Some("compiler-artifact") if message["target"]["kind"][0] == "lib" => {
                fresh = message["fresh"].as_bool();
            }
            _ => {}
        }
    }
    let out_dir = out_dir.expect("cargo reports the build script's output directory");
    let generated = std::fs::read_to_string(out_dir.join("spec_files.rs"))
        .expect("the build script wrote spec_files.rs");
    let embedded = generated
        .lines()
        .filter_map(|line| line.split("include_str!(").nth(1))
        .map(|rest| {
            let quoted = rest.trim_end_matches(")),");
            PathBuf::from(serde_json::from_str::<String>(quoted).expect("a quoted path"))
        })
        .collect();
    Build {
        embedded,
        fresh: fresh.expect("cargo reports the library"),
    }
}

/// Every TOML file under the checkout's spec directory, as the build script names them.
fn tables(checkout: &Path) -> BTreeSet<PathBuf> {
    fn walk(dir: &Path, out: &mut BTreeSet<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("the spec directory lists") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.insert(path);
            }
        }
    }
    let root = std::fs::canonicalize(checkout.join("spec")).expect("the checkout has a spec");
    let mut out = BTreeSet::new();
    walk(&root, &mut out);
    out
}

#[test]
fn two_checkouts_sharing_a_target_directory_each_build_their_own_spec() {
    let work = tempfile::tempdir().expect("a scratch directory");
    let (a, b, target) = (
        work.path().join("a"),
        work.path().join("b"),
        work.path().join("target"),
    );
    let repository = repository();
    copy_checkout(&repository, &a);
    copy_checkout(&repository, &b);
    // B's spec differs from A's: one more table, and an edited one.
    std::fs::write(
        b.join("spec/tags/clone_b_only.toml"),
        "# a table only clone B has\n",
    )
    .expect("B's extra table is written");
    let spec_toml = b.join("spec/spec.toml");
    let text = std::fs::read_to_string(&spec_toml).expect("B's spec.toml reads");
    std::fs::write(&spec_toml, format!("{text}\n# edited in clone B\n")).expect("B is edited");
    let (tables_a, tables_b) = (tables(&a), tables(&b));
    assert_ne!(tables_a, tables_b);

    // B first, then A, whose files are older than B's build: A gets its own tables.
    let first = build(&b, &target);
    assert_eq!(first.embedded, tables_b, "B embeds B's tables");
    let second = build(&a, &target);
    assert!(!second.fresh, "A's build does not reuse B's");
    assert_eq!(second.embedded, tables_a, "A embeds A's tables, not B's");

    // Building the same checkout again rebuilds nothing.
    let again = build(&a, &target);
    assert!(again.fresh, "an unchanged checkout is not rebuilt");
    assert_eq!(again.embedded, tables_a);

    // An edit of A's tables rebuilds A.
    let edited = a.join("spec/spec.toml");
    let text = std::fs::read_to_string(&edited).expect("A's spec.toml reads");
    std::fs::write(&edited, format!("{text}\n# edited in clone A\n")).expect("A is edited");
    let after_edit = build(&a, &target);
    assert!(!after_edit.fresh, "an edit of A's tables rebuilds A");
    assert_eq!(after_edit.embedded, tables_a);

    // And back to B, whose files are now the older ones.
    let back = build(&b, &target);
    assert!(!back.fresh, "B's build does not reuse A's");
    assert_eq!(back.embedded, tables_b);
}

/// This checkout's package directory: cargo's value when it runs the test (a test binary
/// built in another checkout that shares the target directory is reused here, with that
/// checkout's compile-time path), else the compile-time one.
fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
        || env!("CARGO_MANIFEST_DIR").into(),
        std::path::PathBuf::from,
    )
}
