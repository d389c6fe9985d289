//! The project's golden corpus of valid vectors (`tests/corpus/valid/`, see its README).
//!
//! The vectors are data: `tests/corpus/valid.toml` has one row per vector, a tensor (its
//! contract fields by spec name, minus everything derived) or a file (its tensors, KV
//! entries and header choices). `tests/it/common/build.rs` turns a row into bytes: descriptors
//! through `writer::finalize_with`, files through the single-pass `FileWriter`, data
//! buffers as real, correctly sized bytes. Each vector's expectation is derived from the
//! row's intent — the owned descriptor's contract value, and for files the placement
//! arithmetic of container.md §5 — never from decoding the bytes. What is derived is the
//! independent oracle of this test, computed by hand rather than by the code under test:
//! descriptor_length (the length identity), the flags and rank, element data sizes and
//! packing, sparse arrays from coordinates and statistics from values in
//! `tests/it/common/oracle.rs`, and every offset of a file in `tests/it/common/build.rs`
//! (`build_file`).
//!
//! The tests then (1) regenerate the corpus and compare it with the checked-in files (or
//! rewrite them under `BLESS=1`), (2) decode every checked-in vector with the runtime and
//! compare it with its expectation, (3) re-encode every vector byte for byte, (4) prove from
//! the spec's own tables that every allocated value of every tag space, every layout, scheme,
//! optional section and KV value type is exercised, and (5) pin the facts sheets' worked
//! examples byte for byte.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::common::build::{self, Library, pretty, to_json};
use crate::common::paths::{self, Root};
use crate::common::tables::{self, Keys};
use crate::common::{self, access, f32s, u32s, u64s};
use hurray_runtime::flags::{
    ComputedMask, DescriptorFlags, FileFlags, PerBlockAffineFlags, PerChannelAffineFlags,
};
use hurray_runtime::structures::{Descriptor, KvValueVariant, LayoutVariant, SchemeVariant};
use hurray_runtime::tags::{
    BlockTableIndexType, CombineOp, CompositionRule, Device, ElementType, KvRole, KvValue, Layout,
    MemberRole, MemoryClass, Scheme, SyncMode,
};
use hurray_runtime::wire::{FlagSet, TagClass, TagSpace};
use hurray_runtime::writer::{self, FileWriter, WriteError};
use hurray_runtime::{ReaderConfig, contract};
use serde_json::{Map, Value as J, json};
use toml::Value as T;

// ---------------------------------------------------------------------------------------
// Building the corpus from its table
// ---------------------------------------------------------------------------------------

const REFRESH: &str = "BLESS=1 cargo test --test it golden::";

fn corpus_dir() -> PathBuf {
    common::root().join("tests/corpus/valid")
}

fn table_path() -> PathBuf {
    common::root().join("tests/corpus/valid.toml")
}

/// Keys of a vector row that are about the vector rather than its tensor or file.
const VECTOR_KEYS: &[&str] = &[
    "name",
    "description",
    "agree",
    "agree_extension_layouts",
    "permissive",
    "dereferenceable",
];

struct Built {
    /// file name → bytes (vector files and their expectations, and the manifest).
    files: BTreeMap<String, Vec<u8>>,
}

