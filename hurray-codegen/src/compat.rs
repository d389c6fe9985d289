//! The compatibility matrix: for every item a spec added after its axis's initial version,
//! and every pair (reader version, data version) on that axis, in strict and permissive
//! mode, the verdict the versioning model gives: CD1 (older minor: read normally), CD2
//! (newer minor: known fields read, trailing bytes skipped, unknown bits and values
//! rejected, except RES-8/RES-9 in permissive mode), R4 (fields beyond older data take their
//! defaults), and per axis CD3/CD4 (another major is rejected).
//!
//! The Markdown emitter renders it (`compatibility.md`); the evolvability tests build data
//! for every cell with a runtime generated from the same spec and assert the verdict.
//!
//! Each axis's posture, in ADR-019's own words (BACKWARD and FORWARD_ADDITIVE within the
//! major, no automatic cross-major compatibility, migration via S5), is [`posture`]: the page
//! and `hurray-spec check`'s summary state it.

use crate::model::*;

/// What a version added.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A flag bit; `gates` is the optional field (a section) whose presence it announces.
    FlagBit {
        set: FlagSetId,
        bit: u32,
        gates: Option<(StructId, usize)>,
    },
    /// A field appended to a length-prefixed structure, `bytes` long.
    AppendedField {
        structure: StructId,
        field: usize,
        bytes: u64,
    },
    /// A tag value; a value of the `scheme` space is a new scheme.
    TagValue { space: SpaceId, value: u32 },
}

impl Change {
    /// The kind of change, as the versioning model names it.
    pub fn kind(&self, spec: &Spec) -> &'static str {
        match self {
            Change::FlagBit { gates: Some(_), .. } => "new flag-gated section",
            Change::FlagBit { gates: None, .. } => "new flag bit",
            Change::AppendedField { .. } => "appended trailing field",
            Change::TagValue { space, .. } if *space == spec.roles.scheme => "new scheme",
            Change::TagValue { .. } => "new tag value",
        }
    }
}

/// One thing added after its axis's initial version.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub axis: AxisId,
    pub since: Version,
    pub change: Change,
    /// `flag_set.BIT`, `structure.field` or `space.value_name`.
    pub name: String,
}

/// Reading mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Strict,
    Permissive,
}

/// What a reader does with the data.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Read normally (CD1, or the reader knows the item).
    Accept,
    /// Read; the field the data predates takes its default and is marked so (R4).
    Defaults { field: String },
    /// Read; `bytes` the reader's version does not define are skipped through the
    /// enclosing length prefix (CD2).
    Skips { bytes: u64 },
    /// Accepted in permissive mode without being understood: a warning under `rule`, and the
    /// tensor is not dereferenceable (RES-8, RES-9).
    Opaque { rule: RuleId },
    /// Rejected with `rule`'s code.
    Reject { rule: RuleId },
}

/// One cell: an item, a reader version and a data version on the item's axis, a mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub item: usize,
    pub reader: Version,
    /// The data's declared version; the data carries the item when `data >= since`.
    pub data: Version,
    pub mode: Mode,
    pub verdict: Verdict,
}

/// A major-version cell of an axis: data one major above or below the reader's (CD3, CD4).
#[derive(Clone, Debug, PartialEq)]
pub struct MajorCell {
    pub axis: AxisId,
    pub reader: Version,
    pub data: Version,
    pub verdict: Verdict,
}

/// The whole matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    pub items: Vec<Item>,
    pub cells: Vec<Cell>,
    pub majors: Vec<MajorCell>,
}

/// Every version of an axis, from its initial version to its current one.
pub fn versions(axis: &Axis) -> Vec<Version> {
    if axis.initial.major != axis.current.major {
        return vec![axis.initial, axis.current];
    }
    (axis.initial.minor..=axis.current.minor)
        .map(|m| Version::new(axis.initial.major, m))
        .collect()
}

