//! The golden corpus's independent oracle: what a descriptor or file derives from its row,
//! computed by hand from the facts sheets' formulas and never by the code under test.
//! `tests/it/common/build.rs` builds the rows with it, and the writer and reader must then
//! agree with it byte for byte: element data sizes and packing (descriptor.md §8.4, §8.5)
//! and float encodings; sparse arrays from coordinates (layouts.md §8–§12); statistics from
//! values (descriptor.md §7.3); the header fields a descriptor derives and its length
//! identity (descriptor.md §1, §3); the KV payload sizes (container.md §6.3). The file
//! placement arithmetic (container.md §5) is beside the writer calls, in
//! `build::build_file`.

use hurray_runtime::axes::Axis;
use hurray_runtime::flags::{ComputedMask, DescriptorFlags};
use hurray_runtime::structures::{
    Descriptor, KvValueVariant, LayoutTiled, LayoutVariant, SchemeVariant, Statistics,
};
use hurray_runtime::tags::{ElementKind, ElementType, KvValue, Packing};
use hurray_runtime::wire::{FlagSet, TagSpace};
use hurray_runtime::{Value, contract};

use super::{f32s, i32s};

// ---------------------------------------------------------------------------------------
// Element data: sizes from the spec's bits/packing attributes, real values, packing rules
// ---------------------------------------------------------------------------------------

/// descriptor.md §8.5: bytes for `n` elements of an allocated type.
pub fn elem_bytes(t: ElementType, n: u64) -> u64 {
    match t.packing() {
        Packing::None => n * u64::from(t.bits() / 8),
        Packing::LsbFirst => n.div_ceil(u64::from(8 / t.bits())),
        Packing::Group4In3 => n.div_ceil(4) * 3,
        other => panic!("the oracle has no size rule for packing {other:?}"),
    }
}

/// descriptor.md §8.4, B ∈ {1, 2, 4}: element i in byte floor(i/P) at bit (i mod P)·B.
pub fn pack(bits: u32, codes: &[u8]) -> Vec<u8> {
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
pub fn pack6(codes: &[u8]) -> Vec<u8> {
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

/// A small binary float (sign bit, `exp_bits` exponent with `bias`, `man_bits` mantissa)
/// of an f32 that is exact in it: float16, float8 and agreed private formats. The generator
/// only uses small binary fractions (k/2, k/4), so no rounding is ever needed.
pub fn small_float(x: f32, exp_bits: u32, man_bits: u32, bias: i32) -> u64 {
    exact_small_float(x, exp_bits, man_bits, bias).unwrap_or_else(|| {
        panic!("{x} is not exact with {exp_bits} exponent and {man_bits} mantissa bits")
    })
}

/// [`small_float`] when `x` is zero or a normal number of the format, else `None`.
fn exact_small_float(x: f32, exp_bits: u32, man_bits: u32, bias: i32) -> Option<u64> {
    if x == 0.0 {
        return Some(0);
    }
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + bias;
    (exp > 0 && exp < (1 << exp_bits) - 1 && b & ((1 << (23 - man_bits)) - 1) == 0).then(|| {
        (u64::from(b >> 31) << (exp_bits + man_bits))
            | ((exp as u64) << man_bits)
            | u64::from((b >> (23 - man_bits)) & ((1 << man_bits) - 1))
    })
}

/// The exponent and mantissa bits of a float element type's `format` (`1-3-4`), when it has
/// a sign bit, at least one exponent bit, and fits a `small_float`.
fn float_format(t: ElementType) -> Option<(u32, u32)> {
    let parts: Vec<u32> = t
        .format()
        .split('-')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    match parts[..] {
        [1, e, m] if (1..=8).contains(&e) && m <= 23 && 1 + e + m == t.bits() => Some((e, m)),
        _ => None,
    }
}

/// The element a float format an amendment of the spec adds holds for `k`, as its code and
/// its value: k/2 in the `format`'s exponent and mantissa bits, with the standard bias (what
/// `inspect` decodes it with). A format too narrow to hold k/2 as a normal number (two
/// exponent bits hold 1 ≤ |v| < 4) gets the code |k| with k's sign instead: a subnormal or a
/// small normal, never an infinity or a NaN (a whole-byte format has at least 7 exponent and
/// mantissa bits). `None` for a type without such a format.
pub fn amended_float(t: ElementType, k: i64) -> Option<(u64, f64)> {
    let (e, m) = float_format(t)?;
    let bias = (1i32 << (e - 1)) - 1;
    let v = k as f64 * 0.5;
    Some(match exact_small_float(v as f32, e, m, bias) {
        Some(code) => (code, v),
        None => {
            let code = u64::from(k < 0) << (e + m) | k.unsigned_abs();
            let (field, fraction) = (code >> m & ((1 << e) - 1), code & ((1 << m) - 1));
            let magnitude = if field == 0 {
                fraction as f64 * 2f64.powi(1 - bias - m as i32)
            } else {
                (1.0 + fraction as f64 / 2f64.powi(m as i32)) * 2f64.powi(field as i32 - bias)
            };
            (code, if k < 0 { -magnitude } else { magnitude })
        }
    })
}

pub fn f16_bits(x: f32) -> u16 {
    small_float(x, 5, 10, 15) as u16
}

pub fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    assert!(b & 0xFFFF == 0, "{x} is not exact in bfloat16");
    (b >> 16) as u16
}

/// IEEE binary128 from a normal (or zero) f64.
pub fn f128_bits(x: f64) -> u128 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let sign = u128::from(b >> 63) << 127;
    let exp = ((b >> 52) & 0x7FF) as i64 - 1023 + 16383;
    sign | ((exp as u128) << 112) | (u128::from(b & ((1 << 52) - 1)) << 60)
}

