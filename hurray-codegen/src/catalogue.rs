//! The rule catalogue: every rule of the spec's rule tables and every resolution, with who
//! it binds, what enforces it and, from a repository's test data, which tests break it and
//! see it caught. In a repository it also lists the command line's own rules: each refusal
//! of `hurray encode`, from [`TOOL_RULES`] (the table the command line's `Refusal` enum is
//! generated from, so neither lists a code the other lacks). `hurray-spec rules` prints it; `hurray-spec explain` reads one entry.
//!
//! The model part comes from the spec ([`Catalogue::of_spec`]). The tests come from data
//! that cannot drift from what they name ([`Coverage::scan`]): the rejecting corpus's
//! manifest (each vector names its rule), the lint fixtures' expected diagnostics (each lint
//! names its rule, in the lint registry or in the rule table's `lints`), the derive's
//! compile-fail fixtures (named `<rule>-…` and failing with `<RULE>:`), and `tests/coverage.toml`
//! for what only a Rust test function or a valid vector shows, every reference checked to
//! exist.
//!
//! ```
//! # let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
//! let loaded = hurray_codegen::load(&dir).unwrap();
//! let spec = loaded.clean().expect("the spec loads cleanly");
//! let catalogue = hurray_codegen::catalogue::Catalogue::of_spec(spec);
//! let rule = catalogue.entry("CD3").expect("the seed's id finds the rule that restates it");
//! assert_eq!(rule.id, "VER-1");
//! assert!(rule.binds.contains(&hurray_codegen::catalogue::Party::Reader));
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::lints;
use crate::model::{Action, Actor, EnforcedBy, Rationale, Spec};

/// Who a rule binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Party {
    Reader,
    Writer,
    SpecEditor,
    /// The interchange protocol's server.
    Server,
    /// The interchange protocol's client.
    Client,
}

impl Party {
    /// The word `rules --json` prints.
    pub fn word(self) -> &'static str {
        match self {
            Party::Reader => "reader",
            Party::Writer => "writer",
            Party::SpecEditor => "spec editor",
            Party::Server => "server",
            Party::Client => "client",
        }
    }
}

/// What enforces a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Enforcer {
    /// A check stated in `spec/structures`, generated into the runtime's parser.
    TableCheck,
    /// The runtime's structural parse (framing, lengths, presence).
    StructuralParse,
    /// The runtime's hand-written semantic layer.
    Runtime,
    /// The runtime's writers, which refuse.
    Writer,
    /// The amendment checker's lints (`hurray-spec check`).
    AmendmentLint,
    /// `#[derive(HurraySection)]`, at compile time.
    Derive,
    /// The `hurray` command line, which refuses its input (`hurray encode`).
    CommandLine,
}

impl Enforcer {
    pub fn word(self) -> &'static str {
        match self {
            Enforcer::TableCheck => "table check",
            Enforcer::StructuralParse => "structural parse",
            Enforcer::Runtime => "runtime",
            Enforcer::Writer => "writer",
            Enforcer::AmendmentLint => "amendment lint",
            Enforcer::Derive => "derive",
            Enforcer::CommandLine => "command line",
        }
    }

    fn of(e: EnforcedBy) -> Option<Enforcer> {
        match e {
            EnforcedBy::Table => Some(Enforcer::TableCheck),
            EnforcedBy::Structure => Some(Enforcer::StructuralParse),
            EnforcedBy::Runtime => Some(Enforcer::Runtime),
            EnforcedBy::Writer => Some(Enforcer::Writer),
            EnforcedBy::Amendment => Some(Enforcer::AmendmentLint),
            EnforcedBy::Derive => Some(Enforcer::Derive),
            EnforcedBy::Unenforceable | EnforcedBy::Pending => None,
        }
    }
}

/// A rule of the rule tables, or a resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    Rule,
    Resolution,
}

