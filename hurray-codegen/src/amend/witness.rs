//! Byte witnesses: a concrete byte sequence, built from the released spec, that a reader of
//! the amended spec reads differently, with both readings side by side.

use std::collections::BTreeMap;

use super::snapshot::{SSpace, SStructure, STag, Snapshot};
use crate::diag::{Witness, WitnessRow, hex};
use crate::model::Affine;

/// A tag value rebound or removed.
pub fn tag(space: &SSpace, old: &STag, new: Option<&STag>) -> Witness {
    let width = match space.width.as_str() {
        "u16" => 2,
        "u32" => 4,
        _ => 1,
    };
    let bytes = old.value.to_le_bytes()[..width].to_vec();
    let old_reading = format!("`{}`: {}", old.name, old.meaning);
    let new_reading = match new {
        Some(t) if t.name == old.name && t.meaning == old.meaning => {
            format!("`{}`: {} ({})", t.name, t.meaning, t.identity)
        }
        Some(t) => format!("`{}`: {}", t.name, t.meaning),
        None => "unallocated: rejected as unknown".to_string(),
    };
    let old_reading = match new {
        Some(t) if t.name == old.name && t.meaning == old.meaning => {
            format!("{old_reading} ({})", old.identity)
        }
        _ => old_reading,
    };
    Witness {
        what: format!("a `{}` value", space.name),
        bytes: bytes.clone(),
        offset: 0,
        old_label: "released reader".to_string(),
        new_label: "amended reader".to_string(),
        readings: vec![
            format!("the released reader reads {} as {old_reading}", hex(&bytes)),
            format!("the amended reader reads {} as {new_reading}", hex(&bytes)),
        ],
        rows: vec![WitnessRow {
            bytes: hex(&bytes),
            old: old_reading,
            new: new_reading,
            context: false,
        }],
    }
}

/// One scalar leaf of a flattened structure.
#[derive(Clone, Debug)]
struct Leaf {
    name: String,
    offset: u64,
    size: u64,
    ty: String,
}

fn eval(text: &str, env: &BTreeMap<String, Affine>) -> Option<u64> {
    let a = Affine::parse(text)?;
    let v = a.substitute(env)?.as_constant()?;
    u64::try_from(v).ok()
}

/// Flatten a structure into scalar leaves at constant offsets, descending into nested
/// structures and arrays of them; stops at the first field whose place depends on data.
fn flatten(
    snap: &Snapshot,
    s: &SStructure,
    base: u64,
    prefix: &str,
    env: &BTreeMap<String, Affine>,
    out: &mut Vec<Leaf>,
    depth: u32,
) {
    if depth > 4 {
        return;
    }
    for f in &s.field {
        let (Some(off), Some(size)) = (eval(&f.offset, env), eval(&f.size, env)) else {
            return;
        };
        if !f.presence.is_empty() {
            return;
        }
        let name = format!("{prefix}{}", f.name);
        if let Some(inner) = f.ty.strip_prefix("struct:")
            && let Some(st) = snap.structure(inner)
            && f.count.is_empty()
        {
            flatten(
                snap,
                st,
                base + off,
                &format!("{name}."),
                env,
                out,
                depth + 1,
            );
            continue;
        }
        // An array of structures: each element (the environment keeps counts at 1).
        if let Some(inner) = f.ty.strip_prefix("struct:")
            && let Some(st) = snap.structure(inner)
            && let Some(count) = eval(&f.count, env).filter(|&n| n > 0)
        {
            let element = size / count;
            for i in 0..count.min(2) {
                flatten(
                    snap,
                    st,
                    base + off + i * element,
                    &format!("{name}[{i}]."),
                    env,
                    out,
                    depth + 1,
                );
            }
            continue;
        }
        if f.ty.starts_with("dispatch:") {
            return;
        }
        out.push(Leaf {
            name,
            offset: base + off,
            size,
            ty: f.ty.clone(),
        });
    }
}

fn env() -> BTreeMap<String, Affine> {
    // One dimension and one buffer keep the witness small; count fields read as 1.
    let mut m = BTreeMap::new();
    for (k, v) in [("rank", 1), ("buffer_count", 1)] {
        m.insert(k.to_string(), Affine::constant(v));
    }
    m
}

