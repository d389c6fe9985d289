//! Generates this runtime from the embedded spec tables with the `major-every-integer-signed` amendment applied.

fn main() {
    hurray_codegen::build::generate_test_runtime(
        std::path::Path::new(hurray_spec_tables::ROOT),
        hurray_spec_tables::FILES,
        "../../tests/fixtures/amendments/major-every-integer-signed/edit.toml",
    );
}
