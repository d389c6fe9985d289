//! The lowering context: the diagnostics sink, the names of the first pass, and the helpers
//! every part of lowering shares — references to ids, enumerated words, versions, deprecation.

use std::collections::HashMap;

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::model::*;
use crate::raw::S;
use crate::source::{FileId, Span};

use super::names::Names;
use super::values::show_value;
pub(super) use super::values::span;

/// The state lowering carries from one part to the next.
pub(super) struct Lower<'d> {
    pub(super) diags: &'d mut Diagnostics,
    pub(super) names: Names,
    /// The style of each axis, once lowered (`None` for an axis whose style is not a word).
    pub(super) axis_styles: Vec<Option<AxisStyle>>,
    /// The initial version of each axis, once lowered.
    pub(super) axis_initials: Vec<Version>,
    /// The spaces that play the roles, once resolved.
    pub(super) roles: Option<Roles>,
    /// The flag set of each scheme axis's scheme, once the schemes are lowered.
    pub(super) scheme_flags: HashMap<AxisId, FlagSetId>,
    /// The ranges of each space (what each is for, its bounds), once the spaces are lowered.
    pub(super) space_ranges: Vec<Vec<(RangeUse, u32, u32)>>,
}

impl<'d> Lower<'d> {
    pub(super) fn new(diags: &'d mut Diagnostics, names: Names) -> Lower<'d> {
        Lower {
            diags,
            names,
            axis_styles: Vec::new(),
            axis_initials: Vec::new(),
            roles: None,
            scheme_flags: HashMap::new(),
            space_ranges: Vec::new(),
        }
    }

    pub(super) fn err(
        &mut self,
        lint: &'static crate::lints::Lint,
        location: Span,
        msg: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.diags
            .push(Diagnostic::new(lint, Some(location), msg).help(help));
    }

    /// An enumerated word, read into its enum; a word outside the enum's table is reported at
    /// the word's span, and there is no value then.
    pub(super) fn word<T: Word>(&mut self, file: FileId, s: &S<String>) -> Option<T> {
        self.word_as(file, s, T::WHAT)
    }

    /// [`Lower::word`], with the message naming the word `what`.
    pub(super) fn word_as<T: Word>(
        &mut self,
        file: FileId,
        s: &S<String>,
        what: &str,
    ) -> Option<T> {
        let found = T::from_word(s.get_ref());
        if found.is_none() {
            self.err(
                &lints::BAD_VALUE,
                span(file, s),
                format!("`{}` is not a valid {what}", s.get_ref()),
                format!("use one of: {}", T::words().join(", ")),
            );
        }
        found
    }

    pub(super) fn rule_ref(&mut self, file: FileId, s: &S<String>) -> RuleId {
        match self.names.rules.get(s.get_ref()) {
            Some(id) => *id,
            None => {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    span(file, s),
                    format!("no rule `{}` in spec/rules", s.get_ref()),
                    "add the rule to a spec/rules/*.toml file or fix the id",
                );
                RuleId(0)
            }
        }
    }

    pub(super) fn resolution_refs(
        &mut self,
        file: FileId,
        v: &Option<S<toml::Value>>,
    ) -> Vec<ResolutionId> {
        let Some(v) = v else { return Vec::new() };
        let location = span(file, v);
        let ids: Vec<String> = match v.get_ref() {
            toml::Value::String(s) => vec![s.clone()],
            toml::Value::Array(a) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            _ => {
                self.err(
                    &lints::BAD_VALUE,
                    location,
                    "`resolution` must be an id or a list of ids",
                    "write `resolution = \"RES-6\"` or `resolution = [\"RES-3\", \"RES-13\"]`",
                );
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for id in ids {
            match self.names.resolutions.get(&id) {
                Some(r) => out.push(*r),
                None => self.err(
                    &lints::UNKNOWN_REFERENCE,
                    location,
                    format!("no resolution `{id}` in spec/resolutions.toml"),
                    "add the resolution or fix the id",
                ),
            }
        }
        out
    }

    pub(super) fn axis_ref(&mut self, file: FileId, s: &S<String>) -> AxisId {
        match self.names.axes.get(s.get_ref()) {
            Some(id) => *id,
            None => {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    span(file, s),
                    format!("no axis `{}` in spec.toml", s.get_ref()),
                    "declare the axis in spec/spec.toml or fix the name",
                );
                AxisId(0)
            }
        }
    }

    pub(super) fn struct_ref(&mut self, file: FileId, s: &S<String>) -> Option<StructId> {
        match self.names.structures.get(s.get_ref()) {
            Some(id) => Some(*id),
            None => {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    span(file, s),
                    format!("no structure `{}`", s.get_ref()),
                    "define it in spec/structures or fix the name",
                );
                None
            }
        }
    }

