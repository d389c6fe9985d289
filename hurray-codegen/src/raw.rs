//! The raw serde mirror of the spec files: exactly what the TOML says, with the span of every
//! value kept for diagnostics. Nothing here is validated beyond the TOML schema itself
//! (`deny_unknown_fields` catches misspelt keys); `lower` turns it into the typed model.
//!
//! With the `schema` feature the same types derive a JSON Schema (`hurray-spec schema`): every
//! doc comment on a key becomes the description an editor shows on hover, and every
//! `deny_unknown_fields` becomes `additionalProperties: false`, so a misspelt key is flagged
//! while typing. A key read as a free TOML value (a version, a check, a default) names the
//! shape it takes for the schema with `schemars(with = …)`, one of the `shape` types.

use std::collections::BTreeMap;

use serde::Deserialize;

pub mod migration;

/// A value with the byte range of the TOML text it was read from: `toml`'s span wrapper,
/// transparent to serde and, with the `schema` feature, to the JSON Schema (a spanned
/// string is a string).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(transparent)]
pub struct S<T>(toml::Spanned<T>);

impl<T> S<T> {
    /// `value`, read from the bytes `span` of its file.
    pub fn new(span: std::ops::Range<usize>, value: T) -> Self {
        S(toml::Spanned::new(span, value))
    }

    /// The byte range of the value's TOML text.
    pub fn span(&self) -> std::ops::Range<usize> {
        self.0.span()
    }

    /// The value.
    pub fn get_ref(&self) -> &T {
        self.0.get_ref()
    }

    /// The value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_mut()
    }

    /// The value, without its span.
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

#[cfg(feature = "schema")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for S<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// `spec.toml`: the spec's status, the roles of its tag spaces and its version axes.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// `[spec]`: the format's name and whether it has been released.
    pub spec: S<SpecMeta>,
    /// `[roles]`: the space that plays each role the tools give meaning to (role → space name).
    pub roles: S<BTreeMap<String, S<String>>>,
    /// `[[axis]]`: the version axes (the version registry), one per versioned part.
    #[serde(default)]
    pub axis: Vec<S<Axis>>,
}

/// `[spec]` of `spec.toml`.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SpecMeta {
    /// The format's name.
    pub title: S<String>,
    /// `"draft"` (no stable release yet; bump rules do not apply) or `"released"` (every
    /// change is classified against `releases/`).
    pub status: S<String>,
}

/// `[[axis]]` of `spec.toml`: one version axis.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// `descriptor`, `container`, or `scheme.<scheme name>`.
    pub name: S<String>,
    /// What the axis versions.
    pub title: S<String>,
    /// `"major.minor"`, or `"scheme"` (the scheme's `scheme_version` byte, RES-6).
    pub style: S<String>,
    /// (Scheme axes) the scheme tag name the axis versions.
    pub scheme: Option<S<String>>,
    /// The first released version ("1.0"; scheme version 1).
    #[cfg_attr(feature = "schema", schemars(with = "shape::Version"))]
    pub initial: S<toml::Value>,
    /// The version this spec defines; after a release, the amendment's declared version.
    #[cfg_attr(feature = "schema", schemars(with = "shape::Version"))]
    pub current: S<toml::Value>,
    /// The `structure.field` path of the field that carries the major version.
    pub major: Option<S<String>>,
    /// The `structure.field` path of the field that carries the minor version.
    pub minor: S<String>,
    /// The rules a major version outside the reader's breaks.
    pub reject: Option<S<AxisReject>>,
    /// Resolution ids (`RES-n`) that govern the axis: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
}

/// The rules a major version outside the reader's breaks.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AxisReject {
    /// The rule id a major above the reader's breaks.
    pub major_too_high: S<String>,
    /// The rule id a major below the reader's breaks.
    pub major_too_low: S<String>,
}

/// `tags/<space>.toml`: one tag space and every allocated value.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TagFile {
    /// `[space]`: the space's width, axis and ranges.
    pub space: S<Space>,
    /// `[[tag]]`: one per allocated value.
    #[serde(default)]
    pub tag: Vec<S<Tag>>,
}

