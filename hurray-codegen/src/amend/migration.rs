//! S5 migration specifications: `spec/migrations/<axis>-<K>-to-<K+1>.toml` maps every field,
//! flag bit and tag value of major K onto major K+1, or marks it dropped.

use serde::Deserialize;

use super::snapshot::Snapshot;
use crate::model::AxisStyle;

/// The folder of a spec tree that holds the migration specifications.
pub const DIR: &str = "migrations";

/// An S5 migration specification: every item of major K mapped onto major K+1, carried or
/// dropped.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Migration {
    /// `[migration]`: the axis and the majors it maps between.
    pub migration: Meta,
    /// `[[tag]]`: where a tag value of the old major goes.
    #[serde(default)]
    pub tag: Vec<TagMap>,
    /// `[[bit]]`: where a flag bit of the old major goes.
    #[serde(default)]
    pub bit: Vec<BitMap>,
    /// `[[field]]`: where a field of the old major goes.
    #[serde(default)]
    pub field: Vec<FieldMap>,
    /// Whole spaces, flag sets or structures carried over unchanged.
    #[serde(default)]
    pub carry: Vec<Carry>,
}

/// `[[carry]] space = "layout"` (or `flags = …`, `structure = …`): every item of it not listed
/// otherwise maps to itself in the new major.
#[derive(Debug, Deserialize)]
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
#[derive(Debug, Deserialize)]
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
#[derive(Debug, Deserialize)]
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
#[derive(Debug, Deserialize)]
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
#[derive(Debug, Deserialize)]
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

/// Whether an item on `item_axis` moves with a major bump of `axis` (scheme axes live under
/// `scheme_parent`'s major, RES-6).
fn under(base: &Snapshot, axis: &str, item_axis: &str, scheme_parent: &str) -> bool {
    let scheme = matches!(base.version(item_axis), Some((AxisStyle::Scheme, _)));
    item_axis == axis || (axis == scheme_parent && scheme)
}

/// Items of `base` on `axis` that the migration neither maps, carries nor drops.
pub fn unmapped(m: &Migration, base: &Snapshot, axis: &str, scheme_parent: &str) -> Vec<String> {
    let under = |item_axis: &str| under(base, axis, item_axis, scheme_parent);
    let mut out = Vec::new();
    let ok =
        |to: &Option<String>, dropped: bool| dropped || to.as_ref().is_some_and(|t| !t.is_empty());
    let carried = |pick: fn(&Carry) -> &Option<String>, name: &str| {
        m.carry.iter().any(|c| pick(c).as_deref() == Some(name))
    };
    for tag_space in base.space.iter().filter(|s| under(&s.axis)) {
        if carried(|c| &c.space, &tag_space.name) {
            continue;
        }
        for t in &tag_space.tag {
            if !m
                .tag
                .iter()
                .any(|x| x.space == tag_space.name && x.value == t.value && ok(&x.to, x.dropped))
            {
                out.push(format!(
                    "tag {} {:#04x} ({})",
                    tag_space.name, t.value, t.name
                ));
            }
        }
    }
    for flag_set in base.flags.iter().filter(|f| under(&f.axis)) {
        if carried(|c| &c.flags, &flag_set.name) {
            continue;
        }
        for b in &flag_set.bit {
            if !m
                .bit
                .iter()
                .any(|x| x.flags == flag_set.name && x.bit == b.bit && ok(&x.to, x.dropped))
            {
                out.push(format!("bit {}.{}", flag_set.name, b.name));
            }
        }
    }
    for st in base.structure.iter().filter(|s| under(&s.axis)) {
        for f in st.field.iter().filter(|f| !f.reserved) {
            let listed = m
                .field
                .iter()
                .any(|x| x.structure == st.name && x.field == f.name && ok(&x.to, x.dropped));
            if !listed && !carried(|c| &c.structure, &st.name) {
                out.push(format!("field {}.{}", st.name, f.name));
            }
        }
    }
    out
}
