//! The framed interchange protocol as a sans-I/O state machine (interchange.md §6–§19): bytes
//! in, events and bytes out, with no socket, thread or clock of its own.
//!
//! A [`Connection`] is one side of one connection, a client or a server. Feed it what the
//! transport received ([`Connection::receive`]), take the events it found
//! ([`Connection::poll_event`]) and the bytes it wants sent ([`Connection::transmit`]). The
//! application's messages go through [`Connection::send`], which refuses (and does not send) a
//! message that breaks a rule; a message the peer sends that breaks one is answered as the
//! rule says (an `ERROR` with the rule's `answer` code, the stream closed: RES-69) and reported
//! as [`Event::Rejected`].
//!
//! Every message is checked twice, by the same code whichever side sent it: the tables'
//! checks (the generated parse, [`crate::message`]) and the protocol's sequences, which live
//! here: the HELLO exchange (ORD-14, IX-8…IX-11, MSG-10), the transfer of one tensor
//! (ORD-1…ORD-6, IX-37…IX-45), composites on a stream (ORD-7, ORD-8, IX-50…IX-56, through the
//! same composite tracker a file's tensors pass), the RDMA handshake (ORD-10…ORD-12, IX-66…IX-74),
//! pushes (ORD-13, IX-80…IX-83, MSG-13), the end of a stream at an `ERROR` (ORD-15, IX-87)
//! and parallel transfers (ORD-9, IX-58…IX-64): the streams of one `PARALLEL_OK` request
//! repeated are one offer (RES-70), each shard is checked against the others as its descriptor
//! arrives, and their boxes' cover of the parent once the last one has. The lifecycle it keeps
//! is RES-63's: the client opens every stream with a request or a push, and a stream ends with
//! its exchange. A transferred tensor's non-empty buffers declare the alignment the tables
//! give their device and the RDMA path (IX-92, RES-81). What a server serves a request in (the
//! layout of §8, the device of §10.1) is [`select`]'s.
//!
//! ```
//! use hurray_runtime::protocol::{Config, Connection, Event};
//! use hurray_runtime::structures::{MessageTypeVariant, TensorRequest};
//! use hurray_runtime::tags::Device;
//!
//! let mut client = Connection::new(Config::client(Config::hello(1 << 20)));
//! let mut server = Connection::new(Config::server(Config::hello(1 << 20)));
//! // The client's HELLO is queued from the start; the server answers it.
//! server.receive(&client.transmit());
//! client.receive(&server.transmit());
//! assert!(matches!(client.poll_event(), Some(Event::Connected { version: 1, .. })));
//!
//! // A request opens stream 1 (RES-63); the server sees it.
//! let request = TensorRequest::new("w".into(), vec![], Device::Cpu.into(), 64, Default::default());
//! client.send(1, MessageTypeVariant::TensorRequest(request))?;
//! server.receive(&client.transmit());
//! assert!(matches!(server.poll_event(), Some(Event::Connected { .. })));
//! match server.poll_event() {
//!     Some(Event::Message { stream_id: 1, payload }) => {
//!         assert!(matches!(*payload, MessageTypeVariant::TensorRequest(_)))
//!     }
//!     other => panic!("expected the request, got {other:?}"),
//! }
//!
//! // A data frame before the tensor's descriptor is refused before a byte is sent (ORD-4).
//! let frame = hurray_runtime::structures::TensorData::new(0, vec![0; 4]);
//! let refused = server.send(1, MessageTypeVariant::TensorData(frame)).unwrap_err();
//! assert_eq!(refused.rule().map(|r| r.id()), Some("ORD-4"));
//! # Ok::<(), hurray_runtime::Error>(())
//! ```

use std::collections::{HashMap, HashSet, VecDeque};

pub mod reassemble;
pub mod select;
#[cfg(feature = "tokio")]
pub mod tokio;

use crate::axes::Axis;
use crate::ctx::{Ctx, Limit, ReaderConfig, Warning};
use crate::error::Error;
use crate::file::Tracker;
use crate::file::cover;
use crate::flags::{CapabilityFlags, RequestFlags};
use crate::generated::rules::Rule;
use crate::message::{self, HEADER_LEN};
use crate::semantic::size::Integer;
use crate::structures::{
    Descriptor, DescriptorView, Hello, InterchangeMessage, InterchangeMessageView,
    LayoutVariantView, MessageTypeVariant, MessageTypeVariantView, TensorData,
    TensorDescriptorPayload, TensorDescriptorPayloadView, TensorPut,
};
use crate::tags::{Device, ErrorCode, MemoryClass, MessageType, MessageTypeSender};
use crate::wire::{TagClass, TagSpace, TagValue};

/// Which side of the connection a [`Connection`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Opens the connection (CLIENT_HELLO) and every stream (requests, pushes).
    Client,
    /// Answers the HELLO, requests and pushes.
    Server,
}

impl Role {
    fn other(self) -> Role {
        match self {
            Role::Client => Role::Server,
            Role::Server => Role::Client,
        }
    }
}

/// What a [`Connection`] needs: its role, its own HELLO, the lowest protocol version it
/// speaks, and the reader configuration every received message is read under (mode, limits,
/// whether the peer is on another machine).
#[derive(Clone, Debug)]
pub struct Config {
    role: Role,
    hello: Hello,
    lowest_version: u32,
    reader: ReaderConfig,
}

impl Config {
    /// A client sending `hello` (its `protocol_version`: the highest version it speaks).
    pub fn client(hello: Hello) -> Config {
        Config::new(Role::Client, hello)
    }

    /// A server answering with `hello`'s lists and limits (its `protocol_version`: the highest
    /// version it speaks; the version it sends is the one agreed, IX-11).
    pub fn server(hello: Hello) -> Config {
        Config::new(Role::Server, hello)
    }

    fn new(role: Role, hello: Hello) -> Config {
        Config {
            role,
            hello,
            lowest_version: 1,
            reader: ReaderConfig::new().network(true),
        }
    }

    /// A HELLO at this build's protocol version accepting payloads up to `max_message_size`
    /// bytes, with no capability and empty lists (STANDARD memory only, IX-14).
    pub fn hello(max_message_size: u32) -> Hello {
        let version = ReaderConfig::new().version(Axis::Protocol).minor;
        Hello::new(
            u32::from(version),
            max_message_size,
            CapabilityFlags::default(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        )
    }

    /// The lowest protocol version this side speaks (1 unless set): a server refuses a client
    /// below it (IX-10), a client a server that answers below it (MSG-10).
    pub fn lowest_version(mut self, version: u32) -> Config {
        self.lowest_version = version;
        self
    }

    /// The configuration received messages are read under. By default a strict reader at
    /// this build's versions, for a peer on another machine ([`ReaderConfig::network`]:
    /// every buffer handle's `sync_mode` is 0x00, IX-48). Its payload limit is lowered to the
    /// HELLO's `max_message_size` when that is smaller (IX-3).
    pub fn reader(mut self, reader: ReaderConfig) -> Config {
        self.reader = reader;
        self
    }
}

/// What a [`Connection`] found in the bytes it received.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Event {
    /// The HELLO exchange completed: the agreed protocol version and the peer's HELLO.
    Connected {
        /// The version both sides now speak.
        version: u32,
        /// The peer's HELLO.
        peer: Box<Hello>,
    },
    /// A message the peer sent, read and accepted (HELLOs are reported by
    /// [`Event::Connected`]; a PING is answered with its PONG before it is reported).
    Message {
        /// Its stream.
        stream_id: u32,
        /// Its payload, owned.
        payload: Box<MessageTypeVariant>,
    },
    /// A finding that did not reject anything: an unknown advertised tag or capability, a
    /// torn composite a permissive reader keeps.
    Warning {
        /// The stream it concerns, if any.
        stream_id: Option<u32>,
        /// The finding.
        warning: Warning,
    },
    /// A stream's exchange completed: the last `TENSOR_DATA_END` of a request's answer
    /// (composite members included) or a push's `TENSOR_PUT_ACK`. The stream id may open a
    /// new stream.
    Completed {
        /// The stream.
        stream_id: u32,
    },
    /// The peer broke a rule. The stream is closed (or, during the HELLO exchange, the
    /// connection); when `answered` holds a code, an `ERROR` with it was queued.
    Rejected {
        /// The message's stream, if it could be read.
        stream_id: Option<u32>,
        /// The rule broken, with its offset in the bytes received.
        error: Error,
        /// The error code of the `ERROR` sent back, if one was.
        answered: Option<u32>,
    },
    /// The connection is over: nothing more is read or sent.
    Closed,
}

