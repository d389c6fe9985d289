//! The typed spec model. Everything here has been resolved and checked: references are
//! indices, versions are parsed, offsets and sizes are computed. Emitters and the amendment
//! checker work on this model only.

use std::collections::BTreeMap;
use std::fmt;

use crate::source::Span;

mod ids;
pub mod roles;
pub mod shape;
pub mod words;

pub use ids::{AxisId, FlagSetId, ResolutionId, RuleId, SpaceId, StructId};
pub use roles::{Role, Roles};
pub use words::Word;
use words::words;

/// The one version type of the Hurray tools, with its parse and display (`hurray-version`).
pub use hurray_version::{AxisStyle, Version};

impl Word for AxisStyle {
    const WHAT: &'static str = "axis style";
    fn values() -> &'static [Self] {
        &AxisStyle::ALL
    }
    fn word(self) -> &'static str {
        AxisStyle::word(self)
    }
    fn meaning(self) -> &'static str {
        AxisStyle::form(self)
    }
}

words! {
    /// Whether the spec has a stable release.
    pub enum Status: "status" {
        Draft = "draft",
        Released = "released",
    }

    /// Integer widths of tags and flags (`u64`: flag sets only).
    pub enum Width: "width" {
        U8 = "u8",
        U16 = "u16",
        U32 = "u32",
        U64 = "u64",
    }

    /// What a range of a tag space is for (spec/README.md, `ranges`).
    pub enum RangeUse: "range kind" {
        Invalid = "invalid",
        Public = "public",
        Reserved = "reserved",
        Private = "private",
    }

    /// What an element type's bits mean.
    pub enum ElementKind: "element kind" {
        /// A floating-point number (IEEE or a microscaling format).
        Float = "float",
        /// A two's-complement signed integer.
        Signed = "signed",
        /// An unsigned integer.
        Unsigned = "unsigned",
        /// A truth value.
        Bool = "bool",
        /// A power-of-two scale (an exponent without mantissa).
        Scale = "scale",
        /// A complex number: a real and an imaginary float.
        Complex = "complex",
    }

    /// Which side of a connection sends a message type (`sender`, the message type role).
    pub enum Sender: "sender" {
        /// The client (it opens the connection and every stream).
        Client = "client",
        /// The server.
        Server = "server",
        /// Either side.
        Either = "either",
        /// The side that sends the tensor's bytes: the server answering a request, the
        /// client pushing (the source owner).
        Source = "source",
        /// The side that receives the tensor's bytes (the destination owner).
        Destination = "destination",
    }

    /// How sub-byte elements share bytes.
    pub enum Packing: "packing" {
        /// Whole bytes per element: nothing is packed.
        None = "none",
        /// Several elements per byte, the first in the least significant bits.
        LsbFirst = "lsb_first",
        /// Four elements in three bytes.
        Group4In3 = "group_4_in_3",
    }

    /// A layout's class.
    pub enum LayoutClass: "layout class" {
        /// Every element stored, at an address the layout computes.
        Dense = "dense",
        /// Only some elements stored, with their coordinates.
        Sparse = "sparse",
        /// Elements reached through a block table (paged storage).
        Indirect = "indirect",
        /// No storage of its own: a composite head, whose elements live in its member tensors.
        Virtual = "virtual",
    }

    /// What bounds a descriptor's `byte_offset` under a layout (OFS-1, OFS-2).
    pub enum ByteOffsetRule: "byte_offset rule" {
        Bounded = "bounded",
        Zero = "zero",
    }

    /// What a reader does with a bit no flag of the set allocates.
    pub enum UnknownBits: "unknown-bit behaviour" {
        Reject = "reject",
    }

    /// Where the file's trailer sits.
    pub enum Trailer: "trailer placement" {
        Last = "last",
    }

    /// What padding bytes hold.
    pub enum Padding: "padding rule" {
        Zero = "zero",
    }

    /// Where a file reader finds a structure without a pointer to it.
    pub enum Anchor: "file anchor" {
        /// At offset 0: the file starts with it.
        Start = "start",
        /// In the file's last bytes (a structure of constant size).
        End = "end",
    }

    /// Whether a table check rejects or only warns.
    pub enum CheckLevel: "check level" {
        Reject = "reject",
        Warn = "warn",
    }

    /// Who a rule binds.
    pub enum Actor: "actor" {
        /// A reader of the format.
        Reader = "reader",
        /// A writer of the format.
        Writer = "writer",
        /// Readers and writers alike.
        Both = "both",
        /// The spec editor: a rule of the amendment process.
        Editor = "editor",
        /// The server of the interchange protocol (the peer that answers requests and
        /// takes pushes), as sender and receiver of messages.
        Server = "server",
        /// The client of the interchange protocol (the peer that sends the first HELLO,
        /// requests and pushes), as sender and receiver of messages.
        Client = "client",
    }

    /// What a reader does when a rule is broken.
    pub enum Action: "action" {
        /// Rejected in every mode.
        Reject = "reject",
        /// Rejected unless the reader is permissive.
        Strict = "strict",
        /// A SHOULD-check: when checked and violated, rejected unless permissive.
        Validate = "validate",
        /// Reported, never rejected.
        Warn = "warn",
        /// A writer duty or a reader behaviour that rejects nothing.
        Obligation = "obligation",
    }

    /// Where a rule is enforced.
    pub enum EnforcedBy: "enforcement" {
        /// A check in `structures/`, run by the generated parse.
        Table = "table",
        /// The runtime's semantic layer.
        Runtime = "runtime",
        /// The runtime's writer, which refuses to write it.
        Writer = "writer",
        /// The generated structural parse.
        Structure = "structure",
        /// The amendment checker's lints (`hurray-spec check`).
        Amendment = "amendment",
        /// `#[derive(HurraySection)]`, at compile time.
        Derive = "derive",
        /// Nothing: no software can enforce or observe the rule (`Rule::unenforceable` says why).
        Unenforceable = "none",
        /// Nothing yet: software can enforce the rule, but the part that will (the
        /// interchange protocol's session state machine) is not built. Listed as pending by
        /// `hurray-spec rules`; never counted as enforced.
        Pending = "pending",
    }
}

