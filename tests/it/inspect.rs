//! `inspect` labels every byte: over every vector of the corpus (valid and rejecting) and the
//! shared conformance vectors, the annotations the generated walkers report cover the input
//! exactly once, in order; a rejected input is marked at the range holding the byte the
//! reader's rejection names — the rejection `hurray decode` reports, as the manifest records
//! it — and nothing after that range is interpreted; every patched field of a rejecting
//! vector is labelled with the spec path the vector's row names.

use std::path::Path;

use crate::common::{self, access, root, shared};
use hurray_runtime::ReaderConfig;
use hurray_runtime::inspect::{self, Annotation, Collect, Kind, Shown};
use serde_json::Value as J;

/// One vector: its name, bytes, the reader configuration it is read with, and the
/// rejection the manifest records for it (code, offset).
struct Vector {
    name: String,
    /// True for a file container (by the corpus's file extension), false for a descriptor.
    file: bool,
    bytes: Vec<u8>,
    config: ReaderConfig,
    rejected: Option<(String, u64)>,
    patched: Vec<(String, u64)>,
}

fn manifest(dir: &Path) -> serde_json::Map<String, J> {
    let m: J = serde_json::from_slice(&common::read(&dir.join("manifest.json"))).unwrap();
    m.as_object().unwrap().clone()
}

fn valid() -> Vec<Vector> {
    let dir = root().join("tests/corpus/valid");
    let mut out = Vec::new();
    for (name, m) in manifest(&dir) {
        let mut config = ReaderConfig::new().permissive(m["permissive"].as_bool().unwrap());
        for a in m["agree"].as_array().unwrap() {
            config = access::agree_by_name(
                config,
                a[0].as_str().unwrap(),
                a[1].as_u64().unwrap() as u32,
            );
        }
        for id in m["agree_extension_layouts"].as_array().unwrap() {
            config = config.agree_extension_layout(id.as_u64().unwrap());
        }
        let ext = if m["kind"] == "descriptor" {
            "bin"
        } else {
            "hrry"
        };
        out.push(Vector {
            bytes: common::read(&dir.join(format!("{name}.{ext}"))),
            name: format!("valid/{name}.{ext}"),
            file: ext == "hrry",
            config,
            rejected: None,
            patched: Vec::new(),
        });
    }
    out
}

fn rejecting() -> Vec<Vector> {
    let dir = root().join("tests/corpus/reject");
    let mut out = Vec::new();
    for (file, m) in manifest(&dir) {
        let c = &m["config"];
        let mut config = ReaderConfig::new().network(c["network"].as_bool().unwrap_or(false));
        for a in c["agree"].as_array().into_iter().flatten() {
            config = access::agree_by_name(
                config,
                a["space"].as_str().unwrap(),
                a["value"].as_u64().unwrap() as u32,
            );
        }
        for id in c["agree_extension_layouts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            config = config.agree_extension_layout(id.as_u64().unwrap());
        }
        let patched = m["patched"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                (
                    p["path"].as_str().unwrap().to_string(),
                    p["offset"].as_u64().unwrap(),
                )
            })
            .collect();
        out.push(Vector {
            bytes: common::read(&dir.join(&file)),
            name: format!("reject/{file}"),
            file: file.ends_with(".hrry"),
            config,
            rejected: Some((
                m["code"].as_str().unwrap().to_string(),
                m["offset"].as_u64().unwrap(),
            )),
            patched,
        });
    }
    out
}

fn conformance() -> Vec<Vector> {
    let dir = shared().join("conformance");
    let m: J = serde_json::from_slice(&common::read(&dir.join("manifest.json"))).unwrap();
    let mut out = Vec::new();
    for list in ["descriptors", "files"] {
        for v in m[list].as_array().into_iter().flatten() {
            let file = v["file"].as_str().unwrap();
            out.push(Vector {
                bytes: common::read(&dir.join(file)),
                name: format!("conformance/{file}"),
                file: list == "files",
                config: ReaderConfig::new(),
                rejected: None,
                patched: Vec::new(),
            });
        }
    }
    assert!(!out.is_empty(), "the shared conformance vectors are read");
    out
}

fn leaves(a: &[Annotation]) -> impl Iterator<Item = &Annotation> {
    a.iter().filter(|a| a.kind.is_leaf())
}