/// Where the HELLO exchange stands.
#[derive(Clone, Debug)]
enum Phase {
    /// Before the exchange completes: which HELLOs were seen.
    Hello {
        client: bool,
        version: Option<u32>,
    },
    /// The exchange completed.
    Open {
        version: u32,
        peer: Box<Hello>,
    },
    Closed,
}

/// One stream's exchange.
#[derive(Debug)]
struct Stream {
    kind: Kind,
    state: State,
    /// Composites of a request's answer (ORD-7): the same tracker a file's tensors pass.
    tracker: Tracker,
    /// Tensors of the answer so far.
    tensors: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A request: the server sends the tensors. `offer`: the parallel offer the request is
    /// part of, when it may be answered in shards (RES-70).
    Request { device: u32, offer: Option<u64> },
    /// A push: the client sends one tensor, the server acknowledges it.
    Push,
}

impl Kind {
    /// Who sends the tensor's bytes (the source owner).
    fn data_sender(self) -> Role {
        match self {
            Kind::Request { .. } => Role::Server,
            Kind::Push => Role::Client,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum State {
    /// A request waits for its next tensor's descriptor.
    AwaitDescriptor,
    /// A tensor's bytes are on their way.
    Transfer(Transfer),
    /// A push sent its bytes and waits for the acknowledgement.
    AwaitAck,
}

#[derive(Clone, Copy, Debug)]
struct Transfer {
    total: u64,
    /// The least `alignment` the tensor's non-empty buffers declare (`None`: no such buffer),
    /// for the transfer path's own minimum (IX-92).
    alignment: Option<u64>,
    /// The next byte offset a frame must start at (ORD-5).
    next: u64,
    frames: u64,
    path: Path,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// Neither a frame nor a registration yet.
    Open,
    Frames,
    Rdma {
        destination: bool,
        ready: bool,
    },
}

/// The streams a client offers for one tensor's parallel shards: `PARALLEL_OK` requests
/// that repeat one another, to a server that advertised `PARALLEL_STREAMS` (RES-70).
#[derive(Debug)]
struct Offer {
    /// The request's bytes while further streams may join the offer: until the first
    /// shard's descriptor.
    request: Option<Vec<u8>>,
    /// Streams offered in all.
    offered: u64,
    /// Streams of the offer still open.
    open: u64,
    /// The sharding the answer chose, from its first shard.
    sharding: Option<Sharding>,
}

/// What every shard of one parallel answer shares (IX-61, IX-64), and the shards so far.
#[derive(Debug)]
struct Sharding {
    total: u32,
    parent: Vec<u64>,
    type_tag: u32,
    layout_tag: u32,
    /// The shard indices announced (ORD-9) and their boxes: offset and shape (IX-62).
    indices: HashSet<u32>,
    boxes: Vec<(Vec<u64>, Vec<u64>)>,
}

/// One shard of a parallel answer, checked, with the sharding its descriptor states.
struct Shard {
    index: u32,
    start: Vec<u64>,
    shape: Vec<u64>,
    sharding: Sharding,
}

impl Shard {
    /// IX-62, once this shard completes the set (IX-63): the boxes of `before` (the shards
    /// kept so far) and this one cover the parent exactly.
    fn check_cover(&self, before: Option<&Sharding>, at: u64) -> Result<(), Error> {
        let s = &self.sharding;
        let kept = before.map_or(0, |b| b.boxes.len());
        if kept + 1 != s.total as usize || s.total < 2 {
            return Ok(());
        }
        let regions: Vec<cover::Region<'_>> = before
            .into_iter()
            .flat_map(|b| b.boxes.iter())
            .map(|(start, extent)| cover::Region { start, extent })
            .chain(std::iter::once(cover::Region {
                start: &self.start,
                extent: &self.shape,
            }))
            .collect();
        let Err(fault) = cover::exact(&s.parent, &regions) else {
            return Ok(());
        };
        let why = match fault {
            cover::Fault::Uncountable => {
                "the parent holds more than 2^128 elements: too many to count".to_string()
            }
            cover::Fault::Count { sum, total } => {
                format!("the shards hold {sum} elements; the parent has {total}")
            }
            cover::Fault::Overlap(..) | cover::Fault::Untiled { .. } => {
                "some shards overlap".to_string()
            }
        };
        Err(Error::new(
            Rule::Ix62,
            at,
            format!(
                "the {} shards do not cover the parent {:?} exactly: {why}",
                s.total, s.parent
            ),
        ))
    }
}

/// What a message did to its stream.
enum Effect {
    None,
    /// The exchange completed.
    Completed,
    /// The stream ended (an ERROR).
    Ended,
}

/// One side of one connection of the interchange protocol. See the [module](self).
#[derive(Debug)]
pub struct Connection {
    config: Config,
    phase: Phase,
    /// Received bytes not yet consumed, from absolute offset `consumed`.
    input: Vec<u8>,
    consumed: u64,
    /// Payload bytes of an oversized message still to pass over (IX-3).
    discard: u64,
    output: Vec<u8>,
    events: VecDeque<Event>,
    streams: HashMap<u32, Stream>,
    /// Streams an ERROR ended, until a new exchange opens them (ORD-15).
    errored: HashSet<u32>,
    /// Parallel offers with a stream open (RES-70), by number; `joinable`: those a repeated
    /// request still joins, by the request's bytes.
    offers: HashMap<u64, Offer>,
    joinable: HashMap<Vec<u8>, u64>,
    next_offer: u64,
    /// How this side's own messages are read back: strict, at its versions, no limit but the
    /// peer's (checked apart, MSG-12).
    writer: ReaderConfig,
}

impl Connection {
    /// A connection of `config`'s role. A client's CLIENT_HELLO is queued at once (IX-8).
    pub fn new(mut config: Config) -> Connection {
        let limit = config
            .reader
            .limit_of(Limit::PayloadBytes)
            .min(u64::from(config.hello.max_message_size));
        config.reader = config.reader.clone().limit(Limit::PayloadBytes, limit);
        let writer = config
            .reader
            .clone()
            .permissive(false)
            .limit(Limit::PayloadBytes, Limit::PayloadBytes.format_maximum());
        let mut c = Connection {
            writer,
            phase: Phase::Hello {
                client: false,
                version: None,
            },
            config,
            input: Vec::new(),
            consumed: 0,
            discard: 0,
            output: Vec::new(),
            events: VecDeque::new(),
            streams: HashMap::new(),
            errored: HashSet::new(),
            offers: HashMap::new(),
            joinable: HashMap::new(),
            next_offer: 0,
        };
        if c.config.role == Role::Client {
            let hello = MessageTypeVariant::ClientHello(c.config.hello.clone());
            // The client's own HELLO: a refusal is the configuration's fault, reported as
            // the connection's end.
            if let Err(e) = c.emit(1, hello) {
                c.reject(None, e, None);
                c.close_connection();
            }
        }
        c
    }

    /// The role of this side.
    pub fn role(&self) -> Role {
        self.config.role
    }

    /// The agreed protocol version, once the HELLO exchange completed.
    pub fn version(&self) -> Option<u32> {
        match &self.phase {
            Phase::Open { version, .. } => Some(*version),
            _ => None,
        }
    }

    /// Whether the connection is over.
    pub fn is_closed(&self) -> bool {
        matches!(self.phase, Phase::Closed)
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The bytes to send to the peer, in order; afterwards none are pending.
    pub fn transmit(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.output)
    }

    /// The bytes waiting to be sent, without taking them: write some, then [`Self::consume`]
    /// what was written. The buffer is kept, so a sender that writes as it sends reuses it.
    pub fn pending(&self) -> &[u8] {
        &self.output
    }

    /// Drop the first `n` pending bytes (those written out); at most all of them.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.output.len());
        if n == self.output.len() {
            self.output.clear();
        } else {
            self.output.drain(..n);
        }
    }

    /// Send `payload` on `stream_id`. The message is encoded, read back as the peer will read
    /// it, and passed through the protocol's sequences as the sender's; a message that breaks
    /// a rule is refused with the rule and nothing is queued. HELLOs are the connection's own.
    pub fn send(&mut self, stream_id: u32, payload: MessageTypeVariant) -> Result<(), Error> {
        if let MessageTypeVariant::ClientHello(_) | MessageTypeVariant::ServerHello(_) = payload {
            return Err(Error::new(
                Rule::Ord14,
                0,
                "a connection sends its one HELLO itself (RES-63)",
            ));
        }
        self.emit(stream_id, payload)
    }

    /// Answer a request on `stream_id` with one whole tensor: its `TENSOR_DESCRIPTOR` (shard
    /// 0 of 1, `total_data_bytes` the length of `data`), `data` in `TENSOR_DATA` frames of at
    /// most `frame` bytes each, and `TENSOR_DATA_END`. Every message goes through
    /// [`Self::send`]; at a refusal the messages before it stay queued and the error is
    /// returned.
    ///
    /// ```
    /// use hurray_runtime::protocol::{Config, Connection, Event};
    /// use hurray_runtime::structures::{MessageTypeVariant, TensorRequest};
    /// use hurray_runtime::{descriptor, tags::{Device, ElementType}, writer, ReaderConfig};
    ///
    /// let mut client = Connection::new(Config::client(Config::hello(1 << 20)));
    /// let mut server = Connection::new(Config::server(Config::hello(1 << 20)));
    /// server.receive(&client.transmit());
    /// client.receive(&server.transmit());
    /// let request = TensorRequest::new("w".into(), vec![], Device::Cpu.into(), 64, Default::default());
    /// client.send(1, MessageTypeVariant::TensorRequest(request))?;
    /// server.receive(&client.transmit());
    ///
    /// // Four float32 values, sent in frames of 8 bytes.
    /// let bytes = writer::finalize(writer::row_major(ElementType::Float32, &[4]))?;
    /// let d = descriptor::read(&bytes, &ReaderConfig::new())?.view().owned();
    /// server.send_tensor(1, d, &[0; 16], 8)?;
    /// client.receive(&server.transmit());
    /// let events: Vec<Event> = std::iter::from_fn(|| client.poll_event()).collect();
    /// assert!(matches!(events.last(), Some(Event::Completed { stream_id: 1 })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn send_tensor(
        &mut self,
        stream_id: u32,
        descriptor: Descriptor,
        data: &[u8],
        frame: usize,
    ) -> Result<(), Error> {
        tensor_messages(answer_head(descriptor, data), data, frame)
            .try_for_each(|m| self.send(stream_id, m))
    }

    /// Push one whole tensor on `stream_id` under `key`: `TENSOR_PUT` (its descriptor,
    /// `total_data_bytes` the length of `data`), `data` in `TENSOR_DATA` frames of at most
    /// `frame` bytes each, and `TENSOR_DATA_END`; the server's `TENSOR_PUT_ACK` completes the
    /// stream. As [`Self::send_tensor`], message by message through [`Self::send`].
    pub fn push_tensor(
        &mut self,
        stream_id: u32,
        key: String,
        descriptor: Descriptor,
        data: &[u8],
        frame: usize,
    ) -> Result<(), Error> {
        tensor_messages(push_head(key, descriptor, data), data, frame)
            .try_for_each(|m| self.send(stream_id, m))
    }

    /// The transport ended: no more bytes will come. A message cut short breaks MSG-8, and a
    /// composite still waiting for members is torn (ORD-8, IX-56: rejected by a strict reader,
    /// a warning for a permissive one).
    pub fn close(&mut self) {
        if self.is_closed() {
            return;
        }
        if !self.input.is_empty() || self.discard > 0 {
            let e = Error::new(
                Rule::Msg8,
                self.consumed + self.input.len() as u64,
                "the connection ended inside a message",
            );
            self.reject(None, e, None);
        }
        let mut ids: Vec<u32> = self.streams.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            self.tear(id);
        }
        self.close_connection();
    }

