//! No fact that drives the generated code escapes the release record: every leaf value of
//! every spec table is mutated, one at a time; wherever the mutated spec still validates and
//! the generated runtime code changed (documentation attributes and human-readable message
//! text aside), `check` against the unmodified release history must report a finding. A
//! future key the record forgets fails here, naming the key, its file and line.
//!
//! Each mutation is emitted once as a token stream (no formatting) and compared token by
//! token with the unmutated spec's; the mutations run on every core. What is skipped, and
//! why, is listed below and printed with the counts (`cargo test --test it
//! mutations:: -- --nocapture`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::common::root;
use hurray_codegen::amend::history;
use hurray_codegen::diag::Diagnostics;
use hurray_codegen::load::{self, RawSpec};
use hurray_codegen::source::{FileId, SourceMap};
use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// Files of the spec tree that are not mutated, and why.
const SKIPPED_FILES: &[(&str, &str)] = &[
    (
        "releases/",
        "the release history the mutations are checked against; no emitter reads it, and an edited record is `record-edited` (tests/fixtures/amendments/record-edited)",
    ),
    (
        "migrations/",
        "S5 migration specifications; no emitter reads them, and `check` reads them only for a major bump (tests/fixtures/amendments/major-*)",
    ),
];

/// Keys whose values are human-readable text. A change of one may change the generated code
/// only in documentation attributes (already ignored) and in string literals that contain the
/// text (messages such as a rule's text or a reference); any other change of the code counts.
const MESSAGE_KEYS: &[&str] = &[
    "title",
    "text",
    "source",
    "note",
    "point",
    "decision",
    "unenforceable",
    "rationale",
];

/// One token of a generated stream, with documentation attributes removed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Ident(String),
    Punct(char, bool),
    Literal(String),
    Open(char),
    Close(char),
}

fn delimiters(d: Delimiter) -> (char, char) {
    match d {
        Delimiter::Parenthesis => ('(', ')'),
        Delimiter::Brace => ('{', '}'),
        Delimiter::Bracket => ('[', ']'),
        Delimiter::None => ('∅', '∅'),
    }
}

/// Whether `group` is the body of a documentation attribute (`#[doc = "…"]`).
fn is_doc_attribute(group: &proc_macro2::Group) -> bool {
    group.delimiter() == Delimiter::Bracket
        && matches!(group.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc")
}

fn flatten(stream: TokenStream, out: &mut Vec<Token>) {
    let mut trees = stream.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                // `#[doc = …]` or `#![doc = …]`: skipped whole.
                let mut lookahead = trees.clone();
                let bang =
                    matches!(lookahead.peek(), Some(TokenTree::Punct(b)) if b.as_char() == '!');
                if bang {
                    lookahead.next();
                }
                if let Some(TokenTree::Group(g)) = lookahead.peek()
                    && is_doc_attribute(g)
                {
                    if bang {
                        trees.next();
                    }
                    trees.next();
                    continue;
                }
                out.push(Token::Punct('#', p.spacing() == Spacing::Joint));
            }
            TokenTree::Punct(p) => {
                out.push(Token::Punct(p.as_char(), p.spacing() == Spacing::Joint))
            }
            TokenTree::Ident(i) => out.push(Token::Ident(i.to_string())),
            TokenTree::Literal(l) => out.push(Token::Literal(l.to_string())),
            TokenTree::Group(g) => {
                let (open, close) = delimiters(g.delimiter());
                out.push(Token::Open(open));
                flatten(g.stream(), out);
                out.push(Token::Close(close));
            }
        }
    }
}

fn generated(spec: &hurray_codegen::model::Spec) -> Vec<Token> {
    let mut out = Vec::new();
    flatten(hurray_codegen::emit::rust::tokens(spec), &mut out);
    out
}

/// A leaf value of a spec file.
#[derive(Clone, Debug)]
struct Leaf {
    file: usize,
    /// The key path (`rule[3].action`).
    path: String,
    /// The nearest key (`action`).
    key: String,
    span: std::ops::Range<usize>,
    value: Scalar,
}

#[derive(Clone, Debug, PartialEq)]
enum Scalar {
    Text(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
}

fn walk_item(file: usize, path: &str, key: &str, item: &toml_edit::Item, out: &mut Vec<Leaf>) {
    match item {
        toml_edit::Item::Table(t) => walk_table(file, path, t.iter(), out),
        toml_edit::Item::ArrayOfTables(a) => {
            for (i, t) in a.iter().enumerate() {
                walk_table(file, &format!("{path}[{i}]"), t.iter(), out);
            }
        }
        toml_edit::Item::Value(v) => walk_value(file, path, key, v, out),
        toml_edit::Item::None => {}
    }
}

fn walk_table<'a>(
    file: usize,
    path: &str,
    entries: impl Iterator<Item = (&'a str, &'a toml_edit::Item)>,
    out: &mut Vec<Leaf>,
) {
    for (key, item) in entries {
        let sub = if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        };
        walk_item(file, &sub, key, item, out);
    }
}

