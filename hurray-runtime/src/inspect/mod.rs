//! Every byte of a descriptor, a file, a canonical stream or a captured session, annotated
//! (`hurray inspect`): for each byte range its
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
mod root;
mod session;
mod stream;
pub mod walk;

use crate::ctx::ReaderConfig;
use root::walk_root;

pub use root::{Input, Inspection};
pub use walk::{
    Annotation, Collect, Cursor, Discard, Kind, Meta, Provenance, Shown, Sink, Stop, TagStanding,
    Walker,
};

/// Inspect `bytes` (a descriptor or a file, by its magic) as a reader configured by `config`
/// reads them, reporting every range to `sink`.
pub fn inspect(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    match Input::of(bytes) {
        Input::Descriptor => descriptor(bytes, config, sink),
        Input::File => file::inspect(bytes, config, sink),
        Input::Stream => stream::inspect(bytes, config, sink),
        Input::Session => session::inspect(bytes, config, sink),
    }
}

/// Inspect `bytes` as a file container, whatever its magic says.
pub fn file(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    file::inspect(bytes, config, sink)
}

/// Inspect `bytes` as a canonical stream (descriptor + data pairs back to back, RES-51): each
/// tensor's descriptor walked, its buffers right after it; the verdict is the stream reader's.
pub fn stream(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    stream::inspect(bytes, config, sink)
}

/// Inspect `bytes` as a captured session of the interchange protocol (messages back to back):
/// each message's header and payload walked; the verdict is [`crate::message::session`]'s.
pub fn session(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    session::inspect(bytes, config, sink)
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
    let walked = walk_root(&mut w, &mut r, "").map(|_| ());
    w.conclude(
        len,
        walked,
        "after the descriptor: its descriptor_length ends before the input does",
    );
    Inspection {
        input: Input::Descriptor,
        len,
        error,
        warnings,
    }
}
