//! Change classification (versioning.txt § Change Classification) and the version-bump
//! verdict per axis: every difference from the base record is MAJOR, MINOR or PATCH on its
//! own axis, and each axis's declared version must be exactly what its changes require.

use std::collections::BTreeMap;
use std::path::Path;

use crate::diag::{Diagnostic, Diagnostics, Witness};
use crate::lints;
use crate::model::words::Word;
use crate::model::{Action, AxisStyle, Spec, Version};
use crate::source::{SourceMap, Span};

use super::axis_names::AxisNames;
use super::readers::{self, FactKind, SFact};
use super::rules;
use super::snapshot::{SField, SStructure, Snapshot, SpanIndex, key};
use super::witness;

/// A change's class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Patch,
    Minor,
    Major,
}

impl Class {
    fn word(self) -> &'static str {
        match self {
            Class::Patch => "PATCH",
            Class::Minor => "MINOR",
            Class::Major => "MAJOR",
        }
    }
}

/// One classified difference.
#[derive(Clone, Debug)]
pub struct Change {
    pub axis: String,
    pub class: Class,
    pub what: String,
    pub span: Option<Span>,
    pub witness: Option<Witness>,
    /// The S6-forbidden addition (`structure.field`: a field placed where older readers parse
    /// existing bytes) that makes this change MAJOR: the addition itself, or a released field
    /// it moves or a released structure it grows. Fixing the addition as S6 says removes it.
    pub s6_addition: Option<String>,
    /// What a reader of the base release does with data of the amended spec that is not what
    /// FORWARD_ADDITIVE (CD2) promises it: mis-parse a field it knows, or accept a feature it
    /// does not know instead of rejecting it.
    pub prior_reader: Option<String>,
}

struct Diff<'a> {
    base: &'a Snapshot,
    cur: &'a Snapshot,
    spans: &'a SpanIndex,
    axes: AxisNames<'a>,
    changes: Vec<Change>,
}

impl Diff<'_> {
    fn push(&mut self, axis: &str, class: Class, what: String, span_key: &str) {
        let span = self.spans.get(span_key).copied();
        self.changes.push(Change {
            axis: axis.to_string(),
            class,
            what,
            span,
            witness: None,
            s6_addition: None,
            prior_reader: None,
        });
    }
    /// Mark the last change pushed: the S6 addition behind it and what a prior-minor reader
    /// makes of it (see [`Change`]).
    fn mark(&mut self, s6_addition: Option<String>, prior_reader: Option<String>) {
        if let Some(c) = self.changes.last_mut() {
            c.s6_addition = s6_addition;
            c.prior_reader = prior_reader;
        }
    }
    fn push_w(
        &mut self,
        axis: &str,
        class: Class,
        what: String,
        span_key: &str,
        w: Option<Witness>,
    ) {
        let span = self.spans.get(span_key).copied();
        self.changes.push(Change {
            axis: axis.to_string(),
            class,
            what,
            span,
            witness: w,
            s6_addition: None,
            prior_reader: None,
        });
    }
    /// S1 for an item of the current spec that the base record lacks (see
    /// [`rules::s1_without_amendment`]); the versions are read in the axis's style.
    fn new_item(
        &self,
        what: &str,
        axis: &str,
        since: &str,
        span_key: &str,
        diags: &mut Diagnostics,
    ) {
        let (Some(cur), Some(base)) = (self.cur.axis(axis), self.base.axis(axis)) else {
            return;
        };
        let Some(style) = AxisStyle::from_word(&cur.style) else {
            return;
        };
        let (Ok(since), Ok(declared), Ok(based)) = (
            style.parse(since),
            style.parse(&cur.version),
            style.parse(&base.version),
        ) else {
            return;
        };
        rules::s1_without_amendment(
            what,
            style,
            since,
            declared,
            based,
            self.spans.get(span_key).copied(),
            diags,
        );
    }
}

/// Classify every difference between the base record and the current spec. New items whose
/// `since` is not the new version are reported under S1 on the way.
pub fn diff(
    base: &Snapshot,
    cur: &Snapshot,
    spans: &SpanIndex,
    axes: AxisNames<'_>,
    diags: &mut Diagnostics,
) -> Vec<Change> {
    let mut d = Diff {
        base,
        cur,
        spans,
        axes,
        changes: Vec::new(),
    };
    spaces(&mut d, diags);
    flags(&mut d, diags);
    structures(&mut d, diags);
    removed_axes(&mut d);
    readers(&mut d);
    if base.placement != cur.placement {
        d.push(
            axes.placement,
            Class::Major,
            "the placement rules of the tensor region changed".to_string(),
            "",
        );
    }
    d.changes
}

