//! Rejecting vectors: for every reader rule the runtime enforces, byte strings that break
//! exactly that rule, each checked in under `tests/corpus/reject/` and named after the rule.
//!
//! The vectors are generated here, from valid descriptors and files built with the runtime's
//! own writers (or an owned value's raw encoding where the invalid state must be encoded on
//! purpose), by breaking one rule: a patched byte at a known offset, or an owned value that
//! carries the violation. `tests/corpus/reject/manifest.json` records, per file, the rule, its
//! stable code, the absolute byte offset the rejection must point at, and the reader
//! configuration it needs. Refresh both with `BLESS=1 cargo test --test rejects`.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use common::*;
use hurray_runtime::ctx::Ctx;
use hurray_runtime::flags::{
    ComputedMask, DescriptorFlags, FileFlags, PerBlockAffineFlags, PerChannelAffineFlags,
};
use hurray_runtime::rules::{Action, Actor, EnforcedBy, Rule};
use hurray_runtime::structures::*;
use hurray_runtime::tags::*;
use hurray_runtime::wire::Reader;
use hurray_runtime::writer::{FileOptions, FileWriter, finalize};
use hurray_runtime::{ReaderConfig, TagSpace, TagValue, descriptor, file};
use serde_json::{Value as J, json};

// ---------------------------------------------------------------------------------------
// Reader configurations recorded in the manifest.

/// The non-default parts of a reader configuration a vector needs.
#[derive(Clone, Debug, Default, PartialEq)]
struct Cfg {
    network: bool,
    /// Private tag values agreed out of band: (tag space, value).
    agree: Vec<(String, u32)>,
    agree_extension_layouts: Vec<u64>,
}

impl Cfg {
    fn agreeing(space: &str, value: u32) -> Cfg {
        Cfg::default().and(space, value)
    }

    fn and(mut self, space: &str, value: u32) -> Cfg {
        self.agree.push((space.to_string(), value));
        self
    }

    fn and_extension_layout(mut self, id: u64) -> Cfg {
        self.agree_extension_layouts.push(id);
        self
    }

    fn reader(&self, permissive: bool) -> ReaderConfig {
        let mut c = ReaderConfig::new()
            .permissive(permissive)
            .network(self.network);
        for (space, v) in &self.agree {
            let v = *v;
            c = match space.as_str() {
                "element_type" => c.agree::<ElementType>(v),
                "layout" => c.agree::<Layout>(v),
                "device" => c.agree::<Device>(v),
                "memory_class" => c.agree::<MemoryClass>(v),
                "scheme" => c.agree::<Scheme>(v),
                "composition_rule" => c.agree::<CompositionRule>(v),
                other => panic!("no tag space `{other}` in the manifest's agreements"),
            };
        }
        for id in &self.agree_extension_layouts {
            c = c.agree_extension_layout(*id);
        }
        c
    }

    fn to_json(&self) -> J {
        let mut m = serde_json::Map::new();
        if self.network {
            m.insert("network".into(), J::Bool(true));
        }
        if !self.agree.is_empty() {
            m.insert(
                "agree".into(),
                J::Array(
                    self.agree
                        .iter()
                        .map(|(s, v)| json!({ "space": s, "value": v }))
                        .collect(),
                ),
            );
        }
        if !self.agree_extension_layouts.is_empty() {
            m.insert(
                "agree_extension_layouts".into(),
                json!(self.agree_extension_layouts),
            );
        }
        J::Object(m)
    }