/// One vector of the table: its bytes, extension and expectation.
fn build_vector(
    row: &toml::Table,
    lib: &Library,
    is_file: bool,
) -> (String, J, &'static str, Vec<u8>, J) {
    let row = lib.expand(row, "valid.toml");
    let name = tables::string(&row["name"], "a vector's name").to_string();
    let what = format!("valid.toml: {name}");
    let description = tables::string(&row["description"], &what).to_string();
    assert!(!description.is_empty(), "{what} has no description");
    let (config, agreements) = build::reader_config(&row, &what);
    let dereferenceable = row.get("dereferenceable").and_then(T::as_bool) != Some(false);
    let (ext, bytes, expect) = if is_file {
        let spec = build::file(&row, lib, &what, VECTOR_KEYS);
        for (h, members) in &spec.composites {
            let t = spec.tensors.iter().find(|t| &t.name == h).expect("a head");
            let LayoutVariant::Composite(c) = &t.descriptor.layout_fields else {
                panic!("{h} is not a head")
            };
            assert_eq!(c.member_count as usize, members.len(), "{h}");
        }
        let (bytes, j) = build::build_file(&name, &spec, &config);
        // Nothing invalid is ever blessed: the file reads, data checks included.
        access::read_file(&bytes, &config).unwrap_or_else(|e| panic!("{what}: {e}"));
        ("hrry", bytes, j)
    } else {
        let mut tensor_row = row.clone();
        for k in VECTOR_KEYS {
            tensor_row.remove(*k);
        }
        let t = build::tensor(&tensor_row, lib, &what);
        let bytes = build::descriptor_bytes(&t, &config, &what);
        // The descriptor's own buffers pass the data checks too.
        let mut checked =
            access::read_descriptor(&bytes, &config).unwrap_or_else(|e| panic!("{what}: {e}"));
        let slices: Vec<&[u8]> = t.buffers.iter().map(|b| b.as_slice()).collect();
        let offsets: Vec<u64> = (0..slices.len() as u64).map(|i| i << 32).collect();
        access::check_descriptor_data(&mut checked, &slices, &offsets, &config)
            .unwrap_or_else(|e| panic!("{what}: data: {e}"));
        (
            "bin",
            bytes,
            build::descriptor_expectation(&t.descriptor, dereferenceable),
        )
    };
    let manifest = json!({
        "kind": if is_file { "file" } else { "descriptor" },
        "permissive": agreements.permissive,
        "agree": agreements.agree.iter().map(|(s, v)| json!([s, v])).collect::<Vec<_>>(),
        "agree_extension_layouts": agreements.extension_layouts,
        "description": description,
    });
    (name, manifest, ext, bytes, expect)
}

fn build() -> Built {
    let table = tables::load(&table_path());
    let lib = Library::of(&table);
    let mut k = Keys::new(&table, "valid.toml");
    let descriptors = k
        .get("descriptor")
        .map_or(&[][..], |v| tables::array(v, "descriptor"));
    let files_rows = k.get("file").map_or(&[][..], |v| tables::array(v, "file"));
    k.get("template");
    k.get("entries");
    k.done();
    let mut files = BTreeMap::new();
    let mut manifest = Map::new();
    let rows = descriptors
        .iter()
        .map(|r| (r, false))
        .chain(files_rows.iter().map(|r| (r, true)));
    for (row, is_file) in rows {
        let (name, m, ext, bytes, expect) =
            build_vector(tables::table(row, "a vector"), &lib, is_file);
        assert!(
            manifest.insert(name.clone(), m).is_none(),
            "two vectors are named {name}"
        );
        files.insert(format!("{name}.{ext}"), bytes);
        files.insert(format!("{name}.json"), pretty(&expect));
    }
    // The manifest lists the vectors by name.
    let mut sorted: Vec<(String, J)> = manifest.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let manifest: Map<String, J> = sorted.into_iter().collect();
    files.insert("manifest.json".into(), pretty(&J::Object(manifest)));
    Built { files }
}

/// The corpus, generated once; under `BLESS=1` it is written to disk first.
fn corpus() -> &'static (Built, Vec<String>) {
    static CORPUS: OnceLock<(Built, Vec<String>)> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let built = build();
        let drift = common::corpus::sync(&corpus_dir(), &built.files);
        (built, drift)
    })
}

