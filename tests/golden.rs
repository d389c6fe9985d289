//! The project's golden corpus of valid vectors (`tests/corpus/valid/`, see its README).
//!
//! Every vector is built here, in memory, from owned values: descriptors through
//! `writer::finalize_with`, files through the single-pass `FileWriter`, data buffers as real,
//! correctly sized bytes. Each vector's expectation is derived from the generator's intent —
//! the owned descriptor's contract value, and for files the placement arithmetic of
//! container.md §5 computed here independently — never from decoding the bytes.
//!
//! The tests then (1) regenerate the corpus and compare it with the checked-in files (or
//! rewrite them under `BLESS=1`), (2) decode every checked-in vector with the runtime and
//! compare it with its expectation, (3) re-encode every vector byte for byte, (4) prove from
//! the spec's own tables that every allocated value of every tag space, every layout, scheme,
//! optional section and KV value type is exercised, and (5) pin the facts sheets' worked
//! examples byte for byte.

mod common;

use common::{f32s, i32s, u64s};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use hurray_runtime::axes::Axis;
use hurray_runtime::flags::{
    ComputedMask, DescriptorFlags, FileFlags, PerBlockAffineFlags, PerChannelAffineFlags,
};
use hurray_runtime::semantic::elements::DYNAMIC;
use hurray_runtime::structures::{
    BufferHandle, BufferTable, CompositeMember, Descriptor, ExtensionType, FileHeader, FixedHeader,
    KvArray, KvBool, KvBytes, KvEntry, KvFloat64, KvInt64, KvString, KvUint64, KvValueVariant,
    LayoutBlockPaged, LayoutComposite, LayoutCoo, LayoutCsc, LayoutCsf, LayoutCsr, LayoutExtension,
    LayoutHilbert, LayoutMorton, LayoutStrided, LayoutTiled, LayoutVariant, Mxfp, Nf4,
    PerBlockAffine, PerChannelAffine, PerTensorAffine, QuantizationHeader, QuantizationSection,
    SchemeVariant, Shard, Statistics,
};
use hurray_runtime::tags::{
    BlockTableIndexType, CombineOp, CompositionRule, Device, ElementKind, ElementType, KvRole,
    KvValue, Layout, MemberRole, MemoryClass, Packing, Scheme, SyncMode,
};
use hurray_runtime::wire::{FlagSet, TagClass, TagSpace, TagValue};
use hurray_runtime::writer::{self, FileOptions, FileWriter, WriteError};
use hurray_runtime::{ReaderConfig, Value, contract, descriptor, file};
use serde_json::{Map, Value as J, json};

// ---------------------------------------------------------------------------------------
// Paths, JSON
// ---------------------------------------------------------------------------------------

const REFRESH: &str = "BLESS=1 cargo test --test golden";

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/valid")
}

/// The CLI's JSON mapping (src/cli/json.rs): byte sequences as lowercase hex, floats JSON
/// cannot hold as `"f64:<bits>"`, keys in the contract's order.
fn to_json(v: &Value) -> J {
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::UInt(n) => json!(n),
        Value::Int(n) => json!(n),
        Value::Float(x) if x.is_finite() => json!(x),
        Value::Float(x) => J::String(format!("f64:{:016x}", x.to_bits())),
        Value::Str(s) => J::String(s.clone()),
        Value::Bytes(b) | Value::Skipped(b) => J::String(hurray_runtime::value::hex_encode(b)),
        Value::Array(a) => J::Array(a.iter().map(to_json).collect()),
        Value::Object(fields) => {
            let mut m = Map::new();
            for (k, x) in fields {
                m.insert(k.clone(), to_json(x));
            }
            J::Object(m)
        }
        Value::Defaulted(inner) => to_json(inner),
    }
}

fn pretty(j: &J) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(j).expect("JSON serializes");
    s.push('\n');
    s.into_bytes()
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

// ---------------------------------------------------------------------------------------
// Element data: sizes from the spec's bits/packing attributes, real values, packing rules
// ---------------------------------------------------------------------------------------

/// descriptor.md §8.5: bytes for `n` elements of an allocated type.
fn elem_bytes(t: ElementType, n: u64) -> u64 {
    match t.packing() {
        Packing::None => n * u64::from(t.bits() / 8),
        Packing::LsbFirst => n.div_ceil(u64::from(8 / t.bits())),
        Packing::Group4In3 => n.div_ceil(4) * 3,
    }
}

/// descriptor.md §8.4, B ∈ {1, 2, 4}: element i in byte floor(i/P) at bit (i mod P)·B.
fn pack(bits: u32, codes: &[u8]) -> Vec<u8> {
    let per = (8 / bits) as usize;
    let mut out = vec![0u8; codes.len().div_ceil(per)];
    for (i, c) in codes.iter().enumerate() {
        assert!(
            u32::from(*c) < 1 << bits,
            "code {c} does not fit {bits} bits"
        );
        out[i / per] |= c << ((i % per) as u32 * bits);
    }
    out
}

/// descriptor.md §8.4, 6-bit: G = B0 | B1<<8 | B2<<16, element 4k+j = (G >> 6j) & 0x3F.
fn pack6(codes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for g in codes.chunks(4) {
        let mut word = 0u32;
        for (j, c) in g.iter().enumerate() {
            assert!(*c < 64);
            word |= u32::from(*c) << (6 * j);
        }
        out.extend_from_slice(&word.to_le_bytes()[..3]);
    }
    out
}

/// Exact conversions of small binary fractions (the generator only uses k/2, k/4).
fn f16_bits(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + 15;
    assert!(
        exp > 0 && exp < 31 && b & 0x1FFF == 0,
        "{x} is not exact in float16"
    );
    (((b >> 16) & 0x8000) as u16) | ((exp as u16) << 10) | ((b >> 13) & 0x3FF) as u16
}

fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    assert!(b & 0xFFFF == 0, "{x} is not exact in bfloat16");
    (b >> 16) as u16
}

/// OCP OFP8 from an f32 that is exact in `exp_bits`-`man_bits` with `bias`.
fn fp8(x: f32, exp_bits: u32, man_bits: u32, bias: i32) -> u8 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + bias;
    assert!(exp > 0 && exp < (1 << exp_bits) - 1 && b & ((1 << (23 - man_bits)) - 1) == 0);
    (((b >> 24) & 0x80) as u8)
        | ((exp as u8) << man_bits)
        | ((b >> (23 - man_bits)) as u8 & ((1 << man_bits) - 1))
}

/// IEEE binary128 from a normal (or zero) f64.
fn f128_bits(x: f64) -> u128 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let sign = u128::from(b >> 63) << 127;
    let exp = ((b >> 52) & 0x7FF) as i64 - 1023 + 16383;
    sign | ((exp as u128) << 112) | (u128::from(b & ((1 << 52) - 1)) << 60)
}

/// Small integers k ∈ −8..=8 driving every element value (value k/2 for float types).
fn ks(n: usize, seed: u64) -> Vec<i64> {
    (0..n as u64)
        .map(|i| ((i * 7 + seed * 3 + 5) % 17) as i64 - 8)
        .collect()
}

/// `n` real, valid elements of `t`: packed types with zero padding, float8_e8m0 bytes in
/// 0x01..=0xFE (DAT-3), whole-byte types little-endian.
fn data(t: ElementType, n: usize, seed: u64) -> Vec<u8> {
    let k = ks(n, seed);
    let out = match t.packing() {
        Packing::LsbFirst => {
            let mask = ((1u16 << t.bits()) - 1) as u8;
            pack(
                t.bits(),
                &k.iter().map(|x| (*x as u8) & mask).collect::<Vec<_>>(),
            )
        }
        Packing::Group4In3 => pack6(&k.iter().map(|x| (*x as u8) & 0x3F).collect::<Vec<_>>()),
        Packing::None => {
            let mut out = Vec::new();
            for x in k {
                let v = x as f64 * 0.5;
                match (t, t.kind()) {
                    (ElementType::Float16, _) => out.extend(f16_bits(v as f32).to_le_bytes()),
                    (ElementType::Bfloat16, _) => out.extend(bf16_bits(v as f32).to_le_bytes()),
                    (ElementType::Float32, _) => out.extend((v as f32).to_le_bytes()),
                    (ElementType::Float64, _) => out.extend(v.to_le_bytes()),
                    (ElementType::Float128, _) => out.extend(f128_bits(v).to_le_bytes()),
                    (ElementType::Float8E4m3, _) => out.push(fp8(v as f32, 4, 3, 7)),
                    (ElementType::Float8E5m2, _) => out.push(fp8(v as f32, 5, 2, 15)),
                    (ElementType::Float8E8m0, _) => out.push(0x7C + x.rem_euclid(8) as u8),
                    (ElementType::Complex64, _) => {
                        out.extend((v as f32).to_le_bytes());
                        out.extend((-v as f32).to_le_bytes());
                    }
                    (ElementType::Complex128, _) => {
                        out.extend(v.to_le_bytes());
                        out.extend((-v).to_le_bytes());
                    }
                    (_, ElementKind::Signed) => {
                        out.extend(&x.to_le_bytes()[..(t.bits() / 8) as usize]);
                    }
                    (_, ElementKind::Unsigned) => {
                        out.extend(&x.unsigned_abs().to_le_bytes()[..(t.bits() / 8) as usize]);
                    }
                    _ => panic!("the generator does not know how to fill {}", t.name()),
                }
            }
            out
        }
    };
    assert_eq!(out.len() as u64, elem_bytes(t, n as u64), "{}", t.name());
    out
}

fn u32s(xs: &[u64]) -> Vec<u8> {
    xs.iter()
        .flat_map(|x| u32::try_from(*x).unwrap().to_le_bytes())
        .collect()
}

/// A scale array in a block scheme's scale type: values (b mod 8 + 1)/4, exact in all.
fn scales(t: ElementType, n: usize) -> Vec<u8> {
    let xs: Vec<f32> = (0..n).map(|b| (b % 8 + 1) as f32 * 0.25).collect();
    match t {
        ElementType::Float16 => xs.iter().flat_map(|x| f16_bits(*x).to_le_bytes()).collect(),
        ElementType::Bfloat16 => xs
            .iter()
            .flat_map(|x| bf16_bits(*x).to_le_bytes())
            .collect(),
        ElementType::Float32 => f32s(&xs),
        other => panic!("no scale encoding for {}", other.name()),
    }
}

/// The zero-point range of a storage type (quantization.md §3.3, RES-39).
fn zp_range(t: ElementType) -> (i64, i64) {
    let b = i64::from(t.bits());
    match t.kind() {
        ElementKind::Signed => (-(1 << (b - 1)), (1 << (b - 1)) - 1),
        _ => (0, ((1i64 << b) - 1).min(i64::from(i32::MAX))),
    }
}

fn zero_points(t: ElementType, n: usize) -> Vec<i32> {
    let (lo, hi) = zp_range(t);
    (0..n as i64)
        .map(|c| (lo + c * 3 % (hi - lo + 1)) as i32)
        .collect()
}

// ---------------------------------------------------------------------------------------
// Descriptors: owned values with every derived field computed by the sheets' formulas
// ---------------------------------------------------------------------------------------

/// The reader configuration a vector needs (recorded in the manifest).
#[derive(Clone, Debug, Default)]
struct Cfg {
    permissive: bool,
    agree: Vec<(&'static str, u32)>,
    ext: Vec<u64>,
}

impl Cfg {
    fn agree<T: TagSpace>(mut self, raw: u32) -> Cfg {
        self.agree.push((T::NAME, raw));
        self
    }

    fn reader(&self) -> ReaderConfig {
        let mut c = ReaderConfig::new().permissive(self.permissive);
        for (space, raw) in &self.agree {
            c = agree_by_name(c, space, *raw);
        }
        for id in &self.ext {
            c = c.agree_extension_layout(*id);
        }
        c
    }

    fn json(&self) -> (J, J) {
        (
            J::Array(
                self.agree
                    .iter()
                    .map(|(s, v)| json!([s, v]))
                    .collect::<Vec<_>>(),
            ),
            json!(self.ext),
        )
    }
}

fn agree_by_name(c: ReaderConfig, space: &str, raw: u32) -> ReaderConfig {
    macro_rules! spaces {
        ($($t:ty),*) => {
            $(if space == <$t>::NAME { return c.agree::<$t>(raw); })*
        };
    }
    spaces!(
        ElementType,
        Layout,
        Device,
        SyncMode,
        MemoryClass,
        Scheme,
        KvValue,
        CompositionRule,
        CombineOp,
        MemberRole,
        BlockTableIndexType,
        KvRole
    );
    panic!("no tag space `{space}`")
}

/// One tensor: an owned descriptor (buffer table still empty) and its buffers.
#[derive(Clone, Debug)]
struct Tensor {
    name: String,
    d: Descriptor,
    bufs: Vec<Vec<u8>>,
    device: u32,
    memory: u32,
    syncs: Vec<u32>,
    align: u32,
}

fn header(type_tag: u32, layout: &LayoutVariant) -> FixedHeader {
    FixedHeader {
        magic: b"HRRY".to_vec(),
        version_major: 0,
        version_minor: 0,
        descriptor_length: 0,
        flags: DescriptorFlags::empty(),
        type_tag: TagValue::from_raw(type_tag),
        layout_tag: TagValue::from_raw(layout.tag()),
        rank: 0,
    }
}

impl Tensor {
    fn raw(
        name: &str,
        type_tag: u32,
        layout: LayoutVariant,
        shape: &[u64],
        bufs: Vec<Vec<u8>>,
    ) -> Tensor {
        Tensor {
            name: name.to_string(),
            d: Descriptor {
                fixed_header: header(type_tag, &layout),
                shape: shape.to_vec(),
                byte_offset: 0,
                layout_fields: layout,
                buffer_table: BufferTable {
                    buffers: Vec::new(),
                },
                quantization: None,
                shard: None,
                statistics: None,
                extension_type: None,
                composite_member: None,
                skipped: Vec::new(),
            },
            bufs,
            device: Device::Cpu.value(),
            memory: MemoryClass::Standard.value(),
            syncs: vec![SyncMode::ProducerSynced.value()],
            align: 64,
        }
    }

