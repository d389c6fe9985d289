//! Whether a partition's member boxes tile its head exactly (CV-6), for any number of
//! members and any rank, in time linear in the members: no member is left unchecked because
//! there are many of them.
//!
//! **The identity.** The indicator of a box `[lo, hi)` in `Z^d` has the generating function
//! `Π_k (x_k^lo_k − x_k^hi_k) / (1 − x_k)`. The boxes cover every index of the head
//! `[0, D)` exactly once (no gap, no overlap, nothing outside) exactly when their indicators
//! sum to the head's, that is when the polynomial
//!
//! ```text
//! P(x) = Σ_boxes Π_k (x_k^lo_k − x_k^hi_k) − Π_k (1 − x_k^D_k)
//! ```
//!
//! is zero (multiplying by `Π (1 − x_k)` loses nothing in a polynomial ring). Its
//! coefficients are signed corner counts, at most `members + 1` in size; its degree in each
//! variable is below 2^64.
//!
//! **The test.** [`tiling`] evaluates `P` at a point drawn at random for each call over the
//! field of the Mersenne prime `p = 2^127 − 1`. Every exponent is below `p − 1`, so no two
//! distinct exponents alias, and every coefficient is smaller than `p`, so a non-zero `P`
//! stays non-zero modulo `p`. When the boxes tile the head, `P` is the zero polynomial and
//! the test passes for every point: a valid partition is always accepted. When they do not,
//! the Schwartz–Zippel lemma bounds the chance that the point is a root by
//! `deg P / p ≤ 64 · 2^64 / (2^127 − 1) < 2^-56`, and the point is drawn afresh from the
//! process's random keys (never known to whoever wrote the file) for every partition.
//!
//! **The cost.** Per axis, a table of 256 powers (16 windows of 4 bits) makes every power
//! 16 multiplications; each box costs `2 · rank` powers. A partition of `n` members of rank
//! `d` costs `O(n · d)` field multiplications (a few nanoseconds each) and no allocation
//! beyond the tables, whatever the boxes look like.
//!
//! **The diagnosis.** The identity says whether the partition is valid, not which members
//! overlap. When it fails, [`overlapping_pair`] looks for a pair the way the sheet defines
//! an overlap, sweeping the boxes sorted along one axis and comparing each with the boxes
//! still open on that axis, within a budget of comparisons proportional to the members; a
//! pair it finds is named in the rejection, and a search that runs out of budget reports
//! the partition as a whole (still rejected: the budget limits the message, never the check).

use std::hash::{BuildHasher, RandomState};

use crate::semantic::size::Size;

/// The comparisons the search for an overlapping pair may spend, per box and in all, once
/// the boxes are known not to tile the whole: the budget bounds the message's detail, never
/// the check.
const PAIR_SEARCH_PER_BOX: u64 = 64;
const PAIR_SEARCH_BASE: u64 = 1 << 20;

/// Why boxes do not cover a whole exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The whole holds more than 2^128 elements: too many to count.
    Uncountable,
    /// The boxes hold `sum` elements, the whole `total`.
    Count { sum: Size, total: Size },
    /// Boxes `first < second` overlap.
    Overlap(usize, usize),
    /// The boxes hold as many elements as the whole but do not tile it; no overlapping pair
    /// was found within `budget` comparisons.
    Untiled { budget: u64 },
}

