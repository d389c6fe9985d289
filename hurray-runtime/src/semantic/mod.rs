//! The semantic layer: the descriptor rules of descriptor.md, layouts.md and quantization.md
//! that the spec tables cannot state, applied to a structurally parsed [`DescriptorView`].
//! Each check names the rule ids it enforces; the rule's action (from `spec/rules`) decides
//! between rejection and a permissive acceptance. Where the rule a check reports depends on a
//! tag (a layout's `byte_offset_rule`, a scheme's `data_alias_rule`, …), it is the tag's table
//! data, read through the generated accessors, and the generic rule is the space's
//! `[space.default]`: no fallback arm here picks a rule (`tests/it/architecture.rs`).

pub mod address;
pub mod data;
pub mod elements;
pub mod size;

use crate::ctx::Ctx;
use crate::error::Error;
use crate::generated::flags::{ComputedMask, DescriptorFlags};
use crate::generated::rules::Rule;
use crate::generated::tags::{
    BlockTableIndexType, CombineOp, CompositionRule, Device, ElementKind, ElementType, Layout,
    LayoutClass, MemoryClass, Scheme, SchemeParameter, SyncMode,
};
use crate::structures::{
    BufferHandleView, DescriptorView, FixedHeaderView, LayoutVariantView, SchemeVariantView,
};
use crate::wire::{Array, FixedSeq, Scalar, TagClass, TagSpace};
use elements::{DYNAMIC, ElementSize};
use size::{Integer, Size};

/// The layout of a descriptor as the semantic layer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutKind {
    /// A layout this build knows.
    Known(Layout),
    /// An implementation-private extension layout (0xF0–0xFE).
    Private(u32),
}

/// A parameter buffer a quantization scheme references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Which parameter of the scheme the buffer holds.
    pub parameter: SchemeParameter,
    /// The parameter's name in the spec (`parameter.name()`).
    pub name: &'static str,
    /// The buffer's index in the buffer table.
    pub index: u64,
    /// Absolute offset of the index field, for errors.
    pub at: u64,
}

/// The dimension sizes, copied once from the descriptor onto the stack (a reader accepts at
/// most `MAX_RANK` dimensions, SHP-1): no allocation. Reads as a slice.
#[derive(Clone, Copy)]
pub struct Dims {
    len: usize,
    dims: [u64; FixedHeaderView::MAX_RANK as usize],
}

impl Dims {
    /// No dimension.
    const EMPTY: Dims = Dims {
        len: 0,
        dims: [0; FixedHeaderView::MAX_RANK as usize],
    };

    /// The dimensions of `shape` (a parsed descriptor has at most `MAX_RANK`).
    #[inline]
    pub fn new<T: Scalar + Integer>(shape: Array<'_, T>) -> Dims {
        let mut d = Dims::EMPTY;
        d.fill(shape);
        d
    }

    /// Replace the dimensions with those of `shape`, in place.
    #[inline]
    fn fill<T: Scalar + Integer>(&mut self, shape: Array<'_, T>) {
        self.len = 0;
        for (slot, x) in self.dims.iter_mut().zip(shape.iter()) {
            *slot = x.to();
            self.len += 1;
        }
    }
}

impl std::ops::Deref for Dims {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.dims[..self.len]
    }
}

impl std::fmt::Debug for Dims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// What the checks need to know about a descriptor, computed once.
#[derive(Debug)]
pub struct Facts<'v, 'a> {
    /// The descriptor.
    pub v: &'v DescriptorView<'a>,
    /// Its rank.
    pub rank: u64,
    /// Its shape, one extent per dimension.
    pub shape: Dims,
    /// Element count, checked; `None` when a dimension is dynamic (SHP-3, RES-36).
    pub count: Option<Size>,
    /// How elements occupy bytes; `None` for a type this reader cannot size.
    pub elem: Option<ElementSize>,
    /// The raw element type tag.
    pub type_tag: u32,
    /// Its layout.
    pub layout: LayoutKind,
    /// Its descriptor flags.
    pub flags: DescriptorFlags,
    /// Its buffer table's handles.
    pub buffers: FixedSeq<'a, BufferHandleView<'a>>,
    /// The known scheme of a quantized descriptor.
    pub scheme: Option<Scheme>,
    /// The parameter buffers its quantization scheme references.
    pub params: Vec<Param>,
}

impl<'v, 'a> Facts<'v, 'a> {
    /// Compute the facts of a parsed descriptor.
    #[inline]
    pub fn new(v: &'v DescriptorView<'a>) -> Facts<'v, 'a> {
        let h = v.fixed_header();
        let type_tag = h.type_tag().raw();
        let elem = match ElementType::classify(type_tag) {
            TagClass::Known(t) => Some(ElementSize::of(t)),
            _ => v
                .extension_type()
                .and_then(|e| ElementSize::from_extension(e.bit_width().to())),
        };
        let layout = match Layout::classify(h.layout_tag().raw()) {
            TagClass::Known(l) => LayoutKind::Known(l),
            _ => LayoutKind::Private(h.layout_tag().raw()),
        };
        let (scheme, params) = match v.quantization() {
            Some(q) => scheme_params(&q.payload()),
            None => (None, Vec::new()),
        };
        // The dimensions are filled in place: `Dims` is the size of `MAX_RANK` extents, and
        // building it apart and moving it in costs two copies of it per descriptor.
        let mut f = Facts {
            v,
            rank: h.rank().to(),
            count: None,
            shape: Dims::EMPTY,
            elem,
            type_tag,
            layout,
            flags: h.flags(),
            buffers: v.buffer_table().buffers(),
            scheme,
            params,
        };
        f.shape.fill(v.shape());
        f.count = elements::count(f.shape.iter().copied());
        f
    }

