//! Every textual rendering of a model item, in one place, in the style its reader needs:
//! [`Style::Canonical`], the text a release record stores (compared byte for byte: a change
//! here changes the canonical text of release records, which are append-only —
//! `spec/releases/0001.toml` must still verify); [`Style::Markdown`], the spec's pages under
//! `docs/spec/`; [`Style::Message`], diagnostics, the derive's errors and the generated
//! runtime's rejection texts.

use crate::model::*;

/// Who a rendering is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// The canonical text of a release record.
    Canonical,
    /// The Markdown pages of `docs/spec/`.
    Markdown,
    /// Messages to a person: diagnostics and rejection texts.
    Message,
}

/// Lowercase hex, two digits a byte, space separated.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A tag or flag width (`u8`).
pub fn width(w: Width) -> String {
    format!("u{}", w.bits())
}

fn bit_name(spec: &Spec, set: FlagSetId, bit: u32) -> String {
    spec.bit_name(set, bit)
        .map_or(format!("bit {bit}"), str::to_string)
}

/// A tag's role attributes and the structure it selects. Canonically, the attributes part of
/// its S2 identity (`bits=8; kind=float; …`), which leaves out the rules the tag names (which
/// rule a rejection reports is a reader fact of the records, `amend::readers`); in Markdown,
/// the attributes column of `tags.md`, its rules included.
pub fn attributes(spec: &Spec, t: &Tag, style: Style) -> String {
    match style {
        Style::Canonical | Style::Message => identity(spec, t),
        Style::Markdown => attributes_markdown(spec, t),
    }
}

fn identity(spec: &Spec, t: &Tag) -> String {
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
        // A transfer alignment is a reader fact (`tag N transfer_alignment`), not identity.
        TagAttrs::Device { memory_classes, .. } => {
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
        // Who sends a message type is a reader fact (`tag N sender`), not its identity: the
        // identities were released before the key existed.
        TagAttrs::CompositionRule { .. } | TagAttrs::MessageType { .. } | TagAttrs::None => {}
    }
    parts.join("; ")
}

/// `rules: `key` ID, …` of the rules a tag or a space names, in Markdown; `None` for none.
fn rules_markdown(spec: &Spec, rules: &[(&str, Option<RuleId>)]) -> Option<String> {
    let named: Vec<String> = rules
        .iter()
        .filter_map(|(key, r)| Some(format!("`{key}` {}", spec.rule((*r)?).id)))
        .collect();
    (!named.is_empty()).then(|| format!("rules: {}", named.join(", ")))
}

/// The generic rules of a space's rule choices (`[space.default]`), in Markdown: the sentence
/// `tags.md` gives under the space's heading; `None` for a space without them.
pub fn space_default_markdown(spec: &Spec, space: &TagSpace) -> Option<String> {
    let id = |r: RuleId| spec.rule(r).id.as_str();
    let parts = match &space.default {
        SpaceDefault::None => return None,
        SpaceDefault::Layout(d) => vec![
            format!(
                "`byte_offset_rule` {} (bounded), {} (zero)",
                id(d.byte_offset_bounded),
                id(d.byte_offset_zero)
            ),
            format!(
                "`buffer_count_rule` {} (unquantized), {} (quantized)",
                id(d.buffer_count_unquantized),
                id(d.buffer_count_quantized)
            ),
            format!(
                "`same_device_rule` {} (a buffer), {} (a parameter buffer)",
                id(d.same_device_buffer),
                id(d.same_device_parameter_buffer)
            ),
            format!("`unsharded_member_rule` {}", id(d.unsharded_member)),
        ],
        SpaceDefault::Scheme(d) => vec![format!("`data_alias_rule` {}", id(d.data_alias))],
    };
    Some(format!(
        "Default rules, for a value that names none of its own: {}.",
        parts.join("; ")
    ))
}

