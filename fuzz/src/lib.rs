//! The fuzz harness: what each fuzz target does with one input, the allocation budget every
//! decoder keeps, the seeds derived from `tests/corpus` and `spec/`, and the dictionary
//! derived from the spec's tables. The cargo-fuzz targets in `fuzz_targets/` are one line
//! each over these functions, and the workspace's test binary (`tests/it/`) includes this very
//! file to replay the corpora and regression inputs through the same code on stable Rust.
//!
//! Every function here panics exactly when it finds a bug: a decoder that panics, hangs,
//! allocates more than a small multiple of its input, rejects with a malformed error, or
//! accepts a descriptor it does not re-encode byte for byte.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use hurray_codegen::amend::{AxisNames, classify, rules, snapshot};
use hurray_codegen::diag::Diagnostics;
use hurray_codegen::model::{CheckKind, Spec};
use hurray_codegen::source::SourceMap;

// ---------------------------------------------------------------------------------------
// Allocation accounting.

thread_local! {
    /// The bytes this thread allocated and has not freed, and their peak since the last
    /// measurement began. Each thread counts its own, so a measurement sees only the code it
    /// runs, whatever other threads of the process (other tests of a test binary) do. Signed:
    /// a thread may free what another allocated. Constant-initialised cells without a
    /// destructor, so the allocator can reach them at any time without allocating.
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// A global allocator that counts each thread's live bytes and their peak; install it with
/// `#[global_allocator]` in each binary that runs the harness (the fuzz targets, the
/// workspace's test binary).
#[derive(Debug)]
pub struct Counting;

/// How many measurements ([`peak_of`]) are running, on any thread. With none, nothing is
/// counted: a measurement reads only the bytes allocated and freed while it runs, relative to
/// where it began, so what happens between measurements never matters, and the test binary's
/// long tests that measure nothing do not pay for the thread-local bookkeeping.
static MEASURING: AtomicUsize = AtomicUsize::new(0);

/// Count `delta` bytes more (or fewer) live on the calling thread.
fn count(delta: isize) {
    if MEASURING.load(Ordering::Relaxed) == 0 {
        return;
    }
    // A thread being torn down may still allocate or free; its counts no longer matter.
    let _ = CURRENT.try_with(|c| {
        let now = c.get().wrapping_add(delta);
        c.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

/// A layout's size as a count (a layout's size never exceeds `isize::MAX`).
fn bytes(n: usize) -> isize {
    n as isize
}

// SAFETY: every call is forwarded to `System` unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(bytes(l.size()));
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(-bytes(l.size()));
        // SAFETY: `p` came from `System.alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count(bytes(l.size()));
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        count(bytes(new).wrapping_sub(bytes(l.size())));
        // SAFETY: `p` came from `System` with layout `l`.
        unsafe { System.realloc(p, l, new) }
    }
}

/// Run `f` on the calling thread: its result, and the peak of the bytes the thread held
/// during it beyond those it held before. Without [`Counting`] installed the peak is 0.
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    /// Ends the measurement however `f` returns (a panic included).
    struct Measuring;
    impl Drop for Measuring {
        fn drop(&mut self) {
            MEASURING.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let measuring = Measuring;
    MEASURING.fetch_add(1, Ordering::SeqCst);
    let out = f();
    drop(measuring);
    let peak = PEAK.with(Cell::get).saturating_sub(base);
    (out, usize::try_from(peak).unwrap_or(0))
}

/// What a decoder may allocate for an input of `len` bytes: a small multiple of it, plus a
/// constant for its own tables (the bound of `tests/it/robustness.rs`).
pub fn budget(len: usize) -> usize {
    16 * len + 256 * 1024
}

/// What owned copies of a decoded input may allocate beside its views (`owned()`, the
/// contract value): an owned value holds one Rust value (32 bytes for a KV value, the same for
/// a contract `Value`) per wire entry, and a KV entry can be one byte; the owned copy and the
/// contract value are alive together. The decoder's own bound is [`budget`].
pub fn owned_budget(len: usize) -> usize {
    128 * len + 256 * 1024
}

/// Run `f` and assert that it allocates at most [`budget`]`(len)` bytes more than it found.
/// Without the counting allocator installed the peak stays 0 and nothing is asserted.
fn within_budget<T>(len: usize, what: &str, f: impl FnOnce() -> T) -> T {
    measured(len, what, budget(len), f)
}

/// [`within_budget`] for owned copies: [`owned_budget`].
fn within_owned_budget<T>(len: usize, what: &str, f: impl FnOnce() -> T) -> T {
    measured(len, what, owned_budget(len), f)
}

fn measured<T>(len: usize, what: &str, limit: usize, f: impl FnOnce() -> T) -> T {
    let (out, peak) = peak_of(f);
    assert!(
        peak <= limit,
        "{what}: {peak} bytes allocated for a {len}-byte input (budget {limit})"
    );
    out
}

// ---------------------------------------------------------------------------------------
// The targets.

/// The fuzz targets, by the name of their binary and corpus directory.
pub const TARGETS: &[&str] = &[
    "descriptor_strict",
    "descriptor_permissive",
    "descriptor_pinned",
    "file",
    "quantization",
    "spec_load",
    "amendment",
    "encode_json",
    "round_trip",
    "stream",
    "message",
    "protocol",
];

/// Run the target named `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "descriptor_strict" => descriptor_strict(data),
        "descriptor_permissive" => descriptor_permissive(data),
        "descriptor_pinned" => descriptor_pinned(data),
        "file" => file(data),
        "quantization" => quantization(data),
        "spec_load" => spec_load(data),
        "amendment" => amendment(data),
        "encode_json" => encode_json(data),
        "round_trip" => round_trip(data),
        "stream" => stream(data),
        "message" => message(data),
        "protocol" => protocol(data),
        other => panic!("no fuzz target `{other}`"),
    }
}

/// An error is a value with a stable kebab-case code and an offset inside the input (a
/// descriptor's end may be reported just past it).
fn well_formed(code: &str, offset: u64, len: usize, detail: &str) {
    assert!(
        !code.is_empty()
            && code
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
        "malformed error code `{code}`"
    );
    assert!(
        offset <= len as u64 + 64,
        "error offset {offset} past a {len}-byte input: {detail}"
    );
}

/// The descriptor read, instantiated for a runtime crate (the workspace's, or the newer
/// `hurray-runtime-matrix` build acting as an older reader).
macro_rules! descriptor_harness {
    ($name:ident, $rt:ident) => {
        /// Read `data` as a descriptor and its trailing bytes as its buffers: structure,
        /// semantic rules, re-encoding, the contract value, and the data checks.
        fn $name(data: &[u8], config: &$rt::ReaderConfig) {
            use $rt::descriptor;
            within_budget(data.len(), "descriptor", || {
                match descriptor::read_prefix(data, 0, config) {
                    Ok((mut d, len)) => {
                        let owned = d.view().owned();
                        let again = owned.to_bytes();
                        if !config.is_permissive() && d.view().skipped().is_empty() {
                            // A strict reader at a version it knows keeps nothing back.
                            assert_eq!(
                                again,
                                &data[..len],
                                "an accepted descriptor does not re-encode byte for byte"
                            );
                        }
                        let _ = $rt::contract::descriptor_value(&owned);
                        // The bytes after the descriptor are its buffers, in table order.
                        let rest = &data[len..];
                        let sizes: Vec<u64> = d
                            .view()
                            .buffer_table()
                            .buffers()
                            .iter()
                            .map(|b| b.byte_size())
                            .collect();
                        let mut slices = Vec::with_capacity(sizes.len());
                        let mut offsets = Vec::with_capacity(sizes.len());
                        let mut at = 0usize;
                        for s in &sizes {
                            let end = usize::try_from(*s)
                                .ok()
                                .and_then(|s| at.checked_add(s))
                                .filter(|end| *end <= rest.len());
                            let Some(end) = end else { break };
                            slices.push(&rest[at..end]);
                            offsets.push((len + at) as u64);
                            at = end;
                        }
                        if slices.len() == sizes.len() {
                            if let Err(e) =
                                descriptor::check_data(&mut d, &slices, &offsets, config)
                            {
                                well_formed(e.code(), e.offset(), data.len(), e.detail());
                            }
                        }
                    }
                    Err(e) => well_formed(e.code(), e.offset(), data.len(), e.detail()),
                }
                if let Err(e) = descriptor::read(data, config) {
                    well_formed(e.code(), e.offset(), data.len(), e.detail());
                }
            });
        }
    };
}

descriptor_harness!(descriptor_current, hurray_runtime);
descriptor_harness!(descriptor_matrix, hurray_runtime_matrix);

/// `descriptor_strict`: the default reader.
pub fn descriptor_strict(data: &[u8]) {
    descriptor_current(data, &hurray_runtime::ReaderConfig::new());
}

/// `descriptor_permissive`: RES-8, RES-9 acceptances.
pub fn descriptor_permissive(data: &[u8]) {
    descriptor_current(data, &hurray_runtime::ReaderConfig::new().permissive(true));
}

/// `descriptor_pinned`: the runtime generated from the amended spec of the compatibility
/// matrix (newer minors on every axis), pinned to every axis's initial version, strict and
/// permissive: a newer build acting as an older reader (CD1, CD2, R4).
pub fn descriptor_pinned(data: &[u8]) {
    use hurray_runtime_matrix::{ReaderConfig, axes::Axis};
    let mut pinned = ReaderConfig::new();
    for a in Axis::ALL {
        pinned = pinned
            .with_version(*a, a.initial())
            .expect("every axis reads its initial version");
    }
    descriptor_matrix(data, &pinned);
    descriptor_matrix(data, &pinned.permissive(true));
}

/// `file`: open a file container, read every tensor and the KV section, find every tensor
/// by name, and build its contract value; strict and permissive.
pub fn file(data: &[u8]) {
    use hurray_runtime::{ReaderConfig, contract, file};
    for config in [ReaderConfig::new(), ReaderConfig::new().permissive(true)] {
        let read = within_budget(data.len(), "file", || match file::read(data, &config) {
            Ok(f) => {
                for (i, t) in f.tensors().enumerate() {
                    let t = t.expect("read checked every tensor");
                    let found = f
                        .tensor(t.name())
                        .expect("a checked tensor stays checked")
                        .expect("every indexed name is found");
                    assert_eq!(found.descriptor_offset(), t.descriptor_offset());
                    assert_eq!(found.index(), i);
                }
                if let Some(kv) = f.kv() {
                    for e in kv.entries() {
                        let _ = (e.key(), e.value());
                    }
                }
                Some(f)
            }
            Err(e) => {
                well_formed(e.code(), e.offset(), data.len(), e.detail());
                None
            }
        });
        if let Some(f) = read {
            within_owned_budget(data.len(), "file, owned", || {
                for t in f.tensors() {
                    let _ = t
                        .expect("read checked every tensor")
                        .descriptor()
                        .view()
                        .owned();
                }
                if let Some(kv) = f.kv() {
                    for e in kv.entries() {
                        let _ = e.value().owned();
                    }
                }
                let _ = contract::file_value(&f);
            });
        }
    }
}

/// `message`: read a captured session of the interchange protocol (messages back to back),
/// strict and permissive; every message a strict reader accepts is encoded again, from its
/// owned form, to the same bytes (decode → owned → encode is the identity).
pub fn message(data: &[u8]) {
    use hurray_runtime::ReaderConfig;
    use hurray_runtime::message;
    for config in [ReaderConfig::new(), ReaderConfig::new().permissive(true)] {
        within_budget(data.len(), "message", || {
            let mut total = 0;
            for m in message::session(data, &config) {
                match m {
                    Ok(m) => {
                        total += m.bytes().len();
                        if !config.is_permissive() {
                            let mut out = Vec::new();
                            m.view().owned().encode(&mut out);
                            assert_eq!(
                                out,
                                m.bytes(),
                                "a message a strict reader accepts encodes back"
                            );
                        }
                    }
                    Err(e) => {
                        well_formed(e.code(), e.offset(), data.len(), e.detail());
                        return;
                    }
                }
            }
            assert_eq!(total, data.len(), "a session is its messages, back to back");
        });
    }
    // `inspect --as session`: every byte in one leaf range, in order, whatever the input.
    use hurray_runtime::inspect::{self, Collect, Kind};
    let mut sink = Collect::default();
    let report = inspect::session(data, &ReaderConfig::new(), &mut sink);
    let mut at = 0;
    for a in sink
        .annotations
        .iter()
        .filter(|a| a.kind != Kind::Structure)
    {
        assert_eq!(a.start, at, "the leaf ranges tile the session");
        at = a.end;
    }
    assert_eq!(
        at,
        data.len() as u64,
        "every byte of the session is in a range"
    );
    if let Some(e) = report.error {
        well_formed(e.code(), e.offset(), data.len(), e.detail());
    }
}

/// `protocol`: the interchange protocol's state machine fed a peer's bytes. The first byte
/// chooses the side (bit 0: a client, else a server) and the size of the pieces the rest
/// arrives in (bits 1–7); the harness makes the HELLO exchange first, both HELLOs with every
/// capability (so the RDMA and parallel paths are open), and a client has asked for a tensor
/// on streams 1 and 3, parallel shards allowed. No input panics it, every rejection is well
/// formed, and what it keeps between pieces (the events and answers an application takes as
/// they come) stays within the budget.
pub fn protocol(data: &[u8]) {
    use hurray_runtime::flags::{CapabilityFlags, RequestFlags};
    use hurray_runtime::protocol::{Config, Connection, Event};
    use hurray_runtime::structures::{InterchangeMessage, MessageTypeVariant, TensorRequest};
    use hurray_runtime::tags::Device;
    use hurray_runtime::wire::TagValue;
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let client = first & 1 == 1;
    let piece = 1 + usize::from(first >> 1) * 11;
    within_budget(data.len(), "protocol", || {
        let mut hello = Config::hello(1 << 20);
        hello.capability_flags = CapabilityFlags(CapabilityFlags::ALLOCATED_MASK);
        let (mut c, peer) = if client {
            let peer = MessageTypeVariant::ServerHello(hello.clone());
            (Connection::new(Config::client(hello)), peer)
        } else {
            let peer = MessageTypeVariant::ClientHello(hello.clone());
            (Connection::new(Config::server(hello)), peer)
        };
        let peer = InterchangeMessage::new(TagValue::from_raw(peer.tag()), 1, peer).to_bytes();
        let _ = c.transmit();
        c.receive(&peer);
        if client {
            for stream in [1, 3] {
                let request = TensorRequest::new(
                    "w".into(),
                    vec![],
                    Device::Cpu.into(),
                    64,
                    RequestFlags::PARALLEL_OK,
                );
                c.send(stream, MessageTypeVariant::TensorRequest(request))
                    .expect("a client sends a request once connected");
            }
        }
        let len = peer.len() + rest.len();
        let drain = |c: &mut Connection| {
            let _ = c.transmit();
            while let Some(e) = c.poll_event() {
                if let Event::Rejected { error, .. } = e {
                    well_formed(error.code(), error.offset(), len, error.detail());
                }
            }
        };
        drain(&mut c);
        for p in rest.chunks(piece) {
            c.receive(p);
            drain(&mut c);
        }
        c.close();
        drain(&mut c);
        assert!(c.is_closed(), "a closed connection says so");
    });
}

/// `stream`: read a canonical stream to its end, strict, permissive and as a stream that
/// crossed machines, a tensor at a time; every accepted stream is written again by the stream
/// writer, byte for byte (RES-51), and its tensors are where the reader said.
pub fn stream(data: &[u8]) {
    use hurray_runtime::ReaderConfig;
    use hurray_runtime::stream::{StreamError, StreamReader, StreamWriter};
    for config in [
        ReaderConfig::new(),
        ReaderConfig::new().permissive(true),
        ReaderConfig::new().network(true),
    ] {
        let read = within_budget(data.len(), "stream", || {
            let mut r = StreamReader::new(data, &config);
            let mut tensors = Vec::new();
            let end = loop {
                match r.next_tensor_with_data() {
                    Ok(Some(t)) => tensors.push(t),
                    Ok(None) => break r.finish().map(|_| ()),
                    Err(e) => break Err(e),
                }
            };
            match end {
                Ok(()) => Some(tensors),
                Err(StreamError::Invalid(e)) => {
                    well_formed(e.code(), e.offset(), data.len(), e.detail());
                    None
                }
                Err(e) => panic!("reading a slice cannot fail on I/O: {e}"),
            }
        });
        let Some(tensors) = read else { continue };
        if !config.is_permissive() {
            // A strict reader accepted it: the writer writes the same bytes from the same
            // tensors (a permissive read may accept what no writer writes).
            // A writer refuses only under an obligation of writers, which readers do not
            // check (EXT-5, BP-15, …), or what the reader accepted with a warning (a
            // statistic out of range, STA-6: writers refuse it, RES-35): then no stream is
            // compared.
            let mut w = StreamWriter::new(Vec::new());
            let mut refused = false;
            for (t, buffers) in &tensors {
                let d = t.descriptor_offset() as usize;
                let descriptor = &data[d..d + t.descriptor_length() as usize];
                let slices: Vec<&[u8]> = buffers.iter().map(Vec::as_slice).collect();
                if let Err(e) = w.write_tensor(descriptor, &slices) {
                    let rule = match &e {
                        hurray_runtime::writer::WriteError::Invalid(e) => e.rule(),
                        _ => None,
                    };
                    assert!(
                        rule.is_some_and(|r| r.enforced_by()
                            == hurray_runtime::rules::EnforcedBy::Writer
                            || t.warnings().iter().any(|w| w.rule == r)),
                        "the writer refuses a tensor a strict reader accepts, not under a writer obligation nor a warning the reader gave: {e}"
                    );
                    refused = true;
                    break;
                }
            }
            if !refused {
                assert_eq!(w.finish().expect("the stream closes"), data);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The JSON path of `hurray encode`.

/// What `hurray encode` does with a JSON text, up to the bytes it would write: the JSON
/// value, its `evolution` object, the contract value, the owned descriptor, its encoding, and
/// the permissive read-back that keeps `encode` from writing what a reader rejects. `None`
/// when any step refuses (with an error value, checked here for shape).
pub fn encode_once(text: &[u8]) -> Option<Vec<u8>> {
    use hurray_runtime::{ReaderConfig, contract, descriptor, json};
    let j: serde_json::Value = serde_json::from_slice(text).ok()?;
    let evolution = json::evolution_from_json(&j);
    let value = json::from_json(&j, "", &evolution);
    let owned = contract::descriptor_from_value(&value).ok()?;
    let bytes = owned.to_bytes();
    match descriptor::read(&bytes, &ReaderConfig::new().permissive(true)) {
        Ok(_) => Some(bytes),
        Err(e) => {
            well_formed(e.code(), e.offset(), bytes.len(), e.detail());
            None
        }
    }
}

/// What `hurray decode --json` prints for an accepted descriptor (read permissively, as
/// `encode` checks it).
fn decode_to_json(bytes: &[u8]) -> serde_json::Value {
    use hurray_runtime::{ReaderConfig, contract, descriptor, json};
    let checked = descriptor::read(bytes, &ReaderConfig::new().permissive(true))
        .expect("encode only returns what a permissive reader accepts");
    let value = contract::descriptor_value(&checked.view().owned());
    json::descriptor_json(&value, &[], true)
}

/// `encode_json`: arbitrary bytes as the JSON `hurray encode` reads. No step may panic or
/// exceed the allocation budget; what is accepted must round-trip: its encoding decodes to a
/// JSON text that encodes to the very same bytes and decodes to the very same JSON (the input
/// itself may differ from that fixed point, in key order, numbers written as floats, or a
/// stale `descriptor_length`, which `encode` recomputes).
pub fn encode_json(data: &[u8]) {
    within_budget(data.len(), "encode_json", || {
        let Some(bytes) = encode_once(data) else {
            return;
        };
        let decoded = decode_to_json(&bytes);
        let text = serde_json::to_vec(&decoded).expect("a JSON value serializes");
        let again = encode_once(&text).expect("the JSON of an accepted descriptor encodes");
        assert_eq!(
            again, bytes,
            "the decoded JSON of an encoded descriptor encodes to other bytes"
        );
        assert_eq!(
            decode_to_json(&again),
            decoded,
            "an encoded descriptor decodes to other JSON the second time"
        );
    });
}

// ---------------------------------------------------------------------------------------
// The structure-aware round trip.

/// A writer's refusal: a rule broken (never an I/O error, nothing is written to a device),
/// with a well-formed code and an offset inside the descriptor it would have written.
fn refusal(e: &hurray_runtime::writer::WriteError, len: usize) {
    use hurray_runtime::writer::WriteError;
    match e {
        WriteError::Invalid(e) => {
            assert!(
                e.rule().is_some() || e.limit().is_some(),
                "a writer refusal names no rule: {e}"
            );
            well_formed(e.code(), e.offset(), len, e.detail());
        }
        WriteError::Io(e) => panic!("finalize, which writes to no device, failed with I/O: {e}"),
    }
}

/// Two owned descriptors are the same value (compared as their debug text, so that a NaN
/// equals itself; the byte comparisons beside it see NaN payloads).
fn same(
    a: &hurray_runtime::structures::Descriptor,
    b: &hurray_runtime::structures::Descriptor,
) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

/// `round_trip`: the input is the choices of the `Arbitrary` impls generated from the spec
/// (the runtime's `arbitrary` feature), which draw an owned descriptor, mostly a valid one.
/// It is normalised (`writer::normalize`) and written (`writer::finalize`, which must write
/// exactly the normalised value's encoding, or refuse with a rule); what is written, read
/// strictly and permissively, must give back the normalised value and re-encode byte for
/// byte. A strict reader may refuse (with a well-formed error) what `finalize` accepts, as
/// `finalize` checks permissively; a permissive reader may not.
pub fn round_trip(data: &[u8]) {
    use arbitrary::{Arbitrary, Unstructured};
    use hurray_runtime::structures::Descriptor;
    use hurray_runtime::{ReaderConfig, descriptor, writer};
    let mut u = Unstructured::new(data);
    let Ok(drawn) = Descriptor::arbitrary(&mut u) else {
        return;
    };
    let mut normal = drawn.clone();
    if let Err(e) = writer::normalize(&mut normal) {
        refusal(&e, drawn.encoded_len());
        return;
    }
    let expected = normal.to_bytes();
    let bytes = match writer::finalize(drawn) {
        Ok(bytes) => bytes,
        Err(e) => {
            refusal(&e, expected.len());
            return;
        }
    };
    assert_eq!(
        bytes, expected,
        "finalize wrote other bytes than the normalised descriptor's encoding"
    );
    for (strict, config) in [
        (true, ReaderConfig::new()),
        (false, ReaderConfig::new().permissive(true)),
    ] {
        within_budget(bytes.len(), "round_trip read", || {
            match descriptor::read(&bytes, &config) {
                Ok(checked) => {
                    let back = checked.view().owned();
                    assert!(
                        same(&back, &normal),
                        "a written descriptor reads back as another value:\n wrote {normal:?}\n read  {back:?}"
                    );
                    assert_eq!(
                        back.to_bytes(),
                        bytes,
                        "a written descriptor read back does not re-encode byte for byte"
                    );
                }
                Err(e) if strict => well_formed(e.code(), e.offset(), bytes.len(), e.detail()),
                Err(e) => panic!("a permissive reader rejects what finalize wrote: {e}"),
            }
        });
    }
}

// ---------------------------------------------------------------------------------------
// Quantization payloads.

/// The repository root (the fuzz crate sits in `fuzz/`, the replay test at the root): from
/// cargo's `CARGO_MANIFEST_DIR` when it runs the replay test (a binary built in another
/// checkout sharing the target directory is reused with that checkout's compile-time path),
/// else the compile-time one.
pub fn root() -> PathBuf {
    let here = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    if here.join("spec").is_dir() {
        here
    } else {
        here.join("..")
    }
}

/// A quantized descriptor of the corpus whose payload a fuzz input replaces.
#[derive(Debug)]
struct Template {
    bytes: Vec<u8>,
    /// Offset of `quantization_length`; the payload follows it.
    section: usize,
    payload_len: usize,
    buffer_sizes: Vec<u64>,
}

/// Every valid quantized descriptor of `tests/corpus/valid` a default reader accepts, in
/// file-name order: at least one per scheme and storage type.
fn templates() -> &'static [Template] {
    static T: OnceLock<Vec<Template>> = OnceLock::new();
    T.get_or_init(|| {
        let dir = root().join("tests/corpus/valid");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        paths.sort();
        let config = hurray_runtime::ReaderConfig::new();
        paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "bin"))
            .filter_map(|p| std::fs::read(p).ok())
            .filter_map(|bytes| {
                let d = hurray_runtime::descriptor::read(&bytes, &config).ok()?;
                let q = d.view().quantization()?;
                let section = usize::try_from(q.offset()).ok()?;
                let payload_len = q.bytes().len().checked_sub(4)?;
                let buffer_sizes = d
                    .view()
                    .buffer_table()
                    .buffers()
                    .iter()
                    .map(|b| b.byte_size())
                    .collect();
                Some(Template {
                    section,
                    payload_len,
                    buffer_sizes,
                    bytes: bytes.clone(),
                })
            })
            .collect()
    })
}

/// The descriptor of template `which` with its scheme payload replaced by `payload`
/// (`quantization_length` and `descriptor_length` follow), and its buffers.
fn splice(which: usize, payload: &[u8]) -> Option<(Vec<u8>, Vec<u64>)> {
    let ts = templates();
    let t = ts.get(which % ts.len().max(1))?;
    let mut out = t.bytes[..t.section].to_vec();
    out.extend_from_slice(&u32::try_from(payload.len()).ok()?.to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&t.bytes[t.section + 4 + t.payload_len..]);
    let at = hurray_runtime::structures::FixedHeaderView::OFFSET_DESCRIPTOR_LENGTH;
    let len = u32::try_from(out.len()).ok()?;
    out.get_mut(at..at + 4)?.copy_from_slice(&len.to_le_bytes());
    Some((out, t.buffer_sizes.clone()))
}

/// `quantization`: byte 0 picks a quantized template descriptor, the rest is its scheme
/// payload (from the scheme tag on). The spliced descriptor is read strict and permissive,
/// its buffers filled with the payload's bytes over and over, so the parameter checks see
/// fuzzed values too.
pub fn quantization(data: &[u8]) {
    let Some((&which, payload)) = data.split_first() else {
        return;
    };
    let Some((mut bytes, sizes)) = splice(usize::from(which), payload) else {
        return;
    };
    // Buffers of the template's sizes, within a fixed cap.
    if sizes.iter().sum::<u64>() <= 1 << 16 {
        let fill: Vec<u8> = if payload.is_empty() {
            vec![0x3F]
        } else {
            payload.to_vec()
        };
        for s in sizes {
            bytes.extend(fill.iter().cycle().take(s as usize));
        }
    }
    descriptor_strict(&bytes);
    descriptor_permissive(&bytes);
}

/// Seeds of the `quantization` target: each template's own payload behind its index.
pub fn quantization_seeds() -> Vec<Vec<u8>> {
    templates()
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let mut s = vec![u8::try_from(i).ok()?];
            s.extend_from_slice(&t.bytes[t.section + 4..t.section + 4 + t.payload_len]);
            Some(s)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The spec loader and the amendment checker.

/// Every TOML file of `spec/` the loader reads, as (path relative to `spec/`, text).
fn spec_texts() -> &'static [(PathBuf, String)] {
    static S: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    S.get_or_init(|| {
        let dir = root().join("spec");
        hurray_codegen::load::spec_files(&dir)
            .expect("spec/ lists")
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(&p).expect("spec file reads");
                (p.strip_prefix(&dir).unwrap_or(&p).to_path_buf(), text)
            })
            .collect()
    })
}

