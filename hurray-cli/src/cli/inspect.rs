//! `hurray inspect`: every byte of a descriptor or a file, annotated by the walkers generated
//! from the spec (`hurray_runtime::inspect`), printed as a table (coloured on a terminal) or
//! as JSON (`--json`, the shape `hurray-cli/README.md` documents). With `--data` each element
//! buffer of an accepted file is decoded as a typed array (dequantized where the scheme keeps
//! its parameters inline); `--data=hex` dumps every data buffer's bytes.

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::path::Path;
use std::process::ExitCode;

use hurray_runtime::inspect::data::{ElementData, Values, element_data};
use hurray_runtime::inspect::{self, Annotation, Collect, Inspection, Kind, Shown};
use hurray_runtime::{ReaderConfig, file};
use serde_json::{Value as J, json};

use super::exit::usage_error;

/// What `--data` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DataMode {
    /// The element buffer as a typed array (dequantized where the scheme allows).
    Values,
    /// Every data buffer's bytes, in hex.
    Hex,
}

/// At most this many elements of a buffer are decoded (the rest are counted).
const ELEMENT_LIMIT: usize = 4096;
/// A range's bytes are shown in full up to this many; longer ranges are summarised.
const SHOWN_BYTES: usize = 16;

pub fn run(
    path: &Path,
    json_out: bool,
    config: &ReaderConfig,
    data: Option<DataMode>,
    kind: Option<super::decode::Kind>,
) -> ExitCode {
    use super::decode::Kind;
    let bytes = if path.as_os_str() == "-" {
        use std::io::Read as _;
        let mut b = Vec::new();
        if let Err(e) = std::io::stdin().lock().read_to_end(&mut b) {
            return usage_error(format!("cannot read standard input: {e}"));
        }
        b
    } else {
        match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => return usage_error(format!("cannot read {}: {e}", path.display())),
        }
    };
    let mut sink = Collect::default();
    let named = |ext: &str| {
        path.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case(ext))
    };
    let kind = kind.or_else(|| {
        if named(super::decode::STREAM_EXTENSION) {
            Some(Kind::Stream)
        } else if named("hrry") {
            Some(Kind::File)
        } else {
            None
        }
    });
    let report = match kind {
        Some(Kind::Session) => inspect::session(&bytes, config, &mut sink),
        Some(Kind::Stream) => inspect::stream(&bytes, config, &mut sink),
        Some(Kind::File) => inspect::file(&bytes, config, &mut sink),
        Some(Kind::Descriptor) => inspect::descriptor(&bytes, config, &mut sink),
        None => inspect::inspect(&bytes, config, &mut sink),
    };
    let shown = match (data, &report.error) {
        (Some(mode), None) if kind == Some(Kind::Stream) => stream_buffers(&bytes, config, mode),
        (Some(mode), None) => buffers(&bytes, config, mode),
        _ => BTreeMap::new(),
    };
    if json_out {
        let j = to_json(&bytes, &report, &sink.annotations, &shown);
        outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
    } else {
        let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        out!(
            "{}",
            text(&bytes, &report, &sink.annotations, &shown, colour)
        );
    }
    match &report.error {
        Some(e) => {
            // The contract's line (`error[<code>]: <message> (at byte <offset>)`), as `decode`.
            eprintln!("{e}");
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}

/// What `--data` shows of one data buffer.
enum BufferShown<'a> {
    Elements(ElementData),
    Hex(&'a [u8]),
}

/// The data each buffer shows, by (tensor index position, buffer index).
fn buffers<'a>(
    bytes: &'a [u8],
    config: &ReaderConfig,
    mode: DataMode,
) -> BTreeMap<(u32, u32), BufferShown<'a>> {
    let mut out = BTreeMap::new();
    let Ok(f) = file::read(bytes, config) else {
        return out;
    };
    for t in f.tensors().flatten() {
        let position = t.index() as u32;
        let buffers: Vec<&'a [u8]> = t
            .buffers()
            .into_iter()
            .map(|(offset, b)| {
                let start = usize::try_from(offset).unwrap_or(usize::MAX);
                bytes
                    .get(start..start.saturating_add(b.len()))
                    .unwrap_or(&[])
            })
            .collect();
        match mode {
            DataMode::Hex => {
                for (k, b) in buffers.iter().enumerate() {
                    out.insert((position, k as u32), BufferShown::Hex(b));
                }
            }
            DataMode::Values => {
                if let Some(d) = element_data(&t.descriptor(), &buffers, ELEMENT_LIMIT) {
                    out.insert((position, d.buffer), BufferShown::Elements(d));
                }
            }
        }
    }
    out
}