    fn from_json(j: &J) -> Cfg {
        Cfg {
            network: j["network"].as_bool().unwrap_or(false),
            agree: j["agree"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|x| {
                            (
                                x["space"].as_str().expect("space").to_string(),
                                x["value"].as_u64().expect("value") as u32,
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
            agree_extension_layouts: j["agree_extension_layouts"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_u64().expect("id")).collect())
                .unwrap_or_default(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Vectors.

/// One rejecting vector.
#[derive(Debug)]
struct Vector {
    file: String,
    bytes: Vec<u8>,
    rule: Rule,
    offset: u64,
    config: Cfg,
    description: String,
}

#[derive(Default)]
struct Gen {
    out: Vec<Vector>,
}

impl Gen {
    /// Add a vector; `file` is `<slug>.<bin|hrry>`, prefixed here with the rule id.
    fn push(
        &mut self,
        rule: Rule,
        file: &str,
        bytes: Vec<u8>,
        offset: u64,
        config: Cfg,
        description: &str,
    ) {
        let file = format!("{}-{file}", rule.id());
        assert!(
            !self.out.iter().any(|v| v.file == file),
            "two vectors named {file}"
        );
        self.out.push(Vector {
            file,
            bytes,
            rule,
            offset,
            config,
            description: description.to_string(),
        });
    }

    /// A descriptor vector read by a default (strict) reader.
    fn d(&mut self, rule: Rule, slug: &str, bytes: Vec<u8>, offset: u64, description: &str) {
        self.push(
            rule,
            &format!("{slug}.bin"),
            bytes,
            offset,
            Cfg::default(),
            description,
        );
    }

    /// A descriptor vector that needs a configured reader.
    fn dc(
        &mut self,
        rule: Rule,
        slug: &str,
        bytes: Vec<u8>,
        offset: u64,
        cfg: Cfg,
        description: &str,
    ) {
        self.push(
            rule,
            &format!("{slug}.bin"),
            bytes,
            offset,
            cfg,
            description,
        );
    }

    /// A file vector read by a default (strict) reader.
    fn f(&mut self, rule: Rule, slug: &str, bytes: Vec<u8>, offset: u64, description: &str) {
        self.push(
            rule,
            &format!("{slug}.hrry"),
            bytes,
            offset,
            Cfg::default(),
            description,
        );
    }
}

// ---------------------------------------------------------------------------------------
// Building blocks: owned descriptors, valid bases, byte patches.

fn handle(size: u64) -> BufferHandle {
    BufferHandle {
        byte_size: size,
        alignment: 64,
        device_tag: Device::Cpu.into(),
        sync_mode: SyncMode::ProducerSynced.into(),
        memory_class: MemoryClass::Standard.into(),
    }
}

fn layout_tag(l: &LayoutVariant) -> u32 {
    let t = match l {
        LayoutVariant::RowMajor => Layout::RowMajor,
        LayoutVariant::ColumnMajor => Layout::ColumnMajor,
        LayoutVariant::Strided(_) => Layout::Strided,
        LayoutVariant::Tiled(_) => Layout::Tiled,
        LayoutVariant::Morton(_) => Layout::Morton,
        LayoutVariant::Coo(_) => Layout::Coo,
        LayoutVariant::Csr(_) => Layout::Csr,
        LayoutVariant::Csc(_) => Layout::Csc,
        LayoutVariant::Csf(_) => Layout::Csf,
        LayoutVariant::BlockPaged(_) => Layout::BlockPaged,
        LayoutVariant::Composite(_) => Layout::Composite,
        LayoutVariant::Hilbert(_) => Layout::Hilbert,
        LayoutVariant::Private(t, _) => return *t,
    };
    t.value()
}

/// An owned descriptor: CPU buffers of the given sizes, alignment 64, no optional section.
fn desc_raw_type(ty: u32, layout: LayoutVariant, shape: &[u64], sizes: &[u64]) -> Descriptor {
    Descriptor {
        fixed_header: FixedHeader {
            magic: b"HRRY".to_vec(),
            version_major: 1,
            version_minor: 0,
            descriptor_length: 0,
            flags: DescriptorFlags(0),
            type_tag: TagValue::from_raw(ty),
            layout_tag: TagValue::from_raw(layout_tag(&layout)),
            rank: shape.len() as u32,
        },
        shape: shape.to_vec(),
        byte_offset: 0,
        layout_fields: layout,
        buffer_table: BufferTable {
            buffers: sizes.iter().map(|s| handle(*s)).collect(),
        },
        quantization: None,
        shard: None,
        statistics: None,
        extension_type: None,
        composite_member: None,
        skipped: Vec::new(),
    }
}

fn desc(ty: ElementType, layout: LayoutVariant, shape: &[u64], sizes: &[u64]) -> Descriptor {
    desc_raw_type(ty.value(), layout, shape, sizes)
}

/// The raw encoding of an owned descriptor, checked by nothing: the section flags follow the
/// sections present (other bits as given), rank follows the shape, and descriptor_length is
/// the encoded size. For invalid states the writer would refuse.
fn raw(mut d: Descriptor) -> Vec<u8> {
    d.sync_presence_flags();
    d.fixed_header.rank = d.shape.len() as u32;
    d.fixed_header.descriptor_length = 0;
    let n = d.to_bytes().len() as u32;
    d.fixed_header.descriptor_length = n;
    d.to_bytes()
}

/// A valid descriptor: encoded by the writer (`finalize`) and read back by a strict reader of
/// the given configuration without a single warning.
fn valid(d: Descriptor, cfg: &Cfg) -> Vec<u8> {
    let b = finalize(d).unwrap_or_else(|e| panic!("the writer refuses a base descriptor: {e}"));
    let c = descriptor::read(&b, &cfg.reader(false))
        .unwrap_or_else(|e| panic!("a base descriptor does not read back: {e:?}"));
    assert!(c.warnings.is_empty(), "base warnings: {:?}", c.warnings);
    assert!(c.dereferenceable);
    b
}

/// Offsets in a valid descriptor, found through its view.
fn at(b: &[u8], cfg: &Cfg, f: impl FnOnce(&DescriptorView<'_>) -> u64) -> u64 {
    let c = descriptor::read(b, &cfg.reader(false)).expect("offsets come from a valid base");
    f(&c.view)
}

fn buf<'a>(v: &DescriptorView<'a>, i: usize) -> BufferHandleView<'a> {
    v.buffer_table().buffers().get(i).expect("buffer")
}

fn with(mut b: Vec<u8>, at: u64, bytes: &[u8]) -> Vec<u8> {
    let at = at as usize;
    b[at..at + bytes.len()].copy_from_slice(bytes);
    b
}

fn u32le(x: u32) -> [u8; 4] {
    x.to_le_bytes()
}

fn u64le(x: u64) -> [u8; 8] {
    x.to_le_bytes()
}

fn qheader(s: Scheme, flags: u16) -> QuantizationHeader {
    QuantizationHeader {
        scheme_tag: s.into(),
        scheme_version: 1,
        flags,
    }
}

fn per_tensor(scale: f32, zero_point: i32) -> QuantizationSection {
    QuantizationSection {
        payload: SchemeVariant::PerTensorAffine(PerTensorAffine {
            header: qheader(Scheme::PerTensorAffine, 0),
            scale,
            zero_point,
            skipped: Vec::new(),
        }),
    }
}

fn per_channel(axis: u32, scale: u32, zp: u32, symmetric: bool) -> QuantizationSection {
    QuantizationSection {
        payload: SchemeVariant::PerChannelAffine(PerChannelAffine {
            header: qheader(
                Scheme::PerChannelAffine,
                if symmetric {
                    PerChannelAffineFlags::SYMMETRIC.0
                } else {
                    0
                },
            ),
            axis,
            scale_buffer_index: scale,
            zero_point_buffer_index: zp,
            scale_type_tag: ElementType::Float32.into(),
            skipped: Vec::new(),
        }),
    }
}

fn per_block(
    axis: u32,
    block: u32,
    scale: u32,
    zp: u32,
    symmetric: bool,
    scale_type: ElementType,
) -> QuantizationSection {
    QuantizationSection {
        payload: SchemeVariant::PerBlockAffine(PerBlockAffine {
            header: qheader(
                Scheme::PerBlockAffine,
                if symmetric {
                    PerBlockAffineFlags::SYMMETRIC.0
                } else {
                    0
                },
            ),
            axis,
            block_size: block,
            scale_buffer_index: scale,
            zero_point_buffer_index: zp,
            scale_type_tag: scale_type.into(),
            skipped: Vec::new(),
        }),
    }
}

fn nf4(axis: u32, block: u32, scale: u32) -> QuantizationSection {
    QuantizationSection {
        payload: SchemeVariant::Nf4(Nf4 {
            header: qheader(Scheme::Nf4, 0),
            axis,
            block_size: block,
            scale_buffer_index: scale,
            skipped: Vec::new(),
        }),
    }
}

fn mxfp(axis: u32, block: u32, scale: u32) -> QuantizationSection {
    QuantizationSection {
        payload: SchemeVariant::Mxfp(Mxfp {
            header: qheader(Scheme::Mxfp, 0),
            axis,
            block_size: block,
            scale_buffer_index: scale,
            skipped: Vec::new(),
        }),
    }
}

fn quantized(mut d: Descriptor, q: QuantizationSection) -> Descriptor {
    d.quantization = Some(q);
    d
}

fn statistics_nnz(nnz: u64) -> Statistics {
    Statistics {
        computed_mask: ComputedMask::NNZ_VALID,
        nnz,
        sparsity_ratio: 0.0,
        value_min: 0.0,
        value_max: 0.0,
        value_abs_max: 0.0,
        value_mean: 0.0,
        value_stddev: 0.0,
        nm_n: 0,
        nm_m: 0,
        has_nan: 0,
        has_inf: 0,
    }
}

fn ext_type(bit_width: u32, packing_factor: u8) -> ExtensionType {
    ExtensionType {
        bit_width,
        packing_factor,
        is_float: 0,
        is_signed: 1,
        sign_bits: 0,
        exponent_bits: 0,
        mantissa_bits: 0,
        exponent_bias: 0,
        has_nan: 0,
        has_inf: 0,
    }
}

fn shard(parent: &[u64], offset: &[u64]) -> Shard {
    Shard {
        parent_shape: parent.to_vec(),
        shard_offset: offset.to_vec(),
    }
}

fn member(role: MemberRole) -> CompositeMember {
    CompositeMember {
        member_role: role.into(),
    }
}

fn composite(rule: u32, op: u32, count: u32) -> LayoutVariant {
    LayoutVariant::Composite(LayoutComposite {
        composition_rule: TagValue::from_raw(rule),
        combine_op: TagValue::from_raw(op),
        member_count: count,
    })
}

fn tiled(tiles: &[u64], inner: u8, nested: Option<LayoutTiled>) -> LayoutTiled {
    LayoutTiled {
        tile_shape: tiles.to_vec(),
        outer_layout: 1,
        inner_layout: inner,
        outer_strides: None,
        inner_strides: None,
        nested: nested.map(Box::new),
    }
}

fn extension(id: u64, data: &[u8]) -> LayoutVariant {
    LayoutVariant::Private(
        0xF0,
        LayoutExtension {
            extension_layout_id: id,
            extension_data: data.to_vec(),
        },
    )
}

fn f32_rm(shape: &[u64]) -> Descriptor {
    let n: u64 = shape.iter().product();
    desc(
        ElementType::Float32,
        LayoutVariant::RowMajor,
        shape,
        &[n * 4],
    )
}

fn coo(nnz: u64, sorted: u8) -> Descriptor {
    desc(
        ElementType::Float32,
        LayoutVariant::Coo(LayoutCoo {
            nnz,
            is_sorted: sorted,
        }),
        &[2, 3],
        &[nnz * 4, nnz * 16],
    )
}

fn csr(nnz: u64) -> Descriptor {
    desc(
        ElementType::Float32,
        LayoutVariant::Csr(LayoutCsr { nnz }),
        &[2, 3],
        &[nnz * 4, nnz * 8, 24],
    )
}

fn csc(nnz: u64) -> Descriptor {
    desc(
        ElementType::Float32,
        LayoutVariant::Csc(LayoutCsc { nnz }),
        &[2, 3],
        &[nnz * 4, nnz * 8, 32],
    )
}

/// A rank-3 CSF descriptor whose buffers have the sizes of `arrays` (pos_0, crd_0, …, crd_2).
fn csf(shape: &[u64], nnz: u64, arrays: &[Vec<u64>]) -> Descriptor {
    let mut sizes = vec![nnz * 4];
    sizes.extend(arrays.iter().map(|a| a.len() as u64 * 8));
    desc(
        ElementType::Float32,
        LayoutVariant::Csf(LayoutCsf {
            nnz,
            mode_order: (0..shape.len() as u32).collect(),
        }),
        shape,
        &sizes,
    )
}

/// The valid CSF arrays of the points (0,0,0) and (1,1,1) of a [2,2,2] tensor.
fn csf_arrays() -> Vec<Vec<u64>> {
    vec![
        vec![0, 2],
        vec![0, 1],
        vec![0, 1, 2],
        vec![0, 1],
        vec![0, 1, 2],
        vec![0, 1],
    ]
}

fn paged() -> LayoutBlockPaged {
    LayoutBlockPaged {
        page_size: 2,
        num_pages: 2,
        paged_axis: 0,
        num_seqs: 1,
        kv_role: KvRole::Key.into(),
        layer_index: 0,
        block_table_index_type: BlockTableIndexType::U32.into(),
    }
}

/// float32 [4, 1, 2] in 2 pages of 2 tokens, one sequence: page_pool, block_table, seq_ptr.
fn block_paged() -> Descriptor {
    desc(
        ElementType::Float32,
        LayoutVariant::BlockPaged(paged()),
        &[4, 1, 2],
        &[32, 8, 8],
    )
}

fn hilbert(order: u32, rank: u32) -> LayoutVariant {
    LayoutVariant::Hilbert(LayoutHilbert {
        hilbert_order: order,
        hilbert_rank: rank,
    })
}

fn head(rule: CompositionRule, op: CombineOp, count: u32, shape: &[u64]) -> Descriptor {
    desc(
        ElementType::Float32,
        composite(rule.value(), op.value(), count),
        shape,
        &[],
    )
}

// ---------------------------------------------------------------------------------------
// Files: the writer, and surgery on the KV and index sections.

/// CRC-32C of a patched index, from the same crate the writer uses.
fn crc32c(data: &[u8]) -> u32 {
    crc32c::crc32c(data)
}

type TensorIn = (String, Vec<u8>, Vec<Vec<u8>>);

fn t(name: &str, d: Vec<u8>, bufs: Vec<Vec<u8>>) -> TensorIn {
    (name.to_string(), d, bufs)
}

fn write_file(tensors: &[TensorIn], kv: &[KvEntry], opts: &FileOptions) -> Vec<u8> {
    let mut w = FileWriter::new(Vec::new(), opts).expect("file header");
    for (name, d, bufs) in tensors {
        let bufs: Vec<&[u8]> = bufs.iter().map(|b| b.as_slice()).collect();
        w.add_tensor(name, d, &bufs)
            .unwrap_or_else(|e| panic!("the writer refuses `{name}`: {e}"));
    }
    w.finish(kv).expect("file finishes")
}

/// A file written by the writer whose tensor descriptors may break composite rules: the
/// writer checks each descriptor on its own, never the composite.
fn file_of(tensors: &[TensorIn]) -> Vec<u8> {
    write_file(tensors, &[], &FileOptions::default())
}

/// A file that a strict reader accepts without warnings.
fn valid_file(tensors: &[TensorIn], kv: &[KvEntry], opts: &FileOptions) -> Vec<u8> {
    let b = write_file(tensors, kv, opts);
    let f = file::read(&b, &ReaderConfig::new())
        .unwrap_or_else(|e| panic!("a base file does not read back: {e:?}"));
    assert!(f.warnings().is_empty(), "base warnings: {:?}", f.warnings());
    // The hand-written CRC agrees with the writer's.
    let io = f.trailer().index_offset() as usize;
    let il = f.trailer().index_length() as usize;
    assert_eq!(crc32c(&b[io..io + il]), f.trailer().index_crc32c());
    b
}

fn kv_str(key: &str, value: &str) -> KvEntry {
    KvEntry {
        key: key.into(),
        value_tag: KvValue::String.into(),
        value: KvValueVariant::String(KvString {
            value: value.into(),
        }),
    }
}

fn kv_bool(key: &str, value: u8) -> KvEntry {
    KvEntry {
        key: key.into(),
        value_tag: KvValue::Bool.into(),
        value: KvValueVariant::Bool(KvBool { value }),
    }
}

fn kv_int(key: &str, value: i64) -> KvEntry {
    KvEntry {
        key: key.into(),
        value_tag: KvValue::Int64.into(),
        value: KvValueVariant::Int64(KvInt64 { value }),
    }
}

fn kv_strings(key: &str, values: &[&str]) -> KvEntry {
    KvEntry {
        key: key.into(),
        value_tag: KvValue::Array.into(),
        value: KvValueVariant::Array(KvArray {
            element_tag: KvValue::String.into(),
            elements: values
                .iter()
                .map(|v| KvValueVariant::String(KvString { value: (*v).into() }))
                .collect(),
        }),
    }
}

fn base_kv() -> Vec<KvEntry> {
    vec![
        kv_str("author", "hurray"),
        kv_bool("flag", 1),
        kv_int("n", 7),
        kv_strings("tags", &["x", "y"]),
    ]
}

fn data_a() -> Vec<u8> {
    f32s(&[1.0, 2.0, 3.0, 4.0])
}

/// Tensors `a` (float32 [2, 2]) and `b` (int8 [3]).
fn base_tensors() -> Vec<TensorIn> {
    vec![
        t("a", valid(f32_rm(&[2, 2]), &Cfg::default()), vec![data_a()]),
        t(
            "b",
            valid(
                desc(ElementType::Int8, LayoutVariant::RowMajor, &[3], &[3]),
                &Cfg::default(),
            ),
            vec![vec![1, 2, 3]],
        ),
    ]
}

/// The base file of the container vectors: two tensors and a KV section; the index sorted.
fn base_file(sorted: bool) -> Vec<u8> {
    valid_file(
        &base_tensors(),
        &base_kv(),
        &FileOptions {
            kv: true,
            sorted_index: sorted,
            ..FileOptions::default()
        },
    )
}

/// Where the parts of a file lie.
#[derive(Clone, Copy, Debug)]
struct Parts {
    kv_offset: u64,
    index_offset: u64,
    trailer: u64,
}

/// A valid file cut into its tensor region (header included) and its owned sections.
struct Split {
    region: Vec<u8>,
    kv: Option<KvSection>,
    index: IndexSection,
}

fn split(b: &[u8]) -> Split {
    let f = file::read(b, &ReaderConfig::new()).expect("a valid base file");
    let io = f.trailer().index_offset();
    let ko = f.trailer().kv_offset();
    let end = if f.kv().is_some() { ko.min(io) } else { io };
    Split {
        region: b[..end as usize].to_vec(),
        kv: f.kv().map(|k| k.owned()),
        index: f.index_section().expect("the index").owned(),
    }
}

fn pad8(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
}

/// Reassemble a file: the region, the KV bytes (8-aligned), the index bytes (8-aligned) and a
/// trailer with the index's CRC-32C.
fn assemble(region: &[u8], kv: Option<&[u8]>, index: &[u8]) -> (Vec<u8>, Parts) {
    let mut out = region.to_vec();
    let (ko, kl) = match kv {
        Some(k) => {
            pad8(&mut out);
            let at = out.len() as u64;
            out.extend_from_slice(k);
            (at, k.len() as u32)
        }
        None => (0, 0),
    };
    pad8(&mut out);
    let io = out.len() as u64;
    out.extend_from_slice(index);
    let trailer_at = out.len() as u64;
    out.extend(
        Trailer {
            index_offset: io,
            index_length: index.len() as u64,
            kv_offset: ko,
            kv_length: kl,
            index_crc32c: crc32c(index),
            trailer_magic: b"HRRY".to_vec(),
        }
        .to_bytes(),
    );
    (
        out,
        Parts {
            kv_offset: ko,
            index_offset: io,
            trailer: trailer_at,
        },
    )
}

fn index_bytes(entries: &[IndexEntry]) -> Vec<u8> {
    IndexSection {
        entries: entries.to_vec(),
        skipped: Vec::new(),
    }
    .to_bytes()
}

fn kv_bytes(entries: &[KvEntry]) -> Vec<u8> {
    KvSection {
        entries: entries.to_vec(),
        skipped: Vec::new(),
    }
    .to_bytes()
}

/// Absolute offset of index entry `i` in an index encoded at `io`.
fn entry_at(entries: &[IndexEntry], io: u64, i: usize) -> u64 {
    io + 8
        + entries[..i]
            .iter()
            .map(|e| e.to_bytes().len() as u64)
            .sum::<u64>()
}

/// Absolute offset of KV entry `i` in a KV section encoded at `ko`.
fn kv_entry_at(entries: &[KvEntry], ko: u64, i: usize) -> u64 {
    ko + 4
        + entries[..i]
            .iter()
            .map(|e| e.to_bytes().len() as u64)
            .sum::<u64>()
}

/// Replace the index of a valid file and fix the CRC.
fn with_index(
    b: &[u8],
    edit: impl FnOnce(&mut Vec<IndexEntry>),
) -> (Vec<u8>, Parts, Vec<IndexEntry>) {
    let s = split(b);
    let mut entries = s.index.entries.clone();
    edit(&mut entries);
    let kv = s.kv.map(|k| k.to_bytes());
    let (out, p) = assemble(&s.region, kv.as_deref(), &index_bytes(&entries));
    (out, p, entries)
}

/// Replace the KV section of a valid file.
fn with_kv(b: &[u8], kv: &[u8]) -> (Vec<u8>, Parts) {
    let s = split(b);
    assemble(&s.region, Some(kv), &s.index.to_bytes())
}

/// The index entries a file's own index records (the trailer and index are read alone, so
/// this works on files whose tensors break a rule).
fn entries_of(b: &[u8]) -> Vec<IndexEntry> {
    let cfg = ReaderConfig::new();
    let mut ctx = Ctx::new(&cfg);
    let t0 = b.len() - 40;
    let tr = TrailerView::parse(&mut Reader::new(&b[t0..], t0 as u64, Rule::Len3), &mut ctx)
        .expect("trailer");
    let io = tr.index_offset() as usize;
    let il = tr.index_length() as usize;
    IndexSectionView::parse(
        &mut Reader::new(&b[io..io + il], io as u64, Rule::F24),
        &mut ctx,
    )
    .expect("index")
    .owned()
    .entries
}

fn descriptor_offset(b: &[u8], name: &str) -> u64 {
    entries_of(b)
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no tensor `{name}`"))
        .descriptor_offset
}

/// Absolute offset of buffer `k` of tensor `name` in a valid file.
fn buffer_at(b: &[u8], name: &str, k: usize) -> u64 {
    let f = file::read(b, &ReaderConfig::new()).expect("a valid base file");
    f.tensor(name).expect("tensor").expect("tensor").buffers()[k].0
}

/// A one-tensor file.
fn single(d: Vec<u8>, bufs: Vec<Vec<u8>>) -> Vec<u8> {
    valid_file(&[t("t", d, bufs)], &[], &FileOptions::default())
}

// ---------------------------------------------------------------------------------------
// The generator.

fn vectors() -> Vec<Vector> {
    let mut g = Gen::default();
    header_vectors(&mut g);
    tag_vectors(&mut g);
    handle_vectors(&mut g);
    buffer_count_vectors(&mut g);
    quantization_vectors(&mut g);
    section_vectors(&mut g);
    layout_vectors(&mut g);
    composite_head_vectors(&mut g);
    data_vectors(&mut g);
    container_vectors(&mut g);
    composite_file_vectors(&mut g);
    g.out.sort_by(|a, b| a.file.cmp(&b.file));
    g.out
}

fn header_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let b = valid(f32_rm(&[3, 4]), &dc);
    g.d(
        Rule::Hdr1,
        "magic-hrrx",
        with(b.clone(), 3, b"X"),
        0,
        "bytes 0-3 are HRRX, not HRRY",
    );
    g.d(
        Rule::Hdr1,
        "magic-zero",
        with(b.clone(), 0, &[0; 4]),
        0,
        "bytes 0-3 are zero",
    );
    g.d(
        Rule::Hdr2,
        "major-2",
        with(b.clone(), 4, &[2]),
        4,
        "version_major 2 is above the reader's 1",
    );
    g.d(
        Rule::Hdr2,
        "major-255",
        with(b.clone(), 4, &[255]),
        4,
        "version_major 255 is above the reader's 1",
    );
    g.d(
        Rule::Hdr3,
        "major-0",
        with(b.clone(), 4, &[0]),
        4,
        "version_major 0 is below the reader's 1",
    );
    for (n, what) in [(12u32, "12"), (0, "0"), (19, "19")] {
        g.d(
            Rule::Hdr4,
            &format!("descriptor-length-{what}"),
            with(b.clone(), 6, &u32le(n)),
            6,
            &format!("descriptor_length {n} is below 20"),
        );
    }
    g.d(
        Rule::Hdr5,
        "truncated-to-30-bytes",
        b[..30].to_vec(),
        20,
        "descriptor_length says 61 but only 30 bytes follow",
    );
    g.d(
        Rule::Hdr5,
        "truncated-to-10-bytes",
        b[..10].to_vec(),
        10,
        "the 20-byte header itself is cut after 10 bytes",
    );
    let bt = at(&b, &dc, |v| v.buffer_table_at());
    g.d(
        Rule::Hdr5,
        "length-50-cuts-buffer-handle",
        with(b[..50].to_vec(), 6, &u32le(50)),
        bt + 1,
        "descriptor_length 50 ends inside buffer handle 0",
    );
    g.d(
        Rule::Hdr5,
        "shard-flag-without-section",
        with(b.clone(), 10, &u32le(DescriptorFlags::HAS_SHARD.0)),
        b.len() as u64,
        "HAS_SHARD is set but descriptor_length ends before the shard section (SHD-1)",
    );
    g.d(
        Rule::Hdr5,
        "statistics-flag-without-section",
        with(b.clone(), 10, &u32le(DescriptorFlags::HAS_STATISTICS.0)),
        b.len() as u64,
        "HAS_STATISTICS is set but descriptor_length ends before the statistics (STA-1)",
    );
    // Surplus bytes at a version the reader knows (RES-7).
    let mut d = f32_rm(&[3, 4]);
    d.skipped = vec![0; 4];
    g.d(
        Rule::Len1,
        "descriptor-4-surplus-bytes",
        raw(d),
        b.len() as u64,
        "4 zero bytes after the buffer table inside descriptor_length, at version 1.0",
    );
    let mut x = b.clone();
    x.extend([0; 16]);
    let x = with(x, 6, &u32le(b.len() as u32 + 16));
    g.d(
        Rule::Len1,
        "member-section-without-flag",
        x,
        b.len() as u64,
        "a 16-byte composite member section follows but HAS_COMPOSITE_MEMBER is clear (CMP-1)",
    );
    // Flags.
    for bit in [5u32, 31] {
        g.d(
            Rule::Flg1,
            &format!("flags-bit-{bit}"),
            with(b.clone(), 10, &u32le(1 << bit)),
            10,
            &format!("reserved descriptor flag bit {bit} is set"),
        );
    }
    let mut d = f32_rm(&[3, 4]);
    d.extension_type = Some(ext_type(32, 1));
    g.d(
        Rule::Flg2,
        "extension-flag-with-float32",
        raw(d),
        10,
        "HAS_EXTENSION_TYPE with an extension section on a float32 tensor",
    );
    let cfg = Cfg::agreeing("element_type", 0xF0);
    let d = desc_raw_type(0xF0, LayoutVariant::RowMajor, &[4], &[8]);
    g.dc(
        Rule::Flg2,
        "private-type-without-extension-flag",
        raw(d),
        10,
        cfg,
        "private type tag 0xF0 (agreed) without HAS_EXTENSION_TYPE",
    );
    g.d(
        Rule::Shp1,
        "rank-65",
        with(b.clone(), 16, &u32le(65)),
        16,
        "rank 65 is above 64",
    );
}

fn tag_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let b = valid(f32_rm(&[3, 4]), &dc);
    for (v, what) in [(0x00u8, "0x00"), (0xFF, "0xff")] {
        g.d(
            Rule::Typ1,
            &format!("type-{what}"),
            with(b.clone(), 14, &[v]),
            14,
            &format!("type_tag {what} is invalid"),
        );
    }
    for (v, what, why) in [
        (0x05u8, "0x05-unallocated", "an unallocated public type tag"),
        (0x47, "0x47-held", "the held type tag 0x47"),
        (0x80, "0x80-reserved", "a reserved type tag"),
    ] {
        g.d(
            Rule::Typ2,
            &format!("type-{what}"),
            with(b.clone(), 14, &[v]),
            14,
            &format!("type_tag is {why}"),
        );
    }
    // A private type with its extension section: valid with an agreement, rejected without.
    let cfg = Cfg::agreeing("element_type", 0xF0);
    let mut d = desc_raw_type(0xF0, LayoutVariant::RowMajor, &[4], &[8]);
    d.extension_type = Some(ext_type(16, 1));
    let p = valid(d, &cfg);
    g.d(
        Rule::Typ2,
        "private-type-not-agreed",
        p,
        14,
        "private type tag 0xF0 with an extension section, not agreed with the reader",
    );
    for (v, what) in [(0x00u8, "0x00"), (0xFF, "0xff")] {
        g.d(
            Rule::Lay1,
            &format!("layout-{what}"),
            with(b.clone(), 15, &[v]),
            15,
            &format!("layout_tag {what} is invalid"),
        );
    }
    for (v, what) in [(0x0Cu8, "0x0c-unallocated"), (0x80, "0x80-reserved")] {
        g.d(
            Rule::Lay2,
            &format!("layout-{what}"),
            with(b.clone(), 15, &[v]),
            15,
            &format!("layout_tag {what} cannot be parsed past"),
        );
    }
    // Extension layouts.
    let agreed = Cfg::agreeing("layout", 0xF0).and_extension_layout(7);
    let e = valid(
        desc(
            ElementType::Float32,
            extension(7, &[1, 2, 3, 4]),
            &[4],
            &[16],
        ),
        &agreed,
    );
    g.d(
        Rule::Ex1,
        "private-layout-not-agreed",
        e.clone(),
        15,
        "private layout tag 0xF0 without an agreement",
    );
    let id_at = at(&e, &agreed, |v| v.layout_fields_at());
    g.dc(
        Rule::Ex1,
        "extension-layout-id-not-agreed",
        e.clone(),
        id_at,
        Cfg::agreeing("layout", 0xF0),
        "layout tag 0xF0 agreed, but its extension_layout_id 7 is not",
    );
    g.dc(
        Rule::Hdr5,
        "extension-data-length-past-descriptor",
        with(e.clone(), id_at + 8, &u32le(1000)),
        id_at + 12,
        agreed.clone(),
        "extension_data_length 1000 runs past descriptor_length",
    );
    g.dc(
        Rule::Ex5,
        "extension-layout-rank-0",
        raw(desc(ElementType::Float32, extension(7, &[]), &[], &[4])),
        15,
        agreed.clone(),
        "an agreed extension layout describes a scalar",
    );
    g.dc(
        Rule::Buf2,
        "extension-layout-no-buffers",
        raw(desc(ElementType::Float32, extension(7, &[]), &[4], &[])),
        at(&e, &agreed, |v| v.buffer_table_at()) - 4,
        agreed,
        "an agreed extension layout with buffer_count 0",
    );
    g.d(
        Rule::Lay3,
        "composite-head-rank-0",
        raw(head(CompositionRule::Group, CombineOp::None, 0, &[])),
        15,
        "a composite head with rank 0",
    );
    g.d(
        Rule::Lay3,
        "csr-rank-0",
        raw(desc(
            ElementType::Float32,
            LayoutVariant::Csr(LayoutCsr { nnz: 0 }),
            &[],
            &[0, 0, 8],
        )),
        15,
        "a CSR descriptor with rank 0",
    );
    g.d(
        Rule::Cm1,
        "column-major-rank-0",
        raw(desc(
            ElementType::Float32,
            LayoutVariant::ColumnMajor,
            &[],
            &[4],
        )),
        15,
        "a column-major scalar",
    );
}

fn handle_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let b = valid(f32_rm(&[3, 4]), &dc);
    let h = at(&b, &dc, |v| buf(v, 0).offset());
    let (align, dev, sync, mem, res) = (h + 8, h + 12, h + 13, h + 14, h + 15);
    for (a, what) in [(48u32, "48"), (0, "0")] {
        g.d(
            Rule::Bh1,
            &format!("alignment-{what}"),
            with(b.clone(), align, &u32le(a)),
            align,
            &format!("alignment {a} is not a power of two"),
        );
    }
    g.d(
        Rule::Bh2,
        "alignment-32-nonempty",
        with(b.clone(), align, &u32le(32)),
        align,
        "a non-empty buffer aligned to 32",
    );
    g.d(
        Rule::Bh6,
        "reserved-byte-1",
        with(b.clone(), res, &[1]),
        res,
        "buffer handle byte 15 is 0x01",
    );
    g.d(
        Rule::Bh7,
        "device-0xff",
        with(b.clone(), dev, &[0xFF]),
        dev,
        "device_tag 0xFF is invalid",
    );
    for (v, what) in [
        (0x09u8, "0x09-unallocated"),
        (0xF0, "0xf0-private-not-agreed"),
    ] {
        g.d(
            Rule::Bh15,
            &format!("device-{what}"),
            with(b.clone(), dev, &[v]),
            dev,
            &format!("device_tag {v:#04x} has no valid memory class"),
        );
    }
    for (v, what) in [(0x03u8, "0x03"), (0xFF, "0xff")] {
        g.d(
            Rule::Bh8,
            &format!("sync-mode-{what}"),
            with(b.clone(), sync, &[v]),
            sync,
            &format!("sync_mode {what} is not 0x00-0x02"),
        );
    }
    g.d(
        Rule::Bh9,
        "cpu-sync-event",
        with(b.clone(), sync, &[1]),
        sync,
        "a CPU buffer with sync_mode SYNC_EVENT",
    );
    let mut d = f32_rm(&[3, 4]);
    d.buffer_table.buffers[0].device_tag = Device::Cuda.into();
    d.buffer_table.buffers[0].sync_mode = SyncMode::Event.into();
    let cuda = valid(d, &dc);
    g.dc(
        Rule::Bh10,
        "cuda-event-over-network",
        cuda,
        sync,
        Cfg {
            network: true,
            ..Cfg::default()
        },
        "a CUDA buffer with SYNC_EVENT received over a network transport",
    );
    for (v, what) in [(0x04u8, "0x04"), (0xFF, "0xff")] {
        g.d(
            Rule::Bh11,
            &format!("memory-class-{what}"),
            with(b.clone(), mem, &[v]),
            mem,
            &format!("memory_class {what} is reserved or invalid"),
        );
    }
    g.d(
        Rule::Bh12,
        "private-memory-class-not-agreed",
        with(b.clone(), mem, &[0xF0]),
        mem,
        "private memory_class 0xF0 without an agreement",
    );
    g.dc(
        Rule::Bh12,
        "private-memory-class-on-cpu",
        with(b.clone(), mem, &[0xF0]),
        mem,
        Cfg::agreeing("memory_class", 0xF0),
        "agreed private memory_class 0xF0 on the non-private CPU device",
    );
    for (d, m, what) in [
        (Device::Cpu.value() as u8, MemoryClass::Peer, "cpu-peer"),
        (
            Device::Webgpu.value() as u8,
            MemoryClass::HostPinned,
            "webgpu-host-pinned",
        ),
        (Device::Metal.value() as u8, MemoryClass::Peer, "metal-peer"),
    ] {
        g.d(
            Rule::Bh13,
            what,
            with(b.clone(), dev, &[d, 0, m.value() as u8]),
            mem,
            &format!("the pair ({what}) is not valid"),
        );
    }
    g.dc(
        Rule::Bh13,
        "private-device-host-pinned",
        with(
            b.clone(),
            dev,
            &[0xF0, 0, MemoryClass::HostPinned.value() as u8],
        ),
        mem,
        Cfg::agreeing("device", 0xF0),
        "an agreed private device with HOST_PINNED memory",
    );
    // Colocation.
    let c = valid(coo(2, 1), &dc);
    let h1 = at(&c, &dc, |v| buf(v, 1).offset());
    g.d(
        Rule::Bh14,
        "coo-indices-on-cuda",
        with(c.clone(), h1 + 12, &[Device::Cuda.value() as u8]),
        h1 + 12,
        "COO values on the CPU, indices on CUDA",
    );
    g.d(
        Rule::Bh14,
        "coo-indices-unified",
        with(c, h1 + 14, &[MemoryClass::Unified.value() as u8]),
        h1 + 12,
        "COO values in STANDARD memory, indices in UNIFIED memory",
    );
    let q = valid(
        quantized(
            desc(ElementType::Int8, LayoutVariant::RowMajor, &[2, 3], &[6, 8]),
            per_channel(0, 1, u32::MAX, true),
        ),
        &dc,
    );
    let h1 = at(&q, &dc, |v| buf(v, 1).offset());
    g.d(
        Rule::P4,
        "per-channel-scales-on-cuda",
        with(q, h1 + 12, &[Device::Cuda.value() as u8]),
        h1 + 12,
        "the per-channel scale buffer is on CUDA, the data on the CPU",
    );
    let f = valid(csf(&[2, 2, 2], 2, &csf_arrays()), &dc);
    let h1 = at(&f, &dc, |v| buf(v, 1).offset());
    g.d(
        Rule::Cf14,
        "pos0-on-cuda",
        with(f, h1 + 12, &[Device::Cuda.value() as u8]),
        h1 + 12,
        "CSF pos_0 on CUDA, values on the CPU",
    );
    let p = valid(block_paged(), &dc);
    let h1 = at(&p, &dc, |v| buf(v, 1).offset());
    g.d(
        Rule::Bp12,
        "block-table-on-cuda",
        with(p, h1 + 12, &[Device::Cuda.value() as u8]),
        h1 + 12,
        "the block table on CUDA, the page pool on the CPU",
    );
}

fn buffer_count_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let b = valid(f32_rm(&[3, 4]), &dc);
    let bt = at(&b, &dc, |v| v.buffer_table_at());
    let mut d = f32_rm(&[3, 4]);
    d.buffer_table.buffers.push(handle(48));
    g.d(
        Rule::Rm1,
        "row-major-two-buffers",
        raw(d),
        bt,
        "an unquantized row-major tensor with 2 buffers",
    );
    let strided = |sizes: &[u64]| {
        desc(
            ElementType::Float32,
            LayoutVariant::Strided(LayoutStrided { strides: vec![1] }),
            &[4],
            sizes,
        )
    };
    let s = valid(strided(&[16]), &dc);
    let sbt = at(&s, &dc, |v| v.buffer_table_at());
    g.d(
        Rule::Buf3,
        "strided-two-buffers",
        raw(strided(&[16, 16])),
        sbt,
        "an unquantized strided tensor with 2 buffers",
    );
    let qs = |sizes: &[u64]| {
        quantized(
            desc(
                ElementType::Int8,
                LayoutVariant::Strided(LayoutStrided { strides: vec![1] }),
                &[4],
                sizes,
            ),
            per_tensor(0.5, 0),
        )
    };
    valid(qs(&[4]), &dc);
    g.d(
        Rule::Buf4,
        "per-tensor-strided-two-buffers",
        raw(qs(&[4, 4])),
        sbt,
        "a per-tensor-quantized strided tensor with 2 buffers (the scheme needs none)",
    );
    // Parameter buffers that alias the data or a layout buffer.
    let pb = valid(
        quantized(
            desc(ElementType::Int8, LayoutVariant::RowMajor, &[8], &[8, 8]),
            per_block(0, 4, 1, u32::MAX, true, ElementType::Float32),
        ),
        &dc,
    );
    let pl = at(&pb, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::Buf8,
        "per-block-scale-index-0",
        with(pb, pl + 12, &u32le(0)),
        pl + 12,
        "per-block scale_buffer_index 0 is the data buffer",
    );
    let mx = valid(
        quantized(
            desc(ElementType::Int8, LayoutVariant::RowMajor, &[32], &[32, 1]),
            mxfp(0, 32, 1),
        ),
        &dc,
    );
    let pl = at(&mx, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::Buf8,
        "mxfp-scale-index-0",
        with(mx, pl + 12, &u32le(0)),
        pl + 12,
        "MXFP scale_buffer_index 0 is the data buffer",
    );
    let pc = valid(
        quantized(
            desc(ElementType::Int8, LayoutVariant::RowMajor, &[2, 3], &[6, 8]),
            per_channel(0, 1, u32::MAX, true),
        ),
        &dc,
    );
    let pl = at(&pc, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::Pc3,
        "scale-index-0",
        with(pc, pl + 8, &u32le(0)),
        pl + 8,
        "per-channel scale_buffer_index 0 is the data buffer",
    );
    let qc = |scale: u32| {
        quantized(
            desc(
                ElementType::Int8,
                LayoutVariant::Coo(LayoutCoo {
                    nnz: 2,
                    is_sorted: 1,
                }),
                &[2, 3],
                &[2, 32, 8],
            ),
            per_channel(0, scale, u32::MAX, true),
        )
    };
    let q = valid(qc(2), &dc);
    let pl = at(&q, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::P1,
        "coo-scale-index-1",
        with(q, pl + 8, &u32le(1)),
        pl + 8,
        "a quantized COO tensor whose scale buffer index names the indices buffer",
    );
}

fn quantization_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let int8 = |shape: &[u64], sizes: &[u64]| {
        desc(ElementType::Int8, LayoutVariant::RowMajor, shape, sizes)
    };
    // Per-tensor.
    let pt = valid(quantized(int8(&[4], &[4]), per_tensor(0.5, 0)), &dc);
    let ql = at(&pt, &dc, |v| v.quantization_at());
    let pl = ql + 4;
    g.d(
        Rule::Hdr5,
        "quantization-length-past-descriptor",
        with(pt.clone(), ql, &u32le(100)),
        pl,
        "quantization_length 100 runs past descriptor_length",
    );
    g.d(
        Rule::Qnt1,
        "quantization-length-8",
        with(pt.clone(), ql, &u32le(8)),
        pl + 8,
        "quantization_length 8 ends before the per-tensor zero_point",
    );
    g.d(
        Rule::Qnt1,
        "quantization-length-2",
        with(pt.clone(), ql, &u32le(2)),
        pl + 2,
        "quantization_length 2 ends inside the scheme header",
    );
    let mut d = quantized(int8(&[4], &[4]), per_tensor(0.5, 0));
    if let Some(QuantizationSection {
        payload: SchemeVariant::PerTensorAffine(p),
    }) = &mut d.quantization
    {
        p.skipped = vec![0; 4];
    }
    g.d(
        Rule::H7,
        "per-tensor-payload-20-bytes",
        raw(d),
        pl + 16,
        "a 20-byte per-tensor payload at scheme_version 1, whose payload is 16 bytes",
    );
    for (v, what) in [(0x06u8, "0x06-unallocated"), (0x60, "0x60-reserved")] {
        g.d(
            Rule::H2,
            &format!("scheme-{what}"),
            with(pt.clone(), pl, &[v]),
            pl,
            &format!("scheme_tag {v:#04x} is unknown"),
        );
    }
    for (v, what) in [(0x00u8, "0x00"), (0xFF, "0xff")] {
        g.d(
            Rule::H3,
            &format!("scheme-{what}"),
            with(pt.clone(), pl, &[v]),
            pl,
            &format!("scheme_tag {what} is invalid"),
        );
    }
    let agreed = Cfg::agreeing("scheme", 0xF0);
    let mut d = int8(&[4], &[4]);
    d.quantization = Some(QuantizationSection {
        payload: SchemeVariant::Private(
            0xF0,
            PrivateScheme {
                header: QuantizationHeader {
                    scheme_tag: TagValue::from_raw(0xF0),
                    scheme_version: 1,
                    flags: 0,
                },
                data: vec![1, 2, 3, 4],
                skipped: Vec::new(),
            },
        ),
    });
    let private = valid(d, &agreed);
    g.d(
        Rule::Qnt2,
        "private-scheme-not-agreed",
        private,
        pl,
        "private scheme_tag 0xF0 without an agreement",
    );
    g.d(
        Rule::H4,
        "scheme-version-0",
        with(pt.clone(), pl + 1, &[0]),
        pl + 1,
        "scheme_version 0",
    );
    g.d(
        Rule::H5,
        "per-tensor-flags-bit-0",
        with(pt.clone(), pl + 2, &[1, 0]),
        pl + 2,
        "per-tensor affine defines no flag bit, bit 0 is set",
    );
    for (x, what) in [
        (f32::NAN, "nan"),
        (f32::INFINITY, "inf"),
        (0.0, "zero"),
        (-0.0, "negative-zero"),
    ] {
        g.d(
            Rule::Pt1,
            &format!("scale-{what}"),
            with(pt.clone(), pl + 4, &x.to_le_bytes()),
            pl + 4,
            &format!("per-tensor scale is {what}"),
        );
    }
    g.d(
        Rule::Pt2,
        "int8-zero-point-128",
        with(pt.clone(), pl + 8, &128i32.to_le_bytes()),
        pl + 8,
        "zero_point 128 is outside int8",
    );
    let u32t = valid(
        quantized(
            desc(ElementType::Uint32, LayoutVariant::RowMajor, &[4], &[16]),
            per_tensor(0.5, 0),
        ),
        &dc,
    );
    g.d(
        Rule::Pt2,
        "uint32-zero-point-negative",
        with(u32t, pl + 8, &(-1i32).to_le_bytes()),
        pl + 8,
        "zero_point -1 is outside uint32's encodable 0..2^31-1 (RES-39)",
    );
    let u4 = valid(
        quantized(
            desc(ElementType::Uint4, LayoutVariant::RowMajor, &[4], &[2]),
            per_tensor(0.5, 0),
        ),
        &dc,
    );
    g.d(
        Rule::Pt2,
        "uint4-zero-point-16",
        with(u4, pl + 8, &16i32.to_le_bytes()),
        pl + 8,
        "zero_point 16 is outside uint4",
    );
    g.d(
        Rule::Pt3,
        "reserved-byte",
        with(pt.clone(), pl + 12, &[1]),
        pl + 12,
        "per-tensor payload byte 12 is non-zero",
    );
    g.d(
        Rule::Pt4,
        "float32-storage",
        raw(quantized(f32_rm(&[4]), per_tensor(0.5, 0))),
        14,
        "per-tensor affine cannot quantize float32",
    );
    // Per-channel: int8 [2, 3] on axis 0.
    let pcs = valid(
        quantized(int8(&[2, 3], &[6, 8]), per_channel(0, 1, u32::MAX, true)),
        &dc,
    );
    let pl2 = at(&pcs, &dc, |v| v.quantization().unwrap().payload_at());
    let pca = valid(
        quantized(int8(&[2, 3], &[6, 8, 8]), per_channel(0, 1, 2, false)),
        &dc,
    );
    let pla = at(&pca, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::H5,
        "per-channel-flags-bit-1",
        with(pcs.clone(), pl2 + 2, &[3, 0]),
        pl2 + 2,
        "per-channel affine defines bit 0 only, bit 1 is set",
    );
    g.d(
        Rule::Pc1,
        "axis-2-of-rank-2",
        with(pcs.clone(), pl2 + 4, &u32le(2)),
        pl2 + 4,
        "per-channel axis 2 of a rank-2 tensor",
    );
    g.d(
        Rule::Pc2,
        "scale-index-3-of-3",
        with(pca.clone(), pla + 8, &u32le(3)),
        pla + 8,
        "scale_buffer_index 3 with 3 buffers",
    );
    g.d(
        Rule::Pc2,
        "zero-point-index-5",
        with(pca.clone(), pla + 12, &u32le(5)),
        pla + 12,
        "asymmetric zero_point_buffer_index 5 with 3 buffers",
    );
    g.d(
        Rule::Pc4,
        "symmetric-zero-point-index-1",
        with(pcs.clone(), pl2 + 12, &u32le(1)),
        pl2 + 12,
        "SYMMETRIC with zero_point_buffer_index 1, not 0xFFFFFFFF",
    );
    g.d(
        Rule::Pc5,
        "scale-type-float16",
        with(pcs.clone(), pl2 + 16, &[ElementType::Float16.value() as u8]),
        pl2 + 16,
        "per-channel scale_type_tag float16 at scheme_version 1",
    );
    g.d(
        Rule::Pc5,
        "reserved-byte",
        with(pcs.clone(), pl2 + 18, &[1]),
        pl2 + 18,
        "per-channel payload byte 18 is non-zero",
    );
    g.d(
        Rule::Pc6,
        "dynamic-channel-axis",
        with(pcs.clone(), 20, &u64le(u64::MAX)),
        pl2 + 4,
        "shape[axis] is the dynamic sentinel",
    );
    let s1 = at(&pcs, &dc, |v| buf(v, 1).byte_size_at());
    g.d(
        Rule::Pc7,
        "scale-buffer-4-bytes",
        with(pcs.clone(), s1, &u64le(4)),
        s1,
        "2 channels need 8 bytes of scales, the buffer has 4",
    );
    let shared = valid(
        quantized(int8(&[2, 3], &[6, 16]), per_channel(0, 1, 1, false)),
        &dc,
    );
    g.d(
        Rule::Pc7,
        "shared-buffer-12-bytes",
        with(shared, s1, &u64le(12)),
        s1,
        "a shared scale/zero-point entry needs 16 bytes, it has 12 (RES-37)",
    );
    g.d(
        Rule::Pc8,
        "float32-storage",
        raw(quantized(
            desc(
                ElementType::Float32,
                LayoutVariant::RowMajor,
                &[2, 3],
                &[24, 8],
            ),
            per_channel(0, 1, u32::MAX, true),
        )),
        14,
        "per-channel affine cannot quantize float32",
    );
    // Per-block: int8 [8], blocks of 4, symmetric, float32 scales.
    let pbd = |sizes: &[u64], st: ElementType| {
        quantized(int8(&[8], sizes), per_block(0, 4, 1, u32::MAX, true, st))
    };
    let pb = valid(pbd(&[8, 8], ElementType::Float32), &dc);
    let pl = at(&pb, &dc, |v| v.quantization().unwrap().payload_at());
    // byte_size of buffers 0 and 1 (handles are 16 bytes apart).
    let s0 = at(&pb, &dc, |v| buf(v, 0).byte_size_at());
    let s1 = s0 + 16;
    let pba = valid(
        quantized(
            int8(&[8], &[8, 8, 8]),
            per_block(0, 4, 1, 2, false, ElementType::Float32),
        ),
        &dc,
    );
    let pla = at(&pba, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::Pb1,
        "axis-1-of-rank-1",
        with(pb.clone(), pl + 4, &u32le(1)),
        pl + 4,
        "per-block axis 1 of a rank-1 tensor",
    );
    for bs in [3u32, 1] {
        g.d(
            Rule::Pb2,
            &format!("block-size-{bs}"),
            with(pb.clone(), pl + 8, &u32le(bs)),
            pl + 8,
            &format!("per-block block_size {bs} is not a power of two >= 2"),
        );
    }
    let x = with(pb.clone(), pl + 8, &u32le(16));
    let x = with(x, s0, &u64le(16));
    g.d(
        Rule::Pb3,
        "block-16-exceeds-axis-8",
        with(x, s1, &u64le(4)),
        pl + 8,
        "block_size 16 exceeds shape[axis] 8 (data padded to 16, one scale)",
    );
    g.d(
        Rule::Pb4,
        "scale-index-2-of-2",
        with(pb.clone(), pl + 12, &u32le(2)),
        pl + 12,
        "per-block scale_buffer_index 2 with 2 buffers",
    );
    g.d(
        Rule::Pb4,
        "zero-point-index-3-of-3",
        with(pba, pla + 16, &u32le(3)),
        pla + 16,
        "asymmetric per-block zero_point_buffer_index 3 with 3 buffers",
    );
    g.d(
        Rule::Pb5,
        "dynamic-axis",
        with(pb.clone(), 20, &u64le(u64::MAX)),
        pl + 4,
        "per-block shape[axis] is the dynamic sentinel",
    );
    g.d(
        Rule::Pb6,
        "scale-buffer-4-bytes",
        with(pb.clone(), s1, &u64le(4)),
        s1,
        "2 blocks of float32 scales need 8 bytes, the buffer has 4",
    );
    let pb16 = valid(pbd(&[8, 4], ElementType::Float16), &dc);
    g.d(
        Rule::Pb6,
        "float16-scales-8-bytes",
        with(pb16, s1, &u64le(8)),
        s1,
        "2 blocks of float16 scales need 4 bytes, the buffer has 8",
    );
    g.d(
        Rule::Pb7,
        "int16-storage",
        raw(quantized(
            desc(ElementType::Int16, LayoutVariant::RowMajor, &[8], &[16, 8]),
            per_block(0, 4, 1, u32::MAX, true, ElementType::Float32),
        )),
        14,
        "per-block affine cannot quantize int16",
    );
    g.d(
        Rule::Pb9,
        "symmetric-zero-point-index-1",
        with(pb.clone(), pl + 16, &u32le(1)),
        pl + 16,
        "SYMMETRIC with zero_point_buffer_index 1, not 0xFFFFFFFF",
    );
    g.d(
        Rule::Pb10,
        "scale-type-int8",
        with(pb.clone(), pl + 20, &[ElementType::Int8.value() as u8]),
        pl + 20,
        "per-block scale_type_tag int8",
    );
    g.d(
        Rule::Pb10,
        "reserved-byte",
        with(pb.clone(), pl + 23, &[1]),
        pl + 23,
        "per-block payload byte 23 is non-zero",
    );
    let pb6 = valid(
        quantized(
            int8(&[6], &[8, 8]),
            per_block(0, 4, 1, u32::MAX, true, ElementType::Float32),
        ),
        &dc,
    );
    g.d(
        Rule::Pb12,
        "data-6-of-8-padded",
        with(pb6, s0, &u64le(6)),
        s0,
        "int8 [6] in blocks of 4: the data buffer holds 6 bytes, not the padded 8 (RES-38)",
    );
    // NF4: uint4 [16], blocks of 8.
    let nd = |shape: &[u64], sizes: &[u64], block: u32| {
        quantized(
            desc(ElementType::Uint4, LayoutVariant::RowMajor, shape, sizes),
            nf4(0, block, 1),
        )
    };
    let n = valid(nd(&[16], &[8, 8], 8), &dc);
    let pl = at(&n, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::Nf1,
        "axis-1-of-rank-1",
        with(n.clone(), pl + 4, &u32le(1)),
        pl + 4,
        "NF4 axis 1 of a rank-1 tensor",
    );
    for bs in [4u32, 12] {
        g.d(
            Rule::Nf2,
            &format!("block-size-{bs}"),
            with(n.clone(), pl + 8, &u32le(bs)),
            pl + 8,
            &format!("NF4 block_size {bs} is not a power of two >= 8"),
        );
    }
    let x = with(n.clone(), pl + 8, &u32le(32));
    let x = with(x, s0, &u64le(16));
    g.d(
        Rule::Nf3,
        "block-32-exceeds-axis-16",
        with(x, s1, &u64le(4)),
        pl + 8,
        "NF4 block_size 32 exceeds shape[axis] 16 (data padded to 32, one scale)",
    );
    g.d(
        Rule::Nf4,
        "dynamic-axis",
        with(n.clone(), 20, &u64le(u64::MAX)),
        pl + 4,
        "NF4 shape[axis] is the dynamic sentinel",
    );
    g.d(
        Rule::Nf5,
        "scale-buffer-4-bytes",
        with(n.clone(), s1, &u64le(4)),
        s1,
        "2 NF4 blocks need 8 bytes of scales, the buffer has 4",
    );
    g.d(
        Rule::Nf6,
        "int8-storage",
        raw(quantized(int8(&[16], &[16, 8]), nf4(0, 8, 1))),
        14,
        "NF4 cannot quantize int8",
    );
    g.d(
        Rule::Nf7,
        "scale-index-2-of-2",
        with(n.clone(), pl + 12, &u32le(2)),
        pl + 12,
        "NF4 scale_buffer_index 2 with 2 buffers",
    );
    let n12 = valid(nd(&[12], &[8, 8], 8), &dc);
    g.d(
        Rule::Nf9,
        "data-6-of-8-padded",
        with(n12, s0, &u64le(6)),
        s0,
        "uint4 [12] in blocks of 8: the data buffer holds 6 bytes, not the padded 8 (RES-38)",
    );
    // MXFP: int8 [32], one block of 32.
    let m = valid(quantized(int8(&[32], &[32, 1]), mxfp(0, 32, 1)), &dc);
    let pl = at(&m, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::Mx1,
        "axis-1-of-rank-1",
        with(m.clone(), pl + 4, &u32le(1)),
        pl + 4,
        "MXFP axis 1 of a rank-1 tensor",
    );
    for bs in [8u32, 24, 4096] {
        g.d(
            Rule::Mx2,
            &format!("block-size-{bs}"),
            with(m.clone(), pl + 8, &u32le(bs)),
            pl + 8,
            &format!("MXFP block_size {bs} is not a power of two in [16, 2048]"),
        );
    }
    let x = with(m.clone(), 20, &u64le(48));
    g.d(
        Rule::Mx3,
        "axis-48-block-32",
        with(x, s0, &u64le(48)),
        pl + 8,
        "shape[axis] 48 is not a multiple of block_size 32",
    );
    let x = with(m.clone(), 20, &u64le(0));
    g.d(
        Rule::Mx3,
        "empty-axis",
        with(x, s0, &u64le(0)),
        pl + 8,
        "shape[axis] 0: an MXFP axis must hold at least one block",
    );
    g.d(
        Rule::Mx4,
        "dynamic-axis",
        with(m.clone(), 20, &u64le(u64::MAX)),
        pl + 4,
        "MXFP shape[axis] is the dynamic sentinel",
    );
    g.d(
        Rule::Mx5,
        "scale-buffer-2-bytes",
        with(m.clone(), s1, &u64le(2)),
        s1,
        "one MXFP block needs 1 scale byte, the buffer has 2",
    );
    g.d(
        Rule::Mx6,
        "int16-storage",
        raw(quantized(
            desc(ElementType::Int16, LayoutVariant::RowMajor, &[32], &[64, 1]),
            mxfp(0, 32, 1),
        )),
        14,
        "MXFP cannot quantize int16",
    );
    g.d(
        Rule::Mx7,
        "scale-index-2-of-2",
        with(m, pl + 12, &u32le(2)),
        pl + 12,
        "MXFP scale_buffer_index 2 with 2 buffers",
    );
}

