//! The first pass of lowering: every name to its id, before anything is resolved, so the
//! parts that follow can refer to any item whatever the order of the files.

use std::collections::HashMap;

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::load::RawSpec;
use crate::model::*;
use crate::source::Span;

use super::values::span;

/// The names of every item, with what lookups by name need.
pub(super) struct Names {
    pub(super) axes: HashMap<String, AxisId>,
    pub(super) spaces: HashMap<String, SpaceId>,
    pub(super) flag_sets: HashMap<String, FlagSetId>,
    pub(super) structures: HashMap<String, StructId>,
    /// Field names of every structure, in order, with their raw type text.
    pub(super) fields: Vec<Vec<(String, String)>>,
    pub(super) rules: HashMap<String, RuleId>,
    pub(super) resolutions: HashMap<String, ResolutionId>,
    /// Tag names and values of every space, as written.
    pub(super) space_tags: Vec<Vec<(String, u32)>>,
    /// Bit names and indices of every flag set, as written.
    pub(super) flag_bits: Vec<Vec<(String, u32)>>,
}

/// The first pass: every axis, space, flag set, structure, rule and resolution to its id, and
/// what later parts look up by name before the items they name are lowered.
pub(super) fn register(raw: &RawSpec, diags: &mut Diagnostics) -> Names {
    fn add<I: Copy>(
        map: &mut HashMap<String, I>,
        spans: &mut HashMap<String, Span>,
        name: &str,
        id: I,
        location: Span,
        (what, naming): (&str, Naming),
        diags: &mut Diagnostics,
    ) {
        identifier(name, naming, location, what, diags);
        if let Some(prev) = spans.get(name) {
            diags.push(
                Diagnostic::new(
                    &lints::DUPLICATE_NAME,
                    Some(location),
                    format!("{what} `{name}` is defined twice"),
                )
                .label(*prev, "first defined here")
                .help(format!("rename one of the two {what}s")),
            );
        } else {
            map.insert(name.to_string(), id);
            spans.insert(name.to_string(), location);
        }
    }
    let mut names = Names {
        axes: HashMap::new(),
        spaces: HashMap::new(),
        flag_sets: HashMap::new(),
        structures: HashMap::new(),
        fields: Vec::new(),
        rules: HashMap::new(),
        resolutions: HashMap::new(),
        space_tags: Vec::new(),
        flag_bits: Vec::new(),
    };
    if let Some((file, s)) = &raw.spec {
        let mut spans = HashMap::new();
        for (i, a) in s.axis.iter().enumerate() {
            add(
                &mut names.axes,
                &mut spans,
                a.get_ref().name.get_ref(),
                AxisId(i as u32),
                span(*file, &a.get_ref().name),
                ("axis", Naming::LowerDotted),
                diags,
            );
        }
    }
    let mut spans = HashMap::new();
    for (i, (file, t)) in raw.tags.iter().enumerate() {
        let n = &t.space.get_ref().name;
        add(
            &mut names.spaces,
            &mut spans,
            n.get_ref(),
            SpaceId(i as u32),
            span(*file, n),
            ("tag space", Naming::Lower),
            diags,
        );
        names.space_tags.push(
            t.tag
                .iter()
                .map(|tag| {
                    let tag = tag.get_ref();
                    identifier(
                        tag.name.get_ref(),
                        Naming::Lower,
                        span(*file, &tag.name),
                        "tag",
                        diags,
                    );
                    let value = (*tag.value.get_ref()).clamp(0, i64::from(u32::MAX)) as u32;
                    (tag.name.get_ref().clone(), value)
                })
                .collect(),
        );
    }
    let mut spans = HashMap::new();
    let mut i = 0;
    for (file, f) in &raw.flags {
        for flag_set in &f.flags {
            let n = &flag_set.get_ref().name;
            add(
                &mut names.flag_sets,
                &mut spans,
                n.get_ref(),
                FlagSetId(i),
                span(*file, n),
                ("flag set", Naming::Lower),
                diags,
            );
            names.flag_bits.push(
                flag_set
                    .get_ref()
                    .bit
                    .iter()
                    .map(|b| {
                        let b = b.get_ref();
                        identifier(
                            b.name.get_ref(),
                            Naming::Upper,
                            span(*file, &b.name),
                            "flag bit",
                            diags,
                        );
                        let bit = (*b.bit.get_ref()).clamp(0, 63) as u32;
                        (b.name.get_ref().clone(), bit)
                    })
                    .collect(),
            );
            i += 1;
        }
    }
    let mut spans = HashMap::new();
    let mut i = 0;
    for (file, f) in &raw.structures {
        for s in &f.structure {
            let n = &s.get_ref().name;
            add(
                &mut names.structures,
                &mut spans,
                n.get_ref(),
                StructId(i),
                span(*file, n),
                ("structure", Naming::Lower),
                diags,
            );
            let mut field_spans = HashMap::new();
            let mut dummy = HashMap::new();
            for fld in &s.get_ref().field {
                let fname = &fld.get_ref().name;
                add(
                    &mut dummy,
                    &mut field_spans,
                    fname.get_ref(),
                    (),
                    span(*file, fname),
                    (&format!("field of `{}`", n.get_ref()), Naming::Lower),
                    diags,
                );
            }
            names.fields.push(
                s.get_ref()
                    .field
                    .iter()
                    .map(|f| {
                        (
                            f.get_ref().name.get_ref().clone(),
                            f.get_ref().ty.get_ref().clone(),
                        )
                    })
                    .collect(),
            );
            i += 1;
        }
    }
    let mut spans = HashMap::new();
    let mut i = 0;
    for (file, f) in &raw.rules {
        for r in &f.rule {
            let n = &r.get_ref().id;
            add(
                &mut names.rules,
                &mut spans,
                n.get_ref(),
                RuleId(i),
                span(*file, n),
                ("rule", Naming::UpperDashed),
                diags,
            );
            i += 1;
        }
    }
    let mut spans = HashMap::new();
    if let Some((file, f)) = &raw.resolutions {
        for (i, r) in f.resolution.iter().enumerate() {
            let n = &r.get_ref().id;
            add(
                &mut names.resolutions,
                &mut spans,
                n.get_ref(),
                ResolutionId(i as u32),
                span(*file, n),
                ("resolution", Naming::Text),
                diags,
            );
        }
    }
    names
}

