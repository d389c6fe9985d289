//! JSON read strictly for `encode`: a key that appears twice in one object is an error naming
//! its path (serde_json's own `Value` keeps the last one silently, so a hand-written file
//! could say two things and mean one).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value as J};

/// Why a JSON text was refused.
#[derive(Debug)]
pub enum StrictJsonError {
    /// Not JSON at all (serde_json's message, with its line and column).
    Syntax(String),
    /// A key that appears twice in one object, by its path (`tensors[0].descriptor.shape`).
    DuplicateKey(String),
}

impl fmt::Display for StrictJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrictJsonError::Syntax(m) => f.write_str(m),
            StrictJsonError::DuplicateKey(p) => write!(f, "{p}: the key appears twice"),
        }
    }
}

/// Parse `text` as JSON, refusing a key repeated in one object.
pub fn parse(text: &str) -> Result<J, StrictJsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut duplicate = None;
    let value = Seed {
        path: String::new(),
        duplicate: &mut duplicate,
    }
    .deserialize(&mut de);
    if let Some(path) = duplicate {
        return Err(StrictJsonError::DuplicateKey(path));
    }
    let value = value.map_err(|e| StrictJsonError::Syntax(e.to_string()))?;
    de.end()
        .map_err(|e| StrictJsonError::Syntax(e.to_string()))?;
    Ok(value)
}

/// One value at `path`; the first duplicate key found is recorded in `duplicate` (and the
/// parse stopped with a custom error).
struct Seed<'a> {
    path: String,
    duplicate: &'a mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = J;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = J;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<J, E> {
        Ok(J::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<J, E> {
        Ok(J::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<J, E> {
        Ok(J::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<J, E> {
        Ok(J::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<J, E> {
        Ok(J::String(v))
    }

    fn visit_unit<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }

    fn visit_none<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
        let mut items = Vec::new();
        loop {
            let path = format!("{}[{}]", self.path, items.len());
            match seq.next_element_seed(Seed {
                path,
                duplicate: &mut *self.duplicate,
            })? {
                Some(x) => items.push(x),
                None => return Ok(J::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if out.contains_key(&key) {
                *self.duplicate = Some(path);
                return Err(de::Error::custom("duplicate key"));
            }
            let value = map.next_value_seed(Seed {
                path,
                duplicate: &mut *self.duplicate,
            })?;
            out.insert(key, value);
        }
        Ok(J::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_refused_with_its_path() {
        let err = parse(r#"{"tensors": [{"name": "a", "name": "b"}]}"#).unwrap_err();
        assert!(
            matches!(&err, StrictJsonError::DuplicateKey(p) if p == "tensors[0].name"),
            "{err}"
        );
    }

    #[test]
    fn distinct_keys_parse_as_serde_json_does() {
        let text = r#"{"a": [1, -2, 3.5, "x", null, true], "b": {"c": {}}}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<J>(text).unwrap()
        );
    }

    #[test]
    fn trailing_text_and_bad_syntax_are_syntax_errors() {
        assert!(matches!(parse("{} x"), Err(StrictJsonError::Syntax(_))));
        assert!(matches!(parse("{"), Err(StrictJsonError::Syntax(_))));
    }
}