/// `[space]` of a tag space file.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Space {
    /// The space's identifier.
    pub name: S<String>,
    /// The space's display name.
    pub title: S<String>,
    /// `u8`, `u16` or `u32`: the wire width of a tag value.
    pub width: S<String>,
    /// The axis on which allocations are versioned (their `since`).
    pub axis: S<String>,
    /// Ranges covering every value of the width exactly once, in order.
    pub ranges: Vec<S<Range>>,
    /// The rules an invalid, unknown or private value breaks.
    pub reject: S<Reject>,
    /// Resolution ids (`RES-n`) that govern the space: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
    /// `[space.default]`: the generic rule of each rule choice of the space's role, which a
    /// value that names no rule of its own for the choice takes.
    pub default: Option<S<SpaceDefault>>,
    /// The value that stands where the format leaves this space's value unsaid (an empty
    /// list of memory classes means STANDARD, IX-14; a rule that names no `answer` is
    /// answered with INVALID_MESSAGE, RES-69): a tag's name.
    pub default_tag: Option<S<String>>,
}

/// `[space.default]` of a tag space: the generic rules of its role's rule choices (layout:
/// `byte_offset_rule`, `buffer_count_rule`, `same_device_rule`, `unsharded_member_rule`;
/// scheme: `data_alias_rule`). A value's own key of the same name overrides the default.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SpaceDefault {
    /// (layout) The rule a `byte_offset` outside its bound breaks, by the layout's
    /// `byte_offset`: `{ bounded = "OFS-1", zero = "OFS-2" }`.
    pub byte_offset_rule: Option<S<ByteOffsetRules>>,
    /// (layout) The rule a `buffer_count` other than the layout's breaks, by whether the
    /// descriptor is quantized: `{ unquantized = "BUF-3", quantized = "BUF-4" }`.
    pub buffer_count_rule: Option<S<BufferCountRules>>,
    /// (layout) The rule a buffer whose device or memory class differs from buffer 0's
    /// breaks, by whether it is a quantization parameter buffer:
    /// `{ buffer = "BH-14", parameter_buffer = "P4" }`.
    pub same_device_rule: Option<S<SameDeviceRules>>,
    /// (layout) The rule a member of a partition or overlay composite without a shard section
    /// breaks.
    pub unsharded_member_rule: Option<S<String>>,
    /// (scheme) The rule a parameter buffer index naming the data buffer (index 0) breaks.
    pub data_alias_rule: Option<S<String>>,
}

impl SpaceDefault {
    /// The same rules, every one located at `span` (a default completed from another file).
    pub fn at(&self, span: std::ops::Range<usize>) -> SpaceDefault {
        let rule = |r: &S<String>| S::new(span.clone(), r.get_ref().clone());
        let opt = |r: &Option<S<String>>| r.as_ref().map(rule);
        SpaceDefault {
            byte_offset_rule: self.byte_offset_rule.as_ref().map(|b| {
                let b = b.get_ref();
                S::new(
                    span.clone(),
                    ByteOffsetRules {
                        bounded: rule(&b.bounded),
                        zero: rule(&b.zero),
                    },
                )
            }),
            buffer_count_rule: self.buffer_count_rule.as_ref().map(|b| {
                let b = b.get_ref();
                S::new(
                    span.clone(),
                    BufferCountRules {
                        unquantized: rule(&b.unquantized),
                        quantized: rule(&b.quantized),
                    },
                )
            }),
            same_device_rule: self.same_device_rule.as_ref().map(|b| {
                let b = b.get_ref();
                S::new(
                    span.clone(),
                    SameDeviceRules {
                        buffer: rule(&b.buffer),
                        parameter_buffer: rule(&b.parameter_buffer),
                    },
                )
            }),
            unsharded_member_rule: opt(&self.unsharded_member_rule),
            data_alias_rule: opt(&self.data_alias_rule),
        }
    }
}

/// The default `byte_offset_rule` of a layout space, by what bounds `byte_offset`.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ByteOffsetRules {
    /// The rule of a layout with `byte_offset = "bounded"`: an offset past buffer 0's size.
    pub bounded: S<String>,
    /// The rule of a layout with `byte_offset = "zero"`: a non-zero offset.
    pub zero: S<String>,
}