    fn new(
        name: &str,
        t: ElementType,
        layout: LayoutVariant,
        shape: &[u64],
        bufs: Vec<Vec<u8>>,
    ) -> Tensor {
        Tensor::raw(name, t.value(), layout, shape, bufs)
    }

    /// A row-major tensor holding generated data.
    fn dense(name: &str, t: ElementType, shape: &[u64], seed: u64) -> Tensor {
        let n = shape.iter().product::<u64>() as usize;
        Tensor::new(
            name,
            t,
            LayoutVariant::RowMajor,
            shape,
            vec![data(t, n, seed)],
        )
    }

    fn shape(mut self, shape: &[u64]) -> Tensor {
        self.d.shape = shape.to_vec();
        self
    }

    fn offset(mut self, o: u64) -> Tensor {
        self.d.byte_offset = o;
        self
    }

    fn quant(mut self, payload: SchemeVariant, params: Vec<Vec<u8>>) -> Tensor {
        self.d.quantization = Some(QuantizationSection { payload });
        self.bufs.extend(params);
        self
    }

    fn shard(mut self, parent: &[u64], off: &[u64]) -> Tensor {
        self.d.shard = Some(Shard {
            parent_shape: parent.to_vec(),
            shard_offset: off.to_vec(),
        });
        self
    }

    fn member(mut self, role: MemberRole) -> Tensor {
        self.d.composite_member = Some(CompositeMember {
            member_role: role.into(),
        });
        self
    }

    fn stats(mut self, s: Statistics) -> Tensor {
        self.d.statistics = Some(s);
        self
    }

    fn ext(mut self, e: ExtensionType) -> Tensor {
        self.d.extension_type = Some(e);
        self
    }

    fn on(mut self, device: u32, memory: u32, syncs: &[u32], align: u32) -> Tensor {
        self.device = device;
        self.memory = memory;
        self.syncs = syncs.to_vec();
        self.align = align;
        self
    }

    /// The descriptor with its buffer table, flags, rank, versions and length filled in by
    /// the sheets' rules (descriptor.md §1 length identity, §3 flags, §6.2 alignment).
    fn sealed(&self) -> Descriptor {
        let mut d = self.d.clone();
        d.buffer_table.buffers = self
            .bufs
            .iter()
            .enumerate()
            .map(|(i, b)| BufferHandle {
                byte_size: b.len() as u64,
                // BH-3: any power of two for an empty buffer; 1 shows it.
                alignment: if b.is_empty() { 1 } else { self.align },
                device_tag: TagValue::from_raw(self.device),
                sync_mode: TagValue::from_raw(self.syncs[i % self.syncs.len()]),
                memory_class: TagValue::from_raw(self.memory),
            })
            .collect();
        let mut flags = DescriptorFlags::empty();
        for (present, bit) in [
            (d.quantization.is_some(), DescriptorFlags::HAS_QUANTIZATION),
            (d.shard.is_some(), DescriptorFlags::HAS_SHARD),
            (d.statistics.is_some(), DescriptorFlags::HAS_STATISTICS),
            (
                d.extension_type.is_some(),
                DescriptorFlags::HAS_EXTENSION_TYPE,
            ),
            (
                d.composite_member.is_some(),
                DescriptorFlags::HAS_COMPOSITE_MEMBER,
            ),
        ] {
            if present {
                flags = flags.with(bit);
            }
        }
        let v = Axis::Descriptor.initial();
        d.fixed_header.flags = flags;
        d.fixed_header.rank = d.shape.len() as u32;
        d.fixed_header.version_major = v.major;
        d.fixed_header.version_minor = v.minor;
        if let Some(q) = &mut d.quantization {
            let axis = Axis::of_scheme(q.payload.tag()).expect("a scheme axis");
            q.payload.header_mut().expect("a header").scheme_version = axis.initial().minor;
        }
        d.fixed_header.descriptor_length = length_identity(&d);
        d
    }

