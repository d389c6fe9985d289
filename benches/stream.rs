//! The canonical stream (issue #20): the stream reader and writer in GB/s on 1 GB of tensors
//! (256 dense `float32 [1048576]` tensors of 4 MiB), each against a plain `read` / `write` of
//! the same bytes in the same run (the bound: the same input read through `Read` in the
//! reader's chunk size, the same bytes appended to a reserved vector), and tensors per second
//! on 10k and 100k tiny `float32 [4]` tensors (1M with `HURRAY_BENCH_1M=1`). Set `HURRAY_BENCH_STREAM_MB` to change the 1 GB
//! (e.g. 64 for a quick look). Figures go to BENCHMARKS.md by hand.

use std::hint::black_box;
use std::io::{Read, Write};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hurray_runtime::ReaderConfig;
use hurray_runtime::sequential::CHUNK;
use hurray_runtime::stream::{StreamReader, StreamWriter};
use hurray_runtime::tags::ElementType;
use hurray_runtime::writer::{finalize, row_major};

/// `count` tensors of `elements` float32 each: their descriptor (all alike), each one's data,
/// and the stream of them all.
fn stream_of(count: usize, elements: u64) -> (Vec<u8>, Vec<Vec<u8>>, Vec<u8>) {
    let d = finalize(row_major(ElementType::Float32, &[elements])).unwrap();
    let data: Vec<Vec<u8>> = (0..count)
        .map(|k| {
            (0..elements * 4)
                .map(|i| ((i as usize + k) % 251) as u8)
                .collect()
        })
        .collect();
    let mut w = StreamWriter::new(Vec::new());
    for b in &data {
        w.write_tensor(&d, &[b]).unwrap();
    }
    let bytes = w.finish().unwrap();
    (d, data, bytes)
}

/// Read a whole stream, touching each chunk's length; the tensor count.
fn read_stream(bytes: &[u8], config: &ReaderConfig) -> usize {
    let mut r = StreamReader::new(bytes, config);
    let mut seen = 0usize;
    let mut n = 0;
    while r
        .next_tensor(&mut |_, _, chunk| seen += black_box(chunk).len())
        .unwrap()
        .is_some()
    {
        n += 1;
    }
    black_box(seen);
    n
}

/// The bound of a reader: the same bytes through `Read`, a chunk at a time, into one buffer.
fn read_plain(mut bytes: &[u8], buf: &mut [u8]) -> usize {
    let mut total = 0;
    loop {
        let k = bytes.read(buf).unwrap();
        if k == 0 {
            return total;
        }
        total += black_box(&buf[..k]).len();
    }
}

fn throughput(c: &mut Criterion) {
    let mb: usize = std::env::var("HURRAY_BENCH_STREAM_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let count = (mb / 4).max(1);
    let (d, data, bytes) = stream_of(count, 1 << 20);
    let config = ReaderConfig::new();
    let mut g = c.benchmark_group(format!("stream-{mb}MB"));
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("read/hurray", |b| {
        b.iter(|| black_box(read_stream(&bytes, &config)))
    });
    let mut buf = vec![0u8; CHUNK];
    g.bench_function("read/plain-bound", |b| {
        b.iter(|| black_box(read_plain(&bytes, &mut buf)))
    });
    // Both into a vector reserved to the stream's size, allocated once.
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    g.bench_function("write/hurray", |b| {
        b.iter(|| {
            out.clear();
            let mut w = StreamWriter::new(&mut out);
            for t in &data {
                w.write_tensor(&d, &[t]).unwrap();
            }
            w.finish().unwrap();
            black_box(out.len())
        })
    });
    g.bench_function("write/plain-bound", |b| {
        b.iter(|| {
            out.clear();
            for t in &data {
                out.write_all(&d).unwrap();
                out.write_all(t).unwrap();
            }
            black_box(out.len())
        })
    });
    g.finish();
}

fn tiny(c: &mut Criterion) {
    // 10k and 100k, and 1M with `HURRAY_BENCH_1M=1` (as benches/scale.rs): the cost per
    // tensor must stay flat as the count grows.
    let mut counts = vec![10_000, 100_000];
    if std::env::var_os("HURRAY_BENCH_1M").is_some() {
        counts.push(1_000_000);
    }
    for n in counts {
        tiny_rows(c, n);
    }
}

fn tiny_rows(c: &mut Criterion, n: usize) {
    let (d, data, bytes) = stream_of(n, 4);
    let config = ReaderConfig::new();
    let label = match n {
        n if n >= 1_000_000 => format!("{}M", n / 1_000_000),
        n => format!("{}k", n / 1000),
    };
    let mut g = c.benchmark_group(format!("stream-{label}-tiny"));
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(15));
    g.bench_function("read/hurray", |b| {
        b.iter(|| black_box(read_stream(&bytes, &config)))
    });
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    g.bench_function("write/hurray", |b| {
        b.iter(|| {
            out.clear();
            let mut w = StreamWriter::new(&mut out);
            for t in &data {
                w.write_tensor(&d, &[t]).unwrap();
            }
            w.finish().unwrap();
            black_box(out.len())
        })
    });
    let mut buf = vec![0u8; CHUNK];
    g.bench_function("read/plain-bound", |b| {
        b.iter(|| black_box(read_plain(&bytes, &mut buf)))
    });
    g.finish();
}

criterion_group!(benches, throughput, tiny);
criterion_main!(benches);
