//! The annotation framework the generated walkers (`generated::annotate`) report to: a cursor
//! over the input, the [`Walker`] that turns what a walker reads into [`Annotation`]s, and the
//! [`Sink`] that receives them.
//!
//! A walker reads bytes as the generated parse does (the same fields, counts, conditions,
//! dispatches, length prefixes and version guards, all generated from the same model) but
//! checks nothing: it reports what each byte range holds, and stops at the first byte it
//! cannot read (a count or a length beyond the bytes, an unknown tag that selects an unbounded
//! structure), recording what it could read before. The verdict comes from the reader itself:
//! [`Walker`] is given the reader's error in advance, marks the range holding its byte, and
//! ends the walk after that range.
//!
//! The walker emits ranges in offset order, each starting where the one before ended (a gap
//! is filled and an overlap clipped here), so every byte of the input belongs to exactly one
//! range.

use crate::ctx::ReaderConfig;
use crate::error::Error;
use crate::generated::axes::Axis;
use crate::version::Version;
use crate::wire::{FlagSet, TagClass, TagSpace, TagValue};

/// What the model says about one field: its name, its title, and the version that defined it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The field's name in the spec.
    pub name: &'static str,
    /// Its title (the spec's display text; may be empty).
    pub title: &'static str,
    /// The version of `axis` that introduced the field.
    pub since: Version,
    /// The axis that versions the field's structure.
    pub axis: Axis,
    /// The structure the field belongs to, by its spec name.
    pub structure: &'static str,
}

/// How a range's value was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provenance {
    /// Read from the data.
    Read,
    /// Not in the data: the documented default of a field appended after the data's (or the
    /// reader's) version (R4). The range is empty.
    Defaulted,
    /// Bytes inside a length prefix that this reader's version does not define (CD2).
    Skipped,
}

impl Provenance {
    /// The word for the provenance (`read`, `default`, `skipped`).
    pub fn word(self) -> &'static str {
        match self {
            Provenance::Read => "read",
            Provenance::Defaulted => "default",
            Provenance::Skipped => "skipped",
        }
    }
}

/// What a range is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A structure: its fields follow, nested one level deeper.
    Structure,
    /// One field, or one element of an array field (`shape[1]`).
    Field,
    /// A field the input ends inside of: the bytes that remain of it.
    Partial,
    /// Bytes at the end of a length-prefixed structure beyond the fields its version defines.
    Surplus,
    /// The payload of a value this reader does not know, kept opaque (RES-9).
    Opaque,
    /// Zero padding between the parts of a file.
    Padding,
    /// A data buffer of a tensor (`tensor`: its index position; `buffer`: its buffer-table
    /// index).
    Data {
        /// The tensor's index position.
        tensor: u32,
        /// The buffer's index in its buffer table.
        buffer: u32,
    },
    /// Bytes that were not interpreted: after the byte a rejection names, or that no part of
    /// the input locates.
    Unread,
}

impl Kind {
    /// The word for the kind.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Structure => "structure",
            Kind::Field => "field",
            Kind::Partial => "partial",
            Kind::Surplus => "surplus",
            Kind::Opaque => "opaque",
            Kind::Padding => "padding",
            Kind::Data { .. } => "data",
            Kind::Unread => "unread",
        }
    }

    /// True for the kinds that cover bytes themselves (everything but a structure, whose
    /// fields cover its bytes).
    pub fn is_leaf(self) -> bool {
        !matches!(self, Kind::Structure)
    }
}

/// Where a tag value falls in its space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TagStanding {
    /// Allocated (the name says which value).
    Allocated,
    /// In a public range but not allocated at this build's version.
    Unallocated,
    /// In a range reserved for future versions.
    Reserved,
    /// In the implementation-private range.
    Private,
    /// Never valid.
    Invalid,
}

impl TagStanding {
    fn of<T>(c: TagClass<T>) -> TagStanding {
        match c {
            TagClass::Known(_) => TagStanding::Allocated,
            TagClass::UnallocatedPublic { .. } => TagStanding::Unallocated,
            TagClass::Reserved => TagStanding::Reserved,
            TagClass::Private => TagStanding::Private,
            TagClass::Invalid => TagStanding::Invalid,
        }
    }

