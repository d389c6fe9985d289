//! The interchange protocol's messages (issue #20): decode + validate (`message::read`) and
//! encode (the owned form's `encode` into a reused buffer) of each message kind, in ns, and
//! the allocations of each (counted once per kind, printed to stderr). The messages are the
//! rows of `tests/message/vectors.toml` a strict reader accepts, one per kind. Figures go to
//! BENCHMARKS.md by hand.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use hurray_runtime::ReaderConfig;
use hurray_runtime::message;

struct Counting;
static COUNT: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only calls are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        COUNT.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` came from `System.alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations(f: impl FnOnce()) -> usize {
    let before = COUNT.load(Ordering::Relaxed);
    f();
    COUNT.load(Ordering::Relaxed) - before
}

/// One message per kind: `(kind, bytes)`, from the vectors' `reads` rows without warnings.
fn messages() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/message/vectors.toml")).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let descriptor = std::fs::read(
        root.join("../shared/conformance/stream/descriptors/row_major_3__0_f32_3x4.bin"),
    )
    .unwrap();
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for row in table["message"].as_array().unwrap() {
        let (Some(kind), None, None) = (
            row.get("reads").and_then(|v| v.as_str()),
            row.get("warn"),
            row.get("permissive"),
        ) else {
            continue;
        };
        if out.iter().any(|(k, _)| k == kind) {
            continue;
        }
        let mut bytes = Vec::new();
        for part in row["bytes"].as_str().unwrap().split_whitespace() {
            if part.starts_with('{') {
                bytes.extend(&descriptor);
            } else {
                bytes.push(u8::from_str_radix(part, 16).unwrap());
            }
        }
        out.push((kind.to_string(), bytes));
    }
    out
}

fn bench(c: &mut Criterion) {
    let config = ReaderConfig::new();
    let mut group = c.benchmark_group("message");
    for (kind, bytes) in messages() {
        let decode = allocations(|| {
            black_box(message::read(&bytes, &config).unwrap());
        });
        let owned = message::read(&bytes, &config).unwrap().view().owned();
        let mut out = Vec::with_capacity(bytes.len());
        let encode = allocations(|| {
            out.clear();
            owned.encode(&mut out);
        });
        assert_eq!(out, bytes, "{kind}");
        eprintln!(
            "message {kind}: {} bytes, {decode} allocation(s) per decode, {encode} per encode",
            bytes.len()
        );
        group.bench_function(format!("decode/{kind}"), |b| {
            b.iter(|| black_box(message::read(black_box(&bytes), &config).unwrap()))
        });
        group.bench_function(format!("encode/{kind}"), |b| {
            b.iter(|| {
                out.clear();
                black_box(&owned).encode(&mut out);
                black_box(out.len())
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