fn section_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let mut d = f32_rm(&[3, 4]);
    d.shard = Some(shard(&[3, 8], &[0, 4]));
    let s = valid(d, &dc);
    let so = at(&s, &dc, |v| v.shard().unwrap().shard_offset_at());
    g.d(
        Rule::Shd2,
        "offset-5-plus-4-exceeds-8",
        with(s.clone(), so + 8, &u64le(5)),
        so + 8,
        "shard_offset[1] 5 + shape[1] 4 exceeds parent_shape[1] 8",
    );
    g.d(
        Rule::Shd2,
        "offset-near-u64-max",
        with(s, so + 8, &u64le(u64::MAX - 1)),
        so + 8,
        "shard_offset[1] 2^64-2 + shape[1] 4 overflows u64 and exceeds parent_shape[1]",
    );
    let mut d = f32_rm(&[3, 4]);
    d.statistics = Some(statistics_nnz(12));
    let st = valid(d, &dc);
    let sa = at(&st, &dc, |v| v.statistics_at());
    g.d(
        Rule::Sta2,
        "computed-mask-bit-6",
        with(st.clone(), sa, &u32le(1 | 1 << 6)),
        sa,
        "statistics computed_mask bit 6 is set",
    );
    g.d(
        Rule::Sta5,
        "reserved-byte-5",
        with(st.clone(), sa + 5, &[1]),
        sa + 4,
        "statistics byte 5 (_reserved) is non-zero",
    );
    g.d(
        Rule::Sta5,
        "reserved2-byte-71",
        with(st, sa + 71, &[1]),
        sa + 71,
        "statistics byte 71 (_reserved2) is non-zero",
    );
    // Extension type: a private 16-bit integer type, agreed.
    let cfg = Cfg::agreeing("element_type", 0xF0);
    let mut d = desc_raw_type(0xF0, LayoutVariant::RowMajor, &[4], &[8]);
    d.extension_type = Some(ext_type(16, 1));
    let e = valid(d, &cfg);
    let ea = at(&e, &cfg, |v| v.extension_type_at());
    let mut ext = |rule: Rule, slug: &str, at: u64, bytes: &[u8], off: u64, what: &str| {
        g.dc(
            rule,
            slug,
            with(e.clone(), at, bytes),
            off,
            cfg.clone(),
            what,
        );
    };
    ext(Rule::Ext2, "bit-width-0", ea, &u32le(0), ea, "bit_width 0");
    ext(
        Rule::Ext3,
        "bit-width-16-packing-2",
        ea + 4,
        &[2],
        ea + 4,
        "bit_width 16 with packing_factor 2",
    );
    ext(
        Rule::Ext4,
        "bit-width-3",
        ea,
        &u32le(3),
        ea,
        "bit_width 3 is not 1, 2 or 4",
    );
    let e4 = with(e.clone(), ea, &u32le(4));
    g.dc(
        Rule::Ext4,
        "bit-width-4-packing-1",
        e4,
        ea,
        cfg.clone(),
        "bit_width 4 with packing_factor 1, not 2",
    );
    let mut ext = |rule: Rule, slug: &str, at: u64, bytes: &[u8], off: u64, what: &str| {
        g.dc(
            rule,
            slug,
            with(e.clone(), at, bytes),
            off,
            cfg.clone(),
            what,
        );
    };
    ext(
        Rule::Ext7,
        "reserved-byte-11",
        ea + 11,
        &[1],
        ea + 11,
        "extension type byte 11 (_reserved) is non-zero",
    );
    ext(
        Rule::Ext7,
        "reserved2-byte-19",
        ea + 19,
        &[1],
        ea + 19,
        "extension type byte 19 (_reserved2) is non-zero",
    );
    ext(
        Rule::Ext9,
        "is-float-2",
        ea + 5,
        &[2],
        ea + 5,
        "is_float is 2",
    );
    ext(
        Rule::Ext9,
        "has-nan-2",
        ea + 16,
        &[2],
        ea + 16,
        "has_nan is 2",
    );
    ext(
        Rule::Ext10,
        "bit-width-12",
        ea,
        &u32le(12),
        ea,
        "bit_width 12 is not a whole number of bytes",
    );
    let mut d = f32_rm(&[3, 4]);
    d.composite_member = Some(member(MemberRole::Base));
    let c = valid(d, &dc);
    let ca = at(&c, &dc, |v| v.composite_member_at());
    g.d(
        Rule::Cmp2,
        "member-role-0x02",
        with(c.clone(), ca, &[2]),
        ca,
        "member_role 0x02 is neither correction nor base",
    );
    g.d(
        Rule::Cmp3,
        "reserved-byte-15",
        with(c, ca + 15, &[1]),
        ca + 15,
        "composite member byte 15 is non-zero",
    );
}

