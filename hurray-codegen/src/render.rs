//! Every textual rendering of a model item, in one place: the canonical text a release record
//! stores (and the derive quotes in its messages). A rendering that changes here changes the
//! canonical text of release records, which are append-only: `spec/releases/0001.toml` must
//! still verify.

use crate::model::*;

/// Lowercase hex, two digits a byte, space separated.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The identity text of a tag's space-specific attributes (part of its S2 identity).
pub fn identity(spec: &Spec, t: &Tag) -> String {
    let mut parts = Vec::new();
    if let Some(s) = t.structure {
        parts.push(format!("structure={}", spec.structure(s).name));
    }
    match &t.attrs {
        TagAttrs::ElementType(a) => {
            parts.push(format!("bits={}", a.bits));
            parts.push(format!("kind={:?}", a.kind).to_lowercase());
            if let Some(f) = &a.format {
                parts.push(format!("format={f}"));
            }
            if let Some(b) = a.bias {
                parts.push(format!("bias={b}"));
            }
            parts.push(format!("packing={:?}", a.packing).to_lowercase());
        }
        TagAttrs::Layout(a) => {
            parts.push(format!("class={:?}", a.class).to_lowercase());
            parts.push(format!("rank={}..{}", a.rank_min, a.rank_max));
            parts.push(format!("buffers={}*rank+{}", a.buffers.a, a.buffers.b));
            parts.push(format!("byte_offset={:?}", a.byte_offset).to_lowercase());
        }
        TagAttrs::Device { memory_classes } => {
            parts.push(format!("memory_classes={}", memory_classes.join(",")))
        }
        TagAttrs::Scheme(a) => {
            parts.push(format!("flags={}", spec.flag_set(a.flags).name));
            parts.push(format!("storage={}", a.storage.join(",")));
            parts.push(format!(
                "parameters={}",
                a.parameters
                    .iter()
                    .map(|p| format!(
                        "{}:{}{}",
                        p.name,
                        spec.parameter_field(t, p).map_or("", |f| f.name.as_str()),
                        p.unless_bit
                            .and_then(|b| spec.bit_name(a.flags, b))
                            .map(|u| format!(":unless {u}"))
                            .unwrap_or_default()
                    ))
                    .collect::<Vec<_>>()
                    .join(",")
            ));
        }
        TagAttrs::CombineOp { legal_with } => {
            parts.push(format!("legal_with={}", legal_with.join(",")))
        }
        TagAttrs::IndexType { bytes } => parts.push(format!("index_bytes={bytes}")),
        TagAttrs::None => {}
    }
    parts.join("; ")
}

/// The canonical text of a tag or flag width (`u8`).
pub fn width(w: Width) -> String {
    format!("u{}", w.bits())
}

/// The canonical text of a field's type.
pub fn type_text(spec: &Spec, f: &Field) -> String {
    match &f.ty {
        FieldType::Prim(p) => p.name().to_string(),
        FieldType::Bytes => "bytes".to_string(),
        FieldType::Utf8 => "utf8".to_string(),
        FieldType::Tag(s) => format!("tag:{}", spec.space(*s).name),
        FieldType::Flags(s) => format!("flags:{}", spec.flag_set(*s).name),
        FieldType::Struct(s) => format!("struct:{}", spec.structure(*s).name),
        FieldType::Dispatch { space, on } => {
            let on = match on {
                TagSource::Field(p) => p.text.clone(),
                TagSource::Peek {
                    path_in_variant, ..
                } => format!("itself.{}", path_in_variant.join(".")),
            };
            format!("dispatch:{} on {on}", spec.space(*space).name)
        }
    }
}

/// The canonical text of a condition.
pub fn condition_text(c: &Condition, spec: &Spec) -> String {
    match c {
        Condition::Equals(p, v) => format!("{} == {v}", p.text),
        Condition::NotEquals(p, v) => format!("{} != {v}", p.text),
        Condition::HasBit(p, fs, b) => format!("{} has {}", p.text, bit_name(spec, *fs, *b)),
        Condition::LacksBit(p, fs, b) => format!("{} lacks {}", p.text, bit_name(spec, *fs, *b)),
    }
}

fn bit_name(spec: &Spec, fs: FlagSetId, b: u32) -> String {
    spec.flag_set(fs)
        .bits
        .iter()
        .find(|x| x.bit == b)
        .map_or(format!("bit {b}"), |x| x.name.clone())
}

fn lit(l: &Lit) -> String {
    match l {
        Lit::Int(v) => v.to_string(),
        Lit::Float(x) => format!("{x:?}"),
    }
}

/// The canonical text of a check.
pub fn check_text(spec: &Spec, st: &Structure, c: &Check) -> String {
    let operand = |o: &Operand| match o {
        Operand::Param(p) => p.clone(),
        Operand::Field(i) => st.fields[*i].name.clone(),
    };
    let k = match &c.kind {
        CheckKind::Bytes(b) => format!("bytes {}", hex(b)),
        CheckKind::Equals(l) => format!("== {}", lit(l)),
        CheckKind::NotEquals(l) => format!("!= {}", lit(l)),
        CheckKind::Min(l) => format!(">= {}", lit(l)),
        CheckKind::Max(l) => format!("<= {}", lit(l)),
        CheckKind::Range(a, b) => format!("in {}..={}", lit(a), lit(b)),
        CheckKind::OneOf(v) => format!(
            "in {{{}}}",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
        CheckKind::PowerOfTwo => "power of two".to_string(),
        CheckKind::MultipleOf(m) => format!("multiple of {m}"),
        CheckKind::LessThan(o) => format!("< {}", operand(o)),
        CheckKind::SameAs(o) => format!("== {}", operand(o)),
        CheckKind::Finite => "finite".to_string(),
        CheckKind::NonZero => "!= 0".to_string(),
    };
    let when = c
        .when
        .as_ref()
        .map(|w| format!(" when {}", condition_text(w, spec)))
        .unwrap_or_default();
    let level = if c.level == CheckLevel::Warn {
        " (warn)"
    } else {
        ""
    };
    format!("{k}{when} [{}]{level}", spec.rule(c.rule).id)
}

/// The canonical text of a default.
pub fn default_text(st: &Structure, d: &DefaultValue) -> String {
    match d {
        DefaultValue::Int(n) => n.to_string(),
        DefaultValue::Float(x) => format!("{x:?}"),
        DefaultValue::Bytes(b) => hex(b),
        DefaultValue::Expr { field, depends_on } => format!(
            "= {} (depends on {})",
            st.fields[*field].name,
            depends_on.join(",")
        ),
    }
}
