//! Generates this runtime from the embedded spec tables with the `major-byte-offset-signed` amendment applied.

fn main() {
    let here = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    println!("cargo:rerun-if-changed=build.rs");
    hurray_codegen::build::generate_runtime_with_overlay(
        std::path::Path::new(hurray_spec_tables::ROOT),
        hurray_spec_tables::FILES,
        &here.join("../../tests/fixtures/amendments/major-byte-offset-signed/edit.toml"),
        "hurray_generated.rs",
    );
}
