//! The crate docs' example, end to end: a private quantization scheme declared with the derive,
//! written into a descriptor, read back by a reader that agreed on it, and skipped by one that
//! did not (permissive; a strict one rejects it).

use hurray_derive::HurraySection;
use hurray_runtime::section::Section;
use hurray_runtime::structures::{QuantizationSection, SchemeVariantView};
use hurray_runtime::tags::{ElementType, Scheme};
use hurray_runtime::{ReaderConfig, Version, descriptor, writer};

#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed, base = 1)]
struct LutScheme {
    table_buffer_index: u32,
    bits: u8,
    #[hurray(reserved)]
    _pad: [u8; 3],
    #[hurray(since = 2, default = 0.0)]
    bias: f32,
}

const TAG: u8 = 0xF3;

fn descriptor_with(lut: &LutScheme) -> Vec<u8> {
    let mut data = Vec::new();
    let v = lut.write(&mut data);
    let mut d = writer::row_major(ElementType::Uint8, &[4, 4]);
    d.quantization = Some(QuantizationSection {
        payload: writer::private_scheme(TAG, v.minor, 0, data),
    });
    let agreed = ReaderConfig::new().agree::<Scheme>(u32::from(TAG));
    writer::finalize_with(d, &agreed).expect("a valid descriptor")
}

#[test]
fn a_reader_that_knows_the_scheme_reads_it() {
    let lut = LutScheme {
        table_buffer_index: 1,
        bits: 4,
        _pad: [0; 3],
        bias: 0.25,
    };
    let bytes = descriptor_with(&lut);
    let cfg = ReaderConfig::new().agree::<Scheme>(u32::from(TAG));
    let d = descriptor::read(&bytes, &cfg).unwrap();
    assert!(d.dereferenceable());
    let Some(SchemeVariantView::Private(tag, p)) = d.view().quantization().map(|q| q.payload())
    else {
        panic!("a private payload")
    };
    assert_eq!(tag, u32::from(TAG));
    let version = Version::new(1, p.header().scheme_version());
    let back = LutScheme::read(p.data(), version, LutScheme::latest()).unwrap();
    assert_eq!(back.value, lut);
}

#[test]
fn a_reader_that_does_not_know_it_skips_or_rejects_it() {
    let bytes = descriptor_with(&LutScheme {
        table_buffer_index: 1,
        bits: 4,
        _pad: [0; 3],
        bias: 0.0,
    });
    let strict = descriptor::read(&bytes, &ReaderConfig::new()).unwrap_err();
    assert_eq!(strict.rule().id(), "QNT-2");
    let skipped = descriptor::read(&bytes, &ReaderConfig::new().permissive(true)).unwrap();
    assert!(
        !skipped.dereferenceable(),
        "an unknown scheme is never dereferenced (RES-9)"
    );
    assert_eq!(skipped.view().shape().to_vec(), vec![4, 4]);
}

#[test]
fn a_version_1_scheme_is_written_when_the_bias_is_its_default() {
    let bytes = descriptor_with(&LutScheme {
        table_buffer_index: 1,
        bits: 4,
        _pad: [0; 3],
        bias: 0.0,
    });
    let d = descriptor::read(&bytes, &ReaderConfig::new().agree::<Scheme>(u32::from(TAG))).unwrap();
    let Some(SchemeVariantView::Private(_, p)) = d.view().quantization().map(|q| q.payload())
    else {
        panic!()
    };
    assert_eq!(p.header().scheme_version(), 1);
    assert_eq!(
        p.data().len(),
        8,
        "W1: the 1.1 bias is left out when it holds its default"
    );
    let back = LutScheme::read(p.data(), Version::new(1, 1), LutScheme::latest()).unwrap();
    assert_eq!(back.defaulted, vec!["bias"]);
}