/// The default `buffer_count_rule` of a layout space, by whether the descriptor is quantized.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BufferCountRules {
    /// The rule of an unquantized descriptor.
    pub unquantized: S<String>,
    /// The rule of a quantized descriptor (the layout's buffers plus its parameter buffers).
    pub quantized: S<String>,
}

/// The default `same_device_rule` of a layout space, by the buffer that differs.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SameDeviceRules {
    /// The rule of a buffer that is no quantization parameter buffer.
    pub buffer: S<String>,
    /// The rule of a quantization parameter buffer.
    pub parameter_buffer: S<String>,
}

/// `reject` of a tag space: the rule each kind of unaccepted value reports.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Reject {
    /// The rule a value of an `invalid` range breaks.
    pub invalid: S<String>,
    /// The rule an unallocated public or reserved value breaks.
    pub unknown: S<String>,
    /// The rule a private value breaks where private values are not accepted.
    pub private: Option<S<String>>,
}

/// One range of a tag space.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// The first value of the range.
    pub from: S<i64>,
    /// The last value of the range (inclusive).
    pub to: S<i64>,
    /// `invalid`, `public`, `reserved` or `private`.
    pub kind: S<String>,
    /// The tier label of a public range.
    pub tier: Option<S<i64>>,
    /// (A private range) the structure a private value dispatches to.
    pub structure: Option<S<String>>,
    /// (device) memory classes valid on a private device.
    pub memory_classes: Option<S<Vec<S<String>>>>,
    /// (layout) the rule rank 0 breaks under a private layout.
    pub scalar_rule: Option<S<String>>,
    /// (layout) the rule a private layout's buffer count breaks (fewer than one buffer);
    /// required on a private range.
    pub buffer_count_rule: Option<S<String>>,
    /// A remark.
    pub note: Option<S<String>>,
}

