//! Cross-major migration (S5, feature `json`): data of an older major rewritten into this
//! build's major as the spec's migration specification says (`hurray migrate`).
//!
//! Two builds take part, each running this module: the **released** build (the runtime of
//! the old major) reads the data and [`export`]s it as a runtime-neutral JSON document — the
//! value of every structure (the owned form's value tree, [`crate::json`]) and every tag,
//! flag and field value it read, located by its byte offset and its spec name; the **new**
//! build [`import`]s that document: it looks up its migration table
//! (`generated::migrations`, generated from `spec/migrations/`), refuses any value the
//! migration drops, moves the values it maps, parses the result as its own owned forms (a
//! value that does not fit its new type is refused) and writes it with its own writer, so
//! the output is what that writer writes for the value: deterministic, byte for byte.
//! Nothing here names a structure: the table and the located values carry every name.

use serde_json::{Map, Value as J, json};

use crate::ReaderConfig;
use crate::error::Error;
use crate::generated::axes::Axis;
use crate::generated::migrations;
use crate::inspect::{self, Collect, Kind, Provenance, Shown};
use crate::json::{Evolution, evolution_from_json, evolution_json, from_json, to_json};
use crate::migration_table::Migration;
use crate::rules::Rule;
use crate::structures::{Descriptor, FileHeader};
use crate::value::ValueError;
use crate::wire::FlagSet;

/// Why a migration was refused. Every refusal has a stable kebab-case [`code`](Self::code),
/// the rule it follows ([`rule`](Self::rule)) and, where the data has one, the byte offset
/// of the value ([`offset`](Self::offset), in the input).
#[derive(Debug)]
#[non_exhaustive]
pub enum MigrateError {
    /// This build defines no migration onto its major of the axis from the data's major.
    Undefined {
        /// The axis.
        axis: String,
        /// The data's major.
        from: u16,
        /// The major asked for.
        to: u16,
        /// This build's major of the axis.
        build: u16,
    },
    /// The data holds a value the migration drops.
    Dropped {
        /// Where the value is in the input.
        offset: u64,
        /// Its spec path.
        path: String,
        /// The value (`layout 0x40 (hilbert)`).
        value: String,
        /// The entry of the migration specification that drops it.
        entry: String,
    },
    /// A value does not fit its type in the new major.
    DoesNotFit {
        /// Where the value is in the input.
        offset: u64,
        /// Its spec path.
        path: String,
        /// Why.
        detail: String,
        /// The migration specification.
        entry: String,
    },
    /// The migration moves an item in a way this tool does not apply (a field onto another
    /// structure).
    Unsupported {
        /// Where the value is in the input.
        offset: u64,
        /// Its spec path.
        path: String,
        /// The entry.
        entry: String,
    },
    /// The new major's writer refused the migrated value: its rejection (offset in the
    /// migrated output).
    Refused(Error),
    /// The export is not one [`export`] writes.
    BadExport(String),
}

impl MigrateError {
    /// The stable kebab-case code.
    pub fn code(&self) -> &'static str {
        match self {
            MigrateError::Undefined { .. } => "migration-undefined",
            MigrateError::Dropped { .. } => "migration-drops-value",
            MigrateError::DoesNotFit { .. } => "migration-value-does-not-fit",
            MigrateError::Unsupported { .. } => "migration-unsupported",
            MigrateError::Refused(e) => e.code(),
            MigrateError::BadExport(_) => "migration-bad-export",
        }
    }

    /// The rule the refusal follows (S5, or the rule the new major's writer applied).
    pub fn rule(&self) -> &'static str {
        match self {
            MigrateError::Refused(e) => e.id(),
            _ => Rule::S5.id(),
        }
    }

    /// The byte offset of the value in the input (in the output for [`Self::Refused`]).
    pub fn offset(&self) -> Option<u64> {
        match self {
            MigrateError::Dropped { offset, .. }
            | MigrateError::DoesNotFit { offset, .. }
            | MigrateError::Unsupported { offset, .. } => Some(*offset),
            MigrateError::Refused(e) => Some(e.offset()),
            _ => None,
        }
    }
}

