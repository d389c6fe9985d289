//! Diagnostics: what every check reports, collected (never first-error-wins) and rendered
//! as rustc-style snippets, JSON, SARIF 2.1.0 or GitHub workflow annotations.

use serde_json::{Value, json};

pub use crate::lints::Level;
use crate::lints::Lint;
pub use crate::render::hex;
use crate::source::{SourceMap, Span};

/// A concrete byte sequence that two readings interpret differently (issue: byte witness):
/// only the region where the readings differ, with a row of context on either side.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    /// What the bytes are (e.g. "mxfp payload at scheme version 1").
    pub what: String,
    /// The bytes shown, starting at [`Witness::offset`] of what they belong to.
    pub bytes: Vec<u8>,
    /// Where `bytes` start, in bytes from the start of the structure they belong to.
    pub offset: u64,
    /// Label of the left reading (the released spec).
    pub old_label: String,
    /// Label of the right reading (the amended spec).
    pub new_label: String,
    /// One row per field either reader sees in the region.
    pub rows: Vec<WitnessRow>,
    /// In words, what each reader makes of the bytes that differ: one sentence per reader.
    pub readings: Vec<String>,
}

/// One row of a witness: bytes (with their offset) and what each reader reads in them.
#[derive(Clone, Debug, PartialEq)]
pub struct WitnessRow {
    /// `offset: hex bytes`.
    pub bytes: String,
    /// What the released reader reads there.
    pub old: String,
    /// What the amended reader reads there.
    pub new: String,
    /// A row shown only to place the differing rows: both readers read it alike.
    pub context: bool,
}

impl WitnessRow {
    /// Whether the two readings of the row differ.
    pub fn differs(&self) -> bool {
        self.old != self.new
    }
}

impl Witness {
    pub fn hex(&self) -> String {
        hex(&self.bytes)
    }

    /// The witness as an aligned two-column table: differing rows marked `≠`, context rows
    /// `=`, then what each reader makes of the differing bytes.
    pub fn render(&self) -> String {
        let last = (self.offset + self.bytes.len() as u64).saturating_sub(1);
        let mut out = format!(
            "witness: {}, bytes {}–{} = {}\n",
            self.what,
            self.offset,
            last,
            self.hex()
        );
        let w0 = self
            .rows
            .iter()
            .map(|r| r.bytes.len())
            .max()
            .unwrap_or(0)
            .max(5);
        let w1 = self
            .rows
            .iter()
            .map(|r| r.old.len())
            .max()
            .unwrap_or(0)
            .max(self.old_label.len());
        out.push_str(&format!(
            "  {:w0$}  {:w1$}    {}\n",
            "bytes", self.old_label, self.new_label
        ));
        for r in &self.rows {
            let mark = if r.differs() { "≠" } else { "=" };
            let context = if r.context { "  (context)" } else { "" };
            out.push_str(&format!(
                "  {:w0$}  {:w1$}  {mark} {}{context}\n",
                r.bytes, r.old, r.new
            ));
        }
        for reading in &self.readings {
            out.push_str(&format!("  {reading}\n"));
        }
        out
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub lint: &'static Lint,
    pub level: Level,
    pub message: String,
    /// Where in the TOML; `None` for findings about a whole release record or axis.
    pub span: Option<Span>,
    /// Secondary spans with labels.
    pub labels: Vec<(Span, String)>,
    pub help: Option<String>,
    pub notes: Vec<String>,
    pub witness: Option<Witness>,
    /// Where the edits this finding follows from are (their TOML spans): when every one of
    /// them has a root-cause finding of its own (an S2 rebind, an S6 addition), this finding
    /// is folded into that finding ([`Diagnostics::fold_consequences`]).
    pub causes: Vec<Span>,
}

impl Diagnostic {
    pub fn new(lint: &'static Lint, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            lint,
            level: lint.level,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
            notes: Vec::new(),
            witness: None,
            causes: Vec::new(),
        }
    }

