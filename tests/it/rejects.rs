//! Rejecting vectors: for every reader rule the runtime enforces, byte strings that break
//! exactly that rule, checked in under `tests/corpus/reject/` and named after the rule.
//!
//! The vectors are data. `tests/corpus/reject.toml` has one row per vector: the rule it
//! breaks, a valid base (a tensor or file row built by `tests/it/common/build.rs` and read
//! back without a warning), how the base is broken (fields patched by their spec path,
//! a changed row encoded without the writer's checks, index or KV entries edited), the
//! reader configuration, and where the rejection must point (again a spec path). This file
//! turns the rows into bytes; `tests/corpus/reject/manifest.json` records, per file, the
//! rule, its stable code, the absolute byte offset, the configuration and the error line,
//! in which the version the reader acts at is the placeholder of its axis (`${descriptor}`),
//! so that a legal amendment of `spec/` leaves the manifest as it is. Refresh both with
//! `BLESS=1` after changing `reject.toml`: `BLESS=1 cargo test --test it rejects::`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::common::build::{self, Agreements, Library};
use crate::common::paths::{self, Root};
use crate::common::tables::{self, Keys};
use crate::common::{self, access, corpus, root};
use hurray_codegen::catalogue::Coverage;
use hurray_codegen::overlay::Vars;
use hurray_runtime::rules::{Action, Actor, EnforcedBy, Rule};
use hurray_runtime::structures::{IndexSection, KvSection, Trailer};
use hurray_runtime::{ReaderConfig, Value};
use serde_json::{Value as J, json};
use toml::Value as T;

const REFRESH: &str = "BLESS=1 cargo test --test it rejects::";

fn table_path() -> PathBuf {
    root().join("tests").join("corpus").join("reject.toml")
}

fn corpus_dir() -> PathBuf {
    root().join("tests").join("corpus").join("reject")
}

// ---------------------------------------------------------------------------------------
// Bases
// ---------------------------------------------------------------------------------------

/// A base: the bytes of a tensor or file row, and what reading it needs.
#[derive(Clone, Debug)]
struct Base {
    /// The row, its template merged in (what `with` merges over).
    row: toml::Table,
    is_file: bool,
    agreements: Agreements,
    bytes: Vec<u8>,
}

/// Keys of a base row that say how to read and check it rather than what it holds.
const READING_KEYS: &[&str] = &[
    "agree",
    "agree_extension_layouts",
    "network",
    "permissive",
    "check",
];

/// Build a base row. `checked`: the writer must accept it and a reader of its agreements
/// read it back without a warning (a descriptor marked `unchecked` is encoded as is).
fn build_base(row: &toml::Table, lib: &Library, what: &str, checked: bool) -> Base {
    let row = lib.expand(row, what);
    let (config, agreements) = build::reader_config(&row, what);
    let checked = checked && row.get("check").and_then(T::as_bool) != Some(false);
    let is_file = row.contains_key("tensors");
    let bytes = if is_file {
        let spec = build::file(&row, lib, what, READING_KEYS);
        let (bytes, _) = build::build_file(what, &spec, &config);
        if checked {
            let f = access::read_file(&bytes, &config)
                .unwrap_or_else(|e| panic!("{what}: a base file does not read back: {e:?}"));
            assert!(
                f.warnings().is_empty(),
                "{what}: base warnings: {:?}",
                f.warnings()
            );
        }
        bytes
    } else {
        let mut tensor_row = row.clone();
        for k in READING_KEYS {
            tensor_row.remove(*k);
        }
        let mut t = build::tensor(&tensor_row, lib, what);
        t.unchecked |= !checked;
        let bytes = build::descriptor_bytes(&t, &config, what);
        if !t.unchecked {
            let c = access::read_descriptor(&bytes, &config)
                .unwrap_or_else(|e| panic!("{what}: a base does not read back: {e:?}"));
            assert!(
                c.warnings().is_empty(),
                "{what}: base warnings: {:?}",
                c.warnings()
            );
            assert!(c.dereferenceable(), "{what}: a base is not dereferenceable");
        }
        bytes
    };
    Base {
        row,
        is_file,
        agreements,
        bytes,
    }
}

