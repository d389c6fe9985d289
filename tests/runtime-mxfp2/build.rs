//! Generates this runtime from spec/ with the `mxfp-bias-correction` amendment applied.

fn main() {
    let here = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let root = here.join("../..");
    hurray_codegen::build::generate_runtime_with_overlay(
        &root.join("spec"),
        &root.join("tests/fixtures/amendments/mxfp-bias-correction/edit.toml"),
        "hurray_generated.rs",
    );
}
