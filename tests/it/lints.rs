//! Spec fixtures: each is an overlay of the real spec/ plus the diagnostics `check` must
//! report for it. `tests/fixtures/model/<lint>` breaks one model rule; the amendment
//! scenarios live in `tests/fixtures/amendments`. Expected output updates only with
//! `BLESS=1 cargo test --test it lints::`.
//!
//! A fixture must mean the same after any legal amendment of spec/, so it states its intent
//! against the model (see `hurray_codegen::overlay`), and its `expected.txt` names what an
//! amendment moves with the same `${…}` placeholders (`${descriptor}`, `${release}`, …) and
//! locates each finding by the TOML item it is on, not by line. The last test proves it:
//! every fixture gives the same findings on spec/ amended by `tests/fixtures/legal-amendment`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::fixtures::{materialize_on, short};
use crate::common::{self, root};

/// Lints seen failing, and lints shown passing, across a group.
struct Seen {
    failing: BTreeSet<String>,
    passing: BTreeSet<String>,
}

/// Whether the finding `line` (as [`short`] writes it) is on the item `about` or one of its
/// own keys (not an entry of one of its lists).
fn is_about(line: &str, about: &str) -> bool {
    let loc = line
        .split(' ')
        .nth(1)
        .map_or("", |l| l.trim_end_matches(':'));
    loc == about
        || loc
            .strip_prefix(about)
            .and_then(|rest| rest.strip_prefix('.').or_else(|| rest.strip_prefix(':')))
            .is_some_and(|key| !key.contains('['))
}

