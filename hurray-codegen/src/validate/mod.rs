//! Model validation: every check that needs the whole lowered model, including the amendment
//! rules that judge one spec on its own (S1's range, S3, S4, S6: `amendment`). Each check
//! pushes its findings and carries on; nothing here stops at the first problem. The rules
//! that compare the spec with its released history live in `amend`.

pub(crate) mod amendment;
mod defaults;

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::model::*;

/// Run every model check.
pub fn validate(spec: &Spec, diags: &mut Diagnostics) {
    for (i, space) in spec.spaces.iter().enumerate() {
        ranges(space, diags);
        tags(spec, SpaceId(i as u32), diags);
    }
    for flag_set in &spec.flag_sets {
        flag_bits(spec, flag_set, diags);
    }
    for s in &spec.structures {
        structure(spec, s, diags);
    }
    recursion(spec, diags);
    anchors(spec, diags);
    axes(spec, diags);
    draft(spec, diags);
}

/// A file has one start and one end: at most one structure per anchor, and the one at the end
/// has a constant size (a reader finds it by counting back from the file's end).
fn anchors(spec: &Spec, diags: &mut Diagnostics) {
    for &anchor in Anchor::values() {
        let at: Vec<&Structure> = spec
            .structures
            .iter()
            .filter(|s| s.at == Some(anchor))
            .collect();
        for s in at.iter().skip(1) {
            diags.report(
                &lints::DUPLICATE_NAME,
                Some(s.span),
                format!(
                    "`{}` and `{}` are both `at = \"{}\"`",
                    at[0].name,
                    s.name,
                    anchor.word()
                ),
                "a file has one structure at its start and one at its end",
            );
        }
    }
    for s in &spec.structures {
        if s.at == Some(Anchor::End) && s.const_size().is_none() {
            diags.report(
                &lints::BAD_VALUE,
                Some(s.span),
                format!(
                    "`{}` is at the end of a file but has no constant size",
                    s.name
                ),
                "only a structure of constant size can be found from the file's end",
            );
        }
    }
}

fn ranges(space: &TagSpace, diags: &mut Diagnostics) {
    let mut next: u64 = 0;
    for r in &space.ranges {
        if (r.from as u64) > next {
            diags.report(
                &lints::RANGE_COVERAGE,
                Some(r.span),
                format!(
                    "values {next:#x}–{:#x} of `{}` belong to no range",
                    r.from - 1,
                    space.name
                ),
                "every value of the width needs a range: extend a neighbour or add one",
            );
        } else if (r.from as u64) < next {
            diags.report(
                &lints::RANGE_COVERAGE,
                Some(r.span),
                format!(
                    "range starting at {:#x} overlaps the range before it",
                    r.from
                ),
                "ranges are listed in order and do not overlap",
            );
        }
        next = next.max(r.to as u64 + 1);
    }
    if next != space.width.max() + 1 {
        let location = space.ranges.last().map(|r| r.span).unwrap_or(space.span);
        diags.report(
            &lints::RANGE_COVERAGE,
            Some(location),
            format!(
                "the ranges of `{}` end at {:#x}, not at {:#x}",
                space.name,
                next.saturating_sub(1),
                space.width.max()
            ),
            "the last range must reach the largest value of the width",
        );
    }
}

fn since_check(
    spec: &Spec,
    axis: AxisId,
    since: Version,
    location: Option<crate::source::Span>,
    what: &str,
    diags: &mut Diagnostics,
) {
    let a = spec.axis(axis);
    if since > a.current {
        diags.push(
            Diagnostic::new(
                &lints::SINCE_AFTER_CURRENT,
                location,
                format!(
                    "{what} is `since` {} but axis `{}` is at {}",
                    a.show(since),
                    a.name,
                    a.show(a.current)
                ),
            )
            .label(a.current_span, "the axis's current version")
            .help(format!(
                "bump `{}` to {} in spec.toml, or lower `since`",
                a.name,
                a.show(since)
            )),
        );
    }
    if since < a.initial {
        diags.report(
            &lints::SINCE_BEFORE_INITIAL,
            location,
            format!(
                "{what} is `since` {}, before axis `{}` began at {}",
                a.show(since),
                a.name,
                a.show(a.initial)
            ),
            "nothing predates an axis's initial version",
        );
    }
}