/// The coverage and marking checks of one vector; the first problem found, if any.
fn check(v: &Vector) -> Result<(), String> {
    let mut sink = Collect::default();
    // The kind comes from the vector's row, as the corpus tests read it (a file whose magic
    // is broken is still a file).
    let report = if v.file {
        inspect::file(&v.bytes, &v.config, &mut sink)
    } else {
        inspect::descriptor(&v.bytes, &v.config, &mut sink)
    };
    let annotations = sink.annotations;
    let len = v.bytes.len() as u64;
    // Every byte in exactly one range: non-empty leaves, in order, each where the last ended.
    let mut at = 0u64;
    for a in leaves(&annotations).filter(|a| a.end > a.start) {
        if a.start != at {
            return Err(format!(
                "`{}` covers {}..{} but the ranges before end at {at}",
                a.path, a.start, a.end
            ));
        }
        at = a.end;
    }
    if at != len {
        return Err(format!("the ranges end at {at}; the input has {len} bytes"));
    }
    // Structures enclose their fields.
    for a in annotations.iter().filter(|a| a.kind == Kind::Structure) {
        if a.end < a.start {
            return Err(format!("structure `{}` ends before it starts", a.path));
        }
    }
    let failing: Vec<&Annotation> = leaves(&annotations).filter(|a| a.failing).collect();
    match (&v.rejected, &report.error) {
        (None, None) => {
            if !failing.is_empty() {
                return Err("an accepted input has a failing range".into());
            }
            // Nothing in an accepted input is left unexplained.
            for a in leaves(&annotations) {
                let allowed = match a.kind {
                    Kind::Field | Kind::Data { .. } => true,
                    Kind::Padding => a.note.is_none(),
                    Kind::Opaque => v.config.is_permissive(),
                    _ => false,
                };
                if !allowed {
                    return Err(format!(
                        "an accepted input has a {} range `{}` at {}..{} ({:?})",
                        a.kind.word(),
                        a.path,
                        a.start,
                        a.end,
                        a.note
                    ));
                }
            }
        }
        (Some((code, offset)), Some(e)) => {
            if (e.code(), e.offset()) != (code.as_str(), *offset) {
                return Err(format!(
                    "inspect's verdict is {}@{}; decode reports {code}@{offset}",
                    e.code(),
                    e.offset()
                ));
            }
            let [f] = failing.as_slice() else {
                return Err(format!("{} failing ranges, not one", failing.len()));
            };
            // An empty range holds a rejection at its offset (a field that needs bytes that
            // are not there); a range ending at the input's end holds a rejection there.
            let holds = (f.start <= *offset && *offset < f.end)
                || (f.start == f.end && f.start == *offset)
                || (f.end == len && *offset == len);
            if !holds {
                return Err(format!(
                    "the failing range `{}` {}..{} does not hold byte {offset}",
                    f.path, f.start, f.end
                ));
            }
            // Before the failing range every byte is interpreted.
            for a in leaves(&annotations).take_while(|a| !a.failing) {
                if matches!(a.kind, Kind::Unread | Kind::Partial) {
                    return Err(format!(
                        "`{}` {}..{} before the failing byte is {} ({:?})",
                        a.path,
                        a.start,
                        a.end,
                        a.kind.word(),
                        a.note
                    ));
                }
            }
            // After it, nothing is.
            for a in leaves(&annotations).skip_while(|a| !a.failing).skip(1) {
                if a.kind != Kind::Unread {
                    return Err(format!(
                        "`{}` after the failing range is interpreted",
                        a.path
                    ));
                }
            }
        }
        (expected, got) => {
            return Err(format!(
                "decode's verdict is {expected:?}; inspect's is {:?}",
                got.as_ref().map(|e| (e.code(), e.offset()))
            ));
        }
    }
    // A patched field is labelled with the path its row names.
    for (path, offset) in &v.patched {
        let Some(a) = leaves(&annotations).find(|a| a.start <= *offset && *offset < a.end) else {
            continue;
        };
        if a.kind == Kind::Unread || path.contains(".end") {
            continue;
        }
        // A byte patched past a buffer's end is padding, and shown as such.
        if a.kind == Kind::Padding && a.note.is_some() {
            continue;
        }
        // A byte of a multi-byte field is named by the field's path and a byte index.
        if a.kind == Kind::Field && path.rsplit_once('[').map(|(p, _)| p) == Some(a.path.as_str()) {
            continue;
        }
        // A byte of a byte string or data buffer is named by the string's path and an index.
        let whole = match a.value {
            Shown::Bytes | Shown::Text(_) | Shown::NotUtf8 { .. } | Shown::None => {
                path.rsplit_once('[').map_or(path.as_str(), |(p, _)| p)
            }
            _ => path.as_str(),
        };
        if a.path != path.as_str() && a.path != whole {
            return Err(format!(
                "byte {offset} patched as `{path}` is labelled `{}`",
                a.path
            ));
        }
    }
    Ok(())
}

