//! Lowering: the raw serde mirror into the typed model. Every reference is resolved to an
//! index, every version parsed, every enumerated word read into its enum, every check typed,
//! and the spaces the tools rely on bound to their roles. Problems are collected, never fatal
//! one by one; a spec with lowering errors is not returned.
//!
//! The parts, in the order they run: `names` (every name to its id), `spec_file` (status,
//! roles, axes), `rules`, `flags`, `spaces` with each role's `attributes`, then
//! `structures` and the references that need every structure's fields. `context` holds
//! what they share: references, words, versions.

mod attributes;
mod context;
mod flags;
mod migrations;
mod names;
mod rule_text;
mod rules;
mod spaces;
mod spec_file;
mod structures;
mod values;

use crate::diag::Diagnostics;
use crate::load::RawSpec;
use crate::model::*;

use context::Lower;

/// Lower a raw spec. Returns `None` when any error was reported.
pub fn lower(raw: RawSpec, diags: &mut Diagnostics) -> Option<Spec> {
    let errors_before = diags.error_count();
    let names = names::register(&raw, diags);
    let mut l = Lower::new(diags, names);

    let (spec_file, spec_raw) = raw.spec.as_ref()?;
    let spec_file = *spec_file;
    l.roles = l.roles(spec_file, &spec_raw.roles);
    let resolutions = l.resolutions(&raw);
    let mut rules = l.rules(&raw);
    let status = l.status(spec_file, spec_raw);
    let mut axes = l.axes(spec_file, spec_raw);
    let flag_sets = l.flag_sets(&raw);
    let spaces = l.spaces(&raw);
    l.expand_rule_texts(&mut rules, &spaces, &flag_sets);
    // A raw integer flags field inside a scheme's payload is read with the scheme's flag set.
    if let Some(roles) = l.roles
        && let Some(Some(schemes)) = spaces.get(roles.scheme.index())
    {
        for (i, a) in axes.iter().enumerate() {
            let tag = a.as_ref().and_then(|a| schemes.tag(a.scheme.as_deref()?));
            if let Some(TagAttrs::Scheme(attrs)) = tag.map(|t| &t.attrs) {
                l.scheme_flags.insert(AxisId(i as u32), attrs.flags);
            }
        }
    }
    l.space_ranges = spaces
        .iter()
        .map(|s| {
            s.iter()
                .flat_map(|s| &s.ranges)
                .map(|r| (r.kind.range_use(), r.from, r.to))
                .collect()
        })
        .collect();
    let mut structures = l.structures(&raw);
    let placement = l.placement(&raw);

    // References that need the structures' field lists.
    for (i, a) in spec_raw.axis.iter().enumerate() {
        let major = a.get_ref().major.as_ref().map(|m| l.abs_path(spec_file, m));
        let minor = l.abs_path(spec_file, &a.get_ref().minor);
        if let Some(Some(axis)) = axes.get_mut(i) {
            axis.major = major.flatten();
            if let Some(p) = minor {
                axis.minor = p;
            }
        }
    }
    for (file, sf) in &raw.structures {
        for rs in &sf.structure {
            let Some(&sid) = l.names.structures.get(rs.get_ref().name.get_ref()) else {
                continue;
            };
            if let Some(fr) = l.framing(*file, &rs.get_ref().framing) {
                structures[sid.index()].framing = fr;
            }
            for (k, v) in &rs.get_ref().bindings {
                if let Some(p) = l.rel_path(*file, sid, v, usize::MAX) {
                    structures[sid.index()].bindings.insert(k.clone(), p);
                }
            }
        }
    }
    if l.diags.error_count() > errors_before {
        return None;
    }
    let (title, status, status_span) = status?;
    let axes: Vec<Axis> = axes.into_iter().collect::<Option<_>>()?;
    let flag_sets: Vec<FlagSet> = flag_sets.into_iter().collect::<Option<_>>()?;
    let migrations = migrations::lower(&raw.migrations, &axes, &flag_sets);
    Some(Spec {
        title,
        status,
        status_span,
        roles: l.roles?,
        axes,
        spaces: spaces.into_iter().collect::<Option<_>>()?,
        flag_sets,
        structures,
        placement: placement?,
        rules,
        resolutions,
        migrations,
    })
}
