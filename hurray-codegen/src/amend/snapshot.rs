//! A release record: the canonical snapshot of every fact the amendment rules compare —
//! version per axis, every tag space's ranges and allocated values (with their meaning),
//! every flag bit, every structure's framing and fields (offset, type, since, default), and
//! the placement rules. `hurray-spec release` writes one; `check` reads them all.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::*;
use crate::render::{self, Style::Canonical, width};

/// A release record (`releases/NNNN.toml`), written by `hurray-spec release`; append-only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// `[release]`: the record's place in the chain.
    pub release: ReleaseMeta,
    /// `[[axis]]`: every axis's version.
    #[serde(default)]
    pub axis: Vec<SAxis>,
    /// `[[space]]`: every tag space's ranges and allocated values.
    #[serde(default)]
    pub space: Vec<SSpace>,
    /// `[[flags]]`: every flag set's bits.
    #[serde(default)]
    pub flags: Vec<SFlagSet>,
    /// `[[structure]]`: every structure's framing and fields.
    #[serde(default)]
    pub structure: Vec<SStructure>,
    /// `[placement]`: the placement rules.
    pub placement: SPlacement,
    /// What the generated readers act on beyond the layout (rule actions, the rules each
    /// violation reports, limits, roles): absent from records written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readers: Option<super::readers::SReaders>,
}