/// How the names of one kind of item are written, each as the identifier the generated code
/// makes of it.
#[derive(Clone, Copy)]
enum Naming {
    /// `buffer_handle`, `_reserved`: structures, fields, tag spaces, flag sets, tags.
    Lower,
    /// `HAS_SHARD`: flag bits.
    Upper,
    /// `HDR-1`, `RES-5`: rule ids, each a variant of the generated `Rule` (`Hdr1`).
    UpperDashed,
    /// `scheme.mxfp`: axis names, each a variant of the generated `Axis` (`SchemeMxfp`).
    LowerDotted,
    /// Resolution ids: the generated code holds them as text only.
    Text,
}

/// A name that becomes an identifier of the generated code is an identifier of its kind as
/// written: anything else is a diagnostic here, never a failure of an emitter.
fn identifier(name: &str, naming: Naming, location: Span, what: &str, diags: &mut Diagnostics) {
    let (upper, separator, pattern) = match naming {
        Naming::Lower => (
            false,
            None,
            "lowercase letters, digits and underscores (`[a-z_][a-z0-9_]*`)",
        ),
        Naming::Upper => (
            true,
            None,
            "uppercase letters, digits and underscores (`[A-Z_][A-Z0-9_]*`)",
        ),
        Naming::UpperDashed => (
            true,
            Some('-'),
            "uppercase letters, digits, underscores and hyphens (`[A-Z_][A-Z0-9_-]*`)",
        ),
        Naming::LowerDotted => (
            false,
            Some('.'),
            "lowercase letters, digits, underscores and dots (`[a-z_][a-z0-9_.]*`)",
        ),
        Naming::Text => return,
    };
    let letter = |c: char| {
        if upper {
            c.is_ascii_uppercase()
        } else {
            c.is_ascii_lowercase()
        }
    };
    let valid = name.starts_with(|c: char| letter(c) || c == '_')
        && name.chars().any(letter)
        && name
            .chars()
            .all(|c| letter(c) || c.is_ascii_digit() || c == '_' || Some(c) == separator);
    if !valid {
        diags.push(
            Diagnostic::new(
                &lints::NAME_NOT_AN_IDENTIFIER,
                Some(location),
                format!("`{name}` ({what}) is not an identifier"),
            )
            .help(format!("write it in {pattern}, with at least one letter")),
        );
    }
}