impl std::fmt::Display for MigrateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MigrateError::Undefined {
                axis,
                from,
                to,
                build,
            } => write!(
                f,
                "{}: no migration of `{axis}` from major {from} to major {to}: this build is of major {build} and its spec defines {} (rule {})",
                self.code(),
                match migrations::ALL.iter().find(|m| m.axis == axis) {
                    Some(m) => format!("the migration from major {} ({})", m.from, m.file),
                    None => "none".to_string(),
                },
                self.rule()
            ),
            MigrateError::Dropped {
                offset,
                path,
                value,
                entry,
            } => write!(
                f,
                "{}: `{path}` holds {value}, which the migration drops ({entry}) (rule {}, at byte {offset})",
                self.code(),
                self.rule()
            ),
            MigrateError::DoesNotFit {
                offset,
                path,
                detail,
                entry,
            } => write!(
                f,
                "{}: `{path}` does not fit the new major: {detail} ({entry}) (rule {}, at byte {offset})",
                self.code(),
                self.rule()
            ),
            MigrateError::Unsupported {
                offset,
                path,
                entry,
            } => write!(
                f,
                "{}: `{path}`: {entry} moves a field onto another structure, which `hurray migrate` does not apply (rule {}, at byte {offset})",
                self.code(),
                self.rule()
            ),
            MigrateError::Refused(e) => write!(f, "the new major's writer refuses: {e}"),
            MigrateError::BadExport(why) => write!(
                f,
                "{}: the released build's export is not readable: {why}",
                self.code()
            ),
        }
    }
}

impl std::error::Error for MigrateError {}

/// Export `bytes` (a descriptor or a file, by its magic) as this build reads them with
/// `config`: the runtime-neutral document [`import`] of a newer build takes. A file is read
/// whole ([`FileView::verify_all`](crate::file::FileView::verify_all)); a rejection is this
/// build's [`Error`].
pub fn export(bytes: &[u8], config: &ReaderConfig) -> Result<J, Error> {
    let majors: Map<String, J> = Axis::ALL
        .iter()
        .map(|a| (a.name().to_string(), json!(a.current().major)))
        .collect();
    let mut out = Map::new();
    out.insert("majors".into(), J::Object(majors));
    match inspect::Input::of(bytes) {
        inspect::Input::Descriptor => {
            out.insert("kind".into(), json!(inspect::Input::Descriptor.word()));
            out.insert("data".into(), export_descriptor(bytes, 0, config)?);
        }
        inspect::Input::Stream | inspect::Input::Session => {
            unreachable!("neither has a magic of its own: `Input::of` never says stream or session")
        }
        inspect::Input::File => {
            let f = crate::file::read(bytes, config)?;
            f.verify_all()?;
            let mut tensors = Vec::with_capacity(f.len());
            for t in f.tensors() {
                let t = t?;
                let start = t.descriptor_offset();
                let end = start.saturating_add(u64::from(t.descriptor_length()));
                let d = bytes
                    .get(start as usize..end as usize)
                    .ok_or_else(|| Error::new(Rule::F11, start, "a descriptor beyond the file"))?;
                let buffers: Vec<J> = t
                    .buffers()
                    .iter()
                    .map(|(o, b)| json!([o, b.len()]))
                    .collect();
                tensors.push(json!({
                    "name": t.name(),
                    "flags": t.entry().flags().bits(),
                    "data": export_descriptor(d, start, config)?,
                    "buffers": buffers,
                }));
            }
            let mut evo = Evolution::default();
            let header = to_json(&f.header().owned().to_value(), "", &mut evo);
            let kv: Vec<J> = f
                .kv()
                .map(|k| k.owned().entries)
                .unwrap_or_default()
                .iter()
                .map(|e| to_json(&crate::contract::kv_entry_value(e), "", &mut evo))
                .collect();
            // Everything outside the descriptors (header, KV section, index, trailer).
            let mut sink = Collect::default();
            let _ = inspect::file(bytes, config, &mut sink);
            let prefix = "tensors.";
            let located: Vec<J> = sink
                .annotations
                .iter()
                .filter(|a| !a.path.starts_with(prefix))
                .filter_map(|a| located(a, 0))
                .collect();
            out.insert("kind".into(), json!(inspect::Input::File.word()));
            out.insert("header".into(), header);
            out.insert("kv".into(), J::Array(kv));
            out.insert("has_kv".into(), json!(f.kv().is_some()));
            out.insert("tensors".into(), J::Array(tensors));
            out.insert("located".into(), J::Array(located));
        }
    }
    Ok(J::Object(out))
}

