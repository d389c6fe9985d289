//! Kaitai expressions for the model's paths, conditions and checks: a field path is a chain
//! of field ids, a tag compares through its enum, a flag bit through its flag type's boolean
//! instance (or a mask on a plain integer), and each table check becomes a `valid` key or a
//! boolean expression over `_`, the value being read.

use crate::model::*;

use super::names::Names;
use super::yaml::Node;

/// The expression reading the field a path names, from the path's root structure.
pub(super) fn path(spec: &Spec, names: &Names, p: &FieldPath) -> String {
    let mut parts = Vec::new();
    let mut structure = p.root;
    for &step in &p.steps {
        parts.push(names.field(structure, step).to_string());
        if let FieldType::Struct(next) = spec.structure(structure).fields[step].ty {
            structure = next;
        }
    }
    parts.join(".")
}

/// The enum literal of a tag value (`layout::strided`), when the value is allocated.
pub(super) fn enum_literal(
    spec: &Spec,
    names: &Names,
    space: SpaceId,
    value: u32,
) -> Option<String> {
    spec.space(space)
        .tag_by_value(value)
        .map(|t| format!("{}::{}", names.space(space), t.name))
}

/// An integer literal: hexadecimal from 0x10000 up, decimal below.
pub(super) fn int(n: i128) -> String {
    if n >= 0x10000 {
        format!("{n:#x}")
    } else {
        n.to_string()
    }
}

fn literal(l: &Lit) -> String {
    match l {
        Lit::Int(n) => int(*n),
        Lit::Float(x) => format!("{x:?}"),
    }
}

/// A literal as a YAML value: an integer as a number (hexadecimal from 0x10000 up), a float as
/// the expression text.
fn literal_node(l: &Lit) -> Node {
    match l {
        Lit::Int(n) => int_node(*n),
        Lit::Float(x) => Node::str(format!("{x:?}")),
    }
}

/// An integer as a YAML number.
pub(super) fn int_node(n: i128) -> Node {
    match u64::try_from(n) {
        Ok(h) if h >= 0x10000 => Node::Hex(h),
        _ => Node::Int(n),
    }
}

/// `(x)` unless `x` is a single term.
fn group(x: &str) -> String {
    if x.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_.:".contains(c))
    {
        x.to_string()
    } else {
        format!("({x})")
    }
}

/// `a and b and …`, each part grouped.
pub(super) fn all(parts: &[String]) -> String {
    match parts {
        [one] => one.clone(),
        _ => parts
            .iter()
            .map(|p| group(p))
            .collect::<Vec<_>>()
            .join(" and "),
    }
}

/// A condition on an earlier field, as a boolean expression in the structure the path starts
/// from.
pub(super) fn condition(spec: &Spec, names: &Names, c: &Condition) -> String {
    let target = path(spec, names, c.path());
    let field = spec.resolve(c.path());
    match c {
        Condition::Equals(_, v) | Condition::NotEquals(_, v) => {
            let op = if matches!(c, Condition::Equals(..)) {
                "=="
            } else {
                "!="
            };
            match &field.ty {
                FieldType::Tag(space) => match u32::try_from(*v)
                    .ok()
                    .and_then(|v| enum_literal(spec, names, *space, v))
                {
                    Some(literal) => format!("{target} {op} {literal}"),
                    None => format!("{target}.to_i {op} {}", int(*v)),
                },
                _ => format!("{target} {op} {}", int(*v)),
            }
        }
        Condition::HasBit(_, set, bit) | Condition::LacksBit(_, set, bit) => {
            let has = matches!(c, Condition::HasBit(..));
            match (&field.ty, names.bit(spec, *set, *bit)) {
                (FieldType::Flags(_), Some(name)) if has => format!("{target}.{name}"),
                (FieldType::Flags(_), Some(name)) => format!("not {target}.{name}"),
                _ => {
                    let value = match field.ty {
                        FieldType::Flags(_) => format!("{target}.{}", super::names::FLAGS_VALUE),
                        _ => target,
                    };
                    let op = if has { "!=" } else { "==" };
                    format!("({value} & {}) {op} 0", int(1i128 << bit))
                }
            }
        }
        Condition::InRange(_, a, b) => {
            let value = match field.ty {
                FieldType::Tag(_) => format!("{target}.to_i"),
                _ => target,
            };
            format!(
                "{value} >= {} and {value} <= {}",
                int(i128::from(*a)),
                int(i128::from(*b))
            )
        }
    }
}

