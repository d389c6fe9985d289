//! The worked example of the versioning model (versioning § Worked Example, RES-6), across two
//! builds. `tests/fixtures/amendments/mxfp-bias-correction` is spec/ as released plus "MXFP
//! appends `bias_correction: float32`, default 0.0, after its last field" (the payload grows
//! by 4 bytes, `scheme_version` goes one up); the field is named `x_bias_correction`, as every
//! name an overlay adds, so that no real amendment collides with it. `hurray-runtime-mxfp2` is
//! generated from that tree by its own build script; `hurray-runtime` is the released build.
//! Each test is one step. Versions and the payload's length are read from the two builds, so
//! the steps hold whatever spec/ has reached.

use crate::common::{fixtures, hurray, hurray_spec, root, scratch, stderr, stdout};
use serde_json::Value as J;

use hurray_runtime as old;
use hurray_runtime_mxfp2 as new;

const FIXTURE: &str = "tests/fixtures/amendments/mxfp-bias-correction";

/// The MXFP payload's length and `scheme_version` as the released build writes them.
fn released_payload() -> (u32, u8) {
    let bytes = old_descriptor();
    let c = old::descriptor::read(&bytes, &old::ReaderConfig::new()).unwrap();
    let q = c.view().quantization().unwrap();
    let old::structures::SchemeVariantView::Mxfp(m) = q.payload() else {
        panic!("expected MXFP");
    };
    (q.quantization_length(), m.header().scheme_version())
}

/// The amendment's `scheme_version`.
fn amended_version() -> u8 {
    new::axes::Axis::SchemeMxfp.current().minor
}

/// An MXFP-quantized int8 [2, 64] tensor, blocks of 32 along axis 1, written by the newer build
/// with `bias_correction` when given.
fn new_descriptor(bias_correction: Option<f32>) -> Vec<u8> {
    use new::structures::*;
    use new::tags::{ElementType, Scheme};
    let mut d = new::writer::row_major(ElementType::Int8, &[2, 64]);
    let mut scale = d.buffer_table.buffers[0].clone();
    scale.byte_size = 4;
    d.buffer_table.buffers.push(scale);
    let mut m = Mxfp::new(
        QuantizationHeader::new(new::wire::TagValue::new(Scheme::Mxfp), 0, 0),
        1,
        32,
        1,
    );
    m.x_bias_correction = bias_correction;
    d.quantization = Some(QuantizationSection::new(SchemeVariant::Mxfp(m)));
    new::writer::finalize(d).expect("the newer writer accepts its own descriptor")
}

/// The same tensor written by the released build.
fn old_descriptor() -> Vec<u8> {
    use old::structures::*;
    use old::tags::{ElementType, Scheme};
    let mut d = old::writer::row_major(ElementType::Int8, &[2, 64]);
    let mut scale = d.buffer_table.buffers[0].clone();
    scale.byte_size = 4;
    d.buffer_table.buffers.push(scale);
    let m = Mxfp::new(
        QuantizationHeader::new(old::wire::TagValue::new(Scheme::Mxfp), 0, 0),
        1,
        32,
        1,
    );
    d.quantization = Some(QuantizationSection::new(SchemeVariant::Mxfp(m)));
    old::writer::finalize(d).expect("the released writer accepts its own descriptor")
}

fn new_mxfp<'a>(
    c: &new::descriptor::Checked<'a>,
) -> (
    new::structures::QuantizationSectionView<'a>,
    new::structures::MxfpView<'a>,
) {
    let q = c.view().quantization().expect("a quantization section");
    match q.payload() {
        new::structures::SchemeVariantView::Mxfp(m) => (q, m),
        other => panic!("expected an MXFP payload, got {other:?}"),
    }
}