    /// The descriptor's bytes: `finalize_with` must produce exactly the owned value's
    /// encoding (it would change nothing), and the length identity must hold.
    fn bytes(&self, cfg: &ReaderConfig) -> Vec<u8> {
        let d = self.sealed();
        let b = writer::finalize_with(d.clone(), cfg)
            .unwrap_or_else(|e| panic!("`{}`: the writer refuses: {e}", self.name));
        assert_eq!(
            b,
            d.to_bytes(),
            "`{}`: finalize changed the descriptor",
            self.name
        );
        assert_eq!(
            b.len() as u32,
            d.fixed_header.descriptor_length,
            "`{}`",
            self.name
        );
        b
    }
}

/// layouts.md §1.1 block sizes; §6 for the recursive tiled block.
fn layout_len(l: &LayoutVariant, rank: u64) -> u64 {
    fn tiled(t: &LayoutTiled, rank: u64) -> u64 {
        8 * rank
            + 4
            + t.outer_strides.as_ref().map_or(0, |_| 8 * rank)
            + t.inner_strides.as_ref().map_or(0, |_| 8 * rank)
            + t.nested.as_ref().map_or(0, |n| tiled(n, rank))
    }
    match l {
        LayoutVariant::RowMajor | LayoutVariant::ColumnMajor => 0,
        LayoutVariant::Strided(_) => 8 * rank,
        LayoutVariant::Tiled(t) => tiled(t, rank),
        LayoutVariant::Morton(_) => 4 * rank,
        LayoutVariant::Coo(_) | LayoutVariant::Csr(_) | LayoutVariant::Csc(_) => 16,
        LayoutVariant::Csf(_) => 16 + 4 * rank,
        LayoutVariant::BlockPaged(_) => 32,
        LayoutVariant::Composite(_) | LayoutVariant::Hilbert(_) => 8,
        LayoutVariant::Private(_, x) => 12 + x.extension_data.len() as u64,
    }
}

/// quantization.md §3.1 payload lengths.
fn payload_len(p: &SchemeVariant) -> u64 {
    match p {
        SchemeVariant::PerTensorAffine(_) | SchemeVariant::Nf4(_) | SchemeVariant::Mxfp(_) => 16,
        SchemeVariant::PerChannelAffine(_) => 20,
        SchemeVariant::PerBlockAffine(_) => 24,
        SchemeVariant::Private(_, x) => 4 + x.data.len() as u64,
        SchemeVariant::Opaque(_, b) => b.len() as u64,
    }
}

/// descriptor.md §1: the length identity of a version-1.0 descriptor.
fn length_identity(d: &Descriptor) -> u32 {
    let r = d.shape.len() as u64;
    let len = 20
        + 8 * r
        + 8
        + layout_len(&d.layout_fields, r)
        + 1
        + 16 * d.buffer_table.buffers.len() as u64
        + d.quantization
            .as_ref()
            .map_or(0, |q| 4 + payload_len(&q.payload))
        + d.shard.as_ref().map_or(0, |_| 16 * r)
        + d.statistics.as_ref().map_or(0, |_| 72)
        + d.extension_type.as_ref().map_or(0, |_| 20)
        + d.composite_member.as_ref().map_or(0, |_| 16);
    len as u32
}

// Scheme payload builders (scheme_version is filled in by `sealed`).

fn qh(s: Scheme, flags: u16) -> QuantizationHeader {
    QuantizationHeader {
        scheme_tag: s.into(),
        scheme_version: 0,
        flags,
    }
}

fn per_tensor(scale: f32, zero_point: i32) -> SchemeVariant {
    SchemeVariant::PerTensorAffine(PerTensorAffine {
        header: qh(Scheme::PerTensorAffine, 0),
        scale,
        zero_point,
        skipped: Vec::new(),
    })
}

/// Per-channel affine; `zp = None` is SYMMETRIC.
fn per_channel(axis: u32, scale: u32, zp: Option<u32>) -> SchemeVariant {
    SchemeVariant::PerChannelAffine(PerChannelAffine {
        header: qh(
            Scheme::PerChannelAffine,
            if zp.is_none() {
                PerChannelAffineFlags::SYMMETRIC.0
            } else {
                0
            },
        ),
        axis,
        scale_buffer_index: scale,
        zero_point_buffer_index: zp.unwrap_or(u32::MAX),
        scale_type_tag: ElementType::Float32.into(),
        skipped: Vec::new(),
    })
}

fn per_block(axis: u32, block: u32, scale: u32, zp: Option<u32>, st: ElementType) -> SchemeVariant {
    SchemeVariant::PerBlockAffine(PerBlockAffine {
        header: qh(
            Scheme::PerBlockAffine,
            if zp.is_none() {
                PerBlockAffineFlags::SYMMETRIC.0
            } else {
                0
            },
        ),
        axis,
        block_size: block,
        scale_buffer_index: scale,
        zero_point_buffer_index: zp.unwrap_or(u32::MAX),
        scale_type_tag: st.into(),
        skipped: Vec::new(),
    })
}

fn nf4(axis: u32, block: u32, scale: u32) -> SchemeVariant {
    SchemeVariant::Nf4(Nf4 {
        header: qh(Scheme::Nf4, 0),
        axis,
        block_size: block,
        scale_buffer_index: scale,
        skipped: Vec::new(),
    })
}

fn mxfp(axis: u32, block: u32, scale: u32) -> SchemeVariant {
    SchemeVariant::Mxfp(Mxfp {
        header: qh(Scheme::Mxfp, 0),
        axis,
        block_size: block,
        scale_buffer_index: scale,
        skipped: Vec::new(),
    })
}

fn composite(rule: CompositionRule, op: CombineOp, n: u32) -> LayoutVariant {
    LayoutVariant::Composite(LayoutComposite {
        composition_rule: rule.into(),
        combine_op: op.into(),
        member_count: n,
    })
}

fn head(
    name: &str,
    t: ElementType,
    shape: &[u64],
    rule: CompositionRule,
    op: CombineOp,
    n: u32,
) -> Tensor {
    Tensor::new(name, t, composite(rule, op, n), shape, Vec::new())
}

// ---------------------------------------------------------------------------------------
// Sparse and indirect structures built from coordinates (layouts.md §8–§12)
// ---------------------------------------------------------------------------------------

type Entries = Vec<(Vec<u64>, f64)>;

fn values_of(t: ElementType, vals: &[f64]) -> Vec<u8> {
    match t {
        ElementType::Float32 => f32s(&vals.iter().map(|v| *v as f32).collect::<Vec<_>>()),
        ElementType::Float64 => vals.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ElementType::Float16 => vals
            .iter()
            .flat_map(|v| f16_bits(*v as f32).to_le_bytes())
            .collect(),
        ElementType::Int8 => vals.iter().map(|v| *v as i8 as u8).collect(),
        ElementType::Int32 => i32s(&vals.iter().map(|v| *v as i32).collect::<Vec<_>>()),
        ElementType::Float8E8m0 => vals.iter().map(|v| (v.log2() as i32 + 127) as u8).collect(),
        other => panic!("no value encoding for {}", other.name()),
    }
}

/// COO (§8): values and row-major index tuples in the entries' order.
fn coo(name: &str, t: ElementType, shape: &[u64], e: &Entries, sorted: bool) -> Tensor {
    let vals: Vec<f64> = e.iter().map(|(_, v)| *v).collect();
    let idx: Vec<u64> = e.iter().flat_map(|(c, _)| c.clone()).collect();
    Tensor::new(
        name,
        t,
        LayoutVariant::Coo(LayoutCoo {
            nnz: e.len() as u64,
            is_sorted: u8::from(sorted),
        }),
        shape,
        vec![values_of(t, &vals), u64s(&idx)],
    )
}

/// CSR (`major` 0) or CSC (`major` 1) arrays: (values, minor indices, pointers).
fn compressed(e: &Entries, shape: &[u64], major: usize) -> (Vec<f64>, Vec<u64>, Vec<u64>) {
    let mut s: Vec<(u64, u64, f64)> = e
        .iter()
        .map(|(c, v)| (c[major], c[1 - major], *v))
        .collect();
    s.sort_by_key(|x| (x.0, x.1));
    let mut ptr = vec![0u64];
    for m in 0..shape[major] {
        ptr.push(s.iter().filter(|x| x.0 <= m).count() as u64);
    }
    (
        s.iter().map(|x| x.2).collect(),
        s.iter().map(|x| x.1).collect(),
        ptr,
    )
}

fn csr_like(name: &str, t: ElementType, shape: &[u64], e: &Entries, major: usize) -> Tensor {
    let (vals, ind, ptr) = compressed(e, shape, major);
    let layout = if major == 0 {
        LayoutVariant::Csr(LayoutCsr {
            nnz: e.len() as u64,
        })
    } else {
        LayoutVariant::Csc(LayoutCsc {
            nnz: e.len() as u64,
        })
    };
    Tensor::new(
        name,
        t,
        layout,
        shape,
        vec![values_of(t, &vals), u64s(&ind), u64s(&ptr)],
    )
}

/// CSF (§11): per level L, the unique coordinate prefixes in `mode_order`, children grouped
/// under their parents; leaf values in depth-first order.
fn csf_arrays(e: &Entries, mode_order: &[u32]) -> (Vec<Vec<u64>>, Vec<Vec<u64>>, Vec<f64>) {
    let mut keyed: Vec<(Vec<u64>, f64)> = e
        .iter()
        .map(|(c, v)| (mode_order.iter().map(|m| c[*m as usize]).collect(), *v))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let prefixes = |len: usize| -> Vec<Vec<u64>> {
        let mut p: Vec<Vec<u64>> = keyed.iter().map(|(k, _)| k[..len].to_vec()).collect();
        p.dedup();
        p
    };
    let (mut pos, mut crd) = (Vec::new(), Vec::new());
    for l in 0..mode_order.len() {
        let (parents, nodes) = (prefixes(l), prefixes(l + 1));
        let parents = if keyed.is_empty() && l == 0 {
            vec![vec![]]
        } else {
            parents
        };
        let mut p = vec![0u64];
        let mut c = Vec::new();
        for parent in &parents {
            for n in nodes.iter().filter(|n| n[..l] == parent[..]) {
                c.push(n[l]);
            }
            p.push(c.len() as u64);
        }
        pos.push(p);
        crd.push(c);
    }
    (pos, crd, keyed.iter().map(|(_, v)| *v).collect())
}

fn csf(name: &str, t: ElementType, shape: &[u64], e: &Entries, mode_order: &[u32]) -> Tensor {
    let (pos, crd, vals) = csf_arrays(e, mode_order);
    let mut bufs = vec![values_of(t, &vals)];
    for (p, c) in pos.iter().zip(&crd) {
        bufs.push(u64s(p));
        bufs.push(u64s(c));
    }
    Tensor::new(
        name,
        t,
        LayoutVariant::Csf(LayoutCsf {
            nnz: e.len() as u64,
            mode_order: mode_order.to_vec(),
        }),
        shape,
        bufs,
    )
}

/// Block-paged (§12): sequences of token counts, `pages` = their physical page ids.
#[allow(clippy::too_many_arguments)]
fn paged(
    name: &str,
    t: ElementType,
    page_size: u32,
    num_pages: u64,
    heads: u64,
    head_dim: u64,
    seqs: &[(u64, Vec<u64>)],
    role: KvRole,
    layer: u32,
    index: BlockTableIndexType,
) -> Tensor {
    let tokens: u64 = seqs.iter().map(|s| s.0).sum();
    let mut seq_ptr = vec![0u64];
    let mut table = Vec::new();
    for (n, pages) in seqs {
        assert_eq!(n.div_ceil(u64::from(page_size)), pages.len() as u64);
        table.extend(pages);
        seq_ptr.push(table.len() as u64);
    }
    let enc = |xs: &[u64]| match index {
        BlockTableIndexType::U32 => u32s(xs),
        BlockTableIndexType::U64 => u64s(xs),
    };
    let pool = num_pages * u64::from(page_size) * heads * head_dim;
    Tensor::new(
        name,
        t,
        LayoutVariant::BlockPaged(LayoutBlockPaged {
            page_size,
            num_pages,
            paged_axis: 0,
            num_seqs: seqs.len() as u32,
            kv_role: role.into(),
            layer_index: layer,
            block_table_index_type: index.into(),
        }),
        &[tokens, heads, head_dim],
        vec![data(t, pool as usize, 3), enc(&table), enc(&seq_ptr)],
    )
}

/// layouts.md §17.1's COO example: `[4,4]` f32, sorted.
fn coo_example() -> Entries {
    vec![(vec![0, 1], 1.5), (vec![2, 0], -0.5), (vec![3, 3], 2.0)]
}

/// layouts.md §17.1's CSR/CSC matrix `[4,5]`.
fn csr_example() -> Entries {
    vec![
        (vec![0, 0], 1.0),
        (vec![0, 3], 2.0),
        (vec![1, 2], 3.0),
        (vec![2, 1], 4.0),
        (vec![2, 4], 5.0),
    ]
}

/// layouts.md §17.1's CSF example `[2,3,4]`.
fn csf_example() -> Entries {
    vec![
        (vec![0, 0, 1], 1.0),
        (vec![0, 2, 3], 2.0),
        (vec![1, 1, 0], 3.0),
        (vec![1, 1, 2], 4.0),
    ]
}

/// layouts.md §17.1's block-paged example: f16, page_size 4, 5 pages, 2 heads of 8, two
/// sequences of 6 and 3 tokens sharing page 0, key role, layer 3.
fn paged_example(name: &str, index: BlockTableIndexType, role: KvRole, layer: u32) -> Tensor {
    paged(
        name,
        ElementType::Float16,
        4,
        5,
        2,
        8,
        &[(6, vec![0, 1]), (3, vec![0])],
        role,
        layer,
        index,
    )
}

// ---------------------------------------------------------------------------------------
// Vectors
// ---------------------------------------------------------------------------------------

#[derive(Debug)]
struct FileSpec {
    options: FileOptions,
    first_descriptor_offset: u64,
    tensors: Vec<Tensor>,
    kv: Vec<KvEntry>,
    /// (head, members), pre-order by head.
    composites: Vec<(String, Vec<String>)>,
}

#[derive(Debug)]
enum Body {
    Descriptor(Box<Tensor>),
    File(FileSpec),
}

#[derive(Debug)]
struct Vector {
    name: String,
    description: String,
    cfg: Cfg,
    body: Body,
    /// Expected false: the tensor must not be dereferenced (RES-36).
    dereferenceable: bool,
}

fn dv(name: &str, description: &str, mut t: Tensor) -> Vector {
    t.name = name.to_string();
    Vector {
        name: name.to_string(),
        description: description.to_string(),
        cfg: Cfg::default(),
        body: Body::Descriptor(Box::new(t)),
        dereferenceable: true,
    }
}

fn fv(name: &str, description: &str, spec: FileSpec) -> Vector {
    Vector {
        name: name.to_string(),
        description: description.to_string(),
        cfg: Cfg::default(),
        body: Body::File(spec),
        dereferenceable: true,
    }
}

fn files(tensors: Vec<Tensor>, kv: Vec<KvEntry>, sorted: bool) -> FileSpec {
    FileSpec {
        options: FileOptions {
            data_buffer_alignment: 4096,
            kv: !kv.is_empty(),
            sorted_index: sorted,
            tensor_count_hint: Some(tensors.len() as u64),
            ..FileOptions::default()
        },
        first_descriptor_offset: 64,
        tensors,
        kv,
        composites: Vec::new(),
    }
}

fn with_cfg(mut v: Vector, cfg: Cfg) -> Vector {
    v.cfg = cfg;
    v
}

fn kv(key: &str, value: KvValueVariant) -> KvEntry {
    KvEntry {
        key: key.to_string(),
        value_tag: TagValue::from_raw(value.tag()),
        value,
    }
}

fn kv_str(s: &str) -> KvValueVariant {
    KvValueVariant::String(KvString {
        value: s.to_string(),
    })
}

fn kv_i64(x: i64) -> KvValueVariant {
    KvValueVariant::Int64(KvInt64 { value: x })
}

fn kv_u64(x: u64) -> KvValueVariant {
    KvValueVariant::Uint64(KvUint64 { value: x })
}

fn kv_f64(x: f64) -> KvValueVariant {
    KvValueVariant::Float64(KvFloat64 { value: x })
}

fn kv_bool(x: bool) -> KvValueVariant {
    KvValueVariant::Bool(KvBool { value: u8::from(x) })
}

fn kv_bytes(x: &[u8]) -> KvValueVariant {
    KvValueVariant::Bytes(KvBytes { value: x.to_vec() })
}

fn kv_array(element: KvValue, xs: Vec<KvValueVariant>) -> KvValueVariant {
    assert!(xs.iter().all(|x| x.tag() == element.value()));
    KvValueVariant::Array(KvArray {
        element_tag: element.into(),
        elements: xs,
    })
}

/// The private values this corpus agrees on out of band.
const PRIVATE_TYPE: u32 = 0xF5;
const PRIVATE_TYPE_4BIT: u32 = 0xF6;
const PRIVATE_LAYOUT: u32 = 0xF3;
const PRIVATE_LAYOUT_ID: u64 = 0x4855_5252_4159_0001;
const PRIVATE_DEVICE: u32 = 0xF2;
const PRIVATE_MEMORY: u32 = 0xF1;

fn ext_float16ish() -> ExtensionType {
    ExtensionType {
        bit_width: 16,
        packing_factor: 1,
        is_float: 1,
        is_signed: 0,
        sign_bits: 1,
        exponent_bits: 6,
        mantissa_bits: 9,
        exponent_bias: 31,
        has_nan: 1,
        has_inf: 0,
    }
}

fn ext_int4ish() -> ExtensionType {
    ExtensionType {
        bit_width: 4,
        packing_factor: 2,
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

/// The agreed private float (sign 1, exponent 6 with bias 31, mantissa 9) of a small
/// binary fraction.
fn f1_6_9(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + 31;
    assert!(exp > 0 && exp < 63 && b & 0x3FFF == 0);
    (((b >> 16) & 0x8000) as u16) | ((exp as u16) << 9) | ((b >> 14) & 0x1FF) as u16
}

/// The values a private-type tensor holds (k/2, as every generated float).
fn private_values(n: usize, seed: u64) -> Vec<f64> {
    ks(n, seed).iter().map(|k| *k as f64 * 0.5).collect()
}

fn private_tensor(name: &str, shape: &[u64], seed: u64) -> Tensor {
    let n: u64 = shape.iter().product();
    let bytes = private_values(n as usize, seed)
        .iter()
        .flat_map(|v| f1_6_9(*v as f32).to_le_bytes())
        .collect();
    Tensor::raw(
        name,
        PRIVATE_TYPE,
        LayoutVariant::RowMajor,
        shape,
        vec![bytes],
    )
    .ext(ext_float16ish())
}

/// Statistics of `vals` with every computed_mask bit set (descriptor.md §7.3).
fn full_stats(vals: &[f64], nm: (u8, u8)) -> Statistics {
    let n = vals.len() as f64;
    let nnz = vals.iter().filter(|v| **v != 0.0).count() as u64;
    let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = vals.iter().sum::<f64>() / n;
    let var = vals.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let mut mask = ComputedMask::empty();
    for bit in 0..32 {
        if ComputedMask::ALLOCATED & (1 << bit) != 0 {
            mask = mask.with(ComputedMask(1 << bit));
        }
    }
    Statistics {
        computed_mask: mask,
        nnz,
        sparsity_ratio: (n - nnz as f64) / n,
        value_min: min,
        value_max: max,
        value_abs_max: min.abs().max(max.abs()),
        value_mean: mean,
        value_stddev: var.sqrt(),
        nm_n: nm.0,
        nm_m: nm.1,
        has_nan: 0,
        has_inf: 0,
    }
}

/// A per-channel asymmetric int8 `[3,4]` tensor on axis 0: three buffers, so a device can
/// show all three sync modes at once.
fn three_buffers(name: &str) -> Tensor {
    Tensor::dense(name, ElementType::Int8, &[3, 4], 1).quant(
        per_channel(0, 1, Some(2)),
        vec![
            f32s(&[0.5, 0.25, 2.0]),
            i32s(&zero_points(ElementType::Int8, 3)),
        ],
    )
}

/// Per-block affine scale types the reader accepts (an oracle over every element type,
/// sized by its own width), so the corpus can cover them without a list.
fn per_block_scale_types() -> Vec<ElementType> {
    ElementType::ALL
        .iter()
        .copied()
        .filter(|t| {
            let w = (t.bits() / 8).max(1) as usize;
            let d = Tensor::dense("oracle", ElementType::Int8, &[2, 8], 0)
                .quant(per_block(1, 4, 1, None, *t), vec![vec![0x3C; 4 * w]])
                .sealed();
            writer::finalize(d).is_ok()
        })
        .collect()
}

fn descriptor_vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    let f32t = ElementType::Float32;

    // descriptor.md §10: the 61-byte float32 [3,4] example with byte_size 192.
    let mut ex = f32s(&(0..12).map(|i| i as f32).collect::<Vec<_>>());
    ex.resize(192, 0);
    out.push(dv(
        "example-descriptor-md-10",
        "descriptor.md §10 worked example: float32 [3,4] row-major, one 192-byte CPU buffer (61 bytes)",
        Tensor::new("t", f32t, LayoutVariant::RowMajor, &[3, 4], vec![ex]),
    ));

    // quantization.md §4.2: the per-channel example payload (int8 [768,1024], axis 0,
    // asymmetric, scales in buffer 1 and zero points in buffer 2, 3072 bytes each).
    out.push(dv(
        "example-quantization-md-4-2",
        "quantization.md §4.2 worked example: per-channel asymmetric int8 [768,1024] axis 0, 786432-byte data, 3072-byte scale and zero-point buffers",
        Tensor::dense("t", ElementType::Int8, &[768, 1024], 2).quant(
            per_channel(0, 1, Some(2)),
            vec![
                f32s(&(0..768).map(|c| (c % 8 + 1) as f32 / 64.0).collect::<Vec<_>>()),
                i32s(&zero_points(ElementType::Int8, 768)),
            ],
        ),
    ));

    // One vector per element type: [3,5] row-major, exactly sized (packed: partial bytes).
    for t in ElementType::ALL {
        out.push(dv(
            &format!("type-{}", kebab(t.name())),
            &format!(
                "{} [3,5] row-major, {} data bytes (descriptor.md §8.5)",
                t.name(),
                elem_bytes(*t, 15)
            ),
            Tensor::dense("t", *t, &[3, 5], u64::from(t.value())),
        ));
    }

    // Scalars and empty tensors.
    out.push(dv(
        "scalar-float32",
        "rank-0 float32 scalar, 4 bytes",
        Tensor::dense("t", f32t, &[], 1),
    ));
    out.push(dv(
        "scalar-bool",
        "rank-0 bool scalar: one partial byte",
        Tensor::dense("t", ElementType::Bool, &[], 2),
    ));
    out.push(dv(
        "scalar-float6-e3m2",
        "rank-0 float6_e3m2 scalar: one padded 3-byte group (RES-10)",
        Tensor::dense("t", ElementType::Float6E3m2, &[], 3),
    ));
    out.push(dv(
        "empty-float32-0x4",
        "empty float32 [0,4]: one zero-size buffer, alignment 1 (BH-3)",
        Tensor::dense("t", f32t, &[0, 4], 0),
    ));
    out.push(dv(
        "empty-int4-5x0x3",
        "empty int4 [5,0,3] row-major",
        Tensor::dense("t", ElementType::Int4, &[5, 0, 3], 0),
    ));
    let mut dynamic = dv(
        "dynamic-dimension",
        "float32 [dynamic, 4]: the shape carries the sentinel; accepted, not dereferenceable (RES-36)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::RowMajor,
            &[DYNAMIC, 4],
            vec![Vec::new()],
        ),
    );
    dynamic.dereferenceable = false;
    out.push(dynamic);

    // Dense layouts.
    out.push(dv(
        "layout-column-major",
        "float64 [3,4] column-major",
        Tensor::new(
            "t",
            ElementType::Float64,
            LayoutVariant::ColumnMajor,
            &[3, 4],
            vec![data(ElementType::Float64, 12, 4)],
        ),
    ));
    out.push(dv(
        "layout-strided-negative",
        "float32 [3,4] strides [-4,1] (layouts.md §17.1), byte_offset 32 addresses [0,0]; footprint 12 elements",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Strided(LayoutStrided { strides: vec![-4, 1] }),
            &[3, 4],
            vec![data(f32t, 12, 5)],
        )
        .offset(32),
    ));
    out.push(dv(
        "layout-strided-zero",
        "float32 [3,4] strides [0,1]: a broadcast axis over a 4-element buffer",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Strided(LayoutStrided {
                strides: vec![0, 1],
            }),
            &[3, 4],
            vec![data(f32t, 4, 6)],
        ),
    ));
    out.push(dv(
        "layout-strided-mixed",
        "int16 [2,3,4] strides [-1,0,2]: negative, zero and gapped axes, byte_offset 2",
        Tensor::new(
            "t",
            ElementType::Int16,
            LayoutVariant::Strided(LayoutStrided {
                strides: vec![-1, 0, 2],
            }),
            &[2, 3, 4],
            vec![data(ElementType::Int16, 8, 7)],
        )
        .offset(2),
    ));
    out.push(dv(
        "layout-strided-uint4-reversed",
        "uint4 [8] stride -1: sub-byte strides are in elements, byte_offset 4, 5-byte footprint",
        Tensor::new(
            "t",
            ElementType::Uint4,
            LayoutVariant::Strided(LayoutStrided { strides: vec![-1] }),
            &[8],
            vec![data(ElementType::Uint4, 10, 8)],
        )
        .offset(4),
    ));
    let tiled = |tile: &[u64],
                 outer: u8,
                 inner: u8,
                 os: Option<Vec<i64>>,
                 is: Option<Vec<i64>>,
                 nested: Option<LayoutTiled>| LayoutTiled {
        tile_shape: tile.to_vec(),
        outer_layout: outer,
        inner_layout: inner,
        outer_strides: os,
        inner_strides: is,
        nested: nested.map(Box::new),
    };
    out.push(dv(
        "layout-tiled-flat",
        "float32 [6,8] tiles [2,4], row-major grid and tiles (layouts.md §17.1)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Tiled(tiled(&[2, 4], 1, 1, None, None, None)),
            &[6, 8],
            vec![data(f32t, 48, 9)],
        ),
    ));
    out.push(dv(
        "layout-tiled-padded",
        "uint8 [5,7] tiles [2,4]: boundary tiles stored whole, 6 tiles x 8 elements (TL-7)",
        Tensor::new(
            "t",
            ElementType::Uint8,
            LayoutVariant::Tiled(tiled(&[2, 4], 1, 1, None, None, None)),
            &[5, 7],
            vec![data(ElementType::Uint8, 48, 10)],
        ),
    ));
    out.push(dv(
        "layout-tiled-column-major",
        "float16 [6,8] tiles [3,4], column-major grid and tiles",
        Tensor::new(
            "t",
            ElementType::Float16,
            LayoutVariant::Tiled(tiled(&[3, 4], 2, 2, None, None, None)),
            &[6, 8],
            vec![data(ElementType::Float16, 48, 11)],
        ),
    ));
    out.push(dv(
        "layout-tiled-strided",
        "float32 [6,8] tiles [2,4], strided grid [1,3] (tiles) and strided tiles [1,2] (elements)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Tiled(tiled(
                &[2, 4],
                3,
                3,
                Some(vec![1, 3]),
                Some(vec![1, 2]),
                None,
            )),
            &[6, 8],
            vec![data(f32t, 48, 12)],
        ),
    ));
    out.push(dv(
        "layout-tiled-recursive-2",
        "int8 [8,8] tiles [4,4] whose tiles are tiled [2,2] (inner_layout 4, 2 levels)",
        Tensor::new(
            "t",
            ElementType::Int8,
            LayoutVariant::Tiled(tiled(
                &[4, 4],
                1,
                4,
                None,
                None,
                Some(tiled(&[2, 2], 1, 1, None, None, None)),
            )),
            &[8, 8],
            vec![data(ElementType::Int8, 64, 13)],
        ),
    ));
    out.push(dv(
        "layout-tiled-recursive-3",
        "uint16 [16,16]: tiles [8,8] -> [4,4] column-major grid -> [2,2] strided grid and tiles (3 levels)",
        Tensor::new(
            "t",
            ElementType::Uint16,
            LayoutVariant::Tiled(tiled(
                &[8, 8],
                1,
                4,
                None,
                None,
                Some(tiled(&[4, 4], 2, 4, None, None, Some(tiled(&[2, 2], 3, 3, Some(vec![1, 2]), Some(vec![2, 1]), None)))),
            )),
            &[16, 16],
            vec![data(ElementType::Uint16, 256, 14)],
        ),
    ));
    out.push(dv(
        "layout-morton-4x4",
        "float32 [4,4] Morton bits [2,2] (layouts.md §17.1)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Morton(LayoutMorton {
                morton_bits: vec![2, 2],
            }),
            &[4, 4],
            vec![data(f32t, 16, 15)],
        ),
    ));
    out.push(dv(
        "layout-morton-padded",
        "int8 [3,4,2] Morton bits [2,2,2]: 64-element buffer with padding codes",
        Tensor::new(
            "t",
            ElementType::Int8,
            LayoutVariant::Morton(LayoutMorton {
                morton_bits: vec![2, 2, 2],
            }),
            &[3, 4, 2],
            vec![data(ElementType::Int8, 64, 16)],
        ),
    ));
    out.push(dv(
        "layout-hilbert-4x4",
        "float32 [4,4] Hilbert order 2 rank 2 (layouts.md §17.1)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Hilbert(LayoutHilbert {
                hilbert_order: 2,
                hilbert_rank: 2,
            }),
            &[4, 4],
            vec![data(f32t, 16, 17)],
        ),
    ));
    out.push(dv(
        "layout-hilbert-2x2x2",
        "uint8 [2,2,2] Hilbert order 1 rank 3",
        Tensor::new(
            "t",
            ElementType::Uint8,
            LayoutVariant::Hilbert(LayoutHilbert {
                hilbert_order: 1,
                hilbert_rank: 3,
            }),
            &[2, 2, 2],
            vec![data(ElementType::Uint8, 8, 18)],
        ),
    ));

    // Sparse and indirect layouts.
    out.push(dv(
        "layout-coo-sorted",
        "COO float32 [4,4] nnz 3 sorted: layouts.md §17.1's example",
        coo("t", f32t, &[4, 4], &coo_example(), true),
    ));
    out.push(dv(
        "layout-coo-unsorted",
        "COO int32 [3,4,5] nnz 4, tuples in no order",
        coo(
            "t",
            ElementType::Int32,
            &[3, 4, 5],
            &unsorted_entries(),
            false,
        ),
    ));
    out.push(dv(
        "layout-coo-empty",
        "COO float64 [10] nnz 0: both buffers empty",
        coo("t", ElementType::Float64, &[10], &Vec::new(), true),
    ));
    out.push(dv(
        "layout-csr",
        "CSR float32 [4,5] nnz 5: layouts.md §17.1's matrix (empty last row)",
        csr_like("t", f32t, &[4, 5], &csr_example(), 0),
    ));
    out.push(dv(
        "layout-csc",
        "CSC float32 [4,5] nnz 5: the same matrix column-compressed",
        csr_like("t", f32t, &[4, 5], &csr_example(), 1),
    ));
    out.push(dv(
        "layout-csf",
        "CSF float32 [2,3,4] nnz 4, identity mode order: layouts.md §17.1's example (7 buffers)",
        csf("t", f32t, &[2, 3, 4], &csf_example(), &[0, 1, 2]),
    ));
    out.push(dv(
        "layout-csf-mode-order",
        "CSF float64 [2,3,4] nnz 4 with mode_order [2,0,1] (CF-6)",
        csf(
            "t",
            ElementType::Float64,
            &[2, 3, 4],
            &csf_example(),
            &[2, 0, 1],
        ),
    ));
    out.push(dv(
        "layout-csf-empty",
        "CSF int8 [2,2,2,2] nnz 0: pos_0 [0,0], deeper pos [0], no coordinates (CF-12)",
        csf(
            "t",
            ElementType::Int8,
            &[2, 2, 2, 2],
            &Vec::new(),
            &[0, 1, 2, 3],
        ),
    ));
    out.push(dv(
        "layout-block-paged-key-u32",
        "block-paged f16 [9,2,8]: layouts.md §17.1's example (page_size 4, 5 pages, page 0 shared, key role, layer 3, u32 index)",
        paged_example("t", BlockTableIndexType::U32, KvRole::Key, 3),
    ));
    out.push(dv(
        "layout-block-paged-value-u64",
        "block-paged f16 [9,2,8], value role, u64 block table, layer 0",
        paged_example("t", BlockTableIndexType::U64, KvRole::Value, 0),
    ));
    out.push(dv(
        "layout-block-paged-fused-empty-batch",
        "block-paged bfloat16 [0,4,4]: fused role, not layer-scoped, no sequences and no pages (seq_ptr [0], empty pool)",
        paged("t", ElementType::Bfloat16, 2, 0, 4, 4, &[], KvRole::Fused, u32::MAX, BlockTableIndexType::U32),
    ));
    out.push(dv(
        "layout-composite-partition",
        "composite head float32 [4,6]: partition of 3 members, no buffers",
        head(
            "t",
            f32t,
            &[4, 6],
            CompositionRule::Partition,
            CombineOp::None,
            3,
        ),
    ));
    out.push(dv(
        "layout-composite-overlay-replace",
        "composite head float32 [4,4]: overlay, combine replace, 3 members",
        head(
            "t",
            f32t,
            &[4, 4],
            CompositionRule::Overlay,
            CombineOp::Replace,
            3,
        ),
    ));
    out.push(dv(
        "layout-composite-overlay-add",
        "composite head bfloat16 [2,3]: overlay, combine add, 2 members",
        head(
            "t",
            ElementType::Bfloat16,
            &[2, 3],
            CompositionRule::Overlay,
            CombineOp::Add,
            2,
        ),
    ));
    out.push(dv(
        "layout-composite-group",
        "composite head int64 [1] (advisory): group of 3 members",
        head(
            "t",
            ElementType::Int64,
            &[1],
            CompositionRule::Group,
            CombineOp::None,
            3,
        ),
    ));
    out.push(with_cfg(
        dv(
            "layout-extension-private",
            "private extension layout 0xF3 with an agreed extension_layout_id and 5 opaque bytes",
            Tensor::raw(
                "t",
                ElementType::Uint8.value(),
                LayoutVariant::Private(
                    PRIVATE_LAYOUT,
                    LayoutExtension {
                        extension_layout_id: PRIVATE_LAYOUT_ID,
                        extension_data: vec![1, 2, 3, 4, 5],
                    },
                ),
                &[2, 8],
                vec![data(ElementType::Uint8, 16, 19)],
            ),
        ),
        Cfg {
            ext: vec![PRIVATE_LAYOUT_ID],
            ..Cfg::default()
        }
        .agree::<Layout>(PRIVATE_LAYOUT),
    ));

    // Devices, memory classes, sync modes: every pair of descriptor.md §6.5's table, three
    // buffers each so every non-CPU device shows all sync modes (BH-9: CPU is producer-synced).
    for dev in Device::ALL {
        for mem in dev.memory_classes() {
            let m = MemoryClass::from_name(mem).expect("a memory class");
            let (syncs, align): (Vec<u32>, u32) = if *dev == Device::Cpu {
                (vec![SyncMode::ProducerSynced.value()], 64)
            } else {
                (SyncMode::ALL.iter().map(|s| s.value()).collect(), 4096)
            };
            out.push(dv(
                &format!("device-{}-{}", kebab(dev.name()), kebab(mem)),
                &format!(
                    "{} buffers in {} memory, sync modes {:?}",
                    dev.name(),
                    mem,
                    syncs
                        .iter()
                        .map(|s| SyncMode::lookup(*s).unwrap().name())
                        .collect::<Vec<_>>()
                ),
                three_buffers("t").on(dev.value(), m.value(), &syncs, align),
            ));
        }
    }
    for mem in Device::PRIVATE_MEMORY_CLASSES {
        let m = match MemoryClass::from_name(mem) {
            Some(m) => m.value(),
            None => PRIVATE_MEMORY,
        };
        let mut cfg = Cfg::default().agree::<Device>(PRIVATE_DEVICE);
        if m == PRIVATE_MEMORY {
            cfg = cfg.agree::<MemoryClass>(PRIVATE_MEMORY);
        }
        out.push(with_cfg(
            dv(
                &format!("device-private-{mem}"),
                &format!("agreed private device {PRIVATE_DEVICE:#04x} with {mem} memory class {m:#04x}, all sync modes"),
                three_buffers("t").on(PRIVATE_DEVICE, m, &SyncMode::ALL.iter().map(|s| s.value()).collect::<Vec<_>>(), 4096),
            ),
            cfg,
        ));
    }

    out.extend(edge_vectors());
    out.extend(quantization_vectors());

    // Optional sections.
    out.push(dv(
        "section-shard",
        "float32 [2,4] shard at [2,0] of a [6,4] parent",
        Tensor::dense("t", f32t, &[2, 4], 20).shard(&[6, 4], &[2, 0]),
    ));
    // Rows [0, 1.5], [0, -2], [0, 3]: one non-zero in every group of 2 along the last axis.
    let vals = [0.0, 1.5, 0.0, -2.0, 0.0, 3.0];
    out.push(dv(
        "section-statistics",
        "float32 [3,2] with every computed_mask bit: nnz 3, 1:2 sparsity, range, mean, stddev, no NaN/Inf",
        Tensor::new("t", f32t, LayoutVariant::RowMajor, &[3, 2], vec![values_of(f32t, &vals)])
            .stats(full_stats(&vals, (1, 2))),
    ));
    // Statistics describe the whole tensor, implicit zeros included.
    let mut dense = vec![0.0; 16];
    for (c, v) in coo_example() {
        dense[(c[0] * 4 + c[1]) as usize] = v;
    }
    out.push(dv(
        "section-statistics-coo",
        "COO [4,4] with statistics over all 16 elements: nnz 3 equals the layout's (CO-9), sparsity 13/16",
        coo("t", f32t, &[4, 4], &coo_example(), true).stats(full_stats(&dense, (0, 0))),
    ));
    out.push(with_cfg(
        dv(
            "section-extension-type",
            "agreed private type 0xF5: 16-bit float 1-6-9 bias 31 in an extension type section",
            private_tensor("t", &[2, 3], 26),
        ),
        Cfg::default().agree::<ElementType>(PRIVATE_TYPE),
    ));
    out.push(with_cfg(
        dv(
            "section-extension-type-packed",
            "agreed private type 0xF6: signed 4-bit integer, packing factor 2, 5 elements in 3 bytes",
            Tensor::raw("t", PRIVATE_TYPE_4BIT, LayoutVariant::RowMajor, &[5], vec![data(ElementType::Int4, 5, 21)]).ext(ext_int4ish()),
        ),
        Cfg::default().agree::<ElementType>(PRIVATE_TYPE_4BIT),
    ));
    out.push(dv(
        "section-composite-member-base",
        "overlay base member: float32 [4,4], shard at the origin of [4,4], composite member role base",
        Tensor::dense("t", f32t, &[4, 4], 22).shard(&[4, 4], &[0, 0]).member(MemberRole::Base),
    ));
    out.push(dv(
        "section-composite-member-correction",
        "overlay correction member: float32 [2,2] shard at [1,1] of [4,4], role correction",
        Tensor::dense("t", f32t, &[2, 2], 23)
            .shard(&[4, 4], &[1, 1])
            .member(MemberRole::Correction),
    ));
    let all_vals = private_values(8, 24);
    out.push(with_cfg(
        dv(
            "section-all-but-quantization",
            "private type 0xF5 [2,4] with shard, statistics, extension type and composite member sections (wire order: statistics before extension type)",
            private_tensor("t", &[2, 4], 24)
                .shard(&[4, 4], &[2, 0])
                .stats(full_stats(&all_vals, (0, 0)))
                .member(MemberRole::Correction),
        ),
        Cfg::default().agree::<ElementType>(PRIVATE_TYPE),
    ));
    out.push(dv(
        "section-all-with-quantization",
        "int8 [2,4] per-tensor quantized, with shard, statistics and composite member sections",
        Tensor::dense("t", ElementType::Int8, &[2, 4], 25)
            .quant(per_tensor(0.125, -3), Vec::new())
            .shard(&[4, 4], &[0, 0])
            .stats(full_stats(
                // Dequantized: 0.125 × (q − (−3)) of the generated codes.
                &ks(8, 25)
                    .iter()
                    .map(|q| 0.125 * (*q as f64 + 3.0))
                    .collect::<Vec<_>>(),
                (0, 0),
            ))
            .member(MemberRole::Base),
    ));
    out
}

