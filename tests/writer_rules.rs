//! The writer rules of the versioning model (W1–W4, VER-9) and the reader rule R3, on the
//! runtime generated from the `compatibility-matrix` amendment (which has 1.1 features on
//! every axis and deprecates `device.opencl` in favour of `level_zero` at 1.1) and on the
//! released runtime.

use hurray_runtime as old;
use hurray_runtime_matrix as new;

use new::structures::{Checksum, KvEntry, KvFloat32, KvFloat64, KvValueVariant};
use new::tags::{Device, ElementType, KvValue};
use new::wire::{Field, TagValue};

fn version_of(bytes: &[u8]) -> (u8, u8) {
    (bytes[4], bytes[5])
}

fn rule_of(e: new::writer::WriteError) -> &'static str {
    match e {
        new::writer::WriteError::Invalid(e) => e.rule().id(),
        new::writer::WriteError::Io(e) => panic!("unexpected I/O error {e}"),
    }
}

fn old_rule_of(e: old::writer::WriteError) -> &'static str {
    match e {
        old::writer::WriteError::Invalid(e) => e.rule().id(),
        old::writer::WriteError::Io(e) => panic!("unexpected I/O error {e}"),
    }
}

#[test]
fn w1_w2_the_writer_declares_the_lowest_version_that_covers_what_it_emits() {
    let plain = new::writer::finalize(new::writer::row_major(ElementType::Float32, &[4])).unwrap();
    assert_eq!(version_of(&plain), (1, 0), "nothing from 1.1: 1.0 (W1)");
    let tag = new::writer::finalize(new::writer::row_major(ElementType::Float8E3m4, &[4])).unwrap();
    assert_eq!(version_of(&tag), (1, 1), "a 1.1 element type: 1.1 (W2)");
    let mut d = new::writer::row_major(ElementType::Float32, &[4]);
    d.checksum = Some(Checksum::new(7));
    let gated = new::writer::finalize(d).unwrap();
    assert_eq!(version_of(&gated), (1, 1), "a 1.1 section: 1.1");
    let c = new::descriptor::read(&gated, &new::ReaderConfig::new()).unwrap();
    assert!(
        c.view()
            .fixed_header()
            .flags()
            .has(new::flags::DescriptorFlags::HAS_CHECKSUM),
        "the gating flag follows the section's presence"
    );
    let mut d = new::writer::row_major(ElementType::Float32, &[4]);
    d.producer_id = Some(9);
    assert_eq!(version_of(&new::writer::finalize(d).unwrap()), (1, 1));
    // The released runtime's writer declares 1.0 for everything it can write.
    let o = old::writer::finalize(old::writer::row_major(
        old::tags::ElementType::Float32,
        &[4],
    ))
    .unwrap();
    assert_eq!(version_of(&o), (1, 0));
    assert_eq!(o, plain, "both builds write the 1.0 descriptor identically");
}

#[test]
fn w2_the_file_writer_refuses_a_file_newer_than_its_declared_container_version() {
    let d = new::writer::finalize(new::writer::row_major(ElementType::Float32, &[4])).unwrap();
    let kv = vec![KvEntry::new(
        "k".into(),
        TagValue::new(KvValue::Float32),
        KvValueVariant::Float32(KvFloat32::new(1.5)),
    )];
    let write = |v: new::Version| {
        let options = new::writer::FileOptions {
            container_version: v,
            kv: true,
            ..Default::default()
        };
        let mut w = new::writer::FileWriter::new(Vec::new(), &options).unwrap();
        w.add_tensor("t", &d, &[&[0u8; 16]]).unwrap();
        w.finish(&kv)
    };
    let e = write(new::Version::new(1, 0)).unwrap_err();
    assert_eq!(rule_of(e), "VER-6");
    let bytes = write(new::Version::new(1, 1)).unwrap();
    let f = new::file::read(&bytes, &new::ReaderConfig::new()).unwrap();
    assert_eq!(f.kv().unwrap().entries()[0].value_tag().raw(), 0x08);
    // A 1.0 KV value in a 1.0 file is fine.
    let kv64 = vec![KvEntry::new(
        "k".into(),
        TagValue::new(KvValue::Float64),
        KvValueVariant::Float64(KvFloat64::new(1.5)),
    )];
    let options = new::writer::FileOptions {
        kv: true,
        ..Default::default()
    };
    let mut w = new::writer::FileWriter::new(Vec::new(), &options).unwrap();
    w.add_tensor("t", &d, &[&[0u8; 16]]).unwrap();
    assert!(w.finish(&kv64).is_ok());
}

#[test]
fn w3_a_deprecated_value_with_a_replacement_is_refused() {
    let mut d = new::writer::row_major(ElementType::Float32, &[4]);
    // `Device::Opencl` is `#[deprecated]` in the generated API; the raw value is what a
    // caller converting foreign data would pass.
    d.buffer_table.buffers[0].device_tag = TagValue::from_raw(0x08);
    let e = new::writer::finalize(d).unwrap_err();
    assert_eq!(rule_of(e), "VER-7");
    let mut d = new::writer::row_major(ElementType::Float32, &[4]);
    d.buffer_table.buffers[0].device_tag = TagValue::new(Device::LevelZero);
    assert!(
        new::writer::finalize(d).is_ok(),
        "the replacement is accepted"
    );
    // The released build knows no deprecation and writes it.
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.buffer_table.buffers[0].device_tag = old::wire::TagValue::from_raw(0x08);
    assert!(old::writer::finalize(d).is_ok());
}

