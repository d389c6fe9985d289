//! The checked-in corpus directories (`tests/corpus/valid/`, `tests/corpus/reject/`): what
//! the generator builds compared with what is on disk, rewritten only under `BLESS=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Whether the run rewrites the corpus (`BLESS=1`).
pub fn blessing() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| v == "1")
}

/// Under `BLESS=1`, make `dir` hold exactly `files` (stale files removed, changed ones
/// rewritten). Then report every difference between `files` and `dir`: a file missing,
/// one not generated, one whose bytes differ.
pub fn sync(dir: &Path, files: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    if blessing() {
        std::fs::create_dir_all(dir).expect("corpus dir");
        for entry in std::fs::read_dir(dir).expect("corpus dir").flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !files.contains_key(&name) {
                std::fs::remove_file(entry.path()).expect("remove a stale vector");
            }
        }
        for (name, bytes) in files {
            let p = dir.join(name);
            if std::fs::read(&p).ok().as_ref() != Some(bytes) {
                std::fs::write(&p, bytes).expect("write a vector");
            }
        }
    }
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut drift = Vec::new();
    for (name, bytes) in files {
        match std::fs::read(dir.join(name)) {
            Err(_) => drift.push(format!("missing: {name}")),
            Ok(b) if &b != bytes => drift.push(format!("differs from the generator: {name}")),
            Ok(_) => {}
        }
    }
    for name in &on_disk {
        if !files.contains_key(name) {
            drift.push(format!("not generated (stale): {name}"));
        }
    }
    drift
}