    /// The word for the standing.
    pub fn word(self) -> &'static str {
        match self {
            TagStanding::Allocated => "allocated",
            TagStanding::Unallocated => "unallocated",
            TagStanding::Reserved => "reserved",
            TagStanding::Private => "private",
            TagStanding::Invalid => "invalid",
        }
    }
}

/// A range's decoded value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Shown {
    /// Nothing to decode (a structure; padding; data, shown by its bytes).
    None,
    /// An unsigned integer.
    Unsigned(u64),
    /// A signed integer.
    Signed(i64),
    /// A floating-point number.
    Float(f64),
    /// A tag: its raw value, its space, its name when allocated.
    Tag {
        /// The raw value.
        raw: u32,
        /// The tag space.
        space: &'static str,
        /// The allocated value's name.
        name: Option<&'static str>,
        /// Where the value falls in its space.
        standing: TagStanding,
    },
    /// Flags: the raw bits, the names of the set bits, and the set bits no name covers.
    Flags {
        /// The raw bits.
        raw: u64,
        /// The flag set.
        set: &'static str,
        /// The names of the set bits.
        names: Vec<&'static str>,
        /// The set bits no name covers.
        unknown: u64,
    },
    /// UTF-8 text.
    Text(String),
    /// Bytes that are not UTF-8 where text belongs (shown by their bytes).
    NotUtf8 {
        /// How many leading bytes are valid UTF-8.
        valid_up_to: usize,
    },
    /// A byte string (shown by its bytes).
    Bytes,
}

/// One annotated range of the input.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    /// Absolute offset of the first byte.
    pub start: u64,
    /// Absolute offset after the last byte (`start` for a defaulted field).
    pub end: u64,
    /// Nesting depth (0 for the input's top-level parts).
    pub depth: usize,
    /// The spec path (`buffer_table.buffers[1].alignment`; in a file,
    /// `tensors.<name>.descriptor.…`, `index.entries[0].name`, `trailer.index_crc32c`).
    pub path: String,
    /// The field's or part's name (the path's last segment).
    pub name: String,
    /// The spec's title of the field or structure.
    pub title: &'static str,
    /// What the range is.
    pub kind: Kind,
    /// Its decoded value.
    pub value: Shown,
    /// The structure whose field the range is, by its spec name (`None`: not a field of a
    /// structure: padding, data, a structure's own range).
    pub structure: Option<&'static str>,
    /// The axis and version that defined the field.
    pub since: Option<(Axis, Version)>,
    /// How the value was obtained.
    pub provenance: Provenance,
    /// A remark (`computed 0x1234abcd`, why bytes were not interpreted, …).
    pub note: Option<String>,
    /// True for the range that holds the byte the reader's rejection names.
    pub failing: bool,
}

/// Receives annotations in offset order: a structure, then its fields and nested structures
/// (one `depth` deeper), then [`Sink::close`] at its end.
pub trait Sink {
    /// A structure opens or a range is annotated.
    fn annotation(&mut self, a: Annotation);
    /// The innermost open structure ends at `end`.
    fn close(&mut self, end: u64);
}

/// A sink that keeps every annotation, structures with their end filled in.
#[derive(Clone, Debug, Default)]
pub struct Collect {
    /// Every annotation, in order.
    pub annotations: Vec<Annotation>,
    open: Vec<usize>,
}

impl Sink for Collect {
    fn annotation(&mut self, a: Annotation) {
        if a.kind == Kind::Structure {
            self.open.push(self.annotations.len());
        }
        self.annotations.push(a);
    }
    fn close(&mut self, end: u64) {
        if let Some(i) = self.open.pop() {
            self.annotations[i].end = end;
        }
    }
}

/// A sink that keeps nothing (a walk done for its values only).
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl Sink for Discard {
    fn annotation(&mut self, _: Annotation) {}
    fn close(&mut self, _: u64) {}
}

/// The walk stopped: at a byte it could not read, after the range a rejection names, or at a
/// nesting limit. What it read before was reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop;