/// `[[tag]]`: one allocated value of a tag space, with the attributes of the space's role.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Tag {
    /// The tag value; it must lie in a `public` range.
    pub value: S<i64>,
    /// The value's identifier (snake_case).
    pub name: S<String>,
    /// The one-line meaning.
    pub title: S<String>,
    /// The version of the space's axis that allocated the value.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Version>"))]
    pub since: Option<S<toml::Value>>,
    /// (S3) The version that deprecated the value; it keeps its meaning (R3).
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Version>"))]
    pub deprecated_since: Option<S<toml::Value>>,
    /// (S3) The name of the value writers use instead (W3).
    pub replacement: Option<S<String>>,
    /// `true`: deprecated; S3 also needs `deprecated_since`.
    pub deprecated: Option<S<bool>>,
    /// (Layout, scheme, KV value) the structure the value selects; absent means empty.
    pub structure: Option<S<String>>,
    /// Overrides the tier of the value's range (RES-18).
    pub tier: Option<S<i64>>,
    /// Resolution ids (`RES-n`) that govern the value: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
    // The attributes of the space's role, each read by that role's decoder (lower/attributes.rs).
    /// (element_type) The bit width of one element.
    pub bits: Option<S<i64>>,
    /// (element_type) `float`, `signed`, `unsigned`, `bool`, `scale` or `complex`.
    pub kind: Option<S<String>>,
    /// (element_type) Sign-exponent-mantissa bits, `"1-8-23"`.
    pub format: Option<S<String>>,
    /// (element_type) The exponent bias.
    pub bias: Option<S<i64>>,
    /// (element_type) `none` (default), `lsb_first` or `group_4_in_3`.
    pub packing: Option<S<String>>,
    /// (layout) `dense`, `sparse`, `indirect` or `virtual`.
    pub class: Option<S<String>>,
    /// (layout) `[min, max]`: the ranks the layout allows.
    pub rank: Option<S<Vec<S<i64>>>>,
    /// (layout) The buffer count before quantization buffers: an integer or `a*rank+b`.
    pub buffers: Option<S<String>>,
    /// (layout) `bounded` (OFS-1) or `zero` (OFS-2).
    pub byte_offset: Option<S<String>>,
    /// (layout) The rule a rank outside `rank` breaks.
    pub rank_rule: Option<S<String>>,
    /// (layout) The rule rank 0 breaks; present exactly when `rank` starts above 0.
    pub scalar_rule: Option<S<String>>,
    /// (layout) The rule a `byte_offset` outside its bound breaks, instead of the space's
    /// default for the layout's `byte_offset`.
    pub byte_offset_rule: Option<S<String>>,
    /// (layout) The rule a `buffer_count` other than the layout's breaks, quantized or not,
    /// instead of the space's default.
    pub buffer_count_rule: Option<S<String>>,
    /// (layout) The rule a buffer whose device or memory class differs from buffer 0's
    /// breaks, parameter buffers included, instead of the space's default.
    pub same_device_rule: Option<S<String>>,
    /// (layout) The rule a partition or overlay member with this layout and no shard section
    /// breaks, instead of the space's default.
    pub unsharded_member_rule: Option<S<String>>,
    /// (layout) The rule a shard section breaks: present exactly when the layout forbids one.
    pub shard_rule: Option<S<String>>,
    /// (layout) The rule a statistics section's nnz (NNZ_VALID set) other than the layout's
    /// nnz breaks: present exactly when the layout counts its stored values.
    pub statistics_nnz_rule: Option<S<String>>,
    /// (device) The memory classes valid on the device (BH-13).
    pub memory_classes: Option<S<Vec<S<String>>>>,
    /// (device, message_type) The least `alignment` a non-empty buffer declares when it is
    /// transferred to this device, or on the transfer path this message begins (IX-92): a
    /// power of two.
    pub transfer_alignment: Option<S<i64>>,
    /// (scheme) The scheme's flag set (`flags/schemes.toml`).
    pub flags: Option<S<String>>,
    /// (scheme) The element types the scheme may quantize.
    pub storage: Option<S<Vec<S<String>>>>,
    /// (scheme) The rule a payload breaks when its type tag is not in `storage`.
    pub storage_rule: Option<S<String>>,
    /// (scheme) The rule a parameter buffer index naming the data buffer breaks, instead of
    /// the space's default.
    pub data_alias_rule: Option<S<String>>,
    /// (scheme) The rule a row- or column-major data buffer breaks that holds the elements but
    /// not their padded extent (RES-38): present exactly when the scheme pads its axis to
    /// whole blocks.
    pub padded_extent_rule: Option<S<String>>,
    /// (scheme) The parameter buffers: `{ name, index, unless_flag? }`.
    pub parameters: Option<S<Vec<S<Parameter>>>>,
    /// (combine_op) The composition rules the operation may appear with.
    pub legal_with: Option<S<Vec<S<String>>>>,
    /// (composition_rule) The rule a head breaks whose `combine_op` is not legal with the
    /// composition rule.
    pub combine_op_rule: Option<S<String>>,
    /// (block_table_index_type) The byte width of one index.
    pub index_bytes: Option<S<i64>>,
    /// (message_type) Which side sends it: `client`, `server`, `either`, `source` (the side
    /// that sends the tensor's bytes) or `destination` (the side that receives them).
    pub sender: Option<S<String>>,
}

impl Tag {
    /// The rule choices a tag may name, mutably, each with its key: what an archive written
    /// before they were table keys is completed with (`load::RawSpec::complete_from`).
    pub fn rule_choices_mut(&mut self) -> [(&'static str, &mut Option<S<String>>); 9] {
        [
            ("byte_offset_rule", &mut self.byte_offset_rule),
            ("buffer_count_rule", &mut self.buffer_count_rule),
            ("same_device_rule", &mut self.same_device_rule),
            ("unsharded_member_rule", &mut self.unsharded_member_rule),
            ("shard_rule", &mut self.shard_rule),
            ("statistics_nnz_rule", &mut self.statistics_nnz_rule),
            ("data_alias_rule", &mut self.data_alias_rule),
            ("padded_extent_rule", &mut self.padded_extent_rule),
            ("combine_op_rule", &mut self.combine_op_rule),
        ]
    }
}

/// One parameter buffer of a scheme.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// The parameter's name.
    pub name: S<String>,
    /// A `u32` field every version of the scheme's payload has, holding the buffer index.
    pub index: S<String>,
    /// A bit of the scheme's flag set that drops the parameter.
    pub unless_flag: Option<S<String>>,
}