fn tags(spec: &Spec, id: SpaceId, diags: &mut Diagnostics) {
    let space = spec.space(id);
    let mut by_value: HashMap<u32, &Tag> = HashMap::new();
    let mut by_name: HashMap<&str, &Tag> = HashMap::new();
    let names: Vec<(&str, bool)> = space
        .tags
        .iter()
        .map(|t| (t.name.as_str(), t.deprecated.is_some()))
        .collect();
    for t in &space.tags {
        if let Some(prev) = by_value.insert(t.value, t) {
            diags.push(
                Diagnostic::new(
                    &lints::DUPLICATE_VALUE,
                    Some(t.value_span),
                    format!(
                        "value {:#04x} of `{}` is allocated to both `{}` and `{}`",
                        t.value, space.name, prev.name, t.name
                    ),
                )
                .label(prev.value_span, "first allocated here")
                .help("a tag value has exactly one meaning (S2); allocate an unused public value"),
            );
        }
        if let Some(prev) = by_name.insert(&t.name, t) {
            diags.push(
                Diagnostic::new(
                    &lints::DUPLICATE_NAME,
                    Some(t.name_span),
                    format!("`{}` names two values of `{}`", t.name, space.name),
                )
                .label(prev.name_span, "first named here")
                .help("rename one of them"),
            );
        }
        amendment::s1_public_range(space, t, diags);
        since_check(
            spec,
            space.axis,
            t.since,
            Some(t.span),
            &format!("`{}`", t.name),
            diags,
        );
        if let Some(dep) = &t.deprecated {
            amendment::s3_deprecation(
                spec,
                space.axis,
                t.since,
                dep,
                &names,
                &format!("`{}`", t.name),
                diags,
            );
        }
        if t.structure.is_some() && !spec.dispatched(id) {
            diags.report(
                &lints::BAD_VALUE,
                Some(t.span),
                "only dispatching spaces name structures",
                "remove `structure`",
            );
        }
        tag_attrs(spec, t, diags);
    }
}

fn tag_attrs(spec: &Spec, t: &Tag, diags: &mut Diagnostics) {
    let names_in = |space: SpaceId| -> Vec<String> {
        spec.space(space)
            .tags
            .iter()
            .map(|t| t.name.clone())
            .collect()
    };
    match &t.attrs {
        TagAttrs::Scheme(a) => {
            let types = names_in(spec.roles.element_type);
            for s in &a.storage {
                if !types.contains(s) {
                    diags.report(
                        &lints::UNKNOWN_REFERENCE,
                        Some(t.span),
                        format!("storage type `{s}` is not an element type"),
                        "name allocated element types",
                    );
                }
            }
            let st = t.structure.map(|id| spec.structure(id));
            // A parameter's index field is read from every payload: every version has it.
            for p in &a.parameters {
                if let (Some(st), Some(f)) = (st, spec.parameter_field(t, p))
                    && (f.since != st.since || f.presence != Presence::Always)
                {
                    diags.report(
                        &lints::BAD_VALUE,
                        Some(t.span),
                        format!(
                            "parameter `{}` reads `{}.{}`, which not every payload carries",
                            p.name, st.name, f.name
                        ),
                        "a parameter's index field belongs to the payload's first version and is always present",
                    );
                }
            }
            if spec.scheme_axis(&t.name).is_none() {
                diags.report(&lints::AXIS_MISMATCH, Some(t.span), format!("scheme `{}` has no axis `scheme.{}` in spec.toml", t.name, t.name), "every allocated scheme is versioned on its own axis (RES-6): add it to spec.toml");
            }
            if spec.flag_set(a.flags).axis != spec.scheme_axis(&t.name).unwrap_or(AxisId(u32::MAX))
            {
                diags.report(
                    &lints::AXIS_MISMATCH,
                    Some(t.span),
                    format!(
                        "the flag set of scheme `{}` is not on the scheme's axis",
                        t.name
                    ),
                    "a scheme's flags are versioned with its payload",
                );
            }
            if let Some(st) = st
                && spec.axis(st.axis).scheme.as_deref() != Some(&t.name)
            {
                diags.report(
                    &lints::AXIS_MISMATCH,
                    Some(st.span),
                    format!(
                        "structure `{}` of scheme `{}` is not on axis `scheme.{}`",
                        st.name, t.name, t.name
                    ),
                    "set the payload structure's axis to the scheme's axis",
                );
            }
        }
        TagAttrs::CombineOp { legal_with } => {
            let rules = names_in(spec.roles.composition_rule);
            for r in legal_with {
                if !rules.contains(r) {
                    diags.report(
                        &lints::UNKNOWN_REFERENCE,
                        Some(t.span),
                        format!("`{r}` is not a composition rule"),
                        "name allocated composition rules",
                    );
                }
            }
        }
        TagAttrs::Device { memory_classes, .. } => {
            let classes = names_in(spec.roles.memory_class);
            for m in memory_classes {
                if !classes.contains(m) && m != "private" {
                    diags.report(
                        &lints::UNKNOWN_REFERENCE,
                        Some(t.span),
                        format!("`{m}` is not a memory class"),
                        "name allocated memory classes or `private`",
                    );
                }
            }
        }
        _ => {}
    }
}

