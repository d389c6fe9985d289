//! The placement arithmetic of a file (container.md §5.1, §10) and the checks both readers
//! make at a boundary: the sizes of the header and the trailer, where a tensor's buffers lie,
//! whether a descriptor starts at an offset, zero padding (F32), and the shortest file (LEN-3).

use crate::ctx::{Ctx, ReaderConfig};
use crate::error::Error;
use crate::generated::rules::Rule;
use crate::structures::{FileHeaderView, FixedHeaderView, TrailerView};
use crate::wire::Reader;

/// The trailer's size: the last bytes of every file.
pub const TRAILER_SIZE: u64 = TrailerView::SIZE as u64;
/// The file header's size.
pub const HEADER_SIZE: u64 = FileHeaderView::SIZE as u64;

/// Where each buffer of a tensor starts and ends (container.md §5.1): the first at the next
/// multiple of `alignment` (the file's `A`) after the descriptor's end, each later one at the
/// next multiple after the one before. None when the arithmetic overflows.
///
/// ```
/// use hurray_runtime::file::buffer_spans;
/// // container.md §5.2's worked example: a 61-byte descriptor at 64, one 16-byte buffer.
/// assert_eq!(buffer_spans(64 + 61, 4096, [16]), Some(vec![(4096, 4112)]));
/// ```
pub fn buffer_spans(
    descriptor_end: u64,
    alignment: u64,
    sizes: impl IntoIterator<Item = u64>,
) -> Option<Vec<(u64, u64)>> {
    let mut at = descriptor_end;
    let mut spans = Vec::new();
    for size in sizes {
        let start = at.checked_next_multiple_of(alignment)?;
        at = start.checked_add(size)?;
        spans.push((start, at));
    }
    Some(spans)
}

/// True when a descriptor starts at the front of `bytes` (its magic, as the spec states it,
/// is there), false when anything else does.
pub(crate) fn starts_descriptor(bytes: &[u8], config: &ReaderConfig) -> bool {
    let mut head = [0u8; FixedHeaderView::SIZE];
    let n = bytes.len().min(head.len());
    head[..n].copy_from_slice(&bytes[..n]);
    let mut ctx = Ctx::new(config);
    match FixedHeaderView::parse(&mut Reader::new(&head, 0, Rule::Hdr5), &mut ctx) {
        Err(e) => {
            !(e.rule() == Some(Rule::Hdr1) && e.offset() == FixedHeaderView::OFFSET_MAGIC as u64)
        }
        Ok(_) => true,
    }
}

/// True when a file container's header magic is at the front of `bytes` (what follows it
/// may be anything): a canonical stream starting so is a file (CS-3).
pub(crate) fn starts_file(bytes: &[u8]) -> bool {
    let mut head = [0u8; FileHeaderView::SIZE];
    let n = bytes.len().min(head.len());
    head[..n].copy_from_slice(&bytes[..n]);
    let config = ReaderConfig::new();
    let mut ctx = Ctx::new(&config);
    match FileHeaderView::parse(&mut Reader::new(&head, 0, Rule::Len3), &mut ctx) {
        Err(e) => {
            !(e.rule() == Some(Rule::F1) && e.offset() == FileHeaderView::OFFSET_MAGIC as u64)
        }
        Ok(_) => true,
    }
}

/// The first non-zero byte of the padding `bytes[from..to]` (offsets absolute, `bytes`
/// starting at absolute offset `base`), as a padding rejection (F32).
pub(crate) fn padding(bytes: &[u8], base: u64, from: u64, to: u64) -> Result<(), Error> {
    let run = &bytes[(from - base) as usize..(to - base) as usize];
    match crate::wire::first_nonzero(run) {
        Some(i) => {
            let at = from + i as u64;
            Err(Error::new(
                Rule::F32,
                at,
                format!("padding byte {at} is {:#04x}, not zero", run[i]),
            ))
        }
        None => Ok(()),
    }
}

/// LEN-3: a file too short to hold a header and a trailer.
pub(crate) fn too_short(len: u64) -> Result<(), Error> {
    if len < HEADER_SIZE + TRAILER_SIZE {
        return Err(Error::new(
            Rule::Len3,
            len,
            format!(
                "a file needs at least {} bytes (header and trailer); this one has {len}",
                HEADER_SIZE + TRAILER_SIZE
            ),
        ));
    }
    Ok(())
}
