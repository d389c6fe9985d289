//! The values of a tensor's element buffer (`hurray inspect --data`): its elements decoded by
//! the element type's attributes in the spec (`bits`, `kind`, `packing`, `format`), and, for a
//! quantized tensor whose scheme keeps its parameters inline (per-tensor affine), the
//! dequantized values by the scheme's formula (quantization.md §4.1: `scale * (q - zero_point)`
//! in float32).
//!
//! Floats are decoded from their `format` (`sign-exponent-mantissa` bits, bias
//! `2^(exponent-1) - 1`): formats with 5 or more exponent bits follow IEEE 754 (an all-ones
//! exponent is infinity or NaN); narrower 8-bit formats are the OCP "finite" kind (only the
//! all-ones pattern is NaN); narrower sub-byte formats (OCP MX FP4, FP6) have no special
//! values. A scale type (`0-8-0`) is `2^(b - bias)`, its all-ones byte NaN.
//!
//! At most `limit` elements are decoded, so the values never take more than a bounded
//! multiple of the input.

use crate::descriptor::Checked;
use crate::generated::tags::{ElementKind, ElementType, FloatFormat, LayoutClass, Packing};
use crate::semantic::Facts;
use crate::structures::SchemeVariantView;
use crate::wire::{TagClass, TagSpace};

/// Decoded elements of one buffer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Values {
    /// Floating-point values (scale types included).
    Float(Vec<f64>),
    /// Signed integers.
    Signed(Vec<i64>),
    /// Unsigned integers.
    Unsigned(Vec<u64>),
    /// Booleans.
    Bool(Vec<bool>),
    /// Real and imaginary parts.
    Complex(Vec<(f64, f64)>),
}

