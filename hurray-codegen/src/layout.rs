//! The layout pass: computes every field's position and size and every structure's size,
//! and compares them with the offsets and sizes the TOML declares.

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::model::*;

/// Compute positions and sizes in place; report declared offsets and sizes that disagree.
pub fn compute(spec: &mut Spec, diags: &mut Diagnostics) {
    let n = spec.structures.len();
    let mut memo: Vec<Option<Option<Affine>>> = vec![None; n];
    let mut in_progress = vec![false; n];
    for i in 0..n {
        struct_size(spec, StructId(i as u32), &mut memo, &mut in_progress);
    }
    for i in 0..n {
        let declared = spec.structures[i].size.clone();
        let sizes: Vec<Option<Affine>> = spec.structures[i]
            .fields
            .iter()
            .map(|f| field_size(spec, &spec.structures[i], f, &memo))
            .collect();
        let s = &mut spec.structures[i];
        let mut pos = Some(Affine::constant(0));
        for (f, size) in s.fields.iter_mut().zip(sizes) {
            f.position = match &pos {
                Some(p) => Position::Offset(p.clone()),
                None => Position::Sequential,
            };
            f.size = size.clone();
            if let Some((decl, location)) = &f.declared_offset {
                match &pos {
                    Some(p) if p == decl => {}
                    Some(p) => {
                        let diff = decl.sub(p);
                        let (lint, what) = match diff.as_constant() {
                            Some(d) if d > 0 => (&lints::OFFSET_GAP, format!("leaves a {d}-byte gap")),
                            Some(d) => (&lints::OFFSET_OVERLAP, format!("overlaps the previous field by {} byte(s)", -d)),
                            None => (&lints::OFFSET_GAP, "disagrees with the fields before it".to_string()),
                        };
                        diags.push(
                            Diagnostic::new(lint, Some(*location), format!("`{}` is declared at offset {decl}, which {what}", f.name))
                                .help(format!("the fields before it end at {p}: declare `offset = \"{p}\"` or fix the sizes before it")),
                        );
                    }
                    None => diags.push(
                        Diagnostic::new(&lints::OFFSET_GAP, Some(*location), format!("`{}` follows a part whose size depends on data, so it has no fixed offset", f.name))
                            .help("remove `offset`: the field's position is after the part before it"),
                    ),
                }
            }
            pos = match (&pos, &size, &f.presence) {
                (Some(p), Some(z), Presence::Always) => Some(p.add(z)),
                _ => None,
            };
        }
        let computed = pos;
        if let Some(decl) = declared
            && computed.as_ref() != Some(&decl)
        {
            let shown = computed
                .as_ref()
                .map_or("a size that depends on data".to_string(), |c| {
                    format!("{c} bytes")
                });
            diags.push(
                Diagnostic::new(
                    &lints::SIZE_MISMATCH,
                    Some(s.span),
                    format!(
                        "structure `{}` declares size {decl} but its fields add up to {shown}",
                        s.name
                    ),
                )
                .help("fix the field sizes or the declared `size`"),
            );
        }
        s.size = computed;
    }
}

/// The encoded size of one field, as a linear expression in params and count fields; `None`
/// when it depends on data (dispatch, `rest`, a structure of variable size).
fn field_size(
    spec: &Spec,
    s: &Structure,
    f: &Field,
    memo: &[Option<Option<Affine>>],
) -> Option<Affine> {
    let elem = match &f.ty {
        FieldType::Prim(p) => Affine::constant(p.size() as i64),
        FieldType::Bytes | FieldType::Utf8 => Affine::constant(1),
        FieldType::Tag(space) => Affine::constant(spec.space(*space).width.bytes() as i64),
        FieldType::Flags(set) => Affine::constant(spec.flag_set(*set).width.bytes() as i64),
        // A nested structure's params are bound by name in the enclosing scope, so its size
        // expression carries over unchanged.
        FieldType::Struct(id) => memo[id.index()].clone().flatten()?,
        FieldType::Dispatch { .. } => return None,
    };
    match &f.count {
        None => Some(elem),
        Some(Count::Const(n)) => Some(elem.scale(*n as i64)),
        Some(Count::Param(p)) => elem.times_count(&Affine::var(p, 1)),
        Some(Count::Field(i)) => elem.times_count(&Affine::var(&s.fields[*i].name, 1)),
        Some(Count::Rest) => None,
    }
}

fn struct_size(
    spec: &Spec,
    id: StructId,
    memo: &mut Vec<Option<Option<Affine>>>,
    in_progress: &mut Vec<bool>,
) -> Option<Affine> {
    if let Some(v) = &memo[id.index()] {
        return v.clone();
    }
    if in_progress[id.index()] {
        return None;
    }
    in_progress[id.index()] = true;
    let s = spec.structure(id);
    let mut total = Some(Affine::constant(0));
    for f in &s.fields {
        if let FieldType::Struct(inner) = f.ty {
            struct_size(spec, inner, memo, in_progress);
        }
        let size = field_size(spec, s, f, memo);
        total = match (total, size, &f.presence) {
            (Some(t), Some(z), Presence::Always) => Some(t.add(&z)),
            _ => None,
        };
    }
    in_progress[id.index()] = false;
    memo[id.index()] = Some(total.clone());
    total
}