/// Everything added after its axis's initial version, in spec order.
pub fn items(spec: &Spec) -> Vec<Item> {
    let mut out = Vec::new();
    for (fi, flag_set) in spec.flag_sets.iter().enumerate() {
        let id = FlagSetId(fi as u32);
        for b in &flag_set.bits {
            if b.since <= spec.axis(flag_set.axis).initial {
                continue;
            }
            out.push(Item {
                axis: flag_set.axis,
                since: b.since,
                change: Change::FlagBit {
                    set: id,
                    bit: b.bit,
                    gates: gated_field(spec, id, b.bit),
                },
                name: format!("{}.{}", flag_set.name, b.name),
            });
        }
    }
    for (si, s) in spec.structures.iter().enumerate() {
        if !s.framing.is_length_prefixed() {
            continue;
        }
        for (fi, f) in s.fields.iter().enumerate() {
            if f.since <= s.since || f.presence != Presence::Always || f.reserved {
                continue;
            }
            let bytes = f
                .size
                .as_ref()
                .and_then(Affine::as_constant)
                .map_or(0, |n| n as u64);
            out.push(Item {
                axis: s.axis,
                since: f.since,
                change: Change::AppendedField {
                    structure: StructId(si as u32),
                    field: fi,
                    bytes,
                },
                name: format!("{}.{}", s.name, f.name),
            });
        }
    }
    for (pi, tag_space) in spec.spaces.iter().enumerate() {
        for t in &tag_space.tags {
            if t.since <= spec.axis(tag_space.axis).initial {
                continue;
            }
            out.push(Item {
                axis: tag_space.axis,
                since: t.since,
                change: Change::TagValue {
                    space: SpaceId(pi as u32),
                    value: t.value,
                },
                name: format!("{}.{}", tag_space.name, t.name),
            });
        }
    }
    out
}

/// The optional field a flag bit announces, if any.
fn gated_field(spec: &Spec, set: FlagSetId, bit: u32) -> Option<(StructId, usize)> {
    spec.structures.iter().enumerate().find_map(|(si, s)| {
        s.fields
            .iter()
            .position(|f| match &f.presence {
                Presence::If(Condition::HasBit(_, flag_set, b)) => *flag_set == set && *b == bit,
                _ => false,
            })
            .map(|fi| (StructId(si as u32), fi))
    })
}

/// The verdict of one cell.
pub fn verdict(spec: &Spec, item: &Item, reader: Version, data: Version, mode: Mode) -> Verdict {
    let present = data >= item.since;
    let known = reader >= item.since;
    match (&item.change, present, known) {
        (
            Change::AppendedField {
                structure, field, ..
            },
            false,
            true,
        ) => Verdict::Defaults {
            field: spec.structure(*structure).fields[*field].name.clone(),
        },
        (_, false, _) | (_, true, true) => Verdict::Accept,
        (Change::AppendedField { structure, .. }, true, false) => {
            // W4: the data carries every field appended up to its version.
            let bytes = spec
                .structure(*structure)
                .fields
                .iter()
                .filter(|f| f.since > reader && f.since <= data && f.presence == Presence::Always)
                .filter_map(|f| f.size.as_ref().and_then(Affine::as_constant))
                .map(|n| n as u64)
                .sum();
            Verdict::Skips { bytes }
        }
        (Change::FlagBit { set, .. }, true, false) => {
            by_action(spec, spec.flag_set(*set).rule, mode, true)
        }
        (Change::TagValue { space, .. }, true, false) => {
            let tag_space = spec.space(*space);
            let rule = tag_space.reject.unknown;
            // A dispatching space whose variants are not length-prefixed cannot be skipped.
            let dispatches = spec.structures.iter().any(|s| {
                s.fields
                    .iter()
                    .any(|f| matches!(&f.ty, FieldType::Dispatch { space: d, .. } if d == space))
            });
            let skippable = !dispatches
                || (!spec.variants(*space).is_empty() && spec.dispatch_bound(*space).is_some());
            by_action(spec, rule, mode, skippable)
        }
    }
}

fn by_action(spec: &Spec, rule: RuleId, mode: Mode, skippable: bool) -> Verdict {
    match (spec.rule(rule).action, mode) {
        (Action::Strict | Action::Validate, Mode::Permissive) if skippable => {
            Verdict::Opaque { rule }
        }
        (Action::Warn | Action::Obligation, _) => Verdict::Accept,
        _ => Verdict::Reject { rule },
    }
}

