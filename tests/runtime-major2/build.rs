//! Generates this runtime from the embedded spec tables with `edit.toml` applied (the next descriptor major, one device value dropped).

fn main() {
    hurray_codegen::build::generate_test_runtime(
        std::path::Path::new(hurray_spec_tables::ROOT),
        hurray_spec_tables::FILES,
        "edit.toml",
    );
}
