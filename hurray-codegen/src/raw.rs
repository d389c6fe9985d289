//! The raw serde mirror of the spec files: exactly what the TOML says, with the span of every
//! value kept for diagnostics. Nothing here is validated beyond the TOML schema itself
//! (`deny_unknown_fields` catches misspelt keys); `lower` turns it into the typed model.

use std::collections::BTreeMap;

use serde::Deserialize;
pub use toml::Spanned;

/// A spanned value.
pub type S<T> = Spanned<T>;

/// `spec.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    pub spec: S<SpecMeta>,
    /// `[roles]`: the space that plays each role the tools give meaning to (role → space name).
    pub roles: S<BTreeMap<String, S<String>>>,
    #[serde(default)]
    pub axis: Vec<S<Axis>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecMeta {
    pub title: S<String>,
    pub status: S<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    pub name: S<String>,
    pub title: S<String>,
    pub style: S<String>,
    pub scheme: Option<S<String>>,
    pub initial: S<toml::Value>,
    pub current: S<toml::Value>,
    pub major: Option<S<String>>,
    pub minor: S<String>,
    pub reject: Option<S<AxisReject>>,
    pub resolution: Option<S<toml::Value>>,
}

/// The rules a major version outside the reader's breaks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisReject {
    pub major_too_high: S<String>,
    pub major_too_low: S<String>,
}

/// `tags/<space>.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagFile {
    pub space: S<Space>,
    #[serde(default)]
    pub tag: Vec<S<Tag>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Space {
    pub name: S<String>,
    pub title: S<String>,
    pub width: S<String>,
    pub axis: S<String>,
    pub ranges: Vec<S<Range>>,
    pub reject: S<Reject>,
    pub resolution: Option<S<toml::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reject {
    pub invalid: S<String>,
    pub unknown: S<String>,
    pub private: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub from: S<i64>,
    pub to: S<i64>,
    pub kind: S<String>,
    pub tier: Option<S<i64>>,
    pub structure: Option<S<String>>,
    /// (device) memory classes valid on a private device.
    pub memory_classes: Option<S<Vec<S<String>>>>,
    /// (layout) the rule rank 0 breaks under a private layout.
    pub scalar_rule: Option<S<String>>,
    pub note: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tag {
    pub value: S<i64>,
    pub name: S<String>,
    pub title: S<String>,
    pub since: Option<S<toml::Value>>,
    pub deprecated_since: Option<S<toml::Value>>,
    pub replacement: Option<S<String>>,
    pub deprecated: Option<S<bool>>,
    pub structure: Option<S<String>>,
    pub tier: Option<S<i64>>,
    pub resolution: Option<S<toml::Value>>,
    // The attributes of the space's role, each read by that role's decoder (lower/attributes.rs).
    // element_type
    pub bits: Option<S<i64>>,
    pub kind: Option<S<String>>,
    pub format: Option<S<String>>,
    pub bias: Option<S<i64>>,
    pub packing: Option<S<String>>,
    // layout
    pub class: Option<S<String>>,
    pub rank: Option<S<Vec<S<i64>>>>,
    pub buffers: Option<S<String>>,
    pub byte_offset: Option<S<String>>,
    pub rank_rule: Option<S<String>>,
    pub scalar_rule: Option<S<String>>,
    // device
    pub memory_classes: Option<S<Vec<S<String>>>>,
    // scheme
    pub flags: Option<S<String>>,
    pub storage: Option<S<Vec<S<String>>>>,
    pub storage_rule: Option<S<String>>,
    pub parameters: Option<S<Vec<S<Parameter>>>>,
    // combine_op
    pub legal_with: Option<S<Vec<S<String>>>>,
    // block_table_index_type
    pub index_bytes: Option<S<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    pub name: S<String>,
    pub index: S<String>,
    pub unless_flag: Option<S<String>>,
}

/// `flags/*.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagsFile {
    pub flags: Vec<S<FlagSet>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagSet {
    pub name: S<String>,
    pub title: S<String>,
    pub width: S<String>,
    pub axis: S<String>,
    pub unknown_bits: S<String>,
    pub rule: S<String>,
    pub resolution: Option<S<toml::Value>>,
    #[serde(default)]
    pub bit: Vec<S<Bit>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bit {
    pub bit: S<i64>,
    pub name: S<String>,
    pub title: S<String>,
    pub since: Option<S<toml::Value>>,
    pub deprecated_since: Option<S<toml::Value>>,
    pub deprecated: Option<S<bool>>,
    pub replacement: Option<S<String>>,
    pub resolution: Option<S<toml::Value>>,
}

/// `structures/*.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructFile {
    #[serde(default)]
    pub structure: Vec<S<Structure>>,
    pub placement: Option<S<Placement>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Structure {
    pub name: S<String>,
    pub title: S<String>,
    pub axis: S<String>,
    pub since: Option<S<toml::Value>>,
    pub framing: S<toml::Value>,
    pub size: Option<S<i64>>,
    #[serde(default)]
    pub params: Vec<S<String>>,
    #[serde(rename = "let", default)]
    pub bindings: BTreeMap<String, S<String>>,
    pub depth_limit: Option<S<DepthLimit>>,
    /// Where a file reader finds the structure: `start` (offset 0) or `end` (its last bytes).
    pub at: Option<S<String>>,
    #[serde(default)]
    pub rules: Vec<S<String>>,
    pub resolution: Option<S<toml::Value>>,
    pub note: Option<S<String>>,
    #[serde(default)]
    pub field: Vec<S<Field>>,
}

/// `depth_limit = { levels = 8, rule = "TL-6" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepthLimit {
    pub levels: S<i64>,
    pub rule: S<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    pub name: S<String>,
    #[serde(rename = "type")]
    pub ty: S<String>,
    pub count: Option<S<toml::Value>>,
    pub offset: Option<S<toml::Value>>,
    pub on: Option<S<String>>,
    pub since: Option<S<toml::Value>>,
    pub default: Option<S<toml::Value>>,
    pub present_if: Option<S<Condition>>,
    pub check: Option<S<toml::Value>>,
    pub reserved: Option<S<bool>>,
    /// For an integer field: the earlier tag field whose value's flag set gives its bits
    /// meaning (a scheme's flags in the shared quantization header).
    pub flags_of: Option<S<String>>,
    /// For an unsigned integer field: the structure found at the absolute file offset the
    /// field holds (0 locates nothing).
    pub locates: Option<S<String>>,
    pub rule: Option<S<String>>,
    pub resolution: Option<S<toml::Value>>,
    pub title: Option<S<String>>,
    pub note: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    pub field: S<String>,
    pub equals: Option<S<i64>>,
    pub not_equals: Option<S<i64>>,
    pub has_bit: Option<S<String>>,
    pub lacks_bit: Option<S<String>>,
}

/// One check. Checks are read from a `toml::Value` (a table, or each table of a list), so
/// their parts carry no spans of their own; diagnostics point at the whole `check`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub bytes: Option<String>,
    pub equals: Option<toml::Value>,
    pub not_equals: Option<toml::Value>,
    pub min: Option<toml::Value>,
    pub max: Option<toml::Value>,
    pub range: Option<Vec<toml::Value>>,
    pub one_of: Option<Vec<toml::Value>>,
    pub power_of_two: Option<bool>,
    pub multiple_of: Option<i64>,
    pub less_than: Option<String>,
    pub same_as: Option<String>,
    pub finite: Option<bool>,
    pub nonzero: Option<bool>,
    pub when: Option<PlainCondition>,
    pub rule: Option<String>,
    pub level: Option<String>,
}

/// A condition inside a check.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlainCondition {
    pub field: String,
    pub equals: Option<i64>,
    pub not_equals: Option<i64>,
    pub has_bit: Option<String>,
    pub lacks_bit: Option<String>,
}