    pub(super) fn flag_set_ref(&mut self, file: FileId, s: &S<String>) -> FlagSetId {
        match self.names.flag_sets.get(s.get_ref()) {
            Some(id) => *id,
            None => {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    span(file, s),
                    format!("no flag set `{}`", s.get_ref()),
                    "define it in spec/flags or fix the name",
                );
                FlagSetId(0)
            }
        }
    }

    /// The initial version of an axis (the default `since` at the top).
    pub(super) fn initial(&self, axis: AxisId) -> Version {
        self.axis_initials
            .get(axis.index())
            .copied()
            .unwrap_or(Version::new(1, 0))
    }

    pub(super) fn version(&mut self, file: FileId, axis: AxisId, v: &S<toml::Value>) -> Version {
        // An axis whose style is not a word is reported where it is declared; its versions
        // are read as major.minor so the rest of the spec is still checked.
        let style = self
            .axis_styles
            .get(axis.index())
            .copied()
            .flatten()
            .unwrap_or(AxisStyle::MajorMinor);
        self.version_in_style(file, style, v)
    }

    pub(super) fn version_in_style(
        &mut self,
        file: FileId,
        style: AxisStyle,
        v: &S<toml::Value>,
    ) -> Version {
        // A scheme version is written as a bare integer; the one parse reads its text.
        let text = match v.get_ref() {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Integer(n) if style.single_number() => Some(n.to_string()),
            _ => None,
        };
        match text.map(|t| style.parse(&t)) {
            Some(Ok(version)) => version,
            _ => {
                self.err(
                    &lints::BAD_VALUE,
                    span(file, v),
                    format!(
                        "`{}` is not a version on this axis",
                        show_value(v.get_ref())
                    ),
                    style.form(),
                );
                Version::new(1, 0)
            }
        }
    }

    pub(super) fn since(
        &mut self,
        file: FileId,
        axis: AxisId,
        v: &Option<S<toml::Value>>,
        inherited: Version,
    ) -> Version {
        match v {
            Some(v) => self.version(file, axis, v),
            None => inherited,
        }
    }

    pub(super) fn deprecation(
        &mut self,
        file: FileId,
        axis: AxisId,
        item: Span,
        since: &Option<S<toml::Value>>,
        flag: &Option<S<bool>>,
        replacement: &Option<S<String>>,
    ) -> Option<Deprecation> {
        let marked = flag.as_ref().is_some_and(|f| *f.get_ref()) || replacement.is_some();
        match since {
            Some(v) => Some(Deprecation {
                since: self.version(file, axis, v),
                replacement: replacement.as_ref().map(|r| r.get_ref().clone()),
                span: span(file, v),
            }),
            None if marked => {
                self.diags.push(
                    Diagnostic::new(&lints::S3_MISSING_DEPRECATED_SINCE, Some(item), "this value is deprecated without `deprecated_since`")
                        .help("S3: mark it \"deprecated since 1.N\": add `deprecated_since = \"<the version that deprecates it>\"`"),
                );
                None
            }
            None => None,
        }
    }

    pub(super) fn flag_set_name(&self, id: FlagSetId) -> String {
        self.names
            .flag_sets
            .iter()
            .find(|(_, v)| **v == id)
            .map(|(k, _)| k.clone())
            .unwrap_or_default()
    }

    pub(super) fn tag_value(&mut self, space: SpaceId, name: &str, location: Span) -> Option<i128> {
        match self.names.space_tags[space.index()]
            .iter()
            .find(|(n, _)| n == name)
        {
            Some((_, v)) => Some(*v as i128),
            None => {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    location,
                    format!("no tag `{name}` in this field's space"),
                    "name an allocated tag of the space, or give the value",
                );
                None
            }
        }
    }
}
