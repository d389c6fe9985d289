//! The sequential (no-seek) reader of a file container: container.md §11.2 with RES-48, for
//! an input that cannot seek (a pipe, a socket, standard input).
//!
//! It keeps the running offset and finds every boundary by the placement arithmetic (F40):
//! the header, the padding to `first_descriptor_offset`, then each tensor (its descriptor,
//! the padding to `A`, each buffer, the padding to 8). At each multiple of 8 after a tensor it
//! passes zero words as padding (RES-3) and reads a descriptor when the first non-zero word
//! starts with the descriptor magic and is not within the input's last 48 bytes (an index
//! needs at least 8, the trailer 40); anything else starts the sections (RES-48). The sections
//! (KV, index, trailer) are read to the end of the input and checked as the random-access
//! reader checks them, and the index must describe exactly the tensors walked (F39).
//!
//! Memory: the largest descriptor, one chunk of the input ([`CHUNK`] bytes), the buffers the
//! data rules read (sparse indices, block tables, quantization parameters, a `float8_e8m0`
//! payload), which are held while their tensor is checked, 32 bytes per tensor walked (to
//! match the index against), and the trailing sections (metadata: about 40 bytes per tensor
//! plus the KV section). A dense payload streams through in chunks however large it is.
//!
//! Every rejection of the random-access reader is also one here, under the same rule where
//! the check is the same; a mismatch between the index and the walk is F39 (where the
//! random-access reader reports the entry's own placement rule: F11, F27, F30, F31).
//!
//! ```
//! use hurray_runtime::sequential::SequentialReader;
//! use hurray_runtime::{ReaderConfig, writer};
//! use hurray_runtime::tags::ElementType;
//!
//! let d = writer::finalize(writer::row_major(ElementType::Float32, &[2]))?;
//! let mut w = writer::FileWriter::new(Vec::new(), &writer::FileOptions::default())?;
//! w.add_tensor("x", &d, &[&[1u8; 8]])?;
//! let bytes = w.finish(&[])?;
//!
//! let mut r = SequentialReader::new(&bytes[..], &ReaderConfig::new())?;
//! let mut data = Vec::new();
//! while let Some(t) = r.next_tensor(&mut |_buffer, _offset, chunk| data.extend_from_slice(chunk))? {
//!     assert_eq!(t.descriptor().shape, vec![2]);
//! }
//! let file = r.finish()?;
//! assert_eq!(file.name(0), "x");
//! assert_eq!(data, [1u8; 8]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::io::Read;

use crate::ctx::{Ctx, Limit, ReaderConfig, Warning};
use crate::descriptor;
use crate::error::Error;
use crate::file::{
    Composite, Record, Sections, TRAILER_SIZE, Tracker, buffer_spans, check_names, padding,
    record_name, section_parts, starts_descriptor, too_short, truncation,
};
use crate::generated::flags::FileFlags;
use crate::generated::rules::Rule;
use crate::input::Input;
use crate::semantic::size::Integer;
use crate::structures::{
    Descriptor, FileHeaderView, FixedHeaderView, IndexEntryView, IndexSectionView, KvSectionView,
    TrailerView,
};
use crate::wire::Reader;

pub use crate::input::CHUNK;

/// Bytes that must follow anything read as tensor region: the smallest index (its count) and
/// the trailer (F40: the final 40 bytes are never tensor region).
const AFTER_REGION: usize = 8 + TRAILER_SIZE as usize;

/// How much the reader holds at most, beyond one chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest descriptor it reads (default 16 MiB).
    pub max_descriptor_length: u32,
    /// The largest trailing part it holds: the KV section, the index and the trailer, with
    /// the padding before them (default 1 GiB).
    pub max_sections: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_descriptor_length: 16 << 20,
            max_sections: 1 << 30,
        }
    }
}

/// Why a sequential read stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SequentialError {
    /// The input breaks a rule.
    #[error("{0}")]
    Invalid(#[from] Error),
    /// The input could not be read.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The input needs more memory than [`Limits`] allow.
    #[error("limit: {0}")]
    Limit(String),
}

/// A tensor the reader has passed, checked: its descriptor and the data rules on its buffers.
#[derive(Clone, Debug)]
pub struct SequentialTensor {
    position: usize,
    descriptor_offset: u64,
    descriptor_length: u32,
    buffers: Vec<(u64, u64)>,
    descriptor: Descriptor,
    dereferenceable: bool,
    warnings: Vec<Warning>,
}

