//! The interchange protocol's sequences (`hurray_runtime::protocol`), played as data: every
//! scenario of tests/protocol/scenarios.toml runs a client and a server connection against
//! each other. A step is one message: the sending side's `send` must accept it or refuse it
//! with the rule the step names, and the receiving side, fed the message's bytes whatever the
//! sender said, must accept it or reject it with that rule and answer with the named code.

use std::collections::{BTreeMap, BTreeSet};

use hurray_runtime::ctx::{Limit, ReaderConfig};
use hurray_runtime::json::{Evolution, from_json, to_json};
use hurray_runtime::protocol::{Config, Connection, Event};
use hurray_runtime::rules::Rule;
use hurray_runtime::structures::{Hello, InterchangeMessage, MessageTypeVariant};
use hurray_runtime::tags::{ErrorCode, MessageType};
use hurray_runtime::wire::TagSpace;
use hurray_runtime::{descriptor, message};
use serde::Deserialize;
use serde_json::Value as J;

use crate::common::{root, shared};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenarios {
    defaults: BTreeMap<String, toml::Value>,
    scenario: Vec<Scenario>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    name: String,
    what: String,
    /// Fields of the client's and the server's HELLO over `defaults.hello`.
    #[serde(default)]
    client: toml::Table,
    #[serde(default)]
    server: toml::Table,
    #[serde(default)]
    client_lowest: Option<u32>,
    #[serde(default)]
    server_lowest: Option<u32>,
    /// Both sides read permissively.
    #[serde(default)]
    permissive: bool,
    /// False: no HELLO exchange first (the steps make it, raw).
    #[serde(default = "yes")]
    handshake: bool,
    /// Feed each message to its receiver one byte at a time.
    #[serde(default)]
    byte_by_byte: bool,
    steps: Vec<Step>,
    /// Rules the scenario shows kept or acted on (a sequence they allow, an answer they ask for).
    #[serde(default)]
    shows: Vec<String>,
    /// After the steps, this side's transport ends (`Connection::close`).
    #[serde(default)]
    close: Option<Close>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    from: Side,
    #[serde(default = "one")]
    stream: u32,
    /// The message type's name; or `hex`, the message's bytes as they are.
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    hex: Option<String>,
    #[serde(default)]
    payload: toml::Table,
    /// A descriptor of ../shared/conformance/stream/descriptors, for the payload's
    /// `descriptor`, with `patch` (dotted paths of its value form) applied.
    #[serde(default)]
    descriptor: Option<String>,
    #[serde(default)]
    patch: toml::Table,
    /// A TENSOR_DATA frame of this many bytes.
    #[serde(default)]
    data_bytes: Option<usize>,
    /// Bypass the sender: only the receiver sees the bytes.
    #[serde(default)]
    raw: bool,
    /// The rule both sides cite; `sender_breaks` / `receiver_breaks` when they differ.
    #[serde(default)]
    breaks: Option<String>,
    #[serde(default)]
    sender_breaks: Option<String>,
    #[serde(default)]
    receiver_breaks: Option<String>,
    /// The error code the receiver answers with.
    #[serde(default)]
    answer: Option<String>,
    /// The receiver reports the stream's exchange complete.
    #[serde(default)]
    completes: bool,
    /// The receiver reports a warning under this rule.
    #[serde(default)]
    warns: Option<String>,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum Side {
    Client,
    Server,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Close {
    side: Side,
    #[serde(default)]
    breaks: Option<String>,
    #[serde(default)]
    warns: Option<String>,
}

fn scenarios() -> Scenarios {
    let path = root().join("tests/protocol/scenarios.toml");
    toml::from_str(&std::fs::read_to_string(&path).unwrap()).expect("tests/protocol/scenarios.toml")
}

pub(crate) fn json(v: &toml::Value) -> J {
    serde_json::to_value(v).expect("TOML values are JSON values")
}

/// `base` with `over`'s keys set.
pub(crate) fn merged(base: Option<&toml::Value>, over: &toml::Table) -> J {
    let mut out = base
        .map(json)
        .unwrap_or_else(|| J::Object(Default::default()));
    for (k, v) in over {
        out[k] = json(v);
    }
    out
}

/// Set a dotted path (`buffer_table.buffers.0.device_tag`) of a JSON value.
pub(crate) fn patch(v: &mut J, path: &str, to: J) {
    let mut at = v;
    for key in path.split('.') {
        at = match key.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[key],
        };
    }
    *at = to;
}

fn descriptor_json(name: &str, patches: &toml::Table) -> J {
    let path = shared().join(format!("conformance/stream/descriptors/{name}.bin"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let checked =
        descriptor::read_exact(&bytes, 0, &ReaderConfig::new()).expect("a valid descriptor");
    let mut evo = Evolution::default();
    let mut j = to_json(&checked.view().owned().to_value(), "", &mut evo);
    for (k, v) in patches {
        patch(&mut j, k, json(v));
    }
    j
}

fn message_type(name: &str) -> u32 {
    MessageType::from_name(name)
        .unwrap_or_else(|| panic!("no message type `{name}`"))
        .value()
}

fn hello(defaults: &BTreeMap<String, toml::Value>, over: &toml::Table) -> Hello {
    let j = merged(defaults.get("hello"), over);
    Hello::from_value(&from_json(&j, "", &Evolution::default()), "").expect("a HELLO")
}

/// The step's message, built from the tables' value form, and its bytes.
fn build(
    step: &Step,
    defaults: &BTreeMap<String, toml::Value>,
) -> (Option<MessageTypeVariant>, Vec<u8>) {
    if let Some(hex) = &step.hex {
        let clean: String = hex.chars().filter(|c| !c.is_whitespace()).collect();
        let bytes = (0..clean.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&clean[i..i + 2], 16).unwrap())
            .collect();
        return (None, bytes);
    }
    let kind = step
        .kind
        .as_deref()
        .expect("a step names its type or gives hex");
    let payload = merged(defaults.get(kind), &step.payload);
    let m = message_from_value(
        kind,
        step.stream,
        payload,
        step.descriptor.as_deref().map(|d| (d, &step.patch)),
        step.data_bytes,
    );
    let bytes = m.to_bytes();
    (Some(m.payload), bytes)
}

/// A message built from the tables' value form: its type by name, its stream, its payload's
/// fields; `descriptor` names a descriptor of ../shared/conformance/stream/descriptors for
/// the payload's `descriptor`, with its patches (dotted paths of its value form) applied, and
/// `total_data_bytes` (and a push's `descriptor_length`) filled in when the payload leaves
/// them out; `data_bytes` makes a TENSOR_DATA frame of that many bytes.
pub(crate) fn message_from_value(
    kind: &str,
    stream: u32,
    mut payload: J,
    descriptor: Option<(&str, &toml::Table)>,
    data_bytes: Option<usize>,
) -> InterchangeMessage {
    if let Some((name, patches)) = descriptor {
        let d = descriptor_json(name, patches);
        let sum: u64 = d["buffer_table"]["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["byte_size"].as_u64().unwrap())
            .sum();
        if payload.get("total_data_bytes").is_none() {
            payload["total_data_bytes"] = sum.into();
        }
        if kind == "tensor_put" && payload.get("descriptor_length").is_none() {
            payload["descriptor_length"] = d["fixed_header"]["descriptor_length"].clone();
        }
        payload["descriptor"] = d;
    }
    if let Some(n) = data_bytes {
        payload["data"] = J::String("5a".repeat(n));
    }
    let j = serde_json::json!({
        "message_type": message_type(kind),
        "stream_id": stream,
        "payload": payload,
    });
    InterchangeMessage::from_value(&from_json(&j, "", &Evolution::default()), "")
        .unwrap_or_else(|e| panic!("a {kind} message: {e}"))
}

fn rule_id(e: &hurray_runtime::Error) -> &'static str {
    e.rule().map_or("-", Rule::id)
}

struct Play {
    client: Connection,
    server: Connection,
    byte_by_byte: bool,
}

impl Play {
    fn side(&mut self, s: Side) -> &mut Connection {
        match s {
            Side::Client => &mut self.client,
            Side::Server => &mut self.server,
        }
    }

    fn feed(&mut self, to: Side, bytes: &[u8]) {
        let byte_by_byte = self.byte_by_byte;
        let c = self.side(to);
        if byte_by_byte {
            for b in bytes {
                c.receive(std::slice::from_ref(b));
            }
        } else {
            c.receive(bytes);
        }
    }

    fn events(&mut self, s: Side) -> Vec<Event> {
        std::iter::from_fn(|| self.side(s).poll_event()).collect()
    }
}

fn other(s: Side) -> Side {
    match s {
        Side::Client => Side::Server,
        Side::Server => Side::Client,
    }
}

/// Play one scenario; the findings, one line each, empty when it played as it says. Returns
/// also the rules it saw broken.
fn play(s: &Scenario, defaults: &BTreeMap<String, toml::Value>) -> (Vec<String>, BTreeSet<String>) {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    let reader = ReaderConfig::new().network(true).permissive(s.permissive);
    let mut client_config = Config::client(hello(defaults, &s.client)).reader(reader.clone());
    if let Some(v) = s.client_lowest {
        client_config = client_config.lowest_version(v);
    }
    let mut server_config = Config::server(hello(defaults, &s.server)).reader(reader);
    if let Some(v) = s.server_lowest {
        server_config = server_config.lowest_version(v);
    }
    let mut p = Play {
        client: Connection::new(client_config),
        server: Connection::new(server_config),
        byte_by_byte: s.byte_by_byte,
    };
    let hello_bytes = p.client.transmit();
    if s.handshake {
        p.feed(Side::Server, &hello_bytes);
        let answer = p.server.transmit();
        p.feed(Side::Client, &answer);
        for side in [Side::Client, Side::Server] {
            let events = p.events(side);
            if !matches!(events.as_slice(), [Event::Connected { .. }]) {
                problems.push(format!("{side:?}: the HELLO exchange gave {events:?}"));
            }
        }
    }
    for (k, step) in s.steps.iter().enumerate() {
        let what = format!(
            "step {k} ({:?} → {})",
            step.from,
            step.kind.as_deref().unwrap_or("hex")
        );
        let (payload, bytes) = build(step, defaults);
        let sender_rule = step.sender_breaks.as_ref().or(step.breaks.as_ref());
        let receiver_rule = step.receiver_breaks.as_ref().or(step.breaks.as_ref());
        if !step.raw {
            let payload = payload.expect("a raw step may give hex; a sent one names its type");
            let sent = p.side(step.from).send(step.stream, payload);
            match (sent, sender_rule) {
                (Ok(()), None) => {
                    let out = p.side(step.from).transmit();
                    if out != bytes {
                        problems.push(format!(
                            "{what}: the sender wrote other bytes than the message's"
                        ));
                    }
                }
                (Ok(()), Some(r)) => problems.push(format!(
                    "{what}: the sender sent it; expected a refusal under {r}"
                )),
                (Err(e), None) => problems.push(format!("{what}: the sender refused it: {e}")),
                (Err(e), Some(r)) => {
                    if rule_id(&e) != r {
                        problems.push(format!(
                            "{what}: the sender refused it under {}, expected {r}: {e}",
                            rule_id(&e)
                        ));
                    }
                    seen.insert(rule_id(&e).to_string());
                    if !p.side(step.from).transmit().is_empty() {
                        problems.push(format!(
                            "{what}: the sender queued bytes for a refused message"
                        ));
                    }
                }
            }
        }
        let to = other(step.from);
        p.feed(to, &bytes);
        let events = p.events(to);
        let rejected: Vec<(&hurray_runtime::Error, Option<u32>)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Rejected {
                    error, answered, ..
                } => Some((error, *answered)),
                _ => None,
            })
            .collect();
        match (rejected.as_slice(), receiver_rule) {
            ([], None) => {}
            ([(e, answered)], Some(r)) => {
                seen.insert(rule_id(e).to_string());
                if rule_id(e) != r {
                    problems.push(format!(
                        "{what}: the receiver rejected it under {}, expected {r}: {e}",
                        rule_id(e)
                    ));
                }
                if let Some(code) = &step.answer {
                    let want = ErrorCode::from_name(code).map(ErrorCode::value);
                    if *answered != want {
                        problems.push(format!(
                            "{what}: answered {answered:?}, expected {code} ({want:?})"
                        ));
                    }
                }
            }
            (r, want) => problems.push(format!(
                "{what}: the receiver's rejections {:?}, expected {want:?}",
                r.iter().map(|(e, _)| e.to_string()).collect::<Vec<_>>()
            )),
        }
        if step.completes
            && !events
                .iter()
                .any(|e| matches!(e, Event::Completed { stream_id } if *stream_id == step.stream))
        {
            problems.push(format!(
                "{what}: the receiver did not report the exchange complete: {events:?}"
            ));
        }
        if !step.completes && events.iter().any(|e| matches!(e, Event::Completed { .. })) {
            problems.push(format!(
                "{what}: the receiver reported an exchange complete"
            ));
        }
        let warned: Vec<&'static str> = events
            .iter()
            .filter_map(|e| match e {
                Event::Warning { warning, .. } => Some(warning.rule.id()),
                _ => None,
            })
            .collect();
        if let Some(w) = &step.warns {
            seen.insert(w.clone());
            if !warned.contains(&w.as_str()) {
                problems.push(format!(
                    "{what}: no warning under {w} (warnings: {warned:?})"
                ));
            }
        }
        // Whatever the receiver answers (a PONG, an ERROR) reaches the sender.
        let answer = p.side(to).transmit();
        if !answer.is_empty() {
            p.feed(step.from, &answer);
            let back = p.events(step.from);
            if let Some(e) = back.iter().find_map(|e| match e {
                Event::Rejected { error, .. } => Some(error),
                _ => None,
            }) {
                problems.push(format!(
                    "{what}: the sender rejected the receiver's answer: {e}"
                ));
            }
        }
    }
    if let Some(c) = &s.close {
        p.side(c.side).close();
        let events = p.events(c.side);
        let broken: Vec<&'static str> = events
            .iter()
            .filter_map(|e| match e {
                Event::Rejected { error, .. } => Some(rule_id(error)),
                _ => None,
            })
            .collect();
        let warned: Vec<&'static str> = events
            .iter()
            .filter_map(|e| match e {
                Event::Warning { warning, .. } => Some(warning.rule.id()),
                _ => None,
            })
            .collect();
        if broken != c.breaks.iter().map(String::as_str).collect::<Vec<_>>() {
            problems.push(format!(
                "close: rejections {broken:?}, expected {:?}",
                c.breaks
            ));
        }
        if let Some(w) = &c.warns
            && !warned.contains(&w.as_str())
        {
            problems.push(format!("close: no warning under {w} ({warned:?})"));
        }
        seen.extend(broken.iter().map(|r| r.to_string()));
        seen.extend(c.warns.iter().cloned());
        if !p.side(c.side).is_closed() {
            problems.push("close: the connection is not closed".into());
        }
    }
    (problems, seen)
}

