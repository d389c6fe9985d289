//! `hurray-spec explain`: one rule, resolution, lint or error code, explained from the spec
//! and the repository's test data. Built on the [catalogue](crate::catalogue): the rule's
//! text, source, who it binds and what enforces it come from there; the rationale from the
//! rule table (`rationale`, where a seed or facts sheet states one) and the resolutions
//! that shaped it; the examples from data that tests keep honest:
//!
//! - a reader rule's example is a vector of `tests/corpus/reject/` that breaks it: its bytes
//!   around the rejected offset, the error line `hurray decode` prints (recorded in the
//!   manifest, checked by `tests/it/rejects.rs`), and the fix: the valid base the vector was
//!   made from, with the patched field's valid bytes;
//! - a lint's example is the fixture of `tests/fixtures/` that reports it: its edit of
//!   `spec/` as a TOML snippet, the diagnostic `check` reports for it (run here, so it is
//!   what the code reports now), and the fix: the lint's help and a fixture that shows the
//!   lint passing, where one exists;
//! - a derive rule's example is its compile-fail fixture and the compiler's error.
//!
//! An entry with none of these says why (no software can enforce it, or only a Rust test
//! function shows it). Without a repository the examples are left out, and said to be.
//!
//! ```
//! # let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
//! use hurray_codegen::catalogue::Catalogue;
//! use hurray_codegen::explain::{Examples, Explainer, Repository};
//! let loaded = hurray_codegen::load(&root.join("spec")).unwrap();
//! let spec = loaded.clean().expect("the spec loads cleanly");
//! let repository = Repository::read(&root).unwrap().expect("the repository's test data");
//! let catalogue = Catalogue::of_spec(spec).with_coverage(repository.coverage());
//! let explainer = Explainer::new(spec, &catalogue, Some(&repository));
//! let found = explainer.explain("unknown-type-tag").unwrap();
//! assert_eq!(found[0].subject.id(), "TYP-2");
//! assert!(matches!(found[0].examples, Examples::Shown(_)));
//! let unknown = explainer.explain("TYP-99").unwrap_err();
//! assert!(unknown.suggestions.iter().any(|s| s.starts_with("TYP-")));
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde_json::Value as Json;

use crate::catalogue::{Catalogue, Coverage, Enforcer, Entry, Kind};
use crate::lints::{self, Lint};
use crate::model::{Action, Spec};
use crate::overlay;

/// The rejecting corpus's table, manifest and vectors, from the repository root.
const REJECT_TABLE: &str = "tests/corpus/reject.toml";
const REJECT_MANIFEST: &str = "tests/corpus/reject/manifest.json";

/// How a query matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Match {
    /// A rule's or resolution's id.
    Id,
    /// An id the seeds give a rule that restates it (`CD3` is `VER-1`).
    Seed,
    /// An error code; every rule that reports it matches.
    Code,
    /// A lint id.
    Lint,
}

/// What an explanation is about.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Subject<'a> {
    /// A rule of the rule tables, or a resolution.
    Entry(&'a Entry),
    /// A lint, with the catalogue rules it enforces (none for the lints that keep the spec
    /// tables well-formed or the release records intact).
    Lint {
        lint: &'static Lint,
        enforces: Vec<&'a Entry>,
    },
}

impl Subject<'_> {
    /// The subject's id: the entry's, or the lint's.
    pub fn id(&self) -> &str {
        match self {
            Subject::Entry(e) => &e.id,
            Subject::Lint { lint, .. } => lint.id,
        }
    }
}

/// A resolution that shaped a rule: the point the format's text left open, and what the
/// spec decided.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    pub id: String,
    pub point: String,
    pub decision: String,
}

/// One explanation.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Explanation<'a> {
    pub matched: Match,
    pub subject: Subject<'a>,
    /// The resolutions that shaped the rule (its own `resolution` and those that name it).
    pub decisions: Vec<Decision>,
    pub examples: Examples,
}

/// The examples of an explanation.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "state", content = "value", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Examples {
    /// No repository test data was read (the spec directory stands alone).
    NotRead,
    Shown(Vec<Example>),
    /// Why there is no example.
    Nothing(String),
}

/// A minimal violation and its fix.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Example {
    Vector(VectorExample),
    Fixture(FixtureExample),
    Derive(DeriveExample),
}

