//! The spec amendment rules that compare the spec with its released history, one function
//! each, each quoting its rule (versioning.txt, § Spec Amendment Rules; ADR-019): S1 without
//! amendment, S2 and S5. The rules that judge one spec on its own (S1's range, S3, S4, S6)
//! run with the model's validation (`validate::amendment`).

use std::path::Path;

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::model::*;
use crate::source::{SourceMap, Span};

use super::snapshot::{SField, SSpace, SStructure, Snapshot, SpanIndex, key};
use super::witness;

/// S1 and commitment 7: "Any new public tag value … MUST be added by a spec amendment that
/// increments the appropriate minor version." An item that is not in the base record cannot
/// claim a version the base already covers: its `since` is the version this amendment declares.
pub fn s1_without_amendment(
    what: &str,
    style: AxisStyle,
    since: Version,
    declared: Version,
    base: Version,
    span: Option<Span>,
    diags: &mut Diagnostics,
) {
    if since <= base {
        diags.push(
            Diagnostic::new(
                &lints::S1_WITHOUT_AMENDMENT,
                span,
                format!(
                    "{what} is not in release {} but claims `since` {}",
                    style.show(base),
                    style.show(since)
                ),
            )
            .help(s1_help(style, declared, base)),
        );
    }
}

/// The help of an S1 finding: the version the addition needs. An addition is a MINOR change,
/// so it needs the next minor after the release, unless the axis already declares a later
/// version (the amendment under way), which is then the one.
fn s1_help(style: AxisStyle, declared: Version, base: Version) -> String {
    match base.next_minor() {
        Some(next) if declared <= base => format!(
            "an addition belongs to the amendment that makes it: set `since = {}` and the axis's `current = {}` (the next minor after release {})",
            style.toml_literal(next),
            style.toml_literal(next),
            style.show(base)
        ),
        _ => format!(
            "an addition belongs to the amendment that makes it: set `since = {}` (the version the axis declares for this amendment)",
            style.toml_literal(declared)
        ),
    }
}

/// S2 (Anti-rebind): "An allocated public tag value MUST NOT be rebound to a different meaning
/// within the same major version, even after deprecation." Checked against every release
/// record, for values, flag bits, and the ranges of each space (commitments 1 and 2).
pub fn s2_anti_rebind(
    current: &Snapshot,
    spans: &SpanIndex,
    records: &[(String, &Snapshot)],
    axes: super::axis_names::AxisNames<'_>,
    diags: &mut Diagnostics,
) {
    let mut reported = std::collections::HashSet::new();
    // S2 binds within a major version: a record of another major may be remapped (S5). A
    // scheme axis lives under the descriptor major (RES-6).
    let same_major = |rec: &Snapshot, axis: &str| {
        let major = |s: &Snapshot| match s.version(axis)? {
            (AxisStyle::Scheme, _) => s.version(axes.scheme_parent).map(|(_, v)| v.major),
            (_, v) => Some(v.major),
        };
        major(rec) == major(current)
    };
    for (label, rec) in records {
        for rs in &rec.space {
            let Some(cs) = current.space(&rs.name) else {
                continue;
            };
            if !same_major(rec, &rs.axis) {
                continue;
            }
            for rt in &rs.tag {
                let Some(ct) = cs.tag.iter().find(|t| t.value == rt.value) else {
                    continue;
                };
                if (ct.name != rt.name || ct.identity != rt.identity)
                    && reported.insert(key::tag(&rs.name, rt.value))
                {
                    let span = spans.get(&key::tag(&cs.name, ct.value)).copied();
                    let was = if ct.name != rt.name {
                        format!("`{}`", rt.name)
                    } else {
                        format!("`{}` with {}", rt.name, rt.identity)
                    };
                    let now = if ct.name != rt.name {
                        format!("`{}`", ct.name)
                    } else {
                        ct.identity.to_string()
                    };
                    diags.push(
                        Diagnostic::new(&lints::S2_REBIND, span, format!("`{}` value {:#04x} was {was} in release {label}; it is now {now}", rs.name, rt.value))
                            .help("S2: an allocated value keeps its meaning for the whole major version, even after deprecation; allocate a new value instead and deprecate this one (S3)")
                            .witness(witness::tag(rs, rt, Some(ct))),
                    );
                    if !rt.deprecated_since.is_empty() || !ct.deprecated_since.is_empty() {
                        diags.push(
                            Diagnostic::new(&lints::S3_DEPRECATED_MEANING_CHANGED, span, format!("deprecated value `{}` ({:#04x}) changed meaning", rt.name, rt.value))
                                .help("R3: a deprecated value reads exactly as its original meaning; deprecation never changes wire semantics"),
                        );
                    }
                }
            }
            ranges(rs, cs, spans, label, &mut reported, diags);
        }
        for rf in &rec.flags {
            let Some(cf) = current.flag_set(&rf.name) else {
                continue;
            };
            if !same_major(rec, &rf.axis) {
                continue;
            }
            for rb in &rf.bit {
                let Some(cb) = cf.bit.iter().find(|b| b.bit == rb.bit) else {
                    continue;
                };
                if cb.name != rb.name && reported.insert(key::bit(&rf.name, rb.bit)) {
                    diags.push(
                        Diagnostic::new(&lints::S2_REBIND, spans.get(&key::bit(&cf.name, cb.bit)).copied(), format!("bit {} of `{}` was `{}` in release {label}; it is now `{}`", rb.bit, rf.name, rb.name, cb.name))
                            .help("S2: an allocated flag bit keeps its meaning for the whole major version; allocate a reserved bit instead"),
                    );
                }
            }
        }
    }
}