fn read(bytes: &[u8], l: &Leaf) -> String {
    let end = (l.offset + l.size) as usize;
    if end > bytes.len() {
        return format!("{} (past the data)", l.name);
    }
    let b = &bytes[l.offset as usize..end];
    let int = |b: &[u8]| b.iter().rev().fold(0u128, |a, x| (a << 8) | u128::from(*x));
    let v = match l.ty.as_str() {
        "f32" if b.len() == 4 => format!("{:?}", f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        "f64" if b.len() == 8 => {
            format!("{:?}", f64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        }
        "bytes" | "utf8" => hex(b),
        "i8" | "i16" | "i32" | "i64" if b.len() <= 8 => {
            // Sign-extend from the field's width.
            let shift = 128 - 8 * b.len() as u32;
            (((int(b) << shift) as i128) >> shift).to_string()
        }
        _ if b.len() <= 16 => int(b).to_string(),
        _ => hex(b),
    };
    format!("{} = {v}", l.name)
}

/// A reading as words in a sentence: a placeholder reading loses its parentheses.
fn phrase(reading: &str) -> &str {
    reading
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(reading)
}

/// A structure whose released layout the amendment changes: bytes laid out by the released
/// spec (each field holding its own index + 1, its top bit set where the amendment changes its
/// type, then the bytes that follow), read by both.
/// Only the fields the two readers read differently are shown, with one field of context on
/// either side of each differing run; `None` when no field the witness can place (before the
/// first field whose place depends on data) reads differently.
pub fn layout(old: &Snapshot, new: &Snapshot, so: &SStructure, sn: &SStructure) -> Option<Witness> {
    let env = env();
    let mut ol = Vec::new();
    flatten(old, so, 0, "", &env, &mut ol, 0);
    let mut nl = Vec::new();
    flatten(new, sn, 0, "", &env, &mut nl, 0);
    if ol.is_empty() {
        return None;
    }
    let old_end = ol.iter().map(|l| l.offset + l.size).max().unwrap_or(0);
    let new_end = nl.iter().map(|l| l.offset + l.size).max().unwrap_or(0);
    let total = old_end.max(new_end).min(256);
    let mut bytes = vec![0u8; total as usize];
    for (k, l) in ol.iter().enumerate() {
        let mut v = (k as u64 + 1).to_le_bytes();
        // A field whose type changes in place gets its top bit set, where signedness and
        // width read differently.
        let retyped = nl
            .iter()
            .any(|n| n.offset == l.offset && n.size == l.size && n.ty != l.ty);
        if retyped && (1..=8).contains(&l.size) {
            v[l.size as usize - 1] |= 0x80;
        }
        for i in 0..l.size.min(8) {
            if let Some(b) = bytes.get_mut((l.offset + i) as usize) {
                *b = v[i as usize];
            }
        }
    }
    // Bytes past the released structure belong to whatever follows it on the wire.
    for b in bytes.iter_mut().skip(old_end as usize) {
        *b = 0xAB;
    }
    let mut cuts: Vec<(u64, u64)> = ol
        .iter()
        .chain(nl.iter())
        .map(|l| (l.offset, l.size))
        .collect();
    cuts.sort();
    cuts.dedup();
    // Every field either reader places: (start, end, released reading, amended reading).
    let mut all = Vec::new();
    for (off, size) in cuts {
        let end = (off + size).min(total);
        if off >= end {
            continue;
        }
        let find = |ls: &[Leaf]| {
            ls.iter()
                .find(|l| l.offset == off && l.size == size)
                .map(|l| read(&bytes, l))
        };
        let o = find(&ol).unwrap_or_else(|| {
            if off >= old_end {
                "(what follows the structure)".to_string()
            } else {
                "(part of another field)".to_string()
            }
        });
        let n = find(&nl).unwrap_or_else(|| "(part of another field)".to_string());
        all.push((off, end, o, n));
    }
    let differs = |i: usize| all.get(i).is_some_and(|(_, _, o, n)| o != n);
    let shown: Vec<usize> = (0..all.len())
        .filter(|&i| differs(i) || (i > 0 && differs(i - 1)) || differs(i + 1))
        .collect();
    let (&first, &last) = (shown.first()?, shown.last()?);
    let (start, stop) = (all[first].0, all[last].1);
    let rows = shown
        .iter()
        .map(|&i| {
            let (off, end, o, n) = &all[i];
            WitnessRow {
                bytes: format!("{off:>3}: {}", hex(&bytes[*off as usize..*end as usize])),
                old: o.clone(),
                new: n.clone(),
                context: !differs(i),
            }
        })
        .collect();
    let reading = |reader: &str, pick: fn(&(u64, u64, String, String)) -> &String| {
        let parts: Vec<String> = all
            .iter()
            .filter(|(_, _, o, n)| o != n)
            .map(|row| format!("bytes {}–{} as {}", row.0, row.1 - 1, phrase(pick(row))))
            .collect();
        format!("the {reader} reads {}", parts.join(", "))
    };
    Some(Witness {
        what: format!("`{}` laid out by the released spec (rank 1)", so.name),
        bytes: bytes[start as usize..stop as usize].to_vec(),
        offset: start,
        old_label: "released reader".to_string(),
        new_label: "amended reader".to_string(),
        readings: vec![
            reading("released reader", |r| &r.2),
            reading("amended reader", |r| &r.3),
        ],
        rows,
    })
}