    fn buffer(&self, i: u64) -> Option<BufferHandleView<'a>> {
        self.buffers.get(usize::try_from(i).ok()?)
    }

    fn layout_tag_at(&self) -> u64 {
        self.v.fixed_header().offset()
            + crate::structures::FixedHeaderView::OFFSET_LAYOUT_TAG as u64
    }

    fn rank_at(&self) -> u64 {
        self.v.fixed_header().offset() + crate::structures::FixedHeaderView::OFFSET_RANK as u64
    }

    fn buffer_count_at(&self) -> u64 {
        self.v.buffer_table().offset()
    }

    fn byte_size_at(&self, i: u64) -> u64 {
        self.buffer(i)
            .map_or(self.buffer_count_at(), |b| b.byte_size_at())
    }

    /// The layout's own buffers, before the quantization parameter buffers.
    pub fn layout_buffers(&self) -> u64 {
        match self.layout {
            LayoutKind::Known(l) => l.layout_buffers(self.rank),
            LayoutKind::Private(_) => 1,
        }
    }

    /// The layout's class, when known.
    pub fn class(&self) -> Option<LayoutClass> {
        match self.layout {
            LayoutKind::Known(l) => Some(l.class()),
            LayoutKind::Private(_) => None,
        }
    }
}

/// The scheme and parameter buffer indices of a quantization payload, read through the
/// generated accessor of the scheme's `parameters` (tags/scheme.toml).
fn scheme_params(p: &SchemeVariantView<'_>) -> (Option<Scheme>, Vec<Param>) {
    let TagClass::Known(scheme) = Scheme::classify(p.tag()) else {
        return (None, Vec::new());
    };
    let Some(buffers) = p.parameter_buffers() else {
        return (None, Vec::new());
    };
    let params = buffers
        .into_iter()
        .map(|b| Param {
            parameter: b.parameter,
            name: b.parameter.name(),
            index: b.index,
            at: b.at,
        })
        .collect();
    (Some(scheme), params)
}

/// Apply every descriptor-level semantic rule.
pub fn check_descriptor(v: &DescriptorView<'_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let f = Facts::new(v);
    if f.count.is_none() {
        // RES-36: nothing is computed from a dynamic dimension; the data cannot be
        // dereferenced until it is resolved.
        ctx.mark_not_dereferenceable();
    }
    header(&f, ctx)?;
    byte_offset(&f, ctx)?;
    buffer_count(&f, ctx)?;
    handles(&f, ctx)?;
    layout_rules(&f, ctx)?;
    quantization(&f, ctx)?;
    sections(&f, ctx)?;
    Ok(())
}

/// FLG-2, LAY-3/CM-1/EX-5 (rank 0), LAY-4 and the per-layout rank rules, CH-10, CH-11.
fn header(f: &Facts<'_, '_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let h = f.v.fixed_header();
    let private_type = matches!(ElementType::classify(f.type_tag), TagClass::Private);
    let has_ext = f.flags.has(DescriptorFlags::HAS_EXTENSION_TYPE);
    if private_type != has_ext {
        ctx.violation(
            Rule::Flg2,
            h.flags_at(),
            if private_type {
                format!(
                    "private type tag {:#04x} without HAS_EXTENSION_TYPE",
                    f.type_tag
                )
            } else {
                format!(
                    "HAS_EXTENSION_TYPE with non-private type tag {:#04x}",
                    f.type_tag
                )
            },
        )?;
    }
    // The rule rank 0 and a rank outside the layout's range break are the layout's
    // (`scalar_rule`, `rank_rule` in tags/layout.toml).
    let scalar_rule = match f.layout {
        LayoutKind::Known(l) => l.scalar_rule(),
        LayoutKind::Private(_) => Layout::PRIVATE_SCALAR_RULE,
    };
    if f.rank == 0
        && let Some(rule) = scalar_rule
    {
        ctx.violation(
            rule,
            f.layout_tag_at(),
            "rank 0 (a scalar) is allowed only with row-major layout",
        )?;
    }
    if let LayoutKind::Known(l) = f.layout {
        let (lo, hi) = l.rank_range();
        if f.rank < u64::from(lo) || f.rank > u64::from(hi) {
            ctx.violation(
                l.rank_rule(),
                f.rank_at(),
                format!(
                    "rank {} is outside {}'s range {lo}..={hi}",
                    f.rank,
                    l.name()
                ),
            )?;
        }
        if l == Layout::Composite {
            if f.flags.has(DescriptorFlags::HAS_COMPOSITE_MEMBER) {
                ctx.violation(
                    Rule::Ch10,
                    h.flags_at(),
                    "a composite head sets HAS_COMPOSITE_MEMBER",
                )?;
            }
            if f.flags.has(DescriptorFlags::HAS_QUANTIZATION) {
                ctx.violation(
                    Rule::Ch11,
                    h.flags_at(),
                    "a composite head sets HAS_QUANTIZATION",
                )?;
            }
        }
    }
    Ok(())
}

/// OFS-1, OFS-2 and their per-layout restatements (RM-2, CO-3, CR-3, CC-3, CF-3, BP-3, CH-2):
/// the layout's `byte_offset_rule`, else the space's default for what bounds it
/// (tags/layout.toml).
fn byte_offset(f: &Facts<'_, '_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let off = f.v.byte_offset().wide();
    let at = f.v.byte_offset_at();
    let LayoutKind::Known(l) = f.layout else {
        return Ok(());
    };
    let rule = l.byte_offset_rule();
    if l.byte_offset_zero() {
        if off != 0 {
            ctx.violation(
                rule,
                at,
                format!("byte_offset is {off}; {} requires 0", l.name()),
            )?;
        }
    } else if let Some(b0) = f.buffer(0)
        && (off < 0 || off > b0.byte_size().wide())
    {
        let detail = if off < 0 {
            format!("byte_offset {off} is negative: before buffer 0")
        } else {
            format!(
                "byte_offset {off} exceeds buffer 0's byte_size {}",
                b0.byte_size()
            )
        };
        ctx.violation(rule, at, detail)?;
    }
    Ok(())
}

