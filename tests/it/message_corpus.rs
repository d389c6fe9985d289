//! The golden vectors of the interchange protocol's messages (`tests/corpus/messages/`) and
//! their rejecting vectors (`tests/corpus/message-reject/`), written from the tables: each row
//! of tests/corpus/messages.toml is a message in the tables' value form, encoded by the
//! generated encoders; each rejecting row breaks one of them in its value form or its bytes.
//! The tests compare what they build with the checked-in files (`BLESS=1` rewrites them), read
//! every valid vector back to the same value and bytes, and see every rejecting vector refused
//! under its rule, with its code and offset as the manifest records.

use std::collections::{BTreeMap, BTreeSet};

use hurray_runtime::ReaderConfig;
use hurray_runtime::json::{Evolution, from_json, to_json};
use hurray_runtime::message;
use hurray_runtime::structures::InterchangeMessage;
use hurray_runtime::tags::MessageType;
use hurray_runtime::wire::TagSpace;
use serde::Deserialize;
use serde_json::{Value as J, json};

use crate::common::{corpus, root};
use crate::protocol::{json as toml_json, message_from_value, patch};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    message: Vec<Row>,
    reject: Vec<Reject>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    name: String,
    what: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default = "one")]
    stream: u32,
    payload: toml::Table,
    descriptor: Option<String>,
    #[serde(default)]
    patch: toml::Table,
    data_bytes: Option<usize>,
    #[serde(default)]
    permissive: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reject {
    name: String,
    what: String,
    base: String,
    #[serde(default)]
    set: toml::Table,
    #[serde(default)]
    bytes: Vec<Write>,
    truncate: Option<usize>,
    rejects: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Write {
    at: usize,
    hex: String,
}

fn one() -> u32 {
    1
}

fn table() -> Table {
    let path = root().join("tests/corpus/messages.toml");
    toml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn config(permissive: bool) -> ReaderConfig {
    ReaderConfig::new().permissive(permissive)
}

/// A message's value form as JSON (what `hurray decode --json` prints).
fn value_json(m: &InterchangeMessage) -> J {
    to_json(&m.to_value(), "", &mut Evolution::default())
}

fn build_row(r: &Row) -> InterchangeMessage {
    let payload = J::Object(
        r.payload
            .iter()
            .map(|(k, v)| (k.clone(), toml_json(v)))
            .collect(),
    );
    message_from_value(
        &r.kind,
        r.stream,
        payload,
        r.descriptor.as_deref().map(|d| (d, &r.patch)),
        r.data_bytes,
    )
}

/// The rejecting row's bytes: its base's value form with `set` applied, encoded, then its
/// byte writes and truncation.
fn build_reject(r: &Reject, bases: &BTreeMap<&str, (&Row, InterchangeMessage)>) -> Vec<u8> {
    let (_, base) = bases
        .get(r.base.as_str())
        .unwrap_or_else(|| panic!("{}: no valid row `{}`", r.name, r.base));
    let mut bytes = if r.set.is_empty() {
        base.to_bytes()
    } else {
        let mut j = value_json(base);
        for (path, v) in &r.set {
            patch(&mut j, path, toml_json(v));
        }
        InterchangeMessage::from_value(&from_json(&j, "", &Evolution::default()), "")
            .unwrap_or_else(|e| panic!("{}: {e}", r.name))
            .to_bytes()
    };
    for w in &r.bytes {
        let clean: String = w.hex.chars().filter(|c| !c.is_whitespace()).collect();
        for (i, at) in (0..clean.len()).step_by(2).enumerate() {
            bytes[w.at + i] = u8::from_str_radix(&clean[at..at + 2], 16).unwrap();
        }
    }
    if let Some(n) = r.truncate {
        bytes.truncate(n);
    }
    bytes
}

struct Built {
    valid: BTreeMap<String, Vec<u8>>,
    reject: BTreeMap<String, Vec<u8>>,
}

/// Every vector and both manifests, from the table.
fn build() -> Built {
    let t = table();
    let mut names = BTreeSet::new();
    let bases: BTreeMap<&str, (&Row, InterchangeMessage)> = t
        .message
        .iter()
        .map(|r| (r.name.as_str(), (r, build_row(r))))
        .collect();
    let mut valid = BTreeMap::new();
    let mut manifest = Vec::new();
    for r in &t.message {
        assert!(names.insert(&r.name), "two rows are named {}", r.name);
        let m = &bases[r.name.as_str()].1;
        let bytes = m.to_bytes();
        if let Err(e) = message::read(&bytes, &config(r.permissive)) {
            panic!("{}: the message is rejected: {e}", r.name);
        }
        valid.insert(format!("{}.bin", r.name), bytes.clone());
        // What a legal amendment leaves alone: the bytes, and not their value form (a new
        // descriptor section shows in every carried descriptor's value), so an amendment
        // needs no refresh of this corpus, as of tests/corpus/reject/.
        manifest.push(json!({
            "name": r.name,
            "what": r.what,
            "message_type": r.kind,
            "stream_id": r.stream,
            "length": bytes.len(),
            "permissive": r.permissive,
        }));
    }
    valid.insert("manifest.json".into(), pretty(&manifest));
    let mut reject = BTreeMap::new();
    let mut manifest = Vec::new();
    for r in &t.reject {
        assert!(names.insert(&r.name), "two rows are named {}", r.name);
        let bytes = build_reject(r, &bases);
        let e = match message::read(&bytes, &config(false)) {
            Err(e) => e,
            Ok(_) => panic!("{}: a strict reader accepts it", r.name),
        };
        assert_eq!(
            e.rule().map(|x| x.id()),
            Some(r.rejects.as_str()),
            "{}: rejected under another rule: {e}",
            r.name
        );
        manifest.push(json!({
            "name": r.name,
            "what": r.what,
            "base": r.base,
            "rule": e.rule().map(|r| r.id()),
            "code": e.code(),
            "offset": e.offset(),
        }));
        reject.insert(format!("{}.bin", r.name), bytes);
    }
    reject.insert("manifest.json".into(), pretty(&manifest));
    Built { valid, reject }
}

fn pretty(v: &[J]) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).unwrap();
    out.push(b'\n');
    out
}

