//! `decode` and `encode` of a canonical stream (descriptor + data pairs back to back,
//! interchange.md §2.1): read with the runtime's stream reader (memory bounded by its largest
//! descriptor, a chunk and the buffers the data rules hold), written with its stream writer.
//!
//! Its JSON: `{"kind": "stream", "length", "tensors": [{"position", "descriptor_offset",
//! "descriptor_length", "data_offset", "data_length", "head", "depth", "descriptor": …,
//! "data": [one reference per buffer]}], "composites": [{"head", "members", "complete"}],
//! "warnings"}`. Each `descriptor` is what `decode --json` prints of that descriptor alone;
//! `encode` needs only `kind`, and per tensor `descriptor` and `data`: the rest is what reading
//! computes, compared when given.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use hurray_runtime::contract::descriptor_value;
use hurray_runtime::json::{descriptor_json, warnings_json};
use hurray_runtime::stream::{StreamError, StreamReader};
use hurray_runtime::{ReaderConfig, contract};
use serde_json::{Value as J, json};

use super::exit::{Report, usage_error};

/// The keys of a stream's JSON, and of each of its tensors, that reading computes.
pub const COMPUTED: &[&str] = &["length", "composites", "warnings"];
const TENSOR_COMPUTED: &[&str] = &[
    "position",
    "descriptor_offset",
    "descriptor_length",
    "data_offset",
    "data_length",
    "head",
    "depth",
];

/// How a stream's JSON refers to its buffers' bytes.
#[derive(Clone, Copy)]
pub enum Data<'a> {
    /// Not at all (`data` is empty): the JSON of a stream read back to compare.
    None,
    /// Inline base64, or raw files in a directory ([`super::data::reference`]).
    Refs(Option<&'a Path>),
}

/// Why reading a stream as JSON stopped.
pub enum Failed {
    /// The stream breaks a rule, or could not be read.
    Stream(StreamError),
    /// A data file could not be written.
    DataFile(std::io::Error),
}

/// Read the stream `input` whole into its JSON (see the module documentation).
pub fn json(input: impl Read, data: Data<'_>, cfg: &ReaderConfig) -> Result<J, Failed> {
    let mut r = StreamReader::new(input, cfg);
    let mut ts = Vec::new();
    loop {
        let next = match data {
            Data::Refs(_) => r.next_tensor_with_data(),
            Data::None => r
                .next_tensor(&mut |_, _, _| {})
                .map(|t| t.map(|t| (t, Vec::new()))),
        };
        let Some((t, bytes)) = next.map_err(Failed::Stream)? else {
            break;
        };
        let mut refs = Vec::with_capacity(bytes.len());
        if let Data::Refs(dir) = data {
            for (k, b) in bytes.iter().enumerate() {
                refs.push(
                    super::data::reference(b, dir, t.position(), k).map_err(Failed::DataFile)?,
                );
            }
        }
        let value = descriptor_value(t.descriptor());
        ts.push(json!({
            "position": t.position(),
            "descriptor_offset": t.descriptor_offset(),
            "descriptor_length": t.descriptor_length(),
            "data_offset": t.data_offset(),
            "data_length": t.data_length(),
            "head": t.head(),
            "depth": t.depth(),
            "descriptor": descriptor_json(&value, t.warnings(), t.dereferenceable()),
            "data": refs,
        }));
    }
    let summary = r.finish().map_err(Failed::Stream)?;
    let composites: Vec<J> = summary
        .composites()
        .iter()
        .map(|c| json!({"head": c.head, "members": c.members, "complete": c.complete}))
        .collect();
    Ok(json!({
        "kind": "stream",
        "length": summary.len(),
        "tensors": ts,
        "composites": composites,
        "warnings": warnings_json(summary.warnings()),
    }))
}

/// Decode the stream `input` (a path's contents or standard input): a summary, or its JSON
/// with each buffer as a reference (`--data-dir`: raw files there).
pub fn run(
    input: impl Read,
    report: Report<'_>,
    data_dir: Option<&Path>,
    cfg: &ReaderConfig,
) -> ExitCode {
    let failed = |e: StreamError| match e {
        StreamError::Invalid(e) => report.rejected(&e),
        other => usage_error(format!("{}: {other}", report.input.display())),
    };
    if report.json {
        return match json(input, Data::Refs(data_dir), cfg) {
            Ok(j) => {
                outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
                ExitCode::SUCCESS
            }
            Err(Failed::Stream(e)) => failed(e),
            Err(Failed::DataFile(e)) => usage_error(format!("cannot write a data file: {e}")),
        };
    }
    let mut r = StreamReader::new(input, cfg);
    let mut tensors = Vec::new();
    loop {
        match r.next_tensor(&mut |_, _, _| {}) {
            Ok(Some(t)) => tensors.push(t),
            Ok(None) => break,
            Err(e) => return failed(e),
        }
    }
    let summary = match r.finish() {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    outln!(
        "stream, {} bytes, {} tensor(s), {} composite(s)",
        summary.len(),
        summary.tensors(),
        summary.composites().len()
    );
    for t in &tensors {
        let dv = contract::descriptor_value(t.descriptor());
        let member = match t.head() {
            Some(h) => format!(", member of #{h} (depth {})", t.depth()),
            None => String::new(),
        };
        outln!(
            "tensor #{}: descriptor at {} ({} bytes), data {} bytes at {}{member}",
            t.position(),
            t.descriptor_offset(),
            t.descriptor_length(),
            t.data_length(),
            t.data_offset()
        );
        out!(
            "{}",
            super::summary::descriptor(t.descriptor(), &dv, t.warnings(), t.dereferenceable(), 2)
        );
    }
    for w in summary.warnings() {
        outln!("warning: {}", w.detail);
    }
    ExitCode::SUCCESS
}

/// What `encode` needs of a stream's JSON: per tensor, its descriptor's JSON (as `decode
/// --json` prints a descriptor) and its data references, with the JSON path of each.
pub struct Tensor<'j> {
    pub path: String,
    pub descriptor: &'j J,
    pub data: Option<&'j J>,
}

/// The tensors of a stream's JSON, or the path and message of the first thing that is not
/// one: an unknown key, or a computed key whose value the stream as written contradicts is
/// found by comparing with the JSON read back ([`COMPUTED`] and each tensor's own).
pub fn tensors(j: &J) -> Result<Vec<Tensor<'_>>, (String, String)> {
    let Some(m) = j.as_object() else {
        return Err((String::new(), "expected an object".into()));
    };
    for k in m.keys() {
        if k != "kind" && k != "tensors" && !COMPUTED.contains(&k.as_str()) {
            return Err((k.clone(), "unknown key".into()));
        }
    }
    let Some(ts) = m.get("tensors") else {
        return Err(("tensors".into(), "missing".into()));
    };
    let Some(ts) = ts.as_array() else {
        return Err(("tensors".into(), "expected an array".into()));
    };
    let mut out = Vec::with_capacity(ts.len());
    for (i, t) in ts.iter().enumerate() {
        let path = format!("tensors[{i}]");
        let Some(t) = t.as_object() else {
            return Err((path, "expected an object".into()));
        };
        for k in t.keys() {
            if k != "descriptor" && k != "data" && !TENSOR_COMPUTED.contains(&k.as_str()) {
                return Err((format!("{path}.{k}"), "unknown key".into()));
            }
        }
        let Some(descriptor) = t.get("descriptor") else {
            return Err((format!("{path}.descriptor"), "missing".into()));
        };
        out.push(Tensor {
            path,
            descriptor,
            data: t.get("data"),
        });
    }
    Ok(out)
}
