//! Compile-time rejections, one UI test per rule, each with its expected `.stderr`
//! (regenerate with `TRYBUILD=overwrite cargo test -p hurray-derive --test ui` after review).

#[test]
fn illegal_sections_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
