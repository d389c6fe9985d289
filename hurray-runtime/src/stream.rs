//! The canonical stream (interchange.md §2.1, RES-51): tensors back to back, each its
//! descriptor then its buffers' bytes in buffer-table order, with no stream header, no
//! padding, no index and no terminator. It is what a producer pipes to a consumer, and what
//! the format's reference implementation writes and reads as its stream.
//!
//! [`StreamReader`] reads one over any [`Read`], a tensor at a time; [`StreamWriter`] writes
//! one over any [`Write`]. Both apply the format's rules to each tensor exactly as the file
//! reader and writer do (RES-52): the descriptor rules, the data rules on its buffers, and
//! the composite rules, a composite head binding the `member_count` tensors after it in
//! pre-order (CV-1…CV-7, F12, F13).
//!
//! Memory: the reader holds the largest descriptor, one chunk of the input
//! ([`sequential::CHUNK`](crate::sequential::CHUNK) bytes), the buffers the data rules read (sparse
//! indices, block tables, quantization parameters), held while their tensor is checked, and
//! a word per member of each composite; a dense buffer streams through in chunks however large
//! it is. A length the input does not back allocates nothing: buffers grow as bytes arrive.
//!
//! ```
//! use hurray_runtime::stream::{StreamReader, StreamWriter};
//! use hurray_runtime::{ReaderConfig, writer};
//! use hurray_runtime::tags::ElementType;
//!
//! let x = writer::finalize(writer::row_major(ElementType::Float32, &[2]))?;
//! let y = writer::finalize(writer::row_major(ElementType::Int8, &[3]))?;
//! let mut w = StreamWriter::new(Vec::new());
//! w.write_tensor(&x, &[&[0u8; 8]])?;
//! w.write_tensor(&y, &[&[1, 2, 3]])?;
//! let bytes = w.finish()?;
//! // No header, no padding: each tensor is its descriptor and then its data.
//! assert_eq!(bytes.len(), x.len() + 8 + y.len() + 3);
//!
//! let mut r = StreamReader::new(&bytes[..], &ReaderConfig::new());
//! let mut data = Vec::new();
//! while let Some(t) = r.next_tensor(&mut |_buffer, _offset, chunk| data.extend_from_slice(chunk))? {
//!     assert_eq!(t.descriptor_offset() as usize, if t.position() == 0 { 0 } else { x.len() + 8 });
//! }
//! assert_eq!(data, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
//! assert_eq!(r.finish()?.tensors(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::io::{Read, Write};

use crate::ctx::{Ctx, Limit, ReaderConfig, Warning};
use crate::descriptor;
use crate::error::Error;
use crate::file::{Composite, Tracker, buffer_spans, starts_file};
use crate::generated::rules::Rule;
use crate::input::CHUNK;
use crate::input::Input;
use crate::semantic::size::Integer;
use crate::structures::{Descriptor, FileHeaderView, FixedHeaderView};
use crate::wire::Reader;
use crate::writer::{WriteError, checked_tensor};

/// Why a stream read stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The input breaks a rule, or exceeds a limit of the reader ([`Limit`]).
    #[error("{0}")]
    Invalid(#[from] Error),
    /// The input could not be read.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl StreamError {
    /// The rejection, when the input broke a rule or a limit (not an I/O failure).
    pub fn invalid(&self) -> Option<&Error> {
        match self {
            StreamError::Invalid(e) => Some(e),
            StreamError::Io(_) => None,
        }
    }
}

/// A tensor the reader has passed, checked: its descriptor, the data rules on its buffers,
/// and its membership of the composites open around it.
#[derive(Clone, Debug)]
pub struct StreamTensor {
    position: usize,
    descriptor_offset: u64,
    descriptor_length: u32,
    buffers: Vec<(u64, u64)>,
    descriptor: Descriptor,
    dereferenceable: bool,
    warnings: Vec<Warning>,
    head: Option<usize>,
    depth: usize,
}

impl StreamTensor {
    /// Its number in the stream, from 0.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Where its descriptor starts, from the start of the stream.
    pub fn descriptor_offset(&self) -> u64 {
        self.descriptor_offset
    }

    /// Its descriptor's length in bytes.
    pub fn descriptor_length(&self) -> u32 {
        self.descriptor_length
    }

