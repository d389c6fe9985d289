// Included twice by lib.rs, once per runtime (`runtime` names it): a downstream crate's code,
// written against the released spec, that must keep compiling against a newer one.

use runtime::axes::Axis;
use runtime::structures::SchemeVariantView;
use runtime::tags::{ElementType, Scheme};

/// What a tool written against the released spec makes of an element type: every value the
/// released spec allocates is named, a value allocated later reaches the wildcard arm.
pub fn element_family(element_type: ElementType) -> &'static str {
    match element_type {
        ElementType::Float16
        | ElementType::Bfloat16
        | ElementType::Float32
        | ElementType::Float64
        | ElementType::Float128 => "float",
        ElementType::Float8E4m3
        | ElementType::Float8E5m2
        | ElementType::Float8E8m0
        | ElementType::Float6E2m3
        | ElementType::Float6E3m2
        | ElementType::Float4E2m1 => "microfloat",
        ElementType::Int8
        | ElementType::Int16
        | ElementType::Int32
        | ElementType::Int64
        | ElementType::Int4
        | ElementType::Int2 => "signed",
        ElementType::Uint8
        | ElementType::Uint16
        | ElementType::Uint32
        | ElementType::Uint64
        | ElementType::Uint4
        | ElementType::Uint2 => "unsigned",
        ElementType::Bool => "bool",
        ElementType::Complex64 | ElementType::Complex128 => "complex",
        _ => "newer than this tool",
    }
}

/// Every quantization scheme of the released spec, and the wildcard for later ones.
pub fn scheme_family(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::PerTensorAffine | Scheme::PerChannelAffine | Scheme::PerBlockAffine => "affine",
        Scheme::Nf4 => "lookup",
        Scheme::Mxfp => "microscaling",
        _ => "newer than this tool",
    }
}

/// Every version axis of the released spec; a new scheme's axis reaches the wildcard.
pub fn axis_family(axis: Axis) -> &'static str {
    match axis {
        Axis::Descriptor | Axis::Container => "structure",
        Axis::Protocol => "protocol",
        Axis::SchemePerTensorAffine
        | Axis::SchemePerChannelAffine
        | Axis::SchemePerBlockAffine
        | Axis::SchemeNf4
        | Axis::SchemeMxfp => "scheme",
        _ => "newer than this tool",
    }
}

/// The payload of a quantization section, by the structure its scheme selects.
pub fn payload_family(payload: &SchemeVariantView<'_>) -> &'static str {
    match payload {
        SchemeVariantView::PerTensorAffine(_)
        | SchemeVariantView::PerChannelAffine(_)
        | SchemeVariantView::PerBlockAffine(_) => "affine",
        SchemeVariantView::Nf4(_) => "lookup",
        SchemeVariantView::Mxfp(_) => "microscaling",
        _ => "another payload",
    }
}