/// A bounds-checked cursor over part of the input; offsets are absolute.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor over `bytes`, which start at absolute offset `base`.
    pub fn new(bytes: &'a [u8], base: u64) -> Cursor<'a> {
        Cursor {
            bytes,
            pos: 0,
            base,
        }
    }
    /// Absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    /// Absolute offset after the last byte.
    pub fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }
    /// Bytes that remain.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
    fn take(&mut self, n: u64) -> Option<&'a [u8]> {
        if n > self.remaining() as u64 {
            return None;
        }
        let s = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Some(s)
    }
    fn take_rest(&mut self) -> &'a [u8] {
        let s = &self.bytes[self.pos..];
        self.pos = self.bytes.len();
        s
    }
    /// `n` bytes from `at` bytes ahead, without consuming them.
    fn peek(&self, at: usize, n: usize) -> Option<&'a [u8]> {
        let from = self.pos.checked_add(at)?;
        self.bytes.get(from..from.checked_add(n)?)
    }
}

/// A flag set as a `flags_of` field shows it: its name, its allocated bits, and the name of
/// each bit.
pub type FlagSetNames = (&'static str, u64, fn(u32) -> Option<&'static str>);

/// A little-endian scalar a walker reads.
pub trait Scalar: Copy {
    /// Its size in bytes.
    const SIZE: usize;
    /// Read it from the first `SIZE` little-endian bytes of `b`.
    fn from_le(b: &[u8]) -> Self;
    /// The value as shown.
    fn shown(self) -> Shown;
    /// The value as a tag or flags carrier (integers only; 0 for floats).
    fn bits(self) -> u64;
}

/// `Scalar` for primitive types: how each is shown, and its bits as a tag or flags carrier.
macro_rules! scalar {
    ($($t:ty => $shown:expr, $bits:expr;)*) => {$(
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn from_le(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..std::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
            fn shown(self) -> Shown {
                $shown(self)
            }
            fn bits(self) -> u64 {
                $bits(self)
            }
        }
    )*};
}
scalar! {
    u8 => |x| Shown::Unsigned(u64::from(x)), u64::from;
    u16 => |x| Shown::Unsigned(u64::from(x)), u64::from;
    u32 => |x| Shown::Unsigned(u64::from(x)), u64::from;
    u64 => Shown::Unsigned, |x| x;
    i8 => |x| Shown::Signed(i64::from(x)), |x| i64::from(x) as u64;
    i16 => |x| Shown::Signed(i64::from(x)), |x| i64::from(x) as u64;
    i32 => |x| Shown::Signed(i64::from(x)), |x| i64::from(x) as u64;
    i64 => Shown::Signed, |x| x as u64;
    f32 => |x| Shown::Float(f64::from(x)), |_| 0;
    f64 => Shown::Float, |_| 0;
}

/// Where the walk stands with respect to the reader's rejection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// No rejection, or its byte not reached yet.
    Before,
    /// The range holding the failing byte was emitted; it ends here.
    Marked(u64),
    /// The walk ended after the failing range.
    Cut,
}

/// Turns what the generated walkers read into annotations: keeps the path, the nesting, the
/// versions the data declares, and the reader's rejection.
pub struct Walker<'a, 's> {
    input: &'a [u8],
    sink: &'s mut dyn Sink,
    config: &'s ReaderConfig,
    declared: Vec<Option<Version>>,
    segments: Vec<String>,
    depth: usize,
    covered: u64,
    failing: Option<u64>,
    verdict: Verdict,
    remarks: Vec<(u64, String)>,
    stopped: Option<String>,
}

impl std::fmt::Debug for Walker<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walker")
            .field("path", &self.segments)
            .field("covered", &self.covered)
            .field("failing", &self.failing)
            .finish_non_exhaustive()
    }
}

impl<'a, 's> Walker<'a, 's> {
    /// A walker over `input` reporting to `sink`, for a reader configured by `config` whose
    /// verdict on the input is `error` (when it rejects it).
    pub fn new(
        input: &'a [u8],
        sink: &'s mut dyn Sink,
        config: &'s ReaderConfig,
        error: Option<&Error>,
    ) -> Walker<'a, 's> {
        Walker {
            input,
            sink,
            config,
            declared: vec![None; Axis::ALL.len()],
            segments: Vec::new(),
            depth: 0,
            covered: 0,
            failing: error.map(Error::offset),
            verdict: Verdict::Before,
            remarks: Vec::new(),
            stopped: None,
        }
    }

    /// The whole input.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// Where the annotated ranges end so far.
    pub fn covered(&self) -> u64 {
        self.covered
    }

    /// True once the walk ended after the range the rejection names.
    pub fn is_cut(&self) -> bool {
        self.verdict == Verdict::Cut
    }

    /// The reader's version on `axis`.
    pub fn reader(&self, axis: Axis) -> Version {
        self.config.version(axis)
    }