/// Limits and corner cases the sheets state: rank 64, the tiled nesting limit, empty tensors
/// under footprint formulas, huge dimensions, private types of every width class.
fn edge_vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    let f32t = ElementType::Float32;
    out.push(dv(
        "edge-rank-64",
        "float32 of rank 64 (the maximum, SHP-1), every dimension 1: one element",
        Tensor::dense("t", f32t, &[1; 64], 1),
    ));
    out.push(dv(
        "edge-strided-rank-64",
        "int8 strided, rank 64, shape 2 on every axis, stride 0 on every axis but the last (1)",
        Tensor::new(
            "t",
            ElementType::Int8,
            LayoutVariant::Strided(LayoutStrided {
                strides: (0..64).map(|k| i64::from(k == 63)).collect(),
            }),
            &[2; 64],
            vec![data(ElementType::Int8, 2, 2)],
        ),
    ));
    out.push(dv(
        "edge-empty-huge-dimension",
        "float32 [0xFFFF_FFFF_FFFF_FFFE, 0]: the largest static size beside a zero dimension is empty",
        Tensor::dense("t", f32t, &[0, 0], 0).shape(&[u64::MAX - 1, 0]),
    ));
    out.push(dv(
        "edge-row-major-offset",
        "float32 [2] viewing bytes 8..16 of a 16-byte buffer (byte_offset 8 ≤ byte_size, OFS-1)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::RowMajor,
            &[2],
            vec![data(f32t, 4, 3)],
        )
        .offset(8),
    ));
    out.push(dv(
        "edge-empty-strided",
        "empty strided float32 [0,4] strides [4,1]: no elements, no footprint, empty buffer (RES-26)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Strided(LayoutStrided { strides: vec![4, 1] }),
            &[0, 4],
            vec![Vec::new()],
        ),
    ));
    out.push(dv(
        "edge-empty-morton",
        "empty Morton float32 [0,4] bits [2,2]: an empty tensor's buffer is empty (layouts.md §2.5)",
        Tensor::new(
            "t",
            f32t,
            LayoutVariant::Morton(LayoutMorton { morton_bits: vec![2, 2] }),
            &[0, 4],
            vec![Vec::new()],
        ),
    ));
    out.push(dv(
        "edge-csr-no-rows",
        "CSR float32 [0,5] nnz 0: row_ptr is the single entry [0]",
        csr_like("t", f32t, &[0, 5], &Vec::new(), 0),
    ));
    out.push(dv(
        "edge-scalar-quantized",
        "rank-0 int8 scalar, per-tensor affine",
        Tensor::dense("t", ElementType::Int8, &[], 4).quant(per_tensor(2.5, 7), Vec::new()),
    ));
    let mut tile = LayoutTiled {
        tile_shape: vec![1],
        outer_layout: 1,
        inner_layout: 1,
        outer_strides: None,
        inner_strides: None,
        nested: None,
    };
    for k in 1..8 {
        tile = LayoutTiled {
            tile_shape: vec![1 << k],
            outer_layout: 1,
            inner_layout: 4,
            outer_strides: None,
            inner_strides: None,
            nested: Some(Box::new(tile)),
        };
    }
    out.push(dv(
        "edge-tiled-depth-8",
        "uint8 [256] tiled 8 levels deep (tiles 128, 64, …, 1): the nesting limit, outermost counted (RES-27)",
        Tensor::new("t", ElementType::Uint8, LayoutVariant::Tiled(tile), &[256], vec![data(ElementType::Uint8, 256, 5)]),
    ));
    out.push(dv(
        "edge-composite-group-no-members",
        "group head with member_count 0: syntactically valid (layouts.md §16.1)",
        head("t", f32t, &[1], CompositionRule::Group, CombineOp::None, 0),
    ));
    let mut st = full_stats(&[], (0, 0));
    // RES-35: an empty tensor leaves SPARSITY_VALID clear; nothing else is known either
    // but the count (and no NaN, no Inf).
    st.computed_mask = ComputedMask::NNZ_VALID.with(ComputedMask::NAN_INF_VALID);
    st.sparsity_ratio = 0.0;
    st.value_min = 0.0;
    st.value_max = 0.0;
    st.value_abs_max = 0.0;
    st.value_mean = 0.0;
    st.value_stddev = 0.0;
    out.push(dv(
        "edge-statistics-empty",
        "empty float32 [0,2] with statistics: nnz 0, no NaN/Inf, SPARSITY_VALID clear (RES-35)",
        Tensor::dense("t", f32t, &[0, 2], 0).stats(st),
    ));
    for (tag, e, what) in [
        (
            0xF7,
            ext_int(1, false),
            "1-bit unsigned integer, packing factor 8",
        ),
        (
            0xF8,
            ext_int(2, true),
            "2-bit signed integer, packing factor 4",
        ),
        (
            0xF9,
            ext_int(32, false),
            "32-bit unsigned integer, packing factor 1",
        ),
    ] {
        let n = 11u64;
        let bytes = if e.bit_width >= 8 {
            n * u64::from(e.bit_width / 8)
        } else {
            n.div_ceil(u64::from(e.packing_factor))
        };
        out.push(with_cfg(
            dv(
                &format!("edge-extension-type-{tag:#04x}"),
                &format!(
                    "agreed private type {tag:#04x}: {what}, 11 elements in {bytes} bytes (EXT-8)"
                ),
                Tensor::raw(
                    "t",
                    tag,
                    LayoutVariant::RowMajor,
                    &[11],
                    vec![vec![0; bytes as usize]],
                )
                .ext(e),
            ),
            Cfg::default().agree::<ElementType>(tag),
        ));
    }
    out
}