/// BUF-1…BUF-6 and the per-layout counts (RM-1, CO-2, CR-2, CC-2, CF-2, BP-2, CH-1), with
/// RES-33 (parameter buffers follow every layout's own) and RES-37 (a shared entry counts
/// once). Also P1, P2 (BUF-8, PC-3). The rules are the tables': the layout's
/// `buffer_count_rule` (else the space's default for a descriptor quantized or not), the
/// private range's, and the scheme's `data_alias_rule` (else the space's default).
fn buffer_count(f: &Facts<'_, '_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let count = f.buffers.len() as u64;
    let at = f.buffer_count_at();
    let layout_buffers = f.layout_buffers();
    let mut distinct: Vec<u64> = f.params.iter().map(|p| p.index).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let quantized = f.flags.has(DescriptorFlags::HAS_QUANTIZATION);
    let opaque_quant = quantized && f.scheme.is_none();
    let expected = layout_buffers + distinct.len() as u64;
    match f.layout {
        LayoutKind::Private(_) => {
            if count < 1
                && let Some(rule) = Layout::PRIVATE_BUFFER_COUNT_RULE
            {
                ctx.violation(rule, at, "an extension layout has at least one buffer")?;
            }
        }
        // A scheme this reader does not know (permissive): its parameter buffers are unknown.
        LayoutKind::Known(l) if opaque_quant => {
            if count < layout_buffers {
                ctx.violation(
                    l.buffer_count_rule(quantized),
                    at,
                    format!("buffer_count {count} is below the layout's {layout_buffers} buffers"),
                )?;
            }
        }
        LayoutKind::Known(l) => {
            if count != expected {
                ctx.violation(l.buffer_count_rule(quantized), at, format!("buffer_count is {count}; the layout needs {layout_buffers} buffer(s) plus {} parameter buffer(s)", distinct.len()))?;
            }
        }
    }
    // P1, P2: parameter buffers follow the layout buffers and never alias the data buffer.
    // Parameter buffers are read from a known scheme's payload only.
    let Some(scheme) = f.scheme else {
        return Ok(());
    };
    for p in &f.params {
        if p.index == 0 {
            ctx.violation(
                scheme.data_alias_rule(),
                p.at,
                format!("{} buffer index 0 is the data buffer", p.name),
            )?;
        } else if p.index < layout_buffers {
            ctx.violation(
                Rule::P1,
                p.at,
                format!(
                    "{} buffer index {} is one of the layout's {layout_buffers} buffers",
                    p.name, p.index
                ),
            )?;
        }
    }
    Ok(())
}

/// BH-9, BH-10, BH-12, BH-13 (and BH-15 through the pair table), BH-14/BP-12/CF-14/P4: the
/// layout's `same_device_rule`, else the space's default for a parameter buffer or another.
fn handles(f: &Facts<'_, '_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let mut first: Option<BufferHandleView<'_>> = None;
    for (i, b) in f.buffers.iter().enumerate() {
        let dev = b.device_tag().raw();
        let sync = b.sync_mode().raw();
        let mem = b.memory_class().raw();
        if dev == Device::Cpu.value() && sync != SyncMode::ProducerSynced.value() {
            ctx.violation(
                Rule::Bh9,
                b.sync_mode_at(),
                format!("a CPU buffer has sync_mode {sync:#04x}; CPU buffers are producer-synced"),
            )?;
        }
        if ctx.config.is_network() && sync != SyncMode::ProducerSynced.value() {
            ctx.violation(
                Rule::Bh10,
                b.sync_mode_at(),
                "a buffer received over a network transport is not producer-synced",
            )?;
        }
        let class = MemoryClass::classify(mem);
        let allowed: &[TagClass<MemoryClass>] = match Device::classify(dev) {
            TagClass::Known(d) => d.memory_classes(),
            TagClass::Private => Device::PRIVATE_MEMORY_CLASSES,
            _ => &[],
        };
        match class {
            TagClass::Private if !matches!(Device::classify(dev), TagClass::Private) => {
                ctx.violation(
                    Rule::Bh12,
                    b.memory_class_at(),
                    format!("private memory class {mem:#04x} on non-private device {dev:#04x}"),
                )?;
            }
            TagClass::Known(_) | TagClass::Private if !allowed.contains(&class) => {
                let name = match class {
                    TagClass::Known(m) => m.name().to_string(),
                    _ => format!("{mem:#04x} (private)"),
                };
                ctx.violation(
                    Rule::Bh13,
                    b.memory_class_at(),
                    format!("memory class {name} is not valid on device {dev:#04x}"),
                )?;
            }
            _ => {}
        }
        match first {
            None => first = Some(b),
            Some(a) => {
                if a.device_tag().raw() != dev || a.memory_class().raw() != mem {
                    // A quantization parameter buffer away from the data (RES-41).
                    let parameter_buffer = f.params.iter().any(|p| p.index == i as u64);
                    let rule = match f.layout {
                        LayoutKind::Known(l) => l.same_device_rule(parameter_buffer),
                        LayoutKind::Private(_) => {
                            Layout::default_same_device_rule(parameter_buffer)
                        }
                    };
                    ctx.violation(rule, b.device_tag_at(), format!("buffers differ in device ({:#04x} vs {dev:#04x}) or memory class ({:#04x} vs {mem:#04x})", a.device_tag().raw(), a.memory_class().raw()))?;
                }
            }
        }
    }
    Ok(())
}

