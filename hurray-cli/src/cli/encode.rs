//! `hurray encode`: the JSON `decode --json` prints, back to bytes. A descriptor, or a whole
//! file with its data (one reference per buffer, [`super::data`]). The input is read strictly:
//! a key repeated in an object, a key the format does not have, a missing key, a name that
//! contradicts its number and a value out of its field's range are each refused with a code
//! (exit 1); fields the writer can compute (`descriptor_length`, `rank`, `flags`, the version,
//! a file's offsets and placement) may be left out. The result is read back before it is put in
//! place (unless `--unchecked`), so what a reader rejects is never written.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::process::ExitCode;

use hurray_runtime::axes::Axis;
use hurray_runtime::contract::{
    self, EntryNumbers, FILE_RUNTIME_ONLY, FileParts, Placement, descriptor_value,
};
use hurray_runtime::file::{MappedFile, TRAILER_SIZE, buffer_spans};
use hurray_runtime::flags::{FileFlags, IndexEntryFlags};
use hurray_runtime::json::{
    descriptor_json, evolution_from_json_strict, file_json, first_difference, from_json,
};
use hurray_runtime::structures::{IndexEntry, Trailer};
use hurray_runtime::value::ValueError;
use hurray_runtime::writer::{AtomicFile, FileWriter, WriteError, write_atomically};
use hurray_runtime::{Error, ReaderConfig, Version, descriptor};
use serde_json::Value as J;

use super::exit::{Report, usage_error};
use super::refusal::Refusal;
use super::strict_json::{self, StrictJsonError};

/// The trailer's magic (`trailer_magic`, F4), as the spec's check states it.
const TRAILER_MAGIC: [u8; 4] = hurray_runtime::structures::TrailerView::EXPECTED_TRAILER_MAGIC;

/// Why an encode stopped.
enum Failure {
    /// The JSON input says something the format cannot hold (exit 1, code `encode-…`).
    Refused {
        code: Refusal,
        path: String,
        message: String,
    },
    /// The bytes it describes break a rule of the format (exit 1, the rule's code).
    Invalid(Error),
    /// What the JSON at `path` says breaks a rule a writer keeps (exit 1, the rule's code):
    /// reported at the JSON path, not at a byte offset of bytes not yet written.
    InvalidAt { error: Error, path: String },
    /// Reading or writing failed (exit 2).
    Io(String),
}

impl From<ValueError> for Failure {
    fn from(e: ValueError) -> Failure {
        let code = match e.message.as_str() {
            m if m == "missing" || m.starts_with("missing ") => Refusal::MissingKey,
            "unknown key" => Refusal::UnknownKey,
            m if m.contains(" contradicts ") => Refusal::Contradiction,
            _ => Refusal::InvalidValue,
        };
        Failure::Refused {
            code,
            path: e.path,
            message: e.message,
        }
    }
}

impl From<super::data::Refused> for Failure {
    fn from(r: super::data::Refused) -> Failure {
        Failure::Refused {
            code: r.code,
            path: r.path,
            message: r.message,
        }
    }
}

impl From<WriteError> for Failure {
    fn from(e: WriteError) -> Failure {
        match e {
            WriteError::Invalid(e) => Failure::Invalid(e),
            WriteError::Io(e) => Failure::Io(e.to_string()),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::Io(e.to_string())
    }
}

fn refused(code: Refusal, path: &str, message: impl Into<String>) -> Failure {
    Failure::Refused {
        code,
        path: path.to_string(),
        message: message.into(),
    }
}

pub fn run(input: &Path, output: &Path, unchecked: bool, cfg: &ReaderConfig) -> ExitCode {
    let report = Report { input, json: false };
    let text = match std::fs::read_to_string(input) {
        Ok(t) => t,
        Err(e) => return usage_error(format!("cannot read {}: {e}", input.display())),
    };
    // What was decoded permissively must encode back: the read-back is permissive, with the
    // agreements, transport and limits asked for.
    let cfg = cfg.clone().permissive(true);
    let base = input.parent().unwrap_or(Path::new("."));
    match encode(&text, base, output, unchecked, &cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Refused {
            code,
            path,
            message,
        }) => report.refused(code.code(), &path, message),
        Err(Failure::Invalid(e)) => report.rejected(&e),
        Err(Failure::InvalidAt { error, path }) => report.refused(
            error.code(),
            &path,
            match error.rule() {
                Some(rule) => format!("{} (rule {})", error.detail(), rule.id()),
                None => error.detail().to_string(),
            },
        ),
        Err(Failure::Io(m)) => usage_error(format!("{}: {m}", output.display())),
    }
}