/// A rejecting vector: bytes that break a reader rule, and the valid base they came from.
#[derive(Clone, Debug, Serialize)]
pub struct VectorExample {
    /// The vector's path from the repository root.
    pub file: String,
    /// The rule the vector breaks.
    pub rule: String,
    /// The rule through which it shows the explained entry (a restatement, or a
    /// resolution's rule).
    pub via: Option<String>,
    pub description: String,
    pub size: u64,
    pub code: String,
    pub offset: u64,
    /// The error line `hurray decode` prints for it.
    pub message: String,
    /// The reader configuration the vector is read with (agreements, network transport),
    /// as the manifest records it; empty for the default reader.
    pub config: Json,
    /// The spec path the rejection points at, as the table's row says.
    pub at: Option<String>,
    /// The fields patched in place, with their bytes before and after.
    pub patched: Vec<Patched>,
    /// The bytes around the rejected offset and the patched fields.
    pub excerpt: Vec<HexRow>,
    /// The valid base the vector was made from (a template of `tests/corpus/reject.toml`).
    pub base: String,
    /// The base's row, `key = value` per line.
    pub base_row: Vec<String>,
    /// How the row breaks the base beyond byte patches (`with`, `edit`, `truncate`, …),
    /// `key = value` per line; empty when the patches alone break it, so that restoring
    /// the patched bytes gives the valid base back.
    pub changes: Vec<String>,
    /// The rule's other vectors.
    pub others: Vec<String>,
}

/// A field patched in place.
#[derive(Clone, Debug, Serialize)]
pub struct Patched {
    pub path: String,
    pub offset: u64,
    /// The bytes before the patch: the valid base's, when nothing else changed it.
    #[serde(serialize_with = "hex_string")]
    pub was: Vec<u8>,
    #[serde(serialize_with = "hex_string")]
    pub now: Vec<u8>,
}

/// Sixteen bytes of a vector, from an offset that is a multiple of 16, with what is marked
/// in them.
#[derive(Clone, Debug, Serialize)]
pub struct HexRow {
    pub offset: u64,
    #[serde(serialize_with = "hex_string")]
    pub bytes: Vec<u8>,
    pub marks: Vec<Mark>,
}

/// A marked range inside a row.
#[derive(Clone, Debug, Serialize)]
pub struct Mark {
    pub offset: u64,
    /// 0 for a position (the end of the data).
    pub length: u64,
    pub label: String,
}

/// A spec fixture: an edit of `spec/` that a lint reports.
#[derive(Clone, Debug, Serialize)]
pub struct FixtureExample {
    pub lint: String,
    /// The fixture's directory from the repository root.
    pub fixture: String,
    pub description: String,
    /// The edit, as changed lines of `spec/`.
    pub edits: Vec<Snippet>,
    /// What `check` reports for the lint on the edited spec, run now.
    pub reported: Vec<Reported>,
    /// A fixture that shows the lint passing, where one exists.
    pub passing: Option<Passing>,
}

/// A fixture that shows a lint passing.
#[derive(Clone, Debug, Serialize)]
pub struct Passing {
    pub fixture: String,
    pub description: String,
    /// Its edits of `spec/`; when `from_failing`, only what differs from the failing
    /// fixture's edits of the same text (`-` the failing fixture's lines, `+` the passing
    /// one's); empty when it edits none of the files the failing fixture edits.
    pub edits: Vec<Snippet>,
    pub from_failing: bool,
}

/// The changed lines of one file of `spec/`: `-` lines are the text before the edit, `+`
/// lines after, ` ` lines unchanged context.
#[derive(Clone, Debug, Serialize)]
pub struct Snippet {
    pub file: String,
    pub lines: Vec<String>,
}

/// A diagnostic as `check` reports it.
#[derive(Clone, Debug, Serialize)]
pub struct Reported {
    pub level: String,
    pub lint: String,
    /// `file:line:col` in the edited spec tree, or `-`.
    pub location: String,
    pub message: String,
    pub help: Option<String>,
}

/// A compile-fail fixture of the derive, and the compiler's error.
#[derive(Clone, Debug, Serialize)]
pub struct DeriveExample {
    pub fixture: String,
    pub source: String,
    /// The first error the compiler reports (trybuild checks the whole of it).
    pub error: Vec<String>,
}

fn hex_string<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex(bytes))
}

/// Lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// No entry, lint or code has this id.
#[derive(Clone, Debug)]
pub struct Unknown {
    pub query: String,
    /// The closest known ids, best first.
    pub suggestions: Vec<String>,
}

