//! Telling a file cut short from a corrupt one (F38). A file whose trailer does not parse is
//! walked from its first descriptor by the placement arithmetic alone (container.md §5.1,
//! §11.2): when the bytes end inside a descriptor, a buffer, the KV section, the index or the
//! trailer, the file is truncated, and the rejection names that part and the byte where it is
//! cut. A file whose last 40 bytes are all zero is torn (its size was set, its end never
//! written): it is judged as if it ended where its non-zero bytes end. Anything else keeps the
//! trailer's own rejection (F4 and the rest).

use crate::ctx::{Ctx, ReaderConfig};
use crate::descriptor;
use crate::error::Error;
use crate::generated::flags::FileFlags;
use crate::generated::rules::Rule;
use crate::semantic::size::Integer;
use crate::structures::{FileHeaderView, FixedHeaderView, IndexEntryView, KvEntryView};
use crate::wire::Reader;

use super::placement::{TRAILER_SIZE, buffer_spans, starts_descriptor};

/// The F38 rejection of a truncated or torn file, or None when the bytes are not cut short.
pub(crate) fn diagnose(
    bytes: &[u8],
    header: &FileHeaderView<'_>,
    config: &ReaderConfig,
) -> Option<Error> {
    let len = bytes.len() as u64;
    let trailer = &bytes[bytes.len().saturating_sub(TRAILER_SIZE as usize)..];
    let torn = trailer.iter().all(|b| *b == 0);
    let end = if torn {
        bytes
            .iter()
            .rposition(|b| *b != 0)
            .map_or(0, |i| i as u64 + 1)
    } else {
        len
    };
    let cut = locate(&bytes[..end as usize], header, config)?;
    let detail = if torn {
        format!(
            "the file is torn: bytes {end}..{len} are zero, so its written part ends at byte {end}, {cut}"
        )
    } else {
        format!("the file is truncated: it ends at byte {end}, {cut}")
    };
    Some(Error::new(Rule::F38, end, detail))
}

/// Where the end of `bytes` cuts the file: walk the tensor region by arithmetic, then the
/// sections after it. None when the walk finds the parts whole up to a trailer, or finds
/// something that is not a cut-short part (the caller keeps its own rejection).
fn locate(bytes: &[u8], header: &FileHeaderView<'_>, config: &ReaderConfig) -> Option<String> {
    let len = bytes.len() as u64;
    let a = u64::from(header.data_buffer_alignment());
    let first = header.first_descriptor_offset();
    if len <= first {
        return Some(format!(
            "inside the padding before the first descriptor at {first}"
        ));
    }
    let mut pos = first;
    let mut tensors = 0u64;
    let missing = if header.file_flags().has(FileFlags::HAS_KV_METADATA) {
        "the KV section, the index section and the trailer are missing"
    } else {
        "the index section and the trailer are missing"
    };
    loop {
        // Zero words are padding before the next descriptor (RES-3) or the start of a section.
        let mut next = pos;
        while next + 8 <= len && bytes[next as usize..next as usize + 8] == [0; 8] {
            next += 8;
        }
        if next + 8 > len && bytes[next as usize..].iter().all(|b| *b == 0) {
            return Some(format!(
                "after {tensors} tensor(s) and their padding: {missing}"
            ));
        }
        if !starts_descriptor(&bytes[next as usize..], config) {
            return sections(
                Bytes {
                    tail: bytes,
                    base: 0,
                },
                pos,
                next,
                header,
                config,
            );
        }
        pos = next;
        let fixed = FixedHeaderView::SIZE as u64;
        if pos + fixed > len {
            return Some(format!(
                "inside the fixed header of tensor #{tensors}'s descriptor at byte {pos}"
            ));
        }
        let at = (pos as usize) + FixedHeaderView::OFFSET_DESCRIPTOR_LENGTH;
        let dl = u64::from(crate::wire::read::<u32>(bytes, at));
        if pos + dl > len {
            return Some(format!(
                "inside the descriptor of tensor #{tensors} at byte {pos}, which runs to byte {}",
                pos + dl
            ));
        }
        let (checked, _) =
            descriptor::read_prefix(&bytes[pos as usize..(pos + dl) as usize], pos, config).ok()?;
        let sizes = checked
            .view
            .buffer_table()
            .buffers()
            .iter()
            .map(|b| b.byte_size().to());
        let spans = buffer_spans(pos + dl, a, sizes)?;
        for (k, (s, e)) in spans.iter().enumerate() {
            if *e > len {
                return Some(format!(
                    "inside buffer {k} of tensor #{tensors} (descriptor at byte {pos}), which runs from byte {s} to byte {e}"
                ));
            }
        }
        let end = spans.last().map_or(pos + dl, |s| s.1);
        tensors += 1;
        pos = end.checked_next_multiple_of(8)?;
        if pos >= len {
            return Some(format!("after {tensors} tensor(s): {missing}"));
        }
    }
}