fn encode(
    text: &str,
    base: &Path,
    output: &Path,
    unchecked: bool,
    cfg: &ReaderConfig,
) -> Result<(), Failure> {
    let j = strict_json::parse(text).map_err(|e| match e {
        StrictJsonError::Syntax(m) => refused(Refusal::NotJson, "", m),
        StrictJsonError::DuplicateKey(p) => {
            refused(Refusal::DuplicateKey, &p, "the key appears twice")
        }
    })?;
    if !j.is_object() {
        return Err(refused(
            Refusal::InvalidValue,
            "",
            "expected an object (what `hurray decode --json` prints)",
        ));
    }
    match j.get("kind") {
        None => descriptor_bytes(&j, output, unchecked, cfg),
        Some(J::String(k)) if k == "descriptor" => descriptor_bytes(&j, output, unchecked, cfg),
        Some(J::String(k)) if k == "file" => file_bytes(j, base, output, unchecked, cfg),
        Some(J::String(k)) if k == "stream" => stream_bytes(&j, base, output, unchecked, cfg),
        Some(J::String(k)) if k == "session" => session_bytes(&j, output, unchecked, cfg),
        Some(other) => Err(refused(
            Refusal::InvalidValue,
            "kind",
            format!("{other} is none of \"descriptor\", \"file\", \"stream\" and \"session\""),
        )),
    }
}

/// A captured session's bytes from its JSON (what `decode --as session --json` prints): each
/// message from its value tree, back to back, then read back whole unless `unchecked`.
fn session_bytes(j: &J, output: &Path, unchecked: bool, cfg: &ReaderConfig) -> Result<(), Failure> {
    use hurray_runtime::structures::InterchangeMessage;
    let known = |key: &str, computed: &[&str], extra: &[&str]| {
        computed.contains(&key) || extra.contains(&key)
    };
    for key in j.as_object().into_iter().flat_map(|o| o.keys()) {
        if !known(key, super::session::COMPUTED, &["kind", "messages"]) {
            return Err(refused(Refusal::UnknownKey, key, "unknown key"));
        }
    }
    let messages = match j.get("messages") {
        Some(J::Array(a)) => a,
        None => return Err(refused(Refusal::MissingKey, "messages", "missing")),
        Some(_) => {
            return Err(refused(
                Refusal::InvalidValue,
                "messages",
                "expected an array of messages",
            ));
        }
    };
    let mut bytes = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let path = format!("messages[{i}]");
        for key in m.as_object().into_iter().flat_map(|o| o.keys()) {
            if !known(key, super::session::MESSAGE_COMPUTED, &["message"]) {
                return Err(refused(
                    Refusal::UnknownKey,
                    &format!("{path}.{key}"),
                    "unknown key",
                ));
            }
        }
        let path = format!("{path}.message");
        let Some(msg) = m.get("message") else {
            return Err(refused(Refusal::MissingKey, &path, "missing"));
        };
        let evo = evolution_from_json_strict(msg).map_err(|mut e| {
            e.path = format!("{path}.{}", e.path);
            e
        })?;
        let value = from_json(msg, "", &evo);
        let owned = InterchangeMessage::from_value(&value, "").map_err(|mut e| {
            e.path = if e.path.is_empty() {
                path.clone()
            } else {
                format!("{path}.{}", e.path)
            };
            e
        })?;
        owned.encode(&mut bytes);
    }
    if !unchecked {
        for m in hurray_runtime::message::session(&bytes, cfg) {
            m.map_err(Failure::Invalid)?;
        }
    }
    write_atomically(output, &bytes)?;
    Ok(())
}