/// Buffer `buffer` holds `bytes` (exactly, or at least), else `rule` is broken. A size too
/// large to compute fits no buffer: its rule is broken, never skipped. A missing buffer is
/// the buffer-count rules' to report.
fn need(
    f: &Facts<'_, '_>,
    ctx: &mut Ctx<'_>,
    rule: Rule,
    buffer: u64,
    bytes: Size,
    exact: bool,
    what: &str,
) -> Result<(), Error> {
    let Some(b) = f.buffer(buffer) else {
        return Ok(());
    };
    let have = b.byte_size();
    if !bytes.fits(have, exact) {
        let relation = match (bytes.is_over(), exact) {
            (true, _) => "",
            (false, true) => "exactly ",
            (false, false) => "at least ",
        };
        ctx.violation(
            rule,
            f.byte_size_at(buffer),
            format!("buffer {buffer} ({what}) has {have} bytes; it needs {relation}{bytes}"),
        )?;
    }
    Ok(())
}

/// Per-layout footprints and buffer sizes, and the layout-block rules tables cannot state.
/// Every size is a checked [`Size`]: one too large to compute breaks the rule that asked
/// for it, never passes.
fn layout_rules(f: &Facts<'_, '_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let lf = f.v.layout_fields();
    let dense_count = padded_count(f);
    match lf {
        LayoutVariantView::RowMajor | LayoutVariantView::ColumnMajor => {
            if let (Some(n), Some(e)) = (dense_count, f.elem) {
                let off = f.v.byte_offset();
                // A buffer that holds the elements but not the padded extent breaks the
                // block scheme's own rule (its `padded_extent_rule`: PB-12, NF-9, RES-38);
                // one that does not hold the elements, RM-3.
                let holds_elements = f.count.is_some_and(|c| {
                    f.buffer(0)
                        .is_some_and(|b| e.bytes(c).plus(off).fits(b.byte_size(), false))
                });
                let padded = f.scheme.and_then(Scheme::padded_extent_rule);
                let rule = if let Some(rule) = padded
                    && holds_elements
                {
                    rule
                } else {
                    Rule::Rm3
                };
                need(f, ctx, rule, 0, e.bytes(n).plus(off), false, "data")?;
            }
        }
        LayoutVariantView::Strided(s) => {
            // ST-2…ST-4 (RES-26): the footprint formula, in elements; nothing for an empty tensor.
            if f.count.is_some_and(|n| !n.is_zero())
                && let Some(e) = f.elem
            {
                strided(f, ctx, &s.strides().to_vec(), e)?;
            }
        }
        LayoutVariantView::Tiled(t) => {
            // TL-7 (RES-27): full tiles of the outermost level.
            if let (Some(_), Some(e)) = (f.count, f.elem) {
                let mut tiles = Size::ONE;
                let mut per_tile = Size::ONE;
                for (k, ts) in t.tile_shape().iter().enumerate() {
                    // TL-2 rejects a zero tile extent before this runs.
                    let ts: u64 = ts.to::<u64>().max(1);
                    tiles = tiles.times(Size::from(f.shape[k]).div_ceil(ts));
                    per_tile = per_tile.times(ts);
                }
                // The tiles start at byte_offset, like every dense layout's elements.
                need(
                    f,
                    ctx,
                    Rule::Tl7,
                    0,
                    e.bytes(tiles.times(per_tile)).plus(f.v.byte_offset()),
                    false,
                    "data from byte_offset",
                )?;
                // TL-9 (RES-49): strided orders can place an element outside the full
                // tiles, before buffer 0 or past it, whatever its size.
                if f.count.is_some_and(|n| !n.is_zero()) {
                    match address::tiled_footprint(&f.shape, &t) {
                        Some(fp) => inside_buffer_0(f, ctx, fp, e, (Rule::Tl9, Rule::Tl9))?,
                        None => ctx.violation(
                            Rule::Tl9,
                            f.v.byte_offset_at(),
                            "an element's offset exceeds 2^127 elements: outside every buffer",
                        )?,
                    }
                }
            }
        }
        LayoutVariantView::Morton(m) => {
            // MO-3, MO-4 with RES-28.
            let bits: Vec<u32> = m.morton_bits().iter().map(Integer::to).collect();
            for (k, b) in bits.iter().enumerate() {
                let dim = f.shape[k];
                // dim ≤ 2^b holds for every u64 when b ≥ 64.
                if dim != DYNAMIC && *b < 64 && dim > (1u64 << b) {
                    ctx.violation(
                        Rule::Mo3,
                        m.morton_bits_at() + 4 * k as u64,
                        format!("shape[{k}] = {dim} exceeds 2^{b}"),
                    )?;
                }
            }
            let total: u64 = bits.iter().map(|b| u64::from(*b)).sum();
            let max = bits.iter().copied().max().unwrap_or(0) as u64;
            if total > 62 || max * f.rank > total {
                ctx.violation(Rule::Mo4, m.morton_bits_at(), format!("morton_bits {bits:?}: codes need {} bits but the buffer holds 2^{total} elements (RES-28)", max * f.rank))?;
            } else if f.count.is_some_and(|n| !n.is_zero())
                && let Some(e) = f.elem
            {
                need(
                    f,
                    ctx,
                    Rule::Mo4,
                    0,
                    e.bytes(Size::pow2(total)).plus(f.v.byte_offset()),
                    false,
                    "data from byte_offset",
                )?;
            }
        }
        LayoutVariantView::Coo(c) => {
            if let Some(e) = f.elem {
                need(
                    f,
                    ctx,
                    Rule::Co8,
                    0,
                    e.bytes(c.nnz().into()),
                    true,
                    "values",
                )?;
            }
            need(
                f,
                ctx,
                Rule::Co8,
                1,
                Size::from(c.nnz()).times(f.rank).times(8u64),
                true,
                "indices",
            )?;
        }
        LayoutVariantView::Csr(c) => compressed(f, ctx, c.nnz().to(), 0, Rule::Cr10)?,
        LayoutVariantView::Csc(c) => compressed(f, ctx, c.nnz().to(), 1, Rule::Cc10)?,
        LayoutVariantView::Csf(c) => {
            // CF-5: mode_order is a permutation.
            let mut seen = vec![false; f.shape.len()];
            for (l, m) in c.mode_order().iter().enumerate() {
                let slot = usize::try_from(m).ok().and_then(|m| seen.get_mut(m));
                if let Some(s) = slot
                    && !*s
                {
                    *s = true;
                } else {
                    ctx.violation(
                        Rule::Cf5,
                        c.mode_order_at() + 4 * l as u64,
                        format!("mode_order[{l}] = {m} repeats or is ≥ rank"),
                    )?;
                    break;
                }
            }
            if let Some(e) = f.elem {
                need(
                    f,
                    ctx,
                    Rule::Cf16,
                    0,
                    e.bytes(c.nnz().into()),
                    true,
                    "values",
                )?;
            }
            need(f, ctx, Rule::Cf16, 1, Size::new(16u64), true, "pos_0")?;
            need(
                f,
                ctx,
                Rule::Cf16,
                2 * f.rank,
                Size::from(c.nnz()).times(8u64),
                true,
                "leaf crd",
            )?;
            for i in 1..=2 * f.rank {
                if let Some(b) = f.buffer(i)
                    && b.byte_size() % 8 != 0
                {
                    ctx.violation(
                        Rule::Cf16,
                        b.byte_size_at(),
                        format!("buffer {i} is not a whole number of u64"),
                    )?;
                }
            }
        }
        LayoutVariantView::BlockPaged(p) => {
            let ib = match BlockTableIndexType::classify(p.block_table_index_type().raw()) {
                TagClass::Known(t) => t.index_bytes(),
                _ => 4,
            };
            need(
                f,
                ctx,
                Rule::Bp22,
                2,
                Size::from(p.num_seqs()).plus(1u64).times(ib),
                true,
                "seq_ptr",
            )?;
            if let Some(b) = f.buffer(1)
                && b.byte_size().to::<u64>() % ib != 0
            {
                ctx.violation(
                    Rule::Bp22,
                    b.byte_size_at(),
                    format!("block_table is not a whole number of {ib}-byte entries"),
                )?;
            }
            if let (Some(e), Some(&h), Some(&d)) = (f.elem, f.shape.get(1), f.shape.get(2))
                && h != DYNAMIC
                && d != DYNAMIC
            {
                let n = Size::product([
                    p.num_pages().into(),
                    p.page_size().into(),
                    h.into(),
                    d.into(),
                ]);
                need(f, ctx, Rule::Bp23, 0, e.bytes(n), false, "page_pool")?;
            }
        }
        LayoutVariantView::Composite(c) => {
            // CH-5, CH-6 (CV-3 for unknown values is a table rule), CH-9.
            if let (TagClass::Known(rule), TagClass::Known(op)) = (
                CompositionRule::classify(c.composition_rule().raw()),
                CombineOp::classify(c.combine_op().raw()),
            ) {
                if !op.legal_with().contains(&rule.name()) {
                    ctx.violation(
                        rule.combine_op_rule(),
                        c.combine_op_at(),
                        format!("combine_op {} is not legal with {}", op.name(), rule.name()),
                    )?;
                }
                if rule == CompositionRule::Overlay && c.member_count() == 0 {
                    ctx.violation(
                        Rule::Ch9,
                        c.member_count_at(),
                        "an overlay composite has no members",
                    )?;
                }
            }
        }
        LayoutVariantView::Hilbert(h) => {
            // HI-1, HI-6.
            let p = h.hilbert_order();
            for (k, d) in f.shape.iter().enumerate() {
                if p >= 64 || *d != 1u64 << p {
                    ctx.violation(
                        Rule::Hi1,
                        f.v.shape_at() + 8 * k as u64,
                        format!("shape[{k}] = {d} is not 2^hilbert_order = 2^{p}"),
                    )?;
                    break;
                }
            }
            if let Some(e) = f.elem {
                // 2^(r·p) elements however large r·p is: beyond 2^128 no buffer holds them.
                let bits = h.hilbert_rank().to::<u64>().saturating_mul(p.to());
                let bytes = e.bytes(Size::pow2(bits));
                need(f, ctx, Rule::Hi6, 0, bytes, true, "data")?;
                // The elements start at byte_offset, so they must end inside the buffer too.
                need(
                    f,
                    ctx,
                    Rule::Hi6,
                    0,
                    bytes.plus(f.v.byte_offset()),
                    false,
                    "data from byte_offset",
                )?;
            }
        }
        LayoutVariantView::Private(_, x) => {
            // EX-1: an extension layout id needs an agreement.
            if !ctx
                .config
                .is_extension_layout_agreed(x.extension_layout_id().to())
            {
                ctx.violation(
                    Rule::Ex1,
                    x.extension_layout_id_at(),
                    format!(
                        "extension layout id {:#x} is not agreed with this reader",
                        x.extension_layout_id()
                    ),
                )?;
            }
        }
    }
    Ok(())
}

