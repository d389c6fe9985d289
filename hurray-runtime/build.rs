//! Generates the runtime's tag, flag, rule and structure code into `OUT_DIR` from the spec
//! tables `hurray-spec-tables` embeds (a build dependency: editing a table reruns this script).
//!
//! It also tells the build scripts of its dependents where this package's source is
//! (`links = "hurray_runtime"`: they read it as `DEP_HURRAY_RUNTIME_SRC`), so
//! `hurray-runtime-released` can compile this same source against the code of another spec,
//! from the published packages as from the repository.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest_dir = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    println!("cargo::metadata=src={}", manifest_dir.join("src").display());
    hurray_codegen::build::generate_runtime(
        std::path::Path::new(hurray_spec_tables::ROOT),
        hurray_spec_tables::FILES,
        hurray_codegen::build::RUNTIME_FILE,
    );
}