#[test]
fn bias_correction_step_1_the_amendment_passes_check_and_documents_its_default() {
    let work = scratch("worked-example-check");
    let spec = fixtures::materialize(&root().join(FIXTURE), &work).tree;
    let spec_arg = spec.to_str().unwrap();
    let o = hurray_spec(&["check", "--spec", spec_arg, "--against", "spec"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("MINOR on `scheme.mxfp`: field `mxfp.x_bias_correction` added"),
        "{}",
        stdout(&o)
    );
    // The generated defaults table of the amended spec documents the default (R4).
    let loaded = hurray_codegen::load(&spec).unwrap();
    let model = loaded.clean().expect("the amended spec is clean");
    let pages = hurray_codegen::emit::markdown::pages(model);
    let defaults = &pages.iter().find(|(n, _)| n == "defaults.md").unwrap().1;
    let row = defaults
        .lines()
        .find(|l| l.contains("x_bias_correction"))
        .unwrap_or_else(|| panic!("no bias_correction row in defaults.md:\n{defaults}"));
    assert!(
        row.contains("0.0")
            && row.contains("`scheme.mxfp`")
            && row.contains(&format!("| {} |", amended_version())),
        "{row}"
    );
    // And the generated runtime's defaults table carries it.
    let d = new::axes::DEFAULTS
        .iter()
        .find(|f| f.field == "x_bias_correction")
        .expect("bias_correction in the generated defaults table");
    assert_eq!(d.axis, new::axes::Axis::SchemeMxfp);
    assert_eq!(d.since, new::axes::Axis::SchemeMxfp.current());
}

#[test]
fn bias_correction_step_2_the_new_writer_emits_the_field_and_the_right_length() {
    let bytes = new_descriptor(Some(0.25));
    let c = new::descriptor::read(&bytes, &new::ReaderConfig::new()).unwrap();
    let (q, m) = new_mxfp(&c);
    let payload = m.bytes();
    assert_eq!(
        q.quantization_length() as usize,
        payload.len(),
        "the length prefix covers the new field (W4)"
    );
    assert_eq!(
        &payload[payload.len() - 4..],
        &0.25f32.to_le_bytes()[..],
        "the field is the payload's last 4 bytes"
    );
    assert_eq!(
        m.header().scheme_version(),
        amended_version(),
        "W1/W2: the version that defines the field"
    );
    assert_eq!(m.x_bias_correction(), new::wire::Field::Read(0.25));
    // Without the field, the newer writer emits the lowest version that covers what it
    // writes: what the released build writes.
    let bytes = new_descriptor(None);
    let c = new::descriptor::read(&bytes, &new::ReaderConfig::new()).unwrap();
    let (q, m) = new_mxfp(&c);
    assert_eq!(
        (q.quantization_length(), m.header().scheme_version()),
        released_payload()
    );
    assert_eq!(
        bytes,
        old_descriptor(),
        "identical to what the released build writes"
    );
}

#[test]
fn bias_correction_step_3_the_released_runtime_reads_new_data_skipping_4_bytes() {
    let bytes = new_descriptor(Some(0.25));
    let c = old::descriptor::read(&bytes, &old::ReaderConfig::new())
        .expect("CD2: a newer scheme minor is read for every field the reader defines");
    let q = c.view().quantization().unwrap();
    let old::structures::SchemeVariantView::Mxfp(m) = q.payload() else {
        panic!("expected MXFP");
    };
    assert_eq!(
        (m.axis(), m.block_size(), m.scale_buffer_index()),
        (1, 32, 1)
    );
    assert_eq!(
        m.skipped(),
        &0.25f32.to_le_bytes()[..],
        "skipped through quantization_length"
    );
    assert!(c.dereferenceable() && c.warnings().is_empty());
    // Its JSON marks the skipped bytes, and encoding that JSON restores the exact bytes.
    let dir = scratch("worked-example-json");
    let path = dir.join("new.bin");
    std::fs::write(&path, &bytes).unwrap();
    let o = hurray(&["decode", "--json", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: J = serde_json::from_str(&stdout(&o)).unwrap();
    let skipped = &j["evolution"]["skipped"][0];
    assert_eq!(skipped["length"], 4, "{j:#}");
    assert_eq!(skipped["bytes"], "0000803e");
    let json_path = dir.join("new.json");
    std::fs::write(&json_path, stdout(&o)).unwrap();
    let out = dir.join("again.bin");
    let o = hurray(&[
        "encode",
        json_path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
}

#[test]
fn bias_correction_step_4_the_new_runtime_reads_new_data_including_the_field() {
    let bytes = new_descriptor(Some(0.25));
    let c = new::descriptor::read(&bytes, &new::ReaderConfig::new()).unwrap();
    let (_, m) = new_mxfp(&c);
    assert_eq!(m.x_bias_correction(), new::wire::Field::Read(0.25));
    assert!(m.skipped().is_empty());
    // Pinned to the released scheme version, the same build reads it as the released one does.
    let released = old::axes::Axis::SchemeMxfp.current();
    let pinned = new::ReaderConfig::new()
        .with_version(
            new::axes::Axis::SchemeMxfp,
            new::Version::new(released.major, released.minor),
        )
        .unwrap();
    let c = new::descriptor::read(&bytes, &pinned).unwrap();
    let (_, m) = new_mxfp(&c);
    assert_eq!(m.skipped(), &0.25f32.to_le_bytes()[..]);
    assert_eq!(m.x_bias_correction(), new::wire::Field::Defaulted(0.0));
}

#[test]
fn bias_correction_step_5_the_new_runtime_reads_old_data_with_the_default() {
    let bytes = old_descriptor();
    let c = new::descriptor::read(&bytes, &new::ReaderConfig::new())
        .expect("CD1: an older scheme minor is read normally");
    let (q, m) = new_mxfp(&c);
    assert_eq!(
        (q.quantization_length(), m.header().scheme_version()),
        released_payload()
    );
    let b = m.x_bias_correction();
    assert!(
        b.is_defaulted(),
        "the caller can tell the default from a value read (R4)"
    );
    assert_eq!(b.value(), 0.0);
    assert!(c.dereferenceable() && c.warnings().is_empty());
    // The owned form and the contract mark it too.
    let v = new::contract::descriptor_value(&c.view().owned());
    let text = format!("{v:?}");
    assert!(
        text.contains("\"x_bias_correction\", Defaulted(Float(0.0))"),
        "{text}"
    );
}

#[test]
fn bias_correction_data_claiming_an_older_version_with_its_bytes_is_rejected() {
    // RES-7: at a version the reader knows, the payload length must match exactly.
    let mut bytes = new_descriptor(Some(0.25));
    let (at, payload) = {
        let c = new::descriptor::read(&bytes, &new::ReaderConfig::new()).unwrap();
        let (_, m) = new_mxfp(&c);
        (m.header().scheme_version_at() as usize, m.offset())
    };
    let (released_length, released_version) = released_payload();
    bytes[at] = released_version;
    let e = new::descriptor::read(&bytes, &new::ReaderConfig::new()).unwrap_err();
    assert_eq!(e.id(), "H7", "{e}");
    assert_eq!(e.offset(), payload + u64::from(released_length), "{e}");
}
