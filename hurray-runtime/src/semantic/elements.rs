//! Element sizes: how many bytes `n` elements of a type take (descriptor.md §8.5,
//! layouts.md §3.2), for allocated types and private types described by their extension
//! type section.

use super::size::Size;
use crate::generated::tags::{ElementType, Packing};
use crate::wire::TagSpace;

/// How a type's elements occupy bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementSize {
    /// Whole bytes per element.
    Bytes(u64),
    /// 1, 2 or 4 bits, `8 / bits` elements per byte, LSB first.
    Packed {
        /// Bits per element.
        bits: u32,
    },
    /// 6-bit types: 4 elements in 3 bytes (RES-10).
    Group6,
}

impl ElementSize {
    /// For an allocated element type.
    pub fn of(t: ElementType) -> ElementSize {
        match t.packing() {
            Packing::None => ElementSize::Bytes(u64::from(t.bits() / 8)),
            Packing::LsbFirst => ElementSize::Packed { bits: t.bits() },
            Packing::Group4In3 => ElementSize::Group6,
        }
    }

    /// From an extension type section's `bit_width` (already validated, EXT-3, EXT-4, EXT-10).
    pub fn from_extension(bit_width: u32) -> Option<ElementSize> {
        match bit_width {
            1 | 2 | 4 => Some(ElementSize::Packed { bits: bit_width }),
            b if b >= 8 && b % 8 == 0 => Some(ElementSize::Bytes(u64::from(b / 8))),
            _ => None,
        }
    }

    /// Bytes for `n` elements, checked: `Size::OVER` when it overflows.
    pub fn bytes(self, n: Size) -> Size {
        match self {
            ElementSize::Bytes(w) => n.times(w),
            ElementSize::Packed { bits } => n.div_ceil(u64::from(8 / bits.clamp(1, 8))),
            ElementSize::Group6 => n.div_ceil(4).times(3u64),
        }
    }

    /// Bytes for `n` elements, saturating at `u128::MAX` (for builders that need a plain
    /// number; the semantic layer uses the checked [`ElementSize::bytes`]).
    pub fn bytes_for(self, n: u128) -> u128 {
        self.bytes(Size::new(n)).get().unwrap_or(u128::MAX)
    }

    /// Byte width of one element when whole-byte.
    pub fn whole_bytes(self) -> Option<u64> {
        match self {
            ElementSize::Bytes(w) => Some(w),
            _ => None,
        }
    }
}

/// Every allocated element type's size, for tests and tools.
pub fn all() -> impl Iterator<Item = (ElementType, ElementSize)> {
    ElementType::ALL.iter().map(|t| (*t, ElementSize::of(*t)))
}

/// The dynamic-dimension sentinel (SHP-3).
pub const DYNAMIC: u64 = u64::MAX;

/// The product of a shape, checked; `None` when a dimension is dynamic (SHP-3: nothing is
/// computed from it).
pub fn count(shape: impl Iterator<Item = u64>) -> Option<Size> {
    let mut n = Size::ONE;
    for d in shape {
        if d == DYNAMIC {
            return None;
        }
        n = n.times(d);
    }
    Some(n)
}

/// The product of a shape, saturating at `u128::MAX` (for builders; the semantic layer uses
/// the checked [`count`]); `None` when a dimension is dynamic.
pub fn element_count(shape: impl Iterator<Item = u64>) -> Option<u128> {
    count(shape).map(|n| n.get().unwrap_or(u128::MAX))
}
