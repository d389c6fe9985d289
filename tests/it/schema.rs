//! The JSON Schemas of the spec files (issue #9 §4, help while typing): the checked-in
//! schemas under spec/schema are what `hurray-spec schema` generates; every spec file names
//! its schema with taplo's `#:schema` directive; every spec file, release record and overlay
//! fixture validates against its schema (with `boon`, a JSON Schema validator, as an editor's
//! language server would validate it); and a misspelt key or a wrong-typed value is flagged.

use std::path::{Path, PathBuf};

use crate::common::{self, hurray_spec, root, scratch, stderr, stdout};
use hurray_codegen::schema::{self, COMMAND, Kind};

/// The TOML file at `path` as the JSON value a language server validates.
fn json_of(text: &str, what: &str) -> serde_json::Value {
    let value: toml::Value = toml::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    serde_json::to_value(value).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// Every schema compiled, by kind.
struct Validator {
    schemas: boon::Schemas,
    compiled: Vec<(Kind, boon::SchemaIndex)>,
}

impl Validator {
    /// The schemas `hurray-spec schema` generates (the drift test keeps the checked-in ones
    /// equal to them).
    fn new() -> Validator {
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        let mut compiled = Vec::new();
        for (kind, text) in hurray_codegen::json_schema::generate() {
            let url = format!("file:///hurray/{}", kind.file_name());
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            compiler.add_resource(&url, value).unwrap();
            let index = compiler
                .compile(&url, &mut schemas)
                .unwrap_or_else(|e| panic!("{}: {e}", kind.file_name()));
            compiled.push((kind, index));
        }
        Validator { schemas, compiled }
    }

    /// The validation errors of `text` as a file of `kind` (empty when it validates).
    fn errors(&self, kind: Kind, text: &str, what: &str) -> String {
        let index = self
            .compiled
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, i)| *i)
            .unwrap();
        match self.schemas.validate(&json_of(text, what), index) {
            Ok(()) => String::new(),
            Err(e) => format!("{e:#}"),
        }
    }
}

/// Every `*.toml` file under `dir`, sorted.
fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file of the spec tree at `spec` with its path relative to it and its kind.
fn spec_tree(spec: &Path) -> Vec<(PathBuf, String, Kind)> {
    toml_files(spec)
        .into_iter()
        .filter_map(|p| {
            let relative = p
                .strip_prefix(spec)
                .unwrap()
                .to_str()
                .unwrap()
                .replace('\\', "/");
            Kind::of(&relative).map(|k| (p, relative, k))
        })
        .collect()
}

/// The overlay fixtures (`edit.toml`) of the repository's tests.
fn overlays() -> Vec<PathBuf> {
    toml_files(&root().join("tests/fixtures"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "edit.toml"))
        .collect()
}