fn spaces(d: &mut Diff<'_>, diags: &mut Diagnostics) {
    for bs in &d.base.space {
        let Some(cs) = d.cur.space(&bs.name) else {
            d.push(
                &bs.axis,
                Class::Major,
                format!("tag space `{}` removed", bs.name),
                "",
            );
            continue;
        };
        if bs.range != cs.range {
            d.push(
                &bs.axis,
                Class::Major,
                format!("the ranges of `{}` changed", bs.name),
                &key::space(&cs.name),
            );
        }
        for bt in &bs.tag {
            let k = key::tag(&cs.name, bt.value);
            match cs.tag.iter().find(|t| t.value == bt.value) {
                None => {
                    let w = witness::tag(bs, bt, None);
                    d.push_w(
                        &bs.axis,
                        Class::Major,
                        format!(
                            "`{}` value {:#04x} (`{}`) removed",
                            bs.name, bt.value, bt.name
                        ),
                        &key::space(&cs.name),
                        Some(w),
                    );
                }
                Some(ct) => {
                    if ct.name != bt.name || ct.identity != bt.identity {
                        let w = witness::tag(bs, bt, Some(ct));
                        let how = if ct.name != bt.name {
                            format!("`{}` → `{}`", bt.name, ct.name)
                        } else {
                            format!("`{}`: {} → {}", bt.name, bt.identity, ct.identity)
                        };
                        d.push_w(
                            &bs.axis,
                            Class::Major,
                            format!(
                                "`{}` value {:#04x} changed meaning ({how})",
                                bs.name, bt.value
                            ),
                            &k,
                            Some(w),
                        );
                    } else if ct.since != bt.since {
                        d.push(
                            &bs.axis,
                            Class::Major,
                            format!(
                                "`{}` value `{}` changed its `since` from {} to {}",
                                bs.name, bt.name, bt.since, ct.since
                            ),
                            &k,
                        );
                    } else if ct.deprecated_since != bt.deprecated_since
                        || ct.replacement != bt.replacement
                    {
                        d.push(
                            &bs.axis,
                            Class::Minor,
                            format!("`{}` value `{}` deprecation changed", bs.name, bt.name),
                            &k,
                        );
                    } else if ct.meaning != bt.meaning {
                        d.push(
                            &bs.axis,
                            Class::Patch,
                            format!(
                                "`{}` value `{}`: descriptive text changed",
                                bs.name, bt.name
                            ),
                            &k,
                        );
                        diags.push(
                            Diagnostic::new(&lints::MEANING_TEXT_CHANGED, d.spans.get(&k).copied(), format!("the meaning text of released `{}` changed", bt.name))
                                .note(format!("was: {}", bt.meaning))
                                .help("editorial changes are PATCH; if the value's semantics changed, that is a rebind (S2): allocate a new value instead"),
                        );
                    }
                }
            }
        }
        for ct in cs
            .tag
            .iter()
            .filter(|t| !bs.tag.iter().any(|b| b.value == t.value))
        {
            let k = key::tag(&cs.name, ct.value);
            d.new_item(
                &format!("`{}` value `{}`", cs.name, ct.name),
                &cs.axis,
                &ct.since,
                &k,
                diags,
            );
            d.push(
                &cs.axis,
                Class::Minor,
                format!(
                    "`{}` value {:#04x} (`{}`) allocated",
                    cs.name, ct.value, ct.name
                ),
                &k,
            );
        }
    }
    for cs in d
        .cur
        .space
        .iter()
        .filter(|s| d.base.space(&s.name).is_none())
    {
        d.push(
            &cs.axis,
            Class::Minor,
            format!("tag space `{}` added", cs.name),
            &key::space(&cs.name),
        );
    }
}

fn flags(d: &mut Diff<'_>, diags: &mut Diagnostics) {
    for bf in &d.base.flags {
        let Some(cf) = d.cur.flag_set(&bf.name) else {
            d.push(
                &bf.axis,
                Class::Major,
                format!("flag set `{}` removed", bf.name),
                "",
            );
            continue;
        };
        for bb in &bf.bit {
            let k = key::bit(&cf.name, bb.bit);
            match cf.bit.iter().find(|b| b.bit == bb.bit) {
                None => d.push(
                    &bf.axis,
                    Class::Major,
                    format!("bit {} `{}` of `{}` removed", bb.bit, bb.name, bf.name),
                    &key::flags(&cf.name),
                ),
                Some(cb) if cb.name != bb.name => d.push(
                    &bf.axis,
                    Class::Major,
                    format!(
                        "bit {} of `{}` changed meaning (`{}` → `{}`)",
                        bb.bit, bf.name, bb.name, cb.name
                    ),
                    &k,
                ),
                Some(cb) if cb.since != bb.since => d.push(
                    &bf.axis,
                    Class::Major,
                    format!("bit `{}` changed its `since`", bb.name),
                    &k,
                ),
                Some(cb)
                    if cb.deprecated_since != bb.deprecated_since
                        || cb.replacement != bb.replacement =>
                {
                    d.push(
                        &bf.axis,
                        Class::Minor,
                        format!("bit `{}` deprecation changed", bb.name),
                        &k,
                    )
                }
                Some(cb) if cb.meaning != bb.meaning => d.push(
                    &bf.axis,
                    Class::Patch,
                    format!("bit `{}`: descriptive text changed", bb.name),
                    &k,
                ),
                Some(_) => {}
            }
        }
        for cb in cf
            .bit
            .iter()
            .filter(|b| !bf.bit.iter().any(|x| x.bit == b.bit))
        {
            let k = key::bit(&cf.name, cb.bit);
            d.new_item(
                &format!("bit `{}` of `{}`", cb.name, cf.name),
                &cf.axis,
                &cb.since,
                &k,
                diags,
            );
            d.push(
                &cf.axis,
                Class::Minor,
                format!("bit {} `{}` of `{}` allocated", cb.bit, cb.name, cf.name),
                &k,
            );
        }
    }
    for cf in d
        .cur
        .flags
        .iter()
        .filter(|f| d.base.flag_set(&f.name).is_none())
    {
        d.push(
            &cf.axis,
            Class::Minor,
            format!("flag set `{}` added", cf.name),
            &key::flags(&cf.name),
        );
    }
}

