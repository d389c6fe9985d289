//! An extension crate outside the `hurray-spec` workspace, written as a stranger would: two
//! sections linked to structures of the spec, checked against it when this crate compiles
//! (there is no `spec_dir`: the spec comes with `hurray-derive`'s own dependencies), and a
//! private quantization scheme with a field appended in its second version.

use hurray_derive::HurraySection;
use hurray_runtime::TagValue;
use hurray_runtime::tags::Scheme;

/// The header every quantization payload begins with, linked to the spec's
/// `quantization_header`.
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(spec = "quantization_header")]
pub struct QuantizationHeader {
    pub scheme_tag: TagValue<Scheme>,
    pub scheme_version: u8,
    pub flags: u16,
}

/// The MXFP payload, linked to the spec's `mxfp`: if the spec's structure changes, this crate
/// stops compiling with an error naming the difference.
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed, base = 1, spec = "mxfp")]
pub struct Mxfp {
    pub header: QuantizationHeader,
    pub axis: u32,
    pub block_size: u32,
    pub scale_buffer_index: u32,
}

/// The private scheme tag this crate and its readers agree on out of band.
pub const LUT_TAG: u8 = 0xF3;

/// A private lookup-table scheme: a table buffer and a bit width, and a bias appended in
/// scheme version 2 with its documented default (S4).
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed, base = 1)]
pub struct LutScheme {
    pub table_buffer_index: u32,
    pub bits: u8,
    #[hurray(reserved)]
    pub _pad: [u8; 3],
    #[hurray(since = 2, default = 0.0)]
    pub bias: f32,
}