fn ext_int(bits: u32, signed: bool) -> ExtensionType {
    ExtensionType {
        bit_width: bits,
        packing_factor: if bits >= 8 { 1 } else { (8 / bits) as u8 },
        is_float: 0,
        is_signed: u8::from(signed),
        sign_bits: 0,
        exponent_bits: 0,
        mantissa_bits: 0,
        exponent_bias: 0,
        has_nan: 0,
        has_inf: 0,
    }
}

fn unsorted_entries() -> Entries {
    vec![
        (vec![2, 3, 4], 7.0),
        (vec![0, 1, 2], -3.0),
        (vec![1, 0, 0], 5.0),
        (vec![0, 1, 1], 2.0),
    ]
}

fn quantization_vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    let i8t = ElementType::Int8;
    // Per-tensor affine: every storage type, zero point at an edge of its range.
    for (i, t) in Scheme::PerTensorAffine.storage().iter().enumerate() {
        let (lo, hi) = zp_range(*t);
        let zp = if i % 2 == 0 { lo } else { hi } as i32;
        out.push(dv(
            &format!("quant-per-tensor-{}", kebab(t.name())),
            &format!("per-tensor affine over {} [4,6], scale 0.0625, zero point {zp} (edge of §3.3's range)", t.name()),
            Tensor::dense("t", *t, &[4, 6], 30 + i as u64).quant(per_tensor(0.0625, zp), Vec::new()),
        ));
    }
    // Per-channel affine: every storage type, symmetric and asymmetric, axis 0 and 1.
    for (i, et) in Scheme::PerChannelAffine
        .storage()
        .iter()
        .copied()
        .enumerate()
    {
        let axis = (i % 2) as u32;
        let shape = [3u64, 8];
        let c = shape[axis as usize] as usize;
        let sc = f32s(&(0..c).map(|k| 0.5 + k as f32).collect::<Vec<_>>());
        let base = Tensor::dense("t", et, &shape, 40 + i as u64);
        let (tensor, kind) = if (i / 2) % 2 == 0 {
            (
                base.quant(per_channel(axis, 1, None), vec![sc]),
                "symmetric",
            )
        } else {
            let zp = i32s(&zero_points(et, c));
            (
                base.quant(per_channel(axis, 1, Some(2)), vec![sc, zp]),
                "asymmetric",
            )
        };
        out.push(dv(
            &format!("quant-per-channel-{}", kebab(et.name())),
            &format!(
                "per-channel affine {kind} over {} [3,8] axis {axis}",
                et.name()
            ),
            tensor,
        ));
    }
    let shared = |t: Tensor, zp_t: ElementType, c: usize, scale: Vec<u8>| {
        let mut b = scale;
        b.extend(i32s(&zero_points(zp_t, c)));
        (t, b)
    };
    let (t, b) = shared(
        Tensor::dense("t", i8t, &[4, 3], 50),
        i8t,
        4,
        f32s(&[1.0, 0.5, 0.25, 0.125]),
    );
    out.push(dv(
        "quant-per-channel-shared-buffer",
        "per-channel asymmetric int8 [4,3] axis 0: scales and zero points share buffer 1 end to end (RES-37)",
        t.quant(per_channel(0, 1, Some(1)), vec![b]),
    ));
    // Per-block affine: every storage type, the accepted scale types in turn.
    let scale_types = per_block_scale_types();
    for (i, t) in Scheme::PerBlockAffine.storage().iter().enumerate() {
        let st = scale_types[i % scale_types.len()];
        let symmetric = (i / 2) % 2 == 1;
        // [2,16] axis 1 block 8: 4 blocks.
        let base = Tensor::dense("t", *t, &[2, 16], 60 + i as u64);
        let tensor = if symmetric {
            base.quant(per_block(1, 8, 1, None, st), vec![scales(st, 4)])
        } else {
            base.quant(
                per_block(1, 8, 1, Some(2), st),
                vec![scales(st, 4), i32s(&zero_points(*t, 4))],
            )
        };
        out.push(dv(
            &format!("quant-per-block-{}", kebab(t.name())),
            &format!(
                "per-block affine {} over {} [2,16] axis 1 block 8, {} scales",
                if symmetric { "symmetric" } else { "asymmetric" },
                t.name(),
                st.name()
            ),
            tensor,
        ));
    }
    for st in &scale_types {
        out.push(dv(
            &format!("quant-per-block-scale-{}", kebab(st.name())),
            &format!(
                "per-block affine symmetric uint8 [16,2] axis 0 block 4 with {} scales",
                st.name()
            ),
            Tensor::dense("t", ElementType::Uint8, &[16, 2], 70)
                .quant(per_block(0, 4, 1, None, *st), vec![scales(*st, 8)]),
        ));
    }
    // Partial trailing block: [3,10] axis 1 block 4 -> ceil(10/4) = 3 blocks per row, data
    // padded to [3,12] (RES-38), unused slots zero.
    let mut padded = Vec::new();
    for row in 0..3 {
        let mut r = data(i8t, 10, 71 + row);
        r.resize(12, 0);
        padded.extend(r);
    }
    out.push(dv(
        "quant-per-block-partial-trailing-block",
        "per-block affine asymmetric int8 [3,10] axis 1 block 4: partial last block, 9 f32 scales, data padded to [3,12]",
        Tensor::new("t", i8t, LayoutVariant::RowMajor, &[3, 10], vec![padded]).quant(
            per_block(1, 4, 1, Some(2), ElementType::Float32),
            vec![scales(ElementType::Float32, 9), i32s(&zero_points(i8t, 9))],
        ),
    ));
    let (t, b) = shared(
        Tensor::dense("t", ElementType::Uint4, &[2, 8], 72),
        ElementType::Uint4,
        4,
        scales(ElementType::Float16, 4),
    );
    out.push(dv(
        "quant-per-block-shared-buffer",
        "per-block affine asymmetric uint4 [2,8] block 4: float16 scales then zero points in one buffer (RES-37)",
        t.quant(per_block(1, 4, 1, Some(1), ElementType::Float16), vec![b]),
    ));
    out.push(dv(
        "quant-per-block-empty-axis",
        "per-block affine int8 [0,8] on the empty axis 0: no blocks, zero-size scale and zero-point buffers",
        Tensor::dense("t", i8t, &[0, 8], 0).quant(per_block(0, 2, 1, Some(2), ElementType::Float32), vec![Vec::new(), Vec::new()]),
    ));
    // NF4.
    out.push(dv(
        "quant-nf4",
        "NF4 uint4 [4,64] axis 1 block 64: 4 absmax scales, one of them zero (allowed for NF4)",
        Tensor::dense("t", ElementType::Uint4, &[4, 64], 73)
            .quant(nf4(1, 64, 1), vec![f32s(&[1.0, 0.0, 0.5, 3.25])]),
    ));
    let mut padded = Vec::new();
    for row in 0..2 {
        let mut codes: Vec<u8> = ks(20, 74 + row).iter().map(|k| (*k as u8) & 0xF).collect();
        codes.resize(24, 0);
        padded.extend(codes);
    }
    out.push(dv(
        "quant-nf4-partial-block",
        "NF4 uint4 [2,20] axis 1 block 8: 3 blocks per row, the last one partial; data padded to [2,24]",
        Tensor::new("t", ElementType::Uint4, LayoutVariant::RowMajor, &[2, 20], vec![pack(4, &padded)])
            .quant(nf4(1, 8, 1), vec![f32s(&[0.5, 1.0, 1.5, 2.0, 2.5, 3.0])]),
    ));
    // MXFP: every storage type; scale bytes span 0x01..=0xFE.
    for (i, t) in Scheme::Mxfp.storage().iter().enumerate() {
        let block = [16u32, 32, 64][i % 3];
        let blocks = 2 * 64 / block as usize;
        let sc: Vec<u8> = (0..blocks)
            .map(|b| [0x01, 0x7F, 0x80, 0xFE][b % 4])
            .collect();
        out.push(dv(
            &format!("quant-mxfp-{}", kebab(t.name())),
            &format!(
                "MXFP over {} [2,64] axis 1 block {block}: {blocks} float8_e8m0 scales",
                t.name()
            ),
            Tensor::dense("t", *t, &[2, 64], 80 + i as u64).quant(mxfp(1, block, 1), vec![sc]),
        ));
    }
    out.push(dv(
        "quant-mxfp-block-2048",
        "MXFP int8 [1,2048] axis 1 block 2048 (the maximum block): one scale",
        Tensor::dense("t", i8t, &[1, 2048], 90).quant(mxfp(1, 2048, 1), vec![vec![0x7F]]),
    ));
    out.push(dv(
        "quant-per-block-whole-axis",
        "per-block affine symmetric int8 [4,8] axis 1 block_size 8 = shape[axis]: one block per row",
        Tensor::dense("t", i8t, &[4, 8], 91)
            .quant(per_block(1, 8, 1, None, ElementType::Float32), vec![scales(ElementType::Float32, 4)]),
    ));
    out.push(dv(
        "quant-nf4-negative-zero-scale",
        "NF4 uint4 [2,8] axis 1 block 8 with absmax scales -0.0 and 1.0 (RES-47: -0.0 passes)",
        Tensor::dense("t", ElementType::Uint4, &[2, 8], 92)
            .quant(nf4(1, 8, 1), vec![f32s(&[-0.0, 1.0])]),
    ));
    out.push(dv(
        "quant-block-paged-per-channel",
        "block-paged int8 [9,2,8] per-channel symmetric on axis 2 (head_dim): 8 scales in buffer 3 (BP-15)",
        paged("t", i8t, 4, 5, 2, 8, &[(6, vec![0, 1]), (3, vec![0])], KvRole::Value, 1, BlockTableIndexType::U32)
            .quant(per_channel(2, 3, None), vec![f32s(&[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0])]),
    ));
    // Quantized sparse and indirect layouts: parameter buffers after the layout's (RES-33).
    out.push(dv(
        "quant-coo-per-channel",
        "COO int8 [4,4] nnz 3, per-channel symmetric on axis 1: scales in buffer 2 after values and indices (RES-33)",
        coo_int8().quant(per_channel(1, 2, None), vec![f32s(&[0.5, 1.0, 1.5, 2.0])]),
    ));
    out.push(dv(
        "quant-csr-per-tensor",
        "CSR int8 [4,5] per-tensor affine: 3 buffers, parameters inline",
        csr_like("t", i8t, &[4, 5], &csr_example(), 0).quant(per_tensor(0.5, 1), Vec::new()),
    ));
    out.push(dv(
        "quant-csf-per-channel",
        "CSF int8 [2,3,4] per-channel asymmetric on axis 2: scales and zero points in buffers 7 and 8",
        csf("t", i8t, &[2, 3, 4], &csf_example(), &[0, 1, 2]).quant(
            per_channel(2, 7, Some(8)),
            vec![f32s(&[0.25, 0.5, 0.75, 1.0]), i32s(&zero_points(i8t, 4))],
        ),
    ));
    out.push(dv(
        "quant-block-paged-per-block",
        "block-paged int8 [9,2,8] per-block asymmetric axis 0 block_size = page_size 4: 20 float16 scales and zero points, one per page slot (BP-13, BP-14)",
        paged("t", i8t, 4, 5, 2, 8, &[(6, vec![0, 1]), (3, vec![0])], KvRole::Key, 3, BlockTableIndexType::U32).quant(
            per_block(0, 4, 3, Some(4), ElementType::Float16),
            vec![scales(ElementType::Float16, 20), i32s(&zero_points(i8t, 20))],
        ),
    ));
    out
}