/// S2's range half (commitments 1 and 2): a released range keeps its boundaries and its use.
/// Each range is reported once, against the newest record that has it (`reported` holds what
/// was reported already).
fn ranges(
    rs: &SSpace,
    cs: &SSpace,
    spans: &SpanIndex,
    label: &str,
    reported: &mut std::collections::HashSet<String>,
    diags: &mut Diagnostics,
) {
    for rr in &rs.range {
        if cs.range.iter().any(|cr| cr == rr) {
            continue;
        }
        let once = format!(
            "{}:{:#x}:{:#x}:{}",
            key::space(&rs.name),
            rr.from,
            rr.to,
            rr.kind
        );
        if !reported.insert(once) {
            continue;
        }
        let span = cs
            .range
            .iter()
            .position(|cr| cr.from <= rr.from && rr.from <= cr.to)
            .and_then(|i| spans.get(&key::range(&cs.name, i)).copied())
            .or_else(|| spans.get(&key::space(&cs.name)).copied());
        let (lint, help) = if rr.kind == "private" {
            (
                &lints::S2_PRIVATE_RECLAIMED,
                "commitment 2: a private range stays implementation-private for the whole major version",
            )
        } else {
            (
                &lints::S2_RANGE_CHANGED,
                "commitment 1: a released range keeps its boundaries and intended use; allocate values inside it instead of reshaping it",
            )
        };
        diags.push(
            Diagnostic::new(
                lint,
                span,
                format!(
                    "`{}` range {:#x}–{:#x} ({}) of release {label} is gone or changed",
                    rs.name, rr.from, rr.to, rr.kind
                ),
            )
            .help(help),
        );
    }
}

/// The fix S6 gives for a field placed where older readers parse existing bytes.
pub use crate::validate::amendment::S6_FIX;

/// A released field that changed: an S6 witness of what old bytes now read as.
pub fn layout_witness(
    old: &Snapshot,
    new: &Snapshot,
    so: &SStructure,
    sn: &SStructure,
) -> Option<crate::diag::Witness> {
    witness::layout(old, new, so, sn)
}

/// A classified change after which a reader of the base release does not do what
/// FORWARD_ADDITIVE promises: the change's axis, its place, and what that reader would do.
#[derive(Clone, Copy, Debug)]
pub struct PriorReading<'a> {
    pub axis: &'a str,
    pub span: Option<Span>,
    pub reading: &'a str,
}