/// `flags/*.toml`: flag sets and their bits.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FlagsFile {
    /// `[[flags]]`: one flag set.
    pub flags: Vec<S<FlagSet>>,
}

/// `[[flags]]`: one flag set.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FlagSet {
    /// The set's identifier.
    pub name: S<String>,
    /// The set's display name.
    pub title: S<String>,
    /// `u16` or `u32`: the wire width of the flags.
    pub width: S<String>,
    /// The axis on which bits are versioned (their `since`).
    pub axis: S<String>,
    /// `"reject"`: every bit not listed is reserved; readers reject data that sets it.
    pub unknown_bits: S<String>,
    /// The rule an unknown bit breaks.
    pub rule: S<String>,
    /// Resolution ids (`RES-n`) that govern the set: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
    /// `[[flags.bit]]`: one per allocated bit.
    #[serde(default)]
    pub bit: Vec<S<Bit>>,
}

/// `[[flags.bit]]`: one allocated bit.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Bit {
    /// The bit's index, 0 = least significant.
    pub bit: S<i64>,
    /// The bit's identifier (UPPER_SNAKE).
    pub name: S<String>,
    /// The one-line meaning.
    pub title: S<String>,
    /// The version of the set's axis that allocated the bit.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Version>"))]
    pub since: Option<S<toml::Value>>,
    /// (S3) The version that deprecated the bit.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Version>"))]
    pub deprecated_since: Option<S<toml::Value>>,
    /// `true`: deprecated; S3 also needs `deprecated_since`.
    pub deprecated: Option<S<bool>>,
    /// (S3) The name of the bit writers use instead.
    pub replacement: Option<S<String>>,
    /// Resolution ids (`RES-n`) that govern the bit: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
    /// Bits of the same set this bit is only valid with, and the rule a set that has this
    /// bit without them breaks: `{ bits = ["RDMA_DATA_PLANE"], rule = "IX-13" }`.
    pub requires: Option<S<Requires>>,
}

/// `requires` of a flag bit.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// The names of the bits that must be set with it.
    pub bits: S<Vec<S<String>>>,
    /// The rule a set with the bit and without one of them breaks.
    pub rule: S<String>,
}

/// `structures/*.toml`: structures field by field, and the placement arithmetic.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StructFile {
    /// `[[structure]]`: one structure.
    #[serde(default)]
    pub structure: Vec<S<Structure>>,
    /// `[placement]`: the placement arithmetic of the file's tensor region.
    pub placement: Option<S<Placement>>,
}

/// `[[structure]]`: one structure.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Structure {
    /// The structure's identifier.
    pub name: S<String>,
    /// The structure's display name.
    pub title: S<String>,
    /// The axis that versions the structure's fields.
    pub axis: S<String>,
    /// The version that introduced the structure.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Version>"))]
    pub since: Option<S<toml::Value>>,
    /// `"fixed"` (nothing may ever be appended, S6) or `{ length_prefixed =
    /// "<structure>.<field>", covers = "whole", rule = "<id>" }` (fields may be appended).
    #[cfg_attr(feature = "schema", schemars(with = "shape::Framing"))]
    pub framing: S<toml::Value>,
    /// The total byte size of a fixed-size structure, checked against its fields.
    pub size: Option<S<i64>>,
    /// Values the structure needs from its context (`rank`, `buffer_count`).
    #[serde(default)]
    pub params: Vec<S<String>>,
    /// `{ name = "path" }`: values this structure binds for the structures inside it.
    #[serde(rename = "let", default)]
    pub bindings: BTreeMap<String, S<String>>,
    /// For a structure that contains itself: the maximum nesting (TL-6).
    pub depth_limit: Option<S<DepthLimit>>,
    /// Where a file reader finds the structure: `start` (offset 0) or `end` (its last bytes).
    pub at: Option<S<String>>,
    /// Ids of the runtime-enforced rules that govern the structure.
    #[serde(default)]
    pub rules: Vec<S<String>>,
    /// Resolution ids (`RES-n`) that govern the structure: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
    /// A remark.
    pub note: Option<S<String>>,
    /// `[[structure.field]]`: the fields, in wire order.
    #[serde(default)]
    pub field: Vec<S<Field>>,
}

