//! S5 migration specifications: `spec/migrations/<axis>-<K>-to-<K+1>.toml` maps every field,
//! flag bit and tag value of major K onto major K+1, or marks it dropped.

use serde::Deserialize;

use super::snapshot::Snapshot;
use crate::model::AxisStyle;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Migration {
    pub migration: Meta,
    #[serde(default)]
    pub tag: Vec<TagMap>,
    #[serde(default)]
    pub bit: Vec<BitMap>,
    #[serde(default)]
    pub field: Vec<FieldMap>,
    /// Whole spaces, flag sets or structures carried over unchanged.
    #[serde(default)]
    pub carry: Vec<Carry>,
}

/// `[[carry]] space = "layout"` (or `flags = …`, `structure = …`): every item of it not listed
/// otherwise maps to itself in the new major.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Carry {
    pub space: Option<String>,
    pub flags: Option<String>,
    pub structure: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    pub axis: String,
    pub from: u16,
    pub to: u16,
    #[serde(default)]
    pub note: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagMap {
    pub space: String,
    pub value: u32,
    /// What it becomes in the new major (`"layout 0x01"`), unless dropped.
    pub to: Option<String>,
    #[serde(default)]
    pub dropped: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BitMap {
    pub flags: String,
    pub bit: u32,
    pub to: Option<String>,
    #[serde(default)]
    pub dropped: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldMap {
    pub structure: String,
    pub field: String,
    pub to: Option<String>,
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
