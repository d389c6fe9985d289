//! The checker is never compiled from the spec it checks (issue #9 §1): `hurray-spec check`
//! builds and reports whatever state spec/ is in, and the runtime's build script, which does
//! generate code from spec/, reports a broken spec once, readably.
//!
//! Structurally: no crate in `hurray-spec`'s build graph runs a build script that generates
//! code from spec/ (one built with `hurray-codegen`). End to end (ignored by default, as it
//! builds the workspace's crates in a copy of it, in `$HURRAY_E2E_TARGET` when set; `.ci/run`
//! runs it with `--ignored`): in a copy of the workspace whose spec/ is broken mid-edit, the
//! README's main command prints the diagnostics and exits 1, and building the runtime fails
//! with them once.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use crate::common::workspace::{cargo, cargo_in, e2e_copy, e2e_target, target_dir};
use crate::common::{root, stderr, stdout};
use serde_json::Value as J;

/// The workspace's packages by id, and each package's dependencies with their kinds.
struct Graph {
    names: BTreeMap<String, String>,
    /// Package id → (dependency id, kinds: "normal", "build" or "dev").
    deps: BTreeMap<String, Vec<(String, Vec<String>)>>,
    /// Package ids whose build script has `hurray-codegen` among its build dependencies: the
    /// crates whose code is generated from a spec.
    generated: BTreeSet<String>,
}

/// The host's target triple (`rustc -vV`): the graph is the one built for it.
fn host() -> String {
    let out = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("-vV")
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host")
}

fn graph() -> Graph {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(["--filter-platform", &host()])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let meta: J = serde_json::from_slice(&out.stdout).unwrap();
    let mut names = BTreeMap::new();
    let mut has_build_script = BTreeSet::new();
    for p in meta["packages"].as_array().unwrap() {
        let id = p["id"].as_str().unwrap().to_string();
        names.insert(id.clone(), p["name"].as_str().unwrap().to_string());
        if p["targets"].as_array().unwrap().iter().any(|t| {
            t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "custom-build")
        }) {
            has_build_script.insert(id);
        }
    }
    let mut deps = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let id = node["id"].as_str().unwrap().to_string();
        let list: Vec<(String, Vec<String>)> = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let kinds = d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k["kind"].as_str().unwrap_or("normal").to_string())
                    .collect();
                (d["pkg"].as_str().unwrap().to_string(), kinds)
            })
            .collect();
        deps.insert(id, list);
    }
    let generated = deps
        .iter()
        .filter(|(id, list)| {
            has_build_script.contains(*id)
                && list.iter().any(|(d, kinds)| {
                    names[d] == "hurray-codegen" && kinds.iter().any(|k| k == "build")
                })
        })
        .map(|(id, _)| id.clone())
        .collect();
    Graph {
        names,
        deps,
        generated,
    }
}

#[test]
fn nothing_generated_from_the_spec_is_in_the_checkers_build_graph() {
    let g = graph();
    let by_name = |n: &str| {
        g.names
            .iter()
            .find(|(_, name)| *name == n)
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| panic!("no package `{n}` in the workspace"))
    };
    // The predicate finds what it must: every runtime generated from a spec tree.
    for runtime in [
        "hurray-runtime",
        "hurray-runtime-matrix",
        "hurray-runtime-mxfp2",
    ] {
        assert!(
            g.generated.contains(&by_name(runtime)),
            "`{runtime}` is not seen as generated from the spec"
        );
    }
    // Every crate `hurray-spec` compiles to build its binary (normal and build dependencies,
    // transitively; dev-dependencies build only its tests), with the path that reaches it.
    let start = by_name("hurray-spec");
    let mut reached: BTreeMap<String, Vec<String>> =
        BTreeMap::from([(start.clone(), vec!["hurray-spec".to_string()])]);
    let mut todo = vec![start];
    while let Some(id) = todo.pop() {
        let path = reached[&id].clone();
        for (dep, kinds) in &g.deps[&id] {
            if kinds.iter().all(|k| k == "dev") || reached.contains_key(dep) {
                continue;
            }
            let mut p = path.clone();
            p.push(g.names[dep].clone());
            reached.insert(dep.clone(), p);
            todo.push(dep.clone());
        }
    }
    assert!(reached.len() > 1, "hurray-spec has dependencies");
    let offending: Vec<String> = reached
        .iter()
        .filter(|(id, _)| g.generated.contains(*id))
        .map(|(_, path)| path.join(" → "))
        .collect();
    assert!(
        offending.is_empty(),
        "the checker's build graph holds code generated from the spec, so a broken spec would \
         break the checker's build: {}",
        offending.join("; ")
    );
}