/// Per-block affine scale types the reader accepts (an oracle over every element type,
/// sized by its own width), so the coverage check needs no list of them.
fn per_block_scale_types() -> Vec<ElementType> {
    ElementType::ALL
        .iter()
        .copied()
        .filter(|t| {
            let w = (t.bits() / 8).max(1);
            let row: toml::Table = toml::from_str(&format!(
                r#"element_type = "int8"
                shape = [2, 8]
                data = [{{ seed = 0 }}, {{ u8 = 0x3C, count = {} }}]
                quantization = {{ scheme = "per_block_affine", flags = {}, axis = 1, block_size = 4, scale_buffer_index = 1, zero_point_buffer_index = 0xFFFF_FFFF, scale_type_tag = "{}" }}"#,
                4 * w,
                PerBlockAffineFlags::SYMMETRIC.0,
                t.name()
            ))
            .expect("a tensor row");
            let tensor = build::tensor(&row, &Library::default(), "scale type oracle");
            writer::finalize(tensor.descriptor).is_ok()
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The checked-in corpus, decoded
// ---------------------------------------------------------------------------------------

struct Entry {
    name: String,
    kind: String,
    cfg: ReaderConfig,
    bytes: Vec<u8>,
    /// The expectation's text: compared as text, since the floats are written in their
    /// shortest round-trip form and parsing them back is not exact in every JSON reader.
    expect: String,
}

fn checked_in() -> Vec<Entry> {
    let _ = corpus();
    let dir = corpus_dir();
    let manifest: J = serde_json::from_slice(
        &std::fs::read(dir.join("manifest.json"))
            .unwrap_or_else(|e| panic!("tests/corpus/valid/manifest.json: {e}; run `{REFRESH}`")),
    )
    .expect("the manifest is JSON");
    let mut out = Vec::new();
    for (name, m) in manifest.as_object().expect("an object") {
        let kind = m["kind"].as_str().unwrap().to_string();
        let mut cfg = ReaderConfig::new().permissive(m["permissive"].as_bool().unwrap());
        for a in m["agree"].as_array().unwrap() {
            cfg = access::agree_by_name(cfg, a[0].as_str().unwrap(), a[1].as_u64().unwrap() as u32);
        }
        for id in m["agree_extension_layouts"].as_array().unwrap() {
            cfg = cfg.agree_extension_layout(id.as_u64().unwrap());
        }
        assert!(
            !m["description"].as_str().unwrap_or("").is_empty(),
            "{name} has no description"
        );
        let ext = if kind == "descriptor" { "bin" } else { "hrry" };
        let bytes = std::fs::read(dir.join(format!("{name}.{ext}")))
            .unwrap_or_else(|e| panic!("{name}.{ext}: {e}"));
        let expect = std::fs::read_to_string(dir.join(format!("{name}.json")))
            .unwrap_or_else(|e| panic!("{name}.json: {e}"));
        out.push(Entry {
            name: name.clone(),
            kind,
            cfg,
            bytes,
            expect,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[test]
fn the_corpus_matches_its_generator() {
    let (_, problems) = corpus();
    assert!(
        problems.is_empty(),
        "tests/corpus/valid/ drifted from tests/corpus/valid.toml ({} problem(s)):\n  {}\nrefresh with `{REFRESH}`",
        problems.len(),
        problems.join("\n  ")
    );
}

/// A failed comparison, with the first differing line.
fn differs(name: &str, got: &[u8], want: &str) -> String {
    let got = String::from_utf8_lossy(got);
    let line = got
        .lines()
        .zip(want.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map_or_else(
            || "(length differs)".to_string(),
            |(i, (a, b))| format!("line {}: decoded `{a}`, expected `{b}`", i + 1),
        );
    format!("{name}: the decoded value differs from {name}.json; {line}")
}

#[test]
fn every_vector_decodes_to_its_expectation() {
    let entries = checked_in();
    assert!(entries.len() >= 150, "only {} vectors", entries.len());
    for e in &entries {
        let got = match e.kind.as_str() {
            "descriptor" => {
                let d = access::read_descriptor(&e.bytes, &e.cfg)
                    .unwrap_or_else(|err| panic!("{}: {err}", e.name));
                assert!(d.warnings().is_empty(), "{}: {:?}", e.name, d.warnings());
                let value = contract::descriptor_value(&d.view().owned());
                let mut got = build::with_evolution(to_json(&value), build::defaulted(&value, ""));
                if !d.dereferenceable() {
                    got.as_object_mut()
                        .unwrap()
                        .insert("dereferenceable".into(), J::Bool(false));
                }
                got
            }
            _ => {
                let f = access::decode_file(&e.bytes, &e.cfg)
                    .unwrap_or_else(|err| panic!("{}: {err}", e.name));
                let mut got = to_json(&f.contract);
                let t = &f.trailer;
                got.as_object_mut().unwrap().insert(
                    "placement".into(),
                    json!({
                        "kv_offset": t.kv_offset,
                        "kv_length": t.kv_length,
                        "index_offset": t.index_offset,
                        "index_length": t.index_length,
                        "file_size": e.bytes.len(),
                    }),
                );
                build::with_evolution(got, build::defaulted(&f.contract, ""))
            }
        };
        let got = pretty(&got);
        assert!(
            got == e.expect.as_bytes(),
            "{}",
            differs(&e.name, &got, &e.expect)
        );
    }
}

#[test]
fn every_vector_reencodes_byte_for_byte() {
    for e in checked_in() {
        if e.kind == "descriptor" {
            let d = access::read_descriptor(&e.bytes, &e.cfg).unwrap();
            assert!(
                d.view().owned().to_bytes() == e.bytes,
                "{} does not re-encode",
                e.name
            );
            continue;
        }
        let f = access::decode_file(&e.bytes, &e.cfg).unwrap();
        let mut w = FileWriter::with_header(Vec::new(), f.header.clone()).unwrap();
        for i in &f.write_order {
            let t = &f.tensors[*i];
            let bufs: Vec<&[u8]> = t.buffers.iter().map(|(_, b)| b.as_slice()).collect();
            assert!(
                t.descriptor.to_bytes() == t.descriptor_bytes,
                "{}: the descriptor of `{}` does not re-encode",
                e.name,
                t.name
            );
            w.add_tensor(&t.name, &t.descriptor_bytes, &bufs)
                .unwrap_or_else(|err: WriteError| panic!("{}: {}: {err}", e.name, t.name));
        }
        let out = w.finish(&f.kv).unwrap();
        assert!(
            out == e.bytes,
            "{} does not re-encode byte for byte",
            e.name
        );
    }
}

/// What the decoded corpus exercises.
#[derive(Default)]
struct Seen {
    types: BTreeSet<u32>,
    layouts: BTreeSet<u32>,
    device_memory: BTreeSet<(u32, u32)>,
    device_sync: BTreeSet<(u32, u32)>,
    memory: BTreeSet<u32>,
    sync: BTreeSet<u32>,
    devices: BTreeSet<u32>,
    schemes: BTreeSet<u32>,
    scheme_storage: BTreeSet<(u32, u32)>,
    scheme_variants: BTreeSet<&'static str>,
    block_scale_types: BTreeSet<u32>,
    flags: u32,
    mask: u32,
    rules: BTreeSet<u32>,
    rule_ops: BTreeSet<(u32, u32)>,
    roles: BTreeSet<u32>,
    kv_roles: BTreeSet<u32>,
    index_types: BTreeSet<u32>,
    tiled_depth: usize,
    ranks: BTreeSet<u32>,
    empty: bool,
    kv_tags: BTreeSet<u32>,
    kv_array_tags: BTreeSet<u32>,
    file_flags: Vec<u32>,
    nested_composite: bool,
    file_composites: BTreeSet<u32>,
    zero_tensor_files: usize,
}

impl Seen {
    fn descriptor(&mut self, d: &Descriptor) {
        let h = &d.fixed_header;
        self.types.insert(h.type_tag.raw());
        self.layouts.insert(h.layout_tag.raw());
        self.flags |= h.flags.0;
        self.ranks.insert(h.rank);
        self.empty |= d.shape.contains(&0);
        for b in &d.buffer_table.buffers {
            let (dev, mem, sync) = (b.device_tag.raw(), b.memory_class.raw(), b.sync_mode.raw());
            self.devices.insert(dev);
            self.memory.insert(mem);
            self.sync.insert(sync);
            self.device_memory.insert((dev, mem));
            self.device_sync.insert((dev, sync));
        }
        if let Some(q) = &d.quantization {
            let s = q.payload.tag();
            self.schemes.insert(s);
            self.scheme_storage.insert((s, h.type_tag.raw()));
            match &q.payload {
                SchemeVariant::PerChannelAffine(p) => {
                    let sym = p.header.flags & PerChannelAffineFlags::SYMMETRIC.0 != 0;
                    self.scheme_variants.insert(
                        match (sym, p.scale_buffer_index == p.zero_point_buffer_index) {
                            (true, _) => "per-channel symmetric",
                            (false, true) => "per-channel shared",
                            (false, false) => "per-channel asymmetric",
                        },
                    );
                }
                SchemeVariant::PerBlockAffine(p) => {
                    self.block_scale_types.insert(p.scale_type_tag.raw());
                    let sym = p.header.flags & PerBlockAffineFlags::SYMMETRIC.0 != 0;
                    self.scheme_variants.insert(
                        match (sym, p.scale_buffer_index == p.zero_point_buffer_index) {
                            (true, _) => "per-block symmetric",
                            (false, true) => "per-block shared",
                            (false, false) => "per-block asymmetric",
                        },
                    );
                    let s = d.shape[p.axis as usize];
                    let dense = matches!(
                        d.layout_fields,
                        LayoutVariant::RowMajor | LayoutVariant::ColumnMajor
                    );
                    if dense && !s.is_multiple_of(u64::from(p.block_size)) {
                        self.scheme_variants.insert("per-block partial");
                    }
                }
                SchemeVariant::Nf4(p)
                    if !d.shape[p.axis as usize].is_multiple_of(u64::from(p.block_size)) =>
                {
                    self.scheme_variants.insert("nf4 partial");
                }
                _ => {}
            }
            match d.layout_fields {
                LayoutVariant::Coo(_) => self.scheme_variants.insert("quantized coo"),
                LayoutVariant::Csf(_) => self.scheme_variants.insert("quantized csf"),
                LayoutVariant::BlockPaged(_) => {
                    self.scheme_variants.insert("quantized block-paged")
                }
                _ => false,
            };
        }
        if let Some(s) = &d.statistics {
            self.mask |= s.computed_mask.0;
        }
        if let Some(m) = &d.composite_member {
            self.roles.insert(m.member_role.raw());
        }
        match &d.layout_fields {
            LayoutVariant::Composite(c) => {
                self.rules.insert(c.composition_rule.raw());
                self.rule_ops
                    .insert((c.composition_rule.raw(), c.combine_op.raw()));
            }
            LayoutVariant::BlockPaged(p) => {
                self.kv_roles.insert(p.kv_role.raw());
                self.index_types.insert(p.block_table_index_type.raw());
            }
            LayoutVariant::Tiled(t) => {
                let mut depth = 1;
                let mut at = t;
                while let Some(n) = &at.nested {
                    depth += 1;
                    at = n;
                }
                self.tiled_depth = self.tiled_depth.max(depth);
            }
            _ => {}
        }
    }
}

/// The spec names of the allocated bits of a flag set that `seen` never sets.
fn never_set<F: FlagSet>(seen: u64) -> Vec<&'static str> {
    (0..64)
        .filter(|b| F::ALLOCATED >> b & 1 == 1 && seen >> b & 1 == 0)
        .map(|b| F::bit_name(b).unwrap_or("(unnamed)"))
        .collect()
}

fn missing<T: TagSpace>(seen: &BTreeSet<u32>) -> Vec<&'static str> {
    T::ALL
        .iter()
        .filter(|t| !seen.contains(&t.value()))
        .map(|t| t.name())
        .collect()
}

#[test]
fn the_corpus_covers_the_spec() {
    let mut s = Seen::default();
    for e in checked_in() {
        if e.kind == "descriptor" {
            s.descriptor(
                &access::read_descriptor(&e.bytes, &e.cfg)
                    .unwrap()
                    .view()
                    .owned(),
            );
            continue;
        }
        let f = access::decode_file(&e.bytes, &e.cfg).unwrap();
        for t in &f.tensors {
            s.descriptor(&t.descriptor);
        }
        for k in &f.kv {
            s.kv_tags.insert(k.value_tag.raw());
            if let KvValueVariant::Array(a) = &k.value {
                s.kv_array_tags.insert(a.element_tag.raw());
            }
        }
        s.file_flags.push(f.header.file_flags.0);
        for c in f.composites.iter().filter(|c| c.complete) {
            if let LayoutVariant::Composite(h) = &f.tensors[c.head].descriptor.layout_fields {
                s.file_composites.insert(h.composition_rule.raw());
            }
        }
        s.nested_composite |= f.composites.iter().any(|c| {
            c.members
                .iter()
                .any(|m| f.composites.iter().any(|d| d.head == *m))
        });
        if f.tensors.is_empty() {
            s.zero_tensor_files += 1;
        }
    }

    // Every allocated value of every tag space.
    let gaps: Vec<(&str, Vec<&str>)> = vec![
        (ElementType::NAME, missing::<ElementType>(&s.types)),
        (Layout::NAME, missing::<Layout>(&s.layouts)),
        (Device::NAME, missing::<Device>(&s.devices)),
        (SyncMode::NAME, missing::<SyncMode>(&s.sync)),
        (MemoryClass::NAME, missing::<MemoryClass>(&s.memory)),
        (Scheme::NAME, missing::<Scheme>(&s.schemes)),
        (KvValue::NAME, missing::<KvValue>(&s.kv_tags)),
        (CompositionRule::NAME, missing::<CompositionRule>(&s.rules)),
        (
            CombineOp::NAME,
            missing::<CombineOp>(&s.rule_ops.iter().map(|x| x.1).collect()),
        ),
        (MemberRole::NAME, missing::<MemberRole>(&s.roles)),
        (
            BlockTableIndexType::NAME,
            missing::<BlockTableIndexType>(&s.index_types),
        ),
        (KvRole::NAME, missing::<KvRole>(&s.kv_roles)),
    ];
    for (space, gap) in &gaps {
        assert!(
            gap.is_empty(),
            "tag space {space}: no valid vector uses {gap:?}"
        );
    }
    // Private ranges, by agreement: an element type, a layout, a device, a memory class.
    let private = |raw: &u32, ranges: &[(u32, u32, &str, &str)]| {
        ranges
            .iter()
            .any(|(a, b, k, _)| *k == "private" && (*a..=*b).contains(raw))
    };
    assert!(
        s.types.iter().any(|t| private(t, ElementType::RANGES)),
        "no private element type"
    );
    assert!(
        s.layouts.iter().any(|t| private(t, Layout::RANGES)),
        "no private layout"
    );
    assert!(
        s.devices.iter().any(|t| private(t, Device::RANGES)),
        "no private device"
    );
    assert!(
        s.memory.iter().any(|t| private(t, MemoryClass::RANGES)),
        "no private memory class"
    );

    // descriptor.md §6.5: every valid (device, memory class) pair, the private device's
    // included; every sync mode on every device that allows it (BH-9: CPU only 0x00).
    let mut pairs: Vec<(u32, TagClass<MemoryClass>)> = Vec::new();
    for d in Device::ALL {
        pairs.extend(d.memory_classes().iter().map(|m| (d.value(), *m)));
    }
    let private_device = *s
        .devices
        .iter()
        .find(|t| private(t, Device::RANGES))
        .unwrap();
    pairs.extend(
        Device::PRIVATE_MEMORY_CLASSES
            .iter()
            .map(|m| (private_device, *m)),
    );
    for (dev, mem) in pairs {
        let ok = s
            .device_memory
            .iter()
            .any(|(d, m)| *d == dev && MemoryClass::classify(*m) == mem);
        assert!(ok, "no vector puts device {dev:#04x} in {mem:?} memory");
    }
    for d in Device::ALL
        .iter()
        .map(|d| d.value())
        .chain([private_device])
    {
        for sm in SyncMode::ALL {
            if d == Device::Cpu.value() && *sm != SyncMode::ProducerSynced {
                continue;
            }
            assert!(
                s.device_sync.contains(&(d, sm.value())),
                "device {d:#04x} never uses sync mode {}",
                sm.name()
            );
        }
    }

    // Every scheme with every storage type it allows; the scheme variants.
    for sc in Scheme::ALL {
        for t in sc.storage() {
            assert!(
                s.scheme_storage.contains(&(sc.value(), t.value())),
                "no vector quantizes {} with {}",
                t.name(),
                sc.name()
            );
        }
    }
    for t in per_block_scale_types() {
        assert!(
            s.block_scale_types.contains(&t.value()),
            "no per-block vector has {} scales",
            t.name()
        );
    }
    for v in [
        "per-channel symmetric",
        "per-channel asymmetric",
        "per-channel shared",
        "per-block symmetric",
        "per-block asymmetric",
        "per-block shared",
        "per-block partial",
        "nf4 partial",
        "quantized coo",
        "quantized csf",
        "quantized block-paged",
    ] {
        assert!(s.scheme_variants.contains(v), "no vector shows {v}");
    }

    // Every composition rule with every combine operation legal with it.
    for op in CombineOp::ALL {
        for rule in op.legal_with() {
            let r = CompositionRule::from_name(rule).unwrap();
            assert!(
                s.rule_ops.contains(&(r.value(), op.value())),
                "no {rule} head with {}",
                op.name()
            );
        }
    }

    // Every optional section (descriptor flag bit) and statistics bit.
    let never = never_set::<DescriptorFlags>(u64::from(s.flags));
    assert!(
        never.is_empty(),
        "descriptor flag bits never set (the sections they gate are in no vector): {never:?}"
    );
    let never = never_set::<ComputedMask>(u64::from(s.mask));
    assert!(never.is_empty(), "computed_mask bits never set: {never:?}");

    // KV: every value type, arrays of every type an array may hold (the spec's list of
    // element tags, F23: arrays do not nest, and a value type an amendment adds is not an
    // element type unless the amendment adds it there too).
    let elements = array_element_types();
    for t in KvValue::ALL
        .iter()
        .filter(|t| elements.iter().any(|e| e == t.name()))
    {
        assert!(
            s.kv_array_tags.contains(&t.value()),
            "no KV array of {}",
            t.name()
        );
    }

    // Files: with and without KV, sorted and unsorted, composites (nested), zero tensors.
    for bit in [FileFlags::HAS_KV_METADATA, FileFlags::SORTED_INDEX] {
        assert!(
            s.file_flags.iter().any(|f| f & bit.0 != 0),
            "no file sets {bit:?}"
        );
        assert!(
            s.file_flags.iter().any(|f| f & bit.0 == 0),
            "every file sets {bit:?}"
        );
    }
    for r in CompositionRule::ALL {
        assert!(
            s.file_composites.contains(&r.value()),
            "no file binds a complete {} composite",
            r.name()
        );
    }
    assert!(
        s.nested_composite,
        "no file nests a composite head as a member"
    );
    assert!(s.zero_tensor_files >= 1, "no file without tensors (RES-42)");

    // Shapes: scalars, empty tensors, every rank range's minimum, recursive tiling ≥ 3.
    assert!(
        s.ranks.contains(&0) && s.empty,
        "no scalar or no empty tensor"
    );
    assert!(
        s.tiled_depth >= 3,
        "tiled nesting reaches only {}",
        s.tiled_depth
    );
}

/// The facts sheets' worked examples, byte for byte (the only literal expectations here).
#[test]
fn the_sheets_worked_examples_hold() {
    let built = &corpus().0.files;
    let read = |name: &str| -> &[u8] { built.get(name).unwrap_or_else(|| panic!("{name}")) };
    // descriptor.md §10.
    let b = read("example-descriptor-md-10.bin");
    let dump: Vec<u8> = "48 52 52 59 01 00 3D 00 00 00 00 00 00 00 03 01 \
                         02 00 00 00 03 00 00 00 00 00 00 00 04 00 00 00 \
                         00 00 00 00 00 00 00 00 00 00 00 00 01 C0 00 00 \
                         00 00 00 00 00 40 00 00 00 00 00 00 00"
        .split_whitespace()
        .map(|x| u8::from_str_radix(x, 16).unwrap())
        .collect();
    assert_eq!(b, dump, "descriptor.md §10");
    // quantization.md §4.2: quantization_length 0x14, then the payload's table, after a
    // buffer table of three handles (29 + 8·2 + 16·3 = 93).
    let b = read("example-quantization-md-4-2.bin");
    let payload: Vec<u8> =
        "14 00 00 00 02 01 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00"
            .split_whitespace()
            .map(|x| u8::from_str_radix(x, 16).unwrap())
            .collect();
    let config = ReaderConfig::new();
    let at = |bytes: &[u8], path: &str| {
        paths::resolve(
            &Root::Descriptor {
                bytes,
                config: &config,
            },
            path,
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .at as usize
    };
    assert_eq!(at(b, "quantization"), 93, "quantization.md §4.2");
    assert_eq!(b[93..93 + 24], payload[..], "quantization.md §4.2");
    let d = access::read_descriptor(b, &ReaderConfig::new()).unwrap();
    let sizes: Vec<u64> = d
        .view()
        .buffer_table()
        .buffers()
        .iter()
        .map(|h| h.byte_size())
        .collect();
    assert_eq!(sizes, [786_432, 3072, 3072], "quantization.md §4.2");
    // layouts.md §17.1 COO: the layout block and the buffers.
    let b = read("layout-coo-sorted.bin");
    // After the fixed header, the shape and byte_offset: 28 + 8·rank.
    let at = at(b, "layout_fields");
    assert_eq!(at, 28 + 8 * 2, "layouts.md §1.1");
    assert_eq!(
        b[at..at + 16],
        [0x03, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0],
        "layouts.md §17.1 COO layout block"
    );
    let f = access::decode_file(read("file-sparse.hrry"), &ReaderConfig::new()).unwrap();
    let coo = f.tensor("coo").unwrap();
    assert_eq!(coo.buffers[0].1, f32s(&[1.5, -0.5, 2.0]));
    assert_eq!(coo.buffers[1].1, u64s(&[0, 1, 2, 0, 3, 3]));
    // CSR / CSC / CSF / block-paged arrays of §17.1.
    let csr = f.tensor("csr").unwrap();
    assert_eq!(csr.buffers[0].1, f32s(&[1.0, 2.0, 3.0, 4.0, 5.0]));
    assert_eq!(csr.buffers[1].1, u64s(&[0, 3, 2, 1, 4]));
    assert_eq!(csr.buffers[2].1, u64s(&[0, 2, 3, 5, 5]));
    let csc = f.tensor("csc").unwrap();
    assert_eq!(csc.buffers[0].1, f32s(&[1.0, 4.0, 3.0, 2.0, 5.0]));
    assert_eq!(csc.buffers[1].1, u64s(&[0, 2, 1, 0, 2]));
    assert_eq!(csc.buffers[2].1, u64s(&[0, 1, 2, 3, 4, 5]));
    let csf = f.tensor("csf").unwrap();
    let want: [&[u64]; 6] = [
        &[0, 2],
        &[0, 1],
        &[0, 2, 3],
        &[0, 2, 1],
        &[0, 1, 2, 4],
        &[1, 3, 0, 2],
    ];
    assert_eq!(csf.buffers.len(), 7);
    assert_eq!(csf.buffers[0].1, f32s(&[1.0, 2.0, 3.0, 4.0]));
    for (i, w) in want.iter().enumerate() {
        assert_eq!(csf.buffers[i + 1].1, u64s(w), "CSF buffer {}", i + 1);
    }
    let kv = f.tensor("kv.key").unwrap();
    assert_eq!(
        kv.buffers[0].1.len(),
        320 * 2,
        "page_pool of 320 float16 elements"
    );
    assert_eq!(kv.buffers[1].1, u32s(&[0, 1, 0]), "block_table");
    assert_eq!(kv.buffers[2].1, u32s(&[0, 2, 3]), "seq_ptr");
    // descriptor.md §8.4 packing examples.
    let f = access::decode_file(read("file-packing-examples.hrry"), &ReaderConfig::new()).unwrap();
    for (name, bytes) in [
        ("bool", &[0x0D][..]),
        ("uint4", &[0xC5, 0x03]),
        ("uint2", &[0x27]),
        ("float6", &[0x81, 0x40, 0x20]),
    ] {
        assert_eq!(
            f.tensor(name).unwrap().data,
            bytes,
            "descriptor.md §8.4 {name}"
        );
    }
    // container.md §5.2's placement example under RES-3: a 61-byte descriptor at 64, a
    // 16-byte buffer at 4096, the next descriptor at 4112.
    let f = access::decode_file(read("file-basic-kv.hrry"), &ReaderConfig::new()).unwrap();
    let w = &f.tensor("weight").unwrap().entry;
    assert_eq!(
        (
            w.descriptor_offset,
            w.descriptor_length,
            w.data_offset,
            w.data_length
        ),
        (64, 61, 4096, 16)
    );
    assert_eq!(f.tensor("bias").unwrap().entry.descriptor_offset, 4112);
}

/// The KV value types an array may hold: the `one_of` check of the array structure's
/// element-tag field in the spec's tables (`structures/container.toml`, F23).
fn array_element_types() -> Vec<String> {
    let t = tables::load(&common::root().join("spec/structures/container.toml"));
    let mut out = Vec::new();
    for s in t["structure"].as_array().expect("structures") {
        for f in s.get("field").and_then(T::as_array).into_iter().flatten() {
            if f.get("type").and_then(T::as_str) == Some(&format!("tag:{}", KvValue::NAME))
                && let Some(one_of) = f
                    .get("check")
                    .and_then(|c| c.get("one_of"))
                    .and_then(T::as_array)
            {
                out.extend(one_of.iter().filter_map(T::as_str).map(str::to_string));
            }
        }
    }
    assert!(
        !out.is_empty(),
        "no KV array element list in spec/structures/container.toml"
    );
    out
}
