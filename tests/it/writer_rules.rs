//! The writer rules of the versioning model (W1–W4, VER-9) and the reader rule R3, on the
//! runtime generated from the `compatibility-matrix` amendment (which has features one minor
//! past spec/ on every axis, and deprecates `device.opencl` in favour of `level_zero` at that
//! minor) and on the released runtime (generated from spec/). Versions are read from the two
//! runtimes, so the tests hold whatever versions spec/ has reached.

use hurray_runtime as old;
use hurray_runtime_matrix as new;

use new::axes::Axis;
use new::structures::{KvEntry, KvFloat64, KvValueVariant, KvXFloat32, XChecksum};
use new::tags::{Device, ElementType, KvValue};
use new::wire::{Field, TagSpace as _, TagValue};

fn version_of(bytes: &[u8]) -> (u8, u8) {
    (bytes[4], bytes[5])
}

fn pair(v: new::Version) -> (u8, u8) {
    (v.major, v.minor)
}

/// The version the released build (generated from spec/) has reached on an axis: the
/// amendment's features are one minor past it.
fn released(axis: Axis) -> new::Version {
    let v = old::axes::Axis::from_name(axis.name())
        .expect("the released build has the axis")
        .current();
    new::Version::new(v.major, v.minor)
}

fn rule_of(e: new::writer::WriteError) -> &'static str {
    match e {
        new::writer::WriteError::Invalid(e) => e.id(),
        new::writer::WriteError::Io(e) => panic!("unexpected I/O error {e}"),
    }
}

fn old_rule_of(e: old::writer::WriteError) -> &'static str {
    match e {
        old::writer::WriteError::Invalid(e) => e.id(),
        old::writer::WriteError::Io(e) => panic!("unexpected I/O error {e}"),
    }
}

#[test]
fn w1_w2_the_writer_declares_the_lowest_version_that_covers_what_it_emits() {
    let initial = pair(Axis::Descriptor.initial());
    let amended = pair(Axis::Descriptor.current());
    let plain = new::writer::finalize(new::writer::row_major(ElementType::Float32, &[4])).unwrap();
    assert_eq!(
        version_of(&plain),
        initial,
        "nothing newer: the initial version (W1)"
    );
    let tag =
        new::writer::finalize(new::writer::row_major(ElementType::XFloat8E3m4, &[4])).unwrap();
    assert_eq!(
        version_of(&tag),
        amended,
        "an element type of the amendment: its version (W2)"
    );
    let mut d = new::writer::row_major(ElementType::Float32, &[4]);
    d.x_checksum = Some(XChecksum::new(7));
    let gated = new::writer::finalize(d).unwrap();
    assert_eq!(version_of(&gated), amended, "a section of the amendment");
    let c = new::descriptor::read(&gated, &new::ReaderConfig::new()).unwrap();
    assert!(
        c.view()
            .fixed_header()
            .flags()
            .has(new::flags::DescriptorFlags::X_HAS_CHECKSUM),
        "the gating flag follows the section's presence"
    );
    let mut d = new::writer::row_major(ElementType::Float32, &[4]);
    d.x_producer_id = Some(9);
    assert_eq!(version_of(&new::writer::finalize(d).unwrap()), amended);
    // The released runtime's writer declares the initial version for the same descriptor.
    let o = old::writer::finalize(old::writer::row_major(
        old::tags::ElementType::Float32,
        &[4],
    ))
    .unwrap();
    assert_eq!(version_of(&o), initial);
    assert_eq!(o, plain, "both builds write the 1.0 descriptor identically");
}

