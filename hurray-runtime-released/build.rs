//! Generates the released runtime: from the archived tables of the last release when the
//! embedded spec has a pending major (`hurray_codegen::build::generate_released_runtime`),
//! else nothing (the crate re-exports `hurray-runtime`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    hurray_codegen::build::generate_released_runtime(
        std::path::Path::new(hurray_spec_tables::ROOT),
        hurray_spec_tables::FILES,
        "hurray_generated.rs",
    );
}
