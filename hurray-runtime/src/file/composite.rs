//! Composite membership (container.md §5.4, layouts.md): tensors arrive in write order
//! (ascending descriptor offset) and a [`Tracker`] binds each composite head to the
//! `member_count` tensors that follow it, pre-order when nested. The per-member checks
//! CV-1…CV-5 (and CH-12 for a nested head) run as each member arrives, the depth limit CV-7
//! when a head opens, the partition close-time check CV-6/F13 when a composite closes, and a
//! torn composite F12 at the end. The random-access reader and the sequential reader both feed
//! it, so a composite is judged the same way whichever way the file is read.

use super::cover;
use crate::ctx::Ctx;
use crate::error::Error;
use crate::generated::flags::DescriptorFlags;
use crate::generated::rules::Rule;
use crate::generated::tags::{CompositionRule, ElementType, Layout, MemberRole};
use crate::semantic::size::Integer;
use crate::structures::{DescriptorView, LayoutVariantView};
use crate::wire::{TagClass, TagSpace};

/// A composite found in the tensor region: its head's and its members' tensor numbers (index
/// positions for a random-access file, walk positions for a sequential read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composite {
    /// The position of the head tensor in the index.
    pub head: usize,
    /// The positions of its members in the index, in member order.
    pub members: Vec<usize>,
    /// False for a torn composite accepted in permissive mode (F12): never present it as complete.
    pub complete: bool,
}

/// The nesting limit of composites (CV-7, RES-34).
const MAX_DEPTH: usize = 8;

/// A member's box inside a partition's head: its shard offset and shape.
#[derive(Clone, Debug)]
struct MemberBox {
    shard_offset: Vec<u64>,
    shape: Vec<u64>,
    name: String,
    offset: u64,
}

/// A composite whose members are still arriving.
#[derive(Clone, Debug)]
struct Open {
    slot: usize,
    name: String,
    offset: u64,
    declared: u64,
    rule: Option<CompositionRule>,
    shape: Vec<u64>,
    type_tag: u32,
    members: Vec<usize>,
    boxes: Vec<MemberBox>,
}

/// Binds composites as tensors arrive in write order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tracker {
    open: Vec<Open>,
    out: Vec<Composite>,
}

impl Tracker {
    /// How many composites are open: the depth of the next tensor.
    pub(crate) fn depth(&self) -> usize {
        self.open.len()
    }

    /// Whether the tensor `v` takes part in a composite: it joins an open one, or it is a
    /// head. For any other, [`Self::push`] does nothing, and a caller may skip it (and the
    /// name it would build for messages).
    pub(crate) fn binds(&self, v: &DescriptorView<'_>) -> bool {
        !self.open.is_empty() || matches!(v.layout_fields(), LayoutVariantView::Composite(_))
    }

    /// The head of the innermost open composite, which the next tensor joins.
    pub(crate) fn innermost_head(&self) -> Option<usize> {
        self.open.last().map(|c| self.out[c.slot].head)
    }

    /// The next tensor in write order: a member of the innermost open composite (checked
    /// against its head), and itself a head when its layout is composite.
    pub(crate) fn push(
        &mut self,
        tensor: usize,
        name: &str,
        v: &DescriptorView<'_>,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        if let Some(parent) = self.open.last_mut() {
            let k = parent.members.len();
            member(parent, name, v, k, ctx)?;
            parent.members.push(tensor);
            if parent.rule == Some(CompositionRule::Partition)
                && let Some(sh) = v.shard()
            {
                parent.boxes.push(MemberBox {
                    shard_offset: sh.shard_offset().iter().map(Integer::to).collect(),
                    shape: v.shape().iter().map(Integer::to).collect(),
                    name: name.to_string(),
                    offset: v.offset(),
                });
            }
        }
        if let LayoutVariantView::Composite(c) = v.layout_fields() {
            let depth = self.open.len() + 1;
            if depth > MAX_DEPTH {
                return Err(Error::new(
                    Rule::Cv7,
                    v.offset(),
                    format!(
                        "composite `{name}` nests {depth} levels deep; the limit is {MAX_DEPTH} (RES-34)"
                    ),
                ));
            }
            let rule = match CompositionRule::classify(c.composition_rule().raw()) {
                TagClass::Known(r) => Some(r),
                _ => None,
            };
            self.out.push(Composite {
                head: tensor,
                members: Vec::new(),
                complete: true,
            });
            self.open.push(Open {
                slot: self.out.len() - 1,
                name: name.to_string(),
                offset: v.offset(),
                declared: c.member_count().to(),
                rule,
                shape: v.shape().iter().map(Integer::to).collect(),
                type_tag: v.fixed_header().type_tag().raw(),
                members: Vec::new(),
                boxes: Vec::new(),
            });
        }
        // Close every composite whose last member (and that member's own members) arrived.
        while let Some(top) = self.open.last() {
            if (top.members.len() as u64) < top.declared {
                break;
            }
            let done = self.open.pop().expect("the loop saw a top");
            self.close(done, ctx)?;
        }
        Ok(())
    }

    fn close(&mut self, c: Open, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if c.rule == Some(CompositionRule::Partition) {
            partition_cover(&c, ctx)?;
        }
        self.out[c.slot].members = c.members;
        Ok(())
    }

    /// No more tensors: a composite still open is torn (F12), innermost first.
    pub(crate) fn finish(mut self, ctx: &mut Ctx<'_>) -> Result<Vec<Composite>, Error> {
        while let Some(c) = self.open.pop() {
            ctx.violation(
                Rule::F12,
                c.offset,
                format!(
                    "composite `{}` declares {} members but only {} follow it",
                    c.name,
                    c.declared,
                    c.members.len()
                ),
            )?;
            let slot = &mut self.out[c.slot];
            slot.complete = false;
            slot.members = c.members;
        }
        Ok(self.out)
    }
}

