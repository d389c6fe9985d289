//! Values written in the TOML that are not words or references: where a value is, hex byte
//! strings, linear expressions, and how any value is shown in a message.

use crate::model::Affine;
use crate::raw::S;
use crate::source::{FileId, Span};

/// The span of a spanned value in `file`.
pub(super) fn span<T>(file: FileId, s: &S<T>) -> Span {
    Span::new(file, s.span())
}

/// An integer or a `"20+8*rank"`-style linear expression.
pub(super) fn affine(v: &toml::Value) -> Option<Affine> {
    match v {
        toml::Value::Integer(n) => Some(Affine::constant(*n)),
        toml::Value::String(s) => Affine::parse(s),
        _ => None,
    }
}

/// `"48 52 52 59"` (spaces optional).
/// Anything but hex digits and whitespace (a non-ASCII character included) is no hex string.
pub(super) fn parse_hex(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_digit(16).and_then(|d| u8::try_from(d).ok()))
        .collect::<Option<_>>()?;
    let (pairs, odd) = digits.as_chunks::<2>();
    if !odd.is_empty() {
        return None;
    }
    Some(pairs.iter().map(|[hi, lo]| hi << 4 | lo).collect())
}

/// A TOML value as written, for messages.
pub(super) fn show_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("\"{s}\""),
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(x) => x.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Array(a) => format!(
            "[{}]",
            a.iter().map(show_value).collect::<Vec<_>>().join(", ")
        ),
        _ => "a table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_hex;

    #[test]
    fn hex_strings() {
        assert_eq!(parse_hex("48 52 52 59"), Some(b"HRRY".to_vec()));
        assert_eq!(parse_hex("4852"), Some(vec![0x48, 0x52]));
        assert_eq!(parse_hex("485"), None);
        assert_eq!(parse_hex("4g"), None);
        // A non-ASCII character is no hex digit (it panicked, sliced mid-character: found by
        // the spec_load fuzz target).
        assert_eq!(parse_hex("48\u{fffd}2"), None);
        assert_eq!(parse_hex("4\u{e9}"), None);
    }
}