impl SequentialTensor {
    /// Its position in write order (0 for the first tensor of the file).
    pub fn position(&self) -> usize {
        self.position
    }
    /// The absolute offset of its descriptor.
    pub fn descriptor_offset(&self) -> u64 {
        self.descriptor_offset
    }
    /// The length of its descriptor in bytes.
    pub fn descriptor_length(&self) -> u32 {
        self.descriptor_length
    }
    /// Its data region's offset: buffer 0's, or the descriptor's end without buffers (RES-13).
    pub fn data_offset(&self) -> u64 {
        self.buffers.first().map_or(
            self.descriptor_offset + u64::from(self.descriptor_length),
            |b| b.0,
        )
    }
    /// Its data region's length: every buffer and the padding between them.
    pub fn data_length(&self) -> u64 {
        match (self.buffers.first(), self.buffers.last()) {
            (Some(a), Some(b)) => b.0 + b.1 - a.0,
            _ => 0,
        }
    }
    /// Each buffer's absolute offset and length.
    pub fn buffers(&self) -> &[(u64, u64)] {
        &self.buffers
    }
    /// Its descriptor, owned.
    pub fn descriptor(&self) -> &Descriptor {
        &self.descriptor
    }
    /// False when the data must not be dereferenced (RES-8, RES-9, RES-36).
    pub fn dereferenceable(&self) -> bool {
        self.dereferenceable
    }
    /// Findings of its checks that did not reject it.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

/// An index entry's number the walk also knows.
#[derive(Clone, Copy, Debug)]
enum Field {
    DescriptorLength,
    DataOffset,
    DataLength,
}

/// What the walk keeps per tensor, to match the index against.
#[derive(Clone, Copy, Debug)]
struct Walked {
    descriptor_offset: u64,
    data_offset: u64,
    data_length: u64,
    descriptor_length: u32,
}

/// Reads a file container front to back without seeking; see the module documentation.
#[derive(Debug)]
pub struct SequentialReader<R> {
    input: Input<R>,
    config: ReaderConfig,
    limits: Limits,
    header: [u8; FileHeaderView::SIZE],
    walked: Vec<Walked>,
    tracker: Tracker,
    warnings: Vec<Warning>,
    /// Where the tensor region ended, and how many zero bytes the walk passed there.
    region_end: Option<(u64, u64)>,
    descriptor: Vec<u8>,
}

impl<R: Read> SequentialReader<R> {
    /// Read and check the header and the padding after it.
    pub fn new(input: R, config: &ReaderConfig) -> Result<SequentialReader<R>, SequentialError> {
        Self::with_limits(input, config, Limits::default())
    }

    /// [`Self::new`] with other limits.
    pub fn with_limits(
        input: R,
        config: &ReaderConfig,
        limits: Limits,
    ) -> Result<SequentialReader<R>, SequentialError> {
        let mut input = Input::new(input);
        let size = FileHeaderView::SIZE;
        let n = input.fill(size)?;
        let mut ctx = Ctx::new(config);
        let header =
            FileHeaderView::parse(&mut Reader::new(input.peek(n), 0, Rule::Len3), &mut ctx)?;
        let first = header.first_descriptor_offset();
        let mut bytes = [0u8; FileHeaderView::SIZE];
        bytes.copy_from_slice(input.peek(size));
        input.consume(size);
        let mut r = SequentialReader {
            input,
            config: config.clone(),
            limits,
            header: bytes,
            walked: Vec::new(),
            tracker: Tracker::default(),
            warnings: ctx.take_warnings(),
            region_end: None,
            descriptor: Vec::new(),
        };
        r.padding(first, "the padding before the first descriptor")?;
        Ok(r)
    }

    fn header(&self) -> FileHeaderView<'_> {
        FileHeaderView::parse(
            &mut Reader::new(&self.header, 0, Rule::Len3),
            &mut Ctx::new(&self.config),
        )
        .expect("the header parsed when the reader started")
    }

    fn truncated(&self, what: impl fmt::Display) -> SequentialError {
        let at = self.input.pos + self.input.available() as u64;
        SequentialError::Invalid(Error::new(
            Rule::F38,
            at,
            format!("the input is truncated: it ends at byte {at}, {what}"),
        ))
    }