/// CD2 (FORWARD_ADDITIVE), ADR-019's spec-checker item 6, "FORWARD_ADDITIVE preserved for
/// prior-minor readers": "A reader at minor M reading data written at minor N > M MUST
/// correctly parse every field defined at minor M … The reader MUST reject the data when it
/// encounters any flag bit or public tag value not defined at minor M." Checked over the
/// classified changes: on every axis the amendment keeps within the released major (an axis
/// bumped to the next major answers to CD3, CD4 and S5 instead), each change after which a
/// reader of the release mis-parses a field it knows, or accepts a feature it does not know,
/// is reported; a released field an S6-forbidden addition moves is reported at the addition.
pub fn cd2_forward_additive(
    base: &Snapshot,
    base_label: &str,
    current: &Snapshot,
    prior_readers: &[PriorReading<'_>],
    axes: super::axis_names::AxisNames<'_>,
    diags: &mut Diagnostics,
) {
    // A scheme axis lives under the descriptor major (RES-6).
    let major = |s: &Snapshot, axis: &str| match s.version(axis)? {
        (AxisStyle::Scheme, _) => s.version(axes.scheme_parent).map(|(_, v)| v.major),
        (_, v) => Some(v.major),
    };
    for c in prior_readers {
        if major(base, c.axis).is_none() || major(base, c.axis) != major(current, c.axis) {
            continue;
        }
        let prior = c.reading;
        diags.push(
            Diagnostic::new(
                &lints::FORWARD_ADDITIVE_BROKEN,
                c.span,
                format!(
                    "`{}` stays within its major, but a reader of release {base_label} would {prior}",
                    c.axis
                ),
            )
            .caused_by(c.span)
            .help("CD2, FORWARD_ADDITIVE: \"A reader at minor M reading data written at minor N > M MUST correctly parse every field defined at minor M … The reader MUST reject the data when it encounters any flag bit or public tag value not defined at minor M\": keep every released field where and what it is, and add new content behind a new flag bit or after the last field of a length-prefixed structure (S6); a change that cannot is a major bump (CD3, S5)"),
        );
    }
}

/// A major bump of one axis, for S5: the axis, the major it leaves, the record of that major,
/// and the axis scheme axes live under (their items move with its major, RES-6).
#[derive(Clone, Copy, Debug)]
pub struct MajorBump<'a> {
    pub axis: &'a str,
    pub from_major: u8,
    pub base: &'a Snapshot,
    /// The amended spec: what the migration's `to`s name.
    pub cur: &'a Snapshot,
    pub scheme_parent: &'a str,
}

/// What the runtime can follow of a cross-major field type change. Generated code follows
/// any type; the hand-written layer reads a released field by its kind: an integer through
/// `semantic::size::Integer` (any integer type, so `u64` → `i64` compiles and a negative
/// value is a rejection), a float as a float, anything else as it is. A field that keeps its
/// name at the next major but changes kind (an integer turned float or bytes, a float turned
/// integer) would be a compile error in the runtime, so it is a finding here, at the field:
/// a field of another kind is a new field, with a name of its own, and the old one is
/// dropped (or mapped) by the migration.
pub fn runtime_field_kind(bump: &MajorBump<'_>, spans: &SpanIndex, diags: &mut Diagnostics) {
    fn kind(ty: &str) -> &str {
        let bits = ty.get(1..).is_some_and(|b| b.parse::<u32>().is_ok());
        match ty.chars().next() {
            Some('u' | 'i') if bits => "an integer",
            Some('f') if bits => "a float",
            _ => ty,
        }
    }
    let numeric = |k: &str| k == "an integer" || k == "a float";
    for old in bump
        .base
        .structure
        .iter()
        .filter(|s| super::migration::under(bump.base, bump.axis, &s.axis, bump.scheme_parent))
    {
        let Some(new) = bump.cur.structure.iter().find(|s| s.name == old.name) else {
            continue;
        };
        for f in &old.field {
            let Some(g) = new.field.iter().find(|g| g.name == f.name) else {
                continue;
            };
            let (was, is) = (kind(&f.ty), kind(&g.ty));
            if was == is || !(numeric(was) || numeric(is)) {
                continue;
            }
            let at = spans.get(&key::field(&old.name, &f.name)).copied();
            diags.push(
                Diagnostic::new(
                    &lints::RUNTIME_FIELD_KIND,
                    at,
                    format!(
                        "field `{}.{}` was {was} (`{}`) and is {is} (`{}`) at major {}: the runtime reads a released field by its kind and cannot follow",
                        old.name,
                        f.name,
                        f.ty,
                        g.ty,
                        u16::from(bump.from_major) + 1
                    ),
                )
                .help(format!(
                    "S5: give the field of the new kind a name of its own and drop (or map) `{}.{}` in the migration; an integer may change to any integer type, a float to any float type (spec/README.md, \"What the runtime follows\")",
                    old.name, f.name
                )),
            );
        }
    }
}