fn layout_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let b = valid(f32_rm(&[3, 4]), &dc);
    let bo = at(&b, &dc, |v| v.byte_offset_at());
    g.d(
        Rule::Rm2,
        "byte-offset-49-of-48",
        with(b.clone(), bo, &u64le(49)),
        bo,
        "byte_offset 49 exceeds buffer 0's 48 bytes",
    );
    let s0 = at(&b, &dc, |v| buf(v, 0).byte_size_at());
    g.d(
        Rule::Rm3,
        "buffer-47-of-48",
        with(b.clone(), s0, &u64le(47)),
        s0,
        "12 float32 elements need 48 bytes, buffer 0 has 47",
    );
    // Strided.
    let strided = |ty: ElementType, stride: i64, shape: &[u64], size: u64| {
        desc(
            ty,
            LayoutVariant::Strided(LayoutStrided {
                strides: vec![stride; shape.len()],
            }),
            shape,
            &[size],
        )
    };
    let s = valid(strided(ElementType::Float32, 1, &[4], 16), &dc);
    let (lf, bo, s0) = (
        at(&s, &dc, |v| v.layout_fields_at()),
        at(&s, &dc, |v| v.byte_offset_at()),
        at(&s, &dc, |v| buf(v, 0).byte_size_at()),
    );
    g.d(
        Rule::St1,
        "rank-0",
        raw(strided(ElementType::Float32, 1, &[], 4)),
        15,
        "a strided descriptor with rank 0",
    );
    g.d(
        Rule::St2,
        "stride-minus-1-at-offset-0",
        with(s.clone(), lf, &(-1i64).to_le_bytes()),
        bo,
        "stride -1 from byte_offset 0 puts elements 1-3 before buffer 0",
    );
    g.d(
        Rule::St3,
        "byte-offset-4-overruns",
        with(s.clone(), bo, &u64le(4)),
        bo,
        "byte_offset 4 puts the last of 4 float32 elements past the 16-byte buffer",
    );
    let s6 = valid(strided(ElementType::Float6E2m3, 1, &[2], 3), &dc);
    g.d(
        Rule::St4,
        "float6-footprint-2-of-3",
        with(s6, s0, &u64le(2)),
        s0,
        "2 float6 elements fit 12 bits, but their footprint is one 3-byte group",
    );
    let mut d = strided(ElementType::Float32, 1, &[4], 16);
    d.buffer_table.buffers.clear();
    g.d(
        Rule::Buf3,
        "strided-zero-buffers",
        raw(d),
        at(&s, &dc, |v| v.buffer_table_at()),
        "an unquantized strided tensor with no buffer",
    );
    // Tiled: float32 [4, 4] in 2x2 tiles.
    let tl = |shape: &[u64], tiles: &[u64], size: u64| {
        desc(
            ElementType::Float32,
            LayoutVariant::Tiled(tiled(tiles, 1, None)),
            shape,
            &[size],
        )
    };
    let tv = valid(tl(&[4, 4], &[2, 2], 64), &dc);
    let (lf, bo, s0) = (
        at(&tv, &dc, |v| v.layout_fields_at()),
        at(&tv, &dc, |v| v.byte_offset_at()),
        at(&tv, &dc, |v| buf(v, 0).byte_size_at()),
    );
    g.d(
        Rule::Ofs1,
        "tiled-byte-offset-65-of-64",
        with(tv.clone(), bo, &u64le(65)),
        bo,
        "a tiled tensor whose byte_offset 65 exceeds buffer 0's 64 bytes",
    );
    g.d(
        Rule::Tl1,
        "rank-0",
        raw(tl(&[], &[], 4)),
        15,
        "a tiled descriptor with rank 0",
    );
    g.d(
        Rule::Tl2,
        "tile-shape-zero",
        with(tv.clone(), lf + 8, &u64le(0)),
        lf + 8,
        "tile_shape[1] is 0",
    );
    g.d(
        Rule::Tl3,
        "outer-layout-4",
        with(tv.clone(), lf + 16, &[4]),
        lf + 16,
        "outer_layout 0x04 is not 0x01-0x03",
    );
    g.d(
        Rule::Tl4,
        "inner-layout-5",
        with(tv.clone(), lf + 17, &[5]),
        lf + 17,
        "inner_layout 0x05 is not 0x01-0x04",
    );
    g.d(
        Rule::Tl5,
        "reserved-byte",
        with(tv.clone(), lf + 19, &[1]),
        lf + 19,
        "tiled level byte 19 (_reserved) is non-zero",
    );
    let mut level = tiled(&[1, 1], 1, None);
    for _ in 1..9 {
        level = tiled(&[1, 1], 4, Some(level));
    }
    g.d(
        Rule::Tl6,
        "nesting-9-levels",
        raw(desc(
            ElementType::Float32,
            LayoutVariant::Tiled(level),
            &[4, 4],
            &[64],
        )),
        lf + 8 * 20,
        "9 nested TILED blocks; the limit is 8",
    );
    let t3 = valid(tl(&[3, 3], &[2, 2], 64), &dc);
    g.d(
        Rule::Tl7,
        "buffer-60-of-64",
        with(t3, s0, &u64le(60)),
        s0,
        "float32 [3, 3] in four full 2x2 tiles needs 64 bytes, buffer 0 has 60",
    );
    // Morton: float32 [4, 4], 2 bits per dimension.
    let mo = |shape: &[u64], bits: &[u32], size: u64| {
        desc(
            ElementType::Float32,
            LayoutVariant::Morton(LayoutMorton {
                morton_bits: bits.to_vec(),
            }),
            shape,
            &[size],
        )
    };
    let mv = valid(mo(&[4, 4], &[2, 2], 64), &dc);
    let (lf, s0) = (
        at(&mv, &dc, |v| v.layout_fields_at()),
        at(&mv, &dc, |v| buf(v, 0).byte_size_at()),
    );
    g.d(
        Rule::Mo1,
        "rank-0",
        raw(mo(&[], &[], 4)),
        15,
        "a Morton descriptor with rank 0",
    );
    g.d(
        Rule::Mo2,
        "bits-zero",
        with(mv.clone(), lf + 4, &u32le(0)),
        lf + 4,
        "morton_bits[1] is 0",
    );
    g.d(
        Rule::Mo3,
        "shape-5-exceeds-2-bits",
        with(mv.clone(), 20, &u64le(5)),
        lf,
        "shape[0] 5 exceeds 2^morton_bits[0] = 4",
    );
    g.d(
        Rule::Mo4,
        "buffer-60-of-64",
        with(mv.clone(), s0, &u64le(60)),
        s0,
        "16 Morton codes of float32 need 64 bytes, buffer 0 has 60",
    );
    let x = with(mv.clone(), lf, &u32le(32));
    g.d(
        Rule::Mo4,
        "63-code-bits",
        with(x, lf + 4, &u32le(31)),
        lf,
        "morton_bits 32 + 31 exceed 62 (RES-28)",
    );
    let x = with(mv.clone(), 28, &u64le(2));
    let x = with(x, lf, &u32le(3));
    g.d(
        Rule::Mo4,
        "uneven-bits-3-1",
        with(x, lf + 4, &u32le(1)),
        lf,
        "morton_bits [3, 1]: the interleaved codes need 6 bits, the buffer indexes 2^4 (RES-28)",
    );
    // COO.
    let c = valid(coo(2, 1), &dc);
    let (lf, bo, bt, s0, s1) = (
        at(&c, &dc, |v| v.layout_fields_at()),
        at(&c, &dc, |v| v.byte_offset_at()),
        at(&c, &dc, |v| v.buffer_table_at()),
        at(&c, &dc, |v| buf(v, 0).byte_size_at()),
        at(&c, &dc, |v| buf(v, 1).byte_size_at()),
    );
    g.d(
        Rule::Co1,
        "rank-0",
        raw(desc(
            ElementType::Float32,
            LayoutVariant::Coo(LayoutCoo {
                nnz: 0,
                is_sorted: 0,
            }),
            &[],
            &[0, 0],
        )),
        15,
        "a COO descriptor with rank 0",
    );
    let mut d = coo(2, 1);
    d.buffer_table.buffers.push(handle(8));
    g.d(
        Rule::Co2,
        "three-buffers",
        raw(d),
        bt,
        "an unquantized COO descriptor with 3 buffers",
    );
    g.d(
        Rule::Co3,
        "byte-offset-8",
        with(c.clone(), bo, &u64le(8)),
        bo,
        "a COO descriptor with byte_offset 8",
    );
    g.d(
        Rule::Co4,
        "reserved-byte-15",
        with(c.clone(), lf + 15, &[1]),
        lf + 15,
        "COO block byte 15 (_reserved) is non-zero",
    );
    g.d(
        Rule::Co8,
        "values-12-bytes",
        with(c.clone(), s0, &u64le(12)),
        s0,
        "2 float32 values need exactly 8 bytes, the buffer has 12",
    );
    g.d(
        Rule::Co8,
        "indices-24-bytes",
        with(c.clone(), s1, &u64le(24)),
        s1,
        "2 rank-2 index tuples need exactly 32 bytes, the buffer has 24",
    );
    g.d(
        Rule::Co10,
        "is-sorted-2",
        with(c, lf + 8, &[2]),
        lf + 8,
        "is_sorted is 0x02",
    );
    let mut d = coo(2, 1);
    d.statistics = Some(statistics_nnz(2));
    let cs = valid(d, &dc);
    let nz = at(&cs, &dc, |v| v.statistics().unwrap().nnz_at());
    g.d(
        Rule::Co9,
        "statistics-nnz-3",
        with(cs, nz, &u64le(3)),
        nz,
        "the statistics say nnz 3, the COO block says 2",
    );
    // CSR and CSC.
    for (compressed, base, stats_rule, rules) in [
        (
            "csr",
            csr(2),
            Rule::Cr9,
            [Rule::Cr1, Rule::Cr2, Rule::Cr3, Rule::Cr4, Rule::Cr10],
        ),
        (
            "csc",
            csc(2),
            Rule::Cc9,
            [Rule::Cc1, Rule::Cc2, Rule::Cc3, Rule::Cc4, Rule::Cc10],
        ),
    ] {
        let v0 = valid(base.clone(), &dc);
        let (lf, bo, bt, s2) = (
            at(&v0, &dc, |v| v.layout_fields_at()),
            at(&v0, &dc, |v| v.byte_offset_at()),
            at(&v0, &dc, |v| v.buffer_table_at()),
            at(&v0, &dc, |v| buf(v, 2).byte_size_at()),
        );
        let mut d = base.clone();
        d.shape = vec![2, 3, 1];
        g.d(
            rules[0],
            "rank-3",
            raw(d),
            16,
            &format!("a {compressed} descriptor with rank 3"),
        );
        let mut d = base.clone();
        d.buffer_table.buffers.push(handle(8));
        g.d(
            rules[1],
            "four-buffers",
            raw(d),
            bt,
            &format!("an unquantized {compressed} descriptor with 4 buffers"),
        );
        g.d(
            rules[2],
            "byte-offset-8",
            with(v0.clone(), bo, &u64le(8)),
            bo,
            &format!("a {compressed} descriptor with byte_offset 8"),
        );
        g.d(
            rules[3],
            "reserved-byte-15",
            with(v0.clone(), lf + 15, &[1]),
            lf + 15,
            &format!("{compressed} block byte 15 (_reserved) is non-zero"),
        );
        g.d(
            rules[4],
            "pointers-16-bytes",
            with(v0, s2, &u64le(16)),
            s2,
            &format!(
                "the {compressed} pointer buffer has 16 bytes, not one u64 per slice plus one"
            ),
        );
        let mut d = base;
        d.statistics = Some(statistics_nnz(2));
        let cs = valid(d, &dc);
        let nz = at(&cs, &dc, |v| v.statistics().unwrap().nnz_at());
        g.d(
            stats_rule,
            "statistics-nnz-3",
            with(cs, nz, &u64le(3)),
            nz,
            &format!("the statistics say nnz 3, the {compressed} block says 2"),
        );
    }
    // CSF.
    let f = valid(csf(&[2, 2, 2], 2, &csf_arrays()), &dc);
    let (lf, bo, bt) = (
        at(&f, &dc, |v| v.layout_fields_at()),
        at(&f, &dc, |v| v.byte_offset_at()),
        at(&f, &dc, |v| v.buffer_table_at()),
    );
    let mo_at = at(&f, &dc, |v| match v.layout_fields() {
        LayoutVariantView::Csf(c) => c.mode_order_at(),
        _ => unreachable!(),
    });
    let mut arrays2 = csf_arrays();
    arrays2.truncate(4);
    g.d(
        Rule::Cf1,
        "rank-2",
        raw(csf(&[2, 2], 2, &arrays2)),
        16,
        "a CSF descriptor with rank 2",
    );
    let mut d = csf(&[2, 2, 2], 2, &csf_arrays());
    d.buffer_table.buffers.pop();
    g.d(
        Rule::Cf2,
        "six-buffers",
        raw(d),
        bt,
        "a rank-3 CSF descriptor with 6 buffers, not 7",
    );
    g.d(
        Rule::Cf3,
        "byte-offset-8",
        with(f.clone(), bo, &u64le(8)),
        bo,
        "a CSF descriptor with byte_offset 8",
    );
    g.d(
        Rule::Cf4,
        "reserved-byte",
        with(f.clone(), lf + 8 + 12 + 3, &[1]),
        lf + 23,
        "CSF block reserved byte 3 is non-zero",
    );
    g.d(
        Rule::Cf5,
        "mode-order-0-0-2",
        with(f.clone(), mo_at + 4, &u32le(0)),
        mo_at + 4,
        "mode_order [0, 0, 2] repeats 0",
    );
    g.d(
        Rule::Cf5,
        "mode-order-0-1-3",
        with(f.clone(), mo_at + 8, &u32le(3)),
        mo_at + 8,
        "mode_order [0, 1, 3] names dimension 3 of a rank-3 tensor",
    );
    let mut d = csf(&[2, 2, 2], 2, &csf_arrays());
    d.shard = Some(shard(&[2, 2, 2], &[0, 0, 0]));
    g.d(
        Rule::Cf13,
        "with-shard",
        raw(d),
        f.len() as u64,
        "a CSF descriptor with a shard section (RES-45)",
    );
    let mut d = csf(&[2, 2, 2], 2, &csf_arrays());
    d.statistics = Some(statistics_nnz(2));
    let cs = valid(d, &dc);
    let nz = at(&cs, &dc, |v| v.statistics().unwrap().nnz_at());
    g.d(
        Rule::Cf15,
        "statistics-nnz-3",
        with(cs, nz, &u64le(3)),
        nz,
        "the statistics say nnz 3, the CSF block says 2",
    );
    let s1 = at(&f, &dc, |v| buf(v, 1).byte_size_at());
    let s4 = at(&f, &dc, |v| buf(v, 4).byte_size_at());
    g.d(
        Rule::Cf16,
        "pos0-24-bytes",
        with(f.clone(), s1, &u64le(24)),
        s1,
        "pos_0 has 24 bytes, not 16",
    );
    g.d(
        Rule::Cf16,
        "crd1-12-bytes",
        with(f, s4, &u64le(12)),
        s4,
        "crd_1 has 12 bytes, not a whole number of u64",
    );
    // Block-paged.
    let p = valid(block_paged(), &dc);
    let (lf, bo, bt) = (
        at(&p, &dc, |v| v.layout_fields_at()),
        at(&p, &dc, |v| v.byte_offset_at()),
        at(&p, &dc, |v| v.buffer_table_at()),
    );
    let (s0, s1, s2) = (
        at(&p, &dc, |v| buf(v, 0).byte_size_at()),
        at(&p, &dc, |v| buf(v, 1).byte_size_at()),
        at(&p, &dc, |v| buf(v, 2).byte_size_at()),
    );
    let mut d = block_paged();
    d.shape = vec![4, 2];
    g.d(
        Rule::Bp1,
        "rank-2",
        raw(d),
        16,
        "a block-paged descriptor with rank 2",
    );
    let mut d = block_paged();
    d.buffer_table.buffers.push(handle(8));
    g.d(
        Rule::Bp2,
        "four-buffers-unquantized",
        raw(d),
        bt,
        "an unquantized block-paged descriptor with 4 buffers",
    );
    g.d(
        Rule::Bp3,
        "byte-offset-8",
        with(p.clone(), bo, &u64le(8)),
        bo,
        "a block-paged descriptor with byte_offset 8",
    );
    g.d(
        Rule::Bp4,
        "reserved-byte-31",
        with(p.clone(), lf + 31, &[1]),
        lf + 31,
        "block-paged byte 31 (_reserved) is non-zero",
    );
    g.d(
        Rule::Bp5,
        "page-size-0",
        with(p.clone(), lf, &u32le(0)),
        lf,
        "page_size 0",
    );
    g.d(
        Rule::Bp6,
        "paged-axis-1",
        with(p.clone(), lf + 12, &u32le(1)),
        lf + 12,
        "paged_axis 1",
    );
    let mut d = block_paged();
    d.shard = Some(shard(&[4, 1, 2], &[0, 0, 0]));
    g.d(
        Rule::Bp11,
        "with-shard",
        raw(d),
        p.len() as u64,
        "a block-paged descriptor with a shard section",
    );
    g.d(
        Rule::Bp20,
        "kv-role-3",
        with(p.clone(), lf + 20, &[3]),
        lf + 20,
        "kv_role 0x03",
    );
    g.d(
        Rule::Bp21,
        "index-type-2",
        with(p.clone(), lf + 25, &[2]),
        lf + 25,
        "block_table_index_type 0x02",
    );
    g.d(
        Rule::Bp22,
        "seq-ptr-12-bytes",
        with(p.clone(), s2, &u64le(12)),
        s2,
        "one sequence needs 8 bytes of u32 seq_ptr, the buffer has 12",
    );
    g.d(
        Rule::Bp22,
        "block-table-6-bytes",
        with(p.clone(), s1, &u64le(6)),
        s1,
        "a u32 block table of 6 bytes",
    );
    g.d(
        Rule::Bp23,
        "page-pool-16-bytes",
        with(p, s0, &u64le(16)),
        s0,
        "2 pages x 2 tokens x 1 head x 2 float32 need 32 bytes, the pool has 16",
    );
    let qp = valid(
        quantized(
            desc(
                ElementType::Int8,
                LayoutVariant::BlockPaged(paged()),
                &[4, 1, 2],
                &[8, 8, 8, 16],
            ),
            per_block(0, 2, 3, u32::MAX, true, ElementType::Float32),
        ),
        &dc,
    );
    let pl = at(&qp, &dc, |v| v.quantization().unwrap().payload_at());
    g.d(
        Rule::Bp13,
        "per-block-size-4-of-page-2",
        with(qp, pl + 8, &u32le(4)),
        pl + 4,
        "per-block quantization of a paged tensor with block_size 4, page_size 2",
    );
    // Hilbert: float32 [4, 4], order 2.
    let hv = valid(
        desc(ElementType::Float32, hilbert(2, 2), &[4, 4], &[64]),
        &dc,
    );
    let (lf, s0) = (
        at(&hv, &dc, |v| v.layout_fields_at()),
        at(&hv, &dc, |v| buf(v, 0).byte_size_at()),
    );
    g.d(
        Rule::Hi1,
        "shape-4x8-order-2",
        with(hv.clone(), 28, &u64le(8)),
        28,
        "shape[1] 8 is not 2^hilbert_order 4",
    );
    g.d(
        Rule::Hi2,
        "hilbert-rank-3-of-2",
        with(hv.clone(), lf + 4, &u32le(3)),
        lf + 4,
        "hilbert_rank 3 differs from rank 2",
    );
    g.d(
        Rule::Hi3,
        "rank-1",
        raw(desc(ElementType::Float32, hilbert(2, 1), &[4], &[16])),
        16,
        "a Hilbert descriptor with rank and hilbert_rank 1",
    );
    g.d(
        Rule::Hi4,
        "order-0",
        with(hv.clone(), lf, &u32le(0)),
        lf,
        "hilbert_order 0",
    );
    g.d(
        Rule::Hi6,
        "buffer-60-of-64",
        with(hv, s0, &u64le(60)),
        s0,
        "16 Hilbert cells of float32 need exactly 64 bytes, buffer 0 has 60",
    );
}

