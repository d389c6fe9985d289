//! The reader facts of a release record: what the generated readers act on beyond the layout
//! the rest of the record holds — every rule's action (and who it binds, where it is
//! enforced, its stable code), which rule each unknown or invalid value, exceeded limit or
//! failed framing reports, the nesting limits, the flag sets' unknown-bit behaviour, the
//! roles, the axes' version fields and the placement's trailer and padding rules.
//!
//! Each fact is one line of the record (`[[readers.fact]]`), named by its item and its key,
//! with a kind that says how a change of it is classified (see `classify::classify_fact`). Records
//! written before the facts existed have no `[readers]` table; against them no fact is
//! compared.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::*;
use crate::render::width;
use crate::source::Span;

use super::span_index::{SpanIndex, key};

/// The reader facts of one spec, in model order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SReaders {
    #[serde(default)]
    pub fact: Vec<SFact>,
}

/// One fact the generated readers act on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SFact {
    /// The item the fact belongs to: `rule HDR-2`, `axis descriptor`, `space layout`,
    /// `flags file_flags`, `structure tensor`, `placement`, `roles`.
    pub item: String,
    /// The fact's key within its item (`action`, `reject.unknown`, `tag 3 rank_rule`).
    pub key: String,
    /// The axis whose version a change of the fact moves.
    pub axis: String,
    /// How a change is classified: one of [`FactKind`]'s words.
    pub kind: String,
    pub value: String,
}

/// How a change of a fact is classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactKind {
    /// A rule's action: which reader modes reject a violation.
    Action,
    /// A rule reference: which rule a violation reports. What decides acceptance is that
    /// rule's action.
    Rule,
    /// A limit readers enforce (a nesting depth): a higher one accepts more.
    Limit,
    /// A least value readers enforce (a transfer alignment): a lower one accepts more.
    Minimum,
    /// Anything else that decides how readers parse (a role, a version field, the unknown-bit
    /// behaviour, who a rule binds).
    Shape,
    /// What a rejection is called or where it is enforced: the same encodings are accepted.
    Label,
}

impl FactKind {
    pub fn word(self) -> &'static str {
        match self {
            FactKind::Action => "action",
            FactKind::Rule => "rule",
            FactKind::Limit => "limit",
            FactKind::Minimum => "minimum",
            FactKind::Shape => "shape",
            FactKind::Label => "label",
        }
    }
    pub fn from_word(word: &str) -> Option<FactKind> {
        [
            FactKind::Action,
            FactKind::Rule,
            FactKind::Limit,
            FactKind::Minimum,
            FactKind::Shape,
            FactKind::Label,
        ]
        .into_iter()
        .find(|k| k.word() == word)
    }
}

/// Collects the facts of one spec.
struct Collect<'s> {
    spec: &'s Spec,
    facts: Vec<SFact>,
}

impl Collect<'_> {
    fn push(&mut self, item: String, key: &str, axis: AxisId, kind: FactKind, value: String) {
        self.facts.push(SFact {
            item,
            key: key.to_string(),
            axis: self.spec.axis(axis).name.clone(),
            kind: kind.word().to_string(),
            value,
        });
    }
    fn rule(&mut self, item: String, key: &str, axis: AxisId, rule: RuleId) {
        let id = self.spec.rule(rule).id.clone();
        self.push(item, key, axis, FactKind::Rule, id);
    }
}

/// The item word of a rule.
pub fn rule_item(id: &str) -> String {
    format!("rule {id}")
}