    /// Consume zero padding up to absolute offset `to` (F32).
    fn padding(&mut self, to: u64, what: &str) -> Result<(), SequentialError> {
        while self.input.pos < to {
            let want = (to - self.input.pos).min(CHUNK as u64) as usize;
            let k = self.input.some(want)?;
            if k == 0 {
                return Err(self.truncated(format_args!("inside {what}")));
            }
            let at = self.input.pos;
            padding(self.input.peek(k), at, at, at + k as u64)?;
            self.input.consume(k);
        }
        Ok(())
    }

    /// The next tensor, checked, its buffers handed to `sink` in chunks as they pass
    /// (`sink(buffer, absolute offset, bytes)`); `Ok(None)` once the tensor region has ended.
    /// Chunks are the input's bytes as read: a sink that keeps them must drop them when this
    /// returns an error, since the data rules run once the tensor's buffers are all read.
    pub fn next_tensor(
        &mut self,
        sink: &mut dyn FnMut(usize, u64, &[u8]),
    ) -> Result<Option<SequentialTensor>, SequentialError> {
        if self.region_end.is_some() {
            return Ok(None);
        }
        let position = self.walked.len();
        let region = self.input.pos;
        // Zero words after a tensor are padding (RES-3); the first descriptor has none before it.
        let mut zeros = 0u64;
        if position > 0 {
            while self.input.fill(8)? == 8 && self.input.peek(8) == [0; 8] {
                self.input.consume(8);
                zeros += 8;
            }
        }
        let fixed = FixedHeaderView::SIZE;
        let k = self.input.fill(fixed + AFTER_REGION)?;
        if k < fixed + AFTER_REGION || !starts_descriptor(self.input.peek(fixed), &self.config) {
            self.region_end = Some((region, zeros));
            return Ok(None);
        }
        // A descriptor (§11.2 step 3a): its length from its fixed header.
        let d = self.input.pos;
        let at = FixedHeaderView::OFFSET_DESCRIPTOR_LENGTH;
        let dl = crate::wire::read::<u32>(self.input.peek(fixed), at);
        // The reader's configured limit first (a policy, named), then this reader's own
        // memory bound.
        self.config
            .check_limit(Limit::DescriptorLength, u64::from(dl), d + at as u64)?;
        if dl > self.limits.max_descriptor_length {
            return Err(SequentialError::Limit(format!(
                "the descriptor of tensor #{position} at byte {d} is {dl} bytes; the limit is {}",
                self.limits.max_descriptor_length
            )));
        }
        let length = usize::try_from(dl).ok();
        let Some(need) = length.and_then(|l| l.checked_add(AFTER_REGION)) else {
            return Err(SequentialError::Limit(format!(
                "the descriptor of tensor #{position} at byte {d} is {dl} bytes: more than this machine can address"
            )));
        };
        let length = need - AFTER_REGION;
        if self.input.fill(need)? < need {
            return Err(self.truncated(format_args!(
                "inside or just after the descriptor of tensor #{position} at byte {d} ({dl} bytes), before the index and the trailer"
            )));
        }
        let mut bytes = std::mem::take(&mut self.descriptor);
        bytes.clear();
        bytes.extend_from_slice(self.input.peek(length));
        self.input.consume(length);
        let result = self.tensor(position, d, dl, &bytes, sink);
        self.descriptor = bytes;
        result.map(Some)
    }

