//! The evolution playbook (`docs/cookbook/evolution-playbook.md`), executable.
//!
//! The page's rendered parts are fresh (`hurray_codegen::playbook` renders them from each
//! scenario's amendment fixture; `cargo run --bin hurray-spec -- refresh` rewrites them), and
//! each scenario's fixture checks clean. End to end (ignored by default, as it builds the
//! workspace in a copy of it for each scenario; `.ci/run` runs it with `--ignored`): in a copy
//! of the workspace with the scenario's edits made, every step of its ` ```sh ` block runs as
//! written and succeeds — among them the whole suite on the amended tree — then each data row
//! is written by one build's `hurray encode` and read by both builds' `hurray decode` with the
//! outcome the table states; a scenario with an `extension.rs` builds it in a crate outside
//! the copy, depending on the copy's derive and runtime, as an extension author's crate does.
//! Every copy builds in one target directory, as two checkouts of a user's sharing one do:
//! `$HURRAY_E2E_TARGET` ([`e2e_target`]), or else one of the run's own beside the copies.
//! `.ci/run` (as its last step) gives it the test's own target directory. The `hurray` of this build (the old one) is copied aside first.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use hurray_codegen::playbook::{self, Build, Outcome, Scenario};

use crate::common::fixtures::materialize;
use crate::common::workspace::{cargo_in, e2e_copy, e2e_target, sync_sources};
use crate::common::{root, scratch, stderr, stdout};

fn page() -> String {
    std::fs::read_to_string(root().join(playbook::PAGE)).expect("the playbook page")
}

fn scenarios() -> Vec<Scenario> {
    playbook::scenarios(&page()).unwrap_or_else(|e| panic!("{}: {e}", playbook::PAGE))
}

#[test]
fn the_page_is_rendered_from_its_fixtures_on_this_spec() {
    let work = scratch("playbook-render");
    let page = page();
    let rendered = playbook::render(&root(), &root().join("spec"), &page, &work)
        .unwrap_or_else(|e| panic!("{e}"));
    if rendered != page && std::env::var_os("BLESS").is_some() {
        std::fs::write(root().join(playbook::PAGE), &rendered).unwrap();
        return;
    }
    assert!(
        rendered == page,
        "{} is stale: refresh it with `{}` (or BLESS=1)",
        playbook::PAGE,
        hurray_codegen::artifacts::REFRESH_COMMAND
    );
}

