//! The canonical stream (interchange.md §2.1, RES-51, RES-52) against the streams the format's
//! reference implementation wrote (../shared/conformance/stream/): every valid stream reads as
//! its manifest says and is written again byte for byte from the same tensors; every invalid
//! stream is rejected with the verdict `tests/stream/invalid.toml` records; a cut anywhere
//! inside a tensor is CS-2; a file is not a stream (CS-3); the limits and the writer's
//! refusals hold, and no input panics or allocates beyond the fuzz budget.

use crate::common::*;
use hurray_runtime::stream::{
    StreamError, StreamReader, StreamSummary, StreamTensor, StreamWriter,
};
use hurray_runtime::structures::LayoutVariant;
use hurray_runtime::tags::ElementType;
use hurray_runtime::writer::WriteError;
use hurray_runtime::{Error, ReaderConfig, ctx::Limit, descriptor, writer};
use serde_json::Value as J;
use serde_json::json;
use std::path::PathBuf;

fn dir() -> PathBuf {
    shared().join("conformance/stream")
}

fn manifest() -> J {
    serde_json::from_slice(&read(&dir().join("manifest.json"))).expect("manifest is JSON")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A stream read whole: each tensor with its buffers' bytes, and the stream's end.
type ReadAll = (Vec<(StreamTensor, Vec<Vec<u8>>)>, StreamSummary);

/// Every tensor of a stream with its buffers' bytes, then the stream's end.
fn read_all(bytes: &[u8], config: &ReaderConfig) -> Result<ReadAll, StreamError> {
    let mut r = StreamReader::new(bytes, config);
    let mut out = Vec::new();
    while let Some(t) = r.next_tensor_with_data()? {
        out.push(t);
    }
    Ok((out, r.finish()?))
}

/// The manifest's `items` tree, rebuilt from what the reader says of each tensor: its
/// innermost head and its depth.
fn items(tensors: &[StreamTensor]) -> J {
    fn build(tensors: &[StreamTensor], at: &mut usize, head: Option<usize>) -> Vec<J> {
        let mut out = Vec::new();
        while *at < tensors.len() && tensors[*at].head() == head {
            let t = &tensors[*at];
            *at += 1;
            if matches!(t.descriptor().layout_fields, LayoutVariant::Composite(_)) {
                let members = build(tensors, at, Some(t.position()));
                out.push(json!({"head": t.position(), "depth": t.depth(), "members": members}));
            } else {
                out.push(json!({"tensor": t.position()}));
            }
        }
        out
    }
    let mut at = 0;
    J::Array(build(tensors, &mut at, None))
}

#[test]
fn the_reference_streams_read_as_their_manifest_says() {
    let m = manifest();
    let streams = m["streams"].as_array().expect("streams");
    assert_eq!(streams.len(), 10);
    for s in streams {
        let name = s["file"].as_str().unwrap();
        let bytes = read(&dir().join(name));
        assert_eq!(bytes.len() as u64, s["length"].as_u64().unwrap(), "{name}");
        let (tensors, summary) =
            read_all(&bytes, &ReaderConfig::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            summary.tensors() as u64,
            s["tensor_count"].as_u64().unwrap()
        );
        assert_eq!(summary.len(), bytes.len() as u64);
        let want = s["tensors"].as_array().unwrap();
        assert_eq!(tensors.len(), want.len(), "{name}");
        for ((t, data), w) in tensors.iter().zip(want) {
            let at = format!("{name} tensor {}", t.position());
            assert_eq!(
                t.descriptor_offset(),
                w["descriptor_offset"].as_u64().unwrap(),
                "{at}"
            );
            assert_eq!(
                u64::from(t.descriptor_length()),
                w["descriptor_length"].as_u64().unwrap(),
                "{at}"
            );
            assert_eq!(t.data_offset(), w["data_offset"].as_u64().unwrap(), "{at}");
            assert_eq!(t.data_length(), w["data_length"].as_u64().unwrap(), "{at}");
            let own = read(&dir().join(w["descriptor_file"].as_str().unwrap()));
            let d = t.descriptor_offset() as usize;
            assert_eq!(&bytes[d..d + own.len()], &own[..], "{at}: descriptor file");
            let shape: Vec<u64> = w["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(t.descriptor().shape, shape, "{at}");
            assert_eq!(
                u64::from(t.descriptor().fixed_header.layout_tag.raw()),
                w["layout_tag"].as_u64().unwrap(),
                "{at}"
            );
            let buffers = w["buffers"].as_array().unwrap();
            assert_eq!(t.buffers().len(), buffers.len(), "{at}");
            for ((span, bytes), b) in t.buffers().iter().zip(data).zip(buffers) {
                assert_eq!(span.0, b["offset"].as_u64().unwrap(), "{at}");
                assert_eq!(span.1, b["length"].as_u64().unwrap(), "{at}");
                assert_eq!(bytes, &hex(b["hex"].as_str().unwrap()), "{at}");
            }
        }
        let ts: Vec<StreamTensor> = tensors.into_iter().map(|t| t.0).collect();
        assert_eq!(items(&ts), s["items"], "{name}: composite grouping");
    }
}

#[test]
fn the_writer_writes_the_reference_streams_byte_for_byte() {
    let m = manifest();
    for s in m["streams"].as_array().unwrap() {
        let name = s["file"].as_str().unwrap();
        let want = read(&dir().join(name));
        let tensors: Vec<(Vec<u8>, Vec<Vec<u8>>)> = s["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let d = read(&dir().join(t["descriptor_file"].as_str().unwrap()));
                let b = t["buffers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| hex(b["hex"].as_str().unwrap()))
                    .collect();
                (d, b)
            })
            .collect();
        // Composites go through `write_composite` (checked whole first), the rest one by one.
        let mut w = StreamWriter::new(Vec::new());
        let mut at = 0;
        for item in s["items"].as_array().unwrap() {
            let count = count(item);
            let group: Vec<(&[u8], Vec<&[u8]>)> = tensors[at..at + count]
                .iter()
                .map(|(d, b)| (d.as_slice(), b.iter().map(Vec::as_slice).collect()))
                .collect();
            let group: Vec<(&[u8], &[&[u8]])> =
                group.iter().map(|(d, b)| (*d, b.as_slice())).collect();
            if item.get("head").is_some() {
                w.write_composite(&group)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            } else {
                w.write_tensor(group[0].0, group[0].1)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            at += count;
        }
        assert_eq!(at, tensors.len());
        let got = w.finish().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, want, "{name}: written bytes");
    }

    fn count(item: &J) -> usize {
        match item.get("members") {
            Some(ms) => 1 + ms.as_array().unwrap().iter().map(count).sum::<usize>(),
            None => 1,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Invalid {
    file: String,
    code: String,
    rule: Option<String>,
    #[serde(default)]
    network: bool,
    max_descriptor_length: Option<u64>,
    #[allow(dead_code)]
    differs: Option<String>,
}

#[derive(serde::Deserialize)]
struct InvalidTable {
    stream: Vec<Invalid>,
}

fn rejection(bytes: &[u8], config: &ReaderConfig) -> Error {
    match read_all(bytes, config) {
        Ok(_) => panic!("accepted"),
        Err(StreamError::Invalid(e)) => e,
        Err(e) => panic!("not a rejection: {e}"),
    }
}

#[test]
fn the_reference_invalid_streams_are_rejected_as_recorded() {
    let table: InvalidTable =
        toml::from_str(&std::fs::read_to_string(root().join("tests/stream/invalid.toml")).unwrap())
            .unwrap();
    let m = manifest();
    for s in m["invalid_streams"].as_array().unwrap() {
        let file = s["file"].as_str().unwrap();
        assert!(
            table.stream.iter().any(|v| v.file == file),
            "tests/stream/invalid.toml has no verdict on {file}"
        );
    }
    let mut wrong = Vec::new();
    for v in &table.stream {
        let bytes = read(&dir().join(&v.file));
        let mut config = ReaderConfig::new().network(v.network);
        if let Some(max) = v.max_descriptor_length {
            config = config.limit(Limit::DescriptorLength, max);
        }
        let e = rejection(&bytes, &config);
        if (e.code(), e.rule().map(|r| r.id())) != (v.code.as_str(), v.rule.as_deref()) {
            wrong.push(format!("{}: {e}", v.file));
        }
        assert!(e.offset() <= bytes.len() as u64, "{}: {e}", v.file);
        if v.network {
            // Only the stream that crossed machines is held to producer-synced handles.
            read_all(&bytes, &ReaderConfig::new()).unwrap_or_else(|e| panic!("{}: {e}", v.file));
        }
    }
    assert!(
        wrong.is_empty(),
        "verdicts other than recorded:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn cs_2_a_stream_cut_inside_a_tensor_is_truncated_and_one_cut_between_tensors_is_shorter() {
    let m = manifest();
    for s in m["streams"].as_array().unwrap() {
        let name = s["file"].as_str().unwrap();
        let bytes = read(&dir().join(name));
        let boundaries: Vec<u64> = s["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["descriptor_offset"].as_u64().unwrap())
            .collect();
        for cut in 0..bytes.len() {
            let part = &bytes[..cut];
            match read_all(part, &ReaderConfig::new()) {
                Ok((tensors, _)) => {
                    assert!(
                        boundaries.contains(&(cut as u64)),
                        "{name} cut at {cut} read"
                    );
                    assert_eq!(
                        tensors.len(),
                        boundaries.iter().filter(|&&b| b < cut as u64).count()
                    );
                }
                Err(StreamError::Invalid(e)) if boundaries.contains(&(cut as u64)) => {
                    // Between tensors, only a composite still missing members may fail.
                    assert_eq!(
                        e.rule().map(|r| r.id()),
                        Some("F12"),
                        "{name} cut at {cut}: {e}"
                    );
                }
                Err(StreamError::Invalid(e)) => {
                    assert_eq!(e.code(), "stream-truncated", "{name} cut at {cut}: {e}");
                    assert_eq!(e.offset(), cut as u64, "{name} cut at {cut}");
                }
                Err(e) => panic!("{name} cut at {cut}: {e}"),
            }
        }
    }
}

#[test]
fn cs_3_a_file_is_not_a_stream() {
    let file = read(&shared().join("conformance/files/basic.hrry"));
    let e = rejection(&file, &ReaderConfig::new());
    assert_eq!((e.code(), e.offset()), ("stream-is-a-file", 0), "{e}");
    // A stream of one descriptor whose bytes 4… happen to read "FILE" is no file: the
    // magic is all eight bytes.
    let stream = read(&dir().join("row_major_3.bin"));
    assert!(read_all(&stream, &ReaderConfig::new()).is_ok());
}

#[test]
fn the_limits_refuse_a_descriptor_or_a_buffer_above_them_before_reading_it() {
    // The reference's observations: the CSR stream's buffers of 12 + 24 + 32 bytes pass a
    // 32-byte per-buffer limit and fail a 31-byte one; a 61-byte descriptor passes a limit of
    // 61 and fails one of 60.
    let csr = read(&dir().join("multi_buffer.bin"));
    let config = |max| ReaderConfig::new().limit(Limit::BufferBytes, max);
    assert!(read_all(&csr, &config(32)).is_ok());
    let e = rejection(&csr, &config(31));
    assert_eq!(
        (e.code(), e.limit()),
        ("limit-exceeded", Some(Limit::BufferBytes)),
        "{e}"
    );
    let dense = read(&dir().join("worked_example_twice.bin"));
    let config = |max| ReaderConfig::new().limit(Limit::DescriptorLength, max);
    assert!(read_all(&dense, &config(61)).is_ok());
    let e = rejection(&dense, &config(60));
    assert_eq!(
        (e.limit(), e.offset()),
        (Some(Limit::DescriptorLength), 6),
        "{e}"
    );
    // A buffer of 1 TiB declared and not there: refused under a limit without a read, and
    // without one truncated with no more memory than the stream's own size.
    let big = writer::finalize(writer::row_major(ElementType::Int8, &[1 << 40])).unwrap();
    let e = rejection(&big, &ReaderConfig::new().limit(Limit::BufferBytes, 1024));
    let size_at = big
        .windows(8)
        .rposition(|w| w == (1u64 << 40).to_le_bytes())
        .unwrap();
    assert_eq!(
        (e.limit(), e.offset()),
        (Some(Limit::BufferBytes), size_at as u64),
        "{e}"
    );
    let (e, peak) = peak_of(|| rejection(&big, &ReaderConfig::new()));
    assert_eq!(
        (e.code(), e.offset()),
        ("stream-truncated", big.len() as u64),
        "{e}"
    );
    assert!(
        peak < 64 * 1024,
        "{peak} bytes for a {}-byte stream",
        big.len()
    );
}

#[test]
fn the_writer_refuses_what_a_reader_rejects_and_writes_nothing_then() {
    let m = manifest();
    let tensor = |stream: usize, k: usize| -> (Vec<u8>, Vec<Vec<u8>>) {
        let t = &m["streams"][stream]["tensors"][k];
        let d = read(&dir().join(t["descriptor_file"].as_str().unwrap()));
        let b = t["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| hex(b["hex"].as_str().unwrap()))
            .collect();
        (d, b)
    };
    let (d, b) = tensor(0, 0);
    // CS-1: the buffers given must be the buffer table's.
    let mut w = StreamWriter::new(Vec::new());
    let short = &b[0][..b[0].len() - 1];
    assert_eq!(
        code(w.write_tensor(&d, &[short])),
        ("stream-layout".to_string(), Some("CS-1"))
    );
    assert_eq!(
        code(w.write_tensor(&d, &[])),
        ("stream-layout".to_string(), Some("CS-1"))
    );
    assert_eq!(w.position(), 0);
    // BH-10: a writer for another machine refuses a handle that is not producer-synced.
    let event = read(&dir().join("invalid/cuda_event_sync_f32_3x4.bin"));
    let dl = u32::from_le_bytes(event[6..10].try_into().unwrap()) as usize;
    let (ed, eb) = (&event[..dl], &event[dl..]);
    let mut w = StreamWriter::network(Vec::new());
    assert_eq!(
        code(w.write_tensor(ed, &[eb])),
        ("sync-mode-network".to_string(), Some("BH-10"))
    );
    assert!(w.finish().unwrap().is_empty());
    let mut w = StreamWriter::new(Vec::new());
    w.write_tensor(ed, &[eb])
        .expect("a local stream may carry an event");
    // A partition with a gap is refused whole: nothing is written.
    let c = |k| tensor(2, k);
    let (head, m0, m1) = (c(0), c(1), c(2));
    let refs = |t: &(Vec<u8>, Vec<Vec<u8>>)| -> (Vec<u8>, Vec<Vec<u8>>) { t.clone() };
    let (h, a) = (refs(&head), refs(&m0));
    let hb: Vec<&[u8]> = h.1.iter().map(Vec::as_slice).collect();
    let ab: Vec<&[u8]> = a.1.iter().map(Vec::as_slice).collect();
    let mut w = StreamWriter::new(Vec::new());
    let torn = [
        (h.0.as_slice(), hb.as_slice()),
        (a.0.as_slice(), ab.as_slice()),
    ];
    assert_eq!(code(w.write_composite(&torn)).1, Some("F12"));
    let twice = [
        (h.0.as_slice(), hb.as_slice()),
        (a.0.as_slice(), ab.as_slice()),
        (a.0.as_slice(), ab.as_slice()),
    ];
    assert_eq!(code(w.write_composite(&twice)).1, Some("CV-6"));
    assert_eq!(w.position(), 0);
    // One by one, the member that closes a partition with an overlap is refused and not
    // written (the composite rules bind a writer in every mode).
    let mut w = StreamWriter::new(Vec::new());
    w.write_tensor(&h.0, &hb).unwrap();
    w.write_tensor(&a.0, &ab).unwrap();
    let before = w.position();
    assert_eq!(code(w.write_tensor(&a.0, &ab)).1, Some("CV-6"));
    assert_eq!(w.position(), before);
    // One by one, a head left without its members is refused at the end (F12).
    let mut w = StreamWriter::new(Vec::new());
    w.write_tensor(&h.0, &hb).unwrap();
    w.write_tensor(&a.0, &ab).unwrap();
    assert!(matches!(w.finish(), Err(WriteError::Invalid(e)) if e.code() == "torn-composite"));
    let b1: Vec<&[u8]> = m1.1.iter().map(Vec::as_slice).collect();
    let mut w = StreamWriter::new(Vec::new());
    let whole = [
        (h.0.as_slice(), hb.as_slice()),
        (a.0.as_slice(), ab.as_slice()),
        (m1.0.as_slice(), b1.as_slice()),
    ];
    w.write_composite(&whole).unwrap();
    assert_eq!(w.finish().unwrap(), read(&dir().join("composite.bin")));

    fn code(r: Result<(), WriteError>) -> (String, Option<&'static str>) {
        match r {
            Err(WriteError::Invalid(e)) => (e.code().to_string(), e.rule().map(|r| r.id())),
            other => panic!("not a refusal: {other:?}"),
        }
    }
}

#[test]
fn no_stream_input_panics_or_allocates_beyond_the_budget() {
    // Every byte of every reference stream set to 0x00, 0xFF and flipped: each read ends in
    // a tensor list or a rejection, within the fuzz harness's memory budget.
    let m = manifest();
    for s in m["streams"].as_array().unwrap() {
        let name = s["file"].as_str().unwrap();
        let bytes = read(&dir().join(name));
        for i in 0..bytes.len() {
            for v in [0x00, 0xFF, bytes[i] ^ 0x80] {
                let mut b = bytes.clone();
                b[i] = v;
                let (_, peak) = peak_of(|| {
                    let _ = read_all(&b, &ReaderConfig::new());
                    let _ = read_all(&b, &ReaderConfig::new().permissive(true));
                });
                assert!(
                    peak <= harness::budget(b.len()),
                    "{name} byte {i} = {v:#04x}: {peak} bytes"
                );
            }
        }
    }
}

#[test]
fn a_descriptor_read_in_a_stream_is_the_descriptor_read_alone() {
    // Offsets of a rejection count from the stream's start: the same rule at the descriptor's
    // offset plus the same relative position.
    let bytes = read(&dir().join("row_major_3.bin"));
    let second = 109usize;
    let mut bad = bytes.clone();
    bad[second + 4] = 9; // version_major 9
    let e = rejection(&bad, &ReaderConfig::new());
    let alone = descriptor::read(&bytes[second..162], &ReaderConfig::new()).map(|_| ());
    assert!(alone.is_ok());
    let mut d = bytes[second..162].to_vec();
    d[4] = 9;
    let e1 = descriptor::read(&d, &ReaderConfig::new()).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (e1.code(), e1.offset() + second as u64)
    );
}

#[test]
fn inspect_annotates_every_byte_of_a_stream_once_and_its_data_where_the_reader_reads_it() {
    use hurray_runtime::inspect::{self, Collect, Kind};
    let m = manifest();
    let mut inputs: Vec<(String, Option<&J>)> = m["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["file"].as_str().unwrap().to_string(), Some(s)))
        .collect();
    inputs.extend(
        m["invalid_streams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["file"].as_str().unwrap().to_string(), None)),
    );
    for (name, valid) in inputs {
        let bytes = read(&dir().join(&name));
        let mut sink = Collect::default();
        let report = inspect::stream(&bytes, &ReaderConfig::new(), &mut sink);
        // Leaf ranges tile the input: each starts where the one before ended.
        let mut at = 0;
        for a in sink
            .annotations
            .iter()
            .filter(|a| a.kind != Kind::Structure)
        {
            assert_eq!(a.start, at, "{name}: {a:?}");
            at = a.end;
        }
        assert_eq!(at, bytes.len() as u64, "{name}");
        let reader = read_all(&bytes, &ReaderConfig::new()).err();
        assert_eq!(
            report.error.as_ref().map(|e| (e.code(), e.offset())),
            reader
                .as_ref()
                .and_then(|e| e.invalid())
                .map(|e| (e.code(), e.offset())),
            "{name}: the verdict is the reader's"
        );
        if let Some(s) = valid {
            let data: Vec<(u64, u64)> = sink
                .annotations
                .iter()
                .filter(|a| matches!(a.kind, Kind::Data { .. }))
                .map(|a| (a.start, a.end - a.start))
                .collect();
            let want: Vec<(u64, u64)> = s["tensors"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|t| t["buffers"].as_array().unwrap())
                .map(|b| (b["offset"].as_u64().unwrap(), b["length"].as_u64().unwrap()))
                .collect();
            assert_eq!(data, want, "{name}: data ranges");
        }
    }
}

#[test]
fn a_composite_written_whole_inside_one_written_a_tensor_at_a_time_is_checked_as_its_member() {
    let m = manifest();
    let tensor = |stream: usize, k: usize| -> (Vec<u8>, Vec<Vec<u8>>) {
        let t = &m["streams"][stream]["tensors"][k];
        let d = read(&dir().join(t["descriptor_file"].as_str().unwrap()));
        let b = t["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| hex(b["hex"].as_str().unwrap()))
            .collect();
        (d, b)
    };
    let stream_index = |file: &str| {
        m["streams"]
            .as_array()
            .unwrap()
            .iter()
            .position(|s| s["file"] == file)
            .unwrap()
    };
    let nested: Vec<_> = (0..6)
        .map(|k| tensor(stream_index("composite_nested.bin"), k))
        .collect();
    let slices: Vec<Vec<&[u8]>> = nested
        .iter()
        .map(|(_, b)| b.iter().map(Vec::as_slice).collect())
        .collect();
    let t = |k: usize| (nested[k].0.as_slice(), slices[k].as_slice());
    // The outer group one tensor at a time, its nested partition whole: the reference's bytes.
    let mut w = StreamWriter::new(Vec::new());
    w.write_tensor(t(0).0, t(0).1).unwrap();
    w.write_tensor(t(1).0, t(1).1).unwrap();
    w.write_composite(&[t(2), t(3), t(4)]).unwrap();
    w.write_tensor(t(5).0, t(5).1).unwrap();
    assert_eq!(
        w.finish().unwrap(),
        read(&dir().join("composite_nested.bin"))
    );
    // The same nested partition as a member of a partition head breaks that head's member
    // rules: refused whole, nothing written, and the stream goes on.
    let (ph, pb) = tensor(stream_index("composite.bin"), 0);
    let pb: Vec<&[u8]> = pb.iter().map(Vec::as_slice).collect();
    let mut w = StreamWriter::new(Vec::new());
    w.write_tensor(&ph, &pb).unwrap();
    let before = w.position();
    match w.write_composite(&[t(2), t(3), t(4)]) {
        Err(WriteError::Invalid(e)) => assert!(e.rule().is_some(), "{e}"),
        other => panic!("accepted a member its head refuses: {other:?}"),
    }
    assert_eq!(w.position(), before);
}