/// ST-2, ST-3, ST-4 for a non-empty strided tensor (RES-26): the lowest element at or after
/// byte 0 of buffer 0, the highest ending inside it, and `range_elements` held. Positions are
/// checked in `i128`; a footprint too large to compute lies outside every buffer.
fn strided(
    f: &Facts<'_, '_>,
    ctx: &mut Ctx<'_>,
    strides: &[i64],
    e: ElementSize,
) -> Result<(), Error> {
    let at = f.v.byte_offset_at();
    let fp = match address::strided_footprint(&f.shape, strides) {
        Ok(fp) => fp,
        Err(address::FootprintOverflow::Low) => {
            let why = "the lowest element lies more than 2^127 elements before element [0,…,0]";
            return ctx.violation(Rule::St2, at, why);
        }
        Err(address::FootprintOverflow::High) => {
            let why = "the highest element lies more than 2^127 elements after element [0,…,0]";
            return ctx.violation(Rule::St3, at, why);
        }
    };
    inside_buffer_0(f, ctx, fp, e, (Rule::St2, Rule::St3))?;
    need(f, ctx, Rule::St4, 0, e.bytes(fp.range()), false, "data")
}

/// Every element of a footprint (offsets in elements from element `[0,…,0]`, which sits at
/// `byte_offset`) lies inside buffer 0: `byte_offset + lo × w ≥ 0` breaks `rules.0`,
/// `byte_offset + (hi + 1) × w ≤ byte_size` breaks `rules.1`, in bits so whole-byte and
/// sub-byte types share one check (6-bit types are bit-granular too, DAT-4 governing
/// access, not placement).
fn inside_buffer_0(
    f: &Facts<'_, '_>,
    ctx: &mut Ctx<'_>,
    fp: address::Footprint,
    e: ElementSize,
    rules: (Rule, Rule),
) -> Result<(), Error> {
    let at = f.v.byte_offset_at();
    let off = f.v.byte_offset().wide();
    let size = f.buffer(0).map_or(0, |b| b.byte_size().wide());
    let bits = match e {
        ElementSize::Bytes(w) => i128::from(w) * 8,
        ElementSize::Packed { bits } => i128::from(bits),
        ElementSize::Group6 => 6,
    };
    let low = fp.lo.checked_mul(bits).and_then(|x| x.checked_add(off * 8));
    if low.is_none_or(|x| x < 0) {
        ctx.violation(
            rules.0,
            at,
            format!(
                "byte_offset {off} leaves the lowest element (offset {}) before buffer 0",
                fp.lo
            ),
        )?;
    }
    let high = fp
        .hi
        .checked_add(1)
        .and_then(|x| x.checked_mul(bits))
        .and_then(|x| x.checked_add(off * 8));
    if high.is_none_or(|x| x > size * 8) {
        ctx.violation(
            rules.1,
            at,
            format!(
                "the highest element (offset {}) ends past buffer 0's {size} bytes",
                fp.hi
            ),
        )?;
    }
    Ok(())
}