/// The whole spec.
#[derive(Debug)]
pub struct Spec {
    pub title: String,
    pub status: Status,
    pub status_span: Span,
    /// The spaces the tools give meaning to, by role.
    pub roles: Roles,
    pub axes: Vec<Axis>,
    pub spaces: Vec<TagSpace>,
    pub flag_sets: Vec<FlagSet>,
    pub structures: Vec<Structure>,
    pub placement: Placement,
    pub rules: Vec<Rule>,
    pub resolutions: Vec<Resolution>,
    /// The migration specifications (S5) onto a major of this spec, as the runtime's
    /// migration table states them (`hurray migrate`).
    pub migrations: Vec<Migration>,
}

/// A migration specification (S5) from major `from` of an axis onto major `to` of this
/// spec: the items of the old major it moves or drops. An item not listed (carried, or
/// mapped onto itself) keeps its value and name.
#[derive(Debug)]
pub struct Migration {
    /// The file under `migrations/` that states it.
    pub file: String,
    pub axis: AxisId,
    pub from: u16,
    pub to: u16,
    pub note: String,
    /// Tag values of the old major: `(space, value)` and where each goes (`None`: dropped).
    pub tags: Vec<Move<u32>>,
    /// Flag bits of the old major: `(flag set, bit)` and where each goes.
    pub bits: Vec<Move<u32>>,
    /// Fields of the old major: `(structure, field)` and where each goes.
    pub fields: Vec<Move<String>>,
}

/// One item of an old major, `(name, value)` (a tag space and value, a flag set and bit, a
/// structure and field), and where it goes in the new major (`None`: dropped).
pub type Move<T> = ((String, T), Option<(String, T)>);

/// A path to a field: the structure it lives in and the field index within it, possibly
/// reached through nested struct fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldPath {
    /// The structure the path starts from.
    pub root: StructId,
    /// Field indices, one per nesting level.
    pub steps: Vec<usize>,
    /// The path as written.
    pub text: String,
}

#[derive(Debug)]
pub struct Axis {
    pub name: String,
    pub title: String,
    pub style: AxisStyle,
    /// The scheme tag this axis versions (scheme axes).
    pub scheme: Option<String>,
    pub initial: Version,
    pub current: Version,
    pub major: Option<FieldPath>,
    pub minor: FieldPath,
    /// Rules broken by a major above / below the reader's (axes with a major byte).
    pub reject: Option<(RuleId, RuleId)>,
    pub resolutions: Vec<ResolutionId>,
    pub span: Span,
    pub current_span: Span,
}

impl Axis {
    pub fn show(&self, v: Version) -> String {
        self.style.show(v)
    }
}

