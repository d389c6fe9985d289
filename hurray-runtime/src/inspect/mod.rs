//! Every byte of a descriptor or a file, annotated (`hurray inspect`): for each byte range its
//! offset, its structure path, the field's name and decoded value (tag names, flag bit
//! names), the version that defined the field, and its provenance — read from the data, a
//! documented default (R4), or skipped (CD2). A file adds its header, every index and KV
//! entry, the trailer with the index's CRC-32C (computed beside the one stored), the padding
//! between its parts as ranges, and each tensor's data buffers.
//!
//! The walk over the bytes is generated from the spec (`generated::annotate`, one walker per
//! structure, driven by the same model as the parse); this module holds the framework it
//! reports to ([`walk`]) and the walk of a file's parts. The verdict is the reader's own
//! ([`crate::descriptor::read`], [`crate::file::read`]): on a rejected input the range
//! holding the byte the rejection names is marked, and nothing after it is interpreted.
//!
//! Annotations go to a [`Sink`] in offset order, each range starting where the one before
//! ended, so every byte belongs to exactly one range.
//!
//! ```
//! use hurray_runtime::inspect::{self, Collect, Kind};
//! use hurray_runtime::{ReaderConfig, writer};
//! use hurray_runtime::tags::ElementType;
//!
//! let bytes = writer::finalize(writer::row_major(ElementType::Float32, &[3, 4]))?;
//! let mut sink = Collect::default();
//! let report = inspect::inspect(&bytes, &ReaderConfig::new(), &mut sink);
//! assert!(report.error.is_none());
//! let rank = sink.annotations.iter().find(|a| a.path == "fixed_header.rank").unwrap();
//! assert_eq!((rank.start, rank.end, rank.kind), (16, 20, Kind::Field));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod data;
mod file;
pub mod walk;

use crate::ctx::{Ctx, ReaderConfig, Warning};
use crate::error::Error;
use crate::generated::annotate::{DescriptorWalk, walk_descriptor};
use crate::generated::rules::Rule;
use crate::structures::FileHeaderView;
use crate::wire::Reader;

pub use walk::{
    Annotation, Collect, Cursor, Discard, Kind, Meta, Provenance, Shown, Sink, Stop, TagStanding,
    Walker,
};

/// What the input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Input {
    /// A tensor descriptor (`HRRY`).
    Descriptor,
    /// A file container (`HRRYFILE`).
    File,
}

impl Input {
    /// The input's magic says what it is: a file's header magic, else a descriptor.
    pub fn of(bytes: &[u8]) -> Input {
        let mut head = [0u8; FileHeaderView::SIZE];
        let n = bytes.len().min(head.len());
        head[..n].copy_from_slice(&bytes[..n]);
        let config = ReaderConfig::new();
        let mut ctx = Ctx::new(&config);
        match FileHeaderView::parse(&mut Reader::new(&head, 0, Rule::Len3), &mut ctx) {
            Err(e) if e.rule() == Rule::F1 && e.offset() == FileHeaderView::OFFSET_MAGIC as u64 => {
                Input::Descriptor
            }
            _ => Input::File,
        }
    }

    /// `descriptor` or `file`.
    pub fn word(self) -> &'static str {
        match self {
            Input::Descriptor => "descriptor",
            Input::File => "file",
        }
    }
}

/// The outcome of an inspection: what the input is and the reader's verdict on it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Inspection {
    pub input: Input,
    /// The input's length in bytes.
    pub len: u64,
    /// The reader's rejection (the one `hurray decode` reports), when it rejects the input.
    pub error: Option<Error>,
    /// Findings of the reader that did not reject the input.
    pub warnings: Vec<Warning>,
}

/// Inspect `bytes` (a descriptor or a file, by its magic) as a reader configured by `config`
/// reads them, reporting every range to `sink`.
pub fn inspect(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    match Input::of(bytes) {
        Input::Descriptor => descriptor(bytes, config, sink),
        Input::File => file::inspect(bytes, config, sink),
    }
}

/// Inspect `bytes` as a file container, whatever its magic says.
pub fn file(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    file::inspect(bytes, config, sink)
}

/// Inspect a descriptor that spans exactly `bytes`.
pub fn descriptor(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    let (error, warnings) = match crate::descriptor::read(bytes, config) {
        Ok(d) => (None, d.warnings),
        Err(e) => (Some(e), Vec::new()),
    };
    let len = bytes.len() as u64;
    let mut w = Walker::new(bytes, sink, config, error.as_ref());
    let mut r = Cursor::new(bytes, 0);
    let walked = walk_root(&mut w, &mut r, "");
    let why = match walked {
        Ok(_) => {
            "after the descriptor: its descriptor_length ends before the input does".to_string()
        }
        Err(Stop) => w
            .take_stopped()
            .unwrap_or_else(|| "not interpreted: the walk stopped before".to_string()),
    };
    w.finish(len, &why);
    Inspection {
        input: Input::Descriptor,
        len,
        error,
        warnings,
    }
}

/// Walk a descriptor at the cursor as the structure `name` (empty: its fields' paths start
/// at the walker's current path).
pub(crate) fn walk_root<'a>(
    w: &mut Walker<'a, '_>,
    r: &mut Cursor<'a>,
    name: &str,
) -> Result<DescriptorWalk<'a>, Stop> {
    let depth = w.depth();
    let result = (|| {
        w.open(r.offset(), name, DescriptorWalk::TITLE)?;
        let d = walk_descriptor(w, r)?;
        w.close(r.offset());
        Ok(d)
    })();
    if result.is_err() {
        w.close_to(depth);
    }
    result
}