/// CSR (`dim` 0) and CSC (`dim` 1) buffer sizes (CR-10, CC-10).
fn compressed(
    f: &Facts<'_, '_>,
    ctx: &mut Ctx<'_>,
    nnz: u64,
    dim: usize,
    rule: Rule,
) -> Result<(), Error> {
    if let Some(e) = f.elem {
        need(f, ctx, rule, 0, e.bytes(nnz.into()), true, "values")?;
    }
    need(
        f,
        ctx,
        rule,
        1,
        Size::from(nnz).times(8u64),
        true,
        "indices",
    )?;
    if let Some(&n) = f.shape.get(dim)
        && n != DYNAMIC
    {
        let pointers = Size::from(n).plus(1u64).times(8u64);
        need(f, ctx, rule, 2, pointers, true, "pointers")?;
    }
    Ok(())
}

/// The element count a dense buffer must hold: the shape's, with the quantized axis
/// rounded up to whole blocks for per-block affine and NF4 (RES-38, PB-12, NF-9).
fn padded_count(f: &Facts<'_, '_>) -> Option<Size> {
    let (axis, block) = match f.v.quantization().map(|q| q.payload()) {
        Some(SchemeVariantView::PerBlockAffine(p)) => {
            (p.axis().to::<u32>(), p.block_size().to::<u32>())
        }
        Some(SchemeVariantView::Nf4(p)) => (p.axis().to::<u32>(), p.block_size().to::<u32>()),
        _ => return f.count,
    };
    let mut n = Size::ONE;
    for (k, d) in f.shape.iter().enumerate() {
        if *d == DYNAMIC {
            return None;
        }
        let extent = if k as u64 == u64::from(axis) && block > 0 {
            Size::from(*d).div_ceil(u64::from(block)).times(block)
        } else {
            Size::from(*d)
        };
        n = n.times(extent);
    }
    Some(n)
}

