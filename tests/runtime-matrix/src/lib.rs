//! `hurray-runtime`'s own source, compiled against code generated from spec/ with the
//! `compatibility-matrix` amendment (tests/fixtures/amendments/compatibility-matrix): a second, newer build of the runtime,
//! so the evolvability tests can make two builds from two spec versions talk to each other.

#[path = "../../../hurray-runtime/src/lib.rs"]
mod runtime;
pub use runtime::*;
// The generated `Arbitrary` impls reach their helpers as `crate::generate`.
#[cfg(feature = "arbitrary")]
use runtime::generate;