    /// The version the data declares on `axis` (the reader's until the data says).
    pub fn data(&self, axis: Axis) -> Version {
        self.declared[axis.index()].unwrap_or_else(|| self.reader(axis))
    }

    /// The version whose fields the walk interprets: the older of the data's and the
    /// reader's.
    pub fn acting(&self, axis: Axis) -> Version {
        self.data(axis).min(self.reader(axis))
    }

    /// The data declares `version` on `axis`. A major the reader does not read stops the
    /// walk (the reader rejects the input there).
    pub fn enter(&mut self, axis: Axis, version: Version) -> Result<(), Stop> {
        if version.major != self.reader(axis).major {
            return Err(Stop);
        }
        self.declared[axis.index()] = Some(version);
        Ok(())
    }

    /// Forget what the data declared on `axis` (a scheme axis between descriptors).
    pub fn leave(&mut self, axis: Axis) {
        self.declared[axis.index()] = None;
    }

    /// Forget what the data declared on every axis.
    pub fn reset_versions(&mut self) {
        self.declared.iter_mut().for_each(|d| *d = None);
    }

    fn path(&self, name: &str) -> String {
        let mut p = String::new();
        for s in &self.segments {
            if !p.is_empty() && !s.starts_with('[') {
                p.push('.');
            }
            p.push_str(s);
        }
        if !name.is_empty() {
            if !p.is_empty() && !name.starts_with('[') {
                p.push('.');
            }
            p.push_str(name);
        }
        p
    }

    /// Emit one range: clipped to what is not yet covered, a gap before it filled, the
    /// failing byte marked, and the walk ended after the failing range.
    fn emit(&mut self, mut a: Annotation) -> Result<(), Stop> {
        if self.verdict == Verdict::Cut {
            return Err(Stop);
        }
        if let Verdict::Marked(end) = self.verdict
            && a.start >= end
        {
            self.verdict = Verdict::Cut;
            return Err(Stop);
        }
        if !a.kind.is_leaf() {
            self.sink.annotation(a);
            return Ok(());
        }
        if a.start > self.covered {
            let gap = self.unread_range(
                self.covered,
                a.start,
                "no part of the input locates these bytes",
            );
            self.emit(gap)?;
        }
        if a.start < self.covered {
            if a.end <= self.covered && a.end > a.start {
                // Wholly inside what an earlier part covered (parts of a rejected file overlap).
                return Ok(());
            }
            if a.end > a.start {
                a.note = Some(match a.note.take() {
                    Some(n) => format!(
                        "{n}; its first {} byte(s) overlap an earlier part",
                        self.covered - a.start
                    ),
                    None => format!(
                        "its first {} byte(s) overlap an earlier part",
                        self.covered - a.start
                    ),
                });
                a.start = self.covered;
            }
        }
        if let (Some(f), Verdict::Before) = (self.failing, self.verdict)
            && (a.start <= f && f < a.end
                || a.start == f && a.end == f && (f >= self.input_end() || a.kind == Kind::Partial))
        {
            a.failing = true;
            self.verdict = Verdict::Marked(a.end.max(f));
        }
        if let Some(i) = self.remarks.iter().position(|(at, _)| *at == a.start) {
            let (_, r) = self.remarks.swap_remove(i);
            a.note = Some(match a.note.take() {
                Some(n) => format!("{n}; {r}"),
                None => r,
            });
        }
        self.covered = self.covered.max(a.end);
        self.sink.annotation(a);
        Ok(())
    }

    fn input_end(&self) -> u64 {
        self.input.len() as u64
    }

    fn unread_range(&self, start: u64, end: u64, why: &str) -> Annotation {
        Annotation {
            start,
            end,
            depth: self.depth,
            path: self.path(""),
            name: String::new(),
            title: "",
            kind: Kind::Unread,
            value: Shown::Bytes,
            structure: None,
            since: None,
            provenance: Provenance::Read,
            note: Some(why.to_string()),
            failing: false,
        }
    }

    fn annotation(
        &self,
        start: u64,
        end: u64,
        name: String,
        meta: &Meta,
        kind: Kind,
        value: Shown,
    ) -> Annotation {
        Annotation {
            start,
            end,
            depth: self.depth,
            path: self.path(&name),
            name,
            title: meta.title,
            kind,
            value,
            structure: Some(meta.structure),
            since: Some((meta.axis, meta.since)),
            provenance: Provenance::Read,
            note: None,
            failing: false,
        }
    }