fn composite_head_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let h = valid(
        head(CompositionRule::Partition, CombineOp::None, 2, &[4]),
        &dc,
    );
    let (lf, bo, bt) = (
        at(&h, &dc, |v| v.layout_fields_at()),
        at(&h, &dc, |v| v.byte_offset_at()),
        at(&h, &dc, |v| v.buffer_table_at()),
    );
    let mut d = head(CompositionRule::Partition, CombineOp::None, 2, &[4]);
    d.buffer_table.buffers.push(handle(16));
    g.d(
        Rule::Ch1,
        "head-with-buffer",
        raw(d),
        bt,
        "a composite head with buffer_count 1",
    );
    g.d(
        Rule::Ch2,
        "byte-offset-8",
        with(h.clone(), bo, &u64le(8)),
        bo,
        "a composite head with byte_offset 8",
    );
    for (v, what) in [(0x00u8, "0x00"), (0x04, "0x04"), (0xFF, "0xff")] {
        g.d(
            Rule::Ch3,
            &format!("rule-{what}"),
            with(h.clone(), lf, &[v]),
            lf,
            &format!("composition_rule {what} is invalid or unallocated"),
        );
    }
    g.d(
        Rule::Ch4,
        "rule-0xf0-private",
        with(h.clone(), lf, &[0xF0]),
        lf,
        "private composition_rule 0xF0 without an agreement",
    );
    g.d(
        Rule::Ch5,
        "partition-replace",
        with(h.clone(), lf + 1, &[CombineOp::Replace.value() as u8]),
        lf + 1,
        "a partition head with combine_op replace",
    );
    g.d(
        Rule::Ch5,
        "group-add",
        with(
            h.clone(),
            lf,
            &[
                CompositionRule::Group.value() as u8,
                CombineOp::Add.value() as u8,
            ],
        ),
        lf + 1,
        "a group head with combine_op add",
    );
    g.d(
        Rule::Ch6,
        "overlay-none",
        with(h.clone(), lf, &[CompositionRule::Overlay.value() as u8]),
        lf + 1,
        "an overlay head with combine_op none",
    );
    for (v, what) in [(0x03u8, "0x03"), (0xFF, "0xff")] {
        g.d(
            Rule::Cv3,
            &format!("combine-op-{what}"),
            with(h.clone(), lf + 1, &[v]),
            lf + 1,
            &format!("combine_op {what} is legal with no composition rule"),
        );
    }
    g.d(
        Rule::Ch7,
        "reserved-byte-3",
        with(h.clone(), lf + 3, &[1]),
        lf + 3,
        "composite head byte 3 (_reserved) is non-zero",
    );
    g.d(
        Rule::Ch8,
        "member-count-open",
        with(h.clone(), lf + 4, &u32le(u32::MAX)),
        lf + 4,
        "member_count 0xFFFFFFFF (open composite, reserved)",
    );
    g.d(
        Rule::Ch9,
        "overlay-no-members",
        with(
            h.clone(),
            lf,
            &[
                CompositionRule::Overlay.value() as u8,
                CombineOp::Add.value() as u8,
                0,
                0,
                0,
                0,
                0,
                0,
            ],
        ),
        lf + 4,
        "an overlay head with member_count 0",
    );
    let mut d = head(CompositionRule::Partition, CombineOp::None, 2, &[4]);
    d.composite_member = Some(member(MemberRole::Base));
    g.d(
        Rule::Ch10,
        "head-with-member-section",
        raw(d),
        10,
        "a composite head with HAS_COMPOSITE_MEMBER",
    );
    let mut d = head(CompositionRule::Partition, CombineOp::None, 2, &[4]);
    d.fixed_header.type_tag = ElementType::Int8.into();
    d.quantization = Some(per_tensor(0.5, 0));
    g.d(
        Rule::Ch11,
        "head-quantized",
        raw(d),
        10,
        "a composite head with HAS_QUANTIZATION",
    );
}