    /// Feed bytes the transport received. Every complete message is read, checked and acted
    /// on; events and answers queue up. Memory: one message's bytes at most (the payload
    /// limit), an oversized payload is passed over without being kept.
    pub fn receive(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && !self.is_closed() {
            if self.discard > 0 {
                let n = self.discard.min(bytes.len() as u64) as usize;
                self.discard -= n as u64;
                self.consumed += n as u64;
                bytes = &bytes[n..];
                continue;
            }
            // Gather the header, then the payload its length announces.
            let want = match message::payload_length(&self.input) {
                Some(len) => HEADER_LEN as u64 + u64::from(len),
                None => HEADER_LEN as u64,
            };
            let take = (want - self.input.len() as u64).min(bytes.len() as u64) as usize;
            self.input.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            // An oversized payload is judged on its header alone (IX-3).
            if self.input.len() == HEADER_LEN && !self.header_fits() {
                continue;
            }
            if let Some(len) = message::payload_length(&self.input)
                && self.input.len() as u64 == HEADER_LEN as u64 + u64::from(len)
            {
                let mut m = std::mem::take(&mut self.input);
                self.on_message(&m);
                self.consumed += m.len() as u64;
                m.clear();
                if !self.is_closed() {
                    self.input = m;
                }
            }
        }
    }

    /// The gathered header's payload length is within the limit; when it is not, the message
    /// is rejected (IX-3), answered, and its payload passed over.
    fn header_fits(&mut self) -> bool {
        match message::check_payload_length(&self.input, self.consumed, &self.config.reader) {
            Ok(()) => true,
            Err(e) => {
                let len = message::payload_length(&self.input).unwrap_or(0);
                let stream = message::stream_id(&self.input).filter(|&s| s != 0);
                self.consumed += self.input.len() as u64;
                self.input.clear();
                self.discard = u64::from(len);
                self.fail(stream, e);
                false
            }
        }
    }

    /// A whole message arrived.
    fn on_message(&mut self, bytes: &[u8]) {
        let stream = message::stream_id(bytes).filter(|&s| s != 0);
        // The bytes are one whole message, framed by its payload_length.
        let m = match message::read_prefix(bytes, self.consumed, &self.config.reader) {
            Ok((m, _)) => m,
            Err(e) => return self.fail(stream, e),
        };
        let stream_id = m.view().stream_id();
        for w in m.warnings() {
            self.events.push_back(Event::Warning {
                stream_id: Some(stream_id),
                warning: w.clone(),
            });
        }
        let from = self.config.role.other();
        match self.step(from, m.view()) {
            Ok(effect) => {
                let payload = m.view().payload().owned();
                self.deliver(stream_id, payload, effect);
            }
            Err(e) => self.fail(Some(stream_id), e),
        }
    }

