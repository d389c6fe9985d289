//! `hurray-runtime`: zero-copy readers and single-pass writers for the Hurray tensor format.
//!
//! The tag spaces, flag sets, rules, axes and every structure's view and owned form are
//! generated from the spec tables by the build script ([`generated`]; `hurray-spec gen rust`
//! prints the same code). By hand: the wire primitives they are written against ([`wire`]),
//! the reader's configuration ([`ReaderConfig`]), the entry points ([`descriptor`], [`file`](mod@file),
//! [`sequential`], [`stream`], [`writer`]) and the semantic layer that enforces the rules tables cannot
//! state ([`semantic`]).
//!
//! # Getting started
//!
//! Add the crate (`hurray-runtime = "0.1"`), then read with [`file::open`] (a byte slice) or
//! [`file::MappedFile`] (a memory map), write with [`writer::FileWriter`]. Every rejection is
//! an [`Error`] with a stable kebab-case [`code`](Error::code), the absolute byte
//! [`offset`](Error::offset) and the [`rule`](Error::rule) it breaks.
//!
//! ## Writing a descriptor and a file
//!
//! An owned descriptor ([`structures::Descriptor`]) is finalized by the writer rules
//! ([`writer::finalize`]: the lowest version covering what it emits, W1–W4), then written
//! into a file with its data; nothing a reader would reject is written.
//!
//! ```
//! use hurray_runtime::tags::ElementType;
//! use hurray_runtime::writer::{self, FileOptions, FileWriter};
//!
//! // A 2×2 float32 tensor: one buffer of 16 bytes.
//! let descriptor = writer::finalize(writer::row_major(ElementType::Float32, &[2, 2]))?;
//! let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|x| x.to_le_bytes()).collect();
//!
//! let mut file = FileWriter::new(Vec::new(), &FileOptions::default())?;
//! file.add_tensor("weights", &descriptor, &[&data])?;
//! let bytes: Vec<u8> = file.finish(&[])?;
//! assert_eq!(&bytes[..8], b"HRRYFILE");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Reading a file
//!
//! [`file::open`] checks the header, the trailer, the index and the KV section; a tensor is
//! checked (its descriptor, placement, padding and data rules) when first reached, and
//! [`FileView::verify_all`](file::FileView::verify_all) checks the rest of the file.
//!
//! ```
//! # use hurray_runtime::tags::ElementType;
//! # use hurray_runtime::writer::{self, FileOptions, FileWriter};
//! # let descriptor = writer::finalize(writer::row_major(ElementType::Float32, &[2, 2]))?;
//! # let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|x| x.to_le_bytes()).collect();
//! # let mut file = FileWriter::new(Vec::new(), &FileOptions::default())?;
//! # file.add_tensor("weights", &descriptor, &[&data])?;
//! # let bytes: Vec<u8> = file.finish(&[])?;
//! use hurray_runtime::{ReaderConfig, file};
//!
//! let view = file::open(&bytes, &ReaderConfig::new())?;
//! let tensor = view.tensor("weights")?.expect("a tensor of that name");
//! assert_eq!(tensor.data(), &data[..]);
//! let descriptor = tensor.descriptor();
//! assert_eq!(descriptor.view().shape().to_vec(), vec![2, 2]);
//! assert_eq!(descriptor.view().fixed_header().type_tag().get(), Ok(ElementType::Float32));
//! assert!(tensor.dereferenceable());
//! view.verify_all()?;
//!
//! // A damaged byte is a rejection with its code, offset and rule.
//! let mut damaged = bytes.clone();
//! damaged[0] = b'X';
//! let error = file::open(&damaged, &ReaderConfig::new()).unwrap_err();
//! assert_eq!(error.offset(), 0);
//! assert!(error.to_string().starts_with(&format!("error[{}]: ", error.code())));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Pinning a reader version
//!
//! A reader acts at the spec's current version on every [axis](axes::Axis) unless pinned to
//! an older one: then everything newer is unknown to it, exactly as to a reader built from the
//! older spec (CD1, CD2). A major the build does not read is a configuration error (CD3).
//!
//! ```
//! use hurray_runtime::axes::Axis;
//! use hurray_runtime::tags::ElementType;
//! use hurray_runtime::{ReaderConfig, Version, descriptor, writer};
//!
//! let bytes = writer::finalize(writer::row_major(ElementType::Int8, &[8]))?;
//! let oldest = ReaderConfig::new().with_version(Axis::Descriptor, Axis::Descriptor.initial())?;
//! let read = descriptor::read(&bytes, &oldest)?;
//! assert!(read.warnings().is_empty());
//!
//! // The same pin from text, as `hurray decode --reader AXIS=VERSION` takes it.
//! let initial = Axis::Descriptor.initial();
//! let text = format!("{}={}.{}", Axis::Descriptor.name(), initial.major, initial.minor);
//! let pinned = ReaderConfig::new().with_version_str(&text)?;
//! assert_eq!(pinned.version(Axis::Descriptor), initial);
//! let next_major = Version::new(initial.major + 1, 0);
//! assert!(ReaderConfig::new().with_version(Axis::Descriptor, next_major).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Deriving a section
//!
//! An extension section is a Rust struct with `#[derive(HurraySection)]` from the
//! `hurray-derive` crate, which implements [`section::Section`] and compares a struct linked
//! to the spec with the spec at compile time; its crate documentation has the doctested
//! example (a private quantization scheme written into a descriptor and read back).
//!
//! # A spec that grows: matching generated enums
//!
//! A minor release of the spec allocates tag values, rules, axes and flag bits (CD2: a reader
//! rejects the values it does not know, outside the permissive exceptions). In Rust, the
//! generated enums are `#[non_exhaustive]`: a `match` outside this crate has a wildcard arm,
//! so it keeps compiling against a runtime generated from a newer spec. A value this build does
//! not know never becomes a variant: reading it keeps it as the raw tag of a
//! [`TagValue`], whose [`get`](TagValue::get) says where it falls in its space.
//!
//! ```
//! use hurray_runtime::tags::ElementType;
//! use hurray_runtime::{TagClass, TagValue};
//!
//! fn bits(tag: TagValue<ElementType>) -> Option<u32> {
//!     match tag.get() {
//!         Ok(ElementType::Float32 | ElementType::Int32 | ElementType::Uint32) => Some(32),
//!         Ok(ElementType::Float16 | ElementType::Bfloat16) => Some(16),
//!         // Every other value, including those a later minor release allocates.
//!         Ok(_) => None,
//!         // Not allocated at this build's version: still there, as its raw value.
//!         Err(unknown) => {
//!             assert_eq!(unknown.value, tag.raw());
//!             None
//!         }
//!     }
//! }
//! assert_eq!(bits(TagValue::new(ElementType::Float32)), Some(32));
//! let unallocated = (0..=0xFF)
//!     .map(TagValue::<ElementType>::from_raw)
//!     .find(|t| matches!(t.class(), TagClass::UnallocatedPublic { .. }))
//!     .expect("the space has room to grow");
//! assert_eq!(bits(unallocated), None);
//! ```
#![warn(missing_docs)]

pub mod contract;
pub mod ctx;
pub mod descriptor;
pub mod error;
pub mod file;
#[cfg(feature = "arbitrary")]
pub(crate) mod generate;
pub(crate) mod input;
pub mod inspect;
#[cfg(feature = "json")]
pub mod json;
pub mod limit;
pub mod message;
#[cfg(feature = "json")]
pub mod migrate;
pub mod migration_table;
pub mod protocol;
pub mod section;
pub mod semantic;
pub mod seq;
pub mod sequential;
pub mod stream;
pub mod tag_space;
pub mod value;
pub mod version;
pub mod wire;
pub mod writer;

/// Code generated from `spec/` (see `hurray-codegen`).
#[allow(
    clippy::all,
    missing_debug_implementations,
    unreachable_patterns,
    unused_parens,
    unused_braces
)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/hurray_generated.rs"));
}

pub use ctx::{ReaderConfig, Warning};
pub use error::Error;
pub use generated::{axes, consts, flags, rules, structures, tags};
pub use value::Value;
pub use version::Version;
pub use wire::{Field, TagClass, TagSpace, TagValue};

/// Paths `#[derive(HurraySection)]` expands to; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::section::__private::*;
}
