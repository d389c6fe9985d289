//! The fuzz inputs replayed on stable Rust, through the very harness the cargo-fuzz targets
//! run (`fuzz/src/lib.rs`, included as `common::harness`): every seed derived from
//! `tests/corpus` and `spec/`, every input of a local `fuzz/corpus/<target>/` (kept out of
//! git), and every committed finding in `fuzz/regressions/<target>/`. An input passes when no decoder
//! panics, allocates more than its budget, or breaks the harness's other oracles.
//!
//! Findings not fixed yet wait in `fuzz/open/<target>/`, and must still fail there.
//! Also: the fuzz targets, the harness's list and `fuzz/Cargo.toml` agree, and the libFuzzer
//! dictionary derived from the spec's tables holds every magic and tag value.
//! `FUZZ_SEEDS=1` writes the seeds into `fuzz/corpus/<target>/`, and the dictionary to
//! `fuzz/corpus/hurray.dict`, to start a fuzzing run from them (both out of git).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::common::{harness, root};

/// Tests that allocate much run one at a time. (The test binary's global allocator is the
/// harness's, which counts each thread apart: the budgets hold whatever runs beside them.)
static SERIAL: Mutex<()> = Mutex::new(());

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn every_fuzz_input_replays_without_a_finding() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let write_seeds = std::env::var_os("FUZZ_SEEDS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for target in harness::TARGETS {
        let mut inputs: Vec<(String, Vec<u8>)> = harness::seeds(target)
            .into_iter()
            .enumerate()
            .map(|(i, s)| (format!("seed {i}"), s))
            .collect();
        assert!(!inputs.is_empty(), "{target} has no seeds");
        if write_seeds {
            let dir = root().join("fuzz/corpus").join(target);
            std::fs::create_dir_all(&dir).expect("fuzz/corpus/<target>");
            for (i, (_, s)) in inputs.iter().enumerate() {
                std::fs::write(dir.join(format!("seed-{i:04}")), s).expect("write a seed");
            }
        }
        for sub in ["fuzz/corpus", "fuzz/regressions"] {
            for p in files_in(&root().join(sub).join(target)) {
                let bytes = std::fs::read(&p).expect("a fuzz input reads");
                inputs.push((p.display().to_string(), bytes));
            }
        }
        for (name, bytes) in &inputs {
            replayed += 1;
            let outcome = catch_unwind(AssertUnwindSafe(|| harness::run(target, bytes)));
            if let Err(panic) = outcome {
                let why = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("a panic");
                failures.push(format!("{target} on {name}: {why}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {replayed} fuzz inputs found a bug:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Findings outside this repository's reach for now (in the code generator), kept in
/// `fuzz/open/<target>/` until fixed: each must still fail. When one passes, its fix has
/// landed: move it to `fuzz/regressions/<target>/`, where it must pass forever.
#[test]
fn every_open_finding_still_reproduces() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut fixed = Vec::new();
    for target in harness::TARGETS {
        for p in files_in(&root().join("fuzz/open").join(target)) {
            let bytes = std::fs::read(&p).expect("an open finding reads");
            if catch_unwind(AssertUnwindSafe(|| harness::run(target, &bytes))).is_ok() {
                fixed.push(p.display().to_string());
            }
        }
    }
    assert!(
        fixed.is_empty(),
        "open findings no longer reproduce (fixed?): move them to fuzz/regressions/<target>/:\n  {}",
        fixed.join("\n  ")
    );
}

#[test]
fn every_target_has_a_binary_and_every_binary_a_target() {
    let manifest =
        std::fs::read_to_string(root().join("fuzz/Cargo.toml")).expect("fuzz/Cargo.toml");
    let manifest: toml::Table = toml::from_str(&manifest).expect("fuzz/Cargo.toml is TOML");
    let mut bins: Vec<String> = manifest["bin"]
        .as_array()
        .expect("[[bin]] targets")
        .iter()
        .map(|b| b["name"].as_str().expect("a bin name").to_string())
        .collect();
    bins.sort();
    let mut targets: Vec<String> = harness::TARGETS.iter().map(|t| t.to_string()).collect();
    targets.sort();
    assert_eq!(
        bins, targets,
        "fuzz/Cargo.toml and the harness's TARGETS differ"
    );
    for t in &targets {
        let path = root().join("fuzz/fuzz_targets").join(format!("{t}.rs"));
        let src =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            src.contains(&format!("hurray_fuzz::{t}(data)")),
            "{} does not run hurray_fuzz::{t}",
            path.display()
        );
    }
    // A regression or open finding lives in the directory of the target that found it.
    for sub in ["fuzz/regressions", "fuzz/open"] {
        if let Ok(rd) = std::fs::read_dir(root().join(sub)) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                assert!(
                    e.path().is_dir() && targets.contains(&name),
                    "{sub}/{name} is not the directory of a fuzz target"
                );
            }
        }
    }
}

/// The libFuzzer dictionary is derived from the spec's tables, never checked in (a legal
/// amendment allocates values, so a checked-in copy would drift): `FUZZ_SEEDS=1` writes it
/// beside the seeds, to `fuzz/corpus/hurray.dict` (out of git), for `-dict=`.
#[test]
fn the_dictionary_is_derived_from_the_spec() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let loaded = hurray_codegen::load(&root().join("spec")).expect("spec/ loads");
    let spec = loaded.clean().expect("spec/ is clean");
    let dict = harness::dictionary(spec);
    if std::env::var_os("FUZZ_SEEDS").is_some_and(|v| v == "1") {
        let dir = root().join("fuzz/corpus");
        std::fs::create_dir_all(&dir).expect("fuzz/corpus");
        std::fs::write(dir.join("hurray.dict"), &dict).expect("write fuzz/corpus/hurray.dict");
    }
    let escaped =
        |bytes: &[u8]| -> String { bytes.iter().map(|b| format!("\\x{b:02X}")).collect() };
    // Every magic of the format is in it, and every allocated tag value.
    for magic in ["HRRY", "HRRYFILE"] {
        assert!(
            dict.contains(&escaped(magic.as_bytes())),
            "the dictionary lacks {magic}"
        );
    }
    for space in &spec.spaces {
        for tag in &space.tags {
            let bytes = u64::from(tag.value).to_le_bytes();
            let entry = format!("\"{}\"", escaped(&bytes[..space.width.bytes() as usize]));
            assert!(
                dict.contains(&entry),
                "the dictionary lacks {}.{}",
                space.name,
                tag.name
            );
        }
    }
}

