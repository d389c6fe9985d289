//! The evolution playbook (`docs/cookbook/evolution-playbook.md`, ADR-019's handoff): the
//! page's scenarios and the parts of it rendered from their amendment fixtures.
//!
//! Each scenario of the page names an amendment fixture with a marker line,
//! `<!-- scenario: new-kv-value-tag -->`, and holds one ` ```sh ` block of steps, written by
//! hand and run as written by the end-to-end test. Between `<!-- generated: FIXTURE -->` and
//! `<!-- end generated -->` the page is rendered from the fixture: the edits a spec editor
//! makes (the overlay's, with the base spec's facts filled in), `check`'s verdict (the
//! fixture's `expected.txt`), what the readers of the two builds do with data of each version
//! (the fixture's `scenario.toml`) and, where the scenario adds a section, the extension
//! author's derive (`extension.rs`). `hurray-spec refresh` rewrites those parts, so the page
//! follows the spec it is rendered on; `refresh --check` reports a stale one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::overlay::{self, Edit, Overlay, Step, Vars};

/// The playbook page, relative to the repository's root.
pub const PAGE: &str = "docs/cookbook/evolution-playbook.md";

/// Where the amendment fixtures the scenarios name live, relative to the repository's root.
pub const FIXTURES: &str = "tests/fixtures/amendments";

const SCENARIO: &str = "<!-- scenario: ";
const GENERATED: &str = "<!-- generated: ";
const END: &str = "<!-- end generated -->";
const MARKER_END: &str = " -->";

/// One scenario of the page: the fixture it names and its steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// The amendment fixture's directory name.
    pub fixture: String,
    /// The command lines of its ` ```sh ` block, comments and blank lines left out.
    pub steps: Vec<String>,
}

/// What the readers of the two builds do with one piece of data (`scenario.toml`'s
/// `[[data]]`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    /// What the data is, for the page's table and for messages.
    pub what: String,
    /// Which build's `hurray encode` writes it: `old` (the spec before the amendment) or
    /// `new`.
    pub writer: Build,
    /// The JSON contract form `hurray encode` takes (a descriptor or a file), with the base
    /// spec's facts as `${…}` placeholders.
    pub json: String,
    /// What the old build's `hurray decode` does with it.
    pub old: Outcome,
    /// What the new build's `hurray decode` does with it.
    pub new: Outcome,
    /// After writing: the new build's `hurray migrate --to AXIS=VERSION` rewrites the data
    /// (S5), and both readers read what it wrote (with placeholders: `descriptor=${descriptor+major}`).
    pub migrate: Option<String>,
    /// Text the new build's `hurray decode --json` prints: its JSON when it reads the data (a
    /// field the amendment added, a default R4 fills in), its message when it rejects it.
    #[serde(default)]
    pub shows: Vec<String>,
    /// The versioning rules the outcomes follow (`CD2`, `R4`).
    pub rules: String,
}

/// One of the two builds of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Build {
    /// Built from the spec before the amendment.
    Old,
    /// Built from the amended spec.
    New,
}

/// What a reader does with data: `"reads"`, or `"rejects CODE"`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum Outcome {
    /// It reads the data.
    Reads,
    /// It rejects the data with this error code.
    Rejects(String),
}

impl TryFrom<String> for Outcome {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        if s == "reads" {
            return Ok(Outcome::Reads);
        }
        match s.strip_prefix("rejects ") {
            Some(code) if !code.is_empty() && !code.contains(' ') => {
                Ok(Outcome::Rejects(code.to_string()))
            }
            _ => Err(format!("`{s}`: an outcome is `reads` or `rejects CODE`")),
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Reads => f.write_str("reads it"),
            Outcome::Rejects(code) => write!(f, "rejects it: `{code}`"),
        }
    }
}

/// A corpus row a scenario adds (`scenario.toml`'s `[[corpus]]`): `find`, exactly once in
/// `file` (relative to the repository's root), becomes `replace`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusEdit {
    /// The corpus table edited, relative to the repository's root.
    pub file: String,
    /// The text to find, exactly once.
    pub find: String,
    /// What replaces it.
    pub replace: String,
}