fn run(vectors: Vec<Vector>) {
    let mut failures = Vec::new();
    for v in &vectors {
        if let Err(e) = check(v) {
            failures.push(format!("{}: {e}", v.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}

/// Every byte of `bytes` in exactly one range, whatever the reader's verdict.
fn covered_once(v: &Vector, bytes: &[u8]) -> Result<(), String> {
    let mut sink = Collect::default();
    if v.file {
        inspect::file(bytes, &v.config, &mut sink);
    } else {
        inspect::descriptor(bytes, &v.config, &mut sink);
    }
    let mut at = 0u64;
    for a in leaves(&sink.annotations).filter(|a| a.end > a.start) {
        if a.start != at {
            return Err(format!("`{}` starts at {} after {at}", a.path, a.start));
        }
        at = a.end;
    }
    if at != bytes.len() as u64 {
        return Err(format!("the ranges end at {at} of {}", bytes.len()));
    }
    Ok(())
}

/// Mutations of the valid vectors (cut short at several lengths, one byte flipped at a stride
/// of positions): the walk never panics and still labels every byte exactly once.
#[test]
fn mutated_vectors_are_still_labelled_byte_for_byte() {
    let mut failures = Vec::new();
    for v in valid() {
        let len = v.bytes.len();
        let cuts = [
            0,
            1,
            len / 3,
            len / 2,
            len.saturating_sub(41),
            len.saturating_sub(1),
        ];
        let mut variants: Vec<(String, Vec<u8>)> = cuts
            .iter()
            .map(|c| (format!("cut at {c}"), v.bytes[..*c].to_vec()))
            .collect();
        let stride = (len / 24).max(1);
        for i in (0..len).step_by(stride) {
            let mut b = v.bytes.clone();
            b[i] ^= 0xa5;
            variants.push((format!("byte {i} flipped"), b));
        }
        for (what, bytes) in variants {
            if let Err(e) = covered_once(&v, &bytes) {
                failures.push(format!("{} ({what}): {e}", v.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_valid_vector_is_labelled_byte_for_byte() {
    run(valid());
}

#[test]
fn every_rejecting_vector_is_labelled_up_to_its_failing_byte() {
    run(rejecting());
}

#[test]
fn the_shared_conformance_vectors_are_labelled_byte_for_byte() {
    run(conformance());
}

/// The element type, shape and data seed of every tensor of a valid file's row whose data is
/// one seeded buffer.
fn seeded_tensors(file: &str) -> Vec<(String, String, u64, toml::Value)> {
    let text = String::from_utf8(common::read(&root().join("tests/corpus/valid.toml"))).unwrap();
    let rows: toml::Value = toml::from_str(&text).unwrap();
    let row = rows["file"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"].as_str() == Some(file))
        .unwrap_or_else(|| panic!("valid.toml has the file `{file}`"));
    row["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| {
            let data = t.get("data")?.as_array()?;
            let seed = data.first()?.get("seed")?.as_integer()? as u64;
            Some((
                t["name"].as_str()?.to_string(),
                t.get("element_type")?.as_str()?.to_string(),
                seed,
                t.clone(),
            ))
        })
        .collect()
}

/// What the oracle writes for element `k` of a seeded buffer of `t`, as `--data` shows it:
/// floats k/2, integers k (their code, sign-extended, for packed types), complex (k/2, -k/2).
fn expected(t: hurray_runtime::tags::ElementType, k: i64) -> Option<String> {
    use hurray_runtime::tags::{ElementKind, ElementType, Packing};
    let v = k as f64 * 0.5;
    Some(match (t.kind(), t.packing()) {
        (ElementKind::Float, Packing::None) => {
            format!(
                "{:?}",
                common::oracle::amended_float(t, k).map_or(v, |(_, v)| v)
            )
        }
        (ElementKind::Complex, _) => format!("{v:?},{:?}", -v),
        (ElementKind::Signed, Packing::None) => k.to_string(),
        (ElementKind::Unsigned, Packing::None) => k.unsigned_abs().to_string(),
        (ElementKind::Signed, Packing::LsbFirst) => {
            let shift = 64 - t.bits();
            (((k as u64) << shift) as i64 >> shift).to_string()
        }
        (ElementKind::Unsigned, Packing::LsbFirst) => {
            ((k as u64) & ((1 << t.bits()) - 1)).to_string()
        }
        (ElementKind::Scale, _) if t == ElementType::Float8E8m0 => {
            format!("{:?}", 2f64.powi(0x7C + k.rem_euclid(8) as i32 - 127))
        }
        _ => return None,
    })
}

fn shown(v: &inspect::data::Values) -> Vec<String> {
    use inspect::data::Values;
    match v {
        Values::Float(x) => x.iter().map(|v| format!("{v:?}")).collect(),
        Values::Signed(x) => x.iter().map(|v| v.to_string()).collect(),
        Values::Unsigned(x) => x.iter().map(|v| v.to_string()).collect(),
        Values::Bool(x) => x.iter().map(|v| v.to_string()).collect(),
        Values::Complex(x) => x.iter().map(|(r, i)| format!("{r:?},{i:?}")).collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn data_decodes_every_element_type_as_the_oracle_wrote_it() {
    use hurray_runtime::TagSpace;
    use hurray_runtime::tags::ElementType;
    let bytes = common::read(&root().join("tests/corpus/valid/file-all-element-types.hrry"));
    let f = hurray_runtime::file::read(&bytes, &ReaderConfig::new()).unwrap();
    let mut checked = 0;
    for (name, element_type, seed, _) in seeded_tensors("file-all-element-types") {
        let t = ElementType::from_name(&element_type).unwrap();
        let tensor = f.tensor(&name).unwrap().unwrap();
        let buffers: Vec<&[u8]> = tensor.buffers().into_iter().map(|(_, b)| b).collect();
        let d = inspect::data::element_data(&tensor.descriptor(), &buffers, 4096).unwrap();
        assert_eq!((d.element_type, d.total), (t.name(), 15), "{name}");
        let want: Option<Vec<String>> = common::oracle::ks(15, seed)
            .into_iter()
            .map(|k| expected(t, k))
            .collect();
        let Some(want) = want else {
            continue;
        };
        assert_eq!(shown(&d.values), want, "{name}");
        checked += 1;
    }
    assert!(checked >= 20, "{checked} element types checked");
}

#[test]
fn data_dequantizes_a_per_tensor_affine_tensor() {
    let file = "file-composite-partition";
    let bytes = common::read(&root().join(format!("tests/corpus/valid/{file}.hrry")));
    let f = hurray_runtime::file::read(&bytes, &ReaderConfig::new()).unwrap();
    let mut checked = 0;
    for (name, _, seed, row) in seeded_tensors(file) {
        let Some(q) = row.get("quantization") else {
            continue;
        };
        let scale = q["scale"].as_float().unwrap();
        let zero = q["zero_point"].as_integer().unwrap();
        let tensor = f.tensor(&name).unwrap().unwrap();
        let buffers: Vec<&[u8]> = tensor.buffers().into_iter().map(|(_, b)| b).collect();
        let d = inspect::data::element_data(&tensor.descriptor(), &buffers, 4096).unwrap();
        let n = d.total as usize;
        let want: Vec<f64> = common::oracle::ks(n, seed)
            .into_iter()
            .map(|k| f64::from((scale * (k - zero) as f64) as f32))
            .collect();
        assert_eq!(d.dequantized.as_deref(), Some(want.as_slice()), "{name}");
        checked += 1;
    }
    assert_eq!(checked, 1, "the file has one per-tensor quantized tensor");
}
