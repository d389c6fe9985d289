//! S5 migration specifications: `spec/migrations/<axis>-<K>-to-<K+1>.toml` maps every field,
//! flag bit and tag value of major K onto major K+1, or marks it dropped.

use std::ops::Range;

use super::snapshot::{SField, Snapshot};
use crate::lints::{self, Lint};
use crate::model::AxisStyle;
use crate::raw::S;

pub use crate::raw::migration::{BitMap, Carry, DIR, FieldMap, Meta, Migration, TagMap};

/// Whether an item on `item_axis` moves with a major bump of `axis` (scheme axes live under
/// `scheme_parent`'s major, RES-6).
pub(super) fn under(base: &Snapshot, axis: &str, item_axis: &str, scheme_parent: &str) -> bool {
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
        m.carry
            .iter()
            .any(|c| pick(c.get_ref()).as_deref() == Some(name))
    };
    for tag_space in base.space.iter().filter(|s| under(&s.axis)) {
        if carried(|c| &c.space, &tag_space.name) {
            continue;
        }
        for t in &tag_space.tag {
            if !m
                .tag
                .iter()
                .map(S::get_ref)
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
                .map(S::get_ref)
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
                .map(S::get_ref)
                .any(|x| x.structure == st.name && x.field == f.name && ok(&x.to, x.dropped));
            if !listed && !carried(|c| &c.structure, &st.name) {
                out.push(format!("field {}.{}", st.name, f.name));
            }
        }
    }
    out
}

/// One thing wrong with a migration specification, at the entry it is about (a byte range of
/// the migration file).
#[derive(Debug)]
pub struct Problem {
    pub lint: &'static Lint,
    pub span: Range<usize>,
    pub message: String,
    pub help: String,
}

/// Which kind of item an entry maps.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ItemKind {
    Tag,
    Bit,
    Field,
}

impl ItemKind {
    /// What an item of this kind is called in a finding.
    fn noun(self) -> &'static str {
        match self {
            ItemKind::Tag => "tag value",
            ItemKind::Bit => "flag bit",
            ItemKind::Field => "field",
        }
    }
}

/// One `[[tag]]`, `[[bit]]` or `[[field]]` entry, as the checks every entry shares see it.
struct Listed<'m> {
    kind: ItemKind,
    span: Range<usize>,
    /// The item within its kind: (space, value), (flag set, bit) or (structure, field).
    key: (String, String),
    what: String,
    to: &'m Option<String>,
    dropped: bool,
}