/// One entry of the catalogue.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Entry {
    pub id: String,
    pub kind: Kind,
    /// The stable error code (rules; a resolution has none).
    pub code: Option<String>,
    /// The ids the seeds give the rule (`CD3`), when it restates one of theirs.
    pub seed: Vec<String>,
    /// The rule's text, or the resolution's point and decision.
    pub text: String,
    pub source: String,
    /// What a reader does when the rule is broken (rules only).
    pub action: Option<Action>,
    pub binds: Vec<Party>,
    pub enforced_by: Vec<Enforcer>,
    /// The amendment lints that enforce it.
    pub lints: Vec<String>,
    /// Why no software can enforce or observe it.
    pub unenforceable: Option<String>,
    /// Software can enforce it, but none does yet (`enforced_by = "pending"`).
    pub pending: bool,
    /// Why the rule exists, where a seed or facts sheet says (rules only).
    pub rationale: Option<Rationale>,
    /// Resolutions that shaped a rule; for a resolution, the rules it governs.
    pub related: Vec<String>,
    /// The tests that break it and see it caught; `None` when no test data was read.
    pub tested_by: Option<Vec<Test>>,
    /// Why it has no test although software enforces it (from `tests/coverage.toml`).
    pub untested: Option<String>,
}

impl Entry {
    /// Whether some software enforces the entry, so that it needs a test.
    pub fn enforceable(&self) -> bool {
        self.unenforceable.is_none() && !self.enforced_by.is_empty()
    }
}

/// The whole catalogue, in the rule tables' order, then the resolutions.
#[derive(Clone, Debug)]
pub struct Catalogue {
    pub entries: Vec<Entry>,
}

impl Catalogue {
    /// Every rule and resolution of a spec, without tests.
    pub fn of_spec(spec: &Spec) -> Catalogue {
        let mut entries = Vec::new();
        for r in &spec.rules {
            let binds = match r.actor {
                Actor::Reader => vec![Party::Reader],
                Actor::Writer => vec![Party::Writer],
                Actor::Both => vec![Party::Reader, Party::Writer],
                Actor::Editor => vec![Party::SpecEditor],
                Actor::Server => vec![Party::Server],
                Actor::Client => vec![Party::Client],
            };
            let mut enforced_by: Vec<Enforcer> = std::iter::once(r.enforced_by)
                .chain(r.also_enforced_by.iter().copied())
                .filter_map(Enforcer::of)
                .collect();
            let mut lint_ids: Vec<String> = lints::ALL
                .iter()
                .filter(|l| l.rule == r.id || r.seed.iter().any(|s| s == l.rule))
                .map(|l| l.id.to_string())
                .chain(r.lints.iter().cloned())
                .collect();
            lint_ids.sort();
            lint_ids.dedup();
            if !lint_ids.is_empty() && !enforced_by.contains(&Enforcer::AmendmentLint) {
                enforced_by.push(Enforcer::AmendmentLint);
            }
            entries.push(Entry {
                id: r.id.clone(),
                kind: Kind::Rule,
                code: Some(r.code.clone()),
                seed: r.seed.clone(),
                text: r.text.clone(),
                source: r.source.clone(),
                action: Some(r.action),
                binds,
                enforced_by,
                lints: lint_ids,
                unenforceable: r.unenforceable.clone(),
                pending: r.enforced_by == EnforcedBy::Pending,
                rationale: r.rationale.clone(),
                related: r
                    .resolutions
                    .iter()
                    .map(|id| spec.resolutions[id.index()].id.clone())
                    .collect(),
                tested_by: None,
                untested: None,
            });
        }
        for res in &spec.resolutions {
            // The rules a resolution governs: those it names, and those that cite it.
            let governed: Vec<&Entry> = entries
                .iter()
                .filter(|e| res.governs.contains(&e.id) || e.related.contains(&res.id))
                .collect();
            let mut binds: Vec<Party> = governed.iter().flat_map(|e| e.binds.clone()).collect();
            binds.sort();
            binds.dedup();
            let mut enforced_by: Vec<Enforcer> = governed
                .iter()
                .flat_map(|e| e.enforced_by.clone())
                .collect();
            enforced_by.sort();
            enforced_by.dedup();
            let related = governed.iter().map(|e| e.id.clone()).collect();
            entries.push(Entry {
                id: res.id.clone(),
                kind: Kind::Resolution,
                code: None,
                seed: Vec::new(),
                text: format!("{}: {}", res.point, res.decision),
                source: res.source.clone(),
                action: None,
                binds,
                enforced_by,
                lints: Vec::new(),
                unenforceable: None,
                pending: false,
                rationale: None,
                related,
                tested_by: None,
                untested: None,
            });
        }
        Catalogue { entries }
    }

