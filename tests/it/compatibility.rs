//! The compatibility matrix, run. The `compatibility-matrix` amendment adds one change of
//! every kind the spec allows on every axis (a flag-gated section, appended trailing fields,
//! new tag values, a new scheme), one minor past spec/ as released; `hurray-runtime-matrix` is
//! generated from the amended spec. `hurray_codegen::compat` computes, from the same amended
//! spec, the verdict of every (item, reader version, data version, mode) cell. Here every
//! cell's data is written by the newer build and read by it acting at the cell's reader
//! version; the cells whose reader is the version of the released build (`hurray-runtime`,
//! generated from spec/) are read again by that build, so the two builds are shown to
//! interoperate, not just one build's emulation of the other.
//!
//! The matrix also holds what spec/'s own amendments added since each axis's initial version:
//! a new element type is built like the overlay's; for any other kind this test has no
//! builder, and it says which cells it did not run.

use crate::common::{fixtures, root, scratch};
use hurray_codegen::compat::{self, Change, Item, Mode, Verdict};
use hurray_codegen::model::{Spec, Version as SpecVersion};

use hurray_runtime as old;
use hurray_runtime_matrix as new;

const FIXTURE: &str = "tests/fixtures/amendments/compatibility-matrix";

fn amended_spec() -> &'static Spec {
    static SPEC: std::sync::OnceLock<Spec> = std::sync::OnceLock::new();
    SPEC.get_or_init(load_amended)
}

fn load_amended() -> Spec {
    let work = scratch("compatibility-matrix");
    let dir = fixtures::materialize(&root().join(FIXTURE), &work).tree;
    let loaded = hurray_codegen::load(&dir).expect("the amended spec loads");
    assert!(
        loaded.clean().is_some(),
        "the amended spec has errors:\n{}",
        hurray_codegen::diag::render(
            &loaded.sources,
            loaded.diags.items(),
            hurray_codegen::diag::Format::Human
        )
    );
    loaded.spec.expect("a clean load has a model")
}

/// What a reader does with a cell's data, in the terms of the matrix. The data of a version
/// carries every field appended up to that version (W4), so a reader older than the data skips
/// all of those its version does not define, not only the cell's own (CD2).
fn expected_cell(spec: &Spec, m: &compat::Matrix, c: &compat::Cell) -> Seen {
    let want = expected(spec, &c.verdict);
    let Change::AppendedField { structure, .. } = &m.items[c.item].change else {
        return want;
    };
    let skipped: u64 = m
        .items
        .iter()
        .filter_map(|i| match &i.change {
            Change::AppendedField {
                structure: s,
                bytes,
                ..
            } if s == structure && c.reader < i.since && i.since <= c.data => Some(*bytes),
            _ => None,
        })
        .sum();
    match want {
        Seen::Accept | Seen::Skips(_) if skipped > 0 => Seen::Skips(skipped),
        other => other,
    }
}

/// What a reader did about the cell's own item: for an item other than an appended field, the
/// bytes skipped of fields appended by other items are not its business.
fn about_item(item: &Item, seen: Seen) -> Seen {
    match (&item.change, seen) {
        (Change::AppendedField { .. }, seen) => seen,
        (_, Seen::Skips(_)) => Seen::Accept,
        (_, seen) => seen,
    }
}

/// What a reader did, in the terms of the matrix.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Accept,
    Defaults(String),
    Skips(u64),
    Opaque(String),
    Reject(String),
}

fn expected(spec: &Spec, v: &Verdict) -> Seen {
    match v {
        Verdict::Accept => Seen::Accept,
        Verdict::Defaults { field } => Seen::Defaults(field.clone()),
        Verdict::Skips { bytes } => Seen::Skips(*bytes),
        Verdict::Opaque { rule } => Seen::Opaque(spec.rule(*rule).id.clone()),
        Verdict::Reject { rule } => Seen::Reject(spec.rule(*rule).id.clone()),
    }
}

/// Bytes a reader's version does not define, anywhere in a decoded tree.
macro_rules! skipped_bytes {
    ($rt:ident, $v:expr) => {{
        fn walk(v: &$rt::Value) -> u64 {
            match v {
                $rt::Value::Skipped(b) => b.len() as u64,
                $rt::Value::Object(fs) => fs.iter().map(|(_, x)| walk(x)).sum(),
                $rt::Value::Array(xs) => xs.iter().map(walk).sum(),
                _ => 0,
            }
        }
        walk($v)
    }};
}

