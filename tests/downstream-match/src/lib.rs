//! What a crate downstream of `hurray-runtime` writes: exhaustive matches over the generated
//! enums, with the wildcard arm `#[non_exhaustive]` asks for. The same source
//! (`src/matches.rs`) is compiled twice: against `hurray-runtime` (the released spec) and
//! against `hurray-runtime-matrix` (the runtime generated from the spec with the
//! `compatibility-matrix` amendment, which allocates a scheme, an element type, a KV value
//! type, axes and rules). That this crate builds is the test that a minor spec release does
//! not break a downstream `match`; `tests/matches.rs` checks where the new values land.

/// The matches against the runtime of the released spec.
pub mod released {
    use hurray_runtime as runtime;
    include!("matches.rs");
}

/// The same matches against the runtime of the amended spec.
pub mod amended {
    use hurray_runtime_matrix as runtime;
    include!("matches.rs");
}