/// S5, semantically: every entry names an item of the prior major (`base`) on the migrated
/// axis, every `to` names an item of the new major (`cur`) whose type can hold the value, no
/// item is mapped twice or both mapped and dropped, and a carried space, flag set or
/// structure has no item (not listed otherwise) that changed.
pub fn problems(
    m: &Migration,
    base: &Snapshot,
    cur: &Snapshot,
    axis: &str,
    scheme_parent: &str,
) -> Vec<Problem> {
    let under = |item_axis: &str| under(base, axis, item_axis, scheme_parent);
    let mut out = Vec::new();
    let mut problem = |lint: &'static Lint, span: Range<usize>, message: String, help: &str| {
        out.push(Problem {
            lint,
            span,
            message,
            help: help.to_string(),
        })
    };
    let unknown_help = "S5 maps the items of the prior major's last release: name one of them (`hurray-spec migration` writes every one)";
    let target_help = "a `to` names an item of the new major: `\"SPACE 0xNN\"` for a tag value, `\"FLAGS BIT_NAME\"` for a flag bit, `\"STRUCTURE.FIELD\"` for a field; or write `dropped = true`";

    // Every entry, whatever it maps, as what the shared checks need; a field also keeps its
    // released type, for the type check.
    let tags = m.tag.iter().map(|e| {
        let x = e.get_ref();
        let known = base
            .space
            .iter()
            .find(|s| s.name == x.space && under(&s.axis))
            .is_some_and(|s| s.tag.iter().any(|t| t.value == x.value));
        let entry = Listed {
            kind: ItemKind::Tag,
            span: e.span(),
            key: (x.space.clone(), x.value.to_string()),
            what: format!("tag {} {:#04x}", x.space, x.value),
            to: &x.to,
            dropped: x.dropped,
        };
        (entry, known.then_some(None))
    });
    let bits = m.bit.iter().map(|e| {
        let x = e.get_ref();
        let known = base
            .flags
            .iter()
            .find(|f| f.name == x.flags && under(&f.axis))
            .is_some_and(|f| f.bit.iter().any(|b| b.bit == x.bit));
        let entry = Listed {
            kind: ItemKind::Bit,
            span: e.span(),
            key: (x.flags.clone(), x.bit.to_string()),
            what: format!("bit {} {}", x.flags, x.bit),
            to: &x.to,
            dropped: x.dropped,
        };
        (entry, known.then_some(None))
    });
    let fields = m.field.iter().map(|e| {
        let x = e.get_ref();
        let old = base
            .structure
            .iter()
            .find(|s| s.name == x.structure && under(&s.axis))
            .and_then(|s| s.field.iter().find(|f| f.name == x.field));
        let entry = Listed {
            kind: ItemKind::Field,
            span: e.span(),
            key: (x.structure.clone(), x.field.clone()),
            what: format!("field {}.{}", x.structure, x.field),
            to: &x.to,
            dropped: x.dropped,
        };
        (entry, old.map(Some))
    });

    let mut seen: Vec<(ItemKind, (String, String))> = Vec::new();
    for (x, old) in tags.chain(bits).chain(fields) {
        // `None`: no such item in the release; `Some(field)`: known (a field's own type).
        let Some(old_field) = old else {
            problem(
                &lints::S5_UNKNOWN_ITEM,
                x.span,
                format!(
                    "{} is no {} of major {} on `{axis}`",
                    x.what,
                    x.kind.noun(),
                    m.migration.from
                ),
                unknown_help,
            );
            continue;
        };
        let key = (x.kind, x.key);
        if seen.contains(&key) {
            problem(
                &lints::S5_CONTRADICTION,
                x.span,
                format!("{} is mapped twice", x.what),
                "map each item once",
            );
            continue;
        }
        seen.push(key);
        let to = match (x.to, x.dropped) {
            (Some(_), true) => {
                problem(
                    &lints::S5_CONTRADICTION,
                    x.span,
                    format!("{} is both mapped (`to`) and dropped", x.what),
                    "write either `to` or `dropped = true`: an item that survives has one counterpart, one that does not has none",
                );
                continue;
            }
            (Some(to), false) if !to.is_empty() => to,
            _ => continue,
        };
        let exists = match x.kind {
            ItemKind::Tag => tag_exists(cur, to),
            ItemKind::Bit => bit_exists(cur, to),
            ItemKind::Field => field(cur, to).is_some(),
        };
        if !exists {
            problem(
                &lints::S5_UNKNOWN_TARGET,
                x.span,
                format!(
                    "{} is mapped to `{to}`, which is no {} of the new major",
                    x.what,
                    x.kind.noun()
                ),
                target_help,
            );
            continue;
        }
        let (Some(old), Some(new)) = (old_field, field(cur, to)) else {
            continue;
        };
        match holds(&old.ty, &new.ty) {
            Holds::All => {}
            Holds::Some => problem(
                &lints::S5_NARROWING,
                x.span,
                format!(
                    "{} ({}) is mapped to `{to}` ({}), which cannot hold every value of it",
                    x.what, old.ty, new.ty
                ),
                "a value outside the new type's range cannot migrate (a migration refuses it, naming the field); widen the new field if such values occur",
            ),
            Holds::None => problem(
                &lints::S5_TYPE_MISMATCH,
                x.span,
                format!(
                    "{} ({}) is mapped to `{to}` ({}), whose type cannot hold its values",
                    x.what, old.ty, new.ty
                ),
                "map it onto a field of a compatible type (an integer onto an integer, a float onto a float, anything else onto the same type), or drop it",
            ),
        }
    }

    for entry in &m.carry {
        let (c, span) = (entry.get_ref(), entry.span());
        let mut changed = Vec::new();
        if let Some(name) = &c.space {
            let Some(old) = base.space.iter().find(|s| &s.name == name) else {
                problem(
                    &lints::S5_UNKNOWN_ITEM,
                    span.clone(),
                    format!("carried space `{name}` is no tag space of the last release"),
                    unknown_help,
                );
                continue;
            };
            // A part of another axis is not migrated: carrying it says nothing.
            if !under(&old.axis) {
                continue;
            }
            let new = cur.space.iter().find(|s| &s.name == name);
            for t in &old.tag {
                let listed = m
                    .tag
                    .iter()
                    .any(|x| x.get_ref().space == *name && x.get_ref().value == t.value);
                let kept = new
                    .and_then(|s| s.tag.iter().find(|n| n.value == t.value))
                    .is_some_and(|n| n.name == t.name);
                if !listed && !kept {
                    changed.push(format!("tag {name} {:#04x} ({})", t.value, t.name));
                }
            }
        }
        if let Some(name) = &c.flags {
            let Some(old) = base.flags.iter().find(|f| &f.name == name) else {
                problem(
                    &lints::S5_UNKNOWN_ITEM,
                    span.clone(),
                    format!("carried flag set `{name}` is no flag set of the last release"),
                    unknown_help,
                );
                continue;
            };
            // A part of another axis is not migrated: carrying it says nothing.
            if !under(&old.axis) {
                continue;
            }
            let new = cur.flags.iter().find(|f| &f.name == name);
            for b in &old.bit {
                let listed = m
                    .bit
                    .iter()
                    .any(|x| x.get_ref().flags == *name && x.get_ref().bit == b.bit);
                let kept = new
                    .and_then(|f| f.bit.iter().find(|n| n.bit == b.bit))
                    .is_some_and(|n| n.name == b.name);
                if !listed && !kept {
                    changed.push(format!("bit {name}.{}", b.name));
                }
            }
        }
        if let Some(name) = &c.structure {
            let Some(old) = base.structure.iter().find(|s| &s.name == name) else {
                problem(
                    &lints::S5_UNKNOWN_ITEM,
                    span.clone(),
                    format!("carried structure `{name}` is no structure of the last release"),
                    unknown_help,
                );
                continue;
            };
            // A part of another axis is not migrated: carrying it says nothing.
            if !under(&old.axis) {
                continue;
            }
            let new = cur.structure.iter().find(|s| &s.name == name);
            for f in old.field.iter().filter(|f| !f.reserved) {
                let listed = m
                    .field
                    .iter()
                    .any(|x| x.get_ref().structure == *name && x.get_ref().field == f.name);
                let now = new.and_then(|s| s.field.iter().find(|n| n.name == f.name));
                if listed {
                    continue;
                }
                match now {
                    None => changed.push(format!("field {name}.{} (removed)", f.name)),
                    Some(n) if n.ty != f.ty => {
                        changed.push(format!("field {name}.{} ({} → {})", f.name, f.ty, n.ty))
                    }
                    Some(n) if n.offset != f.offset || n.size != f.size => changed.push(format!(
                        "field {name}.{} (moved: offset {} size {} → offset {} size {})",
                        f.name, f.offset, f.size, n.offset, n.size
                    )),
                    Some(_) => {}
                }
            }
        }
        if !changed.is_empty() {
            problem(
                &lints::S5_CARRIED_CHANGE,
                span,
                format!(
                    "a carry maps every item it covers to itself, but {} changed in the new major: {}",
                    if changed.len() == 1 {
                        "this one"
                    } else {
                        "these"
                    },
                    changed.join(", ")
                ),
                "list each changed item with its own `[[tag]]`, `[[bit]]` or `[[field]]` entry (`to` or `dropped = true`); the carry then covers the rest",
            );
        }
    }
    out
}

