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