impl Width {
    pub fn bytes(self) -> u32 {
        match self {
            Width::U8 => 1,
            Width::U16 => 2,
            Width::U32 => 4,
            Width::U64 => 8,
        }
    }
    pub fn bits(self) -> u32 {
        self.bytes() * 8
    }
    pub fn max(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }
    pub fn prim(self) -> Prim {
        match self {
            Width::U8 => Prim::U8,
            Width::U16 => Prim::U16,
            Width::U32 => Prim::U32,
            Width::U64 => Prim::U64,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeKind {
    Invalid,
    Public { tier: Option<u8> },
    Reserved,
    Private,
}

impl RangeKind {
    /// The kind of a range of the given use; `tier` labels public ranges.
    pub fn new(range_use: RangeUse, tier: Option<u8>) -> RangeKind {
        match range_use {
            RangeUse::Invalid => RangeKind::Invalid,
            RangeUse::Public => RangeKind::Public { tier },
            RangeUse::Reserved => RangeKind::Reserved,
            RangeUse::Private => RangeKind::Private,
        }
    }
    /// What the range is for.
    pub fn range_use(self) -> RangeUse {
        match self {
            RangeKind::Invalid => RangeUse::Invalid,
            RangeKind::Public { .. } => RangeUse::Public,
            RangeKind::Reserved => RangeUse::Reserved,
            RangeKind::Private => RangeUse::Private,
        }
    }
    /// The range kind's word.
    pub fn word(self) -> &'static str {
        self.range_use().word()
    }
}

#[derive(Debug)]
pub struct Range {
    pub from: u32,
    pub to: u32,
    pub kind: RangeKind,
    pub structure: Option<StructId>,
    /// (device) memory classes valid on a private device of this range.
    pub memory_classes: Vec<String>,
    /// (layout) the rule rank 0 breaks under a private layout of this range.
    pub scalar_rule: Option<RuleId>,
    /// (layout) the rule a private layout of this range breaks with no buffer.
    pub buffer_count_rule: Option<RuleId>,
    pub note: String,
    pub span: Span,
}

/// The rules a space's unknown or invalid values break.
#[derive(Clone, Copy, Debug)]
pub struct RejectRules {
    pub invalid: RuleId,
    pub unknown: RuleId,
    pub private: RuleId,
}

#[derive(Debug)]
pub struct TagSpace {
    pub name: String,
    pub title: String,
    pub width: Width,
    pub axis: AxisId,
    pub ranges: Vec<Range>,
    pub tags: Vec<Tag>,
    pub reject: RejectRules,
    /// The generic rules of the role's rule choices (`[space.default]`).
    pub default: SpaceDefault,
    /// The value that stands where the format leaves the space's value unsaid
    /// (`default_tag`): an index into `tags`.
    pub default_tag: Option<usize>,
    pub resolutions: Vec<ResolutionId>,
    /// For a space some field dispatches on: what its values select (the analysis pass).
    pub dispatch: Option<shape::DispatchShape>,
    pub span: Span,
}

impl TagSpace {
    pub fn tag(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|t| t.name == name)
    }
    pub fn tag_by_value(&self, value: u32) -> Option<&Tag> {
        self.tags.iter().find(|t| t.value == value)
    }
    pub fn range_of(&self, value: u32) -> Option<&Range> {
        self.ranges
            .iter()
            .find(|r| r.from <= value && value <= r.to)
    }
    /// The generic rules of a layout space's rule choices.
    pub fn layout_default(&self) -> Option<&LayoutDefault> {
        match &self.default {
            SpaceDefault::Layout(d) => Some(d),
            _ => None,
        }
    }
    /// The generic rules of a scheme space's rule choices.
    pub fn scheme_default(&self) -> Option<&SchemeDefault> {
        match &self.default {
            SpaceDefault::Scheme(d) => Some(d),
            _ => None,
        }
    }
    /// Does any value of this space select a structure?
    pub fn dispatches(&self) -> bool {
        self.tags.iter().any(|t| t.structure.is_some())
            || self.ranges.iter().any(|r| r.structure.is_some())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Deprecation {
    pub since: Version,
    pub replacement: Option<String>,
    pub span: Span,
}

#[derive(Debug)]
pub struct Tag {
    pub value: u32,
    pub name: String,
    pub title: String,
    pub since: Version,
    pub deprecated: Option<Deprecation>,
    pub structure: Option<StructId>,
    pub tier: Option<u8>,
    pub attrs: TagAttrs,
    pub resolutions: Vec<ResolutionId>,
    pub span: Span,
    pub value_span: Span,
    pub name_span: Span,
}

/// Space-specific attributes of a tag; part of its S2 identity, except the rules a tag names
/// (which rule a rejection reports), a message type's sender and a transfer alignment:
/// reader facts of the release records, keys added after the identities were released.
#[derive(Clone, Debug, PartialEq)]
pub enum TagAttrs {
    None,
    ElementType(ElementTypeAttrs),
    Layout(LayoutAttrs),
    Device {
        memory_classes: Vec<String>,
        /// The least alignment a non-empty buffer transferred to the device declares (IX-92);
        /// `None`: the buffer protocol's own minimum only.
        transfer_alignment: Option<u32>,
    },
    Scheme(SchemeAttrs),
    CombineOp {
        legal_with: Vec<String>,
    },
    IndexType {
        bytes: u8,
    },
    /// The rule a head's `combine_op` not legal with the composition rule breaks.
    CompositionRule {
        combine_op_rule: RuleId,
    },
    /// Which side sends the message type, and the least alignment a non-empty buffer
    /// transferred on the path the message begins declares (IX-92).
    MessageType {
        sender: Sender,
        transfer_alignment: Option<u32>,
    },
}

/// The generic rules of a space's rule choices, by its role (`[space.default]`): what a value
/// that names no rule of its own for a choice reports.
#[derive(Clone, Debug, PartialEq)]
pub enum SpaceDefault {
    None,
    Layout(LayoutDefault),
    Scheme(SchemeDefault),
}

/// The generic rules of the layout role's rule choices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutDefault {
    /// `byte_offset_rule.bounded`: a `byte_offset` past buffer 0's size.
    pub byte_offset_bounded: RuleId,
    /// `byte_offset_rule.zero`: a non-zero `byte_offset`.
    pub byte_offset_zero: RuleId,
    /// `buffer_count_rule.unquantized`.
    pub buffer_count_unquantized: RuleId,
    /// `buffer_count_rule.quantized`.
    pub buffer_count_quantized: RuleId,
    /// `same_device_rule.buffer`: a buffer other than a parameter buffer.
    pub same_device_buffer: RuleId,
    /// `same_device_rule.parameter_buffer`: a quantization parameter buffer.
    pub same_device_parameter_buffer: RuleId,
    /// `unsharded_member_rule`.
    pub unsharded_member: RuleId,
}

/// The generic rules of the scheme role's rule choices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchemeDefault {
    /// `data_alias_rule`.
    pub data_alias: RuleId,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ElementTypeAttrs {
    pub bits: u32,
    pub kind: ElementKind,
    pub format: Option<FloatFormat>,
    pub bias: Option<i64>,
    pub packing: Packing,
}

/// A float format's bits (`format = "1-5-10"`): sign, exponent and mantissa, which sum to the
/// type's width (or to one part's, for a complex type); parsed and checked when the spec loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFormat {
    pub sign: u32,
    pub exponent: u32,
    pub mantissa: u32,
}

impl FloatFormat {
    /// `sign-exponent-mantissa`, each a decimal number; `None` for any other text.
    pub fn parse(text: &str) -> Option<FloatFormat> {
        let mut parts = text.split('-').map(|p| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && p.len() <= 3)
                .then(|| p.parse::<u32>().ok())
                .flatten()
        });
        let f = FloatFormat {
            sign: parts.next()??,
            exponent: parts.next()??,
            mantissa: parts.next()??,
        };
        parts.next().is_none().then_some(f)
    }

    /// Its width in bits.
    pub fn bits(self) -> u32 {
        self.sign + self.exponent + self.mantissa
    }
}

impl std::fmt::Display for FloatFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}-{}", self.sign, self.exponent, self.mantissa)
    }
}

/// `a * rank + b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RankLinear {
    pub a: u32,
    pub b: u32,
}