/// The `encode_json` seeds reach the round-trip oracle: the expected JSON of every valid
/// descriptor vector that needs no out-of-band agreement (the corpus manifest says which) is
/// accepted by the path `hurray encode` takes, so the fuzzer starts from accepted inputs,
/// not only from rejections. File vectors and agreed private values are seeds too, for the
/// refusals.
#[test]
fn every_valid_descriptors_json_encodes() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = root().join("tests/corpus/valid");
    let manifest = std::fs::read(dir.join("manifest.json")).expect("the corpus manifest");
    let manifest: serde_json::Value =
        serde_json::from_slice(&manifest).expect("the corpus manifest is JSON");
    let entries = manifest.as_object().expect("the manifest is an object");
    let mut refused = Vec::new();
    let mut seen = 0;
    for (name, entry) in entries {
        let plain = entry["kind"] == "descriptor"
            && entry["agree"].as_array().is_some_and(Vec::is_empty)
            && entry["agree_extension_layouts"]
                .as_array()
                .is_none_or(Vec::is_empty);
        if !plain {
            continue;
        }
        seen += 1;
        let path = dir.join(format!("{name}.json"));
        let text = std::fs::read(&path).expect("a corpus JSON reads");
        if harness::encode_once(&text).is_none() {
            refused.push(path.display().to_string());
        }
    }
    assert!(
        seen > 100,
        "only {seen} plain descriptor vectors in the manifest"
    );
    assert!(
        refused.is_empty(),
        "{} of {seen} valid descriptors' JSON do not encode:\n  {}",
        refused.len(),
        refused.join("\n  ")
    );
}

/// The `Arbitrary` impls generated for the owned forms draw descriptors a reader accepts, not
/// only values the writer refuses, so that `round_trip` reaches the deep comparisons: of
/// 2,000 draws from a fixed pseudo-random stream, at least 5% are written and read back
/// strictly (11% when this test was written), and each of those passes the harness.
#[test]
fn the_round_trip_draws_are_mostly_accepted() {
    use arbitrary::{Arbitrary, Unstructured};
    use hurray_runtime::structures::Descriptor;
    use hurray_runtime::{ReaderConfig, descriptor, writer};
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let draws = 2000;
    let mut accepted = 0;
    for _ in 0..draws {
        let len = 64 + (next() % 512) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let Ok(drawn) = Descriptor::arbitrary(&mut Unstructured::new(&data)) else {
            continue;
        };
        let Ok(bytes) = writer::finalize(drawn) else {
            continue;
        };
        if descriptor::read(&bytes, &ReaderConfig::new()).is_ok() {
            accepted += 1;
            harness::round_trip(&data);
        }
    }
    assert!(
        accepted * 20 >= draws,
        "only {accepted} of {draws} drawn descriptors read back strictly"
    );
}