/// One descriptor of the export: its value tree, what reading did beyond it, and every
/// value it read, located (`base`: the descriptor's offset in the input).
fn export_descriptor(bytes: &[u8], base: u64, config: &ReaderConfig) -> Result<J, Error> {
    let checked = crate::descriptor::read(bytes, config).map_err(|e| e.rebase(base))?;
    let mut evo = Evolution::default();
    let value = to_json(&checked.view().owned().to_value(), "", &mut evo);
    let mut sink = Collect::default();
    let _ = inspect::descriptor(bytes, config, &mut sink);
    let located: Vec<J> = sink
        .annotations
        .iter()
        .filter_map(|a| located(a, base))
        .collect();
    Ok(json!({
        "value": value,
        "evolution": evolution_json(&evo),
        "located": located,
    }))
}

/// A value read from the data, by its offset and its spec names: the part of an annotation
/// a migration judges.
fn located(a: &inspect::Annotation, base: u64) -> Option<J> {
    if a.kind != Kind::Field || a.provenance != Provenance::Read {
        return None;
    }
    let structure = a.structure?;
    let field = a.name.split('[').next().unwrap_or(&a.name);
    let mut o = json!({
        "offset": a.start.checked_add(base)?,
        "path": a.path,
        "structure": structure,
        "field": field,
    });
    match &a.value {
        Shown::Tag { raw, space, .. } => o["tag"] = json!([space, raw]),
        Shown::Flags { raw, set, .. } => o["flags"] = json!([set, raw]),
        Shown::Unsigned(n) => o["nonzero"] = json!(*n != 0),
        Shown::Signed(n) => o["nonzero"] = json!(*n != 0),
        Shown::Float(x) => o["nonzero"] = json!(x.to_bits() != 0),
        Shown::Text(s) => o["nonzero"] = json!(!s.is_empty()),
        _ => o["nonzero"] = json!(a.end > a.start),
    }
    Some(o)
}

/// Write the data an [`export`] of an older build describes in this build's major of the
/// axis `axis`, which must be `to`: every descriptor (and, for a file, its header, KV
/// section and index entries) moved as this build's migration table says, then written by
/// this build's writer. `input` is the exported input (a file's buffers are copied from it).
pub fn import(export: &J, input: &[u8], axis: &str, to: u16) -> Result<Vec<u8>, MigrateError> {
    let bad = |why: &str| MigrateError::BadExport(why.to_string());
    let build = Axis::from_name(axis)
        .ok_or_else(|| bad(&format!("this build has no axis `{axis}`")))?
        .current()
        .major;
    let build = u16::from(build);
    let from = export["majors"][axis]
        .as_u64()
        .and_then(|m| u16::try_from(m).ok())
        .ok_or_else(|| bad("no major of the axis"))?;
    let undefined = || MigrateError::Undefined {
        axis: axis.to_string(),
        from,
        to,
        build,
    };
    if to != build {
        return Err(undefined());
    }
    let m = migrations::find(axis, from).ok_or_else(undefined)?;
    let kind = export["kind"].as_str();
    if kind == Some(inspect::Input::Descriptor.word()) {
        let d = descriptor(&export["data"], m)?;
        crate::writer::finalize(d).map_err(refused)
    } else if kind == Some(inspect::Input::File.word()) {
        file(export, input, m, axis)
    } else {
        Err(bad("neither a descriptor nor a file"))
    }
}

fn refused(e: crate::writer::WriteError) -> MigrateError {
    match e {
        crate::writer::WriteError::Invalid(e) => MigrateError::Refused(e),
        crate::writer::WriteError::Io(e) => MigrateError::BadExport(e.to_string()),
    }
}

/// One exported descriptor as this build's owned form.
fn descriptor(x: &J, m: &Migration) -> Result<Descriptor, MigrateError> {
    let located = x["located"].as_array().map_or(&[][..], Vec::as_slice);
    let mut value = x["value"].clone();
    apply(&mut value, located, m)?;
    // R4: the fields the older build took as defaults stay absent (its `evolution` report),
    // so the sub-versions that do not move with the migration keep their data's value.
    let evo = evolution_from_json(x);
    let v = from_json(&value, "", &evo);
    Descriptor::from_value(&v, "").map_err(|e| does_not_fit(e, located, 0, m))
}

