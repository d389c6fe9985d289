//! Fuzz target `protocol`: see `hurray_fuzz::protocol` and fuzz/README.md.
#![no_main]

#[global_allocator]
static ALLOCATOR: hurray_fuzz::Counting = hurray_fuzz::Counting;

libfuzzer_sys::fuzz_target!(|data: &[u8]| hurray_fuzz::protocol(data));
