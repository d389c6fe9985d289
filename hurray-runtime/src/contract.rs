//! The contract shapes of decoded data: a descriptor or a file as the `Value` tree that
//! `hurray-spec decode --json` prints (key names are the spec's), and back.

use crate::generated::tags::{ElementType, Layout, Scheme};
use crate::structures::{Descriptor, KvEntry, KvValueVariant, QuantizationSection, SchemeVariant};
use crate::value::{Value, ValueError, de};
use crate::wire::{TagClass, TagSpace};

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
pub fn descriptor_from_value(v: &Value) -> Result<Descriptor, ValueError> {
    if let Some(Value::Str(k)) = v.get("kind")
        && k != "descriptor"
    {
        return Err(ValueError::new(
            "kind",
            format!("expected \"descriptor\", found \"{k}\""),
        ));
    }
    let header_keys = [
        "version_major",
        "version_minor",
        "descriptor_length",
        "flags",
        "type_tag",
        "layout_tag",
        "rank",
    ];
    let mut header = vec![("magic".to_string(), Value::Bytes(b"HRRY".to_vec()))];
    for k in header_keys {
        header.push((k.to_string(), de::field(v, "", k)?.clone()));
    }
    let mut generic = vec![("fixed_header".to_string(), Value::Object(header))];
    for (k, x) in fields(v.clone()) {
        match k.as_str() {
            "kind" | "element_type" | "layout" => {}
            _ if header_keys.contains(&k.as_str()) => {}
            "buffers" => generic.push((
                "buffer_table".into(),
                Value::Object(vec![("buffers".into(), x)]),
            )),
            "quantization" => {
                let q = match de::opt(v, "quantization") {
                    None => Value::Null,
                    Some(q) => quantization_from_value(q)?.to_value(),
                };
                generic.push((k, q));
            }
            _ => generic.push((k, x)),
        }
    }
    Descriptor::from_value(&Value::Object(generic), "")
}

