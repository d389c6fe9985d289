use hurray_derive::HurraySection;
use hurray_runtime::TagValue;
use hurray_runtime::tags::Scheme;

#[derive(HurraySection, Clone, Copy)]
#[hurray(spec = "quantization_header")]
struct QuantizationHeader {
    scheme_tag: TagValue<Scheme>,
    scheme_version: u8,
    flags: u16,
}

/// Appends a field the spec's MXFP payload does not have.
#[derive(HurraySection, Clone, Copy)]
#[hurray(length_prefixed, base = 1, spec = "mxfp")]
struct Mxfp {
    header: QuantizationHeader,
    axis: u32,
    block_size: u32,
    scale_buffer_index: u32,
    #[hurray(since = 2, default = 0.0)]
    bias_correction: f32,
}

fn main() {}