impl CorpusEdit {
    /// Make the edit in the repository at `repo`.
    pub fn apply(&self, repo: &Path) -> Result<(), String> {
        let path = repo.join(&self.file);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", self.file))?;
        if text.matches(self.find.as_str()).count() != 1 {
            return Err(format!(
                "{}: the text to replace is not there exactly once:\n{}",
                self.file, self.find
            ));
        }
        std::fs::write(&path, text.replacen(&self.find, &self.replace, 1))
            .map_err(|e| format!("{}: {e}", self.file))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DataFile {
    #[serde(default)]
    data: Vec<Data>,
    #[serde(default)]
    corpus: Vec<CorpusEdit>,
}

/// A text of a fixture with the names it adds as a real amendment would give them: the
/// fixtures' `x_` (`X_`) prefix, which keeps them from colliding with a real amendment,
/// dropped wherever it starts a name (`x_provenance` → `provenance`, `X_HAS_PROVENANCE` →
/// `HAS_PROVENANCE`; `max_x` is left alone).
pub fn real_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let starts_name = !prev.is_some_and(|p| p.is_alphanumeric() || p == '_');
        if starts_name && (c == 'x' || c == 'X') && chars.peek() == Some(&'_') {
            chars.next();
            prev = Some('_');
            continue;
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

/// The scenarios of the page's text, in order.
pub fn scenarios(page: &str) -> Result<Vec<Scenario>, String> {
    let mut out: Vec<Scenario> = Vec::new();
    let mut in_sh = false;
    for line in page.lines() {
        if let Some(name) = marker(line, SCENARIO) {
            out.push(Scenario {
                fixture: name.to_string(),
                steps: Vec::new(),
            });
            continue;
        }
        let fence = line.trim_start().starts_with("```");
        if in_sh {
            if fence {
                in_sh = false;
            } else {
                let l = line.trim();
                if !l.is_empty() && !l.starts_with('#') {
                    let scenario = out
                        .last_mut()
                        .expect("a sh block is only read in a scenario");
                    scenario.steps.push(l.to_string());
                }
            }
        } else if fence && line.trim() == "```sh" {
            let Some(scenario) = out.last() else {
                continue;
            };
            if !scenario.steps.is_empty() {
                return Err(format!(
                    "scenario `{}` has more than one ```sh block",
                    scenario.fixture
                ));
            }
            in_sh = true;
        }
    }
    if let Some(s) = out.iter().find(|s| s.steps.is_empty()) {
        return Err(format!(
            "scenario `{}` has no ```sh block of steps",
            s.fixture
        ));
    }
    Ok(out)
}

fn marker<'a>(line: &'a str, start: &str) -> Option<&'a str> {
    line.trim()
        .strip_prefix(start)?
        .strip_suffix(MARKER_END)
        .map(str::trim)
}

/// The fixture directory of `fixture` in the repository at `repo`.
pub fn fixture_dir(repo: &Path, fixture: &str) -> PathBuf {
    repo.join(FIXTURES).join(fixture)
}

fn scenario_file(fixture_dir: &Path) -> Result<DataFile, String> {
    let path = fixture_dir.join("scenario.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(DataFile {
                data: Vec::new(),
                corpus: Vec::new(),
            });
        }
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    toml::from_str::<DataFile>(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The data rows of a fixture (`scenario.toml`; none when it has no such file).
pub fn data(fixture_dir: &Path) -> Result<Vec<Data>, String> {
    scenario_file(fixture_dir).map(|f| f.data)
}

/// The corpus rows a fixture's scenario adds (`scenario.toml`'s `[[corpus]]`).
pub fn corpus(fixture_dir: &Path) -> Result<Vec<CorpusEdit>, String> {
    scenario_file(fixture_dir).map(|f| f.corpus)
}

/// The page with every generated part rendered anew from its fixture, on the spec tree
/// `spec` of the repository at `repo`. `scratch` is a directory the fixtures' overlays are
/// materialized in.
pub fn render(repo: &Path, spec: &Path, page: &str, scratch: &Path) -> Result<String, String> {
    let (text, kept) = render_page(repo, spec, page, scratch, false)?;
    debug_assert!(kept.is_empty(), "a strict rendering keeps nothing");
    Ok(text)
}

/// [`render`], except that a scenario whose edit no longer applies to `spec` (the spec already
/// holds it: after scenario 4's major, `byte_offset` is no longer `u64` to be found) keeps its
/// rendering as the page has it; the second value names each such scenario and why. For
/// `hurray-spec refresh` on a tree a scenario has been played on.
pub fn render_keeping(
    repo: &Path,
    spec: &Path,
    page: &str,
    scratch: &Path,
) -> Result<(String, Vec<String>), String> {
    render_page(repo, spec, page, scratch, true)
}

fn render_page(
    repo: &Path,
    spec: &Path,
    page: &str,
    scratch: &Path,
    keep: bool,
) -> Result<(String, Vec<String>), String> {
    let mut out = String::with_capacity(page.len());
    let mut kept = Vec::new();
    let mut lines = page.split_inclusive('\n');
    while let Some(line) = lines.next() {
        out.push_str(line);
        let Some(name) = marker(line, GENERATED) else {
            continue;
        };
        let mut closed = false;
        let mut region = String::new();
        for skipped in lines.by_ref() {
            if skipped.trim() == END {
                closed = true;
                break;
            }
            region.push_str(skipped);
        }
        if !closed {
            return Err(format!("`{GENERATED}{name}{MARKER_END}` has no `{END}`"));
        }
        let dir = fixture_dir(repo, name);
        match overlay::materialize(spec, &dir.join("edit.toml"), &scratch.join(name)) {
            Err(e) if keep => {
                kept.push(format!("scenario `{name}`: its edit does not apply to this spec ({e}); its rendering is kept"));
                out.push_str(&region);
            }
            Err(e) => return Err(format!("scenario `{name}`: {e}")),
            Ok(m) => {
                out.push('\n');
                out.push_str(&rendered(repo, name, &m)?);
                out.push('\n');
            }
        }
        out.push_str(END);
        out.push('\n');
    }
    Ok((out, kept))
}

/// The generated part of one scenario.
fn rendered(repo: &Path, fixture: &str, m: &overlay::Materialized) -> Result<String, String> {
    let dir = fixture_dir(repo, fixture);
    let vars = &m.vars;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "The edits, on the spec as it stands (the fixture `{FIXTURES}/{fixture}`):\n"
    );
    edits(&m.overlay, vars, &mut out)?;
    let expected = std::fs::read_to_string(dir.join("expected.txt"))
        .map_err(|e| format!("{}: {e}", dir.join("expected.txt").display()))?;
    let _ = writeln!(
        out,
        "`hurray-spec check` then classifies the change:\n\n```text\n{}```\n",
        vars.expand(&expected)?
    );
    let rows = data(&dir)?;
    let added = corpus(&dir)?;
    if !added.is_empty() {
        out.push_str("The corpus gains a valid vector that uses the addition:\n\n");
        for c in &added {
            let _ = writeln!(out, "- In `{}`, replace:", c.file);
            block(&mut out, c.find.trim_matches('\n'));
            out.push_str("\n  with:\n");
            block(&mut out, c.replace.trim_matches('\n'));
        }
        out.push('\n');
    }
    if !rows.is_empty() {
        let axis = &m
            .overlay
            .bump
            .first()
            .ok_or_else(|| format!("scenario `{fixture}` bumps no axis"))?
            .axis;
        let old = vars
            .get(axis)
            .ok_or_else(|| format!("no version of axis `{axis}`"))?;
        let step = match m.overlay.bump[0].to {
            Step::Minor => "minor",
            Step::Major => "major",
        };
        let new = vars
            .get(&format!("{axis}+{step}"))
            .ok_or_else(|| format!("no next version of axis `{axis}`"))?;
        // A scheme axis's version is a bare `scheme_version` (RES-6): say so.
        let (old, new) = if old.contains('.') {
            (old.to_string(), new.to_string())
        } else {
            (format!("version {old}"), format!("version {new}"))
        };
        let (old, new) = (old.as_str(), new.as_str());
        let _ = writeln!(
            out,
            "What the readers of the two builds do (`{axis}` {old}: before the amendment; {new}: after):\n"
        );
        let _ = writeln!(
            out,
            "| data | written by | {old} reader | {new} reader | rules |\n|---|---|---|---|---|"
        );
        for d in &rows {
            let mut writer = match d.writer {
                Build::Old => old,
                Build::New => new,
            }
            .to_string();
            if let Some(to) = &d.migrate {
                let _ = write!(writer, ", then `hurray migrate --to {}`", vars.expand(to)?);
            }
            let mut new_cell = d.new.to_string();
            if !d.shows.is_empty() {
                let shown = (d.shows.iter())
                    .map(|s| vars.expand(s).map(|s| format!("`{s}`")))
                    .collect::<Result<Vec<_>, _>>()?;
                let verb = match d.new {
                    Outcome::Reads => "shows",
                    Outcome::Rejects(_) => "says",
                };
                let _ = write!(new_cell, ", {verb} {}", shown.join(", "));
            }
            let _ = writeln!(
                out,
                "| {} | {writer} | {} | {new_cell} | {} |",
                d.what, d.old, d.rules
            );
        }
        out.push('\n');
    }
    if let Ok(code) = std::fs::read_to_string(dir.join("extension.rs")) {
        let _ = writeln!(
            out,
            "An extension author's crate, outside the workspace, links a struct to the new \
             section; it compiles only while the struct matches the spec:\n\n```rust\n{}```",
            vars.expand(&code)?
        );
    }
    Ok(out.trim_end().to_string())
}