/// `depth_limit = { levels = 8, rule = "TL-6" }`.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DepthLimit {
    /// The maximum nesting.
    pub levels: S<i64>,
    /// The rule deeper nesting breaks.
    pub rule: S<String>,
}

/// `[[structure.field]]`: one field, in wire order.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The field's identifier; names starting with `_` are reserved bytes.
    pub name: S<String>,
    /// A primitive (`u8` … `f64`), `bytes`, `utf8`, `tag:<space>`, `flags:<set>`,
    /// `struct:<structure>` or `dispatch:<space>`.
    #[serde(rename = "type")]
    pub ty: S<String>,
    /// The repeat count: an integer, an earlier field, a param, or `"rest"`.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Count>"))]
    pub count: Option<S<toml::Value>>,
    /// The byte offset from the structure's start: an integer or a linear expression such as
    /// `"20+8*rank"`, checked against the fields before it.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Offset>"))]
    pub offset: Option<S<toml::Value>>,
    /// (dispatch) The path of the tag field that selects the structure.
    pub on: Option<S<String>>,
    /// The version that introduced the field (after the structure's: an appended field).
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Version>"))]
    pub since: Option<S<toml::Value>>,
    /// (S4, R4) The value a reader uses when the data ends before the field: a literal of the
    /// field's type, or `{ expr = "<field>", depends_on = ["<field>"] }`.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Default>"))]
    pub default: Option<S<toml::Value>>,
    /// The condition under which the field is present.
    pub present_if: Option<S<Condition>>,
    /// One check or a list of checks the field's value must pass.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Checks>"))]
    pub check: Option<S<toml::Value>>,
    /// `true`: must be zero; writers emit zero, readers reject anything else (RES-2).
    pub reserved: Option<S<bool>>,
    /// For an integer field: the earlier tag field whose value's flag set gives its bits
    /// meaning (a scheme's flags in the shared quantization header).
    pub flags_of: Option<S<String>>,
    /// For an unsigned integer field: the structure found at the absolute file offset the
    /// field holds (0 locates nothing).
    pub locates: Option<S<String>>,
    /// The rule a tag or flag field's rejection (or a reserved field's non-zero bytes) reports.
    pub rule: Option<S<String>>,
    /// Resolution ids (`RES-n`) that govern the field: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
    /// The field's display name.
    pub title: Option<S<String>>,
    /// A remark.
    pub note: Option<S<String>>,
}

/// `present_if`: `{ field = "<path>", equals = N }`, `not_equals`, `has_bit` or `lacks_bit`.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// The path of the field the condition reads.
    pub field: S<String>,
    /// Present when the field equals this value.
    pub equals: Option<S<i64>>,
    /// Present when the field differs from this value.
    pub not_equals: Option<S<i64>>,
    /// (A flags field) present when this bit is set.
    pub has_bit: Option<S<String>>,
    /// (A flags field) present when this bit is clear.
    pub lacks_bit: Option<S<String>>,
    /// (A tag field) present when the value lies in the one range of this kind of the
    /// field's tag space (`"private"`: an extension layout entry, RES-60).
    pub in_range: Option<S<String>>,
}

/// One check. Checks are read from a `toml::Value` (a table, or each table of a list), so
/// their parts carry no spans of their own; diagnostics point at the whole `check`.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The exact bytes, in hex.
    pub bytes: Option<String>,
    /// The value must equal this literal (or tag name).
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Literal>"))]
    pub equals: Option<toml::Value>,
    /// The value must differ from this literal (or tag name).
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Literal>"))]
    pub not_equals: Option<toml::Value>,
    /// The smallest value allowed.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Literal>"))]
    pub min: Option<toml::Value>,
    /// The largest value allowed.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::Literal>"))]
    pub max: Option<toml::Value>,
    /// `[a, b]`: the inclusive range of values allowed.
    #[cfg_attr(feature = "schema", schemars(with = "Option<Vec<shape::Literal>>"))]
    pub range: Option<Vec<toml::Value>>,
    /// The values allowed (integers or tag names).
    #[cfg_attr(feature = "schema", schemars(with = "Option<Vec<shape::Literal>>"))]
    pub one_of: Option<Vec<toml::Value>>,
    /// The value must be a power of two.
    pub power_of_two: Option<bool>,
    /// The value must be a multiple of this.
    pub multiple_of: Option<i64>,
    /// The value must be less than this param or field.
    pub less_than: Option<String>,
    /// The value must equal this param or field.
    pub same_as: Option<String>,
    /// The value must be finite (a float).
    pub finite: Option<bool>,
    /// The value must not be zero.
    pub nonzero: Option<bool>,
    /// Only check when this condition holds.
    pub when: Option<PlainCondition>,
    /// The rule a failed check reports.
    pub rule: Option<String>,
    /// `reject` (default) or `warn` (reported, not rejected).
    pub level: Option<String>,
}