    /// Report an accepted message and what it did.
    fn deliver(&mut self, stream_id: u32, payload: MessageTypeVariant, effect: Effect) {
        match payload {
            MessageTypeVariant::ClientHello(_) | MessageTypeVariant::ServerHello(_) => {
                if let Phase::Open { version, peer } = &self.phase {
                    self.events.push_back(Event::Connected {
                        version: *version,
                        peer: peer.clone(),
                    });
                }
            }
            MessageTypeVariant::Ping(p) => {
                // RES-58: a PONG answers a PING on its stream with its bytes.
                let pong = MessageTypeVariant::Pong(p.clone());
                if let Err(e) = self.emit(stream_id, pong) {
                    self.reject(Some(stream_id), e, None);
                }
                self.events.push_back(Event::Message {
                    stream_id,
                    payload: Box::new(MessageTypeVariant::Ping(p)),
                });
            }
            MessageTypeVariant::Error(p) => {
                let during_hello = !matches!(self.phase, Phase::Open { .. });
                self.events.push_back(Event::Message {
                    stream_id,
                    payload: Box::new(MessageTypeVariant::Error(p)),
                });
                if during_hello {
                    // An ERROR answering a HELLO ends the connection (IX-10, RES-63).
                    self.close_connection();
                }
            }
            payload => self.events.push_back(Event::Message {
                stream_id,
                payload: Box::new(payload),
            }),
        }
        if let Effect::Completed = effect {
            self.events.push_back(Event::Completed { stream_id });
        }
    }

    /// The peer broke `e`'s rule on `stream` (if known): answer with an ERROR, close the
    /// stream, or end the connection when the HELLO exchange has not completed.
    fn fail(&mut self, stream: Option<u32>, e: Error) {
        let answer = e
            .rule()
            .and_then(Rule::answer)
            .map_or(ErrorCode::DEFAULT.value(), |(_, v)| v);
        let open = matches!(self.phase, Phase::Open { .. });
        let mut answered = None;
        // An answer goes on the message's stream; the HELLO exchange is the server's to
        // answer (a client that cannot use the server's answer just ends the connection).
        if let Some(id) = stream
            && (open || self.config.role == Role::Server)
        {
            // The answer names the rule and where: the peer has the bytes, and an answer stays
            // small whatever the violation's detail.
            let text = format!(
                "{} ({}) at byte {}",
                e.code(),
                e.rule().map_or("-", Rule::id),
                e.offset()
            );
            let payload = MessageTypeVariant::Error(crate::structures::ErrorPayload::new(
                TagValue::from_raw(answer),
                text,
            ));
            if self.emit_unchecked(id, payload) {
                answered = Some(answer);
            }
        }
        if let Some(id) = stream {
            self.end_stream(id);
            self.errored.insert(id);
        }
        self.reject(stream, e, answered);
        if !open || stream.is_none() {
            self.close_connection();
        }
    }

    fn reject(&mut self, stream_id: Option<u32>, error: Error, answered: Option<u32>) {
        self.events.push_back(Event::Rejected {
            stream_id,
            error,
            answered,
        });
    }

    fn close_connection(&mut self) {
        if !self.is_closed() {
            self.phase = Phase::Closed;
            self.streams.clear();
            self.offers.clear();
            self.joinable.clear();
            self.input.clear();
            self.discard = 0;
            self.events.push_back(Event::Closed);
        }
    }

    /// A stream ends before its exchange did: a composite still open is torn (ORD-8).
    fn tear(&mut self, id: u32) {
        let Some(s) = self.end_stream(id) else {
            return;
        };
        if s.tracker.depth() == 0 {
            return;
        }
        let reader = self.config.reader.clone();
        let mut ctx = Ctx::new(&reader);
        let torn = ctx.violation(
            Rule::Ix56,
            self.consumed,
            format!(
                "stream {id} ended inside a composite: {} tensor(s) arrived, a member is missing (ORD-8)",
                s.tensors
            ),
        );
        match torn {
            Err(e) => self.reject(Some(id), e, None),
            Ok(()) => {
                for w in ctx.take_warnings() {
                    self.events.push_back(Event::Warning {
                        stream_id: Some(id),
                        warning: w,
                    });
                }
            }
        }
    }

    /// Encode, read back and sequence-check a message of this side, then queue it.
    fn emit(&mut self, stream_id: u32, payload: MessageTypeVariant) -> Result<(), Error> {
        if self.is_closed() {
            return Err(Error::new(
                Rule::Msg9,
                0,
                "the connection is over: nothing more is sent on it",
            ));
        }
        // Encoded in place, after what is queued: the payload's bytes are copied once.
        let mut out = std::mem::take(&mut self.output);
        let start = out.len();
        InterchangeMessage::new(TagValue::from_raw(payload.tag()), stream_id, payload)
            .encode(&mut out);
        let checked = self.check_own(&out[start..]);
        if checked.is_err() {
            out.truncate(start);
        }
        // Whatever the check queued itself goes after the message.
        let queued = std::mem::replace(&mut self.output, out);
        self.output.extend_from_slice(&queued);
        checked
    }

    /// A message of this side, before it is queued: within the peer's limit (MSG-12), read as
    /// the peer reads it (the tables' checks at this side's versions), and in its sequence.
    fn check_own(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if let Phase::Open { peer, .. } = &self.phase {
            let len = bytes.len() - HEADER_LEN;
            if len as u64 > u64::from(peer.max_message_size) {
                return Err(Error::new(
                    Rule::Msg12,
                    InterchangeMessageView::OFFSET_PAYLOAD_LENGTH as u64,
                    format!(
                        "the payload is {len} bytes, above the peer's max_message_size of {}",
                        peer.max_message_size
                    ),
                ));
            }
        }
        let writer = std::mem::take(&mut self.writer);
        let checked = message::read(bytes, &writer).and_then(|m| {
            // A sender sends nothing its peer would only report: a capability bit or an
            // advertised tag its version does not define (IX-12, IX-16), an error code
            // nobody allocated, a carried descriptor's warning.
            if let Some(w) = m.warnings().first() {
                return Err(Error::new(
                    w.rule,
                    w.offset,
                    format!("a sender sends nothing a reader reports: {}", w.detail),
                ));
            }
            self.step(self.config.role, m.view())
        });
        self.writer = writer;
        checked.map(|_| ())
    }

    /// Queue an ERROR answer with no sequence check (an answer to a violation is always in
    /// place). False when the connection is over.
    fn emit_unchecked(&mut self, stream_id: u32, payload: MessageTypeVariant) -> bool {
        if self.is_closed() {
            return false;
        }
        InterchangeMessage::new(TagValue::from_raw(payload.tag()), stream_id, payload)
            .encode(&mut self.output);
        true
    }