/// Whether `to` (`"SPACE 0xNN"`) names a tag value of `cur`.
fn tag_exists(cur: &Snapshot, to: &str) -> bool {
    let Some((space, value)) = to.split_once(' ') else {
        return false;
    };
    let value = value.trim();
    let parsed = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
        .map_or_else(
            || value.parse::<u32>().ok(),
            |hex| u32::from_str_radix(hex, 16).ok(),
        );
    cur.space
        .iter()
        .find(|s| s.name == space)
        .zip(parsed)
        .is_some_and(|(s, v)| s.tag.iter().any(|t| t.value == v))
}

/// Whether `to` (`"FLAGS BIT_NAME"`) names a flag bit of `cur`.
fn bit_exists(cur: &Snapshot, to: &str) -> bool {
    let Some((flags, bit)) = to.split_once(' ') else {
        return false;
    };
    cur.flags
        .iter()
        .find(|f| f.name == flags)
        .is_some_and(|f| f.bit.iter().any(|b| b.name == bit.trim()))
}

/// The field `to` (`"STRUCTURE.FIELD"`) names in `cur`.
fn field<'s>(cur: &'s Snapshot, to: &str) -> Option<&'s SField> {
    let (structure, name) = to.split_once('.')?;
    cur.structure
        .iter()
        .find(|s| s.name == structure)?
        .field
        .iter()
        .find(|f| f.name == name)
}

