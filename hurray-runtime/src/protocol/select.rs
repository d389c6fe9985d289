//! What a server serves a request in: the layout (interchange.md §8, §9; RES-72, RES-73) and
//! the device (§10.1; RES-80), as pure functions of the request, the two HELLOs and what the
//! server can do with the tensor. Sans-I/O like the rest of the protocol: the server asks, the
//! functions answer, and the server sends the answer with [`Connection::send_tensor`] or the
//! refusal's `ERROR` with [`Connection::send`].
//!
//! ```
//! use hurray_runtime::protocol::{Config, select::{self, Availability, LayoutChoice, Production}};
//! use hurray_runtime::flags::RequestFlags;
//! use hurray_runtime::structures::{LayoutEntry, TensorRequest};
//! use hurray_runtime::tags::{Device, Layout};
//! use hurray_runtime::wire::TagSpace;
//!
//! let client = Config::hello(1 << 20);
//! // A server that places buffers on CPU.
//! let mut server = Config::hello(1 << 20);
//! server.supported_devices = vec![Device::Cpu.value() as u8];
//! // The client prefers CSR, then row-major; the tensor is stored row-major.
//! let preferred = vec![LayoutEntry::new(Layout::Csr.into()), LayoutEntry::new(Layout::RowMajor.into())];
//! let request = TensorRequest::new("w".into(), preferred, Device::Cpu.into(), 64, RequestFlags::default());
//! let stored = |e: &LayoutEntry| match e.layout_tag.get() {
//!     Ok(Layout::RowMajor) => Production::Stored,
//!     _ => Production::Unavailable,
//! };
//! // No transcoding asked for: the first entry stored natively (IX-24).
//! let layout = select::layout(&request, &client, &server, 1 << 30, stored)?;
//! assert_eq!(layout, LayoutChoice::Stored);
//! let device = select::device(&request, &client, &server, |_| Availability::Now)?;
//! assert_eq!(device, Device::Cpu.into());
//! # Ok::<(), select::Refusal>(())
//! ```

use std::fmt;

use crate::flags::{CapabilityFlags, RequestFlags};
use crate::generated::rules::Rule;
use crate::structures::{ErrorPayload, Hello, LayoutEntry, MessageTypeVariant, TensorRequest};
use crate::tags::{Device, ErrorCode};
use crate::wire::{TagSpace, TagValue};

#[cfg(doc)]
use super::Connection;

/// How the server can produce the requested tensor in one layout (RES-72, RES-73).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Production {
    /// The tensor is stored in this layout: served as it is.
    Stored,
    /// The server can transcode the tensor to this layout; the transcoding materialises a
    /// largest single buffer of this many bytes (what the transcoding memory limit counts,
    /// RES-73).
    Transcoded {
        /// The largest buffer the transcoding materialises, in bytes.
        largest_buffer: u64,
    },
    /// The server cannot produce the tensor in this layout.
    Unavailable,
}

/// The layout a request is served in.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LayoutChoice {
    /// As the tensor is stored: the first preferred entry that is its stored layout (IX-24),
    /// or, when no preferred entry can be served, the stored layout all the same (IX-25).
    Stored,
    /// Transcoded to this entry of the request's `preferred_layouts` (IX-24, IX-29): the
    /// tensor's rank, shape and element values stay as they are (IX-28, RES-73).
    Transcode(LayoutEntry),
}

/// A request the server does not serve: the rule that says so. The `ERROR` it answers carries
/// the code the rule's table names (`answer`), as a receiver's rejection does (RES-69).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    rule: Rule,
}

impl Refusal {
    fn new(rule: Rule) -> Refusal {
        Refusal { rule }
    }

    /// The rule the refusal follows.
    pub fn rule(self) -> Rule {
        self.rule
    }

    /// The code the `ERROR` carries: the rule's `answer`, or the code space's default.
    pub fn error_code(self) -> TagValue<ErrorCode> {
        TagValue::from_raw(
            self.rule
                .answer()
                .map_or(ErrorCode::DEFAULT.value(), |(_, v)| v),
        )
    }

    /// The `ERROR` message that answers the request, naming the rule.
    pub fn error(self) -> MessageTypeVariant {
        MessageTypeVariant::Error(ErrorPayload::new(self.error_code(), self.to_string()))
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.rule.text(), self.rule.id())
    }
}

impl std::error::Error for Refusal {}