    /// This finding follows from the edit at `span` (see [`Diagnostic::causes`]).
    pub fn caused_by(mut self, span: Option<Span>) -> Diagnostic {
        self.causes.extend(span);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    pub fn witness(mut self, witness: Witness) -> Diagnostic {
        self.witness = Some(witness);
        self
    }
}

/// A collector: every check pushes here and carries on.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Shorthand for the most common case.
    pub fn report(
        &mut self,
        lint: &'static Lint,
        span: Option<Span>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.push(Diagnostic::new(lint, span, message).help(help));
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.level == Level::Error)
    }

    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.level == Level::Error)
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn items(&self) -> &[Diagnostic] {
        &self.items
    }

    pub fn into_items(self) -> Vec<Diagnostic> {
        self.items
    }

    /// One finding per cause: a finding whose every cause is the span of a root-cause finding
    /// (an S2 rebind, an S6 addition: [`crate::lints::Lint::is_root_cause`]) is removed, and
    /// the root finding of its first cause notes it. The root's help is then the one fix of
    /// the edit: the offsets it moves, the MAJOR it makes and the version it seems to need
    /// all go away with it, so no other help contradicts it. A folded finding's byte witness
    /// moves to the root when the root has none.
    pub fn fold_consequences(&mut self) {
        let root_at = |items: &[Diagnostic], span: Span| {
            items
                .iter()
                .position(|d| d.lint.is_root_cause() && d.span == Some(span))
        };
        let mut folded: Vec<(usize, String, Option<Witness>)> = Vec::new();
        let mut keep = Vec::with_capacity(self.items.len());
        for (i, d) in self.items.iter().enumerate() {
            let roots: Option<Vec<usize>> = (!d.lint.is_root_cause() && !d.causes.is_empty())
                .then(|| d.causes.iter().map(|s| root_at(&self.items, *s)).collect())
                .flatten();
            match roots.as_deref() {
                Some([first, ..]) => {
                    folded.push((
                        *first,
                        format!(
                            "fixing this also clears {}[{}]: {}",
                            d.level.as_str(),
                            d.lint.id,
                            d.message
                        ),
                        d.witness.clone(),
                    ));
                }
                _ => keep.push(i),
            }
        }
        for (root, note, witness) in folded {
            let root = &mut self.items[root];
            if !root.notes.contains(&note) {
                root.notes.push(note);
            }
            // The bytes that show the break move with it.
            if root.witness.is_none() {
                root.witness = witness;
            }
        }
        let mut index = 0;
        self.items.retain(|_| {
            let kept = keep.binary_search(&index).is_ok();
            index += 1;
            kept
        });
    }

    /// Sort by file, position, then lint id, so output is stable.
    pub fn sort(&mut self) {
        self.items.sort_by(|a, b| {
            let ka = a.span.map(|s| (s.file, s.start));
            let kb = b.span.map(|s| (s.file, s.start));
            ka.cmp(&kb)
                .then_with(|| a.lint.id.cmp(b.lint.id))
                .then_with(|| a.message.cmp(&b.message))
        });
    }
}

/// Output formats of `hurray-spec check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

fn location(
    sources: &SourceMap,
    span: Option<Span>,
) -> Option<(String, usize, usize, usize, usize)> {
    let span = span?;
    let f = sources.get(span.file);
    let a = f.line_col(span.start as usize);
    let b = f.line_col(span.end as usize);
    Some((f.display.clone(), a.line, a.col, b.line, b.col))
}

/// Render diagnostics in the chosen format.
pub fn render(sources: &SourceMap, diags: &[Diagnostic], format: Format) -> String {
    match format {
        Format::Human => render_human(sources, diags),
        Format::Json => {
            serde_json::to_string_pretty(&render_json(sources, diags)).unwrap_or_default() + "\n"
        }
        Format::Sarif => {
            serde_json::to_string_pretty(&render_sarif(sources, diags)).unwrap_or_default() + "\n"
        }
        Format::Github => render_github(sources, diags),
    }
}