// ---------------------------------------------------------------------------------------
// End to end, in a copy of the workspace.

#[test]
#[ignore = "builds the checker and the runtime in a copy of the workspace (minutes); .ci/run runs it with --ignored"]
fn a_spec_broken_mid_edit_is_reported_by_check_and_once_by_the_runtime_build() {
    let (_copy, workspace) = e2e_copy();
    let target = e2e_target(target_dir().join("broken-spec-e2e"));

    // Mid-edit: a new element type at the next minor, before the axis's `current` is bumped.
    let spec = workspace.join("spec");
    let model = hurray_codegen::load(&spec).unwrap();
    let vars = hurray_codegen::overlay::Vars::of(model.clean().expect("spec/ is clean"), None);
    let edit = format!(
        "\n[[tag]]\nvalue = {}\nname = \"x_mid_edit\"\ntitle = \"a type allocated before the bump\"\nsince = \"{}\"\nbits = 8\nkind = \"unsigned\"\n",
        vars.get("free:element_type").unwrap(),
        vars.get("descriptor+minor").unwrap()
    );
    let types = spec.join("tags/element_type.toml");
    let mut text = std::fs::read_to_string(&types).unwrap();
    text.push_str(&edit);
    std::fs::write(&types, &text).unwrap();
    // It really is an error of the model (not only an amendment verdict), so the runtime's
    // build script cannot generate from it.
    let broken = hurray_codegen::load(&spec).unwrap();
    assert!(
        broken
            .diags
            .items()
            .iter()
            .any(|d| d.lint.id == "since-after-current"),
        "the mid-edit spec is not broken the way this test means"
    );

    // The README's main command (in the dev profile; `--release` builds the same crates).
    let check = [
        "run",
        "--offline",
        "--quiet",
        "--bin",
        "hurray-spec",
        "--",
        "check",
    ];
    let o = cargo_in(&workspace, &target, &check);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains("error[since-after-current]")
            && out.contains("error[version-too-low]")
            && out.contains("x_mid_edit"),
        "{out}"
    );
    assert!(!err.contains("failed to run custom build command"), "{err}");

    // The runtime cannot be built from it: its build script says so once, readably.
    let o = cargo_in(
        &workspace,
        &target,
        &["build", "--offline", "--quiet", "-p", "hurray-runtime"],
    );
    let err = stderr(&o);
    assert!(!o.status.success(), "the runtime built from a broken spec");
    assert_eq!(
        err.matches("error[since-after-current]").count(),
        1,
        "each finding once:\n{err}"
    );
    assert!(
        err.contains("cargo run --bin hurray-spec -- check --spec")
            && err.contains("spec/tags/element_type.toml:"),
        "{err}"
    );
    for noise in ["rerun-if-changed", "panicked", "--- stdout"] {
        assert!(!err.contains(noise), "`{noise}` in:\n{err}");
    }

    // Another mid-edit state: a TOML syntax error. The checker needs no rebuild to say so.
    text.push_str("\n[[tag]]\nvalue = 0x\n");
    std::fs::write(&types, &text).unwrap();
    let o = cargo_in(&workspace, &target, &check);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("error[toml-syntax]"), "{}", stdout(&o));
}