    /// The bytes that remain in `r` belong to the field `meta` names, which needs more: they
    /// are annotated as a partial field and the walk stops.
    fn partial(&mut self, r: &mut Cursor<'a>, name: String, meta: &Meta, need: u64) -> Stop {
        self.stopped = Some(format!("{} needs {need} byte(s)", meta.name));
        let start = r.offset();
        let have = r.remaining();
        r.take_rest();
        let mut a = self.annotation(start, r.offset(), name, meta, Kind::Partial, Shown::Bytes);
        a.note = Some(format!("needs {need} byte(s); {have} remain"));
        let _ = self.emit(a);
        Stop
    }

    /// The bytes that remain in `r` belong to the field `meta` names, which needs `need`
    /// bytes: they are annotated as a partial field and the walk stops.
    pub fn short(&mut self, r: &mut Cursor<'a>, meta: &Meta, need: u64) -> Stop {
        self.partial(r, meta.name.to_string(), meta, need)
    }

    /// The walk cannot go on (a nesting limit, a length prefix too short, a value that selects
    /// something it cannot locate): `why` explains the bytes left unread.
    pub fn stop(&mut self, why: String) -> Stop {
        self.stopped = Some(why);
        Stop
    }

    /// Why the walk stopped, when a walker said (taken: asked once per stop).
    pub fn take_stopped(&mut self) -> Option<String> {
        self.stopped.take()
    }

    /// The current nesting depth.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Close every structure opened deeper than `depth` (after a walk stopped inside them),
    /// at the end of what is covered.
    pub fn close_to(&mut self, depth: usize) {
        while self.depth > depth && !self.segments.is_empty() {
            let end = self.covered;
            self.close(end);
        }
    }

    /// Append a path segment that opens no structure (a file's `tensors.<name>`).
    pub fn push_segment(&mut self, segment: String) {
        self.segments.push(segment);
    }

    /// Remove the last segment [`Walker::push_segment`] appended.
    pub fn pop_segment(&mut self) {
        self.segments.pop();
    }

    /// The versions the data declared so far, to restore after a part declares others.
    pub fn declared(&self) -> Vec<Option<Version>> {
        self.declared.clone()
    }

    /// Restore versions [`Walker::declared`] returned.
    pub fn restore(&mut self, declared: Vec<Option<Version>>) {
        self.declared = declared;
    }

    /// Read `n` bytes as field `name` (of `meta`) and annotate them with the value `show`
    /// makes of them; a cursor that ends first is a partial range.
    fn field(
        &mut self,
        r: &mut Cursor<'a>,
        name: String,
        meta: &Meta,
        n: u64,
        show: impl FnOnce(&'a [u8]) -> Shown,
    ) -> Result<&'a [u8], Stop> {
        let start = r.offset();
        let Some(b) = r.take(n) else {
            return Err(self.partial(r, name, meta, n));
        };
        let a = self.annotation(start, r.offset(), name, meta, Kind::Field, show(b));
        self.emit(a)?;
        Ok(b)
    }

    /// A scalar field.
    pub fn scalar<T: Scalar>(&mut self, r: &mut Cursor<'a>, meta: &Meta) -> Result<T, Stop> {
        let b = self.field(r, meta.name.to_string(), meta, T::SIZE as u64, |b| {
            T::from_le(b).shown()
        })?;
        Ok(T::from_le(b))
    }

    /// A tag field of space `S`, read as the raw scalar `P`.
    pub fn tag<S: TagSpace, P: Scalar>(
        &mut self,
        r: &mut Cursor<'a>,
        meta: &Meta,
    ) -> Result<TagValue<S>, Stop> {
        let value = |b: &[u8]| TagValue::<S>::from_raw(P::from_le(b).bits() as u32);
        let b = self.field(r, meta.name.to_string(), meta, P::SIZE as u64, |b| {
            tag_shown(value(b))
        })?;
        Ok(value(b))
    }