#[test]
fn w2_the_file_writer_refuses_a_file_newer_than_its_declared_container_version() {
    let d = new::writer::finalize(new::writer::row_major(ElementType::Float32, &[4])).unwrap();
    let kv = vec![KvEntry::new(
        "k".into(),
        TagValue::new(KvValue::XFloat32),
        KvValueVariant::XFloat32(KvXFloat32::new(1.5)),
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
    let e = write(released(Axis::Container)).unwrap_err();
    assert_eq!(rule_of(e), "VER-6");
    let bytes = write(Axis::Container.current()).unwrap();
    let f = new::file::read(&bytes, &new::ReaderConfig::new()).unwrap();
    assert_eq!(
        f.kv()
            .unwrap()
            .entries()
            .get(0)
            .expect("one KV entry")
            .value_tag()
            .raw(),
        KvValue::XFloat32.value()
    );
    // A released KV value in a file of the initial version is fine.
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
            .with_version(Axis::Descriptor, released(Axis::Descriptor))
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
    // An element type of the amendment makes the descriptor the amendment's version, so the
    // amendment's trailing field is written too (as its default), and descriptor_length
    // covers it.
    let bytes =
        new::writer::finalize(new::writer::row_major(ElementType::XFloat8E3m4, &[4])).unwrap();
    let c = new::descriptor::read(&bytes, &new::ReaderConfig::new()).unwrap();
    assert_eq!(
        c.view().x_producer_id(),
        Field::Read(0),
        "written, not defaulted"
    );
    assert_eq!(
        c.view().fixed_header().descriptor_length() as usize,
        bytes.len()
    );
    // A reader of the version before skips exactly the field's 4 bytes (it rejects the new
    // element type, so the descriptor is read permissively).
    let before = new::ReaderConfig::new()
        .with_version(Axis::Descriptor, released(Axis::Descriptor))
        .unwrap()
        .permissive(true);
    let c = new::descriptor::read(&bytes, &before).unwrap();
    assert_eq!(c.view().skipped().len(), 4);
    let plain = new::writer::finalize(new::writer::row_major(ElementType::Float32, &[4])).unwrap();
    // The file writer does the same for the index section at the amendment's container version.
    let options = new::writer::FileOptions {
        container_version: Axis::Container.current(),
        ..Default::default()
    };
    let mut w = new::writer::FileWriter::new(Vec::new(), &options).unwrap();
    w.add_tensor("t", &plain, &[&[0u8; 16]]).unwrap();
    let file = w.finish(&[]).unwrap();
    let f = new::file::read(&file, &new::ReaderConfig::new()).unwrap();
    assert_eq!(
        f.index_section().unwrap().x_index_generation(),
        Field::Read(0)
    );
}

#[test]
fn ver_9_no_writer_sets_a_reserved_bit_or_value() {
    use old::flags::DescriptorFlags;
    use old::wire::{FlagSet as _, TagClass, TagSpace as _};
    // A reserved descriptor flag bit: the highest the released build has not allocated.
    let reserved = (0..32)
        .rev()
        .find(|b| DescriptorFlags::ALLOCATED >> b & 1 == 0)
        .expect("a reserved bit");
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.fixed_header.flags = DescriptorFlags(1 << reserved);
    assert_eq!(old_rule_of(old::writer::finalize(d).unwrap_err()), "VER-9");
    // A flag bit of the amendment is reserved to the released build.
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.fixed_header.flags = DescriptorFlags(new::flags::DescriptorFlags::X_HAS_CHECKSUM.0);
    assert_eq!(old_rule_of(old::writer::finalize(d).unwrap_err()), "VER-9");
    // An element type of the amendment is unallocated to the released build.
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.fixed_header.type_tag = old::wire::TagValue::from_raw(ElementType::XFloat8E3m4.value());
    assert_eq!(old_rule_of(old::writer::finalize(d).unwrap_err()), "VER-9");
    // A reserved or unallocated sync mode.
    let unknown = (0..=255)
        .rev()
        .find(|v| {
            matches!(
                old::tags::SyncMode::classify(*v),
                TagClass::Reserved | TagClass::UnallocatedPublic { .. }
            )
        })
        .expect("an unallocated sync mode");
    let mut d = old::writer::row_major(old::tags::ElementType::Float32, &[4]);
    d.buffer_table.buffers[0].sync_mode = old::wire::TagValue::from_raw(unknown);
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
    assert_eq!((e.id(), e.offset()), ("DAT-3", 4096 + 1));
    assert!(w.add_tensor("t", &d, &[&[0x7F; 4]]).is_ok());
}