    fn tensor(
        &mut self,
        position: usize,
        d: u64,
        descriptor_length: u32,
        bytes: &[u8],
        sink: &mut dyn FnMut(usize, u64, &[u8]),
    ) -> Result<SequentialTensor, SequentialError> {
        let dl = u64::from(descriptor_length);
        let (mut checked, _) = descriptor::read_prefix(bytes, d, &self.config)?;
        let a = u64::from(self.header().data_buffer_alignment());
        let sizes: Vec<u64> = checked
            .view
            .buffer_table()
            .buffers()
            .iter()
            .map(|b| b.byte_size().to())
            .collect();
        let spans = buffer_spans(d + dl, a, sizes.iter().copied()).ok_or_else(|| {
            Error::new(
                Rule::F31,
                checked.view.buffer_table().offset(),
                format!("the data placement of tensor #{position} overflows"),
            )
        })?;
        // Which buffers the data rules read: held whole while the tensor is checked.
        let held = descriptor::held_buffers(&checked.view);
        let mut kept: Vec<Vec<u8>> = Vec::with_capacity(spans.len());
        for (k, (s, e)) in spans.iter().enumerate() {
            self.padding(
                *s,
                &format!("the padding before buffer {k} of tensor #{position}"),
            )?;
            let keep = held[k];
            // Grown as its bytes arrive, so a size the input does not hold allocates nothing.
            let mut buffer = Vec::new();
            while self.input.pos < *e {
                let want = (e - self.input.pos).min(CHUNK as u64) as usize;
                let got = self.input.some(want)?;
                if got == 0 {
                    return Err(self.truncated(format_args!(
                        "inside buffer {k} of tensor #{position} (descriptor at byte {d}), which runs from byte {s} to byte {e}"
                    )));
                }
                let chunk = self.input.peek(got);
                sink(k, self.input.pos, chunk);
                if keep {
                    buffer.extend_from_slice(chunk);
                }
                self.input.consume(got);
            }
            kept.push(buffer);
        }
        // §11.2 step 3d: padding to the next multiple of 8.
        let end = spans.last().map_or(d + dl, |s| s.1);
        self.padding(
            end.next_multiple_of(8),
            &format!("the padding after tensor #{position}"),
        )?;
        // F40: nothing read as tensor region lies in the input's last bytes.
        if self.input.fill(AFTER_REGION)? < AFTER_REGION {
            return Err(self.truncated(format_args!(
                "after tensor #{position}: the index section and the trailer are missing"
            )));
        }
        let slices: Vec<&[u8]> = kept.iter().map(|b| b.as_slice()).collect();
        let offsets: Vec<u64> = spans.iter().map(|s| s.0).collect();
        descriptor::check_data(&mut checked, &slices, &offsets, &self.config)?;
        let mut ctx = Ctx::new(&self.config);
        self.tracker
            .push(position, &format!("#{position}"), &checked.view, &mut ctx)?;
        self.warnings.extend(ctx.take_warnings());
        let (data_offset, data_length) = match (spans.first(), spans.last()) {
            (Some(f), Some(l)) => (f.0, l.1 - f.0),
            _ => (d + dl, 0),
        };
        self.walked.push(Walked {
            descriptor_offset: d,
            descriptor_length,
            data_offset,
            data_length,
        });
        Ok(SequentialTensor {
            position,
            descriptor_offset: d,
            descriptor_length,
            buffers: spans.iter().map(|(s, e)| (*s, e - s)).collect(),
            descriptor: checked.view.owned(),
            dereferenceable: checked.dereferenceable,
            warnings: checked.warnings,
        })
    }