    /// The protocol's sequences: what message `m`, sent by `from`, does to the connection and
    /// its stream, or the rule it breaks. `base` is the message's absolute offset.
    fn step(&mut self, from: Role, m: &InterchangeMessageView<'_>) -> Result<Effect, Error> {
        let at = m.offset();
        let id = m.stream_id();
        let payload = m.payload();
        // The message's type, classified once: whether `from` is a side the tables say sends
        // it (a type this build does not know is checked by no sender).
        let known = known_type(payload);
        let by_sender = known.is_none_or(|t| sends(t, from, None));
        // The HELLO exchange (ORD-14, IX-8…IX-11, MSG-10, RES-63, RES-64).
        match (&mut self.phase, payload) {
            (Phase::Closed, _) => {
                return Err(Error::new(Rule::Msg9, at, "the connection is over"));
            }
            (Phase::Hello { client, .. }, MessageTypeVariantView::ClientHello(h)) if by_sender => {
                if *client {
                    return Err(Error::new(Rule::Ord14, at, "a second CLIENT_HELLO"));
                }
                *client = true;
                if self.config.role == Role::Server {
                    return self.answer_hello(h.owned(), id, at);
                }
                return Ok(Effect::None);
            }
            (Phase::Hello { client, version }, MessageTypeVariantView::ServerHello(h))
                if by_sender =>
            {
                if !*client || version.is_some() {
                    return Err(Error::new(
                        Rule::Ord14,
                        at,
                        "a SERVER_HELLO that answers no CLIENT_HELLO",
                    ));
                }
                let agreed = h.protocol_version();
                if self.config.role == Role::Client {
                    let own = self.config.hello.protocol_version;
                    if agreed > own {
                        return Err(Error::new(
                            Rule::Ix11,
                            at + HEADER_LEN as u64,
                            format!(
                                "the server answers version {agreed}, above the client's {own}"
                            ),
                        ));
                    }
                    if agreed < self.config.lowest_version {
                        return Err(Error::new(
                            Rule::Msg10,
                            at + HEADER_LEN as u64,
                            format!(
                                "the server answers version {agreed}; this client speaks {} to {own}",
                                self.config.lowest_version
                            ),
                        ));
                    }
                    self.phase = Phase::Open {
                        version: agreed,
                        peer: Box::new(h.owned()),
                    };
                } else {
                    *version = Some(agreed);
                }
                return Ok(Effect::None);
            }
            (Phase::Hello { client, .. }, MessageTypeVariantView::Error(_)) => {
                if from == Role::Server && *client {
                    // The server's refusal in place of SERVER_HELLO (IX-10).
                    return Ok(Effect::None);
                }
                return Err(Error::new(
                    Rule::Ord14,
                    at,
                    "an ERROR before the HELLO exchange: only the server refuses a CLIENT_HELLO",
                ));
            }
            (Phase::Hello { client, .. }, _) => {
                let rule = match (from, *client) {
                    (Role::Client, false) => Rule::Ix8,
                    (Role::Server, _) => Rule::Ix9,
                    (Role::Client, true) => Rule::Ord14,
                };
                return Err(Error::new(
                    rule,
                    at,
                    "a message before the HELLO exchange completed (RES-63)",
                ));
            }
            (Phase::Open { .. }, MessageTypeVariantView::ClientHello(_))
            | (Phase::Open { .. }, MessageTypeVariantView::ServerHello(_)) => {
                return Err(Error::new(
                    Rule::Ord14,
                    at,
                    "a second HELLO on the connection",
                ));
            }
            (Phase::Open { .. }, _) => {}
        }
        self.stream_step(from, id, payload, at, known.filter(|_| !by_sender), known)
    }

    /// The server's answer to a CLIENT_HELLO: its SERVER_HELLO at the agreed version, or an
    /// ERROR and the connection's end (IX-10).
    fn answer_hello(&mut self, peer: Hello, id: u32, at: u64) -> Result<Effect, Error> {
        let agreed = peer
            .protocol_version
            .min(self.config.hello.protocol_version);
        if agreed < self.config.lowest_version {
            return Err(Error::new(
                Rule::Ix10,
                at + HEADER_LEN as u64,
                format!(
                    "the client speaks up to version {}; this server speaks {} to {}",
                    peer.protocol_version,
                    self.config.lowest_version,
                    self.config.hello.protocol_version
                ),
            ));
        }
        let mut hello = self.config.hello.clone();
        hello.protocol_version = agreed;
        // Sequence-checked as the server's: the phase must know the client's HELLO first.
        self.emit(id, MessageTypeVariant::ServerHello(hello))?;
        self.phase = Phase::Open {
            version: agreed,
            peer: Box::new(peer),
        };
        Ok(Effect::None)
    }

    fn peer_and_own(&self) -> (&Hello, &Hello) {
        match &self.phase {
            Phase::Open { peer, .. } => (peer, &self.config.hello),
            _ => unreachable!("stream messages pass the HELLO exchange first"),
        }
    }

    /// Whether both HELLOs carry `flag`.
    fn both(&self, flag: CapabilityFlags) -> bool {
        let (peer, own) = self.peer_and_own();
        peer.capability_flags.has(flag) && own.capability_flags.has(flag)
    }

    /// The server's HELLO.
    fn server_hello(&self) -> &Hello {
        let (peer, own) = self.peer_and_own();
        match self.config.role {
            Role::Client => peer,
            Role::Server => own,
        }
    }

    /// The client's HELLO.
    fn client_hello(&self) -> &Hello {
        let (peer, own) = self.peer_and_own();
        match self.config.role {
            Role::Client => own,
            Role::Server => peer,
        }
    }