impl RankLinear {
    /// Parse `A*rank+B`, `rank`, or `N`.
    pub fn parse(s: &str) -> Option<RankLinear> {
        let a = Affine::parse(s)?;
        if a.terms.keys().any(|k| k != "rank") || a.constant < 0 {
            return None;
        }
        let coef = a.terms.get("rank").copied().unwrap_or(0);
        (coef >= 0).then_some(RankLinear {
            a: coef as u32,
            b: a.constant as u32,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LayoutAttrs {
    pub class: LayoutClass,
    pub rank_min: u32,
    pub rank_max: u32,
    pub buffers: RankLinear,
    pub byte_offset: ByteOffsetRule,
    /// The rule a rank outside `rank_min..=rank_max` breaks.
    pub rank_rule: RuleId,
    /// The rule rank 0 (a scalar) breaks, for a layout whose ranks start above 0.
    pub scalar_rule: Option<RuleId>,
    /// The rules the layout names for its rule choices instead of the space's defaults, and
    /// the rules of its own restrictions.
    pub rules: LayoutRules,
}

/// The rules a layout names itself (`tags/layout.toml`): for a rule choice, `None` takes the
/// space's default ([`LayoutDefault`]); for a restriction, `None` is no restriction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayoutRules {
    /// `byte_offset_rule`: a `byte_offset` outside its bound.
    pub byte_offset: Option<RuleId>,
    /// `buffer_count_rule`: a `buffer_count` other than the layout's, quantized or not.
    pub buffer_count: Option<RuleId>,
    /// `same_device_rule`: buffers that differ in device or memory class.
    pub same_device: Option<RuleId>,
    /// `unsharded_member_rule`: a partition or overlay member without a shard section.
    pub unsharded_member: Option<RuleId>,
    /// `shard_rule`: the layout forbids a shard section.
    pub shard: Option<RuleId>,
    /// `statistics_nnz_rule`: the layout counts its stored values, which the statistics' nnz
    /// must equal.
    pub statistics_nnz: Option<RuleId>,
}

impl LayoutAttrs {
    /// The rule a `byte_offset` outside its bound breaks: the layout's, else the default for
    /// what bounds it.
    pub fn byte_offset_rule(&self, d: &LayoutDefault) -> RuleId {
        self.rules.byte_offset.unwrap_or(match self.byte_offset {
            ByteOffsetRule::Bounded => d.byte_offset_bounded,
            ByteOffsetRule::Zero => d.byte_offset_zero,
        })
    }
    /// The rule a wrong `buffer_count` breaks: the layout's, else the default.
    pub fn buffer_count_rule(&self, d: &LayoutDefault, quantized: bool) -> RuleId {
        self.rules.buffer_count.unwrap_or(if quantized {
            d.buffer_count_quantized
        } else {
            d.buffer_count_unquantized
        })
    }
    /// The rule buffers on different devices break: the layout's, else the default.
    pub fn same_device_rule(&self, d: &LayoutDefault, parameter_buffer: bool) -> RuleId {
        self.rules.same_device.unwrap_or(if parameter_buffer {
            d.same_device_parameter_buffer
        } else {
            d.same_device_buffer
        })
    }
    /// The rule a member without a shard section breaks: the layout's, else the default.
    pub fn unsharded_member_rule(&self, d: &LayoutDefault) -> RuleId {
        self.rules.unsharded_member.unwrap_or(d.unsharded_member)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SchemeAttrs {
    pub flags: FlagSetId,
    pub storage: Vec<String>,
    /// The rule a payload breaks when its type tag is not in `storage`.
    pub storage_rule: RuleId,
    pub parameters: Vec<SchemeParameter>,
    /// The rule a parameter buffer index naming the data buffer breaks, instead of the
    /// space's default.
    pub data_alias_rule: Option<RuleId>,
    /// The rule a dense data buffer holding the elements but not their padded extent breaks
    /// (RES-38); `None` for a scheme that pads nothing.
    pub padded_extent_rule: Option<RuleId>,
}

impl SchemeAttrs {
    /// The rule a parameter buffer aliasing the data breaks: the scheme's, else the default.
    pub fn data_alias_rule(&self, d: &SchemeDefault) -> RuleId {
        self.data_alias_rule.unwrap_or(d.data_alias)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SchemeParameter {
    pub name: String,
    /// The field of the scheme's payload structure that holds the buffer index.
    pub index_field: usize,
    /// The bit of the scheme's flag set whose presence drops the parameter.
    pub unless_bit: Option<u32>,
}

#[derive(Debug)]
pub struct FlagSet {
    pub name: String,
    pub title: String,
    pub width: Width,
    pub axis: AxisId,
    pub unknown_bits: UnknownBits,
    pub rule: RuleId,
    pub bits: Vec<Bit>,
    pub resolutions: Vec<ResolutionId>,
    pub span: Span,
}

impl FlagSet {
    pub fn bit(&self, name: &str) -> Option<&Bit> {
        self.bits.iter().find(|b| b.name == name)
    }
    pub fn allocated_mask(&self) -> u64 {
        self.bits.iter().fold(0, |m, b| m | (1u64 << b.bit))
    }
    pub fn reserved_mask(&self) -> u64 {
        self.width.max() & !self.allocated_mask()
    }
}

#[derive(Debug)]
pub struct Bit {
    pub bit: u32,
    pub name: String,
    pub title: String,
    pub since: Version,
    pub deprecated: Option<Deprecation>,
    pub resolutions: Vec<ResolutionId>,
    /// The bits this one is only valid with (`requires`).
    pub requires: Option<Requires>,
    pub span: Span,
    pub name_span: Span,
}

/// The bits a flag bit is only valid with, and the rule a set without them breaks.
#[derive(Clone, Debug, PartialEq)]
pub struct Requires {
    /// Bit indices of the same set.
    pub bits: Vec<u32>,
    pub rule: RuleId,
}

impl Requires {
    /// The mask of the required bits.
    pub fn mask(&self) -> u64 {
        self.bits.iter().fold(0, |m, b| m | 1u64 << b)
    }
}

/// How a structure's end is known.
#[derive(Clone, Debug, PartialEq)]
pub enum Framing {
    /// Nothing frames it: its end is its last field's end. Nothing can be appended (S6).
    Fixed,
    /// A length prefix gives its encoded length; the prefix field is named by a path whose
    /// first component is a structure name (`quantization_section.quantization_length`).
    LengthPrefixed {
        by_struct: StructId,
        by_field: FieldPath,
        rule: RuleId,
    },
}

impl Framing {
    pub fn is_length_prefixed(&self) -> bool {
        matches!(self, Framing::LengthPrefixed { .. })
    }
}

/// A linear expression over named quantities (params and earlier count fields).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Affine {
    pub terms: BTreeMap<String, i64>,
    pub constant: i64,
}

impl Affine {
    pub fn constant(c: i64) -> Affine {
        Affine {
            terms: BTreeMap::new(),
            constant: c,
        }
    }
    pub fn var(name: &str, coef: i64) -> Affine {
        let mut terms = BTreeMap::new();
        if coef != 0 {
            terms.insert(name.to_string(), coef);
        }
        Affine { terms, constant: 0 }
    }
    pub fn add(&self, other: &Affine) -> Affine {
        let mut terms = self.terms.clone();
        for (k, v) in &other.terms {
            let e = terms.entry(k.clone()).or_insert(0);
            *e += v;
        }
        terms.retain(|_, v| *v != 0);
        Affine {
            terms,
            constant: self.constant + other.constant,
        }
    }
    pub fn scale(&self, k: i64) -> Affine {
        let mut terms: BTreeMap<String, i64> =
            self.terms.iter().map(|(n, v)| (n.clone(), v * k)).collect();
        terms.retain(|_, v| *v != 0);
        Affine {
            terms,
            constant: self.constant * k,
        }
    }
    pub fn sub(&self, other: &Affine) -> Affine {
        self.add(&other.scale(-1))
    }
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
    /// Multiply by a count expression (count is a single variable or a constant).
    pub fn times_count(&self, count: &Affine) -> Option<Affine> {
        match (self.as_constant(), count.as_constant()) {
            (Some(a), _) => Some(count.scale(a)),
            (_, Some(b)) => Some(self.scale(b)),
            _ => None,
        }
    }
    /// Rename variables (used when a nested structure's params are bound by its parent).
    pub fn substitute(&self, map: &BTreeMap<String, Affine>) -> Option<Affine> {
        let mut out = Affine::constant(self.constant);
        for (k, v) in &self.terms {
            out = out.add(&map.get(k)?.scale(*v));
        }
        Some(out)
    }
}

impl Affine {
    /// Parse an integer or a linear expression such as `"20+8*rank"` (the form
    /// [`Affine`]'s `Display` writes).
    pub fn parse(s: &str) -> Option<Affine> {
        let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() {
            return None;
        }
        let mut out = Affine::default();
        for term in compact
            .replace('-', "+-")
            .split('+')
            .filter(|t| !t.is_empty())
        {
            let (neg, t) = match term.strip_prefix('-') {
                Some(t) => (true, t),
                None => (false, term),
            };
            let part = if let Some((a, b)) = t.split_once('*') {
                let (k, name) = if a.chars().all(|c| c.is_ascii_digit()) {
                    (a, b)
                } else {
                    (b, a)
                };
                if !is_identifier(name) {
                    return None;
                }
                Affine::var(name, k.parse().ok()?)
            } else if t.chars().all(|c| c.is_ascii_digit()) {
                Affine::constant(t.parse().ok()?)
            } else if is_identifier(t) {
                Affine::var(t, 1)
            } else {
                return None;
            };
            out = out.add(&if neg { part.scale(-1) } else { part });
        }
        Some(out)
    }
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.constant != 0 || self.terms.is_empty() {
            parts.push(self.constant.to_string());
        }
        for (k, v) in &self.terms {
            parts.push(if *v == 1 {
                k.clone()
            } else {
                format!("{v}*{k}")
            });
        }
        write!(f, "{}", parts.join("+").replace("+-", "-"))
    }
}

/// Primitive wire types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Prim {
    pub fn size(self) -> u32 {
        match self {
            Prim::U8 | Prim::I8 => 1,
            Prim::U16 | Prim::I16 => 2,
            Prim::U32 | Prim::I32 | Prim::F32 => 4,
            Prim::U64 | Prim::I64 | Prim::F64 => 8,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::I8 => "i8",
            Prim::I16 => "i16",
            Prim::I32 => "i32",
            Prim::I64 => "i64",
            Prim::F32 => "f32",
            Prim::F64 => "f64",
        }
    }
    pub fn from_name(s: &str) -> Option<Prim> {
        Some(match s {
            "u8" => Prim::U8,
            "u16" => Prim::U16,
            "u32" => Prim::U32,
            "u64" => Prim::U64,
            "i8" => Prim::I8,
            "i16" => Prim::I16,
            "i32" => Prim::I32,
            "i64" => Prim::I64,
            "f32" => Prim::F32,
            "f64" => Prim::F64,
            _ => return None,
        })
    }
    pub fn is_float(self) -> bool {
        matches!(self, Prim::F32 | Prim::F64)
    }
    pub fn is_signed(self) -> bool {
        matches!(self, Prim::I8 | Prim::I16 | Prim::I32 | Prim::I64)
    }
    pub fn is_int(self) -> bool {
        !self.is_float()
    }
    /// Inclusive integer range of the type.
    pub fn int_range(self) -> (i128, i128) {
        match self {
            Prim::U8 => (0, u8::MAX as i128),
            Prim::U16 => (0, u16::MAX as i128),
            Prim::U32 => (0, u32::MAX as i128),
            Prim::U64 => (0, u64::MAX as i128),
            Prim::I8 => (i8::MIN as i128, i8::MAX as i128),
            Prim::I16 => (i16::MIN as i128, i16::MAX as i128),
            Prim::I32 => (i32::MIN as i128, i32::MAX as i128),
            Prim::I64 => (i64::MIN as i128, i64::MAX as i128),
            Prim::F32 | Prim::F64 => (0, 0),
        }
    }
}

/// The type of a field.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldType {
    Prim(Prim),
    /// Opaque bytes; `count` gives the length.
    Bytes,
    /// UTF-8 text; `count` gives the byte length.
    Utf8,
    Tag(SpaceId),
    Flags(FlagSetId),
    Struct(StructId),
    /// The structure selected by a tag value.
    Dispatch {
        space: SpaceId,
        on: TagSource,
    },
}

impl FieldType {
    /// The primitive this field is read as, for scalar-like types.
    pub fn scalar_prim(&self, spec: &Spec) -> Option<Prim> {
        match self {
            FieldType::Prim(p) => Some(*p),
            FieldType::Tag(s) => Some(spec.spaces[s.index()].width.prim()),
            FieldType::Flags(f) => Some(spec.flag_sets[f.index()].width.prim()),
            _ => None,
        }
    }
}

/// Where a dispatch reads its tag.
#[derive(Clone, Debug, PartialEq)]
pub enum TagSource {
    /// An earlier field of the enclosing structure.
    Field(FieldPath),
    /// Inside the dispatched structure itself, at a fixed byte offset of every variant
    /// (`on = "payload.header.scheme_tag"`).
    Peek {
        offset: u32,
        path_in_variant: Vec<String>,
    },
}

/// A repeat count.
#[derive(Clone, Debug, PartialEq)]
pub enum Count {
    Const(u64),
    /// An earlier integer field of the same structure (field index).
    Field(usize),
    /// A param of the structure.
    Param(String),
    /// The rest of the enclosing length-prefixed structure.
    Rest,
}

/// A comparison value in a condition or check.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Int(i128),
    Float(f64),
}

/// A condition on an earlier field.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    Equals(FieldPath, i128),
    NotEquals(FieldPath, i128),
    HasBit(FieldPath, FlagSetId, u32),
    LacksBit(FieldPath, FlagSetId, u32),
    /// The tag field's value lies in `from..=to`, a range of its space (`in_range`).
    InRange(FieldPath, u32, u32),
}

impl Condition {
    pub fn path(&self) -> &FieldPath {
        match self {
            Condition::Equals(p, _)
            | Condition::NotEquals(p, _)
            | Condition::HasBit(p, _, _)
            | Condition::LacksBit(p, _, _)
            | Condition::InRange(p, _, _) => p,
        }
    }
}

/// A table-stated constraint.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckKind {
    Bytes(Vec<u8>),
    Equals(Lit),
    NotEquals(Lit),
    Min(Lit),
    Max(Lit),
    Range(Lit, Lit),
    OneOf(Vec<i128>),
    PowerOfTwo,
    MultipleOf(u64),
    /// Less than a param or an earlier field.
    LessThan(Operand),
    SameAs(Operand),
    Finite,
    NonZero,
}

