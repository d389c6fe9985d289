//! Reading the spec directory: every TOML file into its raw serde mirror, keeping sources
//! for diagnostics. I/O happens here and in the build/CLI edges only.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::raw;
use crate::source::{FileId, SourceMap, Span};

/// Every raw file of a spec directory, with the file each came from.
#[derive(Clone, Debug, Default)]
pub struct RawSpec {
    pub spec: Option<(FileId, raw::SpecFile)>,
    pub tags: Vec<(FileId, raw::TagFile)>,
    pub flags: Vec<(FileId, raw::FlagsFile)>,
    pub structures: Vec<(FileId, raw::StructFile)>,
    pub rules: Vec<(FileId, raw::RulesFile)>,
    pub resolutions: Option<(FileId, raw::ResolutionsFile)>,
    /// The migration specifications under `migrations/` that parse, by file name, in name
    /// order: the runtime's migration table. One that does not parse is left out here; the
    /// amendment checker reports it (S5).
    pub migrations: Vec<(String, raw::migration::Migration)>,
}

impl RawSpec {
    /// This tree with the file `file` read from `text` instead: the file keeps its id and
    /// its place in reading order, every other file its parse. A tool that checks many
    /// variants of one spec (the mutation test) parses only what changed. A `text` that does
    /// not parse is reported in `diags` and leaves the file out, as [`load_texts`] would.
    pub fn with_text(&self, file: FileId, text: &str, diags: &mut Diagnostics) -> RawSpec {
        fn replace<T: serde::de::DeserializeOwned>(
            slot: &mut Vec<(FileId, T)>,
            file: FileId,
            text: &str,
            diags: &mut Diagnostics,
        ) -> bool {
            let Some(i) = slot.iter().position(|(id, _)| *id == file) else {
                return false;
            };
            match parse(file, text, diags) {
                Some(v) => slot[i].1 = v,
                None => {
                    slot.remove(i);
                }
            }
            true
        }
        fn replace_one<T: serde::de::DeserializeOwned>(
            slot: &mut Option<(FileId, T)>,
            file: FileId,
            text: &str,
            diags: &mut Diagnostics,
        ) -> bool {
            if slot.as_ref().is_none_or(|(id, _)| *id != file) {
                return false;
            }
            *slot = parse(file, text, diags).map(|v| (file, v));
            true
        }
        let mut raw = self.clone();
        let _ = replace_one(&mut raw.spec, file, text, diags)
            || replace_one(&mut raw.resolutions, file, text, diags)
            || replace(&mut raw.tags, file, text, diags)
            || replace(&mut raw.flags, file, text, diags)
            || replace(&mut raw.structures, file, text, diags)
            || replace(&mut raw.rules, file, text, diags);
        raw
    }
}