impl Values {
    /// How many values were decoded.
    pub fn len(&self) -> usize {
        match self {
            Values::Float(v) => v.len(),
            Values::Signed(v) => v.len(),
            Values::Unsigned(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Complex(v) => v.len(),
        }
    }

    /// True when no value was decoded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The element buffer of a tensor, decoded.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ElementData {
    /// The buffer's index in the buffer table.
    pub buffer: u32,
    /// The element type's name in the spec.
    pub element_type: &'static str,
    /// How many elements the buffer holds (whole elements its bytes contain).
    pub total: u64,
    /// The first `min(total, limit)` elements.
    pub values: Values,
    /// The same elements dequantized, when the scheme keeps its parameters inline.
    pub dequantized: Option<Vec<f64>>,
    /// Why something is not shown (a scheme whose dequantization needs parameter buffers).
    pub note: Option<String>,
}

/// Decode the element buffer of a checked descriptor whose buffers are `buffers` (`(offset,
/// bytes)` per buffer, in buffer-table order): the first buffer of a dense layout, of an
/// allocated element type. `None` when the tensor has no such buffer (a sparse, indirect or
/// virtual layout; a private type; a tensor not dereferenceable).
pub fn element_data(checked: &Checked<'_>, buffers: &[&[u8]], limit: usize) -> Option<ElementData> {
    if !checked.dereferenceable {
        return None;
    }
    let facts = Facts::new(&checked.view);
    if facts.class() != Some(LayoutClass::Dense) {
        return None;
    }
    let TagClass::Known(t) = ElementType::classify(facts.type_tag) else {
        return None;
    };
    let bytes = *buffers.first()?;
    let total = element_capacity(t, bytes.len() as u64);
    let total = match facts.count.and_then(|c| c.get()) {
        Some(c) => total.min(u64::try_from(c).unwrap_or(u64::MAX)),
        None => total,
    };
    let n = total.min(limit as u64) as usize;
    let values = decode(t, bytes, n);
    let (dequantized, note) = match checked.view.quantization().map(|q| q.payload()) {
        None => (None, None),
        Some(SchemeVariantView::PerTensorAffine(p)) => {
            let (scale, zero) = (p.scale(), p.zero_point());
            let d = integers(&values).map(|qs| {
                qs.iter()
                    .map(|q| f64::from(scale * (q.wrapping_sub(i64::from(zero)) as i32) as f32))
                    .collect()
            });
            (d, None)
        }
        Some(other) => (
            None,
            Some(format!(
                "dequantizing scheme {:#04x} needs its parameter buffers; not shown",
                other.tag()
            )),
        ),
    };
    Some(ElementData {
        buffer: 0,
        element_type: t.name(),
        total,
        values,
        dequantized,
        note,
    })
}

/// Integer values as `i64`, when the values are integers.
fn integers(v: &Values) -> Option<Vec<i64>> {
    match v {
        Values::Signed(s) => Some(s.clone()),
        Values::Unsigned(u) => Some(u.iter().map(|x| *x as i64).collect()),
        _ => None,
    }
}

/// Whole elements of `t` in `len` bytes.
fn element_capacity(t: ElementType, len: u64) -> u64 {
    match t.packing() {
        Packing::None => len / u64::from((t.bits() / 8).max(1)),
        Packing::LsbFirst => len * u64::from(8 / t.bits().max(1)),
        Packing::Group4In3 => len / 3 * 4,
    }
}

/// The raw bits of element `i` (`None` past the bytes).
fn raw(t: ElementType, bytes: &[u8], i: usize) -> Option<u128> {
    let le = |b: &[u8]| {
        b.iter()
            .rev()
            .fold(0u128, |acc, x| (acc << 8) | u128::from(*x))
    };
    match t.packing() {
        Packing::None => {
            let w = (t.bits() / 8) as usize;
            bytes.get(i * w..i * w + w).map(le)
        }
        Packing::LsbFirst => {
            let bits = t.bits() as usize;
            let byte = bytes.get(i * bits / 8)?;
            let shift = (i * bits) % 8;
            Some(u128::from((byte >> shift) & ((1u16 << bits) - 1) as u8))
        }
        Packing::Group4In3 => {
            let word = le(bytes.get(i / 4 * 3..i / 4 * 3 + 3)?);
            Some((word >> (6 * (i % 4))) & 0x3f)
        }
    }
}

/// The first `n` elements of `t` in `bytes`.
pub fn decode(t: ElementType, bytes: &[u8], n: usize) -> Values {
    let raws = (0..n).map_while(|i| raw(t, bytes, i));
    let bits = t.bits();
    match t.kind() {
        ElementKind::Unsigned => Values::Unsigned(raws.map(|r| r as u64).collect()),
        ElementKind::Signed => Values::Signed(
            raws.map(|r| {
                let shift = 128 - bits;
                ((r << shift) as i128 >> shift) as i64
            })
            .collect(),
        ),
        ElementKind::Bool => Values::Bool(raws.map(|r| r != 0).collect()),
        // The format and its bias are the table's (`format`, `bias` in tags/element_type.toml);
        // a float type the table gives no format decodes as NaN.
        ElementKind::Float | ElementKind::Scale => match t.float_format() {
            Some(f) => Values::Float(raws.map(|r| value(f, r)).collect()),
            None => Values::Float(raws.map(|_| f64::NAN).collect()),
        },
        ElementKind::Complex => {
            let half = bits / 2;
            match t.float_format() {
                Some(f) => Values::Complex(
                    raws.map(|r| (value(f, r & ((1u128 << half) - 1)), value(f, r >> half)))
                        .collect(),
                ),
                None => Values::Complex(raws.map(|_| (f64::NAN, f64::NAN)).collect()),
            }
        }
    }
}

/// The value of the raw bits `r` in the float format `f`, its bias the table's.
fn value(f: FloatFormat, r: u128) -> f64 {
    let (e_bits, m_bits) = (f.exponent, f.mantissa);
    if e_bits == 0 || e_bits > 16 {
        return f64::NAN;
    }
    let m = r & ((1u128 << m_bits) - 1);
    let e = ((r >> m_bits) & ((1u128 << e_bits) - 1)) as i64;
    let negative = f.sign == 1 && (r >> (m_bits + e_bits)) & 1 == 1;
    let bias = f.bias;
    let all_ones = (1i64 << e_bits) - 1;
    let width = f.sign + e_bits + m_bits;
    if m_bits == 0 {
        // An exponent-only scale: 2^(b - bias), the all-ones byte NaN.
        if e == all_ones {
            return f64::NAN;
        }
        return 2f64.powi((e - bias) as i32);
    }
    let special = if e_bits >= 5 {
        e == all_ones
    } else {
        width == 8 && e == all_ones && m == (1u128 << m_bits) - 1
    };
    let magnitude = if special {
        if e_bits >= 5 && m == 0 {
            f64::INFINITY
        } else {
            return f64::NAN;
        }
    } else {
        // The mantissa's top 52 bits are enough for an f64.
        let keep = m_bits.min(52);
        let frac = (m >> (m_bits - keep)) as f64 / 2f64.powi(keep as i32);
        if e == 0 {
            frac * 2f64.powi((1 - bias) as i32)
        } else {
            (1.0 + frac) * 2f64.powi((e - bias) as i32)
        }
    };
    if negative { -magnitude } else { magnitude }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(t: ElementType, bytes: &[u8]) -> Vec<f64> {
        match decode(t, bytes, 64) {
            Values::Float(v) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ieee_formats_decode_as_the_native_types() {
        let xs = [1.5f32, -0.0, f32::INFINITY, 3.0e-40, -1234.5];
        let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let got = floats(ElementType::Float32, &bytes);
        for (x, g) in xs.iter().zip(&got) {
            assert_eq!(f64::from(*x).to_bits(), g.to_bits(), "{x}");
        }
        let ys = [2.25f64, -1e300];
        let bytes: Vec<u8> = ys.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(floats(ElementType::Float64, &bytes), ys);
        // float16 0x3c00 = 1.0, 0xc000 = -2.0, 0x0001 = 2^-24, 0x7c00 = inf.
        let got = floats(
            ElementType::Float16,
            &[0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x7c],
        );
        assert_eq!(got, [1.0, -2.0, 2f64.powi(-24), f64::INFINITY]);
        // bfloat16 0x3fc0 = 1.5.
        assert_eq!(floats(ElementType::Bfloat16, &[0xc0, 0x3f]), [1.5]);
    }

    #[test]
    fn narrow_floats_follow_the_ocp_value_maps() {
        // E4M3: 0x7e = 448 (its largest), 0x7f NaN, 0x08 = 2^-6.
        let got = floats(ElementType::Float8E4m3, &[0x7e, 0x7f, 0x08]);
        assert_eq!(got[0], 448.0);
        assert!(got[1].is_nan());
        assert_eq!(got[2], 2f64.powi(-6));
        // E5M2: 0x7c = inf.
        assert_eq!(floats(ElementType::Float8E5m2, &[0x7c]), [f64::INFINITY]);
        // FP4 E2M1, two per byte, low nibble first: 0x7 = 6.0, 0x1 = 0.5.
        assert_eq!(floats(ElementType::Float4E2m1, &[0x17]), [6.0, 0.5]);
        // E8M0: 127 = 1.0, 0xff NaN.
        let got = floats(ElementType::Float8E8m0, &[127, 130, 0xff]);
        assert_eq!(&got[..2], [1.0, 8.0]);
        assert!(got[2].is_nan());
    }

    #[test]
    fn packed_integers_are_lsb_first_and_sign_extended() {
        assert_eq!(
            decode(ElementType::Int4, &[0xf7], 8),
            Values::Signed(vec![7, -1])
        );
        assert_eq!(
            decode(ElementType::Uint2, &[0b1110_0100], 8),
            Values::Unsigned(vec![0, 1, 2, 3])
        );
        assert_eq!(
            decode(ElementType::Bool, &[0b0000_0101], 3),
            Values::Bool(vec![true, false, true])
        );
        assert_eq!(
            decode(ElementType::Int16, &[0xfe, 0xff, 0x02, 0x00], 8),
            Values::Signed(vec![-2, 2])
        );
    }
}
