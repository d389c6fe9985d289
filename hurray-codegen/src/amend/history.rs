//! The released history: `spec/releases/*.toml`, append-only. Each record carries its own
//! fingerprint and the previous record's, so an edit anywhere breaks the chain.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex};

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::source::{FileId, SourceMap, Span};

use super::snapshot::Snapshot;

/// Every record, in sequence order, with the file it came from.
#[derive(Debug, Default)]
pub struct History {
    pub records: Vec<(FileId, Arc<Snapshot>)>,
    /// The sequences of the records whose contents do not hash to their fingerprint
    /// (`record-edited`): their fingerprint does not name their contents.
    pub edited: Vec<u32>,
}

impl History {
    pub fn latest(&self) -> Option<&Snapshot> {
        self.records.last().map(|(_, s)| &**s)
    }
}

/// The folder of a spec tree that holds the release records.
pub const DIR: &str = "releases";

/// The directory of release records.
pub fn dir(spec_dir: &Path) -> std::path::PathBuf {
    spec_dir.join(DIR)
}

/// Load and verify every release record.
pub fn load(spec_dir: &Path, sources: &mut SourceMap, diags: &mut Diagnostics) -> History {
    let d = dir(spec_dir);
    let mut paths: Vec<_> = std::fs::read_dir(&d)
        .map(|it| {
            it.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    let mut history = History::default();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let parsed = parse(&text);
        let file = sources.add(crate::load::display_path(&path), path.clone(), text);
        let whole = Span::new(file, 0..0);
        match parsed {
            Ok(parsed) => {
                let (snap, fp) = (parsed.0, &parsed.1);
                if *fp != snap.release.fingerprint {
                    history.edited.push(snap.release.sequence);
                    let at = sources.get(file).text.find("fingerprint").map(|i| Span::new(file, i..i + 11)).unwrap_or(whole);
                    diags.push(
                        Diagnostic::new(&lints::RECORD_EDITED, Some(at), format!("release record {} was edited after it was written", path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default()))
                            .help("release records are append-only: restore the file from version control; record a new release with `hurray-spec release` instead"),
                    );
                }
                let expect_seq = history.records.len() as u32 + 1;
                let expect_prev = history.latest().map(|s| s.release.fingerprint.clone()).unwrap_or_default();
                if snap.release.sequence != expect_seq || snap.release.previous != expect_prev {
                    diags.push(
                        Diagnostic::new(&lints::RECORD_CHAIN, Some(whole), format!("release record {} is #{} after {}, expected #{expect_seq} after {}", path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(), snap.release.sequence, short(&snap.release.previous), short(&expect_prev)))
                            .help("records are numbered from 1 and each names its predecessor's fingerprint; never delete, reorder or rewrite them"),
                    );
                }
                history.records.push((file, snap));
            }
            Err(e) => diags.push(Diagnostic::new(&lints::TOML_SYNTAX, e.span().map(|r| Span::new(file, r)), format!("release record: {}", e.message())).help("release records are written by `hurray-spec release`; restore it from version control")),
        }
    }
    history
}

/// A record's text parsed, with the fingerprint its contents hash to.
type Parsed = (Arc<Snapshot>, String);

/// How many parsed records a process keeps: a spec's whole history and then some.
const PARSED_KEPT: usize = 64;

/// The records this process has parsed, by their text. A record is append-only, so its text
/// always parses to the same snapshot and fingerprint; `check` reads each once, but a process
/// that checks many trees (the test suite's fixtures, each a copy of the spec with its whole
/// history) would parse the same records again for every tree. Bounded: when full, emptied.
static PARSED: LazyLock<Mutex<HashMap<String, Parsed>>> = LazyLock::new(Mutex::default);

/// Parse a record's text and compute its fingerprint, or find both parsed before.
fn parse(text: &str) -> Result<Parsed, toml::de::Error> {
    if let Some(parsed) = parsed_records().get(text).cloned() {
        return Ok(parsed);
    }
    let snap = toml::from_str::<Snapshot>(text)?;
    let fp = snap.compute_fingerprint();
    let parsed = (Arc::new(snap), fp);
    let mut map = parsed_records();
    if map.len() >= PARSED_KEPT {
        map.clear();
    }
    map.insert(text.to_string(), parsed.clone());
    Ok(parsed)
}

/// The memo, locked. A panic elsewhere while it was held leaves a map that is still whole
/// (every entry is inserted complete), so a poisoned lock is used as it is.
fn parsed_records() -> std::sync::MutexGuard<'static, HashMap<String, Parsed>> {
    PARSED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn short(fp: &str) -> String {
    if fp.is_empty() {
        "nothing".to_string()
    } else {
        fp.chars().take(19).collect()
    }
}