fn same_layout(a: &SField, b: &SField) -> bool {
    a.offset == b.offset && a.size == b.size && a.ty == b.ty && a.count == b.count
}

/// The flag bit a field's presence is gated by (`… has BIT`), if any.
fn gate(f: &SField) -> Option<&str> {
    f.presence.split_once(" has ").map(|(_, bit)| bit.trim())
}

/// Whether field `i` of the current structure `cs`, new since the base structure `bs`, is
/// placed where S6 allows: behind a flag gate, or after every released field of a
/// length-prefixed structure.
fn addition_is_legal(bs: &SStructure, cs: &SStructure, i: usize) -> bool {
    let last_base = cs
        .field
        .iter()
        .rposition(|f| bs.field.iter().any(|b| b.name == f.name));
    let trailing = last_base.is_none_or(|lb| i > lb);
    gate(&cs.field[i]).is_some() || (trailing && cs.framing.starts_with("length_prefixed"))
}

/// The released structures an amendment rearranges or grows in place, each with the
/// S6-forbidden addition that does it (`structure.field`): a structure with a new field that
/// is neither flag-gated nor appended to a length-prefixed structure, and, transitively, a
/// structure holding such a structure in a field whose size changes.
fn s6_additions(base: &Snapshot, cur: &Snapshot) -> BTreeMap<String, String> {
    let mut grown = BTreeMap::new();
    for bs in &base.structure {
        let Some(cs) = cur.structure(&bs.name) else {
            continue;
        };
        let illegal = cs.field.iter().enumerate().find(|(i, f)| {
            !bs.field.iter().any(|b| b.name == f.name) && !addition_is_legal(bs, cs, *i)
        });
        if let Some((_, f)) = illegal {
            grown.insert(cs.name.clone(), format!("{}.{}", cs.name, f.name));
        }
    }
    // Each round adds at least one structure, so this ends within the structure count.
    loop {
        let mut more = Vec::new();
        for bs in &base.structure {
            let Some(cs) = cur.structure(&bs.name) else {
                continue;
            };
            if grown.contains_key(&cs.name) {
                continue;
            }
            let holds = cs.field.iter().find_map(|cf| {
                let inner = cf.ty.strip_prefix("struct:")?;
                let bf = bs.field.iter().find(|b| b.name == cf.name)?;
                (bf.ty == cf.ty && bf.size != cf.size)
                    .then(|| grown.get(inner).cloned())
                    .flatten()
            });
            if let Some(cause) = holds {
                more.push((cs.name.clone(), cause));
            }
        }
        if more.is_empty() {
            return grown;
        }
        grown.extend(more);
    }
}

