//! Checks that need the tensor's buffers, run when the data is at hand (a file): sparse
//! index structures, parameter arrays, and reserved element encodings. These are the
//! sheets' SHOULD-checks (`validate`): rejected unless the reader is permissive.

use std::ops::ControlFlow;

use super::Facts;
use super::address::{self, Undetermined};
use super::size::Integer;
use crate::ctx::Ctx;
use crate::error::Error;
use crate::generated::rules::Rule;
use crate::generated::tags::{BlockTableIndexType, ElementType, FloatFormat, LayoutClass};
use crate::structures::{LayoutVariantView, SchemeVariantView};
use crate::wire::{Array, TagClass, TagSpace};

/// The bytes of every buffer of one tensor, with their absolute offsets.
#[derive(Clone, Copy, Debug)]
pub struct Buffers<'d> {
    /// Each buffer's bytes, in buffer-table order.
    pub slices: &'d [&'d [u8]],
    /// Each buffer's absolute offset, for errors.
    pub offsets: &'d [u64],
}

impl<'d> Buffers<'d> {
    fn get(&self, i: u64) -> Option<(&'d [u8], u64)> {
        let i = usize::try_from(i).ok()?;
        Some((self.slices.get(i)?, *self.offsets.get(i)?))
    }
}

fn u64s(b: &[u8]) -> Array<'_, u64> {
    Array::new(&b[..b.len() / 8 * 8])
}

fn idx(b: &[u8], wide: bool) -> Vec<u64> {
    if wide {
        u64s(b).to_vec()
    } else {
        Array::<u32>::new(&b[..b.len() / 4 * 4])
            .iter()
            .map(u64::from)
            .collect()
    }
}

/// Run every data check that applies to the descriptor.
pub fn check(f: &Facts<'_, '_>, data: Buffers<'_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    match f.v.layout_fields() {
        LayoutVariantView::Coo(c) => coo(f, data, ctx, c.nnz().to(), c.is_sorted().wide() == 1)?,
        LayoutVariantView::Csr(_) => compressed(
            f,
            data,
            ctx,
            0,
            [Rule::Cr5, Rule::Cr6, Rule::Cr7, Rule::Cr8],
        )?,
        LayoutVariantView::Csc(_) => compressed(
            f,
            data,
            ctx,
            1,
            [Rule::Cc5, Rule::Cc6, Rule::Cc7, Rule::Cc8],
        )?,
        LayoutVariantView::Csf(c) => csf(
            f,
            data,
            ctx,
            c.nnz().to(),
            &c.mode_order().iter().map(Integer::to).collect::<Vec<u32>>(),
        )?,
        LayoutVariantView::BlockPaged(p) => {
            let wide = matches!(
                BlockTableIndexType::classify(p.block_table_index_type().raw()),
                TagClass::Known(BlockTableIndexType::U64)
            );
            paged(data, ctx, p.num_seqs().to(), p.num_pages().to(), wide)?
        }
        _ => {}
    }
    parameters(f, data, ctx)?;
    e8m0(f, data, ctx)?;
    Ok(())
}

