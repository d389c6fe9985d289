//! The contract shapes of decoded data: a descriptor or a file as the `Value` tree that
//! `hurray-spec decode --json` prints (key names are the spec's), and back.

use crate::generated::axes::Axis;
use crate::generated::tags::{ElementType, KvValue, Layout, Scheme};
use crate::structures::{
    Descriptor, FileHeader, IndexSection, KvEntry, KvSection, KvValueVariant, QuantizationSection,
    SchemeVariant,
};
use crate::value::{Value, ValueError, de};
use crate::wire::{FlagSet, TagClass, TagSpace};

fn tag_name<T: TagSpace>(raw: u32) -> Value {
    match T::classify(raw) {
        TagClass::Known(t) => Value::Str(t.name().to_string()),
        _ => Value::Null,
    }
}

fn fields(v: Value) -> Vec<(String, Value)> {
    match v {
        Value::Object(f) => f,
        _ => Vec::new(),
    }
}

/// A descriptor in the contract shape: the owned descriptor's fields by their spec names, with
/// the fixed header's fields lifted to the top (and the element type and layout named), the
/// buffer handles as `buffers`, and the quantization payload flattened. Parts a later spec
/// adds appear under their own names.
pub fn descriptor_value(d: &Descriptor) -> Value {
    let h = &d.fixed_header;
    let mut out: Vec<(String, Value)> = vec![("kind".into(), Value::Str("descriptor".into()))];
    for (k, v) in fields(d.to_value()) {
        match k.as_str() {
            "fixed_header" => {
                for (hk, hv) in fields(v) {
                    match hk.as_str() {
                        "magic" => {}
                        "type_tag" => {
                            out.push((hk, hv));
                            out.push((
                                "element_type".into(),
                                tag_name::<ElementType>(h.type_tag.raw()),
                            ));
                        }
                        "layout_tag" => {
                            out.push((hk, hv));
                            out.push(("layout".into(), tag_name::<Layout>(h.layout_tag.raw())));
                        }
                        _ => out.push((hk, hv)),
                    }
                }
            }
            "buffer_table" => out.push((
                "buffers".into(),
                fields(v)
                    .into_iter()
                    .find(|(k, _)| k == "buffers")
                    .map_or(Value::Array(Vec::new()), |(_, b)| b),
            )),
            "quantization" => out.push((
                "quantization".into(),
                d.quantization
                    .as_ref()
                    .map_or(Value::Null, quantization_value),
            )),
            _ => out.push((k, v)),
        }
    }
    Value::Object(out)
}

/// The quantization section flattened: the header's fields, the scheme's name, then the
/// payload fields by their spec names.
fn quantization_value(q: &QuantizationSection) -> Value {
    let tag = q.payload.tag();
    let mut out = vec![
        ("scheme_tag".to_string(), Value::UInt(u64::from(tag))),
        ("scheme".to_string(), tag_name::<Scheme>(tag)),
    ];
    match &q.payload {
        SchemeVariant::Opaque(_, bytes) => {
            let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
            out.push(("scheme_version".into(), Value::UInt(u64::from(b(1)))));
            out.push((
                "flags".into(),
                Value::UInt(u64::from(u16::from_le_bytes([b(2), b(3)]))),
            ));
            out.push(("opaque".into(), Value::Bytes(bytes.clone())));
        }
        p => {
            for (k, v) in fields(p.to_value()) {
                if k == "header" {
                    for (hk, hv) in fields(v) {
                        if hk != "scheme_tag" {
                            out.push((hk, hv));
                        }
                    }
                } else {
                    out.push((k, v));
                }
            }
        }
    }
    Value::Object(out)
}

/// The inverse of [`descriptor_value`].
///
/// Strict about what it is given, so that a hand-written descriptor means what it says: a
/// name (`element_type`, `layout`, a quantization's `scheme`) must be a value of its space and
/// agree with the numeric field beside it, which may be left out (the name then gives it);
/// `descriptor_length`, `rank`, `flags` and the version may be left out and are computed
/// (the encoded length, the shape's length, the presence bits of the sections present, the
/// lowest version that covers what is written, W1), and so may the own length prefix of any
/// section (the generated `from_value` computes every structure's own prefix it is not given). Keys it does not know are not its
/// concern: a caller compares the input with [`descriptor_value`] of the result.
pub fn descriptor_from_value(v: &Value) -> Result<Descriptor, ValueError> {
    descriptor_from_value_at(v, "")
}

