//! Shared helpers of the integration tests.
#![allow(dead_code)]

pub mod access;
pub mod build;
pub mod corpus;
pub mod fixtures;
pub mod oracle;
pub mod paths;
pub mod tables;
pub mod workspace;

/// The fuzz harness (`fuzz/src/lib.rs`), the very code the cargo-fuzz targets run:
/// `fuzz_replay` replays the fuzz inputs through it, and its allocation accounting is the
/// test binary's.
#[path = "../../../fuzz/src/lib.rs"]
pub mod harness;

pub use harness::peak_of;

/// The test binary's one global allocator: the harness's, which counts each thread's heap
/// apart, so a test measuring what a decoder allocates ([`peak_of`]) sees its own thread
/// only, whatever the tests running beside it allocate.
#[global_allocator]
static ALLOCATOR: harness::Counting = harness::Counting;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root: cargo's value when it runs the tests, since a test binary built in
/// another checkout that shares the target directory is reused here with that checkout's
/// compile-time path (cargo's artifacts do not depend on where a checkout lies); else the
/// compile-time one.
pub fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), PathBuf::from)
}

/// `../shared` beside the project root (the format's public sources).
pub fn shared() -> PathBuf {
    root().join("..").join("shared")
}

/// Run the `hurray-spec` binary.
pub fn hurray_spec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hurray-spec"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the hurray-spec binary runs")
}

/// Run the `hurray` binary (package `hurray-cli`: the data commands). It is built beside
/// `hurray-spec` by `cargo test --workspace`, whose integration tests include hurray-cli's.
pub fn hurray(args: &[&str]) -> Output {
    let spec_binary = PathBuf::from(env!("CARGO_BIN_EXE_hurray-spec"));
    let binary = spec_binary.with_file_name(format!("hurray{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is not built: run the tests with `cargo test --workspace` (or `cargo build -p hurray-cli` first)",
        binary.display()
    );
    Command::new(binary)
        .args(args)
        .current_dir(root())
        .output()
        .expect("the hurray binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// A scratch directory under target/ for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = root().join("target").join("test-scratch").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

pub fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Little-endian encodings of number sequences, for building vectors.
pub fn f32s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn i32s(xs: &[i32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn u32s(xs: &[u32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn u64s(xs: &[u64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}
