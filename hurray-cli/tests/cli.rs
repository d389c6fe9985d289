//! The `hurray` binary's command-line contract: exit codes, the first line of a rejection,
//! and the JSON round trip. (The workspace's integration tests under `tests/` drive the same
//! binary over the whole corpus.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

fn hurray(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hurray"))
        .args(args)
        .output()
        .expect("the hurray binary runs")
}

#[test]
fn decode_accepts_the_shared_file_and_prints_its_summary() {
    let file = shared().join("conformance/files/basic.hrry");
    let out = hurray(&["decode", file.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("file 1.0, "));
}

#[test]
fn a_rejection_exits_1_with_code_rule_and_offset_on_the_first_line() {
    let mut bytes = std::fs::read(shared().join("conformance/files/basic.hrry")).unwrap();
    bytes[8] = 2; // container_version_major
    let dir = std::env::temp_dir().join(format!("hurray-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("major2.hrry");
    std::fs::write(&path, &bytes).unwrap();
    let out = hurray(&["decode", path.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("error[major-version-too-high]: ") && first.ends_with("(at byte 8)"),
        "{first}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = hurray(&["decode", "/nonexistent/hurray-cli-test"]);
    assert_eq!(out.status.code(), Some(2));
    let out = hurray(&["no-such-command"]);
    assert_eq!(out.status.code(), Some(2));
}
