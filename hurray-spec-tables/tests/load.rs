//! The embedded tables load, through `hurray_codegen::load_files`, as the very spec the
//! directory they were embedded from loads as; and a broken table's diagnostics name its file.

use std::path::Path;

use hurray_codegen::diag::{self, Format};

#[test]
fn the_embedded_tables_load_as_the_spec_directory_does() {
    let root = Path::new(hurray_spec_tables::ROOT);
    let from_disk = hurray_codegen::load(root).expect("the spec directory reads");
    let from_memory = hurray_codegen::load_files(root, hurray_spec_tables::FILES);
    let (disk, memory) = (
        from_disk.clean().expect("the spec on disk is clean"),
        from_memory.clean().expect("the embedded spec is clean"),
    );
    assert_eq!(
        hurray_codegen::emit::rust::runtime(disk),
        hurray_codegen::emit::rust::runtime(memory),
        "the runtime generated from either source is the same"
    );
    let names = |l: &hurray_codegen::Loaded| -> Vec<String> {
        l.sources.files().map(|(_, f)| f.display.clone()).collect()
    };
    assert_eq!(names(&from_disk), names(&from_memory));
}

#[test]
fn a_broken_table_is_reported_at_its_file_under_the_root() {
    let files: Vec<(&str, &str)> = hurray_spec_tables::FILES
        .iter()
        .map(|&(path, text)| {
            if path == "tags/layout.toml" {
                (path, "[space\nname = ")
            } else {
                (path, text)
            }
        })
        .collect();
    let loaded = hurray_codegen::load_files("/draft/spec", &files);
    assert!(loaded.clean().is_none());
    let text = diag::render(&loaded.sources, loaded.diags.items(), Format::Human);
    assert!(
        text.contains("/draft/spec/tags/layout.toml:1:"),
        "the diagnostic names the file and line:\n{text}"
    );
}

#[test]
fn a_tree_without_spec_toml_is_a_diagnostic_not_silence() {
    let files: Vec<(&str, &str)> = hurray_spec_tables::FILES
        .iter()
        .copied()
        .filter(|(path, _)| *path != "spec.toml")
        .collect();
    let loaded = hurray_codegen::load_files("/draft/spec", &files);
    assert!(loaded.diags.has_errors());
    let text = diag::render(&loaded.sources, loaded.diags.items(), Format::Human);
    assert!(text.contains("no spec.toml"), "{text}");
}

/// No second copy that can drift: in the source repository the tables are the repository's
/// own `spec/` (the package's `spec` is a symbolic link to it); in a published package they
/// are the package's files.
#[test]
fn the_tables_are_the_one_spec_directory() {
    let manifest = manifest_dir();
    let root = Path::new(hurray_spec_tables::ROOT);
    let repository_spec = manifest.join("../spec");
    if repository_spec.join("spec.toml").is_file() {
        assert_eq!(
            root,
            repository_spec.canonicalize().unwrap(),
            "hurray-spec-tables/spec must link to the repository's spec/, not copy it"
        );
        assert!(
            std::fs::symlink_metadata(manifest.join("spec"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    } else {
        assert_eq!(root, manifest.join("spec").canonicalize().unwrap());
    }
}

/// This checkout's package directory: cargo's value when it runs the test (a test binary
/// built in another checkout that shares the target directory is reused here, with that
/// checkout's compile-time path), else the compile-time one.
fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
        || env!("CARGO_MANIFEST_DIR").into(),
        std::path::PathBuf::from,
    )
}