fn kebab(s: &str) -> String {
    s.replace('_', "-")
}

fn coo_int8() -> Tensor {
    let e: Entries = coo_example()
        .into_iter()
        .map(|(c, v)| (c, v * 2.0))
        .collect();
    coo("t", ElementType::Int8, &[4, 4], &e, true)
}

fn named(mut t: Tensor, name: &str) -> Tensor {
    t.name = name.to_string();
    t
}

fn file_vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    let f32t = ElementType::Float32;
    out.push(fv(
        "file-basic-kv",
        "two tensors (float32 [2,2], uint8 [3]) and a KV section, unsorted index",
        files(
            vec![
                Tensor::dense("weight", f32t, &[2, 2], 1),
                Tensor::dense("bias", ElementType::Uint8, &[3], 2),
            ],
            vec![
                kv("model.name", kv_str("golden")),
                kv("model.layers", kv_i64(2)),
            ],
            false,
        ),
    ));
    out.push(fv(
        "file-no-kv",
        "two tensors, no KV section (trailer kv_offset and kv_length 0)",
        files(
            vec![
                Tensor::dense("a", ElementType::Int16, &[5], 3),
                Tensor::dense("b", ElementType::Float64, &[2, 2], 4),
            ],
            Vec::new(),
            false,
        ),
    ));
    let sorted_names = [
        "zeta", "alpha", "Mid", "beta.2", "Alpha", "beta.10", "émoji",
    ];
    out.push(fv(
        "file-sorted-index",
        "seven tensors written out of order, SORTED_INDEX: the index sorts raw name bytes (case, digits, UTF-8)",
        files(
            sorted_names
                .iter()
                .enumerate()
                .map(|(i, n)| Tensor::dense(n, ElementType::Int8, &[i as u64 + 1], i as u64))
                .collect(),
            vec![kv("order", kv_str("sorted"))],
            true,
        ),
    ));
    out.push(fv(
        "file-unsorted-index",
        "the same seven tensors without SORTED_INDEX: index in write order",
        files(
            sorted_names
                .iter()
                .enumerate()
                .map(|(i, n)| Tensor::dense(n, ElementType::Int8, &[i as u64 + 1], i as u64))
                .collect(),
            Vec::new(),
            false,
        ),
    ));
    out.push(fv(
        "file-all-element-types",
        "one row-major [3,5] tensor of every element type with its data",
        files(
            ElementType::ALL
                .iter()
                .map(|t| Tensor::dense(t.name(), *t, &[3, 5], u64::from(t.value())))
                .collect(),
            Vec::new(),
            true,
        ),
    ));
    out.push(fv(
        "file-packing-examples",
        "descriptor.md §8.4's packing examples as data: bool[5] 0D, uint4[3] C5 03, uint2[3] 27, 6-bit [1,2,4,8] 81 40 20",
        files(
            vec![
                Tensor::new("bool", ElementType::Bool, LayoutVariant::RowMajor, &[5], vec![pack(1, &[1, 0, 1, 1, 0])]),
                Tensor::new("uint4", ElementType::Uint4, LayoutVariant::RowMajor, &[3], vec![pack(4, &[5, 12, 3])]),
                Tensor::new("uint2", ElementType::Uint2, LayoutVariant::RowMajor, &[3], vec![pack(2, &[3, 1, 2])]),
                Tensor::new("float6", ElementType::Float6E2m3, LayoutVariant::RowMajor, &[4], vec![pack6(&[1, 2, 4, 8])]),
            ],
            Vec::new(),
            false,
        ),
    ));
    out.push(fv(
        "file-sparse",
        "sparse and indirect tensors whose index buffers pass the data checks (CO-5/6, CR-5..8, CC-5..8, CF-7..12, BP-7..9)",
        files(
            vec![
                named(coo("coo", f32t, &[4, 4], &coo_example(), true), "coo"),
                named(coo("coo", ElementType::Int32, &[3, 4, 5], &unsorted_entries(), false), "coo.unsorted"),
                named(csr_like("t", f32t, &[4, 5], &csr_example(), 0), "csr"),
                named(csr_like("t", f32t, &[4, 5], &csr_example(), 1), "csc"),
                named(csf("t", f32t, &[2, 3, 4], &csf_example(), &[0, 1, 2]), "csf"),
                named(csf("t", ElementType::Float64, &[2, 3, 4], &csf_example(), &[2, 0, 1]), "csf.mode_order"),
                named(csf("t", ElementType::Int8, &[2, 2, 2, 2], &Vec::new(), &[0, 1, 2, 3]), "csf.empty"),
                paged_example("kv.key", BlockTableIndexType::U32, KvRole::Key, 3),
                paged_example("kv.value", BlockTableIndexType::U64, KvRole::Value, 3),
                named(coo("t", ElementType::Float8E8m0, &[8], &vec![(vec![1], 2.0), (vec![6], 0.5)], true), "coo.e8m0"),
            ],
            Vec::new(),
            false,
        ),
    ));
    out.push(fv(
        "file-quantized",
        "quantized tensors with real parameter buffers: per-channel asymmetric (finite non-zero scales), shared per-block, NF4, MXFP, quantized COO/CSF/block-paged",
        files(
            vec![
                named(three_buffers("t"), "per_channel"),
                Tensor::dense("per_block.shared", ElementType::Uint4, &[2, 8], 72).quant(per_block(1, 4, 1, Some(1), ElementType::Bfloat16), vec![{
                    let mut b = scales(ElementType::Bfloat16, 4);
                    b.extend(i32s(&zero_points(ElementType::Uint4, 4)));
                    b
                }]),
                Tensor::dense("nf4", ElementType::Uint4, &[4, 64], 73).quant(nf4(1, 64, 1), vec![f32s(&[1.0, 0.0, 0.5, 3.25])]),
                Tensor::dense("mxfp4", ElementType::Float4E2m1, &[2, 64], 81).quant(mxfp(1, 32, 1), vec![vec![0x01, 0x7F, 0x80, 0xFE]]),
                named(coo_int8().quant(per_channel(1, 2, None), vec![f32s(&[0.5, 1.0, 1.5, 2.0])]), "coo"),
                named(
                    csf("t", ElementType::Int8, &[2, 3, 4], &csf_example(), &[0, 1, 2]).quant(
                        per_channel(2, 7, Some(8)),
                        vec![f32s(&[0.25, 0.5, 0.75, 1.0]), i32s(&zero_points(ElementType::Int8, 4))],
                    ),
                    "csf",
                ),
                named(
                    paged("t", ElementType::Int8, 4, 5, 2, 8, &[(6, vec![0, 1]), (3, vec![0])], KvRole::Key, 3, BlockTableIndexType::U32).quant(
                        per_block(0, 4, 3, Some(4), ElementType::Float16),
                        vec![scales(ElementType::Float16, 20), i32s(&zero_points(ElementType::Int8, 20))],
                    ),
                    "paged",
                ),
            ],
            vec![kv("quantization", kv_str("mixed"))],
            false,
        ),
    ));
    // Composites.
    let mut partition = files(
        vec![
            head(
                "grid",
                f32t,
                &[4, 6],
                CompositionRule::Partition,
                CombineOp::None,
                3,
            ),
            Tensor::dense("grid.top", f32t, &[2, 6], 1).shard(&[4, 6], &[0, 0]),
            Tensor::dense("grid.bottom_left", ElementType::Int8, &[2, 3], 2)
                .quant(per_tensor(0.5, 0), Vec::new())
                .shard(&[4, 6], &[2, 0]),
            Tensor::new(
                "grid.bottom_right",
                f32t,
                LayoutVariant::ColumnMajor,
                &[2, 3],
                vec![data(f32t, 6, 3)],
            )
            .shard(&[4, 6], &[2, 3]),
            Tensor::dense("after", ElementType::Uint8, &[2], 4),
        ],
        Vec::new(),
        false,
    );
    partition.composites = vec![(
        "grid".into(),
        vec![
            "grid.top".into(),
            "grid.bottom_left".into(),
            "grid.bottom_right".into(),
        ],
    )];
    out.push(fv(
        "file-composite-partition",
        "partition head float32 [4,6] and 3 members whose shard boxes cover it exactly (one per-tensor quantized, decoding to float32); the head has no A-padding (RES-13)",
        partition,
    ));
    let mut overlay = files(
        vec![
            head(
                "w",
                f32t,
                &[4, 4],
                CompositionRule::Overlay,
                CombineOp::Replace,
                3,
            ),
            Tensor::dense("w.base", f32t, &[4, 4], 5)
                .shard(&[4, 4], &[0, 0])
                .member(MemberRole::Base),
            Tensor::dense("w.fix", f32t, &[2, 2], 6)
                .shard(&[4, 4], &[1, 1])
                .member(MemberRole::Correction),
            named(
                coo(
                    "t",
                    f32t,
                    &[1, 4],
                    &vec![(vec![0, 1], 0.5), (vec![0, 3], -1.0)],
                    true,
                )
                .shard(&[4, 4], &[3, 0])
                .member(MemberRole::Correction),
                "w.sparse_fix",
            ),
            head(
                "delta",
                ElementType::Float32,
                &[2, 3],
                CompositionRule::Overlay,
                CombineOp::Add,
                2,
            ),
            Tensor::dense("delta.base", f32t, &[2, 3], 7)
                .shard(&[2, 3], &[0, 0])
                .member(MemberRole::Base),
            Tensor::dense("delta.lora", ElementType::Int8, &[2, 3], 8)
                .quant(per_tensor(0.25, -1), Vec::new())
                .shard(&[2, 3], &[0, 0])
                .member(MemberRole::Correction),
        ],
        Vec::new(),
        false,
    );
    overlay.composites = vec![
        (
            "w".into(),
            vec!["w.base".into(), "w.fix".into(), "w.sparse_fix".into()],
        ),
        (
            "delta".into(),
            vec!["delta.base".into(), "delta.lora".into()],
        ),
    ];
    out.push(fv(
        "file-composite-overlay",
        "overlay replace (base + dense and sparse corrections) and overlay add (base + quantized correction), every member with a composite member section",
        overlay,
    ));
    let mut group = files(
        vec![
            head(
                "bundle",
                ElementType::Int64,
                &[3],
                CompositionRule::Group,
                CombineOp::None,
                3,
            ),
            Tensor::dense("bundle.ids", ElementType::Int64, &[5], 9),
            Tensor::dense("bundle.mask", ElementType::Bool, &[7], 10),
            Tensor::dense("bundle.table", ElementType::Float16, &[2, 2], 11)
                .shard(&[4, 2], &[2, 0]),
        ],
        vec![kv("kind", kv_str("group"))],
        true,
    );
    group.composites = vec![(
        "bundle".into(),
        vec![
            "bundle.ids".into(),
            "bundle.mask".into(),
            "bundle.table".into(),
        ],
    )];
    out.push(fv(
        "file-composite-group",
        "group head and 3 unrelated members (one with an optional shard section), sorted index: membership follows write order",
        group,
    ));
    let mut nested = files(
        vec![
            head("g", f32t, &[1], CompositionRule::Group, CombineOp::None, 2),
            head(
                "g.p",
                f32t,
                &[4, 4],
                CompositionRule::Partition,
                CombineOp::None,
                2,
            ),
            head(
                "g.p.q",
                f32t,
                &[2, 4],
                CompositionRule::Partition,
                CombineOp::None,
                2,
            )
            .shard(&[4, 4], &[0, 0]),
            Tensor::dense("g.p.q.0", f32t, &[1, 4], 12).shard(&[2, 4], &[0, 0]),
            Tensor::dense("g.p.q.1", f32t, &[1, 4], 13).shard(&[2, 4], &[1, 0]),
            Tensor::dense("g.p.r", f32t, &[2, 4], 14).shard(&[4, 4], &[2, 0]),
            Tensor::dense("g.other", ElementType::Uint8, &[3], 15),
        ],
        Vec::new(),
        false,
    );
    nested.composites = vec![
        ("g".into(), vec!["g.p".into(), "g.other".into()]),
        ("g.p".into(), vec!["g.p.q".into(), "g.p.r".into()]),
        ("g.p.q".into(), vec!["g.p.q.0".into(), "g.p.q.1".into()]),
    ];
    out.push(fv(
        "file-composite-nested",
        "three nesting levels, pre-order: a group holding a partition whose first member is a partition head with a shard section (CH-12)",
        nested,
    ));
    out.push(fv(
        "file-empty-tensor",
        "an empty float32 [0,3] tensor: its zero-size buffer still A-aligned, data_length 0 (container.md §5.3), then a non-empty tensor",
        files(
            vec![Tensor::dense("empty", f32t, &[0, 3], 0), Tensor::dense("next", f32t, &[3], 16)],
            Vec::new(),
            false,
        ),
    ));
    out.push(fv(
        "file-zero-tensors",
        "no tensors, no KV: the index starts at first_descriptor_offset (RES-42)",
        files(Vec::new(), Vec::new(), false),
    ));
    out.push(fv(
        "file-zero-tensors-kv",
        "no tensors, a KV section at first_descriptor_offset (RES-42), sorted index flag",
        files(Vec::new(), vec![kv("empty", kv_bool(true))], true),
    ));
    out.push(fv(
        "file-kv-all-types",
        "a KV section with every value type, arrays of every element type, and empty string, bytes and array",
        files(vec![Tensor::dense("x", ElementType::Uint8, &[4], 17)], kv_all(), false),
    ));
    let mut big = files(
        vec![Tensor::dense("a", f32t, &[3, 3], 18), three_buffers("b")],
        vec![kv("alignment", kv_u64(8192))],
        false,
    );
    big.options.data_buffer_alignment = 8192;
    big.options.tensor_count_hint = None;
    big.first_descriptor_offset = 128;
    out.push(fv(
        "file-alignment-8192",
        "A = 8192, first_descriptor_offset 128, tensor count unknown (0xFFFF_FFFF_FFFF_FFFF): placement by align_up arithmetic",
        big,
    ));
    let mut empty_member = files(
        vec![
            head(
                "p",
                f32t,
                &[4, 4],
                CompositionRule::Partition,
                CombineOp::None,
                2,
            ),
            Tensor::dense("p.all", f32t, &[4, 4], 21).shard(&[4, 4], &[0, 0]),
            Tensor::dense("p.none", f32t, &[0, 4], 0).shard(&[4, 4], &[2, 0]),
        ],
        Vec::new(),
        false,
    );
    empty_member.composites = vec![("p".into(), vec!["p.all".into(), "p.none".into()])];
    out.push(fv(
        "file-composite-partition-empty-member",
        "a partition whose second member is an empty box placed inside the first: zero-extent boxes never overlap (RES-34)",
        empty_member,
    ));
    // Eight nested group heads (the composite depth limit counts the outermost, RES-34),
    // the innermost holding one tensor.
    let mut chain = Vec::new();
    let mut comps = Vec::new();
    for k in 0..8 {
        let name = format!("d{k}");
        let member = if k == 7 {
            "leaf".to_string()
        } else {
            format!("d{}", k + 1)
        };
        chain.push(head(
            &name,
            f32t,
            &[1],
            CompositionRule::Group,
            CombineOp::None,
            1,
        ));
        comps.push((name, vec![member]));
    }
    chain.push(Tensor::dense("leaf", f32t, &[1], 20));
    let mut depth = files(chain, Vec::new(), false);
    depth.composites = comps;
    out.push(fv(
        "file-composite-depth-8",
        "eight nested group heads, pre-order, around one tensor: the composite depth limit (8, outermost counted, RES-34)",
        depth,
    ));
    out.push(with_cfg(
        fv(
            "file-private-agreed",
            "a private element type (0xF5) and a private extension layout (0xF3), read with both agreed",
            files(
                vec![
                    private_tensor("private.type", &[2, 2], 27),
                    Tensor::raw(
                        "private.layout",
                        ElementType::Uint8.value(),
                        LayoutVariant::Private(
                            PRIVATE_LAYOUT,
                            LayoutExtension {
                                extension_layout_id: PRIVATE_LAYOUT_ID,
                                extension_data: vec![9, 9],
                            },
                        ),
                        &[4],
                        vec![data(ElementType::Uint8, 4, 19)],
                    ),
                ],
                Vec::new(),
                false,
            ),
        ),
        Cfg {
            ext: vec![PRIVATE_LAYOUT_ID],
            ..Cfg::default()
        }
        .agree::<ElementType>(PRIVATE_TYPE)
        .agree::<Layout>(PRIVATE_LAYOUT),
    ));
    out
}