/// [`descriptor_from_value`] of the descriptor at `path` in a larger document (errors name
/// paths under it).
pub fn descriptor_from_value_at(v: &Value, path: &str) -> Result<Descriptor, ValueError> {
    if !matches!(v, Value::Object(_)) {
        return Err(ValueError::new(path, "expected an object"));
    }
    if let Some(Value::Str(k)) = v.get("kind")
        && k != "descriptor"
    {
        return Err(ValueError::new(
            &join(path, "kind"),
            format!("expected \"descriptor\", found \"{k}\""),
        ));
    }
    let type_tag = named_tag::<ElementType>(v, path, "element_type", "type_tag")?;
    let layout_tag = named_tag::<Layout>(v, path, "layout", "layout_tag")?;
    let shape_rank = match v.get("shape") {
        Some(Value::Array(a)) => Some(a.len() as u64),
        _ => None,
    };
    // Fields the writer can compute start as placeholders and are set once the descriptor
    // is whole.
    let mut computed = Computed::default();
    let mut header = vec![(
        "magic".to_string(),
        Value::Bytes(crate::structures::FixedHeaderView::EXPECTED_MAGIC.to_vec()),
    )];
    for k in HEADER_KEYS {
        let x = match (k, v.get(k)) {
            (_, Some(x)) if k == "type_tag" || k == "layout_tag" => x.clone(),
            ("type_tag", None) => type_tag.clone(),
            ("layout_tag", None) => layout_tag.clone(),
            (_, Some(x)) => x.clone(),
            ("rank", None) => match shape_rank {
                Some(n) => Value::UInt(n),
                None => return Err(ValueError::new(&join(path, "shape"), "missing")),
            },
            ("flags", None) => {
                computed.flags = true;
                Value::UInt(0)
            }
            ("version_major" | "version_minor", None) => {
                computed.version = true;
                Value::UInt(0)
            }
            // Left to the generated `from_value`: the descriptor's own length prefix is
            // computed there (from the encoded length), any other field is missing.
            (_, None) => continue,
        };
        header.push((k.to_string(), x));
    }
    if computed.version && (v.get("version_major").is_some() || v.get("version_minor").is_some()) {
        return Err(ValueError::new(
            &join(path, "version_major"),
            "give both version_major and version_minor, or neither (the lowest version that covers the descriptor is computed)",
        ));
    }
    let mut generic = vec![("fixed_header".to_string(), Value::Object(header))];
    for (k, x) in fields(v.clone()) {
        match k.as_str() {
            "kind" | "element_type" | "layout" => {}
            _ if HEADER_KEYS.contains(&k.as_str()) => {}
            "buffers" => generic.push((
                "buffer_table".into(),
                Value::Object(vec![("buffers".into(), x)]),
            )),
            "quantization" => {
                let q = match de::opt(v, "quantization") {
                    None => Value::Null,
                    Some(q) => quantization_from_value(q, &join(path, "quantization"))?.to_value(),
                };
                generic.push((k, q));
            }
            _ => generic.push((k, x)),
        }
    }
    let mut d = Descriptor::from_value(&Value::Object(generic), path)
        .map_err(|e| ValueError::new(&contract_path(&e.path, path), e.message))?;
    if computed.flags {
        d.sync_presence_flags();
    }
    if computed.version {
        for (axis, version) in crate::writer::required_versions(&d) {
            if axis == crate::axes::Axis::Descriptor {
                d.fixed_header.version_major = version.major;
                d.fixed_header.version_minor = version.minor;
            }
        }
    }
    Ok(d)
}

/// A path in the generic form of the descriptor at `prefix` (`.fixed_header.rank`,
/// `.buffer_table.buffers[0].alignment`) as a path in the contract shape the caller gave
/// (`rank`, `buffers[0].alignment`): the header's fields and the buffer handles are lifted.
fn contract_path(generic: &str, prefix: &str) -> String {
    let rest = generic.strip_prefix(prefix).unwrap_or(generic);
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let rest = rest
        .strip_prefix("fixed_header.")
        .or_else(|| rest.strip_prefix("buffer_table."))
        .unwrap_or(rest);
    join(prefix, rest)
}

