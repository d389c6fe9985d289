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

/// Claims to be the spec's MXFP payload, but its block size is 16 bits wide.
#[derive(HurraySection, Clone, Copy)]
#[hurray(length_prefixed, base = 1, spec = "mxfp")]
struct Mxfp {
    header: QuantizationHeader,
    axis: u32,
    block_size: u16,
    scale_buffer_index: u32,
}

fn main() {}