/// The base the `spec_load` target loads its inputs into: a small spec derived from
/// `spec/` ([`reduce`]), parsed once, with the id of each file (in `spec_texts` order) and
/// its snapshot.
struct SpecBase {
    texts: Vec<(PathBuf, String)>,
    raw: hurray_codegen::load::RawSpec,
    ids: Vec<hurray_codegen::source::FileId>,
    snapshot: snapshot::Snapshot,
}

fn spec_base() -> &'static SpecBase {
    static B: OnceLock<SpecBase> = OnceLock::new();
    B.get_or_init(|| {
        let texts = reduce(spec_texts());
        let (raw, sources, diags) = parse_texts(&texts);
        let ids = sources.files().map(|(id, _)| id).collect();
        let loaded = hurray_codegen::finish(raw.clone(), sources, diags);
        let spec = loaded.clean().expect("the reduced spec loads clean");
        let (snapshot, _) = snapshot::of_spec(spec);
        SpecBase {
            texts,
            raw,
            ids,
            snapshot,
        }
    })
}

/// Parse spec files (path relative to `spec/`, text) into their raw mirrors.
fn parse_texts(
    texts: &[(PathBuf, String)],
) -> (hurray_codegen::load::RawSpec, SourceMap, Diagnostics) {
    let dir = root().join("spec");
    let files = texts
        .iter()
        .map(|(rel, t)| {
            (
                rel.display().to_string(),
                rel.clone(),
                dir.join(rel),
                t.clone(),
            )
        })
        .collect();
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let raw = hurray_codegen::load::load_texts(files, &mut sources, &mut diags);
    (raw, sources, diags)
}

