//! Sections declared in Rust with `#[derive(HurraySection)]` (crate `hurray-derive`): the
//! traits the derive implements, and the reading and writing rules they follow — R4 defaults
//! for fields beyond the data, RES-7 for surplus bytes, W4 whole trailing fields.

use crate::error::Error;
use crate::generated::rules::Rule;
use crate::version::Version;

/// A fixed-size little-endian wire type a section field may have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fixed-size Hurray wire type",
    label = "this field's type has no fixed wire encoding",
    note = "section fields are u8…u64, i8…i64, f32, f64, [u8; N], TagValue<…>, generated flag types, or fixed sections deriving HurraySection"
)]
pub trait WireField: Sized {
    /// Encoded size in bytes.
    const SIZE: usize;
    /// Read from exactly `SIZE` bytes.
    fn read_le(b: &[u8]) -> Self;
    /// Append the encoding.
    fn write_le(&self, out: &mut Vec<u8>);
    /// Whether every byte of the value is zero (reserved fields).
    fn is_zero(&self) -> bool {
        let mut v = Vec::with_capacity(Self::SIZE);
        self.write_le(&mut v);
        v.iter().all(|b| *b == 0)
    }
}

macro_rules! prim {
    ($($t:ty),*) => {$(
        impl WireField for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read_le(b: &[u8]) -> Self {
                <$t as crate::wire::Scalar>::from_le(b)
            }
            fn write_le(&self, out: &mut Vec<u8>) {
                crate::wire::Scalar::put(*self, out)
            }
        }
    )*};
}
prim!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

impl<const N: usize> WireField for [u8; N] {
    const SIZE: usize = N;
    fn read_le(b: &[u8]) -> Self {
        let mut a = [0u8; N];
        a.copy_from_slice(&b[..N]);
        a
    }
    fn write_le(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self);
    }
}

impl<T: crate::wire::TagSpace> WireField for crate::wire::TagValue<T> {
    const SIZE: usize = T::WIDTH;
    fn read_le(b: &[u8]) -> Self {
        let mut raw = 0u32;
        for (i, x) in b[..T::WIDTH].iter().enumerate() {
            raw |= u32::from(*x) << (8 * i);
        }
        crate::wire::TagValue::from_raw(raw)
    }
    fn write_le(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.raw().to_le_bytes()[..T::WIDTH]);
    }
}

/// A section declared with `#[derive(HurraySection)]`.
pub trait Section: Sized {
    /// The section's first version.
    const BASE: Version;
    /// Whether a length prefix frames the section (fields may be appended in later versions).
    const LENGTH_PREFIXED: bool;
    /// `(version, encoded size)` for every version that appended fields, oldest first.
    const VERSIONS: &'static [(Version, usize)];
    /// Names of the fields, in wire order.
    const FIELDS: &'static [&'static str];

    /// The encoded size of the fields known at `v`.
    fn size_at(v: Version) -> usize {
        Self::VERSIONS
            .iter()
            .filter(|(at, _)| *at <= v)
            .map(|(_, s)| *s)
            .next_back()
            .unwrap_or(0)
    }

    /// The newest version this declaration knows.
    fn latest() -> Version {
        Self::VERSIONS.last().map_or(Self::BASE, |(v, _)| *v)
    }

    /// Read the section from `bytes` (exactly the bytes its framing gives it), written at
    /// `data` and read by a reader acting at `reader` (usually [`Section::latest`]).
    fn read(bytes: &[u8], data: Version, reader: Version) -> Result<Decoded<Self>, Error>;

    /// The lowest version that covers every field whose value differs from its documented
    /// default (W1, W2).
    fn required_version(&self) -> Version;

    /// Append the fields known at `v`, whole (W4). The caller's length prefix is the length
    /// this appends.
    fn write_at(&self, v: Version, out: &mut Vec<u8>);

    /// Append the section at its required version, and return that version.
    fn write(&self, out: &mut Vec<u8>) -> Version {
        let v = self.required_version();
        self.write_at(v, out);
        v
    }
}

/// A section read from bytes, with what reading had to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded<T> {
    /// The section as read (defaults filled in).
    pub value: T,
    /// Fields beyond the data's (or the reader's) version, set to their documented defaults (R4).
    pub defaulted: Vec<&'static str>,
    /// Bytes from a newer version that this reader skipped (CD2).
    pub skipped: usize,
}

/// How many bytes of a section a reader interprets, per RES-7: at a version the reader knows
/// the length must match exactly; from a newer one the rest is skipped.
pub fn known_length(
    len: usize,
    data: Version,
    reader: Version,
    at_data: usize,
    at_reader: usize,
    prefixed: bool,
) -> Result<usize, Error> {
    if !prefixed {
        return if len >= at_reader {
            Ok(at_reader)
        } else {
            Err(Error::new(
                Rule::Sec2,
                len as u64,
                format!("the section needs {at_reader} bytes, {len} given"),
            ))
        };
    }
    if data <= reader {
        if len < at_data {
            return Err(Error::new(
                Rule::Sec2,
                len as u64,
                format!("the section is {len} bytes; version {data} defines {at_data}"),
            ));
        }
        if len > at_data {
            return Err(Error::new(
                Rule::Len1,
                at_data as u64,
                format!(
                    "{} surplus byte(s) after the {at_data} bytes version {data} defines",
                    len - at_data
                ),
            ));
        }
        Ok(len)
    } else {
        if len < at_reader {
            return Err(Error::new(
                Rule::Sec2,
                len as u64,
                format!(
                    "the section is {len} bytes; this reader's version {reader} needs {at_reader}"
                ),
            ));
        }
        Ok(at_reader)
    }
}

/// The unsigned integer types a section's own length prefix may have, with their largest
/// value.
pub trait MaxValue {
    /// The type's largest value.
    const MAX_VALUE: Self;
}

macro_rules! max_value {
    ($($t:ty),*) => {$(
        impl MaxValue for $t {
            const MAX_VALUE: Self = <$t>::MAX;
        }
    )*};
}
max_value!(u8, u16, u32, u64);

/// Paths the derive's expansion uses; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::error::Error;
    pub use crate::generated::rules::Rule;
    pub use crate::section::{Decoded, Section, WireField, known_length};
    pub use crate::version::Version;
    pub use crate::wire::Field;

    /// A section's own length prefix for an encoded size, in the prefix field's type (a size
    /// the type cannot hold saturates: the fields of a derived section are a few bytes).
    pub fn length_prefix<T: TryFrom<usize> + super::MaxValue>(size: usize) -> T {
        T::try_from(size).unwrap_or(T::MAX_VALUE)
    }

    /// Whether two values differ, bit for bit, in the encoding `write` gives them. The
    /// expansion passes `<T as WireField>::write_le`, so a field type that is no wire type is
    /// reported once, at the field's type, and never through this function's bounds.
    pub fn differs<T>(a: &T, b: &T, write: fn(&T, &mut Vec<u8>)) -> bool {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        write(a, &mut x);
        write(b, &mut y);
        x != y
    }
}
