//! The framed interchange protocol in the tables (#20): every fact of the facts sheet's own
//! tables is in the model (message types, error codes, capability and request bits, the
//! IX-n rules, the ordering invariants), and the messages of `tests/message/vectors.toml`
//! (the sheet's worked examples among them) read, warn or are rejected as each row says,
//! through the parse generated from `spec/structures/interchange.toml`.

use std::collections::{BTreeMap, BTreeSet};

use hurray_codegen::model::Word;

use hurray_runtime::ctx::{Limit, ReaderConfig};
use hurray_runtime::message;
use hurray_runtime::structures::MessageTypeVariantView;
use hurray_runtime::wire::TagSpace;

use crate::common::{root, shared};

fn sheet() -> String {
    std::fs::read_to_string(shared().join("format/interchange.md")).expect("interchange.md")
}

/// The rows of the sheet's table under `heading` whose first cell is a backquoted hex value,
/// as `(value, second cell without backquotes)`.
fn hex_rows(sheet: &str, heading: &str) -> Vec<(u64, String)> {
    let start = sheet.find(heading).unwrap_or_else(|| panic!("{heading}"));
    let section = &sheet[start..];
    let end = section[heading.len()..]
        .find("\n#")
        .map_or(section.len(), |e| e + heading.len());
    section[..end]
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let v = cells.get(1)?.trim_matches('`').strip_prefix("0x")?;
            let v = u64::from_str_radix(v, 16).ok()?;
            Some((v, cells.get(2)?.trim_matches('`').to_string()))
        })
        .collect()
}

#[test]
fn every_fact_of_the_sheets_tables_is_in_the_model() {
    let loaded = hurray_codegen::load(&root().join("spec")).unwrap();
    let spec = loaded.clean().expect("spec/ is clean");
    let sheet = sheet();
    let space = |name: &str| spec.spaces.iter().find(|s| s.name == name).unwrap();
    // §4 and §19.2: every allocated value by number and name; the private range.
    for (heading, name, count) in [
        ("## 4. Message types", "message_type", 13),
        ("### 19.2 Error codes", "error_code", 8),
    ] {
        let s = space(name);
        let rows: Vec<(u64, String)> = hex_rows(&sheet, heading)
            .into_iter()
            .filter(|(_, n)| n.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            .collect();
        assert_eq!(rows.len(), count, "{heading}");
        for (v, n) in &rows {
            let t = s
                .tag_by_value(*v as u32)
                .unwrap_or_else(|| panic!("{name} {v:#x} ({n}) is in the sheet, not the tables"));
            assert_eq!(t.name, n.to_lowercase(), "{name} {v:#x}");
        }
        assert_eq!(
            s.tags.len(),
            count,
            "{name}: a value the sheet does not list"
        );
        let private = s.range_of(0xF0).unwrap();
        assert_eq!((private.from, private.to), (0xF0, 0xFE), "{name}");
        assert_eq!(private.kind.range_use().word(), "private");
    }
    // §6.4 and §7.2: every bit by index and name; the width.
    for (heading, name, width) in [
        ("### 6.4 Capability flags", "capability_flags", 64),
        ("### 7.2 Request flags", "request_flags", 32),
    ] {
        let set = spec.flag_sets.iter().find(|f| f.name == name).unwrap();
        assert_eq!(set.width.bits(), width, "{name}");
        let start = sheet.find(heading).unwrap();
        let bits: Vec<(u32, String)> = sheet[start..]
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                let bit = cells.get(1)?.parse().ok()?;
                Some((bit, cells.get(3)?.trim_matches('`').to_string()))
            })
            .collect();
        assert!(!bits.is_empty(), "{heading}");
        assert_eq!(bits.len(), set.bits.len(), "{name}");
        for (bit, n) in bits {
            assert!(
                set.bits.iter().any(|b| b.bit == bit && b.name == n),
                "{name}: bit {bit} {n}"
            );
        }
    }
    // §3: the header's fields at the sheet's offsets.
    let header = spec
        .structures
        .iter()
        .find(|s| s.name == "interchange_message")
        .unwrap();
    for (name, offset) in [("message_type", 0), ("stream_id", 4), ("payload_length", 8)] {
        let f = header.fields.iter().find(|f| f.name == name).unwrap();
        assert_eq!(f.const_offset(), Some(offset), "{name}");
    }
    assert_eq!(message::HEADER_LEN, 12);
    // §25 and §12: every IX-n and every ordering invariant, under its own id.
    let ids: std::collections::BTreeSet<&str> = spec.rules.iter().map(|r| r.id.as_str()).collect();
    let mut ix = 0;
    for l in sheet.lines() {
        if let Some(rest) = l.strip_prefix("- IX-") {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            assert!(ids.contains(format!("IX-{n}").as_str()), "IX-{n}");
            ix += 1;
        }
        if let Some(rest) = l.strip_prefix("| S") {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if !n.is_empty() {
                assert!(ids.contains(format!("ORD-{n}").as_str()), "S{n} is ORD-{n}");
            }
        }
    }
    assert_eq!(ix, 92);
    // RES-53: the protocol is an axis of its own, versioned by the HELLO's protocol_version.
    let axis = spec.axes.iter().find(|a| a.name == "protocol").unwrap();
    assert_eq!(spec.resolve(&axis.minor).name, "protocol_version");
    assert_eq!(axis.style.word(), "negotiated");
}