/// [`buffers`] of a canonical stream, by (tensor position, buffer index).
fn stream_buffers<'a>(
    bytes: &'a [u8],
    config: &ReaderConfig,
    mode: DataMode,
) -> BTreeMap<(u32, u32), BufferShown<'a>> {
    let mut out = BTreeMap::new();
    let mut r = hurray_runtime::stream::StreamReader::new(bytes, config);
    while let Ok(Some(t)) = r.next_tensor(&mut |_, _, _| {}) {
        let position = t.position() as u32;
        let buffers: Vec<&'a [u8]> = t
            .buffers()
            .iter()
            .map(|&(offset, len)| {
                let start = usize::try_from(offset).unwrap_or(usize::MAX);
                let len = usize::try_from(len).unwrap_or(usize::MAX);
                bytes.get(start..start.saturating_add(len)).unwrap_or(&[])
            })
            .collect();
        match mode {
            DataMode::Hex => {
                for (k, b) in buffers.iter().enumerate() {
                    out.insert((position, k as u32), BufferShown::Hex(b));
                }
            }
            DataMode::Values => {
                let at = t.descriptor_offset() as usize;
                let d = &bytes[at..at + t.descriptor_length() as usize];
                if let Ok(checked) = hurray_runtime::descriptor::read_exact(d, at as u64, config)
                    && let Some(d) = element_data(&checked, &buffers, ELEMENT_LIMIT)
                {
                    out.insert((position, d.buffer), BufferShown::Elements(d));
                }
            }
        }
    }
    out
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A value as text.
fn value_text(v: &Shown) -> String {
    match v {
        Shown::None | Shown::Bytes => String::new(),
        Shown::Unsigned(n) => n.to_string(),
        Shown::Signed(n) => n.to_string(),
        Shown::Float(x) => x.to_string(),
        Shown::Tag {
            raw,
            space,
            name,
            standing,
        } => match name {
            Some(n) => format!("{n} ({raw:#04x})"),
            None => format!("{raw:#04x}: {} {space} value", standing.word()),
        },
        Shown::Flags {
            raw,
            names,
            unknown,
            ..
        } => {
            let mut parts: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            if *unknown != 0 {
                parts.push(format!("unknown {unknown:#x}"));
            }
            if parts.is_empty() {
                format!("{raw:#x} (none)")
            } else {
                format!("{raw:#x} ({})", parts.join(" | "))
            }
        }
        Shown::Text(s) => format!("{s:?}"),
        Shown::NotUtf8 { valid_up_to } => format!("not UTF-8 after byte {valid_up_to}"),
        _ => String::new(),
    }
}

fn values_text(v: &Values) -> Vec<String> {
    match v {
        Values::Float(x) => x.iter().map(|v| v.to_string()).collect(),
        Values::Signed(x) => x.iter().map(|v| v.to_string()).collect(),
        Values::Unsigned(x) => x.iter().map(|v| v.to_string()).collect(),
        Values::Bool(x) => x.iter().map(|v| v.to_string()).collect(),
        Values::Complex(x) => x.iter().map(|(r, i)| format!("{r}{i:+}i")).collect(),
        _ => Vec::new(),
    }
}

/// The table: one line per range, structures as headings, the failing range marked.
fn text(
    bytes: &[u8],
    report: &Inspection,
    annotations: &[Annotation],
    shown: &BTreeMap<(u32, u32), BufferShown<'_>>,
    colour: bool,
) -> String {
    let paint = |code: &str, s: String| {
        if colour {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s
        }
    };
    let mut out = format!("{} of {} bytes\n", report.input.word(), report.len);
    for a in annotations {
        let indent = "  ".repeat(a.depth);
        if a.kind == Kind::Structure {
            let title = if a.title.is_empty() {
                String::new()
            } else {
                format!(" ({})", a.title)
            };
            out.push_str(&paint(
                "1",
                format!("{:>10}  {indent}{}{title}\n", a.start, a.path),
            ));
            continue;
        }
        let range = &bytes[a.start as usize..a.end as usize];
        let raw = if range.len() <= SHOWN_BYTES {
            hex(range)
        } else {
            format!("{} … ({} bytes)", hex(&range[..8]), range.len())
        };
        let mut line = format!("{:>10}  {indent}{:<width$}", a.start, a.path, width = 32);
        let value = value_text(&a.value);
        line.push_str(&format!("  {raw}"));
        if !value.is_empty() {
            line.push_str(&format!("  = {value}"));
        }
        let mut tail = vec![a.kind.word().to_string()];
        if let Some((axis, v)) = a.since {
            tail.push(format!("since {} {}", axis.name(), axis.style().show(v)));
        }
        if a.provenance != inspect::Provenance::Read {
            tail.push(a.provenance.word().to_string());
        }
        if let Some(n) = &a.note {
            tail.push(n.clone());
        }
        line.push_str(&format!("  [{}]", tail.join("; ")));
        let line = if a.failing {
            let e = report.error.as_ref();
            let why = e.map_or(String::new(), |e| {
                // The error's Display is the contract's line, code and offset included.
                format!("\n{:>10}  {indent}^ {e}", "")
            });
            paint("31;1", format!("{line}{why}"))
        } else {
            match a.kind {
                Kind::Padding | Kind::Unread => paint("2", line),
                _ => line,
            }
        };
        out.push_str(&line);
        out.push('\n');
        if let Kind::Data { tensor, buffer } = a.kind
            && let Some(s) = shown.get(&(tensor, buffer))
        {
            out.push_str(&data_text(s, &indent));
        }
    }
    for w in &report.warnings {
        out.push_str(&format!("{w}\n"));
    }
    out
}