#[test]
fn the_message_corpus_matches_its_generator() {
    let built = build();
    let mut drift = corpus::sync(&root().join("tests/corpus/messages"), &built.valid);
    drift.extend(corpus::sync(
        &root().join("tests/corpus/message-reject"),
        &built.reject,
    ));
    assert!(
        drift.is_empty(),
        "{}\nrefresh with `BLESS=1 cargo test --test it message_corpus::` after reviewing",
        drift.join("\n")
    );
}

/// Every message type of the tables has a golden vector; each reads back to the value it was
/// written from, and its owned form encodes to the same bytes.
#[test]
fn every_message_type_has_a_golden_vector_that_round_trips() {
    let t = table();
    let mut kinds = BTreeSet::new();
    for r in &t.message {
        let bytes = std::fs::read(root().join(format!("tests/corpus/messages/{}.bin", r.name)))
            .unwrap_or_else(|e| panic!("{}: {e}", r.name));
        let read = message::read(&bytes, &config(r.permissive))
            .unwrap_or_else(|e| panic!("{}: {e}", r.name));
        let owned = read.view().owned();
        assert_eq!(
            owned.to_bytes(),
            bytes,
            "{}: encodes to other bytes",
            r.name
        );
        assert_eq!(
            value_json(&owned),
            value_json(&build_row(r)),
            "{}: reads to another value",
            r.name
        );
        kinds.insert(owned.message_type.raw());
    }
    let missing: Vec<&str> = MessageType::ALL
        .iter()
        .filter(|t| !kinds.contains(&t.value()))
        .map(|t| t.name())
        .collect();
    assert!(missing.is_empty(), "no golden vector of {missing:?}");
}

/// Every rejecting vector is refused by a strict reader under the rule its row names, with the
/// code and offset its manifest records.
#[test]
fn every_rejecting_message_vector_is_refused_as_its_manifest_says() {
    let t = table();
    let manifest: Vec<J> = serde_json::from_slice(
        &std::fs::read(root().join("tests/corpus/message-reject/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest.len(), t.reject.len());
    for (r, m) in t.reject.iter().zip(&manifest) {
        assert_eq!(m["name"], r.name.as_str());
        let bytes =
            std::fs::read(root().join(format!("tests/corpus/message-reject/{}.bin", r.name)))
                .unwrap();
        let e = message::read(&bytes, &config(false))
            .err()
            .unwrap_or_else(|| panic!("{}: accepted", r.name));
        let rule = e.rule().map(|x| x.id());
        assert_eq!(rule, Some(r.rejects.as_str()), "{}: {e}", r.name);
        assert_eq!(m["rule"], r.rejects.as_str(), "{}", r.name);
        assert_eq!(m["code"], e.code(), "{}", r.name);
        assert_eq!(m["offset"], e.offset(), "{}", r.name);
        assert!(
            (e.offset() as usize) <= bytes.len(),
            "{}: offset past the input",
            r.name
        );
    }
}