#[derive(serde::Deserialize)]
struct Vectors {
    message: Vec<Vector>,
}

#[derive(serde::Deserialize)]
struct Vector {
    name: String,
    what: String,
    bytes: String,
    reads: Option<String>,
    rejects: Option<String>,
    warn: Option<String>,
    #[serde(default)]
    permissive: bool,
    max_payload: Option<u64>,
}

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

/// The bytes of a row, its placeholders filled.
fn bytes(v: &Vector, fill: &BTreeMap<&str, Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    for part in v.bytes.split_whitespace() {
        match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            Some(name) => out.extend(&fill[name]),
            None => out.extend(hex(part)),
        }
    }
    out
}

fn vectors() -> (Vec<Vector>, BTreeMap<&'static str, Vec<u8>>) {
    let text = std::fs::read_to_string(root().join("tests/message/vectors.toml")).unwrap();
    let v: Vectors = toml::from_str(&text).unwrap();
    let d =
        std::fs::read(shared().join("conformance/stream/descriptors/row_major_3__0_f32_3x4.bin"))
            .unwrap();
    assert_eq!(d.len(), 61);
    let mut bad = d.clone();
    bad[0] ^= 0xFF;
    let fill = BTreeMap::from([("descriptor", d), ("descriptor_bad_magic", bad)]);
    (v.message, fill)
}

#[test]
fn every_vector_reads_warns_or_is_rejected_as_it_says() {
    let (vectors, fill) = vectors();
    assert!(vectors.len() >= 30);
    for v in &vectors {
        let data = bytes(v, &fill);
        let mut config = ReaderConfig::new().permissive(v.permissive);
        if let Some(max) = v.max_payload {
            config = config.limit(Limit::PayloadBytes, max);
        }
        let got = message::read(&data, &config);
        match (&v.reads, &v.rejects) {
            (Some(kind), None) => {
                let m = got.unwrap_or_else(|e| panic!("{}: {} rejected: {e}", v.name, v.what));
                let name = m.message_type().map_or("private", |t| t.name());
                assert_eq!(name, kind, "{}", v.name);
                let warned: Vec<&str> = m.warnings().iter().map(|w| w.rule.id()).collect();
                match &v.warn {
                    Some(rule) => {
                        assert!(warned.contains(&rule.as_str()), "{}: {warned:?}", v.name)
                    }
                    None => assert!(warned.is_empty(), "{}: {warned:?}", v.name),
                }
                assert_eq!(m.bytes().len(), data.len(), "{}", v.name);
            }
            (None, Some(rule)) => {
                let e = got
                    .err()
                    .unwrap_or_else(|| panic!("{}: {} read", v.name, v.what));
                assert_eq!(
                    e.rule().map(|r| r.id()),
                    Some(rule.as_str()),
                    "{}: {e}",
                    v.name
                );
                assert!(e.offset() <= data.len() as u64, "{}", v.name);
            }
            _ => panic!("{}: a row says `reads` or `rejects`", v.name),
        }
    }
}

#[test]
fn the_worked_examples_carry_the_sheets_values() {
    let (vectors, fill) = vectors();
    let find = |name: &str| bytes(vectors.iter().find(|v| v.name == name).unwrap(), &fill);
    let config = ReaderConfig::new();
    let data = find("client-hello");
    let m = message::read(&data, &config).unwrap();
    assert_eq!(m.view().payload_length(), 25);
    let MessageTypeVariantView::ClientHello(h) = m.payload() else {
        panic!("a CLIENT_HELLO")
    };
    assert_eq!(h.protocol_version(), 1);
    assert_eq!(h.max_message_size(), 16 << 20);
    let data = find("tensor-descriptor");
    let m = message::read(&data, &config).unwrap();
    let MessageTypeVariantView::TensorDescriptor(p) = m.payload() else {
        panic!("a TENSOR_DESCRIPTOR")
    };
    assert_eq!(p.total_data_bytes(), 192);
    assert_eq!((p.shard_index(), p.total_shards()), (0, 1));
    assert_eq!(p.descriptor().bytes().len(), 61);
    let data = find("rdma-register");
    let m = message::read(&data, &config).unwrap();
    let MessageTypeVariantView::RdmaRegister(r) = m.payload() else {
        panic!("an RDMA_REGISTER")
    };
    assert_eq!(r.remote_addr(), 0x0000_7F00_0000_1000);
    assert_eq!(r.rkey(), &[0x44, 0x33, 0x22, 0x11]);
    // A captured session: the examples back to back read as one message each.
    let session: Vec<u8> = [
        "client-hello",
        "tensor-request",
        "tensor-descriptor",
        "tensor-data",
        "tensor-data-end",
    ]
    .iter()
    .flat_map(|n| find(n))
    .collect();
    let kinds: Vec<&str> = message::session(&session, &config)
        .map(|m| m.unwrap().message_type().unwrap().name())
        .collect();
    assert_eq!(
        kinds,
        [
            "client_hello",
            "tensor_request",
            "tensor_descriptor",
            "tensor_data",
            "tensor_data_end"
        ]
    );
    // A session cut inside a message is MSG-8, at the cut.
    let e = message::session(&session[..session.len() - 3], &config)
        .find_map(Result::err)
        .unwrap();
    assert_eq!(e.rule().map(|r| r.id()), Some("MSG-8"));
}

