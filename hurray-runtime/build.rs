//! Generates the runtime's tag, flag, rule and structure code from `spec/` into `OUT_DIR`.

fn main() {
    let manifest = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let spec = manifest.join("..").join("spec");
    hurray_codegen::build::generate_runtime(&spec, "hurray_generated.rs");
}