fn flag_bits(spec: &Spec, flag_set: &FlagSet, diags: &mut Diagnostics) {
    let names: Vec<(&str, bool)> = flag_set
        .bits
        .iter()
        .map(|b| (b.name.as_str(), b.deprecated.is_some()))
        .collect();
    for b in &flag_set.bits {
        since_check(
            spec,
            flag_set.axis,
            b.since,
            Some(b.span),
            &format!("bit `{}`", b.name),
            diags,
        );
        if let Some(dep) = &b.deprecated {
            amendment::s3_deprecation(
                spec,
                flag_set.axis,
                b.since,
                dep,
                &names,
                &format!("bit `{}`", b.name),
                diags,
            );
        }
    }
}

fn structure(spec: &Spec, s: &Structure, diags: &mut Diagnostics) {
    since_check(
        spec,
        s.axis,
        s.since,
        Some(s.span),
        &format!("structure `{}`", s.name),
        diags,
    );
    let scope: HashSet<&str> = s
        .params
        .iter()
        .map(String::as_str)
        .chain(s.bindings.keys().map(String::as_str))
        .collect();
    for (i, f) in s.fields.iter().enumerate() {
        since_check(
            spec,
            s.axis,
            f.since,
            f.since_span.or(Some(f.span)),
            &format!("field `{}.{}`", s.name, f.name),
            diags,
        );
        if f.since < s.since {
            diags.report(
                &lints::SINCE_BEFORE_INITIAL,
                f.since_span,
                format!("field `{}` predates its structure `{}`", f.name, s.name),
                "a field cannot be older than its structure",
            );
        }
        if f.since > s.since {
            amendment::s6_gating(spec, s, i, diags);
            amendment::s4_default(spec, s, i, diags);
        } else if let Some(d) = &f.default {
            diags.report(&lints::DEFAULT_ON_BASE_FIELD, f.default_span, format!("field `{}` belongs to the structure's first version; no reader ever defaults it", f.name), "remove `default`, or give the field a later `since`");
            defaults::default_fits(spec, s, f, d, false, diags);
        }
        // Params of nested structures must be in scope.
        let nested: Vec<StructId> = match &f.ty {
            FieldType::Struct(t) => vec![*t],
            FieldType::Dispatch { space, .. } => spec.variants(*space),
            _ => Vec::new(),
        };
        for t in nested {
            for p in &spec.structure(t).params {
                if !scope.contains(p.as_str()) {
                    diags.report(&lints::UNBOUND_PARAM, Some(f.span), format!("`{}` needs param `{p}`, which `{}` neither takes nor binds", spec.structure(t).name, s.name), format!("add `params = [\"{p}\"]` or `let = {{ {p} = \"<field path>\" }}` to `{}`", s.name));
                }
            }
        }
        if let Some(Count::Rest) = f.count
            && (!s.framing.is_length_prefixed() || i + 1 != s.fields.len())
        {
            diags.report(
                &lints::BAD_VALUE,
                Some(f.span),
                "`count = \"rest\"` needs a length-prefixed structure and the last field",
                "use a length field instead",
            );
        }
        if let FieldType::Dispatch { space, on } = &f.ty {
            dispatch(spec, f, *space, on, diags);
        }
        for c in &f.checks {
            if let CheckKind::Bytes(b) = &c.kind
                && f.count != Some(Count::Const(b.len() as u64))
            {
                diags.report(
                    &lints::BAD_CHECK,
                    Some(c.span),
                    format!(
                        "`bytes` gives {} bytes for a field of another length",
                        b.len()
                    ),
                    "the expected bytes must match the field's count",
                );
            }
        }
    }
    if let Framing::LengthPrefixed { by_field, .. } = &s.framing {
        let f = spec.resolve(by_field);
        if !matches!(
            f.ty,
            FieldType::Prim(Prim::U8 | Prim::U16 | Prim::U32 | Prim::U64)
        ) {
            diags.report(
                &lints::BAD_VALUE,
                Some(s.framing_span),
                format!(
                    "length prefix `{}` is not an unsigned integer",
                    by_field.text
                ),
                "name an unsigned integer field",
            );
        }
    }
}