/// A param or an earlier field of the same structure.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Param(String),
    Field(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub kind: CheckKind,
    pub when: Option<Condition>,
    pub rule: RuleId,
    pub level: CheckLevel,
    pub span: Span,
}

/// A documented default (S4, R4).
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultValue {
    Int(i128),
    Float(f64),
    Bytes(Vec<u8>),
    /// Equal to another field of the structure, with the declared dependencies.
    Expr {
        field: usize,
        depends_on: Vec<String>,
    },
}

/// When a field is present.
#[derive(Clone, Debug, PartialEq)]
pub enum Presence {
    Always,
    If(Condition),
}

/// Where a field starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Position {
    /// A linear function of params and count fields.
    Offset(Affine),
    /// After a part whose size depends on data (a condition, a dispatch, a nested variable structure).
    Sequential,
}

#[derive(Debug)]
pub struct Field {
    pub name: String,
    pub title: String,
    pub ty: FieldType,
    pub count: Option<Count>,
    pub since: Version,
    pub default: Option<DefaultValue>,
    pub presence: Presence,
    pub checks: Vec<Check>,
    pub reserved: bool,
    /// For an integer field: the earlier tag field (its index) whose value's flag set gives
    /// the field's bits their meaning (a scheme's flags in the shared quantization header).
    pub flags_of: Option<usize>,
    /// For an unsigned integer field: the structure found at the absolute file offset the
    /// field holds; an offset of 0 locates nothing (the part is absent).
    pub locates: Option<StructId>,
    /// The rule an unknown tag or flag in this field breaks, when it differs from the space's.
    pub rule: Option<RuleId>,
    pub resolutions: Vec<ResolutionId>,
    pub note: String,
    /// Computed start.
    pub position: Position,
    /// The offset the TOML declares, checked against `position` by the layout pass.
    pub declared_offset: Option<(Affine, Span)>,
    /// Computed size in bytes, when linear.
    pub size: Option<Affine>,
    pub span: Span,
    pub name_span: Span,
    pub since_span: Option<Span>,
    pub default_span: Option<Span>,
}