/// The values of a tag space a reader can read: every allocated value, and the private
/// ranges (implementation-private values are agreed out of band, which this description
/// cannot know; it reads them as the tables frame them). A private range of a space that
/// dispatches but selects no structure cannot be read at all and is left out. `None` when
/// every value of the width is readable.
pub(super) fn readable_values(spec: &Spec, space: SpaceId, value: &str) -> Option<String> {
    let s = spec.space(space);
    let mut intervals: Vec<(u64, u64)> = s
        .tags
        .iter()
        .map(|t| (u64::from(t.value), u64::from(t.value)))
        .collect();
    let dispatches = spec.dispatched(space);
    intervals.extend(
        s.ranges
            .iter()
            .filter(|r| r.kind == RangeKind::Private && (!dispatches || r.structure.is_some()))
            .map(|r| (u64::from(r.from), u64::from(r.to))),
    );
    intervals.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (from, to) in intervals {
        match merged.last_mut() {
            Some(last) if from <= last.1 + 1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    let max = s.width.max();
    if merged == [(0, max)] {
        return None;
    }
    let terms: Vec<String> = merged
        .iter()
        .map(|&(from, to)| match (from, to) {
            (a, b) if a == b => format!("{value} == {}", int(i128::from(a))),
            (0, b) => format!("{value} <= {}", int(i128::from(b))),
            (a, b) if b == max => format!("{value} >= {}", int(i128::from(a))),
            (a, b) => format!(
                "{value} >= {} and {value} <= {}",
                int(i128::from(a)),
                int(i128::from(b))
            ),
        })
        .collect();
    Some(match terms.as_slice() {
        [one] => one.clone(),
        _ => terms
            .iter()
            .map(|t| group(t))
            .collect::<Vec<_>>()
            .join(" or "),
    })
}

/// A check as Kaitai states it.
#[derive(Debug)]
pub(super) enum Valid {
    /// Fixed bytes: `contents`.
    Contents(Vec<u8>),
    /// A test of the value: as `valid` keys (`min: 20`, `any-of: […]`) when it is one of
    /// Kaitai's simple forms (empty otherwise), and as a boolean expression over `_`.
    Test {
        keys: Vec<(&'static str, Node)>,
        expr: String,
    },
}

/// The operand of a check: a param or an earlier field of the structure.
fn operand(names: &Names, structure: StructId, o: &Operand) -> String {
    match o {
        Operand::Param(p) => p.clone(),
        Operand::Field(i) => names.field(structure, *i).to_string(),
    }
}

/// A table check on field `field` of `structure`, or `None` for a warning (which rejects
/// nothing).
pub(super) fn check(
    spec: &Spec,
    names: &Names,
    structure: StructId,
    field: &Field,
    c: &Check,
) -> Option<Valid> {
    if c.level == CheckLevel::Warn {
        return None;
    }
    let tag = match field.ty {
        FieldType::Tag(space) => Some(space),
        _ => None,
    };
    let value = if tag.is_some() { "_.to_i" } else { "_" };
    // A tag value as its enum literal, when it is allocated.
    let tag_literal =
        |n: i128| tag.and_then(|s| enum_literal(spec, names, s, u32::try_from(n).ok()?));
    if let (CheckKind::Bytes(b), None) = (&c.kind, &c.when) {
        return Some(Valid::Contents(b.clone()));
    }
    let keys: Vec<(&'static str, Node)> = match (&c.kind, tag) {
        _ if c.when.is_some() => Vec::new(),
        (CheckKind::Equals(Lit::Int(n)), Some(_)) => tag_literal(*n)
            .map(|l| vec![("eq", Node::str(l))])
            .unwrap_or_default(),
        (CheckKind::Equals(Lit::Int(n)), None) => vec![("eq", int_node(*n))],
        (CheckKind::Min(l), None) => vec![("min", literal_node(l))],
        (CheckKind::Max(l), None) => vec![("max", literal_node(l))],
        (CheckKind::Range(a, b), None) => vec![("min", literal_node(a)), ("max", literal_node(b))],
        (CheckKind::OneOf(values), Some(_)) => values
            .iter()
            .map(|v| tag_literal(*v).map(Node::str))
            .collect::<Option<Vec<Node>>>()
            .map(|items| vec![("any-of", Node::List(items))])
            .unwrap_or_default(),
        (CheckKind::OneOf(values), None) => {
            vec![(
                "any-of",
                Node::Flow(values.iter().map(|v| int_node(*v)).collect()),
            )]
        }
        (CheckKind::SameAs(o), None) => vec![("eq", Node::str(operand(names, structure, o)))],
        _ => Vec::new(),
    };
    let test = check_expr(names, structure, &c.kind, value, tag_literal);
    let expr = match &c.when {
        None => test,
        Some(w) => format!(
            "not {} or {}",
            group(&condition(spec, names, w)),
            group(&test)
        ),
    };
    Some(Valid::Test { keys, expr })
}

/// A check as a boolean expression over `value`.
fn check_expr(
    names: &Names,
    structure: StructId,
    kind: &CheckKind,
    value: &str,
    tag_literal: impl Fn(i128) -> Option<String>,
) -> String {
    let v = value;
    match kind {
        CheckKind::Bytes(b) => format!(
            "_ == [{}]",
            b.iter()
                .map(|x| format!("{x:#04x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        CheckKind::Equals(Lit::Int(n)) => match tag_literal(*n) {
            Some(l) => format!("_ == {l}"),
            None => format!("{v} == {}", int(*n)),
        },
        CheckKind::Equals(l) => format!("{v} == {}", literal(l)),
        CheckKind::NotEquals(l) => format!("{v} != {}", literal(l)),
        CheckKind::Min(l) => format!("{v} >= {}", literal(l)),
        CheckKind::Max(l) => format!("{v} <= {}", literal(l)),
        CheckKind::Range(a, b) => format!("{v} >= {} and {v} <= {}", literal(a), literal(b)),
        CheckKind::OneOf(values) => values
            .iter()
            .map(|x| format!("{v} == {}", int(*x)))
            .collect::<Vec<_>>()
            .join(" or "),
        CheckKind::PowerOfTwo => format!("{v} != 0 and ({v} & ({v} - 1)) == 0"),
        CheckKind::MultipleOf(m) => format!("{v} % {} == 0", int(i128::from(*m))),
        CheckKind::LessThan(o) => format!("{v} < {}", operand(names, structure, o)),
        CheckKind::SameAs(o) => format!("{v} == {}", operand(names, structure, o)),
        // Infinity minus itself and NaN minus anything are NaN, which equals nothing.
        CheckKind::Finite => format!("{v} - {v} == 0.0"),
        CheckKind::NonZero => format!("{v} != 0"),
    }
}

/// The expression over `value` that holds when bit `bit` is clear or every bit of `needs`
/// is set (a bit's `requires`).
pub(super) fn requires(bit: u32, needs: u64, value: &str) -> String {
    let (b, n) = (int(i128::from(1u64 << bit)), int(i128::from(needs)));
    format!("(({value} & {b}) == 0 or ({value} & {n}) == {n})")
}

/// The mask of the bits a flag set does not allocate, as the expression over `value` that
/// holds when none of them is set.
pub(super) fn no_unknown_bits(set: &FlagSet, value: &str) -> Option<String> {
    let reserved = set.reserved_mask();
    (reserved != 0).then(|| format!("({value} & {}) == 0", int(i128::from(reserved))))
}