/// The axis a rule's own facts move: the axis of the first item of the model that binds
/// the rule (axes, spaces, flag sets, structures, placement, in that order), else the axis
/// its rules file names, else the axis schemes live under.
fn rule_axes(spec: &Spec) -> BTreeMap<RuleId, AxisId> {
    let mut out = BTreeMap::new();
    let mut bind = |rule: RuleId, axis: AxisId| {
        out.entry(rule).or_insert(axis);
    };
    for (i, a) in spec.axes.iter().enumerate() {
        if let Some((high, low)) = a.reject {
            bind(high, AxisId(i as u32));
            bind(low, AxisId(i as u32));
        }
    }
    for s in &spec.spaces {
        for r in [s.reject.invalid, s.reject.unknown, s.reject.private] {
            bind(r, s.axis);
        }
        for r in s.ranges.iter().filter_map(|r| r.scalar_rule) {
            bind(r, s.axis);
        }
        for t in &s.tags {
            match &t.attrs {
                TagAttrs::Layout(l) => {
                    bind(l.rank_rule, s.axis);
                    if let Some(r) = l.scalar_rule {
                        bind(r, s.axis);
                    }
                }
                TagAttrs::Scheme(a) => bind(a.storage_rule, s.axis),
                _ => {}
            }
        }
    }
    for f in &spec.flag_sets {
        bind(f.rule, f.axis);
        for b in &f.bits {
            if let Some(r) = &b.requires {
                bind(r.rule, f.axis);
            }
        }
    }
    for st in &spec.structures {
        if let Framing::LengthPrefixed { rule, .. } = st.framing {
            bind(rule, st.axis);
        }
        if let Some((_, r)) = st.depth_limit {
            bind(r, st.axis);
        }
        for f in &st.fields {
            for c in &f.checks {
                bind(c.rule, st.axis);
            }
        }
        for r in &st.rules {
            bind(*r, st.axis);
        }
    }
    for r in &spec.placement.rules {
        bind(*r, spec.placement.axis);
    }
    // The rule choices of the tables, recorded since release 3, last: a rule another item
    // binds keeps that item's axis, as the records before them have it.
    for s in &spec.spaces {
        for r in s.ranges.iter().filter_map(|r| r.buffer_count_rule) {
            bind(r, s.axis);
        }
        for (_, r) in default_rules(s) {
            bind(r, s.axis);
        }
        for t in &s.tags {
            for (_, r) in tag_rules(s, t) {
                bind(r, s.axis);
            }
        }
    }
    out
}

/// The rules a space's `[space.default]` names, each with its fact key.
fn default_rules(s: &TagSpace) -> Vec<(&'static str, RuleId)> {
    match &s.default {
        SpaceDefault::None => Vec::new(),
        SpaceDefault::Layout(d) => vec![
            ("byte_offset_rule.bounded", d.byte_offset_bounded),
            ("byte_offset_rule.zero", d.byte_offset_zero),
            ("buffer_count_rule.unquantized", d.buffer_count_unquantized),
            ("buffer_count_rule.quantized", d.buffer_count_quantized),
            ("same_device_rule.buffer", d.same_device_buffer),
            (
                "same_device_rule.parameter_buffer",
                d.same_device_parameter_buffer,
            ),
            ("unsharded_member_rule", d.unsharded_member),
        ],
        SpaceDefault::Scheme(d) => vec![("data_alias_rule", d.data_alias)],
    }
}

/// The rules a tag's readers report, each with its fact key: for a rule choice the rule the
/// tag takes (its own, else the space's default, case by case), for a restriction the rule
/// when the tag states one.
fn tag_rules(s: &TagSpace, t: &Tag) -> Vec<(&'static str, RuleId)> {
    let mut out = Vec::new();
    match &t.attrs {
        TagAttrs::Layout(l) => {
            out.push(("rank_rule", l.rank_rule));
            out.extend(l.scalar_rule.map(|r| ("scalar_rule", r)));
            if let Some(d) = s.layout_default() {
                out.extend([
                    ("byte_offset_rule", l.byte_offset_rule(d)),
                    (
                        "buffer_count_rule.unquantized",
                        l.buffer_count_rule(d, false),
                    ),
                    ("buffer_count_rule.quantized", l.buffer_count_rule(d, true)),
                    ("same_device_rule.buffer", l.same_device_rule(d, false)),
                    (
                        "same_device_rule.parameter_buffer",
                        l.same_device_rule(d, true),
                    ),
                    ("unsharded_member_rule", l.unsharded_member_rule(d)),
                ]);
            }
            out.extend(l.rules.shard.map(|r| ("shard_rule", r)));
            out.extend(l.rules.statistics_nnz.map(|r| ("statistics_nnz_rule", r)));
        }
        TagAttrs::Scheme(a) => {
            out.push(("storage_rule", a.storage_rule));
            if let Some(d) = s.scheme_default() {
                out.push(("data_alias_rule", a.data_alias_rule(d)));
            }
            out.extend(a.padded_extent_rule.map(|r| ("padded_extent_rule", r)));
        }
        TagAttrs::CompositionRule { combine_op_rule } => {
            out.push(("combine_op_rule", *combine_op_rule));
        }
        _ => {}
    }
    out
}

/// The kind of a fact's key: the key without the tag value, range, field or name it is about
/// (`tag 6 byte_offset_rule` → `tag byte_offset_rule`, `enforces HDR-1` → `enforces`). A
/// record that holds no fact of a kind was written before the kind existed
/// ([`Recorded::predates`]).
pub fn key_kind(key: &str) -> String {
    let words: Vec<&str> = key.split(' ').collect();
    match words.as_slice() {
        [first @ ("tag" | "range" | "field" | "bit"), _, rest @ ..] => std::iter::once(*first)
            .chain(rest.iter().copied())
            .collect::<Vec<_>>()
            .join(" "),
        [first @ ("binds" | "enforces"), ..] => first.to_string(),
        _ => key.to_string(),
    }
}