fn walk_value(file: usize, path: &str, key: &str, value: &toml_edit::Value, out: &mut Vec<Leaf>) {
    let scalar = match value {
        toml_edit::Value::String(s) => Scalar::Text(s.value().clone()),
        toml_edit::Value::Integer(i) => Scalar::Integer(*i.value()),
        toml_edit::Value::Float(f) => Scalar::Float(*f.value()),
        toml_edit::Value::Boolean(b) => Scalar::Bool(*b.value()),
        toml_edit::Value::Datetime(_) => return,
        toml_edit::Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                walk_value(file, &format!("{path}[{i}]"), key, v, out);
            }
            return;
        }
        toml_edit::Value::InlineTable(t) => {
            for (k, v) in t.iter() {
                walk_value(file, &format!("{path}.{k}"), k, v, out);
            }
            return;
        }
    };
    let span = value.span().expect("a parsed value has a span");
    out.push(Leaf {
        file,
        path: path.to_string(),
        key: key.to_string(),
        span,
        value: scalar,
    });
}

/// The mutated values tried for a leaf, as TOML text, in order: each is one mutation.
/// `occurrence` is how many leaves of the same key came before this one, so that the leaves
/// of one key cycle through that key's other values.
fn candidates(
    leaf: &Leaf,
    occurrence: usize,
    seen: &BTreeMap<String, (BTreeSet<String>, bool)>,
    marker: &str,
) -> Vec<String> {
    let quote = |s: &str| toml_edit::Value::from(s).to_string();
    match &leaf.value {
        Scalar::Integer(i) => vec![(i + 1).to_string(), (i - 1).to_string()],
        Scalar::Float(f) => vec![format!("{:?}", f + 1.0)],
        Scalar::Bool(b) => vec![(!b).to_string()],
        Scalar::Text(s) if MESSAGE_KEYS.contains(&leaf.key.as_str()) => {
            vec![quote(&format!("{s}{marker}"))]
        }
        Scalar::Text(s) => {
            let mut out = Vec::new();
            // A version moves to the next minor.
            if let Some((major, minor)) = s.split_once('.')
                && let (Ok(major), Ok(minor)) = (major.parse::<u8>(), minor.parse::<u8>())
            {
                out.push(quote(&format!("{major}.{}", minor + 1)));
            }
            // Another word the same key takes elsewhere (an enumerated word, a reference),
            // the leaves of one key taking them in turn; a name of its own (a key whose every
            // value differs) is renamed first.
            let renamed = quote(&format!("{s}_m"));
            let (values, names) = &seen[&leaf.key];
            if *names {
                out.push(renamed.clone());
            }
            let others: Vec<&String> = values.iter().filter(|v| *v != s).collect();
            if !others.is_empty() {
                out.push(quote(others[occurrence % others.len()]));
                if others.len() > 1 {
                    out.push(quote(others[(occurrence + 1) % others.len()]));
                }
            }
            if !*names {
                out.push(renamed);
            }
            out
        }
    }
}

/// One mutation: a leaf and the TOML text that replaces it; for a message key, the marker
/// its new text ends with.
#[derive(Clone, Debug)]
struct Mutation {
    leaf: usize,
    text: String,
    marker: Option<String>,
}

/// What became of one mutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Outcome {
    /// The mutated spec does not validate: the checker reports it as an error.
    Invalid,
    /// `check` against the history reports a finding.
    Found,
    /// No finding, and the generated code is the same (documentation and message text aside).
    SameCode,
    /// No finding, but the generated code changed: a fact escapes the record.
    Escaped,
}

/// The spec tree in memory, parsed once; a mutation re-parses only the files it touches.
struct Tree {
    dir: PathBuf,
    files: Vec<(String, String)>,
    ids: Vec<FileId>,
    raw: RawSpec,
    sources: SourceMap,
    leaves: Vec<Leaf>,
}