fn structures(d: &mut Diff<'_>, diags: &mut Diagnostics) {
    let grown = s6_additions(d.base, d.cur);
    let known_bits: Vec<&str> = d
        .base
        .flags
        .iter()
        .flat_map(|f| f.bit.iter().map(|b| b.name.as_str()))
        .collect();
    for bs in &d.base.structure {
        let Some(cs) = d.cur.structure(&bs.name) else {
            d.push(
                &bs.axis,
                Class::Major,
                format!("structure `{}` removed", bs.name),
                "",
            );
            continue;
        };
        let sk = key::structure(&cs.name);
        if cs.framing != bs.framing {
            d.push(
                &bs.axis,
                Class::Major,
                format!(
                    "structure `{}`'s framing changed ({} → {})",
                    bs.name, bs.framing, cs.framing
                ),
                &sk,
            );
        }
        if cs.params != bs.params {
            d.push(
                &bs.axis,
                Class::Major,
                format!("structure `{}`'s params changed", bs.name),
                &sk,
            );
        }
        let mut witnessed = false;
        for bf in &bs.field {
            let Some(cf) = cs.field.iter().find(|f| f.name == bf.name) else {
                let w = if witnessed {
                    None
                } else {
                    rules::layout_witness(d.base, d.cur, bs, cs)
                };
                witnessed |= w.is_some();
                d.push_w(
                    &bs.axis,
                    Class::Major,
                    format!("field `{}` removed", rules::field_key(bs, bf)),
                    &sk,
                    w,
                );
                d.mark(
                    None,
                    Some(format!(
                        "read `{}` from bytes that data of the amended spec gives to something else",
                        rules::field_key(bs, bf)
                    )),
                );
                continue;
            };
            let fk = key::field(&cs.name, &cf.name);
            if !same_layout(bf, cf) {
                let w = if witnessed {
                    None
                } else {
                    rules::layout_witness(d.base, d.cur, bs, cs)
                };
                witnessed |= w.is_some();
                let was = format!("{} {} at {}", bf.ty, bf.size, bf.offset);
                let now = format!("{} {} at {}", cf.ty, cf.size, cf.offset);
                d.push_w(
                    &bs.axis,
                    Class::Major,
                    format!(
                        "field `{}` changed offset, size or type ({was} → {now})",
                        rules::field_key(bs, bf)
                    ),
                    &fk,
                    w,
                );
                // Moved by an addition before it, or grown by one inside it.
                let moved = bf.ty == cf.ty && bf.count == cf.count && bf.size == cf.size;
                let resized = bf.ty == cf.ty && bf.count == cf.count;
                let s6 = grown
                    .get(&cs.name)
                    .filter(|_| moved)
                    .or_else(|| {
                        cf.ty
                            .strip_prefix("struct:")
                            .and_then(|inner| grown.get(inner))
                            .filter(|_| resized)
                    })
                    .cloned();
                // A change an S6 addition causes is reported once, at the addition.
                let prior = s6.is_none().then(|| {
                    format!(
                        "read `{}` as {was}, where its data has {now}",
                        rules::field_key(bs, bf)
                    )
                });
                d.mark(s6, prior);
            }
            if cf.default != bf.default {
                d.push(
                    &bs.axis,
                    Class::Major,
                    format!("the default of `{}` changed", rules::field_key(bs, bf)),
                    &fk,
                );
            }
            if cf.presence != bf.presence {
                d.push(
                    &bs.axis,
                    Class::Major,
                    format!(
                        "when `{}` is present changed (optional ↔ required)",
                        rules::field_key(bs, bf)
                    ),
                    &fk,
                );
            }
            if cf.since != bf.since {
                d.push(
                    &bs.axis,
                    Class::Major,
                    format!("field `{}` changed its `since`", rules::field_key(bs, bf)),
                    &fk,
                );
            }
            let added: Vec<&String> = cf
                .checks
                .iter()
                .filter(|c| !bf.checks.contains(c))
                .collect();
            let removed: Vec<&String> = bf
                .checks
                .iter()
                .filter(|c| !cf.checks.contains(c))
                .collect();
            if !added.is_empty() {
                d.push(
                    &bs.axis,
                    Class::Major,
                    format!(
                        "`{}` gains a constraint ({}): previously valid encodings may be forbidden",
                        rules::field_key(bs, bf),
                        added
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                    &fk,
                );
            }
            if !removed.is_empty() && added.is_empty() {
                d.push(
                    &bs.axis,
                    Class::Minor,
                    format!(
                        "`{}` loses a constraint ({})",
                        rules::field_key(bs, bf),
                        removed
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                    &fk,
                );
            }
            if cf.reserved != bf.reserved {
                d.push(
                    &bs.axis,
                    Class::Major,
                    format!("`{}` reserved status changed", rules::field_key(bs, bf)),
                    &fk,
                );
            }
        }
        // New fields of a released structure.
        for (i, cf) in cs.field.iter().enumerate() {
            if bs.field.iter().any(|b| b.name == cf.name) {
                continue;
            }
            let fk = key::field(&cs.name, &cf.name);
            d.new_item(
                &format!("field `{}.{}`", cs.name, cf.name),
                &cs.axis,
                &cf.since,
                &fk,
                diags,
            );
            let gated = gate(cf).is_some();
            if addition_is_legal(bs, cs, i) {
                d.push(
                    &cs.axis,
                    Class::Minor,
                    format!(
                        "field `{}.{}` added{}",
                        cs.name,
                        cf.name,
                        if gated {
                            " behind a flag gate"
                        } else {
                            " at the end of a length-prefixed structure"
                        }
                    ),
                    &fk,
                );
                // A gate older readers already know does not make them reject the new part.
                if let Some(bit) = gate(cf).filter(|bit| known_bits.contains(bit)) {
                    d.mark(
                        None,
                        Some(format!(
                            "accept data holding `{}.{}` without knowing it: its gate `{bit}` is a bit it already knows, so it does not reject the data",
                            cs.name, cf.name
                        )),
                    );
                }
            } else {
                let w = if witnessed {
                    None
                } else {
                    rules::layout_witness(d.base, d.cur, bs, cs)
                };
                witnessed |= w.is_some();
                d.push_w(
                    &cs.axis,
                    Class::Major,
                    format!(
                        "field `{}.{}` added where older readers parse existing bytes",
                        cs.name, cf.name
                    ),
                    &fk,
                    w,
                );
                let addition = format!("{}.{}", cs.name, cf.name);
                d.mark(
                    Some(addition.clone()),
                    Some(format!(
                        "parse the bytes of `{addition}` as part of what it already knows (the fields that follow it, or what follows the structure)"
                    )),
                );
            }
        }
    }
    for cs in d
        .cur
        .structure
        .iter()
        .filter(|s| d.base.structure(&s.name).is_none())
    {
        let sk = key::structure(&cs.name);
        if d.base.axis(&cs.axis).is_some() {
            d.new_item(
                &format!("structure `{}`", cs.name),
                &cs.axis,
                &cs.since,
                &sk,
                diags,
            );
        }
        d.push(
            &cs.axis,
            Class::Minor,
            format!("structure `{}` added", cs.name),
            &sk,
        );
    }
}

fn removed_axes(d: &mut Diff<'_>) {
    for ba in &d.base.axis {
        if d.cur.axis(&ba.name).is_none() {
            // Removing a scheme removes its axis: a descriptor MAJOR change (RES-6).
            d.push(
                d.axes.scheme_parent,
                Class::Major,
                format!("axis `{}` removed", ba.name),
                "",
            );
        }
    }
}

/// Whether `snapshot` holds the item a reader fact belongs to (see [`SFact::item`]), and
/// the tag or range of a space the fact's key names (`tag 6 storage_rule`, `range 0..9 …`).
fn has_part(snapshot: &Snapshot, item: &str, key_word: &str) -> bool {
    let (kind, name) = item.split_once(' ').unwrap_or((item, ""));
    let mut words = key_word.split(' ');
    if kind == "space"
        && let (Some(part), Some(which)) = (words.next(), words.next())
    {
        let Some(space) = snapshot.space(name) else {
            return false;
        };
        match part {
            "tag" => return space.tag.iter().any(|t| t.value.to_string() == which),
            "range" => {
                return space
                    .range
                    .iter()
                    .any(|r| format!("{}..{}", r.from, r.to) == which);
            }
            _ => {}
        }
    }
    let mut words = key_word.split(' ');
    if kind == "structure"
        && let (Some("field"), Some(field)) = (words.next(), words.next())
    {
        return snapshot
            .structure(name)
            .is_some_and(|s| s.field.iter().any(|f| f.name == field));
    }
    has_item(snapshot, item)
}

/// Whether `snapshot` holds the item a reader fact belongs to (see [`SFact::item`]).
fn has_item(snapshot: &Snapshot, item: &str) -> bool {
    let (kind, name) = item.split_once(' ').unwrap_or((item, ""));
    match kind {
        "axis" => snapshot.axis(name).is_some(),
        "space" => snapshot.space(name).is_some(),
        "flags" => snapshot.flag_set(name).is_some(),
        "structure" => snapshot.structure(name).is_some(),
        _ => snapshot
            .readers
            .as_ref()
            .is_some_and(|r| r.fact.iter().any(|f| f.item == item)),
    }
}

/// Every change of a reader fact (the `[readers]` table of the records), classified by
/// [`classify_fact`]. A record without the table (written before it existed) is
/// not compared, nor a fact of a kind the record holds none of (written before the kind was
/// recorded, [`readers::Recorded::predates`]). Facts of an item that is new or removed are left to that
/// item's own change.
fn readers(d: &mut Diff<'_>) {
    let (Some(base), Some(cur)) = (&d.base.readers, &d.cur.readers) else {
        return;
    };
    // Borrowed: a record holds thousands of facts, and a check compares every record.
    fn index(facts: &[SFact]) -> BTreeMap<(&str, &str), &SFact> {
        facts
            .iter()
            .map(|f| ((f.item.as_str(), f.key.as_str()), f))
            .collect()
    }
    let (base_facts, cur_facts) = (index(&base.fact), index(&cur.fact));
    let recorded = readers::Recorded::of(base);
    let action = |facts: &BTreeMap<(&str, &str), &SFact>, id: &str| {
        facts
            .get(&(readers::rule_item(id).as_str(), "action"))
            .map(|f| f.value.clone())
    };
    let action_of = |old: &str, new: &str| (action(&base_facts, old), action(&cur_facts, new));
    let mut found = Vec::new();
    for (&(item, key_word), c) in &cur_facts {
        let kind = FactKind::from_word(&c.kind).unwrap_or(FactKind::Shape);
        match base_facts.get(&(item, key_word)) {
            Some(b) if b.value == c.value => {}
            Some(b) => {
                let (class, why) = classify_fact(kind, &b.value, &c.value, action_of);
                // Older readers reject what the amended spec makes valid, though no flag bit
                // or tag value announces it.
                let prior = loosens(kind, &b.value, &c.value).then(|| {
                    format!(
                        "reject data the amended spec makes valid ({item}: `{key_word}` `{}` → `{}`), though no flag bit or tag value announces it",
                        b.value, c.value
                    )
                });
                found.push((
                    c.axis.clone(),
                    class,
                    format!("{item}: `{key_word}` {why}"),
                    item.to_string(),
                    prior,
                ));
            }
            None if item.starts_with("rule ") && !has_item(d.base, item) => {
                if key_word == "action" {
                    found.push((
                        c.axis.clone(),
                        Class::Patch,
                        format!("{item} added (`{}`): a rule binds nothing until a table names it, and what names it is classified there", c.value),
                        item.to_string(),
                        None,
                    ));
                }
            }
            None if !has_part(d.base, item, key_word) => {}
            // The base record was written before facts of this kind were recorded.
            None if recorded.predates(key_word) => {}
            None => {
                let class = match kind {
                    FactKind::Label => Class::Patch,
                    FactKind::Rule
                        if action(&cur_facts, &c.value).is_some_and(|a| !readers::rejects(&a)) =>
                    {
                        Class::Patch
                    }
                    _ => Class::Major,
                };
                found.push((
                    c.axis.clone(),
                    class,
                    format!(
                        "{item}: `{key_word}` = `{}` added: readers act on it",
                        c.value
                    ),
                    item.to_string(),
                    None,
                ));
            }
        }
    }
    for (&(item, key_word), b) in &base_facts {
        if cur_facts.contains_key(&(item, key_word)) {
            continue;
        }
        let kind = FactKind::from_word(&b.kind).unwrap_or(FactKind::Shape);
        if item.starts_with("rule ") && !has_item(d.cur, item) {
            if key_word == "action" {
                found.push((
                    b.axis.clone(),
                    Class::Major,
                    format!("{item} removed: readers no longer report it"),
                    String::new(),
                    None,
                ));
            }
        } else if has_part(d.cur, item, key_word) {
            let class = match kind {
                FactKind::Label => Class::Patch,
                FactKind::Rule
                    if action(&base_facts, &b.value).is_some_and(|a| !readers::rejects(&a)) =>
                {
                    Class::Patch
                }
                _ => Class::Major,
            };
            found.push((
                b.axis.clone(),
                class,
                format!(
                    "{item}: `{key_word}` (was `{}`) removed: readers acted on it",
                    b.value
                ),
                item.to_string(),
                None,
            ));
        }
    }
    for (axis, class, what, item, prior_reader) in found {
        let span = readers::item_span(d.spans, &item);
        d.changes.push(Change {
            axis,
            class,
            what,
            span,
            witness: None,
            s6_addition: None,
            prior_reader,
        });
    }
}

/// Whether a reader fact's change from `old` to `new` lets readers accept what they rejected:
/// an action that rejects less (`reject` → `strict` → `warn`), or a higher limit.
fn loosens(kind: FactKind, old: &str, new: &str) -> bool {
    let strictness = |action: &str| match Action::from_word(action) {
        Some(Action::Reject) => 2,
        Some(Action::Strict | Action::Validate) => 1,
        _ => 0,
    };
    match kind {
        FactKind::Action => strictness(new) < strictness(old),
        FactKind::Limit => matches!(
            (old.parse::<u64>(), new.parse::<u64>()),
            (Ok(o), Ok(n)) if n > o
        ),
        FactKind::Minimum => matches!(
            (old.parse::<u64>(), new.parse::<u64>()),
            (Ok(o), Ok(n)) if n < o
        ),
        _ => false,
    }
}

/// A version a record writes on an axis of the given style word.
fn parse(style: &str, v: &str) -> Option<(AxisStyle, Version)> {
    let style = AxisStyle::from_word(style)?;
    Some((style, style.parse(v).ok()?))
}

/// One lint per classified change, then the bump verdict on each axis.
#[allow(clippy::too_many_arguments)]
pub fn verdicts(
    spec: &Spec,
    base: &Snapshot,
    base_label: &str,
    cur: &Snapshot,
    spans: &SpanIndex,
    changes: Vec<Change>,
    spec_dir: &Path,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) {
    let axes = AxisNames::of(spec);
    for c in &changes {
        let lint = match c.class {
            Class::Major => &lints::CLASSIFIED_MAJOR,
            Class::Minor => &lints::CLASSIFIED_MINOR,
            Class::Patch => &lints::CLASSIFIED_PATCH,
        };
        let mut dg = Diagnostic::new(
            lint,
            c.span,
            format!("{} on `{}`: {}", c.class.word(), c.axis, c.what),
        )
        .caused_by(root_span(c, spans));
        if let Some(w) = &c.witness {
            dg = dg.witness(w.clone());
        }
        if let Some(addition) = &c.s6_addition {
            dg = dg.help(format!(
                "MAJOR only because `{addition}` is placed where older readers parse existing bytes, which S6 forbids in a minor revision; {}",
                rules::S6_FIX
            ));
        }
        diags.push(dg);
    }
    for ca in &cur.axis {
        let Some(ba) = base.axis(&ca.name) else {
            continue;
        };
        let (Some((_, b)), Some((style, declared))) =
            (parse(&ba.style, &ba.version), parse(&ca.style, &ca.version))
        else {
            continue;
        };
        let mut class = changes
            .iter()
            .filter(|c| c.axis == ca.name)
            .map(|c| c.class)
            .max();
        // RES-6: a scheme payload's MAJOR change is a descriptor MAJOR change.
        let scheme_axis = |name: &str| {
            matches!(
                cur.version(name).or_else(|| base.version(name)),
                Some((AxisStyle::Scheme, _))
            )
        };
        if ca.name == axes.scheme_parent
            && changes
                .iter()
                .any(|c| scheme_axis(&c.axis) && c.class == Class::Major)
        {
            class = Some(Class::Major);
        }
        let scheme = style == AxisStyle::Scheme;
        let span = spans.get(&key::axis(&ca.name)).copied();
        // RES-53: a negotiated axis has no major: a MAJOR change has no version to go to.
        let negotiated = style == AxisStyle::Negotiated;
        let required = match class {
            Some(Class::Major) if scheme => continue, // the descriptor major carries it
            Some(Class::Major) if negotiated => None,
            Some(Class::Major) => b.next_major(),
            Some(Class::Minor) => b.next_minor(),
            _ => Some(b),
        };
        let Some(required) = required else {
            let help = if negotiated && class == Some(Class::Major) {
                "a negotiated axis has no major (RES-53): peers agree on one version and every version is minor-like, so make the change additive: a new message type, a field after a payload's last, a new flag bit"
            } else {
                "a version byte ends at 255: the change cannot be released on this axis"
            };
            diags.report(
                &lints::VERSION_TOO_LOW,
                span,
                format!(
                    "axis `{}` at {} has no version left for its {} since release {base_label}",
                    ca.name,
                    ca.version,
                    class.map_or("changes", Class::word)
                ),
                help,
            );
            continue;
        };
        let why = |c: Option<Class>| match c {
            Some(Class::Major) => "MAJOR changes".to_string(),
            Some(Class::Minor) => "MINOR changes".to_string(),
            _ => "no change beyond PATCH".to_string(),
        };
        if declared < required {
            let majors = majors_of(
                &changes,
                &ca.name,
                ca.name == axes.scheme_parent,
                scheme_axis,
            );
            let own: Vec<&Change> = changes.iter().filter(|c| c.axis == ca.name).collect();
            let set = format!(
                "set the axis's `current = {}` in {}",
                style.toml_literal(required),
                crate::load::display_path(&spec_dir.join("spec.toml"))
            );
            let help = s6_bump_help(&majors, &own, class, b, style, &set).unwrap_or(set);
            let mut verdict = Diagnostic::new(
                &lints::VERSION_TOO_LOW,
                span,
                format!(
                    "axis `{}` declares {} but its {} since release {base_label} require {}",
                    ca.name,
                    ca.version,
                    why(class),
                    style.show(required)
                ),
            )
            .help(help);
            // Needed only for MAJOR changes whose root is an S2 rebind or an S6 addition,
            // the verdict is folded into those findings: their fix removes the need.
            if class == Some(Class::Major) {
                for c in &majors {
                    verdict = verdict.caused_by(root_span(c, spans));
                }
            }
            diags.push(verdict);
        } else if declared > required {
            let what = match class {
                Some(Class::Major) | Some(Class::Minor) => format!(
                    "its {} since release {base_label} need exactly {}",
                    why(class),
                    style.show(required)
                ),
                _ => format!(
                    "nothing on it changed beyond PATCH since release {base_label}, so it stays {}",
                    style.show(required)
                ),
            };
            diags.push(
                Diagnostic::new(&lints::VERSION_TOO_HIGH, span, format!("axis `{}` declares {} but {what}", ca.name, ca.version))
                    .help(format!("axes evolve independently (commitment 6): set `current = {}`, or make the change that needs the bump", style.toml_literal(required))),
            );
        }
        if declared.major > b.major && !scheme {
            let bump = rules::MajorBump {
                axis: &ca.name,
                from_major: b.major,
                base,
                cur,
                scheme_parent: axes.scheme_parent,
            };
            rules::runtime_field_kind(&bump, spans, diags);
            rules::s5_migration(spec_dir, bump, span, sources, diags);
        }
    }
}

/// The edit a change follows from: the S6-forbidden addition that moved it, or the change
/// itself.
fn root_span(c: &Change, spans: &SpanIndex) -> Option<Span> {
    match c.s6_addition.as_deref().and_then(|a| a.split_once('.')) {
        Some((structure, field)) => spans.get(&key::field(structure, field)).copied(),
        None => c.span,
    }
}

/// The MAJOR changes that make axis `axis` need a major bump: its own, and for the axis the
/// scheme axes live under (`parent`), every scheme axis's (RES-6).
fn majors_of<'c>(
    changes: &'c [Change],
    axis: &str,
    parent: bool,
    scheme_axis: impl Fn(&str) -> bool,
) -> Vec<&'c Change> {
    changes
        .iter()
        .filter(|c| c.class == Class::Major && (c.axis == axis || (parent && scheme_axis(&c.axis))))
        .collect()
}