fn attributes_markdown(spec: &Spec, t: &Tag) -> String {
    let mut parts = Vec::new();
    if let Some(st) = t.structure {
        parts.push(format!("structure `{}`", spec.structure(st).name));
    }
    if let Some(tier) = t.tier {
        parts.push(format!("tier {tier}"));
    }
    match &t.attrs {
        TagAttrs::ElementType(a) => {
            parts.push(format!("{} bits", a.bits));
            parts.push(format!("{:?}", a.kind).to_lowercase());
            if let Some(f) = &a.format {
                parts.push(format!("format {f}"));
            }
            if let Some(b) = a.bias {
                parts.push(format!("bias {b}"));
            }
            match a.packing {
                Packing::None => {}
                Packing::LsbFirst => parts.push(format!("{} per byte, LSB first", 8 / a.bits)),
                Packing::Group4In3 => parts.push("4 per 3 bytes".to_string()),
            }
        }
        TagAttrs::Layout(a) => {
            parts.push(format!("{:?}", a.class).to_lowercase());
            parts.push(format!("rank {}–{}", a.rank_min, a.rank_max));
            let b = if a.buffers.a == 0 {
                a.buffers.b.to_string()
            } else {
                format!("{}·rank+{}", a.buffers.a, a.buffers.b)
            };
            parts.push(format!("{b} buffer(s)"));
            parts.push(match a.byte_offset {
                ByteOffsetRule::Bounded => "byte_offset ≤ buffer 0".to_string(),
                ByteOffsetRule::Zero => "byte_offset 0".to_string(),
            });
            parts.extend(rules_markdown(
                spec,
                &[
                    ("rank_rule", Some(a.rank_rule)),
                    ("scalar_rule", a.scalar_rule),
                    ("byte_offset_rule", a.rules.byte_offset),
                    ("buffer_count_rule", a.rules.buffer_count),
                    ("same_device_rule", a.rules.same_device),
                    ("unsharded_member_rule", a.rules.unsharded_member),
                    ("shard_rule", a.rules.shard),
                    ("statistics_nnz_rule", a.rules.statistics_nnz),
                ],
            ));
        }
        TagAttrs::Device {
            memory_classes,
            transfer_alignment,
        } => {
            parts.push(format!("memory classes: {}", memory_classes.join(", ")));
            parts.extend(transfer_alignment.map(|a| format!("transfer alignment ≥ {a}")));
        }
        TagAttrs::Scheme(a) => {
            parts.push(format!("flags `{}`", spec.flag_set(a.flags).name));
            parts.push(format!("storage: {}", a.storage.join(", ")));
            if !a.parameters.is_empty() {
                parts.push(format!(
                    "parameter buffers: {}",
                    a.parameters
                        .iter()
                        .map(|p| format!(
                            "{} (`{}`{})",
                            p.name,
                            spec.parameter_field(t, p).map_or("", |f| f.name.as_str()),
                            p.unless_bit
                                .and_then(|b| spec.bit_name(a.flags, b))
                                .map(|f| format!(", unless {f}"))
                                .unwrap_or_default()
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            parts.extend(rules_markdown(
                spec,
                &[
                    ("storage_rule", Some(a.storage_rule)),
                    ("data_alias_rule", a.data_alias_rule),
                    ("padded_extent_rule", a.padded_extent_rule),
                ],
            ));
        }
        TagAttrs::CombineOp { legal_with } => {
            parts.push(format!("legal with: {}", legal_with.join(", ")))
        }
        TagAttrs::IndexType { bytes } => parts.push(format!("{bytes}-byte indices")),
        TagAttrs::CompositionRule { combine_op_rule } => parts.extend(rules_markdown(
            spec,
            &[("combine_op_rule", Some(*combine_op_rule))],
        )),
        TagAttrs::MessageType {
            sender,
            transfer_alignment,
        } => {
            parts.push(format!("sent by: {}", sender.word()));
            parts.extend(transfer_alignment.map(|a| format!("transfer alignment ≥ {a}")));
        }
        TagAttrs::None => {}
    }
    parts.join("; ")
}

/// A deprecation on `axis`: in Markdown `since 1.1, use `x``, in a message
/// `deprecated since 1.1; use `x``; canonically the version alone.
pub fn deprecation(spec: &Spec, axis: AxisId, d: &Deprecation, style: Style) -> String {
    let since = spec.axis(axis).show(d.since);
    match style {
        Style::Canonical => since,
        Style::Markdown => format!(
            "since {since}{}",
            d.replacement
                .as_ref()
                .map(|r| format!(", use `{r}`"))
                .unwrap_or_default()
        ),
        Style::Message => format!(
            "deprecated since {since}{}",
            d.replacement
                .as_ref()
                .map(|r| format!("; use `{r}`"))
                .unwrap_or_default()
        ),
    }
}

/// A field's type: canonically as the spec writes it (`tag:layout`, `dispatch:scheme on …`);
/// in Markdown with its count and a link to a nested structure. A message uses the canonical
/// form.
pub fn field_type(spec: &Spec, st: &Structure, f: &Field, style: Style) -> String {
    match style {
        Style::Canonical | Style::Message => type_canonical(spec, f),
        Style::Markdown => type_markdown(spec, st, f),
    }
}

fn type_canonical(spec: &Spec, f: &Field) -> String {
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

fn type_markdown(spec: &Spec, st: &Structure, f: &Field) -> String {
    let base = match &f.ty {
        FieldType::Prim(p) => p.name().to_string(),
        FieldType::Bytes => "bytes".to_string(),
        FieldType::Utf8 => "utf8".to_string(),
        FieldType::Tag(space) => format!("tag `{}`", spec.space(*space).name),
        FieldType::Flags(set) => format!("flags `{}`", spec.flag_set(*set).name),
        FieldType::Struct(id) => format!(
            "[`{}`](#{})",
            spec.structure(*id).name,
            spec.structure(*id).name
        ),
        FieldType::Dispatch { space, on } => {
            let by = match on {
                TagSource::Field(p) => format!("`{}`", p.text),
                TagSource::Peek {
                    path_in_variant, ..
                } => format!("its own `{}`", path_in_variant.join(".")),
            };
            format!(
                "structure chosen by {by} (space `{}`)",
                spec.space(*space).name
            )
        }
    };
    match &f.count {
        None => base,
        Some(Count::Const(n)) => format!("{base} × {n}"),
        Some(Count::Field(i)) => format!("{base} × `{}`", st.fields[*i].name),
        Some(Count::Param(p)) => format!("{base} × `{p}`"),
        Some(Count::Rest) => format!("{base} (the rest)"),
    }
}

/// A field's count, canonically (`rank`, `16`, `rest`; empty for a single value).
pub fn count(st: &Structure, f: &Field) -> String {
    match &f.count {
        None => String::new(),
        Some(Count::Const(n)) => n.to_string(),
        Some(Count::Field(i)) => st.fields[*i].name.clone(),
        Some(Count::Param(p)) => p.clone(),
        Some(Count::Rest) => "rest".to_string(),
    }
}

/// A condition on an earlier field: canonically `flags has HAS_SHARD`, in Markdown
/// `` `flags` bit 1 set``.
pub fn condition(spec: &Spec, c: &Condition, style: Style) -> String {
    match style {
        Style::Canonical | Style::Message => match c {
            Condition::Equals(p, v) => format!("{} == {v}", p.text),
            Condition::NotEquals(p, v) => format!("{} != {v}", p.text),
            Condition::HasBit(p, set, b) => format!("{} has {}", p.text, bit_name(spec, *set, *b)),
            Condition::LacksBit(p, set, b) => {
                format!("{} lacks {}", p.text, bit_name(spec, *set, *b))
            }
            Condition::InRange(p, a, b) => format!("{} in {a:#X}..={b:#X}", p.text),
        },
        Style::Markdown => match c {
            Condition::Equals(p, v) => format!("`{}` = {v}", p.text),
            Condition::NotEquals(p, v) => format!("`{}` ≠ {v}", p.text),
            Condition::HasBit(p, _, b) => format!("`{}` bit {b} set", p.text),
            Condition::LacksBit(p, _, b) => format!("`{}` bit {b} clear", p.text),
            Condition::InRange(p, a, b) => format!("`{}` in `0x{a:02X}`–`0x{b:02X}`", p.text),
        },
    }
}

fn literal(l: &Lit, style: Style) -> String {
    match (l, style) {
        (Lit::Int(v), _) => v.to_string(),
        (Lit::Float(x), Style::Canonical) => format!("{x:?}"),
        (Lit::Float(x), Style::Markdown | Style::Message) => x.to_string(),
    }
}

fn operand(st: &Structure, o: &Operand) -> String {
    match o {
        Operand::Param(p) => p.clone(),
        Operand::Field(i) => st.fields[*i].name.clone(),
    }
}

/// What a check demands of a value: canonically `>= 1`, in Markdown `≥ 1`, in a message
/// `must be at least 1`.
pub fn check_kind(st: &Structure, kind: &CheckKind, style: Style) -> String {
    let lit = |l: &Lit| literal(l, style);
    match style {
        Style::Canonical => match kind {
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
            CheckKind::LessThan(o) => format!("< {}", operand(st, o)),
            CheckKind::SameAs(o) => format!("== {}", operand(st, o)),
            CheckKind::Finite => "finite".to_string(),
            CheckKind::NonZero => "!= 0".to_string(),
        },
        Style::Markdown => match kind {
            CheckKind::Bytes(b) => format!("= {}", hex(b)),
            CheckKind::Equals(l) => format!("= {}", lit(l)),
            CheckKind::NotEquals(l) => format!("≠ {}", lit(l)),
            CheckKind::Min(l) => format!("≥ {}", lit(l)),
            CheckKind::Max(l) => format!("≤ {}", lit(l)),
            CheckKind::Range(a, b) => format!("in [{}, {}]", lit(a), lit(b)),
            CheckKind::OneOf(v) => format!(
                "one of {}",
                v.iter()
                    .map(|x| format!("{x:#x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            CheckKind::PowerOfTwo => "power of two".to_string(),
            CheckKind::MultipleOf(m) => format!("multiple of {m}"),
            CheckKind::LessThan(o) => format!("< {}", operand(st, o)),
            CheckKind::SameAs(o) => format!("= {}", operand(st, o)),
            CheckKind::Finite => "finite".to_string(),
            CheckKind::NonZero => "≠ 0".to_string(),
        },
        Style::Message => match kind {
            CheckKind::Bytes(b) => format!("must be {}", hex(b)),
            CheckKind::Equals(l) => format!("must be {}", lit(l)),
            CheckKind::NotEquals(l) => format!("must not be {}", lit(l)),
            CheckKind::Min(l) => format!("must be at least {}", lit(l)),
            CheckKind::Max(l) => format!("must be at most {}", lit(l)),
            CheckKind::Range(a, b) => format!("must lie in [{}, {}]", lit(a), lit(b)),
            CheckKind::OneOf(v) => format!(
                "must be one of {}",
                v.iter()
                    .map(|x| format!("{x:#x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            CheckKind::PowerOfTwo => "must be a power of two".to_string(),
            CheckKind::MultipleOf(m) => format!("must be a multiple of {m}"),
            CheckKind::LessThan(o) => format!("must be less than {}", operand(st, o)),
            CheckKind::SameAs(o) => format!("must equal {}", operand(st, o)),
            CheckKind::Finite => "must be finite".to_string(),
            CheckKind::NonZero => "must not be zero".to_string(),
        },
    }
}

/// A check with its condition, rule and level: canonically `>= 1 when … [RULE] (warn)`, in
/// Markdown `≥ 1 when … (RULE, warning)`.
pub fn check(spec: &Spec, st: &Structure, c: &Check, style: Style) -> String {
    let what = check_kind(st, &c.kind, style);
    let when = c
        .when
        .as_ref()
        .map(|w| format!(" when {}", condition(spec, w, style)))
        .unwrap_or_default();
    let rule = &spec.rule(c.rule).id;
    let warn = c.level == CheckLevel::Warn;
    match style {
        Style::Canonical | Style::Message => {
            format!("{what}{when} [{rule}]{}", if warn { " (warn)" } else { "" })
        }
        Style::Markdown => {
            format!(
                "{what}{when} ({rule}{})",
                if warn { ", warning" } else { "" }
            )
        }
    }
}

/// A documented default: `0`, `0.0`, `00 00`, or an expression default `= field (depends on
/// a,b)`; in Markdown an expression default names its field (`` = `field` ``) and
/// [`dependencies`] says what it depends on.
pub fn default(st: &Structure, d: &DefaultValue, style: Style) -> String {
    match (d, style) {
        (DefaultValue::Int(n), _) => n.to_string(),
        (DefaultValue::Float(x), _) => format!("{x:?}"),
        (DefaultValue::Bytes(b), _) => hex(b),
        (DefaultValue::Expr { field, depends_on }, Style::Canonical | Style::Message) => format!(
            "= {} (depends on {})",
            st.fields[*field].name,
            depends_on.join(",")
        ),
        (DefaultValue::Expr { field, .. }, Style::Markdown) => {
            format!("= `{}`", st.fields[*field].name)
        }
    }
}

/// What an expression default depends on, for Markdown (` (depends on a, b)`); empty for a
/// literal default.
pub fn dependencies(d: &DefaultValue) -> String {
    match d {
        DefaultValue::Expr { depends_on, .. } => {
            format!(" (depends on {})", depends_on.join(", "))
        }
        _ => String::new(),
    }
}
