//! `decode` and `encode` of a captured session of the framed interchange protocol: messages
//! back to back (interchange.md §3–§19), each its 12-byte header and the payload its type
//! selects, read one at a time by the runtime's `message::session`.
//!
//! Its JSON: `{"kind": "session", "length", "messages": [{"offset", "length", "message": …,
//! "warnings"}]}`. Each `message` is the message's value tree (`message_type`, `stream_id`,
//! `payload`), the shape the tables give it; `encode` needs only `kind` and each `message`:
//! the rest is what reading computes.

use std::process::ExitCode;

use hurray_runtime::ReaderConfig;
use hurray_runtime::json::{Evolution, evolution_json, to_json, warnings_json};
use hurray_runtime::message;
use hurray_runtime::wire::TagSpace as _;
use serde_json::{Value as J, json};

use super::exit::Report;

/// The keys of a session's JSON, and of each of its messages, that reading computes.
pub const COMPUTED: &[&str] = &["length"];
/// The keys of one message's entry that reading computes.
pub const MESSAGE_COMPUTED: &[&str] = &["offset", "length", "warnings"];

/// The session `bytes` as JSON (see the module documentation), or the first rejection.
pub fn json(bytes: &[u8], cfg: &ReaderConfig) -> Result<J, hurray_runtime::error::Error> {
    let mut messages = Vec::new();
    let mut offset = 0usize;
    for m in message::session(bytes, cfg) {
        let m = m?;
        let mut evo = Evolution::default();
        let mut value = to_json(&m.view().owned().to_value(), "", &mut evo);
        if let Some(e) = evolution_json(&evo) {
            value["evolution"] = e;
        }
        let length = m.bytes().len();
        messages.push(json!({
            "offset": offset,
            "length": length,
            "message": value,
            "warnings": warnings_json(m.warnings()),
        }));
        offset += length;
    }
    Ok(json!({ "kind": "session", "length": bytes.len(), "messages": messages }))
}

/// `decode --as session`: one line per message, or with `--json` the session's JSON.
pub fn run(bytes: &[u8], report: Report<'_>, cfg: &ReaderConfig) -> ExitCode {
    if report.json {
        return match json(bytes, cfg) {
            Ok(j) => {
                outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
                ExitCode::SUCCESS
            }
            Err(e) => report.rejected(&e),
        };
    }
    let mut count = 0usize;
    let mut offset = 0usize;
    for m in message::session(bytes, cfg) {
        let m = match m {
            Ok(m) => m,
            Err(e) => return report.rejected(&e),
        };
        let v = m.view();
        let kind = m.message_type().map_or_else(
            || format!("{:#x}", v.message_type().raw()),
            |t| t.name().to_string(),
        );
        outln!(
            "message {count} at byte {offset}: {kind}, stream {}, payload {} byte(s)",
            v.stream_id(),
            v.payload_length()
        );
        for w in m.warnings() {
            outln!(
                "  warning[{}]: {} (at byte {})",
                w.rule.code(),
                w.detail,
                w.offset
            );
        }
        count += 1;
        offset += m.bytes().len();
    }
    outln!("session: {count} message(s), {} byte(s)", bytes.len());
    ExitCode::SUCCESS
}