impl Field {
    /// The fixed byte offset of the field, when it is a constant.
    pub fn const_offset(&self) -> Option<u64> {
        match &self.position {
            Position::Offset(a) => a.as_constant().map(|c| c as u64),
            Position::Sequential => None,
        }
    }
    pub fn is_gate(&self) -> bool {
        matches!(self.presence, Presence::If(Condition::HasBit(..)))
    }
}

#[derive(Debug)]
pub struct Structure {
    pub name: String,
    pub title: String,
    pub axis: AxisId,
    pub since: Version,
    pub framing: Framing,
    pub params: Vec<String>,
    /// Names this structure binds for the structures inside it.
    pub bindings: BTreeMap<String, FieldPath>,
    /// For a structure that contains itself: the nesting limit and the rule exceeding it breaks.
    pub depth_limit: Option<(u32, RuleId)>,
    /// Where a file reader finds the structure when no field locates it (`at`).
    pub at: Option<Anchor>,
    pub fields: Vec<Field>,
    /// Computed total size, when linear.
    pub size: Option<Affine>,
    pub rules: Vec<RuleId>,
    pub resolutions: Vec<ResolutionId>,
    pub note: String,
    /// The structure's shape (the analysis pass, after layout).
    pub shape: shape::StructureShape,
    pub span: Span,
    pub framing_span: Span,
}

