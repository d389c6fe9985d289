//! `structures/*.toml`: every structure and its fields — types, counts, conditions, checks,
//! defaults, framing — with every name resolved to an id and every path to field indices;
//! and the placement arithmetic of the file's tensor region.

use std::collections::BTreeMap;

use crate::diag::Diagnostic;
use crate::lints;
use crate::load::RawSpec;
use crate::model::*;
use crate::raw::{self, S};
use crate::source::{FileId, Span};

use super::context::{Lower, span};
use super::values::{affine, parse_hex, show_value};

impl Lower<'_> {
    /// `struct.field[.field…]`: an absolute path starting at a structure name.
    pub(super) fn abs_path(&mut self, file: FileId, s: &S<String>) -> Option<FieldPath> {
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
    pub(super) fn rel_path(
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

    pub(super) fn framing(&mut self, file: FileId, v: &S<toml::Value>) -> Option<Framing> {
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

    /// Every structure, in the order of the files (its `StructId`), with its fields; its
    /// framing and bindings are resolved once every structure's fields are known.
    pub(super) fn structures(&mut self, raw: &RawSpec) -> Vec<Structure> {
        let mut out = Vec::new();
        let mut sid = 0u32;
        for (file, sf) in &raw.structures {
            let file = *file;
            for rs in &sf.structure {
                let s0 = rs.get_ref();
                let axis = self.axis_ref(file, &s0.axis);
                let initial = self.initial(axis);
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
                let at = s0.at.as_ref().and_then(|a| self.word::<Anchor>(file, a));
                out.push(Structure {
                    name: s0.name.get_ref().clone(),
                    title: s0.title.get_ref().clone(),
                    axis,
                    since,
                    framing: Framing::Fixed,
                    params,
                    bindings: BTreeMap::new(),
                    depth_limit,
                    at,
                    fields,
                    size: s0.size.as_ref().map(|s| Affine::constant(*s.get_ref())),
                    rules,
                    resolutions,
                    note: s0
                        .note
                        .as_ref()
                        .map(|n| n.get_ref().clone())
                        .unwrap_or_default(),
                    shape: Default::default(),
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
            // A half float is the one type an editor asks for that the tools lack; say so.
            let help = if ty_text == "f16" {
                "there is no f16 type yet (spec/README.md, \"Not in these tables yet\", says why): use u16 holding the IEEE 754 binary16 bits, and say so in the field's title"
            } else {
                "use u8…u64, i8…i64, f32, f64, bytes, utf8, tag:<space>, flags:<set>, struct:<structure> or dispatch:<space>"
            };
            self.err(
                &lints::BAD_VALUE,
                span(file, &f.ty),
                format!("unknown type `{ty_text}`"),
                help,
            );
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
            Some(d) => self.default(file, d, &ty, all),
        };
        let flags_of = match &f.flags_of {
            Some(of) => Some(self.flags_of(file, &ty, of, all, index)?),
            None => None,
        };
        let locates = match &f.locates {
            Some(target) => Some(self.locates(file, &ty, &count, target)?),
            None => None,
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
            flags_of,
            locates,
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
            match affine(&v) {
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

    /// `flags_of = "<tag field>"`: an unsigned integer field whose bits the flag set of an
    /// earlier tag field's value interprets; the tag's space is the scheme role's, whose
    /// values name their flag sets.
    fn flags_of(
        &mut self,
        file: FileId,
        ty: &FieldType,
        of: &S<String>,
        all: &[S<raw::Field>],
        index: usize,
    ) -> Option<usize> {
        let scheme = self.roles.map(|r| r.scheme);
        let tag = all[..index]
            .iter()
            .position(|g| g.get_ref().name.get_ref() == of.get_ref());
        let is_scheme_tag = tag.is_some_and(|i| {
            let text = all[i].get_ref().ty.get_ref();
            let space = text
                .strip_prefix("tag:")
                .and_then(|n| self.names.spaces.get(n));
            space.is_some() && space.copied() == scheme
        });
        if !is_scheme_tag {
            self.err(
                &lints::UNKNOWN_REFERENCE,
                span(file, of),
                format!("`{}` is not an earlier scheme tag field", of.get_ref()),
                "`flags_of` names the tag field whose value's flag set gives these bits their meaning",
            );
            return None;
        }
        if !matches!(
            ty,
            FieldType::Prim(Prim::U8 | Prim::U16 | Prim::U32 | Prim::U64)
        ) {
            self.err(
                &lints::BAD_VALUE,
                span(file, of),
                "`flags_of` applies to an unsigned integer field",
                "give the flags field an unsigned integer type",
            );
            return None;
        }
        tag
    }

    /// `locates = "<structure>"`: a single unsigned integer field holding the absolute file
    /// offset of that structure.
    fn locates(
        &mut self,
        file: FileId,
        ty: &FieldType,
        count: &Option<Count>,
        target: &S<String>,
    ) -> Option<StructId> {
        let id = self.struct_ref(file, target)?;
        if count.is_some() || !matches!(ty, FieldType::Prim(Prim::U32 | Prim::U64)) {
            self.err(
                &lints::BAD_VALUE,
                span(file, target),
                "`locates` applies to a single u32 or u64 field (an absolute file offset)",
                "give the offset field the type u32 or u64, without a count",
            );
            return None;
        }
        Some(id)
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
            c0.in_range.is_some(),
        ]
        .iter()
        .filter(|x| **x)
        .count();
        if n != 1 {
            self.err(
                &lints::BAD_VALUE,
                span(file, c),
                "a condition takes exactly one of equals, not_equals, has_bit, lacks_bit, in_range",
                "e.g. `{ field = \"flags\", has_bit = \"HAS_SHARD\" }`",
            );
            return None;
        }
        if let Some(kind) = &c0.in_range {
            return self.in_range(file, path, kind);
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
        let set_id = match self.path_flag_set(&path) {
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
        let Some(&(_, index)) = self.names.flag_bits[set_id.index()]
            .iter()
            .find(|(n, _)| n == bit.get_ref())
        else {
            self.err(
                &lints::UNKNOWN_FLAG_BIT,
                span(file, bit),
                format!(
                    "flag set `{}` defines no bit `{}`",
                    self.flag_set_name(set_id),
                    bit.get_ref()
                ),
                format!(
                    "defined bits: {}",
                    self.names.flag_bits[set_id.index()]
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return None;
        };
        Some(if has {
            Condition::HasBit(path, set_id, index)
        } else {
            Condition::LacksBit(path, set_id, index)
        })
    }

    /// `in_range = "<range kind>"`: the one range of that kind of the tag space of the field
    /// the path names, resolved to its bounds.
    fn in_range(&mut self, file: FileId, path: FieldPath, kind: &S<String>) -> Option<Condition> {
        let space = self
            .path_type(&path)
            .and_then(|t| t.strip_prefix("tag:").map(String::from));
        let Some(space) = space else {
            self.err(
                &lints::BAD_VALUE,
                span(file, kind),
                format!("`{}` is not a tag field", path.text),
                "in_range tests a `tag:<space>` field",
            );
            return None;
        };
        let use_ = self.word::<RangeUse>(file, kind)?;
        let sid = *self.names.spaces.get(&space)?;
        let ranges: Vec<(u32, u32)> = self.space_ranges[sid.index()]
            .iter()
            .filter(|(u, _, _)| *u == use_)
            .map(|(_, a, b)| (*a, *b))
            .collect();
        match ranges[..] {
            [(from, to)] => Some(Condition::InRange(path, from, to)),
            _ => {
                self.err(
                    &lints::BAD_VALUE,
                    span(file, kind),
                    format!(
                        "tag space `{space}` has {} ranges of kind `{}`, not one",
                        ranges.len(),
                        use_.word()
                    ),
                    "in_range names a kind the field's space has exactly one range of",
                );
                None
            }
        }
    }

    /// The raw type text of the field a path names.
    fn path_type(&self, path: &FieldPath) -> Option<String> {
        let mut cur = path.root;
        let mut ty = None;
        for &step in &path.steps {
            let t = self.names.fields[cur.index()][step].1.clone();
            if let Some(n) = t.strip_prefix("struct:") {
                cur = *self.names.structures.get(n)?;
            }
            ty = Some(t);
        }
        ty
    }

    /// The flag-set name behind a path to a flags field (or, for a u16 scheme header flags
    /// field, the scheme's flag set is resolved later by the validator).
    fn path_flag_set(&mut self, path: &FieldPath) -> Option<String> {
        self.path_type(path)?
            .strip_prefix("flags:")
            .map(String::from)
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
        let level = match &c.level {
            None => Some(CheckLevel::Reject),
            Some(l) => self.word::<CheckLevel>(file, &S::new(rng.clone(), l.clone())),
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
            level: level?,
            span: csp,
        })
    }

    fn default(
        &mut self,
        file: FileId,
        d: &S<toml::Value>,
        ty: &FieldType,
        all: &[S<raw::Field>],
    ) -> Option<DefaultValue> {
        let location = span(file, d);
        match d.get_ref() {
            toml::Value::Integer(n) => Some(DefaultValue::Int(*n as i128)),
            toml::Value::Float(x) => Some(DefaultValue::Float(*x)),
            toml::Value::String(s) if matches!(ty, FieldType::Bytes) => match parse_hex(s) {
                Some(b) => Some(DefaultValue::Bytes(b)),
                None => {
                    self.err(
                        &lints::DEFAULT_TYPE,
                        location,
                        "a bytes default is hex byte pairs",
                        "e.g. `default = \"00 00\"`",
                    );
                    None
                }
            },
            toml::Value::String(s) => {
                match ty {
                    FieldType::Tag(space) => {
                        self.tag_value(*space, s, location).map(DefaultValue::Int)
                    }
                    _ => {
                        self.err(&lints::DEFAULT_TYPE, location, format!("`{s}` does not fit the field's type"), "a string default is a tag name (tag fields) or hex bytes (bytes fields)");
                        None
                    }
                }
            }
            toml::Value::Table(t) => {
                let Some(expr) = t.get("expr").and_then(|e| e.as_str()) else {
                    self.err(
                        &lints::DEFAULT_TYPE,
                        location,
                        "a computed default needs `expr`",
                        "write `default = { expr = \"<field>\", depends_on = [\"<field>\"] }`",
                    );
                    return None;
                };
                let Some(field) = all.iter().position(|f| f.get_ref().name.get_ref() == expr)
                else {
                    self.err(
                        &lints::UNKNOWN_COUNT_FIELD,
                        location,
                        format!("default expression names no field `{expr}`"),
                        "a default may equal another field of the structure",
                    );
                    return None;
                };
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
                    location,
                    format!("`{}` cannot be a default", show_value(other)),
                    "write a number, a hex string for bytes, a tag name, or `{ expr = … }`",
                );
                None
            }
        }
    }

    /// `[placement]`: the placement arithmetic of the file's tensor region.
    pub(super) fn placement(&mut self, raw: &RawSpec) -> Option<Placement> {
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
        let trailer = self.word::<Trailer>(file, &p0.trailer);
        let padding = self.word::<Padding>(file, &p0.padding);
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
            trailer: trailer?,
            padding: padding?,
            rules,
            resolutions,
            span: span(file, p),
        })
    }
}

#[cfg(test)]
mod tests {
    /// The repository's spec tables with one field's type replaced by `f16`.
    fn with_f16() -> crate::Loaded {
        let root = crate::manifest_dir().join("../spec");
        let work = std::env::temp_dir().join(format!("hurray-f16-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        crate::overlay::copy_dir(&root, &work).unwrap();
        let sections = work.join("structures/sections.toml");
        let text = std::fs::read_to_string(&sections).unwrap();
        let (before, after) = text
            .split_once("type = \"f64\"")
            .expect("a section has an f64 field");
        std::fs::write(&sections, format!("{before}type = \"f16\"{after}")).unwrap();
        let loaded = crate::load(&work).unwrap();
        std::fs::remove_dir_all(&work).unwrap();
        loaded
    }

    #[test]
    fn an_f16_field_is_refused_with_the_reason_recorded() {
        let loaded = with_f16();
        let d = loaded
            .diags
            .items()
            .iter()
            .find(|d| d.message == "unknown type `f16`")
            .expect("f16 is no field type");
        let help = d.help.as_deref().unwrap_or_default();
        assert!(
            help.contains("spec/README.md") && help.contains("u16"),
            "{help}"
        );
    }
}