/// S5 (Migration commitment): "A future major version MUST be accompanied by a normative
/// migration specification mapping the prior major version's encoding onto the new major
/// version's encoding for every field, flag bit, and tag value that survives the transition."
/// `spec/migrations/<axis>-<K>-to-<K+1>.toml` must exist and map (or drop) every item of the
/// base record on that axis, and mean something: every entry names an item of major K, every
/// `to` an item of major K+1 whose type can hold the value, no item is mapped twice or both
/// mapped and dropped, and a carried space, flag set or structure has no changed item
/// (`migration::problems`). Every unmapped item is listed.
pub fn s5_migration(
    spec_dir: &Path,
    bump: MajorBump<'_>,
    span: Option<Span>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) {
    let MajorBump {
        axis,
        from_major,
        base,
        cur,
        scheme_parent,
    } = bump;
    let to = u16::from(from_major) + 1;
    let name = format!("{axis}-{from_major}-to-{to}.toml");
    let path = spec_dir.join(super::migration::DIR).join(&name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        diags.push(
            Diagnostic::new(&lints::S5_MISSING_MIGRATION, span, format!("axis `{axis}` goes to major {to} without a migration specification"))
                .help(format!("S5: write {}, mapping every field, flag bit and tag value of major {from_major} to major {to} (or marking it dropped)", crate::load::display_path(&path))),
        );
        return;
    };
    let file = sources.add(crate::load::display_path(&path), path.clone(), text);
    let parsed: Result<super::migration::Migration, _> = toml::from_str(&sources.get(file).text);
    let m = match parsed {
        Ok(m) => m,
        Err(e) => {
            diags.push(
                Diagnostic::new(
                    &lints::TOML_SYNTAX,
                    e.span().map(|r| Span::new(file, r)),
                    e.message().to_string(),
                )
                .help(format!(
                    "see {} for the migration format",
                    crate::load::display_path(
                        &spec_dir.join(super::migration::DIR).join("README.md")
                    )
                )),
            );
            return;
        }
    };
    for p in super::migration::problems(&m, base, cur, axis, scheme_parent) {
        diags.push(Diagnostic::new(p.lint, Some(Span::new(file, p.span)), p.message).help(p.help));
    }
    let missing = super::migration::unmapped(&m, base, axis, scheme_parent);
    if !missing.is_empty() {
        diags.push(
            Diagnostic::new(
                &lints::S5_INCOMPLETE_MIGRATION,
                Some(Span::new(file, 0..0)),
                format!(
                    "the migration of `{axis}` {from_major}→{to} leaves {} item(s) unmapped",
                    missing.len(),
                ),
            )
            .help(format!(
                "S5: map every item of the prior major to the new one, or mark it `dropped = true` \
                 (`hurray-spec migration {axis}` writes every entry for you to fill); unmapped: {}",
                missing.join(", ")
            )),
        );
    }
}

/// The base record's fields and bits, for S5 and the classification.
pub fn field_key(s: &SStructure, f: &SField) -> String {
    format!("{}.{}", s.name, f.name)
}