    /// The entry with this id, or whose seed id this is.
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .or_else(|| self.entries.iter().find(|e| e.seed.iter().any(|s| s == id)))
    }

    /// Attach what a repository's tests show: each rule's own tests, and a resolution's
    /// through the rules it governs.
    pub fn with_coverage(mut self, coverage: &Coverage) -> Catalogue {
        self.entries
            .extend(coverage.tools.iter().map(ToolRule::entry));
        let own: BTreeMap<String, Vec<Test>> = self
            .entries
            .iter()
            .map(|e| (e.id.clone(), coverage.own_tests(e)))
            .collect();
        for e in &mut self.entries {
            let mut tests = own[&e.id].clone();
            let vias: Vec<String> = match e.kind {
                Kind::Resolution => e.related.clone(),
                Kind::Rule => coverage
                    .restated
                    .get(&e.id)
                    .map(|r| r.by.clone())
                    .unwrap_or_default(),
            };
            for via in vias {
                for t in own.get(&via).into_iter().flatten() {
                    if t.via.is_none() {
                        tests.push(Test {
                            via: Some(via.clone()),
                            ..t.clone()
                        });
                    }
                }
            }
            e.tested_by = Some(tests);
            e.untested = coverage.untested.get(&e.id).cloned();
        }
        self
    }

    /// What is wrong with the catalogue's coverage: an enforceable entry without a test or a
    /// stated reason, a reason for an entry that has tests, or a coverage table naming
    /// what does not exist. Empty when every rule is covered.
    pub fn coverage_problems(&self, coverage: &Coverage) -> Vec<String> {
        let mut out = coverage.problems.clone();
        let known: BTreeSet<&str> = self.entries.iter().map(|e| e.id.as_str()).collect();
        if known.len() != self.entries.len() {
            out.push(format!(
                "an id is listed twice (a rule of {TOOL_RULES} reuses a spec rule's id?)"
            ));
        }
        for id in coverage
            .tested
            .keys()
            .chain(coverage.untested.keys())
            .chain(coverage.restated.keys())
            .chain(coverage.restated.values().flat_map(|r| r.by.iter()))
        {
            if !known.contains(id.as_str()) {
                out.push(format!(
                    "tests/coverage.toml names `{id}`, which is no rule or resolution"
                ));
            }
        }
        for e in &self.entries {
            let tests = e.tested_by.as_deref().unwrap_or_default();
            match (e.enforceable(), tests.is_empty(), &e.untested) {
                (true, true, None) => out.push(format!(
                    "{} is enforced by {} but no test breaks it: add a rejecting vector, a fixture or a `[tested]` entry in tests/coverage.toml, or say in `[untested]` why none can",
                    e.id,
                    e.enforced_by.iter().map(|x| x.word()).collect::<Vec<_>>().join(", ")
                )),
                (false, true, None) if e.kind == Kind::Resolution => out.push(format!(
                    "{} governs no enforced rule and no test shows it: add a `[tested]` entry in tests/coverage.toml",
                    e.id
                )),
                (_, false, Some(_)) => out.push(format!(
                    "{} has tests now: take it off `[untested]` in tests/coverage.toml",
                    e.id
                )),
                _ => {}
            }
            if e.kind == Kind::Rule && !e.enforceable() && e.unenforceable.is_none() && !e.pending {
                out.push(format!(
                    "{} says no software enforces it, but not why",
                    e.id
                ));
            }
        }
        out
    }
}

/// How a test shows a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TestKind {
    /// A vector of `tests/corpus/reject/` that breaks the rule.
    RejectVector,
    /// A vector of `tests/corpus/valid/` that a reader must accept as the rule says.
    ValidVector,
    /// A spec fixture of `tests/fixtures/` whose expected output reports one of the rule's lints.
    LintFixture,
    /// A compile-fail fixture of `hurray-derive/tests/ui/`.
    DeriveFixture,
    /// A Rust test function, `path::function`.
    TestFunction,
}

