//! Where each item of the current spec lives in its TOML, keyed by item: shared by the
//! snapshot and the reader facts (a leaf module, so neither imports the other to find a span).

use std::collections::HashMap;

use crate::source::Span;

/// Where each snapshot item lives in the current spec's TOML, keyed like [`key`].
pub type SpanIndex = HashMap<String, Span>;

/// Keys of the span index.
pub mod key {
    pub fn axis(name: &str) -> String {
        format!("axis:{name}")
    }
    pub fn space(name: &str) -> String {
        format!("space:{name}")
    }
    pub fn range(space: &str, i: usize) -> String {
        format!("range:{space}:{i}")
    }
    pub fn tag(space: &str, value: u32) -> String {
        format!("tag:{space}:{value}")
    }
    pub fn flags(name: &str) -> String {
        format!("flags:{name}")
    }
    pub fn bit(flags: &str, bit: u32) -> String {
        format!("bit:{flags}:{bit}")
    }
    pub fn structure(name: &str) -> String {
        format!("structure:{name}")
    }
    pub fn field(structure: &str, field: &str) -> String {
        format!("field:{structure}:{field}")
    }
    pub fn rule(id: &str) -> String {
        format!("rule:{id}")
    }
}