/// CO-5 (bounds) and CO-6 (duplicates).
fn coo(
    f: &Facts<'_, '_>,
    data: Buffers<'_>,
    ctx: &mut Ctx<'_>,
    nnz: u64,
    sorted: bool,
) -> Result<(), Error> {
    let Some((b, base)) = data.get(1) else {
        return Ok(());
    };
    let ind = u64s(b);
    let rank = f.rank as usize;
    // CO-8 (a size rule, rejecting in every mode) has matched the buffer to nnz × rank.
    let entries = usize::try_from(nnz)
        .ok()
        .filter(|n| rank > 0 && n.checked_mul(rank) == Some(ind.len()));
    let Some(nnz) = entries else {
        return Ok(());
    };
    for (i, x) in ind.iter().enumerate() {
        let d = i % rank;
        if x >= f.shape[d] {
            ctx.violation(
                Rule::Co5,
                base + 8 * i as u64,
                format!(
                    "coordinate {x} of entry {} is out of bounds on dimension {d} (size {})",
                    i / rank,
                    f.shape[d]
                ),
            )?;
            return Ok(());
        }
    }
    let tuple =
        |i: usize| -> Vec<u64> { (0..rank).filter_map(|d| ind.get(i * rank + d)).collect() };
    if sorted {
        for i in 1..nnz {
            if tuple(i - 1) >= tuple(i) {
                ctx.violation(
                    Rule::Co6,
                    base + (8 * i * rank) as u64,
                    format!(
                        "entries {} and {i} are not strictly increasing although is_sorted is set",
                        i - 1
                    ),
                )?;
                return Ok(());
            }
        }
    } else {
        let mut all: Vec<(Vec<u64>, usize)> = (0..nnz).map(|i| (tuple(i), i)).collect();
        all.sort();
        for w in all.windows(2) {
            if w[0].0 == w[1].0 {
                ctx.violation(
                    Rule::Co6,
                    base + (8 * w[1].1 * rank) as u64,
                    format!(
                        "entries {} and {} share coordinates {:?}",
                        w[0].1, w[1].1, w[0].0
                    ),
                )?;
                return Ok(());
            }
        }
    }
    Ok(())
}

/// CR-5…CR-8 / CC-5…CC-8: pointer array and indices of a compressed rank-2 tensor.
fn compressed(
    f: &Facts<'_, '_>,
    data: Buffers<'_>,
    ctx: &mut Ctx<'_>,
    dim: usize,
    rules: [Rule; 4],
) -> Result<(), Error> {
    let (Some((ib, ibase)), Some((pb, pbase))) = (data.get(1), data.get(2)) else {
        return Ok(());
    };
    let (ind, ptr) = (u64s(ib), u64s(pb));
    let nnz = ind.len() as u64;
    let bound = f.shape[1 - dim];
    let n = ptr.len();
    if n == 0 {
        return Ok(());
    }
    if ptr.get(0) != Some(0) || ptr.get(n - 1) != Some(nnz) {
        ctx.violation(
            rules[0],
            pbase,
            format!(
                "pointers start at {:?} and end at {:?}; they must run from 0 to nnz = {nnz}",
                ptr.get(0),
                ptr.get(n - 1)
            ),
        )?;
        return Ok(());
    }
    for i in 0..n - 1 {
        let (a, b) = (ptr.get(i).unwrap_or(0), ptr.get(i + 1).unwrap_or(0));
        if a > b {
            ctx.violation(
                rules[1],
                pbase + 8 * (i as u64 + 1),
                format!("pointer {} ({b}) is below pointer {i} ({a})", i + 1),
            )?;
            return Ok(());
        }
        let mut prev: Option<u64> = None;
        for j in a..b.min(nnz) {
            let x = ind.get(j as usize).unwrap_or(0);
            if x >= bound {
                ctx.violation(
                    rules[3],
                    ibase + 8 * j,
                    format!("index {x} is out of bounds (size {bound})"),
                )?;
                return Ok(());
            }
            if prev.is_some_and(|p| p >= x) {
                ctx.violation(
                    rules[2],
                    ibase + 8 * j,
                    format!("indices of slice {i} are not strictly increasing at entry {j}"),
                )?;
                return Ok(());
            }
            prev = Some(x);
        }
    }
    Ok(())
}