impl TestKind {
    pub fn word(self) -> &'static str {
        match self {
            TestKind::RejectVector => "reject vector",
            TestKind::ValidVector => "valid vector",
            TestKind::LintFixture => "lint fixture",
            TestKind::DeriveFixture => "derive fixture",
            TestKind::TestFunction => "test function",
        }
    }
}

/// One test of a rule.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Test {
    pub kind: TestKind,
    /// The vector's or fixture's path from the repository root, or `path::function`.
    pub name: String,
    /// The rule through which it tests this one (a restatement, or a resolution's rule).
    pub via: Option<String>,
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.word(), self.name)?;
        if let Some(v) = &self.via {
            write!(f, " (via {v})")?;
        }
        Ok(())
    }
}

/// A rule another rule restates, so that its tests are the other's.
#[derive(Clone, Debug)]
pub struct Restated {
    pub by: Vec<String>,
    pub why: String,
}

/// What a repository's test data shows about the rules.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Rejecting vectors by the rule they break.
    rejects: BTreeMap<String, Vec<String>>,
    /// Lint fixtures by the lints their expected output reports.
    fixtures: BTreeMap<String, Vec<String>>,
    /// Derive compile-fail fixtures by the rule they are named after.
    derive: BTreeMap<String, Vec<String>>,
    /// `tests/coverage.toml [tested]`: rule → tests.
    tested: BTreeMap<String, Vec<Test>>,
    restated: BTreeMap<String, Restated>,
    untested: BTreeMap<String, String>,
    /// The command line's rules ([`TOOL_RULES`]).
    tools: Vec<ToolRule>,
    problems: Vec<String>,
}

/// Where `tests/coverage.toml` lies in a repository.
pub const COVERAGE_TABLE: &str = "tests/coverage.toml";

/// Where the command line's rules lie in a repository: the refusals of `hurray encode`, each
/// with its catalogue id, stable code and text. The command line's build script generates its
/// `Refusal` enum from the same table, so it reports no code the catalogue does not list.
pub const TOOL_RULES: &str = "hurray-cli/refusals.toml";

/// One rule of [`TOOL_RULES`].
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolRule {
    id: String,
    code: String,
    text: String,
}

/// The layout of [`TOOL_RULES`].
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolTable {
    refusal: Vec<ToolRule>,
}

impl ToolRule {
    /// The catalogue's entry: a rule the command line enforces on what it is given to write,
    /// so it binds the writer (the author of the JSON) and rejects always.
    fn entry(&self) -> Entry {
        Entry {
            id: self.id.clone(),
            kind: Kind::Rule,
            code: Some(self.code.clone()),
            seed: Vec::new(),
            text: self.text.clone(),
            source: TOOL_RULES.to_string(),
            action: Some(Action::Reject),
            binds: vec![Party::Writer],
            enforced_by: vec![Enforcer::CommandLine],
            lints: Vec::new(),
            unenforceable: None,
            pending: false,
            rationale: None,
            related: Vec::new(),
            tested_by: None,
            untested: None,
        }
    }
}

fn read(root: &Path, rel: &str) -> Result<String, String> {
    std::fs::read_to_string(root.join(rel)).map_err(|e| format!("{rel}: {e}"))
}

fn dir_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

