//! What the generated `Arbitrary` impls (feature `arbitrary`) draw their values with: integers
//! and floats mostly inside the constraints a field's checks state, flag bits mostly among the
//! allocated ones, tag values mostly allocated, sequence lengths capped. The facts themselves
//! (bounds, masks, allocated values, private ranges) are literals of the generated code that
//! calls these helpers; nothing here knows the format.
//!
//! A small share of every draw ignores the constraints (a "wild" value of the field's whole
//! type), so that the writer's and the reader's rejections are reached as well as their
//! acceptances.

use arbitrary::{Arbitrary, Error, Result, Unstructured};

/// Out of 256, how often a value is drawn from its whole type instead of its constraints (a
/// descriptor has some thirty values: rare enough that most descriptors have none).
const WILD: u8 = 3;

/// Out of 256, how often an integer is its lowest allowed value (zero, mostly: the value
/// that keeps sizes, counts and offsets consistent most often).
const LOWEST: u8 = 144;

/// Out of 256, how often an integer stays near its lowest allowed value (below that, it is
/// the lowest).
const NARROW: u8 = 224;

/// How far above its lower bound a narrow draw goes.
const NARROW_SPAN: i128 = 16;

/// The longest sequence a generated value holds: a longer count drawn for a field that states
/// it is no value (the input is skipped), never a huge allocation.
pub(crate) const MAX_LENGTH: u64 = 1024;

/// Whether this draw ignores the constraints.
fn wild(u: &mut Unstructured<'_>) -> Result<bool> {
    Ok(u8::arbitrary(u)? < WILD)
}

/// The constraints on an integer field (or a tag field with a stated value set), gathered
/// from its checks by the generated code, and the range of its type.
#[derive(Clone, Debug)]
pub(crate) struct Int {
    type_lo: i128,
    type_hi: i128,
    lo: i128,
    hi: i128,
    power_of_two: bool,
    multiple_of: Option<i128>,
    one_of: Option<&'static [i128]>,
    exactly: Option<i128>,
}

impl Int {
    /// An integer of the type ranging over `type_lo..=type_hi`, unconstrained.
    pub(crate) fn new(type_lo: i128, type_hi: i128) -> Int {
        Int {
            type_lo,
            type_hi,
            lo: type_lo,
            hi: type_hi,
            power_of_two: false,
            multiple_of: None,
            one_of: None,
            exactly: None,
        }
    }
    /// At least `v`.
    pub(crate) fn min(&mut self, v: i128) {
        self.lo = self.lo.max(v);
    }
    /// At most `v`.
    pub(crate) fn max(&mut self, v: i128) {
        self.hi = self.hi.min(v);
    }
    /// Below `v`.
    pub(crate) fn less_than(&mut self, v: i128) {
        self.max(v.saturating_sub(1));
    }
    /// Not zero (the fields that state it are unsigned).
    // Called by the generated code only when the spec states such a check; kept for any spec.
    #[allow(dead_code)]
    pub(crate) fn non_zero(&mut self) {
        self.min(1);
    }
    /// A power of two.
    pub(crate) fn power_of_two(&mut self) {
        self.power_of_two = true;
    }
    /// A multiple of `k`.
    pub(crate) fn multiple_of(&mut self, k: i128) {
        if k > 0 {
            self.multiple_of = Some(k);
        }
    }
    /// One of `values`.
    pub(crate) fn one_of(&mut self, values: &'static [i128]) {
        self.one_of = Some(values);
    }
    /// Exactly `v`.
    pub(crate) fn exactly(&mut self, v: i128) {
        self.exactly = Some(v);
    }

    /// A value: mostly one that meets every constraint (when they can be met), now and then
    /// any value of the type.
    pub(crate) fn pick(&self, u: &mut Unstructured<'_>) -> Result<i128> {
        if wild(u)? || self.lo > self.hi {
            return u.int_in_range(self.type_lo..=self.type_hi);
        }
        let inside = |v: &i128| self.lo <= *v && *v <= self.hi;
        if let Some(v) = self.exactly {
            return Ok(v);
        }
        if let Some(set) = self.one_of {
            let fits: Vec<i128> = set.iter().copied().filter(inside).collect();
            if !fits.is_empty() {
                return u.choose(&fits).copied();
            }
        }
        if self.power_of_two {
            let powers: Vec<i128> = (0..127).map(|e| 1i128 << e).filter(inside).collect();
            if !powers.is_empty() {
                return u.choose(&powers).copied();
            }
        }
        let base = self.lo.max(0).min(self.hi);
        let roll = u8::arbitrary(u)?;
        let (lo, hi) = if roll < LOWEST {
            (base, base)
        } else if roll < NARROW {
            (base, self.hi.min(base.saturating_add(NARROW_SPAN)))
        } else {
            (self.lo, self.hi)
        };
        let v = u.int_in_range(lo..=hi)?;
        Ok(match self.multiple_of {
            Some(k) => {
                let down = v - v.rem_euclid(k);
                if down >= self.lo {
                    down
                } else {
                    down.saturating_add(k)
                }
            }
            None => v,
        })
    }
}

/// The length of a sequence whose count another value states: that count, or no value at all
/// when it is longer than [`MAX_LENGTH`] (the input is skipped, never a huge allocation).
pub(crate) fn stated_length(count: u64) -> Result<usize> {
    if count > MAX_LENGTH {
        return Err(Error::IncorrectFormat);
    }
    Ok(count as usize)
}

