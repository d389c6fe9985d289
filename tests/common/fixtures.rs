//! Spec fixtures: an overlay of the real spec/ tree, materialized in a scratch directory.

use std::path::{Path, PathBuf};

use super::root;
pub use hurray_codegen::overlay::{Overlay as Fixture, copy_dir as copy_tree};

/// Copy a directory tree (panics on failure).
pub fn copy_dir(from: &Path, to: &Path) {
    copy_tree(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
}

/// Build the edited spec tree of a fixture under `work`.
pub fn materialize(fixture_dir: &Path, work: &Path) -> (Fixture, PathBuf) {
    hurray_codegen::overlay::materialize(&root().join("spec"), &fixture_dir.join("edit.toml"), work)
        .unwrap_or_else(|e| panic!("{e}"))
}
