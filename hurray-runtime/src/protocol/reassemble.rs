//! A parallel answer's shards put back together (interchange.md §15, IX-65): each shard's
//! elements placed at its `shard_offset` in a tensor of its `parent_shape`.
//!
//! The shards of one answer share their parent, element type and layout (IX-61), and their
//! boxes cover the parent exactly (IX-62): the protocol's state machine checks both as the
//! descriptors arrive, and [`Reassembly`] checks them again, so it can be used on shards from
//! anywhere. It places dense row-major and column-major shards of whole-byte elements, whose
//! elements are a contiguous run at the descriptor's `byte_offset` in buffer 0; other layouts
//! keep structures of their own (indices, blocks, pages) and are refused as
//! [`ReassemblyError::Unsupported`].
//!
//! Memory: a shard's elements are copied when it is placed, and the parent's bytes are made
//! only by [`Reassembly::finish`], once the shards hold exactly the parent's element count. So
//! a reassembly holds at most twice the bytes it was given, whatever `parent_shape` claims.
//!
//! ```
//! use hurray_runtime::protocol::reassemble::Reassembly;
//! use hurray_runtime::structures::Shard;
//! use hurray_runtime::tags::ElementType;
//! use hurray_runtime::{descriptor, writer, ReaderConfig};
//!
//! // Two shards of a uint8 [2, 3] parent, one row each.
//! let shard = |row: u64| -> Result<Vec<u8>, writer::WriteError> {
//!     let mut d = writer::row_major(ElementType::Uint8, &[1, 3]);
//!     d.shard = Some(Shard::new(vec![2, 3], vec![row, 0]));
//!     writer::finalize(d)
//! };
//! let (first, second) = (shard(0)?, shard(1)?);
//! let config = ReaderConfig::new();
//! let first = descriptor::read(&first, &config)?;
//! let second = descriptor::read(&second, &config)?;
//!
//! let mut r = Reassembly::new(first.view())?;
//! r.place(second.view(), &[4, 5, 6])?; // in any order
//! r.place(first.view(), &[1, 2, 3])?;
//! assert_eq!(r.finish()?, [1, 2, 3, 4, 5, 6]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use crate::error::Error;
use crate::generated::rules::Rule;
use crate::semantic::size::Integer;
use crate::structures::{DescriptorView, ShardView};
use crate::tags::{ElementType, Layout, Packing};
use crate::wire::{TagClass, TagSpace};

/// Why shards could not be put back together.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReassemblyError {
    /// The shards are not of a layout and element type this reassembler places by copying
    /// bytes (dense row- or column-major, whole-byte elements, unquantized, no extension
    /// type): their raw layout and element type tags.
    Unsupported {
        /// The layout tag.
        layout: u32,
        /// The element type tag.
        type_tag: u32,
    },
    /// A shard that breaks a rule: no shard section (IX-60), another parent, element type or
    /// layout than the first (IX-61), a box outside the parent or overlapping another, or
    /// shards that do not cover the parent (IX-62), data shorter than the shard's elements
    /// (MSG-11).
    Invalid(Error),
}

impl fmt::Display for ReassemblyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReassemblyError::Unsupported { layout, type_tag } => write!(
                f,
                "shards of layout {layout:#04x} and element type {type_tag:#04x} are not placed by copying bytes (dense row- or column-major, whole-byte elements)"
            ),
            ReassemblyError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReassemblyError {}

impl From<Error> for ReassemblyError {
    fn from(e: Error) -> Self {
        ReassemblyError::Invalid(e)
    }
}

/// One placed shard: its box and a copy of its elements.
#[derive(Debug)]
struct Placed {
    start: Vec<u64>,
    shape: Vec<u64>,
    bytes: Vec<u8>,
}

