//! Every vector of the project's corpus (`tests/corpus/`) through the `hurray` binary, with
//! the reader configuration its manifest records given as command-line options: each
//! rejecting vector is rejected with its manifest's code, rule and offset (on stderr and as the
//! JSON error object on stdout); each valid vector decodes to its checked-in JSON and
//! `decode --json` → `encode` gives its bytes back, byte for byte.

use std::path::PathBuf;
use std::process::{Command, Output};

use hurray_runtime::axes::Axis;
use serde_json::Value as J;

fn corpus() -> PathBuf {
    manifest_dir().join("../tests/corpus")
}

fn manifest(kind: &str) -> serde_json::Map<String, J> {
    let path = corpus().join(kind).join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match serde_json::from_str(&text).expect("the manifest is JSON") {
        J::Object(m) => m,
        _ => panic!("{}: not an object", path.display()),
    }
}

/// A manifest's message with the placeholder of an axis (`${descriptor}`: the manifest names
/// the version a reader acts at by it, so that an amendment of the spec leaves it as it is)
/// replaced by the axis's current version in the runtime this binary is built on, and a rule's
/// text (`${text:ID}`: it states facts an amendment changes) by the runtime's text of it.
fn expanded(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let (name, after) = rest[at + 2..]
            .split_once('}')
            .unwrap_or_else(|| panic!("an unclosed placeholder in `{message}`"));
        if let Some(id) = name.strip_prefix("text:") {
            let rule = hurray_runtime::rules::Rule::from_id(id)
                .unwrap_or_else(|| panic!("`${{{name}}}` in `{message}` names no rule"));
            out.push_str(rule.text());
            rest = after;
            continue;
        }
        let axis = Axis::from_name(name)
            .unwrap_or_else(|| panic!("`${{{name}}}` in `{message}` names no axis"));
        out.push_str(&axis.style().show(axis.current()));
        rest = after;
    }
    out.push_str(rest);
    out
}

fn hurray(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hurray"))
        .args(args)
        .output()
        .expect("the hurray binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The command-line options for a manifest entry's reader configuration: agreements (as
/// `{space, value}` objects or `[space, value]` pairs), extension layout ids, network mode
/// and permissive mode.
fn reader_options(entry: &J) -> Vec<String> {
    let config = entry.get("config").unwrap_or(entry);
    let mut args = Vec::new();
    for a in config["agree"].as_array().into_iter().flatten() {
        let (space, value) = match a {
            J::Array(pair) => (pair[0].as_str().unwrap(), pair[1].as_u64().unwrap()),
            _ => (a["space"].as_str().unwrap(), a["value"].as_u64().unwrap()),
        };
        args.push("--agree".into());
        args.push(format!("{space}={value:#x}"));
    }
    for id in config["agree_extension_layouts"]
        .as_array()
        .into_iter()
        .flatten()
    {
        args.push("--agree-extension-layout".into());
        args.push(id.as_u64().unwrap().to_string());
    }
    if config["network"] == J::Bool(true) {
        args.push("--network".into());
    }
    if config["permissive"] == J::Bool(true) {
        args.push("--permissive".into());
    }
    args
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hurray-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_rejecting_vector_is_rejected_with_its_code_rule_and_offset() {
    let m = manifest("reject");
    assert!(
        m.len() > 100,
        "the reject manifest lists {} vectors",
        m.len()
    );
    let mut failures = Vec::new();
    for (name, e) in &m {
        let path = corpus().join("reject").join(name);
        let mut args = vec!["decode".to_string(), "--json".to_string()];
        args.extend(reader_options(e));
        args.push(path.display().to_string());
        let out = hurray(&args);
        let stderr = text(&out.stderr);
        let mut lines = stderr.lines();
        let first = lines.next().unwrap_or_default();
        let second = lines.next().unwrap_or_default();
        let object: J = serde_json::from_slice(&out.stdout).unwrap_or(J::Null);
        let message = e["message"].as_str().map(expanded);
        let ok = out.status.code() == Some(1)
            && Some(first) == message.as_deref()
            && second.contains(name.as_str())
            && object["kind"] == "error"
            && object["code"] == e["code"]
            && object["rule"] == e["rule"]
            && object["offset"] == e["offset"]
            && object["message"]
                .as_str()
                .is_some_and(|m| first.contains(m))
            && object["input"]
                .as_str()
                .is_some_and(|i| i.ends_with(name.as_str()));
        if !ok {
            failures.push(format!(
                "{name} ({args:?}): exit {:?}, stderr `{stderr}`, stdout {object}",
                out.status.code()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        m.len(),
        failures.join("\n")
    );
}

#[test]
fn every_valid_vector_decodes_to_its_json_and_encodes_back_byte_for_byte() {
    let m = manifest("valid");
    let dir = scratch("valid");
    let mut failures = Vec::new();
    let mut files = 0;
    for (name, e) in &m {
        let is_file = e["kind"] == "file";
        files += usize::from(is_file);
        let path = corpus()
            .join("valid")
            .join(format!("{name}.{}", if is_file { "hrry" } else { "bin" }));
        let mut args = vec!["decode".to_string(), "--json".to_string()];
        args.extend(reader_options(e));
        args.push(path.display().to_string());
        let out = hurray(&args);
        if !out.status.success() {
            failures.push(format!("{name}: decode: {}", text(&out.stderr)));
            continue;
        }
        let mut decoded: J =
            serde_json::from_slice(&out.stdout).expect("decode --json prints JSON");
        let expected: J = serde_json::from_slice(
            &std::fs::read(corpus().join("valid").join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let json = dir.join(format!("{name}.json"));
        std::fs::write(&json, &out.stdout).unwrap();
        // The data references are the CLI's addition to the contract shape.
        if let Some(J::Array(tensors)) = decoded.get_mut("tensors") {
            for t in tensors {
                assert!(
                    t.as_object_mut().unwrap().remove("data").is_some(),
                    "{name}: no data"
                );
            }
        }
        if decoded != expected {
            failures.push(format!("{name}: decodes to\n{decoded}\nnot\n{expected}"));
        }
        let again = dir.join(format!("{name}.again"));
        let mut args = vec!["encode".to_string(), json.display().to_string()];
        args.extend(reader_options(e));
        args.extend(["-o".to_string(), again.display().to_string()]);
        let out = hurray(&args);
        if !out.status.success() {
            failures.push(format!("{name}: encode: {}", text(&out.stderr)));
        } else if std::fs::read(&again).unwrap() != std::fs::read(&path).unwrap() {
            failures.push(format!("{name}: encode gives other bytes"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(files >= 10, "only {files} file vectors");
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        m.len(),
        failures.join("\n")
    );
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
