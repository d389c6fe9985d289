//! Spec fixtures: an overlay of the real spec/ tree (or of another base), materialized in a
//! scratch directory; and the stable form of a fixture's diagnostics.

use std::fmt::Write as _;
use std::path::Path;

use super::root;
pub use hurray_codegen::overlay::{Materialized, copy_dir as copy_tree};

/// Copy a directory tree (panics on failure).
pub fn copy_dir(from: &Path, to: &Path) {
    copy_tree(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
}

/// Build the edited spec tree of a fixture under `work`, on the repository's spec/.
pub fn materialize(fixture_dir: &Path, work: &Path) -> Materialized {
    materialize_on(&root().join("spec"), fixture_dir, work)
}

/// Build the edited spec tree of a fixture under `work`, on the spec tree `base`.
pub fn materialize_on(base: &Path, fixture_dir: &Path, work: &Path) -> Materialized {
    hurray_codegen::overlay::materialize(base, &fixture_dir.join("edit.toml"), work)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Where a span points, in terms that survive a legal amendment of the spec: the path of the
/// TOML item at the span (`spec.toml:axis[descriptor].current`,
/// `tags/device.toml:tag[opencl]`), entries of a list named by their `name` or `id` (or
/// else their index); `None` where the span is on no item (a comment, the start of a file).
pub fn item_at(text: &str, offset: usize) -> Option<String> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    // A table written as a `[header]` has a span covering its header only: the item at an
    // offset is in the last table that starts at or before it and holds it.
    let mut tables = vec![(0, String::new(), doc.get_ref())];
    collect_tables(doc.get_ref(), "", &mut tables);
    tables.sort_by_key(|(start, _, _)| *start);
    for (start, path, table) in tables.iter().rev().filter(|(s, _, _)| *s <= offset) {
        let mut inner = path.clone();
        if find_key(table, offset, &mut inner) {
            return Some(inner);
        }
        if *start == offset && !path.is_empty() {
            return Some(path.clone());
        }
    }
    None
}

fn contains(span: std::ops::Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset < span.end.max(span.start + 1)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// How an entry of a list is named: its `name` or `id`, else its index.
fn entry_name(item: &toml::Spanned<toml::de::DeValue<'_>>, index: usize) -> String {
    let named = match item.get_ref() {
        toml::de::DeValue::Table(t) => ["name", "id"].iter().find_map(|k| {
            t.iter().find_map(|(key, v)| match v.get_ref() {
                toml::de::DeValue::String(s) if key.get_ref() == k => Some(s.to_string()),
                _ => None,
            })
        }),
        _ => None,
    };
    format!("[{}]", named.unwrap_or_else(|| index.to_string()))
}

/// Every table below `table`, with where it starts and its path.
fn collect_tables<'t, 'i>(
    table: &'t toml::de::DeTable<'i>,
    path: &str,
    out: &mut Vec<(usize, String, &'t toml::de::DeTable<'i>)>,
) {
    for (key, value) in table {
        let here = join(path, key.get_ref());
        match value.get_ref() {
            toml::de::DeValue::Table(t) => {
                out.push((value.span().start, here.clone(), t));
                collect_tables(t, &here, out);
            }
            toml::de::DeValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let toml::de::DeValue::Table(t) = item.get_ref() {
                        let p = format!("{here}{}", entry_name(item, i));
                        out.push((item.span().start, p.clone(), t));
                        collect_tables(t, &p, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Extend `path` with the key of `table` (and the items inside its value) at `offset`.
fn find_key(table: &toml::de::DeTable<'_>, offset: usize, path: &mut String) -> bool {
    for (key, value) in table {
        if contains(key.span(), offset) {
            *path = join(path, key.get_ref());
            return true;
        }
        if contains(value.span(), offset) && !value.span().is_empty() {
            *path = join(path, key.get_ref());
            find_in_value(value, offset, path);
            return true;
        }
    }
    false
}

fn find_in_value(value: &toml::Spanned<toml::de::DeValue<'_>>, offset: usize, path: &mut String) {
    match value.get_ref() {
        toml::de::DeValue::Table(t) => {
            find_key(t, offset, path);
        }
        toml::de::DeValue::Array(items) => {
            if let Some((i, item)) = items
                .iter()
                .enumerate()
                .find(|(_, item)| contains(item.span(), offset))
            {
                path.push_str(&entry_name(item, i));
                find_in_value(item, offset, path);
            }
        }
        _ => {}
    }
}

/// Where a diagnostic points: the file relative to the spec tree and the item (see
/// [`item_at`]), or `-` for a finding about no place.
pub fn location(
    sources: &hurray_codegen::source::SourceMap,
    spec: &Path,
    d: &hurray_codegen::diag::Diagnostic,
) -> String {
    d.span.map_or_else(
        || "-".to_string(),
        |s| {
            let f = sources.get(s.file);
            let rel = f
                .path
                .strip_prefix(spec)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| f.display.clone());
            let at = item_at(&f.text, s.start as usize)
                .unwrap_or_else(|| f.line_col(s.start as usize).to_string());
            format!("{rel}:{at}")
        },
    )
}

/// One line per diagnostic: level, lint, where (see [`location`]) and message.
pub fn short(
    sources: &hurray_codegen::source::SourceMap,
    spec: &Path,
    diags: &[hurray_codegen::diag::Diagnostic],
) -> String {
    let mut out = String::new();
    for d in diags {
        let _ = writeln!(
            out,
            "{}[{}] {}: {}",
            d.level.as_str(),
            d.lint.id,
            location(sources, spec, d),
            d.message
        );
    }
    out
}