#[test]
fn every_scenario_plays_as_it_says() {
    let file = scenarios();
    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    for s in &file.scenario {
        assert!(names.insert(&s.name), "two scenarios are named {}", s.name);
        assert!(!s.what.is_empty(), "{}: say what it shows", s.name);
        let (p, _) = play(s, &file.defaults);
        problems.extend(p.into_iter().map(|p| format!("{}: {p}", s.name)));
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// Every rule of the protocol the runtime enforces is broken by a scenario, shown by a case of
/// the server's selection (tests/protocol/selection.toml) or by a test of the shards'
/// reassembly (tests/it/reassembly.rs, as tests/coverage.toml lists it), or is restated
/// (tests/coverage.toml) by one that is.
#[test]
fn every_rule_the_state_machine_enforces_is_broken_by_a_scenario() {
    let file = scenarios();
    let mut seen = BTreeSet::new();
    for s in &file.scenario {
        let (problems, broken) = play(s, &file.defaults);
        // A scenario that plays as it says shows the rules it says it shows.
        if problems.is_empty() {
            seen.extend(s.shows.iter().cloned());
        }
        seen.extend(broken);
    }
    // What a server serves a request in is shown by the selection's cases.
    seen.extend(crate::selection::shown());
    let coverage: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("tests/coverage.toml")).unwrap())
            .unwrap();
    // A parallel answer's reassembly, by its own tests (tests/it/reassembly.rs).
    if let Some(tested) = coverage.get("tested").and_then(toml::Value::as_table) {
        for (id, tests) in tested {
            let by_reassembly = tests.as_array().is_some_and(|t| {
                t.iter()
                    .filter_map(toml::Value::as_str)
                    .any(|t| t.starts_with("tests/it/reassembly.rs::"))
            });
            if by_reassembly {
                seen.insert(id.clone());
            }
        }
    }
    let restated = coverage
        .get("restated")
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default();

    let rules: toml::Table = toml::from_str(
        &std::fs::read_to_string(root().join("spec/rules/interchange.toml")).unwrap(),
    )
    .unwrap();
    let mut missing = Vec::new();
    for r in rules["rule"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        let runtime = r["enforced_by"].as_str() == Some("runtime");
        if runtime && !seen.contains(id) && !restated.contains_key(id) {
            missing.push(id);
        }
    }
    assert!(
        missing.is_empty(),
        "runtime-enforced rules no scenario breaks: {missing:?}"
    );
}

