//! `hurray-spec` builds without the runtime; a data command given to it runs the `hurray`
//! binary beside it, with the same exit code and streams.

use crate::common::{hurray_spec, shared, stderr, stdout};

#[test]
fn a_data_command_is_forwarded_to_the_hurray_binary() {
    let file = shared().join("conformance/files/basic.hrry");
    let out = hurray_spec(&["decode", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("file 1.0, "), "{}", stdout(&out));
    let out = hurray_spec(&["decode", "/nonexistent/forwarding-test"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
