//! `spec.toml`: the spec's status, the roles its spaces play, and the version axes.

use std::collections::BTreeMap;

use crate::lints;
use crate::model::*;
use crate::raw::{self, S};
use crate::source::{FileId, Span};

use super::context::{Lower, span};

impl Lower<'_> {
    /// The title, the status word and where it is written.
    pub(super) fn status(
        &mut self,
        file: FileId,
        s: &raw::SpecFile,
    ) -> Option<(String, Status, Span)> {
        let meta = s.spec.get_ref();
        let status = self.word::<Status>(file, &meta.status)?;
        Some((
            meta.title.get_ref().clone(),
            status,
            span(file, &meta.status),
        ))
    }

    /// `[roles]`: the space that plays each role. Every required role is named once, an
    /// optional one at most once; a space plays one role at most.
    pub(super) fn roles(
        &mut self,
        file: FileId,
        roles: &S<BTreeMap<String, S<String>>>,
    ) -> Option<Roles> {
        let mut found: BTreeMap<Role, SpaceId> = BTreeMap::new();
        let mut by_space: BTreeMap<SpaceId, Role> = BTreeMap::new();
        for (key, name) in roles.get_ref() {
            let Some(role) = Role::from_word(key) else {
                self.err(
                    &lints::BAD_VALUE,
                    span(file, name),
                    format!("`{key}` is not a role"),
                    format!("the roles are: {}", Role::words().join(", ")),
                );
                continue;
            };
            let Some(&space) = self.names.spaces.get(name.get_ref()) else {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    span(file, name),
                    format!("no tag space `{}` in spec/tags", name.get_ref()),
                    "name the space that plays the role",
                );
                continue;
            };
            if let Some(other) = by_space.insert(space, role) {
                self.err(
                    &lints::BAD_VALUE,
                    span(file, name),
                    format!(
                        "space `{}` plays two roles, `{}` and `{key}`",
                        name.get_ref(),
                        other.word()
                    ),
                    "each role has a space of its own",
                );
            }
            found.insert(role, space);
        }
        let missing: Vec<&str> = Role::values()
            .iter()
            .filter(|r| r.is_required() && !found.contains_key(r))
            .map(|r| r.word())
            .collect();
        if !missing.is_empty() {
            self.err(
                &lints::UNKNOWN_REFERENCE,
                span(file, roles),
                format!("`[roles]` names no space for: {}", missing.join(", ")),
                "add `<role> = \"<space name>\"` for each role (spec/README.md lists them)",
            );
            return None;
        }
        Roles::from_fn(|r| found.get(&r).copied())
    }

    /// The axes of `spec.toml`: each one's style and versions (its carrier fields are
    /// resolved once the structures' fields are known).
    pub(super) fn axes(&mut self, file: FileId, s: &raw::SpecFile) -> Vec<Option<Axis>> {
        let mut out = Vec::new();
        for a in &s.axis {
            let a0 = a.get_ref();
            let style = self.word::<AxisStyle>(file, &a0.style);
            self.axis_styles.push(style);
            let Some(style) = style else {
                self.axis_initials.push(Version::new(1, 0));
                out.push(None);
                continue;
            };
            let initial = self.version_in_style(file, style, &a0.initial);
            let current = self.version_in_style(file, style, &a0.current);
            self.axis_initials.push(initial);
            if current < initial {
                self.err(
                    &lints::BAD_VALUE,
                    span(file, &a0.current),
                    "the current version is below the initial version",
                    "an axis's current version only grows",
                );
            }
            if style == AxisStyle::Scheme && a0.scheme.is_none() {
                self.err(
                    &lints::AXIS_MISMATCH,
                    span(file, a),
                    format!("scheme axis `{}` names no scheme", a0.name.get_ref()),
                    "add `scheme = \"<scheme tag name>\"`",
                );
            }
            if style != AxisStyle::Scheme
                && let Some(scheme) = &a0.scheme
            {
                self.err(
                    &lints::AXIS_MISMATCH,
                    span(file, scheme),
                    format!(
                        "axis `{}` versions a scheme but its style is `{}`",
                        a0.name.get_ref(),
                        style.word()
                    ),
                    "a scheme's axis has `style = \"scheme\"` (RES-6)",
                );
            }
            if style == AxisStyle::Negotiated && a0.major.is_some() {
                self.err(
                    &lints::AXIS_MISMATCH,
                    span(file, a),
                    format!(
                        "negotiated axis `{}` names a major-version field",
                        a0.name.get_ref()
                    ),
                    "a negotiated axis has one number and no major (RES-53): remove `major`",
                );
            }
            if style == AxisStyle::MajorMinor && a0.major.is_none() {
                self.err(
                    &lints::AXIS_MISMATCH,
                    span(file, a),
                    format!("axis `{}` names no major-version field", a0.name.get_ref()),
                    "add `major = \"<structure>.<field>\"`",
                );
            }
            let resolutions = self.resolution_refs(file, &a0.resolution);
            let reject = a0.reject.as_ref().map(|r| {
                (
                    self.rule_ref(file, &r.get_ref().major_too_high),
                    self.rule_ref(file, &r.get_ref().major_too_low),
                )
            });
            if style == AxisStyle::MajorMinor && reject.is_none() {
                self.err(
                    &lints::AXIS_MISMATCH,
                    span(file, a),
                    format!(
                        "axis `{}` names no rules for a major outside the reader's",
                        a0.name.get_ref()
                    ),
                    "add `reject = { major_too_high = \"<id>\", major_too_low = \"<id>\" }`",
                );
            }
            out.push(Some(Axis {
                name: a0.name.get_ref().clone(),
                title: a0.title.get_ref().clone(),
                style,
                scheme: a0.scheme.as_ref().map(|s| s.get_ref().clone()),
                initial,
                current,
                major: None,
                minor: FieldPath {
                    root: StructId(0),
                    steps: vec![0],
                    text: String::new(),
                },
                reject,
                resolutions,
                span: span(file, a),
                current_span: span(file, &a0.current),
            }));
        }
        out
    }
}
