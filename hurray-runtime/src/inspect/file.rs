//! The walk of a file container: its parts located first (the header; the trailer, found
//! only as the last 40 bytes; the index and KV sections the trailer places; every tensor the
//! index names, its buffers placed by the arithmetic of container.md §5.1), then walked in
//! file order with the padding between them. When the index cannot be located or walked (a
//! file cut short, a corrupt trailer), the tensors are found as the sequential reader finds
//! them (container.md §11.2): from `first_descriptor_offset`, each descriptor and its buffers
//! by arithmetic, zero words skipped as padding.

use super::root::{Input, Inspection, walk_root};
use super::walk::{Cursor, Discard, Stop, Walker};
use crate::ctx::{ReaderConfig, Warning};
use crate::file::{HEADER_SIZE, TRAILER_SIZE, buffer_spans, starts_descriptor};
use crate::generated::annotate::{
    DescriptorWalk, FileHeaderWalk, IndexSectionWalk, KvSectionWalk, TrailerWalk, walk_file_header,
    walk_index_section, walk_kv_section, walk_trailer,
};
use crate::generated::flags::FileFlags;
use crate::generated::rules::Rule;
use crate::semantic::size::Integer;

/// One tensor, located.
#[derive(Debug)]
pub(super) struct TensorPart {
    /// Its index position, or its place in the arithmetic walk when no index locates it.
    position: u32,
    /// Its name (`#k` when no index names it).
    label: String,
    descriptor: u64,
    /// Where its descriptor ends (its own `descriptor_length`, or where its walk stopped).
    descriptor_end: u64,
    buffers: Vec<(u64, u64)>,
}

impl TensorPart {
    pub(super) fn end(&self) -> u64 {
        self.buffers.last().map_or(self.descriptor_end, |b| b.1)
    }
}

/// A part of the file, by where it starts.
#[derive(Debug)]
enum Part {
    Tensor(usize),
    Kv(u64, u64),
    Index(u64, u64),
    Trailer(u64),
}

/// Where every part of the file is.
#[derive(Debug, Default)]
struct Plan {
    tensors: Vec<TensorPart>,
    kv: Option<(u64, u64)>,
    index: Option<(u64, u64)>,
    trailer: Option<u64>,
    /// The CRC-32C remark for the trailer's `index_crc32c`.
    crc: Option<(u64, String)>,
    /// Why the tensors were found by arithmetic rather than through the index.
    arithmetic: Option<&'static str>,
}

/// A section `length` bytes at `offset`, when it lies between the header and the trailer.
fn section(offset: u64, length: u64, trailer_at: u64) -> Option<(u64, u64)> {
    let end = offset.checked_add(length)?;
    (offset >= HEADER_SIZE && end <= trailer_at && length > 0).then_some((offset, end))
}

pub(super) fn inspect(
    bytes: &[u8],
    config: &ReaderConfig,
    sink: &mut dyn super::walk::Sink,
) -> Inspection {
    let (error, warnings): (_, Vec<Warning>) = match crate::file::read(bytes, config) {
        Ok(f) => (None, f.warnings()),
        Err(e) => (Some(e), Vec::new()),
    };
    let len = bytes.len() as u64;
    // A file the reader finds cut short or torn (F38) has no trailer to trust: its tensors
    // are found by arithmetic.
    let truncated = error.as_ref().is_some_and(|e| e.rule() == Some(Rule::F38));
    let plan = plan(bytes, config, truncated);
    let mut w = Walker::new(bytes, sink, config, error.as_ref());
    let shown = show(&mut w, bytes, &plan);
    w.conclude(len, shown, "no part of the file locates these bytes");
    Inspection {
        input: Input::File,
        len,
        error,
        warnings,
    }
}