/// A small spec that still loads clean, derived from `texts` (all of `spec/`): comment lines
/// dropped, then every array-of-tables entry (`[[tag]]`, `[[structure]]` with its
/// `[[structure.field]]`s, `[[rule]]`, …) removed whose removal keeps the spec clean, from
/// the last to the first, until a pass removes nothing. What is left is what the rest
/// needs: the roles' spaces, the structures the axes live in, the rules and resolutions they
/// name. Loading it costs a fraction of the whole spec, so the `spec_load` target runs some
/// ten times more inputs through the same loader, lowering, checks and emitters.
pub fn reduce(texts: &[(PathBuf, String)]) -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, Vec<String>)> = texts
        .iter()
        .map(|(rel, t)| {
            let lines = t
                .lines()
                .filter(|l| !l.trim_start().starts_with('#') || l.starts_with("#:schema"))
                .map(str::to_string)
                .collect();
            (rel.clone(), lines)
        })
        .collect();
    let join = |files: &[(PathBuf, Vec<String>)]| -> Vec<(PathBuf, String)> {
        files
            .iter()
            .map(|(rel, lines)| (rel.clone(), lines.join("\n") + "\n"))
            .collect()
    };
    let (raw, sources, diags) = parse_texts(&join(&files));
    assert!(!diags.has_errors(), "spec/ parses");
    let ids: Vec<_> = sources.files().map(|(id, _)| id).collect();
    let mut raw = raw;
    let clean = |raw: &hurray_codegen::load::RawSpec| {
        let loaded = hurray_codegen::finish(raw.clone(), sources.clone(), Diagnostics::default());
        loaded.clean().is_some()
    };
    assert!(clean(&raw), "spec/ loads clean");
    for _pass in 0..4 {
        let mut removed = false;
        for (f, (_, lines)) in files.iter_mut().enumerate() {
            let mut k = entries(lines).len();
            while k > 0 {
                k -= 1;
                let Some(&(start, end)) = entries(lines).get(k) else {
                    continue;
                };
                let mut trial = lines.clone();
                trial.drain(start..end);
                let mut diags = Diagnostics::default();
                let candidate = raw.with_text(ids[f], &(trial.join("\n") + "\n"), &mut diags);
                if !diags.has_errors() && clean(&candidate) {
                    *lines = trial;
                    raw = candidate;
                    removed = true;
                }
            }
        }
        if !removed {
            break;
        }
    }
    // Then every long one-line string (a title, a rule's text) that need not be what it is
    // becomes "x".
    for (f, (_, lines)) in files.iter_mut().enumerate() {
        for i in 0..lines.len() {
            let Some(short) = shortened(&lines[i]) else {
                continue;
            };
            let mut trial = lines.clone();
            trial[i] = short;
            let mut diags = Diagnostics::default();
            let candidate = raw.with_text(ids[f], &(trial.join("\n") + "\n"), &mut diags);
            if !diags.has_errors() && clean(&candidate) {
                *lines = trial;
                raw = candidate;
            }
        }
    }
    join(&files)
}

