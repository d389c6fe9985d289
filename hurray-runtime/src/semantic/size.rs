//! Checked size arithmetic for the semantic layer. Every element count, byte size, block
//! count and footprint computed from descriptor fields is a [`Size`]: its operations never
//! wrap or saturate into a plausible value. A step that overflows `u128` yields
//! [`Size::OVER`], a quantity larger than any buffer can be, so the rule that asked for it
//! reports a violation instead of comparing against a wrapped number (issue #11: a wrapped
//! `num_blocks × 4` or strided footprint once let a crafted descriptor with a tiny buffer
//! pass).

use std::fmt;

/// A non-negative quantity computed with checked arithmetic, or [`Size::OVER`] when the
/// computation overflowed `u128`.
///
/// `OVER` stands for a finite number above 2^128: adding to it, or multiplying it by
/// anything but zero, keeps it `OVER`; multiplying by zero gives zero; dividing it by a
/// divisor below 2^64 leaves more than 2^64, so it still exceeds every buffer, and it stays
/// `OVER`. No `Size` ever fits a byte size when it is `OVER`; compare sizes with buffers
/// through [`Size::fits`], never two computed sizes with `==` (two `OVER`s are equal as
/// values but stand for unknown, possibly different quantities).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Size(Option<u128>);

impl Size {
    /// A quantity too large to compute: larger than any buffer.
    pub const OVER: Size = Size(None);
    /// Zero.
    pub const ZERO: Size = Size(Some(0));
    /// One.
    pub const ONE: Size = Size(Some(1));

    /// An exact quantity.
    pub fn new(n: impl Into<u128>) -> Size {
        Size(Some(n.into()))
    }

    /// `2^bits`, or `OVER` from `bits ≥ 128`.
    pub fn pow2(bits: u64) -> Size {
        if bits < 128 {
            Size(Some(1u128 << bits))
        } else {
            Size::OVER
        }
    }

    /// The product of `factors`: zero when any factor is zero, even after an overflow.
    pub fn product(factors: impl IntoIterator<Item = Size>) -> Size {
        factors.into_iter().fold(Size::ONE, Size::times)
    }

    /// The exact value, or `None` when it overflowed.
    pub fn get(self) -> Option<u128> {
        self.0
    }

    /// Whether the quantity overflowed (is larger than any buffer).
    pub fn is_over(self) -> bool {
        self.0.is_none()
    }

    /// Whether the quantity is exactly zero.
    pub fn is_zero(self) -> bool {
        self.0 == Some(0)
    }

    /// The sum, `OVER` when either term is or the sum overflows.
    pub fn plus(self, k: impl Into<Size>) -> Size {
        match (self.0, k.into().0) {
            (Some(a), Some(b)) => Size(a.checked_add(b)),
            _ => Size::OVER,
        }
    }

    /// The product: zero when either factor is zero, else `OVER` when either is or the product overflows.
    pub fn times(self, k: impl Into<Size>) -> Size {
        match (self.0, k.into().0) {
            (Some(0), _) | (_, Some(0)) => Size::ZERO,
            (Some(a), Some(b)) => Size(a.checked_mul(b)),
            _ => Size::OVER,
        }
    }

    /// `ceil(self / k)` for a divisor `0 < k < 2^64`.
    pub fn div_ceil(self, k: u64) -> Size {
        debug_assert!(k > 0, "a divisor of zero is rejected by its own rule first");
        Size(self.0.map(|a| a.div_ceil(u128::from(k.max(1)))))
    }

    /// `floor(self / k)` for a divisor `0 < k < 2^64`.
    pub fn div_floor(self, k: u64) -> Size {
        debug_assert!(k > 0, "a divisor of zero is rejected by its own rule first");
        Size(self.0.map(|a| a / u128::from(k.max(1))))
    }

    /// Whether a buffer of `have` bytes holds this many bytes: exactly, or at least (a
    /// negative `have`, which a signed size field can hold, holds nothing).
    pub fn fits(self, have: impl Integer, exact: bool) -> bool {
        match (self.0, u128::try_from(have.wide())) {
            (None, _) | (_, Err(_)) => false,
            (Some(n), Ok(have)) if exact => have == n,
            (Some(n), Ok(have)) => have >= n,
        }
    }
}

