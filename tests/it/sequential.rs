//! The sequential (no-seek) reader (container.md §11.2, RES-48) against the random-access
//! reader: every valid corpus file decodes to the same contract JSON, every rejecting file is
//! rejected (under the same rule, or under F39/F32 where the index and the walk disagree),
//! F39 is broken each way, the buffers it does not hold are the ones the data rules never
//! read, memory stays bounded on a large tensor, and `hurray decode -` reads a pipe.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::common::{self, peak_of};
use hurray_runtime::file::{self, buffer_spans as spans};
use hurray_runtime::json::{Evolution, to_json};
use hurray_runtime::rules::Rule;
use hurray_runtime::semantic::Facts;
use hurray_runtime::sequential::{self, SequentialError};
use hurray_runtime::structures::IndexEntry;
use hurray_runtime::tags::{CompositionRule, Device, ElementType, Layout, MemoryClass, Scheme};
use hurray_runtime::wire::TagSpace;
use hurray_runtime::writer::{FileOptions, FileWriter, finalize, row_major};
use hurray_runtime::{ReaderConfig, contract, descriptor};

fn corpus(kind: &str) -> Vec<(String, Vec<u8>)> {
    let dir = common::root().join("tests/corpus").join(kind);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "hrry"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("a vector"))
        })
        .collect();
    out.sort();
    out
}

/// The reader configuration a vector needs, from its manifest (agreements, network mode,
/// permissive mode).
fn config(kind: &str, name: &str) -> ReaderConfig {
    let path = common::root()
        .join("tests/corpus")
        .join(kind)
        .join("manifest.json");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).expect("a manifest")).expect("JSON");
    let key = if kind == "valid" {
        name.trim_end_matches(".hrry")
    } else {
        name
    };
    let cfg = if kind == "valid" {
        &m[key]
    } else {
        &m[key]["config"]
    };
    let mut c = ReaderConfig::new()
        .permissive(cfg["permissive"].as_bool().unwrap_or(false))
        .network(cfg["network"].as_bool().unwrap_or(false));
    for a in cfg["agree"].as_array().into_iter().flatten() {
        // The valid manifest writes an agreement as a pair, the rejecting one as an object.
        let (space, v) = match a {
            serde_json::Value::Array(p) => (&p[0], &p[1]),
            _ => (&a["space"], &a["value"]),
        };
        let v = v.as_u64().expect("value") as u32;
        c = match space.as_str().expect("space") {
            "element_type" => c.agree::<ElementType>(v),
            "layout" => c.agree::<Layout>(v),
            "device" => c.agree::<Device>(v),
            "memory_class" => c.agree::<MemoryClass>(v),
            "scheme" => c.agree::<Scheme>(v),
            "composition_rule" => c.agree::<CompositionRule>(v),
            other => panic!("no tag space `{other}` in the manifest's agreements"),
        };
    }
    for id in cfg["agree_extension_layouts"]
        .as_array()
        .into_iter()
        .flatten()
    {
        c = c.agree_extension_layout(id.as_u64().expect("id"));
    }
    c
}

fn json(v: &hurray_runtime::Value) -> String {
    serde_json::to_string_pretty(&to_json(v, "", &mut Evolution::default())).unwrap()
}