/// The repository's test data that examples come from.
#[derive(Debug)]
pub struct Repository {
    root: PathBuf,
    coverage: Coverage,
    /// The reject manifest, by file name.
    manifest: serde_json::Map<String, Json>,
    /// The rows of `reject.toml` by `<rule>-<name>`, with their place in the table.
    rows: BTreeMap<String, (usize, toml::Table)>,
    templates: toml::Table,
    /// The placeholders of the repository's spec: the manifest's messages name the versions
    /// a reader acts at by their axis's placeholder (`${descriptor}`).
    vars: overlay::Vars,
}

impl Repository {
    /// Read the test data of the repository at `root`; `Ok(None)` when there is none
    /// (no `tests/coverage.toml`), an error when it is there but unreadable.
    pub fn read(root: &Path) -> Result<Option<Repository>, String> {
        let Some(coverage) = Coverage::scan(root)? else {
            return Ok(None);
        };
        let read =
            |rel: &str| std::fs::read_to_string(root.join(rel)).map_err(|e| format!("{rel}: {e}"));
        let manifest = match serde_json::from_str(&read(REJECT_MANIFEST)?) {
            Ok(Json::Object(m)) => m,
            Ok(_) => return Err(format!("{REJECT_MANIFEST}: not an object")),
            Err(e) => return Err(format!("{REJECT_MANIFEST}: {e}")),
        };
        // The table names unallocated values by the spec's placeholders (`${free:kv_value}`).
        let vars = base_vars(root);
        let text = vars
            .expand(&read(REJECT_TABLE)?)
            .map_err(|e| format!("{REJECT_TABLE}: {e}"))?;
        let table: toml::Table =
            toml::from_str(&text).map_err(|e| format!("{REJECT_TABLE}: {e}"))?;
        let mut rows = BTreeMap::new();
        for (i, row) in table
            .get("vector")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let Some(row) = row.as_table() else { continue };
            let field = |k: &str| row.get(k).and_then(toml::Value::as_str).unwrap_or("");
            rows.insert(
                format!("{}-{}", field("rule"), field("name")),
                (i, row.clone()),
            );
        }
        let templates = table
            .get("template")
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_default();
        Ok(Some(Repository {
            root: root.to_path_buf(),
            coverage,
            manifest,
            rows,
            templates,
            vars,
        }))
    }

    /// What the repository's tests show about the rules (for
    /// [`Catalogue::with_coverage`]).
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// The repository's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Explains entries and lints of one spec.
#[derive(Debug)]
pub struct Explainer<'a> {
    spec: &'a Spec,
    catalogue: &'a Catalogue,
    repository: Option<&'a Repository>,
}

