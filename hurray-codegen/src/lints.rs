//! The registry of every lint `hurray-spec check` can report: a stable id, the rule it
//! enforces, its level, and a one-line summary (`hurray-spec lints` prints this table).

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

impl Lint {
    /// Whether a finding of this lint is the root cause of an edit's other findings: an S2
    /// rebind or an S6 addition. The MAJOR classification, the moved offsets and the version
    /// verdict that follow from such an edit are folded into it
    /// (`Diagnostics::fold_consequences`), so its help is the one fix.
    pub fn is_root_cause(&self) -> bool {
        ROOT_CAUSES.contains(&self.id)
    }
}

/// The lints whose findings are root causes ([`Lint::is_root_cause`]).
const ROOT_CAUSES: [&str; 4] = [
    S2_REBIND.id,
    S6_INSERTED_FIELD.id,
    S6_FIXED_OFFSET_ADDITION.id,
    S6_UNGATED_SECTION.id,
];

/// One lint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lint {
    /// Stable kebab-case id.
    pub id: &'static str,
    /// The rule the lint enforces: `model` (the spec tables must be well-formed), `S1`…`S6`,
    /// `CD2` (FORWARD_ADDITIVE), `classification` (MAJOR/MINOR/PATCH and the version bump),
    /// or `history` (release records).
    pub rule: &'static str,
    pub level: Level,
    pub summary: &'static str,
}

macro_rules! lints {
    ($($name:ident = $id:literal, $rule:literal, $level:ident, $summary:literal;)*) => {
        $(
            #[doc = $summary]
            pub const $name: Lint = Lint { id: $id, rule: $rule, level: Level::$level, summary: $summary };
        )*
        /// Every lint, in the order `hurray-spec lints` lists them.
        pub const ALL: &[Lint] = &[$($name),*];
    };
}

