//! The contract shapes of decoded data: a descriptor or a file as the `Value` tree that
//! `hurray-spec decode --json` prints (key names are the spec's), and back.

use crate::generated::tags::{ElementType, Layout, Scheme};
use crate::structures::{
    BufferHandle, BufferTable, Descriptor, FixedHeader, KvEntry, KvValueVariant, LayoutVariant,
    QuantizationSection, SchemeVariant,
};
use crate::value::{Value, ValueError, de};
use crate::wire::{TagClass, TagSpace, TagValue};

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

/// A descriptor in the contract shape.
pub fn descriptor_value(d: &Descriptor) -> Value {
    let h = &d.fixed_header;
    let mut out: Vec<(String, Value)> = vec![
        ("kind".into(), Value::Str("descriptor".into())),
        (
            "version_major".into(),
            Value::UInt(u64::from(h.version_major)),
        ),
        (
            "version_minor".into(),
            Value::UInt(u64::from(h.version_minor)),
        ),
        (
            "descriptor_length".into(),
            Value::UInt(u64::from(h.descriptor_length)),
        ),
        ("flags".into(), Value::UInt(u64::from(h.flags.0))),
        ("type_tag".into(), Value::UInt(u64::from(h.type_tag.raw()))),
        (
            "element_type".into(),
            tag_name::<ElementType>(h.type_tag.raw()),
        ),
        (
            "layout_tag".into(),
            Value::UInt(u64::from(h.layout_tag.raw())),
        ),
        ("layout".into(), tag_name::<Layout>(h.layout_tag.raw())),
        ("rank".into(), Value::UInt(u64::from(h.rank))),
        (
            "shape".into(),
            Value::Array(d.shape.iter().map(|x| Value::UInt(*x)).collect()),
        ),
        ("byte_offset".into(), Value::UInt(d.byte_offset)),
        ("layout_fields".into(), d.layout_fields.to_value()),
    ];
    let buffers = d
        .buffer_table
        .buffers
        .iter()
        .map(BufferHandle::to_value)
        .collect();
    out.push(("buffers".into(), Value::Array(buffers)));
    out.push((
        "quantization".into(),
        d.quantization
            .as_ref()
            .map_or(Value::Null, quantization_value),
    ));
    out.push((
        "shard".into(),
        d.shard.as_ref().map_or(Value::Null, |x| x.to_value()),
    ));
    out.push((
        "statistics".into(),
        d.statistics.as_ref().map_or(Value::Null, |x| x.to_value()),
    ));
    out.push((
        "extension_type".into(),
        d.extension_type
            .as_ref()
            .map_or(Value::Null, |x| x.to_value()),
    ));
    out.push((
        "composite_member".into(),
        d.composite_member
            .as_ref()
            .map_or(Value::Null, |x| x.to_value()),
    ));
    if !d.skipped.is_empty() {
        out.push(("skipped".into(), Value::Skipped(d.skipped.clone())));
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

fn int<T: crate::wire::Scalar + TryFrom<i128>>(v: &Value, key: &str) -> Result<T, ValueError> {
    de::int(de::field(v, "", key)?, key)
}

/// The inverse of [`descriptor_value`].
pub fn descriptor_from_value(v: &Value) -> Result<Descriptor, ValueError> {
    if let Some(Value::Str(k)) = v.get("kind") {
        if k != "descriptor" {
            return Err(ValueError::new(
                "kind",
                format!("expected \"descriptor\", found \"{k}\""),
            ));
        }
    }
    let layout_tag: u32 = int(v, "layout_tag")?;
    let fixed_header = FixedHeader {
        magic: b"HRRY".to_vec(),
        version_major: int(v, "version_major")?,
        version_minor: int(v, "version_minor")?,
        descriptor_length: int(v, "descriptor_length")?,
        flags: crate::flags::DescriptorFlags(int(v, "flags")?),
        type_tag: TagValue::from_raw(int(v, "type_tag")?),
        layout_tag: TagValue::from_raw(layout_tag),
        rank: int(v, "rank")?,
    };
    let shape = de::array(de::field(v, "", "shape")?, "shape")?
        .iter()
        .enumerate()
        .map(|(i, x)| de::int::<u64>(x, &format!("shape[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let layout_fields = LayoutVariant::from_value(
        layout_tag,
        de::field(v, "", "layout_fields")?,
        "layout_fields",
    )?;
    let buffers = de::array(de::field(v, "", "buffers")?, "buffers")?
        .iter()
        .enumerate()
        .map(|(i, b)| BufferHandle::from_value(b, &format!("buffers[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let quantization = match de::opt(v, "quantization") {
        None => None,
        Some(q) => Some(quantization_from_value(q)?),
    };
    let sub = |key: &str| de::opt(v, key);
    Ok(Descriptor {
        fixed_header,
        shape,
        byte_offset: int(v, "byte_offset")?,
        layout_fields,
        buffer_table: BufferTable { buffers },
        quantization,
        shard: sub("shard")
            .map(|x| crate::structures::Shard::from_value(x, "shard"))
            .transpose()?,
        statistics: sub("statistics")
            .map(|x| crate::structures::Statistics::from_value(x, "statistics"))
            .transpose()?,
        extension_type: sub("extension_type")
            .map(|x| crate::structures::ExtensionType::from_value(x, "extension_type"))
            .transpose()?,
        composite_member: sub("composite_member")
            .map(|x| crate::structures::CompositeMember::from_value(x, "composite_member"))
            .transpose()?,
        skipped: de::skipped(v),
    })
}

fn quantization_from_value(q: &Value) -> Result<QuantizationSection, ValueError> {
    let tag: u32 = de::int(
        de::field(q, "quantization", "scheme_tag")?,
        "quantization.scheme_tag",
    )?;
    if let Some(op) = q.get("opaque") {
        return Ok(QuantizationSection {
            payload: SchemeVariant::Opaque(tag, de::bytes(op, "quantization.opaque")?),
        });
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
    Ok(QuantizationSection {
        payload: SchemeVariant::from_value(tag, &Value::Object(payload), "quantization")?,
    })
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
        #[allow(unreachable_patterns)]
        _ => Value::Null,
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

/// A file in the contract shape.
pub fn file_value(f: &crate::file::FileView<'_>) -> Value {
    let h = f.header;
    let tensors = f
        .tensors
        .iter()
        .map(|t| {
            let mut d = descriptor_value(&t.descriptor.view.owned());
            if !t.descriptor.dereferenceable {
                if let Value::Object(fs) = &mut d {
                    fs.push(("dereferenceable".into(), Value::Bool(false)));
                }
            }
            Value::Object(vec![
                ("name".into(), Value::Str(t.name.to_string())),
                (
                    "descriptor_offset".into(),
                    Value::UInt(t.entry.descriptor_offset()),
                ),
                (
                    "descriptor_length".into(),
                    Value::UInt(u64::from(t.entry.descriptor_length())),
                ),
                ("data_offset".into(), Value::UInt(t.entry.data_offset())),
                ("data_length".into(), Value::UInt(t.entry.data_length())),
                ("descriptor".into(), d),
            ])
        })
        .collect();
    let kv =
        f.kv.as_ref()
            .map(|k| {
                k.entries()
                    .iter()
                    .map(|e| kv_entry_value(&e.owned()))
                    .collect()
            })
            .unwrap_or_default();
    let warnings = f
        .warnings
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
    if !f.composites.is_empty() {
        let comps = f
            .composites
            .iter()
            .map(|c| {
                Value::Object(vec![
                    (
                        "head".into(),
                        Value::Str(f.tensors[c.head].name.to_string()),
                    ),
                    (
                        "members".into(),
                        Value::Array(
                            c.members
                                .iter()
                                .map(|m| Value::Str(f.tensors[*m].name.to_string()))
                                .collect(),
                        ),
                    ),
                    ("complete".into(), Value::Bool(c.complete)),
                ])
            })
            .collect();
        out.push(("composites".into(), Value::Array(comps)));
    }
    Value::Object(out)
}
