//! `hurray-spec explain ID`: a rule, resolution, lint or error code, explained: its text,
//! source, who it binds, what enforces it, its rationale, and an example of a violation
//! and its fix from the repository's test data (`hurray_codegen::explain` finds them; this
//! module prints them, for people or as JSON).

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::catalogue::{Catalogue, Entry, Kind};
use hurray_codegen::explain::{
    Example, Examples, Explainer, Explanation, FixtureExample, HexRow, Match, Repository, Snippet,
    Subject, VectorExample,
};
use hurray_codegen::lints::Lint;
use hurray_codegen::model::Action;
use serde_json::{Value, json};

use super::rules::{entry_json, load_clean, repository};

pub fn run(spec: &Path, id: &str, json: bool) -> ExitCode {
    let loaded = match load_clean(spec) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let Some(model) = loaded.clean() else {
        return ExitCode::from(1);
    };
    let root = repository(spec);
    let repo = match Repository::read(root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot read the repository's test data: {e}");
            return ExitCode::from(2);
        }
    };
    let catalogue = match &repo {
        Some(r) => Catalogue::of_spec(model).with_coverage(r.coverage()),
        None => Catalogue::of_spec(model),
    };
    let explainer = Explainer::new(model, &catalogue, repo.as_ref());
    let found = match explainer.explain(id) {
        Ok(f) => f,
        Err(unknown) => {
            if json {
                let out = json!({
                    "query": unknown.query,
                    "error": "unknown id",
                    "suggestions": unknown.suggestions,
                });
                outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            }
            eprintln!(
                "error: `{}` is no rule, resolution, lint or error code of this spec",
                unknown.query
            );
            if !unknown.suggestions.is_empty() {
                eprintln!("  did you mean: {}", unknown.suggestions.join(", "));
            }
            eprintln!("  `hurray-spec rules` lists every rule, `hurray-spec lints` every lint");
            return ExitCode::from(2);
        }
    };
    if json {
        let out = json!({
            "query": id,
            "examples_from": repo.as_ref().map(|_| root.display().to_string()),
            "matches": found.iter().map(explanation_json).collect::<Vec<_>>(),
        });
        outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        if found.len() > 1 {
            let ids: Vec<&str> = found.iter().map(|x| x.subject.id()).collect();
            outln!("`{id}` names {} items: {}", found.len(), ids.join(", "));
            outln!();
        }
        for (i, x) in found.iter().enumerate() {
            if i > 0 {
                outln!();
                outln!("{}", "─".repeat(80));
                outln!();
            }
            human(x);
        }
        if repo.is_none() {
            eprintln!(
                "note: no tests/coverage.toml beside the spec directory: examples are not shown (run in the repository)"
            );
        }
    }
    ExitCode::SUCCESS
}

fn matched_word(m: Match) -> &'static str {
    match m {
        Match::Id => "id",
        Match::Seed => "seed id",
        Match::Code => "error code",
        Match::Lint => "lint",
        _ => "id",
    }
}

/// What a breach of the rule makes a reader do, in the legend's words.
fn action_words(a: Action) -> &'static str {
    match a {
        Action::Reject => "reject: rejected in every mode",
        Action::Strict => "strict: rejected unless the reader is permissive",
        Action::Validate => {
            "validate: a SHOULD-check, rejected unless permissive when the reader checks it"
        }
        Action::Warn => "warn: reported, not rejected",
        Action::Obligation => "obligation: a duty that rejects nothing",
    }
}

/// What a lint's own rule word means, for the lints that enforce no rule of the format.
fn lint_rule_words(rule: &str) -> &'static str {
    match rule {
        "model" => {
            "the spec tables are well-formed (spec/README.md is their legend); not a rule of the format"
        }
        "history" => {
            "the release records under spec/releases are append-only and form one chain; not a rule of the format"
        }
        "classification" => "each change's classification (MAJOR, MINOR, PATCH)",
        _ => "",
    }
}

fn explanation_json(x: &Explanation<'_>) -> Value {
    let (kind, entry, lint, enforces) = match &x.subject {
        Subject::Entry(e) => (
            match e.kind {
                Kind::Rule => "rule",
                _ => "resolution",
            },
            entry_json(e),
            Value::Null,
            Vec::new(),
        ),
        Subject::Lint { lint, enforces } => (
            "lint",
            Value::Null,
            lint_json(lint),
            enforces.iter().map(|e| e.id.clone()).collect(),
        ),
        _ => ("unknown", Value::Null, Value::Null, Vec::new()),
    };
    json!({
        "id": x.subject.id(),
        "kind": kind,
        "matched_as": matched_word(x.matched),
        "entry": entry,
        "lint": lint,
        "enforces": enforces,
        "decisions": x.decisions,
        "examples": x.examples,
    })
}

