//! Spec fixtures: each is a small edit of the real spec/ plus the diagnostics `check` must
//! report for it. `tests/fixtures/model/<lint>` breaks one model rule; the amendment
//! scenarios live in `tests/fixtures/amendments`. Expected output updates only with
//! `BLESS=1 cargo test --test lints`.

mod common;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::fixtures::materialize;
use common::root;
use hurray_codegen::diag::Diagnostic;

/// One line per diagnostic, with paths relative to the spec tree.
fn short(sources: &hurray_codegen::source::SourceMap, spec: &Path, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let loc = d
            .span
            .map(|s| {
                let f = sources.get(s.file);
                let rel = f
                    .path
                    .strip_prefix(spec)
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| f.display.clone());
                format!("{rel}:{}", f.line_col(s.start as usize))
            })
            .unwrap_or_else(|| "-".to_string());
        let _ = writeln!(
            out,
            "{}[{}] {loc}: {}",
            d.level.as_str(),
            d.lint.id,
            d.message
        );
    }
    out
}

/// Lints seen failing, and lints shown passing, across a group.
struct Seen {
    failing: BTreeSet<String>,
    passing: BTreeSet<String>,
}

fn run_group(group: &str) -> Seen {
    let dir = root().join("tests/fixtures").join(group);
    let bless = std::env::var_os("BLESS").is_some();
    let mut seen = Seen {
        failing: BTreeSet::new(),
        passing: BTreeSet::new(),
    };
    let mut failures = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    for fdir in names {
        let name = fdir.file_name().unwrap().to_string_lossy().to_string();
        let work = common::scratch(&format!("fixtures-{group}-{name}"));
        let (fx, spec) = materialize(&fdir, &work);
        let against = fx
            .against
            .as_ref()
            .map(|other| materialize(&dir.join(other), &work.join("against")).1);
        let checked =
            hurray_codegen::check(&spec, against.as_deref()).expect("the fixture's spec reads");
        let got = short(&checked.sources, &spec, checked.diags.items());
        for d in checked.diags.items() {
            seen.failing.insert(d.lint.id.to_string());
        }
        for p in &fx.passes {
            assert!(
                hurray_codegen::lints::by_id(p).is_some(),
                "{group}/{name}: `passes` names no lint `{p}`"
            );
            if checked
                .diags
                .items()
                .iter()
                .any(|d| d.lint.id == p.as_str())
            {
                failures.push(format!(
                    "{group}/{name}: `{p}` fires although the fixture shows it passing"
                ));
            }
            seen.passing.insert(p.clone());
        }
        let expected_path = fdir.join("expected.txt");
        if bless {
            std::fs::write(&expected_path, &got).unwrap();
        } else {
            let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if want != got {
                failures.push(format!(
                    "{group}/{name} ({}):\n--- expected\n{want}--- got\n{got}",
                    fx.description
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}\nrefresh with `BLESS=1 cargo test --test lints` after reviewing",
        failures.join("\n")
    );
    seen
}

#[test]
fn every_model_lint_has_a_failing_fixture_named_after_it() {
    let seen = run_group("model");
    for l in hurray_codegen::lints::ALL
        .iter()
        .filter(|l| l.rule == "model")
    {
        assert!(
            root().join("tests/fixtures/model").join(l.id).is_dir(),
            "no fixture tests/fixtures/model/{}",
            l.id
        );
        assert!(
            seen.failing.contains(l.id),
            "the fixture for `{}` does not report it",
            l.id
        );
    }
}

#[test]
fn every_amendment_lint_has_a_failing_and_a_passing_fixture() {
    let seen = run_group("amendments");
    for l in hurray_codegen::lints::ALL
        .iter()
        .filter(|l| l.rule != "model")
    {
        assert!(
            seen.failing.contains(l.id),
            "no amendment fixture reports `{}`",
            l.id
        );
        assert!(
            seen.passing.contains(l.id),
            "no amendment fixture shows `{}` passing (list it in a fixture's `passes`)",
            l.id
        );
    }
}

#[test]
fn the_real_spec_is_clean() {
    let checked = hurray_codegen::check(&root().join("spec"), None).unwrap();
    let text = short(
        &checked.sources,
        &root().join("spec"),
        checked.diags.items(),
    );
    assert!(
        checked
            .diags
            .items()
            .iter()
            .all(|d| d.level != hurray_codegen::diag::Level::Error),
        "{text}"
    );
}