/// The kinds of fact a record holds ([`key_kind`]): a fact of any other kind was recorded
/// only after the record was written ([`Recorded::predates`]). Built once per record, so
/// filtering a spec's facts against it is linear in their number.
#[derive(Debug)]
pub struct Recorded(std::collections::HashSet<String>);

impl Recorded {
    /// The kinds `record` holds.
    pub fn of(record: &SReaders) -> Self {
        Recorded(record.fact.iter().map(|f| key_kind(&f.key)).collect())
    }

    /// Whether the record was written before facts of `key`'s kind were recorded: it holds
    /// none. Against such a record the fact is not compared, as no fact is against a record
    /// without the `[readers]` table.
    pub fn predates(&self, key: &str) -> bool {
        !self.0.contains(&key_kind(key))
    }
}

/// The reader facts of `spec`; the span of each rule goes into `spans` (`key::rule`).
pub fn of_spec(spec: &Spec, spans: &mut SpanIndex) -> SReaders {
    let mut c = Collect {
        spec,
        facts: Vec::new(),
    };
    let parent = spec.scheme_parent_axis();
    let axes = rule_axes(spec);
    for (i, r) in spec.rules.iter().enumerate() {
        spans.insert(key::rule(&r.id), r.span);
        let axis = axes
            .get(&RuleId(i as u32))
            .copied()
            .or(r.axis)
            .unwrap_or(parent);
        let item = rule_item(&r.id);
        c.push(
            item.clone(),
            "action",
            axis,
            FactKind::Action,
            r.action.word().to_string(),
        );
        c.push(
            item.clone(),
            "actor",
            axis,
            FactKind::Shape,
            r.actor.word().to_string(),
        );
        c.push(item.clone(), "code", axis, FactKind::Label, r.code.clone());
        // The code a violation is answered with: what a peer is told, not what is accepted.
        if let Some((space, value)) = r.answer {
            let answer = format!("{} {value:#x}", spec.space(space).name);
            c.push(item.clone(), "answer", axis, FactKind::Label, answer);
        }
        c.push(
            item,
            "enforced_by",
            axis,
            FactKind::Label,
            r.enforced_by.word().to_string(),
        );
    }
    for (role, space) in Role::values()
        .iter()
        .filter_map(|r| Some((*r, spec.roles.space(*r)?)))
    {
        let s = spec.space(space);
        c.push(
            "roles".to_string(),
            role.word(),
            s.axis,
            FactKind::Shape,
            s.name.clone(),
        );
    }
    for (i, a) in spec.axes.iter().enumerate() {
        let id = AxisId(i as u32);
        let item = format!("axis {}", a.name);
        if let Some(m) = &a.major {
            c.push(item.clone(), "major", id, FactKind::Shape, m.text.clone());
        }
        c.push(
            item.clone(),
            "minor",
            id,
            FactKind::Shape,
            a.minor.text.clone(),
        );
        if let Some((high, low)) = a.reject {
            c.rule(item.clone(), "reject.major_too_high", id, high);
            c.rule(item, "reject.major_too_low", id, low);
        }
    }
    for s in &spec.spaces {
        let item = format!("space {}", s.name);
        let axis = spec.axis(s.axis).name.clone();
        c.push(item.clone(), "axis", s.axis, FactKind::Shape, axis);
        c.push(
            item.clone(),
            "width",
            s.axis,
            FactKind::Shape,
            width(s.width),
        );
        c.rule(item.clone(), "reject.invalid", s.axis, s.reject.invalid);
        c.rule(item.clone(), "reject.unknown", s.axis, s.reject.unknown);
        c.rule(item.clone(), "reject.private", s.axis, s.reject.private);
        if let Some(i) = s.default_tag {
            let name = s.tags[i].name.clone();
            c.push(item.clone(), "default_tag", s.axis, FactKind::Shape, name);
        }
        for (key, rule) in default_rules(s) {
            c.rule(item.clone(), &format!("default {key}"), s.axis, rule);
        }
        for r in &s.ranges {
            if let Some(rule) = r.scalar_rule {
                let k = format!("range {}..{} scalar_rule", r.from, r.to);
                c.rule(item.clone(), &k, s.axis, rule);
            }
            if let Some(rule) = r.buffer_count_rule {
                let k = format!("range {}..{} buffer_count_rule", r.from, r.to);
                c.rule(item.clone(), &k, s.axis, rule);
            }
            if !r.memory_classes.is_empty() {
                let k = format!("range {}..{} memory_classes", r.from, r.to);
                c.push(
                    item.clone(),
                    &k,
                    s.axis,
                    FactKind::Shape,
                    r.memory_classes.join(","),
                );
            }
        }
        for t in &s.tags {
            if let TagAttrs::MessageType { sender, .. } = t.attrs {
                let k = format!("tag {} sender", t.value);
                let w = sender.word().to_string();
                c.push(item.clone(), &k, s.axis, FactKind::Shape, w);
            }
            if let TagAttrs::Device {
                transfer_alignment: Some(a),
                ..
            }
            | TagAttrs::MessageType {
                transfer_alignment: Some(a),
                ..
            } = t.attrs
            {
                let k = format!("tag {} transfer_alignment", t.value);
                c.push(item.clone(), &k, s.axis, FactKind::Minimum, a.to_string());
            }
            for (key, rule) in tag_rules(s, t) {
                let k = format!("tag {} {key}", t.value);
                c.rule(item.clone(), &k, s.axis, rule);
            }
        }
    }
    for f in &spec.flag_sets {
        let item = format!("flags {}", f.name);
        let axis = spec.axis(f.axis).name.clone();
        c.push(item.clone(), "axis", f.axis, FactKind::Shape, axis);
        c.push(
            item.clone(),
            "width",
            f.axis,
            FactKind::Shape,
            width(f.width),
        );
        let unknown = f.unknown_bits.word().to_string();
        c.push(
            item.clone(),
            "unknown_bits",
            f.axis,
            FactKind::Shape,
            unknown,
        );
        c.rule(item.clone(), "rule", f.axis, f.rule);
        for b in &f.bits {
            if let Some(r) = &b.requires {
                let needs: Vec<&str> = r
                    .bits
                    .iter()
                    .filter_map(|n| f.bits.iter().find(|x| x.bit == *n))
                    .map(|x| x.name.as_str())
                    .collect();
                let k = format!("bit {} requires", b.name);
                c.push(item.clone(), &k, f.axis, FactKind::Shape, needs.join(","));
                c.rule(item.clone(), &format!("{k}.rule"), f.axis, r.rule);
            }
        }
    }
    for st in &spec.structures {
        let item = format!("structure {}", st.name);
        let axis = spec.axis(st.axis).name.clone();
        c.push(item.clone(), "axis", st.axis, FactKind::Shape, axis);
        for f in &st.fields {
            if let Some(rule) = f.rule {
                c.rule(
                    item.clone(),
                    &format!("field {} rule", f.name),
                    st.axis,
                    rule,
                );
            }
        }
        if let Framing::LengthPrefixed { rule, .. } = st.framing {
            c.rule(item.clone(), "framing.rule", st.axis, rule);
        }
        if let Some((levels, rule)) = st.depth_limit {
            let levels = levels.to_string();
            c.push(
                item.clone(),
                "depth_limit.levels",
                st.axis,
                FactKind::Limit,
                levels,
            );
            c.rule(item.clone(), "depth_limit.rule", st.axis, rule);
        }
        for (name, path) in &st.bindings {
            let k = format!("binds {name}");
            c.push(
                item.clone(),
                &k,
                st.axis,
                FactKind::Shape,
                path.text.clone(),
            );
        }
        for r in &st.rules {
            let k = format!("enforces {}", spec.rule(*r).id);
            c.rule(item.clone(), &k, st.axis, *r);
        }
    }
    let p = &spec.placement;
    let trailer = p.trailer.word().to_string();
    let padding = p.padding.word().to_string();
    c.push(
        "placement".to_string(),
        "trailer",
        p.axis,
        FactKind::Shape,
        trailer,
    );
    c.push(
        "placement".to_string(),
        "padding",
        p.axis,
        FactKind::Shape,
        padding,
    );
    for r in &p.rules {
        let k = format!("enforces {}", spec.rule(*r).id);
        c.rule("placement".to_string(), &k, p.axis, *r);
    }
    SReaders { fact: c.facts }
}

/// Whether an action rejects anything in some reader mode.
pub fn rejects(action: &str) -> bool {
    !matches!(
        Action::from_word(action),
        Some(Action::Warn | Action::Obligation)
    )
}

/// The span of an item of the current spec, looked up by its item word.
pub fn item_span(spans: &SpanIndex, item: &str) -> Option<Span> {
    let (kind, name) = item.split_once(' ').unwrap_or((item, ""));
    let k = match kind {
        "rule" => key::rule(name),
        "axis" => key::axis(name),
        "space" => key::space(name),
        "flags" => key::flags(name),
        "structure" => key::structure(name),
        _ => return None,
    };
    spans.get(&k).copied()
}
