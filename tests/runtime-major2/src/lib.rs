//! `hurray-runtime`'s own source, compiled against code generated from spec/ with the
//! overlay `edit.toml` beside this crate (the descriptor at its next major, the OpenCL device
//! value dropped, a migration specification carrying everything else): the new build the
//! migration tests write with.

#[path = "../../../hurray-runtime/src/lib.rs"]
mod runtime;
pub use runtime::*;
// The generated `Arbitrary` impls reach their helpers as `crate::generate`.
#[cfg(feature = "arbitrary")]
use runtime::generate;