/// The fixed header's fields the contract lifts to the top of a descriptor.
const HEADER_KEYS: [&str; 7] = [
    "version_major",
    "version_minor",
    "descriptor_length",
    "flags",
    "type_tag",
    "layout_tag",
    "rank",
];

/// Which header fields [`descriptor_from_value_at`] computes because they were left out.
#[derive(Default)]
struct Computed {
    flags: bool,
    version: bool,
}

/// `key` under `path` (`buffers[0]` + `alignment`).
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The tag a descriptor gives by number (`tag_key`) or by name (`name_key`): a name must be a
/// value of the space `T`, and when both are given they must agree. The result is the tag's
/// value as the generic form reads it.
fn named_tag<T: TagSpace>(
    v: &Value,
    path: &str,
    name_key: &str,
    tag_key: &str,
) -> Result<Value, ValueError> {
    let name = match v.get(name_key) {
        None | Some(Value::Null) => None,
        Some(Value::Str(n)) => Some(T::from_name(n).ok_or_else(|| {
            ValueError::new(
                &join(path, name_key),
                format!("`{n}` is not a {} value", T::NAME),
            )
        })?),
        Some(_) => {
            return Err(ValueError::new(
                &join(path, name_key),
                "expected a name (a string) or null",
            ));
        }
    };
    let Some(given) = v.get(tag_key) else {
        return match name {
            Some(t) => Ok(Value::UInt(u64::from(t.value()))),
            None => Err(ValueError::new(&join(path, tag_key), "missing")),
        };
    };
    let raw = de::tag::<T>(given, &join(path, tag_key))?.raw();
    let named = match T::classify(raw) {
        TagClass::Known(t) => Some(t),
        _ => None,
    };
    if v.get(name_key).is_some() && name != named {
        let show = |t: Option<T>| t.map_or("null".to_string(), |t| format!("`{}`", t.name()));
        return Err(ValueError::new(
            &join(path, name_key),
            format!(
                "{} contradicts {tag_key} {raw:#04x}, which is {}",
                show(name),
                show(named)
            ),
        ));
    }
    Ok(given.clone())
}

fn quantization_from_value(q: &Value, path: &str) -> Result<QuantizationSection, ValueError> {
    if !matches!(q, Value::Object(_)) {
        return Err(ValueError::new(path, "expected an object or null"));
    }
    let tag: u32 = de::int(
        &named_tag::<Scheme>(q, path, "scheme", "scheme_tag")?,
        &join(path, "scheme_tag"),
    )?;
    if let Some(op) = q.get("opaque") {
        return Ok(QuantizationSection::new(SchemeVariant::Opaque(
            tag,
            de::bytes(op, &join(path, "opaque"))?,
        )));
    }
    // Re-nest the header.
    let mut header = vec![("scheme_tag".to_string(), Value::UInt(u64::from(tag)))];
    let mut rest = Vec::new();
    for (k, v) in fields(q.clone()) {
        match k.as_str() {
            "scheme_version" | "flags" => header.push((k, v)),
            "scheme_tag" | "scheme" => {}
            _ => rest.push((k, v)),
        }
    }
    let mut payload = vec![("header".to_string(), Value::Object(header))];
    payload.extend(rest);
    Ok(QuantizationSection::new(SchemeVariant::from_value(
        tag,
        &Value::Object(payload),
        path,
    )?))
}

/// A KV value as a plain value: strings, integers, floats, booleans, bytes, arrays.
pub fn kv_value(v: &KvValueVariant) -> Value {
    match v {
        KvValueVariant::String(x) => Value::Str(x.value.clone()),
        KvValueVariant::Int64(x) => Value::Int(x.value),
        KvValueVariant::Uint64(x) => Value::UInt(x.value),
        KvValueVariant::Float64(x) => Value::Float(x.value),
        KvValueVariant::Bool(x) => Value::Bool(x.value != 0),
        KvValueVariant::Bytes(x) => Value::Bytes(x.value.clone()),
        KvValueVariant::Array(x) => Value::Array(x.elements.iter().map(kv_value).collect()),
        // A value type a later spec added: its structure's fields, a lone field unwrapped.
        #[allow(unreachable_patterns)]
        other => match (other.to_value(), KvValueVariant::lone_field(other.tag())) {
            (Value::Object(mut fs), Some(lone)) if fs.len() == 1 && fs[0].0 == lone => {
                fs.remove(0).1
            }
            (v, _) => v,
        },
    }
}

