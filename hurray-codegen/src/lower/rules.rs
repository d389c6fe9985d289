//! `rules/*.toml` and `resolutions.toml`: every rule with its stable error code, and every
//! resolution of the format's contradictions.

use crate::lints;
use crate::load::RawSpec;
use crate::model::*;

use super::context::{Lower, span};

impl Lower<'_> {
    /// Every resolution of resolutions.toml.
    pub(super) fn resolutions(&mut self, raw: &RawSpec) -> Vec<Resolution> {
        let Some((file, f)) = &raw.resolutions else {
            return Vec::new();
        };
        f.resolution
            .iter()
            .map(|r| {
                let r0 = r.get_ref();
                Resolution {
                    id: r0.id.get_ref().clone(),
                    point: r0.point.get_ref().clone(),
                    decision: r0.decision.get_ref().clone(),
                    source: r0
                        .source
                        .as_ref()
                        .map(|s| s.get_ref().clone())
                        .unwrap_or_default(),
                    governs: r0.governs.iter().map(|g| g.get_ref().clone()).collect(),
                    span: span(*file, r),
                }
            })
            .collect()
    }

    /// Every rule of spec/rules, its words read into the model's enums.
    pub(super) fn rules(&mut self, raw: &RawSpec) -> Vec<Rule> {
        let mut out = Vec::new();
        for (file, f) in &raw.rules {
            let axis = f.axis.as_ref().map(|a| self.axis_ref(*file, a));
            for r in &f.rule {
                let r0 = r.get_ref();
                let actor = self.word::<Actor>(*file, &r0.actor);
                let action = self.word::<Action>(*file, &r0.action);
                let enforced_by = self.word::<EnforcedBy>(*file, &r0.enforced_by);
                let also_enforced_by: Vec<Option<EnforcedBy>> = r0
                    .also_enforced_by
                    .iter()
                    .map(|w| self.word::<EnforcedBy>(*file, w))
                    .collect();
                for l in &r0.lints {
                    if lints::by_id(l.get_ref()).is_none() {
                        self.err(
                            &lints::UNKNOWN_REFERENCE,
                            span(*file, l),
                            format!("no lint `{}`", l.get_ref()),
                            "`hurray-spec lints` lists every lint",
                        );
                    }
                }
                if let Some(enforced_by) = enforced_by
                    && (enforced_by == EnforcedBy::Unenforceable) != r0.unenforceable.is_some()
                {
                    self.err(
                        &lints::BAD_VALUE,
                        span(*file, &r0.enforced_by),
                        "a rule says why no software enforces it exactly when `enforced_by` is \"none\"",
                        "add `unenforceable = \"<why>\"` with `enforced_by = \"none\"`, or remove it",
                    );
                }
                let rationale = match (&r0.rationale, &r0.rationale_source) {
                    (Some(text), Some(source)) => Some(Rationale {
                        text: text.get_ref().clone(),
                        source: source.get_ref().clone(),
                    }),
                    (None, None) => None,
                    (Some(one), None) | (None, Some(one)) => {
                        self.err(
                            &lints::BAD_VALUE,
                            span(*file, one),
                            "a rule's `rationale` and `rationale_source` go together",
                            "say where the rationale is stated, or remove it",
                        );
                        None
                    }
                };
                let code = r0.code.get_ref();
                if code.is_empty()
                    || !code
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    || code.starts_with('-')
                    || code.ends_with('-')
                {
                    self.err(
                        &lints::BAD_VALUE,
                        span(*file, &r0.code),
                        format!("error code `{code}` is not kebab-case"),
                        "error codes are lowercase ASCII words joined by `-`",
                    );
                }
                let resolutions = self.resolution_refs(*file, &r0.resolution);
                let answer = r0.answer.as_ref().and_then(|a| {
                    let a0 = a.get_ref();
                    let Some(&space) = self.names.spaces.get(a0.space.get_ref()) else {
                        self.err(
                            &lints::UNKNOWN_REFERENCE,
                            span(*file, &a0.space),
                            format!("no tag space `{}`", a0.space.get_ref()),
                            "name a space of spec/tags",
                        );
                        return None;
                    };
                    let value = self.tag_value(space, a0.tag.get_ref(), span(*file, &a0.tag))?;
                    Some((space, value as u32))
                });
                let (Some(actor), Some(action), Some(enforced_by), Some(also_enforced_by)) = (
                    actor,
                    action,
                    enforced_by,
                    also_enforced_by.into_iter().collect::<Option<Vec<_>>>(),
                ) else {
                    continue;
                };
                out.push(Rule {
                    id: r0.id.get_ref().clone(),
                    code: code.clone(),
                    text: r0.text.get_ref().clone(),
                    source: r0.source.get_ref().clone(),
                    actor,
                    action,
                    enforced_by,
                    resolutions,
                    seed: r0.seed.iter().map(|x| x.get_ref().clone()).collect(),
                    also_enforced_by,
                    lints: r0.lints.iter().map(|x| x.get_ref().clone()).collect(),
                    unenforceable: r0.unenforceable.as_ref().map(|x| x.get_ref().clone()),
                    rationale,
                    answer,
                    axis,
                    span: span(*file, r),
                });
            }
        }
        out
    }
}