fn dispatch(spec: &Spec, f: &Field, space: SpaceId, on: &TagSource, diags: &mut Diagnostics) {
    let location = spec.space(space);
    if !location.dispatches() {
        diags.report(
            &lints::BAD_DISPATCH,
            Some(f.span),
            format!("space `{}` selects no structures", location.name),
            "give its tags a `structure`",
        );
        return;
    }
    match on {
        TagSource::Field(path) => {
            if spec.resolve(path).ty != FieldType::Tag(space) {
                diags.report(
                    &lints::BAD_DISPATCH,
                    Some(f.span),
                    format!("`{}` is not a `tag:{}` field", path.text, location.name),
                    "dispatch on a tag of the same space",
                );
            }
        }
        TagSource::Peek {
            path_in_variant, ..
        } => {
            let mut seen: Option<u64> = None;
            for v in spec.variants(space) {
                let at = spec.peek_offset(v, path_in_variant, space);
                match (at, seen) {
                    (None, _) => diags.report(
                        &lints::BAD_DISPATCH,
                        Some(f.span),
                        format!(
                            "variant `{}` has no `tag:{}` field at a fixed offset along `{}`",
                            spec.structure(v).name,
                            location.name,
                            path_in_variant.join(".")
                        ),
                        "every variant starts with the tag the dispatch reads",
                    ),
                    (Some(a), Some(b)) if a != b => diags.report(
                        &lints::BAD_DISPATCH,
                        Some(f.span),
                        format!(
                            "variant `{}` keeps its tag at byte {a}, others at {b}",
                            spec.structure(v).name
                        ),
                        "every variant keeps the tag at the same offset",
                    ),
                    (Some(a), _) => seen = Some(a),
                }
            }
        }
    }
}

/// A structure that contains itself (the analysis pass's containment graph) bounds its
/// nesting.
fn recursion(spec: &Spec, diags: &mut Diagnostics) {
    for s in &spec.structures {
        for (f, shape) in s.fields.iter().zip(&s.shape.fields) {
            if shape.recursive && !shape.optional() && f.count.is_none() {
                diags.report(
                    &lints::BAD_VALUE,
                    Some(f.span),
                    format!(
                        "`{}.{}` nests the structure in itself in every level, so no data can end",
                        s.name, f.name
                    ),
                    "make the nested level conditional (`present_if`)",
                );
            }
        }
        if s.shape.containment.cyclic && s.depth_limit.is_none() {
            diags.report(
                &lints::MISSING_DEPTH_LIMIT,
                Some(s.span),
                format!("`{}` contains itself but declares no `depth_limit`", s.name),
                "readers must bound nesting (TL-6): add `depth_limit = <levels>`",
            );
        }
    }
}

fn axes(spec: &Spec, diags: &mut Diagnostics) {
    let schemes: Vec<&str> = spec
        .space(spec.roles.scheme)
        .tags
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    for a in &spec.axes {
        if let Some(scheme) = &a.scheme {
            if !schemes.contains(&scheme.as_str()) {
                diags.report(
                    &lints::AXIS_MISMATCH,
                    Some(a.span),
                    format!(
                        "axis `{}` versions scheme `{scheme}`, which is not allocated",
                        a.name
                    ),
                    "name an allocated scheme, or remove the axis with a major bump (S5)",
                );
            }
            if a.name != format!("scheme.{scheme}") {
                diags.report(
                    &lints::AXIS_MISMATCH,
                    Some(a.span),
                    format!("axis `{}` versions scheme `{scheme}`", a.name),
                    format!("name the axis `scheme.{scheme}`"),
                );
            }
        }
        // A negotiated axis's version is one number of any unsigned width (RES-53:
        // protocol_version is a u32); the tools state versions up to 255.
        let carrier_ok = |ty: &FieldType| {
            matches!(
                (a.style, ty),
                (_, FieldType::Prim(Prim::U8))
                    | (
                        AxisStyle::Negotiated,
                        FieldType::Prim(Prim::U16 | Prim::U32)
                    )
            )
        };
        for p in a.major.iter().chain(std::iter::once(&a.minor)) {
            if !carrier_ok(&spec.resolve(p).ty) {
                diags.report(
                    &lints::AXIS_MISMATCH,
                    Some(a.span),
                    format!("`{}` is not a u8 field", p.text),
                    "a version byte is a u8 field (a negotiated axis's number: u8, u16 or u32)",
                );
            }
        }
    }
}

fn draft(spec: &Spec, diags: &mut Diagnostics) {
    if spec.status != Status::Draft {
        return;
    }
    for a in &spec.axes {
        if a.current != a.initial {
            diags.push(
                Diagnostic::new(&lints::DRAFT_VERSION, Some(a.current_span), format!("draft spec: axis `{}` is at {}, not its initial {}", a.name, a.show(a.current), a.show(a.initial)))
                    .help("before the first stable release every axis stays at its initial version; features accumulate into it"),
            );
        }
    }
}
