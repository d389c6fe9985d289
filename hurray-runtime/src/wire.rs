//! Wire primitives the generated code is written against: little-endian scalars, borrowed
//! arrays, a bounds-checked reader, typed tag and flag values, and read-or-defaulted fields.

use std::fmt;
use std::marker::PhantomData;

use crate::error::Error;
use crate::generated::axes::Axis;
use crate::generated::rules::Rule;
use crate::version::Version;

/// Seals the traits only this crate implements (its generated code, for the tag spaces, flag
/// sets and fixed views of the spec it was built from): a later spec adds implementations,
/// never a downstream crate.
pub(crate) mod sealed {
    /// The supertrait that keeps [`TagSpace`](super::TagSpace), [`FlagSet`](super::FlagSet),
    /// [`Scalar`](super::Scalar) and [`FixedView`](super::FixedView) closed.
    pub trait Sealed {}
}

/// A fixed-size little-endian scalar.
pub trait Scalar: sealed::Sealed + Copy + fmt::Debug + PartialEq + 'static {
    /// Bytes of one scalar.
    const SIZE: usize;
    /// Read from exactly `SIZE` bytes.
    fn from_le(b: &[u8]) -> Self;
    /// Append the little-endian encoding.
    fn put(self, out: &mut Vec<u8>);
    /// Widen to i128 for comparisons (floats: their integer part; never used for floats).
    fn as_i128(self) -> i128;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn from_le(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..std::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            #[allow(clippy::cast_lossless, clippy::unnecessary_cast)]
            fn as_i128(self) -> i128 {
                self as i128
            }
        }
    )*};
}
scalar!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

/// Read a scalar at a byte offset of a slice the caller has already bounds-checked.
#[inline]
pub fn read<T: Scalar>(bytes: &[u8], offset: usize) -> T {
    T::from_le(&bytes[offset..offset + T::SIZE])
}

/// Text a parse has checked is UTF-8, read again by a view without checking it again.
///
/// # Safety
/// `bytes` must be valid UTF-8 (a view passes the span its parse checked).
#[inline]
pub unsafe fn validated_str(bytes: &[u8]) -> &str {
    // SAFETY: the caller guarantees `bytes` is UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// A `Copy` view addresses its fields with 32-bit positions: a structure of more than 4 GiB is
/// a value too large for it to address, rejected at the bound of the reader it was read from.
#[inline]
pub fn addressable(len: usize, offset: u64, bound: Rule, what: &str) -> Result<(), Error> {
    if u32::try_from(len).is_ok() {
        return Ok(());
    }
    Err(Error::fmt(
        bound,
        offset,
        format_args!("{what} spans {len} bytes, more than the 4 GiB a view addresses"),
    ))
}

/// A scalar at `offset`, or zero where `bytes` end first: for arithmetic over bytes a parse has
/// checked (never short there), total on any other bytes.
#[inline]
pub fn read_within<T: Scalar>(bytes: &[u8], offset: usize) -> T {
    match offset
        .checked_add(T::SIZE)
        .and_then(|end| bytes.get(offset..end))
    {
        Some(b) => T::from_le(b),
        None => T::from_le(&[0; 16][..T::SIZE]),
    }
}

/// A borrowed array of little-endian scalars; no allocation, no alignment requirement.
#[derive(Clone, Copy, PartialEq)]
pub struct Array<'a, T> {
    bytes: &'a [u8],
    _t: PhantomData<T>,
}

impl<'a, T: Scalar> Array<'a, T> {
    /// An array over `bytes`, whose length is a multiple of `T::SIZE`.
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Array<'a, T> {
        debug_assert_eq!(bytes.len() % T::SIZE, 0);
        Array {
            bytes,
            _t: PhantomData,
        }
    }
    /// The number of scalars.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() / T::SIZE
    }
    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    /// The scalar at `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        (i < self.len()).then(|| read(self.bytes, i * T::SIZE))
    }
    /// Every scalar, in order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + 'a {
        let bytes = self.bytes;
        (0..bytes.len() / T::SIZE).map(move |i| read(bytes, i * T::SIZE))
    }
    /// The bytes as they are on the wire.
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// The scalars, copied.
    #[inline]
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }
}

impl<T: Scalar> fmt::Debug for Array<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A field appended after its structure's first version: read from the data, or the
/// documented default because the data (or the reader) predates it (R4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field<T> {
    /// Read from the data.
    Read(T),
    /// The documented default: the data or the reader predates the field.
    Defaulted(T),
}

