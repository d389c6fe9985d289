//! No input makes a decoder panic, hang, or allocate more than a small multiple of the
//! input's size. Inputs: every valid and rejecting corpus vector and the conformance
//! vectors, mutated by proptest (byte flips, overwritten length and count fields,
//! truncation, extension), plus arbitrary bytes behind a valid magic. Each input is read as
//! a descriptor and as a file, strict and permissive; allocation is measured by the test
//! binary's counting global allocator, which counts each thread apart (`common::peak_of`).
//!
//! One test function decodes, so the peak belongs to one decoder at a time; the tests of
//! other modules, running beside it in other threads, do not count (the last test checks
//! that they cannot). Longer runs:
//! `PROPTEST_CASES=100000 cargo test --release --test it robustness::`.

use crate::common::{peak_of, root, shared};
use hurray_runtime::{ReaderConfig, descriptor, file};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The decoder's bound: a small multiple of the input, plus a constant for its own tables.
fn budget(len: usize) -> usize {
    16 * len + 256 * 1024
}

/// The bound of owned copies made of what was decoded (`owned()`, the contract value): one
/// Rust value (some 32 bytes) per wire entry, and an entry can be one byte (the fuzz
/// harness's `owned_budget`).
fn owned_budget(len: usize) -> usize {
    128 * len + 256 * 1024
}

/// Decode `bytes` every way a caller can: each decoder within [`budget`], the owned copies
/// of what it accepted within [`owned_budget`]; the first bound broken, as a message.
fn decode_all(bytes: &[u8]) -> Result<(), String> {
    let len = bytes.len();
    let check = |what: &str, peak: usize, limit: usize| {
        if peak <= limit {
            Ok(())
        } else {
            Err(format!(
                "{what}: {peak} bytes allocated for a {len}-byte input (bound {limit})"
            ))
        }
    };
    for config in [ReaderConfig::new(), ReaderConfig::new().permissive(true)] {
        let (d, peak) = peak_of(|| {
            let mut d = descriptor::read(bytes, &config).ok()?;
            let n = d.view().buffer_table().buffers().len();
            let slices: Vec<&[u8]> = vec![bytes; n];
            let offsets = vec![0u64; n];
            let _ = descriptor::check_data(&mut d, &slices, &offsets, &config);
            Some(d)
        });
        check("descriptor::read", peak, budget(len))?;
        if let Some(d) = d {
            let ((), peak) = peak_of(|| {
                let owned = d.view().owned();
                let _ = owned.to_bytes();
            });
            check("descriptor, owned", peak, owned_budget(len))?;
        }
        let (f, peak) = peak_of(|| {
            let f = file::read(bytes, &config).ok()?;
            if let Some(kv) = f.kv() {
                for e in kv.entries() {
                    let _ = (e.key(), e.value());
                }
            }
            Some(f)
        });
        check("file::read", peak, budget(len))?;
        if let Some(f) = f {
            let (_, peak) = peak_of(|| hurray_runtime::contract::file_value(&f));
            check("file, contract value", peak, owned_budget(len))?;
        }
        let (all, peak) = peak_of(|| hurray_runtime::sequential::read_all(bytes, &config).ok());
        check("sequential::read_all", peak, budget(len))?;
        if let Some((tensors, f)) = all {
            let (_, peak) =
                peak_of(|| hurray_runtime::contract::sequential_file_value(&f, &tensors));
            check("sequential, contract value", peak, owned_budget(len))?;
        }
        // An error is a value with a code, a rule and an offset.
        if let Err(e) = file::read(bytes, &config) {
            assert!(
                !e.code().is_empty()
                    && e.code()
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            );
            assert!(
                e.offset() <= bytes.len() as u64 + 64,
                "offset {} past a {}-byte input: {e}",
                e.offset(),
                bytes.len()
            );
        }
    }
    Ok(())
}

fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for dir in [
        root().join("tests/corpus/valid"),
        root().join("tests/corpus/reject"),
        shared().join("conformance/descriptors"),
        shared().join("conformance/files"),
    ] {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("bin" | "hrry")))
            .collect();
        paths.sort();
        out.extend(paths.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    assert!(
        out.len() > 300,
        "the corpus is present ({} seeds)",
        out.len()
    );
    out.push(kv_count_beyond_its_entries());
    // The file fuzz target's regression inputs (fuzz/README.md): a KV array of 20,000 bools
    // and a KV section of 17,000 one-byte values, which views kept one by one made 35 to 72
    // times their size.
    let regressions = root().join("fuzz/regressions/file");
    let mut paths: Vec<_> = std::fs::read_dir(&regressions)
        .expect("fuzz/regressions/file")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    out.extend(paths.iter().filter_map(|p| std::fs::read(p).ok()));
    out
}