fn render_human(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    use codespan_reporting::diagnostic::{Diagnostic as CDiag, Label, Severity};
    use codespan_reporting::files::SimpleFiles;
    use codespan_reporting::term::{self, Config};

    let mut files = SimpleFiles::new();
    for (_, f) in sources.files() {
        files.add(f.display.clone(), f.text.clone());
    }
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let severity = match d.level {
            Level::Error => Severity::Error,
            Level::Warning => Severity::Warning,
            Level::Note => Severity::Note,
        };
        let mut labels = Vec::new();
        if let Some(s) = d.span {
            labels.push(Label::primary(s.file.0 as usize, s.range()));
        }
        for (s, text) in &d.labels {
            labels.push(Label::secondary(s.file.0 as usize, s.range()).with_message(text.clone()));
        }
        let mut notes = d.notes.clone();
        if let Some(h) = &d.help {
            notes.push(format!("help: {h}"));
        }
        if let Some(w) = &d.witness {
            notes.push(w.render());
        }
        notes.push(format!("lint `{}` enforces {}", d.lint.id, d.lint.rule));
        let cd = CDiag::new(severity)
            .with_code(d.lint.id)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(notes);
        match term::emit_into_string(&config, &files, &cd) {
            Ok(s) => out.push_str(&s),
            Err(_) => out.push_str(&format!(
                "{}[{}]: {}\n",
                d.level.as_str(),
                d.lint.id,
                d.message
            )),
        }
    }
    let errors = diags.iter().filter(|d| d.level == Level::Error).count();
    let warnings = diags.iter().filter(|d| d.level == Level::Warning).count();
    if errors + warnings > 0 {
        out.push_str(&format!("{errors} error(s), {warnings} warning(s)\n"));
    }
    out
}

/// The JSON form: one object per diagnostic.
pub fn render_json(sources: &SourceMap, diags: &[Diagnostic]) -> Value {
    let items: Vec<Value> = diags
        .iter()
        .map(|d| {
            let loc = location(sources, d.span).map(|(file, line, col, end_line, end_col)| {
                json!({"file": file, "line": line, "column": col, "end_line": end_line, "end_column": end_col})
            });
            let witness = d.witness.as_ref().map(|w| {
                json!({
                    "what": w.what, "offset": w.offset, "hex": w.hex(), "old": w.old_label, "new": w.new_label,
                    "rows": w.rows.iter().map(|r| json!({"bytes": r.bytes, "old": r.old, "new": r.new, "context": r.context})).collect::<Vec<_>>(),
                    "readings": w.readings,
                })
            });
            json!({
                "lint": d.lint.id,
                "rule": d.lint.rule,
                "level": d.level.as_str(),
                "message": d.message,
                "location": loc,
                "help": d.help,
                "notes": d.notes,
                "witness": witness,
            })
        })
        .collect();
    json!({ "diagnostics": items })
}

fn render_sarif(sources: &SourceMap, diags: &[Diagnostic]) -> Value {
    let rules: Vec<Value> = crate::lints::ALL
        .iter()
        .map(|l| {
            json!({
                "id": l.id,
                "name": l.id,
                "shortDescription": {"text": l.summary},
                "properties": {"rule": l.rule},
                "defaultConfiguration": {"level": sarif_level(l.level)},
            })
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                text.push_str("\nhelp: ");
                text.push_str(h);
            }
            if let Some(w) = &d.witness {
                text.push('\n');
                text.push_str(&w.render());
            }
            let locations: Vec<Value> = location(sources, d.span)
                .map(|(file, line, col, end_line, end_col)| {
                    vec![json!({"physicalLocation": {
                        "artifactLocation": {"uri": file},
                        "region": {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col},
                    }})]
                })
                .unwrap_or_default();
            json!({
                "ruleId": d.lint.id,
                "level": sarif_level(d.level),
                "message": {"text": text},
                "locations": locations,
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hurray-spec", "informationUri": "https://example.invalid/hurray-spec", "rules": rules}},
            "results": results,
        }],
    })
}

fn sarif_level(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "note",
    }
}

fn render_github(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = match d.level {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "notice",
        };
        let mut props = vec![format!("title={}", escape_property(d.lint.id))];
        if let Some((file, line, col, end_line, end_col)) = location(sources, d.span) {
            props.insert(0, format!("file={}", escape_property(&file)));
            props.push(format!("line={line}"));
            props.push(format!("col={col}"));
            props.push(format!("endLine={end_line}"));
            props.push(format!("endColumn={end_col}"));
        }
        let mut msg = d.message.clone();
        if let Some(h) = &d.help {
            msg.push_str("\nhelp: ");
            msg.push_str(h);
        }
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            props.join(","),
            escape_data(&msg)
        ));
    }
    out
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}
