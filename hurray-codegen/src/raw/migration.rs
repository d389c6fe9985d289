//! The serde mirror of a migration specification (`spec/migrations/<axis>-<K>-to-<K+1>.toml`,
//! S5): read by the loader (the runtime's migration table) and by the amendment checker.

use serde::Deserialize;

use super::S;

/// The folder of a spec tree that holds the migration specifications.
pub const DIR: &str = "migrations";

/// An S5 migration specification: every item of major K mapped onto major K+1, carried or
/// dropped.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Migration {
    /// `[migration]`: the axis and the majors it maps between.
    pub migration: Meta,
    /// `[[tag]]`: where a tag value of the old major goes.
    #[serde(default)]
    pub tag: Vec<S<TagMap>>,
    /// `[[bit]]`: where a flag bit of the old major goes.
    #[serde(default)]
    pub bit: Vec<S<BitMap>>,
    /// `[[field]]`: where a field of the old major goes.
    #[serde(default)]
    pub field: Vec<S<FieldMap>>,
    /// Whole spaces, flag sets or structures carried over unchanged.
    #[serde(default)]
    pub carry: Vec<S<Carry>>,
}

/// `[[carry]] space = "layout"` (or `flags = …`, `structure = …`): every item of it not listed
/// otherwise maps to itself in the new major.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Carry {
    /// A tag space carried over.
    pub space: Option<String>,
    /// A flag set carried over.
    pub flags: Option<String>,
    /// A structure carried over.
    pub structure: Option<String>,
}

/// `[migration]`: the axis and the majors mapped.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// The axis whose major is bumped.
    pub axis: String,
    /// The old major.
    pub from: u16,
    /// The new major (`from + 1`).
    pub to: u16,
    /// A remark.
    #[serde(default)]
    pub note: String,
}

/// `[[tag]]`: one tag value of the old major.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TagMap {
    /// The tag space.
    pub space: String,
    /// The value in the old major.
    pub value: u32,
    /// What it becomes in the new major (`"layout 0x01"`), unless dropped.
    pub to: Option<String>,
    /// `true`: the item has no counterpart in the new major.
    #[serde(default)]
    pub dropped: bool,
}

/// `[[bit]]`: one flag bit of the old major.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BitMap {
    /// The flag set.
    pub flags: String,
    /// The bit in the old major.
    pub bit: u32,
    /// What it becomes in the new major, unless dropped.
    pub to: Option<String>,
    /// `true`: the item has no counterpart in the new major.
    #[serde(default)]
    pub dropped: bool,
}

/// `[[field]]`: one field of the old major.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FieldMap {
    /// The structure.
    pub structure: String,
    /// The field in the old major.
    pub field: String,
    /// What it becomes in the new major, unless dropped.
    pub to: Option<String>,
    /// `true`: the item has no counterpart in the new major.
    #[serde(default)]
    pub dropped: bool,
}