/// CF-7…CF-12: the per-level pos/crd arrays of a CSF tensor.
fn csf(
    f: &Facts<'_, '_>,
    data: Buffers<'_>,
    ctx: &mut Ctx<'_>,
    nnz: u64,
    mode_order: &[u32],
) -> Result<(), Error> {
    let rank = f.rank as usize;
    let mut parents: u64 = 1; // n_{-1}
    for l in 0..rank {
        let (Some((pb, pbase)), Some((cb, cbase))) =
            (data.get(2 * l as u64 + 1), data.get(2 * l as u64 + 2))
        else {
            return Ok(());
        };
        let (pos, crd) = (u64s(pb), u64s(cb));
        if pos.len() as u64 != parents + 1 {
            ctx.violation(
                Rule::Cf9,
                pbase,
                format!(
                    "pos_{l} has {} entries; level {l} has {parents} parent(s), so it needs {}",
                    pos.len(),
                    parents + 1
                ),
            )?;
            return Ok(());
        }
        if pos.get(0) != Some(0) {
            ctx.violation(
                Rule::Cf7,
                pbase,
                format!("pos_{l}[0] is {:?}, not 0", pos.get(0)),
            )?;
            return Ok(());
        }
        let last = pos.get(pos.len() - 1).unwrap_or(0);
        if nnz == 0 && last != 0 {
            // CF-12: an empty tensor has pos_0 = [0, 0], so every level below is empty too.
            ctx.violation(
                Rule::Cf12,
                pbase + 8 * parents,
                format!("nnz is 0 but pos_{l} ends at {last}, not 0"),
            )?;
            return Ok(());
        }
        if last != crd.len() as u64 {
            ctx.violation(
                Rule::Cf9,
                pbase + 8 * parents,
                format!(
                    "pos_{l} ends at {last} but crd_{l} holds {} coordinates",
                    crd.len()
                ),
            )?;
            return Ok(());
        }
        let bound = mode_order
            .get(l)
            .and_then(|m| f.shape.get(*m as usize))
            .copied()
            .unwrap_or(0);
        for k in 0..parents as usize {
            let (a, b) = (pos.get(k).unwrap_or(0), pos.get(k + 1).unwrap_or(0));
            if a > b {
                ctx.violation(
                    Rule::Cf8,
                    pbase + 8 * (k as u64 + 1),
                    format!("pos_{l} decreases at {}", k + 1),
                )?;
                return Ok(());
            }
            let mut prev: Option<u64> = None;
            for j in a..b {
                let x = crd.get(j as usize).unwrap_or(0);
                if x >= bound {
                    ctx.violation(
                        Rule::Cf11,
                        cbase + 8 * j,
                        format!("crd_{l}[{j}] = {x} is out of bounds (size {bound})"),
                    )?;
                    return Ok(());
                }
                if prev.is_some_and(|p| p >= x) {
                    ctx.violation(
                        Rule::Cf10,
                        cbase + 8 * j,
                        format!("crd_{l} is not strictly increasing within parent {k}"),
                    )?;
                    return Ok(());
                }
                prev = Some(x);
            }
        }
        parents = crd.len() as u64;
    }
    if parents != nnz {
        let rule = if nnz == 0 { Rule::Cf12 } else { Rule::Cf9 };
        ctx.violation(
            rule,
            data.get(2 * rank as u64).map_or(0, |(_, b)| b),
            format!("the leaf level holds {parents} entries but nnz is {nnz}"),
        )?;
    }
    Ok(())
}

/// BP-7…BP-9: sequence pointers and page ids of a block-paged tensor.
fn paged(
    data: Buffers<'_>,
    ctx: &mut Ctx<'_>,
    num_seqs: u32,
    num_pages: u64,
    wide: bool,
) -> Result<(), Error> {
    let (Some((tb, tbase)), Some((sb, sbase))) = (data.get(1), data.get(2)) else {
        return Ok(());
    };
    let (table, seq) = (idx(tb, wide), idx(sb, wide));
    let w = if wide { 8 } else { 4 };
    if seq.len() != num_seqs as usize + 1 {
        return Ok(());
    }
    if seq[0] != 0 || seq[num_seqs as usize] != table.len() as u64 {
        ctx.violation(
            Rule::Bp7,
            sbase,
            format!(
                "seq_ptr runs from {} to {}; it must run from 0 to the block_table's {} entries",
                seq[0],
                seq[num_seqs as usize],
                table.len()
            ),
        )?;
        return Ok(());
    }
    for (i, pair) in seq.windows(2).enumerate() {
        if pair[0] > pair[1] {
            ctx.violation(
                Rule::Bp8,
                sbase + w * (i as u64 + 1),
                format!("seq_ptr decreases at {}", i + 1),
            )?;
            return Ok(());
        }
    }
    for (k, p) in table.iter().enumerate() {
        if *p >= num_pages {
            ctx.violation(
                Rule::Bp9,
                tbase + w * k as u64,
                format!("block_table[{k}] = {p} is not below num_pages {num_pages}"),
            )?;
            return Ok(());
        }
    }
    Ok(())
}