impl<'a> Explainer<'a> {
    /// `catalogue` is the spec's, with the repository's coverage when there is one.
    pub fn new(
        spec: &'a Spec,
        catalogue: &'a Catalogue,
        repository: Option<&'a Repository>,
    ) -> Explainer<'a> {
        Explainer {
            spec,
            catalogue,
            repository,
        }
    }

    /// Everything `query` names: a rule or resolution by its id or a seed's id, a lint, or
    /// every rule reporting an error code (case is ignored). An error with the closest
    /// known ids when nothing matches.
    pub fn explain(&self, query: &str) -> Result<Vec<Explanation<'a>>, Unknown> {
        let q = query.trim();
        let mut out = Vec::new();
        let same = |a: &str| a.eq_ignore_ascii_case(q);
        if let Some(e) = self.catalogue.entries.iter().find(|e| same(&e.id)) {
            out.push(self.entry(e, Match::Id));
        } else if let Some(e) = self
            .catalogue
            .entries
            .iter()
            .find(|e| e.seed.iter().any(|s| same(s)))
        {
            out.push(self.entry(e, Match::Seed));
        }
        if let Some(l) = lints::ALL.iter().find(|l| same(l.id)) {
            out.push(self.lint(l));
        }
        for e in &self.catalogue.entries {
            if e.code.as_deref().is_some_and(same) && !out.iter().any(|x| x.subject.id() == e.id) {
                out.push(self.entry(e, Match::Code));
            }
        }
        if out.is_empty() {
            Err(Unknown {
                query: query.to_string(),
                suggestions: self.suggestions(q),
            })
        } else {
            Ok(out)
        }
    }

    /// Every id `explain` accepts: entry ids, seed ids, lint ids and error codes.
    pub fn ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        for e in &self.catalogue.entries {
            ids.push(&e.id);
            ids.extend(e.seed.iter().map(String::as_str));
            ids.extend(e.code.as_deref());
        }
        ids.extend(lints::ALL.iter().map(|l| l.id));
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The known ids closest to `query`, best first.
    fn suggestions(&self, query: &str) -> Vec<String> {
        let q = query.to_ascii_lowercase();
        let mut scored: Vec<(f64, &str)> = self
            .ids()
            .into_iter()
            .map(|id| {
                let lower = id.to_ascii_lowercase();
                let mut score = strsim::normalized_damerau_levenshtein(&q, &lower);
                if !q.is_empty() && (lower.contains(&q) || q.contains(&lower)) {
                    score += 0.5;
                }
                (score, id)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let close: Vec<String> = scored
            .iter()
            .filter(|(s, _)| *s >= 0.5)
            .take(5)
            .map(|(_, id)| id.to_string())
            .collect();
        if close.is_empty() {
            scored
                .iter()
                .take(3)
                .map(|(_, id)| id.to_string())
                .collect()
        } else {
            close
        }
    }

    /// The explanation of a catalogue entry.
    pub fn entry(&self, e: &'a Entry, matched: Match) -> Explanation<'a> {
        Explanation {
            matched,
            subject: Subject::Entry(e),
            decisions: self.decisions(e),
            examples: self.entry_examples(e),
        }
    }

    /// The explanation of a lint.
    pub fn lint(&self, lint: &'static Lint) -> Explanation<'a> {
        let enforces: Vec<&Entry> = self
            .catalogue
            .entries
            .iter()
            .filter(|e| e.lints.iter().any(|l| l == lint.id))
            .collect();
        let mut decisions = Vec::new();
        for e in &enforces {
            for d in self.decisions(e) {
                if !decisions.iter().any(|x: &Decision| x.id == d.id) {
                    decisions.push(d);
                }
            }
        }
        let examples = match self.repository {
            None => Examples::NotRead,
            Some(repo) => match fixture_example(repo, lint) {
                Some(x) => Examples::Shown(vec![Example::Fixture(x)]),
                None => Examples::Nothing(format!(
                    "no fixture under tests/fixtures reports `{}`",
                    lint.id
                )),
            },
        };
        Explanation {
            matched: Match::Lint,
            subject: Subject::Lint { lint, enforces },
            decisions,
            examples,
        }
    }

    fn decisions(&self, e: &Entry) -> Vec<Decision> {
        if e.kind == Kind::Resolution {
            return Vec::new();
        }
        self.spec
            .resolutions
            .iter()
            .filter(|r| e.related.contains(&r.id) || r.governs.contains(&e.id))
            .map(|r| Decision {
                id: r.id.clone(),
                point: r.point.clone(),
                decision: r.decision.clone(),
            })
            .collect()
    }

    fn entry_examples(&self, e: &Entry) -> Examples {
        let Some(repo) = self.repository else {
            return Examples::NotRead;
        };
        let own = own_examples(repo, e, None);
        if !own.is_empty() {
            return Examples::Shown(own);
        }
        // Through the rules that restate it, or that a resolution governs.
        let vias: Vec<String> = match e.kind {
            Kind::Resolution => e.related.clone(),
            Kind::Rule => repo
                .coverage
                .restated(&e.id)
                .map(|r| r.by.clone())
                .unwrap_or_default(),
        };
        for via in &vias {
            if let Some(other) = self.catalogue.entries.iter().find(|x| &x.id == via) {
                let shown = own_examples(repo, other, Some(via));
                if !shown.is_empty() {
                    return Examples::Shown(shown);
                }
            }
        }
        Examples::Nothing(no_example_reason(repo, e))
    }
}

/// The examples an entry has under its own id: one rejecting vector, a fixture per lint,
/// one derive fixture.
fn own_examples(repo: &Repository, e: &Entry, via: Option<&String>) -> Vec<Example> {
    let mut out = Vec::new();
    if let Some(v) = vector_example(repo, &e.id, via) {
        out.push(Example::Vector(v));
    }
    for l in &e.lints {
        if let Some(lint) = lints::by_id(l)
            && let Some(x) = fixture_example(repo, lint)
        {
            out.push(Example::Fixture(x));
        }
    }
    if let Some(d) = derive_example(repo, &e.id) {
        out.push(Example::Derive(d));
    }
    out
}

/// Why an entry has no example: the reason the rule table or the coverage table states,
/// or the tests that show it without data to print.
fn no_example_reason(repo: &Repository, e: &Entry) -> String {
    if let Some(why) = &e.unenforceable {
        return format!("no software can enforce it: {why}");
    }
    if let Some(why) = repo.coverage.untested(&e.id) {
        return format!("no test can break it here: {why}");
    }
    let tests: Vec<String> = e
        .tested_by
        .iter()
        .flatten()
        .map(|t| t.to_string())
        .collect();
    let what = if e.enforced_by == [Enforcer::Writer] {
        "a writer's rule: the runtime's writer keeps it (or refuses) before a byte is written, and no reader rejects bytes for it, so there are no bytes to show"
    } else if e.action == Some(Action::Obligation) {
        "an obligation rejects nothing, so no byte string or edit breaks it"
    } else if e.action == Some(Action::Warn) {
        "a warning rejects nothing: the bytes that draw it are valid"
    } else {
        "no rejecting vector, lint fixture or derive fixture breaks it"
    };
    if tests.is_empty() {
        format!("{what}, and no test shows it")
    } else {
        format!("{what}; shown by {}", tests.join("; "))
    }
}

// -----------------------------------------------------------------------------------------
// Rejecting vectors
// -----------------------------------------------------------------------------------------

/// Keys of a row that say how to read the vector or describe it, not how it breaks its
/// base.
const DESCRIPTIVE_KEYS: &[&str] = &[
    "rule",
    "name",
    "why",
    "base",
    "patch",
    "at",
    "agree",
    "agree_extension_layouts",
    "network",
];

fn vector_example(repo: &Repository, rule: &str, via: Option<&String>) -> Option<VectorExample> {
    let files = repo.coverage.vectors_of(rule);
    // The simplest vector: one its patches alone break, first in the table's order; then
    // one that changes its base otherwise; then one whose bytes are the base's, broken by
    // the reader's configuration alone.
    let chosen = files.iter().min_by_key(|f| {
        let name = f.rsplit('/').next().unwrap_or(f);
        let patched = repo
            .manifest
            .get(name)
            .and_then(|e| e.get("patched"))
            .and_then(Json::as_array)
            .is_some_and(|a| !a.is_empty());
        match repo.rows.get(&row_key(f)) {
            Some((i, row)) => match (patched, changes(row).is_empty()) {
                (true, true) => (0, *i),
                (_, false) => (1, *i),
                (false, true) => (2, *i),
            },
            None => (3, usize::MAX),
        }
    })?;
    let name = chosen.rsplit('/').next().unwrap_or(chosen);
    let entry = repo.manifest.get(name)?;
    let bytes = std::fs::read(repo.root.join(chosen)).ok()?;
    let (_, row) = repo.rows.get(&row_key(chosen))?;
    let text = |k: &str| {
        entry
            .get(k)
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string()
    };
    let offset = entry.get("offset").and_then(Json::as_u64)?;
    let patched: Vec<Patched> = entry
        .get("patched")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            Some(Patched {
                path: p.get("path")?.as_str()?.to_string(),
                offset: p.get("offset")?.as_u64()?,
                was: unhex(p.get("was")?.as_str()?)?,
                now: unhex(p.get("now")?.as_str()?)?,
            })
        })
        .collect();
    let at = row
        .get("at")
        .and_then(toml::Value::as_str)
        .map(String::from)
        .or_else(|| (patched.len() == 1).then(|| patched[0].path.clone()));
    let (base, base_row) = match row.get("base") {
        Some(toml::Value::String(name)) => (
            name.clone(),
            repo.templates
                .get(name)
                .and_then(toml::Value::as_table)
                .map(key_lines)
                .unwrap_or_default(),
        ),
        Some(toml::Value::Table(t)) => ("(inline)".to_string(), key_lines(t)),
        _ => (String::new(), Vec::new()),
    };
    let mut marks: Vec<Mark> = patched
        .iter()
        .map(|p| Mark {
            offset: p.offset,
            length: p.now.len() as u64,
            label: format!("{}: {} → {} (patched)", p.path, hex(&p.was), hex(&p.now)),
        })
        .collect();
    match marks.iter_mut().find(|m| m.offset == offset) {
        Some(m) => m.label.push_str("; rejected here"),
        None => marks.push(Mark {
            offset,
            length: u64::from(offset < bytes.len() as u64),
            label: match (&at, offset >= bytes.len() as u64) {
                (_, true) => format!("rejected here: the data ends at byte {}", bytes.len()),
                (Some(p), false) => format!("rejected here ({p})"),
                (None, false) => "rejected here".to_string(),
            },
        }),
    }
    marks.sort_by_key(|m| m.offset);
    Some(VectorExample {
        file: chosen.clone(),
        rule: text("rule"),
        via: via.cloned(),
        description: text("description"),
        size: bytes.len() as u64,
        code: text("code"),
        offset,
        message: shown(&repo.vars, &text("message")),
        config: entry.get("config").cloned().unwrap_or(Json::Null),
        at,
        excerpt: excerpt(&bytes, &marks),
        patched,
        base,
        base_row,
        changes: changes(row),
        others: files
            .iter()
            .filter(|f| *f != chosen)
            .map(|f| f.rsplit('/').next().unwrap_or(f).to_string())
            .collect(),
    })
}

/// `tests/corpus/reject/HDR-1-magic-zero.bin` → `HDR-1-magic-zero`.
fn row_key(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.rsplit_once('.')
        .map_or(name, |(stem, _)| stem)
        .to_string()
}

/// The keys of a row that change its base beyond byte patches.
fn changes(row: &toml::Table) -> Vec<String> {
    row.iter()
        .filter(|(k, _)| !DESCRIPTIVE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| format!("{k} = {v}"))
        .collect()
}

fn key_lines(t: &toml::Table) -> Vec<String> {
    t.iter().map(|(k, v)| format!("{k} = {v}")).collect()
}

/// The rows of 16 bytes that hold a mark, each with the row before and after it.
fn excerpt(bytes: &[u8], marks: &[Mark]) -> Vec<HexRow> {
    let len = bytes.len() as u64;
    let last_row = len.saturating_sub(1) / 16;
    let mut rows: Vec<u64> = Vec::new();
    for m in marks {
        let first = m.offset.min(len.saturating_sub(1)) / 16;
        let end = (m.offset + m.length.max(1) - 1).min(len.saturating_sub(1)) / 16;
        for r in first.saturating_sub(1)..=(end + 1).min(last_row) {
            rows.push(r);
        }
    }
    rows.sort_unstable();
    rows.dedup();
    rows.into_iter()
        .map(|r| {
            let from = r * 16;
            let to = (from + 16).min(len);
            HexRow {
                offset: from,
                bytes: bytes[from as usize..to as usize].to_vec(),
                marks: marks
                    .iter()
                    .filter(|m| {
                        let at = m.offset.min(len.saturating_sub(1));
                        at / 16 == r
                    })
                    .cloned()
                    .collect(),
            }
        })
        .collect()
}

// -----------------------------------------------------------------------------------------
// Lint fixtures
// -----------------------------------------------------------------------------------------

/// The fixture that shows a lint failing (the one named after it, else the one reporting
/// the fewest diagnostics), run now, and a fixture that shows it passing.
fn fixture_example(repo: &Repository, lint: &Lint) -> Option<FixtureExample> {
    let fixtures = repo.coverage.fixtures_of(lint.id);
    let named = fixtures
        .iter()
        .find(|f| f.rsplit('/').next() == Some(lint.id));
    let chosen = named.or_else(|| {
        fixtures.iter().min_by_key(|f| {
            std::fs::read_to_string(repo.root.join(f).join("expected.txt"))
                .map(|t| t.lines().count())
                .unwrap_or(usize::MAX)
        })
    })?;
    let dir = repo.root.join(chosen);
    let fixture = overlay::read(&dir.join("edit.toml")).ok()?;
    let vars = &repo.vars;
    let reported = run_fixture(&repo.root, &dir, &fixture)
        .unwrap_or_else(|e| {
            vec![Reported {
                level: "error".into(),
                lint: lint.id.into(),
                location: "-".into(),
                message: format!("the fixture could not be run: {e}"),
                help: None,
            }]
        })
        .into_iter()
        .filter(|r| r.lint == lint.id)
        .collect();
    let passing = passing_fixture(repo, lint, &fixture, vars);
    Some(FixtureExample {
        lint: lint.id.to_string(),
        fixture: chosen.clone(),
        description: fixture.description.clone(),
        edits: snippets(&fixture, vars),
        reported,
        passing,
    })
}

/// An amendment fixture listing the lint in `passes`: the one that makes the most of the
/// failing fixture's edits differently (the closest fix), then the smallest.
fn passing_fixture(
    repo: &Repository,
    lint: &Lint,
    failing: &overlay::Overlay,
    vars: &overlay::Vars,
) -> Option<Passing> {
    let dir = repo.root.join("tests/fixtures/amendments");
    let mut candidates: Vec<(usize, usize, String, overlay::Overlay)> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let ov = overlay::read(&e.path().join("edit.toml")).ok()?;
            ov.passes.iter().any(|p| p == lint.id).then(|| {
                let shared = ov
                    .edit
                    .iter()
                    .filter(|a| same_text(a, failing).is_some())
                    .count();
                let size: usize = snippets(&ov, vars).iter().map(|s| s.lines.len()).sum();
                (usize::MAX - shared, size, name, ov)
            })
        })
        .collect();
    candidates.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
    let (unshared, _, name, ov) = candidates.into_iter().next()?;
    let from_failing = unshared != usize::MAX;
    let edits = if from_failing {
        // What the passing fixture writes instead of the failing one, text by text.
        ov.edit
            .iter()
            .filter_map(|a| {
                let b = same_text(a, failing)?;
                let (before, after) = match (&b.replace, &a.replace) {
                    (Some(before), Some(after)) => (before, after),
                    _ => (b.append.as_ref()?, a.append.as_ref()?),
                };
                let lines = diff_lines(&shown(vars, before), &shown(vars, after));
                (!lines.is_empty()).then(|| Snippet {
                    file: shown(vars, &a.file),
                    lines,
                })
            })
            .collect()
    } else if ov
        .edit
        .iter()
        .any(|a| failing.edit.iter().any(|b| a.file == b.file))
    {
        snippets(&ov, vars)
    } else {
        Vec::new()
    };
    Some(Passing {
        fixture: format!("tests/fixtures/amendments/{name}"),
        description: ov.description.clone(),
        edits,
        from_failing,
    })
}