/// `key = "a long string"` with the string made `"x"`, for a string of 12 characters or
/// more without escapes.
fn shortened(line: &str) -> Option<String> {
    let (key, rest) = line.split_once(" = \"")?;
    let (value, tail) = rest.split_once('"')?;
    (value.len() >= 12 && !value.contains('\\') && !key.contains(['"', '[']))
        .then(|| format!("{key} = \"x\"{tail}"))
}

/// The array-of-tables entries of a TOML file's lines: from an entry's `[[name]]` header to
/// the next header that is not one of its own sub-tables (`[[name.sub]]`, `[name.sub]`).
fn entries(lines: &[String]) -> Vec<(usize, usize)> {
    let header = |l: &str| -> Option<(bool, String)> {
        let l = l.trim();
        let array = l.starts_with("[[");
        let name = l
            .trim_start_matches('[')
            .split(']')
            .next()?
            .trim()
            .to_string();
        (l.starts_with('[') && !name.is_empty() && !name.contains(['"', '=', ' ']))
            .then_some((array, name))
    };
    let heads: Vec<(usize, bool, String)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| header(l).map(|(a, n)| (i, a, n)))
        .collect();
    heads
        .iter()
        .enumerate()
        .filter(|(_, (_, array, _))| *array)
        .map(|(k, (start, _, name))| {
            let own = format!("{name}.");
            let end = heads[k + 1..]
                .iter()
                .find(|(_, _, n)| !n.starts_with(&own))
                .map_or(lines.len(), |(i, _, _)| *i);
            (*start, end)
        })
        .collect()
}