/// Refuse the first thing `given` says that `canonical` (the value of what is written) does
/// not: an unknown key, or a value that contradicts what was encoded. `skip` names the keys
/// reading computes.
fn compare(given: &J, canonical: &J, skip: &dyn Fn(&str, &str) -> bool) -> Result<(), Failure> {
    match first_difference(given, canonical, "", skip) {
        None => Ok(()),
        Some((path, what)) if what == "unknown key" => {
            Err(refused(Refusal::UnknownKey, &path, what))
        }
        Some((path, what)) => Err(refused(Refusal::Contradiction, &path, what)),
    }
}

fn descriptor_bytes(
    j: &J,
    output: &Path,
    unchecked: bool,
    cfg: &ReaderConfig,
) -> Result<(), Failure> {
    let d = descriptor_from_json(j, "")?;
    let bytes = d.to_bytes();
    if !unchecked {
        descriptor::read(&bytes, cfg).map_err(Failure::Invalid)?;
    }
    write_atomically(output, &bytes)?;
    Ok(())
}

/// A descriptor's bytes from its JSON (what `decode --json` prints of it) at `path`, every
/// key checked against the value it encodes.
fn descriptor_from_json(
    j: &J,
    path: &str,
) -> Result<hurray_runtime::structures::Descriptor, Failure> {
    let at = |p: &str| match (path.is_empty(), p.is_empty()) {
        (true, _) => p.to_string(),
        (false, true) => path.to_string(),
        (false, false) => format!("{path}.{p}"),
    };
    let prefixed = |mut e: ValueError| {
        e.path = at(&e.path);
        e
    };
    let evo = evolution_from_json_strict(j).map_err(prefixed)?;
    let value = from_json(j, "", &evo);
    let d = contract::descriptor_from_value(&value).map_err(prefixed)?;
    let canonical = descriptor_json(&descriptor_value(&d), &[], true);
    compare(j, &canonical, &|p, key| {
        p.is_empty() && matches!(key, "evolution" | "warnings" | "dereferenceable")
    })
    .map_err(|f| match f {
        Failure::Refused {
            code,
            path: p,
            message,
        } => Failure::Refused {
            code,
            path: at(&p),
            message,
        },
        other => other,
    })?;
    Ok(d)
}

/// A canonical stream from its JSON (`decode --json` of a stream): each tensor's descriptor
/// and data through the stream writer (which checks each before writing it), then the stream
/// read back and compared with what the JSON says of it.
fn stream_bytes(
    j: &J,
    base: &Path,
    output: &Path,
    unchecked: bool,
    cfg: &ReaderConfig,
) -> Result<(), Failure> {
    let tensors = super::stream::tensors(j).map_err(|(path, message)| {
        let code = match message.as_str() {
            "unknown key" => Refusal::UnknownKey,
            "missing" => Refusal::MissingKey,
            _ => Refusal::InvalidValue,
        };
        refused(code, &path, message)
    })?;
    let out = AtomicFile::create(output)?;
    let mut w = hurray_runtime::stream::StreamWriter::new(out);
    for t in &tensors {
        let d = descriptor_from_json(t.descriptor, &format!("{}.descriptor", t.path))?;
        let sizes: Vec<u64> = d.buffer_table.buffers.iter().map(|b| b.byte_size).collect();
        let path = format!("{}.data", t.path);
        let refs: &[J] = match t.data {
            Some(J::Array(a)) => a,
            None if sizes.is_empty() => &[],
            None => return Err(refused(Refusal::MissingKey, &path, "missing")),
            Some(_) => {
                return Err(refused(
                    Refusal::InvalidValue,
                    &path,
                    "expected an array with one reference per buffer",
                ));
            }
        };
        if refs.len() != sizes.len() {
            return Err(refused(
                Refusal::Contradiction,
                &path,
                format!(
                    "{} reference(s), but the descriptor's buffer table has {} buffer(s)",
                    refs.len(),
                    sizes.len()
                ),
            ));
        }
        let mut buffers = Vec::with_capacity(refs.len());
        for (k, (r, size)) in refs.iter().zip(&sizes).enumerate() {
            buffers.push(super::data::resolve(
                r,
                &format!("{path}[{k}]"),
                base,
                *size,
            )?);
        }
        let slices: Vec<&[u8]> = buffers.iter().map(Vec::as_slice).collect();
        w.write_tensor(&d.to_bytes(), &slices)
            .map_err(invalid_at(t.path.clone()))?;
    }
    let mut out = w.finish().map_err(invalid_at("tensors"))?;
    out.flush()?;
    if !unchecked {
        let file = std::fs::File::open(out.temporary_path())?;
        let canonical = match super::stream::json(
            std::io::BufReader::new(file),
            super::stream::Data::None,
            cfg,
        ) {
            Ok(c) => c,
            Err(super::stream::Failed::Stream(hurray_runtime::stream::StreamError::Invalid(e))) => {
                return Err(Failure::Invalid(e));
            }
            Err(super::stream::Failed::Stream(e)) => return Err(Failure::Io(e.to_string())),
            Err(super::stream::Failed::DataFile(e)) => return Err(e.into()),
        };
        compare(j, &canonical, &|p, key| {
            (key == "data" && p.starts_with("tensors[") && !p.contains('.'))
                || (p.ends_with(".descriptor")
                    && matches!(key, "evolution" | "warnings" | "dereferenceable"))
        })?;
    }
    out.commit()?;
    Ok(())
}