/// A field value of one of the spec's integer types, as the generated code types it. The
/// semantic layer takes the generated accessors' values through this trait and never names
/// the type a table gives a field today, so a type change the amendment rules accept (a
/// `u64` turned `i64` at a new major, with its S5 migration) compiles unchanged. Every
/// integer type widens to `i128` exactly.
pub trait Integer: Copy + fmt::Display {
    /// The value, exactly.
    fn wide(self) -> i128;
    /// `n` in this type: clamped to its range, except that a negative `n` in an unsigned
    /// type is its largest value. A negative value is no quantity, count or index, so it
    /// becomes one no rule accepts (like a dimension too large to compute, it is refused
    /// under the rule it breaks, never read as 0).
    fn saturating(n: i128) -> Self;
    /// `n` in this type, if it holds it (a writer's conversion: a value its field cannot
    /// hold is refused, never changed).
    fn exact(n: i128) -> Option<Self>;
    /// This value in another integer type, as [`Integer::saturating`] says: the semantic
    /// layer's one conversion from a generated field's type to the type it computes in.
    #[inline]
    fn to<T: Integer>(self) -> T {
        T::saturating(self.wide())
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            #[inline]
            fn wide(self) -> i128 {
                i128::from(self)
            }
            #[inline]
            fn exact(n: i128) -> Option<Self> {
                <$t>::try_from(n).ok()
            }
            #[inline]
            fn saturating(n: i128) -> Self {
                if n < 0 && i128::from(<$t>::MIN) == 0 {
                    return <$t>::MAX;
                }
                <$t>::try_from(n).unwrap_or(if n < 0 { <$t>::MIN } else { <$t>::MAX })
            }
        }
    )*};
}
integer!(u8, u16, u32, u64, i8, i16, i32, i64);

/// A field value as a quantity. A negative value is no quantity: it is [`Size::OVER`], which
/// no buffer fits, so the rule that asked for the quantity reports a violation (the rules that
/// bound a signed field, such as OFS-1 for `byte_offset`, report its sign first).
impl<T: Integer> From<T> for Size {
    fn from(n: T) -> Size {
        Size(u128::try_from(n.wide()).ok())
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("more than 2^128"),
        }
    }
}

impl fmt::Debug for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::Size;

    #[test]
    fn a_negative_field_value_is_no_quantity_and_no_buffer_holds_anything() {
        assert!(Size::from(-1i64).is_over());
        assert_eq!(Size::from(i64::MAX).get(), Some(i64::MAX as u128));
        assert!(!Size::ZERO.fits(-1i64, false));
        assert!(Size::new(8u64).fits(8i64, true));
    }

    #[test]
    fn overflow_is_sticky_and_never_fits() {
        let big = Size::new(u128::MAX);
        assert!(big.plus(1u64).is_over());
        assert!(big.times(2u64).is_over());
        assert!(big.times(2u64).plus(0u64).is_over());
        assert!(big.times(2u64).div_ceil(4).is_over());
        assert!(!Size::OVER.fits(u64::MAX, false));
        assert!(!Size::OVER.fits(0, true));
        // A wrapped 2^128 would be 0 and fit an empty buffer; the checked one does not.
        assert!(!Size::pow2(126).times(4u64).fits(0, true));
    }

    #[test]
    fn zero_factors_win_over_overflow() {
        assert_eq!(Size::OVER.times(0u64), Size::ZERO);
        let shape = [u64::MAX - 1, u64::MAX - 1, u64::MAX - 1, 0];
        assert_eq!(Size::product(shape.map(Size::from)), Size::ZERO);
        assert!(Size::product(shape[..3].iter().map(|d| Size::from(*d))).is_over());
    }

    #[test]
    fn powers_of_two_stop_at_128_bits() {
        assert_eq!(Size::pow2(127).get(), Some(1u128 << 127));
        assert!(Size::pow2(128).is_over());
        assert!(Size::pow2(4032).is_over());
    }

    #[test]
    fn exact_and_minimum_fits() {
        assert!(Size::new(8u64).fits(8, true));
        assert!(!Size::new(8u64).fits(9, true));
        assert!(Size::new(8u64).fits(9, false));
        assert!(!Size::new(u128::from(u64::MAX) + 1).fits(u64::MAX, false));
    }
}