impl Tree {
    /// Load the tree with `mutations` applied (each to a distinct leaf).
    fn load(&self, mutations: &[&Mutation]) -> hurray_codegen::Loaded {
        let mut by_file: BTreeMap<usize, Vec<&Mutation>> = BTreeMap::new();
        for m in mutations {
            by_file.entry(self.leaves[m.leaf].file).or_default().push(m);
        }
        let mut raw = None;
        let mut diags = Diagnostics::default();
        for (file, mut edits) in by_file {
            edits.sort_by_key(|m| std::cmp::Reverse(self.leaves[m.leaf].span.start));
            let mut text = self.files[file].1.clone();
            for m in edits {
                text.replace_range(self.leaves[m.leaf].span.clone(), &m.text);
            }
            raw = Some(raw.as_ref().unwrap_or(&self.raw).with_text(
                self.ids[file],
                &text,
                &mut diags,
            ));
        }
        let raw = raw.unwrap_or_else(|| self.raw.clone());
        hurray_codegen::finish(raw, self.sources.clone(), diags)
    }
}

fn read_tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let relative = p
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if p.is_dir() {
                if !SKIPPED_FILES
                    .iter()
                    .any(|(skip, _)| format!("{relative}/") == *skip)
                {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push((relative, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Whether `code` equals `baseline` once the markers of `mutations` are removed from its
/// string literals.
fn same_code(baseline: &[Token], code: &[Token], mutations: &[&Mutation]) -> bool {
    baseline.len() == code.len()
        && baseline.iter().zip(code).all(|(a, b)| {
            a == b
                || matches!((a, b), (Token::Literal(a), Token::Literal(b)) if {
                    let mut b = b.clone();
                    for m in mutations {
                        if let Some(marker) = &m.marker {
                            b = b.replace(marker.as_str(), "");
                        }
                    }
                    *a == b
                })
        })
}

/// Verify that `suspects` (mutations `check` found nothing in) leave the generated code as
/// it was: applied together, then halved wherever the code changes, down to the single
/// mutation that changes it.
fn verify(
    tree: &Tree,
    baseline: &[Token],
    suspects: &[&Mutation],
    out: &mut Vec<(Mutation, Outcome)>,
) {
    if suspects.is_empty() {
        return;
    }
    let loaded = tree.load(suspects);
    let same = loaded
        .clean()
        .is_some_and(|spec| same_code(baseline, &generated(spec), suspects));
    if same {
        out.extend(suspects.iter().map(|m| ((*m).clone(), Outcome::SameCode)));
    } else if suspects.len() == 1 {
        let outcome = if loaded.clean().is_some() {
            Outcome::Escaped
        } else {
            Outcome::Invalid
        };
        out.push((suspects[0].clone(), outcome));
    } else {
        let (a, b) = suspects.split_at(suspects.len() / 2);
        verify(tree, baseline, a, out);
        verify(tree, baseline, b, out);
    }
}

/// How many suspects are verified by one generation.
const BATCH: usize = 48;

#[test]
fn every_change_of_the_generated_code_is_a_finding() {
    let started = Instant::now();
    let dir: PathBuf = root().join("spec");
    let files = read_tree(&dir);
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let pairs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let raw = load::load_memory(&dir, pairs.iter().copied(), &mut sources, &mut diags);
    let ids: Vec<FileId> = files
        .iter()
        .map(|(relative, _)| {
            sources
                .files()
                .find(|(_, f)| f.path == dir.join(relative))
                .map(|(id, _)| id)
                .unwrap_or_else(|| panic!("{relative} is not a table the loader reads"))
        })
        .collect();
    let mut leaves = Vec::new();
    for (i, (_, text)) in files.iter().enumerate() {
        let doc = toml_edit::Document::parse(text.as_str()).unwrap();
        walk_table(i, "", doc.as_table().iter(), &mut leaves);
    }
    let tree = Tree {
        dir: dir.clone(),
        files,
        ids,
        raw,
        sources,
        leaves,
    };

    let base = tree.load(&[]);
    let base_spec = base.clean().expect("the real spec is clean");
    let baseline = generated(base_spec);
    let mut history_sources = SourceMap::default();
    let mut history_diags = Diagnostics::default();
    let records = history::load(&tree.dir, &mut history_sources, &mut history_diags);
    assert!(!history_diags.has_errors(), "the release history loads");
    let findings = |loaded: &mut hurray_codegen::Loaded| {
        let spec = loaded.spec.as_ref().expect("a clean load has a model");
        let mut found = Diagnostics::default();
        hurray_codegen::amend::check_history(
            spec,
            &records,
            &tree.dir,
            None,
            &mut loaded.sources,
            &mut found,
        );
        found
    };
    let mut base = base;
    assert!(
        findings(&mut base).items().is_empty(),
        "the real spec has no finding against its history"
    );

    // Every text value of each key, and whether the key names things (every value differs).
    let mut seen: BTreeMap<String, (BTreeSet<String>, bool)> = BTreeMap::new();
    for l in &tree.leaves {
        if let Scalar::Text(s) = &l.value {
            let (values, names) = seen.entry(l.key.clone()).or_insert((BTreeSet::new(), true));
            *names &= values.insert(s.clone());
        }
    }
    let mut occurrences: BTreeMap<&str, usize> = BTreeMap::new();
    let mutations: Vec<Vec<Mutation>> = tree
        .leaves
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let n = occurrences.entry(l.key.as_str()).or_default();
            *n += 1;
            let marker = format!(" ~m{i}~");
            let is_message =
                matches!(l.value, Scalar::Text(_)) && MESSAGE_KEYS.contains(&l.key.as_str());
            candidates(l, *n, &seen, &marker)
                .into_iter()
                .map(|text| Mutation {
                    leaf: i,
                    text,
                    marker: is_message.then(|| marker.clone()),
                })
                .collect()
        })
        .collect();
    let step: usize = std::env::var("MUTATION_STEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mutations: Vec<Vec<Mutation>> = mutations.into_iter().step_by(step).collect();
    let prepared = started.elapsed();

    // One at a time: does the mutated spec validate, and does `check` find the change?
    let outcomes: Mutex<Vec<(Mutation, Outcome)>> = Mutex::new(Vec::new());
    let suspects: Mutex<Vec<Mutation>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(tries) = mutations.get(next.fetch_add(1, Ordering::Relaxed)) {
                    // The leaf's first mutation that validates is its mutation.
                    for m in tries {
                        let mut loaded = tree.load(&[m]);
                        if loaded.clean().is_none() {
                            outcomes.lock().unwrap().push((m.clone(), Outcome::Invalid));
                            continue;
                        }
                        if findings(&mut loaded).items().is_empty() {
                            suspects.lock().unwrap().push(m.clone());
                        } else {
                            outcomes.lock().unwrap().push((m.clone(), Outcome::Found));
                        }
                        break;
                    }
                }
            });
        }
    });
    let checked = started.elapsed();
    // Batches of the rest: is the generated code the same?
    let mut suspects = suspects.into_inner().unwrap();
    suspects.sort_by_key(|m| m.leaf);
    let suspect_count = suspects.len();
    let batches: Vec<Vec<&Mutation>> = {
        // A batch mutates each leaf at most once.
        let mut batches: Vec<Vec<&Mutation>> = Vec::new();
        for m in &suspects {
            match batches
                .iter_mut()
                .find(|b| b.len() < BATCH && b.iter().all(|o| o.leaf != m.leaf))
            {
                Some(b) => b.push(m),
                None => batches.push(vec![m]),
            }
        }
        batches
    };
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let mut verified = Vec::new();
                    verify(&tree, &baseline, batch, &mut verified);
                    outcomes.lock().unwrap().extend(verified);
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap();

    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for (_, o) in &outcomes {
        *counts.entry(*o).or_default() += 1;
    }
    let mutated: BTreeSet<usize> = outcomes
        .iter()
        .filter(|(_, o)| *o != Outcome::Invalid)
        .map(|(m, _)| m.leaf)
        .collect();
    println!(
        "{} leaves ({} mutated validly), {} mutations tried: {counts:?}; {suspect_count} without a finding verified in {} batches; {:?} in all ({:?} to prepare, {:?} to check; {threads} threads)",
        tree.leaves.len(),
        mutated.len(),
        outcomes.len(),
        batches.len(),
        started.elapsed(),
        prepared,
        checked - prepared,
    );
    println!("skipped files:");
    for (f, why) in SKIPPED_FILES {
        println!("  {f}: {why}");
    }
    let mut unmutated: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, l) in tree.leaves.iter().enumerate() {
        if !mutated.contains(&i) {
            *unmutated.entry(l.key.as_str()).or_default() += 1;
        }
    }
    println!("leaves no mutation of which validates, by key: {unmutated:?}");
    let mut escaped: Vec<String> = outcomes
        .iter()
        .filter(|(_, o)| *o == Outcome::Escaped)
        .map(|(m, _)| {
            let l = &tree.leaves[m.leaf];
            let (file, body) = &tree.files[l.file];
            let line = body[..l.span.start].matches('\n').count() + 1;
            format!("{file}:{line}: {} = {:?} → {}", l.path, l.value, m.text)
        })
        .collect();
    escaped.sort();
    assert!(
        escaped.is_empty(),
        "{} mutation(s) change the generated code without a finding of `check`:\n{}",
        escaped.len(),
        escaped.join("\n")
    );
}