/// Checks that need the tensor's buffers: files with one tensor whose data breaks a rule.
fn data_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    // DAT-3: float8_e8m0 elements.
    let e8 = valid(
        desc(ElementType::Float8E8m0, LayoutVariant::RowMajor, &[4], &[4]),
        &dc,
    );
    let f = single(e8, vec![vec![0x7F; 4]]);
    let d0 = buffer_at(&f, "t", 0);
    for (v, what) in [(0x00u8, "0x00"), (0xFF, "0xff")] {
        g.f(
            Rule::Dat3,
            &format!("e8m0-byte-{what}"),
            with(f.clone(), d0 + 1, &[v]),
            d0 + 1,
            &format!("float8_e8m0 element 1 is the forbidden byte {what}"),
        );
    }
    // MX-8: an e8m0 scale of MXFP.
    let m = valid(
        quantized(
            desc(ElementType::Int8, LayoutVariant::RowMajor, &[32], &[32, 1]),
            mxfp(0, 32, 1),
        ),
        &dc,
    );
    let f = single(m, vec![vec![1; 32], vec![0x7F]]);
    let s = buffer_at(&f, "t", 1);
    for (v, what) in [(0x00u8, "0x00"), (0xFF, "0xff")] {
        g.f(
            Rule::Mx8,
            &format!("scale-byte-{what}"),
            with(f.clone(), s, &[v]),
            s,
            &format!("the MXFP block scale is the reserved byte {what} (RES-20)"),
        );
    }
    // Per-channel scales and zero points: int8 [2, 3] on axis 0.
    let pc = valid(
        quantized(
            desc(
                ElementType::Int8,
                LayoutVariant::RowMajor,
                &[2, 3],
                &[6, 8, 8],
            ),
            per_channel(0, 1, 2, false),
        ),
        &dc,
    );
    let f = single(pc, vec![vec![0; 6], f32s(&[1.0, 0.5]), i32s(&[0, 1])]);
    let (s, z) = (buffer_at(&f, "t", 1), buffer_at(&f, "t", 2));
    g.f(
        Rule::Pc9,
        "scale-zero",
        with(f.clone(), s + 4, &0f32.to_le_bytes()),
        s + 4,
        "per-channel scale 1 is 0.0",
    );
    g.f(
        Rule::Pc10,
        "int8-zero-point-300",
        with(f, z + 4, &300i32.to_le_bytes()),
        z + 4,
        "per-channel zero point 1 is 300, outside int8",
    );
    // Per-block: int8 [8] in blocks of 4.
    let pb = valid(
        quantized(
            desc(ElementType::Int8, LayoutVariant::RowMajor, &[8], &[8, 8, 8]),
            per_block(0, 4, 1, 2, false, ElementType::Float32),
        ),
        &dc,
    );
    let f = single(pb, vec![vec![0; 8], f32s(&[1.0, 2.0]), i32s(&[0, 0])]);
    let (s, z) = (buffer_at(&f, "t", 1), buffer_at(&f, "t", 2));
    g.f(
        Rule::Pb8,
        "scale-nan",
        with(f.clone(), s + 4, &f32::NAN.to_le_bytes()),
        s + 4,
        "per-block scale 1 is NaN",
    );
    g.f(
        Rule::Pb11,
        "int8-zero-point-minus-200",
        with(f, z + 4, &(-200i32).to_le_bytes()),
        z + 4,
        "per-block zero point 1 is -200, outside int8",
    );
    // NF4: uint4 [16] in blocks of 8.
    let n = valid(
        quantized(
            desc(ElementType::Uint4, LayoutVariant::RowMajor, &[16], &[8, 8]),
            nf4(0, 8, 1),
        ),
        &dc,
    );
    let f = single(n, vec![vec![0; 8], f32s(&[1.0, 0.0])]);
    let s = buffer_at(&f, "t", 1);
    g.f(
        Rule::Nf8,
        "scale-negative",
        with(f, s + 4, &(-1f32).to_le_bytes()),
        s + 4,
        "NF4 scale 1 is -1.0",
    );
    // COO: float32 [2, 3] with 2 entries.
    let coo_file = |sorted: u8, idx: &[u64]| {
        single(
            valid(coo(2, sorted), &dc),
            vec![f32s(&[1.0, 2.0]), u64s(idx)],
        )
    };
    let f = coo_file(1, &[0, 0, 1, 2]);
    let i = buffer_at(&f, "t", 1);
    g.f(
        Rule::Co5,
        "coordinate-5-of-3",
        with(f.clone(), i + 24, &u64le(5)),
        i + 24,
        "entry 1's column 5 is outside shape[1] 3",
    );
    g.f(
        Rule::Co6,
        "sorted-not-increasing",
        with(f, i, &u64s(&[1, 2, 0, 0])),
        i + 16,
        "is_sorted is set but entry 1 (0, 0) precedes entry 0 (1, 2)",
    );
    let f = coo_file(0, &[1, 1, 0, 0]);
    g.f(
        Rule::Co6,
        "duplicate-unsorted",
        with(f, i + 16, &u64s(&[1, 1])),
        i + 16,
        "entries 0 and 1 are both (1, 1)",
    );
    // CSR and CSC: [2, 3] with 2 entries.
    for (name, base, ptr, rules) in [
        (
            "csr",
            csr(2),
            vec![0u64, 1, 2],
            [Rule::Cr5, Rule::Cr6, Rule::Cr7, Rule::Cr8],
        ),
        (
            "csc",
            csc(2),
            vec![0u64, 1, 1, 2],
            [Rule::Cc5, Rule::Cc6, Rule::Cc7, Rule::Cc8],
        ),
    ] {
        let f = single(
            valid(base, &dc),
            vec![f32s(&[1.0, 2.0]), u64s(&[0, 1]), u64s(&ptr)],
        );
        let (i, p) = (buffer_at(&f, "t", 1), buffer_at(&f, "t", 2));
        g.f(
            rules[0],
            "pointers-start-at-1",
            with(f.clone(), p, &u64le(1)),
            p,
            &format!("{name} pointer 0 is 1, not 0"),
        );
        let mut bad = ptr.clone();
        bad[1] = 3;
        g.f(
            rules[1],
            "pointers-decrease",
            with(f.clone(), p, &u64s(&bad)),
            p + 16,
            &format!("{name} pointer 2 is below pointer 1 (3)"),
        );
        let mut both = ptr.clone();
        for x in both.iter_mut().skip(1) {
            *x = 2;
        }
        let x = with(f.clone(), p, &u64s(&both));
        g.f(
            rules[2],
            "indices-1-0",
            with(x, i, &u64s(&[1, 0])),
            i + 8,
            &format!("the {name} indices of slice 0 are 1 then 0"),
        );
        g.f(
            rules[3],
            "index-7",
            with(f, i + 8, &u64le(7)),
            i + 8,
            &format!("{name} index 7 is out of bounds"),
        );
    }
    // CSF: rank 3.
    let csf_file = |shape: &[u64], nnz: u64, arrays: &[Vec<u64>]| {
        let mut bufs = vec![f32s(&vec![1.0; nnz as usize])];
        bufs.extend(arrays.iter().map(|a| u64s(a)));
        (valid(csf(shape, nnz, arrays), &dc), bufs)
    };
    let (d, bufs) = csf_file(&[2, 2, 2], 2, &csf_arrays());
    let f = single(d, bufs);
    let b = |k| buffer_at(&f, "t", k);
    let (p0, c0, p1, c1) = (b(1), b(2), b(3), b(4));
    g.f(
        Rule::Cf7,
        "pos1-starts-at-1",
        with(f.clone(), p1, &u64le(1)),
        p1,
        "pos_1[0] is 1, not 0",
    );
    g.f(
        Rule::Cf9,
        "pos0-ends-at-1",
        with(f.clone(), p0 + 8, &u64le(1)),
        p0 + 8,
        "pos_0 ends at 1 but crd_0 holds 2 coordinates",
    );
    g.f(
        Rule::Cf10,
        "crd0-1-0",
        with(f.clone(), c0, &u64s(&[1, 0])),
        c0 + 8,
        "crd_0 is [1, 0], not strictly increasing",
    );
    g.f(
        Rule::Cf11,
        "crd1-5",
        with(f, c1 + 8, &u64le(5)),
        c1 + 8,
        "crd_1[1] is 5, outside shape[1] 2",
    );
    // CF-8 needs three parents at level 1.
    let arrays = vec![
        vec![0, 3],
        vec![0, 1, 2],
        vec![0, 1, 2, 3],
        vec![0, 1, 0],
        vec![0, 1, 2, 3],
        vec![0, 0, 0],
    ];
    let (d, bufs) = csf_file(&[3, 2, 2], 3, &arrays);
    let f = single(d, bufs);
    let p1 = buffer_at(&f, "t", 3);
    g.f(
        Rule::Cf8,
        "pos1-decreases",
        with(f, p1, &u64s(&[0, 2, 1, 3])),
        p1 + 16,
        "pos_1 is [0, 2, 1, 3]",
    );
    // CF-12: an empty tensor (nnz 0) whose levels 0 and 1 hold one coordinate each, every
    // pointer array agreeing with its coordinates; an empty CSF tensor has pos_0 = [0, 0].
    // A well-formed empty tensor (pos_0 = [0, 0], every pos_L = [0]) reads; no valid base
    // has the vector's buffer sizes, so the writer writes the invalid tensor as is.
    let arrays = vec![vec![0, 1], vec![0], vec![0, 1], vec![0], vec![0, 0], vec![]];
    let (d, bufs) = csf_file(
        &[2, 2, 2],
        0,
        &[vec![0, 0], vec![], vec![0], vec![], vec![0], vec![]],
    );
    single(d, bufs);
    let mut bufs = vec![Vec::new()];
    bufs.extend(arrays.iter().map(|a| u64s(a)));
    let x = file_of(&[t("t", raw(csf(&[2, 2, 2], 0, &arrays)), bufs)]);
    // Buffer 0 (values) is empty, so pos_0 starts at the data offset.
    let p0 = entries_of(&x)[0].data_offset;
    g.f(
        Rule::Cf12,
        "empty-with-a-level-0-entry",
        x,
        p0 + 8,
        "nnz 0, but pos_0 is [0, 1]: an empty CSF tensor has pos_0 = [0, 0]",
    );
    // Block-paged: float32 [4, 1, 2].
    let p = valid(block_paged(), &dc);
    let f = single(p, vec![vec![0; 32], u32s(&[0, 1]), u32s(&[0, 2])]);
    let (tb, sp) = (buffer_at(&f, "t", 1), buffer_at(&f, "t", 2));
    g.f(
        Rule::Bp7,
        "seq-ptr-starts-at-1",
        with(f.clone(), sp, &u32le(1)),
        sp,
        "seq_ptr[0] is 1, not 0",
    );
    g.f(
        Rule::Bp9,
        "page-id-2-of-2",
        with(f, tb + 4, &u32le(2)),
        tb + 4,
        "block_table[1] is 2, not below num_pages 2",
    );
    let mut d = block_paged();
    if let LayoutVariant::BlockPaged(p) = &mut d.layout_fields {
        p.num_seqs = 2;
    }
    d.buffer_table.buffers[2].byte_size = 12;
    let f = single(
        valid(d, &dc),
        vec![vec![0; 32], u32s(&[0, 1]), u32s(&[0, 1, 2])],
    );
    let sp = buffer_at(&f, "t", 2);
    g.f(
        Rule::Bp8,
        "seq-ptr-decreases",
        with(f, sp, &u32s(&[0, 3, 2])),
        sp + 8,
        "seq_ptr is [0, 3, 2]",
    );
}

