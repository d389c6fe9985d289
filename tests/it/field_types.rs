//! A cross-major change of a field's integer type, as a spec editor makes it: descriptor 2.0
//! turns `byte_offset` from `u64` into `i64` with its S5 migration
//! (`tests/fixtures/amendments/major-byte-offset-signed`, which `check` accepts: the lints
//! test runs it). The runtime generated from it, `tests/runtime-signed` (linked here, so this
//! binary does not build unless it compiles), is `hurray-runtime`'s own hand-written source
//! with no edit: the semantic layer takes field values through `semantic::size::Integer`,
//! never by the type a table gives them. It reads the amended data, and a negative offset,
//! which no unsigned field could hold, is a rejection with the rule's stable code at the
//! field's byte, never a panic.

use crate::common::{read, root};
use hurray_runtime_signed as signed;

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