impl Coverage {
    /// Read the test data of the repository at `root`. `Ok(None)` when it holds no
    /// `tests/coverage.toml` (the catalogue then has no tests); an error when the data is
    /// there but unreadable.
    pub fn scan(root: &Path) -> Result<Option<Coverage>, String> {
        if !root.join(COVERAGE_TABLE).is_file() {
            return Ok(None);
        }
        let mut c = Coverage::default();
        // Rejecting vectors: the manifest names each file's rule.
        let manifest: serde_json::Value =
            serde_json::from_str(&read(root, "tests/corpus/reject/manifest.json")?)
                .map_err(|e| format!("tests/corpus/reject/manifest.json: {e}"))?;
        for (file, v) in manifest.as_object().into_iter().flatten() {
            let rel = format!("tests/corpus/reject/{file}");
            if !root.join(&rel).is_file() {
                c.problems
                    .push(format!("{rel} is in the manifest but missing"));
            }
            if let Some(rule) = v.get("rule").and_then(|r| r.as_str()) {
                c.rejects.entry(rule.to_string()).or_default().push(rel);
            }
        }
        // Lint fixtures: each expected diagnostic names its lint (notes included: a
        // classification note is what its fixture shows).
        for group in ["model", "amendments"] {
            for dir in dir_entries(&root.join("tests/fixtures").join(group)) {
                let name = dir.file_name().unwrap_or_default().to_string_lossy();
                let rel = format!("tests/fixtures/{group}/{name}");
                let Ok(expected) = std::fs::read_to_string(dir.join("expected.txt")) else {
                    continue;
                };
                let mut seen = BTreeSet::new();
                for line in expected.lines() {
                    let lint = ["error[", "warning[", "note["]
                        .iter()
                        .find_map(|p| line.strip_prefix(p))
                        .and_then(|rest| rest.split(']').next());
                    if let Some(l) = lint
                        && seen.insert(l.to_string())
                    {
                        c.fixtures
                            .entry(l.to_string())
                            .or_default()
                            .push(rel.clone());
                    }
                }
            }
        }
        // Derive fixtures: `<rule>-….rs` whose expected error names the rule.
        for path in dir_entries(&root.join("hurray-derive/tests/ui")) {
            if path.extension().is_some_and(|e| e == "rs") {
                let stem = path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string();
                let stderr =
                    std::fs::read_to_string(path.with_extension("stderr")).unwrap_or_default();
                if let Some((rule, _)) = stem.split_once('-') {
                    let id = rule.to_ascii_uppercase();
                    if stderr.contains(&format!("{id}:")) {
                        c.derive
                            .entry(id)
                            .or_default()
                            .push(format!("hurray-derive/tests/ui/{stem}.rs"));
                    }
                }
            }
        }
        c.read_table(root)?;
        if root.join(TOOL_RULES).is_file() {
            let table: ToolTable = toml::from_str(&read(root, TOOL_RULES)?)
                .map_err(|e| format!("{TOOL_RULES}: {e}"))?;
            c.tools = table.refusal;
        }
        Ok(Some(c))
    }

