//! Migration across a major (S5, `hurray migrate`): every golden and conformance vector read
//! by the released runtime (`hurray-runtime`, generated from `spec/` as released) and written
//! by the next descriptor major (`hurray-runtime-major2`, generated from the spec amended by
//! `tests/runtime-major2/edit.toml`: one device value dropped, everything else carried), then
//! read back by the new build with the values equal (the version fields aside, which the
//! migration moves), byte-identical across two runs; a dropped value refused with its code,
//! rule, byte offset and entry; the new build's CD4 rejection naming the command.

use std::path::PathBuf;

use hurray_runtime as released;
use hurray_runtime_major2 as next;
use next::axes::Axis;
use serde_json::Value as J;

use crate::common::{self, read, root, shared};

/// Every valid vector: the golden corpus (`tests/corpus/valid/`, its descriptors and files)
/// and the shared conformance vectors (descriptors and the file).
fn vectors() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        root().join("tests/corpus/valid"),
        shared().join("conformance/descriptors"),
        shared().join("conformance/files"),
    ] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "bin" || x == "hrry"))
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

/// The migration the next build defines, and its target major.
fn target() -> (&'static str, u16) {
    let axis = Axis::Descriptor;
    (axis.name(), u16::from(axis.current().major))
}

/// Read with the released build, write with the next; `None` for a vector the released
/// build reads only under an out-of-band agreement (a private value), which `hurray
/// migrate` does not take.
fn migrate(bytes: &[u8]) -> Option<Result<Vec<u8>, next::migrate::MigrateError>> {
    let export = released::migrate::export(bytes, &released::ReaderConfig::new()).ok()?;
    let (axis, to) = target();
    Some(next::migrate::import(&export, bytes, axis, to))
}

/// A value tree without the fields that carry the migrated axis's version (the migration
/// moves them) nor the located offsets (descriptors move when a file is written again).
fn comparable(mut x: J) -> J {
    let (major, minor) = Axis::Descriptor.version_fields();
    fn strip(x: &mut J, keys: &[&str]) {
        match x {
            J::Object(o) => {
                for k in keys {
                    o.remove(*k);
                }
                o.values_mut().for_each(|v| strip(v, keys));
            }
            J::Array(a) => a.iter_mut().for_each(|v| strip(v, keys)),
            _ => {}
        }
    }
    let mut keys = vec![minor, "located", "majors", "buffers"];
    keys.extend(major);
    strip(&mut x, &keys);
    x
}