/// Small integers k ∈ −8..=8 driving every element value (value k/2 for float types).
pub fn ks(n: usize, seed: u64) -> Vec<i64> {
    (0..n as u64)
        .map(|i| ((i * 7 + seed * 3 + 5) % 17) as i64 - 8)
        .collect()
}

/// `n` real, valid elements of `t`: packed types with zero padding, float8_e8m0 bytes in
/// 0x01..=0xFE (DAT-3), whole-byte types little-endian.
pub fn data(t: ElementType, n: usize, seed: u64) -> Vec<u8> {
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
                    (ElementType::Float8E4m3, _) => out.push(small_float(v as f32, 4, 3, 7) as u8),
                    (ElementType::Float8E5m2, _) => out.push(small_float(v as f32, 5, 2, 15) as u8),
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
                    // A float format an amendment of the spec adds (`amended_float`).
                    (_, ElementKind::Float) if float_format(t).is_some() => {
                        let (code, _) = amended_float(t, x).unwrap_or_default();
                        out.extend(&code.to_le_bytes()[..(t.bits() / 8) as usize]);
                    }
                    // Unsigned integers, and any other whole-byte type an amendment of the
                    // spec adds: small codes, which such a type reads.
                    _ => {
                        out.extend(&x.unsigned_abs().to_le_bytes()[..(t.bits() / 8) as usize]);
                    }
                }
            }
            out
        }
        other => panic!("the generator has no data rule for packing {other:?}"),
    };
    assert_eq!(out.len() as u64, elem_bytes(t, n as u64), "{}", t.name());
    out
}

/// `n` elements of an agreed private type, in the format its extension type section
/// describes: floats k/2 in their sign-exponent-mantissa encoding, integers k.
pub fn private_data(e: &hurray_runtime::structures::ExtensionType, n: usize, seed: u64) -> Vec<u8> {
    let k = ks(n, seed);
    if e.is_float != 0 {
        let width = (e.bit_width / 8) as usize;
        k.iter()
            .flat_map(|x| {
                let bits = small_float(
                    (*x as f64 * 0.5) as f32,
                    u32::from(e.exponent_bits),
                    u32::from(e.mantissa_bits),
                    e.exponent_bias as i32,
                );
                bits.to_le_bytes()[..width].to_vec()
            })
            .collect()
    } else if e.bit_width < 8 {
        let mask = ((1u16 << e.bit_width) - 1) as u8;
        pack(
            e.bit_width,
            &k.iter().map(|x| (*x as u8) & mask).collect::<Vec<_>>(),
        )
    } else {
        let width = (e.bit_width / 8) as usize;
        k.iter()
            .flat_map(|x| x.to_le_bytes()[..width].to_vec())
            .collect()
    }
}

pub fn u32s_of(xs: &[u64]) -> Vec<u8> {
    xs.iter()
        .flat_map(|x| u32::try_from(*x).unwrap().to_le_bytes())
        .collect()
}

