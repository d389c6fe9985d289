//! The released tables: beside each release record `releases/NNNN.toml`, the directory
//! `releases/NNNN/` holds the spec's TOML files as released (every `*.toml` of the tree
//! outside `releases/`, byte for byte), so a runtime of a released spec can be generated
//! again — the reader `hurray migrate` pairs with the new major's writer. `hurray-spec
//! release` writes both; `check` verifies each archive against its record: the archive,
//! loaded and snapshot, sealed as the record was, must have the record's fingerprint
//! (`release-archive-edited` otherwise). A record without an archive (written before
//! archives existed) is no finding.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use sha2::{Digest, Sha256};

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::source::{SourceMap, Span};

use super::history::{self, History};
use super::snapshot::{self, Snapshot};
use super::span_index::{SpanIndex, key};

/// The name of release `sequence`'s archive directory in `releases/` (`0002`), the stem of
/// its record.
pub fn dir_name(sequence: u32) -> String {
    format!("{sequence:04}")
}

/// Release `sequence`'s archive directory in the spec tree at `spec_dir`.
pub fn dir(spec_dir: &Path, sequence: u32) -> PathBuf {
    history::dir(spec_dir).join(dir_name(sequence))
}

/// The prefix of an archived file's path relative to the spec tree (`releases/0002/`), as
/// `hurray-spec-tables` lists it.
pub fn prefix(sequence: u32) -> String {
    format!("{}/{}/", history::DIR, dir_name(sequence))
}

/// The files of an embedded spec tree (`(path relative to the tree, text)`) that archive
/// release `sequence`, with their paths relative to the archive: a spec tree of its own.
pub fn embedded<'a>(files: &[(&'a str, &'a str)], sequence: u32) -> Vec<(&'a str, &'a str)> {
    let prefix = prefix(sequence);
    files
        .iter()
        .filter_map(|(path, text)| Some((path.strip_prefix(prefix.as_str())?, *text)))
        .collect()
}

