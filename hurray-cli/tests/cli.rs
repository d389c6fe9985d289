//! The `hurray` binary's command-line contract: exit codes, the first line of a rejection,
//! and the JSON round trip. (The workspace's integration tests under `tests/` drive the same
//! binary over the whole corpus.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn shared() -> PathBuf {
    manifest_dir().join("../../shared")
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
fn the_summary_shows_every_optional_section_present() {
    // The sections come from the generated code (`Descriptor::CONDITIONAL_FIELDS`), not a
    // list in the command line: each section the JSON holds has its line, by its spec name.
    let vector = corpus_vector("section-all-with-quantization.bin");
    let j = decoded(&vector, &[]);
    let out = hurray(&["decode", vector.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let summary = String::from_utf8_lossy(&out.stdout).to_string();
    let sections: Vec<&String> = j
        .as_object()
        .unwrap()
        .iter()
        // The flag-gated sections, by the generated list (the contract's other objects, such
        // as the fields a reader defaulted, are not sections).
        .filter(|(k, v)| {
            v.is_object()
                && hurray_runtime::structures::Descriptor::CONDITIONAL_FIELDS.contains(&k.as_str())
        })
        .map(|(k, _)| k)
        .collect();
    assert!(sections.len() >= 4, "{j}");
    for key in sections {
        assert!(
            summary
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{key} "))),
            "no line for `{key}`:\n{summary}"
        );
    }
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

/// A valid descriptor and a valid file of the corpus.
fn corpus_vector(name: &str) -> PathBuf {
    manifest_dir().join("../tests/corpus/valid").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hurray-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn decoded(path: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["decode", "--json"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    let out = hurray(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Encode `text` (written to a scratch file); the exit code, stderr's first line and the bytes.
fn encode_text(dir: &Path, text: &str) -> (Option<i32>, String, Option<Vec<u8>>) {
    let input = dir.join("in.json");
    let output = dir.join("out.bin");
    let _ = std::fs::remove_file(&output);
    std::fs::write(&input, text).unwrap();
    let out = hurray(&[
        "encode",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    let first = String::from_utf8_lossy(&out.stderr)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    (out.status.code(), first, std::fs::read(&output).ok())
}

#[test]
fn encode_refuses_what_its_input_cannot_mean_and_names_the_json_path() {
    let dir = scratch("encode-strict");
    let descriptor = corpus_vector("type-float32.bin");
    let base = decoded(&descriptor, &[]);
    let with = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut j = base.clone();
        edit(&mut j);
        j.to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (
            with(&|j| j["colour"] = 1.into()),
            "error[encode-unknown-key]: colour: ",
        ),
        (
            with(&|j| j["buffers"][0]["colour"] = 1.into()),
            "error[encode-unknown-key]: buffers[0].colour: ",
        ),
        (
            with(&|j| j["element_type"] = "float33".into()),
            "error[encode-invalid-value]: element_type: `float33`",
        ),
        (
            with(&|j| j["element_type"] = "int8".into()),
            "error[encode-contradiction]: element_type: `int8` contradicts type_tag",
        ),
        (
            with(&|j| {
                j.as_object_mut().unwrap().remove("shape");
            }),
            "error[encode-missing-key]: shape: missing",
        ),
        (
            with(&|j| j["buffers"][0]["alignment"] = 1.5.into()),
            "error[encode-invalid-value]: buffers[0].alignment",
        ),
        (
            with(&|j| j["evolution"] = serde_json::json!({"moved": []})),
            "error[encode-unknown-key]: evolution.moved",
        ),
        (
            r#"{"kind": "descriptor", "rank": 2, "rank": 3}"#.to_string(),
            "error[encode-duplicate-key]: rank: ",
        ),
        ("{".to_string(), "error[encode-not-json]: "),
    ];
    for (text, expected) in cases {
        let (code, first, bytes) = encode_text(&dir, &text);
        assert_eq!(code, Some(1), "{text}: {first}");
        assert!(
            first.starts_with(expected),
            "{text}: `{first}` should start `{expected}`"
        );
        assert!(bytes.is_none(), "{text}: a refused input wrote bytes");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every code `encode` refuses with is a variant of the enum the build script generates from
/// `refusals.toml`, the table the rule catalogue (`hurray-spec rules`) lists: no code is
/// written out in the source, where it could escape the catalogue.
#[test]
fn every_refusal_code_comes_from_the_refusal_table() {
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    sources(&manifest_dir().join("src"), &mut files);
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(
            !text.contains("\"encode-"),
            "{} writes an `encode-…` code as a string: add it to refusals.toml and use its `Refusal` variant",
            f.display()
        );
    }
}

#[test]
fn encode_computes_the_fields_a_writer_derives_when_they_are_left_out() {
    let dir = scratch("encode-computed");
    let descriptor = corpus_vector("type-float32.bin");
    let mut j = decoded(&descriptor, &[]);
    for key in [
        "descriptor_length",
        "rank",
        "flags",
        "version_major",
        "version_minor",
        "type_tag",
        "layout_tag",
    ] {
        j.as_object_mut().unwrap().remove(key);
    }
    let (code, first, bytes) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(0), "{first}");
    assert_eq!(bytes.unwrap(), std::fs::read(&descriptor).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_encodes_from_data_references_and_from_its_contents_alone() {
    let dir = scratch("encode-file");
    let file = corpus_vector("file-basic-kv.hrry");
    let original = std::fs::read(&file).unwrap();
    // Data as raw files (`--data-dir`).
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let j = decoded(&file, &["--data-dir", data.to_str().unwrap()]);
    assert!(j["tensors"][0]["data"][0]["path"].is_string(), "{j}");
    let (code, first, bytes) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(0), "{first}");
    assert_eq!(bytes.unwrap(), original);
    // Without offsets or placement the runtime's writer places every part.
    let mut j = decoded(&file, &[]);
    let o = j.as_object_mut().unwrap();
    o.remove("placement");
    for t in o["tensors"].as_array_mut().unwrap() {
        let t = t.as_object_mut().unwrap();
        for key in [
            "descriptor_offset",
            "descriptor_length",
            "data_offset",
            "data_length",
        ] {
            t.remove(key);
        }
    }
    let (code, first, bytes) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(0), "{first}");
    assert_eq!(bytes.unwrap(), original);
    // A missing data reference, and one of the wrong size.
    let mut j = decoded(&file, &[]);
    j["tensors"][0].as_object_mut().unwrap().remove("data");
    let (code, first, _) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1));
    assert!(
        first.starts_with("error[encode-missing-key]: tensors[0].data"),
        "{first}"
    );
    let mut j = decoded(&file, &[]);
    j["tensors"][0]["data"][0] = serde_json::json!({"hex": "00"});
    let (code, first, _) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1));
    assert!(
        first.starts_with("error[encode-data-size]: tensors[0].data[0].hex"),
        "{first}"
    );
    let mut j = decoded(&file, &[]);
    j["tensors"][0]["data"][0] = serde_json::json!({"path": "no-such-buffer.bin"});
    let (code, first, _) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1));
    assert!(
        first.starts_with("error[encode-data-unreadable]: tensors[0].data[0].path"),
        "{first}"
    );
    // A placement that contradicts where the parts are.
    let mut j = decoded(&file, &[]);
    j["tensors"][0]["data_offset"] = 8192.into();
    let (code, first, bytes) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1), "{first}");
    assert!(bytes.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn encode_computes_the_container_version_and_every_own_length_prefix_it_is_not_given() {
    let dir = scratch("encode-derived");
    let file = corpus_vector("file-basic-kv.hrry");
    let original = std::fs::read(&file).unwrap();
    // Neither the container version (W2: the lowest that covers the file) nor any
    // descriptor's own length prefix (`descriptor_length`) is needed.
    let mut j = decoded(&file, &[]);
    let o = j.as_object_mut().unwrap();
    o.remove("container_version_major");
    o.remove("container_version_minor");
    for t in o["tensors"].as_array_mut().unwrap() {
        t["descriptor"]
            .as_object_mut()
            .unwrap()
            .remove("descriptor_length");
    }
    let (code, first, bytes) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(0), "{first}");
    assert_eq!(bytes.unwrap(), original);
    // One of the version's two keys alone is a missing key, named.
    let mut j = decoded(&file, &[]);
    j.as_object_mut().unwrap().remove("container_version_minor");
    let (code, first, _) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1));
    assert!(
        first.starts_with("error[encode-missing-key]: container_version_minor: "),
        "{first}"
    );
    // A declared version below what the file needs (W2) is refused at the JSON key, saying
    // what to write there (no advice for the Rust API).
    let mut j = decoded(&file, &[]);
    j["container_version_major"] = 0.into();
    let (code, first, bytes) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1));
    assert!(bytes.is_none());
    assert!(
        first.starts_with("error[encode-contradiction]: container_version_minor: "),
        "{first}"
    );
    assert!(
        first.contains("write \"container_version_major\": 1"),
        "{first}"
    );
    assert!(!first.contains("FileOptions"), "{first}");
    // A writer's refusal names the JSON path of the part it refuses, with the rule.
    let mut j = decoded(&file, &[]);
    let o = j.as_object_mut().unwrap();
    o.remove("placement");
    let tensors = o["tensors"].as_array_mut().unwrap();
    for t in tensors.iter_mut() {
        let t = t.as_object_mut().unwrap();
        for key in [
            "descriptor_offset",
            "descriptor_length",
            "data_offset",
            "data_length",
        ] {
            t.remove(key);
        }
    }
    let again = tensors[0].clone();
    tensors.push(again);
    let (code, first, _) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1));
    let n = j["tensors"].as_array().unwrap().len() - 1;
    assert!(
        first.starts_with(&format!("error[duplicate-name]: tensors[{n}]: "))
            && first.contains("(rule F25)"),
        "{first}"
    );
    // A descriptor's own length prefix given wrong is taken as given: the read-back rejects
    // it under its framing rule.
    let descriptor = corpus_vector("type-float32.bin");
    let mut j = decoded(&descriptor, &[]);
    j["descriptor_length"] = 21.into();
    let (code, first, bytes) = encode_text(&dir, &j.to_string());
    assert_eq!(code, Some(1), "{first}");
    assert!(bytes.is_none());
    assert!(first.contains("(rule HDR-5"), "{first}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resource_limits_refuse_with_limit_exceeded_and_no_rule() {
    let descriptor = corpus_vector("type-float32.bin");
    let out = hurray(&[
        "decode",
        "--json",
        "--max-descriptor-length",
        "20",
        descriptor.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["code"], "limit-exceeded", "{j}");
    assert_eq!(j["rule"], serde_json::Value::Null, "{j}");
    let file = corpus_vector("file-basic-kv.hrry");
    for (option, value) in [("--max-tensors", "0"), ("--max-kv-length", "8")] {
        let out = hurray(&["decode", option, value, file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{option}: {stderr}");
        assert!(
            stderr.starts_with("error[limit-exceeded]: "),
            "{option}: {stderr}"
        );
    }
    // The default refuses nothing legal; a limit that is not a number is a usage error.
    let out = hurray(&["decode", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let out = hurray(&["decode", "--max-tensors", "many", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn agreements_are_options_by_space_name_and_only_private_values_are_agreed() {
    let descriptor = corpus_vector("section-extension-type.bin");
    let path = descriptor.to_str().unwrap();
    assert_eq!(hurray(&["decode", path]).status.code(), Some(1));
    assert_eq!(
        hurray(&["decode", "--agree", "element_type=0xF5", path])
            .status
            .code(),
        Some(0)
    );
    for bad in [
        "element_type=0x03",
        "no_such_space=0xF5",
        "element_type",
        "element_type=x",
    ] {
        let out = hurray(&["decode", "--agree", bad, path]);
        assert_eq!(out.status.code(), Some(2), "--agree {bad}");
    }
}

#[test]
fn decode_dash_reads_standard_input_and_names_it_in_a_rejection() {
    use std::io::Write as _;
    let mut bytes = std::fs::read(corpus_vector("type-float32.bin")).unwrap();
    let run = |bytes: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hurray"))
            .args(["decode", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(bytes).unwrap();
        child.wait_with_output().unwrap()
    };
    assert_eq!(run(&bytes).status.code(), Some(0));
    bytes[4] = 9; // version_major
    let out = run(&bytes);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in standard input"));
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
    assert_eq!(type_tag["value-provenance"], "read");
    // No spec name (a snake_case identifier) can be a hyphenated key.
    assert!(type_tag.get("provenance").is_none(), "{type_tag}");
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
    // The rejection reads as `decode` prints it: the code once, the offset once.
    assert_eq!(table.matches("error[").count(), 1, "{table}");
    assert_eq!(table.matches("(at byte").count(), 1, "{table}");
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert_eq!(stderr.matches("error[").count(), 1, "{stderr}");
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

/// This checkout's package directory: cargo's value when it runs the test (a test binary
/// built in another checkout that shares the target directory is reused here, with that
/// checkout's compile-time path), else the compile-time one.
fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
        || env!("CARGO_MANIFEST_DIR").into(),
        std::path::PathBuf::from,
    )
}

/// The reference implementation's canonical streams (../shared/conformance/stream).
fn streams() -> Vec<PathBuf> {
    let dir = shared().join("conformance/stream");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    out.sort();
    assert_eq!(out.len(), 10, "{}", dir.display());
    out
}

#[test]
fn every_reference_stream_decodes_to_json_and_encodes_back_byte_for_byte() {
    let dir = scratch("stream-roundtrip");
    for (k, stream) in streams().iter().enumerate() {
        let name = stream.display();
        for data_dir in [None, Some(dir.join(format!("data-{k}")))] {
            let mut args = vec!["decode", "--as", "stream", "--json"];
            if let Some(d) = &data_dir {
                std::fs::create_dir_all(d).unwrap();
                args.extend(["--data-dir", d.to_str().unwrap()]);
            }
            args.push(stream.to_str().unwrap());
            let out = hurray(&args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(j["kind"], "stream");
            let json = dir.join(format!("{k}.json"));
            std::fs::write(&json, &out.stdout).unwrap();
            let back = dir.join(format!("{k}.hrrys"));
            let out = hurray(&[
                "encode",
                json.to_str().unwrap(),
                "-o",
                back.to_str().unwrap(),
            ]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(stream).unwrap(),
                "{name}"
            );
            // The `.hrrys` name alone says it is a stream, to `decode` and to `inspect`.
            let out = hurray(&["decode", back.to_str().unwrap()]);
            assert!(
                String::from_utf8_lossy(&out.stdout).starts_with("stream, "),
                "{name}"
            );
            let out = hurray(&["inspect", "--json", back.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(0), "{name}");
            let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(j["input"], "stream", "{name}: {j}");
        }
    }
}

#[test]
fn a_stream_is_rejected_with_its_rule_and_encode_refuses_what_the_stream_contradicts() {
    let dir = shared().join("conformance/stream");
    let torn = dir.join("invalid/torn_composite_1_of_2.bin");
    let out = hurray(&["decode", "--as", "stream", torn.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error[torn-composite]"));
    // A stream's JSON whose computed keys contradict the bytes, or that has a key no stream
    // has, is refused at the JSON path.
    let out = hurray(&[
        "decode",
        "--as",
        "stream",
        "--json",
        dir.join("row_major_3.bin").to_str().unwrap(),
    ]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tmp = scratch("stream-refusals");
    for (edit, code) in [
        ("/tensors/1/descriptor_offset", "encode-contradiction"),
        ("/tensors/0/colour", "encode-unknown-key"),
    ] {
        let mut j = j.clone();
        let (parent, key) = edit.rsplit_once('/').unwrap();
        j.pointer_mut(parent)
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert(key.into(), 7.into());
        let json = tmp.join("edited.json");
        std::fs::write(&json, serde_json::to_vec(&j).unwrap()).unwrap();
        let out = hurray(&[
            "encode",
            json.to_str().unwrap(),
            "-o",
            tmp.join("x.hrrys").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{edit}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(&format!("error[{code}]")), "{edit}: {err}");
        assert!(!tmp.join("x.hrrys").exists(), "{edit}: nothing is written");
    }
}
