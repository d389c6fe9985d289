//! The amendment checker from the command line: output formats, the lint list, the release
//! command, and the append-only history.

mod common;

use common::fixtures::{copy_dir, materialize, materialize_on};
use common::*;
use serde_json::Value as J;

fn fixture(name: &str) -> std::path::PathBuf {
    let work = scratch(&format!("amend-{name}"));
    materialize(&root().join("tests/fixtures/amendments").join(name), &work).tree
}

#[test]
fn check_is_clean_on_the_real_spec_and_reports_json() {
    let out = hurray_spec(&["check", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: J = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        j["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["level"] != "error")
    );
}

#[test]
fn a_failing_amendment_exits_1_with_every_finding_in_every_format() {
    let spec = fixture("mxfp-bias-correction-inserted");
    let s = spec.to_str().unwrap();
    // human: rustc-style snippet with the span underlined and the help line
    let h = hurray_spec(&["check", "--spec", s]);
    assert_eq!(h.status.code(), Some(1));
    let text = stdout(&h);
    assert!(
        text.contains("error[s6-inserted-field]")
            && text.contains("^^^^")
            && text.contains("help: S6"),
        "{text}"
    );
    assert!(
        text.contains("witness:") && text.contains("released reader") && text.contains("≠"),
        "{text}"
    );
    // json: every finding with lint, rule, location and help
    let j: J =
        serde_json::from_slice(&hurray_spec(&["check", "--spec", s, "--format", "json"]).stdout)
            .unwrap();
    let ds = j["diagnostics"].as_array().unwrap();
    let s6 = ds
        .iter()
        .find(|d| d["lint"] == "s6-inserted-field")
        .expect("S6 reported");
    assert_eq!(s6["rule"], "S6");
    assert!(
        s6["location"]["file"]
            .as_str()
            .unwrap()
            .ends_with("structures/quantization.toml")
    );
    assert!(s6["location"]["line"].as_u64().unwrap() > 0);
    assert!(
        ds.iter().any(|d| d["lint"] == "version-too-low"),
        "collected in one run"
    );
    assert!(ds.iter().any(|d| d["witness"]["hex"].is_string()));
    // sarif 2.1.0
    let sarif: J =
        serde_json::from_slice(&hurray_spec(&["check", "--spec", s, "--format", "sarif"]).stdout)
            .unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| {
        r["ruleId"] == "s6-inserted-field"
            && r["level"] == "error"
            && r["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
                > 0
    }));
    assert!(
        sarif["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len()
            == hurray_codegen::lints::ALL.len()
    );
    // github annotations
    let gh = stdout(&hurray_spec(&["check", "--spec", s, "--format", "github"]));
    assert!(
        gh.lines().any(|l| l.starts_with("::error file=")
            && l.contains("title=s6-inserted-field")
            && l.contains("line=")),
        "{gh}"
    );
}

#[test]
fn lints_lists_every_lint_with_its_rule() {
    let j: J = serde_json::from_slice(&hurray_spec(&["lints", "--json"]).stdout).unwrap();
    let items = j.as_array().unwrap();
    assert_eq!(items.len(), hurray_codegen::lints::ALL.len());
    for rule in [
        "S1",
        "S2",
        "S3",
        "S4",
        "S5",
        "S6",
        "classification",
        "model",
        "history",
    ] {
        assert!(
            items.iter().any(|l| l["rule"] == rule),
            "no lint for {rule}"
        );
    }
    let text = stdout(&hurray_spec(&["lints"]));
    assert!(text.contains("s4-missing-default") && text.contains("S4"));
}

#[test]
fn against_compares_with_another_spec_tree() {
    // The amended tree checked against the released one: the same verdicts as against the record.
    let amended = fixture("mxfp-bias-correction-without-default");
    let out = hurray_spec(&[
        "check",
        "--spec",
        amended.to_str().unwrap(),
        "--against",
        root().join("spec").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let j: J = serde_json::from_slice(&out.stdout).unwrap();
    let lints: Vec<&str> = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["lint"].as_str().unwrap())
        .collect();
    assert!(
        lints.contains(&"s4-missing-default") && lints.contains(&"classified-minor"),
        "{lints:?}"
    );
}

/// spec/ as a draft that was never released: no records, status draft, every axis's initial
/// version its current one, and no `since` or deprecation (everything is part of the first
/// version). Whatever amendments spec/ has had, this is a draft `check` accepts.
fn as_fresh_draft(spec: &std::path::Path) {
    std::fs::remove_dir_all(spec.join("releases")).unwrap();
    let path = spec.join("spec.toml");
    let mut doc: toml_edit::DocumentMut = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    doc["spec"]["status"] = toml_edit::value("draft");
    for axis in doc["axis"].as_array_of_tables_mut().unwrap().iter_mut() {
        let current = axis["current"].clone();
        axis["initial"] = current;
    }
    std::fs::write(&path, doc.to_string()).unwrap();
    for dir in ["tags", "flags", "structures"] {
        for e in std::fs::read_dir(spec.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            let kept: String = text
                .lines()
                .filter(|l| {
                    !["since =", "deprecated_since =", "replacement ="]
                        .iter()
                        .any(|k| l.starts_with(k))
                })
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(&p, kept).unwrap();
        }
    }
}

#[test]
fn release_records_a_draft_then_chains_amendments() {
    let work = scratch("release-flow");
    let spec = work.join("spec");
    copy_dir(&root().join("spec"), &spec);
    as_fresh_draft(&spec);
    let s = spec.to_str().unwrap();
    // A draft has no history and only the intrinsic rules.
    let o = hurray_spec(&["check", "--spec", s]);
    assert!(o.status.success(), "{}", stdout(&o));
    let r = hurray_spec(&["release", "--spec", s]);
    assert!(r.status.success(), "{}", stderr(&r));
    let first = std::fs::read_to_string(spec.join("releases/0001.toml")).unwrap();
    assert!(
        std::fs::read_to_string(spec.join("spec.toml"))
            .unwrap()
            .contains("status = \"released\"")
    );
    assert!(
        first.contains("sequence = 1") && first.contains("previous = \"\""),
        "{first}"
    );
    // Nothing changed: nothing to release.
    assert!(stderr(&hurray_spec(&["release", "--spec", s])).contains("nothing to release"));
    // An amendment of the released draft: the MXFP worked example.
    let amended = materialize_on(
        &spec,
        &root().join("tests/fixtures/amendments/mxfp-bias-correction"),
        &work.join("amended"),
    );
    for f in ["spec.toml", "structures/quantization.toml"] {
        std::fs::copy(amended.tree.join(f), spec.join(f)).unwrap();
    }
    assert!(hurray_spec(&["check", "--spec", s]).status.success());
    assert!(hurray_spec(&["release", "--spec", s]).status.success());
    let second = std::fs::read_to_string(spec.join("releases/0002.toml")).unwrap();
    let label = format!(
        "label = \"scheme.mxfp-{}\"",
        amended.vars.get("scheme.mxfp+minor").unwrap()
    );
    assert!(
        second.contains("sequence = 2")
            && second.contains("x_bias_correction")
            && second.contains(&label),
        "{second}"
    );
    assert!(hurray_spec(&["check", "--spec", s]).status.success());
    // Editing the first record breaks the history.
    std::fs::write(
        spec.join("releases/0001.toml"),
        first.replace("row-major (C order)", "row-major"),
    )
    .unwrap();
    let out = hurray_spec(&["check", "--spec", s, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("record-edited"));
}

/// Records are never edited: each release record's bytes equal the bytes of the commit that
/// added it (and its fingerprint and chain verify, which `check` tests on every run).
#[test]
fn release_records_are_never_edited() {
    let dir = root().join("spec/releases");
    let mut records: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    records.sort();
    assert!(
        !records.is_empty(),
        "the repository ships the record of release 1.0"
    );
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root())
            .output()
    };
    for r in &records {
        let rel = r
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let now = std::fs::read(r).unwrap();
        let snap: hurray_codegen::amend::snapshot::Snapshot =
            toml::from_str(std::str::from_utf8(&now).unwrap()).unwrap();
        assert_eq!(
            snap.compute_fingerprint(),
            snap.release.fingerprint,
            "{rel}: fingerprint does not verify"
        );
        // With git history at hand, the record must equal the version that first added it.
        let Ok(out) = git(&["log", "--diff-filter=A", "--format=%H", "--", &rel]) else {
            continue;
        };
        let adding = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .map(str::to_string);
        if let Some(commit) = adding.filter(|c| !c.is_empty()) {
            let first = git(&["show", &format!("{commit}:{rel}")]).unwrap();
            assert!(first.status.success());
            assert!(
                first.stdout == now,
                "{rel} differs from the version commit {commit} added: release records are append-only"
            );
        }
    }
}