/// Whether `boxes` cover the box `[0, whole)` exactly once (CV-6 for a partition's members,
/// IX-62 for a parallel transfer's shards), each box already known to lie inside `whole`.
/// Inside boxes overlap exactly when they leave a gap while holding as many elements as the
/// whole, so the counts go first and [`tiling`] decides the rest, in time linear in the boxes.
pub(crate) fn exact(whole: &[u64], boxes: &[Region<'_>]) -> Result<(), Fault> {
    let volume = |s: &[u64]| Size::product(s.iter().map(|d| Size::from(*d)));
    let total = volume(whole);
    if total.is_over() {
        return Err(Fault::Uncountable);
    }
    let sum = boxes
        .iter()
        .fold(Size::ZERO, |a, b| a.plus(volume(b.extent)));
    if sum != total {
        return Err(Fault::Count { sum, total });
    }
    if tiling(whole, boxes) {
        return Ok(());
    }
    let budget = PAIR_SEARCH_PER_BOX
        .saturating_mul(boxes.len() as u64)
        .saturating_add(PAIR_SEARCH_BASE);
    Err(match overlapping_pair(boxes, budget) {
        Some((i, j)) => Fault::Overlap(i, j),
        None => Fault::Untiled { budget },
    })
}

/// The Mersenne prime `2^127 − 1`.
const P: u128 = (1u128 << 127) - 1;

/// `x mod P` for any `x < 2^128`, using `2^127 ≡ 1`.
fn reduce(x: u128) -> u128 {
    let r = (x & P) + (x >> 127);
    if r >= P { r - P } else { r }
}

fn add(a: u128, b: u128) -> u128 {
    // a, b < P < 2^127: the sum fits.
    reduce(a + b)
}

fn sub(a: u128, b: u128) -> u128 {
    add(a, P - b)
}

/// `a · b mod P` for `a, b < P`, from four 64 × 64-bit products.
fn mul(a: u128, b: u128) -> u128 {
    let (a1, a0) = (a >> 64, a & u128::from(u64::MAX));
    let (b1, b0) = (b >> 64, b & u128::from(u64::MAX));
    // a1, b1 < 2^63: every product and the middle sum fit in 128 bits.
    let low = a0 * b0;
    let middle = a1 * b0 + a0 * b1;
    let high = a1 * b1;
    // a·b = high·2^128 + middle·2^64 + low, and 2^128 ≡ 2 (mod P).
    let (middle_high, middle_low) = (middle >> 64, middle & u128::from(u64::MAX));
    let mut r = reduce(low);
    r = add(r, reduce(high << 1));
    r = add(r, reduce(middle_low << 64));
    add(r, reduce(middle_high << 1))
}

/// The powers `r^e` of one base for every `e < 2^64`, through 16 windows of 4 bits.
struct Powers {
    windows: [[u128; 16]; 16],
}

impl Powers {
    fn new(r: u128) -> Powers {
        let mut windows = [[1u128; 16]; 16];
        let mut base = r;
        for window in &mut windows {
            for v in 1..16 {
                window[v] = mul(window[v - 1], base);
            }
            // r^(16^(j+1)) = r^(15·16^j) · r^(16^j).
            base = mul(window[15], base);
        }
        Powers { windows }
    }

    fn pow(&self, e: u64) -> u128 {
        let mut out = 1u128;
        for (j, window) in self.windows.iter().enumerate() {
            let digit = (e >> (4 * j)) & 15;
            if digit != 0 {
                out = mul(out, window[digit as usize]);
            }
        }
        out
    }
}

/// One axis-aligned box: where it starts and its extent along each axis.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region<'b> {
    pub start: &'b [u64],
    pub extent: &'b [u64],
}

impl Region<'_> {
    fn is_empty(&self) -> bool {
        self.extent.contains(&0)
    }

    /// The sheet's overlap test (layouts.md §16.6): the boxes overlap along every axis. A
    /// zero-extent box overlaps nothing (RES-34).
    fn overlaps(&self, other: &Region<'_>) -> bool {
        if self.is_empty() || other.is_empty() {
            return false;
        }
        let axes = self.start.len().min(other.start.len());
        (0..axes).all(|k| {
            let (a, b) = (self.start[k], other.start[k]);
            let (a_end, b_end) = (
                a.saturating_add(self.extent[k]),
                b.saturating_add(other.extent[k]),
            );
            a < b_end && b < a_end
        })
    }
}