/// How much of an old field type's values a new one holds.
#[derive(Debug, PartialEq, Eq)]
enum Holds {
    All,
    Some,
    None,
}

/// Whether type `new` holds the values of type `old` (canonical type words of a release
/// record: `u8`…`u64`, `i8`…`i64`, `f16`…`f64`, else compared whole).
fn holds(old: &str, new: &str) -> Holds {
    if old == new {
        return Holds::All;
    }
    let number = |t: &str| -> Option<(char, u32)> {
        let kind = t.chars().next()?;
        let bits = t.get(1..)?.parse().ok()?;
        matches!(kind, 'u' | 'i' | 'f').then_some((kind, bits))
    };
    match (number(old), number(new)) {
        (Some(('f', a)), Some(('f', b))) => {
            if b >= a {
                Holds::All
            } else {
                Holds::Some
            }
        }
        (Some((ka @ ('u' | 'i'), a)), Some((kb @ ('u' | 'i'), b))) => {
            let all = match (ka, kb) {
                ('u', 'i') => b > a,
                ('i', 'u') => false,
                _ => b >= a,
            };
            if all { Holds::All } else { Holds::Some }
        }
        _ => Holds::None,
    }
}

/// The file name of the migration of `axis` from major `from` (`descriptor-1-to-2.toml`).
pub fn file_name(axis: &str, from: u16) -> String {
    format!("{axis}-{from}-to-{}.toml", from + 1)
}