/// Decode → JSON → encode, byte for byte, for every message a reader accepts: the owned form
/// the tables generate, its value tree as the JSON `hurray decode --json` prints, and back.
#[test]
fn every_message_round_trips_through_json_byte_for_byte() {
    use hurray_runtime::json::{
        Evolution, evolution_from_json, evolution_json, from_json, to_json,
    };
    use hurray_runtime::structures::InterchangeMessage;
    let (vectors, fill) = vectors();
    let mut kinds = std::collections::BTreeSet::new();
    for v in vectors.iter().filter(|v| v.reads.is_some()) {
        let data = bytes(v, &fill);
        let config = ReaderConfig::new().permissive(v.permissive);
        let m = message::read(&data, &config).unwrap();
        let owned = m.view().owned();
        let mut evo = Evolution::default();
        let mut json = to_json(&owned.to_value(), "", &mut evo);
        if let Some(e) = evolution_json(&evo) {
            json["evolution"] = e;
        }
        let text = serde_json::to_string(&json).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let value = from_json(&json, "", &evolution_from_json(&json));
        let back = InterchangeMessage::from_value(&value, "")
            .unwrap_or_else(|e| panic!("{}: {e}", v.name));
        let mut out = Vec::new();
        back.encode(&mut out);
        assert_eq!(out, data, "{}: {text}", v.name);
        kinds.insert(v.reads.clone().unwrap());
    }
    // Every message kind of the tables, and a private one, went through.
    assert_eq!(kinds.len(), 14, "{kinds:?}");
}

