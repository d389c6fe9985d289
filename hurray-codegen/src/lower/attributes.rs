//! The attributes of a tag space's values and ranges, one decoder per role (spec/README.md,
//! "Space-specific attributes"): each role says which keys its values take and reads them
//! into typed values — words into enums, names into ids, a scheme's parameters into a field
//! of its payload and a bit of its flag set. A key another role owns is reported, and so is
//! a missing one; nothing falls back to a default.

use crate::lints;
use crate::model::*;
use crate::raw::{self, S};
use crate::source::{FileId, Span};

use super::context::{Lower, span};

/// The keys the values of each role's space take; a space without a role takes none.
fn keys(role: Option<Role>) -> &'static [&'static str] {
    match role {
        Some(Role::ElementType) => &["bits", "kind", "format", "bias", "packing"],
        Some(Role::Layout) => &[
            "class",
            "rank",
            "buffers",
            "byte_offset",
            "rank_rule",
            "scalar_rule",
            "byte_offset_rule",
            "buffer_count_rule",
            "same_device_rule",
            "unsharded_member_rule",
            "shard_rule",
            "statistics_nnz_rule",
        ],
        Some(Role::Device) => &["memory_classes", "transfer_alignment"],
        Some(Role::Scheme) => &[
            "flags",
            "storage",
            "storage_rule",
            "parameters",
            "data_alias_rule",
            "padded_extent_rule",
        ],
        Some(Role::CombineOp) => &["legal_with"],
        Some(Role::BlockTableIndexType) => &["index_bytes"],
        Some(Role::CompositionRule) => &["combine_op_rule"],
        Some(Role::MessageType) => &["sender", "transfer_alignment"],
        Some(Role::MemoryClass) | None => &[],
    }
}

/// The keys the ranges of each role's space take, besides the keys every range has.
fn range_keys(role: Option<Role>) -> &'static [&'static str] {
    match role {
        Some(Role::Device) => &["memory_classes"],
        Some(Role::Layout) => &["scalar_rule", "buffer_count_rule"],
        _ => &[],
    }
}

/// The keys of `[space.default]` each role's space takes: every one is required, and no
/// other is allowed.
fn default_keys(role: Option<Role>) -> &'static [&'static str] {
    match role {
        Some(Role::Layout) => &[
            "byte_offset_rule",
            "buffer_count_rule",
            "same_device_rule",
            "unsharded_member_rule",
        ],
        Some(Role::Scheme) => &["data_alias_rule"],
        _ => &[],
    }
}