/// The matrix of a spec.
pub fn matrix(spec: &Spec) -> Matrix {
    let items = items(spec);
    let mut cells = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let vs = versions(spec.axis(item.axis));
        for &reader in &vs {
            for &data in &vs {
                for mode in [Mode::Strict, Mode::Permissive] {
                    cells.push(Cell {
                        item: i,
                        reader,
                        data,
                        mode,
                        verdict: verdict(spec, item, reader, data, mode),
                    });
                }
            }
        }
    }
    let mut majors = Vec::new();
    for (ai, a) in spec.axes.iter().enumerate() {
        let Some((too_high, too_low)) = a.reject else {
            continue;
        };
        let reader = a.current;
        majors.push(MajorCell {
            axis: AxisId(ai as u32),
            reader,
            data: Version::new(reader.major.saturating_add(1), 0),
            verdict: Verdict::Reject { rule: too_high },
        });
        majors.push(MajorCell {
            axis: AxisId(ai as u32),
            reader,
            data: Version::new(reader.major.saturating_sub(1), 0),
            verdict: Verdict::Reject { rule: too_low },
        });
    }
    Matrix {
        items,
        cells,
        majors,
    }
}

/// ADR-019's words for what holds across majors (CD3, CD4).
pub const ACROSS_MAJORS: &str = "no automatic cross-major compatibility";
/// ADR-019's words for how data crosses a major (S5).
pub const MIGRATION: &str = "migration via S5";
/// What replaces CD3, CD4 and S5 on a negotiated axis (RES-53).
pub const NEGOTIATED: &str =
    "version negotiated per connection, no major (a breaking change is refused, RES-53)";

/// One axis's compatibility posture in ADR-019's words, which name it "in a single sentence
/// per axis": BACKWARD within the major (CD1), FORWARD_ADDITIVE within the major (CD2), no
/// automatic compatibility across majors (CD3, CD4), migration via S5.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posture {
    pub axis: AxisId,
    /// The axis's name.
    pub name: String,
    /// The axis's current version, in its style.
    pub current: String,
    /// The major the posture holds within, as the ADR writes it (`1.x`); a scheme axis's
    /// versions live under the major of the axis that carries its tag (`descriptor 1.x`,
    /// RES-6); a negotiated axis's every version (`every protocol version`, RES-53).
    pub within: String,
    /// A negotiated axis (RES-53): peers agree on a version per connection, and the axis has
    /// no major, so nothing crosses one.
    pub negotiated: bool,
}

impl Posture {
    /// CD1 in ADR-019's words.
    pub fn backward(&self) -> String {
        format!("BACKWARD within {}", self.within)
    }

    /// CD2 in ADR-019's words.
    pub fn forward_additive(&self) -> String {
        format!("FORWARD_ADDITIVE within {}", self.within)
    }

    /// The posture as one sentence.
    pub fn sentence(&self) -> String {
        if self.negotiated {
            return format!(
                "{}, {}, {NEGOTIATED}",
                self.backward(),
                self.forward_additive()
            );
        }
        format!(
            "{}, {}, {ACROSS_MAJORS}, {MIGRATION}",
            self.backward(),
            self.forward_additive()
        )
    }
}

/// Every axis's posture, in spec order.
pub fn posture(spec: &Spec) -> Vec<Posture> {
    let parent = spec.axis(spec.scheme_parent_axis());
    spec.axes
        .iter()
        .enumerate()
        .map(|(ai, a)| Posture {
            axis: AxisId(ai as u32),
            name: a.name.clone(),
            current: a.show(a.current),
            within: match a.style {
                AxisStyle::Scheme => format!("{} {}.x", parent.name, parent.current.major),
                AxisStyle::Negotiated => "every version".to_string(),
                AxisStyle::MajorMinor => format!("{}.x", a.current.major),
            },
            negotiated: a.style == AxisStyle::Negotiated,
        })
        .collect()
}