/// The first line a `spec_load` input may start with to say which file it replaces.
fn spec_header(rel: &Path) -> String {
    format!("# spec/{}\n", rel.display())
}

/// Load the [`spec_base`] with one file's text replaced: lower, lay out and validate it,
/// render its diagnostics, and for a clean result also snapshot it and run both emitters,
/// which must not fail.
fn load_with(replaced: usize, text: &str) {
    let base = spec_base();
    let dir = root().join("spec");
    // Most inputs are not even TOML of the file's schema: parse that file alone first.
    let (rel, _) = &base.texts[replaced];
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let one = vec![(
        rel.display().to_string(),
        rel.clone(),
        dir.join(rel),
        text.to_string(),
    )];
    let _ = hurray_codegen::load::load_texts(one, &mut sources, &mut diags);
    if diags.has_errors() {
        let _ = hurray_codegen::diag::render(
            &sources,
            diags.items(),
            hurray_codegen::diag::Format::Human,
        );
        return;
    }
    // The other files are parsed once (`RawSpec::with_text`, as the mutation test does).
    let mut sources = SourceMap::default();
    for (i, (rel, t)) in base.texts.iter().enumerate() {
        let body = if i == replaced { text } else { t.as_str() };
        sources.add(rel.display().to_string(), dir.join(rel), body.to_string());
    }
    let mut diags = Diagnostics::default();
    let raw = base.raw.with_text(base.ids[replaced], text, &mut diags);
    let loaded = hurray_codegen::finish(raw, sources, diags);
    for format in [
        hurray_codegen::diag::Format::Human,
        hurray_codegen::diag::Format::Json,
    ] {
        let _ = hurray_codegen::diag::render(&loaded.sources, loaded.diags.items(), format);
    }
    if let Some(spec) = loaded.clean() {
        let (snap, _) = snapshot::of_spec(spec);
        let _ = hurray_codegen::emit::markdown::pages(spec);
        // The Rust emitter formats every generated line: run it when the format itself
        // changed (the snapshot differs from the base's), not for every edit of a title.
        if snap != base.snapshot {
            let _ = hurray_codegen::emit::rust::runtime(spec);
        }
    }
}