/// The overlay's bumps and edits, as the steps a spec editor takes by hand.
fn edits(o: &Overlay, vars: &Vars, out: &mut String) -> Result<(), String> {
    for b in &o.bump {
        let step = match b.to {
            Step::Minor => "minor",
            Step::Major => "major",
        };
        let to = vars
            .get(&format!("{}+{step}", b.axis))
            .ok_or_else(|| format!("no next {step} version of axis `{}`", b.axis))?;
        // A scheme axis counts `scheme_version`s, with no minor (RES-6).
        let next = if to.contains('.') {
            format!("the next {step}")
        } else {
            "the next scheme version".to_string()
        };
        let _ = writeln!(
            out,
            "- In `spec/spec.toml`, set `current` of the axis `{}` to `\"{to}\"` ({next}).",
            b.axis
        );
    }
    for e in &o.edit {
        edit(e, vars, out)?;
    }
    out.push('\n');
    Ok(())
}

/// A text of an edit with the base's facts filled in; an S5 `${carry-all}` stays a comment
/// (its dozens of `[[carry]]` tables are what `hurray-spec migration` writes).
fn text(vars: &Vars, t: &str) -> Result<String, String> {
    let t = t.replace(
        "${carry-all}",
        "# ... and a [[carry]] of every other space, flag set and structure,\n\
         # as `hurray-spec migration` writes them\n",
    );
    Ok(vars.expand(&t)?.trim_matches('\n').to_string())
}