/// The failing fixture's edit of the same text as `edit`: the same file and the same `find`,
/// or an append to the same structure or flag set.
fn same_text<'o>(edit: &overlay::Edit, failing: &'o overlay::Overlay) -> Option<&'o overlay::Edit> {
    failing.edit.iter().find(|b| {
        b.file == edit.file
            && match (&edit.find, &edit.append) {
                (Some(_), _) => b.find == edit.find && b.replace.is_some(),
                (None, Some(_)) => {
                    b.append.is_some()
                        && (edit.structure.is_some() || edit.flags.is_some())
                        && b.structure == edit.structure
                        && b.flags == edit.flags
                }
                (None, None) => false,
            }
    })
}

/// The placeholders of the repository's spec as released, to show a fixture's edits with the
/// values they stand for.
fn base_vars(root: &Path) -> overlay::Vars {
    let spec_dir = root.join("spec");
    let Ok(loaded) = crate::load(&spec_dir) else {
        return overlay::Vars::default();
    };
    let Some(spec) = loaded.spec.as_ref() else {
        return overlay::Vars::default();
    };
    let mut sources = crate::source::SourceMap::default();
    let mut diags = crate::diag::Diagnostics::default();
    let history = crate::amend::history::load(&spec_dir, &mut sources, &mut diags);
    overlay::Vars::of(spec, history.latest().map(|s| &s.release))
}