impl<T: Copy> Field<T> {
    /// The value, read or defaulted.
    pub fn value(self) -> T {
        match self {
            Field::Read(v) | Field::Defaulted(v) => v,
        }
    }
    /// Whether the value is the documented default rather than read.
    pub fn is_defaulted(self) -> bool {
        matches!(self, Field::Defaulted(_))
    }
}

/// Where an unknown value falls in its tag space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagClass<T> {
    /// Allocated by the spec this build was generated from.
    Known(T),
    /// In a public range but not allocated (at this build's version).
    UnallocatedPublic {
        /// The tier of its range, when the range has tiers.
        tier: Option<u8>,
    },
    /// In a range reserved for future versions.
    Reserved,
    /// In an implementation-private range.
    Private,
    /// Never valid.
    Invalid,
}

/// A value that is not an allocated tag of its space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownTag {
    /// The tag space's name.
    pub space: &'static str,
    /// The raw value.
    pub value: u32,
    /// Where it falls in the space.
    pub class: TagClass<()>,
}

impl fmt::Display for UnknownTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.class {
            TagClass::Known(()) => "allocated",
            TagClass::UnallocatedPublic { .. } => "an unallocated public",
            TagClass::Reserved => "a reserved",
            TagClass::Private => "an implementation-private",
            TagClass::Invalid => "an invalid",
        };
        write!(f, "{:#04x} is {what} {} value", self.value, self.space)
    }
}

impl std::error::Error for UnknownTag {}

/// A generated tag space (sealed: only the generated tag enums implement it).
pub trait TagSpace: sealed::Sealed + Copy + fmt::Debug + PartialEq + Eq + 'static {
    /// The space's name in the spec.
    const NAME: &'static str;
    /// Bytes of one value on the wire.
    const WIDTH: usize;
    /// The axis that versions its allocations.
    const AXIS: Axis;
    /// Rules broken by an invalid, an unknown public or reserved, and an unagreed private value.
    const REJECT_INVALID: Rule;
    /// The rule an unknown public or reserved value breaks.
    const REJECT_UNKNOWN: Rule;
    /// The rule a private value nobody agreed on breaks.
    const REJECT_PRIVATE: Rule;
    /// Every allocated value.
    const ALL: &'static [Self];
    /// Where `raw` falls in the space.
    fn classify(raw: u32) -> TagClass<Self>;
    /// The value on the wire.
    fn value(self) -> u32;
    /// The value's name in the spec.
    fn name(self) -> &'static str;
    /// What the value means (its title in the spec).
    fn title(self) -> &'static str;
    /// The version that allocated it.
    fn since(self) -> Version;
    /// The version that deprecated it, if any.
    fn deprecated_since(self) -> Option<Version>;
    /// What replaces it, when deprecated with a replacement.
    fn replacement(self) -> Option<Self>;
    /// The allocated value of that name.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|t| t.name() == name)
    }
    /// The typed value, or why it is not one.
    fn lookup(raw: u32) -> Result<Self, UnknownTag> {
        match Self::classify(raw) {
            TagClass::Known(t) => Ok(t),
            TagClass::UnallocatedPublic { tier } => Err(UnknownTag {
                space: Self::NAME,
                value: raw,
                class: TagClass::UnallocatedPublic { tier },
            }),
            TagClass::Reserved => Err(UnknownTag {
                space: Self::NAME,
                value: raw,
                class: TagClass::Reserved,
            }),
            TagClass::Private => Err(UnknownTag {
                space: Self::NAME,
                value: raw,
                class: TagClass::Private,
            }),
            TagClass::Invalid => Err(UnknownTag {
                space: Self::NAME,
                value: raw,
                class: TagClass::Invalid,
            }),
        }
    }
}

/// A tag field's raw value, typed by its space. Reading never fails; `get` says whether the
/// value is allocated.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TagValue<T> {
    raw: u32,
    _t: PhantomData<T>,
}