/// A sequence length the generator chooses freely: mostly up to four entries, now and then
/// up to 64 (every entry is a chance for one of its values to be rejected).
pub(crate) fn free_length(u: &mut Unstructured<'_>) -> Result<usize> {
    if u8::arbitrary(u)? < 240 {
        u.int_in_range(0..=4)
    } else {
        u.int_in_range(0..=64)
    }
}

/// A sequence length the enclosing structure suggests (the buffers its layout needs): that
/// length, now and then a free one; a free one when there is no suggestion.
pub(crate) fn hinted_length(u: &mut Unstructured<'_>, hint: Option<u64>) -> Result<usize> {
    match hint {
        Some(n) if n <= MAX_LENGTH && !wild(u)? => Ok(n as usize),
        _ => free_length(u),
    }
}

/// Mostly one of `values` (a value another field's value pairs with); `None` now and then,
/// or when there is none, for the caller's unconstrained draw.
pub(crate) fn one_of(u: &mut Unstructured<'_>, values: &[u32]) -> Result<Option<u32>> {
    if values.is_empty() || wild(u)? {
        return Ok(None);
    }
    u.choose(values).copied().map(Some)
}

/// A value for a structure's param when the structure is generated on its own (outside the
/// structure that binds it): small.
pub(crate) fn param(u: &mut Unstructured<'_>) -> Result<u64> {
    u.int_in_range(0..=8)
}

/// The constraints on a float field, gathered from its checks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Float {
    lo: Option<f64>,
    hi: Option<f64>,
    exactly: Option<f64>,
}

impl Float {
    /// An unconstrained float.
    pub(crate) fn new() -> Float {
        Float::default()
    }
    /// At least `v`.
    pub(crate) fn min(&mut self, v: f64) {
        self.lo = Some(self.lo.map_or(v, |lo| lo.max(v)));
    }
    /// At most `v`.
    pub(crate) fn max(&mut self, v: f64) {
        self.hi = Some(self.hi.map_or(v, |hi| hi.min(v)));
    }
    /// Exactly `v`.
    // Called by the generated code only when the spec states such a check; kept for any spec.
    #[allow(dead_code)]
    pub(crate) fn exactly(&mut self, v: f64) {
        self.exactly = Some(v);
    }
    /// Finite (every non-wild draw is).
    pub(crate) fn finite(&mut self) {}

    /// A value: mostly a finite one inside the bounds, now and then any bit pattern (NaNs
    /// and infinities included).
    pub(crate) fn pick(&self, u: &mut Unstructured<'_>) -> Result<f64> {
        if wild(u)? {
            return Ok(f64::from_bits(u64::arbitrary(u)?));
        }
        if let Some(v) = self.exactly {
            return Ok(v);
        }
        let lo = self.lo.unwrap_or(-(NARROW_SPAN as f64));
        let hi = self.hi.unwrap_or(lo.max(0.0) + NARROW_SPAN as f64).max(lo);
        let fraction = f64::from(u16::arbitrary(u)?) / f64::from(u16::MAX);
        Ok((lo + (hi - lo) * fraction).clamp(lo, hi))
    }
}

/// A flag field's bits: mostly a few of the `allocated` ones (each with a chance of one in
/// eight), now and then any bits of the field's width (`width_mask`).
pub(crate) fn bits(u: &mut Unstructured<'_>, allocated: u64, width_mask: u64) -> Result<u64> {
    if wild(u)? {
        return Ok(u64::arbitrary(u)? & width_mask);
    }
    let mut out = 0;
    for bit in 0..64 {
        if allocated & (1 << bit) != 0 && u8::arbitrary(u)? < 32 {
            out |= 1 << bit;
        }
    }
    Ok(out)
}

/// Out of 256, how often a tag value is a private one (which a reader rejects unless agreed).
const PRIVATE: u8 = 3;

/// A tag value: mostly an `allocated` one, sometimes one of the `private` ranges, now and
/// then any value up to `width_max`.
pub(crate) fn tag(
    u: &mut Unstructured<'_>,
    allocated: &'static [u32],
    private: &'static [(u32, u32)],
    width_max: u32,
) -> Result<u32> {
    let roll = u8::arbitrary(u)?;
    if roll < PRIVATE && !private.is_empty() {
        let (from, to) = *u.choose(private)?;
        return u.int_in_range(from..=to);
    }
    if roll < PRIVATE + WILD || allocated.is_empty() {
        return u.int_in_range(0..=width_max);
    }
    u.choose(allocated).copied()
}

/// `count` bytes (zeros once the input is used up).
pub(crate) fn bytes(u: &mut Unstructured<'_>, count: usize) -> Result<Vec<u8>> {
    (0..count).map(|_| u8::arbitrary(u)).collect()
}

/// UTF-8 text of exactly `count` bytes: printable ASCII (spaces once the input is used up).
pub(crate) fn text(u: &mut Unstructured<'_>, count: usize) -> Result<String> {
    (0..count)
        .map(|_| Ok(char::from(b' ' + u8::arbitrary(u)? % 95)))
        .collect()
}

/// Whether an optional part is present (one in two).
// Called by the generated code only for a field appended without a condition, or behind a
// condition it cannot evaluate; kept for any spec.
#[allow(dead_code)]
pub(crate) fn present(u: &mut Unstructured<'_>) -> Result<bool> {
    bool::arbitrary(u)
}
