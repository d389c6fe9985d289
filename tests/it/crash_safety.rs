//! No data lost (issue #11): a file written to a path appears there only complete. A child
//! process (this test binary, re-run on one test) writes a file through
//! `FileWriter::create`; the parent kills it with SIGKILL at random moments and checks that the
//! path then holds either the file that was there before or the complete new one, never a
//! partial file. A writer that fails midway, or is dropped, leaves nothing either.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::common;
use hurray_runtime::tags::ElementType;
use hurray_runtime::writer::{FileOptions, FileWriter, WriteError, finalize, row_major};
use hurray_runtime::{ReaderConfig, file};

/// The environment variable that makes [`child_writes_a_file`] write.
const CHILD: &str = "HURRAY_CRASH_CHILD";
/// Tensors the child writes: enough for its run to take a while, few enough for CI.
const TENSORS: usize = 1500;

/// Write a file of `tensors` tensors to `path` (what the child does).
fn write(path: &Path, tensors: usize, marker: u8) -> Result<(), WriteError> {
    let d = finalize(row_major(ElementType::Float32, &[64]))?;
    let data = [marker; 256];
    let mut w = FileWriter::create(path, &FileOptions::default())?;
    for i in 0..tensors {
        w.add_tensor(&format!("t{i:05}"), &d, &[&data])?;
    }
    w.commit(&[])
}

/// What is at `path`: nothing, or a complete file (checked whole) with its tensor count and
/// the marker byte of its data.
fn state(path: &Path) -> Option<(usize, u8)> {
    let bytes = std::fs::read(path).ok()?;
    let f = file::read(&bytes, &ReaderConfig::new())
        .unwrap_or_else(|e| panic!("{} holds a partial or broken file: {e}", path.display()));
    let first = f.tensor_at(0).expect("a checked tensor");
    Some((f.len(), first.data()[0]))
}

#[test]
fn child_writes_a_file() {
    // Only the child (run by the test below) writes; in a normal run this test does nothing.
    if let Some(path) = std::env::var_os(CHILD) {
        write(Path::new(&path), TENSORS, 2).expect("the child writes");
    }
}

fn spawn_child(path: &Path) -> std::process::Child {
    // The test's name in the test binary: its module's path without the crate's name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let test = format!("{module}::child_writes_a_file");
    Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", &test, "--test-threads", "1"])
        .env(CHILD, path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the child starts")
}

/// A small deterministic generator (xorshift), seeded from the clock and printed, so a
/// failing run can be replayed with `HURRAY_CRASH_SEED`.
fn rng() -> impl FnMut() -> u64 {
    let seed = std::env::var("HURRAY_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64 | 1)
        });
    eprintln!("HURRAY_CRASH_SEED={seed}");
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// The size of the temporary file a writer is writing in `dir` (0 when there is none yet).
fn partial_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .max()
        .unwrap_or(0)
}

#[test]
fn a_killed_writer_never_leaves_a_partial_file() {
    let dir = common::scratch("crash-safety");
    let path = dir.join("model.hrry");
    // The file already there: a complete older version (one tensor, marker 1).
    write(&path, 1, 1).unwrap();
    assert_eq!(state(&path), Some((1, 1)));
    // One uninterrupted run tells how large the file grows.
    let started = Instant::now();
    let status = spawn_child(&path).wait().unwrap();
    assert!(status.success());
    let whole = started.elapsed();
    assert_eq!(state(&path), Some((TENSORS, 2)));
    let size = std::fs::metadata(&path).unwrap().len();
    let mut next = rng();
    let (mut old, mut new) = (0, 0);
    for round in 0..16 {
        write(&path, 1, 1).unwrap();
        // Strays of earlier kills would confuse the size probe.
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.file_name().to_string_lossy().ends_with(".partial") {
                let _ = std::fs::remove_file(e.path());
            }
        }
        let mut child = spawn_child(&path);
        // Kill once the temporary file has grown to a random size (up to a little past the
        // end, which lands around the sync and the rename), or when the child is done.
        let target = next() % (size + size / 8);
        let deadline = Instant::now() + whole * 20;
        loop {
            if child.try_wait().unwrap().is_some() || Instant::now() > deadline {
                break;
            }
            if partial_size(&dir) >= target {
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let _ = child.kill();
        let _ = child.wait();
        match state(&path) {
            Some((1, 1)) => old += 1,
            Some((n, 2)) if n == TENSORS => new += 1,
            other => panic!("round {round}, killed at {target} bytes: {other:?} at the path"),
        }
    }
    eprintln!("{old} round(s) left the old file, {new} the new one (a write takes {whole:?})");
    // Whatever a kill left is a temporary file, never under the final name.
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            name == "model.hrry"
                || (name.starts_with(".model.hrry.") && name.ends_with(".partial")),
            "unexpected file {name}"
        );
    }
}

#[test]
fn a_writer_that_fails_or_is_dropped_leaves_nothing() {
    let dir = common::scratch("crash-safety-error");
    let path: PathBuf = dir.join("model.hrry");
    let d = finalize(row_major(ElementType::Float32, &[4])).unwrap();
    // An error midway (a duplicate name), then the writer dropped.
    let mut w = FileWriter::create(&path, &FileOptions::default()).unwrap();
    w.add_tensor("a", &d, &[&[0u8; 16]]).unwrap();
    assert!(w.add_tensor("a", &d, &[&[0u8; 16]]).is_err());
    drop(w);
    assert!(!path.exists());
    // The temporary file went with the writer.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // A committed write lands whole.
    let mut w = FileWriter::create(&path, &FileOptions::default()).unwrap();
    w.add_tensor("a", &d, &[&[0u8; 16]]).unwrap();
    w.commit(&[]).unwrap();
    assert_eq!(state(&path).map(|s| s.0), Some(1));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}