fn kv_all() -> Vec<KvEntry> {
    let mut v = vec![
        kv("string", kv_str("hello, wörld")),
        kv("string.empty", kv_str("")),
        kv("int64", kv_i64(-42)),
        kv("int64.min", kv_i64(i64::MIN)),
        kv("uint64.max", kv_u64(u64::MAX)),
        kv("float64", kv_f64(std::f64::consts::PI)),
        kv("float64.tiny", kv_f64(-1.0e-300)),
        kv("bool.true", kv_bool(true)),
        kv("bool.false", kv_bool(false)),
        kv("bytes", kv_bytes(&[0x00, 0x01, 0xFE, 0xFF])),
        kv("bytes.empty", kv_bytes(&[])),
        kv("case", kv_str("keys are case-sensitive")),
        kv("Case", kv_str("so this is another key")),
    ];
    // An array of every other value type (arrays do not nest).
    for t in KvValue::ALL.iter().filter(|t| **t != KvValue::Array) {
        let xs = match t {
            KvValue::String => vec![kv_str("a"), kv_str("βγ"), kv_str("")],
            KvValue::Int64 => vec![kv_i64(-1), kv_i64(0), kv_i64(i64::MAX)],
            KvValue::Uint64 => vec![kv_u64(0), kv_u64(1 << 63)],
            KvValue::Float64 => vec![kv_f64(0.5), kv_f64(-2.25)],
            KvValue::Bool => vec![kv_bool(true), kv_bool(false), kv_bool(true)],
            KvValue::Bytes => vec![kv_bytes(&[0xDE, 0xAD]), kv_bytes(&[])],
            other => panic!("the generator has no array of {}", other.name()),
        };
        v.push(kv(&format!("array.{}", t.name()), kv_array(*t, xs)));
    }
    v.push(kv("array.empty", kv_array(KvValue::String, Vec::new())));
    v
}

fn all_vectors() -> Vec<Vector> {
    let mut v = descriptor_vectors();
    v.extend(file_vectors());
    v.sort_by(|a, b| a.name.cmp(&b.name));
    for w in v.windows(2) {
        assert_ne!(w[0].name, w[1].name, "two vectors share a name");
    }
    v
}

// ---------------------------------------------------------------------------------------
// Building the corpus: bytes and expectations
// ---------------------------------------------------------------------------------------

/// container.md §6.3 payload sizes.
fn kv_payload_len(v: &KvValueVariant) -> u64 {
    match v {
        KvValueVariant::String(s) => 4 + s.value.len() as u64,
        KvValueVariant::Bytes(b) => 4 + b.value.len() as u64,
        KvValueVariant::Int64(_) | KvValueVariant::Uint64(_) | KvValueVariant::Float64(_) => 8,
        KvValueVariant::Bool(_) => 1,
        KvValueVariant::Array(a) => 5 + a.elements.iter().map(kv_payload_len).sum::<u64>(),
    }
}

struct Built {
    /// file name → bytes (vector files and their expectations, and the manifest).
    files: BTreeMap<String, Vec<u8>>,
}

fn descriptor_expectation(d: &Descriptor, dereferenceable: bool) -> J {
    let mut j = to_json(&contract::descriptor_value(d));
    if !dereferenceable {
        j.as_object_mut()
            .unwrap()
            .insert("dereferenceable".into(), J::Bool(false));
    }
    j
}