/// The scenarios' default HELLO.
fn default_hello() -> Hello {
    hello(&scenarios().defaults, &Default::default())
}

/// A client of the default HELLO and a server of `server`, past the HELLO exchange.
fn connected(server: Config) -> (Connection, Connection) {
    let mut client = Connection::new(Config::client(default_hello()));
    let mut server = Connection::new(server);
    server.receive(&client.transmit());
    client.receive(&server.transmit());
    (client, server)
}

/// The PING a peer sends is answered with a PONG of the same stream and bytes (RES-58),
/// before the PING is reported.
#[test]
fn a_ping_is_answered_with_its_pong() {
    let (mut client, mut server) = connected(Config::server(default_hello()));
    let ping = hurray_runtime::structures::Keepalive::new(vec![1, 2, 3]);
    client
        .send(9, MessageTypeVariant::Ping(ping.clone()))
        .unwrap();
    server.receive(&client.transmit());
    let pong = server.transmit();
    let m = message::read(&pong, &ReaderConfig::new()).unwrap();
    assert_eq!(m.view().stream_id(), 9);
    assert_eq!(m.view().payload().owned(), MessageTypeVariant::Pong(ping));
    client.receive(&pong);
    let events: Vec<Event> = std::iter::from_fn(|| client.poll_event()).collect();
    assert!(
        events.iter().any(|e| matches!(e, Event::Message { stream_id: 9, payload } if matches!(**payload, MessageTypeVariant::Pong(_)))),
        "{events:?}"
    );
}