lints! {
    TOML_SYNTAX = "toml-syntax", "model", Error, "a spec file is not valid TOML or does not match the spec schema";
    DUPLICATE_NAME = "duplicate-name", "model", Error, "two items of one kind share a name";
    NAME_NOT_AN_IDENTIFIER = "name-not-an-identifier", "model", Error, "a structure, field, tag space, flag set or tag name is not a lowercase identifier, a flag bit name not an uppercase one, a rule id not upper case words joined by hyphens, or an axis name not lower case words joined by dots";
    DUPLICATE_VALUE = "duplicate-value", "model", Error, "two tags of one space, or two bits of one flag set, share a value";
    UNKNOWN_REFERENCE = "unknown-reference", "model", Error, "a reference names no axis, space, flag set, structure, field, rule or resolution";
    BAD_VALUE = "bad-value", "model", Error, "a key holds a value outside its allowed set";
    RANGE_COVERAGE = "range-coverage", "model", Error, "a tag space's ranges overlap, leave a gap, or exceed its width";
    OFFSET_GAP = "offset-gap", "model", Error, "a declared offset leaves a gap after the field before it";
    OFFSET_OVERLAP = "offset-overlap", "model", Error, "a declared offset overlaps the field before it";
    SIZE_MISMATCH = "size-mismatch", "model", Error, "a structure's declared size differs from the sum of its fields";
    SINCE_AFTER_CURRENT = "since-after-current", "model", Error, "a `since` is later than its axis's current version";
    SINCE_BEFORE_INITIAL = "since-before-initial", "model", Error, "a `since` is earlier than its axis's initial version, or earlier than its structure's";
    DEFAULT_TYPE = "default-type", "model", Error, "a `default` does not fit its field's type";
    DEFAULT_ON_BASE_FIELD = "default-on-base-field", "model", Warning, "a field of the structure's first version carries a default no reader can use";
    UNKNOWN_COUNT_FIELD = "unknown-count-field", "model", Error, "a count, length or condition names no earlier field or param";
    UNKNOWN_FLAG_BIT = "unknown-flag-bit", "model", Error, "a flag gate or condition names a bit its flag set does not define";
    BAD_CHECK = "bad-check", "model", Error, "a check does not fit its field's type";
    UNBOUND_PARAM = "unbound-param", "model", Error, "a structure is used where one of its params is not bound";
    MISSING_DEPTH_LIMIT = "missing-depth-limit", "model", Error, "a structure that contains itself declares no depth limit";
    BAD_DISPATCH = "bad-dispatch", "model", Error, "a dispatched field's tag is missing or its variants disagree on where the tag sits";
    AXIS_MISMATCH = "axis-mismatch", "model", Error, "scheme axes and allocated schemes do not correspond one to one, or an axis carrier is wrong";
    DRAFT_VERSION = "draft-version", "model", Error, "a draft spec has an axis away from its initial version";
    STATUS_HISTORY = "status-history", "history", Error, "the spec's status disagrees with its release history";
    RECORD_EDITED = "record-edited", "history", Error, "a release record was edited after it was written";
    RECORD_CHAIN = "record-chain", "history", Error, "release records do not form an unbroken chain";
    RELEASE_ARCHIVE_EDITED = "release-archive-edited", "history", Error, "a release's archived spec tables (releases/NNNN/) do not match its record's fingerprint";
    S1_OUTSIDE_PUBLIC_RANGE = "s1-outside-public-range", "S1", Error, "a public value is allocated outside its space's public range (in a private, reserved or invalid range)";
    S1_WITHOUT_AMENDMENT = "s1-without-amendment", "S1", Error, "a new value, bit, field or structure appears without the amendment that adds it (its `since` is not the new version)";
    S2_REBIND = "s2-rebind", "S2", Error, "a released value or flag bit is bound to a different meaning";
    S2_RANGE_CHANGED = "s2-range-changed", "S2", Error, "a released range is narrowed, moved, repurposed or removed";
    S2_PRIVATE_RECLAIMED = "s2-private-reclaimed", "S2", Error, "a released implementation-private range is reclaimed";
    S3_MISSING_DEPRECATED_SINCE = "s3-missing-deprecated-since", "S3", Error, "a deprecation has no `deprecated_since`";
    S3_BAD_DEPRECATED_SINCE = "s3-bad-deprecated-since", "S3", Error, "`deprecated_since` is before the value's `since` or after the current version";
    S3_NO_REPLACEMENT = "s3-no-replacement", "S3", Warning, "a deprecated value names no replacement";
    S3_DEPRECATED_MEANING_CHANGED = "s3-deprecated-meaning-changed", "S3", Error, "a deprecated value's meaning changed (R3 forbids it)";
    S4_MISSING_DEFAULT = "s4-missing-default", "S4", Error, "an appended trailing field has no documented default";
    S4_DEFAULT_TYPE = "s4-default-type", "S4", Error, "an appended trailing field's default does not fit its type";
    S4_UNDECLARED_DEPENDENCY = "s4-undeclared-dependency", "S4", Error, "a default depends on another field without declaring it";
    S5_MISSING_MIGRATION = "s5-missing-migration", "S5", Error, "a major bump has no migration specification";
    S5_INCOMPLETE_MIGRATION = "s5-incomplete-migration", "S5", Error, "a migration specification leaves a field, flag bit or tag value of the prior major unmapped";
    S5_UNKNOWN_ITEM = "s5-unknown-item", "S5", Error, "a migration entry names no field, flag bit, tag value, space, flag set or structure of the prior major";
    S5_UNKNOWN_TARGET = "s5-unknown-target", "S5", Error, "a migration entry's `to` names no item of the new major";
    S5_TYPE_MISMATCH = "s5-type-mismatch", "S5", Error, "a field is mapped onto a field whose type cannot hold its values";
    S5_NARROWING = "s5-narrowing", "S5", Warning, "a field is mapped onto a narrower type: values outside its range cannot migrate";
    S5_CARRIED_CHANGE = "s5-carried-change", "S5", Error, "a space, flag set or structure is carried over unchanged while one of its items changed";
    RUNTIME_FIELD_KIND = "runtime-field-kind", "S5", Error, "a field keeps its name across a major bump but changes kind (integer, float, other): the runtime reads a field by its kind, so a field of another kind needs a name of its own";
    S5_CONTRADICTION = "s5-contradiction", "S5", Error, "a migration maps one item twice, or both maps and drops it";
    S6_INSERTED_FIELD = "s6-inserted-field", "S6", Error, "a field added in a minor revision sits before an existing field";
    S6_FIXED_OFFSET_ADDITION = "s6-fixed-offset-addition", "S6", Error, "a field added in a minor revision extends a structure without a length prefix";
    S6_UNGATED_SECTION = "s6-ungated-section", "S6", Error, "a new part is not gated by a new flag bit or tag value";
    FORWARD_ADDITIVE_BROKEN = "forward-additive-broken", "CD2", Error, "within a major, a reader of the last release would mis-parse data of the amended spec, or accept a feature it does not know instead of rejecting it (FORWARD_ADDITIVE)";
    CLASSIFIED_MAJOR = "classified-major", "classification", Note, "a change classified MAJOR on its axis";
    CLASSIFIED_MINOR = "classified-minor", "classification", Note, "a change classified MINOR on its axis";
    CLASSIFIED_PATCH = "classified-patch", "classification", Note, "a change classified PATCH (editorial)";
    VERSION_TOO_LOW = "version-too-low", "classification", Error, "an axis's declared version is lower than its changes require";
    VERSION_TOO_HIGH = "version-too-high", "classification", Error, "an axis is bumped further than its changes require (axes are independent)";
    MEANING_TEXT_CHANGED = "meaning-text-changed", "classification", Warning, "a released value's descriptive text changed; if its semantics changed, that is a rebind (S2)";
}

