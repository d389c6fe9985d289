//! Reading and writing Hurray data, against the safetensors crate (Hugging Face's reference
//! implementation of the closest widely used format) on equivalent content.
//!
//! - one descriptor: a fully validated Hurray descriptor vs a one-tensor safetensors header;
//! - a 1,000-tensor file (float32 [16, 16] each, names `layer.N.weight`): open and validate
//!   everything vs `SafeTensors::deserialize`, then look up one tensor by name;
//! - writing that file.
//!
//! Figures are in BENCHMARKS.md; run with `cargo bench --bench decode`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hurray_runtime::tags::ElementType;
use hurray_runtime::writer::{FileOptions, FileWriter, finalize, row_major};
use hurray_runtime::{ReaderConfig, descriptor, file};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};

/// Counts heap bytes, so the bench can report each reader's peak heap beside its time.
struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
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

/// Peak heap bytes `f` allocates beyond what was live before it, and what it returns.
fn peak_heap<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed) - base, out)
}

const TENSORS: usize = 1000;
const SHAPE: [u64; 2] = [16, 16];

fn names() -> Vec<String> {
    (0..TENSORS).map(|i| format!("layer.{i}.weight")).collect()
}

fn data() -> Vec<u8> {
    (0..SHAPE[0] * SHAPE[1])
        .flat_map(|i| (i as f32).to_le_bytes())
        .collect()
}

fn hurray_file(names: &[String], data: &[u8]) -> Vec<u8> {
    let d = finalize(row_major(ElementType::Float32, &SHAPE)).unwrap();
    let options = FileOptions {
        sorted_index: true,
        tensor_count_hint: Some(TENSORS as u64),
        ..FileOptions::default()
    };
    let mut w = FileWriter::new(Vec::with_capacity(8 << 20), &options).unwrap();
    let mut sorted: Vec<&String> = names.iter().collect();
    sorted.sort();
    for n in sorted {
        w.add_tensor(n, &d, &[data]).unwrap();
    }
    w.finish(&[]).unwrap()
}

fn safetensors_file(names: &[String], data: &[u8]) -> Vec<u8> {
    let views: Vec<(String, TensorView<'_>)> = names
        .iter()
        .map(|n| {
            (
                n.clone(),
                TensorView::new(Dtype::F32, vec![16, 16], data).unwrap(),
            )
        })
        .collect();
    safetensors::serialize(views, None).unwrap()
}

fn bench(c: &mut Criterion) {
    let names = names();
    let data = data();
    let config = ReaderConfig::new();

    // One descriptor.
    let one = finalize(row_major(ElementType::Float32, &SHAPE)).unwrap();
    let st_one = safetensors_file(&names[..1], &data);
    let mut g = c.benchmark_group("one tensor's metadata");
    g.bench_function("hurray: descriptor::read (strict, every rule)", |b| {
        b.iter(|| black_box(descriptor::read(black_box(&one), &config).unwrap()))
    });
    g.bench_function("safetensors: SafeTensors::read_metadata", |b| {
        b.iter(|| black_box(SafeTensors::read_metadata(black_box(&st_one)).unwrap()))
    });
    g.finish();

    // A 1,000-tensor file.
    let hf = hurray_file(&names, &data);
    let sf = safetensors_file(&names, &data);
    eprintln!(
        "file sizes: hurray {} bytes, safetensors {} bytes",
        hf.len(),
        sf.len()
    );
    let (h_peak, _) = peak_heap(|| file::read(&hf, &config).unwrap().tensors.len());
    let (s_peak, _) = peak_heap(|| SafeTensors::deserialize(&sf).unwrap().len());
    eprintln!(
        "peak heap while opening: hurray file::read {h_peak} bytes, safetensors deserialize {s_peak} bytes"
    );
    let mut g = c.benchmark_group("1000-tensor file");
    g.throughput(Throughput::Elements(TENSORS as u64));
    g.bench_function("hurray: file::read (strict, every rule)", |b| {
        b.iter(|| black_box(file::read(black_box(&hf), &config).unwrap()))
    });
    g.bench_function("safetensors: SafeTensors::deserialize", |b| {
        b.iter(|| black_box(SafeTensors::deserialize(black_box(&sf)).unwrap()))
    });
    g.bench_function("hurray: write (FileWriter, validated)", |b| {
        b.iter(|| black_box(hurray_file(&names, &data)))
    });
    g.bench_function("safetensors: serialize", |b| {
        b.iter(|| black_box(safetensors_file(&names, &data)))
    });
    g.finish();

    let f = file::read(&hf, &config).unwrap();
    let s = SafeTensors::deserialize(&sf).unwrap();
    let mut g = c.benchmark_group("lookup by name in the 1000-tensor file");
    g.bench_function("hurray: lookup by name (sorted index)", |b| {
        b.iter(|| black_box(f.tensor(black_box("layer.777.weight")).unwrap().data.len()))
    });
    g.bench_function("safetensors: lookup by name", |b| {
        b.iter(|| {
            black_box(
                s.tensor(black_box("layer.777.weight"))
                    .unwrap()
                    .data()
                    .len(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