fn base_of(v: &T, lib: &Library, what: &str) -> Base {
    match v {
        T::String(name) => {
            let t = lib
                .templates
                .get(name)
                .unwrap_or_else(|| panic!("{what}: no template `{name}`"));
            build_base(tables::table(t, name), lib, name, true)
        }
        T::Table(t) => build_base(t, lib, &format!("{what}: base"), true),
        other => panic!("{what}: `base` is a template name or a table, not {other}"),
    }
}

// ---------------------------------------------------------------------------------------
// Breaking a base
// ---------------------------------------------------------------------------------------

/// One rejecting vector.
#[derive(Debug)]
struct Vector {
    file: String,
    bytes: Vec<u8>,
    rule: Rule,
    offset: u64,
    config: Agreements,
    description: String,
    /// The fields patched in place.
    patched: Vec<Patched>,
    /// The error line `hurray decode` prints for the vector (`error[<code>]: … (at byte n)`).
    message: String,
}

/// Where a path of the row is resolved: `base:<path>` in the unbroken base, otherwise in
/// the vector before its byte patches.
fn locate(path: &str, pre: &[u8], base: &Base, truncation: Option<u64>, what: &str) -> u64 {
    if path == "truncation" {
        return truncation.unwrap_or_else(|| panic!("{what}: `truncation` without `truncate`"));
    }
    let (bytes, path) = match path.strip_prefix("base:") {
        Some(p) => (base.bytes.as_slice(), p),
        None => (pre, path),
    };
    resolve(bytes, base, path, what).at
}