    /// A flags field of set `F`, read as the raw scalar `P`.
    pub fn flags<F: FlagSet, P: Scalar>(
        &mut self,
        r: &mut Cursor<'a>,
        meta: &Meta,
    ) -> Result<F, Stop> {
        let b = self.field(r, meta.name.to_string(), meta, P::SIZE as u64, |b| {
            flags_shown(P::from_le(b).bits(), F::NAME, F::ALLOCATED, F::bit_name)
        })?;
        Ok(F::from_bits(P::from_le(b).bits()))
    }

    /// An integer field whose bits an earlier tag's flag set names (`flags_of`): `set` is
    /// that set's name, `allocated` its bits and `bit_name` its names, or `None` when the tag
    /// selects no known set.
    pub fn flags_of<P: Scalar>(
        &mut self,
        r: &mut Cursor<'a>,
        meta: &Meta,
        set: Option<FlagSetNames>,
    ) -> Result<P, Stop> {
        let b = self.field(r, meta.name.to_string(), meta, P::SIZE as u64, |b| {
            let v = P::from_le(b);
            match set {
                Some((name, allocated, names)) => flags_shown(v.bits(), name, allocated, names),
                None => v.shown(),
            }
        })?;
        Ok(P::from_le(b))
    }

    /// An array of `count` scalars: one range per element (`name[i]`).
    pub fn array<T: Scalar>(
        &mut self,
        r: &mut Cursor<'a>,
        count: u64,
        meta: &Meta,
    ) -> Result<(), Stop> {
        for i in 0..count {
            let name = format!("{}[{i}]", meta.name);
            self.field(r, name, meta, T::SIZE as u64, |b| T::from_le(b).shown())?;
        }
        Ok(())
    }

