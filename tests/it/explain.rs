//! `hurray-spec explain`: every lint and every rule that software enforces has an example of
//! a violation and its fix, or a stated reason why none; every example is still what the
//! code reports; the command finds rules by id, seed id, resolution, lint and error code,
//! and suggests the closest ids for an unknown one.
//!
//! What the examples rest on is checked where it is made: `tests/it/rejects.rs` reads every
//! rejecting vector and compares rule, code, offset and the error line with the manifest
//! that `explain` prints them from; `tests/it/lints.rs` checks each fixture's diagnostics
//! (and `explain` runs the fixture itself). Here: each example matches those sources, the
//! fixture run reports the lint now, and restoring a vector's patched bytes gives bytes
//! the runtime accepts, so the fix explain prints is one.

use crate::common::build::Agreements;
use crate::common::{self, access, root, scratch, stderr, stdout};
use hurray_codegen::catalogue::{Catalogue, Kind};
use hurray_codegen::explain::{Example, Examples, Explainer, Repository, Subject};
use serde_json::Value as J;

fn manifest() -> serde_json::Map<String, J> {
    let text = std::fs::read_to_string(root().join("tests/corpus/reject/manifest.json"))
        .expect("the reject manifest");
    match serde_json::from_str(&text).expect("JSON") {
        J::Object(m) => m,
        _ => panic!("the manifest is an object"),
    }
}

/// The reader configuration a manifest entry records (`tests/it/rejects.rs` writes it).
fn agreements(config: &J) -> Agreements {
    Agreements {
        permissive: false,
        network: config["network"].as_bool().unwrap_or(false),
        agree: config["agree"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                (
                    a["space"].as_str().expect("space").to_string(),
                    a["value"].as_u64().expect("value") as u32,
                )
            })
            .collect(),
        extension_layouts: config["agree_extension_layouts"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| x.as_u64().expect("id"))
            .collect(),
    }
}