/// The data of every buffer of every tensor (a file's) or nothing (a descriptor's).
fn buffers(x: &J, bytes: &[u8]) -> Vec<Vec<u8>> {
    x["tensors"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .flat_map(|t| t["buffers"].as_array().cloned().unwrap_or_default())
        .map(|b| {
            let (o, n) = (
                b[0].as_u64().unwrap() as usize,
                b[1].as_u64().unwrap() as usize,
            );
            bytes[o..o + n].to_vec()
        })
        .collect()
}

#[test]
fn every_vector_migrates_to_the_next_major_and_reads_back_equal() {
    let mut migrated = 0;
    let mut agreed = 0;
    let mut refused = Vec::new();
    for path in vectors() {
        let bytes = read(&path);
        let name = path.display();
        let Some(result) = migrate(&bytes) else {
            agreed += 1;
            continue;
        };
        match result {
            Ok(out) => {
                let again = migrate(&bytes).expect("read").expect("a second run");
                assert_eq!(out, again, "{name}: two runs differ");
                // The new build reads it back (strictly), at its major.
                let back =
                    next::migrate::export(&out, &next::ReaderConfig::new()).unwrap_or_else(|e| {
                        panic!("{name}: the next build rejects the migration: {e}")
                    });
                let before = released::migrate::export(&bytes, &released::ReaderConfig::new())
                    .expect("read");
                assert_eq!(
                    comparable(back.clone()),
                    comparable(before.clone()),
                    "{name}: the values changed"
                );
                assert_eq!(
                    buffers(&back, &out),
                    buffers(&before, &bytes),
                    "{name}: data"
                );
                // And the released build does not, when it holds a descriptor: that is of
                // the newer major (CD3).
                let descriptors = before["kind"] == released::inspect::Input::Descriptor.word()
                    || before["tensors"].as_array().is_some_and(|t| !t.is_empty());
                assert!(
                    !descriptors
                        || released::migrate::export(&out, &released::ReaderConfig::new()).is_err(),
                    "{name}: the released build reads the next major"
                );
                migrated += 1;
            }
            Err(e) => refused.push((path.clone(), e)),
        }
    }
    // Only values the migration drops are refused.
    for (path, e) in &refused {
        assert_eq!(e.code(), "migration-drops-value", "{}: {e}", path.display());
    }
    assert!(migrated >= 150, "only {migrated} vectors migrated");
    assert!(
        agreed <= 10,
        "{agreed} vectors need an agreement to be read"
    );
    assert!(
        !refused.is_empty(),
        "no vector holds the value the migration drops"
    );
}

#[test]
fn a_dropped_value_is_refused_with_its_offset_and_entry() {
    let (axis, _) = target();
    let m = next::generated::migrations::find(
        axis,
        u16::from(released::axes::Axis::Descriptor.current().major),
    )
    .expect("the next build defines the migration");
    let dropped: Vec<_> = m.tags.iter().filter(|t| t.to.is_none()).collect();
    assert!(!dropped.is_empty(), "the fixture drops a tag value");
    let mut seen = 0;
    for path in vectors() {
        let bytes = read(&path);
        let Some(Err(e)) = migrate(&bytes) else {
            continue;
        };
        seen += 1;
        let text = e.to_string();
        assert_eq!(e.code(), "migration-drops-value", "{text}");
        assert_eq!(e.rule(), released::rules::Rule::S5.id(), "{text}");
        assert!(text.contains(m.file), "{text}: names the specification");
        // The byte at the offset holds the dropped value.
        let at = e.offset().expect("an offset") as usize;
        assert!(
            dropped
                .iter()
                .any(|t| u32::from(bytes[at]) == t.item.1 && text.contains(t.item.0)),
            "{}: byte {at} is {:#04x}: {text}",
            path.display(),
            bytes[at]
        );
    }
    assert!(seen > 0, "no vector holds a dropped value");
}

#[test]
fn the_next_major_names_the_migration_command_for_old_data() {
    let (axis, to) = target();
    let bytes = read(&shared().join("conformance/descriptors/row_major_f32_3x4.bin"));
    let e = match next::descriptor::read(&bytes, &next::ReaderConfig::new()) {
        Err(e) => e,
        Ok(_) => panic!("the next major reads data of the old one"),
    };
    let m = next::generated::migrations::find(
        axis,
        u16::from(released::axes::Axis::Descriptor.current().major),
    )
    .expect("defined");
    let command = format!("hurray migrate --to {axis}={to}.0");
    assert!(e.detail().contains(&command), "{e}");
    assert!(e.detail().contains(m.file), "{e}");
    // The released build defines no migration onto its own major: it says so.
    assert!(released::generated::migrations::ALL.is_empty());
}

#[test]
fn the_released_binary_refuses_a_migration_it_does_not_define() {
    let (axis, to) = target();
    let dir = common::scratch("migrate_cli_undefined");
    let out = dir.join("out.bin");
    let input = shared().join("conformance/descriptors/row_major_f32_3x4.bin");
    let o = common::hurray(&[
        "migrate",
        "--to",
        &format!("{axis}={to}.0"),
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("error[migration-undefined]"),
        "{}",
        common::stderr(&o)
    );
    assert!(!out.exists());
}

/// Every TOML file of a spec tree as `hurray-spec-tables` embeds it: (path relative to the
/// tree with `/` separators, text).
fn embedded(tree: &std::path::Path) -> Vec<(String, String)> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, tree, &mut out);
    out.sort();
    out
}

/// The runtime code `hurray_codegen` generates from an embedded tree.
fn code(root: &std::path::Path, files: &[(&str, &str)]) -> String {
    let loaded = hurray_codegen::load_files(root, files);
    hurray_codegen::build::runtime_code(&loaded).expect("the tree loads cleanly")
}

