//! Generates the runtime's tag, flag, rule and structure code into `OUT_DIR` from the spec
//! tables `hurray-spec-tables` embeds (a build dependency: editing a table reruns this script).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    hurray_codegen::build::generate_runtime(
        std::path::Path::new(hurray_spec_tables::ROOT),
        hurray_spec_tables::FILES,
        hurray_codegen::build::RUNTIME_FILE,
    );
}