/// `text` with its placeholders expanded (as written where one is unknown).
fn shown(vars: &overlay::Vars, text: &str) -> String {
    vars.expand(text).unwrap_or_else(|_| text.to_string())
}

/// Each edit of an overlay as the lines it changes, with one line of context around; a bump
/// as the `current` it changes.
fn snippets(ov: &overlay::Overlay, vars: &overlay::Vars) -> Vec<Snippet> {
    let bumps = ov.bump.iter().map(|b| {
        let step = match b.to {
            overlay::Step::Minor => "minor",
            overlay::Step::Major => "major",
        };
        let mut lines = vec![format!(" name = \"{}\"", b.axis)];
        match (vars.get(&b.axis), vars.get(&format!("{}+{step}", b.axis))) {
            (Some(now), Some(next)) => {
                lines.push(format!("-current = {now}"));
                lines.push(format!("+current = {next}"));
            }
            _ => lines.push(format!("+current = (the next {step} version)")),
        }
        Snippet {
            file: "spec.toml".to_string(),
            lines,
        }
    });
    let edits = ov.edit.iter().map(|ed| {
        let mut lines = Vec::new();
        if ed.remove == Some(true) {
            lines.push(format!("- (the whole of {})", shown(vars, &ed.file)));
        }
        if let (Some(find), Some(replace)) = (&ed.find, &ed.replace) {
            lines.extend(diff_lines(&shown(vars, find), &shown(vars, replace)));
        }
        if let Some(a) = &ed.append {
            if let Some(s) = ed.structure.as_ref().or(ed.flags.as_ref()) {
                lines.push(format!(" (after the last entry of `{s}`)"));
            }
            lines.extend(shown(vars, a).lines().map(|l| format!("+{l}")));
        }
        if let Some(c) = &ed.content {
            lines.extend(shown(vars, c).lines().map(|l| format!("+{l}")));
        }
        Snippet {
            file: shown(vars, &ed.file),
            lines,
        }
    });
    bumps.chain(edits).collect()
}