/// The value of the first field named `name`, anywhere in a decoded tree.
macro_rules! find_field {
    ($rt:ident, $v:expr, $name:expr) => {{
        fn walk<'v>(v: &'v $rt::Value, name: &str) -> Option<&'v $rt::Value> {
            match v {
                $rt::Value::Object(fs) => fs
                    .iter()
                    .find_map(|(k, x)| if k == name { Some(x) } else { walk(x, name) }),
                $rt::Value::Array(xs) => xs.iter().find_map(|x| walk(x, name)),
                _ => None,
            }
        }
        walk($v, $name)
    }};
}

/// Read `bytes` (a descriptor, or a file when `file`) with `config` and say what happened;
/// `field` is the appended field the cell is about, when it is one the reader knows.
macro_rules! observe {
    ($rt:ident, $bytes:expr, $file:expr, $config:expr, $field:expr) => {{
        let config: &$rt::ReaderConfig = $config;
        let decoded: Result<($rt::Value, bool, Vec<String>), $rt::Error> = if $file {
            $rt::file::read($bytes, config).and_then(|f| {
                let deref = f.tensors().all(|t| t.is_ok_and(|t| t.dereferenceable()));
                let mut warnings: Vec<String> = f
                    .warnings()
                    .iter()
                    .map(|w| w.rule.id().to_string())
                    .collect();
                for t in f.tensors() {
                    warnings.extend(t?.warnings().iter().map(|w| w.rule.id().to_string()));
                }
                Ok(($rt::contract::file_value(&f)?, deref, warnings))
            })
        } else {
            $rt::descriptor::read($bytes, config).map(|c| {
                (
                    $rt::contract::descriptor_value(&c.view().owned()),
                    c.dereferenceable(),
                    c.warnings()
                        .iter()
                        .map(|w| w.rule.id().to_string())
                        .collect(),
                )
            })
        };
        match decoded {
            Err(e) => Seen::Reject(e.id().to_string()),
            Ok((value, dereferenceable, warnings)) => {
                let field: Option<&str> = $field;
                if !dereferenceable {
                    Seen::Opaque(warnings.first().cloned().unwrap_or_default())
                } else if skipped_bytes!($rt, &value) > 0 {
                    Seen::Skips(skipped_bytes!($rt, &value))
                } else if let Some(name) = field
                    && matches!(
                        find_field!($rt, &value, name),
                        Some($rt::Value::Defaulted(_))
                    )
                {
                    Seen::Defaults(name.to_string())
                } else {
                    Seen::Accept
                }
            }
        }
    }};
}

// ---------------------------------------------------------------------------------------
// The newer build writes the data of every cell.

fn nv(v: SpecVersion) -> new::Version {
    new::Version::new(v.major, v.minor)
}

/// A descriptor at an exact descriptor version (the matrix's data version, not the lowest
/// covering one the writer's `finalize` would choose).
fn seal(mut d: new::structures::Descriptor, v: new::Version) -> Vec<u8> {
    d.sync_presence_flags();
    d.fill_defaults(new::axes::Axis::Descriptor, v);
    d.fixed_header.rank = d.shape.len() as u32;
    d.fixed_header.version_major = v.major;
    d.fixed_header.version_minor = v.minor;
    d.fixed_header.descriptor_length = 0;
    d.fixed_header.descriptor_length = d.to_bytes().len() as u32;
    d.to_bytes()
}

fn dense(t: new::tags::ElementType, shape: &[u64]) -> new::structures::Descriptor {
    new::writer::row_major(t, shape)
}

fn quantized(
    t: new::tags::ElementType,
    shape: &[u64],
    payload: new::structures::SchemeVariant,
    scale_bytes: u64,
) -> new::structures::Descriptor {
    let mut d = dense(t, shape);
    let b0 = d.buffer_table.buffers[0].clone();
    let mut scale = b0.clone();
    scale.byte_size = scale_bytes;
    d.buffer_table.buffers.push(scale);
    d.quantization = Some(new::structures::QuantizationSection::new(payload));
    d
}