    /// A byte string of `n` bytes.
    pub fn bytes(&mut self, r: &mut Cursor<'a>, n: u64, meta: &Meta) -> Result<&'a [u8], Stop> {
        self.field(r, meta.name.to_string(), meta, n, |_| Shown::Bytes)
    }

    /// UTF-8 text of `n` bytes.
    pub fn utf8(&mut self, r: &mut Cursor<'a>, n: u64, meta: &Meta) -> Result<&'a [u8], Stop> {
        self.field(
            r,
            meta.name.to_string(),
            meta,
            n,
            |b| match std::str::from_utf8(b) {
                Ok(s) => Shown::Text(s.to_string()),
                Err(e) => Shown::NotUtf8 {
                    valid_up_to: e.valid_up_to(),
                },
            },
        )
    }

    /// The rest of the cursor, as a byte string.
    pub fn rest(&mut self, r: &mut Cursor<'a>, meta: &Meta) -> Result<&'a [u8], Stop> {
        let start = r.offset();
        let b = r.take_rest();
        let a = self.annotation(
            start,
            r.offset(),
            meta.name.to_string(),
            meta,
            Kind::Field,
            Shown::Bytes,
        );
        self.emit(a)?;
        Ok(b)
    }

    /// A field appended after `meta.since` that the data (or the reader) predates: its
    /// documented default, as an empty range (R4).
    pub fn defaulted(&mut self, at: u64, meta: &Meta, value: Shown) -> Result<(), Stop> {
        let mut a = self.annotation(at, at, meta.name.to_string(), meta, Kind::Field, value);
        a.provenance = Provenance::Defaulted;
        self.emit(a)
    }

    /// Open a structure the field `name` holds (`title`: the structure's title).
    pub fn open(&mut self, at: u64, name: &str, title: &'static str) -> Result<(), Stop> {
        let a = Annotation {
            start: at,
            end: at,
            depth: self.depth,
            path: self.path(name),
            name: name.to_string(),
            title,
            kind: Kind::Structure,
            value: Shown::None,
            structure: None,
            since: None,
            provenance: Provenance::Read,
            note: None,
            failing: false,
        };
        self.emit(a)?;
        self.segments.push(name.to_string());
        self.depth += 1;
        Ok(())
    }

    /// Close the innermost structure at `end`.
    pub fn close(&mut self, end: u64) {
        self.segments.pop();
        self.depth = self.depth.saturating_sub(1);
        self.sink.close(end);
    }

    /// Open element `i` of the sequence field `name`.
    pub fn open_element(
        &mut self,
        at: u64,
        name: &str,
        i: u64,
        title: &'static str,
    ) -> Result<(), Stop> {
        self.open(at, &format!("{name}[{i}]"), title)
    }

    /// A cursor over the next `n` bytes of `r` (a length prefix's extent). When fewer remain,
    /// the cursor holds what remains and the flag says the walk must stop after it.
    pub fn sub(&mut self, r: &mut Cursor<'a>, n: u64) -> (Cursor<'a>, bool) {
        let base = r.offset();
        match r.take(n) {
            Some(b) => (Cursor::new(b, base), false),
            None => (Cursor::new(r.take_rest(), base), true),
        }
    }

    /// A tag read `at` bytes ahead without consuming it (a dispatch on a tag inside the
    /// structure it selects). `None` when the bytes end first.
    pub fn peek<P: Scalar>(&mut self, r: &Cursor<'a>, at: usize) -> Option<u32> {
        r.peek(at, P::SIZE).map(|b| P::from_le(b).bits() as u32)
    }

    /// The bytes at the end of a length-prefixed structure on `axis` beyond its version's
    /// fields: skipped when the data is newer than the reader (CD2), surplus otherwise (the
    /// reader rejects them: LEN-1, H7).
    pub fn surplus(&mut self, r: &mut Cursor<'a>, axis: Axis) -> Result<(), Stop> {
        if r.remaining() == 0 {
            return Ok(());
        }
        let start = r.offset();
        r.take_rest();
        let (data, reader) = (self.data(axis), self.reader(axis));
        let skipped = data > reader;
        let name = if skipped { "skipped" } else { "surplus" };
        let a = Annotation {
            start,
            end: r.offset(),
            depth: self.depth,
            path: self.path(name),
            name: name.to_string(),
            title: "",
            kind: if skipped { Kind::Field } else { Kind::Surplus },
            value: Shown::Bytes,
            structure: None,
            since: Some((axis, data)),
            provenance: if skipped {
                Provenance::Skipped
            } else {
                Provenance::Read
            },
            note: Some(if skipped {
                format!(
                    "defined by {} {}, newer than this reader's {} (CD2)",
                    axis.name(),
                    axis.style().show(data),
                    axis.style().show(reader)
                )
            } else {
                format!(
                    "beyond the fields of {} {}, a version this reader knows",
                    axis.name(),
                    axis.style().show(data)
                )
            }),
            failing: false,
        };
        self.emit(a)
    }

    /// The payload of a dispatch value this reader does not know, bounded by a length
    /// prefix: the rest of the cursor, opaque (RES-9), as the field `name`. When the tag is
    /// read inside the payload (`peek`: its offset in the payload, width, path and value),
    /// the tag's bytes are shown as that field, the bytes around them opaque.
    pub fn opaque(
        &mut self,
        r: &mut Cursor<'a>,
        name: &str,
        meta: &Meta,
        space: &'static str,
        tag: u32,
        peek: Option<(u64, u64, &'static str, Shown)>,
    ) -> Result<(), Stop> {
        let note = format!("{space} {tag:#04x} is unknown to this reader: its payload is opaque");
        let chunk = |w: &mut Self, r: &mut Cursor<'a>, n: Option<u64>| -> Result<(), Stop> {
            let start = r.offset();
            match n {
                Some(n) => {
                    r.take(n.min(r.remaining() as u64));
                }
                None => {
                    r.take_rest();
                }
            }
            if r.offset() == start {
                return Ok(());
            }
            let mut a = w.annotation(
                start,
                r.offset(),
                name.to_string(),
                meta,
                Kind::Opaque,
                Shown::Bytes,
            );
            a.note = Some(note.clone());
            w.emit(a)
        };
        if let Some((at, width, path, value)) = peek
            && (r.remaining() as u64) >= at.saturating_add(width)
        {
            chunk(self, r, Some(at))?;
            let start = r.offset();
            r.take(width);
            let mut a = self.annotation(
                start,
                r.offset(),
                format!("{name}.{path}"),
                meta,
                Kind::Field,
                value,
            );
            a.title = "";
            self.emit(a)?;
        }
        chunk(self, r, None)
    }

    /// Bytes a walk cannot interpret, from `start` to `end` (the rest of a part after a
    /// stop, bytes no part locates), with why.
    pub fn unread(&mut self, start: u64, end: u64, why: &str) -> Result<(), Stop> {
        if end <= start {
            return Ok(());
        }
        let a = self.unread_range(start, end, why);
        self.emit(a)
    }

    /// End a walk that `shown` tells how it went: [`Self::finish`] with `unlocated` for the
    /// bytes after a walk that completed, else why it stopped.
    pub fn conclude(&mut self, end: u64, shown: Result<(), Stop>, unlocated: &str) {
        let why = match shown {
            Ok(()) => unlocated.to_string(),
            Err(Stop) => self
                .take_stopped()
                .unwrap_or_else(|| "not interpreted: the walk stopped before".to_string()),
        };
        self.finish(end, &why);
    }

    /// End the walk at `end` (the input's end): close every open structure, and annotate
    /// what no range covers as unread with `why` (or, after the range a rejection names, as
    /// not interpreted). A rejection whose byte no range holds — one past the end of the
    /// input — is marked by an empty range there.
    pub fn finish(&mut self, end: u64, why: &str) {
        self.close_to(0);
        while !self.segments.is_empty() {
            self.segments.pop();
        }
        let cut = self.verdict == Verdict::Cut || matches!(self.verdict, Verdict::Marked(_));
        if self.covered < end {
            let mut a = self.unread_range(
                self.covered,
                end,
                if cut {
                    "not interpreted: after the range the rejection names"
                } else {
                    why
                },
            );
            // A rejection at the end of the input (it ends too soon) is held by the bytes
            // that could not be interpreted before it.
            if let (Some(f), Verdict::Before) = (self.failing, self.verdict)
                && a.start <= f
                && (f < a.end || f == end)
            {
                a.failing = true;
                self.verdict = Verdict::Marked(a.end);
            }
            self.covered = end;
            self.sink.annotation(a);
        }
        if let (Some(f), Verdict::Before) = (self.failing, self.verdict)
            && f >= self.covered
        {
            let mut a = self.unread_range(f, f, "the rejection names the end of the input");
            a.failing = true;
            self.verdict = Verdict::Marked(f);
            self.sink.annotation(a);
        }
    }

    /// True when the range holding the rejection's byte was annotated.
    pub fn marked(&self) -> bool {
        !matches!(self.verdict, Verdict::Before)
    }

    /// A padding run (`name`: where it lies).
    pub fn padding(&mut self, start: u64, end: u64, name: &str) -> Result<(), Stop> {
        if end <= start {
            return Ok(());
        }
        let run = &self.input[start as usize..end as usize];
        let note = crate::wire::first_nonzero(run).map(|i| {
            format!(
                "byte {} is {:#04x}: padding must be zero",
                start + i as u64,
                run[i]
            )
        });
        let a = Annotation {
            start,
            end,
            depth: self.depth,
            path: self.path(name),
            name: name.to_string(),
            title: "",
            kind: Kind::Padding,
            value: Shown::None,
            structure: None,
            since: None,
            provenance: Provenance::Read,
            note,
            failing: false,
        };
        self.emit(a)
    }

    /// A data buffer: buffer `buffer` of the tensor at index position `tensor`.
    pub fn buffer(
        &mut self,
        start: u64,
        end: u64,
        tensor: u32,
        buffer: u32,
        note: Option<String>,
    ) -> Result<(), Stop> {
        let name = format!("buffers[{buffer}]");
        let a = Annotation {
            start,
            end,
            depth: self.depth,
            path: self.path(&name),
            name,
            title: "",
            kind: Kind::Data { tensor, buffer },
            value: Shown::None,
            structure: None,
            since: None,
            provenance: Provenance::Read,
            note,
            failing: false,
        };
        self.emit(a)
    }

    /// Attach a remark to the range that will start at `at` (a value computed elsewhere:
    /// the index's CRC-32C beside the one the trailer stores).
    pub fn remark(&mut self, at: u64, note: String) {
        self.remarks.push((at, note));
    }
}

/// A tag value as shown.
pub fn tag_shown<S: TagSpace>(v: TagValue<S>) -> Shown {
    Shown::Tag {
        raw: v.raw(),
        space: S::NAME,
        name: v.name(),
        standing: TagStanding::of(v.class()),
    }
}

/// Flag bits as shown: the names of the set bits the set allocates, and the rest.
pub fn flags_shown(
    bits: u64,
    set: &'static str,
    allocated: u64,
    bit_name: fn(u32) -> Option<&'static str>,
) -> Shown {
    let names = (0..64)
        .filter(|b| bits & (1u64 << b) != 0)
        .filter_map(bit_name)
        .collect();
    Shown::Flags {
        raw: bits,
        set,
        names,
        unknown: bits & !allocated,
    }
}
