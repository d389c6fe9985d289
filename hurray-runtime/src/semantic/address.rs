//! Where a dense tensor's elements lie in buffer 0: the footprint of a strided layout and
//! the address computation of layouts.md §17, for the data rules that look at every element
//! whatever the layout (DAT-3). Offsets are in elements, relative to element `[0,…,0]`
//! (which sits at `byte_offset`). All arithmetic is checked; an offset too large to compute
//! lies outside every buffer.

use std::ops::ControlFlow;

use super::size::{Integer, Size};
use crate::generated::tags::Layout;
use crate::structures::{LayoutTiledView, LayoutVariantView};
use crate::wire::TagSpace;

/// The lowest and highest element offsets of a strided tensor (layouts.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// `min_offset`: the sum of the negative `strides[k] × (shape[k] − 1)`.
    pub lo: i128,
    /// `max_offset`: the sum of the positive ones.
    pub hi: i128,
}

/// Which end of a strided footprint could not be computed in `i128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FootprintOverflow {
    /// The lowest element lies more than 2^127 elements before element `[0,…,0]`.
    Low,
    /// The highest element lies more than 2^127 elements after it.
    High,
}

impl Footprint {
    /// `range_elements = max_offset − min_offset + 1`.
    pub fn range(self) -> Size {
        Size::new(self.hi.abs_diff(self.lo)).plus(1u64)
    }
}

/// The footprint of a non-empty strided tensor (every `shape[k] ≥ 1`, none dynamic).
pub fn strided_footprint(shape: &[u64], strides: &[i64]) -> Result<Footprint, FootprintOverflow> {
    let (mut lo, mut hi) = (0i128, 0i128);
    for (d, s) in shape.iter().zip(strides) {
        // |s| ≤ 2^63 and d − 1 < 2^64: the product fits in i128; the sums may not.
        let ext = i128::from(*s) * (i128::from(*d) - 1);
        if ext < 0 {
            lo = lo.checked_add(ext).ok_or(FootprintOverflow::Low)?;
        } else {
            hi = hi.checked_add(ext).ok_or(FootprintOverflow::High)?;
        }
    }
    Ok(Footprint { lo, hi })
}

/// Why the elements of a tensor cannot be located from its descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undetermined {
    /// A dimension is dynamic (RES-36: nothing is computed from it).
    Dynamic,
    /// Block-paged: which page-pool slots hold tokens depends on per-sequence token counts
    /// that are not on the wire (BP-16, layouts.md §19 item 10a).
    PageSlots,
    /// Not a dense layout of buffer 0 (sparse, composite, private).
    NotDense,
    /// The element count exceeds the buffer: a size rule, which rejects in every mode,
    /// reports that first.
    Oversized,
}

