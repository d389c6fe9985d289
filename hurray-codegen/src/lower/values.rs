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
pub(super) fn parse_hex(s: &str) -> Option<Vec<u8>> {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.len().is_multiple_of(2) {
        return None;
    }
    (0..compact.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&compact[i..i + 2], 16).ok())
        .collect()
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
