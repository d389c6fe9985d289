//! The decoded [`Value`] tree as JSON and back (feature `json`): the shape `hurray decode
//! --json` prints and `hurray encode` reads. Byte sequences are lowercase hex strings;
//! floats that JSON cannot hold (NaN, ±Inf) are `"f64:<bits>"`. Defaulted fields (R4) and
//! skipped bytes (CD2) are lifted into an `evolution` object so the main shape stays the
//! contract's and encoding can restore the exact bytes.
//!
//! ```
//! use hurray_runtime::Value;
//! use hurray_runtime::json::{Evolution, evolution_from_json, from_json, to_json};
//!
//! let value = Value::Object(vec![("rank".into(), Value::UInt(2))]);
//! let mut evolution = Evolution::default();
//! let json = to_json(&value, "", &mut evolution);
//! assert_eq!(json["rank"], 2);
//! let back = from_json(&json, "", &evolution_from_json(&json));
//! assert_eq!(back, value);
//! ```

use crate::Value;
use crate::value::{ValueError, hex_encode};
use serde_json::{Map, Value as J, json};

/// What reading did beyond the plain fields.
#[derive(Debug, Default)]
pub struct Evolution {
    /// Paths (`quantization.bias_correction`) of fields that took their documented default
    /// because the data predates them (R4).
    pub defaulted: Vec<String>,
    /// Bytes a length prefix covered beyond the fields the reader knows (CD2), by the path of
    /// the structure that held them (`descriptor` for the top level).
    pub skipped: Vec<(String, Vec<u8>)>,
}

/// A [`Value`] as JSON; defaulted fields and skipped bytes are recorded in `evo` (see
/// [`evolution_json`]) instead of the main shape. `path` is the value's path (`""` at the top).
pub fn to_json(v: &Value, path: &str, evo: &mut Evolution) -> J {
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::UInt(n) => json!(n),
        Value::Int(n) => json!(n),
        Value::Float(x) => {
            if x.is_finite() {
                json!(x)
            } else {
                J::String(format!("f64:{:016x}", x.to_bits()))
            }
        }
        Value::Str(s) => J::String(s.clone()),
        Value::Bytes(b) => J::String(hex_encode(b)),
        Value::Array(a) => J::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| to_json(x, &format!("{path}[{i}]"), evo))
                .collect(),
        ),
        Value::Object(fields) => {
            let mut m = Map::new();
            for (k, x) in fields {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match x {
                    Value::Skipped(b) => evo.skipped.push((
                        if path.is_empty() {
                            "descriptor".to_string()
                        } else {
                            path.to_string()
                        },
                        b.clone(),
                    )),
                    Value::Defaulted(inner) => {
                        evo.defaulted.push(p.clone());
                        m.insert(k.clone(), to_json(inner, &p, evo));
                    }
                    _ => {
                        m.insert(k.clone(), to_json(x, &p, evo));
                    }
                }
            }
            J::Object(m)
        }
        Value::Defaulted(inner) => to_json(inner, path, evo),
        Value::Skipped(b) => J::String(hex_encode(b)),
    }
}

/// JSON back to a `Value`, re-marking the paths the `evolution` object names.
pub fn from_json(j: &J, path: &str, evo: &Evolution) -> Value {
    match j {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            if let Some(u) = n.as_u64() {
                Value::UInt(u)
            } else if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        J::String(s) => Value::Str(s.clone()),
        J::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| from_json(x, &format!("{path}[{i}]"), evo))
                .collect(),
        ),
        J::Object(m) => {
            let mut fields = Vec::new();
            for (k, x) in m {
                if path.is_empty()
                    && (k == "evolution" || k == "warnings" || k == "dereferenceable")
                {
                    continue;
                }
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let v = from_json(x, &p, evo);
                fields.push((
                    k.clone(),
                    if evo.defaulted.contains(&p) {
                        Value::Defaulted(Box::new(v))
                    } else {
                        v
                    },
                ));
            }
            let here = if path.is_empty() { "descriptor" } else { path };
            for (sp, b) in &evo.skipped {
                if sp == here {
                    fields.push(("skipped".to_string(), Value::Skipped(b.clone())));
                }
            }
            Value::Object(fields)
        }
    }
}

/// The `evolution` object, or `None` when nothing was defaulted or skipped.
pub fn evolution_json(evo: &Evolution) -> Option<J> {
    if evo.defaulted.is_empty() && evo.skipped.is_empty() {
        return None;
    }
    Some(json!({
        "defaulted": evo.defaulted,
        "skipped": evo.skipped.iter().map(|(p, b)| json!({"at": p, "length": b.len(), "bytes": hex_encode(b)})).collect::<Vec<_>>(),
    }))
}