/// `spec_load`: the input replaces one file of the [`spec_base`] (a small spec derived from
/// `spec/`): the one its first line names (`# spec/rules/descriptor.toml`), else the one its
/// first byte picks.
pub fn spec_load(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let files = &spec_base().texts;
    let named = files
        .iter()
        .position(|(rel, _)| text.starts_with(&spec_header(rel)));
    let which =
        named.unwrap_or_else(|| usize::from(data.first().copied().unwrap_or(0)) % files.len());
    load_with(which, &text);
}

/// Seeds of the `spec_load` target: every file of the reduced spec behind the line that
/// names it. (Whole files of `spec/` would be seeds too, but inputs of 30 KB make every
/// mutation slow; the reduced files keep what the loader's checks need.)
pub fn spec_load_seeds() -> Vec<Vec<u8>> {
    spec_base()
        .texts
        .iter()
        .map(|(rel, text)| format!("{}{text}", spec_header(rel)).into_bytes())
        .collect()
}

/// The released spec, loaded once: its model and its snapshot as a TOML tree.
struct Base {
    spec: Spec,
    tree: toml::Value,
    /// Paths to every leaf of `tree` (keys and array indices).
    leaves: Vec<Vec<Step>>,
    /// Every string of the snapshot, for mutations that reuse a name.
    strings: Vec<String>,
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn base() -> &'static Base {
    static B: OnceLock<Base> = OnceLock::new();
    B.get_or_init(|| {
        let loaded = hurray_codegen::load(&root().join("spec")).expect("spec/ loads");
        let spec = loaded.spec.expect("spec/ lowers");
        let (snap, _) = snapshot::of_spec(&spec);
        let tree = toml::Value::try_from(&snap).expect("a snapshot is TOML");
        let mut leaves = Vec::new();
        let mut strings = BTreeSet::new();
        walk(&tree, &mut Vec::new(), &mut leaves, &mut strings);
        Base {
            spec,
            tree,
            leaves,
            strings: strings.into_iter().collect(),
        }
    })
}

fn walk(
    v: &toml::Value,
    path: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
    strings: &mut BTreeSet<String>,
) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                path.push(Step::Key(k.clone()));
                walk(x, path, out, strings);
                path.pop();
            }
        }
        toml::Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                path.push(Step::Index(i));
                walk(x, path, out, strings);
                path.pop();
            }
        }
        leaf => {
            if let toml::Value::String(s) = leaf {
                strings.insert(s.clone());
            }
            out.push(path.clone());
        }
    }
}

fn at_mut<'v>(v: &'v mut toml::Value, path: &[Step]) -> Option<&'v mut toml::Value> {
    path.iter().try_fold(v, |v, s| match (s, v) {
        (Step::Key(k), toml::Value::Table(t)) => t.get_mut(k),
        (Step::Index(i), toml::Value::Array(a)) => a.get_mut(*i),
        _ => None,
    })
}

/// A little-endian reader over the fuzz input that yields zeros when it runs out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |a, i| a | u64::from(self.u8()) << (8 * i))
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One mutation of the `amendment` input: the side it changes (0 the base, 1 the amended),
/// the leaf of the snapshot's tree it aims at, an operation and a value.
struct Mutation {
    side: usize,
    leaf: usize,
    op: u8,
    value: u64,
}

/// The arrays of a snapshot's tree whose items the checker compares one by one (by name):
/// the `amendment` target keeps of each only the items a mutation aims at, since an item
/// equal on both sides adds nothing to the comparison but its cost.
const ITEM_ARRAYS: &[&[&str]] = &[&["space"], &["flags"], &["structure"], &["readers", "fact"]];

/// The item array a leaf path runs through, and the item's index in it.
fn item_of(path: &[Step]) -> Option<(usize, usize)> {
    ITEM_ARRAYS.iter().enumerate().find_map(|(k, keys)| {
        let matches = keys
            .iter()
            .enumerate()
            .all(|(j, key)| matches!(path.get(j), Some(Step::Key(x)) if x == key));
        match (matches, path.get(keys.len())) {
            (true, Some(Step::Index(i))) => Some((k, *i)),
            _ => None,
        }
    })
}