/// A value that does not convert into this build's form, located by its path.
fn does_not_fit(e: ValueError, located: &[J], base: u64, m: &Migration) -> MigrateError {
    let path = e.path.trim_start_matches('.').to_string();
    let offset = located
        .iter()
        .find(|l| l["path"].as_str() == Some(path.as_str()))
        .and_then(|l| l["offset"].as_u64())
        .unwrap_or(base);
    MigrateError::DoesNotFit {
        offset,
        path,
        detail: e.message,
        entry: m.file.to_string(),
    }
}

/// Check every located value against the migration and move the values it maps, in
/// `value` (the value tree the located paths name).
fn apply(value: &mut J, located: &[J], m: &Migration) -> Result<(), MigrateError> {
    for l in located {
        let offset = l["offset"].as_u64().unwrap_or(0);
        let path = l["path"].as_str().unwrap_or_default();
        let structure = l["structure"].as_str().unwrap_or_default();
        let field = l["field"].as_str().unwrap_or_default();
        if let Some(mv) = m.fields.iter().find(|mv| mv.item == (structure, field)) {
            match mv.to {
                None if l["nonzero"].as_bool() == Some(true) => {
                    return Err(MigrateError::Dropped {
                        offset,
                        path: path.to_string(),
                        value: format!("a value of `{structure}.{field}`"),
                        entry: format!("{} [[field]] {structure}.{field} dropped", m.file),
                    });
                }
                None => remove(value, path),
                Some((s, f)) if s == structure && f == field => {}
                Some((s, f)) if s == structure => rename(value, path, f),
                Some(_) => {
                    return Err(MigrateError::Unsupported {
                        offset,
                        path: path.to_string(),
                        entry: format!("{} [[field]] {structure}.{field}", m.file),
                    });
                }
            }
        }
        if let Some([space, raw]) = l["tag"].as_array().map(Vec::as_slice) {
            let (space, raw) = (space.as_str().unwrap_or_default(), raw.as_u64());
            let raw = raw.and_then(|r| u32::try_from(r).ok()).unwrap_or(u32::MAX);
            if let Some(mv) = m.tags.iter().find(|mv| mv.item == (space, raw)) {
                match mv.to {
                    None => {
                        return Err(MigrateError::Dropped {
                            offset,
                            path: path.to_string(),
                            value: format!("{space} {raw:#04x}"),
                            entry: format!("{} [[tag]] {space} {raw:#04x} dropped", m.file),
                        });
                    }
                    Some((s, v)) if s == space => set(value, path, json!(v)),
                    Some(_) => {
                        return Err(MigrateError::Unsupported {
                            offset,
                            path: path.to_string(),
                            entry: format!("{} [[tag]] {space} {raw:#04x}", m.file),
                        });
                    }
                }
            }
        }
        if let Some([set_name, raw]) = l["flags"].as_array().map(Vec::as_slice) {
            let (set_name, raw) = (set_name.as_str().unwrap_or_default(), raw.as_u64());
            let raw = raw.unwrap_or(0);
            let mut moved = raw;
            for mv in m.bits.iter().filter(|mv| mv.item.0 == set_name) {
                let bit = mv.item.1;
                if bit >= 64 || raw & (1 << bit) == 0 {
                    continue;
                }
                match mv.to {
                    None => {
                        return Err(MigrateError::Dropped {
                            offset,
                            path: path.to_string(),
                            value: format!("{set_name} bit {bit}"),
                            entry: format!("{} [[bit]] {set_name} {bit} dropped", m.file),
                        });
                    }
                    Some((s, b)) if s == set_name && b < 64 => {
                        moved = (moved & !(1 << bit)) | (1 << b);
                    }
                    Some(_) => {
                        return Err(MigrateError::Unsupported {
                            offset,
                            path: path.to_string(),
                            entry: format!("{} [[bit]] {set_name} {bit}", m.file),
                        });
                    }
                }
            }
            if moved != raw {
                set(value, path, json!(moved));
            }
        }
    }
    Ok(())
}

/// The steps of a spec path (`buffer_table.buffers[1].alignment`): keys and indices.
fn steps(path: &str) -> Vec<Result<&str, usize>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut it = part.split('[');
        if let Some(key) = it.next().filter(|k| !k.is_empty()) {
            out.push(Ok(key));
        }
        for i in it {
            if let Ok(i) = i.trim_end_matches(']').parse() {
                out.push(Err(i));
            }
        }
    }
    out
}