impl RawSpec {
    /// Complete an archived release's tables (`spec/releases/NNNN/`) from the current ones:
    /// a tag space the archive wrote before its values' rule choices were table keys (no
    /// `[space.default]`, and no rule choice on any value or range) takes them from the
    /// current space of the same name — its default, each value's by its number, each range's
    /// by its bounds — located at the archived item each completes. The hand-written runtime
    /// of the time made those choices in code; the current tables state them, and the record
    /// that first held them (release 3) was written with no change of any reader's behaviour.
    /// A record written before them holds none of their reader facts, so an archive is
    /// compared with its record without them (`amend::archive::sealed_as`).
    pub fn complete_from(&mut self, current: &RawSpec) {
        for (_, archived) in &mut self.tags {
            let name = archived.space.get_ref().name.get_ref().clone();
            let Some((_, now)) = current
                .tags
                .iter()
                .find(|(_, t)| *t.space.get_ref().name.get_ref() == name)
            else {
                continue;
            };
            let predates = archived.space.get_ref().default.is_none()
                && archived
                    .space
                    .get_ref()
                    .ranges
                    .iter()
                    .all(|r| r.get_ref().buffer_count_rule.is_none())
                && archived.tag.iter_mut().all(|t| {
                    t.get_mut()
                        .rule_choices_mut()
                        .iter()
                        .all(|(_, v)| v.is_none())
                });
            if !predates {
                continue;
            }
            let at = archived.space.span();
            let space = archived.space.get_mut();
            space.default = now
                .space
                .get_ref()
                .default
                .as_ref()
                .map(|d| raw::S::new(at.clone(), d.get_ref().at(at.clone())));
            for r in &mut space.ranges {
                let (from, to) = (*r.get_ref().from.get_ref(), *r.get_ref().to.get_ref());
                let span = r.span();
                let same = now.space.get_ref().ranges.iter().find(|n| {
                    *n.get_ref().from.get_ref() == from && *n.get_ref().to.get_ref() == to
                });
                if let Some(rule) = same.and_then(|n| n.get_ref().buffer_count_rule.as_ref()) {
                    r.get_mut().buffer_count_rule = Some(raw::S::new(span, rule.get_ref().clone()));
                }
            }
            for t in &mut archived.tag {
                let span = t.span();
                let value = *t.get_ref().value.get_ref();
                let Some(mut same) = now
                    .tag
                    .iter()
                    .find(|n| *n.get_ref().value.get_ref() == value)
                    .map(|n| n.get_ref().clone())
                else {
                    continue;
                };
                for ((_, slot), (_, rule)) in t
                    .get_mut()
                    .rule_choices_mut()
                    .into_iter()
                    .zip(same.rule_choices_mut())
                {
                    *slot = rule
                        .as_ref()
                        .map(|r| raw::S::new(span.clone(), r.get_ref().clone()));
                }
            }
        }
    }
}

/// The folders of a spec directory whose every `*.toml` file is a table, in reading order.
pub const TABLE_DIRS: [&str; 4] = [TAGS_DIR, "flags", "structures", "rules"];

/// The folder of the tag tables (the only tables [`RawSpec::complete_from`] reads).
pub const TAGS_DIR: &str = "tags";

/// The TOML files of a spec directory, in a stable order. Release records and migrations
/// are read by the amendment checker, not here.
pub fn spec_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = vec![dir.join("spec.toml")];
    for sub in TABLE_DIRS {
        let d = dir.join(sub);
        if d.is_dir() {
            let mut v: Vec<PathBuf> = fs::read_dir(&d)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect();
            v.sort();
            out.extend(v);
        }
    }
    out.push(dir.join("resolutions.toml"));
    Ok(out)
}

/// How a path is shown in diagnostics: relative to the current directory when possible.
pub fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let shown = cwd
        .as_deref()
        .and_then(|c| path.strip_prefix(c).ok())
        .unwrap_or(path);
    shown.display().to_string()
}