/// A KV entry in the contract shape: its key, its value tag, an array's `element_tag` (the
/// elements alone do not say it: `[0]` is an int64 or a uint64 array, `[]` any), and the value.
pub fn kv_entry_value(e: &KvEntry) -> Value {
    let mut out = vec![
        ("key".into(), Value::Str(e.key.clone())),
        (
            "value_tag".into(),
            Value::UInt(u64::from(e.value_tag.raw())),
        ),
    ];
    if let KvValueVariant::Array(a) = &e.value {
        out.push((
            "element_tag".into(),
            Value::UInt(u64::from(a.element_tag.raw())),
        ));
    }
    out.push(("value".into(), kv_value(&e.value)));
    Value::Object(out)
}

/// The inverse of [`kv_entry_value`] for the entry at `path`.
pub fn kv_entry_from_value(v: &Value, path: &str) -> Result<KvEntry, ValueError> {
    let key = de::string(de::field(v, path, "key")?, &join(path, "key"))?;
    let tag = de::tag::<KvValue>(de::field(v, path, "value_tag")?, &join(path, "value_tag"))?;
    let value = de::field(v, path, "value")?;
    let value_path = join(path, "value");
    let payload = if matches!(tag.class(), TagClass::Known(KvValue::Array)) {
        let element = de::tag::<KvValue>(
            de::field(v, path, "element_tag")?,
            &join(path, "element_tag"),
        )?;
        let elements = de::array(value, &value_path)?
            .iter()
            .map(|e| kv_payload(element.raw(), e))
            .collect();
        Value::Object(vec![
            ("element_tag".into(), Value::UInt(u64::from(element.raw()))),
            ("elements".into(), Value::Array(elements)),
        ])
    } else {
        kv_payload(tag.raw(), value)
    };
    let value = KvValueVariant::from_value(tag.raw(), &payload, &value_path)?;
    Ok(KvEntry::new(key, tag, value))
}

/// A KV value of tag `tag` as its structure's fields: a plain value under the structure's lone
/// field (a boolean as its byte), or the fields themselves (a value type a later spec added).
fn kv_payload(tag: u32, v: &Value) -> Value {
    match (v, KvValueVariant::lone_field(tag)) {
        (Value::Object(_), _) | (_, None) => v.clone(),
        (Value::Bool(b), Some(lone)) => {
            Value::Object(vec![(lone.into(), Value::UInt(u64::from(*b)))])
        }
        (_, Some(lone)) => Value::Object(vec![(lone.into(), v.clone())]),
    }
}

/// Where a file's trailing sections are, as its trailer records them, and the file's size: what
/// a writer cannot derive when a file was not placed the way it places files (a gap before a
/// section, or before the trailer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// 0 (with `kv_length` 0) when the file has no KV section.
    pub kv_offset: u64,
    /// The KV section's length in bytes.
    pub kv_length: u64,
    /// Where the index section starts.
    pub index_offset: u64,
    /// The index section's length in bytes.
    pub index_length: u64,
    /// The file's size in bytes.
    pub file_size: u64,
}

impl Placement {
    fn value(&self) -> Value {
        Value::Object(vec![
            ("kv_offset".into(), Value::UInt(self.kv_offset)),
            ("kv_length".into(), Value::UInt(self.kv_length)),
            ("index_offset".into(), Value::UInt(self.index_offset)),
            ("index_length".into(), Value::UInt(self.index_length)),
            ("file_size".into(), Value::UInt(self.file_size)),
        ])
    }

    fn from_value(v: &Value, path: &str) -> Result<Placement, ValueError> {
        let n = |k: &str| de::int::<u64>(de::field(v, path, k)?, &join(path, k));
        Ok(Placement {
            kv_offset: n("kv_offset")?,
            kv_length: n("kv_length")?,
            index_offset: n("index_offset")?,
            index_length: n("index_length")?,
            file_size: n("file_size")?,
        })
    }
}

