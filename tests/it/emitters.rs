//! The emitters' contract on every spec that checks clean — the real one and every amendment
//! fixture's: the Rust emitter's token stream parses (`emit::rust::format` panics on one that
//! does not, so emitting is the test), the generated views never read again with a reader
//! configuration of their own or drop an error, the Markdown emitter renders every page, and
//! the Kaitai emitter describes every structure.

use std::path::PathBuf;

use crate::common::fixtures::materialize;
use crate::common::{self, root};

/// The real spec tree and every amendment fixture's, with a name for messages.
fn spec_trees() -> Vec<(String, PathBuf)> {
    let mut out = vec![("spec".to_string(), root().join("spec"))];
    let dir = root().join("tests/fixtures/amendments");
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("edit.toml").is_file())
        .collect();
    fixtures.sort();
    for f in fixtures {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let work = common::scratch(&format!("emitters-{name}"));
        let tree = materialize(&f, &work).tree;
        out.push((name, tree));
    }
    out
}

#[test]
fn every_clean_spec_emits_rust_that_parses_markdown_and_kaitai() {
    let mut emitted = 0;
    for (name, tree) in spec_trees() {
        let loaded = hurray_codegen::load(&tree).expect("the tree reads");
        let Some(spec) = loaded.clean() else {
            continue; // a fixture that shows a finding; nothing is emitted from it
        };
        let code = hurray_codegen::emit::rust::runtime(spec);
        // A view keeps what its parse read: it never parses again with a configuration,
        // a bound rule or an error handling of its own.
        for pattern in ["ReaderConfig::new()", "Rule::ALL[0]", ".ok()"] {
            assert!(
                !code.contains(pattern),
                "{name}: the generated runtime contains `{pattern}`"
            );
        }
        let pages = hurray_codegen::emit::markdown::pages(spec);
        assert!(pages.iter().all(|(_, text)| !text.is_empty()), "{name}");
        let ksy = hurray_codegen::emit::kaitai::ksy(spec);
        for s in &spec.structures {
            assert!(
                ksy.contains(&format!("\n  {}:\n", s.name)),
                "{name}: the Kaitai description has no type `{}`",
                s.name
            );
        }
        emitted += 1;
    }
    assert!(emitted > 1, "the real spec and at least one amendment emit");
}