/// Whether `boxes` tile the box `[0, head)` exactly: every index in exactly one box. A
/// valid partition always passes; any other fails but with a chance below 2^-56 (module
/// documentation).
pub(crate) fn tiling(head: &[u64], boxes: &[Region<'_>]) -> bool {
    let keys = RandomState::new();
    let powers: Vec<Powers> = (0..head.len())
        .map(|k| {
            let high = keys.hash_one((k, 0u8));
            let low = keys.hash_one((k, 1u8));
            Powers::new(reduce((u128::from(high) << 64) | u128::from(low)))
        })
        .collect();
    let head_term = powers
        .iter()
        .zip(head)
        .fold(1u128, |acc, (x, d)| mul(acc, sub(1, x.pow(*d))));
    let mut sum = 0u128;
    for b in boxes {
        if b.is_empty() {
            // Its indicator is zero (a factor x^lo − x^lo): it covers nothing.
            continue;
        }
        if b.start.len() != head.len() || b.extent.len() != head.len() {
            return false;
        }
        let mut term = 1u128;
        for (k, x) in powers.iter().enumerate() {
            let Some(end) = b.start[k].checked_add(b.extent[k]) else {
                // Beyond every index of the head.
                return false;
            };
            term = mul(term, sub(x.pow(b.start[k]), x.pow(end)));
        }
        sum = add(sum, term);
    }
    sum == head_term
}

/// Two members whose boxes overlap (`first < second` in member order), found by sorting the
/// boxes along the axis with the most distinct starts and comparing each with the boxes
/// still open along it; `None` when none is found within `budget` comparisons.
pub(crate) fn overlapping_pair(boxes: &[Region<'_>], budget: u64) -> Option<(usize, usize)> {
    let live: Vec<usize> = (0..boxes.len()).filter(|i| !boxes[*i].is_empty()).collect();
    let rank = live.first().map_or(0, |i| boxes[*i].start.len());
    let axis = (0..rank)
        .max_by_key(|k| {
            let mut starts: Vec<u64> = live.iter().map(|i| boxes[*i].start[*k]).collect();
            starts.sort_unstable();
            starts.dedup();
            starts.len()
        })
        .unwrap_or(0);
    let start = |i: usize| boxes[i].start.get(axis).copied().unwrap_or(0);
    let end = |i: usize| start(i).saturating_add(boxes[i].extent.get(axis).copied().unwrap_or(0));
    let mut order = live;
    order.sort_unstable_by_key(|i| (start(*i), *i));
    let mut open: Vec<usize> = Vec::new();
    let mut spent = 0u64;
    for &i in &order {
        spent += open.len() as u64 + 1;
        if spent > budget {
            return None;
        }
        open.retain(|j| end(*j) > start(i));
        if let Some(&j) = open.iter().find(|j| boxes[**j].overlaps(&boxes[i])) {
            return Some((i.min(j), i.max(j)));
        }
        open.push(i);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a · b mod P` by doubling and adding: slow, obviously right.
    fn slow_mul(a: u128, mut b: u128) -> u128 {
        let (mut acc, mut a) = (0u128, a);
        while b > 0 {
            if b & 1 == 1 {
                acc = add(acc, a);
            }
            a = add(a, a);
            b >>= 1;
        }
        acc
    }

    #[test]
    fn field_multiplication_matches_doubling_and_adding() {
        let samples = [
            0,
            1,
            2,
            P - 1,
            P - 2,
            u128::from(u64::MAX),
            1u128 << 64,
            (1u128 << 126) + 12345,
            0x1234_5678_9abc_def0_0fed_cba9_8765_4321 & P,
        ];
        for a in samples {
            for b in samples {
                assert_eq!(mul(a, b), slow_mul(a, b), "{a:#x} · {b:#x}");
            }
        }
        assert_eq!(sub(3, 5), P - 2);
        assert_eq!(reduce(u128::MAX), 1, "2^128 − 1 = 2·P + 1");
    }

    #[test]
    fn windowed_powers_match_repeated_multiplication() {
        let x = Powers::new(0x0abc_def0_1234_5678_9abc_def0_1234_5678);
        let mut slow = 1u128;
        for e in 0..300u64 {
            assert_eq!(x.pow(e), slow, "exponent {e}");
            slow = mul(slow, x.windows[0][1]);
        }
        // r^(2^64 − 1) · r = r^(2^64) = (r^(2^63))^2.
        let r = x.windows[0][1];
        let half = x.pow(1 << 63);
        assert_eq!(mul(x.pow(u64::MAX), r), mul(half, half));
    }

    fn boxes<'a>(v: &'a [(Vec<u64>, Vec<u64>)]) -> Vec<Region<'a>> {
        v.iter()
            .map(|(s, e)| Region {
                start: s,
                extent: e,
            })
            .collect()
    }

    /// Every index of the head covered exactly once, by enumeration.
    fn brute(head: &[u64], v: &[(Vec<u64>, Vec<u64>)]) -> bool {
        let total: u64 = head.iter().product();
        let mut count = vec![0u32; total as usize];
        for (s, e) in v {
            if e.contains(&0) {
                continue;
            }
            let mut idx = s.clone();
            'cells: loop {
                if idx.iter().zip(head).any(|(i, d)| i >= d) {
                    return false;
                }
                let flat = idx.iter().zip(head).fold(0u64, |a, (i, d)| a * d + i);
                count[flat as usize] += 1;
                let mut k = idx.len();
                loop {
                    if k == 0 {
                        break 'cells;
                    }
                    k -= 1;
                    idx[k] += 1;
                    if idx[k] < s[k] + e[k] {
                        break;
                    }
                    idx[k] = s[k];
                }
            }
        }
        count.iter().all(|c| *c == 1)
    }

    /// A small deterministic generator for the exhaustive comparison below.
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    /// Split the box `(start, extent)` at random into boxes that tile it.
    fn split(
        rng: &mut Lcg,
        start: Vec<u64>,
        extent: Vec<u64>,
        depth: u32,
        out: &mut Vec<(Vec<u64>, Vec<u64>)>,
    ) {
        let k = rng.below(extent.len() as u64) as usize;
        if depth == 0 || extent[k] < 2 || rng.below(4) == 0 {
            out.push((start, extent));
            return;
        }
        let cut = 1 + rng.below(extent[k] - 1);
        let (mut s2, mut e1, mut e2) = (start.clone(), extent.clone(), extent.clone());
        e1[k] = cut;
        s2[k] += cut;
        e2[k] -= cut;
        split(rng, start, e1, depth - 1, out);
        split(rng, s2, e2, depth - 1, out);
    }

    #[test]
    fn the_identity_agrees_with_enumeration_on_tilings_and_broken_tilings() {
        let mut rng = Lcg(7);
        for case in 0..400 {
            let rank = 1 + rng.below(3) as usize;
            let head: Vec<u64> = (0..rank).map(|_| 1 + rng.below(6)).collect();
            let mut v = Vec::new();
            split(&mut rng, vec![0; rank], head.clone(), 6, &mut v);
            assert!(tiling(&head, &boxes(&v)), "case {case}: {head:?} {v:?}");
            assert!(brute(&head, &v));
            // Break it: move one box by one index along one axis, or drop one.
            let i = rng.below(v.len() as u64) as usize;
            let k = rng.below(rank as u64) as usize;
            if rng.below(2) == 0 {
                v[i].0[k] = v[i].0[k]
                    .saturating_sub(1)
                    .max(if v[i].0[k] == 0 { 1 } else { 0 });
            } else {
                v.remove(i);
            }
            assert_eq!(
                tiling(&head, &boxes(&v)),
                brute(&head, &v),
                "case {case}: {head:?} {v:?}"
            );
        }
    }

    #[test]
    fn a_box_of_extent_p_minus_1_does_not_alias_away() {
        // With a 61-bit prime, x^(p−1) = 1 would make such a box vanish from the sum: two
        // copies of [0, 2^61 − 2) would then pass for a tiling of [0, 2·(2^61 − 2)).
        let d = (1u64 << 61) - 2;
        let v = vec![(vec![0], vec![d]), (vec![0], vec![d])];
        assert!(!tiling(&[2 * d], &boxes(&v)));
        let v = vec![(vec![0], vec![d]), (vec![d], vec![d])];
        assert!(tiling(&[2 * d], &boxes(&v)));
    }

    #[test]
    fn huge_heads_tile_and_fail_like_small_ones() {
        let h = u64::MAX - 1;
        // [h, h, h] split in two along axis 0.
        let v = vec![
            (vec![0, 0, 0], vec![1 << 63, h, h]),
            (vec![1 << 63, 0, 0], vec![h - (1 << 63), h, h]),
        ];
        assert!(tiling(&[h, h, h], &boxes(&v)));
        // The audit's counterexample: one member [2^63, h, h] of a head [h, h, h].
        let v = vec![(vec![0, 0, 0], vec![1 << 63, h, h])];
        assert!(!tiling(&[h, h, h], &boxes(&v)));
    }

    #[test]
    fn the_pair_search_finds_an_overlap_among_thousands_of_boxes() {
        // 10,000 unit boxes along axis 1 of a [2, 5000] head, one of them moved onto its
        // neighbour.
        let mut v: Vec<(Vec<u64>, Vec<u64>)> = (0..10_000u64)
            .map(|i| (vec![i / 5000, i % 5000], vec![1, 1]))
            .collect();
        v[7777].0 = vec![1, 2776];
        let b = boxes(&v);
        assert!(!tiling(&[2, 5000], &b));
        assert_eq!(overlapping_pair(&b, 1 << 20), Some((7776, 7777)));
        // A budget too small to finish finds nothing (and the caller still rejects).
        assert_eq!(overlapping_pair(&b, 10), None);
    }
}