/// The attribute keys a tag writes, with their spans.
fn present(t: &raw::Tag) -> Vec<(&'static str, std::ops::Range<usize>)> {
    fn at<T>(
        key: &'static str,
        v: &Option<S<T>>,
    ) -> Option<(&'static str, std::ops::Range<usize>)> {
        v.as_ref().map(|v| (key, v.span()))
    }
    [
        at("bits", &t.bits),
        at("kind", &t.kind),
        at("format", &t.format),
        at("bias", &t.bias),
        at("packing", &t.packing),
        at("class", &t.class),
        at("rank", &t.rank),
        at("buffers", &t.buffers),
        at("byte_offset", &t.byte_offset),
        at("rank_rule", &t.rank_rule),
        at("scalar_rule", &t.scalar_rule),
        at("memory_classes", &t.memory_classes),
        at("transfer_alignment", &t.transfer_alignment),
        at("flags", &t.flags),
        at("storage", &t.storage),
        at("storage_rule", &t.storage_rule),
        at("parameters", &t.parameters),
        at("legal_with", &t.legal_with),
        at("index_bytes", &t.index_bytes),
        at("byte_offset_rule", &t.byte_offset_rule),
        at("buffer_count_rule", &t.buffer_count_rule),
        at("same_device_rule", &t.same_device_rule),
        at("unsharded_member_rule", &t.unsharded_member_rule),
        at("shard_rule", &t.shard_rule),
        at("statistics_nnz_rule", &t.statistics_nnz_rule),
        at("data_alias_rule", &t.data_alias_rule),
        at("padded_extent_rule", &t.padded_extent_rule),
        at("combine_op_rule", &t.combine_op_rule),
        at("sender", &t.sender),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn strings(v: &S<Vec<S<String>>>) -> Vec<String> {
    v.get_ref().iter().map(|s| s.get_ref().clone()).collect()
}

/// The attributes of one range.
pub(super) struct RangeAttributes {
    pub(super) memory_classes: Vec<String>,
    pub(super) scalar_rule: Option<RuleId>,
    pub(super) buffer_count_rule: Option<RuleId>,
}

impl Lower<'_> {
    fn not_an_attribute(&mut self, at: Span, key: &str, space: &str, allowed: &[&str], what: &str) {
        self.err(
            &lints::BAD_VALUE,
            at,
            format!("`{key}` is not an attribute of `{space}` {what}"),
            format!(
                "`{space}` {what} take: {}",
                if allowed.is_empty() {
                    "no attributes".to_string()
                } else {
                    allowed.join(", ")
                }
            ),
        );
    }

    /// A required attribute, reported when missing.
    fn required<'t, T>(
        &mut self,
        value: &'t Option<S<T>>,
        key: &str,
        space: &str,
        t: &raw::Tag,
        at: Span,
    ) -> Option<&'t S<T>> {
        if value.is_none() {
            self.err(
                &lints::TOML_SYNTAX,
                at,
                format!("`{space}` tag `{}` lacks `{key}`", t.name.get_ref()),
                format!("add `{key}`; spec/README.md describes it"),
            );
        }
        value.as_ref()
    }

    /// `transfer_alignment`, when written: a power of two that fits a buffer handle's
    /// `alignment`. `Some(None)` when absent, `None` after reporting.
    fn transfer_alignment(&mut self, file: FileId, t: &raw::Tag) -> Option<Option<u32>> {
        let Some(a) = &t.transfer_alignment else {
            return Some(None);
        };
        match u32::try_from(*a.get_ref()) {
            Ok(v) if v.is_power_of_two() => Some(Some(v)),
            _ => {
                self.err(
                    &lints::BAD_VALUE,
                    span(file, a),
                    format!("`{}` is not a buffer alignment", a.get_ref()),
                    "a transfer alignment is a power of two of at most 2^31, as a buffer handle's `alignment` (BH-1)",
                );
                None
            }
        }
    }

    /// The attributes of a value of `space`, by the space's role.
    pub(super) fn tag_attributes(
        &mut self,
        file: FileId,
        space: &str,
        role: Option<Role>,
        structure: Option<StructId>,
        at: Span,
        t: &raw::Tag,
    ) -> Option<TagAttrs> {
        let allowed = keys(role);
        for (key, range) in present(t) {
            if !allowed.contains(&key) {
                self.not_an_attribute(Span::new(file, range), key, space, allowed, "tags");
            }
        }
        match role {
            Some(Role::ElementType) => self
                .element_type(file, space, at, t)
                .map(TagAttrs::ElementType),
            Some(Role::Layout) => self.layout(file, space, at, t).map(TagAttrs::Layout),
            Some(Role::Device) => {
                let classes = self.required(&t.memory_classes, "memory_classes", space, t, at)?;
                let transfer_alignment = self.transfer_alignment(file, t)?;
                Some(TagAttrs::Device {
                    memory_classes: strings(classes),
                    transfer_alignment,
                })
            }
            Some(Role::Scheme) => self
                .scheme(file, space, structure, at, t)
                .map(TagAttrs::Scheme),
            Some(Role::CombineOp) => {
                let legal = self.required(&t.legal_with, "legal_with", space, t, at)?;
                Some(TagAttrs::CombineOp {
                    legal_with: strings(legal),
                })
            }
            Some(Role::BlockTableIndexType) => {
                let b = self.required(&t.index_bytes, "index_bytes", space, t, at)?;
                match u8::try_from(*b.get_ref()) {
                    Ok(bytes) if bytes > 0 => Some(TagAttrs::IndexType { bytes }),
                    _ => {
                        self.err(
                            &lints::BAD_VALUE,
                            span(file, b),
                            format!("`{}` is not a byte width", b.get_ref()),
                            "an index is 1 to 255 bytes wide",
                        );
                        None
                    }
                }
            }
            Some(Role::CompositionRule) => {
                let r = self.required(&t.combine_op_rule, "combine_op_rule", space, t, at)?;
                Some(TagAttrs::CompositionRule {
                    combine_op_rule: self.rule_ref(file, r),
                })
            }
            Some(Role::MessageType) => {
                let w = self.required(&t.sender, "sender", space, t, at)?;
                let sender = self.word::<Sender>(file, w)?;
                let transfer_alignment = self.transfer_alignment(file, t)?;
                Some(TagAttrs::MessageType {
                    sender,
                    transfer_alignment,
                })
            }
            Some(Role::MemoryClass) | None => Some(TagAttrs::None),
        }
    }

    /// `[space.default]` of `space`, by the space's role: every key the role takes, and no
    /// other. `SpaceDefault::None` for a role without rule choices, or after reporting.
    pub(super) fn space_default(
        &mut self,
        file: FileId,
        space: &str,
        role: Option<Role>,
        d: Option<&S<raw::SpaceDefault>>,
        at: Span,
    ) -> SpaceDefault {
        let allowed = default_keys(role);
        let Some(d) = d else {
            if !allowed.is_empty() {
                self.err(
                    &lints::TOML_SYNTAX,
                    at,
                    format!("`{space}` has no `[space.default]`"),
                    format!(
                        "add `[space.default]` with the generic rules of its values' rule choices: {}; spec/README.md describes them",
                        allowed.join(", ")
                    ),
                );
            }
            return SpaceDefault::None;
        };
        let d0 = d.get_ref();
        let written = [
            d0.byte_offset_rule
                .as_ref()
                .map(|v| ("byte_offset_rule", v.span())),
            d0.buffer_count_rule
                .as_ref()
                .map(|v| ("buffer_count_rule", v.span())),
            d0.same_device_rule
                .as_ref()
                .map(|v| ("same_device_rule", v.span())),
            d0.unsharded_member_rule
                .as_ref()
                .map(|v| ("unsharded_member_rule", v.span())),
            d0.data_alias_rule
                .as_ref()
                .map(|v| ("data_alias_rule", v.span())),
        ];
        let mut sound = true;
        for (key, range) in written.into_iter().flatten() {
            if !allowed.contains(&key) {
                sound = false;
                self.not_an_attribute(Span::new(file, range), key, space, allowed, "defaults");
            }
        }
        let at = span(file, d);
        let mut need = |this: &mut Self, present: bool, key: &str| {
            if !present {
                sound = false;
                this.err(
                    &lints::TOML_SYNTAX,
                    at,
                    format!("`[space.default]` of `{space}` lacks `{key}`"),
                    format!("add `{key}`; spec/README.md describes it"),
                );
            }
        };
        match role {
            Some(Role::Layout) => {
                need(self, d0.byte_offset_rule.is_some(), "byte_offset_rule");
                need(self, d0.buffer_count_rule.is_some(), "buffer_count_rule");
                need(self, d0.same_device_rule.is_some(), "same_device_rule");
                need(
                    self,
                    d0.unsharded_member_rule.is_some(),
                    "unsharded_member_rule",
                );
                let (Some(b), Some(c), Some(s), Some(m), true) = (
                    &d0.byte_offset_rule,
                    &d0.buffer_count_rule,
                    &d0.same_device_rule,
                    &d0.unsharded_member_rule,
                    sound,
                ) else {
                    return SpaceDefault::None;
                };
                let (b, c, s) = (b.get_ref(), c.get_ref(), s.get_ref());
                SpaceDefault::Layout(LayoutDefault {
                    byte_offset_bounded: self.rule_ref(file, &b.bounded),
                    byte_offset_zero: self.rule_ref(file, &b.zero),
                    buffer_count_unquantized: self.rule_ref(file, &c.unquantized),
                    buffer_count_quantized: self.rule_ref(file, &c.quantized),
                    same_device_buffer: self.rule_ref(file, &s.buffer),
                    same_device_parameter_buffer: self.rule_ref(file, &s.parameter_buffer),
                    unsharded_member: self.rule_ref(file, m),
                })
            }
            Some(Role::Scheme) => {
                need(self, d0.data_alias_rule.is_some(), "data_alias_rule");
                match (&d0.data_alias_rule, sound) {
                    (Some(a), true) => SpaceDefault::Scheme(SchemeDefault {
                        data_alias: self.rule_ref(file, a),
                    }),
                    _ => SpaceDefault::None,
                }
            }
            _ => SpaceDefault::None,
        }
    }

    /// The attributes of one range of `space`, by the space's role.
    pub(super) fn range_attributes(
        &mut self,
        file: FileId,
        space: &str,
        role: Option<Role>,
        range_use: Option<RangeUse>,
        r: &S<raw::Range>,
    ) -> RangeAttributes {
        let allowed = range_keys(role);
        let r0 = r.get_ref();
        let written = [
            r0.memory_classes
                .as_ref()
                .map(|v| ("memory_classes", v.span())),
            r0.scalar_rule.as_ref().map(|v| ("scalar_rule", v.span())),
            r0.buffer_count_rule
                .as_ref()
                .map(|v| ("buffer_count_rule", v.span())),
        ];
        for (key, range) in written.into_iter().flatten() {
            if !allowed.contains(&key) {
                self.not_an_attribute(Span::new(file, range), key, space, allowed, "ranges");
            }
        }
        // A private layout is checked for at least one buffer: its range names the rule.
        let private = range_use == Some(RangeUse::Private);
        if role == Some(Role::Layout) {
            match (&r0.buffer_count_rule, private) {
                (None, true) => self.err(
                    &lints::TOML_SYNTAX,
                    span(file, r),
                    format!("the private range of `{space}` lacks `buffer_count_rule`"),
                    "add `buffer_count_rule = \"<id>\"`: the rule a private layout without a buffer breaks (BUF-2)",
                ),
                (Some(b), false) => self.err(
                    &lints::BAD_VALUE,
                    span(file, b),
                    "only a private range names the rule its layouts' buffer count breaks",
                    "remove `buffer_count_rule`, or make the range private",
                ),
                _ => {}
            }
        }
        RangeAttributes {
            memory_classes: r0.memory_classes.as_ref().map(strings).unwrap_or_default(),
            scalar_rule: r0.scalar_rule.as_ref().map(|s| self.rule_ref(file, s)),
            buffer_count_rule: r0
                .buffer_count_rule
                .as_ref()
                .map(|s| self.rule_ref(file, s)),
        }
    }

    /// `element_type`: bit width, kind, format, bias, packing.
    fn element_type(
        &mut self,
        file: FileId,
        space: &str,
        at: Span,
        t: &raw::Tag,
    ) -> Option<ElementTypeAttrs> {
        let kind = self
            .required(&t.kind, "kind", space, t, at)
            .and_then(|k| self.word::<ElementKind>(file, k));
        // No `packing` is whole bytes (spec/README.md).
        let packing = match &t.packing {
            Some(p) => self.word::<Packing>(file, p),
            None => Some(Packing::None),
        };
        let bits = self.required(&t.bits, "bits", space, t, at).and_then(|b| {
            match u32::try_from(*b.get_ref()) {
                Ok(bits) => Some(bits),
                Err(_) => {
                    self.err(
                        &lints::BAD_VALUE,
                        span(file, b),
                        format!("{} is not a bit width", b.get_ref()),
                        "an element is a positive number of bits",
                    );
                    None
                }
            }
        });
        let (kind, packing, bits) = (kind?, packing?, bits?);
        let fits = match packing {
            Packing::None => bits >= 8 && bits.is_multiple_of(8),
            Packing::LsbFirst => matches!(bits, 1 | 2 | 4),
            Packing::Group4In3 => bits == 6,
        };
        if !fits {
            self.err(
                &lints::BAD_VALUE,
                at,
                format!("{bits}-bit elements cannot use this packing"),
                "whole-byte types use `packing = \"none\"`, 1/2/4-bit types `lsb_first`, 6-bit types `group_4_in_3`",
            );
        }
        // A format is sign-exponent-mantissa bits that fill the element, or one part of a
        // complex one.
        let format = match &t.format {
            None => None,
            Some(f) => match FloatFormat::parse(f.get_ref()) {
                Some(ff)
                    if ff.sign <= 1
                        && (ff.bits() == bits
                            || (kind == ElementKind::Complex && 2 * ff.bits() == bits)) =>
                {
                    Some(ff)
                }
                _ => {
                    self.err(
                        &lints::BAD_VALUE,
                        span(file, f),
                        format!(
                            "`{}` is not a float format of a {bits}-bit element",
                            f.get_ref()
                        ),
                        "write sign-exponent-mantissa bits that add up to `bits` (a complex type's to half of it), the sign 0 or 1: `format = \"1-5-10\"`",
                    );
                    None
                }
            },
        };
        Some(ElementTypeAttrs {
            bits,
            kind,
            format,
            bias: t.bias.as_ref().map(|b| *b.get_ref()),
            packing,
        })
    }

    /// `layout`: class, the ranks it allows and the rules other ranks break, its buffer
    /// count, and what bounds `byte_offset`.
    fn layout(&mut self, file: FileId, space: &str, at: Span, t: &raw::Tag) -> Option<LayoutAttrs> {
        let class = self
            .required(&t.class, "class", space, t, at)
            .and_then(|c| self.word::<LayoutClass>(file, c));
        let ranks = self.required(&t.rank, "rank", space, t, at).and_then(|r| {
            let v: Vec<i64> = r.get_ref().iter().map(|x| *x.get_ref()).collect();
            match v[..] {
                [lo, hi] if (0..=64).contains(&lo) && (lo..=64).contains(&hi) => {
                    Some((lo as u32, hi as u32))
                }
                _ => {
                    self.err(
                        &lints::BAD_VALUE,
                        span(file, r),
                        "`rank` must be [min, max] within 0..=64",
                        "e.g. `rank = [1, 64]`",
                    );
                    None
                }
            }
        });
        let buffers = self
            .required(&t.buffers, "buffers", space, t, at)
            .and_then(|b| {
                let parsed = RankLinear::parse(b.get_ref());
                if parsed.is_none() {
                    self.err(
                        &lints::BAD_VALUE,
                        span(file, b),
                        format!("`{}` is not `N` or `A*rank+B`", b.get_ref()),
                        "write e.g. `\"1\"` or `\"2*rank+1\"`",
                    );
                }
                parsed
            });
        let byte_offset = self
            .required(&t.byte_offset, "byte_offset", space, t, at)
            .and_then(|b| self.word::<ByteOffsetRule>(file, b));
        let rank_rule = self
            .required(&t.rank_rule, "rank_rule", space, t, at)
            .map(|r| self.rule_ref(file, r));
        let scalar_rule = t.scalar_rule.as_ref().map(|r| self.rule_ref(file, r));
        let mut own = |r: &Option<S<String>>| r.as_ref().map(|r| self.rule_ref(file, r));
        let rules = LayoutRules {
            byte_offset: own(&t.byte_offset_rule),
            buffer_count: own(&t.buffer_count_rule),
            same_device: own(&t.same_device_rule),
            unsharded_member: own(&t.unsharded_member_rule),
            shard: own(&t.shard_rule),
            statistics_nnz: own(&t.statistics_nnz_rule),
        };
        let (rank_min, rank_max) = ranks?;
        match (rank_min, &t.scalar_rule) {
            (0, Some(r)) => self.err(
                &lints::BAD_VALUE,
                span(file, r),
                format!(
                    "layout `{}` allows rank 0, so no rule forbids a scalar",
                    t.name.get_ref()
                ),
                "remove `scalar_rule`, or raise the layout's lowest rank",
            ),
            (1.., None) => self.err(
                &lints::BAD_VALUE,
                at,
                format!(
                    "layout `{}` does not allow rank 0 but names no rule a scalar breaks",
                    t.name.get_ref()
                ),
                "add `scalar_rule = \"<id>\"`: the rule a rank-0 descriptor with this layout breaks (LAY-3 or the layout's own)",
            ),
            _ => {}
        }
        Some(LayoutAttrs {
            class: class?,
            rank_min,
            rank_max,
            buffers: buffers?,
            byte_offset: byte_offset?,
            rank_rule: rank_rule?,
            scalar_rule,
            rules,
        })
    }

    /// `scheme`: its flag set, storage types, the rule a wrong storage type breaks, and its
    /// parameter buffers — each resolved to the payload field holding the buffer index and
    /// the flag bit that drops it.
    fn scheme(
        &mut self,
        file: FileId,
        space: &str,
        structure: Option<StructId>,
        at: Span,
        t: &raw::Tag,
    ) -> Option<SchemeAttrs> {
        let flags = self
            .required(&t.flags, "flags", space, t, at)
            .map(|f| self.flag_set_ref(file, f));
        let storage = self
            .required(&t.storage, "storage", space, t, at)
            .map(strings);
        let storage_rule = self
            .required(&t.storage_rule, "storage_rule", space, t, at)
            .map(|r| self.rule_ref(file, r));
        let data_alias_rule = t.data_alias_rule.as_ref().map(|r| self.rule_ref(file, r));
        let padded_extent_rule = t
            .padded_extent_rule
            .as_ref()
            .map(|r| self.rule_ref(file, r));
        let mut parameters = Some(Vec::new());
        for p in t.parameters.iter().flat_map(|ps| ps.get_ref()) {
            let parameter = self.scheme_parameter(structure, flags, at, p.get_ref());
            match (&mut parameters, parameter) {
                (Some(all), Some(p)) => all.push(p),
                _ => parameters = None,
            }
        }
        Some(SchemeAttrs {
            flags: flags?,
            storage: storage?,
            storage_rule: storage_rule?,
            parameters: parameters?,
            data_alias_rule,
            padded_extent_rule,
        })
    }

    /// One parameter buffer of a scheme: `index` names a u32 field of the scheme's payload
    /// structure, `unless_flag` a bit of the scheme's flag set.
    fn scheme_parameter(
        &mut self,
        structure: Option<StructId>,
        flags: Option<FlagSetId>,
        at: Span,
        p: &raw::Parameter,
    ) -> Option<SchemeParameter> {
        let (name, field) = (p.name.get_ref(), p.index.get_ref());
        let index_field = structure.and_then(|s| {
            self.names.fields[s.index()]
                .iter()
                .position(|(n, ty)| n == field && ty == "u32")
        });
        if index_field.is_none() {
            self.err(
                &lints::UNKNOWN_REFERENCE,
                at,
                format!("parameter `{name}` names no u32 field `{field}` in the scheme's payload"),
                "name the payload field that holds the buffer index",
            );
        }
        let unless_bit = match (&p.unless_flag, flags) {
            (None, _) => Some(None),
            (Some(flag), Some(set)) => {
                let bit = self.names.flag_bits[set.index()]
                    .iter()
                    .find(|(n, _)| n == flag.get_ref())
                    .map(|(_, b)| Some(*b));
                if bit.is_none() {
                    let set_name = self.flag_set_name(set);
                    self.err(
                        &lints::UNKNOWN_FLAG_BIT,
                        at,
                        format!(
                            "`unless_flag = \"{}\"` is not a bit of `{set_name}`",
                            flag.get_ref()
                        ),
                        "name a bit of the scheme's flag set",
                    );
                }
                bit
            }
            (Some(_), None) => None,
        };
        Some(SchemeParameter {
            name: name.clone(),
            index_field: index_field?,
            unless_bit: unless_bit?,
        })
    }
}