impl<T: TagSpace> TagValue<T> {
    /// A tag field holding `raw`, allocated or not.
    pub const fn from_raw(raw: u32) -> TagValue<T> {
        TagValue {
            raw,
            _t: PhantomData,
        }
    }
    /// A tag field holding an allocated value.
    pub fn new(tag: T) -> TagValue<T> {
        TagValue::from_raw(tag.value())
    }
    /// The raw value, whether or not this build allocates it.
    pub fn raw(self) -> u32 {
        self.raw
    }
    /// The allocated value, or where the raw value falls when it is not one.
    pub fn get(self) -> Result<T, UnknownTag> {
        T::lookup(self.raw)
    }
    /// Where the raw value falls in its space.
    pub fn class(self) -> TagClass<T> {
        T::classify(self.raw)
    }
    /// The allocated name, if any.
    pub fn name(self) -> Option<&'static str> {
        self.get().ok().map(T::name)
    }
}

impl<T: TagSpace> From<T> for TagValue<T> {
    fn from(t: T) -> Self {
        TagValue::new(t)
    }
}

impl<T: TagSpace> fmt::Debug for TagValue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.get() {
            Ok(t) => write!(f, "{}({:#04x})", t.name(), self.raw),
            Err(_) => write!(f, "{}({:#04x})", T::NAME, self.raw),
        }
    }
}

/// A generated flag set (sealed: only the generated flag types implement it).
pub trait FlagSet: sealed::Sealed + Copy + fmt::Debug + PartialEq + Eq + 'static {
    /// The set's name in the spec.
    const NAME: &'static str;
    /// The axis that versions its bits.
    const AXIS: Axis;
    /// Every allocated bit.
    const ALLOCATED: u64;
    /// The rule a set reserved bit breaks.
    const RULE: Rule;
    /// The set holding `bits` (allocated or not).
    fn from_bits(bits: u64) -> Self;
    /// Its bits.
    fn bits(self) -> u64;
    /// Bits allocated at or before `v`.
    fn known_at(v: Version) -> u64;
    /// The name of an allocated bit.
    fn bit_name(bit: u32) -> Option<&'static str>;
    /// The version that allocated a bit.
    fn bit_since(bit: u32) -> Option<Version>;
    /// Bits deprecated with a non-deprecated equivalent (W3).
    fn deprecated_mask() -> u64;
    /// Bits only valid with others (`requires` in the tables): `(bit, the bits it needs, the
    /// rule a set with the bit and without them breaks)`.
    const REQUIRES: &'static [(u64, u64, Rule)];
    /// Whether every bit of `other` is set.
    fn contains(self, other: Self) -> bool {
        self.bits() & other.bits() == other.bits()
    }
}