/// A scale array in a block scheme's scale type: values (b mod 8 + 1)·unit, exact in all.
pub fn scales(t: ElementType, n: usize, unit: f32) -> Vec<u8> {
    let xs: Vec<f32> = (0..n).map(|b| (b % 8 + 1) as f32 * unit).collect();
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
pub fn zp_range(t: ElementType) -> (i64, i64) {
    let b = i64::from(t.bits());
    match t.kind() {
        ElementKind::Signed => (-(1 << (b - 1)), (1 << (b - 1)) - 1),
        _ => (0, ((1i64 << b) - 1).min(i64::from(i32::MAX))),
    }
}

pub fn zero_points(t: ElementType, n: usize) -> Vec<i32> {
    let (lo, hi) = zp_range(t);
    (0..n as i64)
        .map(|c| (lo + c * 3 % (hi - lo + 1)) as i32)
        .collect()
}

/// Values in an element type's encoding.
pub fn values_of(t: ElementType, vals: &[f64]) -> Vec<u8> {
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

/// Statistics of `vals` with every computed_mask bit set (descriptor.md §7.3).
pub fn full_stats(vals: &[f64], nm: (u8, u8)) -> Statistics {
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

// ---------------------------------------------------------------------------------------
// Sparse and indirect structures built from coordinates (layouts.md §8–§12)
// ---------------------------------------------------------------------------------------

/// Coordinates and values.
pub type Entries = Vec<(Vec<u64>, f64)>;

/// CSR (`major` 0) or CSC (`major` 1) arrays: (values, minor indices, pointers).
pub fn compressed(e: &Entries, shape: &[u64], major: usize) -> (Vec<f64>, Vec<u64>, Vec<u64>) {
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

/// CSF (§11): per level L, the unique coordinate prefixes in `mode_order`, children grouped
/// under their parents; leaf values in depth-first order.
pub fn csf_arrays(e: &Entries, mode_order: &[u32]) -> (Vec<Vec<u64>>, Vec<Vec<u64>>, Vec<f64>) {
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

// ---------------------------------------------------------------------------------------
// Derived header fields by the sheets' rules
// ---------------------------------------------------------------------------------------

/// layouts.md §1.1 block sizes; §6 for the recursive tiled block.
pub fn layout_len(l: &LayoutVariant, rank: u64) -> u64 {
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
        other => panic!("the oracle has no length for layout {:#x}", other.tag()),
    }
}

/// quantization.md §3.1 payload lengths.
pub fn payload_len(p: &SchemeVariant) -> u64 {
    match p {
        SchemeVariant::PerTensorAffine(_) | SchemeVariant::Nf4(_) | SchemeVariant::Mxfp(_) => 16,
        SchemeVariant::PerChannelAffine(_) => 20,
        SchemeVariant::PerBlockAffine(_) => 24,
        SchemeVariant::Private(_, x) => 4 + x.data.len() as u64,
        SchemeVariant::Opaque(_, b) => b.len() as u64,
        other => panic!("the oracle has no length for scheme {:#x}", other.tag()),
    }
}

/// descriptor.md §1: the length identity of a version-1.0 descriptor, and the sections an
/// amendment of the spec adds after it.
pub fn length_identity(d: &Descriptor) -> u32 {
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
        + d.composite_member.as_ref().map_or(0, |_| 16)
        + amended_sections_len(d);
    len as u32
}

/// The bytes of the optional sections the sheets give no size for: those an amendment of the
/// spec adds (every conditional field of the generated descriptor but the sheet's five).
/// The oracle knows no formula for them, so they are measured as the generated encoder lays
/// them out — the descriptor encoded with them minus encoded without — and the reader must
/// still accept the result, and re-encode it byte for byte.
fn amended_sections_len(d: &Descriptor) -> u64 {
    let mut sheet = d.clone();
    sheet.quantization = None;
    sheet.shard = None;
    sheet.statistics = None;
    sheet.extension_type = None;
    sheet.composite_member = None;
    let with = sheet.to_bytes().len() as u64;
    let Value::Object(mut fields) = contract::descriptor_value(&sheet) else {
        unreachable!("a descriptor's value is an object")
    };
    for (key, v) in &mut fields {
        if Descriptor::CONDITIONAL_FIELDS.contains(&key.as_str()) {
            *v = Value::Null;
        }
    }
    let without = contract::descriptor_from_value(&Value::Object(fields))
        .expect("a descriptor without its sections")
        .to_bytes()
        .len() as u64;
    with - without
}

/// descriptor.md §3: the flag bits a descriptor's present sections set, each section's bit
/// as the spec's tables state it (the generated `PRESENCE_BITS`), so a section an amendment
/// gates behind a new bit sets that bit.
pub fn presence_flags(d: &Descriptor) -> DescriptorFlags {
    let v = contract::descriptor_value(d);
    let mut flags = DescriptorFlags::empty();
    for (field, bit) in Descriptor::PRESENCE_BITS {
        if v.get(field).is_some_and(|x| *x != Value::Null) {
            flags = flags.with(DescriptorFlags::from_bits(1 << bit));
        }
    }
    flags
}

/// The header fields a descriptor derives, by the sheets' rules: flags from the sections
/// present (descriptor.md §3), rank, each axis at the lowest version that allocates every
/// value the descriptor names (W1, W2: its initial version unless a row uses a value an
/// amendment of the spec added), and descriptor_length by the length identity (plus any
/// surplus bytes carried on purpose).
pub fn seal(d: &mut Descriptor) {
    let flags = presence_flags(d);
    let v = allocated_by(d);
    d.fixed_header.flags = flags;
    d.fixed_header.rank = d.shape.len() as u32;
    d.fixed_header.version_major = v.major;
    d.fixed_header.version_minor = v.minor;
    if let Some(q) = &mut d.quantization
        && let Some(axis) = Axis::of_scheme(q.payload.tag())
        && let Some(h) = q.payload.header_mut()
    {
        h.scheme_version = axis.initial().minor;
    }
    d.fixed_header.descriptor_length = length_identity(d) + d.skipped.len() as u32;
}

/// The lowest descriptor version that allocates the tag values a row names: the header's
/// element type and layout, each buffer's device, sync mode and memory class, the scheme,
/// and the flag bits of the sections present.
fn allocated_by(d: &Descriptor) -> hurray_runtime::Version {
    use hurray_runtime::tags::{Device, Layout, MemoryClass, Scheme, SyncMode};
    fn since<T: TagSpace>(raw: u32) -> Option<hurray_runtime::Version> {
        T::lookup(raw).ok().map(T::since)
    }
    let h = &d.fixed_header;
    let mut all = vec![
        since::<ElementType>(h.type_tag.raw()),
        since::<Layout>(h.layout_tag.raw()),
    ];
    for b in &d.buffer_table.buffers {
        all.push(since::<Device>(b.device_tag.raw()));
        all.push(since::<SyncMode>(b.sync_mode.raw()));
        all.push(since::<MemoryClass>(b.memory_class.raw()));
    }
    if let Some(q) = &d.quantization {
        all.push(since::<Scheme>(q.payload.tag()));
    }
    // Each section's flag bit: a section an amendment adds is no older than its bit.
    let flags = presence_flags(d).bits();
    all.extend(
        (0..64)
            .filter(|b| flags >> b & 1 == 1)
            .map(DescriptorFlags::bit_since),
    );
    all.into_iter()
        .flatten()
        .fold(Axis::Descriptor.initial(), Ord::max)
}

/// container.md §6.3 payload sizes: the length-prefixed types by their formula, every other
/// type by the size its structure declares in the tables (a value type an amendment adds is
/// fixed-size, like the scalars: the spec's `size`, not a list here).
pub fn kv_payload_len(v: &KvValueVariant) -> u64 {
    match v {
        KvValueVariant::String(s) => 4 + s.value.len() as u64,
        KvValueVariant::Bytes(b) => 4 + b.value.len() as u64,
        KvValueVariant::Array(a) => 5 + a.elements.iter().map(kv_payload_len).sum::<u64>(),
        other => fixed_kv_sizes()
            .get(&other.tag())
            .copied()
            .unwrap_or_else(|| {
                panic!(
                    "KV value {:#x} has no fixed-size structure in spec/",
                    other.tag()
                )
            }),
    }
}

/// The declared size of every fixed-size KV value structure, by its tag value, read from the
/// spec's tables (`tags/kv_value.toml` names each tag's structure; `structures/*.toml` its
/// `framing` and `size`).
fn fixed_kv_sizes() -> &'static std::collections::BTreeMap<u32, u64> {
    static SIZES: std::sync::OnceLock<std::collections::BTreeMap<u32, u64>> =
        std::sync::OnceLock::new();
    SIZES.get_or_init(|| {
        let spec = super::root().join("spec");
        let mut sizes_by_name = std::collections::BTreeMap::new();
        for e in std::fs::read_dir(spec.join("structures")).expect("spec/structures") {
            let t = super::tables::load(&e.expect("an entry").path());
            for s in t
                .get("structure")
                .and_then(|s| s.as_array())
                .into_iter()
                .flatten()
            {
                if s.get("framing").and_then(|f| f.as_str()) == Some("fixed")
                    && let (Some(name), Some(size)) = (
                        s.get("name").and_then(|n| n.as_str()),
                        s.get("size").and_then(|z| z.as_integer()),
                    )
                {
                    sizes_by_name.insert(name.to_string(), size as u64);
                }
            }
        }
        let kv = super::tables::load(&spec.join("tags").join(format!("{}.toml", KvValue::NAME)));
        let mut out = std::collections::BTreeMap::new();
        for t in kv
            .get("tag")
            .and_then(|t| t.as_array())
            .into_iter()
            .flatten()
        {
            if let (Some(value), Some(structure)) = (
                t.get("value").and_then(|v| v.as_integer()),
                t.get("structure").and_then(|s| s.as_str()),
            ) && let Some(size) = sizes_by_name.get(structure)
            {
                out.insert(value as u32, *size);
            }
        }
        out
    })
}
