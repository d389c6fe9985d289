//! Sections declared with the derive, read and written at every version: older data read
//! with defaults (R4), newer data read skipping what the reader does not know (CD2, RES-7),
//! whole trailing fields written at the lowest covering version (W1, W4).

use hurray_derive::HurraySection;
use hurray_runtime::section::Section;
use hurray_runtime::tags::{Device, Scheme};
use hurray_runtime::{Field, TagValue, Version};

const V1: Version = Version::new(1, 0);
const V11: Version = Version::new(1, 1);
const V12: Version = Version::new(1, 2);

/// A private section that grew twice.
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed)]
struct Grown {
    id: u32,
    #[hurray(reserved)]
    _r: [u8; 2],
    kind: u16,
    #[hurray(since = "1.1", default = 7)]
    level: u8,
    #[hurray(since = "1.2", default = -1.5)]
    gain: f32,
}

/// A fixed section nested in another.
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
struct Pair {
    a: u16,
    b: u16,
}

#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed)]
struct Outer {
    #[hurray(offset = 0)]
    pair: Pair,
    #[hurray(offset = 4)]
    device: TagValue<Device>,
    scheme: TagValue<Scheme>,
    flags: hurray_runtime::flags::DescriptorFlags,
}

fn grown() -> Grown {
    Grown {
        id: 0x0102_0304,
        _r: [0; 2],
        kind: 9,
        level: 3,
        gain: 2.0,
    }
}

#[test]
fn offsets_sizes_and_versions_follow_the_fields() {
    assert_eq!(
        (
            Grown::OFFSET_ID,
            Grown::OFFSET_R,
            Grown::OFFSET_KIND,
            Grown::OFFSET_LEVEL,
            Grown::OFFSET_GAIN
        ),
        (0, 4, 6, 8, 9)
    );
    assert_eq!(Grown::SIZE, 13);
    assert_eq!(Grown::VERSIONS, &[(V1, 8), (V11, 9), (V12, 13)]);
    assert_eq!(Grown::size_at(V11), 9);
    assert_eq!(Grown::latest(), V12);
    assert_eq!(Outer::SIZE, 4 + 1 + 1 + 4);
    assert_eq!(Outer::OFFSET_FLAGS, 6);
}

#[test]
fn every_version_round_trips() {
    for v in [V1, V11, V12] {
        let mut out = Vec::new();
        grown().write_at(v, &mut out);
        assert_eq!(out.len(), Grown::size_at(v), "W4: whole fields up to {v}");
        let d = Grown::read(&out, v, V12).unwrap();
        let mut again = Vec::new();
        d.value.write_at(v, &mut again);
        assert_eq!(again, out);
    }
}

#[test]
fn older_data_reads_with_defaults() {
    let mut out = Vec::new();
    grown().write_at(V1, &mut out);
    let d = Grown::read(&out, V1, V12).unwrap();
    assert_eq!((d.value.level, d.value.gain), (7, -1.5));
    assert_eq!(d.defaulted, vec!["level", "gain"]);
    let view = GrownView::new(&out, V1, V12).unwrap();
    assert_eq!(view.id(), 0x0102_0304);
    assert_eq!(view.level(), Field::Defaulted(7));
    assert_eq!(view.gain(), Field::Defaulted(-1.5));
}

#[test]
fn newer_data_reads_skipping_what_the_reader_does_not_know() {
    let mut out = Vec::new();
    grown().write_at(V12, &mut out);
    let d = Grown::read(&out, V12, V11).unwrap();
    assert_eq!(d.skipped, 4);
    assert_eq!(
        (d.value.level, d.value.gain),
        (3, -1.5),
        "the 1.1 reader reads level and defaults gain"
    );
    let view = GrownView::new(&out, V12, V11).unwrap();
    assert_eq!(view.level(), Field::Read(3));
    assert!(view.gain().is_defaulted());
    assert_eq!(view.skipped(), 4);
}

#[test]
fn surplus_at_a_known_version_and_short_data_are_rejected() {
    let mut out = Vec::new();
    grown().write_at(V11, &mut out);
    out.push(0);
    assert_eq!(Grown::read(&out, V11, V12).unwrap_err().id(), "LEN-1");
    assert_eq!(Grown::read(&out[..5], V1, V12).unwrap_err().id(), "SEC-2");
}

