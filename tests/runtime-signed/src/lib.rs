//! `hurray-runtime`'s own source, compiled against code generated from spec/ with the
//! `major-byte-offset-signed` amendment (tests/fixtures/amendments/major-byte-offset-signed:
//! the next descriptor major, `byte_offset` turned `i64`): the hand-written layer takes its
//! field types from the generated code, so a type change `hurray-spec check` accepts
//! compiles with no edit of the runtime, and a value the checked arithmetic cannot take (a
//! negative offset) is a rejection with the rule's code, never a panic.

#[path = "../../../hurray-runtime/src/lib.rs"]
mod runtime;
pub use runtime::*;
// The generated `Arbitrary` impls reach their helpers as `crate::generate`.
#[cfg(feature = "arbitrary")]
use runtime::generate;
