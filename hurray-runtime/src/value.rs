//! A small reflection value every generated owned structure converts to and from. The CLI
//! maps it to JSON; the compatibility tests walk it.

/// A structure's fields by spec name.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// No value (an absent optional field).
    Null,
    /// A truth value.
    Bool(bool),
    /// An unsigned integer.
    UInt(u64),
    /// A signed integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string (a name, or a tag by its name).
    Str(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A sequence.
    Array(Vec<Value>),
    /// A structure: its fields by spec name, in wire order.
    Object(Vec<(String, Value)>),
    /// A field appended after the data's (or the reader's) version: the documented default (R4).
    Defaulted(Box<Value>),
    /// Bytes inside a length-prefixed structure that the reader's version does not define (CD2).
    Skipped(Vec<u8>),
}

impl Value {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(v) => v.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// The value as an unsigned integer, if it is an integer that fits (a defaulted one included).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::UInt(v) => Some(*v),
            Value::Int(v) => u64::try_from(*v).ok(),
            Value::Defaulted(v) => v.as_u64(),
            _ => None,
        }
    }
    /// The value as a signed integer, if it is an integer that fits (a defaulted one included).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::UInt(v) => i64::try_from(*v).ok(),
            Value::Defaulted(v) => v.as_i64(),
            _ => None,
        }
    }
    /// The value as a float, if it is a number (a defaulted one included).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(v) => Some(*v),
            Value::UInt(v) => Some(*v as f64),
            Value::Int(v) => Some(*v as f64),
            Value::Defaulted(v) => v.as_f64(),
            _ => None,
        }
    }
}

/// Why a value does not convert back into a structure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ValueError {
    /// Dotted path of the offending field.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl ValueError {
    /// An error at the dotted `path`.
    pub fn new(path: &str, message: impl Into<String>) -> ValueError {
        ValueError {
            path: path.to_string(),
            message: message.into(),
        }
    }
}

/// Helpers the generated `from_value` code calls.
pub mod de {
    use super::{Value, ValueError};
    use crate::wire::{Scalar, TagSpace, TagValue};

    /// The field `key` of an object (absent fields are errors).
    pub fn field<'v>(v: &'v Value, path: &str, key: &str) -> Result<&'v Value, ValueError> {
        match v {
            Value::Object(_) => v.get(key).ok_or_else(|| {
                let at = if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{path}.{key}")
                };
                ValueError::new(&at, "missing")
            }),
            _ => Err(ValueError::new(path, "expected an object")),
        }
    }

    /// An optional field: absent and null are both `None`; a `Defaulted` value is `None` too.
    pub fn opt<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
        match v.get(key) {
            None | Some(Value::Null) | Some(Value::Defaulted(_)) => None,
            Some(x) => Some(x),
        }
    }

    /// An integer scalar of type `T`.
    pub fn int<T: Scalar + TryFrom<i128>>(v: &Value, path: &str) -> Result<T, ValueError> {
        let n: i128 = match v {
            Value::UInt(n) => *n as i128,
            Value::Int(n) => *n as i128,
            Value::Defaulted(b) => return int(b, path),
            _ => return Err(ValueError::new(path, "expected an integer")),
        };
        T::try_from(n).map_err(|_| ValueError::new(path, format!("{n} is out of range")))
    }

    /// The value at `path` as an `f32`.
    pub fn f32(v: &Value, path: &str) -> Result<f32, ValueError> {
        match v {
            Value::Float(x) => Ok(*x as f32),
            Value::Str(s) => s
                .strip_prefix("f32:")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .map(f32::from_bits)
                .ok_or_else(|| ValueError::new(path, "expected a number or \"f32:<hex bits>\"")),
            Value::UInt(n) => Ok(*n as f32),
            Value::Int(n) => Ok(*n as f32),
            Value::Defaulted(b) => f32(b, path),
            _ => Err(ValueError::new(path, "expected a number")),
        }
    }

    /// The value at `path` as an `f64`.
    pub fn f64(v: &Value, path: &str) -> Result<f64, ValueError> {
        match v {
            Value::Str(s) => s
                .strip_prefix("f64:")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .map(f64::from_bits)
                .ok_or_else(|| ValueError::new(path, "expected a number or \"f64:<hex bits>\"")),
            _ => v
                .as_f64()
                .ok_or_else(|| ValueError::new(path, "expected a number")),
        }
    }

    /// The value at `path` as a tag of space `T`: its name or its raw number.
    pub fn tag<T: TagSpace>(v: &Value, path: &str) -> Result<TagValue<T>, ValueError> {
        match v {
            Value::Str(name) => T::from_name(name).map(TagValue::new).ok_or_else(|| {
                ValueError::new(path, format!("`{name}` is not a {} value", T::NAME))
            }),
            _ => Ok(TagValue::from_raw(int::<u32>(v, path)?)),
        }
    }

    /// The value at `path` as bytes.
    pub fn bytes(v: &Value, path: &str) -> Result<Vec<u8>, ValueError> {
        match v {
            Value::Bytes(b) | Value::Skipped(b) => Ok(b.clone()),
            Value::Str(s) => {
                super::hex_decode(s).ok_or_else(|| ValueError::new(path, "expected hex bytes"))
            }
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| int::<u8>(x, &format!("{path}[{i}]")))
                .collect(),
            _ => Err(ValueError::new(path, "expected bytes")),
        }
    }

    /// The value at `path` as a string.
    pub fn string(v: &Value, path: &str) -> Result<String, ValueError> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            _ => Err(ValueError::new(path, "expected a string")),
        }
    }

    /// The value at `path` as an array.
    pub fn array<'v>(v: &'v Value, path: &str) -> Result<&'v [Value], ValueError> {
        match v {
            Value::Array(a) => Ok(a),
            _ => Err(ValueError::new(path, "expected an array")),
        }
    }

    /// A structure's own length prefix, reached through the objects at `keys` (its spec
    /// names, from the structure down to the prefix field): when `v` leaves the prefix out, a
    /// copy of `v` holding 0 there, which `from_value` replaces by the encoded length once the
    /// structure is whole; `None` when `v` gives the prefix (it is then taken as given), or
    /// when an object on the way is missing (reading it reports that).
    pub fn placeholder(v: &Value, keys: &[&str]) -> Option<Value> {
        let (last, objects) = keys.split_last()?;
        let mut at = v;
        for k in objects {
            at = at.get(k)?;
        }
        if !matches!(at, Value::Object(_)) || at.get(last).is_some() {
            return None;
        }
        let mut out = v.clone();
        let mut at = &mut out;
        for k in objects {
            let Value::Object(fields) = at else {
                return None;
            };
            at = fields
                .iter_mut()
                .find(|(name, _)| name == k)
                .map(|(_, x)| x)?;
        }
        if let Value::Object(fields) = at {
            fields.push(((*last).to_string(), Value::UInt(0)));
        }
        Some(out)
    }

    /// Skipped bytes recorded under `skipped`, if any.
    pub fn skipped(v: &Value) -> Vec<u8> {
        match v.get("skipped") {
            Some(Value::Skipped(b)) | Some(Value::Bytes(b)) => b.clone(),
            _ => Vec::new(),
        }
    }
}