#[test]
fn reserved_fields_must_be_zero() {
    let mut out = Vec::new();
    grown().write_at(V1, &mut out);
    out[4] = 1;
    let e = Grown::read(&out, V1, V12).unwrap_err();
    assert_eq!((e.id(), e.code()), ("SEC-1", "reserved-nonzero"));
}

#[test]
fn writers_pick_the_lowest_version_covering_non_default_fields() {
    let mut g = grown();
    assert_eq!(g.required_version(), V12);
    g.gain = -1.5;
    assert_eq!(g.required_version(), V11);
    g.level = 7;
    assert_eq!(g.required_version(), V1);
    let mut out = Vec::new();
    assert_eq!(g.write(&mut out), V1);
    assert_eq!(out.len(), 8);
}

#[test]
fn nested_sections_tags_and_flags_are_wire_fields() {
    let o = Outer {
        pair: Pair { a: 1, b: 2 },
        device: TagValue::new(Device::Cuda),
        scheme: TagValue::new(Scheme::Mxfp),
        flags: hurray_runtime::flags::DescriptorFlags::HAS_SHARD,
    };
    let mut out = Vec::new();
    o.write_at(V1, &mut out);
    assert_eq!(out, [1, 0, 2, 0, 1, 5, 2, 0, 0, 0]);
    let back = Outer::read(&out, V1, V1).unwrap().value;
    assert_eq!(back, o);
    let view = OuterView::new(&out, V1, V1).unwrap();
    assert_eq!(view.pair(), Pair { a: 1, b: 2 });
    assert_eq!(view.scheme().get(), Ok(Scheme::Mxfp));
}

/// A struct linked to the spec's MXFP payload: the derive read spec/ at compile time and
/// found the fields, types, since and offsets equal.
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(spec = "quantization_header")]
struct QuantizationHeader {
    scheme_tag: TagValue<Scheme>,
    scheme_version: u8,
    flags: u16,
}

#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed, base = 1, spec = "mxfp")]
struct Mxfp {
    header: QuantizationHeader,
    axis: u32,
    block_size: u32,
    scale_buffer_index: u32,
}

#[test]
fn a_spec_linked_section_reads_real_mxfp_payloads() {
    let payload = [5, 1, 0, 0, 1, 0, 0, 0, 32, 0, 0, 0, 1, 0, 0, 0];
    let m = Mxfp::read(&payload, Version::new(1, 1), Version::new(1, 1))
        .unwrap()
        .value;
    assert_eq!(
        (
            m.header.scheme_tag.get(),
            m.axis,
            m.block_size,
            m.scale_buffer_index
        ),
        (Ok(Scheme::Mxfp), 1, 32, 1)
    );
    assert_eq!(Mxfp::SIZE, 16);
}

/// A section that carries its own length prefix (a flag-gated section framed by its first
/// field), grown once.
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed)]
struct SelfPrefixed {
    #[hurray(length_prefix)]
    length: u32,
    id: u64,
    #[hurray(since = "1.1", default = 0)]
    generation: u16,
}

#[test]
fn a_sections_own_length_prefix_is_computed_by_the_writer() {
    // Given as 0 (or anything), written as the length of what is written at that version.
    let s = SelfPrefixed {
        length: 0,
        id: 7,
        generation: 0,
    };
    let mut out = Vec::new();
    assert_eq!(s.write(&mut out), V1);
    assert_eq!(out.len(), 12);
    assert_eq!(u32::from_le_bytes(out[..4].try_into().unwrap()), 12);
    let mut out = Vec::new();
    SelfPrefixed { generation: 3, ..s }.write_at(V11, &mut out);
    assert_eq!(out.len(), 14);
    assert_eq!(u32::from_le_bytes(out[..4].try_into().unwrap()), 14);
    // What a reader gets back is the prefix as written.
    let back = SelfPrefixed::read(&out, V11, V11).unwrap();
    assert_eq!(back.value.length, 14);
    assert_eq!(back.value.generation, 3);
}
