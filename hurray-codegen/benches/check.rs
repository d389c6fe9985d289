//! `hurray-spec check` on the real spec: load, lower, validate, and check against the whole
//! released history (the budget: ≤ 100 ms). Peers: parsing the same TOML files into
//! `toml::Value` (the floor any TOML-driven checker pays), and emitting the runtime's Rust
//! (what the build script adds on top of checking).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

fn bench(c: &mut Criterion) {
    let dir = spec_dir();
    let files = hurray_codegen::load::spec_files(&dir).expect("spec files");
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("readable"))
        .collect();
    let loaded = hurray_codegen::check(&dir, None).expect("spec loads");
    assert!(!loaded.diags.has_errors(), "the spec is clean");
    let spec = loaded.spec.expect("a model");

    let mut g = c.benchmark_group("spec");
    g.bench_function("check (load + validate + history)", |b| {
        b.iter(|| black_box(hurray_codegen::check(black_box(&dir), None).unwrap()))
    });
    g.bench_function("load + validate (no history)", |b| {
        b.iter(|| black_box(hurray_codegen::load(black_box(&dir)).unwrap()))
    });
    g.bench_function("peer: toml::Value parse of the same files", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(t.parse::<toml::Table>().unwrap());
            }
        })
    });
    g.bench_function("emit runtime Rust (formatted)", |b| {
        b.iter(|| black_box(hurray_codegen::emit::rust::runtime(black_box(&spec))))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
