//! A tag space named at run time (re-exported as `ctx::TagSpaceInfo`; the generated
//! `tags::SPACES` lists every space this way, so it depends on `wire` only).

use std::fmt;

use crate::wire::{TagClass, TagSpace};

/// A tag space named at run time: what an out-of-band agreement needs of it. The generated
/// `tags::SPACES` lists every space of the spec this way.
#[derive(Clone, Copy)]
pub struct TagSpaceInfo {
    name: &'static str,
    width: usize,
    classify: fn(u32) -> TagClass<()>,
}

impl fmt::Debug for TagSpaceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TagSpaceInfo")
            .field("name", &self.name)
            .field("width", &self.width)
            .finish_non_exhaustive()
    }
}

fn erased<T: TagSpace>(raw: u32) -> TagClass<()> {
    match T::classify(raw) {
        TagClass::Known(_) => TagClass::Known(()),
        TagClass::UnallocatedPublic { tier } => TagClass::UnallocatedPublic { tier },
        TagClass::Reserved => TagClass::Reserved,
        TagClass::Private => TagClass::Private,
        TagClass::Invalid => TagClass::Invalid,
    }
}

impl TagSpaceInfo {
    /// The space `T`.
    pub const fn of<T: TagSpace>() -> TagSpaceInfo {
        TagSpaceInfo {
            name: T::NAME,
            width: T::WIDTH,
            classify: erased::<T>,
        }
    }

    /// Its name in the spec.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Bytes of one value on the wire.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Whether `raw` lies in one of its private ranges.
    pub fn is_private(&self, raw: u32) -> bool {
        self.fits(raw) && matches!((self.classify)(raw), TagClass::Private)
    }

    fn fits(&self, raw: u32) -> bool {
        self.width >= 4 || u64::from(raw) < 1u64 << (8 * self.width)
    }

    /// Its private ranges, as inclusive `(from, to)` pairs (scanned over every value of a
    /// one- or two-byte space; wider spaces have none in this spec).
    pub fn private(&self) -> Vec<(u32, u32)> {
        let top: u32 = match self.width {
            1 => 0xFF,
            2 => 0xFFFF,
            _ => return Vec::new(),
        };
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for raw in 0..=top {
            if self.is_private(raw) {
                match ranges.last_mut() {
                    Some((_, end)) if *end + 1 == raw => *end = raw,
                    _ => ranges.push((raw, raw)),
                }
            }
        }
        ranges
    }

    /// Its private ranges, written `0xf0–0xfe` (`none` when it has none).
    pub fn private_ranges(&self) -> String {
        let ranges = self.private();
        if ranges.is_empty() {
            return "none".into();
        }
        ranges
            .iter()
            .map(|(a, b)| {
                if a == b {
                    format!("{a:#04x}")
                } else {
                    format!("{a:#04x}–{b:#04x}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}