    /// A message on a stream, after the HELLO exchange. `known` is the message's type when
    /// this build knows it, `misplaced` that type when `from` is not a side that sends it
    /// (both as [`Connection::step`] classified the message).
    fn stream_step(
        &mut self,
        from: Role,
        id: u32,
        payload: &MessageTypeVariantView<'_>,
        at: u64,
        misplaced: Option<MessageType>,
        known: Option<MessageType>,
    ) -> Result<Effect, Error> {
        let out_of_place = |what: &str| Error::new(Rule::Msg9, at, format!("{what} (RES-63)"));
        let wrong_side = |t: MessageType| {
            out_of_place(&format!(
                "a {} from the {}, which its `sender` in the tables says the {} sends",
                t.name(),
                side(from),
                t.sender().word()
            ))
        };
        if let Some(t) = misplaced {
            return Err(wrong_side(t));
        }
        match payload {
            MessageTypeVariantView::Ping(_) | MessageTypeVariantView::Pong(_) => {
                return Ok(Effect::None);
            }
            MessageTypeVariantView::Private(..) | MessageTypeVariantView::Opaque(..) => {
                // Agreed out of band (IX-6): no sequence of this protocol covers it.
                return Ok(Effect::None);
            }
            MessageTypeVariantView::Error(e) => {
                // IX-83: the server's refusal of a push for its device comes before any RDMA
                // message, so a push on the RDMA path is never refused with that code.
                let code = e.error_code().raw();
                if from == Role::Server
                    && let Some(s) = self.streams.get(&id)
                    && s.kind == Kind::Push
                    && let State::Transfer(Transfer {
                        path: Path::Rdma { .. },
                        ..
                    }) = s.state
                    && Rule::Ix83.answer().is_some_and(|(_, c)| c == code)
                {
                    return Err(Error::new(
                        Rule::Ix83,
                        e.error_code_at(),
                        format!(
                            "error code {code:#04x} refuses a push whose RDMA handshake began: the device is refused before any RDMA message"
                        ),
                    ));
                }
                // IX-87: the stream ends, whoever sent it; on no open stream it changes nothing.
                self.end_stream(id);
                self.errored.insert(id);
                return Ok(Effect::Ended);
            }
            MessageTypeVariantView::TensorRequest(r) => {
                if self.streams.contains_key(&id) {
                    return Err(out_of_place(&format!(
                        "a TENSOR_REQUEST on stream {id}, which is open"
                    )));
                }
                self.errored.remove(&id);
                // RES-70: shards only when the request and the server's HELLO both allow them.
                let parallel = r.request_flags().has(RequestFlags::PARALLEL_OK)
                    && self
                        .server_hello()
                        .capability_flags
                        .has(CapabilityFlags::PARALLEL_STREAMS);
                let kind = Kind::Request {
                    device: r.preferred_device().raw(),
                    offer: parallel.then(|| self.join_offer(r.bytes())),
                };
                self.open(id, kind, State::AwaitDescriptor);
                return Ok(Effect::None);
            }
            MessageTypeVariantView::TensorPut(p) => {
                if self.streams.contains_key(&id) {
                    return Err(out_of_place(&format!(
                        "a TENSOR_PUT on stream {id}, which is open"
                    )));
                }
                let d = p.descriptor();
                if let LayoutVariantView::Composite(_) = d.layout_fields() {
                    return Err(Error::new(
                        Rule::Msg13,
                        d.offset(),
                        "a push carries one tensor; this descriptor is a composite head (RES-67)",
                    ));
                }
                check_total(&d, p.total_data_bytes(), p.total_data_bytes_at())?;
                let alignment = check_transfer_alignment(&d)?;
                self.errored.remove(&id);
                self.open(
                    id,
                    Kind::Push,
                    State::Transfer(Transfer::new(p.total_data_bytes(), alignment)),
                );
                return Ok(Effect::None);
            }
            _ => {}
        }
        let errored = self.errored.contains(&id);
        let Some(s) = self.streams.get(&id) else {
            return Err(if errored {
                Error::new(
                    Rule::Ord15,
                    at,
                    format!("a message on stream {id} after the ERROR that ended it"),
                )
            } else {
                out_of_place(&format!(
                    "a message on stream {id}, where no exchange is open"
                ))
            });
        };
        let (kind, state) = (s.kind, s.state);
        let sender = kind.data_sender();
        // A source's or destination's message, from the other side of this exchange.
        if let Some(t) = known
            && !sends(t, from, Some(kind))
        {
            return Err(wrong_side(t));
        }
        match (payload, state) {
            (MessageTypeVariantView::TensorDescriptor(p), State::AwaitDescriptor) => {
                let Kind::Request { device, offer } = kind else {
                    unreachable!("only a request waits for a descriptor");
                };
                let d = p.descriptor();
                let total = p.total_data_bytes();
                if let LayoutVariantView::Composite(_) = d.layout_fields()
                    && total != 0
                {
                    return Err(Error::new(
                        Rule::Ix50,
                        p.total_data_bytes_at(),
                        format!("a composite head is sent with total_data_bytes 0, not {total}"),
                    ));
                }
                check_total(&d, total, p.total_data_bytes_at())?;
                if offer.is_none() && (p.shard_index() != 0 || p.total_shards() != 1) {
                    return Err(Error::new(
                        Rule::Ix45,
                        p.shard_index_at(),
                        format!(
                            "shard {} of {} answers a request without PARALLEL_OK: it is shard 0 of 1",
                            p.shard_index(),
                            p.total_shards()
                        ),
                    ));
                }
                if p.shard_index() >= p.total_shards() {
                    return Err(Error::new(
                        Rule::Ix64,
                        p.shard_index_at(),
                        format!(
                            "shard_index {} is not below total_shards {}",
                            p.shard_index(),
                            p.total_shards()
                        ),
                    ));
                }
                self.check_placement(&d, device)?;
                let alignment = check_transfer_alignment(&d)?;
                // A parallel answer's first tensor is its shard; later ones are its members.
                let shard = match offer {
                    Some(o) if self.streams[&id].tensors == 0 => Some((o, self.check_shard(o, p)?)),
                    _ => None,
                };
                let s = self
                    .streams
                    .get_mut(&id)
                    .expect("the stream was found above");
                if s.tracker.binds(&d) {
                    let mut ctx = Ctx::new(&self.config.reader);
                    let name = format!("stream {id} tensor #{}", s.tensors);
                    s.tracker.push(s.tensors, &name, &d, &mut ctx)?;
                }
                s.tensors += 1;
                s.state = State::Transfer(Transfer::new(total, alignment));
                if let Some((o, sharding)) = shard {
                    self.take_shard(o, sharding);
                }
                Ok(Effect::None)
            }
            (MessageTypeVariantView::TensorData(_), State::AwaitDescriptor) => Err(Error::new(
                Rule::Ord4,
                at,
                "a TENSOR_DATA frame before its tensor's TENSOR_DESCRIPTOR",
            )),
            (MessageTypeVariantView::TensorData(f), State::Transfer(mut t)) => {
                let len = f.data().len() as u64;
                let offset = f.byte_offset_in_buffer();
                let at_offset = f.byte_offset_in_buffer_at();
                if let Path::Rdma { .. } = t.path {
                    return Err(Error::new(
                        Rule::Ord10,
                        at,
                        "a TENSOR_DATA frame on the RDMA path, which replaces the frames",
                    ));
                }
                if t.total == 0 {
                    return Err(Error::new(
                        Rule::Ord3,
                        at,
                        "a TENSOR_DATA frame for a tensor of total_data_bytes 0",
                    ));
                }
                if offset != t.next {
                    return Err(Error::new(
                        Rule::Ord5,
                        at_offset,
                        format!(
                            "the frame starts at byte {offset}; the tensor's bytes continue at {}",
                            t.next
                        ),
                    ));
                }
                let end = t.next.checked_add(len).filter(|&e| e <= t.total).ok_or_else(|| {
                    Error::new(
                        Rule::Ord6,
                        at_offset,
                        format!(
                            "the frame's {len} bytes at {offset} run past the tensor's {} bytes",
                            t.total
                        ),
                    )
                })?;
                t.next = end;
                t.frames += 1;
                t.path = Path::Frames;
                self.set_state(id, State::Transfer(t));
                Ok(Effect::None)
            }
            (MessageTypeVariantView::TensorDataEnd, State::AwaitDescriptor) => Err(Error::new(
                Rule::Ord1,
                at,
                "a TENSOR_DATA_END before its tensor's TENSOR_DESCRIPTOR",
            )),
            (MessageTypeVariantView::TensorDataEnd, State::Transfer(t)) => {
                match t.path {
                    Path::Rdma { ready: false, .. } => {
                        return Err(Error::new(
                            Rule::Ord11,
                            at,
                            "a TENSOR_DATA_END before the destination's RDMA_READY",
                        ));
                    }
                    Path::Open if t.total > 0 => {
                        return Err(Error::new(
                            Rule::Ord2,
                            at,
                            format!("no TENSOR_DATA frame for a tensor of {} bytes", t.total),
                        ));
                    }
                    Path::Frames if t.next != t.total => {
                        return Err(Error::new(
                            Rule::Ord6,
                            at,
                            format!(
                                "the frames carried {} of the tensor's {} bytes",
                                t.next, t.total
                            ),
                        ));
                    }
                    _ => {}
                }
                match kind {
                    Kind::Push => {
                        self.set_state(id, State::AwaitAck);
                        Ok(Effect::None)
                    }
                    Kind::Request { .. } => {
                        let s = self
                            .streams
                            .get_mut(&id)
                            .expect("the stream was found above");
                        if s.tracker.depth() > 0 {
                            s.state = State::AwaitDescriptor;
                            Ok(Effect::None)
                        } else {
                            self.end_stream(id);
                            Ok(Effect::Completed)
                        }
                    }
                }
            }
            (MessageTypeVariantView::TensorPutAck, State::AwaitAck) => {
                self.end_stream(id);
                Ok(Effect::Completed)
            }
            (MessageTypeVariantView::TensorPutAck, State::Transfer(_)) => Err(Error::new(
                Rule::Ix81,
                at,
                "a TENSOR_PUT_ACK before the pushed tensor's TENSOR_DATA_END",
            )),
            (MessageTypeVariantView::RdmaRegister(_), State::AwaitDescriptor) if from == sender => {
                Err(Error::new(
                    Rule::Ix68,
                    at,
                    "an RDMA_REGISTER before its tensor's TENSOR_DESCRIPTOR",
                ))
            }
            (MessageTypeVariantView::RdmaRegister(r), State::Transfer(mut t)) => {
                let source = from == sender;
                match (source, t.path) {
                    (true, Path::Open) => {
                        if !self.both(CapabilityFlags::RDMA_DATA_PLANE) {
                            return Err(Error::new(
                                Rule::Ix66,
                                at,
                                "RDMA_REGISTER without RDMA_DATA_PLANE in both HELLOs",
                            ));
                        }
                        if t.total == 0 {
                            return Err(Error::new(
                                Rule::Ix39,
                                at,
                                "a tensor of total_data_bytes 0 is followed by TENSOR_DATA_END, not an RDMA handshake",
                            ));
                        }
                        if let (Some(least), Some(min)) =
                            (t.alignment, MessageType::RdmaRegister.transfer_alignment())
                            && least < min
                        {
                            return Err(Error::new(
                                Rule::Ix92,
                                at,
                                format!(
                                    "the tensor goes by RDMA, and a non-empty buffer of its descriptor declares alignment {least}: the path's transfer_alignment is {min} (RES-81)"
                                ),
                            ));
                        }
                        t.path = Path::Rdma {
                            destination: false,
                            ready: false,
                        };
                    }
                    (
                        false,
                        Path::Rdma {
                            destination: false,
                            ready: false,
                        },
                    ) => {
                        if !self.both(CapabilityFlags::RDMA_GPUDIRECT) {
                            return Err(Error::new(
                                Rule::Ix73,
                                at,
                                "a destination RDMA_REGISTER without RDMA_GPUDIRECT in both HELLOs",
                            ));
                        }
                        t.path = Path::Rdma {
                            destination: true,
                            ready: false,
                        };
                    }
                    (false, Path::Rdma { .. }) => {
                        return Err(Error::new(
                            Rule::Ix74,
                            at,
                            "a destination RDMA_REGISTER goes once, after the source's and before RDMA_READY",
                        ));
                    }
                    (_, Path::Frames) => {
                        return Err(Error::new(
                            Rule::Ord10,
                            at,
                            "an RDMA_REGISTER after the tensor's frames began",
                        ));
                    }
                    (true, Path::Rdma { .. }) | (false, Path::Open) => {
                        return Err(Error::new(
                            Rule::Ord11,
                            at,
                            "an RDMA_REGISTER out of the handshake's order: source, destination, RDMA_READY",
                        ));
                    }
                }
                if r.length() != t.total {
                    return Err(Error::new(
                        Rule::Ix70,
                        r.length_at(),
                        format!(
                            "the region is {} bytes; the tensor's total_data_bytes is {}",
                            r.length(),
                            t.total
                        ),
                    ));
                }
                self.set_state(id, State::Transfer(t));
                Ok(Effect::None)
            }
            (MessageTypeVariantView::RdmaReady, State::Transfer(mut t)) => match t.path {
                Path::Rdma {
                    destination,
                    ready: false,
                } => {
                    t.path = Path::Rdma {
                        destination,
                        ready: true,
                    };
                    self.set_state(id, State::Transfer(t));
                    Ok(Effect::None)
                }
                Path::Open | Path::Frames | Path::Rdma { ready: true, .. } => Err(Error::new(
                    Rule::Ord11,
                    at,
                    "an RDMA_READY that follows no source RDMA_REGISTER, or a second one",
                )),
            },
            _ => Err(out_of_place(&format!(
                "a {} from the {} where stream {id} does not expect it",
                message_name(payload),
                side(from)
            ))),
        }
    }