/// The `hurray` binary's reader is `hurray-runtime-released`. In this tree no major is
/// pending: it is the current runtime, re-exported, and the CLI's path (export by the
/// released build, import by the current one) defines no migration.
#[test]
fn without_a_pending_major_the_released_runtime_is_the_current_one() {
    let root = root().join("spec");
    let files = embedded(&root);
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let which = hurray_codegen::build::released(&root, &files);
    assert_eq!(
        hurray_runtime_released::FROM_ARCHIVE,
        matches!(which, Some(hurray_codegen::build::Released::Archive { .. })),
        "the crate was built as the build script decides"
    );
    assert_eq!(which, Some(hurray_codegen::build::Released::Current));
    let bytes = read(&shared().join("conformance/descriptors/row_major_f32_3x4.bin"));
    let export = hurray_runtime_released::migrate::export(
        &bytes,
        &hurray_runtime_released::ReaderConfig::new(),
    )
    .unwrap();
    let (axis, to) = target();
    let e = released::migrate::import(&export, &bytes, axis, to).unwrap_err();
    assert_eq!(e.code(), "migration-undefined");
}

/// In a tree whose descriptor major is pending (the overlay of `tests/runtime-major2`, as
/// the evolution playbook's scenario 4 makes it), the CLI's released runtime is generated
/// from the archive of the last release, and that archive generates exactly the runtime of
/// the spec as released today: `hurray-runtime`, which the tests above pair with the next
/// major's build. So the CLI built in such a tree reads with the released runtime and
/// writes with the new one, as those tests do.
#[test]
fn with_a_pending_major_the_released_runtime_comes_from_the_last_release_archive() {
    let work = common::scratch("migrate_released_archive");
    let m = hurray_codegen::overlay::materialize(
        &root().join("spec"),
        &root().join("tests/runtime-major2/edit.toml"),
        &work,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let files = embedded(&m.tree);
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let Some(hurray_codegen::build::Released::Archive { sequence, pending }) =
        hurray_codegen::build::released(&m.tree, &files)
    else {
        panic!("the amended tree has a pending descriptor major");
    };
    let descriptor = Axis::Descriptor.name();
    assert!(
        pending
            .iter()
            .any(|(a, from, to)| a == descriptor && to - from == 1),
        "{pending:?}"
    );
    let archived = hurray_codegen::amend::archive::embedded(&files, sequence);
    assert!(!archived.is_empty(), "release {sequence} has an archive");
    let archive_dir = hurray_codegen::amend::archive::dir(&m.tree, sequence);
    let today = embedded(&root().join("spec"));
    let today: Vec<(&str, &str)> = today
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    assert_eq!(
        code(&archive_dir, &archived),
        code(&root().join("spec"), &today),
        "the archive generates the released runtime"
    );
    // The amended tree, archive and all, checks clean.
    let checked = hurray_codegen::check(&m.tree, None).unwrap();
    assert!(!checked.diags.has_errors(), "{:?}", checked.diags.items());
}

/// `hurray-spec release` archives the tables it releases beside the record, and `check`
/// accepts the pair; an edit of the archive is `release-archive-edited` at the file.
#[test]
fn release_archives_its_tables_and_check_verifies_them() {
    let work = common::scratch("migrate_release_archive");
    let m = hurray_codegen::overlay::materialize(
        &root().join("spec"),
        &root().join("tests/fixtures/amendments/new-device-tag/edit.toml"),
        &work,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let spec = m.tree.to_str().unwrap();
    let o = common::hurray_spec(&["release", "--spec", spec]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let hist = hurray_codegen::amend::history::load(
        &m.tree,
        &mut Default::default(),
        &mut Default::default(),
    );
    let sequence = hist.latest().unwrap().release.sequence;
    let archive = hurray_codegen::amend::archive::dir(&m.tree, sequence);
    for (relative, path) in hurray_codegen::amend::archive::tables(&m.tree).unwrap() {
        assert_eq!(
            std::fs::read(archive.join(&relative)).unwrap(),
            std::fs::read(path).unwrap(),
            "{relative}"
        );
    }
    let o = common::hurray_spec(&["check", "--spec", spec]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    // An archived value renamed.
    let layout = archive.join("tags/layout.toml");
    let text = std::fs::read_to_string(&layout).unwrap();
    std::fs::write(
        &layout,
        text.replacen("\"row_major\"", "\"row_major_edited\"", 1),
    )
    .unwrap();
    let o = common::hurray_spec(&["check", "--spec", spec]);
    assert_eq!(o.status.code(), Some(1));
    let err = common::stderr(&o) + &common::stdout(&o);
    assert!(err.contains("release-archive-edited"), "{err}");
    assert!(err.contains("tags/layout.toml"), "{err}");
}