fn quantization_from_value(q: &Value) -> Result<QuantizationSection, ValueError> {
    let tag: u32 = de::int(
        de::field(q, "quantization", "scheme_tag")?,
        "quantization.scheme_tag",
    )?;
    if let Some(op) = q.get("opaque") {
        return Ok(QuantizationSection::new(SchemeVariant::Opaque(
            tag,
            de::bytes(op, "quantization.opaque")?,
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
        "quantization",
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
        // A value type a later spec added: its structure's fields, a lone `value` unwrapped.
        #[allow(unreachable_patterns)]
        other => match other.to_value() {
            Value::Object(mut fs) if fs.len() == 1 && fs[0].0 == "value" => fs.remove(0).1,
            v => v,
        },
    }
}

/// A KV entry in the contract shape.
pub fn kv_entry_value(e: &KvEntry) -> Value {
    Value::Object(vec![
        ("key".into(), Value::Str(e.key.clone())),
        (
            "value_tag".into(),
            Value::UInt(u64::from(e.value_tag.raw())),
        ),
        ("value".into(), kv_value(&e.value)),
    ])
}

/// A file in the contract shape: every tensor (each checked on first access, so a file that
/// [`FileView::verify_all`](crate::file::FileView::verify_all) accepted is shown whole), the KV
/// section, the warnings, the index section's own fields and the composites.
pub fn file_value(f: &crate::file::FileView<'_>) -> Result<Value, crate::Error> {
    let mut tensors = Vec::with_capacity(f.len());
    for t in f.tensors() {
        let t = t?;
        let checked = t.descriptor();
        tensors.push(tensor_value(
            t.name(),
            [
                t.descriptor_offset(),
                u64::from(t.descriptor_length()),
                t.data_offset(),
                t.data_length(),
            ],
            &checked.view.owned(),
            checked.dereferenceable,
        ));
    }
    let composites = f.composites()?;
    Ok(file_object(
        &f.header(),
        tensors,
        f.kv(),
        &f.warnings(),
        &f.index_section()?,
        composites,
        &|i| f.name(i).to_string(),
    ))
}

/// A file read by the sequential reader in the contract shape: the same shape as
/// [`file_value`], tensors in index order.
pub fn sequential_file_value(
    file: &crate::sequential::SequentialFile,
    tensors: &[crate::sequential::SequentialTensor],
) -> Result<Value, crate::Error> {
    let mut by_index: Vec<(usize, Value)> = tensors
        .iter()
        .map(|t| {
            let p = t.position();
            let v = tensor_value(
                file.name(p),
                [
                    t.descriptor_offset(),
                    u64::from(t.descriptor_length()),
                    t.data_offset(),
                    t.data_length(),
                ],
                t.descriptor(),
                t.dereferenceable(),
            );
            (file.index_position(p), v)
        })
        .collect();
    by_index.sort_by_key(|(i, _)| *i);
    let mut warnings = file.warnings().to_vec();
    let mut in_index: Vec<&crate::sequential::SequentialTensor> = tensors.iter().collect();
    in_index.sort_by_key(|t| file.index_position(t.position()));
    for t in in_index {
        warnings.extend(t.warnings().iter().cloned());
    }
    Ok(file_object(
        &file.header(),
        by_index.into_iter().map(|(_, v)| v).collect(),
        file.kv()?.as_ref(),
        &warnings,
        &file.index_section()?,
        file.composites(),
        &|p| file.name(p).to_string(),
    ))
}

/// One tensor of a file: its name, its index entry's numbers (descriptor offset and length,
/// data offset and length) and its descriptor.
fn tensor_value(name: &str, entry: [u64; 4], d: &Descriptor, dereferenceable: bool) -> Value {
    let mut d = descriptor_value(d);
    if !dereferenceable && let Value::Object(fs) = &mut d {
        fs.push(("dereferenceable".into(), Value::Bool(false)));
    }
    Value::Object(vec![
        ("name".into(), Value::Str(name.to_string())),
        ("descriptor_offset".into(), Value::UInt(entry[0])),
        ("descriptor_length".into(), Value::UInt(entry[1])),
        ("data_offset".into(), Value::UInt(entry[2])),
        ("data_length".into(), Value::UInt(entry[3])),
        ("descriptor".into(), d),
    ])
}

/// The file object around its tensors; `name` names a composite's tensor numbers.
fn file_object(
    h: &crate::structures::FileHeaderView<'_>,
    tensors: Vec<Value>,
    kv: Option<&crate::structures::KvSectionView<'_>>,
    warnings: &[crate::Warning],
    index: &crate::structures::IndexSectionView<'_>,
    composites: &[crate::file::Composite],
    name: &dyn Fn(usize) -> String,
) -> Value {
    let kv = kv
        .map(|k| {
            k.entries()
                .iter()
                .map(|e| kv_entry_value(&e.owned()))
                .collect()
        })
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
    let mut out = vec![
        ("kind".into(), Value::Str("file".into())),
        (
            "container_version_major".into(),
            Value::UInt(u64::from(h.container_version_major())),
        ),
        (
            "container_version_minor".into(),
            Value::UInt(u64::from(h.container_version_minor())),
        ),
        (
            "file_flags".into(),
            Value::UInt(u64::from(h.file_flags().0)),
        ),
        (
            "data_buffer_alignment".into(),
            Value::UInt(u64::from(h.data_buffer_alignment())),
        ),
        (
            "first_descriptor_offset".into(),
            Value::UInt(h.first_descriptor_offset()),
        ),
        (
            "tensor_count_hint".into(),
            Value::UInt(h.tensor_count_hint()),
        ),
        ("tensors".into(), Value::Array(tensors)),
        ("kv".into(), Value::Array(kv)),
        ("warnings".into(), Value::Array(warnings)),
    ];
    // Fields of the index section beyond its entries (appended by a later container version,
    // defaulted, or skipped), when there are any.
    let mut owned = index.owned();
    owned.entries.clear();
    let index: Vec<(String, Value)> = fields(owned.to_value())
        .into_iter()
        .filter(|(k, _)| k != "entries")
        .collect();
    if !index.is_empty() {
        out.push(("index".into(), Value::Object(index)));
    }
    if !composites.is_empty() {
        let comps = composites
            .iter()
            .map(|c| {
                Value::Object(vec![
                    ("head".into(), Value::Str(name(c.head))),
                    (
                        "members".into(),
                        Value::Array(c.members.iter().map(|m| Value::Str(name(*m))).collect()),
                    ),
                    ("complete".into(), Value::Bool(c.complete)),
                ])
            })
            .collect();
        out.push(("composites".into(), Value::Array(comps)));
    }
    Value::Object(out)
}