    /// Where its data starts: right after its descriptor (RES-51).
    pub fn data_offset(&self) -> u64 {
        self.descriptor_offset + u64::from(self.descriptor_length)
    }

    /// Its data's length in bytes: the sum of its buffers' sizes.
    pub fn data_length(&self) -> u64 {
        self.buffers.iter().map(|b| b.1).sum()
    }

    /// Each buffer's offset in the stream and length, in buffer-table order.
    pub fn buffers(&self) -> &[(u64, u64)] {
        &self.buffers
    }

    /// Its descriptor, every field as read.
    pub fn descriptor(&self) -> &Descriptor {
        &self.descriptor
    }

    /// False when its data must not be dereferenced (see [`descriptor::Checked::dereferenceable`]).
    pub fn dereferenceable(&self) -> bool {
        self.dereferenceable
    }

    /// Findings that did not reject it.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The position of the composite head it is a member of (the innermost one open when it
    /// arrived), or `None` for a tensor outside every composite.
    pub fn head(&self) -> Option<usize> {
        self.head
    }

    /// How many composites it is nested in: 0 outside every composite, 1 for a member of a
    /// top-level head, and so on.
    pub fn depth(&self) -> usize {
        self.depth
    }
}

/// Reads a canonical stream a tensor at a time; see the module documentation.
#[derive(Debug)]
pub struct StreamReader<R> {
    input: Input<R>,
    config: ReaderConfig,
    tracker: Tracker,
    position: usize,
    descriptor: Vec<u8>,
    /// The held buffers of the tensor being read (see `descriptor::first_buffer_held`).
    kept: Vec<Vec<u8>>,
    ended: bool,
}

impl<R: Read> StreamReader<R> {
    /// A reader of the stream `input` under `config` (its mode, versions, agreements, limits
    /// and whether the stream crossed machines, [`ReaderConfig::network`]). Nothing is read
    /// yet: an empty input is a stream of no tensors.
    pub fn new(input: R, config: &ReaderConfig) -> StreamReader<R> {
        StreamReader {
            input: Input::new(input),
            config: config.clone(),
            tracker: Tracker::default(),
            position: 0,
            descriptor: Vec::new(),
            kept: Vec::new(),
            ended: false,
        }
    }

    /// CS-2: the stream ends inside tensor `position`, in `what`.
    fn truncated(&self, position: usize, d: u64, what: impl fmt::Display) -> StreamError {
        let at = self.input.pos + self.input.available() as u64;
        StreamError::Invalid(Error::new(
            Rule::Cs2,
            at,
            format!(
                "the stream ends at byte {at}, inside tensor #{position} (its descriptor starts at byte {d}): {what} is cut"
            ),
        ))
    }