/// A receiver keeps at most one message: an oversized payload is passed over without being
/// kept, and the connection reads on after it (IX-3, RES-64).
#[test]
fn an_oversized_payload_is_passed_over_not_kept() {
    let small =
        toml::Table::from_iter([("max_message_size".to_string(), toml::Value::Integer(64))]);
    let reader = ReaderConfig::new().limit(Limit::PayloadBytes, 1 << 30);
    let server = Config::server(hello(&scenarios().defaults, &small)).reader(reader);
    let (_, mut server) = connected(server);
    let _ = std::iter::from_fn(|| server.poll_event()).count();
    // A PING of 1 MiB, then a PING of 3 bytes, in 4 KiB pieces.
    let mut bytes = Vec::new();
    for n in [1usize << 20, 3] {
        let m = InterchangeMessage::new(
            hurray_runtime::wire::TagValue::new(MessageType::Ping),
            5,
            MessageTypeVariant::Ping(hurray_runtime::structures::Keepalive::new(vec![7; n])),
        );
        m.encode(&mut bytes);
    }
    let ((), peak) = crate::common::peak_of(|| {
        for chunk in bytes.chunks(4096) {
            server.receive(chunk);
        }
    });
    assert!(peak < 256 << 10, "the receiver kept {peak} bytes");
    let events: Vec<Event> = std::iter::from_fn(|| server.poll_event()).collect();
    assert!(
        matches!(&events[0], Event::Rejected { error, answered: Some(a), .. } if rule_id(error) == "IX-3" && *a == ErrorCode::MessageTooLarge.value()),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(e, Event::Message { stream_id: 5, payload } if matches!(&**payload, MessageTypeVariant::Ping(k) if k.opaque.len() == 3))),
        "{events:?}"
    );
}

