//! Every check the tokens alone allow, one function per rule: the versions a field may
//! declare (CD3), S6 ordering and framing, S4 defaults, reserved fields. Facts that need sizes
//! become const assertions in the expansion instead. Each mistake is reported once: a field
//! whose `since` is itself wrong takes no part in the checks that compare versions.

use crate::ast::{FieldDef, Section, Version};
use crate::ctxt::Ctxt;

/// Validate a parsed section, reporting into `cx`.
pub fn validate(cx: &Ctxt, s: &Section) {
    if s.fields.is_empty() {
        cx.error_at(s.span, "a section needs at least one field");
    }
    // The version of each field, or `None` when its own attributes are wrong (and reported).
    let sinces: Vec<Option<Version>> = s
        .fields
        .iter()
        .map(|f| {
            let fine = since_not_before_base(cx, s, f)
                && cd3_since_in_base_major(cx, s, f)
                && (!f.reserved || reserved_field_is_always_zero(cx, s, f));
            fine.then(|| f.since(s.base))
        })
        .collect();
    for (i, f) in s.fields.iter().enumerate() {
        match sinces[i] {
            Some(since) if !f.reserved && since > s.base => {
                s6_appended_field_trails(cx, s, i, &sinces);
                s4_appended_field_has_default(cx, f, since);
            }
            Some(_) if !f.reserved => base_field_has_no_default(cx, s, f),
            _ => {}
        }
    }
    s6_appended_fields_need_length_prefix(cx, s, &sinces);
    own_length_prefix(cx, s);
}

/// `#[hurray(length_prefix)]`: one field at most holds the section's own length prefix, of a
/// length-prefixed section, in its base version and not reserved (the writer computes it).
fn own_length_prefix(cx: &Ctxt, s: &Section) {
    let marked: Vec<&FieldDef> = s
        .fields
        .iter()
        .filter(|f| f.length_prefix.is_some())
        .collect();
    for (k, f) in marked.iter().enumerate() {
        let Some(span) = f.length_prefix else {
            continue;
        };
        let name = &f.ident;
        let problem = if k > 0 {
            Some(format!(
                "field `{name}`: a section has one length prefix, and `{}` is it already",
                marked[0].ident
            ))
        } else if !s.length_prefixed {
            Some(format!(
                "field `{name}` is a length prefix, but the section is fixed; add #[hurray(length_prefixed)] to the struct"
            ))
        } else if f.reserved || f.since.is_some_and(|(v, _)| v > s.base) {
            Some(format!(
                "field `{name}`: a length prefix is a field of the section's base version that is not reserved"
            ))
        } else {
            None
        };
        if let Some(p) = problem {
            cx.error_at(span, p);
        }
    }
}

/// A field cannot predate the section it belongs to.
fn since_not_before_base(cx: &Ctxt, s: &Section, f: &FieldDef) -> bool {
    let (base, name) = (s.base, &f.ident);
    match f.since {
        Some((v, span)) if v < base => {
            cx.error_at(
                span,
                format!(
                    "field `{name}` is `since` {v}, before the section's base version {base}; set #[hurray(base = \"{v}\")] or a later `since`"
                ),
            );
            false
        }
        _ => true,
    }
}

/// CD3: "A reader supporting major K on a given axis MUST reject data whose major version on
/// that axis is K + 1 or higher." A field `since` another major than its section's base would
/// never be read as an appended field by the section's readers: the new major is a new
/// section, not an amendment of this one.
fn cd3_since_in_base_major(cx: &Ctxt, s: &Section, f: &FieldDef) -> bool {
    let (base, name) = (s.base, &f.ident);
    match f.since {
        Some((v, span)) if v.major != base.major => {
            cx.error_at(
                span,
                format!(
                    "CD3: field `{name}` is `since` {v}, a new major of a section based at {base}; readers of major {} reject major-{} data, so a new major is not an appended field: give major {} its own struct with #[hurray(base = \"{}.0\")]",
                    base.major, v.major, v.major, v.major
                ),
            );
            false
        }
        _ => true,
    }
}

/// S6: "A new field in a minor revision MUST be gated by a flag bit, a tag value, or a
/// length-prefixed trailing extension": an appended field trails every field of an earlier
/// version, or older readers read its bytes as the fields that follow.
fn s6_appended_field_trails(cx: &Ctxt, s: &Section, i: usize, sinces: &[Option<Version>]) {
    let (f, since) = (&s.fields[i], sinces[i]);
    let earlier = s.fields[i + 1..]
        .iter()
        .zip(&sinces[i + 1..])
        .find_map(|(g, v)| v.filter(|v| Some(*v) < since).map(|v| (g, v)));
    if let (Some((g, v)), Some(since)) = (earlier, since) {
        cx.error_at(
            f.span,
            format!(
                "S6: field `{}` (since {since}) comes before `{}` (since {v}); a field added in a later version goes after every existing field, or older readers read its bytes as the fields that follow",
                f.ident, g.ident
            ),
        );
    }
}

/// S6: "A minor amendment MUST NOT allocate a new field at a fixed offset that an older
/// reader would parse as part of an existing structure": only a length prefix lets older
/// readers step over appended fields. Reported once, at the first appended field, naming each.
fn s6_appended_fields_need_length_prefix(cx: &Ctxt, s: &Section, sinces: &[Option<Version>]) {
    if s.length_prefixed {
        return;
    }
    let appended: Vec<(&FieldDef, Version)> = s
        .fields
        .iter()
        .zip(sinces)
        .filter_map(|(f, v)| v.filter(|v| *v > s.base).map(|v| (f, v)))
        .collect();
    let Some((first, _)) = appended.first() else {
        return;
    };
    let list = appended
        .iter()
        .map(|(f, v)| format!("`{}` (since {v})", f.ident))
        .collect::<Vec<_>>()
        .join(", ");
    cx.error_at(
        first.span,
        format!(
            "S6: `{}` has no length prefix, so older readers would take its appended fields for what follows: {list}; mark the section #[hurray(length_prefixed)]",
            s.ident
        ),
    );
}

/// S4: "Any new optional trailing field appended to an existing section MUST have a
/// normatively documented default in the same minor revision": the value readers of older
/// data see (R4).
fn s4_appended_field_has_default(cx: &Ctxt, f: &FieldDef, since: Version) {
    if f.default.is_none() {
        cx.error_at(
            f.span,
            format!(
                "S4: field `{}` is added in {since} without a documented default; add #[hurray(default = <value>)], the value readers of older data see",
                f.ident
            ),
        );
    }
}

/// A base field is in every version's data: no reader defaults it.
fn base_field_has_no_default(cx: &Ctxt, s: &Section, f: &FieldDef) {
    if let Some(d) = &f.default {
        cx.error_spanned_by(
            d,
            format!(
                "field `{}` belongs to the section's base version {}; no reader ever defaults it, so remove `default`",
                f.ident, s.base
            ),
        );
    }
}

/// A reserved field is zero in every version: it is neither appended nor defaulted.
fn reserved_field_is_always_zero(cx: &Ctxt, s: &Section, f: &FieldDef) -> bool {
    let fine = f.default.is_none() && f.since.is_none_or(|(v, _)| v <= s.base);
    if !fine {
        cx.error_at(
            f.span,
            format!(
                "reserved field `{}` is always zero: it takes no `since` or `default`",
                f.ident
            ),
        );
    }
    fine
}