/// Storage types, zero points, axis and block rules, parameter buffer sizes (PT, PC, PB,
/// NF, MX rules), BP-13, and P3 shared buffers (RES-37).
fn quantization(f: &Facts<'_, '_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let Some(q) = f.v.quantization() else {
        return Ok(());
    };
    let payload = q.payload();
    let Some(scheme) = f.scheme else {
        return Ok(());
    };
    // Storage type.
    let storage_ok = match ElementType::classify(f.type_tag) {
        TagClass::Known(t) => scheme.storage().contains(&t),
        _ => false,
    };
    if !storage_ok {
        let rule = scheme.storage_rule();
        ctx.violation(
            rule,
            f.v.fixed_header().type_tag_at(),
            format!(
                "{} cannot quantize type tag {:#04x}",
                scheme.name(),
                f.type_tag
            ),
        )?;
        return Ok(());
    }
    let storage = match ElementType::classify(f.type_tag) {
        TagClass::Known(t) => t,
        _ => return Ok(()),
    };
    match payload {
        SchemeVariantView::PerTensorAffine(p)
            if !zero_point_in_range(storage, i64::from(p.zero_point())) =>
        {
            ctx.violation(
                Rule::Pt2,
                p.zero_point_at(),
                format!(
                    "zero_point {} is outside {}'s range",
                    p.zero_point(),
                    storage.name()
                ),
            )?;
        }
        SchemeVariantView::PerChannelAffine(p) => {
            let Some(c) = axis_extent(f, ctx, p.axis().to(), p.axis_at(), Rule::Pc6)? else {
                return Ok(());
            };
            param_sizes(f, ctx, Rule::Pc7, Size::from(c), 4, 4)?;
        }
        SchemeVariantView::PerBlockAffine(p) => {
            let Some(s) = axis_extent(f, ctx, p.axis().to(), p.axis_at(), Rule::Pb5)? else {
                return Ok(());
            };
            block_within(
                ctx,
                s,
                p.block_size().to(),
                p.axis().to(),
                p.block_size_at(),
                Rule::Pb3,
            )?;
            let scale = match ElementType::classify(p.scale_type_tag().raw()) {
                TagClass::Known(ElementType::Float16 | ElementType::Bfloat16) => 2,
                _ => 4,
            };
            let blocks = num_blocks(f, p.axis().to(), p.block_size().to(), false);
            if let Some(b) = blocks {
                param_sizes(f, ctx, Rule::Pb6, b, scale, 4)?;
            }
            if let LayoutKind::Known(Layout::BlockPaged) = f.layout
                && let LayoutVariantView::BlockPaged(bp) = f.v.layout_fields()
                && (p.axis().wide() != 0 || p.block_size().wide() != bp.page_size().wide())
            {
                ctx.violation(
                    Rule::Bp13,
                    p.axis_at(),
                    "paged per-block quantization needs axis 0 and block_size = page_size",
                )?;
            }
        }
        SchemeVariantView::Nf4(p) => {
            let Some(s) = axis_extent(f, ctx, p.axis().to(), p.axis_at(), Rule::Nf4)? else {
                return Ok(());
            };
            block_within(
                ctx,
                s,
                p.block_size().to(),
                p.axis().to(),
                p.block_size_at(),
                Rule::Nf3,
            )?;
            if let Some(b) = num_blocks(f, p.axis().to(), p.block_size().to(), false) {
                param_sizes(f, ctx, Rule::Nf5, b, 4, 4)?;
            }
        }
        SchemeVariantView::Mxfp(p) => {
            let Some(s) = axis_extent(f, ctx, p.axis().to(), p.axis_at(), Rule::Mx4)? else {
                return Ok(());
            };
            if s == 0 || p.block_size().wide() <= 0 || s % p.block_size().to::<u64>() != 0 {
                ctx.violation(
                    Rule::Mx3,
                    p.block_size_at(),
                    format!(
                        "shape[{}] = {s} is not a positive multiple of block_size {}",
                        p.axis(),
                        p.block_size()
                    ),
                )?;
                return Ok(());
            }
            if let Some(b) = num_blocks(f, p.axis().to(), p.block_size().to(), true) {
                param_sizes(f, ctx, Rule::Mx5, b, 1, 1)?;
            }
        }
        // Private, opaque, and schemes without rules of their own here.
        #[allow(unreachable_patterns)]
        _ => {}
    }
    Ok(())
}

/// The extent of a scheme's axis: `None` when the axis is out of range (its own rule reports
/// that) or the dimension is dynamic (a violation of `dynamic`); nothing is computed from it then.
fn axis_extent(
    f: &Facts<'_, '_>,
    ctx: &mut Ctx<'_>,
    axis: u32,
    axis_at: u64,
    dynamic: Rule,
) -> Result<Option<u64>, Error> {
    match f.shape.get(axis as usize).copied() {
        Some(DYNAMIC) => {
            ctx.violation(dynamic, axis_at, format!("shape[{axis}] is dynamic"))?;
            Ok(None)
        }
        extent => Ok(extent),
    }
}

/// A block no longer than a non-empty axis (PB-3, NF-3).
fn block_within(
    ctx: &mut Ctx<'_>,
    extent: u64,
    block_size: u32,
    axis: u32,
    at: u64,
    rule: Rule,
) -> Result<(), Error> {
    if extent > 0 && u64::from(block_size) > extent {
        ctx.violation(
            rule,
            at,
            format!("block_size {block_size} exceeds shape[{axis}] = {extent}"),
        )?;
    }
    Ok(())
}

/// Whether a zero point lies in the storage type's range (quantization.md §3.3, RES-39).
/// Computed in `i128`, so every integer type up to 64 bits has its range without overflow.
pub fn zero_point_in_range(t: ElementType, z: i64) -> bool {
    let bits = t.bits().clamp(1, 64);
    let z = i128::from(z);
    match t.kind() {
        ElementKind::Signed => {
            let half = 1i128 << (bits - 1);
            -half <= z && z < half
        }
        ElementKind::Unsigned if bits >= 32 => (0..=i128::from(i32::MAX)).contains(&z),
        ElementKind::Unsigned => (0..1i128 << bits).contains(&z),
        _ => false,
    }
}

/// Blocks of a block scheme: `ceil(S/K)` (or `S/K` for MXFP) times the other dimensions
/// (layouts with per-page scales count `num_pages × page_size`, BP-14). `None` when a
/// dimension is dynamic or the block size is zero (their own rules report those).
fn num_blocks(f: &Facts<'_, '_>, axis: u32, block: u32, exact: bool) -> Option<Size> {
    if let LayoutVariantView::BlockPaged(bp) = f.v.layout_fields() {
        return Some(Size::from(bp.num_pages()).times(bp.page_size()));
    }
    if block == 0 {
        return None;
    }
    let mut n = Size::ONE;
    for (k, d) in f.shape.iter().enumerate() {
        if *d == DYNAMIC {
            return None;
        }
        let d = Size::from(*d);
        n = n.times(if k as u64 == u64::from(axis) {
            if exact {
                d.div_floor(u64::from(block))
            } else {
                d.div_ceil(u64::from(block))
            }
        } else {
            d
        });
    }
    Some(n)
}

