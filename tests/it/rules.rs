//! The rule catalogue (`hurray-spec rules`): every rule of the spec tables and of the seeds,
//! and every resolution, once; every rule that software enforces broken by some test;
//! every test the coverage data names existing.

use std::collections::BTreeSet;

use crate::common::{self, root, scratch, stderr, stdout};
use hurray_codegen::catalogue::{Catalogue, Coverage, Kind, Party, TestKind};

fn catalogue() -> (Catalogue, Coverage) {
    let loaded = hurray_codegen::load(&root().join("spec")).expect("spec/ reads");
    let spec = loaded.clean().expect("spec/ loads cleanly");
    let coverage = Coverage::scan(&root())
        .expect("the repository's test data reads")
        .expect("tests/coverage.toml");
    (Catalogue::of_spec(spec).with_coverage(&coverage), coverage)
}

#[test]
fn every_enforceable_rule_has_a_test_and_every_listed_test_exists() {
    let (catalogue, coverage) = catalogue();
    let problems = catalogue.coverage_problems(&coverage);
    assert!(
        problems.is_empty(),
        "{} coverage problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

#[test]
fn every_rule_and_resolution_is_listed_once_and_every_seed_rule_is_found() {
    let (catalogue, _) = catalogue();
    let loaded = hurray_codegen::load(&root().join("spec")).unwrap();
    let spec = loaded.clean().unwrap();
    let tools = catalogue
        .entries
        .iter()
        .filter(|e| e.source == hurray_codegen::catalogue::TOOL_RULES)
        .count();
    assert!(tools > 0, "the command line's refusals are not listed");
    assert_eq!(
        catalogue.entries.len(),
        spec.rules.len() + spec.resolutions.len() + tools
    );
    let ids: BTreeSet<&str> = catalogue.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), catalogue.entries.len(), "an id is listed twice");
    // The seeds' own rules, by the ids the seeds give them.
    let seeds = [
        "CD1", "CD2", "CD3", "CD4", "W1", "W2", "W3", "W4", "R1", "R2", "R3", "R4", "S1", "S2",
        "S3", "S4", "S5", "S6",
    ];
    for id in seeds {
        let e = catalogue
            .entry(id)
            .unwrap_or_else(|| panic!("no catalogue entry for the seed's {id}"));
        assert!(
            e.id == id || e.seed.iter().any(|s| s == id),
            "{id} finds {}",
            e.id
        );
    }
    // The amendment rules bind the spec editor and are enforced by lints with fixtures.
    for id in ["S1", "S2", "S3", "S4", "S5", "S6"] {
        let e = catalogue.entry(id).unwrap();
        assert_eq!(e.binds, [Party::SpecEditor], "{id}");
        assert!(!e.lints.is_empty(), "{id} has no lint");
        assert!(
            e.tested_by
                .iter()
                .flatten()
                .any(|t| t.kind == TestKind::LintFixture),
            "{id} has no lint fixture"
        );
    }
    // Every amendment lint that reports a violation is filed under a rule of the catalogue
    // (the model's own lints and the release history's are the toolchain's, not the seeds').
    for l in hurray_codegen::lints::ALL {
        if ["model", "history"].contains(&l.rule) || l.level == hurray_codegen::diag::Level::Note {
            continue;
        }
        assert!(
            catalogue
                .entries
                .iter()
                .any(|e| e.lints.iter().any(|x| x == l.id)),
            "the lint `{}` enforces no rule of the catalogue: name it in a rule's `lints`",
            l.id
        );
    }
    // Every entry a reader or writer cannot break says why; every other one has a test.
    for e in &catalogue.entries {
        if e.kind == Kind::Rule && !e.enforceable() {
            assert!(e.unenforceable.is_some() || e.pending, "{}", e.id);
        }
    }
}