/// A regression vector: a file whose KV section declares 16,384 entries, which its 16 KiB
/// could hold byte for byte, but holds one (a 16 KiB byte string). The generated parser
/// reserved room for every declared entry before reading one (some 2 MB of views); the
/// reservation is now bounded by the bytes that remain.
fn kv_count_beyond_its_entries() -> Vec<u8> {
    use hurray_runtime::structures::{KvBytes, KvEntry, KvValueVariant};
    use hurray_runtime::tags::KvValue;
    use hurray_runtime::wire::TagValue;
    use hurray_runtime::writer::{FileOptions, FileWriter};
    let options = FileOptions {
        kv: true,
        ..FileOptions::default()
    };
    let writer = FileWriter::new(Vec::new(), &options).expect("a file writer");
    let blob = KvEntry::new(
        "blob".to_string(),
        TagValue::new(KvValue::Bytes),
        KvValueVariant::Bytes(KvBytes::new(vec![0x5A; 16 << 10])),
    );
    let mut bytes = writer.finish(&[blob]).expect("a valid file");
    // kv_count, just before the one entry's key length (4) and key.
    let entry = b"\x04\x00blob";
    let at = bytes
        .windows(entry.len())
        .position(|w| w == entry)
        .expect("the KV entry")
        - 4;
    assert_eq!(bytes[at..at + 4], 1u32.to_le_bytes(), "kv_count");
    bytes[at..at + 4].copy_from_slice(&16_384u32.to_le_bytes());
    let rejected =
        file::read(&bytes, &ReaderConfig::new()).expect_err("16,383 entries are missing");
    assert_eq!(
        rejected.rule(),
        Some(hurray_runtime::rules::Rule::F19),
        "{rejected}"
    );
    bytes
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: usize,
        xor: u8,
    },
    /// Overwrite 4 or 8 bytes with a hostile value (a length, count or offset).
    Word {
        at: usize,
        wide: bool,
        value: u64,
    },
    Truncate {
        keep: usize,
    },
    Extend {
        bytes: Vec<u8>,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let hostile = prop_oneof![
        Just(0u64),
        Just(1),
        Just(u64::from(u32::MAX)),
        Just(u64::MAX),
        Just(1 << 31),
        Just(1 << 40),
        any::<u64>(),
        0u64..4096,
    ];
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(at, xor)| Mutation::Flip { at, xor }),
        (any::<usize>(), any::<bool>(), hostile).prop_map(|(at, wide, value)| Mutation::Word {
            at,
            wide,
            value
        }),
        any::<usize>().prop_map(|keep| Mutation::Truncate { keep }),
        proptest::collection::vec(any::<u8>(), 1..64).prop_map(|bytes| Mutation::Extend { bytes }),
    ]
}

fn apply(mut b: Vec<u8>, m: &Mutation) -> Vec<u8> {
    if b.is_empty() {
        return b;
    }
    match m {
        Mutation::Flip { at, xor } => {
            let i = at % b.len();
            b[i] ^= xor;
        }
        Mutation::Word { at, wide, value } => {
            let w = if *wide { 8 } else { 4 };
            if b.len() >= w {
                // Aligned to the field grid most structures use.
                let i = (at % (b.len() - w + 1)) / 4 * 4;
                b[i..i + w].copy_from_slice(&value.to_le_bytes()[..w]);
            }
        }
        Mutation::Truncate { keep } => b.truncate(keep % b.len()),
        Mutation::Extend { bytes } => b.extend_from_slice(bytes),
    }
    b
}

#[test]
fn no_input_panics_hangs_or_allocates_more_than_a_small_multiple_of_its_size() {
    let seeds = seeds();
    // Every seed as it is.
    for s in &seeds {
        if let Err(broken) = decode_all(s) {
            panic!("a corpus vector: {broken}");
        }
    }
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(3000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let n = seeds.len();
    let strategy = (0..n, proptest::collection::vec(mutation(), 1..4));
    runner
        .run(&strategy, |(i, ms)| {
            let mut b = seeds[i].clone();
            for m in &ms {
                b = apply(b, m);
            }
            let decoded = decode_all(&b);
            prop_assert!(decoded.is_ok(), "{}", decoded.unwrap_err());
            Ok(())
        })
        .unwrap();
    // Arbitrary bytes behind each magic.
    let strategy = (
        prop_oneof![Just(&b"HRRY"[..]), Just(&b"HRRYFILE"[..])],
        proptest::collection::vec(any::<u8>(), 0..512),
    );
    runner
        .run(&strategy, |(magic, rest)| {
            let mut b = magic.to_vec();
            b.extend_from_slice(&rest);
            let decoded = decode_all(&b);
            prop_assert!(decoded.is_ok(), "{}", decoded.unwrap_err());
            Ok(())
        })
        .unwrap();
}

/// The measurement the test above rests on: the counting allocator sees what the calling
/// thread allocates, and nothing that another thread (another test of this binary)
/// allocates meanwhile.
#[test]
fn the_counting_allocator_counts_the_calling_thread_only() {
    const MIB: usize = 1 << 20;
    let (held, peak) = peak_of(|| vec![1u8; MIB]);
    assert!(peak >= MIB, "a 1 MiB vector measured as {peak} bytes");
    let (len, peak) = peak_of(|| {
        std::thread::spawn(|| vec![1u8; 16 * MIB].len())
            .join()
            .expect("the other thread allocates")
    });
    assert_eq!(len, 16 * MIB);
    assert!(
        peak < MIB,
        "another thread's 16 MiB counted on this one: {peak} bytes"
    );
    drop(held);
}