/// Locate every part, walking them without annotating (`truncated`: the trailer is not
/// trusted).
fn plan(bytes: &[u8], config: &ReaderConfig, truncated: bool) -> Plan {
    let len = bytes.len() as u64;
    let mut sink = Discard;
    let mut w = Walker::new(bytes, &mut sink, config, None);
    let mut plan = Plan::default();
    let Ok(header) = walk_file_header(&mut w, &mut Cursor::new(bytes, 0)) else {
        return plan;
    };
    let trailer_at = len
        .checked_sub(TRAILER_SIZE)
        .filter(|t| *t >= HEADER_SIZE && !truncated);
    let trailer = trailer_at.and_then(|t| {
        walk_trailer(&mut w, &mut Cursor::new(&bytes[t as usize..], t))
            .ok()
            .map(|v| (t, v))
    });
    plan.trailer = trailer_at;
    let mut region_end = trailer_at.unwrap_or(len);
    let mut entries = None;
    if let Some((t, tr)) = &trailer {
        plan.index = section(tr.index_offset(), tr.index_length(), *t);
        if tr.kv_offset() != 0 || tr.kv_length() != 0 {
            plan.kv = section(tr.kv_offset(), u64::from(tr.kv_length()), *t);
        }
        // The sections must not overlap; a KV section that runs into the index is shown as
        // far as the index starts (the reader rejects it).
        if let (Some((ks, ke)), Some((is, ie))) = (plan.kv, plan.index)
            && ks < ie
            && is < ke
        {
            plan.kv = (ks < is).then_some((ks, is));
        }
        region_end = [plan.kv, plan.index]
            .iter()
            .flatten()
            .map(|s| s.0)
            .min()
            .unwrap_or(*t);
        if let Some((s, e)) = plan.index {
            let index = &bytes[s as usize..e as usize];
            let computed = crc32c::crc32c(index);
            let stored = tr.index_crc32c();
            let at = t + crate::structures::TrailerView::OFFSET_INDEX_CRC32C as u64;
            let flagged = header.file_flags().has(FileFlags::HAS_INDEX_CRC32C);
            plan.crc = Some((
                at,
                match (flagged, computed == stored) {
                    (true, true) => {
                        format!("CRC-32C of the index: computed {computed:#010x}, matches")
                    }
                    (true, false) => format!(
                        "CRC-32C of the index: computed {computed:#010x}, stored {stored:#010x}: they differ"
                    ),
                    (false, _) => format!(
                        "HAS_INDEX_CRC32C is clear, so 0 belongs here (the index's CRC-32C is {computed:#010x})"
                    ),
                },
            ));
            entries = walk_index_section(&mut w, &mut Cursor::new(index, s)).ok();
        }
    }
    let alignment = u64::from(header.data_buffer_alignment());
    let declared = w.declared();
    // The index locates the tensors when every entry points at a descriptor; otherwise (no
    // index, or an entry the reader rejects) they are found by arithmetic, named by the
    // entries that do point at them.
    let names: Vec<(u64, String)> = entries
        .as_ref()
        .map(|index| {
            index
                .entries()
                .iter()
                .map(|e| {
                    (
                        e.descriptor_offset(),
                        String::from_utf8_lossy(e.name()).into_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let locates = |d: u64| {
        d >= HEADER_SIZE
            && d < region_end
            && d.is_multiple_of(8)
            && starts_descriptor(&bytes[d as usize..region_end as usize], config)
    };
    let by_index = entries.is_some() && names.iter().all(|(d, _)| locates(*d));
    if let (true, Some(index)) = (by_index, &entries) {
        for (i, e) in index.entries().iter().enumerate() {
            let d = e.descriptor_offset();
            if plan.tensors.iter().any(|t| t.descriptor == d) {
                continue;
            }
            w.reset_versions();
            let label = String::from_utf8_lossy(e.name()).into_owned();
            let fallback = d.saturating_add(u64::from(e.descriptor_length()));
            plan.tensors.push(tensor(
                &mut w, bytes, d, region_end, alignment, i as u32, label, fallback,
            ));
        }
    } else {
        plan.arithmetic = Some(if truncated {
            "the file is cut short or torn (F38)"
        } else if trailer.is_none() {
            "the trailer cannot be read"
        } else if entries.is_none() {
            "the index cannot be located or read"
        } else {
            "an index entry does not locate a descriptor"
        });
        let mut pos = header.first_descriptor_offset();
        let mut k = 0u32;
        while pos < region_end && pos.is_multiple_of(8) {
            pos = skip_zero_words(bytes, pos, region_end);
            if pos >= region_end || !starts_descriptor(&bytes[pos as usize..], config) {
                break;
            }
            w.reset_versions();
            let (position, label) = match names.iter().position(|(d, _)| *d == pos) {
                Some(i) => (i as u32, names[i].1.clone()),
                None => (k, format!("#{k}")),
            };
            let t = tensor(
                &mut w, bytes, pos, region_end, alignment, position, label, region_end,
            );
            let Some(next) = t.end().checked_next_multiple_of(8) else {
                plan.tensors.push(t);
                break;
            };
            let stuck = next <= pos;
            plan.tensors.push(t);
            if stuck {
                break;
            }
            pos = next;
            k += 1;
        }
        // The sections the trailer does not place follow the tensors, KV metadata first
        // (when the header says there is some), each after zero padding.
        let limit = trailer_at.unwrap_or(len);
        let mut pos = plan
            .tensors
            .last()
            .map_or(header.first_descriptor_offset(), TensorPart::end)
            .max(plan.kv.map_or(0, |k| k.1));
        if plan.kv.is_none() && header.file_flags().has(FileFlags::HAS_KV_METADATA) {
            let at = skip_zero_words(bytes, pos.next_multiple_of(8), limit);
            if at < limit {
                let mut r = Cursor::new(&bytes[at as usize..limit as usize], at);
                let end = match walk_kv_section(&mut w, &mut r) {
                    Ok(_) => r.offset(),
                    Err(Stop) => limit,
                };
                plan.kv = Some((at, end));
                pos = end;
            }
        }
        if plan.index.is_none() {
            let at = skip_zero_words(bytes, pos.next_multiple_of(8), limit);
            if at < limit {
                let mut r = Cursor::new(&bytes[at as usize..limit as usize], at);
                let end = match walk_index_section(&mut w, &mut r) {
                    Ok(_) => r.offset(),
                    Err(Stop) => limit,
                };
                plan.index = Some((at, end));
            }
        }
    }
    w.restore(declared);
    plan.tensors.sort_by_key(|t| t.descriptor);
    plan
}

/// The first offset from `pos` (a multiple of 8) that does not start a zero word, or `end`.
fn skip_zero_words(bytes: &[u8], mut pos: u64, end: u64) -> u64 {
    while pos + 8 <= end && bytes[pos as usize..pos as usize + 8] == [0; 8] {
        pos += 8;
    }
    pos.min(end)
}

/// Locate one tensor: its descriptor at `d` (walked), and its buffers by arithmetic.
#[allow(clippy::too_many_arguments)]
pub(super) fn tensor<'a>(
    w: &mut Walker<'a, '_>,
    bytes: &'a [u8],
    d: u64,
    region_end: u64,
    alignment: u64,
    position: u32,
    label: String,
    fallback_end: u64,
) -> TensorPart {
    let walked: Option<DescriptorWalk<'a>> = walk_root(
        w,
        &mut Cursor::new(&bytes[d as usize..region_end as usize], d),
        "",
    )
    .ok();
    let (descriptor_end, buffers) = match walked {
        Some(v) => {
            let end = d
                .saturating_add(u64::from(v.fixed_header().descriptor_length()))
                .min(region_end);
            let sizes = v
                .buffer_table()
                .buffers()
                .iter()
                .map(|b| b.byte_size().to());
            let spans = buffer_spans(end, alignment, sizes).unwrap_or_default();
            // A buffer the region ends inside of is kept as far as it goes (a file cut short).
            let buffers = spans
                .into_iter()
                .take_while(|(s, _)| *s < region_end)
                .map(|(s, e)| (s, e.min(region_end)))
                .collect();
            (end, buffers)
        }
        None => (fallback_end.clamp(d, region_end), Vec::new()),
    };
    TensorPart {
        position,
        label,
        descriptor: d,
        descriptor_end,
        buffers,
    }
}

/// Run a part's walk; a walk that stops inside the part (not at the rejection) leaves the
/// rest of the part unread and the file walk goes on.
fn part<'a>(
    w: &mut Walker<'a, '_>,
    end: u64,
    walk: impl FnOnce(&mut Walker<'a, '_>) -> Result<(), Stop>,
) -> Result<(), Stop> {
    let depth = w.depth();
    match walk(w) {
        Ok(()) => Ok(()),
        Err(Stop) if w.is_cut() => Err(Stop),
        Err(Stop) => {
            w.close_to(depth);
            let why = w
                .take_stopped()
                .unwrap_or_else(|| "the walk of this part stopped before".to_string());
            let from = w.covered();
            w.unread(from, end, &why)
        }
    }
}

/// Walk every part in file order, with the padding between them.
fn show<'a>(w: &mut Walker<'a, '_>, bytes: &'a [u8], plan: &Plan) -> Result<(), Stop> {
    let len = bytes.len() as u64;
    part(w, HEADER_SIZE.min(len), |w| {
        w.open(0, "header", FileHeaderWalk::TITLE)?;
        let mut r = Cursor::new(bytes, 0);
        walk_file_header(w, &mut r)?;
        w.close(r.offset());
        Ok(())
    })?;
    if len < HEADER_SIZE + TRAILER_SIZE {
        return Err(w.stop(format!(
            "a file needs at least {} bytes (header and trailer)",
            HEADER_SIZE + TRAILER_SIZE
        )));
    }
    let mut parts: Vec<(u64, Part)> = plan
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| (t.descriptor, Part::Tensor(i)))
        .collect();
    if let Some((s, e)) = plan.kv {
        parts.push((s, Part::Kv(s, e)));
    }
    if let Some((s, e)) = plan.index {
        parts.push((s, Part::Index(s, e)));
    }
    if let Some(t) = plan.trailer {
        parts.push((t, Part::Trailer(t)));
    }
    parts.sort_by_key(|p| p.0);
    if let Some((at, note)) = &plan.crc {
        w.remark(*at, note.clone());
    }
    let container = w.declared();
    for (start, p) in &parts {
        let from = w.covered();
        if *start > from {
            let why = match (&plan.arithmetic, p) {
                (Some(why), Part::Trailer(_) | Part::Kv(..) | Part::Index(..))
                    if *start - from > 64 =>
                {
                    format!("padding, or parts not located: {why}")
                }
                _ => String::new(),
            };
            if why.is_empty() {
                w.padding(from, *start, "padding")?;
            } else {
                w.unread(from, *start, &why)?;
            }
        }
        match p {
            Part::Tensor(i) => {
                let t = &plan.tensors[*i];
                w.reset_versions();
                part(w, t.end(), |w| show_tensor(w, bytes, t))?;
                w.restore(container.clone());
            }
            Part::Kv(s, e) => part(w, *e, |w| {
                w.open(*s, "kv", KvSectionWalk::TITLE)?;
                let mut r = Cursor::new(&bytes[*s as usize..*e as usize], *s);
                walk_kv_section(w, &mut r)?;
                w.close(r.offset());
                Ok(())
            })?,
            Part::Index(s, e) => part(w, *e, |w| {
                w.open(*s, "index", IndexSectionWalk::TITLE)?;
                let mut r = Cursor::new(&bytes[*s as usize..*e as usize], *s);
                walk_index_section(w, &mut r)?;
                w.close(r.offset());
                Ok(())
            })?,
            Part::Trailer(t) => part(w, len, |w| {
                w.open(*t, TrailerWalk::NAME, TrailerWalk::TITLE)?;
                let mut r = Cursor::new(&bytes[*t as usize..], *t);
                walk_trailer(w, &mut r)?;
                w.close(r.offset());
                Ok(())
            })?,
        }
    }
    if plan.arithmetic.is_some() && plan.trailer.is_none() {
        // A file cut short: the zero words after its last part are padding.
        let from = w.covered();
        let zeros = bytes[from as usize..]
            .iter()
            .take_while(|b| **b == 0)
            .count() as u64;
        w.padding(from, from + zeros, "padding")?;
    }
    Ok(())
}

/// A tensor: its descriptor, the padding after it, and each buffer.
pub(super) fn show_tensor<'a>(
    w: &mut Walker<'a, '_>,
    bytes: &'a [u8],
    t: &TensorPart,
) -> Result<(), Stop> {
    w.open(t.descriptor, &format!("tensors.{}", t.label), "Tensor")?;
    let mut r = Cursor::new(
        &bytes[t.descriptor as usize..t.descriptor_end as usize],
        t.descriptor,
    );
    if walk_root(w, &mut r, DescriptorWalk::NAME).is_err() {
        if w.is_cut() {
            return Err(Stop);
        }
        let why = w
            .take_stopped()
            .unwrap_or_else(|| "the descriptor's walk stopped before".to_string());
        let from = w.covered();
        w.unread(from, t.descriptor_end, &why)?;
    }
    for (k, (s, e)) in t.buffers.iter().enumerate() {
        let from = w.covered();
        w.padding(from, *s, "padding")?;
        w.buffer(
            *s,
            *e,
            t.position,
            k as u32,
            Some(format!("{} bytes", e - s)),
        )?;
    }
    w.close(t.end());
    Ok(())
}
