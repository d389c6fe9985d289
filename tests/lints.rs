//! Spec fixtures: each is a small edit of the real spec/ plus the diagnostics `check` must
//! report for it. `tests/fixtures/model/<lint>` breaks one model rule; the amendment
//! scenarios live in `tests/fixtures/amendments`. Expected output updates only with
//! `BLESS=1 cargo test --test lints`.

mod common;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::root;
use hurray_codegen::diag::Diagnostic;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Fixture {
    description: String,
    #[serde(default)]
    edit: Vec<Edit>,
    /// `--against` another tree: a fixture name whose edited spec is the other tree.
    against: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Edit {
    file: String,
    find: Option<String>,
    replace: Option<String>,
    append: Option<String>,
    content: Option<String>,
    remove: Option<bool>,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Build the edited spec tree of a fixture under `work`.
fn materialize(fixture_dir: &Path, work: &Path) -> (Fixture, PathBuf) {
    let fx: Fixture = toml::from_str(&std::fs::read_to_string(fixture_dir.join("edit.toml")).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", fixture_dir.display()));
    let spec = work.join("spec");
    copy_dir(&root().join("spec"), &spec);
    for ed in &fx.edit {
        let path = spec.join(&ed.file);
        if ed.remove == Some(true) {
            std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{}: remove {}: {e}", fixture_dir.display(), ed.file));
            continue;
        }
        if let Some(c) = &ed.content {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, c).unwrap();
            continue;
        }
        let mut text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {}: {e}", fixture_dir.display(), ed.file));
        if let (Some(f), Some(r)) = (&ed.find, &ed.replace) {
            let n = text.matches(f.as_str()).count();
            assert_eq!(n, 1, "{}: `find` must match exactly once in {} (matched {n} times):\n{f}", fixture_dir.display(), ed.file);
            text = text.replacen(f.as_str(), r, 1);
        }
        if let Some(a) = &ed.append {
            text.push_str(a);
        }
        std::fs::write(&path, text).unwrap();
    }
    (fx, spec)
}

/// One line per diagnostic, with paths relative to the spec tree.
fn short(sources: &hurray_codegen::source::SourceMap, spec: &Path, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let loc = d
            .span
            .map(|s| {
                let f = sources.get(s.file);
                let rel = f.path.strip_prefix(spec).map(|p| p.display().to_string()).unwrap_or_else(|_| f.display.clone());
                format!("{rel}:{}", f.line_col(s.start as usize))
            })
            .unwrap_or_else(|| "-".to_string());
        let _ = writeln!(out, "{}[{}] {loc}: {}", d.level.as_str(), d.lint.id, d.message);
    }
    out
}

fn run_group(group: &str) -> BTreeSet<String> {
    let dir = root().join("tests/fixtures").join(group);
    let bless = std::env::var_os("BLESS").is_some();
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    names.sort();
    for fdir in names {
        let name = fdir.file_name().unwrap().to_string_lossy().to_string();
        let work = common::scratch(&format!("fixtures-{group}-{name}"));
        let (fx, spec) = materialize(&fdir, &work);
        let against = fx.against.as_ref().map(|other| materialize(&dir.join(other), &work.join("against")).1);
        let checked = hurray_codegen::check(&spec, against.as_deref()).expect("the fixture's spec reads");
        let got = short(&checked.sources, &spec, checked.diags.items());
        for d in checked.diags.items() {
            seen.insert(d.lint.id.to_string());
        }
        let expected_path = fdir.join("expected.txt");
        if bless {
            std::fs::write(&expected_path, &got).unwrap();
        } else {
            let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if want != got {
                failures.push(format!("{group}/{name} ({}):\n--- expected\n{want}--- got\n{got}", fx.description));
            }
        }
    }
    assert!(failures.is_empty(), "{}\nrefresh with `BLESS=1 cargo test --test lints` after reviewing", failures.join("\n"));
    seen
}

#[test]
fn every_model_lint_has_a_failing_fixture_named_after_it() {
    let seen = run_group("model");
    for l in hurray_codegen::lints::ALL.iter().filter(|l| l.rule == "model") {
        assert!(root().join("tests/fixtures/model").join(l.id).is_dir(), "no fixture tests/fixtures/model/{}", l.id);
        assert!(seen.contains(l.id), "the fixture for `{}` does not report it", l.id);
    }
}

#[test]
fn the_real_spec_is_clean() {
    let checked = hurray_codegen::check(&root().join("spec"), None).unwrap();
    let text = short(&checked.sources, &root().join("spec"), checked.diags.items());
    assert!(checked.diags.items().iter().all(|d| d.level != hurray_codegen::diag::Level::Error), "{text}");
}
