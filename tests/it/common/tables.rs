//! Reading the corpus tables (`tests/corpus/*.toml`): TOML values into the runtime's
//! reflection `Value` (whose keys are the spec's names), deep merges of a row over its base,
//! and key checks so that a misspelt key in a table is an error, never silently ignored.

use std::collections::BTreeSet;
use std::path::Path;

use hurray_runtime::Value;
use toml::Value as T;

/// Load a TOML table file.
pub fn load(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Read a TOML table whose text names the spec's facts by placeholders (`${free:kv_value}`),
/// expanded with `vars` first.
pub fn load_expanded(path: &Path, vars: &hurray_codegen::overlay::Vars) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = vars
        .expand(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A big unsigned integer, which TOML cannot hold as an integer: `"u64:<decimal or 0x hex>"`.
pub fn big_uint(s: &str) -> Option<u64> {
    let n = s.strip_prefix("u64:")?;
    match n.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16).ok(),
        None => n.replace('_', "").parse().ok(),
    }
}

/// An unsigned integer from a table: a TOML integer or a `"u64:…"` string.
pub fn uint(v: &T, what: &str) -> u64 {
    match v {
        T::Integer(n) => u64::try_from(*n).unwrap_or_else(|_| panic!("{what}: {n} is negative")),
        T::String(s) => big_uint(s).unwrap_or_else(|| panic!("{what}: `{s}` is not \"u64:…\"")),
        other => panic!("{what}: expected an unsigned integer, found {other}"),
    }
}

/// A signed integer from a table.
pub fn int(v: &T, what: &str) -> i128 {
    match v {
        T::Integer(n) => i128::from(*n),
        T::String(s) => {
            i128::from(big_uint(s).unwrap_or_else(|| panic!("{what}: `{s}` is not \"u64:…\"")))
        }
        other => panic!("{what}: expected an integer, found {other}"),
    }
}

/// A float from a table (TOML's `nan`, `inf` and `-0.0` included).
pub fn float(v: &T, what: &str) -> f64 {
    match v {
        T::Float(x) => *x,
        T::Integer(n) => *n as f64,
        other => panic!("{what}: expected a number, found {other}"),
    }
}

pub fn string<'v>(v: &'v T, what: &str) -> &'v str {
    v.as_str()
        .unwrap_or_else(|| panic!("{what}: expected a string, found {v}"))
}

pub fn array<'v>(v: &'v T, what: &str) -> &'v [T] {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: expected an array, found {v}"))
}

pub fn table<'v>(v: &'v T, what: &str) -> &'v toml::Table {
    v.as_table()
        .unwrap_or_else(|| panic!("{what}: expected a table, found {v}"))
}

/// A list of unsigned integers.
pub fn uints(v: &T, what: &str) -> Vec<u64> {
    array(v, what).iter().map(|x| uint(x, what)).collect()
}

/// Bytes written as hex (`"c3 28"`) or as a list of integers.
pub fn bytes(v: &T, what: &str) -> Vec<u8> {
    match v {
        T::String(s) => hurray_runtime::value::hex_decode(s)
            .unwrap_or_else(|| panic!("{what}: `{s}` is not hex")),
        T::Array(a) => a
            .iter()
            .map(|x| u8::try_from(uint(x, what)).unwrap_or_else(|_| panic!("{what}: not a byte")))
            .collect(),
        other => panic!("{what}: expected bytes, found {other}"),
    }
}

/// A TOML value as the runtime's reflection value. Strings stay strings (the generated
/// `from_value` reads tag names, `"f32:<bits>"` floats and hex bytes from them), except
/// `"u64:…"` integers; a string under a `skipped` key is the hex of skipped bytes.
pub fn to_value(v: &T) -> Value {
    match v {
        T::String(s) => match big_uint(s) {
            Some(n) => Value::UInt(n),
            None => Value::Str(s.clone()),
        },
        T::Integer(n) if *n >= 0 => Value::UInt(*n as u64),
        T::Integer(n) => Value::Int(*n),
        T::Float(x) => Value::Float(*x),
        T::Boolean(b) => Value::Bool(*b),
        T::Array(a) => Value::Array(a.iter().map(to_value).collect()),
        T::Table(t) => Value::Object(
            t.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("skipped", T::String(s)) => Value::Bytes(bytes(&T::String(s.clone()), k)),
                        _ => to_value(x),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        T::Datetime(d) => panic!("no date belongs in a corpus table: {d}"),
    }
}

/// `row` over `base`: tables merge key by key, anything else in `row` replaces.
pub fn merge(base: &T, row: &T) -> T {
    match (base, row) {
        (T::Table(b), T::Table(r)) => {
            let mut out = b.clone();
            for (k, v) in r {
                let merged = match out.get(k) {
                    Some(old) => merge(old, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            T::Table(out)
        }
        _ => row.clone(),
    }
}

/// Keys of a table that the reader consumes, so that what remains is reported.
#[derive(Debug)]
pub struct Keys<'t> {
    table: &'t toml::Table,
    what: String,
    used: BTreeSet<&'t str>,
}

impl<'t> Keys<'t> {
    pub fn new(table: &'t toml::Table, what: impl Into<String>) -> Keys<'t> {
        Keys {
            table,
            what: what.into(),
            used: BTreeSet::new(),
        }
    }

    /// The value of `key`, if present.
    pub fn get(&mut self, key: &'t str) -> Option<&'t T> {
        let v = self.table.get(key)?;
        self.used.insert(key);
        Some(v)
    }

    /// The value of `key`, which must be present.
    pub fn need(&mut self, key: &'t str) -> &'t T {
        let what = self.what.clone();
        self.get(key)
            .unwrap_or_else(|| panic!("{what}: `{key}` is missing"))
    }

    /// What the row names itself, for messages.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// Panic on a key nobody read.
    pub fn done(self) {
        let unknown: Vec<&String> = self
            .table
            .keys()
            .filter(|k| !self.used.contains(k.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "{}: unknown key(s) {unknown:?}",
            self.what
        );
    }
}

/// Keys of `input` (an object tree) that `output` does not have: how a table that passes
/// through a generated `from_value` (which ignores what it does not read) is checked.
pub fn keys_not_in(input: &Value, output: &Value, path: &str, out: &mut Vec<String>) {
    if let (Value::Object(i), Value::Object(o)) = (input, output) {
        for (k, v) in i {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            match o.iter().find(|(ok, _)| ok == k) {
                None => out.push(p),
                Some((_, ov)) => keys_not_in(v, ov, &p, out),
            }
        }
    }
}