/// Visit the offset of every element of a dense tensor (its `layout`, `shape` and element
/// `count`, `None` when dynamic) once, in no particular order,
/// until `visit` breaks. `capacity` is buffer 0's size in elements: the size rules have
/// already checked that every layout's elements fit it, and no walk does more work than
/// `rank × capacity` steps or allocates more than `capacity` bytes.
pub fn each_element(
    layout: &LayoutVariantView<'_>,
    shape: &[u64],
    count: Option<Size>,
    capacity: u64,
    mut visit: impl FnMut(i128) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, Undetermined> {
    let count = count.ok_or(Undetermined::Dynamic)?;
    if count.is_zero() {
        return Ok(ControlFlow::Continue(()));
    }
    // Every layout but strided (whose elements may alias) places each element at its own
    // offset, so its element count is at most the buffer's capacity.
    let distinct = || {
        count
            .get()
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n <= capacity)
            .ok_or(Undetermined::Oversized)
    };
    match layout {
        // Row-major, column-major and Hilbert map the elements one to one onto a run.
        LayoutVariantView::RowMajor
        | LayoutVariantView::ColumnMajor
        | LayoutVariantView::Hilbert(_) => {
            for o in 0..distinct()? {
                if visit(i128::from(o)).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        }
        LayoutVariantView::Strided(s) => {
            let strides = s.strides().to_vec();
            strided(shape, &strides, capacity, visit)
        }
        LayoutVariantView::Tiled(t) => {
            distinct()?;
            odometer(&tiled_tables(shape, t), visit)
        }
        LayoutVariantView::Morton(m) => {
            distinct()?;
            let bits: Vec<u32> = m.morton_bits().iter().map(Integer::to).collect();
            let tables = morton_tables(shape, &bits);
            odometer(&tables, visit)
        }
        LayoutVariantView::BlockPaged(_) => Err(Undetermined::PageSlots),
        _ => Err(Undetermined::NotDense),
    }
}

/// The positions of a strided tensor, which may alias (zero or overlapping strides): the
/// set `{Σ i_k·s_k}` is built as a bitmap over the footprint by one sliding-window pass per
/// dimension, so aliasing costs nothing however many indices map to one position.
fn strided(
    shape: &[u64],
    strides: &[i64],
    capacity: u64,
    mut visit: impl FnMut(i128) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, Undetermined> {
    let fp = strided_footprint(shape, strides).map_err(|_| Undetermined::Oversized)?;
    let range = fp
        .range()
        .get()
        .and_then(|r| u64::try_from(r).ok())
        .filter(|r| *r <= capacity)
        .and_then(|r| usize::try_from(r).ok())
        .ok_or(Undetermined::Oversized)?;
    let mut set = vec![false; range];
    // Element [0,…,0] is at offset 0, that is position −lo of the bitmap.
    let origin = usize::try_from(-fp.lo).map_err(|_| Undetermined::Oversized)?;
    set[origin] = true;
    for (d, s) in shape.iter().zip(strides) {
        if *d < 2 || *s == 0 {
            continue;
        }
        let step = usize::try_from(s.unsigned_abs()).map_err(|_| Undetermined::Oversized)?;
        dilate(&mut set, step, *d, *s > 0);
    }
    for (p, present) in set.iter().enumerate() {
        if *present && visit(fp.lo + p as i128).is_break() {
            return Ok(ControlFlow::Break(()));
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// `set := {p + i·step·dir : p ∈ set, 0 ≤ i < n}` within the bitmap, in one pass per residue
/// class: a position is set when a set position lies fewer than `n` steps behind it.
fn dilate(set: &mut [bool], step: usize, n: u64, forward: bool) {
    for residue in 0..step.min(set.len()) {
        let chain: Box<dyn Iterator<Item = usize>> = if forward {
            Box::new((residue..set.len()).step_by(step))
        } else {
            let last = residue + (set.len() - 1 - residue) / step * step;
            Box::new((0..=(last - residue) / step).map(move |j| last - j * step))
        };
        let mut since: Option<u64> = None;
        for p in chain {
            if set[p] {
                since = Some(0);
            } else if let Some(k) = since.as_mut() {
                *k += 1;
            }
            set[p] = since.is_some_and(|k| k < n);
        }
    }
}

/// Per dimension, the Morton code bits of each index (layouts.md §17: bit `b` of index `i_d`
/// goes to code bit `b·rank + d`); RES-28 (MO-4) has bounded every code below 2^62 before
/// this runs, and a bit beyond `i64` would be [`OUTSIDE`].
fn morton_tables(shape: &[u64], bits: &[u32]) -> Vec<Vec<i64>> {
    let rank = bits.len() as u64;
    shape
        .iter()
        .zip(bits)
        .enumerate()
        .map(|(d, (extent, b))| {
            (0..*extent)
                .map(|i| {
                    let mut code = 0i64;
                    for bit in 0..u64::from(*b).min(64) {
                        if i >> bit & 1 == 1 {
                            let at = bit.saturating_mul(rank).saturating_add(d as u64);
                            match 1i64.checked_shl(u32::try_from(at).unwrap_or(u32::MAX)) {
                                Some(v) if v > 0 => code |= v,
                                _ => return OUTSIDE,
                            }
                        }
                    }
                    code
                })
                .collect()
        })
        .collect()
}

/// An offset table entry too large to compute (beyond `i64`): outside every buffer.
const OUTSIDE: i64 = i64::MIN;

/// Per dimension, the offset contribution of each index of a tiled tensor: every level's
/// address is a sum of per-dimension terms (layouts.md §17), so the offset of an element
/// is `Σ_k table[k][i_k]`. Entries too large to compute are [`OUTSIDE`].
fn tiled_tables(shape: &[u64], top: &LayoutTiledView<'_>) -> Vec<Vec<i64>> {
    let plans = tiled_plans(shape, top);
    (0..shape.len())
        .map(|k| {
            (0..shape[k])
                .map(|i| {
                    tiled_offset(&plans, k, i)
                        .and_then(|o| i64::try_from(o).ok())
                        .filter(|o| *o != OUTSIDE)
                        .unwrap_or(OUTSIDE)
                })
                .collect()
        })
        .collect()
}

/// Every level of a tiled layout, outermost first: its tile extents and the outer and inner
/// multipliers of each dimension.
fn tiled_plans(shape: &[u64], top: &LayoutTiledView<'_>) -> Vec<Plan> {
    // Views are small `Copy` records: each level is located from the one above it.
    let mut levels: Vec<LayoutTiledView<'_>> = vec![*top];
    while levels.len() < 8
        && let Some(next) = levels[levels.len() - 1].nested()
    {
        levels.push(next);
    }
    // Per level: its shape (the tensor's, then the enclosing tile's), the outer and inner
    // multipliers of every dimension.
    let mut plans = Vec::with_capacity(levels.len());
    let mut level_shape = shape.to_vec();
    for t in &levels {
        let tile: Vec<u64> = t
            .tile_shape()
            .iter()
            .map(|x| x.to::<u64>().max(1))
            .collect();
        let grid: Vec<u64> = level_shape
            .iter()
            .zip(&tile)
            .map(|(s, ts)| s.div_ceil(*ts))
            .collect();
        let per_tile = product_i128(&tile);
        let outer = multipliers(t.outer_layout().to(), &grid, t.outer_strides())
            .into_iter()
            .map(|m| m.zip(per_tile).and_then(|(m, p)| m.checked_mul(p)))
            .collect::<Vec<_>>();
        let inner = multipliers(t.inner_layout().to(), &tile, t.inner_strides());
        plans.push((tile.clone(), outer, inner));
        level_shape = tile;
    }
    plans
}

/// The lowest and highest element offsets of a non-empty tiled tensor (every `shape[k] ≥ 1`,
/// none dynamic) over the elements it holds, its tile padding left out (TL-8): through every
/// level's outer and inner orders, strided ones with negative or overlapping strides
/// included (TL-9, RES-49). `None` when an offset is too large to compute, or a nested level
/// is missing (TL-6 rejects that first).
pub fn tiled_footprint(shape: &[u64], top: &LayoutTiledView<'_>) -> Option<Footprint> {
    let plans = tiled_plans(shape, top);
    let mut footprint = Footprint { lo: 0, hi: 0 };
    for (k, n) in shape.iter().enumerate() {
        let (lo, hi) = index_range(&plans, 0, k, *n)?;
        footprint.lo = footprint.lo.checked_add(lo)?;
        footprint.hi = footprint.hi.checked_add(hi)?;
    }
    Some(footprint)
}

/// The lowest and highest contribution of the indices `0..n` (`n ≥ 1`) of dimension `k`
/// from level `level` inward. The indices fill `ceil(n / ts)` tiles: the full ones take
/// every position of a tile, the last only its first `n − (tiles − 1) × ts`; a tile
/// number's term is linear, so its extremes are at the first and the last full tile. At
/// most two calls per level, eight levels: a bounded walk whatever the extents.
fn index_range(plans: &[Plan], level: usize, k: usize, n: u64) -> Option<(i128, i128)> {
    let (tile, outer, inner) = plans.get(level)?;
    let ts = *tile.get(k)?;
    let step = outer.get(k).copied().flatten()?;
    let within = |m: u64| -> Option<(i128, i128)> {
        if inner.is_empty() {
            return index_range(plans, level + 1, k, m);
        }
        let last = i128::from(m - 1).checked_mul(inner.get(k).copied().flatten()?)?;
        Some((last.min(0), last.max(0)))
    };
    let tiles = n.div_ceil(ts);
    let last_tile = i128::from(tiles - 1).checked_mul(step)?;
    let (lo, hi) = within(n - (tiles - 1) * ts)?;
    let (mut lo, mut hi) = (last_tile.checked_add(lo)?, last_tile.checked_add(hi)?);
    if tiles >= 2 {
        let (full_lo, full_hi) = within(ts)?;
        let before_last = i128::from(tiles - 2).checked_mul(step)?;
        lo = lo.min(before_last.min(0).checked_add(full_lo)?);
        hi = hi.max(before_last.max(0).checked_add(full_hi)?);
    }
    Some((lo, hi))
}

/// One level's tile extents and per-dimension outer and inner multipliers.
type Plan = (Vec<u64>, Vec<Option<i128>>, Vec<Option<i128>>);

/// The contribution of index `i` of dimension `k` through every tiling level.
fn tiled_offset(plans: &[Plan], k: usize, i: u64) -> Option<i128> {
    let mut offset = 0i128;
    let mut index = i;
    for (tile, outer, inner) in plans {
        let ts = *tile.get(k)?;
        let (t, e) = (index / ts, index % ts);
        let step = outer.get(k).copied().flatten()?;
        offset = offset.checked_add(i128::from(t).checked_mul(step)?)?;
        if inner.is_empty() {
            // Nested: the next level places `e` within the tile.
            index = e;
            continue;
        }
        let m = inner.get(k).copied().flatten()?;
        return offset.checked_add(i128::from(e).checked_mul(m)?);
    }
    // A nested level that is not there (TL-6 rejects deeper nesting first).
    None
}

/// Per-dimension multipliers of a row-major, column-major or strided order over `extent`;
/// empty for a nested tiling (`inner_layout` tiled), whose next level decides.
fn multipliers(
    layout: u8,
    extent: &[u64],
    strides: Option<crate::wire::Array<'_, i64>>,
) -> Vec<Option<i128>> {
    let n = extent.len();
    match u32::from(layout) {
        l if l == Layout::ColumnMajor.value() => {
            (0..n).map(|k| product_i128(&extent[..k])).collect()
        }
        l if l == Layout::Strided.value() => (0..n)
            .map(|k| strides.and_then(|s| s.get(k)).map(i128::from))
            .collect(),
        l if l == Layout::Tiled.value() => Vec::new(),
        // Row-major, and any value TL-3/TL-4 rejected before this runs.
        _ => (0..n).map(|k| product_i128(&extent[k + 1..])).collect(),
    }
}

fn product_i128(xs: &[u64]) -> Option<i128> {
    xs.iter()
        .try_fold(1i128, |a, x| a.checked_mul(i128::from(*x)))
}

/// Every combination of one entry per table, summed, enumerated with an odometer (the
/// caller has bounded the product of the tables' lengths by the buffer's capacity).
fn odometer(
    tables: &[Vec<i64>],
    mut visit: impl FnMut(i128) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, Undetermined> {
    let entry = |x: i64| (x != OUTSIDE).then_some(i128::from(x));
    // Dimensions of extent 1 contribute their single entry to every element.
    let base = tables
        .iter()
        .filter(|t| t.len() == 1)
        .try_fold(0i128, |a, t| a.checked_add(entry(t[0])?));
    let varying: Vec<&Vec<i64>> = tables.iter().filter(|t| t.len() > 1).collect();
    let mut index = vec![0usize; varying.len()];
    loop {
        let offset = base.and_then(|b| {
            varying
                .iter()
                .zip(&index)
                .try_fold(b, |a, (t, i)| a.checked_add(entry(t[*i])?))
        });
        // An offset too large to compute lies outside buffer 0: no byte of it to check.
        if let Some(o) = offset
            && visit(o).is_break()
        {
            return Ok(ControlFlow::Break(()));
        }
        let mut k = varying.len();
        loop {
            if k == 0 {
                return Ok(ControlFlow::Continue(()));
            }
            k -= 1;
            index[k] += 1;
            if index[k] < varying[k].len() {
                break;
            }
            index[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(shape: &[u64], strides: &[i64]) -> Vec<i128> {
        let mut out = Vec::new();
        let _ = strided(shape, strides, 1 << 20, |o| {
            out.push(o);
            ControlFlow::Continue(())
        });
        out.sort();
        out
    }

    fn brute(shape: &[u64], strides: &[i64]) -> Vec<i128> {
        let mut out = vec![0i128];
        for (d, s) in shape.iter().zip(strides) {
            out = out
                .iter()
                .flat_map(|o| (0..*d).map(move |i| o + i128::from(i) * i128::from(*s)))
                .collect();
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn strided_positions_match_the_address_formula() {
        for (shape, strides) in [
            (&[3u64, 4][..], &[-4i64, 1][..]),
            (&[3, 4], &[4, 1]),
            (&[5, 5], &[1, 1]),
            (&[4, 3, 2], &[0, -2, 7]),
            (&[6], &[-3]),
            (&[2, 3], &[3, -1]),
            (&[1, 7], &[100, 2]),
        ] {
            assert_eq!(
                positions(shape, strides),
                brute(shape, strides),
                "{shape:?} {strides:?}"
            );
        }
    }

    #[test]
    fn a_footprint_beyond_i128_is_an_overflow_not_a_small_number() {
        let shape = [u64::MAX - 1, u64::MAX - 1, u64::MAX - 1];
        assert_eq!(
            strided_footprint(&shape, &[i64::MAX, i64::MAX, i64::MAX]),
            Err(FootprintOverflow::High)
        );
        assert_eq!(
            strided_footprint(&shape, &[i64::MIN, i64::MIN, i64::MIN]),
            Err(FootprintOverflow::Low)
        );
    }

    #[test]
    fn morton_codes_match_the_sheets_test_vector() {
        // layouts.md §17.1: Morton [4,4], bits [2,2], index [2,3] → 14.
        let t = morton_tables(&[4, 4], &[2, 2]);
        assert_eq!(t[0][2] + t[1][3], 14);
        let mut all: Vec<i64> = (0..4)
            .flat_map(|i| (0..4).map(move |j| (i, j)))
            .map(|(i, j)| t[0][i] + t[1][j])
            .collect();
        all.sort();
        assert_eq!(all, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn the_tiled_extremes_are_those_of_every_index_one_by_one() {
        // Random one- and two-level plans of one dimension, with signed outer and inner
        // steps and extents that leave a partial last tile at every level.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for case in 0..2000 {
            let step = |r: u64| i128::from(r as i64 - 6);
            let ts0 = 1 + next(5);
            let nested = next(2) == 0;
            let mut plans: Vec<Plan> = vec![(
                vec![ts0],
                vec![Some(step(next(13)))],
                if nested {
                    Vec::new()
                } else {
                    vec![Some(step(next(13)))]
                },
            )];
            if nested {
                let ts1 = 1 + next(ts0);
                plans.push((
                    vec![ts1],
                    vec![Some(step(next(13)))],
                    vec![Some(step(next(13)))],
                ));
            }
            let n = 1 + next(20);
            let offsets: Vec<i128> = (0..n)
                .map(|i| tiled_offset(&plans, 0, i).unwrap())
                .collect();
            let expected = (
                *offsets.iter().min().unwrap(),
                *offsets.iter().max().unwrap(),
            );
            assert_eq!(
                index_range(&plans, 0, 0, n),
                Some(expected),
                "case {case}: {plans:?}, n {n}"
            );
        }
    }

    #[test]
    fn tiled_offsets_match_the_sheets_test_vector() {
        // layouts.md §17.1: tiled [6,8], tile [2,4], outer and inner row-major, index
        // [3,5] → tile [1,1], tile number 3, start 24; within the tile [1,1] → 5; 29.
        let row_major = Layout::RowMajor.value() as u8;
        let tile = vec![2u64, 4];
        let grid = vec![3u64, 2];
        let outer: Vec<Option<i128>> = multipliers(row_major, &grid, None)
            .into_iter()
            .map(|m| m.map(|m| m * 8))
            .collect();
        let inner = multipliers(row_major, &tile, None);
        let plans = vec![(tile, outer, inner)];
        let o = tiled_offset(&plans, 0, 3).unwrap() + tiled_offset(&plans, 1, 5).unwrap();
        assert_eq!(o, 29);
        // Every element of the 6x8 tensor lands on its own offset below 48.
        let mut all: Vec<i128> = (0..6)
            .flat_map(|i| (0..8).map(move |j| (i, j)))
            .map(|(i, j)| tiled_offset(&plans, 0, i).unwrap() + tiled_offset(&plans, 1, j).unwrap())
            .collect();
        all.sort();
        assert_eq!(all, (0..48).collect::<Vec<_>>());
    }

    #[test]
    fn the_odometer_visits_every_sum_once() {
        let tables = vec![vec![0, 10], vec![5], vec![0, 1, 2]];
        let mut seen = Vec::new();
        let _ = odometer(&tables, |o| {
            seen.push(o);
            ControlFlow::Continue(())
        });
        seen.sort();
        assert_eq!(seen, vec![5, 6, 7, 15, 16, 17]);
    }
}