/// The snapshot's tree with each item array cut down to `keep[k]` (ascending indices); only
/// what is kept is cloned.
fn subset(tree: &toml::Value, keep: &[Vec<usize>]) -> toml::Value {
    fn cut(v: &toml::Value, at: &mut Vec<String>, keep: &[Vec<usize>]) -> toml::Value {
        let toml::Value::Table(t) = v else {
            return v.clone();
        };
        let mut out = toml::Table::new();
        for (key, x) in t {
            at.push(key.clone());
            let same = |p: &[&str]| p.iter().zip(at.iter()).all(|(a, b)| a == b);
            let value = match ITEM_ARRAYS
                .iter()
                .position(|p| p.len() == at.len() && same(p))
            {
                Some(k) => match x {
                    toml::Value::Array(a) => toml::Value::Array(
                        keep[k].iter().filter_map(|i| a.get(*i).cloned()).collect(),
                    ),
                    other => other.clone(),
                },
                None if ITEM_ARRAYS.iter().any(|p| p.len() > at.len() && same(p)) => {
                    cut(x, at, keep)
                }
                None => x.clone(),
            };
            at.pop();
            out.insert(key.clone(), value);
        }
        toml::Value::Table(out)
    }
    cut(tree, &mut Vec::new(), keep)
}

/// `path` in the tree [`subset`] made with `keep`: an item's index becomes its rank.
fn remap(path: &[Step], keep: &[Vec<usize>]) -> Vec<Step> {
    let mut out = path.to_vec();
    if let Some((k, i)) = item_of(path)
        && let Ok(rank) = keep[k].binary_search(&i)
    {
        out[ITEM_ARRAYS[k].len()] = Step::Index(rank);
    }
    out
}

/// Apply one mutation to `tree` at `leaf`: the leaf gets a new value (a number, a name from
/// the snapshot, a flipped boolean), or the array item holding it is removed or duplicated.
fn mutate(tree: &mut toml::Value, leaf: &[Step], op: u8, value: u64) {
    let b = base();
    match op % 8 {
        // Remove or duplicate the innermost array item on the path.
        6 | 7 => {
            let Some(cut) = leaf.iter().rposition(|s| matches!(s, Step::Index(_))) else {
                return;
            };
            let Step::Index(i) = leaf[cut] else { return };
            if let Some(toml::Value::Array(a)) = at_mut(tree, &leaf[..cut])
                && i < a.len()
            {
                if op % 8 == 6 {
                    a.remove(i);
                } else {
                    let item = a[i].clone();
                    a.insert(i, item);
                }
            }
        }
        _ => {
            let Some(v) = at_mut(tree, leaf) else { return };
            *v = match (&*v, op % 8) {
                (toml::Value::Boolean(x), _) => toml::Value::Boolean(!x),
                (toml::Value::Integer(x), 0) => toml::Value::Integer(x.wrapping_add(1)),
                (toml::Value::Integer(x), 1) => toml::Value::Integer(x.wrapping_sub(1)),
                (toml::Value::Integer(_), _) => toml::Value::Integer(value as i64),
                (toml::Value::String(_), 0 | 1) => {
                    toml::Value::String(b.strings[(value as usize) % b.strings.len()].clone())
                }
                (toml::Value::String(s), 2) => toml::Value::String(format!("{s}{}", value % 10)),
                (toml::Value::String(_), _) => toml::Value::String(value.to_string()),
                (other, _) => other.clone(),
            };
        }
    }
}

/// `amendment`: the released spec's snapshot is the base of two copies; the input is a
/// list of mutations (side byte, leaf index `u16`, operation byte, value `u64`), each
/// applied to one copy, then the amendment checker compares the pair: S2 against the base
/// as a record, the classification with its byte witnesses, and the version verdicts. Both
/// copies keep, of the item arrays (spaces, flag sets, structures, reader facts), the items
/// some mutation aims at, and every axis, the placement and the release.
pub fn amendment(data: &[u8]) {
    let b = base();
    let mut input = Input(data);
    let mut mutations = Vec::new();
    while !input.is_empty() && mutations.len() < 16 {
        mutations.push(Mutation {
            side: usize::from(input.u8() & 1),
            leaf: usize::from(input.u16()) % b.leaves.len(),
            op: input.u8(),
            value: input.u64(),
        });
    }
    let mut keep = vec![Vec::new(); ITEM_ARRAYS.len()];
    for m in &mutations {
        if let Some((k, i)) = item_of(&b.leaves[m.leaf]) {
            keep[k].push(i);
        }
    }
    for k in &mut keep {
        k.sort_unstable();
        k.dedup();
    }
    let cut = subset(&b.tree, &keep);
    let mut trees = [cut.clone(), cut];
    for m in &mutations {
        mutate(
            &mut trees[m.side],
            &remap(&b.leaves[m.leaf], &keep),
            m.op,
            m.value,
        );
    }
    let [old, new] = trees;
    let (Ok(old), Ok(new)) = (
        old.try_into::<snapshot::Snapshot>(),
        new.try_into::<snapshot::Snapshot>(),
    ) else {
        return;
    };
    let spans = snapshot::SpanIndex::new();
    let mut diags = Diagnostics::default();
    let mut sources = SourceMap::default();
    let axes = AxisNames::of(&b.spec);
    rules::s2_anti_rebind(
        &new,
        &spans,
        &[("base".to_string(), &old)],
        axes,
        &mut diags,
    );
    let changes = classify::diff(&old, &new, &spans, axes, &mut diags);
    classify::verdicts(
        &b.spec,
        &old,
        "base",
        &new,
        &spans,
        changes,
        &root().join("spec"),
        &mut sources,
        &mut diags,
    );
}

// ---------------------------------------------------------------------------------------
// Seeds and the dictionary.