fn qheader(s: new::tags::Scheme, version: u8) -> new::structures::QuantizationHeader {
    new::structures::QuantizationHeader::new(new::wire::TagValue::new(s), version, 0)
}

/// A one-tensor file at container version `v`, with `kv` and the index's appended field.
fn file(v: new::Version, kv: Vec<new::structures::KvEntry>, generation: Option<u64>) -> Vec<u8> {
    let d = new::writer::finalize(dense(new::tags::ElementType::Float32, &[4])).unwrap();
    let options = new::writer::FileOptions {
        container_version: v,
        kv: !kv.is_empty(),
        ..Default::default()
    };
    let mut w = new::writer::FileWriter::new(Vec::new(), &options).unwrap();
    w.add_tensor("t", &d, &[&[0u8; 16]]).unwrap();
    w.index_section().x_index_generation = generation;
    w.finish(&kv).unwrap()
}

/// The data of one cell: bytes, and whether they are a file; `None` for an item this test has
/// no builder for (one of spec/'s own amendments other than a new element type).
fn build(spec: &Spec, item: &Item, data: new::Version) -> Option<(Vec<u8>, bool)> {
    use new::structures::*;
    use new::tags::{ElementType, KvValue, Scheme};
    use new::wire::TagSpace as _;
    let carries = data >= nv(item.since);
    let d10 = new::Version::new(1, 0);
    Some(match item.name.as_str() {
        "descriptor_flags.X_HAS_CHECKSUM" => {
            let mut d = dense(ElementType::Float32, &[4]);
            if carries {
                d.x_checksum = Some(XChecksum::new(0x1234_5678));
            }
            (seal(d, data), false)
        }
        "descriptor.x_producer_id" => {
            let mut d = dense(ElementType::Float32, &[4]);
            if carries {
                d.x_producer_id = Some(7);
            }
            (seal(d, data), false)
        }
        "element_type.x_float8_e3m4" => {
            let t = if carries {
                ElementType::XFloat8E3m4
            } else {
                ElementType::Float8E4m3
            };
            (seal(dense(t, &[4]), data), false)
        }
        "scheme.x_fp8_block" => {
            let d = if carries {
                // The amendment declares no parameter buffers for the new scheme.
                let p =
                    SchemeVariant::XFp8Block(XFp8Block::new(qheader(Scheme::XFp8Block, 1), 4, 0));
                let mut d = dense(ElementType::Float8E4m3, &[4]);
                d.quantization = Some(QuantizationSection::new(p));
                d
            } else {
                let p = SchemeVariant::Mxfp(Mxfp::new(qheader(Scheme::Mxfp, 1), 0, 32, 1));
                quantized(ElementType::Float8E4m3, &[32], p, 1)
            };
            (seal(d, data), false)
        }
        "mxfp.x_bias_correction" => {
            let mut m = Mxfp::new(qheader(Scheme::Mxfp, data.minor), 1, 32, 1);
            if carries {
                m.x_bias_correction = Some(0.5);
            }
            let mut d = quantized(ElementType::Int8, &[1, 32], SchemeVariant::Mxfp(m), 1);
            // Fields spec/ itself appended to the payload since take their defaults (W4).
            d.fill_defaults(new::axes::Axis::SchemeMxfp, data);
            (seal(d, d10), false)
        }
        "kv_value.x_float32" => {
            let e = if carries {
                KvEntry::new(
                    "k".into(),
                    new::wire::TagValue::new(KvValue::XFloat32),
                    KvValueVariant::XFloat32(KvXFloat32::new(1.5)),
                )
            } else {
                KvEntry::new(
                    "k".into(),
                    new::wire::TagValue::new(KvValue::Float64),
                    KvValueVariant::Float64(KvFloat64::new(1.5)),
                )
            };
            (file(data, vec![e], None), true)
        }
        "index_section.x_index_generation" => (file(data, Vec::new(), carries.then_some(3)), true),
        // spec/'s own amendments: a new element type, built like the overlay's.
        _ => match &item.change {
            Change::TagValue { space, value } if spec.space(*space).name == ElementType::NAME => {
                let t = if carries {
                    ElementType::ALL
                        .iter()
                        .copied()
                        .find(|t| t.value() == *value)
                        .expect("the runtime has every element type of the spec")
                } else {
                    ElementType::Float32
                };
                (seal(dense(t, &[4]), data), false)
            }
            _ => return None,
        },
    })
}