    /// Pass any tensors not yet read, then read and check the sections: the trailer, the index
    /// (its CRC, its names, and that it describes exactly the tensors walked, F39), the KV
    /// section, the padding between them, and composite membership.
    pub fn finish(mut self) -> Result<SequentialFile, SequentialError> {
        while self.next_tensor(&mut |_, _, _| {})?.is_some() {}
        let (base, zeros) = self.region_end.expect("the region has ended");
        // The padding words already consumed count against the sections' limit before any
        // memory is reserved for them.
        let tail_length = usize::try_from(zeros)
            .ok()
            .filter(|z| *z as u64 <= self.limits.max_sections);
        let Some(tail_length) = tail_length else {
            return Err(SequentialError::Limit(format!(
                "{zeros} bytes of zero padding after the last tensor at byte {base}; the sections' limit is {}",
                self.limits.max_sections
            )));
        };
        let mut tail = vec![0u8; tail_length];
        loop {
            let k = self.input.some(CHUNK)?;
            if k == 0 {
                break;
            }
            if (tail.len() + k) as u64 > self.limits.max_sections {
                return Err(SequentialError::Limit(format!(
                    "the sections after the tensor region exceed {} bytes",
                    self.limits.max_sections
                )));
            }
            tail.extend_from_slice(self.input.peek(k));
            self.input.consume(k);
        }
        let len = base + tail.len() as u64;
        too_short(len)?;
        let header = self.header();
        if tail.len() < TRAILER_SIZE as usize {
            return Err(self.truncated_tail(&tail, base, &header, None));
        }
        let trailer_at = len - TRAILER_SIZE;
        if let Err(e) = TrailerView::parse(
            &mut Reader::new(
                &tail[(trailer_at - base) as usize..],
                trailer_at,
                Rule::Len3,
            ),
            &mut Ctx::new(&self.config),
        ) {
            return Err(self.truncated_tail(&tail, base, &header, Some(e)));
        }
        let mut ctx = Ctx::new(&self.config);
        // The container version the header declares, for the sections' fields.
        FileHeaderView::parse(&mut Reader::new(&self.header, 0, Rule::Len3), &mut ctx)?;
        ctx.take_warnings();
        let sections = Sections::read(&tail, base, &header, &mut ctx)?;
        let sorted = header.file_flags().has(FileFlags::SORTED_INDEX);
        let hasher = foldhash::fast::RandomState::default();
        check_names(&sections.records, &tail, base, sorted, &hasher)?;
        // The padding from the region's end to the first section, and between the sections.
        let mut covered = base;
        for (s, e) in section_parts(&sections.trailer, sections.kv.is_some(), len) {
            if s < covered {
                return Err(Error::new(
                    Rule::F30,
                    s,
                    format!("parts of the file overlap at byte {s}"),
                )
                .into());
            }
            padding(&tail, base, covered, s)?;
            covered = e;
        }
        // F39: the index describes exactly the tensors walked.
        let by_walk = self.match_index(&sections.records, &tail, base, &mut ctx)?;
        let mut warnings = std::mem::take(&mut self.warnings);
        warnings.extend(ctx.take_warnings());
        let composites = std::mem::take(&mut self.tracker).finish(&mut ctx)?;
        warnings.extend(ctx.take_warnings());
        let kv = sections.kv.as_ref().map(|k| {
            let t = &sections.trailer;
            (t.kv_offset(), k.bytes().len())
        });
        let index = (
            sections.trailer.index_offset(),
            sections.trailer.index_length(),
        );
        let records = sections.records;
        Ok(SequentialFile {
            config: self.config,
            header: self.header,
            tail,
            base,
            records,
            by_walk,
            kv,
            index,
            composites,
            warnings,
        })
    }

    fn truncated_tail(
        &self,
        tail: &[u8],
        base: u64,
        header: &FileHeaderView<'_>,
        fallback: Option<Error>,
    ) -> SequentialError {
        match truncation::diagnose_tail(tail, base, header, &self.config).or(fallback) {
            Some(e) => e.into(),
            None => self.truncated(format_args!(
                "{} bytes after the tensor region, fewer than the {TRAILER_SIZE}-byte trailer",
                tail.len()
            )),
        }
    }

    /// For each tensor walked, the index entry that describes it (F39 when one is missing,
    /// describes another placement, or describes a tensor twice).
    fn match_index(
        &self,
        records: &[Record],
        tail: &[u8],
        base: u64,
        ctx: &mut Ctx<'_>,
    ) -> Result<Vec<u32>, Error> {
        const NONE: u32 = u32::MAX;
        let mut by_walk = vec![NONE; self.walked.len()];
        for (i, r) in records.iter().enumerate() {
            let mut entry = || {
                IndexEntryView::parse(
                    &mut Reader::new(&tail[(r.entry_at - base) as usize..], r.entry_at, Rule::F24),
                    &mut *ctx,
                )
            };
            let found = self
                .walked
                .binary_search_by_key(&r.descriptor_offset, |w| w.descriptor_offset);
            let Ok(k) = found else {
                let e = entry()?;
                return Err(Error::new(
                    Rule::F39,
                    e.descriptor_offset_at(),
                    format!(
                        "`{}` names a descriptor at {}, where the walk found none",
                        e.name(),
                        r.descriptor_offset
                    ),
                ));
            };
            let w = &self.walked[k];
            // The first number the entry and the walk disagree on.
            let differs = if w.descriptor_length != r.descriptor_length {
                Some((
                    u64::from(w.descriptor_length),
                    u64::from(r.descriptor_length),
                    Field::DescriptorLength,
                ))
            } else if w.data_offset != r.data_offset {
                Some((w.data_offset, r.data_offset, Field::DataOffset))
            } else if w.data_length != r.data_length {
                Some((w.data_length, r.data_length, Field::DataLength))
            } else {
                None
            };
            if let Some((walked, indexed, field)) = differs {
                let e = entry()?;
                let at = match field {
                    Field::DescriptorLength => e.descriptor_length_at(),
                    Field::DataOffset => e.data_offset_at(),
                    Field::DataLength => e.data_length_at(),
                };
                return Err(Error::new(
                    Rule::F39,
                    at,
                    format!(
                        "`{}`'s entry says {indexed} where the walk found {walked} (tensor #{k} at byte {})",
                        e.name(),
                        w.descriptor_offset
                    ),
                ));
            }
            if by_walk[k] != NONE {
                let e = entry()?;
                return Err(Error::new(
                    Rule::F39,
                    e.descriptor_offset_at(),
                    format!(
                        "`{}` and `{}` both describe tensor #{k} at byte {}",
                        record_name(tail, base, &records[by_walk[k] as usize]),
                        e.name(),
                        w.descriptor_offset
                    ),
                ));
            }
            by_walk[k] = i as u32;
        }
        if let Some(k) = by_walk.iter().position(|i| *i == NONE) {
            let d = self.walked[k].descriptor_offset;
            return Err(Error::new(
                Rule::F39,
                d,
                format!("tensor #{k} at byte {d} has no index entry"),
            ));
        }
        Ok(by_walk)
    }
}