/// The lint with this id.
pub fn by_id(id: &str) -> Option<&'static Lint> {
    ALL.iter().find(|l| l.id == id)
}

/// One item of ADR-019's spec-checker checklist (§ Handoff: "the new § 12 checklist items"),
/// and the lint that is that item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChecklistItem {
    /// The item's number in the ADR (1–6).
    pub number: u8,
    /// The item in the ADR's words.
    pub text: &'static str,
    /// The seed rule the ADR names for it.
    pub rule: &'static str,
    /// The lint that checks it.
    pub lint: &'static Lint,
}

/// ADR-019's six spec-checker items, one to one onto lints, in the ADR's order.
pub const ADR_019_CHECKLIST: [ChecklistItem; 6] = [
    ChecklistItem {
        number: 1,
        text: "appended trailing fields have documented defaults",
        rule: "S4",
        lint: &S4_MISSING_DEFAULT,
    },
    ChecklistItem {
        number: 2,
        text: "new public tags allocated from reserved ranges",
        rule: "S1",
        lint: &S1_OUTSIDE_PUBLIC_RANGE,
    },
    ChecklistItem {
        number: 3,
        text: "no allocated tag rebound",
        rule: "S2",
        lint: &S2_REBIND,
    },
    ChecklistItem {
        number: 4,
        text: "deprecated tags marked in their table",
        rule: "S3",
        lint: &S3_MISSING_DEPRECATED_SINCE,
    },
    ChecklistItem {
        number: 5,
        text: "new fields gated, not at fixed offsets",
        rule: "S6",
        lint: &S6_FIXED_OFFSET_ADDITION,
    },
    ChecklistItem {
        number: 6,
        text: "FORWARD_ADDITIVE preserved for prior-minor readers",
        rule: "CD2",
        lint: &FORWARD_ADDITIVE_BROKEN,
    },
];

/// The ADR-019 checklist item the lint with this id checks, if it is one.
///
/// ```
/// let item = hurray_codegen::lints::checklist_item("forward-additive-broken").unwrap();
/// assert_eq!((item.number, item.rule), (6, "CD2"));
/// assert!(hurray_codegen::lints::checklist_item("toml-syntax").is_none());
/// ```
pub fn checklist_item(id: &str) -> Option<&'static ChecklistItem> {
    ADR_019_CHECKLIST.iter().find(|item| item.lint.id == id)
}