fn container_vectors(g: &mut Gen) {
    let b = base_file(true);
    let f = file::read(&b, &ReaderConfig::new()).expect("base");
    let len = b.len() as u64;
    let tr = len - 40;
    let (io, ko) = (f.trailer().index_offset(), f.trailer().kv_offset());
    let a = f.tensor("a").expect("a").expect("a");
    let bt = f.tensor("b").expect("b").expect("b");
    let (da, dla) = (a.descriptor_offset(), a.descriptor_length());
    let b_data_end = bt.buffers()[0].0 + 3;
    let db = bt.descriptor_offset();
    drop(f);
    // Header.
    g.f(
        Rule::F1,
        "magic-hrryfilx",
        with(b.clone(), 7, b"X"),
        0,
        "bytes 0-7 are HRRYFILX",
    );
    g.f(
        Rule::F2,
        "major-2",
        with(b.clone(), 8, &[2]),
        8,
        "container_version_major 2",
    );
    g.f(
        Rule::Ver2,
        "container-major-0",
        with(b.clone(), 8, &[0]),
        8,
        "container_version_major 0 is below the reader's 1 (CD4)",
    );
    g.f(
        Rule::F3,
        "file-flags-bit-3",
        with(b.clone(), 12, &u32le(0b1111)),
        12,
        "file_flags bit 3 is set",
    );
    for (at, what) in [(11u64, "header-byte-11"), (40, "header-byte-40")] {
        g.f(
            Rule::F16,
            what,
            with(b.clone(), at, &[1]),
            at,
            &format!("reserved file {what} is non-zero"),
        );
    }
    g.f(
        Rule::F16,
        "trailer-byte-33",
        with(b.clone(), tr + 33, &[1]),
        tr + 33,
        "reserved trailer byte 33 is non-zero",
    );
    for (x, what) in [(1000u32, "1000"), (2048, "2048"), (4_194_304, "4194304")] {
        g.f(
            Rule::F17,
            &format!("alignment-{what}"),
            with(b.clone(), 16, &u32le(x)),
            16,
            &format!("data_buffer_alignment {x} is not a power of two in [4096, 2097152]"),
        );
    }
    for (x, what) in [(56u64, "56"), (68, "68")] {
        g.f(
            Rule::F18,
            &format!("first-descriptor-offset-{what}"),
            with(b.clone(), 20, &u64le(x)),
            20,
            &format!("first_descriptor_offset {x} is below 64 or not a multiple of 8"),
        );
    }
    g.f(
        Rule::Len3,
        "file-of-100-bytes",
        b[..100].to_vec(),
        100,
        "a file of 100 bytes cannot hold the 64-byte header and the 40-byte trailer",
    );
    g.f(
        Rule::Len3,
        "file-of-50-bytes",
        b[..50].to_vec(),
        36,
        "a file of 50 bytes ends inside the file header",
    );
    // Trailer.
    g.f(
        Rule::F4,
        "trailer-magic",
        with(b.clone(), tr + 36, b"HRRX"),
        tr + 36,
        "the trailer magic is HRRX",
    );
    // A file cut short or torn (F38): reported as truncated where the cut is, not as a bad
    // trailer magic.
    g.f(
        Rule::F38,
        "cut-in-buffer",
        b[..(b_data_end - 1) as usize].to_vec(),
        b_data_end - 1,
        "the file ends one byte before the end of tensor b's buffer",
    );
    g.f(
        Rule::F38,
        "cut-in-descriptor",
        b[..(db + 10) as usize].to_vec(),
        db + 10,
        "the file ends 10 bytes into tensor b's descriptor",
    );
    g.f(
        Rule::F38,
        "cut-after-tensors",
        b[..ko.min(io) as usize].to_vec(),
        ko.min(io),
        "the file ends where its KV section should start",
    );
    g.f(
        Rule::F38,
        "cut-in-index",
        b[..(io + 20) as usize].to_vec(),
        io + 20,
        "the file ends 20 bytes into the index section",
    );
    g.f(
        Rule::F38,
        "cut-in-trailer",
        b[..(tr + 12) as usize].to_vec(),
        tr + 12,
        "the file ends 12 bytes into the trailer",
    );
    let mut torn = b.clone();
    torn[io as usize..].fill(0);
    let written = torn
        .iter()
        .rposition(|x| *x != 0)
        .map_or(0, |i| i as u64 + 1);
    g.f(
        Rule::F38,
        "torn-index-and-trailer",
        torn,
        written,
        "the file has its full size but its index and trailer were never written (zeros)",
    );
    let crc = u32::from_le_bytes(b[tr as usize + 28..tr as usize + 32].try_into().unwrap());
    g.f(
        Rule::F5,
        "crc-flipped",
        with(b.clone(), tr + 28, &u32le(crc ^ 1)),
        tr + 28,
        "index_crc32c differs from the index's CRC-32C in bit 0",
    );
    g.f(
        Rule::F5,
        "crc-stored-zero",
        with(b.clone(), tr + 28, &u32le(0)),
        tr + 28,
        "HAS_INDEX_CRC32C is set and index_crc32c is 0, verified like any value (RES-5)",
    );
    let flags = FileFlags::HAS_KV_METADATA.0 | FileFlags::SORTED_INDEX.0;
    g.f(
        Rule::F6,
        "crc-without-flag",
        with(b.clone(), 12, &u32le(flags)),
        tr + 28,
        "HAS_INDEX_CRC32C is clear but index_crc32c is not 0",
    );
    let il = len - 40 - io;
    g.f(
        Rule::F7,
        "index-past-trailer",
        with(b.clone(), tr + 8, &u64le(il + 8)),
        tr,
        "index_offset + index_length runs 8 bytes into the trailer",
    );
    g.f(
        Rule::F7,
        "index-offset-overflows",
        with(b.clone(), tr, &u64le(u64::MAX - 4)),
        tr,
        "index_offset + index_length overflows u64",
    );
    // Index.
    let (x, p, e) = with_index(&b, |e| e[1].name = "a".into());
    g.f(
        Rule::F26,
        "names-a-a",
        x,
        entry_at(&e, p.index_offset, 1) + 2,
        "SORTED_INDEX is set and the index names `a` twice",
    );
    let (x, p, e) = with_index(&b, |e| e.swap(0, 1));
    g.f(
        Rule::F26,
        "names-b-a",
        x,
        entry_at(&e, p.index_offset, 1) + 2,
        "SORTED_INDEX is set but `a` follows `b`",
    );
    let u = base_file(false);
    let (x, p, e) = with_index(&u, |e| e[1].name = "a".into());
    g.f(
        Rule::F25,
        "names-a-a",
        x,
        entry_at(&e, p.index_offset, 1) + 2,
        "two index entries are named `a`",
    );
    let (x, p, e) = with_index(&b, |e| e.push(e[1].clone()));
    g.f(
        Rule::F26,
        "three-entries-b-b",
        x,
        entry_at(&e, p.index_offset, 2) + 2,
        "SORTED_INDEX is set and `b` is listed twice at the end",
    );
    let (x, p, e) = with_index(&b, |e| {
        e[0].flags = hurray_runtime::flags::IndexEntryFlags(1)
    });
    g.f(
        Rule::F15,
        "entry-flags-1",
        x,
        entry_at(&e, p.index_offset, 0) + 30 + 1,
        "index entry flags are 0x00000001",
    );
    let (x, p, e) = with_index(&b, |e| e[0].name = String::new());
    g.f(
        Rule::F28,
        "empty-name",
        x,
        entry_at(&e, p.index_offset, 0),
        "an index entry with name_length 0",
    );
    let (x, p, e) = with_index(&b, |e| e[0].name = "\u{7f}".into());
    let n = entry_at(&e, p.index_offset, 0) + 2;
    g.f(
        Rule::F29,
        "name-0xff",
        with(x, n, &[0xFF]),
        n,
        "an index entry name that is the byte 0xFF",
    );
    // F29 patches a byte the CRC covers: recompute it.
    fix_last_crc(g);
    let (x, p, e) = with_index(&b, |e| e[0].descriptor_length -= 1);
    g.f(
        Rule::F11,
        "descriptor-length-60-of-61",
        x,
        entry_at(&e, p.index_offset, 0) + 2 + 1 + 8,
        "the index says 60 bytes, the descriptor's own descriptor_length is 61",
    );
    let (x, p, e) = with_index(&b, |e| e[1].descriptor_offset += 4);
    g.f(
        Rule::F30,
        "descriptor-offset-not-8-aligned",
        x,
        entry_at(&e, p.index_offset, 1) + 3,
        "`b`'s descriptor_offset is 4 past a multiple of 8",
    );
    let (x, _, _) = with_index(&u, |e| {
        let mut c = e[0].clone();
        c.name = "c".into();
        e.push(c);
    });
    g.f(
        Rule::F30,
        "two-entries-one-descriptor",
        x,
        da,
        "`a` and `c` share one descriptor and one data region",
    );
    let (x, p, e) = with_index(&b, |e| e[0].data_offset += 8);
    g.f(
        Rule::F31,
        "data-offset-plus-8",
        x,
        entry_at(&e, p.index_offset, 0) + 3 + 12,
        "`a`'s data_offset is 8 past align_up(descriptor end, A)",
    );
    let (x, p, e) = with_index(&b, |e| e[0].data_length += 8);
    g.f(
        Rule::F31,
        "data-length-plus-8",
        x,
        entry_at(&e, p.index_offset, 0) + 3 + 20,
        "`a`'s data_length is 8 more than its buffer",
    );
    let (x, p, e) = with_index(&b, |e| e[0].descriptor_offset = io);
    g.f(
        Rule::F27,
        "descriptor-at-index",
        x,
        entry_at(&e, p.index_offset, 0) + 3,
        "`a`'s descriptor_offset points past the tensor region, at the KV section",
    );
    let s = split(&b);
    let (x, p) = assemble(
        &s.region[..(b_data_end - 3) as usize],
        Some(&s.kv.as_ref().unwrap().to_bytes()),
        &s.index.to_bytes(),
    );
    g.f(
        Rule::F27,
        "buffer-past-region",
        x,
        entry_at(&s.index.entries, p.index_offset, 1) + 3 + 12,
        "the KV section starts where `b`'s buffer would, so the buffer leaves the tensor region",
    );
    // Padding.
    g.f(
        Rule::F32,
        "after-descriptor",
        with(b.clone(), da + u64::from(dla) + 1, &[1]),
        da + u64::from(dla) + 1,
        "a padding byte between `a`'s descriptor and its data is 0x01",
    );
    g.f(
        Rule::F32,
        "after-last-buffer",
        with(b.clone(), b_data_end + 2, &[1]),
        b_data_end + 2,
        "a padding byte after `b`'s last buffer is 0x01 (RES-3)",
    );
    // Placement of the sections.
    let s = split(&b);
    let kvb = s.kv.as_ref().unwrap().to_bytes();
    let (x, p) = {
        // KV at a multiple of 8 plus 4: assemble by hand.
        let mut out = s.region.clone();
        out.extend([0; 4]);
        let ko = out.len() as u64;
        out.extend(&kvb);
        pad8(&mut out);
        let io = out.len() as u64;
        let ib = s.index.to_bytes();
        out.extend(&ib);
        let tr = out.len() as u64;
        out.extend(
            Trailer {
                index_offset: io,
                index_length: ib.len() as u64,
                kv_offset: ko,
                kv_length: kvb.len() as u32,
                index_crc32c: crc32c(&ib),
                trailer_magic: b"HRRY".to_vec(),
            }
            .to_bytes(),
        );
        (out, tr)
    };
    g.f(
        Rule::F33,
        "kv-offset-4-past-8",
        x,
        p + 16,
        "kv_offset is 4 past a multiple of 8",
    );
    let (x, p) = {
        let mut out = s.region.clone();
        pad8(&mut out);
        let ko = out.len() as u64;
        out.extend(&kvb);
        pad8(&mut out);
        out.extend([0; 4]);
        let io = out.len() as u64;
        let ib = s.index.to_bytes();
        out.extend(&ib);
        let tr = out.len() as u64;
        out.extend(
            Trailer {
                index_offset: io,
                index_length: ib.len() as u64,
                kv_offset: ko,
                kv_length: kvb.len() as u32,
                index_crc32c: crc32c(&ib),
                trailer_magic: b"HRRY".to_vec(),
            }
            .to_bytes(),
        );
        (out, tr)
    };
    g.f(
        Rule::F33,
        "index-offset-4-past-8",
        x,
        p,
        "index_offset is 4 past a multiple of 8",
    );
    // An empty file whose index does not start at first_descriptor_offset.
    let empty = valid_file(&[], &[], &FileOptions::default());
    let s0 = split(&empty);
    let mut region = s0.region.clone();
    region.extend([0; 8]);
    let (x, p) = assemble(&region, None, &s0.index.to_bytes());
    g.f(
        Rule::F33,
        "empty-file-index-at-72",
        x,
        p.trailer,
        "a file without tensors whose index starts at 72, not at first_descriptor_offset 64 (RES-42)",
    );
    // A first descriptor that is not at first_descriptor_offset.
    let mut h = FileHeader {
        magic: b"HRRYFILE".to_vec(),
        container_version_major: 1,
        container_version_minor: 0,
        file_flags: FileFlags::HAS_INDEX_CRC32C,
        data_buffer_alignment: 4096,
        first_descriptor_offset: 72,
        tensor_count_hint: 1,
    };
    let mut w = FileWriter::with_header(Vec::new(), h.clone()).expect("header");
    let (d, bufs) = (valid(f32_rm(&[2, 2]), &Cfg::default()), data_a());
    w.add_tensor("a", &d, &[&bufs]).expect("tensor");
    let x = w.finish(&[]).expect("finish");
    file::read(&x, &ReaderConfig::new()).expect("valid at 72");
    h.first_descriptor_offset = 64;
    let x = with(x, 0, &h.to_bytes());
    let e = entries_of(&x);
    let io = x.len() as u64 - 40 - (index_bytes(&e).len() as u64);
    g.f(
        Rule::F30,
        "first-descriptor-at-72-not-64",
        x,
        entry_at(&e, io, 0) + 3,
        "first_descriptor_offset is 64 but the first descriptor starts at 72",
    );
    // KV section and its flag.
    let s = split(&b);
    let (x, _) = assemble(&s.region, None, &s.index.to_bytes());
    g.f(
        Rule::F34,
        "flag-without-section",
        x,
        12,
        "HAS_KV_METADATA is set, the trailer records no KV section",
    );
    g.f(
        Rule::F35,
        "kv-offset-0",
        with(b.clone(), tr + 16, &u64le(0)),
        tr + 16,
        "kv_offset 0 with kv_length non-zero",
    );
    let kl = u32::from_le_bytes(b[tr as usize + 24..tr as usize + 28].try_into().unwrap());
    g.f(
        Rule::F35,
        "kv-runs-into-index",
        with(b.clone(), tr + 24, &u32le(kl + 16)),
        tr + 16,
        "the KV section's kv_length runs 16 bytes into the index",
    );
    g.f(
        Rule::F36,
        "kv-past-trailer",
        with(b.clone(), tr + 16, &u64le(tr.div_ceil(8) * 8)),
        tr + 16,
        "kv_offset is the first multiple of 8 after index: the KV section runs past the trailer",
    );
    // KV entries.
    let kvs = base_kv();
    // A replaced KV section; `off` is the error's offset inside it.
    let kv_case =
        |g: &mut Gen, rule: Rule, slug: &str, entries: &[KvEntry], off: u64, what: &str| {
            let (x, p) = with_kv(&b, &kv_bytes(entries));
            g.f(rule, slug, x, p.kv_offset + off, what);
        };
    let mut dup = kvs.clone();
    dup.push(kv_int("n", 8));
    let dup_at = kv_entry_at(&dup, 0, 4) + 2;
    kv_case(
        g,
        Rule::F8,
        "key-n-twice",
        &dup,
        dup_at,
        "the KV key `n` appears twice",
    );
    let mut bb = kvs.clone();
    bb[1] = kv_bool("flag", 2);
    let at1 = kv_entry_at(&bb, 0, 1) + 2 + 4 + 1;
    kv_case(g, Rule::F9, "bool-2", &bb, at1, "a KV bool value byte 0x02");
    for (v, what) in [
        (0x08u32, "0x08-unallocated"),
        (0x00, "0x00"),
        (0xFF, "0xff"),
        (0xF0, "0xf0-private"),
    ] {
        let mut e = kvs.clone();
        e[1].value_tag = TagValue::from_raw(v);
        let at1 = kv_entry_at(&e, 0, 1) + 2 + 4;
        kv_case(
            g,
            Rule::F10,
            &format!("value-tag-{what}"),
            &e,
            at1,
            &format!("KV value tag {v:#04x}"),
        );
    }
    let mut e = kvs.clone();
    e[0].key = String::new();
    kv_case(
        g,
        Rule::F20,
        "empty-key",
        &e,
        4,
        "a KV entry with key_length 0",
    );
    let mut e = kvs.clone();
    e.push(KvEntry {
        key: "nested".into(),
        value_tag: KvValue::Array.into(),
        value: KvValueVariant::Array(KvArray {
            element_tag: KvValue::Array.into(),
            elements: Vec::new(),
        }),
    });
    let at4 = kv_entry_at(&e, 0, 4) + 2 + 6 + 1;
    kv_case(
        g,
        Rule::F23,
        "array-of-arrays",
        &e,
        at4,
        "a KV array whose element tag is array (0x07)",
    );
    // UTF-8: patch the bytes of a valid key or string value.
    let k0 = ko + 4 + 2;
    g.f(
        Rule::F21,
        "key-0xff",
        with(b.clone(), k0, &[0xFF]),
        k0,
        "KV key `author` starts with the byte 0xFF",
    );
    let v0 = k0 + 6 + 1 + 4;
    g.f(
        Rule::F22,
        "string-0xc3-0x28",
        with(b.clone(), v0, &[0xC3, 0x28]),
        v0,
        "KV string value `hurray` starts with the invalid sequence C3 28",
    );
    let e3 = ko + kv_entry_at(&kvs, 0, 3) + 2 + 4 + 1 + 1 + 4 + 4;
    g.f(
        Rule::F22,
        "array-element-0xff",
        with(b.clone(), e3, &[0xFF]),
        e3,
        "the first string of the KV array `tags` is the byte 0xFF",
    );
    // Section lengths (RES-7).
    let s = split(&b);
    let mut kvx = s.kv.as_ref().unwrap().to_bytes();
    kvx.extend([0; 4]);
    let (x, p) = with_kv(&b, &kvx);
    g.f(
        Rule::Len1,
        "kv-4-surplus-bytes",
        x,
        p.kv_offset + kvx.len() as u64 - 4,
        "kv_length covers 4 bytes after the last KV entry, at container version 1.0",
    );
    let mut kvx = s.kv.as_ref().unwrap().to_bytes();
    kvx[0] += 1;
    let kvlen = kvx.len() as u64;
    let (x, p) = with_kv(&b, &kvx);
    g.f(
        Rule::F19,
        "kv-count-5-of-4",
        x,
        p.kv_offset + kvlen,
        "kv_count says 5 entries, kv_length covers 4",
    );
    let mut ib = s.index.to_bytes();
    ib.extend([0; 8]);
    let (x, p) = assemble(&s.region, Some(&s.kv.as_ref().unwrap().to_bytes()), &ib);
    g.f(
        Rule::Len1,
        "index-8-surplus-bytes",
        x,
        p.index_offset + ib.len() as u64 - 8,
        "index_length covers 8 bytes after the last index entry, at container version 1.0",
    );
    let mut ib = s.index.to_bytes();
    ib[0] += 1;
    let iblen = ib.len() as u64;
    let (x, p) = assemble(&s.region, Some(&s.kv.as_ref().unwrap().to_bytes()), &ib);
    g.f(
        Rule::F24,
        "entry-count-3-of-2",
        x,
        p.index_offset + iblen,
        "index_entry_count says 3 entries, index_length covers 2",
    );
}

/// Recompute the trailer CRC of the last file vector after a byte of its index was patched.
fn fix_last_crc(g: &mut Gen) {
    let v = g.out.last_mut().expect("a vector");
    let b = &mut v.bytes;
    let tr = b.len() - 40;
    let io = u64::from_le_bytes(b[tr..tr + 8].try_into().unwrap()) as usize;
    let il = u64::from_le_bytes(b[tr + 8..tr + 16].try_into().unwrap()) as usize;
    let crc = crc32c(&b[io..io + il]);
    b[tr + 28..tr + 32].copy_from_slice(&crc.to_le_bytes());
}