/// What a sequential read found after the tensors: the header, the sections, the names of the
/// tensors walked, composite membership and the file-level warnings.
#[derive(Debug)]
pub struct SequentialFile {
    config: ReaderConfig,
    header: [u8; FileHeaderView::SIZE],
    tail: Vec<u8>,
    base: u64,
    records: Vec<Record>,
    by_walk: Vec<u32>,
    kv: Option<(u64, usize)>,
    index: (u64, u64),
    composites: Vec<Composite>,
    warnings: Vec<Warning>,
}

impl SequentialFile {
    /// The file header.
    pub fn header(&self) -> FileHeaderView<'_> {
        FileHeaderView::parse(
            &mut Reader::new(&self.header, 0, Rule::Len3),
            &mut Ctx::new(&self.config),
        )
        .expect("the header parsed when the reader started")
    }

    /// The file's size.
    pub fn len(&self) -> u64 {
        self.base + self.tail.len() as u64
    }

    /// True for a file of no bytes (never: a file has a header and a trailer).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of tensors.
    pub fn tensors(&self) -> usize {
        self.by_walk.len()
    }

    /// The name of the tensor at write-order position `position`.
    pub fn name(&self, position: usize) -> &str {
        record_name(
            &self.tail,
            self.base,
            &self.records[self.by_walk[position] as usize],
        )
    }

    /// The tensor's position in the index.
    pub fn index_position(&self, position: usize) -> usize {
        self.by_walk[position] as usize
    }

    fn ctx(&self) -> Result<Ctx<'_>, Error> {
        let mut ctx = Ctx::new(&self.config);
        FileHeaderView::parse(&mut Reader::new(&self.header, 0, Rule::Len3), &mut ctx)?;
        Ok(ctx)
    }

    /// The KV section, when the file has one.
    pub fn kv(&self) -> Result<Option<KvSectionView<'_>>, Error> {
        let Some((at, len)) = self.kv else {
            return Ok(None);
        };
        let i = (at - self.base) as usize;
        KvSectionView::parse(
            &mut Reader::new(&self.tail[i..i + len], at, Rule::F19),
            &mut self.ctx()?,
        )
        .map(Some)
    }

    /// The index section, parsed whole.
    pub fn index_section(&self) -> Result<IndexSectionView<'_>, Error> {
        let (at, len) = self.index;
        let i = (at - self.base) as usize;
        IndexSectionView::parse(
            &mut Reader::new(&self.tail[i..i + len as usize], at, Rule::F24),
            &mut self.ctx()?,
        )
    }

    /// Composites, by head, in write order (tensor numbers are write-order positions).
    pub fn composites(&self) -> &[Composite] {
        &self.composites
    }

    /// The file's own warnings and composite membership's (each tensor's are its own).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

/// Read a whole file sequentially, discarding the data: every tensor, then the sections.
pub fn read_all<R: Read>(
    input: R,
    config: &ReaderConfig,
) -> Result<(Vec<SequentialTensor>, SequentialFile), SequentialError> {
    let mut r = SequentialReader::new(input, config)?;
    let mut tensors = Vec::new();
    while let Some(t) = r.next_tensor(&mut |_, _, _| {})? {
        tensors.push(t);
    }
    Ok((tensors, r.finish()?))
}