/// One tensor's index entry as the file records it: where its descriptor and data are, and
/// the entry's flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EntryNumbers {
    /// Where the descriptor starts.
    pub descriptor_offset: u64,
    /// The descriptor's length in bytes.
    pub descriptor_length: u32,
    /// Where the data region (buffer 0) starts.
    pub data_offset: u64,
    /// The data region's length: every buffer and the padding between them.
    pub data_length: u64,
    /// The index entry's flags.
    pub flags: u64,
}

/// A file in the contract shape: every tensor (each checked on first access, so a file that
/// [`FileView::verify_all`](crate::file::FileView::verify_all) accepted is shown whole), the KV
/// section, the warnings, the index section's own fields, the composites and the placement.
pub fn file_value(f: &crate::file::FileView<'_>) -> Result<Value, crate::Error> {
    let mut tensors = Vec::with_capacity(f.len());
    for t in f.tensors() {
        let t = t?;
        let checked = t.descriptor();
        tensors.push(tensor_value(
            t.name(),
            EntryNumbers {
                descriptor_offset: t.descriptor_offset(),
                descriptor_length: t.descriptor_length(),
                data_offset: t.data_offset(),
                data_length: t.data_length(),
                flags: t.entry().flags().bits(),
            },
            &checked.view.owned(),
            checked.dereferenceable,
        ));
    }
    let composites = f.composites()?;
    let trailer = f.trailer();
    let placement = Placement {
        kv_offset: trailer.kv_offset(),
        kv_length: u64::from(trailer.kv_length()),
        index_offset: trailer.index_offset(),
        index_length: trailer.index_length(),
        file_size: f.bytes().len() as u64,
    };
    Ok(file_object(
        &f.header().owned(),
        tensors,
        f.kv().map(|k| k.owned()).as_ref(),
        &f.warnings(),
        &f.index_section()?.owned(),
        &composite_names(composites, &|i| f.name(i).to_string()),
        &placement,
    ))
}

/// A file read by the sequential reader in the contract shape: the same shape as
/// [`file_value`], tensors in index order.
pub fn sequential_file_value(
    file: &crate::sequential::SequentialFile,
    tensors: &[crate::sequential::SequentialTensor],
) -> Result<Value, crate::Error> {
    let index = file.index_section()?;
    let mut by_index: Vec<(usize, Value)> = tensors
        .iter()
        .map(|t| {
            let p = t.position();
            let i = file.index_position(p);
            let flags = index.entries().get(i).map_or(0, |e| e.flags().bits());
            let v = tensor_value(
                file.name(p),
                EntryNumbers {
                    descriptor_offset: t.descriptor_offset(),
                    descriptor_length: t.descriptor_length(),
                    data_offset: t.data_offset(),
                    data_length: t.data_length(),
                    flags,
                },
                t.descriptor(),
                t.dereferenceable(),
            );
            (i, v)
        })
        .collect();
    by_index.sort_by_key(|(i, _)| *i);
    let mut warnings = file.warnings().to_vec();
    let mut in_index: Vec<&crate::sequential::SequentialTensor> = tensors.iter().collect();
    in_index.sort_by_key(|t| file.index_position(t.position()));
    for t in in_index {
        warnings.extend(t.warnings().iter().cloned());
    }
    let kv = file.kv()?;
    let placement = Placement {
        kv_offset: kv.as_ref().map_or(0, |k| k.offset()),
        kv_length: kv.as_ref().map_or(0, |k| k.bytes().len() as u64),
        index_offset: index.offset(),
        index_length: index.bytes().len() as u64,
        file_size: file.len(),
    };
    Ok(file_object(
        &file.header().owned(),
        by_index.into_iter().map(|(_, v)| v).collect(),
        kv.map(|k| k.owned()).as_ref(),
        &warnings,
        &index.owned(),
        &composite_names(file.composites(), &|p| file.name(p).to_string()),
        &placement,
    ))
}

