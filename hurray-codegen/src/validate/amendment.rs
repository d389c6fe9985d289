//! The amendment rules that judge one spec on its own, one function each, each quoting its
//! rule (versioning.txt, § Spec Amendment Rules; ADR-019): S1's range, S3, S4 and S6 run on
//! every spec, drafts included. S1 without amendment, S2 and S5 compare with the released
//! history (`amend::rules`).

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::model::*;

use super::defaults::default_fits;

/// S1: "New public tag values MUST be allocated from the documented public reserved range of
/// their tag space … It MUST NOT be allocated from an implementation-private range."
pub fn s1_public_range(space: &TagSpace, t: &Tag, diags: &mut Diagnostics) {
    match space.range_of(t.value) {
        Some(r) if matches!(r.kind, RangeKind::Public { .. }) => {}
        Some(r) => diags.push(
            Diagnostic::new(&lints::S1_OUTSIDE_PUBLIC_RANGE, Some(t.value_span), format!("`{}` = {:#04x} is allocated in a {} range of `{}`", t.name, t.value, r.kind.word(), space.name))
                .label(r.span, "this range")
                .help(match r.kind {
                    RangeKind::Private => "S1: a private range stays implementation-private (commitment 2); allocate the value from a public range",
                    RangeKind::Reserved => "S1: a range reserved for future versions stays closed within the major (commitment 1); allocate from a public range",
                    _ => "S1: invalid values are never allocated; allocate from a public range",
                }),
        ),
        None => diags.report(&lints::S1_OUTSIDE_PUBLIC_RANGE, Some(t.value_span), format!("`{}` = {:#x} is outside every range of `{}`", t.name, t.value, space.name), "S1: allocate from the space's public range"),
    }
}

/// S3 (Deprecation convention): "A deprecated tag table entry MUST be marked 'deprecated since
/// 1.N' and SHOULD point to a replacement." `deprecated_since` lies between the value's
/// `since` and the current version; a missing one is reported where the TOML is lowered.
pub fn s3_deprecation(
    spec: &Spec,
    axis: AxisId,
    since: Version,
    dep: &Deprecation,
    names: &[(&str, bool)],
    what: &str,
    diags: &mut Diagnostics,
) {
    let a = spec.axis(axis);
    if dep.since < since || dep.since > a.current {
        diags.report(
            &lints::S3_BAD_DEPRECATED_SINCE,
            Some(dep.span),
            format!(
                "{what} is deprecated since {}, outside {}…{} (its `since` … the current version)",
                a.show(dep.since),
                a.show(since),
                a.show(a.current)
            ),
            "S3: deprecated_since is the version whose amendment deprecates the value",
        );
    }
    match &dep.replacement {
        None => diags.report(
            &lints::S3_NO_REPLACEMENT,
            Some(dep.span),
            format!("{what} is deprecated without a replacement"),
            "S3: point writers to the value they should use: add `replacement = \"<name>\"`",
        ),
        Some(r) => match names.iter().find(|(n, _)| n == r) {
            None => diags.report(
                &lints::UNKNOWN_REFERENCE,
                Some(dep.span),
                format!("replacement `{r}` is not allocated in the same space"),
                "name an allocated value of the same space",
            ),
            Some((_, true)) => diags.report(
                &lints::UNKNOWN_REFERENCE,
                Some(dep.span),
                format!("replacement `{r}` is itself deprecated"),
                "W3 needs a non-deprecated equivalent",
            ),
            Some(_) => {}
        },
    }
}

/// The fix S6 gives for a field placed where older readers parse existing bytes, in the
/// seed's words (ADR-019 S6; versioning.txt § Spec Amendment Rules S6).
pub const S6_FIX: &str = "S6: \"A new field in a minor revision MUST be gated by a flag bit, a tag value, or a length-prefixed trailing extension\": put it in a new section gated by a new flag bit, or append it after the last field of a length-prefixed structure";

