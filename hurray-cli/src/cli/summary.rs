//! Human-readable summaries for `decode` without `--json`: a descriptor's header, buffers and
//! every optional section the generated code knows (`Descriptor::CONDITIONAL_FIELDS`).

use std::fmt::Write as _;

use hurray_runtime::structures::Descriptor;
use hurray_runtime::{Value, Warning};

fn name(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::Str(s)) => s.clone(),
        _ => "unknown".to_string(),
    }
}

fn inline(v: &Value) -> String {
    match v {
        Value::Object(f) => f
            .iter()
            .map(|(k, x)| format!("{k}={}", inline(x)))
            .collect::<Vec<_>>()
            .join(" "),
        Value::Array(a) if a.len() > 8 => format!("[{} values]", a.len()),
        Value::Array(a) => format!("[{}]", a.iter().map(inline).collect::<Vec<_>>().join(", ")),
        Value::UInt(n) => n.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Str(s) => s.clone(),
        Value::Bytes(b) => format!("{} bytes", b.len()),
        Value::Null => "-".into(),
        Value::Bool(b) => b.to_string(),
        Value::Defaulted(x) => format!("{} (default)", inline(x)),
        Value::Skipped(b) => format!("{} skipped bytes", b.len()),
    }
}

pub fn descriptor(
    d: &Descriptor,
    v: &Value,
    warnings: &[Warning],
    dereferenceable: bool,
    indent: usize,
) -> String {
    let pad = " ".repeat(indent);
    let h = &d.fixed_header;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{pad}descriptor {}.{}, {} bytes",
        h.version_major, h.version_minor, h.descriptor_length
    );
    let _ = writeln!(
        out,
        "{pad}  element type  {} ({:#04x})",
        name(v, "element_type"),
        h.type_tag.raw()
    );
    let fields = v.get("layout_fields").map(inline).unwrap_or_default();
    let _ = writeln!(
        out,
        "{pad}  layout        {} ({:#04x}){}{fields}",
        name(v, "layout"),
        h.layout_tag.raw(),
        if fields.is_empty() || fields == "{}" {
            ""
        } else {
            " "
        }
    );
    let _ = writeln!(out, "{pad}  shape         {:?} (rank {})", d.shape, h.rank);
    let _ = writeln!(out, "{pad}  byte_offset   {}", d.byte_offset);
    let _ = writeln!(out, "{pad}  buffers       {}", d.buffer_table.buffers.len());
    for (i, b) in d.buffer_table.buffers.iter().enumerate() {
        let _ = writeln!(
            out,
            "{pad}    #{i}: {} bytes, alignment {}, device {}, sync {}, memory class {}",
            b.byte_size,
            b.alignment,
            tag_name(b.device_tag),
            tag_name(b.sync_mode),
            tag_name(b.memory_class)
        );
    }
    // Every flag-gated section the spec defines, by its spec name (a section a later spec
    // adds is shown as soon as the runtime is generated from it).
    for key in Descriptor::CONDITIONAL_FIELDS {
        if let Some(x) = v.get(key)
            && *x != Value::Null
        {
            let _ = writeln!(out, "{pad}  {key:<13} {}", inline(x));
        }
    }
    if !dereferenceable {
        let _ = writeln!(
            out,
            "{pad}  data is not dereferenceable (accepted permissively, or a dimension is dynamic)"
        );
    }
    for w in warnings {
        let _ = writeln!(out, "{pad}  {w}");
    }
    out
}

/// A tag value by its spec name, with its number; private and unknown values by number.
fn tag_name<T: hurray_runtime::TagSpace>(v: hurray_runtime::TagValue<T>) -> String {
    match v.get() {
        Ok(t) => format!("{} ({:#04x})", t.name(), v.raw()),
        Err(_) => format!("{:#04x}", v.raw()),
    }
}