/// `[release]` of a record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReleaseMeta {
    /// 1 for the first release, then one more per release.
    pub sequence: u32,
    /// A human label (the first release is "1.0").
    pub label: String,
    /// The previous record's fingerprint ("" for the first): the records form a chain.
    pub previous: String,
    /// SHA-256 of this record with this field empty.
    pub fingerprint: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SAxis {
    /// The axis's name.
    pub name: String,
    /// `major.minor` or `scheme`.
    pub style: String,
    /// The released version.
    pub version: String,
    /// The axis's first version.
    pub initial: String,
    /// (Scheme axes) the scheme the axis versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scheme: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SSpace {
    /// The space's name.
    pub name: String,
    /// The axis that versions its allocations.
    pub axis: String,
    /// The wire width of a value.
    pub width: String,
    /// The ranges, in order.
    pub range: Vec<SRange>,
    /// The allocated values.
    #[serde(default)]
    pub tag: Vec<STag>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SRange {
    /// The first value.
    pub from: u32,
    /// The last value (inclusive).
    pub to: u32,
    /// `invalid`, `public`, `reserved` or `private`.
    pub kind: String,
    /// A public range's tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<u8>,
    /// The structure a private value dispatches to.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub structure: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct STag {
    /// The tag value.
    pub value: u32,
    /// The value's name.
    pub name: String,
    /// The one-line meaning (`title`).
    pub meaning: String,
    /// The version that allocated the value.
    pub since: String,
    /// The version that deprecated the value.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deprecated_since: String,
    /// The value writers use instead.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub replacement: String,
    /// The space-specific attributes and selected structure: with `name`, the S2 identity.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub identity: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SFlagSet {
    /// The set's name.
    pub name: String,
    /// The axis that versions its bits.
    pub axis: String,
    /// The wire width of the flags.
    pub width: String,
    /// The allocated bits.
    #[serde(default)]
    pub bit: Vec<SBit>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SBit {
    /// The bit's index.
    pub bit: u32,
    /// The bit's name.
    pub name: String,
    /// The one-line meaning (`title`).
    pub meaning: String,
    /// The version that allocated the bit.
    pub since: String,
    /// The version that deprecated the bit.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deprecated_since: String,
    /// The bit writers use instead.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub replacement: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SStructure {
    /// The structure's name.
    pub name: String,
    /// The axis that versions its fields.
    pub axis: String,
    /// The version that introduced it.
    pub since: String,
    /// `fixed` or `length_prefixed by <structure>.<field>`.
    pub framing: String,
    /// Total size (`16`, `1+16*buffer_count`) or `var`.
    pub size: String,
    /// The values it needs from its context.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// The fields, in wire order.
    #[serde(default)]
    pub field: Vec<SField>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SField {
    /// The field's name.
    pub name: String,
    /// Offset (`4`, `20+8*rank`) or `-` after a part of data-dependent size.
    pub offset: String,
    /// Size or `var`.
    pub size: String,
    /// The field's type, canonical.
    #[serde(rename = "type")]
    pub ty: String,
    /// The repeat count.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub count: String,
    /// The version that introduced the field.
    pub since: String,
    /// The value a reader uses when the data ends before the field.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub default: String,
    /// The condition under which the field is present.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub presence: String,
    /// The checks on the field's value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
    /// The field must be zero.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reserved: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SPlacement {
    /// Every descriptor starts at a multiple of it.
    pub descriptor_alignment: u32,
    /// The path of the field giving the data alignment.
    pub data_alignment: String,
    /// The padding after a tensor's last buffer.
    pub after_last_buffer: u32,
    /// The padding after a composite's head.
    pub after_composite_head: u32,
    /// The alignment of the KV section.
    pub kv_alignment: u32,
    /// The alignment of the index.
    pub index_alignment: u32,
}

pub use super::span_index::{SpanIndex, key};

fn show(spec: &Spec, axis: AxisId, v: Version) -> String {
    spec.axis(axis).show(v)
}

/// Snapshot the current spec, with the span of every item.
pub fn of_spec(spec: &Spec) -> (Snapshot, SpanIndex) {
    let mut spans = SpanIndex::new();
    let axis = spec
        .axes
        .iter()
        .map(|a| {
            spans.insert(key::axis(&a.name), a.current_span);
            SAxis {
                name: a.name.clone(),
                style: a.style.word().to_string(),
                version: a.show(a.current),
                initial: a.show(a.initial),
                scheme: a.scheme.clone().unwrap_or_default(),
            }
        })
        .collect();
    let space = spec
        .spaces
        .iter()
        .map(|tag_space| {
            spans.insert(key::space(&tag_space.name), tag_space.span);
            let range = tag_space
                .ranges
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    spans.insert(key::range(&tag_space.name, i), r.span);
                    SRange {
                        from: r.from,
                        to: r.to,
                        kind: r.kind.word().to_string(),
                        tier: match r.kind {
                            RangeKind::Public { tier } => tier,
                            _ => None,
                        },
                        structure: r
                            .structure
                            .map(|s| spec.structure(s).name.clone())
                            .unwrap_or_default(),
                    }
                })
                .collect();
            let tag = tag_space
                .tags
                .iter()
                .map(|t| {
                    spans.insert(key::tag(&tag_space.name, t.value), t.span);
                    STag {
                        value: t.value,
                        name: t.name.clone(),
                        meaning: t.title.clone(),
                        since: show(spec, tag_space.axis, t.since),
                        deprecated_since: t
                            .deprecated
                            .as_ref()
                            .map(|d| show(spec, tag_space.axis, d.since))
                            .unwrap_or_default(),
                        replacement: t
                            .deprecated
                            .as_ref()
                            .and_then(|d| d.replacement.clone())
                            .unwrap_or_default(),
                        identity: render::attributes(spec, t, Canonical),
                    }
                })
                .collect();
            SSpace {
                name: tag_space.name.clone(),
                axis: spec.axis(tag_space.axis).name.clone(),
                width: width(tag_space.width),
                range,
                tag,
            }
        })
        .collect();
    let flags = spec
        .flag_sets
        .iter()
        .map(|flag_set| {
            spans.insert(key::flags(&flag_set.name), flag_set.span);
            let bit = flag_set
                .bits
                .iter()
                .map(|b| {
                    spans.insert(key::bit(&flag_set.name, b.bit), b.span);
                    SBit {
                        bit: b.bit,
                        name: b.name.clone(),
                        meaning: b.title.clone(),
                        since: show(spec, flag_set.axis, b.since),
                        deprecated_since: b
                            .deprecated
                            .as_ref()
                            .map(|d| show(spec, flag_set.axis, d.since))
                            .unwrap_or_default(),
                        replacement: b
                            .deprecated
                            .as_ref()
                            .and_then(|d| d.replacement.clone())
                            .unwrap_or_default(),
                    }
                })
                .collect();
            SFlagSet {
                name: flag_set.name.clone(),
                axis: spec.axis(flag_set.axis).name.clone(),
                width: width(flag_set.width),
                bit,
            }
        })
        .collect();
    let structure = spec
        .structures
        .iter()
        .map(|st| {
            spans.insert(key::structure(&st.name), st.span);
            let field = st
                .fields
                .iter()
                .map(|f| {
                    spans.insert(key::field(&st.name, &f.name), f.span);
                    SField {
                        name: f.name.clone(),
                        offset: match &f.position {
                            Position::Offset(a) => a.to_string(),
                            Position::Sequential => "-".to_string(),
                        },
                        size: f.size.as_ref().map_or("var".to_string(), |z| z.to_string()),
                        ty: render::field_type(spec, st, f, Canonical),
                        count: render::count(st, f),
                        since: show(spec, st.axis, f.since),
                        default: f
                            .default
                            .as_ref()
                            .map(|d| render::default(st, d, Canonical))
                            .unwrap_or_default(),
                        presence: match &f.presence {
                            Presence::Always => String::new(),
                            Presence::If(c) => render::condition(spec, c, Canonical),
                        },
                        checks: f
                            .checks
                            .iter()
                            .filter(|c| !(f.reserved && c.kind == CheckKind::Equals(Lit::Int(0))))
                            .map(|c| render::check(spec, st, c, Canonical))
                            .collect(),
                        reserved: f.reserved,
                    }
                })
                .collect();
            SStructure {
                name: st.name.clone(),
                axis: spec.axis(st.axis).name.clone(),
                since: show(spec, st.axis, st.since),
                framing: match &st.framing {
                    Framing::Fixed => "fixed".to_string(),
                    Framing::LengthPrefixed { by_field, .. } => {
                        format!("length_prefixed by {}", by_field.text)
                    }
                },
                size: st
                    .size
                    .as_ref()
                    .map_or("var".to_string(), |z| z.to_string()),
                params: st.params.clone(),
                field,
            }
        })
        .collect();
    let p = &spec.placement;
    let placement = SPlacement {
        descriptor_alignment: p.descriptor_alignment,
        data_alignment: p.data_alignment.text.clone(),
        after_last_buffer: p.after_last_buffer,
        after_composite_head: p.after_composite_head,
        kv_alignment: p.kv_alignment,
        index_alignment: p.index_alignment,
    };
    let readers = Some(super::readers::of_spec(spec, &mut spans));
    (
        Snapshot {
            release: ReleaseMeta::default(),
            axis,
            space,
            flags,
            structure,
            placement,
            readers,
        },
        spans,
    )
}

impl Snapshot {
    /// The record's canonical TOML text.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# Release record {} ({}), written by `hurray-spec release`. Append-only: never edit it;\n# `hurray-spec check` verifies its fingerprint and its link to the previous record.\n{body}",
            self.release.sequence, self.release.label
        )
    }

    /// SHA-256 of the record with its fingerprint blank.
    pub fn compute_fingerprint(&self) -> String {
        let mut copy = self.clone();
        copy.release.fingerprint = String::new();
        let text = toml::to_string(&copy).unwrap_or_default();
        let digest = Sha256::digest(text.as_bytes());
        format!(
            "sha256:{}",
            digest
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        )
    }

    /// Seal as record `sequence` after `previous` (the last record's fingerprint).
    pub fn seal(mut self, sequence: u32, label: &str, previous: &str) -> Snapshot {
        self.release = ReleaseMeta {
            sequence,
            label: label.to_string(),
            previous: previous.to_string(),
            fingerprint: String::new(),
        };
        self.release.fingerprint = self.compute_fingerprint();
        self
    }

    pub fn axis(&self, name: &str) -> Option<&SAxis> {
        self.axis.iter().find(|a| a.name == name)
    }
    /// The version the record declares on an axis, read in the axis's style.
    pub fn version(&self, axis: &str) -> Option<(AxisStyle, Version)> {
        let a = self.axis(axis)?;
        let style = AxisStyle::from_word(&a.style)?;
        Some((style, style.parse(&a.version).ok()?))
    }
    pub fn space(&self, name: &str) -> Option<&SSpace> {
        self.space.iter().find(|a| a.name == name)
    }
    pub fn flag_set(&self, name: &str) -> Option<&SFlagSet> {
        self.flags.iter().find(|a| a.name == name)
    }
    pub fn structure(&self, name: &str) -> Option<&SStructure> {
        self.structure.iter().find(|a| a.name == name)
    }
}