/// A connection sends nothing its peer would only report (IX-12, IX-16; RES-57, RES-59,
/// RES-60): its own HELLO with a capability bit this version does not define is refused
/// (and the connection ends before a byte is sent), and so is an ERROR with a code nobody
/// allocated or a HELLO listing a reserved device tag; nor a message of type 0xFF (IX-7).
#[test]
fn a_connection_sends_nothing_a_reader_only_reports() {
    use hurray_runtime::flags::CapabilityFlags;
    use hurray_runtime::structures::ErrorPayload;
    use hurray_runtime::wire::TagValue;
    let file = scenarios();
    let refused = |over: toml::Table, rule: &str| {
        let mut client = Connection::new(Config::client(hello(&file.defaults, &over)));
        assert!(client.transmit().is_empty(), "nothing is sent");
        let events: Vec<Event> = std::iter::from_fn(|| client.poll_event()).collect();
        assert!(
            matches!(&events[..], [Event::Rejected { error, .. }, Event::Closed] if rule_id(error) == rule),
            "{events:?}"
        );
    };
    let unknown_bit = CapabilityFlags::default().0 | 1 << 40;
    refused(
        toml::Table::from_iter([(
            "capability_flags".into(),
            toml::Value::Integer(unknown_bit as i64),
        )]),
        "MSG-4",
    );
    refused(
        toml::Table::from_iter([(
            "supported_devices".into(),
            toml::Value::Array(vec![toml::Value::Integer(0x80)]),
        )]),
        "MSG-5",
    );
    let (mut client, _) = connected(Config::server(default_hello()));
    let error = ErrorPayload::new(TagValue::from_raw(0x99), "?".into());
    let e = client
        .send(1, MessageTypeVariant::Error(error))
        .unwrap_err();
    assert_eq!(rule_id(&e), "MSG-3");
    assert!(client.transmit().is_empty());
    // Message type 0xFF is never sent (IX-7): read back, it is invalid (IX-5).
    let e = client
        .send(1, MessageTypeVariant::Opaque(0xFF, vec![1, 2]))
        .unwrap_err();
    assert_eq!(rule_id(&e), "IX-5");
    assert!(client.transmit().is_empty());
}