/// Read an `evolution` object back.
pub fn evolution_from_json(j: &J) -> Evolution {
    let mut evo = Evolution::default();
    if let Some(e) = j.get("evolution") {
        if let Some(d) = e.get("defaulted").and_then(J::as_array) {
            evo.defaulted = d
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect();
        }
        if let Some(s) = e.get("skipped").and_then(J::as_array) {
            for x in s {
                if let (Some(at), Some(b)) = (
                    x.get("at").and_then(J::as_str),
                    x.get("bytes").and_then(J::as_str),
                ) && let Some(bytes) = crate::value::hex_decode(b)
                {
                    evo.skipped.push((at.to_string(), bytes));
                }
            }
        }
    }
    evo
}

/// A decoded descriptor as `hurray decode --json` prints it: the contract's shape, plus an
/// `evolution` object, `"dereferenceable": false` and `warnings` only when there is something
/// to say.
pub fn descriptor_json(v: &Value, warnings: &[crate::Warning], dereferenceable: bool) -> J {
    let mut evo = Evolution::default();
    let mut j = to_json(v, "", &mut evo);
    if let J::Object(m) = &mut j {
        if let Some(e) = evolution_json(&evo) {
            m.insert("evolution".into(), e);
        }
        if !dereferenceable {
            m.insert("dereferenceable".into(), J::Bool(false));
        }
        if !warnings.is_empty() {
            m.insert("warnings".into(), warnings_json(warnings));
        }
    }
    j
}

/// A decoded file as `hurray decode --json` prints it: the contract's shape, with an
/// `evolution` object (paths from the top: `tensors[0].descriptor.quantization`) when a
/// descriptor or a section took a default or skipped bytes.
pub fn file_json(v: &Value) -> J {
    let mut evo = Evolution::default();
    let mut j = to_json(v, "", &mut evo);
    if let (J::Object(m), Some(e)) = (&mut j, evolution_json(&evo)) {
        m.insert("evolution".into(), e);
    }
    j
}

/// Read an `evolution` object back, strictly: every key known, every path a string, every
/// skipped run's `length` its bytes' length. Errors name the JSON path.
pub fn evolution_from_json_strict(j: &J) -> Result<Evolution, ValueError> {
    let mut evo = Evolution::default();
    let Some(e) = j.get("evolution") else {
        return Ok(evo);
    };
    let Some(m) = e.as_object() else {
        return Err(ValueError::new("evolution", "expected an object"));
    };
    for (k, x) in m {
        let path = format!("evolution.{k}");
        let items = x
            .as_array()
            .ok_or_else(|| ValueError::new(&path, "expected an array"))?;
        match k.as_str() {
            "defaulted" => {
                for (i, d) in items.iter().enumerate() {
                    let d = d.as_str().ok_or_else(|| {
                        ValueError::new(&format!("{path}[{i}]"), "expected a path (a string)")
                    })?;
                    evo.defaulted.push(d.to_string());
                }
            }
            "skipped" => {
                for (i, run) in items.iter().enumerate() {
                    let at = format!("{path}[{i}]");
                    let field = |name: &str| {
                        run.get(name)
                            .ok_or_else(|| ValueError::new(&format!("{at}.{name}"), "missing"))
                    };
                    if let Some(o) = run.as_object()
                        && let Some(k) = o
                            .keys()
                            .find(|k| !["at", "length", "bytes"].contains(&k.as_str()))
                    {
                        return Err(ValueError::new(&format!("{at}.{k}"), "unknown key"));
                    }
                    let place = field("at")?.as_str().ok_or_else(|| {
                        ValueError::new(&format!("{at}.at"), "expected a path (a string)")
                    })?;
                    let bytes = field("bytes")?
                        .as_str()
                        .and_then(crate::value::hex_decode)
                        .ok_or_else(|| {
                            ValueError::new(&format!("{at}.bytes"), "expected hex bytes")
                        })?;
                    if let Some(n) = run.get("length")
                        && n.as_u64() != Some(bytes.len() as u64)
                    {
                        return Err(ValueError::new(
                            &format!("{at}.length"),
                            format!("{n} is not the length of `bytes` ({})", bytes.len()),
                        ));
                    }
                    evo.skipped.push((place.to_string(), bytes));
                }
            }
            _ => return Err(ValueError::new(&path, "unknown key")),
        }
    }
    Ok(evo)
}