/// `hurray decode --as session` reads a captured session (summary and JSON), `encode` writes
/// its JSON back to the same bytes, and a session cut inside a message is rejected with its
/// code, rule and offset.
#[test]
fn the_cli_decodes_and_encodes_a_captured_session() {
    use crate::common::{hurray, scratch, stderr, stdout};
    let (vectors, fill) = vectors();
    let session: Vec<u8> = vectors
        .iter()
        .filter(|v| v.reads.is_some() && v.warn.is_none() && !v.permissive)
        .flat_map(|v| bytes(v, &fill))
        .collect();
    let dir = scratch("message-cli");
    let input = dir.join("session.bin");
    std::fs::write(&input, &session).unwrap();
    let input_s = input.to_str().unwrap();
    let o = hurray(&["decode", "--as", "session", input_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("message 0 at byte 0: client_hello, stream 1, payload 25 byte(s)"),
        "{text}"
    );
    assert!(text.contains("rdma_register"), "{text}");
    let o = hurray(&["decode", "--as", "session", "--json", input_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json_path = dir.join("session.json");
    std::fs::write(&json_path, stdout(&o)).unwrap();
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["kind"], "session");
    assert_eq!(j["length"], session.len());
    let out = dir.join("again.bin");
    let o = hurray(&[
        "encode",
        json_path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), session);
    // `inspect --as session`: every message's fields by path.
    let o = hurray(&["inspect", "--as", "session", "--json", input_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["input"], "session");
    let paths: Vec<&str> = j["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["path"].as_str())
        .collect();
    assert!(paths.contains(&"#0.payload.protocol_version"), "{paths:?}");
    // Cut inside the last message: MSG-8, at the cut's message.
    std::fs::write(&input, &session[..session.len() - 1]).unwrap();
    let o = hurray(&["decode", "--as", "session", input_s]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error[message-truncated]"),
        "{}",
        stderr(&o)
    );
    let o = hurray(&["inspect", "--as", "session", input_s]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error[message-truncated]"),
        "{}",
        stderr(&o)
    );
}

/// `inspect --as session` (the runtime's `inspect::session`): every byte of a session made of
/// every accepted vector belongs to one range, in order, each message's fields are found by
/// path, and a session whose third message is rejected marks the range holding the rejected
/// byte and interprets nothing after that message.
#[test]
fn a_captured_session_is_annotated_byte_for_byte() {
    use hurray_runtime::inspect::{self, Collect, Kind};
    let (vectors, fill) = vectors();
    let accepted: Vec<Vec<u8>> = vectors
        .iter()
        .filter(|v| v.reads.is_some() && !v.permissive && v.max_payload.is_none())
        .map(|v| bytes(v, &fill))
        .collect();
    let session = accepted.concat();
    let mut sink = Collect::default();
    let report = inspect::session(&session, &ReaderConfig::new(), &mut sink);
    assert!(report.error.is_none(), "{:?}", report.error);
    let top: Vec<_> = sink.annotations.iter().filter(|a| a.depth == 0).collect();
    assert_eq!(top.len(), accepted.len(), "one top-level range per message");
    let mut at = 0;
    for (a, m) in top.iter().zip(&accepted) {
        assert_eq!((a.start, a.end), (at, at + m.len() as u64), "{}", a.path);
        at = a.end;
    }
    assert_eq!(at, session.len() as u64);
    // Field ranges tile each message: each starts where a field or the message started.
    let fields: Vec<_> = sink
        .annotations
        .iter()
        .filter(|a| a.kind == Kind::Field)
        .collect();
    assert!(fields.windows(2).all(|w| w[0].end <= w[1].start));
    let d = vectors
        .iter()
        .position(|v| v.name == "tensor-descriptor")
        .unwrap();
    let k = vectors[..d]
        .iter()
        .filter(|v| v.reads.is_some() && !v.permissive && v.max_payload.is_none())
        .count();
    let total = sink
        .annotations
        .iter()
        .find(|a| a.path == format!("#{k}.payload.total_data_bytes"))
        .expect("the descriptor message's total, by path");
    assert_eq!(total.end - total.start, 8);
    let rank = sink
        .annotations
        .iter()
        .find(|a| a.path == format!("#{k}.payload.descriptor.fixed_header.rank"))
        .expect("the carried descriptor's fields, under the payload");
    assert_eq!(rank.kind, Kind::Field);

    // An unknown message type third: the verdict is the session reader's, and the walk stops.
    let bad = [
        accepted[0].clone(),
        accepted[1].clone(),
        vec![0x0E, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        accepted[2].clone(),
    ]
    .concat();
    let mut sink = Collect::default();
    let report = inspect::session(&bad, &ReaderConfig::new(), &mut sink);
    let e = report.error.expect("the unknown type is rejected");
    assert_eq!(e.rule().map(|r| r.id()), Some("IX-5"));
    let marked = sink
        .annotations
        .iter()
        .find(|a| {
            a.start <= e.offset() && e.offset() < a.end.max(a.start + 1) && a.kind == Kind::Field
        })
        .expect("the rejected byte's range");
    assert!(marked.path.starts_with("#2."), "{}", marked.path);
    let last = sink.annotations.last().unwrap();
    assert_eq!(
        last.end,
        bad.len() as u64,
        "every byte is in a range, the rest not interpreted"
    );
}

/// IX-15: the protocol's device tags are the buffer protocol's. The tables hold one device
/// table, the space of the device role: the buffer handle's `device_tag` and the protocol's
/// device fields (a HELLO's `supported_devices`, a request's `preferred_device`) are typed by
/// it, on both axes, and no other space allocates a device's name (a second table that could
/// drift from it).
#[test]
fn ix_15_the_protocol_and_the_buffer_protocol_share_one_device_table() {
    use hurray_codegen::model::FieldType;
    let loaded = hurray_codegen::load(&root().join("spec")).unwrap();
    let spec = loaded.clean().expect("spec/ is clean");
    let device = spec.roles.device;
    let axis = |name: &str| spec.axes.iter().position(|a| a.name == name).unwrap();
    let typed: BTreeSet<usize> = spec
        .structures
        .iter()
        .filter(|s| s.fields.iter().any(|f| f.ty == FieldType::Tag(device)))
        .map(|s| s.axis.0 as usize)
        .collect();
    for a in ["descriptor", "protocol"] {
        assert!(
            typed.contains(&axis(a)),
            "no structure of the {a} axis holds a device tag of the device table"
        );
    }
    let names: BTreeSet<&str> = spec
        .space(device)
        .tags
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    for s in spec
        .spaces
        .iter()
        .filter(|s| s.name != spec.space(device).name)
    {
        for t in &s.tags {
            assert!(
                !names.contains(t.name.as_str()),
                "`{}` of space `{}` allocates the device `{}` a second time",
                t.name,
                s.name,
                t.name
            );
        }
    }
}