/// The layout a server serves `request` in (§8, RES-72), given the client's and the server's
/// HELLOs, the server's transcoding memory limit in bytes, and how it can produce the tensor
/// in a layout (`produce`, asked about each entry at most twice).
///
/// - IX-24: the request's preferred entries in order; the first that is the stored layout is
///   served as stored, and the first the server can transcode to is served transcoded, when
///   the request sets `ALLOW_TRANSCODE` and the server's HELLO advertises `TRANSCODING`.
/// - IX-29: a transcoding whose largest buffer is over `transcode_limit` is not made; the next
///   entry is tried.
/// - IX-23, IX-25: an empty list, or one no entry of which can be served, ends in the stored
///   layout.
/// - RES-72: that fallback is refused when the client's HELLO lists the layouts it consumes
///   and the stored layout is not among them: `LAYOUT_UNAVAILABLE` (IX-25's answer) when the
///   server can produce none of them either, `TRANSCODE_LIMIT_EXCEEDED` (IX-29's answer) when
///   every one it could produce is a transcoding over the limit.
pub fn layout(
    request: &TensorRequest,
    client: &Hello,
    server: &Hello,
    transcode_limit: u64,
    mut produce: impl FnMut(&LayoutEntry) -> Production,
) -> Result<LayoutChoice, Refusal> {
    let transcodes = server.capability_flags.has(CapabilityFlags::TRANSCODING);
    let allowed = transcodes && request.request_flags.has(RequestFlags::ALLOW_TRANSCODE);
    for e in &request.preferred_layouts {
        match produce(e) {
            Production::Stored => return Ok(LayoutChoice::Stored),
            Production::Transcoded { largest_buffer }
                if allowed && largest_buffer <= transcode_limit =>
            {
                return Ok(LayoutChoice::Transcode(e.clone()));
            }
            Production::Transcoded { .. } | Production::Unavailable => {}
        }
    }
    let consumed = &client.supported_layouts;
    let mut over_limit = false;
    let mut producible = consumed.is_empty();
    for e in consumed {
        match produce(e) {
            Production::Stored => return Ok(LayoutChoice::Stored),
            Production::Transcoded { largest_buffer } if transcodes => {
                if largest_buffer <= transcode_limit {
                    producible = true;
                } else {
                    over_limit = true;
                }
            }
            Production::Transcoded { .. } | Production::Unavailable => {}
        }
    }
    match (producible, over_limit) {
        (true, _) => Ok(LayoutChoice::Stored),
        (false, true) => Err(Refusal::new(Rule::Ix29)),
        (false, false) => Err(Refusal::new(Rule::Ix25)),
    }
}

/// Whether the server can place the tensor's buffers on a device now (§10.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Availability {
    /// Servable at request time.
    Now,
    /// Not now, for a passing reason (out of device memory, say).
    Transiently,
    /// Not at all.
    Permanently,
}

/// The device a server places `request`'s answer on (§10.1, RES-80), given the client's and
/// the server's HELLOs and whether the server can place buffers on a device now.
///
/// - IX-30: the preferred device, when the server's HELLO lists it and it is servable now.
/// - IX-31: CPU preferred and not servable (or not listed): `DEVICE_UNAVAILABLE`; CPU is the
///   last fallback.
/// - IX-32: another device the server does not list, or cannot serve for good:
///   `DEVICE_UNAVAILABLE`, never a silent fallback.
/// - IX-33: the one fallback: a listed device transiently unavailable is replaced by CPU when
///   the client's HELLO lists CPU and the server can serve CPU now; otherwise
///   `DEVICE_UNAVAILABLE` (IX-32).
pub fn device(
    request: &TensorRequest,
    client: &Hello,
    server: &Hello,
    mut available: impl FnMut(TagValue<Device>) -> Availability,
) -> Result<TagValue<Device>, Refusal> {
    let lists = |h: &Hello, d: TagValue<Device>| {
        h.supported_devices.iter().any(|&t| u32::from(t) == d.raw())
    };
    let preferred = request.preferred_device;
    let cpu = TagValue::new(Device::Cpu);
    let availability = if lists(server, preferred) {
        available(preferred)
    } else {
        Availability::Permanently
    };
    if availability == Availability::Now {
        return Ok(preferred);
    }
    if preferred == cpu {
        return Err(Refusal::new(Rule::Ix31));
    }
    let fallback = availability == Availability::Transiently
        && lists(client, cpu)
        && lists(server, cpu)
        && available(cpu) == Availability::Now;
    if fallback {
        Ok(cpu)
    } else {
        Err(Refusal::new(Rule::Ix32))
    }
}