/// Keys of a file's JSON that reading computes and writing ignores: the runtime-only keys at
/// the top, a descriptor's `dereferenceable` and a tensor's `data` (compared separately).
fn file_runtime_key(path: &str, key: &str) -> bool {
    (path.is_empty() && FILE_RUNTIME_ONLY.contains(&key))
        || (key == "dereferenceable" && path.ends_with(".descriptor"))
        || (key == "data" && path.starts_with("tensors[") && !path.contains('.'))
}

fn file_bytes(
    mut j: J,
    base: &Path,
    output: &Path,
    unchecked: bool,
    cfg: &ReaderConfig,
) -> Result<(), Failure> {
    let evo = evolution_from_json_strict(&j)?;
    // Each tensor's data references, taken out before the rest is read as a value.
    let mut references = Vec::new();
    if let Some(J::Array(tensors)) = j.get_mut("tensors") {
        for t in tensors {
            references.push(t.as_object_mut().and_then(|m| m.remove("data")));
        }
    }
    let value = from_json(&j, "", &evo);
    let parts = contract::file_from_value(&value)?;
    // W2, in the JSON's words: a header that declares its version declares one that covers
    // what the file emits (one that leaves it out has it computed). A file crafted with
    // `--unchecked` and its placement may declare less, to test readers.
    if !(unchecked && parts.placement.is_some()) {
        w2(&parts)?;
    }
    let mut buffers: Vec<Vec<Vec<u8>>> = Vec::with_capacity(parts.tensors.len());
    for (i, (t, r)) in parts.tensors.iter().zip(&references).enumerate() {
        let sizes: Vec<u64> = t
            .descriptor
            .buffer_table
            .buffers
            .iter()
            .map(|b| b.byte_size)
            .collect();
        let path = format!("tensors[{i}].data");
        let refs: &[J] = match r {
            Some(J::Array(a)) => a,
            None if sizes.is_empty() => &[],
            None => return Err(refused(Refusal::MissingKey, &path, "missing")),
            Some(_) => {
                return Err(refused(
                    Refusal::InvalidValue,
                    &path,
                    "expected an array with one reference per buffer",
                ));
            }
        };
        if refs.len() != sizes.len() {
            return Err(refused(
                Refusal::Contradiction,
                &path,
                format!(
                    "{} reference(s), but the descriptor's buffer table has {} buffer(s)",
                    refs.len(),
                    sizes.len()
                ),
            ));
        }
        let mut tensor = Vec::with_capacity(refs.len());
        for (k, (r, size)) in refs.iter().zip(&sizes).enumerate() {
            tensor.push(super::data::resolve(
                r,
                &format!("{path}[{k}]"),
                base,
                *size,
            )?);
        }
        buffers.push(tensor);
    }
    let out = AtomicFile::create(output)?;
    let (mut out, plan) = match parts.placement {
        Some(placement) => {
            let mut out = out;
            let entries = place_exactly(&mut out, &parts, &buffers, &placement)?;
            (out, Some((entries, placement)))
        }
        None => (through_writer(out, &parts, &buffers)?, None),
    };
    out.flush()?;
    let canonical = match read_back(out.temporary_path(), cfg) {
        Ok(j) => j,
        Err(e) if unchecked => match plan {
            Some((entries, placement)) => {
                file_json(&contract::file_plan_value(&parts, &entries, &placement))
            }
            None => return Err(e),
        },
        Err(e) => return Err(e),
    };
    compare(&j, &canonical, &file_runtime_key)?;
    out.commit()?;
    Ok(())
}