#[test]
fn every_lint_and_every_enforced_rule_has_an_example_that_the_code_still_reports() {
    let loaded = hurray_codegen::load(&root().join("spec")).expect("spec/ reads");
    let spec = loaded.clean().expect("spec/ loads cleanly");
    let repo = Repository::read(&root())
        .expect("the test data reads")
        .expect("tests/coverage.toml");
    let catalogue = Catalogue::of_spec(spec).with_coverage(repo.coverage());
    let explainer = Explainer::new(spec, &catalogue, Some(&repo));
    let manifest = manifest();
    let versions = hurray_codegen::overlay::Vars::of(spec, None);
    let mut failures = Vec::new();
    let mut vectors = Vec::new();

    // Every lint: its fixture, run now, reports it.
    for lint in hurray_codegen::lints::ALL {
        let x = explainer.lint(lint);
        match &x.examples {
            Examples::Shown(examples) => {
                for ex in examples {
                    if let Example::Fixture(f) = ex {
                        if f.reported.is_empty() || f.reported.iter().any(|r| r.lint != lint.id) {
                            failures.push(format!(
                                "{}: the fixture {} does not report it now: {:?}",
                                lint.id, f.fixture, f.reported
                            ));
                        }
                        if f.edits.iter().all(|s| s.lines.is_empty()) {
                            failures.push(format!("{}: the fixture shows no edit", lint.id));
                        }
                    }
                }
            }
            other => failures.push(format!("{}: no example ({other:?})", lint.id)),
        }
    }

    // Every entry: an example, or a reason when none can be shown.
    for e in &catalogue.entries {
        let x = explainer.entry(e, hurray_codegen::explain::Match::Id);
        match &x.examples {
            Examples::Shown(examples) => {
                assert!(!examples.is_empty());
                for ex in examples {
                    if let Example::Vector(v) = ex {
                        vectors.push((e.id.clone(), v.clone()));
                    }
                }
                // A rule's own vectors, lints and derive fixtures each give an example.
                let kinds = |k: &str| {
                    examples
                        .iter()
                        .filter(|ex| match ex {
                            Example::Vector(_) => k == "vector",
                            Example::Fixture(_) => k == "fixture",
                            Example::Derive(_) => k == "derive",
                            _ => false,
                        })
                        .count()
                };
                let own_vectors = repo.coverage().vectors_of(&e.id);
                if !own_vectors.is_empty() && kinds("vector") != 1 {
                    failures.push(format!("{}: has vectors but no vector example", e.id));
                }
                let fixtures = e
                    .lints
                    .iter()
                    .filter(|l| !repo.coverage().fixtures_of(l).is_empty())
                    .count();
                if e.kind == Kind::Rule && kinds("fixture") != fixtures {
                    failures.push(format!(
                        "{}: {fixtures} lint(s) with fixtures but {} fixture example(s)",
                        e.id,
                        kinds("fixture")
                    ));
                }
                if !repo.coverage().derive_fixtures_of(&e.id).is_empty() && kinds("derive") != 1 {
                    failures.push(format!("{}: has derive fixtures but no example", e.id));
                }
            }
            Examples::Nothing(why) => {
                if why.trim().is_empty() {
                    failures.push(format!("{}: no example and no reason", e.id));
                }
                if !repo.coverage().vectors_of(&e.id).is_empty() {
                    failures.push(format!("{}: has a vector, yet no example", e.id));
                }
            }
            other => failures.push(format!("{}: examples not read ({other:?})", e.id)),
        }
    }
    assert!(!vectors.is_empty());

    // Every vector shown is the manifest's (which tests/it/rejects.rs checks against the
    // runtime), the excerpt marks the rejected byte, and restoring a patch-only vector's
    // patched bytes gives bytes the runtime accepts: the printed fix is one.
    for (id, v) in &vectors {
        let name = v.file.rsplit('/').next().unwrap();
        let Some(m) = manifest.get(name) else {
            failures.push(format!("{id}: {} is not in the manifest", v.file));
            continue;
        };
        // The manifest names the reader's version by its axis's placeholder.
        let message = m["message"].as_str().map(|t| {
            versions
                .expand(t)
                .unwrap_or_else(|e| panic!("the manifest's {name}: {e}"))
        });
        if (
            m["rule"].as_str(),
            m["code"].as_str(),
            m["offset"].as_u64(),
            message.as_deref(),
        ) != (
            Some(v.rule.as_str()),
            Some(v.code.as_str()),
            Some(v.offset),
            Some(v.message.as_str()),
        ) {
            failures.push(format!("{id}: {name} differs from the manifest"));
        }
        if v.via.is_none() && v.rule != *id {
            failures.push(format!(
                "{id}: shows {name} of {} without saying via",
                v.rule
            ));
        }
        let marked = v
            .excerpt
            .iter()
            .flat_map(|r| &r.marks)
            .any(|mk| mk.offset == v.offset);
        if !marked {
            failures.push(format!(
                "{id}: the excerpt of {name} does not mark byte {}",
                v.offset
            ));
        }
        let bytes = std::fs::read(root().join(&v.file)).expect("the vector");
        for r in &v.excerpt {
            let at = r.offset as usize;
            if bytes.get(at..at + r.bytes.len()) != Some(r.bytes.as_slice()) {
                failures.push(format!(
                    "{id}: the excerpt of {name} at {at} is not its bytes"
                ));
            }
        }
        if v.changes.is_empty() && !v.patched.is_empty() {
            let mut fixed = bytes.clone();
            for p in &v.patched {
                let at = p.offset as usize;
                assert_eq!(&fixed[at..at + p.now.len()], p.now.as_slice(), "{name}");
                fixed[at..at + p.was.len()].copy_from_slice(&p.was);
            }
            let config = agreements(&m["config"]).config();
            if let Err(err) = access::outcome(name.ends_with(".hrry"), &fixed, &config) {
                failures.push(format!(
                    "{id}: restoring the patched bytes of {name} does not give a valid input: {err:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn explain_finds_seed_ids_resolutions_lints_and_codes() {
    for (query, header) in [
        ("S4", "S4 · appended-field-without-default · rule"),
        (
            "CD2",
            "VER-3 · unknown-feature · rule (restates the seed's CD2, R1, R2)",
        ),
        (
            "W3",
            "VER-7 · writer-deprecated-value · rule (restates the seed's W3)",
        ),
        ("RES-9", "RES-9 · resolution"),
        ("unknown-type-tag", "TYP-2 · unknown-type-tag · rule"),
        ("s4-default-type", "s4-default-type · lint (error)"),
        ("hdr-1", "HDR-1 · bad-magic · rule"),
    ] {
        let out = common::hurray_spec(&["explain", query]);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{query}: {}", stderr(&out));
        assert_eq!(text.lines().next(), Some(header), "{query}:\n{text}");
        for part in ["source", "binds", "enforced by", "rationale", "example"] {
            assert!(text.contains(part), "{query}: no `{part}` in\n{text}");
        }
    }
    // A rule's example: the bytes, the error line and the fix.
    let text = stdout(&common::hurray_spec(&["explain", "TYP-2"]));
    for want in [
        "example: tests/corpus/reject/TYP-2-",
        "`hurray decode` reports:",
        "error[unknown-type-tag]: ",
        "fix: fixed_header.type_tag back to 03",
        "rejected here",
    ] {
        assert!(text.contains(want), "`{want}` not in\n{text}");
    }
    // A lint's: the TOML edit, what check reports with its help, and the passing fixture.
    let text = stdout(&common::hurray_spec(&["explain", "s4-default-type"]));
    for want in [
        "+default = 0.5",
        "error[s4-default-type] structures/quantization.toml:",
        "help: ",
        "fix: as the help says; tests/fixtures/amendments/mxfp-bias-correction passes",
        "-default = 0.5",
        "+default = 0.0",
    ] {
        assert!(text.contains(want), "`{want}` not in\n{text}");
    }
    // An error code several rules report names each of them.
    let text = stdout(&common::hurray_spec(&["explain", "truncated"]));
    assert!(
        text.starts_with("`truncated` names 8 items: HDR-5,"),
        "{text}"
    );
    // No source states a rationale for most facts sheet rules: explain says so.
    let text = stdout(&common::hurray_spec(&["explain", "BH-1"]));
    assert!(text.contains("rationale    none stated"), "{text}");
}

#[test]
fn an_unknown_id_exits_2_with_the_closest_matches() {
    let out = common::hurray_spec(&["explain", "TYP-99"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("`TYP-99` is no rule"), "{err}");
    assert!(err.contains("did you mean: TYP-1, TYP-2"), "{err}");
    let out = common::hurray_spec(&["explain", "unknown-type-tga"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean: unknown-type-tag"),
        "{}",
        stderr(&out)
    );
    let out = common::hurray_spec(&["explain", "--json", "s4-missing-defalt"]);
    assert_eq!(out.status.code(), Some(2));
    let j: J = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(j["suggestions"][0], "s4-missing-default");
}

#[test]
fn json_gives_the_same_explanation_as_data() {
    let out = common::hurray_spec(&["explain", "--json", "unknown-flag-bit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j: J = serde_json::from_str(&stdout(&out)).expect("JSON");
    let matches = j["matches"].as_array().expect("matches");
    // The lint and every rule reporting the code.
    assert_eq!(matches[0]["kind"], "lint");
    assert_eq!(matches[0]["examples"]["state"], "shown");
    assert_eq!(matches[0]["examples"]["value"][0]["kind"], "fixture");
    let rules: Vec<&str> = matches[1..]
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(
        rules.contains(&"FLG-1") && rules.contains(&"F3"),
        "{rules:?}"
    );
    let flg = matches.iter().find(|m| m["id"] == "FLG-1").unwrap();
    assert_eq!(flg["matched_as"], "error code");
    assert!(flg["entry"]["rationale"]["source"].is_string());
    let v = &flg["examples"]["value"][0];
    assert_eq!(v["kind"], "vector");
    assert_eq!(v["code"], "unknown-flag-bit");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("error[unknown-flag-bit]: ")
    );
}

#[test]
fn outside_a_repository_everything_but_the_examples_is_shown() {
    let dir = scratch("explain-standalone");
    common::fixtures::copy_dir(&root().join("spec"), &dir.join("spec"));
    let spec = dir.join("spec");
    let out = common::hurray_spec(&["explain", "--spec", spec.to_str().unwrap(), "S6"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("rationale    An older reader would parse"),
        "{text}"
    );
    assert!(text.contains("example: not shown"), "{text}");
    assert!(
        stderr(&out).contains("examples are not shown"),
        "{}",
        stderr(&out)
    );
    // The library says the same.
    let loaded = hurray_codegen::load(&spec).unwrap();
    let model = loaded.clean().unwrap();
    assert!(Repository::read(&dir).unwrap().is_none());
    let catalogue = Catalogue::of_spec(model);
    let explainer = Explainer::new(model, &catalogue, None);
    for x in explainer.explain("S6").unwrap() {
        assert!(matches!(x.examples, Examples::NotRead));
        assert!(matches!(x.subject, Subject::Entry(_)));
    }
}