    /// The next tensor, checked, its buffers handed to `sink` in chunks as they pass
    /// (`sink(buffer, absolute offset, bytes)`); `Ok(None)` at the end of the stream (the
    /// end of the input, where a tensor would start). Chunks are the input's bytes as read: a
    /// sink that keeps them must drop them when this returns an error, since the data rules
    /// run once the tensor's buffers are all read.
    pub fn next_tensor(
        &mut self,
        sink: &mut dyn FnMut(usize, u64, &[u8]),
    ) -> Result<Option<StreamTensor>, StreamError> {
        if self.ended {
            return Ok(None);
        }
        let position = self.position;
        let d = self.input.pos;
        if self.input.fill(1)? == 0 {
            self.ended = true;
            return Ok(None);
        }
        if position == 0 {
            let k = self.input.fill(FileHeaderView::SIZE)?;
            if starts_file(self.input.peek(k)) {
                return Err(StreamError::Invalid(Error::new(
                    Rule::Cs3,
                    0,
                    "the input starts with the file magic (HRRYFILE): it is a file container, not a canonical stream; read it with the file reader",
                )));
            }
        }
        // The prefix that frames a descriptor: the fields up to and with its length.
        let at = FixedHeaderView::OFFSET_DESCRIPTOR_LENGTH;
        let prefix = at + 4;
        if self.input.fill(prefix)? < prefix {
            return Err(self.truncated(position, d, "its descriptor's length prefix"));
        }
        // The prefix's own rules first (HDR-1, the version rules: RES-52), then its length
        // against the reader's limit, before the rest of the descriptor is read. The fixed
        // header is parsed with what follows the prefix zeroed: the parse stops at its first
        // finding, so one at or after the prefix's end says the prefix passed.
        {
            let mut head = [0u8; FixedHeaderView::SIZE];
            let n = self.input.fill(FixedHeaderView::SIZE)?.min(prefix);
            head[..n].copy_from_slice(self.input.peek(n));
            let mut ctx = Ctx::new(&self.config);
            if let Err(e) = FixedHeaderView::parse(&mut Reader::new(&head, d, Rule::Hdr5), &mut ctx)
                && e.offset() < d + prefix as u64
            {
                return Err(e.into());
            }
        }
        let dl = crate::wire::read::<u32>(self.input.peek(prefix), at);
        self.config
            .check_limit(Limit::DescriptorLength, u64::from(dl), d + at as u64)?;
        // A length below the prefix's is the descriptor rules' to reject, on the prefix.
        let Some(length) = usize::try_from(dl).ok().map(|l| l.max(prefix)) else {
            return Err(StreamError::Invalid(Error::limit_exceeded(
                Limit::DescriptorLength,
                d + at as u64,
                format!("the descriptor is {dl} bytes, more than this machine can address"),
            )));
        };
        if self.input.fill(length)? < length {
            return Err(self.truncated(position, d, format_args!("its descriptor ({dl} bytes)")));
        }
        let mut bytes = std::mem::take(&mut self.descriptor);
        bytes.clear();
        bytes.extend_from_slice(self.input.peek(length));
        self.input.consume(length);
        let result = self.tensor(position, d, dl, &bytes, sink);
        self.descriptor = bytes;
        let t = result?;
        self.position += 1;
        Ok(Some(t))
    }

    fn tensor(
        &mut self,
        position: usize,
        d: u64,
        descriptor_length: u32,
        bytes: &[u8],
        sink: &mut dyn FnMut(usize, u64, &[u8]),
    ) -> Result<StreamTensor, StreamError> {
        let mut checked = descriptor::read_exact(bytes, d, &self.config)?;
        let handles = checked.view.buffer_table().buffers();
        for h in handles.iter() {
            self.config
                .check_limit(Limit::BufferBytes, h.byte_size().to(), h.byte_size_at())?;
        }
        let start = d + u64::from(descriptor_length);
        let spans = buffer_spans(start, 1, handles.iter().map(|h| h.byte_size().to())).ok_or_else(|| {
            Error::new(
                Rule::Cs2,
                start,
                format!(
                    "the buffers of tensor #{position} end beyond byte 2^64: no input holds them"
                ),
            )
        })?;
        let first_held = descriptor::first_buffer_held(&checked.view);
        // The held buffers' vectors are the reader's own, reused from tensor to tensor.
        let mut kept = std::mem::take(&mut self.kept);
        kept.clear();
        for (k, &(s, e)) in spans.iter().enumerate() {
            let held = k > 0 || first_held;
            // Grown as its bytes arrive, so a size the input does not hold allocates nothing.
            let mut buffer = Vec::new();
            while self.input.pos < e {
                let want = (e - self.input.pos).min(CHUNK as u64) as usize;
                let got = self.input.some(want)?;
                if got == 0 {
                    return Err(self.truncated(
                        position,
                        d,
                        format_args!("buffer {k}, bytes {s} to {e}"),
                    ));
                }
                let chunk = self.input.peek(got);
                sink(k, self.input.pos, chunk);
                if held {
                    buffer.extend_from_slice(chunk);
                }
                self.input.consume(got);
            }
            kept.push(buffer);
        }
        let slices: Vec<&[u8]> = kept.iter().map(Vec::as_slice).collect();
        let offsets: Vec<u64> = spans.iter().map(|s| s.0).collect();
        let checked_data = descriptor::check_data(&mut checked, &slices, &offsets, &self.config);
        drop(slices);
        // The held bytes are dropped now, the vector of them kept for the next tensor.
        kept.clear();
        self.kept = kept;
        checked_data?;
        let (head, depth) = (self.tracker.innermost_head(), self.tracker.depth());
        if self.tracker.binds(&checked.view) {
            let mut ctx = Ctx::new(&self.config);
            self.tracker
                .push(position, &format!("#{position}"), &checked.view, &mut ctx)?;
            checked.warnings.extend(ctx.take_warnings());
        }
        let mut buffers = spans;
        for b in &mut buffers {
            b.1 -= b.0;
        }
        Ok(StreamTensor {
            position,
            descriptor_offset: d,
            descriptor_length,
            buffers,
            descriptor: checked.view.owned(),
            dereferenceable: checked.dereferenceable,
            warnings: checked.warnings,
            head,
            depth,
        })
    }