/// Lowercase hex without separators.
pub fn hex_encode(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Hex digits, spaces allowed.
pub fn hex_decode(s: &str) -> Option<Vec<u8>> {
    let c: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !c.len().is_multiple_of(2) {
        return None;
    }
    c.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Value, de};
    use crate::structures::Descriptor;
    use crate::tags::ElementType;

    #[test]
    fn a_missing_own_prefix_gets_a_placeholder_and_a_given_one_is_kept() {
        let inner = |fields: Vec<(&str, u64)>| {
            Value::Object(
                fields
                    .into_iter()
                    .map(|(k, n)| (k.to_string(), Value::UInt(n)))
                    .collect(),
            )
        };
        let v = Value::Object(vec![("header".into(), inner(vec![("a", 1)]))]);
        let with = de::placeholder(&v, &["header", "length"]).expect("absent: a placeholder");
        assert_eq!(
            with.get("header").and_then(|h| h.get("length")),
            Some(&Value::UInt(0))
        );
        let given = Value::Object(vec![("header".into(), inner(vec![("length", 9)]))]);
        assert_eq!(de::placeholder(&given, &["header", "length"]), None);
        // A missing object on the way is left for reading to report.
        assert_eq!(de::placeholder(&v, &["other", "length"]), None);
    }

    #[test]
    fn from_value_computes_the_descriptors_own_length_prefix_when_absent() {
        let mut d = crate::writer::row_major(ElementType::Float32, &[2, 3]);
        crate::writer::normalize(&mut d).unwrap();
        let length = d.fixed_header.descriptor_length;
        assert_eq!(length as usize, d.to_bytes().len());
        // Remove the prefix from the value tree wherever the model puts it: the one field
        // whose value is the encoded length.
        let Value::Object(mut fields) = d.to_value() else {
            unreachable!("a structure's value is an object")
        };
        let mut removed = 0;
        for (_, part) in fields.iter_mut() {
            if let Value::Object(inner) = part {
                let before = inner.len();
                inner.retain(|(_, x)| *x != Value::UInt(u64::from(length)));
                removed += before - inner.len();
            }
        }
        assert_eq!(removed, 1, "one field holds the length");
        let back = Descriptor::from_value(&Value::Object(fields), "").unwrap();
        assert_eq!(back, d);
        // `sync_length_prefixes` sets it however it was given.
        let mut wrong = d.clone();
        wrong.fixed_header.descriptor_length = 0;
        wrong.sync_length_prefixes().unwrap();
        assert_eq!(wrong, d);
    }
}