/// Load a spec directory from disk.
pub fn load_dir(
    dir: &Path,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> std::io::Result<RawSpec> {
    let mut files = Vec::new();
    for path in spec_files(dir)? {
        let text = fs::read_to_string(&path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let rel = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
        files.push((display_path(&path), rel, path, text));
    }
    let mut raw = load_texts(files, sources, diags);
    let folder = dir.join(raw::migration::DIR);
    let mut texts = Vec::new();
    if folder.is_dir() {
        for entry in fs::read_dir(&folder)?.filter_map(Result::ok) {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "toml") {
                let name = entry.file_name().to_string_lossy().to_string();
                texts.push((name, fs::read_to_string(&path)?));
            }
        }
    }
    raw.migrations = migrations(texts.iter().map(|(n, t)| (n.as_str(), t.as_str())));
    Ok(raw)
}

/// The migration specifications among `(file name, text)` pairs that parse, in name order.
fn migrations<'a>(
    texts: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<(String, raw::migration::Migration)> {
    let mut out: Vec<(String, raw::migration::Migration)> = texts
        .into_iter()
        .filter(|(name, _)| name.ends_with(".toml"))
        .filter_map(|(name, text)| Some((name.to_string(), toml::from_str(text).ok()?)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Where a file of a spec tree, given by its path relative to the tree's root with `/`
/// separators, comes in [`spec_files`]'s order; `None` for a file it does not read.
fn reading_rank(relative: &str) -> Option<usize> {
    match relative.split('/').collect::<Vec<_>>()[..] {
        ["spec.toml"] => Some(0),
        [dir, name] if name.ends_with(".toml") => {
            TABLE_DIRS.iter().position(|d| *d == dir).map(|i| i + 1)
        }
        ["resolutions.toml"] => Some(TABLE_DIRS.len() + 1),
        _ => None,
    }
}

/// Load a spec tree already in memory (for example embedded in a crate): `files` are
/// `(path relative to root with '/' separators, text)` pairs. The files [`spec_files`] would
/// read are read in its order; others (release records, migrations) are left out.
/// Diagnostics name each file as `root` joined with its path.
pub fn load_memory<'a>(
    root: &Path,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> RawSpec {
    let files: Vec<(&str, &str)> = files.into_iter().collect();
    let found = migrations(files.iter().filter_map(|(relative, text)| {
        let name = relative
            .strip_prefix(raw::migration::DIR)?
            .strip_prefix('/')?;
        (!name.contains('/')).then_some((name, *text))
    }));
    let mut picked: Vec<(usize, &str, &str)> = files
        .into_iter()
        .filter_map(|(relative, text)| reading_rank(relative).map(|r| (r, relative, text)))
        .collect();
    picked.sort();
    if picked.first().is_none_or(|(rank, _, _)| *rank != 0) {
        diags.push(
            Diagnostic::new(
                &lints::TOML_SYNTAX,
                None,
                format!("the spec tree at {} has no spec.toml", root.display()),
            )
            .help("a spec tree holds spec.toml at its root; spec/README.md is the legend"),
        );
    }
    let files = picked
        .into_iter()
        .map(|(_, relative, text)| {
            let full = root.join(relative);
            (
                display_path(&full),
                PathBuf::from(relative),
                full,
                text.to_owned(),
            )
        })
        .collect();
    let mut raw = load_texts(files, sources, diags);
    raw.migrations = found;
    raw
}

/// Parse already-read files. Each entry is `(display, path relative to the spec dir, full path, text)`.
pub fn load_texts(
    files: Vec<(String, PathBuf, PathBuf, String)>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> RawSpec {
    let mut raw = RawSpec::default();
    for (display, rel, full, text) in files {
        let id = sources.add(display, full, text);
        let text = &sources.get(id).text;
        let first = rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .unwrap_or_default();
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        match (first.as_str(), name.as_str()) {
            ("spec.toml", _) => raw.spec = parse(id, text, diags).map(|v| (id, v)),
            ("resolutions.toml", _) => raw.resolutions = parse(id, text, diags).map(|v| (id, v)),
            (TAGS_DIR, _) => raw.tags.extend(parse(id, text, diags).map(|v| (id, v))),
            ("flags", _) => raw.flags.extend(parse(id, text, diags).map(|v| (id, v))),
            ("structures", _) => raw
                .structures
                .extend(parse(id, text, diags).map(|v| (id, v))),
            ("rules", _) => raw.rules.extend(parse(id, text, diags).map(|v| (id, v))),
            _ => {}
        }
    }
    raw
}

fn parse<T: serde::de::DeserializeOwned>(
    file: FileId,
    text: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    match toml::from_str::<T>(text) {
        Ok(v) => Some(v),
        Err(e) => {
            let span = e.span().map(|r| Span::new(file, r));
            let msg = e.message().to_string();
            let help = if msg.contains("unknown field") {
                "check the key's spelling against the legend in spec/README.md"
            } else if msg.contains("missing field") {
                "add the required key; spec/README.md lists every key"
            } else {
                "fix the TOML so it matches the schema in spec/README.md"
            };
            diags.push(Diagnostic::new(&lints::TOML_SYNTAX, span, msg).help(help));
            None
        }
    }
}