    /// The next tensor with its buffers' bytes, in buffer-table order (memory: the tensor's
    /// data, which the caller asked for).
    #[allow(clippy::type_complexity)]
    pub fn next_tensor_with_data(
        &mut self,
    ) -> Result<Option<(StreamTensor, Vec<Vec<u8>>)>, StreamError> {
        let mut data: Vec<Vec<u8>> = Vec::new();
        let t = self.next_tensor(&mut |k, _, chunk| {
            if data.len() <= k {
                data.resize_with(k + 1, Vec::new);
            }
            data[k].extend_from_slice(chunk);
        })?;
        Ok(t.map(|t| {
            data.resize_with(t.buffers.len(), Vec::new);
            (t, data)
        }))
    }

    /// Read the tensors not yet read, then close the stream: a composite still waiting for
    /// members is torn (F12: rejected, or a warning in permissive mode).
    pub fn finish(mut self) -> Result<StreamSummary, StreamError> {
        while self.next_tensor(&mut |_, _, _| {})?.is_some() {}
        let mut ctx = Ctx::new(&self.config);
        let composites = std::mem::take(&mut self.tracker).finish(&mut ctx)?;
        Ok(StreamSummary {
            tensors: self.position,
            len: self.input.pos,
            composites,
            warnings: ctx.take_warnings(),
        })
    }
}

/// What a whole stream held, once read to its end.
#[derive(Clone, Debug)]
pub struct StreamSummary {
    tensors: usize,
    len: u64,
    composites: Vec<Composite>,
    warnings: Vec<Warning>,
}