/// The shards of one parallel answer, placed one by one and put together by
/// [`Reassembly::finish`].
#[derive(Debug)]
pub struct Reassembly {
    parent: Vec<u64>,
    type_tag: u32,
    layout_tag: u32,
    /// Bytes per element.
    element: u64,
    /// The parent's dimensions, fastest-varying last (column-major reversed).
    column_major: bool,
    /// Elements placed so far, and the parent's count.
    placed: u64,
    total: u64,
    shards: Vec<Placed>,
}

impl Reassembly {
    /// A reassembly of the shards `first` is one of: its parent shape, element type and layout.
    pub fn new(first: &DescriptorView<'_>) -> Result<Reassembly, ReassemblyError> {
        let h = first.fixed_header();
        let (type_tag, layout_tag) = (h.type_tag().raw(), h.layout_tag().raw());
        let unsupported = ReassemblyError::Unsupported {
            layout: layout_tag,
            type_tag,
        };
        let column_major = match Layout::classify(layout_tag) {
            TagClass::Known(Layout::RowMajor) => false,
            TagClass::Known(Layout::ColumnMajor) => true,
            _ => return Err(unsupported),
        };
        let element = match ElementType::classify(type_tag) {
            TagClass::Known(t) if t.packing() == Packing::None && t.bits() % 8 == 0 => {
                u64::from(t.bits() / 8)
            }
            _ => return Err(unsupported),
        };
        if first.quantization().is_some() || first.extension_type().is_some() || element == 0 {
            return Err(unsupported);
        }
        let (_, parent) = section(first)?;
        let total = parent
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| {
                Error::new(
                    Rule::Ix62,
                    first.shard_at(),
                    format!("the parent {parent:?} holds more elements than 2^64"),
                )
            })?;
        Ok(Reassembly {
            parent,
            type_tag,
            layout_tag,
            element,
            column_major,
            placed: 0,
            total,
            shards: Vec::new(),
        })
    }

    /// The parent's shape.
    pub fn parent_shape(&self) -> &[u64] {
        &self.parent
    }

    /// Place one shard: its descriptor and the bytes its transfer carried (buffer 0 first, as
    /// `TENSOR_DATA` frames deliver them). Its elements are copied.
    pub fn place(
        &mut self,
        shard: &DescriptorView<'_>,
        data: &[u8],
    ) -> Result<(), ReassemblyError> {
        let h = shard.fixed_header();
        let (section, parent) = section(shard)?;
        if (parent.as_slice(), h.type_tag().raw(), h.layout_tag().raw())
            != (self.parent.as_slice(), self.type_tag, self.layout_tag)
        {
            return Err(Error::new(
                Rule::Ix61,
                shard.offset(),
                format!(
                    "a shard of parent {parent:?}, type {:#04x}, layout {:#04x} among shards of parent {:?}, type {:#04x}, layout {:#04x}",
                    h.type_tag().raw(),
                    h.layout_tag().raw(),
                    self.parent,
                    self.type_tag,
                    self.layout_tag
                ),
            )
            .into());
        }
        let start: Vec<u64> = section.shard_offset().iter().map(Integer::to).collect();
        let shape: Vec<u64> = shard.shape().iter().map(Integer::to).collect();
        let at = shard.shard_at();
        // A checked descriptor's box lies inside its parent (SHD-2); checked again here, as
        // every size this module computes from it relies on it.
        let inside = start.len() == parent.len()
            && shape.len() == parent.len()
            && start
                .iter()
                .zip(&shape)
                .zip(&parent)
                .all(|((&o, &s), &p)| o.checked_add(s).is_some_and(|end| end <= p));
        if !inside {
            return Err(Error::new(
                Rule::Ix62,
                at,
                format!(
                    "the box at {start:?} of shape {shape:?} is not inside the parent {:?}",
                    self.parent
                ),
            )
            .into());
        }
        if let Some(other) = self.shards.iter().find(|p| overlaps(p, &start, &shape)) {
            return Err(Error::new(
                Rule::Ix62,
                at,
                format!(
                    "the box at {start:?} of shape {shape:?} overlaps the one at {:?} of shape {:?}",
                    other.start, other.shape
                ),
            )
            .into());
        }
        // Inside the parent, so the count and its bytes are at most the parent's.
        let count: u64 = shape.iter().product();
        let from: u64 = shard.byte_offset().to();
        let need = count
            .checked_mul(self.element)
            .and_then(|n| n.checked_add(from))
            .filter(|&end| end <= data.len() as u64)
            .ok_or_else(|| {
                Error::new(
                    Rule::Msg11,
                    shard.byte_offset_at(),
                    format!(
                        "the shard's {count} elements at byte {from} do not fit the {} bytes given",
                        data.len()
                    ),
                )
            })?;
        let bytes = data[from as usize..need as usize].to_vec();
        self.placed += count;
        self.shards.push(Placed {
            start,
            shape,
            bytes,
        });
        Ok(())
    }

    /// The parent's elements, in its layout, once the shards cover it.
    pub fn finish(self) -> Result<Vec<u8>, ReassemblyError> {
        if self.placed != self.total {
            return Err(Error::new(
                Rule::Ix62,
                0,
                format!(
                    "the shards hold {} of the parent's {} elements",
                    self.placed, self.total
                ),
            )
            .into());
        }
        // Disjoint boxes inside the parent holding its count: they cover it, and the bytes
        // are the sum of what was given.
        let size = self
            .total
            .checked_mul(self.element)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                Error::new(
                    Rule::Ix62,
                    0,
                    "the parent does not fit this machine's memory",
                )
            })?;
        let mut out = vec![0u8; size];
        let order = |v: &[u64]| -> Vec<u64> {
            let mut v = v.to_vec();
            if self.column_major {
                v.reverse();
            }
            v
        };
        let parent = order(&self.parent);
        for s in &self.shards {
            place(
                &mut out,
                &parent,
                &order(&s.start),
                &order(&s.shape),
                &s.bytes,
                self.element,
            );
        }
        Ok(out)
    }
}

