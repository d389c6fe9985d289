//! What the benches share: the workload (tiny `float32 [4]` tensors, as issue #12 measured
//! them), the fixture files on disk (written once per size under the target directory), the
//! sizes to run, and a counting allocator's figures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use hurray_runtime::tags::ElementType;
use hurray_runtime::writer::{FileOptions, FileWriter, finalize, row_major};
use safetensors::tensor::{Dtype, TensorView};

/// Elements per tensor: `float32 [4]`, 16 bytes of data.
pub const SHAPE: [u64; 1] = [4];

/// The tensor counts to run: 10k and 100k, and 1M when `HURRAY_BENCH_1M=1` (its fixture is a
/// 4 GB Hurray file, and each of its write samples takes seconds).
pub fn sizes() -> Vec<usize> {
    let mut s = vec![10_000, 100_000];
    if std::env::var("HURRAY_BENCH_1M").is_ok_and(|v| v == "1") {
        s.push(1_000_000);
    }
    s
}

/// A short label for a count: `10k`, `100k`, `1M`.
pub fn label(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// Tensor names, in sorted order (`model.layers.0000123.weight`).
pub fn names(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("model.layers.{i:07}.weight"))
        .collect()
}

/// The name looked up: one in the middle.
pub fn probe(n: usize) -> String {
    format!("model.layers.{:07}.weight", n / 2 + 7)
}

/// Each tensor's data: four float32 values.
pub fn data() -> Vec<u8> {
    [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

/// The descriptor every tensor carries (61 bytes).
pub fn descriptor() -> Vec<u8> {
    finalize(row_major(ElementType::Float32, &SHAPE)).expect("a valid descriptor")
}

pub fn options(n: usize) -> FileOptions {
    FileOptions {
        sorted_index: true,
        tensor_count_hint: Some(n as u64),
        ..FileOptions::default()
    }
}

/// Write the Hurray file of `names` into `out`.
pub fn write_hurray<W: std::io::Write>(
    mut w: FileWriter<W>,
    names: &[String],
    d: &[u8],
    data: &[u8],
) -> W {
    for n in names {
        w.add_tensor(n, d, &[data]).expect("a tensor");
    }
    w.finish(&[]).expect("the file")
}

/// The safetensors file of `names`.
pub fn write_safetensors(names: &[String], data: &[u8]) -> Vec<u8> {
    let views = names.iter().map(|n| {
        (
            n.as_str(),
            TensorView::new(Dtype::F32, vec![4], data).expect("a view"),
        )
    });
    safetensors::serialize(views, None).expect("serialize")
}

/// The target directory (benches run from `target/release/deps/`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the bench binary");
    exe.ancestors()
        .nth(3)
        .expect("target/<profile>/deps/<bench>")
        .to_path_buf()
}

/// Where the benches keep fixtures and figures.
pub fn out_dir() -> PathBuf {
    let d = target_dir().join("hurray-bench");
    std::fs::create_dir_all(&d).expect("the bench directory");
    d
}

/// The fixture files of `n` tensors: (Hurray, safetensors), written on first use.
pub fn fixtures(n: usize) -> (PathBuf, PathBuf) {
    let dir = out_dir().join("files");
    std::fs::create_dir_all(&dir).expect("the fixture directory");
    let h = dir.join(format!("tiny-{n}.hrry"));
    let s = dir.join(format!("tiny-{n}.safetensors"));
    if !h.exists() {
        let names = names(n);
        let w = FileWriter::create(&h, &options(n)).expect("a file");
        let (d, data) = (descriptor(), data());
        let mut w = w;
        for name in &names {
            w.add_tensor(name, &d, &[&data]).expect("a tensor");
        }
        w.commit(&[]).expect("the file");
    }
    if !s.exists() {
        let bytes = write_safetensors(&names(n), &data());
        write_atomically(&s, &bytes);
    }
    (h, s)
}

/// Tensors of the large-tensor fixture, and each one's elements (1 MiB of float32).
pub const BIG_TENSORS: usize = 1000;
pub const BIG_ELEMENTS: u64 = 1 << 18;

/// The fixture files of [`BIG_TENSORS`] tensors of 1 MiB each: (Hurray, safetensors).
pub fn big_fixtures() -> (PathBuf, PathBuf) {
    let dir = out_dir().join("files");
    std::fs::create_dir_all(&dir).expect("the fixture directory");
    let h = dir.join("big-1000.hrry");
    let s = dir.join("big-1000.safetensors");
    let data = vec![0u8; (BIG_ELEMENTS * 4) as usize];
    let names = names(BIG_TENSORS);
    if !h.exists() {
        let d = finalize(row_major(ElementType::Float32, &[BIG_ELEMENTS])).expect("a descriptor");
        let mut w = FileWriter::create(&h, &options(BIG_TENSORS)).expect("a file");
        for name in &names {
            w.add_tensor(name, &d, &[&data]).expect("a tensor");
        }
        w.commit(&[]).expect("the file");
    }
    if !s.exists() {
        let views = names.iter().map(|n| {
            (
                n.as_str(),
                TensorView::new(Dtype::F32, vec![BIG_ELEMENTS as usize], &data).expect("a view"),
            )
        });
        let bytes = safetensors::serialize(views, None).expect("serialize");
        write_atomically(&s, &bytes);
    }
    (h, s)
}

fn write_atomically(path: &Path, bytes: &[u8]) {
    hurray_runtime::writer::write_atomically(path, bytes).expect("a fixture");
}

/// Figures measured outside criterion's timing (allocations, sizes), one JSON object per
/// line appended to `target/hurray-bench/<file>`: `{"key": ..., "value": ...}`; the report
/// takes each key's last line, so a partial rerun updates only what it measured.
pub fn record(file: &str, key: &str, value: f64) {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out_dir().join(file))
        .expect("the figures file");
    writeln!(f, "{{\"key\": {key:?}, \"value\": {value}}}").expect("a figure");
}