fn lint_json(l: &Lint) -> Value {
    json!({
        "id": l.id,
        "rule": l.rule,
        "level": l.level.as_str(),
        "summary": l.summary,
        "rule_meaning": Some(lint_rule_words(l.rule)).filter(|w| !w.is_empty()),
    })
}

fn field(name: &str, value: &str) {
    outln!("  {name:12} {value}");
}

fn human(x: &Explanation<'_>) {
    match &x.subject {
        Subject::Entry(e) => entry_header(e, x),
        Subject::Lint { lint, enforces } => lint_header(lint, enforces, x),
        _ => {}
    }
    outln!();
    match &x.examples {
        Examples::NotRead => outln!("example: not shown (no repository test data was read)"),
        Examples::Nothing(why) => outln!("example: none: {why}"),
        Examples::Shown(examples) => {
            for (i, ex) in examples.iter().enumerate() {
                if i > 0 {
                    outln!();
                }
                match ex {
                    Example::Vector(v) => vector(v),
                    Example::Fixture(f) => fixture(f),
                    Example::Derive(d) => {
                        outln!("example: {} (a compile-fail fixture)", d.fixture);
                        for l in d.source.lines() {
                            outln!("    {l}");
                        }
                        outln!("  the compiler reports (the message names the fix):");
                        for l in &d.error {
                            outln!("    {l}");
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn rationale_and_decisions(rationale: Option<(&str, &str)>, x: &Explanation<'_>) {
    let what = match x.subject {
        Subject::Lint { .. } => "lint",
        _ => "rule",
    };
    match rationale {
        Some((text, source)) => field("rationale", &format!("{text} ({source})")),
        None => field(
            "rationale",
            &format!("none stated by the seeds or the facts sheets for this {what}"),
        ),
    }
    for d in &x.decisions {
        field(
            "decided by",
            &format!("{} ({}): {}", d.id, d.point, d.decision),
        );
    }
}

fn entry_header(e: &Entry, x: &Explanation<'_>) {
    let words = |v: Vec<&str>| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    match e.kind {
        Kind::Rule => {
            outln!(
                "{} · {} · rule{}",
                e.id,
                e.code.as_deref().unwrap_or("-"),
                match x.matched {
                    Match::Seed => format!(" (restates the seed's {})", e.seed.join(", ")),
                    _ if !e.seed.is_empty() => format!(" (the seed's {})", e.seed.join(", ")),
                    _ => String::new(),
                }
            );
            outln!("  {}", e.text);
            field("source", &e.source);
            field("binds", &words(e.binds.iter().map(|p| p.word()).collect()));
            field(
                "enforced by",
                &words(e.enforced_by.iter().map(|p| p.word()).collect()),
            );
            if !e.lints.is_empty() {
                field("lints", &e.lints.join(", "));
            }
            if let Some(a) = e.action {
                field("on a breach", action_words(a));
            }
            if let Some(why) = &e.unenforceable {
                field("unenforceable", why);
            }
            rationale_and_decisions(
                e.rationale
                    .as_ref()
                    .map(|r| (r.text.as_str(), r.source.as_str())),
                x,
            );
        }
        _ => {
            outln!("{} · resolution", e.id);
            outln!("  {}", e.text);
            field("source", &e.source);
            field(
                "governs",
                &words(e.related.iter().map(String::as_str).collect()),
            );
            field("binds", &words(e.binds.iter().map(|p| p.word()).collect()));
            field(
                "enforced by",
                &words(e.enforced_by.iter().map(|p| p.word()).collect()),
            );
            field(
                "rationale",
                "the decision states its reasons where it has any; no other source gives one",
            );
        }
    }
    if let Some(tests) = &e.tested_by {
        field(
            "tests",
            &format!(
                "{} (`hurray-spec rules --json` names them){}",
                tests.len(),
                e.untested
                    .as_ref()
                    .map(|w| format!("; untested: {w}"))
                    .unwrap_or_default()
            ),
        );
    }
}

fn lint_header(lint: &Lint, enforces: &[&Entry], x: &Explanation<'_>) {
    outln!("{} · lint ({})", lint.id, lint.level.as_str());
    outln!("  {}", lint.summary);
    if enforces.is_empty() {
        field(
            "rule",
            &format!("{}: {}", lint.rule, lint_rule_words(lint.rule)),
        );
    }
    for e in enforces {
        field("rule", &format!("{}: {}", e.id, e.text));
    }
    if enforces.is_empty() {
        field("source", "the lint registry (`hurray-spec lints`)");
    }
    for e in enforces {
        field("source", &format!("{} ({})", e.source, e.id));
    }
    field("binds", "spec editor");
    field(
        "enforced by",
        if lint.rule == "model" {
            "hurray-spec check (the model's checks)"
        } else {
            "hurray-spec check (amendment lint)"
        },
    );
    let rationale = enforces.iter().find_map(|e| e.rationale.as_ref());
    rationale_and_decisions(rationale.map(|r| (r.text.as_str(), r.source.as_str())), x);
}

fn hex_row(r: &HexRow) {
    let mut hex = String::new();
    for (i, b) in r.bytes.iter().enumerate() {
        if i == 8 {
            hex.push(' ');
        }
        hex.push_str(&format!("{b:02x} "));
    }
    let ascii: String = r
        .bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '.'
            }
        })
        .collect();
    outln!("    {:08x}  {hex:49} |{ascii}|", r.offset);
    for m in &r.marks {
        // Column of byte i: 3 characters a byte, one more space after the eighth.
        let col = |i: u64| (i * 3 + u64::from(i >= 8)) as usize;
        let first = m.offset.saturating_sub(r.offset).min(16);
        let last = (m.offset + m.length.max(1) - 1)
            .saturating_sub(r.offset)
            .min(r.bytes.len().saturating_sub(1) as u64);
        let (start, width) = if first as usize >= r.bytes.len() {
            (col(r.bytes.len() as u64), 1)
        } else {
            (col(first), col(last) + 2 - col(first))
        };
        outln!(
            "    {:8}  {}{}  {}",
            "",
            " ".repeat(start),
            "^".repeat(width),
            m.label
        );
    }
}

fn vector(v: &VectorExample) {
    outln!(
        "example: {} ({} bytes){}",
        v.file,
        v.size,
        v.via
            .as_ref()
            .map(|r| format!(", breaking {r}"))
            .unwrap_or_default()
    );
    outln!("  {}", v.description);
    let mut previous: Option<u64> = None;
    for r in &v.excerpt {
        if previous.is_some_and(|p| p + 16 != r.offset) {
            outln!("    …");
        }
        hex_row(r);
        previous = Some(r.offset);
    }
    let config = match &v.config {
        Value::Object(m) if !m.is_empty() => format!(" (read with {})", Value::Object(m.clone())),
        _ => String::new(),
    };
    outln!("  `hurray decode` reports{config}:");
    outln!("    {}", v.message);
    let template = format!("tests/corpus/reject.toml [template.{}]", v.base);
    if v.changes.is_empty() && !v.patched.is_empty() {
        let restore: Vec<String> = v
            .patched
            .iter()
            .map(|p| format!("{} back to {}", p.path, hexdump(&p.was)))
            .collect();
        outln!(
            "fix: {}: the vector is the valid base `{}` with that patch",
            restore.join(", "),
            v.base
        );
    } else if v.changes.is_empty() && v.patched.is_empty() {
        outln!(
            "fix: none in the bytes, which are the valid base `{}` itself: they are valid for the reader its row names (`agree`, `network`), not for this one",
            v.base
        );
    } else {
        outln!(
            "fix: the valid base `{}`, which this vector changes by:",
            v.base
        );
        for c in &v.changes {
            outln!("    {c}");
        }
        for p in &v.patched {
            outln!(
                "    patch {} = {} (was {})",
                p.path,
                hexdump(&p.now),
                hexdump(&p.was)
            );
        }
    }
    outln!("  the base ({template}):");
    for l in &v.base_row {
        outln!("    {l}");
    }
    if !v.others.is_empty() {
        outln!(
            "  {} more vector(s) break {}: {}",
            v.others.len(),
            v.rule,
            v.others.join(", ")
        );
    }
}

fn hexdump(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn snippets(edits: &[Snippet]) {
    for s in edits {
        outln!("    spec/{}", s.file);
        for l in &s.lines {
            outln!("      {l}");
        }
    }
}

fn fixture(f: &FixtureExample) {
    outln!("example: {} (lint `{}`)", f.fixture, f.lint);
    outln!("  {}", f.description);
    snippets(&f.edits);
    outln!("  `hurray-spec check` reports:");
    if f.reported.is_empty() {
        outln!(
            "    nothing for `{}`: the fixture no longer shows it",
            f.lint
        );
    }
    for r in &f.reported {
        outln!("    {}[{}] {}: {}", r.level, r.lint, r.location, r.message);
        if let Some(h) = &r.help {
            outln!("      help: {h}");
        }
    }
    let unedited = f
        .edits
        .iter()
        .any(|s| s.lines.iter().any(|l| l.starts_with('-')));
    if f.reported.iter().all(|r| r.level == "note") && !f.reported.is_empty() {
        outln!("fix: none needed: a note reports what check found, not a violation");
        return;
    }
    match &f.passing {
        Some(p) => {
            outln!(
                "fix: as the help says; {} passes `{}`: {}",
                p.fixture,
                f.lint,
                p.description
            );
            if p.from_failing {
                outln!("  it writes instead (`-` the example's lines, `+` the passing fixture's):");
            }
            snippets(&p.edits);
            if p.edits.is_empty() && unedited {
                outln!("  and the unedited spec (the `-` lines) passes it");
            }
        }
        None if unedited => outln!(
            "fix: as the help says; the unedited spec (the `-` lines) passes `{}`",
            f.lint
        ),
        None => outln!("fix: as the help says"),
    }
}