/// One tensor of a file: its name, its index entry's numbers (descriptor offset and length,
/// data offset and length; the entry's `flags` when any is set) and its descriptor.
fn tensor_value(name: &str, entry: EntryNumbers, d: &Descriptor, dereferenceable: bool) -> Value {
    let mut d = descriptor_value(d);
    if !dereferenceable && let Value::Object(fs) = &mut d {
        fs.push(("dereferenceable".into(), Value::Bool(false)));
    }
    let mut out = vec![
        ("name".into(), Value::Str(name.to_string())),
        (
            "descriptor_offset".into(),
            Value::UInt(entry.descriptor_offset),
        ),
        (
            "descriptor_length".into(),
            Value::UInt(u64::from(entry.descriptor_length)),
        ),
        ("data_offset".into(), Value::UInt(entry.data_offset)),
        ("data_length".into(), Value::UInt(entry.data_length)),
    ];
    if entry.flags != 0 {
        out.push(("flags".into(), Value::UInt(entry.flags)));
    }
    out.push(("descriptor".into(), d));
    Value::Object(out)
}

/// Each composite as (head, members, complete), by name.
type CompositeNames = Vec<(String, Vec<String>, bool)>;

fn composite_names(
    composites: &[crate::file::Composite],
    name: &dyn Fn(usize) -> String,
) -> CompositeNames {
    composites
        .iter()
        .map(|c| {
            (
                name(c.head),
                c.members.iter().map(|m| name(*m)).collect(),
                c.complete,
            )
        })
        .collect()
}

/// The fields of a length-prefixed section beyond its entries (appended by a later container
/// version, defaulted, or skipped).
fn section_rest(v: Value) -> Vec<(String, Value)> {
    fields(v)
        .into_iter()
        .filter(|(k, _)| k != "entries")
        .collect()
}

/// The file object around its tensors.
fn file_object(
    h: &FileHeader,
    tensors: Vec<Value>,
    kv: Option<&KvSection>,
    warnings: &[crate::Warning],
    index: &IndexSection,
    composites: &CompositeNames,
    placement: &Placement,
) -> Value {
    let entries = kv
        .map(|k| k.entries.iter().map(kv_entry_value).collect())
        .unwrap_or_default();
    let warnings = warnings
        .iter()
        .map(|w| {
            Value::Object(vec![
                ("code".into(), Value::Str(w.rule.code().into())),
                ("rule".into(), Value::Str(w.rule.id().into())),
                ("offset".into(), Value::UInt(w.offset)),
                ("message".into(), Value::Str(w.detail.clone())),
            ])
        })
        .collect();
    let mut out = vec![("kind".into(), Value::Str("file".into()))];
    for (k, v) in fields(h.to_value()) {
        if k != "magic" {
            out.push((k, v));
        }
    }
    out.push(("tensors".into(), Value::Array(tensors)));
    out.push(("kv".into(), Value::Array(entries)));
    out.push(("warnings".into(), Value::Array(warnings)));
    let index = section_rest(IndexSection::new(Vec::new()).with_rest_of(index).to_value());
    if !index.is_empty() {
        out.push(("index".into(), Value::Object(index)));
    }
    if let Some(kv) = kv {
        let rest = section_rest(KvSection::new(Vec::new()).with_rest_of(kv).to_value());
        if !rest.is_empty() {
            out.push((KV_FIELDS.into(), Value::Object(rest)));
        }
    }
    if !composites.is_empty() {
        let comps = composites
            .iter()
            .map(|(head, members, complete)| {
                Value::Object(vec![
                    ("head".into(), Value::Str(head.clone())),
                    (
                        "members".into(),
                        Value::Array(members.iter().map(|m| Value::Str(m.clone())).collect()),
                    ),
                    ("complete".into(), Value::Bool(*complete)),
                ])
            })
            .collect();
        out.push(("composites".into(), Value::Array(comps)));
    }
    out.push(("placement".into(), placement.value()));
    Value::Object(out)
}

/// W1/W2 for a file in the contract shape: the lowest container version that covers its KV
/// entries (their value tags and appended fields), the fields of its KV section beyond them
/// and its index section's appended fields.
fn container_version_needed(
    entries: &[KvEntry],
    kv_rest: Option<&KvSection>,
    index: &IndexSection,
) -> crate::version::Version {
    let need = crate::writer::container_version_needed(entries, index);
    kv_rest.map_or(need, |k| k.version_needed(Axis::Container, need))
}

impl FileParts {
    /// W1/W2: the lowest container version that covers what the file emits (its KV value
    /// tags, the appended fields of its KV and index sections). Its header must declare at
    /// least this version.
    pub fn container_version_needed(&self) -> crate::version::Version {
        container_version_needed(
            self.kv.as_ref().map_or(&[][..], |k| &k.entries[..]),
            self.kv.as_ref(),
            &self.index,
        )
    }
}

