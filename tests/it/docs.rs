//! The checked-in Markdown tables under docs/spec are exactly what the spec generates.

use crate::common::{self, root};
use hurray_codegen::emit::markdown;

#[test]
fn generated_docs_are_up_to_date() {
    let loaded = hurray_codegen::load(&root().join("spec")).expect("spec loads");
    let spec = loaded.clean().expect("spec/ is clean");
    let mut stale = Vec::new();
    let pages = markdown::pages(spec);
    for (name, text) in &pages {
        let path = root().join("docs/spec").join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(name.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "docs/spec is out of date ({}); refresh it with `{}`",
        stale.join(", "),
        markdown::COMMAND
    );
    // No stray page either.
    for e in std::fs::read_dir(root().join("docs/spec")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            pages.iter().any(|(n, _)| *n == name),
            "docs/spec/{name} is not generated; remove it or run `{}`",
            markdown::COMMAND
        );
    }
}

#[test]
fn docs_check_mode_fails_on_drift_and_names_the_command() {
    let dir = common::scratch("docs-drift");
    let ok = common::hurray_spec(&["docs", "--out", dir.to_str().unwrap()]);
    assert!(ok.status.success());
    std::fs::write(dir.join("tags.md"), "edited by hand\n").unwrap();
    let out = common::hurray_spec(&["docs", "--check", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = common::stderr(&out);
    assert!(
        err.contains("tags.md") && err.contains(markdown::COMMAND),
        "{err}"
    );
}
