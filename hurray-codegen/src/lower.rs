//! Lowering: the raw serde mirror into the typed model. Every reference is resolved to an
//! index, every version parsed, every check typed. Problems are collected, never fatal one
//! by one; a spec with lowering errors is not returned.

use std::collections::{BTreeMap, HashMap};

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::load::RawSpec;
use crate::model::*;
use crate::raw::{self, S};
use crate::source::{FileId, Span};

struct Names {
    axes: HashMap<String, AxisId>,
    spaces: HashMap<String, SpaceId>,
    flag_sets: HashMap<String, FlagSetId>,
    structures: HashMap<String, StructId>,
    /// Field names of every structure, in order, with their raw type text.
    fields: Vec<Vec<(String, String)>>,
    rules: HashMap<String, RuleId>,
    resolutions: HashMap<String, ResolutionId>,
}

struct Lower<'d> {
    diags: &'d mut Diagnostics,
    names: Names,
    axis_styles: Vec<AxisStyle>,
    axis_versions: Vec<(Version, Version)>,
    /// Tag names and values of every lowered space.
    space_tags: Vec<Vec<(String, u32)>>,
    /// Bit names and indices of every lowered flag set.
    flag_bits: Vec<Vec<(String, u32)>>,
    /// The flag set of each scheme axis's scheme.
    scheme_flags: HashMap<AxisId, FlagSetId>,
}

fn span<T>(file: FileId, s: &S<T>) -> Span {
    Span::new(file, s.span())
}