/// W2: the container version the JSON declares covers what the file emits; refused at the
/// version's keys, saying what to write there.
fn w2(parts: &FileParts) -> Result<(), Failure> {
    let need = parts.container_version_needed();
    let declared = Version::new(
        parts.header.container_version_major,
        parts.header.container_version_minor,
    );
    if need <= declared {
        return Ok(());
    }
    let (major, minor) = Axis::Container.version_fields();
    let write = match major {
        Some(major) => format!(
            "write \"{major}\": {}, \"{minor}\": {}",
            need.major, need.minor
        ),
        None => format!("write \"{minor}\": {}", need.minor),
    };
    Err(refused(
        Refusal::Contradiction,
        minor,
        format!(
            "the file declares container {declared}, but what it emits (its KV value tags, the appended fields of its sections) needs container {need} (W2): {write}, or leave the version out and it is computed"
        ),
    ))
}

/// A writer's refusal of what the JSON at `path` describes.
fn invalid_at(path: impl Into<String>) -> impl FnOnce(WriteError) -> Failure {
    let path = path.into();
    move |e| match e {
        WriteError::Invalid(error) => Failure::InvalidAt { error, path },
        WriteError::Io(e) => Failure::Io(e.to_string()),
    }
}

/// The written file read back whole, as `decode --json` shows it (data aside).
fn read_back(path: &Path, cfg: &ReaderConfig) -> Result<J, Failure> {
    let map = MappedFile::open(path)?;
    let f = map.read(cfg).map_err(Failure::Invalid)?;
    let value = contract::file_value(&f).map_err(Failure::Invalid)?;
    Ok(file_json(&value))
}

/// A file without a recorded placement: written by the runtime's single-pass writer, which
/// places every part by the container's rules (and checks every tensor as it goes).
fn through_writer(
    out: AtomicFile,
    parts: &FileParts,
    buffers: &[Vec<Vec<u8>>],
) -> Result<AtomicFile, Failure> {
    let mut w = FileWriter::with_header(out, parts.header.clone()).map_err(invalid_at(""))?;
    for (i, (t, b)) in parts.tensors.iter().zip(buffers).enumerate() {
        let refs: Vec<&[u8]> = b.iter().map(Vec::as_slice).collect();
        w.add_tensor(&t.name, &t.descriptor.to_bytes(), &refs)
            .map_err(invalid_at(format!("tensors[{i}]")))?;
    }
    let kv = parts.kv.as_ref().map_or(&[][..], |k| &k.entries[..]);
    w.finish(kv).map_err(invalid_at("kv"))
}