fn composite_file_vectors(g: &mut Gen) {
    let dc = Cfg::default();
    let part = |shape: &[u64], parent: &[u64], offset: &[u64]| {
        let mut d = f32_rm(shape);
        d.shard = Some(shard(parent, offset));
        d
    };
    let data = |n: usize| f32s(&vec![1.0; n]);
    let hd = |rule, op, n| valid(head(rule, op, n, &[4]), &dc);
    let m = |shape: &[u64], offset: &[u64]| valid(part(shape, &[4], offset), &dc);
    // A valid partition of [4] into [2] at 0 and [2] at 2.
    // The data of a member: as many float32 values as its buffer holds.
    let fill = |d: &[u8]| {
        let c = descriptor::read(d, &ReaderConfig::new()).expect("a valid member");
        vec![
            1;
            c.view
                .buffer_table()
                .buffers()
                .get(0)
                .map_or(0, |b| b.byte_size()) as usize
        ]
    };
    let members = |a: Vec<u8>, b: Vec<u8>| {
        let (fa, fb) = (fill(&a), fill(&b));
        vec![
            t(
                "h",
                hd(CompositionRule::Partition, CombineOp::None, 2),
                vec![],
            ),
            t("p0", a, vec![fa]),
            t("p1", b, vec![fb]),
        ]
    };
    valid_file(
        &members(m(&[2], &[0]), m(&[2], &[2])),
        &[],
        &FileOptions::default(),
    );
    let x = file_of(&members(m(&[2], &[0]), m(&[1], &[3])));
    g.f(
        Rule::Cv6,
        "partition-gap",
        x.clone(),
        descriptor_offset(&x, "h"),
        "members [0, 2) and [3, 4) leave index 2 of the head uncovered",
    );
    let x = file_of(&members(m(&[2], &[0]), m(&[2], &[1])));
    g.f(
        Rule::Cv6,
        "partition-overlap",
        x.clone(),
        descriptor_offset(&x, "p1"),
        "members [0, 2) and [1, 3) overlap at index 1",
    );
    let x = file_of(&members(valid(f32_rm(&[2]), &dc), m(&[2], &[2])));
    g.f(
        Rule::Cv1,
        "member-without-shard",
        x.clone(),
        descriptor_offset(&x, "p0"),
        "partition member p0 has no shard section",
    );
    let bad = valid(part(&[2], &[8], &[0]), &dc);
    let pa = at(&bad, &dc, |v| v.shard().unwrap().parent_shape_at());
    let x = file_of(&members(bad, m(&[2], &[2])));
    g.f(
        Rule::Cv1,
        "parent-shape-8-of-4",
        x.clone(),
        descriptor_offset(&x, "p0") + pa,
        "partition member p0's parent_shape [8] differs from the head's shape [4]",
    );
    let mut d = desc(ElementType::Int32, LayoutVariant::RowMajor, &[2], &[8]);
    d.shard = Some(shard(&[4], &[0]));
    let x = file_of(&members(valid(d, &dc), m(&[2], &[2])));
    g.f(
        Rule::Cv2,
        "int32-member-of-float32",
        x.clone(),
        descriptor_offset(&x, "p0") + 14,
        "partition member p0 is int32, the head float32",
    );
    let mut d = part(&[2], &[4], &[0]);
    d.composite_member = Some(member(MemberRole::Base));
    let x = file_of(&members(valid(d.clone(), &dc), m(&[2], &[2])));
    g.f(
        Rule::Cv5,
        "partition-member-with-member-section",
        x.clone(),
        descriptor_offset(&x, "p0") + 10,
        "partition member p0 sets HAS_COMPOSITE_MEMBER",
    );
    let x = file_of(&[
        t("h", hd(CompositionRule::Group, CombineOp::None, 1), vec![]),
        t("g0", valid(d, &dc), vec![data(2)]),
    ]);
    g.f(
        Rule::Cv5,
        "group-member-with-member-section",
        x.clone(),
        descriptor_offset(&x, "g0") + 10,
        "group member g0 sets HAS_COMPOSITE_MEMBER",
    );
    // Overlays: a base spanning [4], then a correction.
    let ov = |role0: Option<MemberRole>, shape0: &[u64]| {
        let mut base = part(shape0, &[4], &[0]);
        base.composite_member = role0.map(member);
        let mut corr = part(&[1], &[4], &[2]);
        corr.composite_member = Some(member(MemberRole::Correction));
        let n0 = shape0.iter().product::<u64>() as usize;
        file_of(&[
            t("h", hd(CompositionRule::Overlay, CombineOp::Add, 2), vec![]),
            t("base", valid(base, &dc), vec![data(n0)]),
            t("fix", valid(corr, &dc), vec![data(1)]),
        ])
    };
    let ok = ov(Some(MemberRole::Base), &[4]);
    file::read(&ok, &ReaderConfig::new()).expect("a valid overlay");
    let x = ov(Some(MemberRole::Correction), &[4]);
    g.f(
        Rule::Cv4,
        "base-with-correction-role",
        x.clone(),
        descriptor_offset(&x, "base"),
        "overlay member 0 has role correction, not base",
    );
    let x = ov(None, &[4]);
    g.f(
        Rule::Cv4,
        "member-without-section",
        x.clone(),
        descriptor_offset(&x, "base"),
        "overlay member 0 carries no composite member section",
    );
    let x = ov(Some(MemberRole::Base), &[2]);
    g.f(
        Rule::Cv4,
        "base-not-spanning",
        x.clone(),
        descriptor_offset(&x, "base"),
        "the overlay's base member covers [0, 2) of the head's [4]",
    );
    // A nested head without a shard inside a partition.
    let x = file_of(&[
        t(
            "h",
            hd(CompositionRule::Partition, CombineOp::None, 2),
            vec![],
        ),
        t(
            "inner",
            valid(head(CompositionRule::Group, CombineOp::None, 1, &[2]), &dc),
            vec![],
        ),
        t("g", valid(f32_rm(&[2]), &dc), vec![data(2)]),
        t("p1", m(&[2], &[2]), vec![data(2)]),
    ]);
    g.f(
        Rule::Ch12,
        "nested-head-without-shard",
        x.clone(),
        descriptor_offset(&x, "inner"),
        "a group head nested in a partition has no shard section",
    );
    // Torn composite.
    let x = file_of(&[
        t(
            "h",
            hd(CompositionRule::Partition, CombineOp::None, 2),
            vec![],
        ),
        t("p0", m(&[2], &[0]), vec![data(2)]),
    ]);
    g.f(
        Rule::F12,
        "one-of-two-members",
        x.clone(),
        descriptor_offset(&x, "h"),
        "a partition head declares 2 members, 1 follows",
    );
    // Nesting: 9 group heads, one inside the other.
    let mut ts = Vec::new();
    for k in 0..9 {
        ts.push(t(
            &format!("g{k}"),
            valid(head(CompositionRule::Group, CombineOp::None, 1, &[1]), &dc),
            vec![],
        ));
    }
    ts.push(t("leaf", valid(f32_rm(&[1]), &dc), vec![data(1)]));
    let x = file_of(&ts);
    g.f(
        Rule::Cv7,
        "nine-nested-groups",
        x.clone(),
        descriptor_offset(&x, "g8"),
        "composites nested 9 levels deep; the limit is 8",
    );
}

// ---------------------------------------------------------------------------------------
// The corpus on disk.

fn corpus_dir() -> PathBuf {
    root().join("tests").join("corpus").join("reject")
}

const REFRESH: &str = "BLESS=1 cargo test --test rejects";

fn manifest_of(vs: &[Vector]) -> String {
    let mut m = serde_json::Map::new();
    for v in vs {
        m.insert(
            v.file.clone(),
            json!({
                "rule": v.rule.id(),
                "code": v.rule.code(),
                "offset": v.offset,
                "config": v.config.to_json(),
                "description": v.description,
            }),
        );
    }
    let mut s = serde_json::to_string_pretty(&J::Object(m)).expect("manifest");
    s.push('\n');
    s
}

/// The generated vectors, written to disk first when `BLESS=1`; and every difference
/// between them and the checked-in corpus.
struct Corpus {
    vectors: Vec<Vector>,
    drift: Vec<String>,
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let vectors = vectors();
        let dir = corpus_dir();
        let manifest = manifest_of(&vectors);
        if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
            std::fs::create_dir_all(&dir).expect("corpus dir");
            for e in std::fs::read_dir(&dir).expect("corpus dir").flatten() {
                std::fs::remove_file(e.path()).expect("remove a stale vector");
            }
            for v in &vectors {
                std::fs::write(dir.join(&v.file), &v.bytes).expect("write a vector");
            }
            std::fs::write(dir.join("manifest.json"), &manifest).expect("write the manifest");
        }
        let mut drift = Vec::new();
        let mut expected: BTreeMap<String, &[u8]> = vectors
            .iter()
            .map(|v| (v.file.clone(), v.bytes.as_slice()))
            .collect();
        expected.insert("manifest.json".into(), manifest.as_bytes());
        let mut present = Vec::new();
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                present.push(e.file_name().to_string_lossy().to_string());
            }
        }
        for name in &present {
            match expected.get(name) {
                None => drift.push(format!("extra file {name}")),
                Some(want) => {
                    if std::fs::read(dir.join(name)).ok().as_deref() != Some(*want) {
                        drift.push(format!("{name} differs from what the generator builds"));
                    }
                }
            }
        }
        for name in expected.keys() {
            if !present.contains(name) {
                drift.push(format!("missing {name}"));
            }
        }
        Corpus { vectors, drift }
    })
}

fn checked_in_manifest() -> BTreeMap<String, J> {
    let text = std::fs::read(corpus_dir().join("manifest.json"))
        .unwrap_or_else(|e| panic!("tests/corpus/reject/manifest.json: {e}; run `{REFRESH}`"));
    let j: J = serde_json::from_slice(&text).expect("the manifest is JSON");
    j.as_object()
        .expect("the manifest is an object")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Decode a checked-in vector as the manifest says; the rejection, if any.
fn decode(name: &str, bytes: &[u8], cfg: &ReaderConfig) -> Result<Outcome, hurray_runtime::Error> {
    if name.ends_with(".hrry") {
        let f = file::read(bytes, cfg)?;
        Ok(Outcome {
            warnings: f.warnings().iter().map(|w| w.rule).collect(),
            dereferenceable: f.tensors().all(|t| t.is_ok_and(|t| t.dereferenceable()))
                && f.composites()?.iter().all(|c| c.complete),
        })
    } else {
        let d = descriptor::read(bytes, cfg)?;
        Ok(Outcome {
            warnings: d.warnings.iter().map(|w| w.rule).collect(),
            dereferenceable: d.dereferenceable,
        })
    }
}

#[derive(Debug)]
struct Outcome {
    warnings: Vec<Rule>,
    dereferenceable: bool,
}

// ---------------------------------------------------------------------------------------
// Tests.

#[test]
fn the_checked_in_corpus_matches_the_generator() {
    let c = corpus();
    assert!(
        c.drift.is_empty(),
        "tests/corpus/reject/ is out of date; refresh it with `{REFRESH}`:\n  {}",
        c.drift.join("\n  ")
    );
}

#[test]
fn every_vector_is_rejected_with_its_rule_code_and_offset() {
    let _ = corpus();
    let manifest = checked_in_manifest();
    assert!(!manifest.is_empty());
    let mut failures = Vec::new();
    for (name, e) in &manifest {
        let bytes = read(&corpus_dir().join(name));
        let want_rule = e["rule"].as_str().expect("rule");
        let want_code = e["code"].as_str().expect("code");
        let want_offset = e["offset"].as_u64().expect("offset");
        let cfg = Cfg::from_json(&e["config"]);
        assert!(
            name.starts_with(&format!("{want_rule}-")),
            "{name} is not named after its rule {want_rule}"
        );
        match decode(name, &bytes, &cfg.reader(false)) {
            Ok(o) => failures.push(format!(
                "{name}: accepted (warnings {:?}); expected {want_rule}",
                o.warnings
            )),
            Err(err) => {
                if (err.rule().id(), err.code(), err.offset())
                    != (want_rule, want_code, want_offset)
                {
                    failures.push(format!(
                        "{name}: got {} [{}] at {} ({}); expected {want_rule} [{want_code}] at {want_offset}",
                        err.rule().id(),
                        err.code(),
                        err.offset(),
                        err.detail()
                    ));
                }
            }
        }
        // A strict or validate rule is a permissive reader's acceptance, never its trust.
        let rule = Rule::from_id(want_rule).expect("a rule of the spec");
        if matches!(rule.action(), Action::Strict | Action::Validate) {
            match decode(name, &bytes, &cfg.reader(true)) {
                Ok(o) => {
                    if o.dereferenceable && !o.warnings.contains(&rule) {
                        failures.push(format!(
                            "{name}: a permissive reader accepts it as dereferenceable without a {want_rule} warning"
                        ));
                    }
                }
                Err(err) => {
                    failures.push(format!("{name}: a permissive reader rejects it: {err:?}"))
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors are not rejected as their manifest says:\n  {}",
        failures.len(),
        manifest.len(),
        failures.join("\n  ")
    );
}

#[test]
fn the_cli_reports_code_and_offset() {
    let _ = corpus();
    let manifest = checked_in_manifest();
    for name in [
        "HDR-4-descriptor-length-12.bin",
        "BH-13-cpu-peer.bin",
        "PT-1-scale-nan.bin",
        "F5-crc-flipped.hrry",
        "CV-6-partition-overlap.hrry",
        "DAT-3-e8m0-byte-0xff.hrry",
    ] {
        let e = &manifest[name];
        let path = corpus_dir().join(name);
        let out = hurray(&["decode", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        let err = stderr(&out);
        let first = err.lines().next().unwrap_or_default();
        let prefix = format!("error[{}]: ", e["code"].as_str().unwrap());
        let suffix = format!("(at byte {})", e["offset"]);
        assert!(
            first.starts_with(&prefix) && first.ends_with(&suffix),
            "{name}: `{first}` should read `{prefix}… {suffix}`"
        );
        assert!(
            first.contains(&format!("rule {}", e["rule"].as_str().unwrap())),
            "{name}: `{first}` does not name its rule"
        );
    }
}

/// Rules that no byte string can make this runtime report under their own id, and why.
const ALLOWLIST: &[(&str, &str)] = &[
    (
        "F39",
        "the sequential reader's rule (the walk against the index); tests/sequential.rs breaks it each way and runs this corpus through the sequential reader",
    ),
    (
        "SEC-1",
        "governs sections a program declares with #[derive(HurraySection)]; no descriptor or file of the format carries one",
    ),
    (
        "SEC-2",
        "governs sections a program declares with #[derive(HurraySection)]; no descriptor or file of the format carries one",
    ),
    (
        "FLG-3",
        "needs a reader without quantization support; this runtime supports every scheme",
    ),
    (
        "CH-13",
        "needs a reader without layout 0x0B; every conforming reader, this one included, supports it (RES-44)",
    ),
    (
        "F13",
        "umbrella of the close-time checks: a failing composite is reported under the specific CV rule (CV-1…CV-7)",
    ),
    (
        "F14",
        "umbrella: a file's invalid descriptor is reported under that descriptor rule's own id, as F14 itself demands",
    ),
    (
        "VER-1",
        "umbrella of CD3: the descriptor axis reports HDR-2, the container axis F2; scheme axes have no major of their own (RES-6)",
    ),
    (
        "VER-3",
        "umbrella of CD2: every tag space and flag set names its own rejection rule (TYP-2, LAY-2, H2, FLG-1, F3, …)",
    ),
    (
        "VER-10",
        "every tag, flag bit and field is defined at its axis's initial version 1.0 (scheme version 1), and data below it is rejected as HDR-3, VER-2 or H4 first, so no data can predate a feature it uses",
    ),
    (
        "LEN-2",
        "every length prefix's shortfall is reported under its framing's own rule: HDR-5 (descriptor_length), QNT-1 (quantization_length), F19 (kv_length), F24 (index_length)",
    ),
    (
        "SHD-1",
        "presence is structural: a flagged shard section that crosses descriptor_length is HDR-5, unflagged shard bytes are LEN-1 (see HDR-5-shard-flag-without-section)",
    ),
    (
        "STA-1",
        "presence is structural: a flagged statistics section that crosses descriptor_length is HDR-5, unflagged bytes LEN-1 (see HDR-5-statistics-flag-without-section)",
    ),
    (
        "EXT-1",
        "presence is structural (HDR-5 or LEN-1), and a private type without the section is FLG-2 (see FLG-2-private-type-without-extension-flag)",
    ),
    (
        "CMP-1",
        "presence is structural: a flagged member section that crosses descriptor_length is HDR-5, unflagged bytes LEN-1 (see LEN-1-member-section-without-flag)",
    ),
    (
        "BUF-1",
        "restated for the composite head by CH-1 (same code), which the runtime reports",
    ),
    (
        "BUF-5",
        "restated per sparse layout by CO-2, CR-2, CC-2 and CF-2 (same code), which the runtime reports",
    ),
    (
        "BUF-6",
        "restated for block-paged by BP-2 (same code), which the runtime reports",
    ),
    (
        "OFS-2",
        "every layout whose byte_offset must be 0 restates it (CO-3, CR-3, CC-3, CF-3, BP-3, CH-2), which the runtime reports",
    ),
    (
        "LAY-4",
        "every rank range has its own rule (ST-1, TL-1, MO-1, CO-1, CR-1, CC-1, CF-1, BP-1, HI-3, CM-1), or is bounded by SHP-1 and LAY-3",
    ),
    (
        "P2",
        "restated by BUF-8 (descriptor.md, same code) and PC-3 for per-channel, which the runtime reports",
    ),
];

fn eligible(r: Rule) -> bool {
    matches!(r.actor(), Actor::Reader | Actor::Both)
        && matches!(
            r.action(),
            Action::Reject | Action::Strict | Action::Validate
        )
        && matches!(
            r.enforced_by(),
            EnforcedBy::Table | EnforcedBy::Runtime | EnforcedBy::Structure
        )
}

#[test]
fn every_reader_rule_has_a_rejecting_vector() {
    let c = corpus();
    let covered: BTreeMap<&str, usize> = c.vectors.iter().fold(BTreeMap::new(), |mut m, v| {
        *m.entry(v.rule.id()).or_insert(0) += 1;
        m
    });
    let mut missing = Vec::new();
    let mut eligible_count = 0;
    for r in Rule::ALL {
        if !eligible(*r) {
            continue;
        }
        eligible_count += 1;
        let allowed = ALLOWLIST.iter().any(|(id, _)| *id == r.id());
        match (covered.contains_key(r.id()), allowed) {
            (false, false) => missing.push(r.id()),
            (true, true) => panic!("{} has a vector: take it off the allowlist", r.id()),
            _ => {}
        }
    }
    for (id, why) in ALLOWLIST {
        let r = Rule::from_id(id).unwrap_or_else(|| panic!("allowlist entry {id} is no rule"));
        assert!(eligible(r), "allowlist entry {id} is not a reader rule");
        assert!(!why.is_empty());
    }
    for v in &c.vectors {
        assert!(
            eligible(v.rule),
            "{} is named after {}, which is not an enforced reader rule",
            v.file,
            v.rule.id()
        );
    }
    assert!(
        missing.is_empty(),
        "{} of {eligible_count} reader rules have no rejecting vector and no allowlist entry: {}",
        missing.len(),
        missing.join(", ")
    );
}