/// Lower a raw spec. Returns `None` when any error was reported.
pub fn lower(raw: RawSpec, diags: &mut Diagnostics) -> Option<Spec> {
    let errors_before = diags.error_count();
    let names = register(&raw, diags);
    let mut l = Lower {
        diags,
        names,
        axis_styles: Vec::new(),
        axis_versions: Vec::new(),
        space_tags: Vec::new(),
        flag_bits: Vec::new(),
        scheme_flags: HashMap::new(),
    };

    let (spec_file, spec_raw) = raw.spec.as_ref()?;
    let resolutions = l.resolutions(&raw);
    let rules = l.rules(&raw);
    let (title, status, status_span) = l.status(*spec_file, spec_raw);
    let mut axes = l.axes(*spec_file, spec_raw);
    let spaces = l.spaces(&raw);
    let flag_sets = l.flag_sets(&raw);
    l.space_tags = spaces
        .iter()
        .map(|sp| sp.tags.iter().map(|t| (t.name.clone(), t.value)).collect())
        .collect();
    l.flag_bits = flag_sets
        .iter()
        .map(|f| f.bits.iter().map(|b| (b.name.clone(), b.bit)).collect())
        .collect();
    for (i, a) in axes.iter().enumerate() {
        let scheme = a.scheme.as_deref().and_then(|n| {
            spaces
                .iter()
                .find(|sp| sp.name == "scheme")
                .and_then(|sp| sp.tag(n))
        });
        if let Some(TagAttrs::Scheme(attrs)) = scheme.map(|t| &t.attrs) {
            l.scheme_flags.insert(AxisId(i as u32), attrs.flags);
        }
    }
    let mut structures = l.structures(&raw);
    let placement = l.placement(&raw);

    // References that need the structures' field lists.
    for (i, (file, a)) in spec_raw.axis.iter().map(|a| (*spec_file, a)).enumerate() {
        if let Some(m) = &a.get_ref().major {
            axes[i].major = l.abs_path(file, m);
        }
        if let Some(p) = l.abs_path(file, &a.get_ref().minor) {
            axes[i].minor = p;
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
    let placement = placement?;
    if l.diags.error_count() > errors_before {
        return None;
    }
    let (spec_title, _) = title;
    Some(Spec {
        title: spec_title,
        status,
        status_span,
        axes,
        spaces,
        flag_sets,
        structures,
        placement,
        rules,
        resolutions,
    })
}

fn register(raw: &RawSpec, diags: &mut Diagnostics) -> Names {
    fn add<I: Copy>(
        map: &mut HashMap<String, I>,
        spans: &mut HashMap<String, Span>,
        name: &str,
        id: I,
        sp: Span,
        what: &str,
        diags: &mut Diagnostics,
    ) {
        if let Some(prev) = spans.get(name) {
            diags.push(
                Diagnostic::new(
                    &lints::DUPLICATE_NAME,
                    Some(sp),
                    format!("{what} `{name}` is defined twice"),
                )
                .label(*prev, "first defined here")
                .help(format!("rename one of the two {what}s")),
            );
        } else {
            map.insert(name.to_string(), id);
            spans.insert(name.to_string(), sp);
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
                "axis",
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
            "tag space",
            diags,
        );
    }
    let mut spans = HashMap::new();
    let mut i = 0;
    for (file, f) in &raw.flags {
        for fs in &f.flags {
            let n = &fs.get_ref().name;
            add(
                &mut names.flag_sets,
                &mut spans,
                n.get_ref(),
                FlagSetId(i),
                span(*file, n),
                "flag set",
                diags,
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
                "structure",
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
                    &format!("field of `{}`", n.get_ref()),
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
                "rule",
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
                "resolution",
                diags,
            );
        }
    }
    names
}

impl Lower<'_> {
    fn err(
        &mut self,
        lint: &'static crate::lints::Lint,
        sp: Span,
        msg: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.diags
            .push(Diagnostic::new(lint, Some(sp), msg).help(help));
    }

    fn word<'a>(
        &mut self,
        file: FileId,
        s: &'a S<String>,
        allowed: &[&str],
        what: &str,
    ) -> Option<&'a str> {
        let v = s.get_ref().as_str();
        if allowed.contains(&v) {
            Some(v)
        } else {
            self.err(
                &lints::BAD_VALUE,
                span(file, s),
                format!("`{v}` is not a valid {what}"),
                format!("use one of: {}", allowed.join(", ")),
            );
            None
        }
    }

    fn rule_ref(&mut self, file: FileId, s: &S<String>) -> RuleId {
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

    fn resolution_refs(&mut self, file: FileId, v: &Option<S<toml::Value>>) -> Vec<ResolutionId> {
        let Some(v) = v else { return Vec::new() };
        let sp = span(file, v);
        let ids: Vec<String> = match v.get_ref() {
            toml::Value::String(s) => vec![s.clone()],
            toml::Value::Array(a) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            _ => {
                self.err(
                    &lints::BAD_VALUE,
                    sp,
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
                    sp,
                    format!("no resolution `{id}` in spec/resolutions.toml"),
                    "add the resolution or fix the id",
                ),
            }
        }
        out
    }

    fn axis_ref(&mut self, file: FileId, s: &S<String>) -> AxisId {
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

    fn version(&mut self, file: FileId, axis: AxisId, v: &S<toml::Value>) -> Version {
        let style = self
            .axis_styles
            .get(axis.index())
            .copied()
            .unwrap_or(AxisStyle::MajorMinor);
        self.version_in_style(file, style, v)
    }

    fn version_in_style(&mut self, file: FileId, style: AxisStyle, v: &S<toml::Value>) -> Version {
        let sp = span(file, v);
        let parsed = match (style, v.get_ref()) {
            (AxisStyle::Scheme, toml::Value::Integer(n)) if (1..=255).contains(n) => {
                Some(Version::new(1, *n as u16))
            }
            (AxisStyle::Scheme, toml::Value::String(s)) => s
                .parse::<u16>()
                .ok()
                .filter(|n| (1..=255).contains(n))
                .map(|n| Version::new(1, n)),
            (AxisStyle::MajorMinor, toml::Value::String(s)) => {
                let mut it = s.split('.');
                match (
                    it.next().and_then(|x| x.parse::<u16>().ok()),
                    it.next().and_then(|x| x.parse::<u16>().ok()),
                    it.next(),
                ) {
                    (Some(a), Some(b), None) if a <= 255 && b <= 255 => Some(Version::new(a, b)),
                    _ => None,
                }
            }
            _ => None,
        };
        parsed.unwrap_or_else(|| {
            let help = match style {
                AxisStyle::MajorMinor => {
                    "write a version as a string \"MAJOR.MINOR\" (each 0–255), e.g. \"1.1\""
                }
                AxisStyle::Scheme => {
                    "a scheme axis version is the scheme_version byte, an integer 1–255, e.g. 2"
                }
            };
            self.err(
                &lints::BAD_VALUE,
                sp,
                format!(
                    "`{}` is not a version on this axis",
                    show_value(v.get_ref())
                ),
                help,
            );
            Version::new(1, 0)
        })
    }

    fn since(
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

    fn resolutions(&mut self, raw: &RawSpec) -> Vec<Resolution> {
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

    fn rules(&mut self, raw: &RawSpec) -> Vec<Rule> {
        let mut out = Vec::new();
        for (file, f) in &raw.rules {
            for r in &f.rule {
                let r0 = r.get_ref();
                let actor = match self.word(
                    *file,
                    &r0.actor,
                    &["reader", "writer", "both", "editor"],
                    "actor",
                ) {
                    Some("writer") => Actor::Writer,
                    Some("both") => Actor::Both,
                    Some("editor") => Actor::Editor,
                    _ => Actor::Reader,
                };
                let action = match self.word(
                    *file,
                    &r0.action,
                    &["reject", "strict", "validate", "warn", "obligation"],
                    "action",
                ) {
                    Some("strict") => Action::Strict,
                    Some("validate") => Action::Validate,
                    Some("warn") => Action::Warn,
                    Some("obligation") => Action::Obligation,
                    _ => Action::Reject,
                };
                let enforced_by = self.enforcement(*file, &r0.enforced_by);
                let also_enforced_by = r0
                    .also_enforced_by
                    .iter()
                    .map(|w| self.enforcement(*file, w))
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
                if (enforced_by == EnforcedBy::Unenforceable) != r0.unenforceable.is_some() {
                    self.err(
                        &lints::BAD_VALUE,
                        span(*file, &r0.enforced_by),
                        "a rule says why no software enforces it exactly when `enforced_by` is \"none\"",
                        "add `unenforceable = \"<why>\"` with `enforced_by = \"none\"`, or remove it",
                    );
                }
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
                    span: span(*file, r),
                });
            }
        }
        out
    }

    /// A rule's `enforced_by` word.
    fn enforcement(&mut self, file: FileId, w: &S<String>) -> EnforcedBy {
        match self.word(
            file,
            w,
            &[
                "table",
                "runtime",
                "writer",
                "structure",
                "amendment",
                "derive",
                "none",
            ],
            "enforcement",
        ) {
            Some("table") => EnforcedBy::Table,
            Some("writer") => EnforcedBy::Writer,
            Some("structure") => EnforcedBy::Structure,
            Some("amendment") => EnforcedBy::Amendment,
            Some("derive") => EnforcedBy::Derive,
            Some("none") => EnforcedBy::Unenforceable,
            _ => EnforcedBy::Runtime,
        }
    }

    fn status(&mut self, file: FileId, s: &raw::SpecFile) -> ((String, ()), Status, Span) {
        let meta = s.spec.get_ref();
        let st = match self.word(file, &meta.status, &["draft", "released"], "status") {
            Some("draft") => Status::Draft,
            _ => Status::Released,
        };
        (
            (meta.title.get_ref().clone(), ()),
            st,
            span(file, &meta.status),
        )
    }

    fn axes(&mut self, file: FileId, s: &raw::SpecFile) -> Vec<Axis> {
        let mut out = Vec::new();
        for a in &s.axis {
            let a0 = a.get_ref();
            let style = match self.word(file, &a0.style, &["major.minor", "scheme"], "axis style") {
                Some("scheme") => AxisStyle::Scheme,
                _ => AxisStyle::MajorMinor,
            };
            self.axis_styles.push(style);
            let initial = self.version_in_style(file, style, &a0.initial);
            let current = self.version_in_style(file, style, &a0.current);
            self.axis_versions.push((initial, current));
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
            out.push(Axis {
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
            });
        }
        out
    }

    fn spaces(&mut self, raw: &RawSpec) -> Vec<TagSpace> {
        let mut out = Vec::new();
        for (file, t) in &raw.tags {
            let file = *file;
            let sp0 = t.space.get_ref();
            let width = match self.word(file, &sp0.width, &["u8", "u16", "u32"], "tag width") {
                Some("u16") => Width::U16,
                Some("u32") => Width::U32,
                _ => Width::U8,
            };
            let axis = self.axis_ref(file, &sp0.axis);
            let initial = self
                .axis_versions
                .get(axis.index())
                .map(|v| v.0)
                .unwrap_or(Version::new(1, 0));
            let mut ranges = Vec::new();
            for r in &sp0.ranges {
                let r0 = r.get_ref();
                let kind = match self.word(
                    file,
                    &r0.kind,
                    &["invalid", "public", "reserved", "private"],
                    "range kind",
                ) {
                    Some("invalid") => RangeKind::Invalid,
                    Some("reserved") => RangeKind::Reserved,
                    Some("private") => RangeKind::Private,
                    _ => RangeKind::Public {
                        tier: r0.tier.as_ref().map(|t| *t.get_ref() as u8),
                    },
                };
                if r0.tier.is_some() && !matches!(kind, RangeKind::Public { .. }) {
                    self.err(
                        &lints::BAD_VALUE,
                        span(file, r),
                        "only public ranges have a tier",
                        "remove `tier` or make the range public",
                    );
                }
                let structure = r0.structure.as_ref().and_then(|s| self.struct_ref(file, s));
                let (from, to) = (*r0.from.get_ref(), *r0.to.get_ref());
                if from < 0 || to < from || to as u64 > width.max() {
                    self.err(
                        &lints::RANGE_COVERAGE,
                        span(file, r),
                        format!(
                            "range {from:#x}–{to:#x} is not a valid range of a {} space",
                            sp0.width.get_ref()
                        ),
                        "ranges go from a low value to a higher one inside the width",
                    );
                }
                ranges.push(Range {
                    from: from.clamp(0, u32::MAX as i64) as u32,
                    to: to.clamp(0, u32::MAX as i64) as u32,
                    kind,
                    structure,
                    memory_classes: r0
                        .memory_classes
                        .as_ref()
                        .map(|v| v.get_ref().iter().map(|s| s.get_ref().clone()).collect())
                        .unwrap_or_default(),
                    note: r0
                        .note
                        .as_ref()
                        .map(|n| n.get_ref().clone())
                        .unwrap_or_default(),
                    span: span(file, r),
                });
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
            let mut tags = Vec::new();
            for tg in &t.tag {
                tags.push(self.tag(file, &space_name, axis, initial, tg));
            }
            let resolutions = self.resolution_refs(file, &sp0.resolution);
            out.push(TagSpace {
                name: space_name,
                title: sp0.title.get_ref().clone(),
                width,
                axis,
                ranges,
                tags,
                reject,
                resolutions,
                span: span(file, &t.space),
            });
        }
        out
    }

    fn deprecation(
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

    fn tag(
        &mut self,
        file: FileId,
        space: &str,
        axis: AxisId,
        initial: Version,
        tg: &S<raw::Tag>,
    ) -> Tag {
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
        let strings = |v: &Option<S<Vec<S<String>>>>| {
            v.as_ref().map(|v| {
                v.get_ref()
                    .iter()
                    .map(|s| s.get_ref().clone())
                    .collect::<Vec<_>>()
            })
        };
        // Which attributes each space takes.
        let allowed: &[&str] = match space {
            "element_type" => &["bits", "kind", "format", "bias", "packing"],
            "layout" => &["class", "rank", "buffers", "byte_offset"],
            "device" => &["memory_classes"],
            "scheme" => &["flags", "storage", "storage_rule", "parameters"],
            "combine_op" => &["legal_with"],
            "block_table_index_type" => &["index_bytes"],
            _ => &[],
        };
        let present: Vec<(&str, Option<Span>)> = vec![
            ("bits", t.bits.as_ref().map(|x| span(file, x))),
            ("kind", t.kind.as_ref().map(|x| span(file, x))),
            ("format", t.format.as_ref().map(|x| span(file, x))),
            ("bias", t.bias.as_ref().map(|x| span(file, x))),
            ("packing", t.packing.as_ref().map(|x| span(file, x))),
            ("class", t.class.as_ref().map(|x| span(file, x))),
            ("rank", t.rank.as_ref().map(|x| span(file, x))),
            ("buffers", t.buffers.as_ref().map(|x| span(file, x))),
            ("byte_offset", t.byte_offset.as_ref().map(|x| span(file, x))),
            (
                "memory_classes",
                t.memory_classes.as_ref().map(|x| span(file, x)),
            ),
            ("flags", t.flags.as_ref().map(|x| span(file, x))),
            ("storage", t.storage.as_ref().map(|x| span(file, x))),
            (
                "storage_rule",
                t.storage_rule.as_ref().map(|x| span(file, x)),
            ),
            ("parameters", t.parameters.as_ref().map(|x| span(file, x))),
            ("legal_with", t.legal_with.as_ref().map(|x| span(file, x))),
            ("index_bytes", t.index_bytes.as_ref().map(|x| span(file, x))),
        ];
        for (k, sp) in &present {
            if let Some(sp) = sp
                && !allowed.contains(k)
            {
                self.err(
                    &lints::BAD_VALUE,
                    *sp,
                    format!("`{k}` is not an attribute of `{space}` tags"),
                    format!(
                        "`{space}` tags take: {}",
                        if allowed.is_empty() {
                            "no attributes".to_string()
                        } else {
                            allowed.join(", ")
                        }
                    ),
                );
            }
        }
        let missing = |me: &mut Self, k: &str| {
            me.err(
                &lints::TOML_SYNTAX,
                tsp,
                format!("`{space}` tag `{}` lacks `{k}`", t.name.get_ref()),
                format!("add `{k}`; spec/README.md describes it"),
            );
        };
        let attrs = match space {
            "element_type" => {
                let kind = match t.kind.as_ref().map(|k| {
                    self.word(
                        file,
                        k,
                        &["float", "signed", "unsigned", "bool", "scale", "complex"],
                        "element kind",
                    )
                }) {
                    Some(Some("float")) => ElementKind::Float,
                    Some(Some("signed")) => ElementKind::Signed,
                    Some(Some("unsigned")) => ElementKind::Unsigned,
                    Some(Some("bool")) => ElementKind::Bool,
                    Some(Some("scale")) => ElementKind::Scale,
                    Some(Some("complex")) => ElementKind::Complex,
                    Some(_) => ElementKind::Unsigned,
                    None => {
                        missing(self, "kind");
                        ElementKind::Unsigned
                    }
                };
                let packing =
                    match t.packing.as_ref().map(|k| {
                        self.word(file, k, &["none", "lsb_first", "group_4_in_3"], "packing")
                    }) {
                        Some(Some("lsb_first")) => Packing::LsbFirst,
                        Some(Some("group_4_in_3")) => Packing::Group4In3,
                        _ => Packing::None,
                    };
                let bits = t
                    .bits
                    .as_ref()
                    .map(|b| *b.get_ref() as u32)
                    .unwrap_or_else(|| {
                        missing(self, "bits");
                        8
                    });
                let ok = match packing {
                    Packing::None => bits >= 8 && bits.is_multiple_of(8),
                    Packing::LsbFirst => matches!(bits, 1 | 2 | 4),
                    Packing::Group4In3 => bits == 6,
                };
                if !ok {
                    self.err(&lints::BAD_VALUE, tsp, format!("{bits}-bit elements cannot use this packing"), "whole-byte types use `packing = \"none\"`, 1/2/4-bit types `lsb_first`, 6-bit types `group_4_in_3`");
                }
                TagAttrs::ElementType(ElementTypeAttrs {
                    bits,
                    kind,
                    format: t.format.as_ref().map(|f| f.get_ref().clone()),
                    bias: t.bias.as_ref().map(|b| *b.get_ref()),
                    packing,
                })
            }
            "layout" => {
                let class = match t.class.as_ref().map(|k| {
                    self.word(
                        file,
                        k,
                        &["dense", "sparse", "indirect", "virtual"],
                        "layout class",
                    )
                }) {
                    Some(Some("sparse")) => LayoutClass::Sparse,
                    Some(Some("indirect")) => LayoutClass::Indirect,
                    Some(Some("virtual")) => LayoutClass::Virtual,
                    Some(_) => LayoutClass::Dense,
                    None => {
                        missing(self, "class");
                        LayoutClass::Dense
                    }
                };
                let (rank_min, rank_max) = match &t.rank {
                    Some(r)
                        if r.get_ref().len() == 2
                            && (0..=64).contains(r.get_ref()[0].get_ref())
                            && (*r.get_ref()[0].get_ref()..=64)
                                .contains(r.get_ref()[1].get_ref()) =>
                    {
                        (
                            *r.get_ref()[0].get_ref() as u32,
                            *r.get_ref()[1].get_ref() as u32,
                        )
                    }
                    Some(r) => {
                        self.err(
                            &lints::BAD_VALUE,
                            span(file, r),
                            "`rank` must be [min, max] within 0..=64",
                            "e.g. `rank = [1, 64]`",
                        );
                        (0, 64)
                    }
                    None => {
                        missing(self, "rank");
                        (0, 64)
                    }
                };
                let buffers = match &t.buffers {
                    Some(b) => parse_rank_linear(b.get_ref()).unwrap_or_else(|| {
                        self.err(
                            &lints::BAD_VALUE,
                            span(file, b),
                            format!("`{}` is not `N` or `A*rank+B`", b.get_ref()),
                            "write e.g. `\"1\"` or `\"2*rank+1\"`",
                        );
                        RankLinear { a: 0, b: 1 }
                    }),
                    None => {
                        missing(self, "buffers");
                        RankLinear { a: 0, b: 1 }
                    }
                };
                let byte_offset = match t
                    .byte_offset
                    .as_ref()
                    .map(|k| self.word(file, k, &["bounded", "zero"], "byte_offset rule"))
                {
                    Some(Some("zero")) => ByteOffsetRule::Zero,
                    Some(_) => ByteOffsetRule::Bounded,
                    None => {
                        missing(self, "byte_offset");
                        ByteOffsetRule::Bounded
                    }
                };
                TagAttrs::Layout(LayoutAttrs {
                    class,
                    rank_min,
                    rank_max,
                    buffers,
                    byte_offset,
                })
            }
            "device" => TagAttrs::Device {
                memory_classes: strings(&t.memory_classes).unwrap_or_default(),
            },
            "scheme" => {
                let flags = match &t.flags {
                    Some(f) => self.flag_set_ref(file, f),
                    None => {
                        missing(self, "flags");
                        FlagSetId(0)
                    }
                };
                let storage_rule = match &t.storage_rule {
                    Some(r) => self.rule_ref(file, r),
                    None => {
                        missing(self, "storage_rule");
                        RuleId(0)
                    }
                };
                let parameters = t
                    .parameters
                    .as_ref()
                    .map(|ps| {
                        ps.get_ref()
                            .iter()
                            .map(|p| SchemeParameter {
                                name: p.get_ref().name.get_ref().clone(),
                                index_field: p.get_ref().index.get_ref().clone(),
                                unless_flag: p
                                    .get_ref()
                                    .unless_flag
                                    .as_ref()
                                    .map(|u| u.get_ref().clone()),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                TagAttrs::Scheme(SchemeAttrs {
                    flags,
                    storage: strings(&t.storage).unwrap_or_default(),
                    storage_rule,
                    parameters,
                })
            }
            "combine_op" => TagAttrs::CombineOp {
                legal_with: strings(&t.legal_with).unwrap_or_default(),
            },
            "block_table_index_type" => TagAttrs::IndexType {
                bytes: t
                    .index_bytes
                    .as_ref()
                    .map(|b| *b.get_ref() as u8)
                    .unwrap_or(4),
            },
            _ => TagAttrs::None,
        };
        let resolutions = self.resolution_refs(file, &t.resolution);
        Tag {
            value: (*t.value.get_ref()).clamp(0, u32::MAX as i64) as u32,
            name: t.name.get_ref().clone(),
            title: t.title.get_ref().clone(),
            since,
            deprecated,
            structure,
            tier: t.tier.as_ref().map(|x| *x.get_ref() as u8),
            attrs,
            resolutions,
            span: tsp,
            value_span: span(file, &t.value),
            name_span: span(file, &t.name),
        }
    }

    fn struct_ref(&mut self, file: FileId, s: &S<String>) -> Option<StructId> {
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

    fn flag_set_ref(&mut self, file: FileId, s: &S<String>) -> FlagSetId {
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

    fn flag_sets(&mut self, raw: &RawSpec) -> Vec<FlagSet> {
        let mut out = Vec::new();
        for (file, f) in &raw.flags {
            let file = *file;
            for fs in &f.flags {
                let f0 = fs.get_ref();
                let width = match self.word(file, &f0.width, &["u8", "u16", "u32"], "flag width") {
                    Some("u8") => Width::U8,
                    Some("u16") => Width::U16,
                    _ => Width::U32,
                };
                self.word(file, &f0.unknown_bits, &["reject"], "unknown-bit behaviour");
                let axis = self.axis_ref(file, &f0.axis);
                let initial = self
                    .axis_versions
                    .get(axis.index())
                    .map(|v| v.0)
                    .unwrap_or(Version::new(1, 0));
                let rule = self.rule_ref(file, &f0.rule);
                let mut bits: Vec<Bit> = Vec::new();
                for b in &f0.bit {
                    let b0 = b.get_ref();
                    let bsp = span(file, b);
                    if *b0.bit.get_ref() < 0 || *b0.bit.get_ref() as u32 >= width.bits() {
                        self.err(
                            &lints::BAD_VALUE,
                            span(file, &b0.bit),
                            format!(
                                "bit {} does not exist in a {}-bit flag set",
                                b0.bit.get_ref(),
                                width.bits()
                            ),
                            "use a bit index below the width",
                        );
                    }
                    if let Some(prev) = bits.iter().find(|x| x.bit as i64 == *b0.bit.get_ref()) {
                        self.diags.push(
                            Diagnostic::new(
                                &lints::DUPLICATE_VALUE,
                                Some(bsp),
                                format!("bit {} is allocated twice", b0.bit.get_ref()),
                            )
                            .label(prev.span, "first allocated here")
                            .help("a bit has one meaning; allocate the next reserved bit instead"),
                        );
                    }
                    if let Some(prev) = bits.iter().find(|x| &x.name == b0.name.get_ref()) {
                        self.diags.push(
                            Diagnostic::new(
                                &lints::DUPLICATE_NAME,
                                Some(span(file, &b0.name)),
                                format!("bit name `{}` is used twice", b0.name.get_ref()),
                            )
                            .label(prev.span, "first used here")
                            .help("rename one of the bits"),
                        );
                    }
                    let since = self.since(file, axis, &b0.since, initial);
                    let deprecated = self.deprecation(
                        file,
                        axis,
                        bsp,
                        &b0.deprecated_since,
                        &b0.deprecated,
                        &b0.replacement,
                    );
                    let resolutions = self.resolution_refs(file, &b0.resolution);
                    bits.push(Bit {
                        bit: (*b0.bit.get_ref()).clamp(0, 63) as u32,
                        name: b0.name.get_ref().clone(),
                        title: b0.title.get_ref().clone(),
                        since,
                        deprecated,
                        resolutions,
                        span: bsp,
                        name_span: span(file, &b0.name),
                    });
                }
                let resolutions = self.resolution_refs(file, &f0.resolution);
                out.push(FlagSet {
                    name: f0.name.get_ref().clone(),
                    title: f0.title.get_ref().clone(),
                    width,
                    axis,
                    rule,
                    bits,
                    resolutions,
                    span: span(file, fs),
                });
            }
        }
        out
    }

    /// `struct.field[.field…]`: an absolute path starting at a structure name.
    fn abs_path(&mut self, file: FileId, s: &S<String>) -> Option<FieldPath> {
        let text = s.get_ref();
        let (head, rest) = text.split_once('.').unwrap_or((text, ""));
        let Some(&root) = self.names.structures.get(head) else {
            self.err(
                &lints::UNKNOWN_REFERENCE,
                span(file, s),
                format!("`{text}` does not start with a structure name"),
                "write `<structure>.<field>`",
            );
            return None;
        };
        if rest.is_empty() {
            self.err(
                &lints::UNKNOWN_REFERENCE,
                span(file, s),
                format!("`{text}` names no field"),
                "write `<structure>.<field>`",
            );
            return None;
        }
        self.rel_path(file, root, &S::new(0..0, rest.to_string()), usize::MAX)
            .map(|mut p| {
                p.text = text.clone();
                p
            })
            .or_else(|| {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    span(file, s),
                    format!("`{text}` names no field"),
                    "check the field names in spec/structures",
                );
                None
            })
    }

    /// A dotted path of field names starting in structure `root`, limited to fields before
    /// index `before` at the first step.
    fn rel_path(
        &mut self,
        file: FileId,
        root: StructId,
        s: &S<String>,
        before: usize,
    ) -> Option<FieldPath> {
        let text = s.get_ref().clone();
        let mut steps = Vec::new();
        let mut cur = root;
        for (depth, part) in text.split('.').enumerate() {
            let fields = &self.names.fields[cur.index()];
            let limit = if depth == 0 {
                before.min(fields.len())
            } else {
                fields.len()
            };
            let Some(i) = fields[..limit].iter().position(|(n, _)| n == part) else {
                if s.span().end > 0 {
                    self.err(
                        &lints::UNKNOWN_COUNT_FIELD,
                        span(file, s),
                        format!("`{text}`: no {}field `{part}`", if depth == 0 && before != usize::MAX { "earlier " } else { "" }),
                        "a count, length, condition or binding may only name a field that precedes it (or a declared param)",
                    );
                }
                return None;
            };
            steps.push(i);
            let ty = fields[i].1.clone();
            if let Some(name) = ty.strip_prefix("struct:")
                && let Some(&id) = self.names.structures.get(name)
            {
                cur = id;
            }
        }
        Some(FieldPath { root, steps, text })
    }

    fn framing(&mut self, file: FileId, v: &S<toml::Value>) -> Option<Framing> {
        match v.get_ref() {
            toml::Value::String(s) if s == "fixed" => Some(Framing::Fixed),
            toml::Value::Table(t) => {
                let by = t.get("length_prefixed").and_then(|x| x.as_str());
                let covers = t.get("covers").and_then(|x| x.as_str()).unwrap_or("whole");
                let rule = t.get("rule").and_then(|x| x.as_str());
                if covers != "whole"
                    || t.keys()
                        .any(|k| !["length_prefixed", "covers", "rule"].contains(&k.as_str()))
                    || by.is_none()
                    || rule.is_none()
                {
                    self.err(&lints::BAD_VALUE, span(file, v), "unsupported framing", "write `framing = { length_prefixed = \"<structure>.<field>\", covers = \"whole\", rule = \"<rule a read past the length breaks>\" }`");
                    return None;
                }
                let path = self.abs_path(file, &S::new(v.span(), by?.to_string()))?;
                let rule = self.rule_ref(file, &S::new(v.span(), rule?.to_string()));
                Some(Framing::LengthPrefixed {
                    by_struct: path.root,
                    by_field: path,
                    rule,
                })
            }
            _ => {
                self.err(&lints::BAD_VALUE, span(file, v), "`framing` must be \"fixed\" or a length-prefix table", "write `framing = \"fixed\"` or `framing = { length_prefixed = \"<structure>.<field>\" }`");
                None
            }
        }
    }

    fn structures(&mut self, raw: &RawSpec) -> Vec<Structure> {
        let mut out = Vec::new();
        let mut sid = 0u32;
        for (file, sf) in &raw.structures {
            let file = *file;
            for rs in &sf.structure {
                let s0 = rs.get_ref();
                let axis = self.axis_ref(file, &s0.axis);
                let initial = self
                    .axis_versions
                    .get(axis.index())
                    .map(|v| v.0)
                    .unwrap_or(Version::new(1, 0));
                let since = self.since(file, axis, &s0.since, initial);
                let params: Vec<String> = s0.params.iter().map(|p| p.get_ref().clone()).collect();
                // Names a structure binds with `let` are in scope for its own fields too.
                let scope: Vec<String> = params
                    .iter()
                    .cloned()
                    .chain(s0.bindings.keys().cloned())
                    .collect();
                for p in &s0.params {
                    if !["rank", "buffer_count"].contains(&p.get_ref().as_str()) {
                        self.err(
                            &lints::BAD_VALUE,
                            span(file, p),
                            format!("unknown param `{}`", p.get_ref()),
                            "structures take the params `rank` and `buffer_count`",
                        );
                    }
                }
                let mut fields = Vec::new();
                for (i, rf) in s0.field.iter().enumerate() {
                    if let Some(f) =
                        self.field(file, StructId(sid), &scope, axis, since, i, rf, &s0.field)
                    {
                        fields.push(f);
                    }
                }
                let rules = s0.rules.iter().map(|r| self.rule_ref(file, r)).collect();
                let resolutions = self.resolution_refs(file, &s0.resolution);
                let depth_limit = s0.depth_limit.as_ref().map(|d| {
                    (
                        (*d.get_ref().levels.get_ref()).clamp(1, 64) as u32,
                        self.rule_ref(file, &d.get_ref().rule),
                    )
                });
                out.push(Structure {
                    name: s0.name.get_ref().clone(),
                    title: s0.title.get_ref().clone(),
                    axis,
                    since,
                    framing: Framing::Fixed,
                    params,
                    bindings: BTreeMap::new(),
                    depth_limit,
                    fields,
                    size: s0.size.as_ref().map(|s| Affine::constant(*s.get_ref())),
                    rules,
                    resolutions,
                    note: s0
                        .note
                        .as_ref()
                        .map(|n| n.get_ref().clone())
                        .unwrap_or_default(),
                    span: span(file, rs),
                    framing_span: span(file, &s0.framing),
                });
                sid += 1;
            }
        }
        out
    }

    fn operand(
        &mut self,
        file: FileId,
        s: &S<String>,
        params: &[String],
        fields: &[S<raw::Field>],
        before: usize,
    ) -> Option<Operand> {
        let name = s.get_ref();
        if params.contains(name) {
            return Some(Operand::Param(name.clone()));
        }
        if let Some(i) = fields[..before]
            .iter()
            .position(|f| f.get_ref().name.get_ref() == name)
        {
            return Some(Operand::Field(i));
        }
        self.err(
            &lints::UNKNOWN_COUNT_FIELD,
            span(file, s),
            format!("`{name}` is neither a param nor an earlier field"),
            "declare it in `params` or name a field that precedes this one",
        );
        None
    }

    #[allow(clippy::too_many_arguments)]
    fn field(
        &mut self,
        file: FileId,
        sid: StructId,
        params: &[String],
        axis: AxisId,
        struct_since: Version,
        index: usize,
        rf: &S<raw::Field>,
        all: &[S<raw::Field>],
    ) -> Option<Field> {
        let f = rf.get_ref();
        let fsp = span(file, rf);
        let ty_text = f.ty.get_ref().as_str();
        let ty = if let Some(p) = Prim::from_name(ty_text) {
            FieldType::Prim(p)
        } else if ty_text == "bytes" {
            FieldType::Bytes
        } else if ty_text == "utf8" {
            FieldType::Utf8
        } else if let Some(n) = ty_text.strip_prefix("tag:") {
            match self.names.spaces.get(n) {
                Some(id) => FieldType::Tag(*id),
                None => {
                    self.err(
                        &lints::UNKNOWN_REFERENCE,
                        span(file, &f.ty),
                        format!("no tag space `{n}`"),
                        "define it in spec/tags or fix the name",
                    );
                    return None;
                }
            }
        } else if let Some(n) = ty_text.strip_prefix("flags:") {
            match self.names.flag_sets.get(n) {
                Some(id) => FieldType::Flags(*id),
                None => {
                    self.err(
                        &lints::UNKNOWN_REFERENCE,
                        span(file, &f.ty),
                        format!("no flag set `{n}`"),
                        "define it in spec/flags or fix the name",
                    );
                    return None;
                }
            }
        } else if let Some(n) = ty_text.strip_prefix("struct:") {
            FieldType::Struct(self.struct_ref(file, &S::new(f.ty.span(), n.to_string()))?)
        } else if let Some(n) = ty_text.strip_prefix("dispatch:") {
            let Some(&space) = self.names.spaces.get(n) else {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    span(file, &f.ty),
                    format!("no tag space `{n}`"),
                    "define it in spec/tags or fix the name",
                );
                return None;
            };
            let Some(on) = &f.on else {
                self.err(
                    &lints::BAD_DISPATCH,
                    fsp,
                    "a dispatched field needs `on`, the path of its tag",
                    "add `on = \"<tag field>\"`",
                );
                return None;
            };
            let on_text = on.get_ref();
            let first = on_text.split('.').next().unwrap_or("");
            let source = if first == f.name.get_ref() {
                let rest: Vec<String> = on_text.split('.').skip(1).map(String::from).collect();
                TagSource::Peek {
                    offset: 0,
                    path_in_variant: rest,
                }
            } else {
                TagSource::Field(self.rel_path(file, sid, on, index)?)
            };
            FieldType::Dispatch { space, on: source }
        } else {
            self.err(&lints::BAD_VALUE, span(file, &f.ty), format!("unknown type `{ty_text}`"), "use u8…u64, i8…i64, f32, f64, bytes, utf8, tag:<space>, flags:<set>, struct:<structure> or dispatch:<space>");
            return None;
        };
        if f.on.is_some() && !matches!(ty, FieldType::Dispatch { .. }) {
            self.err(
                &lints::BAD_VALUE,
                fsp,
                "`on` only applies to dispatched fields",
                "remove `on`",
            );
        }
        let count = match &f.count {
            None => {
                if matches!(ty, FieldType::Bytes | FieldType::Utf8) {
                    self.err(
                        &lints::UNKNOWN_COUNT_FIELD,
                        fsp,
                        format!("`{ty_text}` needs a `count`"),
                        "add `count = <bytes>` or `count = \"<length field>\"`",
                    );
                    return None;
                }
                None
            }
            Some(c) => match c.get_ref() {
                toml::Value::Integer(n) if *n >= 0 => Some(Count::Const(*n as u64)),
                toml::Value::String(s) if s == "rest" => Some(Count::Rest),
                toml::Value::String(s) => {
                    match self.operand(file, &S::new(c.span(), s.clone()), params, all, index)? {
                        Operand::Param(p) => Some(Count::Param(p)),
                        Operand::Field(i) => {
                            let t = all[i].get_ref().ty.get_ref();
                            if !matches!(t.as_str(), "u8" | "u16" | "u32" | "u64") {
                                self.err(
                                    &lints::UNKNOWN_COUNT_FIELD,
                                    span(file, c),
                                    format!("count field `{s}` is `{t}`, not an unsigned integer"),
                                    "a count names an unsigned integer field",
                                );
                            }
                            Some(Count::Field(i))
                        }
                    }
                }
                _ => {
                    self.err(
                        &lints::BAD_VALUE,
                        span(file, c),
                        "`count` must be an integer, a field or param name, or \"rest\"",
                        "e.g. `count = \"rank\"`",
                    );
                    return None;
                }
            },
        };
        let since = self.since(file, axis, &f.since, struct_since);
        let presence = match &f.present_if {
            None => Presence::Always,
            Some(c) => Presence::If(self.condition(file, sid, axis, c, index)?),
        };
        let prim = match &ty {
            FieldType::Prim(p) => Some(*p),
            _ => None,
        };
        let mut checks = Vec::new();
        if let Some(cv) = &f.check {
            let items: Vec<toml::Value> = match cv.get_ref() {
                toml::Value::Array(a) => a.clone(),
                other => vec![other.clone()],
            };
            for item in items {
                let csp = span(file, cv);
                let parsed: Result<raw::Check, _> = item.try_into();
                match parsed {
                    Ok(c) => {
                        if let Some(c) =
                            self.check(file, sid, axis, csp, &ty, prim, params, all, index, &c)
                        {
                            checks.push(c);
                        }
                    }
                    Err(e) => self.err(
                        &lints::TOML_SYNTAX,
                        csp,
                        format!("invalid check: {}", e.message()),
                        "spec/README.md lists the check keys",
                    ),
                }
            }
        }
        let default = match &f.default {
            None => None,
            Some(d) => self.default(file, d, &ty, all, index),
        };
        let rule = f.rule.as_ref().map(|r| self.rule_ref(file, r));
        if matches!(ty, FieldType::Utf8) && rule.is_none() {
            self.err(
                &lints::UNKNOWN_REFERENCE,
                fsp,
                "a utf8 field needs the `rule` that invalid UTF-8 breaks",
                "add `rule = \"<id>\"`",
            );
        }
        let reserved = f.reserved.as_ref().is_some_and(|r| *r.get_ref());
        if reserved {
            let Some(rule) = rule else {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    fsp,
                    "a reserved field needs the `rule` its non-zero bytes break",
                    "add `rule = \"<id>\"`",
                );
                return None;
            };
            checks.push(Check {
                kind: CheckKind::Equals(Lit::Int(0)),
                when: None,
                rule,
                level: CheckLevel::Reject,
                span: fsp,
            });
        }
        let resolutions = self.resolution_refs(file, &f.resolution);
        let offset_decl = f
            .offset
            .as_ref()
            .map(|o| (span(file, o), o.get_ref().clone()));
        let mut field = Field {
            name: f.name.get_ref().clone(),
            title: f
                .title
                .as_ref()
                .map(|t| t.get_ref().clone())
                .unwrap_or_default(),
            ty,
            count,
            since,
            default,
            presence,
            checks,
            reserved,
            rule,
            resolutions,
            note: f
                .note
                .as_ref()
                .map(|t| t.get_ref().clone())
                .unwrap_or_default(),
            position: Position::Sequential,
            declared_offset: None,
            size: None,
            span: fsp,
            name_span: span(file, &f.name),
            since_span: f.since.as_ref().map(|s| span(file, s)),
            default_span: f.default.as_ref().map(|s| span(file, s)),
        };
        // The declared offset is kept as a position for the layout pass to compare.
        if let Some((osp, v)) = offset_decl {
            match parse_affine(&v) {
                Some(a) => field.declared_offset = Some((a, osp)),
                None => self.err(
                    &lints::BAD_VALUE,
                    osp,
                    format!("`{}` is not an offset", show_value(&v)),
                    "write an integer or a linear expression such as \"20+8*rank\"",
                ),
            }
        }
        Some(field)
    }

    fn condition(
        &mut self,
        file: FileId,
        sid: StructId,
        axis: AxisId,
        c: &S<raw::Condition>,
        before: usize,
    ) -> Option<Condition> {
        let c0 = c.get_ref();
        let path = self.rel_path(file, sid, &c0.field, before)?;
        let n = [
            c0.equals.is_some(),
            c0.not_equals.is_some(),
            c0.has_bit.is_some(),
            c0.lacks_bit.is_some(),
        ]
        .iter()
        .filter(|x| **x)
        .count();
        if n != 1 {
            self.err(
                &lints::BAD_VALUE,
                span(file, c),
                "a condition takes exactly one of equals, not_equals, has_bit, lacks_bit",
                "e.g. `{ field = \"flags\", has_bit = \"HAS_SHARD\" }`",
            );
            return None;
        }
        if let Some(v) = &c0.equals {
            return Some(Condition::Equals(path, *v.get_ref() as i128));
        }
        if let Some(v) = &c0.not_equals {
            return Some(Condition::NotEquals(path, *v.get_ref() as i128));
        }
        let (bit, has) = match (&c0.has_bit, &c0.lacks_bit) {
            (Some(b), _) => (b, true),
            (_, Some(b)) => (b, false),
            _ => return None,
        };
        // The flag set of the field the path names; a raw integer flags field (the
        // quantization header's) is read with the flag set of the structure's scheme.
        let fsid = match self.path_flag_set(&path) {
            Some(name) => *self.names.flag_sets.get(&name)?,
            None => match self.scheme_flags.get(&axis) {
                Some(f) => *f,
                None => {
                    self.err(
                        &lints::UNKNOWN_FLAG_BIT,
                        span(file, &c0.field),
                        format!("`{}` is not a flags field", c0.field.get_ref()),
                        "has_bit and lacks_bit test a `flags:<set>` field",
                    );
                    return None;
                }
            },
        };
        let Some(&(_, index)) = self.flag_bits[fsid.index()]
            .iter()
            .find(|(n, _)| n == bit.get_ref())
        else {
            self.err(
                &lints::UNKNOWN_FLAG_BIT,
                span(file, bit),
                format!(
                    "flag set `{}` defines no bit `{}`",
                    self.flag_set_name(fsid),
                    bit.get_ref()
                ),
                format!(
                    "defined bits: {}",
                    self.flag_bits[fsid.index()]
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return None;
        };
        Some(if has {
            Condition::HasBit(path, fsid, index)
        } else {
            Condition::LacksBit(path, fsid, index)
        })
    }

    fn flag_set_name(&self, id: FlagSetId) -> String {
        self.names
            .flag_sets
            .iter()
            .find(|(_, v)| **v == id)
            .map(|(k, _)| k.clone())
            .unwrap_or_default()
    }

    fn tag_value(&mut self, space: SpaceId, name: &str, sp: Span) -> Option<i128> {
        match self.space_tags[space.index()]
            .iter()
            .find(|(n, _)| n == name)
        {
            Some((_, v)) => Some(*v as i128),
            None => {
                self.err(
                    &lints::UNKNOWN_REFERENCE,
                    sp,
                    format!("no tag `{name}` in this field's space"),
                    "name an allocated tag of the space, or give the value",
                );
                None
            }
        }
    }

    /// The flag-set name behind a path to a flags field (or, for a u16 scheme header flags
    /// field, the scheme's flag set is resolved later by the validator).
    fn path_flag_set(&mut self, path: &FieldPath) -> Option<String> {
        let mut cur = path.root;
        let mut ty = String::new();
        for &step in &path.steps {
            ty = self.names.fields[cur.index()][step].1.clone();
            if let Some(n) = ty.strip_prefix("struct:") {
                cur = *self.names.structures.get(n)?;
            }
        }
        ty.strip_prefix("flags:").map(String::from)
    }

    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        file: FileId,
        sid: StructId,
        axis: AxisId,
        csp: Span,
        ty: &FieldType,
        prim: Option<Prim>,
        params: &[String],
        all: &[S<raw::Field>],
        index: usize,
        c: &raw::Check,
    ) -> Option<Check> {
        let rng = csp.range();
        let Some(rule) = c
            .rule
            .as_ref()
            .map(|r| self.rule_ref(file, &S::new(rng.clone(), r.clone())))
        else {
            self.err(
                &lints::BAD_CHECK,
                csp,
                "every check names the rule it enforces",
                "add `rule = \"<id>\"` to the check",
            );
            return None;
        };
        let level = match c.level.as_deref() {
            None | Some("reject") => CheckLevel::Reject,
            Some("warn") => CheckLevel::Warn,
            Some(other) => {
                self.err(
                    &lints::BAD_VALUE,
                    csp,
                    format!("`{other}` is not a check level"),
                    "use `reject` or `warn`",
                );
                CheckLevel::Reject
            }
        };
        let when = match &c.when {
            Some(w) => Some(self.condition(file, sid, axis, &w.spanned(rng.clone()), index)?),
            None => None,
        };
        let is_int =
            prim.is_some_and(Prim::is_int) || matches!(ty, FieldType::Tag(_) | FieldType::Flags(_));
        let is_float = prim.is_some_and(Prim::is_float);
        let bad = |me: &mut Self, what: &str| {
            me.err(
                &lints::BAD_CHECK,
                csp,
                format!("`{what}` does not apply to a field of this type"),
                "numeric checks apply to integer or float fields, `bytes` to byte fields",
            );
        };
        let lit = |me: &mut Self, v: &toml::Value| -> Option<Lit> {
            match (v, ty) {
                (toml::Value::Integer(n), _) if is_int || is_float => Some(if is_float {
                    Lit::Float(*n as f64)
                } else {
                    Lit::Int(*n as i128)
                }),
                (toml::Value::Float(x), _) if is_float => Some(Lit::Float(*x)),
                (toml::Value::String(name), FieldType::Tag(space)) => {
                    me.tag_value(*space, name, csp).map(Lit::Int)
                }
                _ => {
                    me.err(
                        &lints::BAD_CHECK,
                        csp,
                        format!("`{}` does not fit the field's type", show_value(v)),
                        "compare integers with integers, floats with floats, tags by name or value",
                    );
                    None
                }
            }
        };
        let kinds: Vec<CheckKind> = {
            let mut v = Vec::new();
            if let Some(b) = &c.bytes {
                if !matches!(ty, FieldType::Bytes) {
                    bad(self, "bytes");
                }
                match parse_hex(b) {
                    Some(bytes) => v.push(CheckKind::Bytes(bytes)),
                    None => self.err(
                        &lints::BAD_CHECK,
                        csp,
                        "`bytes` must be hex byte pairs",
                        "e.g. `bytes = \"48 52 52 59\"`",
                    ),
                }
            }
            if let Some(x) = &c.equals {
                v.push(CheckKind::Equals(lit(self, x)?));
            }
            if let Some(x) = &c.not_equals {
                v.push(CheckKind::NotEquals(lit(self, x)?));
            }
            if let Some(x) = &c.min {
                v.push(CheckKind::Min(lit(self, x)?));
            }
            if let Some(x) = &c.max {
                v.push(CheckKind::Max(lit(self, x)?));
            }
            if let Some(x) = &c.range {
                if x.len() != 2 {
                    self.err(
                        &lints::BAD_CHECK,
                        csp,
                        "`range` takes [low, high]",
                        "e.g. `range = [16, 2048]`",
                    );
                    return None;
                }
                v.push(CheckKind::Range(lit(self, &x[0])?, lit(self, &x[1])?));
            }
            if let Some(x) = &c.one_of {
                let mut vals = Vec::new();
                for item in x {
                    match lit(self, item)? {
                        Lit::Int(n) => vals.push(n),
                        Lit::Float(_) => {
                            bad(self, "one_of");
                            return None;
                        }
                    }
                }
                v.push(CheckKind::OneOf(vals));
            }
            if c.power_of_two == Some(true) {
                if !is_int {
                    bad(self, "power_of_two");
                }
                v.push(CheckKind::PowerOfTwo);
            }
            if let Some(m) = c.multiple_of {
                if !is_int || m <= 0 {
                    bad(self, "multiple_of");
                }
                v.push(CheckKind::MultipleOf(m.max(1) as u64));
            }
            if let Some(o) = &c.less_than {
                v.push(CheckKind::LessThan(self.operand(
                    file,
                    &S::new(rng.clone(), o.clone()),
                    params,
                    all,
                    index,
                )?));
            }
            if let Some(o) = &c.same_as {
                v.push(CheckKind::SameAs(self.operand(
                    file,
                    &S::new(rng.clone(), o.clone()),
                    params,
                    all,
                    index,
                )?));
            }
            if c.finite == Some(true) {
                if !is_float {
                    bad(self, "finite");
                }
                v.push(CheckKind::Finite);
            }
            if c.nonzero == Some(true) {
                v.push(CheckKind::NonZero);
            }
            v
        };
        if kinds.len() != 1 {
            self.err(
                &lints::BAD_CHECK,
                csp,
                format!(
                    "a check states exactly one constraint (found {})",
                    kinds.len()
                ),
                "split it into a list: `check = [{ … }, { … }]`",
            );
            return None;
        }
        if !is_int && !is_float && !matches!(kinds[0], CheckKind::Bytes(_)) {
            bad(self, "numeric check");
            return None;
        }
        Some(Check {
            kind: kinds.into_iter().next()?,
            when,
            rule,
            level,
            span: csp,
        })
    }

    fn default(
        &mut self,
        file: FileId,
        d: &S<toml::Value>,
        ty: &FieldType,
        all: &[S<raw::Field>],
        index: usize,
    ) -> Option<DefaultValue> {
        let sp = span(file, d);
        match d.get_ref() {
            toml::Value::Integer(n) => Some(DefaultValue::Int(*n as i128)),
            toml::Value::Float(x) => Some(DefaultValue::Float(*x)),
            toml::Value::String(s) if matches!(ty, FieldType::Bytes) => match parse_hex(s) {
                Some(b) => Some(DefaultValue::Bytes(b)),
                None => {
                    self.err(
                        &lints::DEFAULT_TYPE,
                        sp,
                        "a bytes default is hex byte pairs",
                        "e.g. `default = \"00 00\"`",
                    );
                    None
                }
            },
            toml::Value::String(s) => {
                match ty {
                    FieldType::Tag(space) => self.tag_value(*space, s, sp).map(DefaultValue::Int),
                    _ => {
                        self.err(&lints::DEFAULT_TYPE, sp, format!("`{s}` does not fit the field's type"), "a string default is a tag name (tag fields) or hex bytes (bytes fields)");
                        None
                    }
                }
            }
            toml::Value::Table(t) => {
                let Some(expr) = t.get("expr").and_then(|e| e.as_str()) else {
                    self.err(
                        &lints::DEFAULT_TYPE,
                        sp,
                        "a computed default needs `expr`",
                        "write `default = { expr = \"<field>\", depends_on = [\"<field>\"] }`",
                    );
                    return None;
                };
                let Some(field) = all.iter().position(|f| f.get_ref().name.get_ref() == expr)
                else {
                    self.err(
                        &lints::UNKNOWN_COUNT_FIELD,
                        sp,
                        format!("default expression names no field `{expr}`"),
                        "a default may equal another field of the structure",
                    );
                    return None;
                };
                let _ = index;
                let depends_on = t
                    .get("depends_on")
                    .and_then(|d| d.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                Some(DefaultValue::Expr { field, depends_on })
            }
            other => {
                self.err(
                    &lints::DEFAULT_TYPE,
                    sp,
                    format!("`{}` cannot be a default", show_value(other)),
                    "write a number, a hex string for bytes, a tag name, or `{ expr = … }`",
                );
                None
            }
        }
    }

    fn placement(&mut self, raw: &RawSpec) -> Option<Placement> {
        let mut found = None;
        for (file, sf) in &raw.structures {
            if let Some(p) = &sf.placement {
                found = Some((*file, p));
            }
        }
        let Some((file, p)) = found else {
            self.diags.push(
                Diagnostic::new(
                    &lints::TOML_SYNTAX,
                    None,
                    "no `[placement]` table in spec/structures",
                )
                .help("add structures/placement.toml"),
            );
            return None;
        };
        let p0 = p.get_ref();
        let axis = self.axis_ref(file, &p0.axis);
        self.word(file, &p0.trailer, &["last"], "trailer placement");
        self.word(file, &p0.padding, &["zero"], "padding rule");
        let data_alignment = self.abs_path(file, &p0.data_alignment)?;
        let rules = p0.rules.iter().map(|r| self.rule_ref(file, r)).collect();
        let resolutions = self.resolution_refs(file, &p0.resolution);
        let pos = |v: &S<i64>| (*v.get_ref()).clamp(1, 1 << 20) as u32;
        Some(Placement {
            axis,
            descriptor_alignment: pos(&p0.descriptor_alignment),
            data_alignment,
            after_last_buffer: pos(&p0.after_last_buffer),
            after_composite_head: pos(&p0.after_composite_head),
            kv_alignment: pos(&p0.kv_alignment),
            index_alignment: pos(&p0.index_alignment),
            rules,
            resolutions,
            span: span(file, p),
        })
    }
}

/// `A*rank+B`, `rank`, or `N`.
pub fn parse_rank_linear(s: &str) -> Option<RankLinear> {
    let a = parse_affine_str(s)?;
    if a.terms.keys().any(|k| k != "rank") || a.constant < 0 {
        return None;
    }
    let coef = a.terms.get("rank").copied().unwrap_or(0);
    (coef >= 0).then_some(RankLinear {
        a: coef as u32,
        b: a.constant as u32,
    })
}

/// Parse an integer or `"20+8*rank"`-style linear expression.
pub fn parse_affine(v: &toml::Value) -> Option<Affine> {
    match v {
        toml::Value::Integer(n) => Some(Affine::constant(*n)),
        toml::Value::String(s) => parse_affine_str(s),
        _ => None,
    }
}

fn parse_affine_str(s: &str) -> Option<Affine> {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() {
        return None;
    }
    let mut out = Affine::default();
    for term in compact
        .replace('-', "+-")
        .split('+')
        .filter(|t| !t.is_empty())
    {
        let (neg, t) = match term.strip_prefix('-') {
            Some(t) => (true, t),
            None => (false, term),
        };
        let part = if let Some((a, b)) = t.split_once('*') {
            let (k, name) = if a.chars().all(|c| c.is_ascii_digit()) {
                (a, b)
            } else {
                (b, a)
            };
            if !is_ident(name) {
                return None;
            }
            Affine::var(name, k.parse().ok()?)
        } else if t.chars().all(|c| c.is_ascii_digit()) {
            Affine::constant(t.parse().ok()?)
        } else if is_ident(t) {
            Affine::var(t, 1)
        } else {
            return None;
        };
        out = out.add(&if neg { part.scale(-1) } else { part });
    }
    Some(out)
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// `"48 52 52 59"` (spaces optional).
pub fn parse_hex(s: &str) -> Option<Vec<u8>> {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.len().is_multiple_of(2) {
        return None;
    }
    (0..compact.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&compact[i..i + 2], 16).ok())
        .collect()
}

/// A TOML value as written, for messages.
fn show_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("\"{s}\""),
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(x) => x.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Array(a) => format!(
            "[{}]",
            a.iter().map(show_value).collect::<Vec<_>>().join(", ")
        ),
        _ => "a table".to_string(),
    }
}