/// Exact parameter buffer sizes: `count` scales of `scale_bytes`, `count` zero points of
/// `zp_bytes`; a shared entry holds both end to end (P3, RES-37). A count too large to
/// compute breaks `rule` like any other wrong size.
fn param_sizes(
    f: &Facts<'_, '_>,
    ctx: &mut Ctx<'_>,
    rule: Rule,
    count: Size,
    scale_bytes: u64,
    zp_bytes: u64,
) -> Result<(), Error> {
    let scale = f
        .params
        .iter()
        .find(|p| p.parameter == SchemeParameter::Scale);
    let zp = f
        .params
        .iter()
        .find(|p| p.parameter == SchemeParameter::ZeroPoint);
    match (scale, zp) {
        (Some(s), Some(z)) if s.index == z.index => need(
            f,
            ctx,
            rule,
            s.index,
            count.times(scale_bytes + zp_bytes),
            true,
            "shared scales and zero points",
        )?,
        (s, z) => {
            if let Some(s) = s {
                need(
                    f,
                    ctx,
                    rule,
                    s.index,
                    count.times(scale_bytes),
                    true,
                    "scales",
                )?;
            }
            if let Some(z) = z {
                need(
                    f,
                    ctx,
                    rule,
                    z.index,
                    count.times(zp_bytes),
                    true,
                    "zero points",
                )?;
            }
        }
    }
    Ok(())
}

/// SHD-2, the layouts that forbid a shard section (their `shard_rule`: CF-13, BP-11),
/// EXT-3/4/10, and the statistics nnz rules (the layout's `statistics_nnz_rule`: CO-9, CR-9,
/// CC-9, CF-15).
fn sections(f: &Facts<'_, '_>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    if let Some(sh) = f.v.shard() {
        if let LayoutKind::Known(l) = f.layout
            && let Some(rule) = l.shard_rule()
        {
            // The layout as its title names it, before any parenthesis ("CSF (compressed
            // sparse fiber)" → "CSF").
            let named = l.title().split(" (").next().unwrap_or(l.name());
            ctx.violation(
                rule,
                sh.offset(),
                format!("a {named} descriptor carries a shard section"),
            )?;
        }
        for (k, (parent, off)) in sh
            .parent_shape()
            .iter()
            .zip(sh.shard_offset().iter())
            .enumerate()
        {
            let (parent, off): (u64, u64) = (parent.to(), off.to());
            let dim = f.shape[k];
            if parent == DYNAMIC || off == DYNAMIC {
                ctx.violation(
                    Rule::Shd2,
                    sh.offset() + 8 * k as u64,
                    "a shard field holds the dynamic sentinel (SHD-3)",
                )?;
            } else if dim != DYNAMIC && u128::from(off) + u128::from(dim) > u128::from(parent) {
                ctx.violation(Rule::Shd2, sh.shard_offset_at() + 8 * k as u64, format!("shard_offset[{k}] {off} + shape[{k}] {dim} exceeds parent_shape[{k}] {parent}"))?;
            }
        }
    }
    if let Some(e) = f.v.extension_type() {
        let (w, p): (u32, u32) = (e.bit_width().to(), e.packing_factor().to());
        if w >= 8 {
            if p != 1 {
                ctx.violation(
                    Rule::Ext3,
                    e.packing_factor_at(),
                    format!("bit_width {w} needs packing_factor 1, not {p}"),
                )?;
            }
            if w % 8 != 0 {
                ctx.violation(
                    Rule::Ext10,
                    e.bit_width_at(),
                    format!("bit_width {w} is not a whole number of bytes (RES-24)"),
                )?;
            }
        } else if !matches!(w, 1 | 2 | 4) || p != 8 / w {
            ctx.violation(Rule::Ext4, e.bit_width_at(), format!("bit_width {w} with packing_factor {p}: sub-byte widths are 1, 2 or 4 with packing 8/bit_width"))?;
        }
    }
    if let Some(st) = f.v.statistics() {
        if st.computed_mask().has(ComputedMask::NNZ_VALID)
            && let LayoutKind::Known(l) = f.layout
            && let Some(rule) = l.statistics_nnz_rule()
        {
            // The nnz of the layouts that count their stored values.
            let layout_nnz = match f.v.layout_fields() {
                LayoutVariantView::Coo(c) => Some(c.nnz()),
                LayoutVariantView::Csr(c) => Some(c.nnz()),
                LayoutVariantView::Csc(c) => Some(c.nnz()),
                LayoutVariantView::Csf(c) => Some(c.nnz()),
                _ => None,
            };
            if let Some(n) = layout_nnz
                && st.nnz() != n
            {
                ctx.violation(
                    rule,
                    st.nnz_at(),
                    format!(
                        "statistics nnz {} differs from the layout's nnz {n}",
                        st.nnz()
                    ),
                )?;
            }
        }
        if st.computed_mask().has(ComputedMask::NM_SPARSITY_VALID) && st.nm_n() > st.nm_m() {
            ctx.warn(
                Rule::Sta6,
                st.nm_n_at(),
                format!("nm_n {} exceeds nm_m {}", st.nm_n(), st.nm_m()),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_point_ranges_hold_for_every_integer_type_without_overflow() {
        for t in ElementType::ALL {
            let bits = t.bits();
            match t.kind() {
                ElementKind::Signed => {
                    let half = 1i128 << (bits - 1);
                    let (lo, hi) = (-half, half - 1);
                    for (z, ok) in [(lo, true), (hi, true), (lo - 1, false), (hi + 1, false)] {
                        if let Ok(z) = i64::try_from(z) {
                            assert_eq!(zero_point_in_range(*t, z), ok, "{} {z}", t.name());
                        }
                    }
                }
                ElementKind::Unsigned => {
                    assert!(zero_point_in_range(*t, 0));
                    assert!(!zero_point_in_range(*t, -1));
                    let hi = if bits >= 32 {
                        i64::from(i32::MAX)
                    } else {
                        (1i64 << bits) - 1
                    };
                    assert!(zero_point_in_range(*t, hi), "{}", t.name());
                    assert!(!zero_point_in_range(*t, hi + 1), "{}", t.name());
                }
                _ => assert!(!zero_point_in_range(*t, 0)),
            }
        }
    }
}
