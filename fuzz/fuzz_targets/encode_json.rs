//! Fuzz target `encode_json`: see `hurray_fuzz::encode_json` and fuzz/README.md.
#![no_main]

#[global_allocator]
static ALLOCATOR: hurray_fuzz::Counting = hurray_fuzz::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| hurray_fuzz::encode_json(data));