impl Structure {
    /// Whether field `i` is carried by the structure's value form (its owned form, JSON and
    /// the contract shape): not reserved bytes, and not a count or length an encoder derives
    /// from a later field.
    pub fn carried(&self, i: usize) -> bool {
        !self.fields[i].reserved && self.shape.fields[i].gives_size_of.is_none()
    }
    pub fn field(&self, name: &str) -> Option<(usize, &Field)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }
    /// Constant size, when the structure has one.
    pub fn const_size(&self) -> Option<u64> {
        self.size
            .as_ref()
            .and_then(Affine::as_constant)
            .map(|c| c as u64)
    }
    /// The encoded size of the fields known at `v` (fixed-size structures only).
    pub fn const_size_at(&self, v: Version) -> Option<u64> {
        let mut end = 0;
        for f in &self.fields {
            if f.since > v {
                continue;
            }
            let off = f.const_offset()?;
            let size = f.size.as_ref()?.as_constant()? as u64;
            end = end.max(off + size);
        }
        Some(end)
    }
}

#[derive(Debug)]
pub struct Placement {
    pub axis: AxisId,
    pub descriptor_alignment: u32,
    pub data_alignment: FieldPath,
    pub after_last_buffer: u32,
    pub after_composite_head: u32,
    pub kv_alignment: u32,
    pub index_alignment: u32,
    pub trailer: Trailer,
    pub padding: Padding,
    pub rules: Vec<RuleId>,
    pub resolutions: Vec<ResolutionId>,
    pub span: Span,
}

#[derive(Debug)]
pub struct Rule {
    pub id: String,
    pub code: String,
    pub text: String,
    pub source: String,
    pub actor: Actor,
    pub action: Action,
    pub enforced_by: EnforcedBy,
    pub resolutions: Vec<ResolutionId>,
    /// Ids the seeds give the rule.
    pub seed: Vec<String>,
    /// What else enforces it.
    pub also_enforced_by: Vec<EnforcedBy>,
    /// Amendment lints filed under it in the rule table (the lint registry files others).
    pub lints: Vec<String>,
    /// Why no software can enforce or observe it.
    pub unenforceable: Option<String>,
    /// Why the rule exists, where a source states it.
    pub rationale: Option<Rationale>,
    /// The code a receiver answers a violation with (`answer`): its space and value.
    pub answer: Option<(SpaceId, u32)>,
    /// The axis of its rules file (`axis`), for a rule no table names.
    pub axis: Option<AxisId>,
    pub span: Span,
}

/// A rule's reason, as a source states it.
#[derive(Debug, Clone)]
pub struct Rationale {
    pub text: String,
    /// Where it is stated (a seed's or facts sheet's section).
    pub source: String,
}

#[derive(Debug)]
pub struct Resolution {
    pub id: String,
    pub point: String,
    pub decision: String,
    pub source: String,
    pub governs: Vec<String>,
    pub span: Span,
}