#[test]
fn every_valid_file_reads_sequentially_to_the_same_contract() {
    let files = corpus("valid");
    assert!(!files.is_empty());
    for (name, bytes) in files {
        let cfg = config("valid", &name);
        let f = file::read(&bytes, &cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = json(&contract::file_value(&f).unwrap());
        let (tensors, s) = sequential::read_all(&bytes[..], &cfg)
            .unwrap_or_else(|e| panic!("{name}: the sequential reader says {e}"));
        let got = json(&contract::sequential_file_value(&s, &tensors).unwrap());
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn every_rejected_file_is_rejected_sequentially() {
    // Where the index disagrees with the placement the walk found, the random-access reader
    // reports the entry's own rule and the sequential one F39 (or F32, where the walk reads
    // the stray bytes as padding).
    let placement = [Rule::F11, Rule::F27, Rule::F30, Rule::F31];
    let files = corpus("reject");
    assert!(files.len() > 50);
    for (name, bytes) in files {
        let cfg = config("reject", &name);
        let want = file::read(&bytes, &cfg)
            .expect_err(&name)
            .rule()
            .expect("a rule, not a limit");
        match sequential::read_all(&bytes[..], &cfg) {
            Ok(_) => panic!("{name}: the sequential reader accepts it ({})", want.id()),
            Err(SequentialError::Invalid(e)) => {
                let same = e.rule() == Some(want)
                    || (placement.contains(&want)
                        && [Some(Rule::F39), Some(Rule::F32)].contains(&e.rule()));
                assert!(
                    same,
                    "{name}: {} where the file reader says {}",
                    e.id(),
                    want.id()
                );
            }
            Err(other) => panic!("{name}: {other}"),
        }
    }
}

/// A two-tensor file, and its index entries.
fn two_tensors() -> (Vec<u8>, Vec<IndexEntry>) {
    let d = finalize(row_major(ElementType::Float32, &[4])).unwrap();
    let mut w = FileWriter::new(Vec::new(), &FileOptions::default()).unwrap();
    w.add_tensor("a", &d, &[&[0u8; 16]]).unwrap();
    w.add_tensor("b", &d, &[&[0u8; 16]]).unwrap();
    let bytes = w.finish(&[]).unwrap();
    let f = file::read(&bytes, &ReaderConfig::new()).unwrap();
    let entries = f.index_section().unwrap().owned().entries;
    (bytes, entries)
}

/// `bytes` with its index replaced by `entries` (and the trailer's length and CRC updated).
fn with_entries(bytes: &[u8], entries: Vec<IndexEntry>) -> Vec<u8> {
    let f = file::open(bytes, &ReaderConfig::new()).unwrap();
    let io = f.trailer().index_offset() as usize;
    let mut out = bytes[..io].to_vec();
    let index = hurray_runtime::structures::IndexSection::new(entries).to_bytes();
    out.extend_from_slice(&index);
    let mut t = f.trailer().owned();
    t.index_length = index.len() as u64;
    t.index_crc32c = crc32c::crc32c(&index);
    out.extend_from_slice(&t.to_bytes());
    out
}

fn f39(bytes: &[u8]) -> hurray_runtime::Error {
    match sequential::read_all(bytes, &ReaderConfig::new()) {
        Err(SequentialError::Invalid(e)) => e,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn f39_an_index_that_disagrees_with_the_walk_is_rejected() {
    let (bytes, entries) = two_tensors();
    // An entry whose descriptor_length differs from the descriptor's.
    let mut e = entries.clone();
    e[1].descriptor_length -= 1;
    let x = with_entries(&bytes, e);
    let err = f39(&x);
    assert_eq!(
        (err.rule(), err.code()),
        (Some(Rule::F39), "index-mismatch")
    );
    assert_eq!(
        file::read(&x, &ReaderConfig::new()).unwrap_err().rule(),
        Some(Rule::F11)
    );
    // A tensor the walk found that no entry describes: the random-access reader sees its
    // bytes as non-zero padding.
    let x = with_entries(&bytes, entries[..1].to_vec());
    let err = f39(&x);
    assert_eq!(err.rule(), Some(Rule::F39));
    assert_eq!(err.offset(), entries[1].descriptor_offset);
    assert_eq!(
        file::read(&x, &ReaderConfig::new()).unwrap_err().rule(),
        Some(Rule::F32)
    );
    // Two entries describing one tensor.
    let mut e = entries.clone();
    e[1].descriptor_offset = e[0].descriptor_offset;
    e[1].data_offset = e[0].data_offset;
    assert_eq!(f39(&with_entries(&bytes, e)).rule(), Some(Rule::F39));
    // An entry naming a descriptor where the walk found none.
    let mut e = entries;
    e[1].descriptor_offset += 8;
    assert_eq!(f39(&with_entries(&bytes, e)).rule(), Some(Rule::F39));
}

#[test]
fn f40_the_last_bytes_are_never_read_as_tensor_region() {
    // A file cut right after its last tensor: the walk stops short of parsing the bytes that
    // must be the index and the trailer, and says the file is truncated.
    let (bytes, entries) = two_tensors();
    let end = (entries[1].data_offset + entries[1].data_length).next_multiple_of(8);
    let err = f39(&bytes[..end as usize]);
    assert_eq!(err.rule(), Some(Rule::F38), "{err:?}");
    // The same tensor followed by fewer than 48 bytes: never parsed as region either.
    let err = f39(&bytes[..end as usize + 40]);
    assert_eq!(err.rule(), Some(Rule::F38), "{err:?}");
}

/// For every tensor of every corpus file whose buffer 0 the sequential reader streams
/// without holding it, the data rules reach the same verdict without that buffer: the
/// reader's choice of buffers to hold never skips a check.
#[test]
fn the_buffers_streamed_past_are_never_read_by_the_data_rules() {
    let mut checked = 0;
    for kind in ["valid", "reject"] {
        for (name, bytes) in corpus(kind) {
            let cfg = config(kind, &name);
            let Ok(f) = file::open(&bytes, &cfg) else {
                continue;
            };
            let Ok(index) = f.index_section() else {
                continue;
            };
            let a = u64::from(f.header().data_buffer_alignment());
            for e in index.entries() {
                let d = e.descriptor_offset() as usize;
                let Ok((c, _)) = descriptor::read_prefix(&bytes[d..], d as u64, &cfg) else {
                    continue;
                };
                let facts = Facts::new(c.view());
                let streamed = facts.type_tag != ElementType::Float8E8m0.value()
                    && !facts.params.iter().any(|p| p.index == 0);
                let sizes = c
                    .view()
                    .buffer_table()
                    .buffers()
                    .iter()
                    .map(|b| b.byte_size());
                let Some(spans) = spans(d as u64 + u64::from(e.descriptor_length()), a, sizes)
                else {
                    continue;
                };
                if !streamed
                    || spans.is_empty()
                    || spans.iter().any(|(_, end)| *end > bytes.len() as u64)
                {
                    continue;
                }
                let slices: Vec<&[u8]> = spans
                    .iter()
                    .map(|(s, e)| &bytes[*s as usize..*e as usize])
                    .collect();
                let offsets: Vec<u64> = spans.iter().map(|s| s.0).collect();
                let mut without = slices.clone();
                without[0] = &[];
                let verdict = |s: &[&[u8]]| {
                    let (mut c, _) = descriptor::read_prefix(&bytes[d..], d as u64, &cfg).unwrap();
                    descriptor::check_data(&mut c, s, &offsets, &cfg)
                        .map(|()| (c.warnings().to_vec(), c.dereferenceable()))
                };
                assert_eq!(
                    verdict(&slices),
                    verdict(&without),
                    "{name}: `{}`",
                    e.name()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} tensors compared");
}

#[test]
fn a_large_tensor_streams_through_bounded_memory() {
    // One 64 MiB tensor: the reader holds one chunk of it, never the tensor.
    let n = 16u64 << 20;
    let d = finalize(row_major(ElementType::Float32, &[n])).unwrap();
    let data = vec![0u8; (n * 4) as usize];
    let mut w = FileWriter::new(Vec::new(), &FileOptions::default()).unwrap();
    w.add_tensor("big", &d, &[&data]).unwrap();
    let bytes = w.finish(&[]).unwrap();
    drop(data);
    let mut seen = 0u64;
    let (f, peak) = peak_of(|| {
        let mut r = sequential::SequentialReader::new(&bytes[..], &ReaderConfig::new()).unwrap();
        while let Some(t) = r
            .next_tensor(&mut |_, _, chunk| seen += chunk.len() as u64)
            .unwrap()
        {
            assert_eq!(t.data_length(), n * 4);
        }
        r.finish().unwrap()
    });
    assert_eq!(f.name(0), "big");
    assert_eq!(seen, n * 4);
    assert!(
        peak < 4 * sequential::CHUNK,
        "peak heap {peak} bytes for a {} byte file",
        bytes.len()
    );
}

fn hurray_binary() -> PathBuf {
    let spec = PathBuf::from(env!("CARGO_BIN_EXE_hurray-spec"));
    spec.with_file_name(format!("hurray{}", std::env::consts::EXE_SUFFIX))
}

#[test]
fn decode_dash_reads_a_file_from_a_pipe() {
    let bytes = std::fs::read(common::root().join("tests/corpus/valid/file-sparse.hrry")).unwrap();
    let run = |args: &[&str], input: &[u8]| {
        let mut child = Command::new(hurray_binary())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hurray binary runs (cargo test --workspace builds it)");
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    };
    let path = common::root().join("tests/corpus/valid/file-sparse.hrry");
    let from_path = common::hurray(&["decode", "--json", path.to_str().unwrap()]);
    let from_pipe = run(&["decode", "--json", "-"], &bytes);
    assert!(from_pipe.status.success(), "{}", common::stderr(&from_pipe));
    // The same JSON, except that a file read from a path carries each buffer's data
    // reference (for `encode`) and one read from a pipe does not (its data streams past).
    let mut from_path: serde_json::Value =
        serde_json::from_str(&common::stdout(&from_path)).unwrap();
    for t in from_path["tensors"].as_array_mut().unwrap() {
        assert!(t.as_object_mut().unwrap().remove("data").is_some());
    }
    let from_pipe: serde_json::Value = serde_json::from_str(&common::stdout(&from_pipe)).unwrap();
    assert_eq!(from_pipe, from_path);
    let summary = run(&["decode", "-"], &bytes);
    assert!(common::stdout(&summary).contains("tensor `coo`"));
    // A file cut short on the pipe: truncated, exit code 1.
    let cut = run(&["decode", "-"], &bytes[..bytes.len() - 100]);
    assert_eq!(cut.status.code(), Some(1));
    assert!(
        common::stderr(&cut).starts_with("error[file-truncated]"),
        "{}",
        common::stderr(&cut)
    );
    // A descriptor on the pipe.
    let d = finalize(row_major(ElementType::Float32, &[4])).unwrap();
    let one = run(&["decode", "-"], &d);
    assert!(one.status.success(), "{}", common::stderr(&one));
}