/// A bounds-checked cursor over part of the input. Offsets in errors are absolute. Internal:
/// the generated parsers are written against it.
#[doc(hidden)]
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
    bound: Rule,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`, which start at absolute offset `base`; reading past the end
    /// breaks `bound`.
    #[inline]
    pub fn new(bytes: &'a [u8], base: u64, bound: Rule) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            base,
            bound,
        }
    }
    /// Absolute offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    /// Bytes left to read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
    /// The rule broken by reading past the end.
    #[inline]
    pub fn bound(&self) -> Rule {
        self.bound
    }
    #[cold]
    fn short(&self, need: u64, what: &str) -> Error {
        Error::fmt(
            self.bound,
            self.offset(),
            format_args!(
                "{what} needs {need} byte(s) but only {} remain",
                self.remaining()
            ),
        )
    }
    /// Take `n` bytes.
    #[inline]
    pub fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], Error> {
        if n > self.remaining() as u64 {
            return Err(self.short(n, what));
        }
        let n = n as usize;
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    /// Take one scalar.
    #[inline]
    pub fn scalar<T: Scalar>(&mut self, what: &str) -> Result<T, Error> {
        Ok(T::from_le(self.take(T::SIZE as u64, what)?))
    }
    /// Take `count` scalars; the count is checked against the bytes that remain before anything
    /// is touched.
    #[inline]
    pub fn array<T: Scalar>(&mut self, count: u64, what: &str) -> Result<Array<'a, T>, Error> {
        let n = count
            .checked_mul(T::SIZE as u64)
            .ok_or_else(|| self.short(u64::MAX, what))?;
        Ok(Array::new(self.take(n, what)?))
    }
    /// Read a scalar `at` bytes ahead without consuming.
    #[inline]
    pub fn peek<T: Scalar>(&self, at: usize, what: &str) -> Result<T, Error> {
        if at + T::SIZE > self.remaining() {
            return Err(self.short((at + T::SIZE) as u64, what));
        }
        Ok(read(self.bytes, self.pos + at))
    }
    /// A reader over the next `n` bytes, which breaks `bound` when read past.
    #[inline]
    pub fn sub(&mut self, n: u64, bound: Rule, what: &str) -> Result<Reader<'a>, Error> {
        let base = self.offset();
        let bytes = self.take(n, what)?;
        Ok(Reader::new(bytes, base, bound))
    }
    /// Everything that remains.
    #[inline]
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.bytes[self.pos..];
        self.pos = self.bytes.len();
        s
    }
    /// The bytes consumed since position `start` (a value of [`Reader::pos`]).
    #[inline]
    pub fn since(&self, start: usize) -> &'a [u8] {
        &self.bytes[start..self.pos]
    }
    /// The current position within this reader's bytes.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }
}

/// A view of a fixed-size structure that can be rebuilt from its bytes alone (all its fields
/// sit at constant offsets). Sealed: only the generated views implement it.
pub trait FixedView<'a>: sealed::Sealed + Copy {
    /// Encoded size in bytes.
    const SIZE: usize;
    /// The view of `bytes` (exactly `SIZE` of them), which sit at absolute `offset`.
    fn at(bytes: &'a [u8], offset: u64) -> Self;
}

/// A borrowed sequence of fixed-size structures, already validated.
#[derive(Clone, Copy)]
pub struct FixedSeq<'a, V> {
    bytes: &'a [u8],
    offset: u64,
    _v: PhantomData<V>,
}

impl<'a, V: FixedView<'a>> FixedSeq<'a, V> {
    /// A sequence over `bytes` (a whole number of structures) at absolute `offset`.
    #[inline]
    pub fn new(bytes: &'a [u8], offset: u64) -> FixedSeq<'a, V> {
        FixedSeq {
            bytes,
            offset,
            _v: PhantomData,
        }
    }
    /// The number of structures.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() / V::SIZE
    }
    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    /// The structure at `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<V> {
        (i < self.len()).then(|| {
            V::at(
                &self.bytes[i * V::SIZE..(i + 1) * V::SIZE],
                self.offset + (i * V::SIZE) as u64,
            )
        })
    }
    /// Every structure, in order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = V> + 'a {
        let (bytes, offset) = (self.bytes, self.offset);
        (0..bytes.len() / V::SIZE).map(move |i| {
            V::at(
                &bytes[i * V::SIZE..(i + 1) * V::SIZE],
                offset + (i * V::SIZE) as u64,
            )
        })
    }
}

impl<'a, V: FixedView<'a> + fmt::Debug> fmt::Debug for FixedSeq<'a, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The vector a parser fills with `declared` entries read from `remaining` bytes: its
/// reservation is bounded by the bytes left, so a count a file declares (and has not yet
/// backed with entries) reserves at most as many bytes as the input holds, whatever the size
/// of one parsed entry. Entries parsed beyond the reservation grow it as they are read, each
/// from at least one byte of input.
pub fn vec_for_entries<T>(declared: u64, remaining: usize) -> Vec<T> {
    let per_entry = size_of::<T>().max(1);
    let declared = usize::try_from(declared).unwrap_or(usize::MAX);
    Vec::with_capacity(declared.min(remaining / per_entry))
}

/// The index of the first non-zero byte: padding and reserved-byte checks over whole files
/// run at memory speed (16-byte words are OR-folded 4 KiB at a time, which vectorizes; only
/// a run that is not all zero is searched byte by byte).
pub fn first_nonzero(bytes: &[u8]) -> Option<usize> {
    let bytewise = |from: usize, to: usize| {
        bytes[from..to]
            .iter()
            .position(|&x| x != 0)
            .map(|i| from + i)
    };
    let (words, _) = bytes.as_chunks::<16>();
    let mut base = 0;
    for run in words.chunks(256) {
        let any = run.iter().fold(0u128, |a, w| a | u128::from_ne_bytes(*w));
        let end = base + run.len() * 16;
        if any != 0 {
            return bytewise(base, end);
        }
        base = end;
    }
    bytewise(base, bytes.len())
}

#[cfg(test)]
mod tests {
    use super::first_nonzero;

    #[test]
    fn first_nonzero_finds_the_first_set_byte_anywhere() {
        for len in [0usize, 1, 63, 64, 65, 200] {
            assert_eq!(first_nonzero(&vec![0; len]), None);
            for at in 0..len {
                let mut b = vec![0u8; len];
                b[at] = 1;
                if at + 1 < len {
                    b[len - 1] = 2;
                }
                assert_eq!(first_nonzero(&b), Some(at), "len {len}, at {at}");
            }
        }
    }
}