impl Spec {
    /// The id of the axis named `name`.
    pub fn axis_id(&self, name: &str) -> Option<AxisId> {
        self.axes
            .iter()
            .position(|a| a.name == name)
            .map(|i| AxisId(i as u32))
    }
    /// The id of the space named `name`.
    pub fn space_id(&self, name: &str) -> Option<SpaceId> {
        self.spaces
            .iter()
            .position(|a| a.name == name)
            .map(|i| SpaceId(i as u32))
    }
    /// The id of the flag set named `name`.
    pub fn flag_set_id(&self, name: &str) -> Option<FlagSetId> {
        self.flag_sets
            .iter()
            .position(|a| a.name == name)
            .map(|i| FlagSetId(i as u32))
    }
    /// The id of the structure named `name`.
    pub fn structure_id(&self, name: &str) -> Option<StructId> {
        self.structures
            .iter()
            .position(|a| a.name == name)
            .map(|i| StructId(i as u32))
    }
    /// The id of the rule whose sheet id is `id` (`HDR-1`).
    pub fn rule_id(&self, id: &str) -> Option<RuleId> {
        self.rules
            .iter()
            .position(|r| r.id == id)
            .map(|i| RuleId(i as u32))
    }
    /// The structure `id` names.
    pub fn structure(&self, id: StructId) -> &Structure {
        &self.structures[id.index()]
    }
    /// The tag space `id` names.
    pub fn space(&self, id: SpaceId) -> &TagSpace {
        &self.spaces[id.index()]
    }
    /// The flag set `id` names.
    pub fn flag_set(&self, id: FlagSetId) -> &FlagSet {
        &self.flag_sets[id.index()]
    }
    /// The axis `id` names.
    pub fn axis(&self, id: AxisId) -> &Axis {
        &self.axes[id.index()]
    }
    /// The rule `id` names.
    pub fn rule(&self, id: RuleId) -> &Rule {
        &self.rules[id.index()]
    }
    /// The field a path designates.
    pub fn resolve(&self, path: &FieldPath) -> &Field {
        let mut s = self.structure(path.root);
        let mut f = &s.fields[path.steps[0]];
        for &step in &path.steps[1..] {
            if let FieldType::Struct(id) = f.ty {
                s = self.structure(id);
            }
            f = &s.fields[step];
        }
        f
    }
    /// The structure and field index a path designates (its last step), or `None` when a
    /// step before the last does not go through a structure field.
    pub fn locate(&self, path: &FieldPath) -> Option<(StructId, usize)> {
        let mut at = (path.root, path.steps[0]);
        for &step in &path.steps[1..] {
            let FieldType::Struct(t) = self.structure(at.0).fields[at.1].ty else {
                return None;
            };
            at = (t, step);
        }
        Some(at)
    }
    /// Where structure `id` keeps its own length prefix (its shape's `Prefix::Own`): the
    /// (structure, field index) steps from `id` down to the field that holds the prefix,
    /// the first step a field of `id` itself (`[(provenance, length)]` for a section whose
    /// first field is its length; `[(descriptor, fixed_header), (fixed_header,
    /// descriptor_length)]` for the descriptor). A writer computes that field from the
    /// encoded length. `None` when the structure is not prefixed by a field of its own.
    pub fn own_prefix(&self, id: StructId) -> Option<Vec<(StructId, usize)>> {
        let s = self.structure(id);
        let shape::Prefix::Own { field } = s.shape.prefix else {
            return None;
        };
        let Framing::LengthPrefixed {
            by_struct,
            by_field,
            ..
        } = &s.framing
        else {
            return None;
        };
        let mut steps = vec![(id, field)];
        let rest = if *by_struct == id {
            &by_field.steps[1..]
        } else {
            &by_field.steps[..]
        };
        if *by_struct == id && by_field.steps[0] != field {
            return None;
        }
        for &step in rest {
            let (sid, i) = *steps.last()?;
            let FieldType::Struct(t) = self.structure(sid).fields[i].ty else {
                return None;
            };
            steps.push((t, step));
        }
        Some(steps)
    }
    /// The structures a dispatching space selects, in the order its tags and ranges name
    /// them.
    pub fn variants(&self, space: SpaceId) -> Vec<StructId> {
        let tag_space = self.space(space);
        let mut v: Vec<StructId> = tag_space
            .tags
            .iter()
            .filter_map(|t| t.structure)
            .chain(tag_space.ranges.iter().filter_map(|r| r.structure))
            .collect();
        v.dedup();
        v
    }
    /// Whether a field dispatches on `space` (so its values may select structures).
    pub fn dispatched(&self, space: SpaceId) -> bool {
        self.structures.iter().any(|s| {
            s.fields
                .iter()
                .any(|f| matches!(f.ty, FieldType::Dispatch { space: d, .. } if d == space))
        })
    }
    /// The rule bounding a dispatched field when every structure its space selects is
    /// length-prefixed: an unknown value can then be skipped as opaque bytes (RES-9).
    pub fn dispatch_bound(&self, space: SpaceId) -> Option<RuleId> {
        let vs = self.variants(space);
        let bound = |id: &StructId| match &self.structure(*id).framing {
            Framing::LengthPrefixed { rule, .. } => Some(*rule),
            Framing::Fixed => None,
        };
        let first = vs.first().and_then(bound)?;
        vs.iter().all(|v| bound(v).is_some()).then_some(first)
    }
    /// The constant offset of a tag field of `space` reached by `path` inside structure `id`.
    pub fn peek_offset(&self, id: StructId, path: &[String], space: SpaceId) -> Option<u64> {
        let mut cur = id;
        let mut off = 0;
        for (i, name) in path.iter().enumerate() {
            let (_, f) = self.structure(cur).field(name)?;
            off += f.const_offset()?;
            if i + 1 == path.len() {
                return (f.ty == FieldType::Tag(space)).then_some(off);
            }
            match f.ty {
                FieldType::Struct(t) => cur = t,
                _ => return None,
            }
        }
        None
    }
    /// The name of a bit of a flag set.
    pub fn bit_name(&self, set: FlagSetId, bit: u32) -> Option<&str> {
        self.flag_set(set)
            .bits
            .iter()
            .find(|b| b.bit == bit)
            .map(|b| b.name.as_str())
    }
    /// The payload field that holds a scheme parameter's buffer index.
    pub fn parameter_field(&self, scheme: &Tag, p: &SchemeParameter) -> Option<&Field> {
        self.structure(scheme.structure?).fields.get(p.index_field)
    }
    /// The flag set of the scheme whose payload structure `id` is (a structure on a scheme
    /// axis).
    pub fn scheme_flag_set(&self, id: StructId) -> Option<FlagSetId> {
        let scheme = self.axis(self.structure(id).axis).scheme.as_ref()?;
        match &self.space(self.roles.scheme).tag(scheme)?.attrs {
            TagAttrs::Scheme(a) => Some(a.flags),
            _ => None,
        }
    }
    /// The axis scheme axes live under (RES-6): a scheme version is minor-like under its
    /// major. It is the axis of the scheme space itself.
    pub fn scheme_parent_axis(&self) -> AxisId {
        self.space(self.roles.scheme).axis
    }
    /// The byte offset of a field path from its root structure, when constant.
    pub fn path_offset(&self, path: &FieldPath) -> Option<u64> {
        let mut s = self.structure(path.root);
        let mut offset = 0;
        for (i, &step) in path.steps.iter().enumerate() {
            let f = &s.fields[step];
            offset += f.const_offset()?;
            if i + 1 < path.steps.len()
                && let FieldType::Struct(t) = f.ty
            {
                s = self.structure(t);
            }
        }
        Some(offset)
    }
    /// The scheme axis of a scheme tag name.
    pub fn scheme_axis(&self, scheme: &str) -> Option<AxisId> {
        self.axes
            .iter()
            .position(|a| a.scheme.as_deref() == Some(scheme))
            .map(|i| AxisId(i as u32))
    }
}
