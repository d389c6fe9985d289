//! Issue #12's measurements, with the `safetensors` crate (0.8) in the same run: writing,
//! opening and looking up, checking everything, at 10k and 100k tiny `float32 [4]` tensors
//! (and 1M with `HURRAY_BENCH_1M=1`), the plain `memset` / `std::fs::write` of the same
//! bytes as the bound of a writer, and one descriptor's decode and encode. Allocation counts
//! and peak heap (a counting allocator) and file sizes go to `target/hurray-bench/scale.jsonl`;
//! peak RSS is measured in separate processes by `benches/rss.rs`; `benches/run.sh` runs
//! both and prints the table into BENCHMARKS.md.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{data, descriptor, fixtures, label, names, options, out_dir, probe, record, sizes};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use hurray_runtime::file::MappedFile;
use hurray_runtime::tags::ElementType;
use hurray_runtime::writer::{FileWriter, finalize, row_major};
use hurray_runtime::{ReaderConfig, descriptor as desc, sequential};
use safetensors::tensor::SafeTensors;

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only sizes and calls are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        COUNT.fetch_add(1, Ordering::Relaxed);
        let now = CURRENT.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CURRENT.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: `p` came from `System.alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations and peak heap bytes of `f` (beyond what was live before it).
fn heap<T>(f: impl FnOnce() -> T) -> (usize, usize, T) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let count = COUNT.load(Ordering::Relaxed);
    let out = f();
    (
        COUNT.load(Ordering::Relaxed) - count,
        PEAK.load(Ordering::Relaxed) - base,
        out,
    )
}

fn record_heap(key: &str, count: usize, peak: usize) {
    record("scale.jsonl", &format!("{key}/allocations"), count as f64);
    record("scale.jsonl", &format!("{key}/peak-heap"), peak as f64);
}

fn descriptor_rows(c: &mut Criterion) {
    let config = ReaderConfig::new();
    // Issue #12's 61-byte descriptor: float32 [2, 2], row-major, one CPU buffer.
    let d = finalize(row_major(ElementType::Float32, &[2, 2])).unwrap();
    let owned = desc::read(&d, &config).unwrap().view().owned();
    let mut g = c.benchmark_group("descriptor");
    g.bench_function("decode+validate/hurray", |b| {
        b.iter(|| black_box(desc::read(black_box(&d), &config).unwrap()))
    });
    g.bench_function("encode-bare/hurray", |b| {
        b.iter(|| black_box(black_box(&owned).to_bytes()))
    });
    g.bench_function("encode-writer-rules/hurray", |b| {
        b.iter_batched(
            || owned.clone(),
            |o| black_box(finalize(o).unwrap()),
            BatchSize::SmallInput,
        )
    });
    g.finish();
    let (n, p, _) = heap(|| desc::read(&d, &config).unwrap().dereferenceable());
    record_heap("descriptor/decode+validate", n, p);
    let (n, p, _) = heap(|| owned.to_bytes().len());
    record_heap("descriptor/encode-bare", n, p);
    let o = owned.clone();
    let (n, p, _) = heap(|| finalize(o).unwrap().len());
    record_heap("descriptor/encode-writer-rules", n, p);
    record("scale.jsonl", "descriptor/bytes", d.len() as f64);
}

fn size_rows(c: &mut Criterion, n: usize) {
    let l = label(n);
    let names = names(n);
    let (d, data) = (descriptor(), data());
    let (hp, sp) = fixtures(n);
    let hurray_size = std::fs::metadata(&hp).unwrap().len() as usize;
    let safetensors_size = std::fs::metadata(&sp).unwrap().len() as usize;
    record(
        "scale.jsonl",
        &format!("{l}/file-bytes/hurray"),
        hurray_size as f64,
    );
    record(
        "scale.jsonl",
        &format!("{l}/file-bytes/safetensors"),
        safetensors_size as f64,
    );
    let slow = n >= 100_000;
    let scratch = out_dir().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();

    // Writing into memory, against the memset of the same bytes.
    let mut g = c.benchmark_group(format!("write-memory/{l}"));
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    if slow {
        g.measurement_time(Duration::from_secs(if n >= 1_000_000 { 120 } else { 20 }));
    }
    // Into a vector reserved to the file's size, as the bound's is: both pay the same page
    // faults, and neither a vector's regrowth.
    g.bench_function("hurray", |b| {
        b.iter(|| {
            let out = Vec::with_capacity(hurray_size);
            let w = FileWriter::new(out, &options(n)).unwrap();
            black_box(common::write_hurray(w, &names, &d, &data).len())
        })
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| black_box(common::write_safetensors(&names, &data).len()))
    });
    // A real memset into fresh memory (`vec![0; n]` would take calloc's untouched zero pages).
    #[allow(clippy::slow_vector_initialization)]
    g.bench_function("memset-bound", |b| {
        b.iter(|| {
            let mut v: Vec<u8> = Vec::new();
            v.resize(black_box(hurray_size), 0);
            black_box(v.len())
        })
    });
    g.finish();

    // Writing a file, against std::fs::write of the same bytes (not at 1M: ten samples of a
    // 4 GB file are 80 GB of page-cache churn; the in-memory rows carry the 1M comparison).
    if n >= 1_000_000 {
        size_reading_rows(c, n, &hp, &sp);
        return;
    }
    let zeros = vec![0u8; hurray_size];
    let mut g = c.benchmark_group(format!("write-file/{l}"));
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    if slow {
        g.measurement_time(Duration::from_secs(if n >= 1_000_000 { 120 } else { 20 }));
    }
    let path = scratch.join("out.hrry");
    g.bench_function("hurray", |b| {
        b.iter(|| {
            let f = std::fs::File::create(&path).unwrap();
            let out = std::io::BufWriter::with_capacity(1 << 20, f);
            let w = FileWriter::seeking(out, &options(n)).unwrap();
            let mut out = common::write_hurray(w, &names, &d, &data);
            out.flush().unwrap();
        })
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| {
            let bytes = common::write_safetensors(&names, &data);
            std::fs::write(scratch.join("out.safetensors"), bytes).unwrap();
        })
    });
    g.bench_function("fs-write-bound", |b| {
        b.iter(|| std::fs::write(scratch.join("out.zeros"), &zeros).unwrap())
    });
    g.finish();
    drop(zeros);
    for f in ["out.hrry", "out.safetensors", "out.zeros"] {
        let _ = std::fs::remove_file(scratch.join(f));
    }
    let (count, peak, _) = heap(|| {
        let w = FileWriter::new(Vec::with_capacity(hurray_size), &options(n)).unwrap();
        common::write_hurray(w, &names, &d, &data).len()
    });
    record_heap(&format!("{l}/write-memory/hurray"), count, peak);
    size_reading_rows(c, n, &hp, &sp);
}

/// Opening, looking up and checking the fixtures of `n` tensors.
fn size_reading_rows(c: &mut Criterion, n: usize, hp: &std::path::Path, sp: &std::path::Path) {
    let config = ReaderConfig::new();
    let l = label(n);
    let names = names(n);
    let slow = n >= 100_000;

    // Open (memory-mapped) and look one tensor up.
    let want = probe(n);
    let mut g = c.benchmark_group(format!("open+lookup/{l}"));
    g.sample_size(if slow { 20 } else { 50 });
    g.bench_function("hurray", |b| {
        b.iter(|| {
            let m = MappedFile::open(hp).unwrap();
            let f = m.view(&config).unwrap();
            black_box(f.tensor(&want).unwrap().unwrap().data().len())
        })
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| {
            let m = MappedFile::open(sp).unwrap();
            let s = SafeTensors::deserialize(m.bytes()).unwrap();
            black_box(s.tensor(&want).unwrap().data().len())
        })
    });
    g.finish();
    let hm = MappedFile::open(hp).unwrap();
    let sm = MappedFile::open(sp).unwrap();
    let (count, peak, _) = heap(|| {
        let f = hm.view(&config).unwrap();
        f.tensor(&want).unwrap().unwrap().data().len()
    });
    record_heap(&format!("{l}/open+lookup/hurray"), count, peak);
    let (count, peak, _) = heap(|| {
        let s = SafeTensors::deserialize(sm.bytes()).unwrap();
        s.tensor(&want).unwrap().data().len()
    });
    record_heap(&format!("{l}/open+lookup/safetensors"), count, peak);

    // Look up in an open file: names spread over the file, each tensor already checked once.
    let f = hm.view(&config).unwrap();
    let s = SafeTensors::deserialize(sm.bytes()).unwrap();
    let spread: Vec<&String> = names.iter().step_by((n / 1024).max(1)).collect();
    for name in &spread {
        f.tensor(name).unwrap().unwrap();
    }
    let mut g = c.benchmark_group(format!("lookup/{l}"));
    g.bench_function("hurray", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % spread.len();
            black_box(f.tensor(spread[i]).unwrap().unwrap().data().len())
        })
    });
    g.bench_function("safetensors", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % spread.len();
            black_box(s.tensor(spread[i]).unwrap().data().len())
        })
    });
    g.finish();
    drop((f, s));

    // Check everything: verify_all on the mapped file (releasing pages as it goes), the
    // sequential reader over the file as a stream, and safetensors' whole check.
    let mut g = c.benchmark_group(format!("verify-all/{l}"));
    g.sample_size(10);
    if slow {
        g.measurement_time(Duration::from_secs(if n >= 1_000_000 { 120 } else { 20 }));
    }
    g.bench_function("hurray", |b| {
        b.iter(|| black_box(verify_mapped(hp, &config)))
    });
    g.bench_function("hurray-sequential", |b| {
        b.iter(|| {
            let input = std::io::BufReader::new(std::fs::File::open(hp).unwrap());
            let mut r = sequential::SequentialReader::new(input, &config).unwrap();
            let mut k = 0;
            while r.next_tensor(&mut |_, _, _| {}).unwrap().is_some() {
                k += 1;
            }
            r.finish().unwrap();
            black_box(k)
        })
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| {
            let m = MappedFile::open(sp).unwrap();
            black_box(SafeTensors::deserialize(m.bytes()).unwrap().len())
        })
    });
    g.finish();
    let (count, peak, _) = heap(|| {
        let f = hm.view(&config).unwrap();
        f.verify_all().unwrap();
        f.len()
    });
    record_heap(&format!("{l}/verify-all/hurray"), count, peak);
}

/// Map, open and check every part of the Hurray file at `path`; its tensor count.
fn verify_mapped(path: &std::path::Path, config: &ReaderConfig) -> usize {
    let m = MappedFile::open(path).unwrap();
    let f = m.view(config).unwrap();
    f.verify_all().unwrap();
    f.len()
}

/// Open and check every part of a file of 1,000 tensors of 1 MiB each.
fn big_rows(c: &mut Criterion) {
    let config = ReaderConfig::new();
    let (hp, sp) = common::big_fixtures();
    let (hp, sp) = (hp.as_path(), sp.as_path());
    let mut g = c.benchmark_group("open+verify/1000x1MiB");
    g.sample_size(20);
    g.bench_function("hurray", |b| {
        b.iter(|| black_box(verify_mapped(hp, &config)))
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| {
            let m = MappedFile::open(sp).unwrap();
            black_box(SafeTensors::deserialize(m.bytes()).unwrap().len())
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    descriptor_rows(c);
    big_rows(c);
    for n in sizes() {
        size_rows(c, n);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
