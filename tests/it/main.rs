//! The workspace's integration tests, one test binary: each module below was a test binary
//! of its own, and `common` (the helpers, the fuzz harness and the counting global
//! allocator) is compiled once for all of them. Run one module's tests by its name:
//! `cargo test --test it golden`.
//!
//! All modules run in one process, their tests in parallel threads: a test that measures
//! allocation counts its own thread's heap (`common::peak_of`), and every test writes to a
//! scratch directory of its own name (`common::scratch`).

mod common;

mod amendments;
mod architecture;
mod broken_spec;
mod compatibility;
mod conformance;
mod crash_safety;
mod docs;
mod emitters;
mod explain;
mod field_types;
mod forwarding;
mod fuzz_replay;
mod generate;
mod golden;
mod inspect;
mod kaitai_export;
mod lints;
mod message;
mod message_corpus;
mod migrate;
mod mutations;
mod nested_levels;
mod obligations;
mod playbook;
mod protocol;
mod reader_pinning;
mod reassembly;
mod rejects;
mod robustness;
mod roundtrip;
mod rules;
mod schema;
mod selection;
mod sequential;
mod stream;
mod transport;
mod walkthrough;
mod worked_example;
mod writer_rules;