fn block(out: &mut String, t: &str) {
    let _ = writeln!(out, "\n  ```toml\n{}\n  ```", indent(t));
}

fn indent(t: &str) -> String {
    t.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("  {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn edit(e: &Edit, vars: &Vars, out: &mut String) -> Result<(), String> {
    let file = format!("spec/{}", vars.expand(&e.file)?);
    if e.remove == Some(true) {
        let _ = writeln!(out, "- Delete `{file}`.");
        return Ok(());
    }
    if let Some(c) = &e.content {
        let _ = writeln!(out, "- Create `{file}`:");
        block(out, &text(vars, c)?);
        return Ok(());
    }
    if let Some(from) = &e.copy {
        let _ = writeln!(out, "- Copy `spec/{}` to `{file}`.", vars.expand(from)?);
    }
    if let (Some(find), Some(replace)) = (&e.find, &e.replace) {
        let replace = text(vars, replace)?;
        if replace.trim().is_empty() {
            let _ = writeln!(out, "- In `{file}`, delete:");
            block(out, &text(vars, find)?);
        } else {
            let _ = writeln!(out, "- In `{file}`, replace:");
            block(out, &text(vars, find)?);
            let _ = writeln!(out, "\n  with:");
            block(out, &replace);
        }
    }
    if let Some(a) = &e.append {
        match (&e.structure, &e.flags) {
            (Some(s), _) => {
                let _ = writeln!(
                    out,
                    "- In `{file}`, after the last field of the structure `{s}`, add (and update \
                     its declared `size`, if it has one, to what its fields add up to):"
                );
            }
            (None, Some(f)) => {
                let _ = writeln!(
                    out,
                    "- In `{file}`, after the last bit of the flag set `{f}`, add:"
                );
            }
            (None, None) => {
                let _ = writeln!(out, "- At the end of `{file}`, add:");
            }
        }
        block(out, &text(vars, a)?);
    } else if let Some(s) = &e.structure {
        let _ = writeln!(
            out,
            "- In `{file}`, set the declared `size` of the structure `{s}` to what its fields add up to."
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_are_read_with_their_steps() {
        let page = "# P\n<!-- scenario: a -->\ntext\n```sh\n# a comment\ncargo x\n\ncargo y\n```\n\
                    <!-- scenario: b -->\n```toml\nnot = 1\n```\n```sh\ncargo z\n```\n";
        let s = scenarios(page).unwrap();
        assert_eq!(
            s,
            vec![
                Scenario {
                    fixture: "a".into(),
                    steps: vec!["cargo x".into(), "cargo y".into()]
                },
                Scenario {
                    fixture: "b".into(),
                    steps: vec!["cargo z".into()]
                },
            ]
        );
        let e = scenarios("<!-- scenario: a -->\nno steps\n").unwrap_err();
        assert!(e.contains("`a` has no ```sh block"), "{e}");
    }

    #[test]
    fn real_names_drop_the_fixture_prefix_where_it_starts_a_name() {
        assert_eq!(
            real_names("x_provenance.x_length X_HAS_PROVENANCE max_x x_1 \"x_int32\""),
            "provenance.length HAS_PROVENANCE max_x 1 \"int32\""
        );
    }

    #[test]
    fn outcomes_parse_or_say_what_they_take() {
        assert_eq!(Outcome::try_from("reads".to_string()), Ok(Outcome::Reads));
        assert_eq!(
            Outcome::try_from("rejects unknown-flag-bit".to_string()),
            Ok(Outcome::Rejects("unknown-flag-bit".into()))
        );
        for bad in ["reject x", "rejects ", "rejects a b"] {
            assert!(Outcome::try_from(bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_generated_part_without_its_end_is_refused() {
        let e = render(
            Path::new("."),
            Path::new("spec"),
            "<!-- generated: x -->\n",
            Path::new("."),
        )
        .unwrap_err();
        assert!(e.contains("has no `<!-- end generated -->`"), "{e}");
    }
}