    fn open(&mut self, id: u32, kind: Kind, state: State) {
        self.streams.insert(
            id,
            Stream {
                kind,
                state,
                tracker: Tracker::default(),
                tensors: 0,
            },
        );
    }

    fn set_state(&mut self, id: u32, state: State) {
        if let Some(s) = self.streams.get_mut(&id) {
            s.state = state;
        }
    }

    /// The stream ends: it leaves its parallel offer, which ends with its last stream.
    fn end_stream(&mut self, id: u32) -> Option<Stream> {
        let s = self.streams.remove(&id)?;
        if let Kind::Request { offer: Some(o), .. } = s.kind
            && let Some(offer) = self.offers.get_mut(&o)
        {
            offer.open -= 1;
            if offer.open == 0
                && let Some(key) = self.offers.remove(&o).and_then(|x| x.request)
            {
                self.joinable.remove(&key);
            }
        }
        Some(s)
    }

    /// The parallel offer a `PARALLEL_OK` request of these bytes joins (RES-70): the open
    /// offer of the same request no shard has answered yet, else a new one.
    fn join_offer(&mut self, request: &[u8]) -> u64 {
        if let Some(&o) = self.joinable.get(request)
            && let Some(offer) = self.offers.get_mut(&o)
        {
            offer.offered += 1;
            offer.open += 1;
            return o;
        }
        let o = self.next_offer;
        self.next_offer += 1;
        self.offers.insert(
            o,
            Offer {
                request: Some(request.to_vec()),
                offered: 1,
                open: 1,
                sharding: None,
            },
        );
        self.joinable.insert(request.to_vec(), o);
        o
    }

    /// A parallel answer's shard against the shards of its offer so far: one stream per
    /// shard (ORD-9, IX-59), a shard section when there are several (IX-60), one parent,
    /// element type and layout (IX-61, RES-71), one shard count (IX-64), and once the last
    /// shard's descriptor arrived (IX-63), boxes that cover the parent exactly (IX-62). Changes
    /// nothing: the shard is [`Connection::take_shard`]'s to keep.
    fn check_shard(&self, o: u64, p: &TensorDescriptorPayloadView<'_>) -> Result<Shard, Error> {
        let offer = &self.offers[&o];
        let d = p.descriptor();
        let (index, total) = (p.shard_index(), p.total_shards());
        if u64::from(total) > offer.offered {
            return Err(Error::new(
                Rule::Ix59,
                p.total_shards_at(),
                format!(
                    "{total} shards answer a request offered on {} stream(s): each shard goes on a stream of its own",
                    offer.offered
                ),
            ));
        }
        let section = d.shard();
        if total > 1 && section.is_none() {
            return Err(Error::new(
                Rule::Ix60,
                d.offset(),
                format!("shard {index} of {total} carries no shard section"),
            ));
        }
        let shape: Vec<u64> = d.shape().iter().map(Integer::to).collect();
        let (start, parent) = match &section {
            Some(sh) => (
                sh.shard_offset().iter().map(Integer::to).collect(),
                sh.parent_shape().iter().map(Integer::to).collect(),
            ),
            None => (vec![0; shape.len()], shape.clone()),
        };
        let shard = Shard {
            index,
            start,
            shape,
            sharding: Sharding {
                total,
                parent,
                type_tag: d.fixed_header().type_tag().raw(),
                layout_tag: d.fixed_header().layout_tag().raw(),
                indices: HashSet::new(),
                boxes: Vec::new(),
            },
        };
        let Some(first) = &offer.sharding else {
            return shard.check_cover(None, d.offset()).map(|()| shard);
        };
        let this = &shard.sharding;
        if first.total != total {
            return Err(Error::new(
                Rule::Ix64,
                p.total_shards_at(),
                format!(
                    "shard {index} is one of {total}; the answer's first shard said {}",
                    first.total
                ),
            ));
        }
        if (&first.parent, first.type_tag, first.layout_tag)
            != (&this.parent, this.type_tag, this.layout_tag)
        {
            return Err(Error::new(
                Rule::Ix61,
                d.offset(),
                format!(
                    "shard {index} is of parent {:?}, type {:#04x}, layout {:#04x}; the answer's first shard is of parent {:?}, type {:#04x}, layout {:#04x}",
                    this.parent,
                    this.type_tag,
                    this.layout_tag,
                    first.parent,
                    first.type_tag,
                    first.layout_tag
                ),
            ));
        }
        if first.indices.contains(&index) {
            return Err(Error::new(
                Rule::Ord9,
                p.shard_index_at(),
                format!("shard {index} of {total} arrived on a second stream"),
            ));
        }
        shard.check_cover(Some(first), d.offset()).map(|()| shard)
    }