/// The object holding the last step of `path`, and that step.
fn parent<'v, 'p>(value: &'v mut J, path: &'p str) -> Option<(&'v mut J, Result<&'p str, usize>)> {
    let mut s = steps(path);
    let last = s.pop()?;
    let mut at = value;
    for step in s {
        at = match step {
            Ok(k) => at.get_mut(k)?,
            Err(i) => at.get_mut(i)?,
        };
    }
    Some((at, last))
}

fn set(value: &mut J, path: &str, to: J) {
    if let Some((p, last)) = parent(value, path) {
        let slot = match last {
            Ok(k) => p.get_mut(k),
            Err(i) => p.get_mut(i),
        };
        if let Some(slot) = slot {
            *slot = to;
        }
    }
}

fn rename(value: &mut J, path: &str, to: &str) {
    if let Some((J::Object(o), Ok(k))) = parent(value, path)
        && let Some(v) = o.remove(k)
    {
        o.insert(to.to_string(), v);
    }
}

fn remove(value: &mut J, path: &str) {
    if let Some((J::Object(o), Ok(k))) = parent(value, path) {
        o.remove(k);
    }
}

/// A file: the header (its version fields moved to this build's major when the container
/// axis migrates), every tensor in index order with its descriptor migrated and its buffers
/// copied, the index entries' flags, the KV section.
fn file(export: &J, input: &[u8], m: &Migration, axis: &str) -> Result<Vec<u8>, MigrateError> {
    let bad = |why: &str| MigrateError::BadExport(why.to_string());
    let located = export["located"].as_array().map_or(&[][..], Vec::as_slice);
    let mut header = export["header"].clone();
    let mut kv = J::Array(export["kv"].as_array().cloned().unwrap_or_default());
    // The file-level values: the header and the KV section are judged; the paths a file's
    // annotations give (`header.…`, `kv.…`) name them under their part.
    let mut parts = json!({ "header": header.take(), "kv": kv.take() });
    apply(&mut parts, located, m)?;
    let mut header = parts["header"].take();
    let kv = parts["kv"].take();
    if let Some(a) = Axis::from_name(axis)
        && a == Axis::Container
    {
        let (major, minor) = a.version_fields();
        if let Some(major) = major {
            header[major] = json!(m.to);
        }
        header[minor] = json!(0);
    }
    let evo = Evolution::default();
    let header = FileHeader::from_value(&from_json(&header, "", &evo), "header")
        .map_err(|e| does_not_fit(e, located, 0, m))?;
    let mut kv_entries = Vec::new();
    for (i, e) in kv
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
    {
        let path = format!("kv.entries[{i}]");
        kv_entries.push(
            crate::contract::kv_entry_from_value(&from_json(e, "", &evo), &path)
                .map_err(|e| does_not_fit(e, located, 0, m))?,
        );
    }
    let mut w = crate::writer::FileWriter::with_header(Vec::new(), header).map_err(refused)?;
    let tensors = export["tensors"]
        .as_array()
        .ok_or_else(|| bad("no tensors"))?;
    let mut flags = Vec::with_capacity(tensors.len());
    for t in tensors {
        let name = t["name"]
            .as_str()
            .ok_or_else(|| bad("a tensor without a name"))?;
        let d = descriptor(&t["data"], m)?;
        let mut d_bytes = d;
        crate::writer::normalize(&mut d_bytes).map_err(refused)?;
        let mut buffers = Vec::new();
        for b in t["buffers"].as_array().map_or(&[][..], Vec::as_slice) {
            let (o, n) = (b[0].as_u64(), b[1].as_u64());
            let slice = o
                .zip(n)
                .and_then(|(o, n)| Some((usize::try_from(o).ok()?, usize::try_from(n).ok()?)))
                .and_then(|(o, n)| input.get(o..o.checked_add(n)?))
                .ok_or_else(|| bad("a buffer beyond the input"))?;
            buffers.push(slice);
        }
        w.add_tensor(name, &d_bytes.to_bytes(), &buffers)
            .map_err(refused)?;
        flags.push(t["flags"].as_u64().unwrap_or(0));
    }
    for (e, f) in w.index_section().entries.iter_mut().zip(flags) {
        e.flags = crate::flags::IndexEntryFlags(
            u32::try_from(f).map_err(|_| bad("an index entry's flags"))?,
        );
    }
    let kv = if export["has_kv"].as_bool() == Some(true) {
        &kv_entries[..]
    } else {
        &[][..]
    };
    w.finish(kv).map_err(refused)
}
