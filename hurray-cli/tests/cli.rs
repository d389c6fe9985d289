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

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("inspect --json prints JSON")
}

#[test]
fn inspect_json_covers_every_byte_of_a_file_and_names_its_fields() {
    let file = shared().join("conformance/files/basic.hrry");
    let len = std::fs::metadata(&file).unwrap().len();
    let out = hurray(&["inspect", "--json", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let j = json_of(&out);
    assert_eq!(j["input"], "file");
    assert_eq!(j["length"], len);
    assert!(j["error"].is_null());
    let ranges = j["ranges"].as_array().unwrap();
    let mut at = 0;
    for r in ranges.iter().filter(|r| r["kind"] != "structure") {
        let (start, end) = (r["start"].as_u64().unwrap(), r["end"].as_u64().unwrap());
        if end > start {
            assert_eq!(start, at, "{r}");
            at = end;
        }
    }
    assert_eq!(at, len);
    let crc = ranges
        .iter()
        .find(|r| r["path"] == "trailer.index_crc32c")
        .unwrap();
    assert!(crc["note"].as_str().unwrap().contains("matches"), "{crc}");
    let type_tag = ranges
        .iter()
        .find(|r| r["path"] == "tensors.weights.descriptor.fixed_header.type_tag")
        .unwrap();
    assert_eq!(type_tag["value"]["tag"]["name"], "float32");
    assert_eq!(type_tag["since"]["version"], "1.0");
    assert_eq!(type_tag["provenance"], "read");
}

#[test]
fn inspect_marks_the_failing_byte_of_a_rejected_input_and_exits_1() {
    let mut bytes = std::fs::read(shared().join("conformance/files/basic.hrry")).unwrap();
    bytes[8] = 2; // container_version_major
    let dir = std::env::temp_dir().join(format!("hurray-cli-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("major2.hrry");
    std::fs::write(&path, &bytes).unwrap();
    let out = hurray(&["inspect", "--json", path.to_str().unwrap()]);
    let text = hurray(&["inspect", path.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    let j = json_of(&out);
    assert_eq!(j["error"]["code"], "major-version-too-high");
    let failing: Vec<_> = j["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["failing"] == true)
        .collect();
    assert_eq!(failing.len(), 1);
    assert_eq!(failing[0]["path"], "header.container_version_major");
    let after = j["ranges"].as_array().unwrap().last().unwrap();
    assert_eq!(after["kind"], "unread");
    // The table marks the byte with the error, without colour when not on a terminal.
    let table = String::from_utf8_lossy(&text.stdout);
    assert!(table.contains("^ error[major-version-too-high]"), "{table}");
    assert!(!table.contains('\x1b'));
}

#[test]
fn inspect_data_shows_typed_values_and_hex() {
    let file = shared().join("conformance/files/basic.hrry");
    let out = hurray(&["inspect", "--json", "--data", file.to_str().unwrap()]);
    let j = json_of(&out);
    let data: Vec<_> = j["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "data")
        .collect();
    assert_eq!(data.len(), 2);
    assert_eq!(data[0]["data"]["type"], "float32");
    assert_eq!(data[0]["data"]["values"].as_array().unwrap().len(), 4);
    let out = hurray(&["inspect", "--json", "--data=hex", file.to_str().unwrap()]);
    let j = json_of(&out);
    let hex = j["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "data")
        .unwrap()["data"]["hex"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(hex.len(), 32, "16 bytes of float32 data");
}

#[test]
fn inspect_reads_standard_input() {
    use std::io::Write as _;
    let bytes = std::fs::read(shared().join("conformance/files/basic.hrry")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hurray"))
        .args(["inspect", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("file of {} bytes", bytes.len())),
        "{text}"
    );
    assert!(text.contains("trailer.trailer_magic"));
}