#[test]
fn r3_a_deprecated_value_reads_as_its_original_meaning() {
    // Written by the released build (where opencl is not deprecated), read by the newer one.
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.buffer_table.buffers[0].device_tag = old::wire::TagValue::from_raw(0x08);
    let bytes = old::writer::finalize(d).unwrap();
    for config in [
        new::ReaderConfig::new(),
        new::ReaderConfig::new()
            .with_version_str("descriptor=1.0")
            .unwrap(),
    ] {
        let c = new::descriptor::read(&bytes, &config).unwrap();
        let tag = c
            .view()
            .buffer_table()
            .buffers()
            .get(0)
            .unwrap()
            .device_tag();
        #[allow(deprecated)]
        let opencl = Device::Opencl;
        assert_eq!(tag.get(), Ok(opencl));
        assert!(c.warnings().is_empty() && c.dereferenceable());
        assert_eq!(
            new::wire::TagSpace::replacement(opencl),
            Some(Device::LevelZero)
        );
    }
}

#[test]
fn w4_an_appended_field_is_written_whole_whenever_its_version_is_declared() {
    // A 1.1 element type makes the descriptor 1.1, so its 1.1 trailing field is written too
    // (as its default), and descriptor_length covers it.
    let bytes =
        new::writer::finalize(new::writer::row_major(ElementType::Float8E3m4, &[4])).unwrap();
    let c = new::descriptor::read(&bytes, &new::ReaderConfig::new()).unwrap();
    assert_eq!(
        c.view().producer_id(),
        Field::Read(0),
        "written, not defaulted"
    );
    assert_eq!(
        c.view().fixed_header().descriptor_length() as usize,
        bytes.len()
    );
    let plain = new::writer::finalize(new::writer::row_major(ElementType::Float32, &[4])).unwrap();
    assert_eq!(bytes.len(), plain.len() + 4);
    // The file writer does the same for the index section at container 1.1.
    let options = new::writer::FileOptions {
        container_version: new::Version::new(1, 1),
        ..Default::default()
    };
    let mut w = new::writer::FileWriter::new(Vec::new(), &options).unwrap();
    w.add_tensor("t", &plain, &[&[0u8; 16]]).unwrap();
    let file = w.finish(&[]).unwrap();
    let f = new::file::read(&file, &new::ReaderConfig::new()).unwrap();
    assert_eq!(
        f.index_section().unwrap().index_generation(),
        Field::Read(0)
    );
}

#[test]
fn ver_9_no_writer_sets_a_reserved_bit_or_value() {
    // A reserved descriptor flag bit.
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.fixed_header.flags = old::flags::DescriptorFlags(1 << 30);
    assert_eq!(old_rule_of(old::writer::finalize(d).unwrap_err()), "VER-9");
    // A 1.1 flag bit is reserved to the released build.
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.fixed_header.flags = old::flags::DescriptorFlags(1 << 5);
    assert_eq!(old_rule_of(old::writer::finalize(d).unwrap_err()), "VER-9");
    // Reserved and unallocated tag values.
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.fixed_header.type_tag = old::wire::TagValue::from_raw(0x4C);
    assert_eq!(old_rule_of(old::writer::finalize(d).unwrap_err()), "VER-9");
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.buffer_table.buffers[0].sync_mode = old::wire::TagValue::from_raw(0x7F);
    assert_eq!(old_rule_of(old::writer::finalize(d).unwrap_err()), "VER-9");
    // A reserved file flag bit.
    let mut h = old::structures::FileHeader::new(
        b"HRRYFILE".to_vec(),
        1,
        0,
        old::flags::FileFlags(1 << 15),
        4096,
        64,
        0,
    );
    let e = old::writer::FileWriter::with_header(Vec::new(), h.clone()).unwrap_err();
    assert_eq!(old_rule_of(e), "VER-9");
    h.file_flags = old::flags::FileFlags(0);
    assert!(old::writer::FileWriter::with_header(Vec::new(), h).is_ok());
}

#[test]
fn the_file_writer_never_writes_data_a_reader_rejects() {
    use old::tags::ElementType as T;
    let d = old::writer::finalize(old::writer::row_major(T::Float8E8m0, &[4])).unwrap();
    let mut w =
        old::writer::FileWriter::new(Vec::new(), &old::writer::FileOptions::default()).unwrap();
    // float8_e8m0 byte 0x00 is forbidden in data (DAT-3); the error names the byte it would
    // have been written at.
    let e = w
        .add_tensor("t", &d, &[&[0x7F, 0x00, 0x7F, 0x7F]])
        .unwrap_err();
    let old::writer::WriteError::Invalid(e) = e else {
        panic!("expected a rule violation");
    };
    assert_eq!((e.rule().id(), e.offset()), ("DAT-3", 4096 + 1));
    assert!(w.add_tensor("t", &d, &[&[0x7F; 4]]).is_ok());
}