#[test]
fn a_missing_test_and_an_uncovered_rule_are_reported() {
    // A repository whose coverage table names a test that does not exist and says nothing
    // of HDR-1, which has no rejecting vector there.
    let dir = scratch("rules-coverage");
    for sub in ["tests/corpus/reject", "tests/corpus/valid"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(dir.join(sub).join("manifest.json"), "{}").unwrap();
    }
    std::fs::write(
        dir.join("tests/coverage.toml"),
        "[tested]\n\"HDR-2\" = [\"tests/it/golden.rs::no_such_test\", \"valid:no-such-vector\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("tests/it")).unwrap();
    std::fs::copy(
        root().join("tests/it/golden.rs"),
        dir.join("tests/it/golden.rs"),
    )
    .unwrap();
    // A refusal of the command line that no test shows.
    std::fs::create_dir_all(dir.join("hurray-cli")).unwrap();
    std::fs::write(
        dir.join(hurray_codegen::catalogue::TOOL_RULES),
        "[[refusal]]\nid = \"ENCODE-99\"\ncode = \"encode-new-refusal\"\ntext = \"A new refusal.\"\n",
    )
    .unwrap();
    let loaded = hurray_codegen::load(&root().join("spec")).unwrap();
    let coverage = Coverage::scan(&dir).unwrap().expect("a coverage table");
    let catalogue = Catalogue::of_spec(loaded.clean().unwrap()).with_coverage(&coverage);
    assert_eq!(
        catalogue.entry("ENCODE-99").and_then(|e| e.code.as_deref()),
        Some("encode-new-refusal")
    );
    let problems = catalogue.coverage_problems(&coverage).join("\n");
    for want in [
        "has no test function `no_such_test`",
        "no valid vector `no-such-vector`",
        "HDR-1 is enforced by table check but no test breaks it",
        "ENCODE-99 is enforced by command line but no test breaks it",
    ] {
        assert!(problems.contains(want), "`{want}` not in:\n{problems}");
    }
}

#[test]
fn rules_prints_the_catalogue_and_checks_its_coverage() {
    let out = common::hurray_spec(&["rules", "--json", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(j["coverage"], "tests/coverage.toml");
    assert_eq!(j["problems"].as_array().unwrap().len(), 0);
    let entries = j["entries"].as_array().unwrap();
    let entry = |id: &str| {
        entries
            .iter()
            .find(|e| e["id"] == id)
            .unwrap_or_else(|| panic!("no {id}"))
    };
    let hdr1 = entry("HDR-1");
    assert_eq!(hdr1["code"], "bad-magic");
    assert_eq!(hdr1["binds"], serde_json::json!(["reader"]));
    assert_eq!(hdr1["enforced_by"], serde_json::json!(["table check"]));
    assert!(
        hdr1["tested_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["kind"] == "reject vector"
                && t["name"] == "tests/corpus/reject/HDR-1-magic-hrrx.bin")
    );
    assert_eq!(entry("VER-1")["seed"], serde_json::json!(["CD3", "OOS-1"]));
    let s6 = entry("S6");
    assert_eq!(s6["binds"], serde_json::json!(["spec editor"]));
    assert_eq!(
        s6["enforced_by"],
        serde_json::json!(["amendment lint", "derive"])
    );
    assert!(
        s6["tested_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["kind"] == "derive fixture")
    );
    assert_eq!(entry("RES-2")["kind"], "resolution");
    // The human listing: one line per entry and a summary.
    let out = common::hurray_spec(&["rules"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).lines().count(), entries.len());
    assert!(stderr(&out).contains("tested"), "{}", stderr(&out));
}

#[test]
fn outside_a_repository_the_catalogue_has_no_tests() {
    let dir = scratch("rules-standalone");
    common::fixtures::copy_dir(&root().join("spec"), &dir.join("spec"));
    let spec = dir.join("spec");
    let out = common::hurray_spec(&["rules", "--json", "--spec", spec.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert!(j["coverage"].is_null());
    assert!(
        j["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["tested_by"].is_null())
    );
}

/// The `encode-…` codes of `hurray encode` (the command line's own rules): every code its
/// tests see it print and every code the README documents is listed in the catalogue, and
/// every listed one is documented. A code the command line reports but the catalogue does not
/// list fails here (and the command line cannot print one: its codes are the variants of the
/// enum generated from the catalogue's table, which `hurray-cli/tests/cli.rs` checks).
#[test]
fn every_encode_code_is_in_the_catalogue() {
    let (catalogue, _) = catalogue();
    let listed: BTreeSet<&str> = catalogue
        .entries
        .iter()
        .filter(|e| e.source == hurray_codegen::catalogue::TOOL_RULES)
        .filter_map(|e| e.code.as_deref())
        .collect();
    let codes_in = |rel: &str| -> BTreeSet<String> {
        let text = std::fs::read_to_string(root().join(rel)).unwrap();
        text.match_indices("encode-")
            // A code as printed (`error[encode-…`) or quoted (`` `encode-…` ``), not a
            // scratch directory's name.
            .filter(|(at, _)| text[..*at].ends_with(['[', '`']))
            .map(|(at, _)| {
                text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                    .collect::<String>()
                    .trim_end_matches('-')
                    .to_string()
            })
            .filter(|c| c.len() > "encode-".len())
            .collect()
    };
    let tested = codes_in("hurray-cli/tests/cli.rs");
    let documented = codes_in("README.md");
    for code in tested.iter().chain(&documented) {
        assert!(
            listed.contains(code.as_str()),
            "`{code}` is not in the rule catalogue: add it to {}",
            hurray_codegen::catalogue::TOOL_RULES
        );
    }
    for code in &listed {
        assert!(
            documented.contains(*code),
            "`{code}` is not in README.md's table of encode refusals"
        );
        assert!(
            tested.contains(*code),
            "no test in hurray-cli/tests/cli.rs sees `{code}`"
        );
    }
}