/// A shard's section and its parent's shape; a descriptor without one is no shard (IX-60).
fn section<'a>(d: &DescriptorView<'a>) -> Result<(ShardView<'a>, Vec<u64>), Error> {
    let s = d
        .shard()
        .ok_or_else(|| Error::new(Rule::Ix60, d.offset(), "a shard carries a shard section"))?;
    let parent = s.parent_shape().iter().map(Integer::to).collect();
    Ok((s, parent))
}

/// Whether the box at `start` of `shape` overlaps `p`'s: in every dimension.
fn overlaps(p: &Placed, start: &[u64], shape: &[u64]) -> bool {
    let empty = shape.contains(&0) || p.shape.contains(&0);
    !empty
        && (0..start.len())
            .all(|i| start[i] < p.start[i] + p.shape[i] && p.start[i] < start[i] + shape[i])
}

/// Copy a box's elements (dimensions fastest-varying last) into the parent's bytes, one
/// contiguous run per index of the box's leading dimensions.
fn place(out: &mut [u8], parent: &[u64], start: &[u64], shape: &[u64], bytes: &[u8], element: u64) {
    let Some((&run, lead)) = shape.split_last() else {
        // Rank 0: one element.
        out[..bytes.len()].copy_from_slice(bytes);
        return;
    };
    if shape.contains(&0) {
        return;
    }
    let run = (run * element) as usize;
    let mut index = vec![0u64; lead.len()];
    for chunk in bytes.chunks(run) {
        // The element's linear position in the parent: start + index, row by row.
        let mut at = 0u64;
        for (d, &p) in parent.iter().enumerate() {
            let i = start[d] + index.get(d).copied().unwrap_or(0);
            at = at * p + i;
        }
        let at = (at * element) as usize;
        out[at..at + run].copy_from_slice(chunk);
        // The next index of the leading dimensions, last fastest.
        for d in (0..lead.len()).rev() {
            index[d] += 1;
            if index[d] < lead[d] {
                break;
            }
            index[d] = 0;
        }
    }
}
