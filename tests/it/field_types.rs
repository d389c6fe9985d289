//! A cross-major change of field types, as a spec editor makes it: descriptor 2.0 turns every
//! integer field that may change type signed at the same width (`u8` → `i8` … `u64` → `i64`,
//! `byte_offset` among them), with its S5 migration
//! (`tests/fixtures/amendments/major-every-integer-signed`, which `check` accepts: the lints
//! test runs it). The runtime generated from it, `tests/runtime-signed` (linked here, so this
//! binary does not build unless it compiles), is `hurray-runtime`'s own hand-written source
//! with no edit: the semantic layer, the file reader and the writer take field values through
//! `semantic::size::Integer`, never by the type a table gives them. It reads the amended
//! data, and a negative value, which no unsigned field could hold, is a rejection with a rule's
//! stable code, never a panic.

use crate::common::{read, root};
use hurray_runtime_signed as signed;
use serde_json::Value as J;

/// The corpus's row-major vector with an offset (`edge-row-major-offset`, 1.0) as data of the
/// amended major, its `byte_offset` set to `offset`; and where the field is.
fn at_next_major(offset: i64) -> (Vec<u8>, u64) {
    let mut b = read(&root().join("tests/corpus/valid/edge-row-major-offset.bin"));
    let released = hurray_runtime::descriptor::read(&b, &hurray_runtime::ReaderConfig::new())
        .expect("the corpus vector reads");
    let at = released.view().byte_offset_at();
    let v = signed::axes::Axis::Descriptor.current();
    b[signed::structures::FixedHeaderView::OFFSET_VERSION_MAJOR] = v.major;
    b[signed::structures::FixedHeaderView::OFFSET_VERSION_MINOR] = v.minor;
    let i = usize::try_from(at).unwrap();
    b[i..i + 8].copy_from_slice(&offset.to_le_bytes());
    (b, at)
}

#[test]
fn the_runtime_of_a_signed_byte_offset_reads_its_data() {
    assert!(
        signed::axes::Axis::Descriptor.current().major
            > hurray_runtime::axes::Axis::Descriptor.current().major,
        "the amendment is a major bump"
    );
    let (b, _) = at_next_major(8);
    let d = signed::descriptor::read(&b, &signed::ReaderConfig::new())
        .unwrap_or_else(|e| panic!("the amended runtime reads its own data: {e}"));
    let off: i64 = d.view().byte_offset();
    assert_eq!(off, 8);
}

#[test]
fn a_negative_byte_offset_is_a_rejection_with_its_rules_code() {
    let (b, at) = at_next_major(-8);
    let Err(e) = signed::descriptor::read(&b, &signed::ReaderConfig::new()) else {
        panic!("a negative byte_offset is rejected")
    };
    let rule = e.rule().expect("a rule's rejection");
    assert_eq!(e.code(), rule.code(), "{e}");
    assert!(
        e.code().chars().all(|c| c.is_ascii_lowercase() || c == '-'),
        "{e}"
    );
    assert_eq!(e.offset(), at, "{e}");
    assert!(e.detail().contains("negative"), "{e}");
    // Permissively, and at every offset the arithmetic meets, no panic either.
    for off in [-1, i64::MIN, i64::MAX, -(1 << 40)] {
        let (b, _) = at_next_major(off);
        for permissive in [false, true] {
            let config = signed::ReaderConfig::new().permissive(permissive);
            if let Ok(d) = signed::descriptor::read(&b, &config) {
                assert!(off >= 0 || !d.dereferenceable(), "{off} accepted");
            }
        }
    }
}

/// Every valid descriptor vector of the corpus without a tag-space agreement, relabelled as data of the amended major, with
/// the reader configuration its manifest records.
fn corpus_at_next_major() -> Vec<(String, Vec<u8>, signed::ReaderConfig)> {
    let dir = root().join("tests/corpus/valid");
    let manifest: J = serde_json::from_slice(&read(&dir.join("manifest.json"))).unwrap();
    let v = signed::axes::Axis::Descriptor.current();
    let mut out = Vec::new();
    for (name, m) in manifest.as_object().unwrap() {
        if m["kind"] != "descriptor" {
            continue;
        }
        // Agreements name tag spaces by the released runtime's types; the vectors without
        // one are most of the corpus.
        if m["agree"].as_array().is_some_and(|a| !a.is_empty()) {
            continue;
        }
        let mut cfg = signed::ReaderConfig::new().permissive(m["permissive"].as_bool().unwrap());
        for id in m["agree_extension_layouts"].as_array().unwrap() {
            cfg = cfg.agree_extension_layout(id.as_u64().unwrap());
        }
        let mut b = read(&dir.join(format!("{name}.bin")));
        b[signed::structures::FixedHeaderView::OFFSET_VERSION_MAJOR] = v.major;
        b[signed::structures::FixedHeaderView::OFFSET_VERSION_MINOR] = v.minor;
        out.push((name.clone(), b, cfg));
    }
    assert!(out.len() >= 100, "only {} descriptor vectors", out.len());
    out
}

#[test]
fn the_signed_runtime_reads_every_golden_descriptor_at_its_major() {
    // The same bytes mean the same values while they are below the signed range, so every
    // valid vector stays valid: the conversions changed no rule.
    let mut failures = Vec::new();
    for (name, b, cfg) in corpus_at_next_major() {
        if let Err(e) = signed::descriptor::read(&b, &cfg) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_negative_value_in_any_field_is_a_rejection_or_a_reading_never_a_panic() {
    // Setting one byte to 0xFF makes the field whose top byte it is negative (and every other
    // field it lands in large): each is read, or rejected with a rule's kebab-case code at a
    // byte of the descriptor.
    let (mut read_count, mut rejected) = (0, 0);
    for (name, b, cfg) in corpus_at_next_major() {
        for i in signed::structures::FixedHeaderView::OFFSET_DESCRIPTOR_LENGTH..b.len() {
            let mut m = b.clone();
            m[i] = 0xFF;
            match signed::descriptor::read(&m, &cfg) {
                Ok(_) => read_count += 1,
                Err(e) => {
                    rejected += 1;
                    assert!(
                        !e.code().is_empty()
                            && e.code()
                                .chars()
                                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                        "{name} byte {i}: {e}"
                    );
                    assert!(e.offset() <= m.len() as u64, "{name} byte {i}: {e}");
                }
            }
        }
    }
    assert!(
        rejected > 0 && read_count > 0,
        "{rejected} rejected, {read_count} read"
    );
}