impl PlainCondition {
    /// The spanned form, every part carrying `span`.
    pub fn spanned(&self, span: std::ops::Range<usize>) -> S<Condition> {
        let s = |v| S::new(span.clone(), v);
        S::new(
            span.clone(),
            Condition {
                field: s(self.field.clone()),
                equals: self.equals.map(|v| S::new(span.clone(), v)),
                not_equals: self.not_equals.map(|v| S::new(span.clone(), v)),
                has_bit: self.has_bit.clone().map(s),
                lacks_bit: self.lacks_bit.clone().map(|v| S::new(span.clone(), v)),
            },
        )
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub axis: S<String>,
    pub descriptor_alignment: S<i64>,
    pub data_alignment: S<String>,
    pub after_last_buffer: S<i64>,
    pub after_composite_head: S<i64>,
    pub kv_alignment: S<i64>,
    pub index_alignment: S<i64>,
    pub trailer: S<String>,
    pub padding: S<String>,
    pub resolution: Option<S<toml::Value>>,
    #[serde(default)]
    pub rules: Vec<S<String>>,
}

/// `rules/*.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    #[serde(default)]
    pub rule: Vec<S<Rule>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: S<String>,
    pub code: S<String>,
    pub text: S<String>,
    pub source: S<String>,
    pub actor: S<String>,
    pub action: S<String>,
    pub enforced_by: S<String>,
    pub resolution: Option<S<toml::Value>>,
    /// Ids the seeds give the rule (`CD3`, `W1`), when it restates one of theirs.
    #[serde(default)]
    pub seed: Vec<S<String>>,
    /// What else enforces the rule, beside `enforced_by`.
    #[serde(default)]
    pub also_enforced_by: Vec<S<String>>,
    /// Amendment lints that enforce the rule, beside those the lint registry files under it.
    #[serde(default)]
    pub lints: Vec<S<String>>,
    /// Why no software can enforce or observe the rule (with `enforced_by = "none"`).
    pub unenforceable: Option<S<String>>,
    /// Why the rule exists, where a source states it (with `rationale_source`).
    pub rationale: Option<S<String>>,
    /// Where the rationale is stated (`adr-019 § Alternatives Considered`).
    pub rationale_source: Option<S<String>>,
}

/// `resolutions.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolutionsFile {
    #[serde(default)]
    pub resolution: Vec<S<Resolution>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    pub id: S<String>,
    pub point: S<String>,
    pub decision: S<String>,
    pub source: Option<S<String>>,
    #[serde(default)]
    pub governs: Vec<S<String>>,
}