    /// `tests/coverage.toml`: `[tested]` (rule → tests), `[restated]` (rule → the rules that
    /// restate it, and why it cannot be broken under its own id), `[untested]` (rule → why no
    /// test can break it here).
    fn read_table(&mut self, root: &Path) -> Result<(), String> {
        let text = read(root, COVERAGE_TABLE)?;
        let table: toml::Table =
            toml::from_str(&text).map_err(|e| format!("{COVERAGE_TABLE}: {e}"))?;
        let valid: serde_json::Value =
            serde_json::from_str(&read(root, "tests/corpus/valid/manifest.json")?)
                .map_err(|e| format!("tests/corpus/valid/manifest.json: {e}"))?;
        for key in table.keys() {
            if !["tested", "restated", "untested"].contains(&key.as_str()) {
                self.problems
                    .push(format!("{COVERAGE_TABLE}: unknown table `[{key}]`"));
            }
        }
        let section = |k: &str| {
            table
                .get(k)
                .and_then(|v| v.as_table())
                .cloned()
                .unwrap_or_default()
        };
        for (rule, refs) in section("tested") {
            let refs: Vec<&str> = refs
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
                .unwrap_or_default();
            if refs.is_empty() {
                self.problems
                    .push(format!("{COVERAGE_TABLE}: `{rule}` lists no test"));
            }
            for r in refs {
                match self.reference(root, r, &valid) {
                    Ok(t) => self.tested.entry(rule.clone()).or_default().push(t),
                    Err(e) => self
                        .problems
                        .push(format!("{COVERAGE_TABLE}: `{rule}`: {e}")),
                }
            }
        }
        for (rule, v) in section("restated") {
            let by: Vec<String> = v
                .get("by")
                .and_then(|b| b.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let why = v.get("why").and_then(|w| w.as_str()).unwrap_or_default();
            if by.is_empty() || why.is_empty() {
                self.problems.push(format!(
                    "{COVERAGE_TABLE}: `[restated]` `{rule}` needs `by` and `why`"
                ));
            }
            self.restated.insert(
                rule,
                Restated {
                    by,
                    why: why.to_string(),
                },
            );
        }
        for (rule, why) in section("untested") {
            match why.as_str() {
                Some(w) if !w.is_empty() => {
                    self.untested.insert(rule, w.to_string());
                }
                _ => self.problems.push(format!(
                    "{COVERAGE_TABLE}: `[untested]` `{rule}` says no why"
                )),
            }
        }
        Ok(())
    }

    /// A reference of the coverage table: `<path>::<function>` (a Rust test) or
    /// `valid:<name>` (a golden vector); an error when it does not exist.
    fn reference(&self, root: &Path, r: &str, valid: &serde_json::Value) -> Result<Test, String> {
        if let Some(name) = r.strip_prefix("valid:") {
            return match valid.get(name) {
                Some(_) => Ok(Test {
                    kind: TestKind::ValidVector,
                    name: format!("tests/corpus/valid/{name}"),
                    via: None,
                }),
                None => Err(format!("no valid vector `{name}`")),
            };
        }
        let (path, function) = r.split_once("::").ok_or_else(|| {
            format!("`{r}` is neither `<path>::<test function>` nor `valid:<name>`")
        })?;
        let text = std::fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"))?;
        // A test function: `#[test]` (or a proptest block) right before `fn <name>(`.
        let needle = format!("fn {function}(");
        let found = text.match_indices(&needle).any(|(at, _)| {
            let before = &text[..at];
            let window = &before[before.len().saturating_sub(300)..];
            window.contains("#[test]") || before.contains("proptest!")
        });
        if found {
            Ok(Test {
                kind: TestKind::TestFunction,
                name: r.to_string(),
                via: None,
            })
        } else {
            Err(format!("{path} has no test function `{function}`"))
        }
    }

    /// The tests that show an entry directly: its rejecting vectors, the fixtures of its
    /// lints, its derive fixtures and its `[tested]` references.
    fn own_tests(&self, e: &Entry) -> Vec<Test> {
        let mut out = Vec::new();
        for f in self.rejects.get(&e.id).into_iter().flatten() {
            out.push(Test {
                kind: TestKind::RejectVector,
                name: f.clone(),
                via: None,
            });
        }
        let mut fixtures = BTreeSet::new();
        for l in &e.lints {
            for f in self.fixtures.get(l).into_iter().flatten() {
                fixtures.insert(f.clone());
            }
        }
        for f in fixtures {
            out.push(Test {
                kind: TestKind::LintFixture,
                name: f,
                via: None,
            });
        }
        for f in self.derive.get(&e.id).into_iter().flatten() {
            out.push(Test {
                kind: TestKind::DeriveFixture,
                name: f.clone(),
                via: None,
            });
        }
        out.extend(self.tested.get(&e.id).into_iter().flatten().cloned());
        out
    }

    /// The rejecting vectors named after a rule, as paths from the repository root.
    pub fn vectors_of(&self, rule: &str) -> &[String] {
        self.rejects.get(rule).map_or(&[], Vec::as_slice)
    }

    /// The lint fixtures whose expected output reports a lint, as paths from the root.
    pub fn fixtures_of(&self, lint: &str) -> &[String] {
        self.fixtures.get(lint).map_or(&[], Vec::as_slice)
    }

    /// The derive's compile-fail fixtures named after a rule, as paths from the root.
    pub fn derive_fixtures_of(&self, rule: &str) -> &[String] {
        self.derive.get(rule).map_or(&[], Vec::as_slice)
    }

    /// Why a rule cannot be broken under its own id, when another rule restates it.
    pub fn restated(&self, id: &str) -> Option<&Restated> {
        self.restated.get(id)
    }

    /// The tests `tests/coverage.toml` names for an entry.
    pub fn listed(&self, id: &str) -> &[Test] {
        self.tested.get(id).map_or(&[], Vec::as_slice)
    }

    /// Why no test of the repository can break a rule that software enforces.
    pub fn untested(&self, id: &str) -> Option<&str> {
        self.untested.get(id).map(String::as_str)
    }
}