/// The lines that differ between two texts, `-` before and `+` after, with one unchanged
/// line of context around each change and `…` between changes.
fn diff_lines(before: &str, after: &str) -> Vec<String> {
    let diff = similar::TextDiff::from_lines(before, after);
    let mut out = Vec::new();
    for (i, group) in diff.grouped_ops(1).iter().enumerate() {
        if i > 0 {
            out.push("…".to_string());
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                out.push(format!(
                    "{sign}{}",
                    change.value().trim_end_matches(['\n', '\r'])
                ));
            }
        }
    }
    out
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Apply a fixture to a copy of the repository's spec and check it, as `tests/it/lints.rs`
/// does: every diagnostic, located in the edited tree.
fn run_fixture(
    root: &Path,
    dir: &Path,
    fixture: &overlay::Overlay,
) -> Result<Vec<Reported>, String> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let scratch = Scratch(std::env::temp_dir().join(format!(
        "hurray-spec-explain-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    )));
    let spec_dir = root.join("spec");
    let spec = overlay::materialize(&spec_dir, &dir.join("edit.toml"), &scratch.0)
        .map_err(|e| e.to_string())?
        .tree;
    let against = match &fixture.against {
        Some(other) => {
            let other_dir = dir.parent().unwrap_or(dir).join(other);
            let other = overlay::materialize(
                &spec_dir,
                &other_dir.join("edit.toml"),
                &scratch.0.join("against"),
            )
            .map_err(|e| e.to_string())?;
            Some(other.tree)
        }
        None => None,
    };
    let checked = crate::check(&spec, against.as_deref()).map_err(|e| e.to_string())?;
    Ok(checked
        .diags
        .items()
        .iter()
        .map(|d| Reported {
            level: d.level.as_str().to_string(),
            lint: d.lint.id.to_string(),
            location: d
                .span
                .map(|s| {
                    let f = checked.sources.get(s.file);
                    let rel = f
                        .path
                        .strip_prefix(&spec)
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|_| f.display.clone());
                    format!("{rel}:{}", f.line_col(s.start as usize))
                })
                .unwrap_or_else(|| "-".to_string()),
            message: d.message.clone(),
            help: d.help.clone(),
        })
        .collect())
}

// -----------------------------------------------------------------------------------------
// Derive fixtures
// -----------------------------------------------------------------------------------------

fn derive_example(repo: &Repository, rule: &str) -> Option<DeriveExample> {
    let chosen = repo.coverage.derive_fixtures_of(rule).first()?;
    let path = repo.root.join(chosen);
    let source = std::fs::read_to_string(&path).ok()?;
    let stderr = std::fs::read_to_string(path.with_extension("stderr")).ok()?;
    // The message and where it points; trybuild checks the rest of the output.
    let error = stderr
        .lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("note:"))
        .take(8)
        .map(String::from)
        .collect();
    Some(DeriveExample {
        fixture: chosen.clone(),
        source,
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_keeps_one_line_of_context() {
        let find = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let replace = "a\nb\nX\nd\ne\nf\nY\nh\n";
        assert_eq!(
            diff_lines(find, replace),
            [" b", "-c", "+X", " d", "…", " f", "-g", "+Y", " h"]
        );
        assert_eq!(diff_lines("a\n", "a\nb\n"), [" a", "+b"]);
        assert!(diff_lines("a\n", "a\n").is_empty());
    }

    #[test]
    fn an_excerpt_holds_the_marked_rows_and_their_neighbours() {
        let bytes: Vec<u8> = (0..100).collect();
        let marks = [Mark {
            offset: 40,
            length: 1,
            label: "here".into(),
        }];
        let rows = excerpt(&bytes, &marks);
        assert_eq!(
            rows.iter().map(|r| r.offset).collect::<Vec<_>>(),
            [16, 32, 48]
        );
        assert_eq!(rows[1].marks.len(), 1);
        // A position past the end marks the last row.
        let marks = [Mark {
            offset: 100,
            length: 0,
            label: "end".into(),
        }];
        let rows = excerpt(&bytes, &marks);
        assert_eq!(rows.last().map(|r| r.offset), Some(96));
        assert_eq!(rows.last().map(|r| r.marks.len()), Some(1));
    }
}