/// The seeds of target `name`: the corpus vectors of its kind, or inputs derived from them.
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    let corpus = |ext: &str| -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for sub in ["valid", "reject"] {
            let dir = root().join("tests/corpus").join(sub);
            let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            paths.sort();
            out.extend(
                paths
                    .iter()
                    .filter(|p| p.extension().is_some_and(|e| e == ext))
                    .filter_map(|p| std::fs::read(p).ok()),
            );
        }
        out
    };
    match name {
        "descriptor_strict" | "descriptor_permissive" | "descriptor_pinned" => corpus("bin"),
        "file" => corpus("hrry"),
        "quantization" => quantization_seeds(),
        "spec_load" => spec_load_seeds(),
        // One mutation on each side, then none: the checker on the unchanged pair.
        "amendment" => vec![vec![], vec![0, 1, 0, 2, 5, 0, 0, 0, 0, 0, 0, 0, 1, 7, 0, 3]],
        "encode_json" => corpus("json"),
        // The reference implementation's streams, valid and invalid, and every descriptor
        // vector as a stream of one tensor without its data.
        "stream" => {
            let dir = root().join("../shared/conformance/stream");
            let mut paths: Vec<PathBuf> = ["", "invalid"]
                .iter()
                .filter_map(|d| std::fs::read_dir(dir.join(d)).ok())
                .flat_map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())))
                .filter(|p| p.extension().is_some_and(|e| e == "bin"))
                .collect();
            paths.sort();
            let mut seeds: Vec<Vec<u8>> =
                paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
            seeds.extend(corpus("bin"));
            seeds
        }
        // Every message of tests/message/vectors.toml, and one session of them all.
        "message" => message_seeds(),
        // The same, read by a server and by a client, in small and in large pieces.
        // And a parallel answer in two shards, read by the client that asked for it.
        "protocol" => {
            let mut seeds: Vec<Vec<u8>> = message_seeds()
                .into_iter()
                .flat_map(|s| [0x00u8, 0x01, 0x40, 0x41].map(|k| [&[k][..], &s].concat()))
                .collect();
            seeds.extend(parallel_answer().map(|s| [&[0x01u8][..], &s].concat()));
            seeds
        }
        // Any bytes are choices for the generated `Arbitrary` impls: the descriptor vectors
        // (and no bytes at all, every choice its first) give them a varied start.
        "round_trip" => {
            let mut seeds = vec![Vec::new()];
            seeds.extend(corpus("bin"));
            seeds
        }
        other => panic!("no fuzz target `{other}`"),
    }
}

/// A libFuzzer dictionary derived from the spec's tables: every magic, every allocated tag
/// value at its space's width, every flag bit, every fixed structure size as a `u32` and a
/// `u64` length, and the hostile integers every size check must survive.
pub fn dictionary(spec: &Spec) -> String {
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let le = |v: u64, width: u32| v.to_le_bytes()[..width as usize].to_vec();
    for st in &spec.structures {
        for f in &st.fields {
            for c in &f.checks {
                if let CheckKind::Bytes(b) = &c.kind {
                    entries.push((format!("magic {}.{}", st.name, f.name), b.clone()));
                }
            }
        }
        if let Some(n) = st.size.as_ref().and_then(|s| s.as_constant()) {
            entries.push((format!("size {} (u32)", st.name), le(n as u64, 4)));
            entries.push((format!("size {} (u64)", st.name), le(n as u64, 8)));
        }
    }
    for space in &spec.spaces {
        let w = space.width.bytes();
        for t in &space.tags {
            entries.push((
                format!("tag {}.{}", space.name, t.name),
                le(u64::from(t.value), w),
            ));
        }
    }
    for set in &spec.flag_sets {
        let w = set.width.bytes();
        for bit in &set.bits {
            entries.push((
                format!("flag {}.{}", set.name, bit.name),
                le(1u64 << bit.bit, w),
            ));
        }
    }
    for (what, v) in [
        ("u32 max", le(u64::from(u32::MAX), 4)),
        ("u64 max (the dynamic dimension)", le(u64::MAX, 8)),
        ("2^63", le(1 << 63, 8)),
        ("2^62", le(1 << 62, 8)),
        ("2^32", le(1 << 32, 8)),
        ("-1 as i64", le(u64::MAX, 8)),
    ] {
        entries.push((what.to_string(), v));
    }
    let mut seen = BTreeSet::new();
    let mut out = String::from(
        "# libFuzzer dictionary of the Hurray format, derived from spec/ by the fuzz harness.\n\
         # Written to fuzz/corpus/hurray.dict by: FUZZ_SEEDS=1 cargo test --test it fuzz_replay::\n",
    );
    for (what, bytes) in entries {
        if bytes.is_empty() || !seen.insert(bytes.clone()) {
            continue;
        }
        let escaped: String = bytes.iter().map(|b| format!("\\x{b:02X}")).collect();
        out.push_str(&format!("# {what}\n\"{escaped}\"\n"));
    }
    out
}

/// The messages of `tests/message/vectors.toml` (hex, with `{descriptor}` the 61-byte
/// descriptor of the reference's conformance set), one seed each, and all of them as one
/// session.
/// A server's parallel answer in two shards (the reference's sharded conformance
/// descriptors, rows 0–1 and 2–3 of a 4×4 parent) on streams 1 and 3, each with its frame and
/// TENSOR_DATA_END; `None` without the conformance set.
fn parallel_answer() -> Option<Vec<u8>> {
    use hurray_runtime::structures::{
        InterchangeMessage, MessageTypeVariant, TensorData, TensorDescriptorPayload,
    };
    use hurray_runtime::wire::TagValue;
    let dir = root().join("../shared/conformance/stream/descriptors");
    let mut out = Vec::new();
    let shards = [
        "sharded__0_shard0_f32_2x4_of_4x4_at_0_0.bin",
        "sharded__1_shard1_f32_2x4_of_4x4_at_2_0.bin",
    ];
    for (k, (name, stream)) in shards.iter().zip([1u32, 3]).enumerate() {
        let bytes = std::fs::read(dir.join(name)).ok()?;
        let d = hurray_runtime::descriptor::read(&bytes, &hurray_runtime::ReaderConfig::new())
            .ok()?
            .view()
            .owned();
        let head = TensorDescriptorPayload::new(d, 32, k as u32, 2);
        for m in [
            MessageTypeVariant::TensorDescriptor(head),
            MessageTypeVariant::TensorData(TensorData::new(0, vec![0; 32])),
            MessageTypeVariant::TensorDataEnd,
        ] {
            InterchangeMessage::new(TagValue::from_raw(m.tag()), stream, m).encode(&mut out);
        }
    }
    Some(out)
}

fn message_seeds() -> Vec<Vec<u8>> {
    let text =
        std::fs::read_to_string(root().join("tests/message/vectors.toml")).unwrap_or_default();
    let descriptor = std::fs::read(
        root().join("../shared/conformance/stream/descriptors/row_major_3__0_f32_3x4.bin"),
    )
    .unwrap_or_default();
    let mut seeds = Vec::new();
    for line in text.lines() {
        let Some(hex) = line
            .strip_prefix("bytes = \"")
            .and_then(|l| l.strip_suffix('"'))
        else {
            continue;
        };
        let mut seed = Vec::new();
        for part in hex.split_whitespace() {
            if part.starts_with('{') {
                seed.extend(&descriptor);
            } else if let Ok(b) = u8::from_str_radix(part, 16) {
                seed.push(b);
            }
        }
        seeds.push(seed);
    }
    let session = seeds.concat();
    seeds.push(session);
    seeds
}
