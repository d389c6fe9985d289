//! The shared conformance vectors (../shared/conformance): every one decodes to its manifest
//! entry and re-encodes byte for byte — descriptors through `encode`, the file through the
//! single-pass writer.

use crate::common::*;
use hurray_runtime::file;
use hurray_runtime::structures::KvEntry;
use hurray_runtime::writer::FileWriter;
use hurray_runtime::{ReaderConfig, contract, descriptor};
use serde_json::Value as J;

fn manifest() -> J {
    serde_json::from_slice(&read(&shared().join("conformance/manifest.json")))
        .expect("manifest is JSON")
}

#[test]
fn descriptors_decode_to_their_manifest_entries() {
    let m = manifest();
    let entries = m["descriptors"].as_array().expect("descriptors");
    assert!(entries.len() >= 11);
    for e in entries {
        let path = shared()
            .join("conformance")
            .join(e["file"].as_str().unwrap());
        let bytes = read(&path);
        let d = descriptor::read(&bytes, &ReaderConfig::new())
            .unwrap_or_else(|err| panic!("{}: {err:?}", path.display()));
        let x = &e["expect"];
        let h = d.view().fixed_header();
        assert_eq!(
            u64::from(h.version_major()),
            x["version_major"].as_u64().unwrap(),
            "{}",
            path.display()
        );
        assert_eq!(
            u64::from(h.version_minor()),
            x["version_minor"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(h.type_tag().raw()),
            x["element_type_tag"].as_u64().unwrap()
        );
        assert_eq!(h.type_tag().name(), x["element_type"].as_str());
        assert_eq!(
            u64::from(h.layout_tag().raw()),
            x["layout_tag"].as_u64().unwrap()
        );
        let shape: Vec<u64> = d.view().shape().iter().collect();
        let want: Vec<u64> = x["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(shape, want);
        assert_eq!(d.view().byte_offset(), x["byte_offset"].as_u64().unwrap());
        let sizes: Vec<u64> = d
            .view()
            .buffer_table()
            .buffers()
            .iter()
            .map(|b| b.byte_size())
            .collect();
        let want: Vec<u64> = x["buffer_byte_sizes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(sizes, want, "{}", path.display());
        assert_eq!(
            d.view().quantization().is_some(),
            x["has_quantization"].as_bool().unwrap()
        );
        assert_eq!(
            d.view().shard().is_some(),
            x["has_shard"].as_bool().unwrap()
        );
        assert!(
            d.warnings().is_empty(),
            "{}: {:?}",
            path.display(),
            d.warnings()
        );
    }
}

#[test]
fn descriptors_reencode_byte_for_byte_through_the_cli() {
    let dir = scratch("conformance-descriptors");
    for e in manifest()["descriptors"].as_array().unwrap() {
        let path = shared()
            .join("conformance")
            .join(e["file"].as_str().unwrap());
        let out = hurray(&["decode", "--json", path.to_str().unwrap()]);
        assert!(out.status.success(), "{}: {}", path.display(), stderr(&out));
        let json = dir.join("d.json");
        std::fs::write(&json, &out.stdout).unwrap();
        let bin = dir.join("d.bin");
        let enc = hurray(&[
            "encode",
            json.to_str().unwrap(),
            "-o",
            bin.to_str().unwrap(),
        ]);
        assert!(enc.status.success(), "{}: {}", path.display(), stderr(&enc));
        assert_eq!(
            read(&bin),
            read(&path),
            "{} does not re-encode byte for byte",
            path.display()
        );
        // The JSON names the spec's own names.
        let j: J = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["kind"], "descriptor");
        assert_eq!(j["element_type"], e["expect"]["element_type"]);
    }
}

#[test]
fn the_file_decodes_to_its_manifest_entry() {
    let m = manifest();
    let fe = &m["files"][0];
    let bytes = read(
        &shared()
            .join("conformance")
            .join(fe["file"].as_str().unwrap()),
    );
    let f = file::read(&bytes, &ReaderConfig::new()).expect("basic.hrry reads");
    let want = fe["tensors"].as_array().unwrap();
    assert_eq!(f.len(), want.len());
    for (t, w) in f.tensors().map(Result::unwrap).zip(want) {
        assert_eq!(t.name(), w["name"].as_str().unwrap());
        let h = t.descriptor().view().fixed_header();
        assert_eq!(h.type_tag().name(), w["element_type"].as_str());
        assert_eq!(
            u64::from(h.type_tag().raw()),
            w["element_type_tag"].as_u64().unwrap()
        );
        let shape: Vec<u64> = t.descriptor().view().shape().iter().collect();
        assert_eq!(
            shape,
            w["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect::<Vec<_>>()
        );
        assert_eq!(t.data_length(), w["data_bytes"].as_u64().unwrap());
    }
    let kv: Vec<_> = f
        .kv()
        .expect("a KV section")
        .entries()
        .iter()
        .map(|e| contract::kv_entry_value(&e.owned()))
        .collect();
    for (got, w) in kv.iter().zip(fe["kv"].as_array().unwrap()) {
        assert_eq!(
            got.get("key"),
            Some(&hurray_runtime::Value::Str(
                w["key"].as_str().unwrap().into()
            ))
        );
        match w["kind"].as_str().unwrap() {
            "string" => assert_eq!(
                got.get("value"),
                Some(&hurray_runtime::Value::Str(
                    w["value_string"].as_str().unwrap().into()
                ))
            ),
            "int64" => assert_eq!(
                got.get("value"),
                Some(&hurray_runtime::Value::Int(
                    w["value_int"].as_i64().unwrap()
                ))
            ),
            other => panic!("unexpected kind {other}"),
        }
    }
    // RES-4: the flag is clear while a KV section is present: read, with a warning.
    assert!(f.warnings().iter().any(|w| w.rule.id() == "F34"));
}

#[test]
fn the_file_reencodes_byte_for_byte_through_the_writer() {
    let bytes = read(&shared().join("conformance/files/basic.hrry"));
    let f = file::read(&bytes, &ReaderConfig::new()).unwrap();
    let mut w = FileWriter::with_header(Vec::new(), f.header().owned()).unwrap();
    for i in f.write_order() {
        let t = f.tensor_at(i).unwrap();
        let bufs: Vec<&[u8]> = t.buffers().iter().map(|(_, b)| *b).collect();
        w.add_tensor(t.name(), t.descriptor().view().bytes(), &bufs)
            .unwrap();
    }
    let kv: Vec<KvEntry> = f
        .kv()
        .map(|k| k.entries().iter().map(|e| e.owned()).collect())
        .unwrap_or_default();
    let out = w.finish(&kv).unwrap();
    assert_eq!(out.len(), bytes.len());
    assert!(out == bytes, "basic.hrry does not re-encode byte for byte");
}

#[test]
fn the_file_decodes_through_a_memory_map() {
    let path = shared().join("conformance/files/basic.hrry");
    let m = file::MappedFile::open(&path).unwrap();
    let f = m.read(&ReaderConfig::new()).unwrap();
    assert_eq!(f.len(), 2);
    assert_eq!(
        f.tensor("bias").unwrap().map(|t| t.data()),
        Some(&m.bytes()[8192..8195])
    );
}