fn data_text(s: &BufferShown<'_>, indent: &str) -> String {
    let pad = format!("{:>10}  {indent}  ", "");
    match s {
        BufferShown::Hex(b) => b.chunks(32).map(|c| format!("{pad}{}\n", hex(c))).collect(),
        BufferShown::Elements(d) => {
            let more = |n: usize| {
                if (n as u64) < d.total {
                    format!(", … {} more", d.total - n as u64)
                } else {
                    String::new()
                }
            };
            let v = values_text(&d.values);
            let mut t = format!(
                "{pad}{} [{}{}]\n",
                d.element_type,
                v.join(", "),
                more(v.len())
            );
            if let Some(x) = &d.dequantized {
                let x: Vec<String> = x.iter().map(|v| v.to_string()).collect();
                t.push_str(&format!(
                    "{pad}dequantized [{}{}]\n",
                    x.join(", "),
                    more(x.len())
                ));
            }
            if let Some(n) = &d.note {
                t.push_str(&format!("{pad}{n}\n"));
            }
            t
        }
    }
}

/// A float as JSON (a string for what JSON cannot hold: NaN, infinities).
fn float_json(x: f64) -> J {
    if x.is_finite() {
        json!(x)
    } else {
        json!(x.to_string())
    }
}

fn value_json(v: &Shown) -> J {
    match v {
        Shown::Unsigned(n) => json!({ "unsigned": n }),
        Shown::Signed(n) => json!({ "signed": n }),
        Shown::Float(x) => json!({ "float": float_json(*x) }),
        Shown::Tag {
            raw,
            space,
            name,
            standing,
        } => {
            json!({ "tag": { "raw": raw, "space": space, "name": name, "standing": standing.word() } })
        }
        Shown::Flags {
            raw,
            set,
            names,
            unknown,
        } => json!({ "flags": { "raw": raw, "set": set, "names": names, "unknown": unknown } }),
        Shown::Text(s) => json!({ "text": s }),
        Shown::NotUtf8 { valid_up_to } => json!({ "not_utf8": { "valid_up_to": valid_up_to } }),
        _ => J::Null,
    }
}

fn values_json(v: &Values) -> J {
    match v {
        Values::Float(x) => J::Array(x.iter().map(|v| float_json(*v)).collect()),
        Values::Signed(x) => json!(x),
        Values::Unsigned(x) => json!(x),
        Values::Bool(x) => json!(x),
        Values::Complex(x) => J::Array(
            x.iter()
                .map(|(r, i)| json!([float_json(*r), float_json(*i)]))
                .collect(),
        ),
        _ => J::Null,
    }
}

/// The key of a range's provenance (read, default, skipped). Hyphenated, so that it is no
/// name a spec editor can choose (spec names are snake_case identifiers): a section named
/// `provenance` and this tool's key never meet.
const PROVENANCE_KEY: &str = "value-provenance";

fn to_json(
    bytes: &[u8],
    report: &Inspection,
    annotations: &[Annotation],
    shown: &BTreeMap<(u32, u32), BufferShown<'_>>,
) -> J {
    let ranges: Vec<J> = annotations
        .iter()
        .map(|a| {
            let mut o = json!({
                "start": a.start,
                "end": a.end,
                "depth": a.depth,
                "path": a.path,
                "name": a.name,
                "title": a.title,
                "kind": a.kind.word(),
                "value": value_json(&a.value),
                "since": a.since.map(|(axis, v)| json!({ "axis": axis.name(), "version": axis.style().show(v) })),
                PROVENANCE_KEY: a.provenance.word(),
                "note": a.note,
                "failing": a.failing,
            });
            if a.kind.is_leaf() && a.end - a.start <= SHOWN_BYTES as u64 {
                o["bytes"] = json!(hex(&bytes[a.start as usize..a.end as usize]).replace(' ', ""));
            }
            if let Kind::Data { tensor, buffer } = a.kind {
                o["tensor"] = json!(tensor);
                o["buffer"] = json!(buffer);
                match shown.get(&(tensor, buffer)) {
                    Some(BufferShown::Hex(b)) => {
                        o["data"] = json!({ "hex": hex(b).replace(' ', "") });
                    }
                    Some(BufferShown::Elements(d)) => {
                        o["data"] = json!({
                            "type": d.element_type,
                            "total": d.total,
                            "values": values_json(&d.values),
                            "dequantized": d.dequantized.as_ref().map(|x| J::Array(x.iter().map(|v| float_json(*v)).collect())),
                            "note": d.note,
                        });
                    }
                    None => {}
                }
            }
            o
        })
        .collect();
    json!({
        "input": report.input.word(),
        "length": report.len,
        "error": report.error.as_ref().map(|e| json!({
            "code": e.code(),
            "rule": e.rule().map(|r| r.id()),
            "offset": e.offset(),
            "message": e.to_string(),
        })),
        "warnings": report.warnings.iter().map(|w| json!({
            "code": w.rule.code(),
            "rule": w.rule.id(),
            "offset": w.offset,
            "message": w.detail,
        })).collect::<Vec<_>>(),
        "ranges": ranges,
    })
}