/// Write a file and compute its expectation from the generator's intent: index order, every
/// offset by container.md §5.1 (RES-3 pad to 8 after the last buffer, RES-13 heads), the
/// KV and index section sizes of §6 and §7.
fn build_file(name: &str, spec: &FileSpec, cfg: &ReaderConfig) -> (Vec<u8>, J) {
    let header = FileHeader {
        magic: b"HRRYFILE".to_vec(),
        container_version_major: Axis::Container.initial().major,
        container_version_minor: Axis::Container.initial().minor,
        file_flags: {
            let mut f = FileFlags::HAS_INDEX_CRC32C;
            if spec.options.kv {
                f = f.with(FileFlags::HAS_KV_METADATA);
            }
            if spec.options.sorted_index {
                f = f.with(FileFlags::SORTED_INDEX);
            }
            f
        },
        data_buffer_alignment: spec.options.data_buffer_alignment,
        first_descriptor_offset: spec.first_descriptor_offset,
        tensor_count_hint: spec.options.tensor_count_hint.unwrap_or(u64::MAX),
    };
    let mut w = if spec.first_descriptor_offset == 64 {
        FileWriter::new(Vec::new(), &spec.options)
    } else {
        FileWriter::with_header(Vec::new(), header.clone())
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let a = u64::from(spec.options.data_buffer_alignment);
    let mut pos = spec.first_descriptor_offset;
    let mut entries = Vec::new();
    for t in &spec.tensors {
        let bytes = t.bytes(cfg);
        let bufs: Vec<&[u8]> = t.bufs.iter().map(|b| b.as_slice()).collect();
        w.add_tensor(&t.name, &bytes, &bufs)
            .unwrap_or_else(|e| panic!("{name}: `{}`: {e}", t.name));
        let d = align_up(pos, 8);
        let l = bytes.len() as u64;
        let (data_offset, data_length, end) = if t.bufs.is_empty() {
            (d + l, 0, d + l)
        } else {
            let start = align_up(d + l, a);
            let mut at = start;
            for (k, b) in t.bufs.iter().enumerate() {
                if k > 0 {
                    at = align_up(at, a);
                }
                at += b.len() as u64;
            }
            (start, at - start, at)
        };
        pos = align_up(end, 8);
        let desc = descriptor_expectation(&t.sealed(), true);
        entries.push((
            t.name.clone(),
            json!({
                "name": t.name,
                "descriptor_offset": d,
                "descriptor_length": l,
                "data_offset": data_offset,
                "data_length": data_length,
                "descriptor": desc,
            }),
        ));
    }
    let bytes = w.finish(&spec.kv).unwrap_or_else(|e| panic!("{name}: {e}"));
    if spec.options.sorted_index {
        entries.sort_by(|x, y| x.0.as_bytes().cmp(y.0.as_bytes()));
    }
    let (kv_offset, kv_length) = if spec.options.kv {
        let len = 4 + spec
            .kv
            .iter()
            .map(|e| 3 + e.key.len() as u64 + kv_payload_len(&e.value))
            .sum::<u64>();
        (align_up(pos, 8), len)
    } else {
        (0, 0)
    };
    let index_offset = align_up(
        if spec.options.kv {
            kv_offset + kv_length
        } else {
            pos
        },
        8,
    );
    let index_length = 8 + spec
        .tensors
        .iter()
        .map(|t| 34 + t.name.len() as u64)
        .sum::<u64>();
    let mut j = json!({
        "kind": "file",
        "container_version_major": header.container_version_major,
        "container_version_minor": header.container_version_minor,
        "file_flags": header.file_flags.0,
        "data_buffer_alignment": header.data_buffer_alignment,
        "first_descriptor_offset": header.first_descriptor_offset,
        "tensor_count_hint": header.tensor_count_hint,
        "tensors": entries.into_iter().map(|e| e.1).collect::<Vec<_>>(),
        "kv": spec.kv.iter().map(|e| to_json(&contract::kv_entry_value(e))).collect::<Vec<_>>(),
        "warnings": [],
    });
    if !spec.composites.is_empty() {
        j.as_object_mut().unwrap().insert(
            "composites".into(),
            spec.composites
                .iter()
                .map(|(h, m)| json!({"head": h, "members": m, "complete": true}))
                .collect(),
        );
    }
    j.as_object_mut().unwrap().insert(
        "placement".into(),
        json!({
            "kv_offset": kv_offset,
            "kv_length": kv_length,
            "index_offset": index_offset,
            "index_length": index_length,
            "file_size": index_offset + index_length + 40,
        }),
    );
    (bytes, j)
}

fn build() -> Built {
    let mut files = BTreeMap::new();
    let mut manifest = Map::new();
    for v in all_vectors() {
        let cfg = v.cfg.reader();
        let (ext, bytes, expect) = match &v.body {
            Body::Descriptor(t) => {
                let bytes = t.bytes(&cfg);
                // The descriptor's own buffers pass the data checks too.
                let mut checked =
                    descriptor::read(&bytes, &cfg).unwrap_or_else(|e| panic!("{}: {e}", v.name));
                let slices: Vec<&[u8]> = t.bufs.iter().map(|b| b.as_slice()).collect();
                let offsets: Vec<u64> = (0..slices.len() as u64).map(|i| i << 32).collect();
                descriptor::check_data(&mut checked, &slices, &offsets, &cfg)
                    .unwrap_or_else(|e| panic!("{}: data: {e}", v.name));
                (
                    "bin",
                    bytes,
                    descriptor_expectation(&t.sealed(), v.dereferenceable),
                )
            }
            Body::File(spec) => {
                for (h, members) in &spec.composites {
                    let t = spec.tensors.iter().find(|t| &t.name == h).expect("a head");
                    let LayoutVariant::Composite(c) = &t.d.layout_fields else {
                        panic!("{h} is not a head")
                    };
                    assert_eq!(c.member_count as usize, members.len(), "{h}");
                }
                let (bytes, j) = build_file(&v.name, spec, &cfg);
                // Nothing invalid is ever blessed: the file reads, data checks included.
                file::read(&bytes, &cfg).unwrap_or_else(|e| panic!("{}: {e}", v.name));
                ("hrry", bytes, j)
            }
        };
        let (agree, ext_ids) = v.cfg.json();
        manifest.insert(
            v.name.clone(),
            json!({
                "kind": if ext == "bin" { "descriptor" } else { "file" },
                "permissive": v.cfg.permissive,
                "agree": agree,
                "agree_extension_layouts": ext_ids,
                "description": v.description,
            }),
        );
        files.insert(format!("{}.{ext}", v.name), bytes);
        files.insert(format!("{}.json", v.name), pretty(&expect));
    }
    files.insert("manifest.json".into(), pretty(&J::Object(manifest)));
    Built { files }
}

/// The corpus, generated once; under `BLESS=1` it is written to disk first.
fn corpus() -> &'static Built {
    static CORPUS: OnceLock<Built> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let built = build();
        if std::env::var("BLESS").is_ok_and(|v| v == "1") {
            let dir = corpus_dir();
            std::fs::create_dir_all(&dir).unwrap();
            for entry in std::fs::read_dir(&dir).unwrap() {
                let p = entry.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                if !built.files.contains_key(&name) {
                    std::fs::remove_file(&p).unwrap();
                }
            }
            for (name, bytes) in &built.files {
                let p = dir.join(name);
                if std::fs::read(&p).ok().as_ref() != Some(bytes) {
                    std::fs::write(&p, bytes).unwrap();
                }
            }
        }
        built
    })
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
    corpus();
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
            cfg = agree_by_name(cfg, a[0].as_str().unwrap(), a[1].as_u64().unwrap() as u32);
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
    let built = corpus();
    let dir = corpus_dir();
    let mut problems = Vec::new();
    let mut on_disk = BTreeSet::new();
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd {
            on_disk.insert(e.unwrap().file_name().to_string_lossy().to_string());
        }
    }
    for (name, bytes) in &built.files {
        match std::fs::read(dir.join(name)) {
            Err(_) => problems.push(format!("missing: {name}")),
            Ok(b) if &b != bytes => problems.push(format!("differs from the generator: {name}")),
            Ok(_) => {}
        }
    }
    for name in &on_disk {
        if !built.files.contains_key(name) {
            problems.push(format!("not generated (stale): {name}"));
        }
    }
    assert!(
        problems.is_empty(),
        "tests/corpus/valid/ drifted from tests/golden.rs ({} problem(s)):\n  {}\nrefresh with `{REFRESH}`",
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
                let d = descriptor::read(&e.bytes, &e.cfg)
                    .unwrap_or_else(|err| panic!("{}: {err}", e.name));
                assert!(d.warnings.is_empty(), "{}: {:?}", e.name, d.warnings);
                let mut got = to_json(&contract::descriptor_value(&d.view.owned()));
                if !d.dereferenceable {
                    got.as_object_mut()
                        .unwrap()
                        .insert("dereferenceable".into(), J::Bool(false));
                }
                got
            }
            _ => {
                let f =
                    file::read(&e.bytes, &e.cfg).unwrap_or_else(|err| panic!("{}: {err}", e.name));
                let mut got = to_json(&contract::file_value(&f).unwrap());
                let t = f.trailer();
                got.as_object_mut().unwrap().insert(
                    "placement".into(),
                    json!({
                        "kv_offset": t.kv_offset(),
                        "kv_length": t.kv_length(),
                        "index_offset": t.index_offset(),
                        "index_length": t.index_length(),
                        "file_size": e.bytes.len(),
                    }),
                );
                got
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
            let d = descriptor::read(&e.bytes, &e.cfg).unwrap();
            assert!(
                d.view.owned().to_bytes() == e.bytes,
                "{} does not re-encode",
                e.name
            );
            continue;
        }
        let f = file::read(&e.bytes, &e.cfg).unwrap();
        let mut w = FileWriter::with_header(Vec::new(), f.header().owned()).unwrap();
        for i in f.write_order() {
            let t = f.tensor_at(i).unwrap();
            let bufs: Vec<&[u8]> = t.buffers().iter().map(|(_, b)| *b).collect();
            let view = t.descriptor().view;
            assert!(
                view.owned().to_bytes() == view.bytes(),
                "{}: the descriptor of `{}` does not re-encode",
                e.name,
                t.name()
            );
            w.add_tensor(t.name(), view.bytes(), &bufs)
                .unwrap_or_else(|err: WriteError| panic!("{}: {}: {err}", e.name, t.name()));
        }
        let kv: Vec<KvEntry> = f
            .kv()
            .map(|k| k.entries().iter().map(|x| x.owned()).collect())
            .unwrap_or_default();
        let out = w.finish(&kv).unwrap();
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
            s.descriptor(&descriptor::read(&e.bytes, &e.cfg).unwrap().view.owned());
            continue;
        }
        let f = file::read(&e.bytes, &e.cfg).unwrap();
        for t in f.tensors() {
            s.descriptor(&t.unwrap().descriptor().view.owned());
        }
        for k in f.kv().iter().flat_map(|k| k.entries()) {
            let k = k.owned();
            s.kv_tags.insert(k.value_tag.raw());
            if let KvValueVariant::Array(a) = &k.value {
                s.kv_array_tags.insert(a.element_tag.raw());
            }
        }
        s.file_flags.push(f.header().file_flags().0);
        let composites = f.composites().unwrap();
        for c in composites.iter().filter(|c| c.complete) {
            if let LayoutVariant::Composite(h) = &f
                .tensor_at(c.head)
                .unwrap()
                .descriptor()
                .view
                .owned()
                .layout_fields
            {
                s.file_composites.insert(h.composition_rule.raw());
            }
        }
        s.nested_composite |= composites.iter().any(|c| {
            c.members
                .iter()
                .any(|m| composites.iter().any(|d| d.head == *m))
        });
        if f.is_empty() {
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
    let mut pairs: Vec<(u32, &str)> = Vec::new();
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
        let ok = s.device_memory.iter().any(|(d, m)| {
            *d == dev
                && match MemoryClass::classify(*m) {
                    TagClass::Known(k) => k.name() == mem,
                    TagClass::Private => mem == "private",
                    _ => false,
                }
        });
        assert!(ok, "no vector puts device {dev:#04x} in {mem} memory");
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
    assert_eq!(
        u64::from(s.flags),
        DescriptorFlags::ALLOCATED,
        "descriptor flag bits never set"
    );
    assert_eq!(
        u64::from(s.mask),
        ComputedMask::ALLOCATED,
        "computed_mask bits never set"
    );

    // KV: every value type, arrays of every non-array type (arrays do not nest).
    for t in KvValue::ALL.iter().filter(|t| **t != KvValue::Array) {
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
    let built = &corpus().files;
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
    assert_eq!(b[93..93 + 24], payload[..], "quantization.md §4.2");
    let d = descriptor::read(b, &ReaderConfig::new()).unwrap();
    let sizes: Vec<u64> = d
        .view
        .buffer_table()
        .buffers()
        .iter()
        .map(|h| h.byte_size())
        .collect();
    assert_eq!(sizes, [786_432, 3072, 3072], "quantization.md §4.2");
    // layouts.md §17.1 COO: the layout block and the buffers.
    let b = read("layout-coo-sorted.bin");
    let at = 28 + 8 * 2;
    assert_eq!(
        b[at..at + 16],
        [0x03, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0],
        "layouts.md §17.1 COO layout block"
    );
    let f = file::read(read("file-sparse.hrry"), &ReaderConfig::new()).unwrap();
    let coo = f.tensor("coo").unwrap().unwrap();
    assert_eq!(coo.buffers()[0].1, f32s(&[1.5, -0.5, 2.0]));
    assert_eq!(coo.buffers()[1].1, u64s(&[0, 1, 2, 0, 3, 3]));
    // CSR / CSC / CSF / block-paged arrays of §17.1.
    let csr = f.tensor("csr").unwrap().unwrap();
    assert_eq!(csr.buffers()[0].1, f32s(&[1.0, 2.0, 3.0, 4.0, 5.0]));
    assert_eq!(csr.buffers()[1].1, u64s(&[0, 3, 2, 1, 4]));
    assert_eq!(csr.buffers()[2].1, u64s(&[0, 2, 3, 5, 5]));
    let csc = f.tensor("csc").unwrap().unwrap();
    assert_eq!(csc.buffers()[0].1, f32s(&[1.0, 4.0, 3.0, 2.0, 5.0]));
    assert_eq!(csc.buffers()[1].1, u64s(&[0, 2, 1, 0, 2]));
    assert_eq!(csc.buffers()[2].1, u64s(&[0, 1, 2, 3, 4, 5]));
    let csf = f.tensor("csf").unwrap().unwrap();
    let want: [&[u64]; 6] = [
        &[0, 2],
        &[0, 1],
        &[0, 2, 3],
        &[0, 2, 1],
        &[0, 1, 2, 4],
        &[1, 3, 0, 2],
    ];
    assert_eq!(csf.buffers().len(), 7);
    assert_eq!(csf.buffers()[0].1, f32s(&[1.0, 2.0, 3.0, 4.0]));
    for (i, w) in want.iter().enumerate() {
        assert_eq!(csf.buffers()[i + 1].1, u64s(w), "CSF buffer {}", i + 1);
    }
    let kv = f.tensor("kv.key").unwrap().unwrap();
    assert_eq!(
        kv.buffers()[0].1.len(),
        320 * 2,
        "page_pool of 320 float16 elements"
    );
    assert_eq!(kv.buffers()[1].1, u32s(&[0, 1, 0]), "block_table");
    assert_eq!(kv.buffers()[2].1, u32s(&[0, 2, 3]), "seq_ptr");
    // descriptor.md §8.4 packing examples.
    let f = file::read(read("file-packing-examples.hrry"), &ReaderConfig::new()).unwrap();
    for (name, bytes) in [
        ("bool", &[0x0D][..]),
        ("uint4", &[0xC5, 0x03]),
        ("uint2", &[0x27]),
        ("float6", &[0x81, 0x40, 0x20]),
    ] {
        assert_eq!(
            f.tensor(name).unwrap().unwrap().data(),
            bytes,
            "descriptor.md §8.4 {name}"
        );
    }
    // container.md §5.2's placement example under RES-3: a 61-byte descriptor at 64, a
    // 16-byte buffer at 4096, the next descriptor at 4112.
    let f = file::read(read("file-basic-kv.hrry"), &ReaderConfig::new()).unwrap();
    let w = f.tensor("weight").unwrap().unwrap();
    assert_eq!(
        (
            w.descriptor_offset(),
            w.descriptor_length(),
            w.data_offset(),
            w.data_length()
        ),
        (64, 61, 4096, 16)
    );
    assert_eq!(f.tensor("bias").unwrap().unwrap().descriptor_offset(), 4112);
}
