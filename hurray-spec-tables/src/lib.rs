//! The Hurray format's spec tables, embedded: every TOML file of the `spec/` tree (tag spaces,
//! flag sets, structures, rules, resolutions, release records), as text.
//!
//! This crate has no code of its own. It lets the spec travel with the crates generated from
//! it: `hurray-runtime`'s build script and `hurray-derive` read the tables from here rather
//! than from a directory on disk, so they work from any crate, any folder and any target
//! directory, and from their published packages. Load the tables with
//! `hurray_codegen::load_files(hurray_spec_tables::ROOT, hurray_spec_tables::FILES)`.
//!
//! In the source repository the package's `spec/` is a symbolic link to the repository's
//! `spec/`, the one place spec editors edit; `cargo package` copies the files themselves.
//! Editing a table recompiles this crate and what depends on it, never `hurray-codegen`.
//!
//! ```
//! let spec = hurray_spec_tables::FILES
//!     .iter()
//!     .find(|(path, _)| *path == "spec.toml")
//!     .map(|(_, text)| *text)
//!     .expect("every spec tree has a spec.toml");
//! assert!(spec.contains("[[axis]]"));
//! ```

/// The directory the tables were embedded from (an absolute path, without symbolic links).
/// Paths in [`FILES`] are relative to it; diagnostics name files under it.
pub const ROOT: &str = env!("HURRAY_SPEC_TABLES_ROOT");

/// Every TOML file of the spec tree, as `(path relative to ROOT with '/' separators, text)`,
/// sorted by path.
pub static FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/spec_files.rs"));

#[cfg(test)]
mod tests {
    /// The embedded tree is the whole spec directory: every TOML file under `ROOT`, with its
    /// current text.
    #[test]
    fn embeds_every_table_of_the_tree() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("the spec directory is readable") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "toml") {
                    out.push(path);
                }
            }
        }
        let root = std::path::Path::new(super::ROOT);
        let mut on_disk = Vec::new();
        walk(root, &mut on_disk);
        assert!(on_disk.len() > 20, "the spec tree has its tables");
        assert_eq!(on_disk.len(), super::FILES.len());
        for (relative, text) in super::FILES {
            let disk = std::fs::read_to_string(root.join(relative)).expect("embedded file exists");
            assert_eq!(&disk, text, "{relative} is embedded with its current text");
        }
    }
}