/// A condition inside a check.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PlainCondition {
    /// The path of the field the condition reads.
    pub field: String,
    /// Holds when the field equals this value.
    pub equals: Option<i64>,
    /// Holds when the field differs from this value.
    pub not_equals: Option<i64>,
    /// (A flags field) holds when this bit is set.
    pub has_bit: Option<String>,
    /// (A flags field) holds when this bit is clear.
    pub lacks_bit: Option<String>,
    /// (A tag field) holds when the value lies in the one range of this kind of its space.
    pub in_range: Option<String>,
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
                in_range: self.in_range.clone().map(|v| S::new(span.clone(), v)),
            },
        )
    }
}

/// `[placement]`: the placement arithmetic of the file's tensor region.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// The axis that versions the placement rules.
    pub axis: S<String>,
    /// Every descriptor starts at a multiple of it.
    pub descriptor_alignment: S<i64>,
    /// The path of the field giving the data alignment A.
    pub data_alignment: S<String>,
    /// The padding after a tensor's last buffer (RES-3).
    pub after_last_buffer: S<i64>,
    /// The padding after a composite's head.
    pub after_composite_head: S<i64>,
    /// The alignment of the KV section.
    pub kv_alignment: S<i64>,
    /// The alignment of the index.
    pub index_alignment: S<i64>,
    /// `"last"`: the trailer is the file's final bytes.
    pub trailer: S<String>,
    /// `"zero"`: padding bytes are zero.
    pub padding: S<String>,
    /// Resolution ids (`RES-n`) that govern the placement: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
    pub resolution: Option<S<toml::Value>>,
    /// Ids of the rules that govern the placement.
    #[serde(default)]
    pub rules: Vec<S<String>>,
}

/// `rules/*.toml`: every rule by id.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// The axis the file's rules belong to where no table that names a rule says (a rule's
    /// facts move this axis's version); the axis schemes live under when absent.
    pub axis: Option<S<String>>,
    /// `[[rule]]`: one rule.
    #[serde(default)]
    pub rule: Vec<S<Rule>>,
}

/// `[[rule]]`: one rule.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The facts sheet's id (`HDR-1`, `BH-13`, `F7`) or one of ours where the sheet has none.
    pub id: S<String>,
    /// The stable kebab-case error code reported with every rejection of the rule.
    pub code: S<String>,
    /// The rule, one sentence.
    pub text: S<String>,
    /// Where it is stated (`descriptor.md §11`).
    pub source: S<String>,
    /// `reader`, `writer`, `both`, or `editor`.
    pub actor: S<String>,
    /// `reject`, `strict`, `validate`, `warn` or `obligation`.
    pub action: S<String>,
    /// `table`, `runtime`, `writer`, `structure`, `amendment`, `derive` or `none`.
    pub enforced_by: S<String>,
    /// Resolution ids (`RES-n`) that shaped the rule: one id or a list.
    #[cfg_attr(feature = "schema", schemars(with = "Option<shape::ResolutionIds>"))]
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
    /// The code a receiver answers a violation with, on a protocol that answers (`{ space =
    /// "error_code", tag = "message_too_large" }`): a tag of a code space.
    pub answer: Option<S<TagRef>>,
}

/// A tag named by its space and its name.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TagRef {
    /// The tag space (`error_code`).
    pub space: S<String>,
    /// The tag's name in it (`message_too_large`).
    pub tag: S<String>,
}

