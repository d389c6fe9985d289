//! The migration specifications (S5) onto a major of this spec, lowered into the runtime's
//! migration table: the axis resolved, every `to` read into its parts, a flag bit's `to`
//! resolved to its bit in the new major. A migration onto another major than the axis's
//! current one, or naming an unknown axis, is history (or an error the amendment checker
//! reports) and is left out; so is an entry whose `to` does not resolve (`s5-unknown-target`).

use crate::model::{Axis, AxisId, FlagSet, Migration};
use crate::raw::migration::Migration as RawMigration;

/// The migrations onto the current major of their axis.
pub fn lower(
    raw: &[(String, RawMigration)],
    axes: &[Axis],
    flag_sets: &[FlagSet],
) -> Vec<Migration> {
    let mut out = Vec::new();
    for (file, m) in raw {
        let Some(i) = axes.iter().position(|a| a.name == m.migration.axis) else {
            continue;
        };
        if u16::from(axes[i].current.major) != m.migration.to {
            continue;
        }
        let tags = m
            .tag
            .iter()
            .map(|t| t.get_ref())
            .filter(|t| t.dropped || t.to.is_some())
            .filter_map(|t| {
                let to = match &t.to {
                    Some(to) if !t.dropped => Some(tag_target(to)?),
                    _ => None,
                };
                Some(((t.space.clone(), t.value), to))
            })
            .collect();
        let bits = m
            .bit
            .iter()
            .map(|b| b.get_ref())
            .filter(|b| b.dropped || b.to.is_some())
            .filter_map(|b| {
                let to = match &b.to {
                    Some(to) if !b.dropped => Some(bit_target(to, flag_sets)?),
                    _ => None,
                };
                Some(((b.flags.clone(), b.bit), to))
            })
            .collect();
        let fields = m
            .field
            .iter()
            .map(|f| f.get_ref())
            .filter(|f| f.dropped || f.to.is_some())
            .filter_map(|f| {
                let to = match &f.to {
                    Some(to) if !f.dropped => Some(field_target(to)?),
                    _ => None,
                };
                Some(((f.structure.clone(), f.field.clone()), to))
            })
            .collect();
        out.push(Migration {
            file: file.clone(),
            axis: AxisId(i as u32),
            from: m.migration.from,
            to: m.migration.to,
            note: m.migration.note.clone(),
            tags,
            bits,
            fields,
        });
    }
    out
}

/// `"SPACE 0xNN"` (or a decimal value).
fn tag_target(to: &str) -> Option<(String, u32)> {
    let (space, value) = to.trim().split_once(char::is_whitespace)?;
    let value = value.trim();
    let value = match value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(&hex.replace('_', ""), 16).ok()?,
        None => value.parse().ok()?,
    };
    Some((space.to_string(), value))
}

/// `"FLAGS BIT_NAME"`: the bit of that name in the new major's flag set.
fn bit_target(to: &str, flag_sets: &[FlagSet]) -> Option<(String, u32)> {
    let (set, name) = to.trim().split_once(char::is_whitespace)?;
    let set = flag_sets.iter().find(|f| f.name == set)?;
    let bit = set.bits.iter().find(|b| b.name == name.trim())?;
    Some((set.name.clone(), bit.bit))
}

/// `"STRUCTURE.FIELD"`.
fn field_target(to: &str) -> Option<(String, String)> {
    let (s, f) = to.trim().split_once('.')?;
    Some((s.to_string(), f.to_string()))
}
