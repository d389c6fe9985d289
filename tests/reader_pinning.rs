//! `hurray decode --reader AXIS=VERSION [--permissive]`: pinning a reader to a version
//! on each axis, and what the CLI says about data it cannot read.

mod common;

use common::{hurray, read, scratch, shared, stderr};

fn basic() -> String {
    shared()
        .join("conformance/files/basic.hrry")
        .to_string_lossy()
        .to_string()
}

#[test]
fn a_reader_pinned_on_every_axis_reads_released_data() {
    let f = basic();
    let o = hurray(&[
        "decode",
        "--reader",
        "descriptor=1.0",
        "--reader",
        "container=1.0",
        "--reader",
        "scheme.mxfp=1",
        "--permissive",
        &f,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_version_this_build_does_not_support_is_a_usage_error() {
    let f = basic();
    for (arg, says) in [
        ("descriptor=1.1", "reads versions 1.0…1.0"),
        ("descriptor=2.0", "supports major 1 only"),
        ("scheme.mxfp=2", "reads versions 1…1"),
        ("tensor=1.0", "tensor"),
        ("descriptor", "AXIS=VERSION"),
    ] {
        let o = hurray(&["decode", "--reader", arg, &f]);
        assert_eq!(o.status.code(), Some(2), "--reader {arg}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "--reader {arg}: {}", stderr(&o));
    }
}

#[test]
fn data_of_another_major_is_rejected_with_its_code_and_offset() {
    let dir = scratch("reader-pinning-major");
    let mut bytes = read(&shared().join("conformance/files/basic.hrry"));
    bytes[8] = 2; // container_version_major
    let p = dir.join("major2.hrry");
    std::fs::write(&p, &bytes).unwrap();
    let o = hurray(&["decode", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error[major-version-too-high]") && stderr(&o).contains("(at byte 8)"),
        "{}",
        stderr(&o)
    );
    bytes[8] = 0;
    std::fs::write(&p, &bytes).unwrap();
    let o = hurray(&["decode", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error[major-version-too-low]"),
        "{}",
        stderr(&o)
    );
}
