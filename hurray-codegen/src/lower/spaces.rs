//! `tags/<space>.toml`: a tag space, its ranges and its allocated values. What a value means
//! beyond its name and number is its space's role's to say (`attributes`).

use crate::lints;
use crate::load::RawSpec;
use crate::model::*;
use crate::raw::{self, S};
use crate::source::FileId;

use super::context::{Lower, span};

impl Lower<'_> {
    /// Every tag space, in the order of its file (its `SpaceId`); `None` for a space that
    /// does not lower (reported).
    pub(super) fn spaces(&mut self, raw: &RawSpec) -> Vec<Option<TagSpace>> {
        let mut out = Vec::new();
        for (index, (file, t)) in raw.tags.iter().enumerate() {
            let file = *file;
            let id = SpaceId(index as u32);
            let role = self.roles.and_then(|r| r.of(id));
            let sp0 = t.space.get_ref();
            let mut width = self.word_as::<Width>(file, &sp0.width, "tag width");
            // A tag value is at most 32 bits wide; u64 is a flag set's width only.
            if width == Some(Width::U64) {
                self.err(
                    &lints::BAD_VALUE,
                    span(file, &sp0.width),
                    "a tag space is at most 32 bits wide",
                    "use `u8`, `u16` or `u32`; `u64` is for flag sets",
                );
                width = None;
            }
            let axis = self.axis_ref(file, &sp0.axis);
            let initial = self.initial(axis);
            let mut ranges = Vec::new();
            for r in &sp0.ranges {
                if let Some(range) = self.range(file, sp0, role, width, r) {
                    ranges.push(range);
                }
            }
            let rj = sp0.reject.get_ref();
            let reject = RejectRules {
                invalid: self.rule_ref(file, &rj.invalid),
                unknown: self.rule_ref(file, &rj.unknown),
                private: match &rj.private {
                    Some(p) => self.rule_ref(file, p),
                    None => self.rule_ref(file, &rj.unknown),
                },
            };
            let space_name = sp0.name.get_ref().clone();
            let default = self.space_default(
                file,
                &space_name,
                role,
                sp0.default.as_ref(),
                span(file, &t.space),
            );
            let mut tags = Vec::new();
            for tg in &t.tag {
                if let Some(tag) = self.tag(file, &space_name, role, axis, initial, tg) {
                    tags.push(tag);
                }
            }
            let resolutions = self.resolution_refs(file, &sp0.resolution);
            let default_tag = sp0.default_tag.as_ref().and_then(|name| {
                let found = tags.iter().position(|t| t.name == *name.get_ref());
                if found.is_none() {
                    self.err(
                        &lints::UNKNOWN_REFERENCE,
                        span(file, name),
                        format!(
                            "`default_tag`: no tag `{}` in space `{space_name}`",
                            name.get_ref()
                        ),
                        "name a tag the space allocates",
                    );
                }
                found
            });
            out.push(width.map(|width| TagSpace {
                name: space_name,
                title: sp0.title.get_ref().clone(),
                width,
                axis,
                ranges,
                tags,
                reject,
                default,
                default_tag,
                resolutions,
                dispatch: None,
                span: span(file, &t.space),
            }));
        }
        out
    }

    /// One range of a space, with the attributes its space's role gives ranges.
    fn range(
        &mut self,
        file: FileId,
        space: &raw::Space,
        role: Option<Role>,
        width: Option<Width>,
        r: &S<raw::Range>,
    ) -> Option<Range> {
        let r0 = r.get_ref();
        let range_use = self.word::<RangeUse>(file, &r0.kind);
        if r0.tier.is_some() && range_use.is_some_and(|u| u != RangeUse::Public) {
            self.err(
                &lints::BAD_VALUE,
                span(file, r),
                "only public ranges have a tier",
                "remove `tier` or make the range public",
            );
        }
        let structure = r0.structure.as_ref().and_then(|s| self.struct_ref(file, s));
        let (from, to) = (*r0.from.get_ref(), *r0.to.get_ref());
        if from < 0 || to < from || width.is_some_and(|w| to as u64 > w.max()) {
            self.err(
                &lints::RANGE_COVERAGE,
                span(file, r),
                format!(
                    "range {from:#x}–{to:#x} is not a valid range of a {} space",
                    space.width.get_ref()
                ),
                "ranges go from a low value to a higher one inside the width",
            );
        }
        let attributes = self.range_attributes(file, space.name.get_ref(), role, range_use, r);
        let tier = r0.tier.as_ref().map(|t| *t.get_ref() as u8);
        Some(Range {
            from: from.clamp(0, u32::MAX as i64) as u32,
            to: to.clamp(0, u32::MAX as i64) as u32,
            kind: RangeKind::new(range_use?, tier),
            structure,
            memory_classes: attributes.memory_classes,
            scalar_rule: attributes.scalar_rule,
            buffer_count_rule: attributes.buffer_count_rule,
            note: r0
                .note
                .as_ref()
                .map(|n| n.get_ref().clone())
                .unwrap_or_default(),
            span: span(file, r),
        })
    }

    /// One allocated value; `None` (after reporting) when its attributes do not decode.
    fn tag(
        &mut self,
        file: FileId,
        space: &str,
        role: Option<Role>,
        axis: AxisId,
        initial: Version,
        tg: &S<raw::Tag>,
    ) -> Option<Tag> {
        let t = tg.get_ref();
        let tsp = span(file, tg);
        let since = self.since(file, axis, &t.since, initial);
        let deprecated = self.deprecation(
            file,
            axis,
            tsp,
            &t.deprecated_since,
            &t.deprecated,
            &t.replacement,
        );
        let structure = t.structure.as_ref().and_then(|s| self.struct_ref(file, s));
        let attrs = self.tag_attributes(file, space, role, structure, tsp, t);
        let resolutions = self.resolution_refs(file, &t.resolution);
        Some(Tag {
            value: (*t.value.get_ref()).clamp(0, u32::MAX as i64) as u32,
            name: t.name.get_ref().clone(),
            title: t.title.get_ref().clone(),
            since,
            deprecated,
            structure,
            tier: t.tier.as_ref().map(|x| *x.get_ref() as u8),
            attrs: attrs?,
            resolutions,
            span: tsp,
            value_span: span(file, &t.value),
            name_span: span(file, &t.name),
        })
    }
}
