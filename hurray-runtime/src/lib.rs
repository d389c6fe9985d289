//! `hurray-runtime`: zero-copy readers and single-pass writers for the Hurray tensor format.
//!
//! The tag spaces, flag sets, rules, axes and every structure's view and owned form are
//! generated from `spec/` by the build script ([`generated`]). By hand: the wire primitives
//! they are written against ([`wire`], [`ctx`]), and the semantic layer that enforces the
//! rules tables cannot state.

pub mod contract;
pub mod ctx;
pub mod descriptor;
pub mod error;
pub mod file;
pub mod inspect;
#[cfg(feature = "json")]
pub mod json;
pub mod section;
pub mod semantic;
pub mod sequential;
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
