//! Reading one message of the framed interchange protocol (interchange.md §3–§19): the
//! 12-byte header, then the payload its `message_type` selects.
//!
//! The parse is generated from `spec/structures/interchange.toml` and the message-type space
//! (`spec/tags/message_type.toml`): each payload's fields, counts, conditions and checks are
//! the tables', and a payload is framed by `payload_length` as a length-prefixed structure is
//! (RES-55). A descriptor a payload carries (`TENSOR_DESCRIPTOR`, `TENSOR_PUT`) is the
//! descriptor's own view and passes the descriptor's rules, as a file's does.
//!
//! ```
//! use hurray_runtime::ctx::ReaderConfig;
//! use hurray_runtime::message;
//! use hurray_runtime::wire::TagSpace as _;
//!
//! // TENSOR_DATA_END on stream 1 (interchange.md §21): a header and no payload.
//! let bytes = [6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
//! let m = message::read(&bytes, &ReaderConfig::new())?;
//! assert_eq!(m.view().stream_id(), 1);
//! assert_eq!(m.message_type().map(|t| t.name()), Some("tensor_data_end"));
//! # Ok::<(), hurray_runtime::error::Error>(())
//! ```

use crate::ctx::{Ctx, Limit, ReaderConfig, Warning};
use crate::error::Error;
use crate::generated::rules::Rule;
use crate::generated::tags::MessageType;
use crate::semantic;
use crate::structures::{InterchangeMessageView, MessageTypeVariantView};
use crate::wire::{Reader, TagClass, TagSpace};

/// The length of a message header: the offset of the payload (interchange.md §3).
pub const HEADER_LEN: usize = InterchangeMessageView::OFFSET_PAYLOAD;

/// A message that passed every check its tables state and, for a carried descriptor, the
/// descriptor's rules. Only the readers make one.
#[derive(Debug)]
pub struct Message<'a> {
    view: InterchangeMessageView<'a>,
    warnings: Vec<Warning>,
}

impl<'a> Message<'a> {
    /// The message's view: the header's fields and the payload's, borrowed from the input.
    pub fn view(&self) -> &InterchangeMessageView<'a> {
        &self.view
    }

    /// The message type, when this build allocates it (a private or unknown type has none;
    /// an unknown one is rejected, IX-5, unless the reader is permissive).
    pub fn message_type(&self) -> Option<MessageType> {
        match MessageType::classify(self.view.message_type().raw()) {
            TagClass::Known(t) => Some(t),
            _ => None,
        }
    }

    /// The payload, as its message type selects it.
    pub fn payload(&self) -> &MessageTypeVariantView<'a> {
        self.view.payload()
    }

    /// Findings that did not reject the message: an unknown error code (MSG-3), capability
    /// bit (MSG-4) or advertised tag (MSG-5), and a carried descriptor's warnings.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The message's bytes: its header and its payload.
    pub fn bytes(&self) -> &'a [u8] {
        self.view.bytes()
    }
}

/// The `payload_length` of the header at the start of `bytes`, once its bytes are there.
pub fn payload_length(bytes: &[u8]) -> Option<u32> {
    header_u32(bytes, InterchangeMessageView::OFFSET_PAYLOAD_LENGTH)
}

/// The `stream_id` of the header at the start of `bytes`, once its bytes are there.
pub fn stream_id(bytes: &[u8]) -> Option<u32> {
    header_u32(bytes, InterchangeMessageView::OFFSET_STREAM_ID)
}

fn header_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// IX-3 on the header at the start of `bytes` (absolute offset `base`): its payload is not
/// longer than the reader's [`Limit::PayloadBytes`]. Judged before a byte of the payload is
/// read; a header not yet whole passes.
pub fn check_payload_length(bytes: &[u8], base: u64, config: &ReaderConfig) -> Result<(), Error> {
    let Some(length) = payload_length(bytes) else {
        return Ok(());
    };
    let max = config.limit_of(Limit::PayloadBytes);
    if u64::from(length) > max {
        return Err(Error::new(
            Rule::Ix3,
            base + InterchangeMessageView::OFFSET_PAYLOAD_LENGTH as u64,
            format!("payload_length is {length}, above this receiver's maximum of {max}"),
        ));
    }
    Ok(())
}

/// Read the message at the start of `bytes` (absolute offset `base`), returning it and the
/// number of bytes it spans (`12 + payload_length`). A payload longer than the reader's
/// [`Limit::PayloadBytes`] breaks IX-3 before a byte of it is read; an input that ends inside
/// the message breaks MSG-8.
pub fn read_prefix<'a>(
    bytes: &'a [u8],
    base: u64,
    config: &ReaderConfig,
) -> Result<(Message<'a>, usize), Error> {
    check_payload_length(bytes, base, config)?;
    let mut ctx = Ctx::new(config);
    let mut r = Reader::new(bytes, base, Rule::Msg8);
    let view = InterchangeMessageView::parse(&mut r, &mut ctx)?;
    // The descriptor a payload carries is a descriptor: its rules apply as in a file.
    match view.payload() {
        MessageTypeVariantView::TensorDescriptor(p) => {
            semantic::check_descriptor(&p.descriptor(), &mut ctx)?
        }
        MessageTypeVariantView::TensorPut(p) => {
            semantic::check_descriptor(&p.descriptor(), &mut ctx)?
        }
        _ => {}
    }
    let len = r.pos();
    Ok((
        Message {
            view,
            warnings: ctx.take_warnings(),
        },
        len,
    ))
}

/// Read a message that spans exactly `bytes`; bytes after it break MSG-8.
pub fn read<'a>(bytes: &'a [u8], config: &ReaderConfig) -> Result<Message<'a>, Error> {
    let (m, len) = read_prefix(bytes, 0, config)?;
    if len != bytes.len() {
        return Err(Error::new(
            Rule::Msg8,
            len as u64,
            format!(
                "{} byte(s) follow the message's {len} bytes",
                bytes.len() - len
            ),
        ));
    }
    Ok(m)
}

/// A captured session: messages back to back, each read and checked as [`read_prefix`] does
/// when the iterator reaches it, up to the end of the input (which must fall at a message
/// boundary, MSG-8). The first rejection ends the iteration. Memory is one message at a time.
///
/// ```
/// use hurray_runtime::ctx::ReaderConfig;
/// use hurray_runtime::message;
/// use hurray_runtime::wire::TagSpace as _;
///
/// // PING then PONG on stream 7, each with no payload.
/// let bytes = [10, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0];
/// let kinds: Vec<&str> = message::session(&bytes, &ReaderConfig::new())
///     .map(|m| m.map(|m| m.message_type().map_or("?", |t| t.name())))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(kinds, ["ping", "pong"]);
/// # Ok::<(), hurray_runtime::error::Error>(())
/// ```
pub fn session<'a, 'c>(bytes: &'a [u8], config: &'c ReaderConfig) -> Session<'a, 'c> {
    Session {
        bytes,
        at: 0,
        config,
        failed: false,
    }
}

/// The messages of a captured session, one at a time ([`session`]).
#[derive(Debug)]
pub struct Session<'a, 'c> {
    bytes: &'a [u8],
    at: usize,
    config: &'c ReaderConfig,
    failed: bool,
}

impl<'a> Iterator for Session<'a, '_> {
    type Item = Result<Message<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.at >= self.bytes.len() {
            return None;
        }
        match read_prefix(&self.bytes[self.at..], self.at as u64, self.config) {
            Ok((m, len)) => {
                self.at += len;
                Some(Ok(m))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
