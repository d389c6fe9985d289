//! The runtime of the last release: the reader `hurray migrate` pairs with the current
//! runtime's writer (issue #18).
//!
//! While the spec has a pending major on some axis (its major above the last release's),
//! the build script generates code from that release's archived tables
//! (`spec/releases/NNNN/`, embedded by `hurray-spec-tables`) and this crate compiles
//! `hurray-runtime`'s own source against it: a runtime of the old major. Otherwise the
//! released spec is the current one and this crate re-exports `hurray-runtime`, so a tree
//! without a pending major compiles the runtime once.
//!
//! The runtime's source is the dependency's own (`hurray-runtime`'s build script names its
//! directory, `links = "hurray_runtime"`): the build script writes `OUT_DIR/released.rs`,
//! `#[path = "<that directory>/lib.rs"] mod runtime; pub use runtime::*;`, so the crate
//! builds from its published package as from the repository.

// `mod runtime` (hurray-runtime's `src/lib.rs`, whose generated code is this crate's
// `OUT_DIR/hurray_generated.rs`) and `pub use runtime::*`.
#[cfg(hurray_released_archive)]
include!(concat!(env!("OUT_DIR"), "/released.rs"));
// The generated `Arbitrary` impls reach their helpers as `crate::generate`.
#[cfg(all(hurray_released_archive, feature = "arbitrary"))]
use runtime::generate;

#[cfg(not(hurray_released_archive))]
pub use hurray_runtime::*;

/// Whether this build was generated from a release's archived tables (a major is pending),
/// rather than re-exporting the current runtime.
pub const FROM_ARCHIVE: bool = cfg!(hurray_released_archive);