/// The first place where `given` says something `canonical` does not: a key `canonical`
/// lacks, an array of another length, or a different value. `canonical` is what the value
/// `given` was read into encodes (the contract value of the result), so a difference is a key
/// the reader of `given` ignored or a value it did not take as given: a name that contradicts
/// its number, a number that does not fit. A string where `canonical` has a number is a name or
/// a bit pattern the reading accepted (`"cuda"`, `"f32:7fc00000"`); hex strings compare as
/// bytes; floats compare equal when they round to the same `f32`. Keys `skip(path, key)`
/// accepts are not compared (values reading computes, such as warnings). Returns the path
/// and what differs.
pub fn first_difference(
    given: &J,
    canonical: &J,
    path: &str,
    skip: &dyn Fn(&str, &str) -> bool,
) -> Option<(String, String)> {
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (given, canonical) {
        (J::Object(g), J::Object(c)) => g.iter().find_map(|(k, x)| {
            if skip(path, k) {
                return None;
            }
            match c.get(k) {
                None => Some((at(k), "unknown key".to_string())),
                Some(y) => first_difference(x, y, &at(k), skip),
            }
        }),
        (J::Array(g), J::Array(c)) => {
            if g.len() != c.len() {
                return Some((
                    path.to_string(),
                    format!("{} item(s), but the value holds {}", g.len(), c.len()),
                ));
            }
            g.iter()
                .zip(c)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]"), skip))
        }
        (J::String(_), J::Number(_)) => None,
        (J::String(a), J::String(b)) => {
            let same = a == b
                || matches!(
                    (crate::value::hex_decode(a), crate::value::hex_decode(b)),
                    (Some(x), Some(y)) if x == y
                );
            (!same).then(|| differs(path, given, canonical))
        }
        (J::Number(a), J::Number(b)) => {
            let same = match (a.as_i128(), b.as_i128()) {
                (Some(x), Some(y)) => x == y,
                _ => match (a.as_f64(), b.as_f64()) {
                    (Some(x), Some(y)) => x == y || (x as f32) == (y as f32),
                    _ => false,
                },
            };
            (!same).then(|| differs(path, given, canonical))
        }
        (g, c) if g == c => None,
        _ => Some(differs(path, given, canonical)),
    }
}

fn differs(path: &str, given: &J, canonical: &J) -> (String, String) {
    (
        path.to_string(),
        format!(
            "{given} is not what the value encodes: {canonical} (a name that contradicts its number, or a value out of its field's range)"
        ),
    )
}

/// Warnings as a JSON array of `{code, rule, offset, message}`.
pub fn warnings_json(warnings: &[crate::Warning]) -> J {
    J::Array(
        warnings
            .iter()
            .map(|w| json!({"code": w.rule.code(), "rule": w.rule.id(), "offset": w.offset, "message": w.detail}))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree as a newer build's reader produces it: a defaulted appended field (R4) and
    /// skipped trailing bytes (CD2) inside a nested structure.
    fn evolved() -> Value {
        Value::Object(vec![
            ("kind".into(), Value::Str("descriptor".into())),
            (
                "quantization".into(),
                Value::Object(vec![
                    ("block_size".into(), Value::UInt(32)),
                    (
                        "bias_correction".into(),
                        Value::Defaulted(Box::new(Value::Float(0.0))),
                    ),
                    ("skipped".into(), Value::Skipped(vec![0, 0, 0x80, 0x3e])),
                ]),
            ),
        ])
    }

    #[test]
    fn defaulted_fields_and_skipped_bytes_are_marked_in_the_evolution_object() {
        let mut evo = Evolution::default();
        let mut j = to_json(&evolved(), "", &mut evo);
        let e = evolution_json(&evo).expect("something evolved");
        assert_eq!(e["defaulted"], json!(["quantization.bias_correction"]));
        assert_eq!(
            e["skipped"],
            json!([{"at": "quantization", "length": 4, "bytes": "0000803e"}])
        );
        // The main shape keeps the contract's fields; the marks live beside it.
        assert_eq!(j["quantization"]["bias_correction"], json!(0.0));
        assert!(j["quantization"].get("skipped").is_none());
        // And reading the JSON back restores both marks exactly.
        j.as_object_mut().unwrap().insert("evolution".into(), e);
        let evo = evolution_from_json(&j);
        assert_eq!(from_json(&j, "", &evo), evolved());
    }

    #[test]
    fn nothing_evolved_means_no_evolution_object() {
        let mut evo = Evolution::default();
        let _ = to_json(
            &Value::Object(vec![("a".into(), Value::UInt(1))]),
            "",
            &mut evo,
        );
        assert!(evolution_json(&evo).is_none());
    }
}