    /// Keeps a shard [`Connection::check_shard`] accepted: the offer takes no more streams.
    fn take_shard(&mut self, o: u64, shard: Shard) {
        if let Some(offer) = self.offers.get_mut(&o) {
            if let Some(key) = offer.request.take() {
                self.joinable.remove(&key);
            }
            let sharding = offer.sharding.get_or_insert(shard.sharding);
            sharding.indices.insert(shard.index);
            sharding.boxes.push((shard.start, shard.shape));
        }
    }

    /// IX-32, IX-33, IX-36, IX-14 (RES-80): an answer's buffers are on the device the client
    /// asked for, or on CPU as the one fallback §10.1 allows (the preferred device one the
    /// server advertises, CPU one the client lists), in a memory class the client listed
    /// (none listed: STANDARD only).
    fn check_placement(&self, d: &DescriptorView<'_>, preferred: u32) -> Result<(), Error> {
        let client = self.client_hello();
        let lists = |devices: &[u8], tag: u32| devices.iter().any(|&t| u32::from(t) == tag);
        let cpu = Device::Cpu.value();
        for h in d.buffer_table().buffers().iter() {
            let device = h.device_tag().raw();
            let fallback = if device == preferred {
                None
            } else if device != cpu {
                Some((Rule::Ix32, "the only fallback is to CPU (IX-33)"))
            } else if !lists(&self.server_hello().supported_devices, preferred) {
                Some((
                    Rule::Ix32,
                    "the server does not advertise the preferred device, so it answers DEVICE_UNAVAILABLE",
                ))
            } else if !lists(&client.supported_devices, cpu) {
                Some((Rule::Ix33, "the client does not list CPU in its HELLO"))
            } else {
                None
            };
            if let Some((rule, why)) = fallback {
                return Err(Error::new(
                    rule,
                    h.device_tag_at(),
                    format!(
                        "the buffers are on device {device:#04x}, the client asked for {preferred:#04x}: {why}"
                    ),
                ));
            }
            let class = h.memory_class().raw();
            let listed = if client.supported_memory_classes.is_empty() {
                class == MemoryClass::DEFAULT.value()
            } else {
                client
                    .supported_memory_classes
                    .iter()
                    .any(|&c| u32::from(c) == class)
            };
            if !listed {
                return Err(Error::new(
                    Rule::Ix36,
                    h.memory_class_at(),
                    format!("memory class {class:#04x} is not among the client's (IX-14)"),
                ));
            }
        }
        Ok(())
    }
}

impl Transfer {
    fn new(total: u64, alignment: Option<u64>) -> Transfer {
        Transfer {
            total,
            alignment,
            next: 0,
            frames: 0,
            path: Path::Open,
        }
    }
}

/// IX-92 (RES-81): every non-empty buffer on a device with a `transfer_alignment` declares at
/// least that alignment. Gives the least alignment the non-empty buffers declare, for the
/// transfer path's own minimum.
fn check_transfer_alignment(d: &DescriptorView<'_>) -> Result<Option<u64>, Error> {
    let mut least = None;
    for h in d.buffer_table().buffers().iter() {
        if h.byte_size().to::<u64>() == 0 {
            continue;
        }
        let alignment: u64 = h.alignment().to();
        if let TagClass::Known(device) = Device::classify(h.device_tag().raw())
            && let Some(min) = device.transfer_alignment()
            && alignment < min
        {
            return Err(Error::new(
                Rule::Ix92,
                h.alignment_at(),
                format!(
                    "a non-empty buffer on {} declares alignment {alignment}: the device's transfer_alignment is {min} (RES-81)",
                    device.name()
                ),
            ));
        }
        least = Some(least.map_or(alignment, |l: u64| l.min(alignment)));
    }
    Ok(least)
}

/// A request's answer begins with the tensor's `TENSOR_DESCRIPTOR`, shard 0 of 1.
fn answer_head(descriptor: Descriptor, data: &[u8]) -> MessageTypeVariant {
    MessageTypeVariant::TensorDescriptor(TensorDescriptorPayload::new(
        descriptor,
        data.len() as u64,
        0,
        1,
    ))
}

/// A push begins with `TENSOR_PUT`, the descriptor's length stated.
fn push_head(key: String, descriptor: Descriptor, data: &[u8]) -> MessageTypeVariant {
    let length = u32::try_from(descriptor.encoded_len()).unwrap_or(u32::MAX);
    MessageTypeVariant::TensorPut(TensorPut::new(key, length, descriptor, data.len() as u64))
}

/// One whole tensor's messages after `head`: `data` in frames of at most `frame` bytes (at
/// least one), then `TENSOR_DATA_END`.
pub(crate) fn tensor_messages(
    head: MessageTypeVariant,
    data: &[u8],
    frame: usize,
) -> impl Iterator<Item = MessageTypeVariant> + '_ {
    let frame = frame.max(1);
    std::iter::once(head)
        .chain(data.chunks(frame).enumerate().map(move |(k, chunk)| {
            MessageTypeVariant::TensorData(TensorData::new((k * frame) as u64, chunk.to_vec()))
        }))
        .chain(std::iter::once(MessageTypeVariant::TensorDataEnd))
}

/// MSG-11: `total_data_bytes` is the sum of the descriptor's buffers' `byte_size` (RES-62).
fn check_total(d: &DescriptorView<'_>, total: u64, total_at: u64) -> Result<(), Error> {
    let sum = d
        .buffer_table()
        .buffers()
        .iter()
        .try_fold(0u64, |s, h| s.checked_add(h.byte_size().to::<u64>()));
    if sum != Some(total) {
        let sum = sum.map_or("more than 2^64".to_string(), |s| s.to_string());
        return Err(Error::new(
            Rule::Msg11,
            total_at,
            format!(
                "total_data_bytes is {total}; the descriptor at byte {} has {sum} bytes of buffers",
                d.offset()
            ),
        ));
    }
    Ok(())
}

/// The message's type, when the tables allocate it (not a private or unknown one).
fn known_type(p: &MessageTypeVariantView<'_>) -> Option<MessageType> {
    match MessageType::classify(p.tag()) {
        TagClass::Known(t) => Some(t),
        _ => None,
    }
}

/// Whether `from` may send a message of type `t`: its `sender` in the tables. `source` and
/// `destination` are relative to the stream's exchange (`kind`: whoever sends the tensor's
/// bytes is its source); without one, either side may be.
fn sends(t: MessageType, from: Role, kind: Option<Kind>) -> bool {
    match t.sender() {
        MessageTypeSender::Client => from == Role::Client,
        MessageTypeSender::Server => from == Role::Server,
        MessageTypeSender::Either => true,
        MessageTypeSender::Source => kind.is_none_or(|k| from == k.data_sender()),
        MessageTypeSender::Destination => kind.is_none_or(|k| from != k.data_sender()),
    }
}

/// A side, in a message.
fn side(r: Role) -> &'static str {
    match r {
        Role::Client => "client",
        Role::Server => "server",
    }
}

/// The message type's name in the tables, for messages.
fn message_name(p: &MessageTypeVariantView<'_>) -> &'static str {
    match MessageType::classify(p.tag()) {
        TagClass::Known(t) => t.name(),
        _ => "private or unknown message",
    }
}