/// The key of a file's KV section fields beyond its entries (the entries are `kv`).
const KV_FIELDS: &str = "kv_fields";

/// The keys of a file object that reading computes and writing ignores.
pub const FILE_RUNTIME_ONLY: [&str; 3] = ["warnings", "composites", "evolution"];

/// A section's owned form with the other's fields beyond its entries.
trait WithRest: Sized {
    fn with_rest_of(self, other: &Self) -> Self;
}

impl WithRest for IndexSection {
    fn with_rest_of(self, other: &Self) -> Self {
        let mut out = other.clone();
        out.entries = self.entries;
        out
    }
}

impl WithRest for KvSection {
    fn with_rest_of(self, other: &Self) -> Self {
        let mut out = other.clone();
        out.entries = self.entries;
        out
    }
}

/// A file as the contract gives it, ready to be placed and written: the header, each tensor
/// (in index order) with what its entry records, the KV section (when the file has one), the
/// index section's own fields, and the placement of the sections when it was recorded.
#[derive(Clone, Debug)]
pub struct FileParts {
    /// The file header.
    pub header: FileHeader,
    /// Every tensor, in index order.
    pub tensors: Vec<TensorParts>,
    /// The KV section, when the file has one.
    pub kv: Option<KvSection>,
    /// The index section's fields beyond its entries (its entries are empty here).
    pub index: IndexSection,
    /// Where the sections are, when the input recorded it.
    pub placement: Option<Placement>,
}

/// One tensor of [`FileParts`]: its name and descriptor, and the index entry's numbers the
/// input gave (`None`: derived by the placement rules when the file is written).
#[derive(Clone, Debug)]
pub struct TensorParts {
    /// The tensor's name.
    pub name: String,
    /// Its descriptor.
    pub descriptor: Descriptor,
    /// Where the descriptor starts.
    pub descriptor_offset: Option<u64>,
    /// The descriptor's length in bytes.
    pub descriptor_length: Option<u32>,
    /// Where the data region (buffer 0) starts.
    pub data_offset: Option<u64>,
    /// The data region's length: every buffer and the padding between them.
    pub data_length: Option<u64>,
    /// The index entry's flags.
    pub flags: u64,
}

