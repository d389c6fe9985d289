//! `hurray decode --reader AXIS=VERSION [--permissive]`: pinning a reader to a version
//! on each axis, and what the CLI says about data it cannot read.

use crate::common::{hurray, read, scratch, shared, stderr};

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
    use hurray_runtime::axes::Axis;
    let f = basic();
    // The versions this build supports are the spec's: from each axis's initial version to
    // its current one; one minor past that is unsupported.
    let (d0, d) = (Axis::Descriptor.initial(), Axis::Descriptor.current());
    let (m0, m) = (Axis::SchemeMxfp.initial(), Axis::SchemeMxfp.current());
    let cases = [
        (
            format!("descriptor={}.{}", d.major, d.minor + 1),
            format!(
                "reads versions {}.{}…{}.{}",
                d0.major, d0.minor, d.major, d.minor
            ),
        ),
        (
            format!("descriptor={}.0", d.major + 1),
            format!("supports major {} only", d.major),
        ),
        (
            format!("scheme.mxfp={}", m.minor + 1),
            format!("reads versions {}…{}", m0.minor, m.minor),
        ),
        ("tensor=1.0".to_string(), "tensor".to_string()),
        ("descriptor".to_string(), "AXIS=VERSION".to_string()),
    ];
    for (arg, says) in &cases {
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