impl StreamSummary {
    /// How many tensors it held.
    pub fn tensors(&self) -> usize {
        self.tensors
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for a stream of no bytes (and so no tensors).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its composites, by head position, each with its members' positions.
    pub fn composites(&self) -> &[Composite] {
        &self.composites
    }

    /// Findings at the stream's end that did not reject it (a torn composite in permissive mode).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

/// Writes a canonical stream; see the module documentation. Every tensor is checked before
/// a byte of it is written: its descriptor and data as the file writer checks them, and its
/// place in the composites open before it.
#[derive(Debug)]
pub struct StreamWriter<W: Write> {
    out: W,
    pos: u64,
    position: usize,
    config: ReaderConfig,
    tracker: Tracker,
}

impl<W: Write> StreamWriter<W> {
    /// A writer of a stream into `out`.
    pub fn new(out: W) -> StreamWriter<W> {
        StreamWriter {
            out,
            pos: 0,
            position: 0,
            config: ReaderConfig::new().permissive(true),
            tracker: Tracker::default(),
        }
    }

    /// A writer of a stream that will cross machines: a buffer handle whose `sync_mode` is
    /// not producer-synced is refused (BH-10).
    pub fn network(out: W) -> StreamWriter<W> {
        let mut w = StreamWriter::new(out);
        w.config = w.config.network(true);
        w
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    fn check<'a>(
        &self,
        position: usize,
        at: u64,
        descriptor: &'a [u8],
        buffers: &[&[u8]],
    ) -> Result<(descriptor::Checked<'a>, u64), WriteError> {
        let start = at
            .checked_add(descriptor.len() as u64)
            .ok_or_else(|| overflow("a descriptor's end"))?;
        let spans = buffer_spans(start, 1, buffers.iter().map(|b| b.len() as u64))
            .ok_or_else(|| overflow("a buffer's end"))?;
        let offsets: Vec<u64> = spans.iter().map(|s| s.0).collect();
        let end = spans.last().map_or(start, |s| s.1);
        let name = format!("#{position}");
        let checked = checked_tensor(
            &name,
            descriptor,
            buffers,
            &offsets,
            &self.config,
            Rule::Cs1,
        )?;
        Ok((checked, end))
    }

    fn put(&mut self, descriptor: &[u8], buffers: &[&[u8]], end: u64) -> Result<(), WriteError> {
        self.out.write_all(descriptor)?;
        for b in buffers {
            self.out.write_all(b)?;
        }
        self.pos = end;
        self.position += 1;
        Ok(())
    }

    /// Write one tensor: its descriptor, then its buffers in buffer-table order (CS-1). A
    /// composite head's members are the tensors written after it; a member that breaks a
    /// composite rule is refused before it is written (a partition's cover is known only
    /// once its last member arrives: [`Self::write_composite`] checks it before writing
    /// anything).
    pub fn write_tensor(&mut self, descriptor: &[u8], buffers: &[&[u8]]) -> Result<(), WriteError> {
        let (checked, end) = self.check(self.position, self.pos, descriptor, buffers)?;
        // The composite rules bind writers whatever a reader's mode (CV-6 is a rejection
        // unless permissive, and writers write for strict readers).
        if self.tracker.binds(&checked.view) {
            let strict = ReaderConfig::new();
            let mut ctx = Ctx::new(&strict);
            self.tracker.push(
                self.position,
                &format!("#{}", self.position),
                &checked.view,
                &mut ctx,
            )?;
        }
        self.put(descriptor, buffers, end)
    }

    /// Write a whole composite: its head and then every member, pre-order, each given as its
    /// descriptor and buffers. The tree is checked whole (every member, every nested
    /// composite's close-time validation, and that the tensors given are exactly the head's
    /// members) before a byte is written; on a refusal nothing is.
    pub fn write_composite(&mut self, tensors: &[(&[u8], &[&[u8]])]) -> Result<(), WriteError> {
        let strict = ReaderConfig::new();
        let mut group = Tracker::default();
        // Inside a composite written one tensor at a time, the group is a member of what is
        // open: it is checked there too, on a copy, kept once everything passed. Outside, the
        // group's own checks are all there is (the same checks from nothing open).
        let mut around = (self.tracker.depth() > 0).then(|| self.tracker.clone());
        let mut at = self.pos;
        let mut ends = Vec::with_capacity(tensors.len());
        for (k, (descriptor, buffers)) in tensors.iter().enumerate() {
            let (checked, end) = self.check(self.position + k, at, descriptor, buffers)?;
            if k > 0 && group.depth() == 0 {
                return Err(WriteError::Invalid(Error::new(
                    Rule::Cs1,
                    at,
                    format!(
                        "tensor {k} of the composite given follows its head's last member: a composite is its head and exactly its members"
                    ),
                )));
            }
            let name = format!("#{}", self.position + k);
            let mut ctx = Ctx::new(&strict);
            group.push(self.position + k, &name, &checked.view, &mut ctx)?;
            if let Some(t) = around.as_mut() {
                t.push(self.position + k, &name, &checked.view, &mut ctx)?;
            }
            if k == 0 && group.depth() == 0 {
                return Err(WriteError::Invalid(Error::new(
                    Rule::Cs1,
                    at,
                    "the first tensor given is not a composite head with members",
                )));
            }
            at = end;
            ends.push(end);
        }
        let mut ctx = Ctx::new(&strict);
        group.finish(&mut ctx)?;
        for (k, (descriptor, buffers)) in tensors.iter().enumerate() {
            if around.is_none() {
                // The checks `group` passed, from the same empty state: they pass again.
                let view = descriptor::read(descriptor, &self.config)?.into_parts().0;
                let mut ctx = Ctx::new(&strict);
                self.tracker.push(
                    self.position,
                    &format!("#{}", self.position),
                    &view,
                    &mut ctx,
                )?;
            }
            self.put(descriptor, buffers, ends[k])?;
        }
        if let Some(t) = around {
            self.tracker = t;
        }
        Ok(())
    }

    /// End the stream (nothing marks the end, RES-51) and return the output, flushed. A
    /// composite whose members were not all written is refused (F12).
    pub fn finish(mut self) -> Result<W, WriteError> {
        let strict = ReaderConfig::new();
        let mut ctx = Ctx::new(&strict);
        std::mem::take(&mut self.tracker).finish(&mut ctx)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn overflow(what: &str) -> WriteError {
    WriteError::Invalid(Error::new(
        Rule::Cs1,
        0,
        format!("{what} lies beyond byte 2^64"),
    ))
}