/// CV-1, CV-2, CV-4, CV-5 (and CH-12 for a nested head) for member `k` of a composite.
fn member(
    head: &Open,
    name: &str,
    v: &DescriptorView<'_>,
    k: usize,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let has_member_section = v
        .fixed_header()
        .flags()
        .has(DescriptorFlags::HAS_COMPOSITE_MEMBER);
    let Some(rule) = head.rule else {
        return Ok(());
    };
    match rule {
        CompositionRule::Partition | CompositionRule::Overlay => {
            match v.shard() {
                None => {
                    // The member's layout's `unsharded_member_rule` (CH-12 for a nested
                    // head), else the space's default (CV-1).
                    let r = match Layout::classify(v.fixed_header().layout_tag().raw()) {
                        TagClass::Known(l) => l.unsharded_member_rule(),
                        // An agreed private layout (no other reaches a member).
                        TagClass::Private
                        | TagClass::UnallocatedPublic { .. }
                        | TagClass::Reserved
                        | TagClass::Invalid => Layout::DEFAULT_UNSHARDED_MEMBER_RULE,
                    };
                    ctx.violation(
                        r,
                        v.offset(),
                        format!(
                            "member `{name}` of a {} composite has no shard section",
                            rule.name()
                        ),
                    )?;
                }
                Some(sh) => {
                    if !sh
                        .parent_shape()
                        .iter()
                        .map(Integer::to::<u64>)
                        .eq(head.shape.iter().copied())
                    {
                        ctx.violation(
                            Rule::Cv1,
                            sh.parent_shape_at(),
                            format!(
                                "member `{name}`'s parent_shape {:?} differs from the head's shape {:?}",
                                sh.parent_shape().to_vec(),
                                head.shape
                            ),
                        )?;
                    }
                }
            }
            // CV-2: the member's decoded value type is the head's type (a quantized member
            // decodes to float32).
            let decoded = if v.quantization().is_some() {
                ElementType::Float32.value()
            } else {
                v.fixed_header().type_tag().raw()
            };
            if decoded != head.type_tag {
                ctx.violation(
                    Rule::Cv2,
                    v.fixed_header().type_tag_at(),
                    format!(
                        "member `{name}` decodes to type {decoded:#04x}, the head's type is {:#04x}",
                        head.type_tag
                    ),
                )?;
            }
            if rule == CompositionRule::Overlay {
                let role = v.composite_member().map(|cm| cm.member_role().raw());
                let want = if k == 0 {
                    MemberRole::Base.value()
                } else {
                    MemberRole::Correction.value()
                };
                if role != Some(want) {
                    ctx.violation(
                        Rule::Cv4,
                        v.offset(),
                        format!(
                            "overlay member {k} (`{name}`) must carry a composite member section with role {want:#04x}"
                        ),
                    )?;
                }
                if k == 0 {
                    let spans = v
                        .shard()
                        .is_some_and(|sh| sh.shard_offset().iter().all(|o| o.wide() == 0))
                        && v.shape()
                            .iter()
                            .map(Integer::to::<u64>)
                            .eq(head.shape.iter().copied());
                    if !spans {
                        ctx.violation(
                            Rule::Cv4,
                            v.offset(),
                            format!(
                                "the overlay's base member `{name}` must span the head (shard_offset 0, the head's shape)"
                            ),
                        )?;
                    }
                }
            } else if has_member_section {
                ctx.violation(
                    Rule::Cv5,
                    v.fixed_header().flags_at(),
                    format!("partition member `{name}` sets HAS_COMPOSITE_MEMBER"),
                )?;
            }
        }
        CompositionRule::Group => {
            if has_member_section {
                ctx.violation(
                    Rule::Cv5,
                    v.fixed_header().flags_at(),
                    format!("group member `{name}` sets HAS_COMPOSITE_MEMBER"),
                )?;
            }
        }
    }
    Ok(())
}

/// CV-6 / F13: a partition's member boxes cover the head exactly once ([`cover::exact`]).
/// Every member's box lies inside the head already (SHD-2 and CV-1 reject in every mode).
fn partition_cover(c: &Open, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let regions: Vec<cover::Region<'_>> = c
        .boxes
        .iter()
        .map(|b| cover::Region {
            start: &b.shard_offset,
            extent: &b.shape,
        })
        .collect();
    let Err(fault) = cover::exact(&c.shape, &regions) else {
        return Ok(());
    };
    let (at, text) = match fault {
        cover::Fault::Uncountable => (
            c.offset,
            format!(
                "the head's shape {:?} holds more than 2^128 elements: too many to count its cover",
                c.shape
            ),
        ),
        cover::Fault::Count { sum, total } => (
            c.offset,
            format!("the partition's members hold {sum} elements; the head has {total}"),
        ),
        cover::Fault::Overlap(i, j) => {
            let (a, b) = (&c.boxes[i], &c.boxes[j]);
            (
                b.offset,
                format!("partition members `{}` and `{}` overlap", a.name, b.name),
            )
        }
        cover::Fault::Untiled { budget } => (
            c.offset,
            format!(
                "the {} members of partition `{}` hold as many elements as the head but do not tile it, so some overlap (no overlapping pair found within {budget} comparisons)",
                c.boxes.len(),
                c.name
            ),
        ),
    };
    ctx.violation(Rule::Cv6, at, text)
}