/// ADR-019's handoff: four scenarios, each a fixture that checks clean (a minor, or a major
/// with its migration), each with steps that check, refresh, run the suite and release.
#[test]
fn the_four_scenarios_are_fixtures_that_check_clean() {
    let all = scenarios();
    assert_eq!(all.len(), 4, "ADR-019's handoff names four scenarios");
    for s in &all {
        let dir = playbook::fixture_dir(&root(), &s.fixture);
        let work = scratch(&format!("playbook-clean-{}", s.fixture));
        let m = materialize(&dir, &work);
        let loaded = hurray_codegen::check(&m.tree, None).unwrap();
        let errors: Vec<_> = loaded
            .diags
            .items()
            .iter()
            .filter(|d| d.lint.level == hurray_codegen::diag::Level::Error)
            .map(|d| d.lint.id)
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", s.fixture);
        // A major's build reads none of the old major's data (CD4): its suite, whose corpus
        // and conformance vectors are that data (and whose second runtimes are overlays of
        // the old major), is not the bar; the build of the crates a user depends on is.
        let major = (m.overlay.bump.iter()).any(|b| b.to == hurray_codegen::overlay::Step::Major);
        let suite = if major {
            "cargo build -p hurray-runtime -p hurray-runtime-released -p hurray-derive -p hurray-cli -p hurray-spec"
        } else {
            "cargo test --workspace"
        };
        for needed in [
            "hurray-spec -- check",
            "hurray-spec -- refresh",
            suite,
            "hurray-spec -- release",
        ] {
            assert!(
                s.steps.iter().any(|l| l.contains(needed)),
                "scenario `{}` has no step `{needed}`",
                s.fixture
            );
        }
        playbook::data(&dir).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Where the end-to-end runs keep their copies, data and the old `hurray`: outside the
/// target directory, as a user's checkout is (trybuild, among others, tells a source file
/// from a build product by whether it is under the target directory).
fn e2e_base() -> PathBuf {
    std::env::temp_dir().join("hurray-playbook-e2e")
}

/// The target directory every copy builds in.
fn playbook_target() -> PathBuf {
    e2e_target(e2e_base().join("target"))
}

/// Run one step line in the copy, with the shared target directory.
fn step(workspace: &Path, target: &Path, line: &str) -> Output {
    Command::new("sh")
        .args(["-c", line])
        .current_dir(workspace)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CARGO_MAKEFLAGS")
        .env_remove("BLESS")
        .output()
        .expect("sh runs")
}

/// `hurray` of one build: `bin` encodes `json` (written to `dir`), and returns the encoded
/// file, or the refusal.
fn encode(bin: &Path, dir: &Path, name: &str, json: &str) -> Result<PathBuf, String> {
    let input = dir.join(format!("{name}.json"));
    std::fs::write(&input, json).unwrap();
    let out = dir.join(format!("{name}.bin"));
    let o = Command::new(bin)
        .arg("encode")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("hurray runs");
    if o.status.success() {
        Ok(out)
    } else {
        Err(stderr(&o))
    }
}

/// What `bin`'s `hurray decode --json` does with `input`, and its JSON when it reads it.
fn decode(bin: &Path, input: &Path) -> (Outcome, String) {
    let o = Command::new(bin)
        .args(["decode", "--json"])
        .arg(input)
        .output()
        .expect("hurray runs");
    if o.status.success() {
        return (Outcome::Reads, stdout(&o));
    }
    let err = stderr(&o);
    let code = err
        .lines()
        .find_map(|l| l.strip_prefix("error[")?.split(']').next())
        .unwrap_or_else(|| panic!("`hurray decode` failed without a code:\n{err}"));
    (Outcome::Rejects(code.to_string()), err)
}

fn hurray_of(target: &Path) -> PathBuf {
    target
        .join("debug")
        .join(format!("hurray{}", std::env::consts::EXE_SUFFIX))
}

/// One scenario, end to end; returns what the log of the run says about it.
fn run_scenario(s: &Scenario, old: &Path) -> String {
    let base = e2e_base();
    let target = playbook_target();
    // The one copy every scenario amends in turn, brought back to the checkout's files first:
    // what a scenario leaves unchanged is not compiled again.
    let (_copy, workspace) = e2e_copy();
    let dir = playbook::fixture_dir(&root(), &s.fixture);
    let work = scratch(&format!("playbook-e2e-{}", s.fixture));
    // The edits as a real amendment makes them: its names without the fixtures' `x_`, so the
    // fixture itself still applies on the amended tree (its suite runs every fixture).
    let edit = std::fs::read_to_string(dir.join("edit.toml")).unwrap();
    std::fs::write(work.join("edit.toml"), playbook::real_names(&edit)).unwrap();
    let m =
        hurray_codegen::overlay::materialize(&root().join("spec"), &work.join("edit.toml"), &work)
            .unwrap_or_else(|e| panic!("{e}"));
    sync_sources(&m.tree, &workspace.join("spec"));
    // A checkout is a git repository (the two-checkout test lists its files with git).
    for args in [&["init", "-q"][..], &["add", "-A"][..]] {
        let o = Command::new("git")
            .args(args)
            .current_dir(&workspace)
            .output()
            .expect("git runs");
        assert!(o.status.success(), "git {args:?}: {}", stderr(&o));
    }
    // What the spec editor edits by hand: the spec files the overlay changes, and the corpus
    // tables the scenario's rows go into. Everything else that changes is the steps' output.
    let mut by_hand = git_changes(&root().join("spec"), &workspace.join("spec"));
    for c in playbook::corpus(&dir).unwrap() {
        by_hand.push(c.file.clone());
        let c = playbook::CorpusEdit {
            file: c.file,
            find: playbook::real_names(&c.find),
            replace: playbook::real_names(&c.replace),
        };
        c.apply(&workspace).unwrap_or_else(|e| panic!("{e}"));
    }

    let mut log = String::new();
    let started = Instant::now();
    for line in &s.steps {
        let t = Instant::now();
        let o = step(&workspace, &target, line);
        assert!(
            o.status.success(),
            "scenario `{}`: `{line}` failed:\nstdout:\n{}\nstderr:\n{}",
            s.fixture,
            stdout(&o),
            stderr(&o)
        );
        let done = format!("  {:>6.1} s  {line}\n", t.elapsed().as_secs_f64());
        eprint!("{}: {done}", s.fixture);
        log.push_str(&done);
    }

    // The files: by hand, only tables (spec and corpus); by the steps, what they regenerate.
    by_hand.sort();
    by_hand.dedup();
    let written: Vec<String> = git_status(&workspace)
        .into_iter()
        .filter(|f| !by_hand.contains(f))
        .collect();
    let hand_rust: Vec<&String> = by_hand.iter().filter(|f| f.ends_with(".rs")).collect();
    assert!(
        hand_rust.is_empty(),
        "scenario `{}` edits Rust by hand: {hand_rust:?}",
        s.fixture
    );
    log.push_str(&format!(
        "  files edited by hand ({}): {}
  files the steps wrote ({}): {}
",
        by_hand.len(),
        by_hand.join(", "),
        written.len(),
        summarize(&written)
    ));

    // The data, through both builds.
    let old = old.to_path_buf();
    let new = hurray_of(&target);
    let data_dir = base.join(&s.fixture).join("data");
    let _ = std::fs::remove_dir_all(&data_dir);
    std::fs::create_dir_all(&data_dir).unwrap();
    for (i, d) in playbook::data(&dir).unwrap().iter().enumerate() {
        let json =
            (m.vars.expand(&playbook::real_names(&d.json))).unwrap_or_else(|e| panic!("{e}"));
        let writer = match d.writer {
            Build::Old => &old,
            Build::New => &new,
        };
        let mut written =
            encode(writer, &data_dir, &format!("row{i}"), &json).unwrap_or_else(|e| {
                panic!(
                    "scenario `{}`, `{}`: the {:?} build does not write it:\n{e}",
                    s.fixture, d.what, d.writer
                )
            });
        if let Some(to) = &d.migrate {
            let to = m.vars.expand(to).unwrap_or_else(|e| panic!("{e}"));
            let out = data_dir.join(format!("row{i}-migrated.bin"));
            let o = Command::new(&new)
                .args(["migrate", "--to", &to])
                .arg(&written)
                .arg("-o")
                .arg(&out)
                .output()
                .expect("hurray runs");
            assert!(
                o.status.success(),
                "scenario `{}`, `{}`: `hurray migrate --to {to}`:\n{}",
                s.fixture,
                d.what,
                stderr(&o)
            );
            written = out;
        }
        for (build, bin, expected) in [("old", &old, &d.old), ("new", &new, &d.new)] {
            let (got, text) = decode(bin, &written);
            assert_eq!(
                &got, expected,
                "scenario `{}`, `{}`: the {build} reader:\n{text}",
                s.fixture, d.what
            );
            if build == "new" {
                for shown in &d.shows {
                    let shown = (m.vars.expand(&playbook::real_names(shown)))
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert!(
                        text.contains(shown.as_str()),
                        "scenario `{}`, `{}`: the new reader does not say `{shown}`:\n{text}",
                        s.fixture,
                        d.what
                    );
                }
            }
        }
    }

    // The extension author's crate, outside the copy.
    if let Ok(code) = std::fs::read_to_string(dir.join("extension.rs")) {
        let krate = base.join(&s.fixture).join("extension");
        let _ = std::fs::remove_dir_all(&krate);
        std::fs::create_dir_all(krate.join("src")).unwrap();
        let dep = |c: &str| workspace.join(c).display().to_string().replace('\\', "/");
        std::fs::write(
            krate.join("Cargo.toml"),
            format!(
                "[package]\nname = \"playbook-extension\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
                 publish = false\n\n[dependencies]\nhurray-derive = {{ path = \"{}\" }}\n\
                 hurray-runtime = {{ path = \"{}\" }}\n\n[workspace]\n",
                dep("hurray-derive"),
                dep("hurray-runtime")
            ),
        )
        .unwrap();
        let code = (m.vars.expand(&playbook::real_names(&code))).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(krate.join("src/lib.rs"), code).unwrap();
        // The copy's lock file keeps the crates' versions those of the workspace (offline).
        std::fs::copy(workspace.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
        let t = Instant::now();
        let o = cargo_in(&krate, &target, &["test", "--offline", "--quiet"]);
        assert!(
            o.status.success(),
            "scenario `{}`: the extension crate:\n{}\n{}",
            s.fixture,
            stdout(&o),
            stderr(&o)
        );
        log.push_str(&format!(
            "  {:>6.1} s  cargo test (the extension crate)\n",
            t.elapsed().as_secs_f64()
        ));
    }
    format!(
        "scenario `{}`: {:.1} s\n{log}",
        s.fixture,
        started.elapsed().as_secs_f64()
    )
}

/// The spec files that differ between two spec trees, as paths from the repository's root.
fn git_changes(before: &Path, after: &Path) -> Vec<String> {
    let o = Command::new("git")
        .args(["diff", "--no-index", "--name-only"])
        .arg(before)
        .arg(after)
        .output()
        .expect("git runs");
    let mut out = Vec::new();
    for line in stdout(&o).lines() {
        let p = Path::new(line.trim());
        let rel = p
            .strip_prefix(after)
            .or_else(|_| p.strip_prefix(before))
            .map(|r| format!("spec/{}", r.display()))
            .unwrap_or_else(|_| line.trim().to_string());
        out.push(rel);
    }
    out
}

/// Every file the steps changed or added in the copy, against what `git add` recorded before
/// them (the spec as edited; nothing is committed, so the index is the reference).
fn git_status(workspace: &Path) -> Vec<String> {
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args(args)
            .current_dir(workspace)
            .output()
            .expect("git runs");
        assert!(o.status.success(), "git {args:?}: {}", stderr(&o));
        stdout(&o).lines().map(str::to_string).collect::<Vec<_>>()
    };
    let mut files = git(&["diff", "--name-only"]);
    files.extend(git(&["ls-files", "--others", "--exclude-standard"]));
    files
}

/// Files by their directory, with a count: `spec/releases (4), docs/spec (3)`.
fn summarize(files: &[String]) -> String {
    let mut by_dir: std::collections::BTreeMap<String, usize> = Default::default();
    for f in files {
        let dir = Path::new(f)
            .parent()
            .map_or(String::new(), |d| d.display().to_string());
        *by_dir.entry(dir).or_default() += 1;
    }
    by_dir
        .iter()
        .map(|(d, n)| format!("{d} ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
#[ignore = "builds and tests the whole workspace in a copy for each scenario (minutes); .ci/run runs it with --ignored"]
fn every_scenario_end_to_end_from_the_playbooks_steps() {
    let only = std::env::var("PLAYBOOK_SCENARIO").ok();
    let built = PathBuf::from(env!("CARGO_BIN_EXE_hurray-spec"))
        .with_file_name(format!("hurray{}", std::env::consts::EXE_SUFFIX));
    assert!(
        built.is_file(),
        "{} is not built (cargo test --workspace)",
        built.display()
    );
    std::fs::create_dir_all(e2e_base()).unwrap();
    let old = e2e_base().join(format!("hurray-old{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(&built, &old).unwrap();
    let mut ran = 0;
    for s in scenarios() {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|n| n == s.fixture))
        {
            continue;
        }
        let log = run_scenario(&s, &old);
        eprintln!("{log}");
        ran += 1;
    }
    assert!(ran > 0, "no scenario named `{only:?}`");
}