/// The help of `version-too-low` when S6-forbidden additions make an axis's changes MAJOR:
/// the fix is the addition's place, not a major bump. When every MAJOR change comes from such
/// additions, the help names the S6 fix and the version the amendment needs once it is made;
/// when some do, it gives the major bump (`set_major`) for the others and the S6 fix for
/// these. `None` when no S6 addition is involved.
fn s6_bump_help(
    majors: &[&Change],
    own: &[&Change],
    class: Option<Class>,
    base: Version,
    style: AxisStyle,
    set_major: &str,
) -> Option<String> {
    let mut additions: Vec<&str> = majors
        .iter()
        .filter_map(|c| c.s6_addition.as_deref())
        .collect();
    additions.sort();
    additions.dedup();
    if additions.is_empty() || class != Some(Class::Major) {
        return None;
    }
    let names = additions
        .iter()
        .map(|a| format!("`{a}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if majors.iter().all(|c| c.s6_addition.is_some()) {
        // Fixed as S6 says, each addition is a MINOR change of its own axis.
        let after_fix = own
            .iter()
            .map(|c| {
                if c.s6_addition.is_some() {
                    Class::Minor
                } else {
                    c.class
                }
            })
            .max();
        let then = match after_fix {
            Some(Class::Minor) => base.next_minor().map_or(String::new(), |next| {
                format!(
                    "; this axis's changes are then MINOR and need `current = {}`",
                    style.toml_literal(next)
                )
            }),
            _ => format!(
                "; this axis then needs no bump: `current = {}`",
                style.toml_literal(base)
            ),
        };
        Some(format!(
            "do not bump the major for {names}: it is MAJOR only because it is placed where older readers parse existing bytes, which S6 forbids in a minor revision; {}{then}",
            rules::S6_FIX
        ))
    } else {
        Some(format!(
            "for the other MAJOR changes, {set_major} (with the migration S5 requires); {names} need no major bump: {}",
            rules::S6_FIX
        ))
    }
}

/// The class of a change of one fact from `old` to `new`, with the reason in the seed's
/// words. `action_of(old, new)` gives the action of rule `old` in the base record and of rule
/// `new` in the current spec (for [`FactKind::Rule`]).
///
/// - A rule's action: between two actions that reject nothing (`warn`, `obligation`) the
///   same encodings are accepted, PATCH. Any other change either forbids an encoding that
///   was valid (versioning.txt: MAJOR) or lets an encoding that older readers reject become
///   valid, which breaks CD2 and permissive parsing within the major: MAJOR.
/// - A rule reference: the same action reports another code, PATCH; another action is
///   judged like an action change.
/// - A limit: lowered forbids what was valid, raised accepts what older readers reject
///   (CD2): MAJOR either way. A minimum likewise, the other way round.
/// - A shape fact: MAJOR. A label: PATCH.
pub fn classify_fact(
    kind: FactKind,
    old: &str,
    new: &str,
    action_of: impl Fn(&str, &str) -> (Option<String>, Option<String>),
) -> (Class, String) {
    let action_change = |a: &str, b: &str| {
        if readers::rejects(a) || readers::rejects(b) {
            (
                Class::Major,
                format!(
                    "`{a}` → `{b}` changes which encodings readers accept: forbidding a valid encoding is MAJOR, and one older readers reject becoming valid breaks CD2"
                ),
            )
        } else {
            (
                Class::Patch,
                format!("`{a}` → `{b}`: neither rejects anything"),
            )
        }
    };
    match kind {
        FactKind::Action => action_change(old, new),
        FactKind::Rule => {
            let (base_action, cur_action) = action_of(old, new);
            match (base_action, cur_action) {
                (Some(a), Some(b)) if a == b => (
                    Class::Patch,
                    format!("now reports {new} instead of {old}, with the same action `{a}`"),
                ),
                (Some(a), Some(b)) => {
                    let (class, why) = action_change(&a, &b);
                    (class, format!("now reports {new} instead of {old}: {why}"))
                }
                _ => (
                    Class::Major,
                    format!(
                        "now reports {new} instead of {old}, a rule whose action is unknown to one side"
                    ),
                ),
            }
        }
        FactKind::Limit => (
            Class::Major,
            format!(
                "{old} → {new}: a lower limit forbids valid encodings, a higher one accepts what older readers reject (CD2)"
            ),
        ),
        FactKind::Minimum => (
            Class::Major,
            format!(
                "{old} → {new}: a higher minimum forbids valid encodings, a lower one accepts what older readers reject (CD2)"
            ),
        ),
        FactKind::Shape => (
            Class::Major,
            format!("`{old}` → `{new}` changes how readers parse"),
        ),
        FactKind::Label => (
            Class::Patch,
            format!("`{old}` → `{new}`: the same encodings are accepted"),
        ),
    }
}