/// `resolutions.toml`: decisions where the format's text disagrees with itself.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResolutionsFile {
    /// `[[resolution]]`: one decision.
    #[serde(default)]
    pub resolution: Vec<S<Resolution>>,
}

/// `[[resolution]]`: one decision.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    /// `RES-n`.
    pub id: S<String>,
    /// What the format's text leaves open or contradicts.
    pub point: S<String>,
    /// The decision.
    pub decision: S<String>,
    /// The facts sheet item it resolves.
    pub source: Option<S<String>>,
    /// The names of what it decides.
    #[serde(default)]
    pub governs: Vec<S<String>>,
}

/// The shapes of the keys read as free TOML values (checked by `lower`), for the JSON Schema
/// only: each is what `lower` accepts, so an editor flags a value of the wrong kind.
#[cfg(feature = "schema")]
mod shape {
    use schemars::JsonSchema;

    /// A version: `"MAJOR.MINOR"` on the descriptor and container axes, a bare integer (the
    /// `scheme_version` byte) on a scheme axis (RES-6).
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum Version {
        /// `"MAJOR.MINOR"`.
        Text(String),
        /// A scheme version.
        Scheme(u8),
    }

    /// Resolution ids: one (`"RES-6"`) or a list (`["RES-3", "RES-13"]`).
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum ResolutionIds {
        /// One id.
        One(String),
        /// A list of ids.
        Many(Vec<String>),
    }

    /// `"fixed"`, or a length prefix.
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum Framing {
        /// Nothing frames the structure; nothing may ever be appended (S6).
        Fixed(FixedWord),
        /// A field gives the structure's encoded length; fields may be appended.
        LengthPrefixed(LengthPrefix),
    }

    /// The word `fixed`.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub(super) enum FixedWord {
        /// `"fixed"`.
        #[schemars(rename = "fixed")]
        Fixed,
    }

    /// `{ length_prefixed = "<structure>.<field>", covers = "whole", rule = "<id>" }`.
    #[derive(JsonSchema)]
    #[schemars(deny_unknown_fields)]
    #[allow(dead_code)]
    pub(super) struct LengthPrefix {
        /// The `structure.field` path of the field that gives the encoded length.
        length_prefixed: String,
        /// What the length covers: `"whole"` (the default), the whole structure.
        covers: Option<Covers>,
        /// The rule a read past the length breaks.
        rule: String,
    }

    /// What a length prefix covers.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    pub(super) enum Covers {
        /// The whole structure.
        #[schemars(rename = "whole")]
        Whole,
    }

    /// A repeat count: an integer, an earlier field, a param, or `"rest"`.
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum Count {
        /// A constant count.
        Constant(u64),
        /// A field, a param, or `"rest"`.
        Name(String),
    }

    /// A byte offset: an integer or a linear expression (`"20+8*rank"`).
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum Offset {
        /// A constant offset.
        Constant(u64),
        /// A linear expression.
        Expression(String),
    }

    /// A default: a literal of the field's type, or a computed default.
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum Default {
        /// An integer.
        Integer(i64),
        /// A float.
        Float(f64),
        /// A string (hex for `bytes`, a tag or bit name).
        Text(String),
        /// Another field's value.
        Computed(ComputedDefault),
    }

    /// `{ expr = "<field>", depends_on = ["<field>"] }`.
    #[derive(JsonSchema)]
    #[schemars(deny_unknown_fields)]
    #[allow(dead_code)]
    pub(super) struct ComputedDefault {
        /// The field whose value is the default.
        expr: String,
        /// The fields the default depends on.
        depends_on: Option<Vec<String>>,
    }

    /// One check or a list of checks.
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum Checks {
        /// One check.
        One(Box<super::Check>),
        /// A list of checks.
        Many(Vec<super::Check>),
    }

    /// A literal in a check: a number, a boolean, or a tag name.
    #[derive(JsonSchema)]
    #[schemars(untagged)]
    #[allow(dead_code)]
    pub(super) enum Literal {
        /// An integer.
        Integer(i64),
        /// A float.
        Float(f64),
        /// A boolean.
        Boolean(bool),
        /// A tag name.
        Text(String),
    }
}
