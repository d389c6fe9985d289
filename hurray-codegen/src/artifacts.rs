//! The checked-in artifacts generated from `spec/`: where each lives in a repository, and the
//! one command that refreshes them all (`hurray-spec refresh`). Every drift test and every
//! generated file's preamble names that command.

/// The command that regenerates every checked-in artifact from `spec/`: the Markdown tables,
/// the Kaitai description, the spec files' JSON Schemas and the snapshot of the generated
/// runtime code. With `--check` it changes nothing and exits 1 when any is out of date.
pub const REFRESH_COMMAND: &str = "cargo run --bin hurray-spec -- refresh";

/// Where the Markdown tables go, relative to the repository's root.
pub const DOCS_DIR: &str = "docs/spec";

/// Where the Kaitai Struct description goes, relative to the repository's root.
pub const KAITAI_DIR: &str = "docs/kaitai";

/// Where the snapshot of the generated runtime code goes, relative to the repository's root:
/// exactly what `hurray-runtime`'s build script writes to `OUT_DIR`, checked in so that an
/// amendment's review shows what it changes in the generated API. Nothing compiles it.
pub const SNAPSHOT_DIR: &str = "docs/generated";

/// The checked-in snapshot of `code`, the generated runtime code: the code under a line that
/// says what the file is and which command refreshes it.
pub fn snapshot(code: &str) -> String {
    format!(
        "// Snapshot of the runtime code hurray-runtime's build script generates, checked in for review. \
         Refresh with: {REFRESH_COMMAND}\n{code}"
    )
}
