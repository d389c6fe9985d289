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
        ],
        Some(Role::Device) => &["memory_classes"],
        Some(Role::Scheme) => &["flags", "storage", "storage_rule", "parameters"],
        Some(Role::CombineOp) => &["legal_with"],
        Some(Role::BlockTableIndexType) => &["index_bytes"],
        Some(Role::MemoryClass | Role::CompositionRule) | None => &[],
    }
}

/// The keys the ranges of each role's space take, besides the keys every range has.
fn range_keys(role: Option<Role>) -> &'static [&'static str] {
    match role {
        Some(Role::Device) => &["memory_classes"],
        Some(Role::Layout) => &["scalar_rule"],
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
        at("flags", &t.flags),
        at("storage", &t.storage),
        at("storage_rule", &t.storage_rule),
        at("parameters", &t.parameters),
        at("legal_with", &t.legal_with),
        at("index_bytes", &t.index_bytes),
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
                Some(TagAttrs::Device {
                    memory_classes: strings(classes),
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
            Some(Role::MemoryClass | Role::CompositionRule) | None => Some(TagAttrs::None),
        }
    }

    /// The attributes of one range of `space`, by the space's role.
    pub(super) fn range_attributes(
        &mut self,
        file: FileId,
        space: &str,
        role: Option<Role>,
        r: &raw::Range,
    ) -> RangeAttributes {
        let allowed = range_keys(role);
        let written = [
            r.memory_classes
                .as_ref()
                .map(|v| ("memory_classes", v.span())),
            r.scalar_rule.as_ref().map(|v| ("scalar_rule", v.span())),
        ];
        for (key, range) in written.into_iter().flatten() {
            if !allowed.contains(&key) {
                self.not_an_attribute(Span::new(file, range), key, space, allowed, "ranges");
            }
        }
        RangeAttributes {
            memory_classes: r.memory_classes.as_ref().map(strings).unwrap_or_default(),
            scalar_rule: r.scalar_rule.as_ref().map(|s| self.rule_ref(file, s)),
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
        Some(ElementTypeAttrs {
            bits,
            kind,
            format: t.format.as_ref().map(|f| f.get_ref().clone()),
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