fn new_config(axis: &str, reader: SpecVersion, mode: Mode) -> new::ReaderConfig {
    let a = new::axes::Axis::from_name(axis).expect("the matrix's axes are the runtime's");
    new::ReaderConfig::new()
        .with_version(a, nv(reader))
        .expect("a version of the axis")
        .permissive(mode == Mode::Permissive)
}

fn known_field(spec: &Spec, item: &Item, reader: SpecVersion) -> Option<String> {
    match &item.change {
        Change::AppendedField {
            structure, field, ..
        } if reader >= item.since => Some(spec.structure(*structure).fields[*field].name.clone()),
        _ => None,
    }
}

#[test]
fn every_cell_of_the_generated_matrix_reads_as_the_spec_says() {
    let spec = amended_spec();
    let m = compat::matrix(spec);
    let mut failures = Vec::new();
    let mut not_run = std::collections::BTreeSet::new();
    for c in &m.cells {
        let item = &m.items[c.item];
        let axis = &spec.axis(item.axis).name;
        let Some((bytes, is_file)) = build(spec, item, nv(c.data)) else {
            not_run.insert(item.name.as_str());
            continue;
        };
        let want = expected_cell(spec, &m, c);
        let field = known_field(spec, item, c.reader);
        let got = about_item(
            item,
            observe!(
                new,
                &bytes,
                is_file,
                &new_config(axis, c.reader, c.mode),
                field.as_deref()
            ),
        );
        if got != want {
            failures.push(format!(
                "{} ({}), reader {axis}={}, data {}, {:?}: expected {want:?}, got {got:?}",
                item.name,
                item.change.kind(spec),
                spec.axis(item.axis).show(c.reader),
                spec.axis(item.axis).show(c.data),
                c.mode
            ));
        }
    }
    if !not_run.is_empty() {
        eprintln!(
            "cells not run (spec/'s own amendments of a kind this test cannot build data for): {}",
            not_run.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} cells differ:\n{}",
        failures.len(),
        m.cells.len(),
        failures.join("\n")
    );
}

/// The version of the released build (`hurray-runtime`, generated from spec/) on an axis, if
/// that build has the axis.
fn released_version(axis: &str) -> Option<SpecVersion> {
    let v = old::axes::Axis::from_name(axis)?.current();
    Some(SpecVersion::new(v.major, v.minor))
}

