//! Fuzz target `stream`: see `hurray_fuzz::stream` and fuzz/README.md.
#![no_main]

#[global_allocator]
static ALLOCATOR: hurray_fuzz::Counting = hurray_fuzz::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| hurray_fuzz::stream(data));