/// The inverse of [`file_value`]: the parts of the file a value describes. Runtime-only keys
/// ([`FILE_RUNTIME_ONLY`], each descriptor's `dereferenceable`) are ignored; keys this does not
/// know are not its concern (a caller compares the input with [`file_plan_value`]). A value
/// without the container version's fields declares the lowest version that covers what the
/// file emits (W2, [`FileParts::container_version_needed`]); one of the two alone is missing
/// its partner.
pub fn file_from_value(v: &Value) -> Result<FileParts, ValueError> {
    if let Some(Value::Str(k)) = v.get("kind")
        && k != "file"
    {
        return Err(ValueError::new(
            "kind",
            format!("expected \"file\", found \"{k}\""),
        ));
    }
    let mut header = vec![(
        "magic".to_string(),
        Value::Bytes(crate::structures::FileHeaderView::EXPECTED_MAGIC.to_vec()),
    )];
    header.extend(fields(v.clone()).into_iter().filter(|(k, _)| {
        !matches!(
            k.as_str(),
            "kind" | "tensors" | "kv" | "index" | "composites" | "placement" | KV_FIELDS
        ) && !FILE_RUNTIME_ONLY.contains(&k.as_str())
    }));
    let mut tensors = Vec::new();
    for (i, t) in de::array(de::field(v, "", "tensors")?, "tensors")?
        .iter()
        .enumerate()
    {
        let path = format!("tensors[{i}]");
        let opt = |k: &str| -> Result<Option<u64>, ValueError> {
            match t.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(x) => de::int(x, &join(&path, k)).map(Some),
            }
        };
        let descriptor_path = join(&path, "descriptor");
        let mut d = de::field(t, &path, "descriptor")?.clone();
        if let Value::Object(fs) = &mut d {
            fs.retain(|(k, _)| k != "dereferenceable");
        }
        tensors.push(TensorParts {
            name: de::string(de::field(t, &path, "name")?, &join(&path, "name"))?,
            descriptor: descriptor_from_value_at(&d, &descriptor_path)?,
            descriptor_offset: opt("descriptor_offset")?,
            descriptor_length: match opt("descriptor_length")? {
                None => None,
                Some(n) => Some(u32::try_from(n).map_err(|_| {
                    ValueError::new(&join(&path, "descriptor_length"), "more than a u32 holds")
                })?),
            },
            data_offset: opt("data_offset")?,
            data_length: opt("data_length")?,
            flags: opt("flags")?.unwrap_or(0),
        });
    }
    let placement = match v.get("placement") {
        None | Some(Value::Null) => None,
        Some(p) => Some(Placement::from_value(p, "placement")?),
    };
    let entries = match v.get("kv") {
        None | Some(Value::Null) => Vec::new(),
        Some(kv) => de::array(kv, "kv")?
            .iter()
            .enumerate()
            .map(|(i, e)| kv_entry_from_value(e, &format!("kv[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let rest = |key: &str| match v.get(key) {
        Some(Value::Object(fs)) => {
            let mut all = vec![("entries".to_string(), Value::Array(Vec::new()))];
            all.extend(fs.iter().cloned());
            Ok(Some(Value::Object(all)))
        }
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(ValueError::new(key, "expected an object")),
    };
    let index = match rest("index")? {
        Some(x) => IndexSection::from_value(&x, "index")?,
        None => IndexSection::new(Vec::new()),
    };
    let kv_rest = match rest(KV_FIELDS)? {
        Some(x) => Some(KvSection::from_value(&x, KV_FIELDS)?),
        None => None,
    };
    // W2: a file that leaves its container version out declares the lowest one that covers
    // what it emits (its KV value tags, the appended fields of its KV and index sections).
    let (major_key, minor_key) = Axis::Container.version_fields();
    let major_given = major_key.is_some_and(|k| v.get(k).is_some());
    match (major_given, v.get(minor_key).is_some()) {
        (false, false) => {
            let need = container_version_needed(&entries, kv_rest.as_ref(), &index);
            if let Some(k) = major_key {
                header.push((k.to_string(), Value::UInt(u64::from(need.major))));
            }
            header.push((minor_key.to_string(), Value::UInt(u64::from(need.minor))));
        }
        (given, false) | (given @ false, true) if major_key.is_some() => {
            let major = major_key.unwrap_or_default();
            let (absent, present) = if given {
                (minor_key, major)
            } else {
                (major, minor_key)
            };
            return Err(ValueError::new(
                absent,
                format!(
                    "missing beside `{present}`: give `{major}` and `{minor_key}` both, or neither (the lowest container version that covers the file is then computed, W2)"
                ),
            ));
        }
        _ => {}
    }
    let header = FileHeader::from_value(&Value::Object(header), "")?;
    let has_kv = match &placement {
        Some(p) => p.kv_offset != 0 || p.kv_length != 0,
        None => {
            header
                .file_flags
                .has(crate::flags::FileFlags::HAS_KV_METADATA)
                || !entries.is_empty()
                || kv_rest.is_some()
        }
    };
    if !has_kv && (!entries.is_empty() || kv_rest.is_some()) {
        return Err(ValueError::new(
            "kv",
            "the placement records no KV section (kv_offset and kv_length 0), but KV entries are given",
        ));
    }
    let kv = has_kv.then(|| {
        let mut section = kv_rest.unwrap_or_else(|| KvSection::new(Vec::new()));
        section.entries = entries;
        section
    });
    Ok(FileParts {
        header,
        tensors,
        kv,
        index,
        placement,
    })
}

/// The contract value of the file `parts` describe once placed: each tensor with its entry's
/// numbers (`entries`, in index order) and the sections where `placement` puts them. Reading
/// the written file gives the same value (runtime-only keys aside), so an input can be
/// compared with it key by key.
pub fn file_plan_value(
    parts: &FileParts,
    entries: &[EntryNumbers],
    placement: &Placement,
) -> Value {
    let tensors = parts
        .tensors
        .iter()
        .zip(entries)
        .map(|(t, e)| tensor_value(&t.name, *e, &t.descriptor, true))
        .collect();
    file_object(
        &parts.header,
        tensors,
        parts.kv.as_ref(),
        &[],
        &parts.index,
        &Vec::new(),
        placement,
    )
}