/// The lines of `got` on the items a fixture is `about` (all of them when it names none).
fn only_about(got: String, about: &[String]) -> String {
    if about.is_empty() {
        return got;
    }
    got.lines()
        .filter(|l| about.iter().any(|a| is_about(l, a)))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The checker reports a changed tag range once for every release record that holds it (a
/// changed tag value only once): after more than one release, the same finding repeats with
/// each record's label. Until it is reported once, like a value's, the repeats count once here.
fn once_per_finding(got: String) -> String {
    let mut seen = BTreeSet::new();
    got.lines()
        .filter(|l| {
            let key = match l.split_once(" of release ") {
                Some((head, tail)) => {
                    format!("{head} {}", tail.split_once(' ').map_or("", |(_, t)| t))
                }
                None => l.to_string(),
            };
            seen.insert(key)
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Run every fixture of `group` on the spec tree `base`.
fn run_group(group: &str, base: &Path, scratch: &str) -> Seen {
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
        let work = common::scratch(&format!("{scratch}-{group}-{name}"));
        let m = materialize_on(base, &fdir, &work);
        let against = m
            .overlay
            .against
            .as_ref()
            .map(|other| materialize_on(base, &dir.join(other), &work.join("against")).tree);
        let checked =
            hurray_codegen::check(&m.tree, against.as_deref()).expect("the fixture's spec reads");
        let got = only_about(
            short(&checked.sources, &m.tree, checked.diags.items()),
            &m.overlay.about,
        );
        for d in checked.diags.items() {
            seen.failing.insert(d.lint.id.to_string());
        }
        for p in &m.overlay.passes {
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
        failures.extend(witness_failures(
            &format!("{group}/{name}"),
            checked.diags.items(),
        ));
        // A fixture with a `help.txt` also pins the help of every finding.
        let help_path = fdir.join("help.txt");
        if help_path.exists() {
            let got = only_about(
                helps(&checked.sources, &m.tree, checked.diags.items()),
                &m.overlay.about,
            );
            failures.extend(
                compare(&m, &fdir, &help_path, &got, bless)
                    .map(|diff| format!("{group}/{name} (help.txt):\n{diff}")),
            );
        }
        let got = once_per_finding(got);
        let expected_path = fdir.join("expected.txt");
        failures.extend(
            compare(&m, &fdir, &expected_path, &got, bless)
                .map(|diff| format!("{group}/{name} ({}):\n{diff}", m.overlay.description)),
        );
    }
    assert!(
        failures.is_empty(),
        "{}\nrefresh with `BLESS=1 cargo test --test it lints::` after reviewing",
        failures.join("\n")
    );
    seen
}

/// Compare what a fixture reports with its file of expectations (placeholders expanded), or
/// with `BLESS` write it there when it differs; the difference, if any.
fn compare(
    m: &hurray_codegen::overlay::Materialized,
    fdir: &Path,
    path: &Path,
    got: &str,
    bless: bool,
) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let want = m.vars.expand(&text);
    // A file that already expands to what the fixture reports is left as it is: its
    // placeholders were written by hand where blessing would write values.
    if bless {
        if want.as_deref().ok() != Some(got) {
            std::fs::write(path, placeholders(m, fdir, got)).unwrap();
        }
        return None;
    }
    let want = want.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (want != got).then(|| format!("--- expected\n{want}--- got\n{got}"))
}

/// The help of every finding that has one: `help[lint] location: help`, one line each.
fn helps(
    sources: &hurray_codegen::source::SourceMap,
    spec: &Path,
    diags: &[hurray_codegen::diag::Diagnostic],
) -> String {
    diags
        .iter()
        .filter_map(|d| {
            let help = d.help.as_ref()?;
            Some(format!(
                "help[{}] {}: {help}\n",
                d.lint.id,
                common::fixtures::location(sources, spec, d)
            ))
        })
        .collect()
}

/// A byte witness shows what the two readers read differently: every row it prints differs
/// between the columns or is marked as context, at least one differs, a context row sits
/// next to a differing one, and it says in words what each reader makes of the bytes.
fn witness_failures(fixture: &str, diags: &[hurray_codegen::diag::Diagnostic]) -> Vec<String> {
    let mut failures = Vec::new();
    for d in diags {
        let Some(w) = &d.witness else {
            continue;
        };
        let mut fail = |why: String| {
            failures.push(format!(
                "{fixture}: the witness of `{}` {why}:\n{}",
                d.lint.id,
                w.render()
            ))
        };
        if !w.rows.iter().any(|r| r.differs()) {
            fail("has no row the readers read differently".to_string());
        }
        for (i, r) in w.rows.iter().enumerate() {
            if r.differs() == r.context {
                fail(format!(
                    "has row {i} that {}",
                    if r.context {
                        "is marked as context but differs"
                    } else {
                        "reads the same in both columns and is not marked as context"
                    }
                ));
            }
            let beside =
                |j: Option<usize>| j.and_then(|j| w.rows.get(j)).is_some_and(|r| r.differs());
            if r.context && !beside(i.checked_sub(1)) && !beside(Some(i + 1)) {
                fail(format!("has context row {i} beside no differing row"));
            }
        }
        let rendered = w.render();
        let marked = rendered
            .lines()
            .filter(|l| l.contains(" ≠ ") || l.contains(" = ") && l.ends_with("(context)"))
            .count();
        if marked != w.rows.len() {
            fail(format!(
                "prints {marked} marked row(s) for {} row(s)",
                w.rows.len()
            ));
        }
        if w.readings.len() != 2 {
            fail("does not say in words what each reader makes of the bytes".to_string());
        }
    }
    failures
}

/// For `BLESS`: `got` with the values of the placeholders the fixture's overlay uses, and the
/// release history's label and fingerprint, written back as placeholders. Whatever else an
/// amendment would move must be written as a placeholder by hand; the last test of this file
/// finds what was missed.
fn placeholders(m: &hurray_codegen::overlay::Materialized, fdir: &Path, got: &str) -> String {
    let overlay = std::fs::read_to_string(fdir.join("edit.toml")).unwrap();
    let mut used: Vec<(&str, &str)> = m
        .vars
        .iter()
        .filter(|(name, value)| {
            overlay.contains(&format!("${{{name}}}"))
                && (value.contains('.') || value.starts_with("0x"))
        })
        .collect();
    for name in ["fingerprint.short"] {
        if let Some(v) = m.vars.get(name) {
            used.push((name, v));
        }
    }
    used.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    let mut out = got.to_string();
    if let Some(label) = m.vars.get("release") {
        out = out.replace(&format!("release {label}"), "release ${release}");
    }
    for (name, value) in used {
        out = out.replace(value, &format!("${{{name}}}"));
    }
    out
}

#[test]
fn every_model_lint_has_a_failing_fixture_named_after_it() {
    let seen = run_group("model", &root().join("spec"), "fixtures");
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
    let seen = run_group("amendments", &root().join("spec"), "fixtures");
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

/// Fixtures survive any legal amendment: spec/ amended twice by
/// `tests/fixtures/legal-amendment/{1,2}` (new values in every space the fixtures allocate in,
/// a deprecation and appended fields that move the lines the fixtures point at, a new scheme,
/// bumps that put the descriptor and container axes at different versions, two releases),
/// and every fixture reports the same findings, with the placeholders of the amended spec.
#[test]
fn every_fixture_means_the_same_after_a_legal_amendment() {
    if std::env::var_os("BLESS").is_some() {
        return; // expectations are blessed on spec/ itself
    }
    let dir = root().join("tests/fixtures/legal-amendment");
    let once = materialize_on(
        &root().join("spec"),
        &dir.join("1"),
        &common::scratch("legal-amendment-1"),
    );
    let twice = materialize_on(
        &once.tree,
        &dir.join("2"),
        &common::scratch("legal-amendment-2"),
    );
    // Each step is an amendment `check` accepts, so each could have been released for real.
    for tree in [&once.tree, &twice.tree] {
        let checked = hurray_codegen::check(tree, None).unwrap();
        assert!(
            checked
                .diags
                .items()
                .iter()
                .all(|d| d.level != hurray_codegen::diag::Level::Error
                    && d.level != hurray_codegen::diag::Level::Warning),
            "{}",
            short(&checked.sources, tree, checked.diags.items())
        );
    }
    run_group("model", &twice.tree, "amended");
    run_group("amendments", &twice.tree, "amended");
}