#[test]
fn the_released_build_reads_the_newer_builds_data_as_the_matrix_says() {
    let spec = amended_spec();
    let m = compat::matrix(spec);
    let mut failures = Vec::new();
    let mut run = 0;
    for c in m
        .cells
        .iter()
        .filter(|c| Some(c.reader) == released_version(&spec.axis(m.items[c.item].axis).name))
    {
        let item = &m.items[c.item];
        let Some((bytes, is_file)) = build(spec, item, nv(c.data)) else {
            continue;
        };
        let config = old::ReaderConfig::new().permissive(c.mode == Mode::Permissive);
        let got = about_item(item, observe!(old, &bytes, is_file, &config, None));
        let want = expected_cell(spec, &m, c);
        run += 1;
        if got != want {
            failures.push(format!(
                "{}, data {}, {:?}: the released build gives {got:?}, the matrix says {want:?}",
                item.name,
                spec.axis(item.axis).show(c.data),
                c.mode
            ));
        }
    }
    assert!(run > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_matrix_covers_every_kind_of_change_on_every_axis_the_amendment_touches() {
    let spec = amended_spec();
    let m = compat::matrix(spec);
    let kinds: std::collections::BTreeSet<&str> =
        m.items.iter().map(|i| i.change.kind(spec)).collect();
    for k in [
        "new flag-gated section",
        "appended trailing field",
        "new tag value",
        "new scheme",
    ] {
        assert!(kinds.contains(k), "no `{k}` in the matrix: {kinds:?}");
    }
    let axes: std::collections::BTreeSet<&str> = m
        .items
        .iter()
        .map(|i| spec.axis(i.axis).name.as_str())
        .collect();
    for a in ["descriptor", "container", "scheme.mxfp"] {
        assert!(axes.contains(a), "no item on axis `{a}`: {axes:?}");
    }
    // Every verdict appears: the matrix is not trivially all-accept.
    let verdicts: std::collections::BTreeSet<&str> = m
        .cells
        .iter()
        .map(|c| match c.verdict {
            Verdict::Accept => "accept",
            Verdict::Defaults { .. } => "defaults",
            Verdict::Skips { .. } => "skips",
            Verdict::Opaque { .. } => "opaque",
            Verdict::Reject { .. } => "reject",
        })
        .collect();
    assert_eq!(verdicts.len(), 5, "{verdicts:?}");
}

#[test]
fn another_major_is_rejected_on_every_axis_that_has_one() {
    let spec = amended_spec();
    let m = compat::matrix(spec);
    assert!(!m.majors.is_empty());
    for c in &m.majors {
        let axis = spec.axis(c.axis);
        let want = expected(spec, &c.verdict);
        let mut got = Vec::new();
        match axis.name.as_str() {
            "descriptor" => {
                let mut d = dense(new::tags::ElementType::Float32, &[4]);
                d.fixed_header.version_minor = 0;
                let b = seal(d, nv(c.data));
                got.push(observe!(new, &b, false, &new::ReaderConfig::new(), None));
                got.push(observe!(old, &b, false, &old::ReaderConfig::new(), None));
            }
            "container" => {
                let mut b = file(new::Version::new(1, 0), Vec::new(), None);
                b[8] = c.data.major;
                b[9] = c.data.minor;
                got.push(observe!(new, &b, true, &new::ReaderConfig::new(), None));
                got.push(observe!(old, &b, true, &old::ReaderConfig::new(), None));
            }
            other => panic!("no builder for a major change on axis `{other}`"),
        }
        for g in got {
            assert_eq!(g, want, "axis {}, data {}", axis.name, axis.show(c.data));
        }
    }
}

/// VER-10 and RES-7: data that uses what its own declared version does not define.
#[test]
fn data_that_understates_its_version_is_rejected() {
    use new::tags::ElementType;
    let strict = new::ReaderConfig::new();
    // The version below the amendment's: the released build's.
    let released = released_version("descriptor").expect("the released build has the axis");
    let below = nv(released);
    // An element type of the amendment in data declaring the version before it.
    let b = seal(dense(ElementType::XFloat8E3m4, &[4]), below);
    assert_eq!(
        observe!(new, &b, false, &strict, None),
        Seen::Reject("VER-10".into())
    );
    // A flag bit of the amendment (and its section) in data declaring the version before it.
    let mut d = dense(ElementType::Float32, &[4]);
    d.x_checksum = Some(new::structures::XChecksum::new(1));
    let b = seal(d, below);
    assert_eq!(
        observe!(new, &b, false, &strict, None),
        Seen::Reject("VER-10".into())
    );
    // A trailing field of the amendment in data declaring the version before it: at a version
    // the reader knows, the length must match exactly (RES-7).
    let mut d = dense(ElementType::Float32, &[4]);
    d.x_producer_id = Some(7);
    let b = seal(d, below);
    assert_eq!(
        observe!(new, &b, false, &strict, None),
        Seen::Reject("LEN-1".into())
    );
}

/// The generated page of the amended spec (what `docs/spec/compatibility.md` becomes after
/// such an amendment) has one row per (item, reader, data) with both modes' verdicts.
#[test]
fn the_matrix_page_of_the_amended_spec_has_a_row_for_every_cell() {
    let spec = amended_spec();
    let m = compat::matrix(spec);
    let page = hurray_codegen::emit::markdown::compatibility(spec);
    for (i, item) in m.items.iter().enumerate() {
        let cells = m.cells.iter().filter(|c| c.item == i).count();
        let row = format!(
            "| `{}` | {} | `{}` |",
            item.name,
            item.change.kind(spec),
            spec.axis(item.axis).name
        );
        let rows = page.lines().filter(|l| l.starts_with(&row)).count();
        assert_eq!(rows * 2, cells, "rows of `{}` in:\n{page}", item.name);
    }
    for a in &spec.axes {
        assert!(
            page.contains(&format!("| `{}` |", a.name)),
            "no row for axis `{}`",
            a.name
        );
    }
}
