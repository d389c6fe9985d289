//! The amendment checker from the command line: output formats, the lint list, the release
//! command, and the append-only history.

use crate::common::fixtures::{copy_dir, materialize, materialize_on};
use crate::common::*;
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
    // The witness shows the bytes the readers read differently, with a field of context, and
    // says what each reader makes of them; the fields before it are not shown.
    assert!(
        text.contains("(context)")
            && text.contains("the released reader reads bytes 12–15 as scale_buffer_index")
            && text.contains("the amended reader reads bytes 12–15 as x_bias_correction")
            && !text.contains("header.scheme_tag"),
        "{text}"
    );
    // One finding for the one edit: its help gives S6's fix, and what the misplaced field
    // causes (the MAJOR classification, the version the axis seems to need, the moved field)
    // is folded into it as notes, never as a help that says to bump the major.
    assert!(
        text.contains("fixing this also clears error[version-too-low]")
            && text.contains("fixing this also clears note[classified-major]")
            && !text
                .lines()
                .any(|l| l.starts_with("error[version-too-low]"))
            && !text.contains("set the axis's `current = \"2."),
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
    // What the S6 addition causes is folded into its finding (notes), not reported again.
    assert!(
        !ds.iter().any(|d| d["lint"] == "version-too-low")
            && s6["notes"].as_array().is_some_and(|n| n
                .iter()
                .any(|n| n.as_str().is_some_and(|n| n.contains("version-too-low")))),
        "folded into one finding: {s6}"
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

/// ADR-019's six spec-checker items (§ Handoff) map one to one onto lints: every item is
/// there once, each names an existing lint of its own rule, no lint is two items, `lints`
/// names each lint's item, and item 6 (FORWARD_ADDITIVE, only implicit before) has a failing
/// fixture named after its lint.
#[test]
fn the_adr_019_checklist_maps_one_to_one_onto_lints() {
    use hurray_codegen::lints::{self, ADR_019_CHECKLIST};
    let numbers: Vec<u8> = ADR_019_CHECKLIST.iter().map(|i| i.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    let mut seen = std::collections::BTreeSet::new();
    for item in &ADR_019_CHECKLIST {
        let lint = lints::by_id(item.lint.id)
            .unwrap_or_else(|| panic!("item {} names no lint of the registry", item.number));
        assert_eq!(lint.rule, item.rule, "item {}: {}", item.number, lint.id);
        assert_eq!(
            lint.level,
            hurray_codegen::diag::Level::Error,
            "item {}",
            item.number
        );
        assert!(seen.insert(lint.id), "{} is two items", lint.id);
    }
    assert!(ADR_019_CHECKLIST[5].text.contains("FORWARD_ADDITIVE"));
    // The `lints` listing names each item's lint, and only those.
    let j: J = serde_json::from_slice(&hurray_spec(&["lints", "--json"]).stdout).unwrap();
    let listed: Vec<(String, u64)> = j
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| !l["adr_019_item"].is_null())
        .map(|l| {
            (
                l["id"].as_str().unwrap().to_string(),
                l["adr_019_item"]["number"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, u64)> = ADR_019_CHECKLIST
        .iter()
        .map(|i| (i.lint.id.to_string(), u64::from(i.number)))
        .collect();
    let mut sorted = listed.clone();
    sorted.sort_by_key(|(_, n)| *n);
    assert_eq!(sorted, expected);
    let text = stdout(&hurray_spec(&["lints"]));
    for item in &ADR_019_CHECKLIST {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{} ", item.lint.id))
                    && l.contains(&format!("ADR-019 #{}", item.number))),
            "{text}"
        );
    }
    // Item 6's failing fixture is named after its lint and reports it.
    let id = ADR_019_CHECKLIST[5].lint.id;
    let expected = std::fs::read_to_string(
        root()
            .join("tests/fixtures/amendments")
            .join(id)
            .join("expected.txt"),
    )
    .unwrap();
    assert!(expected.contains(&format!("error[{id}]")), "{expected}");
}

/// `check` states each axis's posture in ADR-019's words, one line per axis read from the
/// model, and so does the generated compatibility page.
#[test]
fn check_and_the_compatibility_page_state_each_axis_posture() {
    let loaded = hurray_codegen::check(&root().join("spec"), None).unwrap();
    let spec = loaded.clean().expect("the real spec is clean");
    let posture = hurray_codegen::compat::posture(spec);
    assert_eq!(posture.len(), spec.axes.len());
    let out = hurray_spec(&["check"]);
    assert!(out.status.success());
    let err = stderr(&out);
    let page = std::fs::read_to_string(root().join("docs/spec/compatibility.md")).unwrap();
    for p in &posture {
        let line = err
            .lines()
            .find(|l| {
                l.trim_start()
                    .starts_with(&format!("{} {} ", p.name, p.current))
            })
            .unwrap_or_else(|| panic!("no posture line for `{}`:\n{err}", p.name));
        // A negotiated axis (RES-53) has no major: negotiation stands where CD3, CD4 and S5
        // stand on the others.
        let across: &[&str] = if p.negotiated {
            &["version negotiated per connection", "no major"]
        } else {
            &["no automatic cross-major compatibility", "migration via S5"]
        };
        for words in ["BACKWARD within", "FORWARD_ADDITIVE within"]
            .iter()
            .chain(across)
        {
            assert!(line.contains(words), "{line}");
        }
        assert!(
            page.lines()
                .any(|l| l.starts_with(&format!("| `{}` |", p.name))
                    && l.contains(&p.forward_additive())
                    && l.contains(&p.backward())),
            "compatibility.md states no posture for `{}`",
            p.name
        );
    }
}

/// `hurray-spec migration AXIS` writes the complete skeleton of a major bump's S5
/// migration: for `byte_offset` turned signed at the next descriptor major, everything is
/// carried or mapped to itself but that field, which `check` then names as the one item left;
/// filled in, the migration passes with the narrowing warning. An existing file is left alone
/// unless `--force`.
#[test]
fn migration_writes_the_skeleton_check_names_what_is_left_to_fill() {
    let tree = fixture("s5-narrowing");
    let spec = tree.to_str().unwrap();
    let file = tree.join("migrations/descriptor-1-to-2.toml");
    std::fs::remove_file(&file).expect("the fixture's migration is removed");

    let missing = hurray_spec(&["check", "--spec", spec, "--format", "json"]);
    assert_eq!(missing.status.code(), Some(1), "{}", stderr(&missing));
    assert!(stdout(&missing).contains("s5-missing-migration"));

    let written = hurray_spec(&["migration", "descriptor", "--spec", spec]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert!(
        stdout(&written).contains("descriptor-1-to-2.toml"),
        "{}",
        stdout(&written)
    );
    let skeleton = std::fs::read_to_string(&file).expect("the skeleton is written");
    assert_eq!(
        skeleton.matches("to = \"\"").count(),
        1,
        "one item to fill: {skeleton}"
    );

    let j: J =
        serde_json::from_slice(&hurray_spec(&["check", "--spec", spec, "--format", "json"]).stdout)
            .unwrap();
    let s5: Vec<&J> = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "S5" && d["level"] == "error")
        .collect();
    assert_eq!(s5.len(), 1, "{s5:#?}");
    assert_eq!(s5[0]["lint"], "s5-incomplete-migration");
    assert!(
        s5[0]["help"]
            .as_str()
            .is_some_and(|h| h.ends_with("unmapped: field descriptor.byte_offset")),
        "{}",
        s5[0]
    );

    let filled = skeleton.replacen(
        &skeleton[skeleton.find("to = \"\"").unwrap()..]
            .lines()
            .next()
            .unwrap()
            .to_string(),
        "to = \"descriptor.byte_offset\"",
        1,
    );
    std::fs::write(&file, filled).expect("the skeleton is filled");
    let clean = hurray_spec(&["check", "--spec", spec]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    assert!(
        stdout(&clean).contains("warning[s5-narrowing]"),
        "{}",
        stdout(&clean)
    );

    let again = hurray_spec(&["migration", "descriptor", "--spec", spec]);
    assert_eq!(
        again.status.code(),
        Some(1),
        "an existing file is left alone"
    );
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    let forced = hurray_spec(&["migration", "descriptor", "--spec", spec, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), skeleton);
}