/// Every file an archive of the spec tree at `spec_dir` holds: each `*.toml` outside
/// `releases/`, as (path relative to the tree with `/` separators, path), in path order.
pub fn tables(spec_dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let relative = path
                .strip_prefix(root)
                .expect("a listed file lies under its root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            if path.is_dir() {
                if relative != history::DIR {
                    walk(root, &path, out)?;
                }
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push((relative, path));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(spec_dir, spec_dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// Archive the spec tree at `spec_dir` as release `sequence`: copy [`tables`] into
/// [`dir`], replacing what was there. Returns the directory.
pub fn write(spec_dir: &Path, sequence: u32) -> std::io::Result<PathBuf> {
    let out = dir(spec_dir, sequence);
    let files = tables(spec_dir)?;
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    for (relative, path) in files {
        let to = out.join(&relative);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(&path, &to)?;
    }
    Ok(out)
}

/// The record an archive's spec makes when sealed as `record` was (its sequence, label and
/// predecessor, and the kinds of reader facts it records: a kind recorded only since, or a
/// `[readers]` table the record predates, is left out): equal fingerprints mean the archive
/// states the facts the record holds.
pub fn sealed_as(spec: &crate::model::Spec, record: &Snapshot) -> (Snapshot, SpanIndex) {
    let (mut snap, spans) = snapshot::of_spec(spec);
    snap.readers = match (snap.readers.take(), &record.readers) {
        (Some(mut facts), Some(recorded)) => {
            let recorded = super::readers::Recorded::of(recorded);
            facts.fact.retain(|f| !recorded.predates(&f.key));
            Some(facts)
        }
        _ => None,
    };
    let r = &record.release;
    (snap.seal(r.sequence, &r.label, &r.previous), spans)
}

/// Verify every archive under `spec_dir`'s `releases/` against its record in `history`:
/// each must load cleanly and seal to its record's fingerprint, and each must have a
/// record. Findings are `release-archive-edited`, at the archived item that differs where
/// one can be named, else at the archive's `spec.toml`.
pub fn verify(
    spec_dir: &Path,
    history: &History,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) {
    let help = "an archive is append-only, like its record: restore it from version control (`git checkout -- spec/releases/`); `hurray-spec release` writes both";
    // The current tables, which complete an archive written before a key existed
    // (`RawSpec::complete_from`); read once, and only when an archive is there.
    let mut current: Option<crate::load::RawSpec> = None;
    // The digest of the current tag tables, which every archive's memo key holds; once.
    let mut tags: Option<Option<[u8; 32]>> = None;
    for (record_file, record) in &history.records {
        let d = dir(spec_dir, record.release.sequence);
        if !d.is_dir() {
            continue;
        }
        let name = format!("{}/{}", history::DIR, dir_name(record.release.sequence));
        // Verified before in this process, byte for byte the same, against the same record.
        let tags =
            *tags.get_or_insert_with(|| current_tags(spec_dir).ok().and_then(|f| digest(&f, &[])));
        let memo = match tags {
            Some(tags) if !history.edited.contains(&record.release.sequence) => tables(&d)
                .ok()
                .and_then(|files| digest(&files, &[record.release.fingerprint.as_bytes(), &tags])),
            _ => None,
        };
        if memo.is_some_and(|m| verified().contains(&m)) {
            continue;
        }
        let mut local = Diagnostics::default();
        let mut raw = match crate::load::load_dir(&d, sources, &mut local) {
            Ok(raw) => raw,
            Err(e) => {
                diags.push(
                    Diagnostic::new(
                        &lints::RELEASE_ARCHIVE_EDITED,
                        Some(Span::new(*record_file, 0..0)),
                        format!(
                            "the archive {name} of release {} cannot be read: {e}",
                            record.release.sequence
                        ),
                    )
                    .help(help),
                );
                continue;
            }
        };
        let now = current.get_or_insert_with(|| {
            crate::load::load_dir(
                spec_dir,
                &mut SourceMap::default(),
                &mut Diagnostics::default(),
            )
            .unwrap_or_default()
        });
        raw.complete_from(now);
        let at_spec = raw.spec.as_ref().map(|(id, _)| Span::new(*id, 0..0));
        let loaded = crate::phases::finish(raw, SourceMap::default(), local);
        let Some(spec) = loaded.clean() else {
            let first = loaded
                .diags
                .items()
                .iter()
                .find(|d| d.level == crate::diag::Level::Error);
            diags.push(
                Diagnostic::new(
                    &lints::RELEASE_ARCHIVE_EDITED,
                    first.and_then(|d| d.span).or(at_spec),
                    format!(
                        "the archive {name} of release {} does not load cleanly{}",
                        record.release.sequence,
                        first
                            .map(|d| format!(": {}", d.message))
                            .unwrap_or_default()
                    ),
                )
                .help(help),
            );
            continue;
        };
        let (archived, spans) = sealed_as(spec, record);
        if archived.release.fingerprint == record.release.fingerprint {
            if let Some(m) = memo {
                verified().insert(m);
            }
            continue;
        }
        let (what, span) = differing(&archived, record, &spans);
        diags.push(
            Diagnostic::new(
                &lints::RELEASE_ARCHIVE_EDITED,
                span.or(at_spec),
                format!(
                    "the archive {name} does not match release {}'s fingerprint: {what} differs from the record",
                    record.release.sequence
                ),
            )
            .help(help),
        );
    }
    // An archive with no record.
    let sequences: Vec<String> = history
        .records
        .iter()
        .map(|(_, r)| dir_name(r.release.sequence))
        .collect();
    let mut strays: Vec<String> = std::fs::read_dir(history::dir(spec_dir))
        .map(|it| {
            it.filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !sequences.contains(n))
                .collect()
        })
        .unwrap_or_default();
    strays.sort();
    for stray in strays {
        diags.push(
            Diagnostic::new(
                &lints::RELEASE_ARCHIVE_EDITED,
                None,
                format!(
                    "{}/{stray} archives no release: no record {stray}.toml",
                    history::DIR
                ),
            )
            .help(help),
        );
    }
}

/// The archives this process has verified against their records, by [`digest`]: the
/// verdict depends only on the archive's bytes, the record, and the current tag tables an
/// archive is completed from, so `check` of many copies of one spec (the test suite's
/// fixtures, each with the whole history) loads each archive once. Only verdicts of a match
/// are kept (a mismatch is reported with its place, found each time).
static VERIFIED: LazyLock<Mutex<HashSet<[u8; 32]>>> = LazyLock::new(Mutex::default);

fn verified() -> std::sync::MutexGuard<'static, HashSet<[u8; 32]>> {
    // Every entry is inserted whole, so a lock poisoned by a panic elsewhere is still sound.
    VERIFIED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The current tag tables (`tags/`), which complete an archive written before a key of
/// theirs existed ([`RawSpec::complete_from`] reads nothing else of the current tables).
///
/// [`RawSpec::complete_from`]: crate::load::RawSpec::complete_from
fn current_tags(spec_dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let folder = format!("{}/", crate::load::TAGS_DIR);
    let mut files = tables(spec_dir)?;
    files.retain(|(relative, _)| relative.starts_with(&folder));
    Ok(files)
}

/// The digest of what verifying an archive reads: `files` (as [`tables`] lists them: how many,
/// then each one's path and bytes, in path order) and `more` (the record's fingerprint, the
/// digest of the current tag tables). `None` when a file cannot be read: nothing is memoised.
fn digest(files: &[(String, PathBuf)], more: &[&[u8]]) -> Option<[u8; 32]> {
    let mut h = Sha256::new();
    let mut part = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    part(&(files.len() as u64).to_le_bytes());
    for (relative, path) in files {
        part(relative.as_bytes());
        part(&std::fs::read(path).ok()?);
    }
    for m in more {
        part(m);
    }
    Some(h.finalize().into())
}

/// The first item the archive's snapshot states otherwise than the record, and where it is
/// in the archive.
fn differing(archived: &Snapshot, record: &Snapshot, spans: &SpanIndex) -> (String, Option<Span>) {
    for a in &archived.axis {
        if record.axis(&a.name) != Some(a) {
            return (
                format!("axis `{}`", a.name),
                spans.get(&key::axis(&a.name)).copied(),
            );
        }
    }
    for s in &archived.space {
        if let Some(r) = record.space(&s.name) {
            for t in &s.tag {
                if !r.tag.contains(t) {
                    return (
                        format!("`{}` value {:#04x}", s.name, t.value),
                        spans.get(&key::tag(&s.name, t.value)).copied(),
                    );
                }
            }
        }
        if record.space(&s.name) != Some(s) {
            return (
                format!("tag space `{}`", s.name),
                spans.get(&key::space(&s.name)).copied(),
            );
        }
    }
    for f in &archived.flags {
        if record.flag_set(&f.name) != Some(f) {
            return (
                format!("flag set `{}`", f.name),
                spans.get(&key::flags(&f.name)).copied(),
            );
        }
    }
    for s in &archived.structure {
        if record.structure(&s.name) != Some(s) {
            return (
                format!("structure `{}`", s.name),
                spans.get(&key::structure(&s.name)).copied(),
            );
        }
    }
    if archived.axis.len() != record.axis.len()
        || archived.space.len() != record.space.len()
        || archived.flags.len() != record.flags.len()
        || archived.structure.len() != record.structure.len()
    {
        return (
            "the list of axes, spaces, flag sets or structures".into(),
            None,
        );
    }
    if archived.placement != record.placement {
        return ("the placement".into(), None);
    }
    (
        "what the generated readers act on (rules, limits, roles)".into(),
        None,
    )
}