/// The F38 rejection of an input whose tensor region was read whole (by the sequential
/// reader) but whose sections are cut short: `tail` holds the input's bytes from absolute
/// offset `region` (where the region ends) to the end. None when the sections are whole.
pub(crate) fn diagnose_tail(
    tail: &[u8],
    region: u64,
    header: &FileHeaderView<'_>,
    config: &ReaderConfig,
) -> Option<Error> {
    let end = region + tail.len() as u64;
    let bytes = Bytes { tail, base: region };
    let mut word = region;
    while word + 8 <= end && bytes.at(word, 8) == [0; 8] {
        word += 8;
    }
    let cut = if word >= end {
        Some("after the tensor region: the index section and the trailer are missing".to_string())
    } else {
        sections(bytes, region, word, header, config)
    }?;
    Some(Error::new(
        Rule::F38,
        end,
        format!("the input is truncated: it ends at byte {end}, {cut}"),
    ))
}

/// Bytes of the input from absolute offset `base` on.
#[derive(Clone, Copy)]
struct Bytes<'b> {
    tail: &'b [u8],
    base: u64,
}

impl<'b> Bytes<'b> {
    fn end(&self) -> u64 {
        self.base + self.tail.len() as u64
    }
    fn at(&self, offset: u64, n: usize) -> &'b [u8] {
        let i = (offset - self.base) as usize;
        &self.tail[i..i + n]
    }
    fn from(&self, offset: u64) -> &'b [u8] {
        &self.tail[(offset - self.base) as usize..]
    }
}

/// The sections after a tensor region that ends at `region` (its first non-zero word at
/// `word`): the KV section when the header announces one, then the index, then the trailer.
fn sections(
    bytes: Bytes<'_>,
    region: u64,
    word: u64,
    header: &FileHeaderView<'_>,
    config: &ReaderConfig,
) -> Option<String> {
    if header.file_flags().has(FileFlags::HAS_KV_METADATA) {
        // An empty KV section is a zero count, which the walk took for padding: try both.
        let starts = [region.next_multiple_of(8), word];
        return starts.iter().find_map(|s| kv_then_index(bytes, *s, config));
    }
    index_then_trailer(bytes, word, config)
}

fn kv_then_index(bytes: Bytes<'_>, at: u64, config: &ReaderConfig) -> Option<String> {
    let mut ctx = Ctx::new(config);
    // A read past the end of the bytes breaks F38 and nothing else: that is the cut.
    let mut r = Reader::new(bytes.from(at), at, Rule::F38);
    let cut = |e: &Error| e.rule() == Some(Rule::F38);
    let count = match r.scalar::<u32>("kv_count") {
        Ok(c) => c,
        Err(_) => return Some(format!("inside the KV section at byte {at}")),
    };
    for i in 0..count {
        match KvEntryView::parse(&mut r, &mut ctx) {
            Ok(_) => {}
            Err(e) if cut(&e) => {
                return Some(format!("inside entry {i} of the KV section at byte {at}"));
            }
            Err(_) => return None,
        }
    }
    let mut index = r.offset().next_multiple_of(8);
    let len = bytes.end();
    while index + 8 <= len && bytes.at(index, 8) == [0; 8] {
        index += 8;
    }
    if index >= len {
        return Some(format!(
            "after the KV section at byte {at}: the index section and the trailer are missing"
        ));
    }
    index_then_trailer(bytes, index, config)
}

fn index_then_trailer(bytes: Bytes<'_>, at: u64, config: &ReaderConfig) -> Option<String> {
    let mut ctx = Ctx::new(config);
    let mut r = Reader::new(bytes.from(at), at, Rule::F38);
    let count = match r.scalar::<u64>("index_entry_count") {
        Ok(c) => c,
        Err(_) => return Some(format!("inside the index section at byte {at}")),
    };
    for i in 0..count {
        match IndexEntryView::parse(&mut r, &mut ctx) {
            Ok(_) => {}
            Err(e) if e.rule() == Some(Rule::F38) => {
                return Some(format!(
                    "inside entry {i} of the index section at byte {at} ({count} entries)"
                ));
            }
            Err(_) => return None,
        }
    }
    let rest = r.remaining() as u64;
    (rest < TRAILER_SIZE).then(|| {
        format!(
            "inside the trailer after the index section at byte {at}: {rest} of its {TRAILER_SIZE} bytes are present"
        )
    })
}
