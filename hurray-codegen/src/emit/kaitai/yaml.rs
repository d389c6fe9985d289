//! A small YAML writer for the Kaitai Struct description: a tree of maps, lists and scalars
//! written in block style, with flow lists for short runs of numbers, and every string that
//! YAML could read as something else quoted. It writes only what it is given; the order of
//! keys is the order of insertion.

use std::fmt::Write as _;

/// A YAML value.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A map, keys in insertion order.
    Map(Vec<(String, Node)>),
    /// A list in block style, one item a line.
    List(Vec<Node>),
    /// A list in flow style on one line (`[0x48, 0x52]`): for short lists of scalars.
    Flow(Vec<Node>),
    /// A string, quoted when YAML would read it as another type or syntax.
    Str(String),
    /// An integer in decimal.
    Int(i128),
    /// An integer in hexadecimal (`0x1f`).
    Hex(u64),
    /// A boolean.
    Bool(bool),
}

impl Node {
    /// An empty map, to be filled with [`Node::set`].
    pub fn map() -> Node {
        Node::Map(Vec::new())
    }

    /// A string node.
    pub fn str(s: impl Into<String>) -> Node {
        Node::Str(s.into())
    }

    /// Add `key: value` to a map (ignored on any other node).
    pub fn set(&mut self, key: impl Into<String>, value: Node) -> &mut Node {
        if let Node::Map(entries) = self {
            entries.push((key.into(), value));
        }
        self
    }

    /// `key: value` added to a map, builder style.
    pub fn with(mut self, key: impl Into<String>, value: Node) -> Node {
        self.set(key, value);
        self
    }

    /// Whether the node is an empty map or list.
    pub fn is_empty(&self) -> bool {
        match self {
            Node::Map(m) => m.is_empty(),
            Node::List(l) | Node::Flow(l) => l.is_empty(),
            _ => false,
        }
    }
}

/// The document: `node` (a map) written at the top level, ending with a newline.
pub fn document(node: &Node) -> String {
    let mut out = String::new();
    block(&mut out, node, 0);
    out
}

/// A map or list in block style at `indent`, each entry on its own line.
fn block(out: &mut String, node: &Node, indent: usize) {
    let pad = " ".repeat(indent);
    match node {
        Node::Map(entries) => {
            for (key, value) in entries {
                let _ = write!(out, "{pad}{}:", key_text(key));
                after_key(out, value, indent);
            }
        }
        Node::List(items) => {
            for item in items {
                let _ = write!(out, "{pad}-");
                match item {
                    Node::Map(entries) if !entries.is_empty() => {
                        // The first entry on the dash's line, the others aligned with it.
                        let (key, value) = &entries[0];
                        let _ = write!(out, " {}:", key_text(key));
                        after_key(out, value, indent + 2);
                        block(&mut *out, &Node::Map(entries[1..].to_vec()), indent + 2);
                    }
                    Node::List(inner) if !inner.is_empty() => {
                        out.push('\n');
                        block(out, item, indent + 2);
                    }
                    _ => {
                        out.push(' ');
                        inline(out, item, indent + 2);
                        out.push('\n');
                    }
                }
            }
        }
        other => {
            out.push_str(&pad);
            inline(out, other, indent);
            out.push('\n');
        }
    }
}

/// What follows `key:`: a scalar on the same line, or a nested block below it.
fn after_key(out: &mut String, value: &Node, indent: usize) {
    match value {
        Node::Map(m) if !m.is_empty() => {
            out.push('\n');
            block(out, value, indent + 2);
        }
        Node::List(l) if !l.is_empty() => {
            out.push('\n');
            block(out, value, indent + 2);
        }
        _ => {
            out.push(' ');
            inline(out, value, indent + 2);
            out.push('\n');
        }
    }
}

/// A scalar, an empty collection or a flow list, on the current line. A multi-line string is
/// a literal block (`|`) indented at `indent`.
fn inline(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Map(_) => out.push_str("{}"),
        Node::List(_) => out.push_str("[]"),
        Node::Flow(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(out, item, indent);
            }
            out.push(']');
        }
        Node::Str(s) if s.contains('\n') => {
            out.push_str("|-");
            let pad = " ".repeat(indent);
            for line in s.lines() {
                out.push('\n');
                if !line.is_empty() {
                    out.push_str(&pad);
                    out.push_str(line);
                }
            }
        }
        Node::Str(s) => out.push_str(&scalar_text(s)),
        Node::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Node::Hex(n) => {
            let _ = write!(out, "{n:#x}");
        }
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
    }
}

/// A map key: plain when it is an identifier or a hexadecimal number, quoted otherwise.
fn key_text(key: &str) -> String {
    let hex = key
        .strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
    if hex {
        key.to_string()
    } else {
        scalar_text(key)
    }
}

/// A one-line string: plain when YAML reads it back as the same string, single-quoted
/// otherwise.
fn scalar_text(s: &str) -> String {
    if plain(s) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

/// Whether a string can be written without quotes: no YAML indicator at its start, no `: `
/// or ` #` inside, no surrounding spaces, and not a word or number YAML would convert.
fn plain(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.starts_with(' ') || s.ends_with(' ') {
        return false;
    }
    // A leading `-` is an indicator only before a space (or as a number's sign).
    let custom_key = first == '-' && s[1..].starts_with(|c: char| c.is_ascii_alphabetic());
    if !custom_key
        && ("-?:,[]{}#&*!|>'\"%@`=~".contains(first) || first.is_ascii_digit() || first == '.')
    {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    if s.chars()
        .any(|c| c.is_control() || "[]{},:#'\"".contains(c))
    {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    !matches!(
        lower.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_nested_maps_lists_and_scalars() {
        let n = Node::map()
            .with("meta", Node::map().with("id", Node::str("hurray")))
            .with(
                "seq",
                Node::List(vec![
                    Node::map().with("id", Node::str("magic")).with(
                        "contents",
                        Node::Flow(vec![Node::Hex(0x48), Node::Hex(0x52)]),
                    ),
                    Node::map()
                        .with("id", Node::str("rank"))
                        .with("type", Node::str("u4"))
                        .with("valid", Node::map().with("max", Node::Int(64))),
                ]),
            )
            .with("empty", Node::map());
        assert_eq!(
            document(&n),
            "meta:\n  id: hurray\nseq:\n  - id: magic\n    contents: [0x48, 0x52]\n  - id: rank\n    type: u4\n    valid:\n      max: 64\nempty: {}\n"
        );
    }

    #[test]
    fn quotes_what_yaml_would_read_otherwise() {
        assert_eq!(scalar_text("fixed_header.rank"), "fixed_header.rank");
        assert_eq!(scalar_text("layout::strided"), "'layout::strided'");
        assert_eq!(scalar_text("yes"), "'yes'");
        assert_eq!(scalar_text("0.5"), "'0.5'");
        assert_eq!(scalar_text("it's"), "'it''s'");
        assert_eq!(scalar_text("_io.size - 40"), "_io.size - 40");
        assert_eq!(scalar_text("a [b]"), "'a [b]'");
        assert_eq!(scalar_text(""), "''");
        assert_eq!(key_text("0x1f"), "0x1f");
        assert_eq!(key_text("_"), "_");
        assert_eq!(key_text("-orig-id"), "-orig-id");
        assert_eq!(scalar_text("-1"), "'-1'");
    }

    #[test]
    fn writes_a_multi_line_string_as_a_literal_block() {
        let n = Node::map().with("doc", Node::str("one\n\ntwo"));
        assert_eq!(document(&n), "doc: |-\n  one\n\n  two\n");
    }
}