fn resolve(bytes: &[u8], base: &Base, path: &str, what: &str) -> paths::Slot {
    let config = base.agreements.config();
    let root = if base.is_file {
        Root::File {
            bytes,
            config: &config,
        }
    } else {
        Root::Descriptor {
            bytes,
            config: &config,
        }
    };
    paths::resolve(&root, path).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A value form that computes a number from the vector: `{ offset_of = "<path>" }`
/// (optionally `add = n`, then `align = n`, rounded up).
fn computed(v: &T, pre: &[u8], base: &Base, what: &str) -> Option<u64> {
    let t = v.as_table()?;
    let path = t.get("offset_of")?;
    let at = locate(tables::string(path, what), pre, base, None, what);
    let at = match t.get("add") {
        Some(n) => at + tables::uint(n, what),
        None => at,
    };
    Some(match t.get("align") {
        Some(a) => build::align_up(at, tables::uint(a, what)),
        None => at,
    })
}

/// A patched field: its spec path, where it lies, and its bytes before and after.
#[derive(Debug)]
struct Patched {
    path: String,
    offset: u64,
    was: Vec<u8>,
    now: Vec<u8>,
}

/// Apply byte patches (`patch = { "<path>" = value, … }`), each resolved in `pre`.
fn patch(pre: &[u8], patches: &toml::Table, base: &Base, what: &str) -> (Vec<u8>, Vec<Patched>) {
    let mut out = pre.to_vec();
    let mut patched = Vec::new();
    let mut written = vec![false; out.len()];
    for (path, v) in patches {
        let slot = resolve(pre, base, path, what);
        let v = match computed(v, pre, base, what) {
            Some(n) => T::Integer(i64::try_from(n).expect("an offset fits i64")),
            None => v.clone(),
        };
        let at = slot.at as usize;
        let bytes = paths::encode(
            &slot,
            &v,
            &pre[at.min(pre.len())..],
            &format!("{what}: {path}"),
        );
        for (i, b) in bytes.iter().enumerate() {
            assert!(
                !std::mem::replace(&mut written[at + i], true),
                "{what}: two patches write byte {}",
                at + i
            );
            out[at + i] = *b;
        }
        patched.push(Patched {
            path: path.clone(),
            offset: slot.at,
            was: pre[at..at + bytes.len()].to_vec(),
            now: bytes,
        });
    }
    (out, patched)
}

/// Recompute the trailer's index CRC-32C after a byte the CRC covers was patched.
fn fix_crc(bytes: &mut [u8], what: &str) {
    let t = access::file_parts(bytes)
        .trailer
        .unwrap_or_else(|| panic!("{what}: no trailer to fix"));
    let (io, il, at) = (
        t.index_offset() as usize,
        t.index_length() as usize,
        t.index_crc32c_at() as usize,
    );
    let crc = crc32c::crc32c(&bytes[io..io + il]);
    bytes[at..at + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Reassemble a file: the tensor region, the KV section (8-aligned, then `kv_gap` zero
/// bytes), the index (8-aligned, then `index_gap` zero bytes) and a trailer with the index's
/// CRC-32C.
fn assemble(
    region: &[u8],
    kv: Option<&[u8]>,
    index: &[u8],
    kv_gap: u64,
    index_gap: u64,
) -> Vec<u8> {
    fn pad8(out: &mut Vec<u8>) {
        while !out.len().is_multiple_of(8) {
            out.push(0);
        }
    }
    let mut out = region.to_vec();
    let (kv_offset, kv_length) = match kv {
        Some(k) => {
            pad8(&mut out);
            out.resize(out.len() + kv_gap as usize, 0);
            let at = out.len() as u64;
            out.extend_from_slice(k);
            (at, k.len() as u32)
        }
        None => (0, 0),
    };
    pad8(&mut out);
    out.resize(out.len() + index_gap as usize, 0);
    let index_offset = out.len() as u64;
    out.extend_from_slice(index);
    out.extend(
        Trailer {
            index_offset,
            index_length: index.len() as u64,
            kv_offset,
            kv_length,
            index_crc32c: crc32c::crc32c(index),
            trailer_magic: b"HRRY".to_vec(),
        }
        .to_bytes(),
    );
    out
}

/// A path into a reflection value: dot-separated keys with `[index]`es.
fn value_steps(path: &str) -> Vec<(String, Vec<usize>)> {
    path.split('.')
        .map(|s| {
            let mut parts = s.split('[');
            let key = parts.next().unwrap().to_string();
            let idx = parts
                .map(|p| p.trim_end_matches(']').parse().expect("an index"))
                .collect();
            (key, idx)
        })
        .collect()
}

fn value_at<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    let mut at = v;
    for (key, idx) in value_steps(path) {
        at = at.get(&key)?;
        for i in idx {
            match at {
                Value::Array(a) => at = a.get(i)?,
                _ => return None,
            }
        }
    }
    Some(at)
}

/// Set the value at `path`; an index one past an array's end appends.
fn set_value(v: &mut Value, path: &str, new: Value, what: &str) {
    let steps = value_steps(path);
    let mut at = v;
    for (n, (key, idx)) in steps.iter().enumerate() {
        let Value::Object(fields) = at else {
            panic!("{what}: `{path}`: `{key}` is not in an object")
        };
        if !fields.iter().any(|(k, _)| k == key) {
            fields.push((key.clone(), Value::Null));
        }
        at = &mut fields.iter_mut().find(|(k, _)| k == key).unwrap().1;
        for i in idx {
            let Value::Array(a) = at else {
                panic!("{what}: `{path}`: `{key}` is not an array")
            };
            if *i == a.len() && n == steps.len() - 1 {
                a.push(Value::Null);
            }
            at = a
                .get_mut(*i)
                .unwrap_or_else(|| panic!("{what}: `{path}`: no element {i}"));
        }
    }
    *at = new;
}

/// Edit a file's index and KV sections as owned values (`edit = { "<path>" = value }`,
/// paths into `index` and `kv` by spec names), then reassemble it. Value forms:
/// a literal, `{ add = n }`, `{ copy = "<path>" }` (read before any edit) and
/// `{ offset_of = "<path>" }`.
fn edit_file(pre: &[u8], row: &mut Keys<'_>, base: &Base, what: &str) -> Option<Vec<u8>> {
    let edits = row.get("edit").map(|e| tables::table(e, what));
    let drop_kv = row.get("drop_kv").and_then(T::as_bool) == Some(true);
    let kv_gap = row.get("kv_gap").map_or(0, |v| tables::uint(v, what));
    let index_gap = row.get("index_gap").map_or(0, |v| tables::uint(v, what));
    let cut = row.get("cut_region_at").map(|p| tables::string(p, what));
    if edits.is_none() && !drop_kv && kv_gap == 0 && index_gap == 0 && cut.is_none() {
        return None;
    }
    let parts = access::file_parts(pre);
    let trailer = parts.trailer.expect("a base file's trailer");
    let index = parts.index.as_ref().expect("a base file's index").owned();
    let kv = parts.kv.as_ref().map(|k| k.owned());
    let mut region_end = match &kv {
        Some(_) => trailer.kv_offset().min(trailer.index_offset()),
        None => trailer.index_offset(),
    };
    if let Some(p) = cut {
        region_end = locate(p, pre, base, None, what);
    }
    let original = Value::Object(vec![
        ("index".into(), index.to_value()),
        (
            "kv".into(),
            kv.as_ref().map_or(Value::Null, |k| k.to_value()),
        ),
    ]);
    let mut edited = original.clone();
    for (path, v) in edits.into_iter().flatten() {
        let form = v.as_table().filter(|t| t.len() == 1);
        let new = match form.and_then(|t| t.iter().next()) {
            Some((k, x)) if k == "add" => {
                let old = value_at(&original, path)
                    .and_then(Value::as_i64)
                    .unwrap_or_else(|| panic!("{what}: `{path}` is not a number"));
                Value::UInt(u64::try_from(old + tables::int(x, what) as i64).expect("≥ 0"))
            }
            Some((k, x)) if k == "copy" => value_at(&original, tables::string(x, what))
                .unwrap_or_else(|| panic!("{what}: nothing at `{x}`"))
                .clone(),
            Some((k, _)) if k == "offset_of" => {
                Value::UInt(computed(v, pre, base, what).expect("an offset"))
            }
            _ if path.ends_with("skipped") => Value::Bytes(tables::bytes(v, what)),
            _ => tables::to_value(v),
        };
        set_value(&mut edited, path, new, what);
    }
    let index = IndexSection::from_value(edited.get("index").unwrap(), "index")
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let kv = match (drop_kv, edited.get("kv")) {
        (true, _) | (_, None | Some(Value::Null)) => None,
        (false, Some(k)) => Some(
            KvSection::from_value(k, "kv")
                .unwrap_or_else(|e| panic!("{what}: {e}"))
                .to_bytes(),
        ),
    };
    Some(assemble(
        &pre[..region_end as usize],
        kv.as_deref(),
        &index.to_bytes(),
        kv_gap,
        index_gap,
    ))
}

/// Build one row of the table.
fn vector(row: &toml::Table, lib: &Library, what: &str) -> Vector {
    let mut k = Keys::new(row, what.to_string());
    let rule_id = tables::string(k.need("rule"), what);
    let rule = Rule::from_id(rule_id).unwrap_or_else(|| panic!("{what}: no rule `{rule_id}`"));
    let slug = tables::string(k.need("name"), what);
    let description = tables::string(k.need("why"), what).to_string();
    let base = base_of(k.need("base"), lib, what);
    let (_, config) = build::reader_config(row, what);
    for key in ["agree", "agree_extension_layouts", "network"] {
        k.get(key);
    }
    // The vector before its byte patches.
    let mut pre = base.bytes.clone();
    if let Some(w) = k.get("with") {
        let merged = match tables::merge(&T::Table(base.row.clone()), w) {
            T::Table(t) => t,
            _ => unreachable!(),
        };
        pre = build_base(&merged, lib, &format!("{what}: with"), false).bytes;
    }
    if let Some(edited) = edit_file(&pre, &mut k, &base, what) {
        pre = edited;
    }
    let patches = k.get("patch").map(|p| tables::table(p, what));
    let (mut bytes, patched) = match patches {
        Some(p) => patch(&pre, p, &base, what),
        None => (pre.clone(), Vec::new()),
    };
    if k.get("fix_crc").and_then(T::as_bool) == Some(true) {
        fix_crc(&mut bytes, what);
    }
    if let Some(from) = k.get("zero_from") {
        let from = computed(from, &pre, &base, what).unwrap_or_else(|| tables::uint(from, what));
        bytes[from as usize..].fill(0);
    }
    let truncation = k
        .get("truncate")
        .map(|n| computed(n, &pre, &base, what).unwrap_or_else(|| tables::uint(n, what)));
    if let Some(n) = truncation {
        bytes.truncate(n as usize);
    }
    let at = match k.get("at") {
        Some(p) => tables::string(p, what).to_string(),
        None => {
            let p = patches.unwrap_or_else(|| panic!("{what}: say `at` when nothing is patched"));
            assert_eq!(
                p.len(),
                1,
                "{what}: say `at` when several fields are patched"
            );
            p.keys().next().unwrap().clone()
        }
    };
    let offset = locate(&at, &pre, &base, truncation, what);
    k.done();
    let ext = if base.is_file { "hrry" } else { "bin" };
    let message = match access::outcome(base.is_file, &bytes, &reader(&config, false)) {
        Ok(_) => "accepted".to_string(),
        Err(e) => error_line(&e),
    };
    Vector {
        file: format!("{}-{slug}.{ext}", rule.id()),
        bytes,
        rule,
        offset,
        config,
        description,
        patched,
        message,
    }
}

fn vectors() -> Vec<Vector> {
    let table = tables::load_expanded(&table_path(), &versions().vars);
    let lib = Library::of(&table);
    let mut known: Vec<&str> = vec!["template", "entries", "vector"];
    known.retain(|k| table.contains_key(*k));
    assert_eq!(
        known.len(),
        table.len(),
        "reject.toml holds only `template`, `entries` and `vector`"
    );
    let mut out: Vec<Vector> = tables::array(&table["vector"], "vector")
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let row = tables::table(row, "vector");
            let what = format!(
                "reject.toml vector {} ({}-{})",
                i + 1,
                row.get("rule").and_then(T::as_str).unwrap_or("?"),
                row.get("name").and_then(T::as_str).unwrap_or("?")
            );
            vector(row, &lib, &what)
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    for w in out.windows(2) {
        assert_ne!(w[0].file, w[1].file, "two vectors are named {}", w[0].file);
    }
    out
}

// ---------------------------------------------------------------------------------------
// The corpus on disk
// ---------------------------------------------------------------------------------------

fn config_json(a: &Agreements) -> J {
    let mut m = serde_json::Map::new();
    if a.network {
        m.insert("network".into(), J::Bool(true));
    }
    if !a.agree.is_empty() {
        m.insert(
            "agree".into(),
            J::Array(
                a.agree
                    .iter()
                    .map(|(s, v)| json!({ "space": s, "value": v }))
                    .collect(),
            ),
        );
    }
    if !a.extension_layouts.is_empty() {
        m.insert("agree_extension_layouts".into(), json!(a.extension_layouts));
    }
    J::Object(m)
}

fn config_from_json(j: &J) -> Agreements {
    Agreements {
        permissive: false,
        network: j["network"].as_bool().unwrap_or(false),
        agree: j["agree"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        (
                            x["space"].as_str().expect("space").to_string(),
                            x["value"].as_u64().expect("value") as u32,
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        extension_layouts: j["agree_extension_layouts"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_u64().expect("id")).collect())
            .unwrap_or_default(),
    }
}

/// What a rejection's message says that an amendment of `spec/` moves: the version the
/// reader acts at, which the runtime prints after the name of the tag space or flag set it
/// checks (`memory_class 0x04 is unallocated at 1.0`, `file_flags has bit(s) 0x8 set that
/// are reserved at 1.0`). The manifest stores that version as its axis's placeholder, and
/// the tests expand it with the spec's current versions ([`Vars`]).
struct Versions {
    vars: Vars,
    /// The current version, as the runtime shows it, of the axis of every tag space and flag
    /// set, by the space's or set's name; with the axis's name.
    reader_at: BTreeMap<String, (String, String)>,
}

fn versions() -> &'static Versions {
    static V: OnceLock<Versions> = OnceLock::new();
    V.get_or_init(|| {
        let loaded = hurray_codegen::load(&root().join("spec")).expect("spec/ reads");
        let spec = loaded
            .clean()
            .expect("spec/ checks clean (run `hurray-spec check`)");
        let mut reader_at = BTreeMap::new();
        let named = (spec.spaces.iter().map(|s| (&s.name, s.axis)))
            .chain(spec.flag_sets.iter().map(|f| (&f.name, f.axis)));
        for (name, axis) in named {
            let axis = spec.axis(axis);
            reader_at.insert(name.clone(), (axis.name.clone(), axis.show(axis.current)));
        }
        Versions {
            vars: Vars::of(spec, None),
            reader_at,
        }
    })
}

impl Versions {
    /// `message` with the reader's version replaced by its axis's placeholder: where the
    /// detail (before ` (rule `) starts with a tag space's or flag set's name and ends with
    /// ` at <the current version of its axis>`.
    fn placeholders(&self, message: &str) -> String {
        let Some((head, rest)) = message.split_once("]: ") else {
            return message.to_string();
        };
        let Some((detail, tail)) = rest.split_once(" (rule ") else {
            return message.to_string();
        };
        let name = detail.split(' ').next().unwrap_or_default();
        let Some((axis, current)) = self.reader_at.get(name) else {
            return message.to_string();
        };
        match detail.strip_suffix(&format!(" at {current}")) {
            Some(before) => format!("{head}]: {before} at ${{{axis}}} (rule {tail}"),
            None => message.to_string(),
        }
    }

    /// `message` with the rule's text replaced by `${text:ID}`: a rule text states facts an
    /// amendment changes (the unallocated values of a space, the reserved bits of a flag set),
    /// which the loader writes in from the tables.
    fn rule_text(message: &str) -> String {
        let Some((head, tail)) = message.split_once(" (rule ") else {
            return message.to_string();
        };
        let Some((id, rest)) = tail.split_once(": ") else {
            return message.to_string();
        };
        let Some(rule) = Rule::from_id(id) else {
            return message.to_string();
        };
        match rest.strip_prefix(rule.text()) {
            Some(after) => format!("{head} (rule {id}: ${{text:{id}}}{after}"),
            None => message.to_string(),
        }
    }

    /// A stored message with its placeholders expanded (the versions and the rules' texts,
    /// from the spec).
    fn expand(&self, stored: &str) -> String {
        self.vars
            .expand(stored)
            .unwrap_or_else(|e| panic!("tests/corpus/reject/manifest.json: {e}"))
    }
}

fn manifest_of(vs: &[Vector]) -> String {
    let versions = versions();
    let mut m = serde_json::Map::new();
    for v in vs {
        m.insert(
            v.file.clone(),
            json!({
                "rule": v.rule.id(),
                "code": v.rule.code(),
                "offset": v.offset,
                "config": config_json(&v.config),
                "description": v.description,
                "message": Versions::rule_text(&versions.placeholders(&v.message)),
                "patched": v.patched.iter().map(|p| json!({
                    "path": p.path,
                    "offset": p.offset,
                    "was": hex(&p.was),
                    "now": hex(&p.now),
                })).collect::<Vec<_>>(),
            }),
        );
    }
    let mut s = serde_json::to_string_pretty(&J::Object(m)).expect("manifest");
    s.push('\n');
    s
}

/// The generated vectors, written to disk first when `BLESS=1`; and every difference
/// between them and the checked-in corpus.
struct Corpus {
    vectors: Vec<Vector>,
    drift: Vec<String>,
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let vectors = vectors();
        let mut files: BTreeMap<String, Vec<u8>> = vectors
            .iter()
            .map(|v| (v.file.clone(), v.bytes.clone()))
            .collect();
        files.insert("manifest.json".into(), manifest_of(&vectors).into_bytes());
        let drift = corpus::sync(&corpus_dir(), &files);
        Corpus { vectors, drift }
    })
}

fn checked_in_manifest() -> BTreeMap<String, J> {
    let text = std::fs::read(corpus_dir().join("manifest.json"))
        .unwrap_or_else(|e| panic!("tests/corpus/reject/manifest.json: {e}; run `{REFRESH}`"));
    let j: J = serde_json::from_slice(&text).expect("the manifest is JSON");
    j.as_object()
        .expect("the manifest is an object")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The first line `hurray decode` prints for a rejection (`the_cli_reports_code_and_offset`
/// checks that it does).
fn error_line(e: &hurray_runtime::Error) -> String {
    e.to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn reader(a: &Agreements, permissive: bool) -> ReaderConfig {
    Agreements {
        permissive,
        ..a.clone()
    }
    .config()
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

/// The manifest stores the version a reader acts at as its axis's placeholder, found by the
/// tag space or flag set the message names; expanding it gives the message back, and nothing
/// else of a message is touched.
#[test]
fn a_readers_version_is_stored_as_its_axis_placeholder() {
    let v = versions();
    let (_, descriptor) = &v.reader_at["memory_class"];
    let (_, container) = &v.reader_at["file_flags"];
    let tag = format!(
        "error[unknown-memory-class]: memory_class 0x04 is unallocated at {descriptor} (rule BH-11: text.) (at byte 59)"
    );
    let flags = format!(
        "error[unknown-flag-bit]: file_flags has bit(s) 0x8 set that are reserved at {container} (rule F3: text.) (at byte 8)"
    );
    let stored = v.placeholders(&tag);
    assert!(
        stored.contains("unallocated at ${descriptor} (rule BH-11"),
        "{stored}"
    );
    assert_eq!(v.expand(&stored), tag);
    let stored = v.placeholders(&flags);
    assert!(
        stored.contains("reserved at ${container} (rule F3"),
        "{stored}"
    );
    assert_eq!(v.expand(&stored), flags);
    // A version that is not the reader's (the data's) stays as it is.
    let data = format!(
        "error[surplus-bytes]: 4 surplus byte(s) at the end of Tensor descriptor, whose descriptor version {descriptor} this reader knows (rule LEN-1: text.) (at byte 61)"
    );
    assert_eq!(v.placeholders(&data), data);
    // No stored message names a reader's version literally.
    for (name, e) in checked_in_manifest() {
        let m = e["message"].as_str().expect("message");
        assert_eq!(
            v.placeholders(m),
            m,
            "{name}: the manifest names a reader's version literally; refresh it with `{REFRESH}`"
        );
    }
}

#[test]
fn the_checked_in_corpus_matches_the_generator() {
    let c = corpus();
    assert!(
        c.drift.is_empty(),
        "tests/corpus/reject/ is out of date; refresh it with `{REFRESH}`:\n  {}",
        c.drift.join("\n  ")
    );
}

#[test]
fn every_vector_is_rejected_with_its_rule_code_and_offset() {
    let _ = corpus();
    let manifest = checked_in_manifest();
    assert!(!manifest.is_empty());
    let mut failures = Vec::new();
    for (name, e) in &manifest {
        let bytes = common::read(&corpus_dir().join(name));
        let want_rule = e["rule"].as_str().expect("rule");
        let want_code = e["code"].as_str().expect("code");
        let want_offset = e["offset"].as_u64().expect("offset");
        let config = config_from_json(&e["config"]);
        let is_file = name.ends_with(".hrry");
        assert!(
            name.starts_with(&format!("{want_rule}-")),
            "{name} is not named after its rule {want_rule}"
        );
        match access::outcome(is_file, &bytes, &reader(&config, false)) {
            Ok(o) => failures.push(format!(
                "{name}: accepted (warnings {:?}); expected {want_rule}",
                o.warnings.iter().map(|w| w.rule).collect::<Vec<_>>()
            )),
            Err(err) => {
                let stored = e["message"].as_str().expect("message");
                if versions().expand(stored) != error_line(&err) {
                    failures.push(format!(
                        "{name}: the manifest's message is not `{}`",
                        error_line(&err)
                    ));
                }
                if (err.id(), err.code(), err.offset()) != (want_rule, want_code, want_offset) {
                    failures.push(format!(
                        "{name}: got {} [{}] at {} ({}); expected {want_rule} [{want_code}] at {want_offset}",
                        err.id(),
                        err.code(),
                        err.offset(),
                        err.detail()
                    ));
                }
            }
        }
        // A strict or validate rule is a permissive reader's acceptance, never its trust.
        let rule = Rule::from_id(want_rule).expect("a rule of the spec");
        if matches!(rule.action(), Action::Strict | Action::Validate) {
            match access::outcome(is_file, &bytes, &reader(&config, true)) {
                Ok(o) => {
                    if o.dereferenceable && !o.warnings.iter().any(|w| w.rule == rule) {
                        failures.push(format!(
                            "{name}: a permissive reader accepts it as dereferenceable without a {want_rule} warning"
                        ));
                    }
                }
                Err(err) => {
                    failures.push(format!("{name}: a permissive reader rejects it: {err:?}"))
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors are not rejected as their manifest says:\n  {}",
        failures.len(),
        manifest.len(),
        failures.join("\n  ")
    );
}

#[test]
fn the_cli_reports_code_and_offset() {
    let _ = corpus();
    let manifest = checked_in_manifest();
    for name in [
        "HDR-4-descriptor-length-12.bin",
        "BH-13-cpu-peer.bin",
        "PT-1-scale-nan.bin",
        "F5-crc-flipped.hrry",
        "CV-6-partition-overlap.hrry",
        "DAT-3-e8m0-byte-0xff.hrry",
    ] {
        let e = &manifest[name];
        let path = corpus_dir().join(name);
        let out = common::hurray(&["decode", path.to_str().unwrap()]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: {}",
            common::stderr(&out)
        );
        let err = common::stderr(&out);
        let first = err.lines().next().unwrap_or_default();
        let prefix = format!("error[{}]: ", e["code"].as_str().unwrap());
        let suffix = format!("(at byte {})", e["offset"]);
        assert!(
            first.starts_with(&prefix) && first.ends_with(&suffix),
            "{name}: `{first}` should read `{prefix}… {suffix}`"
        );
        // The line the manifest records, which `hurray-spec explain` shows.
        let stored = e["message"].as_str().expect("message");
        assert_eq!(first, versions().expand(stored), "{name}");
        assert!(
            first.contains(&format!("rule {}", e["rule"].as_str().unwrap())),
            "{name}: `{first}` does not name its rule"
        );
    }
}

fn eligible(r: Rule) -> bool {
    matches!(r.actor(), Actor::Reader | Actor::Both)
        && matches!(
            r.action(),
            Action::Reject | Action::Strict | Action::Validate
        )
        && matches!(
            r.enforced_by(),
            EnforcedBy::Table | EnforcedBy::Runtime | EnforcedBy::Structure
        )
}

/// Why a rule has no rejecting vector of its own: `tests/coverage.toml` says (the rules
/// that restate it, the tests that show it otherwise, or why no input can make this runtime
/// report it).
fn no_vector_reason(coverage: &Coverage, id: &str) -> Option<String> {
    coverage
        .restated(id)
        .map(|r| format!("restated by {}: {}", r.by.join(", "), r.why))
        .or_else(|| coverage.untested(id).map(String::from))
        .or_else(|| {
            let tests = coverage.listed(id);
            (!tests.is_empty()).then(|| format!("shown by {}", tests[0]))
        })
}

#[test]
fn every_reader_rule_has_a_rejecting_vector() {
    let c = corpus();
    let coverage = Coverage::scan(&root())
        .expect("the repository's test data reads")
        .expect("tests/coverage.toml");
    let covered: BTreeMap<&str, usize> = c.vectors.iter().fold(BTreeMap::new(), |mut m, v| {
        *m.entry(v.rule.id()).or_insert(0) += 1;
        m
    });
    let mut missing = Vec::new();
    let mut eligible_count = 0;
    for r in Rule::ALL {
        if !eligible(*r) {
            continue;
        }
        eligible_count += 1;
        if !covered.contains_key(r.id()) && no_vector_reason(&coverage, r.id()).is_none() {
            missing.push(r.id());
        }
    }
    for v in &c.vectors {
        assert!(
            eligible(v.rule),
            "{} is named after {}, which is not an enforced reader rule",
            v.file,
            v.rule.id()
        );
    }
    assert!(
        missing.is_empty(),
        "{} of {eligible_count} reader rules have no rejecting vector and no reason in tests/coverage.toml: {}",
        missing.len(),
        missing.join(", ")
    );
}
