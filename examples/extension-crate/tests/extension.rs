//! The example crate's sections against descriptors the runtime writes and reads.

use hurray_extension_example::{LUT_TAG, LutScheme, Mxfp};
use hurray_runtime::section::Section;
use hurray_runtime::structures::{self, QuantizationSection, SchemeVariant, SchemeVariantView};
use hurray_runtime::tags::{ElementType, Scheme};
use hurray_runtime::wire::TagValue;
use hurray_runtime::{ReaderConfig, Version, descriptor, writer};

#[test]
fn the_spec_linked_section_reads_the_runtimes_mxfp_payload() {
    let mut d = writer::row_major(ElementType::Int8, &[2, 64]);
    let mut scale = d.buffer_table.buffers[0].clone();
    scale.byte_size = 4;
    d.buffer_table.buffers.push(scale);
    d.quantization = Some(QuantizationSection::new(SchemeVariant::Mxfp(
        structures::Mxfp::new(
            structures::QuantizationHeader::new(TagValue::new(Scheme::Mxfp), 0, 0),
            1,
            32,
            1,
        ),
    )));
    let bytes = writer::finalize(d).expect("a valid MXFP descriptor");
    let read = descriptor::read(&bytes, &ReaderConfig::new()).expect("it reads back");
    let Some(SchemeVariantView::Mxfp(view)) = read.view().quantization().map(|q| q.payload())
    else {
        panic!("an MXFP payload");
    };
    let version = Version::new(1, view.header().scheme_version());
    let ours = Mxfp::read(view.bytes(), version, Mxfp::latest()).expect("the payload reads");
    assert_eq!(ours.value.header.scheme_tag.get(), Ok(Scheme::Mxfp));
    assert_eq!(
        (
            ours.value.axis,
            ours.value.block_size,
            ours.value.scale_buffer_index
        ),
        (view.axis(), view.block_size(), view.scale_buffer_index())
    );
    let mut again = Vec::new();
    ours.value.write_at(version, &mut again);
    assert_eq!(again, view.bytes(), "written back byte for byte");
}

#[test]
fn the_private_scheme_round_trips_and_old_readers_see_the_default() {
    let lut = LutScheme {
        table_buffer_index: 1,
        bits: 4,
        _pad: [0; 3],
        bias: 0.5,
    };
    let mut payload = Vec::new();
    let version = lut.write(&mut payload);
    assert_eq!(
        version,
        Version::new(1, 2),
        "the bias needs scheme version 2 (W1)"
    );
    let mut d = writer::row_major(ElementType::Uint8, &[4, 4]);
    d.quantization = Some(QuantizationSection {
        payload: writer::private_scheme(LUT_TAG, version.minor, 0, payload),
    });
    let agreed = ReaderConfig::new().agree::<Scheme>(u32::from(LUT_TAG));
    let bytes = writer::finalize_with(d, &agreed).expect("a valid descriptor");

    let read = descriptor::read(&bytes, &agreed).expect("an agreeing reader reads it");
    let Some(SchemeVariantView::Private(_, p)) = read.view().quantization().map(|q| q.payload())
    else {
        panic!("a private payload");
    };
    let data_version = Version::new(1, p.header().scheme_version());
    let back = LutScheme::read(p.data(), data_version, LutScheme::latest()).unwrap();
    assert_eq!(back.value, lut);
    let old = LutScheme::read(p.data(), data_version, Version::new(1, 1)).unwrap();
    assert_eq!(
        (old.value.bias, old.skipped),
        (0.0, 4),
        "CD2 skip, R4 default"
    );
    assert!(
        descriptor::read(&bytes, &ReaderConfig::new()).is_err(),
        "a strict stranger rejects it"
    );
}