/// Whether field `i` of `s` is gated by a flag bit allocated with it.
fn gated_by_new_bit(spec: &Spec, f: &Field) -> bool {
    match &f.presence {
        Presence::If(Condition::HasBit(_, set_id, bit)) => spec
            .flag_set(*set_id)
            .bits
            .iter()
            .find(|b| b.bit == *bit)
            .is_some_and(|b| b.since == f.since),
        _ => false,
    }
}

/// S4 (Defaults for trailing fields): "Any new optional trailing field appended to an existing
/// section MUST have a normatively documented default in the same minor revision … Defaults
/// MUST be expressible without reference to other fields in the same descriptor unless that
/// dependency is documented." Field `i` of `s` was appended after the structure's first version.
pub fn s4_default(spec: &Spec, s: &Structure, i: usize, diags: &mut Diagnostics) {
    let f = &s.fields[i];
    if matches!(f.presence, Presence::If(Condition::HasBit(..))) {
        return; // a flag-gated part is absent from older data, not defaulted (S6 judges its gate)
    }
    let axis = spec.axis(s.axis);
    match &f.default {
        None => diags.push(
            Diagnostic::new(&lints::S4_MISSING_DEFAULT, Some(f.span), format!("appended field `{}.{}` ({}) has no documented default", s.name, f.name, axis.show(f.since)))
                .help("S4/R4: add `default = <value>`: the value readers of older data see for this field"),
        ),
        Some(d) => default_fits(spec, s, f, d, true, diags),
    }
}

/// S6 (No fixed-offset additions): "A new field in a minor revision MUST be gated by a flag
/// bit, a tag value, or a length-prefixed trailing extension. A minor amendment MUST NOT
/// allocate a new field at a fixed offset that an older reader would parse as part of an
/// existing structure." Field `i` of `s` is new in a minor revision.
pub fn s6_gating(spec: &Spec, s: &Structure, i: usize, diags: &mut Diagnostics) {
    let f = &s.fields[i];
    let axis = spec.axis(s.axis);
    if let Presence::If(Condition::HasBit(_, set_id, bit)) = &f.presence {
        if !gated_by_new_bit(spec, f) {
            let b = spec.flag_set(*set_id).bits.iter().find(|b| b.bit == *bit);
            diags.push(
                Diagnostic::new(&lints::S6_UNGATED_SECTION, Some(f.span), format!("new part `{}.{}` ({}) is gated by `{}`, a bit older readers already know", s.name, f.name, axis.show(f.since), b.map_or("?", |b| b.name.as_str())))
                    .help("S6: \"A new field in a minor revision MUST be gated by a flag bit\" that older readers do not know: allocate a new bit in the same minor revision and gate the section by it, so older readers reject data that uses it (CD2)"),
            );
        }
        return;
    }
    if let Some(next) = s.fields[i + 1..].iter().find(|g| g.since < f.since) {
        diags.push(
            Diagnostic::new(
                &lints::S6_INSERTED_FIELD,
                Some(f.span),
                format!(
                    "field `{}` ({}) is inserted before `{}` ({})",
                    f.name,
                    axis.show(f.since),
                    next.name,
                    axis.show(next.since)
                ),
            )
            .label(next.span, "an existing field that would move")
            .help(format!(
                "{S6_FIX} (older readers would parse these bytes as the fields that used to follow)"
            )),
        );
    } else if !s.framing.is_length_prefixed() {
        diags.push(
            Diagnostic::new(
                &lints::S6_FIXED_OFFSET_ADDITION,
                Some(f.span),
                format!(
                    "field `{}` ({}) extends `{}`, which has no length prefix",
                    f.name,
                    axis.show(f.since),
                    s.name
                ),
            )
            .label(s.framing_span, "framed as fixed here")
            .help(format!(
                "{S6_FIX} (older readers would parse it as the start of what follows)"
            )),
        );
    }
}