/// A file whose placement the JSON records (what `decode --json` prints): every part at the
/// offset given, padding zero, the trailer at the end with the index's CRC-32C (when the
/// header's HAS_INDEX_CRC32C asks for one). Returns each tensor's entry numbers.
fn place_exactly(
    out: &mut AtomicFile,
    parts: &FileParts,
    buffers: &[Vec<Vec<u8>>],
    placement: &Placement,
) -> Result<Vec<EntryNumbers>, Failure> {
    let alignment = u64::from(parts.header.data_buffer_alignment);
    let too_large = |path: &str| refused(Refusal::InvalidValue, path, "does not fit in 64 bits");
    let mut pieces: Vec<(u64, String, Vec<u8>)> =
        vec![(0, "header".into(), parts.header.to_bytes())];
    let mut entries = Vec::with_capacity(parts.tensors.len());
    let mut index = parts.index.clone();
    for (i, (t, b)) in parts.tensors.iter().zip(buffers).enumerate() {
        let path = format!("tensors[{i}]");
        let descriptor = t.descriptor.to_bytes();
        let descriptor_offset = t.descriptor_offset.ok_or_else(|| {
            refused(
                Refusal::MissingKey,
                &format!("{path}.descriptor_offset"),
                "missing (a file that records its placement gives every tensor's offsets)",
            )
        })?;
        let written_length = u32::try_from(descriptor.len())
            .map_err(|_| too_large(&format!("{path}.descriptor")))?;
        let descriptor_end = descriptor_offset
            .checked_add(u64::from(written_length))
            .ok_or_else(|| too_large(&format!("{path}.descriptor_offset")))?;
        let spans = buffer_spans(descriptor_end, alignment, b.iter().map(|x| x.len() as u64))
            .ok_or_else(|| too_large(&format!("{path}.data")))?;
        let (data_offset, data_length) = match (spans.first(), spans.last()) {
            (Some(first), Some(last)) => (first.0, last.1 - first.0),
            _ => (descriptor_end, 0),
        };
        let numbers = EntryNumbers {
            descriptor_offset,
            descriptor_length: t.descriptor_length.unwrap_or(written_length),
            data_offset: t.data_offset.unwrap_or(data_offset),
            data_length: t.data_length.unwrap_or(data_length),
            flags: t.flags,
        };
        let flags = u32::try_from(t.flags).map_err(|_| {
            refused(
                Refusal::InvalidValue,
                &format!("{path}.flags"),
                "does not fit in 32 bits",
            )
        })?;
        index.entries.push(IndexEntry::new(
            t.name.clone(),
            numbers.descriptor_offset,
            numbers.descriptor_length,
            numbers.data_offset,
            numbers.data_length,
            IndexEntryFlags(flags),
        ));
        entries.push(numbers);
        pieces.push((descriptor_offset, format!("{path}.descriptor"), descriptor));
        for (k, ((start, _), bytes)) in spans.iter().zip(b).enumerate() {
            pieces.push((*start, format!("{path}.data[{k}]"), bytes.clone()));
        }
    }
    if let Some(kv) = &parts.kv {
        pieces.push((placement.kv_offset, "kv".into(), kv.to_bytes()));
    }
    let index_bytes = index.to_bytes();
    let crc = if parts.header.file_flags.has(FileFlags::HAS_INDEX_CRC32C) {
        crc32c::crc32c(&index_bytes)
    } else {
        0
    };
    pieces.push((placement.index_offset, "index".into(), index_bytes));
    let kv_length = u32::try_from(placement.kv_length).map_err(|_| {
        refused(
            Refusal::InvalidValue,
            "placement.kv_length",
            "does not fit in 32 bits",
        )
    })?;
    let trailer = Trailer::new(
        placement.index_offset,
        placement.index_length,
        placement.kv_offset,
        kv_length,
        crc,
        TRAILER_MAGIC.to_vec(),
    );
    let trailer_at = placement
        .file_size
        .checked_sub(TRAILER_SIZE)
        .ok_or_else(|| {
            refused(
                Refusal::InvalidValue,
                "placement.file_size",
                "smaller than the trailer",
            )
        })?;
    pieces.push((trailer_at, "the trailer's bytes".into(), trailer.to_bytes()));
    pieces.sort_by_key(|(at, _, _)| *at);
    let mut position = 0u64;
    let mut previous = "the file's start".to_string();
    for (at, what, bytes) in pieces {
        if at < position {
            return Err(refused(
                Refusal::Contradiction,
                "placement",
                format!("{what} at byte {at} overlaps {previous}, which ends at byte {position}"),
            ));
        }
        if at > position {
            let gap = i64::try_from(at - position).map_err(|_| too_large(&what))?;
            out.seek(SeekFrom::Current(gap))?;
        }
        out.write_all(&bytes)?;
        position = at
            .checked_add(bytes.len() as u64)
            .ok_or_else(|| too_large(&what))?;
        previous = what;
    }
    if position != placement.file_size {
        return Err(refused(
            Refusal::Contradiction,
            "placement.file_size",
            format!("the trailer ends at byte {position}"),
        ));
    }
    Ok(entries)
}