/// The complete skeleton of the migration of `axis` from the major of `base` (the last
/// release) to the next, against `cur` (the amended spec): every space, flag set and
/// structure on the axis whose items all survive unchanged is carried whole; every item of
/// the others gets its own entry, `to` itself where it survives unchanged, and `to = ""` with
/// a comment saying what changed where the editor must decide (`check` lists those as
/// unmapped until they are filled). `None` when `base` has no such axis. The text has no
/// schema directive: `hurray-spec schema` adds it.
pub fn scaffold(
    base: &Snapshot,
    cur: &Snapshot,
    axis: &str,
    scheme_parent: &str,
) -> Option<String> {
    let from = base
        .axis
        .iter()
        .find(|a| a.name == axis)
        .and_then(|a| a.version.split('.').next()?.parse::<u16>().ok())?;
    let under = |item_axis: &str| under(base, axis, item_axis, scheme_parent);
    let mut carry = String::new();
    let mut entries = String::new();
    let quote = |s: &str| toml_string(s);
    for old in base.space.iter().filter(|s| under(&s.axis)) {
        let new = cur.space.iter().find(|s| s.name == old.name);
        let kept = |value: u32, name: &str| {
            new.and_then(|s| s.tag.iter().find(|t| t.value == value))
                .is_some_and(|t| t.name == name)
        };
        if old.tag.iter().all(|t| kept(t.value, &t.name)) {
            carry.push_str(&format!("[[carry]]\nspace = {}\n\n", quote(&old.name)));
            continue;
        }
        for t in &old.tag {
            entries.push_str(&format!(
                "[[tag]]\nspace = {}\nvalue = {:#04x}\n",
                quote(&old.name),
                t.value
            ));
            if kept(t.value, &t.name) {
                entries.push_str(&format!(
                    "to = {}\n\n",
                    quote(&format!("{} {:#04x}", old.name, t.value))
                ));
            } else {
                entries.push_str(&format!(
                    "to = \"\"  # `{}` is not {:#04x} in the new major: write `to = \"{} 0xNN\"` or `dropped = true`\n\n",
                    t.name, t.value, old.name
                ));
            }
        }
    }
    for old in base.flags.iter().filter(|f| under(&f.axis)) {
        let new = cur.flags.iter().find(|f| f.name == old.name);
        let kept = |bit: u32, name: &str| {
            new.and_then(|f| f.bit.iter().find(|b| b.bit == bit))
                .is_some_and(|b| b.name == name)
        };
        if old.bit.iter().all(|b| kept(b.bit, &b.name)) {
            carry.push_str(&format!("[[carry]]\nflags = {}\n\n", quote(&old.name)));
            continue;
        }
        for b in &old.bit {
            entries.push_str(&format!(
                "[[bit]]\nflags = {}\nbit = {}\n",
                quote(&old.name),
                b.bit
            ));
            if kept(b.bit, &b.name) {
                entries.push_str(&format!(
                    "to = {}\n\n",
                    quote(&format!("{} {}", old.name, b.name))
                ));
            } else {
                entries.push_str(&format!(
                    "to = \"\"  # `{}` is not bit {} in the new major: write `to = \"{} BIT_NAME\"` or `dropped = true`\n\n",
                    b.name, b.bit, old.name
                ));
            }
        }
    }
    for old in base.structure.iter().filter(|s| under(&s.axis)) {
        let new = cur.structure.iter().find(|s| s.name == old.name);
        let change = |f: &SField| -> Option<String> {
            match new.and_then(|s| s.field.iter().find(|n| n.name == f.name)) {
                None => Some("removed".to_string()),
                Some(n) if n.ty != f.ty => Some(format!("type {} → {}", f.ty, n.ty)),
                Some(n) if n.offset != f.offset || n.size != f.size => Some(format!(
                    "offset {} size {} → offset {} size {}",
                    f.offset, f.size, n.offset, n.size
                )),
                Some(_) => None,
            }
        };
        let fields: Vec<&SField> = old.field.iter().filter(|f| !f.reserved).collect();
        if fields.iter().all(|f| change(f).is_none()) {
            carry.push_str(&format!("[[carry]]\nstructure = {}\n\n", quote(&old.name)));
            continue;
        }
        for f in fields {
            entries.push_str(&format!(
                "[[field]]\nstructure = {}\nfield = {}\n",
                quote(&old.name),
                quote(&f.name)
            ));
            match change(f) {
                None => entries.push_str(&format!("to = {}\n\n", quote(&format!("{}.{}", old.name, f.name)))),
                Some(what) => entries.push_str(&format!(
                    "to = \"\"  # {what}: write `to = \"STRUCTURE.FIELD\"` (a type that holds its values) or `dropped = true`\n\n"
                )),
            }
        }
    }
    Some(format!(
        "[migration]\naxis = {}\nfrom = {from}\nto = {}\nnote = \"\"  # what changes and why\n\n\
         # Items whose every part survives unchanged, carried whole.\n{carry}\
         # Items of the parts that changed, one entry each: fill every empty `to`.\n{entries}",
        quote(axis),
        from + 1
    ))
}

/// `s` as a TOML basic string.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::{Holds, holds};

    #[test]
    fn integer_and_float_types_hold_what_their_range_holds() {
        assert_eq!(holds("u32", "u64"), Holds::All);
        assert_eq!(holds("u32", "i64"), Holds::All);
        assert_eq!(holds("u64", "i64"), Holds::Some);
        assert_eq!(holds("i8", "u64"), Holds::Some);
        assert_eq!(holds("f32", "f64"), Holds::All);
        assert_eq!(holds("f64", "f32"), Holds::Some);
        assert_eq!(holds("u32", "f32"), Holds::None);
        assert_eq!(holds("bytes", "u8"), Holds::None);
        assert_eq!(holds("tag:device", "tag:device"), Holds::All);
    }
}