/// PC-9/PC-10, PB-8/PB-11, NF-8, MX-8: the values in parameter buffers.
fn parameters(f: &Facts<'_, '_>, data: Buffers<'_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let Some(q) = f.v.quantization() else {
        return Ok(());
    };
    let storage = match ElementType::classify(f.type_tag) {
        TagClass::Known(t) => t,
        _ => return Ok(()),
    };
    let scale = f
        .params
        .iter()
        .find(|p| p.name == "scale")
        .and_then(|p| data.get(p.index));
    let zp = f
        .params
        .iter()
        .find(|p| p.name == "zero_point")
        .map(|p| p.index);
    let shared = f.params.iter().find(|p| p.name == "scale").map(|p| p.index) == zp;
    let Some((sb, sbase)) = scale else {
        return Ok(());
    };
    match q.payload() {
        SchemeVariantView::PerChannelAffine(_) => {
            let n = if shared { sb.len() / 8 } else { sb.len() / 4 };
            f32_scales(ctx, &sb[..n * 4], sbase, Rule::Pc9, false)?;
            zero_points(
                ctx,
                storage,
                data,
                zp,
                if shared { n * 4 } else { 0 },
                Rule::Pc10,
            )?;
        }
        SchemeVariantView::PerBlockAffine(p) => {
            // The scale type is one the table allows (PB-10: float16, bfloat16, float32); its
            // width and float format are the table's (tags/element_type.toml).
            let TagClass::Known(scale) = ElementType::classify(p.scale_type_tag().raw()) else {
                return Ok(());
            };
            let Some(format) = scale.float_format() else {
                return Ok(());
            };
            let bytes = (scale.bits() / 8).max(1) as usize;
            let n = if shared {
                sb.len() / (bytes + 4)
            } else {
                sb.len() / bytes
            };
            for i in 0..n {
                let at = sbase + (i * bytes) as u64;
                let raw = sb[i * bytes..(i + 1) * bytes]
                    .iter()
                    .rev()
                    .fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
                let (finite, zero) = finite_and_zero(format, raw);
                if !finite || zero {
                    ctx.violation(
                        Rule::Pb8,
                        at,
                        format!("scale {i} is {}", if zero { "zero" } else { "not finite" }),
                    )?;
                    break;
                }
            }
            zero_points(
                ctx,
                storage,
                data,
                zp,
                if shared { n * bytes } else { 0 },
                Rule::Pb11,
            )?;
        }
        SchemeVariantView::Nf4(_) => f32_scales(ctx, sb, sbase, Rule::Nf8, true)?,
        SchemeVariantView::Mxfp(_) => {
            if let Some(i) = sb.iter().position(|b| *b == 0x00 || *b == 0xFF) {
                ctx.violation(
                    Rule::Mx8,
                    sbase + i as u64,
                    format!(
                        "MXFP scale {i} is the reserved byte {:#04x} (RES-20)",
                        sb[i]
                    ),
                )?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `(finite, zero)` of the raw bits of a float in format `f` (an all-ones exponent is an
/// infinity or a NaN; zero is a zero magnitude, either sign).
fn finite_and_zero(f: FloatFormat, raw: u64) -> (bool, bool) {
    let (e, m) = (f.exponent.min(63), f.mantissa.min(63));
    let exp_mask = ((1u64 << e) - 1) << m;
    let magnitude = (1u64 << (e + m).min(63)) - 1;
    (raw & exp_mask != exp_mask, raw & magnitude == 0)
}

fn f32_scales(
    ctx: &mut Ctx<'_>,
    b: &[u8],
    base: u64,
    rule: Rule,
    non_negative: bool,
) -> Result<(), Error> {
    for (i, c) in b.chunks_exact(4).enumerate() {
        let x = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let bad = if non_negative {
            !x.is_finite() || x < 0.0
        } else {
            !x.is_finite() || x == 0.0
        };
        if bad {
            ctx.violation(rule, base + 4 * i as u64, format!("scale {i} is {x}"))?;
            break;
        }
    }
    Ok(())
}

fn zero_points(
    ctx: &mut Ctx<'_>,
    storage: ElementType,
    data: Buffers<'_>,
    index: Option<u64>,
    skip: usize,
    rule: Rule,
) -> Result<(), Error> {
    let Some((b, base)) = index.and_then(|i| data.get(i)) else {
        return Ok(());
    };
    for (i, c) in b[skip.min(b.len())..].chunks_exact(4).enumerate() {
        let z = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if !super::zero_point_in_range(storage, i64::from(z)) {
            ctx.violation(
                rule,
                base + (skip + 4 * i) as u64,
                format!("zero point {i} = {z} is outside {}'s range", storage.name()),
            )?;
            break;
        }
    }
    Ok(())
}

/// DAT-3: float8_e8m0 element bytes 0x00 and 0xFF are invalid (RES-20), in every layout:
/// every element a dense layout addresses in buffer 0 (padding that layouts.md says is never
/// read excepted), and every stored value of a sparse one. The one exception the spec makes
/// is block-paged, whose token slots cannot be told from unused ones (BP-16, RES-50).
fn e8m0(f: &Facts<'_, '_>, data: Buffers<'_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    if f.type_tag != ElementType::Float8E8m0.value() {
        return Ok(());
    }
    let Some((b, base)) = data.get(0) else {
        return Ok(());
    };
    let reserved = |x: u8| x == 0x00 || x == 0xFF;
    let mut found: Option<usize> = None;
    match f.class() {
        Some(LayoutClass::Sparse) => found = b.iter().position(|x| reserved(*x)),
        _ => {
            // One byte per element: element offset o sits at byte byte_offset + o.
            let off = f.v.byte_offset().wide();
            let layout = f.v.layout_fields();
            let walk = address::each_element(&layout, &f.shape, f.count, b.len() as u64, |o| {
                let at = off
                    .checked_add(o)
                    .and_then(|x| usize::try_from(x).ok())
                    .filter(|at| *at < b.len());
                match at {
                    Some(at) if reserved(b[at]) => {
                        found = Some(at);
                        ControlFlow::Break(())
                    }
                    _ => ControlFlow::Continue(()),
                }
            });
            match walk {
                Ok(_) => {}
                // What the spec leaves unlocated: a dynamic dimension (RES-36), block-paged
                // token slots (BP-16), a layout without a dense buffer 0 (sparse values are
                // checked above; composite heads have no buffers; private layouts are opaque).
                Err(Undetermined::Dynamic | Undetermined::PageSlots | Undetermined::NotDense) => {}
                // More elements than buffer 0 holds: the layout's size rule (RM-3, ST-4,
                // TL-7, MO-4, HI-6) rejects that in every mode before the data is read, so
                // this happens only to a caller passing slices shorter than their handles.
                Err(Undetermined::Oversized) => {}
            }
        }
    }
    if let Some(at) = found {
        ctx.violation(
            Rule::Dat3,
            base + at as u64,
            format!("float8_e8m0 element byte {:#04x} is reserved", b[at]),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::finite_and_zero;
    use crate::generated::tags::ElementType;

    /// PB-8's scale check reads each scale type's format from the table: an all-ones exponent
    /// is not finite, a zero magnitude is zero, in float16, bfloat16 and float32 alike.
    #[test]
    fn scales_are_judged_by_their_tables_format() {
        let cases: [(ElementType, u64, (bool, bool)); 9] = [
            (ElementType::Float16, 0x3C00, (true, false)),
            (ElementType::Float16, 0x7C00, (false, false)),
            (ElementType::Float16, 0x8000, (true, true)),
            (ElementType::Bfloat16, 0x3F80, (true, false)),
            (ElementType::Bfloat16, 0xFF80, (false, false)),
            (ElementType::Bfloat16, 0x0000, (true, true)),
            (ElementType::Float32, 0x3F80_0000, (true, false)),
            (ElementType::Float32, 0x7FC0_0000, (false, false)),
            (ElementType::Float32, 0x8000_0000, (true, true)),
        ];
        for (t, raw, want) in cases {
            let f = t.float_format().expect("a float type has a format");
            assert_eq!(finite_and_zero(f, raw), want, "{t:?} {raw:#x}");
        }
    }
}