#[test]
fn checked_in_schemas_are_up_to_date() {
    let dir = root().join("spec").join(schema::DIR);
    let generated = hurray_codegen::json_schema::generate();
    let stale: Vec<&str> = generated
        .iter()
        .filter(|(kind, text)| {
            std::fs::read_to_string(dir.join(kind.file_name()))
                .ok()
                .as_deref()
                != Some(text.as_str())
        })
        .map(|(kind, _)| kind.file_name())
        .collect();
    assert!(
        stale.is_empty(),
        "spec/schema is out of date ({}); refresh it with `{COMMAND}`",
        stale.join(", ")
    );
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            generated.iter().any(|(k, _)| k.file_name() == name),
            "spec/schema/{name} is not generated; remove it or run `{COMMAND}`"
        );
    }
    // The command's own check agrees.
    let out = hurray_spec(&["schema", "--check"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn schema_check_mode_fails_on_drift_and_names_the_command() {
    let work = scratch("schema-drift");
    let spec = work.join("spec");
    common::fixtures::copy_dir(&root().join("spec"), &spec);
    let s = spec.to_str().unwrap();
    assert!(
        hurray_spec(&["schema", "--spec", s, "--check"])
            .status
            .success()
    );
    // A stale schema and a file that lost its directive.
    std::fs::write(spec.join("schema/tags.json"), "{}\n").unwrap();
    let layout = spec.join("tags/layout.toml");
    let text = std::fs::read_to_string(&layout).unwrap();
    let (_, body) = text.split_once('\n').unwrap();
    std::fs::write(&layout, body).unwrap();
    let out = hurray_spec(&["schema", "--spec", s, "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("tags.json") && err.contains("layout.toml") && err.contains(COMMAND),
        "{err}"
    );
    // Writing mends both, and says what it wrote.
    let out = hurray_spec(&["schema", "--spec", s]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("layout.toml"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&layout).unwrap(), text);
    assert!(
        hurray_spec(&["schema", "--spec", s, "--check"])
            .status
            .success()
    );
    // `--out` elsewhere writes the schemas only.
    let elsewhere = work.join("elsewhere");
    let out = hurray_spec(&["schema", "--spec", s, "--out", elsewhere.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    for kind in Kind::ALL {
        assert!(elsewhere.join(kind.file_name()).is_file(), "{kind:?}");
    }
    assert_eq!(std::fs::read_to_string(&layout).unwrap(), text);
}

/// Every spec file opens with the directive naming its schema; a release record carries it
/// after its two header lines, or (records written before the schemas existed, append-only)
/// not at all; every overlay fixture names the overlay schema.
#[test]
fn every_spec_file_names_its_schema() {
    let spec = root().join("spec");
    let mut missing = Vec::new();
    for (path, relative, kind) in spec_tree(&spec) {
        let text = std::fs::read_to_string(&path).unwrap();
        let directive = kind.directive(&relative);
        let lines: Vec<&str> = text.lines().take(3).collect();
        let named = match kind {
            Kind::Release => {
                lines.get(2) == Some(&directive.as_str())
                    || !text.lines().any(|l| l.starts_with(schema::DIRECTIVE))
            }
            _ => lines.first() == Some(&directive.as_str()),
        };
        if !named {
            missing.push(format!("{relative} (wants `{directive}`)"));
        }
        // Whatever the directive names exists.
        if let Some(line) = text.lines().find(|l| l.starts_with(schema::DIRECTIVE)) {
            let target = path
                .parent()
                .unwrap()
                .join(&line[schema::DIRECTIVE.len()..]);
            assert!(target.is_file(), "{relative}: {line} names no file");
        }
    }
    assert!(
        missing.is_empty(),
        "spec files without their `#:schema` line: {}; run `{COMMAND}`",
        missing.join(", ")
    );
    for path in overlays() {
        let text = std::fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap_or_default();
        let target = path
            .parent()
            .unwrap()
            .join(first.strip_prefix(schema::DIRECTIVE).unwrap_or_else(|| {
            panic!(
                "{}: an overlay fixture opens with `#:schema <relative path of spec/schema/{}>`",
                path.display(),
                Kind::Overlay.file_name()
            )
        }));
        assert_eq!(
            target.canonicalize().unwrap(),
            spec.join(schema::DIR)
                .join(Kind::Overlay.file_name())
                .canonicalize()
                .unwrap(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn every_spec_file_release_record_and_overlay_validates() {
    let v = Validator::new();
    let spec = root().join("spec");
    let mut failures = Vec::new();
    let mut kinds = std::collections::BTreeSet::new();
    for (path, relative, kind) in spec_tree(&spec) {
        let errors = v.errors(kind, &std::fs::read_to_string(&path).unwrap(), &relative);
        if !errors.is_empty() {
            failures.push(format!("spec/{relative}: {errors}"));
        }
        kinds.insert(kind);
    }
    for path in overlays() {
        let what = path.display().to_string();
        let errors = v.errors(
            Kind::Overlay,
            &std::fs::read_to_string(&path).unwrap(),
            &what,
        );
        if !errors.is_empty() {
            failures.push(format!("{what}: {errors}"));
        }
        kinds.insert(Kind::Overlay);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The repository has a file of every kind but migrations (no major bump yet).
    for kind in Kind::ALL {
        assert!(
            kind == Kind::Migration || kinds.contains(&kind),
            "no file of kind {kind:?} was validated"
        );
    }
}

/// A migration specification (none is checked in yet) validates against its schema, and a
/// misspelt key in it is flagged.
#[test]
fn a_migration_validates() {
    let v = Validator::new();
    let migration = r#"#:schema ../schema/migration.json
[migration]
axis = "descriptor"
from = 1
to = 2

[[tag]]
space = "layout"
value = 1
to = "layout 0x01"

[[field]]
structure = "fixed_header"
field = "x_gone"
dropped = true

[[carry]]
space = "device"
"#;
    assert_eq!(v.errors(Kind::Migration, migration, "migration"), "");
    let misspelt = migration.replace("dropped = true", "droped = true");
    assert!(
        v.errors(Kind::Migration, &misspelt, "migration")
            .contains("droped"),
        "a misspelt key"
    );
}

/// What an editor shows while typing: a misspelt key and a wrong-typed value are flagged,
/// each naming where it is; the loader rejects the same edits.
#[test]
fn a_misspelt_key_and_a_wrong_typed_value_are_flagged() {
    let v = Validator::new();
    let spec = root().join("spec");
    let layout = std::fs::read_to_string(spec.join("tags/layout.toml")).unwrap();
    assert_eq!(v.errors(Kind::Tags, &layout, "layout"), "");
    // A misspelt key in a `[[tag]]`.
    let misspelt = layout.replacen("\ntitle = ", "\ntitel = ", 2);
    let errors = v.errors(Kind::Tags, &misspelt, "misspelt");
    assert!(
        errors.contains("titel") && errors.contains("/tag/0"),
        "{errors}"
    );
    // A wrong-typed value: a tag value as a string.
    let value_line = layout
        .lines()
        .find(|l| l.starts_with("value = "))
        .unwrap()
        .to_string();
    let number = value_line.trim_start_matches("value = ");
    let wrong = layout.replacen(&value_line, &format!("value = \"{number}\""), 1);
    let errors = v.errors(Kind::Tags, &wrong, "wrong type");
    assert!(
        errors.contains("/tag/0/value") && errors.contains("string"),
        "{errors}"
    );
    // The same in spec.toml and in a structure: an axis `currrent`, a framing that is
    // neither "fixed" nor a length prefix, a count that is a boolean.
    let spec_toml = std::fs::read_to_string(spec.join("spec.toml")).unwrap();
    let errors = v.errors(
        Kind::Spec,
        &spec_toml.replacen("\ncurrent = ", "\ncurrrent = ", 1),
        "spec.toml",
    );
    assert!(
        errors.contains("currrent") && errors.contains("current"),
        "{errors}"
    );
    let structures = std::fs::read_to_string(spec.join("structures/descriptor.toml")).unwrap();
    assert_eq!(v.errors(Kind::Structures, &structures, "descriptor"), "");
    let errors = v.errors(
        Kind::Structures,
        &structures.replacen("framing = \"fixed\"", "framing = \"fixd\"", 1),
        "framing",
    );
    assert!(errors.contains("/structure/0/framing"), "{errors}");
    let errors = v.errors(
        Kind::Structures,
        &structures.replacen("count = \"rank\"", "count = true", 1),
        "count",
    );
    assert!(errors.contains("count"), "{errors}");
    // The loader agrees: the misspelt key is a `toml-syntax` finding with its help.
    let mut sources = hurray_codegen::source::SourceMap::default();
    let mut diags = hurray_codegen::diag::Diagnostics::default();
    let _ = hurray_codegen::load::load_texts(
        vec![(
            "tags/layout.toml".into(),
            "tags/layout.toml".into(),
            spec.join("tags/layout.toml"),
            misspelt,
        )],
        &mut sources,
        &mut diags,
    );
    assert!(
        diags.items().iter().any(|d| d.message.contains("titel")),
        "{:?}",
        diags.items()
    );
}

/// `hurray-spec release` writes a new record with the directive (after its header lines),
/// and the record validates and verifies; `check` reads it like any other.
#[test]
fn a_new_release_record_names_its_schema_and_validates() {
    let work = scratch("schema-release");
    let edit = work.join("edit.toml");
    std::fs::write(
        &edit,
        r#"description = "a new device, one minor past the released spec"
[[bump]]
axis = "descriptor"
[[edit]]
file = "tags/device.toml"
append = """

[[tag]]
value = ${free:device}
name = "x_npu"
title = "a neural accelerator"
since = "${descriptor+minor}"
memory_classes = ["standard"]
"""
"#,
    )
    .unwrap();
    let m = hurray_codegen::overlay::materialize(&root().join("spec"), &edit, &work)
        .unwrap_or_else(|e| panic!("{e}"));
    let s = m.tree.to_str().unwrap();
    let out = hurray_spec(&["release", "--spec", s]);
    assert!(out.status.success(), "{}", stderr(&out));
    let record = format!("{}.toml", m.vars.get("record+1").unwrap());
    let relative = format!("releases/{record}");
    let text = std::fs::read_to_string(m.tree.join(&relative)).unwrap();
    assert_eq!(
        text.lines().nth(2),
        Some(Kind::Release.directive(&relative).as_str()),
        "{text}"
    );
    assert_eq!(Validator::new().errors(Kind::Release, &text, &relative), "");
    let out = hurray_spec(&["check", "--spec", s]);
    assert!(out.status.success(), "{}", stdout(&out));
}

/// The crates `package` builds into its own code and its build scripts' (normal and build
/// dependencies, transitively, with the features a build of that package alone resolves).
fn build_graph(package: &str) -> Vec<String> {
    let out =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["tree", "--offline", "-p", package, "-e", "normal,build"])
            .args(["--prefix", "none", "-f", "{p}"])
            .current_dir(root())
            .output()
            .expect("cargo tree runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// `schemars` is the CLI's (through hurray-codegen's `schema` feature), never in the build of
/// the runtime, whose build script runs hurray-codegen without the feature.
#[test]
fn schemars_stays_out_of_the_runtimes_build() {
    let runtime = build_graph("hurray-runtime");
    assert!(
        runtime.iter().any(|c| c == "hurray-codegen"),
        "the runtime's build script runs hurray-codegen: {runtime:?}"
    );
    assert!(
        !runtime.iter().any(|c| c.starts_with("schemars")),
        "schemars is in the runtime's build: {runtime:?}"
    );
    let cli = build_graph("hurray-spec");
    assert!(
        cli.iter().any(|c| c == "schemars"),
        "the predicate finds schemars where it is: {cli:?}"
    );
}
