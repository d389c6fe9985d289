//! Reading a file container (`HRRYFILE`) over a byte slice or a memory map: header, trailer,
//! CRC-32C, index, KV section, every descriptor and its data slices, the placement
//! arithmetic of the tensor region, and composite membership. The random-access protocol of
//! container.md §11.1, with every rejection rule of §12 and the resolutions RES-3, RES-4,
//! RES-5, RES-13, RES-14.

use std::path::Path;

use crate::consts;
use crate::ctx::{Ctx, ReaderConfig, Warning};
use crate::descriptor::{self, Checked};
use crate::error::Error;
use crate::generated::flags::{DescriptorFlags, FileFlags};
use crate::generated::rules::Rule;
use crate::generated::tags::{CompositionRule, ElementType, Layout, MemberRole};
use crate::structures::{
    FileHeaderView, IndexEntryView, IndexSectionView, KvSectionView, LayoutVariantView, TrailerView,
};
use crate::wire::{TagClass, TagSpace};

/// The trailer's size: the last bytes of every file.
pub const TRAILER_SIZE: u64 = TrailerView::SIZE as u64;
/// The file header's size.
pub const HEADER_SIZE: u64 = FileHeaderView::SIZE as u64;

/// One tensor of a file.
#[derive(Debug)]
pub struct Tensor<'a> {
    pub name: &'a str,
    pub entry: IndexEntryView<'a>,
    pub descriptor: Checked<'a>,
    /// The tensor's data region (`data_offset`, `data_length`): every buffer and the padding
    /// between them.
    pub data: &'a [u8],
    /// Each buffer: its absolute offset and its bytes.
    pub buffers: Vec<(u64, &'a [u8])>,
}

/// A composite found in the tensor region: the head's tensor index and its members'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composite {
    pub head: usize,
    pub members: Vec<usize>,
    /// False for a torn composite accepted in permissive mode (F12): never present it as complete.
    pub complete: bool,
}

/// A checked file.
#[derive(Debug)]
pub struct FileView<'a> {
    pub bytes: &'a [u8],
    pub header: FileHeaderView<'a>,
    pub trailer: TrailerView<'a>,
    pub index: IndexSectionView<'a>,
    pub kv: Option<KvSectionView<'a>>,
    /// Tensors in index order.
    pub tensors: Vec<Tensor<'a>>,
    /// Composites, by head, in write order.
    pub composites: Vec<Composite>,
    pub warnings: Vec<Warning>,
}

impl<'a> FileView<'a> {
    /// The tensor named `name` (binary search when the index is sorted).
    pub fn tensor(&self, name: &str) -> Option<&Tensor<'a>> {
        if self.header.file_flags().has(FileFlags::SORTED_INDEX) {
            self.tensors
                .binary_search_by(|t| t.name.as_bytes().cmp(name.as_bytes()))
                .ok()
                .map(|i| &self.tensors[i])
        } else {
            self.tensors.iter().find(|t| t.name == name)
        }
    }

    /// Tensors in write order (ascending descriptor offset).
    pub fn write_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.tensors.len()).collect();
        order.sort_by_key(|i| self.tensors[*i].entry.descriptor_offset());
        order
    }
}

fn align_up(x: u64, a: u64) -> Option<u64> {
    if a == 0 {
        return Some(x);
    }
    x.checked_add(a - 1).map(|y| y / a * a)
}

/// A memory-mapped file, read through [`read`].
#[derive(Debug)]
pub struct MappedFile {
    map: memmap2::Mmap,
}

impl MappedFile {
    /// Map `path` read-only.
    pub fn open(path: &Path) -> std::io::Result<MappedFile> {
        let file = std::fs::File::open(path)?;
        // SAFETY: the map is read-only and private to this process. The caller must not
        // truncate or rewrite the file while the map lives (the usual memory-map contract);
        // every read through it is bounds-checked against the length taken at map time.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(MappedFile { map })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Read and check the mapped file.
    pub fn read(&self, config: &ReaderConfig) -> Result<FileView<'_>, Error> {
        read(&self.map, config)
    }
}

/// Read and check a whole file held in memory.
pub fn read<'a>(bytes: &'a [u8], config: &ReaderConfig) -> Result<FileView<'a>, Error> {
    let len = bytes.len() as u64;
    let mut ctx = Ctx::new(config);
    // Header (F1, F2, F3, F16, F17, F18).
    let header = FileHeaderView::parse(
        &mut crate::wire::Reader::new(bytes, 0, Rule::Len3),
        &mut ctx,
    )?;
    if len < HEADER_SIZE + TRAILER_SIZE {
        return Err(Error::new(
            Rule::Len3,
            len,
            format!(
                "a file needs at least {} bytes (header and trailer); this one has {len}",
                HEADER_SIZE + TRAILER_SIZE
            ),
        ));
    }
    let a = u64::from(header.data_buffer_alignment());
    let first = header.first_descriptor_offset();
    // Trailer: located only by file_size - 40; its magic is checked before anything else (F4).
    let trailer_at = len - TRAILER_SIZE;
    let trailer = TrailerView::parse(
        &mut crate::wire::Reader::new(&bytes[trailer_at as usize..], trailer_at, Rule::Len3),
        &mut ctx,
    )?;
    let flags = header.file_flags();
    // Index bounds (F7, F33, F36) and CRC (F5, F6, RES-5).
    let (io, il) = (trailer.index_offset(), trailer.index_length());
    if io.checked_add(il).is_none_or(|end| end > trailer_at) {
        return Err(Error::new(
            Rule::F7,
            trailer.index_offset_at(),
            format!("the index ({il} bytes at {io}) runs past the trailer at {trailer_at}"),
        ));
    }
    if io % consts::INDEX_ALIGNMENT != 0 || io < first.min(trailer_at) {
        return Err(Error::new(
            Rule::F33,
            trailer.index_offset_at(),
            format!(
                "index_offset {io} is not a multiple of {} at or after first_descriptor_offset {first}",
                consts::INDEX_ALIGNMENT
            ),
        ));
    }
    let index_bytes = &bytes[io as usize..(io + il) as usize];
    if flags.has(FileFlags::HAS_INDEX_CRC32C) {
        let crc = crc32c::crc32c(index_bytes);
        if crc != trailer.index_crc32c() {
            return Err(Error::new(
                Rule::F5,
                trailer.index_crc32c_at(),
                format!(
                    "the index's CRC-32C is {crc:#010x}; the trailer stores {:#010x}",
                    trailer.index_crc32c()
                ),
            ));
        }
    } else if trailer.index_crc32c() != 0 {
        return Err(Error::new(
            Rule::F6,
            trailer.index_crc32c_at(),
            format!(
                "HAS_INDEX_CRC32C is clear but index_crc32c is {:#010x}",
                trailer.index_crc32c()
            ),
        ));
    }
    let index = IndexSectionView::parse(
        &mut crate::wire::Reader::new(index_bytes, io, Rule::F24),
        &mut ctx,
    )?;
    // KV section: the trailer is authoritative (RES-4, F34, F35).
    let (ko, kl) = (trailer.kv_offset(), u64::from(trailer.kv_length()));
    let kv = if ko == 0 && kl == 0 {
        if flags.has(FileFlags::HAS_KV_METADATA) {
            return Err(Error::new(
                Rule::F34,
                header.file_flags_at(),
                "HAS_KV_METADATA is set but the trailer records no KV section",
            ));
        }
        None
    } else {
        if ko == 0 || kl == 0 {
            return Err(Error::new(
                Rule::F35,
                trailer.kv_offset_at(),
                format!("kv_offset {ko} and kv_length {kl} must both be zero or both non-zero"),
            ));
        }
        if ko % consts::KV_ALIGNMENT != 0 || ko < first {
            return Err(Error::new(
                Rule::F33,
                trailer.kv_offset_at(),
                format!(
                    "kv_offset {ko} is not a multiple of {} at or after first_descriptor_offset {first}",
                    consts::KV_ALIGNMENT
                ),
            ));
        }
        if ko.checked_add(kl).is_none_or(|end| end > trailer_at) {
            return Err(Error::new(
                Rule::F36,
                trailer.kv_offset_at(),
                format!(
                    "the KV section ({kl} bytes at {ko}) runs past the trailer at {trailer_at}"
                ),
            ));
        }
        if ko + kl > io {
            return Err(Error::new(
                Rule::F35,
                trailer.kv_offset_at(),
                format!("the KV section ({kl} bytes at {ko}) runs into the index at {io}"),
            ));
        }
        if !flags.has(FileFlags::HAS_KV_METADATA) {
            ctx.warn(Rule::F34, header.file_flags_at(), "a KV section is present but HAS_KV_METADATA is clear; the trailer is authoritative (RES-4)");
        }
        let kv = KvSectionView::parse(
            &mut crate::wire::Reader::new(&bytes[ko as usize..(ko + kl) as usize], ko, Rule::F19),
            &mut ctx,
        )?;
        let mut keys: Vec<(&str, u64)> =
            kv.entries().iter().map(|e| (e.key(), e.key_at())).collect();
        keys.sort();
        for w in keys.windows(2) {
            if w[0].0 == w[1].0 {
                return Err(Error::new(
                    Rule::F8,
                    w[1].1.max(w[0].1),
                    format!("KV key `{}` appears twice", w[0].0),
                ));
            }
        }
        Some(kv)
    };
    // The tensor region ends where the first of the KV and index sections starts (RES-14).
    let region_end = if kv.is_some() { ko.min(io) } else { io };
    if index.entries().is_empty() && region_end != first {
        // F33, RES-42: without tensors the first section starts at first_descriptor_offset.
        let at = if kv.is_some() && ko < io {
            trailer.kv_offset_at()
        } else {
            trailer.index_offset_at()
        };
        return Err(Error::new(
            Rule::F33,
            at,
            format!(
                "a file without tensors has its first section at {region_end}, not at first_descriptor_offset {first}"
            ),
        ));
    }
    // Names: unique (F25), sorted when flagged (F26).
    let entries = index.entries();
    let mut names: Vec<(&str, u64)> = entries.iter().map(|e| (e.name(), e.name_at())).collect();
    if flags.has(FileFlags::SORTED_INDEX) {
        for w in names.windows(2) {
            if w[0].0.as_bytes() >= w[1].0.as_bytes() {
                return Err(Error::new(
                    Rule::F26,
                    w[1].1,
                    format!(
                        "SORTED_INDEX is set but `{}` does not sort after `{}`",
                        w[1].0, w[0].0
                    ),
                ));
            }
        }
    }
    names.sort();
    for w in names.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(Error::new(
                Rule::F25,
                w[1].1.max(w[0].1),
                format!("the name `{}` appears twice in the index", w[0].0),
            ));
        }
    }
    // Every tensor: placement (F27, F30, F31, RES-13), descriptor (F11, F14), data checks.
    let mut tensors = Vec::with_capacity(entries.len());
    let mut covered: Vec<(u64, u64, u64)> = vec![
        (0, HEADER_SIZE, 0),
        (io, io + il, io),
        (trailer_at, len, trailer_at),
    ];
    if kv.is_some() {
        covered.push((ko, ko + kl, ko));
    }
    for e in entries {
        let d = e.descriptor_offset();
        let dl = u64::from(e.descriptor_length());
        if d < first || d.checked_add(dl).is_none_or(|end| end > region_end) {
            return Err(Error::new(
                Rule::F27,
                e.descriptor_offset_at(),
                format!(
                    "descriptor of `{}` ({dl} bytes at {d}) lies outside the tensor region {first}..{region_end}",
                    e.name()
                ),
            ));
        }
        if d % consts::DESCRIPTOR_ALIGNMENT != 0 {
            return Err(Error::new(
                Rule::F30,
                e.descriptor_offset_at(),
                format!(
                    "descriptor of `{}` starts at {d}, not a multiple of {}",
                    e.name(),
                    consts::DESCRIPTOR_ALIGNMENT
                ),
            ));
        }
        let (mut checked, read) =
            descriptor::read_prefix(&bytes[d as usize..region_end as usize], d, config)?;
        if read as u64 != dl {
            return Err(Error::new(
                Rule::F11,
                e.descriptor_length_at(),
                format!(
                    "the index says {dl} bytes but the descriptor of `{}` is {read}",
                    e.name()
                ),
            ));
        }
        covered.push((d, d + dl, d));
        // Data placement.
        let sizes: Vec<u64> = checked
            .view
            .buffer_table()
            .buffers()
            .iter()
            .map(|b| b.byte_size())
            .collect();
        let mut buffers = Vec::with_capacity(sizes.len());
        let (data_offset, data_length) = (e.data_offset(), e.data_length());
        if sizes.is_empty() {
            // RES-13: a composite head's data region is empty and starts right after it.
            if data_offset != d + dl || data_length != 0 {
                return Err(Error::new(
                    Rule::F31,
                    e.data_offset_at(),
                    format!(
                        "`{}` has no buffers: data_offset must be {} and data_length 0, not {data_offset} and {data_length}",
                        e.name(),
                        d + dl
                    ),
                ));
            }
        } else {
            let mut at = align_up(d + dl, a).ok_or_else(|| {
                Error::new(Rule::F31, e.data_offset_at(), "data placement overflows")
            })?;
            if data_offset != at {
                return Err(Error::new(
                    Rule::F31,
                    e.data_offset_at(),
                    format!(
                        "data of `{}` must start at {at} (the next multiple of {a} after its descriptor), not {data_offset}",
                        e.name()
                    ),
                ));
            }
            for (k, z) in sizes.iter().enumerate() {
                if k > 0 {
                    at = align_up(at, a).ok_or_else(|| {
                        Error::new(Rule::F31, e.data_offset_at(), "data placement overflows")
                    })?;
                }
                let end = at.checked_add(*z).filter(|end| *end <= region_end).ok_or_else(|| Error::new(Rule::F27, e.data_offset_at(), format!("buffer {k} of `{}` ({z} bytes at {at}) runs past the tensor region's end {region_end}", e.name())))?;
                buffers.push((at, &bytes[at as usize..end as usize]));
                covered.push((at, end, at));
                at = end;
            }
            if data_length != at - data_offset {
                return Err(Error::new(
                    Rule::F31,
                    e.data_length_at(),
                    format!(
                        "data_length of `{}` must be {} (its buffers and the padding between them), not {data_length}",
                        e.name(),
                        at - data_offset
                    ),
                ));
            }
            for b in checked.view.buffer_table().buffers().iter() {
                if u64::from(b.alignment()) > a {
                    checked.warnings.push(Warning {
                        rule: Rule::F37,
                        offset: b.alignment_at(),
                        detail: format!(
                            "buffer alignment {} exceeds the file's data_buffer_alignment {a}",
                            b.alignment()
                        ),
                    });
                }
            }
        }
        let data = &bytes[data_offset as usize..(data_offset + data_length) as usize];
        let slices: Vec<&[u8]> = buffers.iter().map(|(_, s)| *s).collect();
        let offsets: Vec<u64> = buffers.iter().map(|(o, _)| *o).collect();
        descriptor::check_data(&mut checked, &slices, &offsets, config)?;
        tensors.push(Tensor {
            name: e.name(),
            entry: *e,
            descriptor: checked,
            data,
            buffers,
        });
    }
    // F30: the first descriptor starts at first_descriptor_offset.
    if let Some(e) = entries.iter().min_by_key(|e| e.descriptor_offset())
        && e.descriptor_offset() != first
    {
        return Err(Error::new(
            Rule::F30,
            e.descriptor_offset_at(),
            format!(
                "the first descriptor (`{}`) starts at {}, not at first_descriptor_offset {first}",
                e.name(),
                e.descriptor_offset()
            ),
        ));
    }
    // Overlaps and padding (F30, F32): every byte not in a part is zero padding.
    covered.sort();
    let mut end = 0u64;
    for (s, e, _) in &covered {
        if *s < end {
            return Err(Error::new(
                Rule::F30,
                *s,
                format!("parts of the file overlap at byte {s}"),
            ));
        }
        if let Some(i) = crate::wire::first_nonzero(&bytes[end as usize..*s as usize]) {
            return Err(Error::new(
                Rule::F32,
                end + i as u64,
                format!(
                    "padding byte {} is {:#04x}, not zero",
                    end + i as u64,
                    bytes[end as usize + i]
                ),
            ));
        }
        end = *e;
    }
    let composites = composites(&tensors, &mut ctx)?;
    let mut warnings = ctx.take_warnings();
    for t in &tensors {
        warnings.extend(t.descriptor.warnings.iter().cloned());
    }
    Ok(FileView {
        bytes,
        header,
        trailer,
        index,
        kv,
        tensors,
        composites,
        warnings,
    })
}

/// Composite membership by ascending descriptor offset (pre-order nesting), with the
/// per-member checks CV-1…CV-5, the depth limit CV-7, torn composites F12, and the
/// partition close-time check CV-6/F13.
fn composites(tensors: &[Tensor<'_>], ctx: &mut Ctx<'_>) -> Result<Vec<Composite>, Error> {
    let mut order: Vec<usize> = (0..tensors.len()).collect();
    order.sort_by_key(|i| tensors[*i].entry.descriptor_offset());
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < order.len() {
        pos = bind(tensors, &order, pos, 1, ctx, &mut out)?;
    }
    Ok(out)
}

/// Bind the composite whose head (or plain tensor) sits at `order[pos]`; returns the position
/// after it and its members.
fn bind(
    tensors: &[Tensor<'_>],
    order: &[usize],
    pos: usize,
    depth: u32,
    ctx: &mut Ctx<'_>,
    out: &mut Vec<Composite>,
) -> Result<usize, Error> {
    let head_i = order[pos];
    let head = &tensors[head_i].descriptor.view;
    let LayoutVariantView::Composite(c) = head.layout_fields() else {
        return Ok(pos + 1);
    };
    if depth > 8 {
        return Err(Error::new(
            Rule::Cv7,
            head.offset(),
            format!(
                "composite `{}` nests {depth} levels deep; the limit is 8 (RES-34)",
                tensors[head_i].name
            ),
        ));
    }
    let rule = match CompositionRule::classify(c.composition_rule().raw()) {
        TagClass::Known(r) => Some(r),
        _ => None,
    };
    let n = c.member_count() as usize;
    let slot = out.len();
    out.push(Composite {
        head: head_i,
        members: Vec::new(),
        complete: true,
    });
    let mut next = pos + 1;
    let mut members = Vec::new();
    for k in 0..n {
        if next >= order.len() {
            ctx.violation(
                Rule::F12,
                head.offset(),
                format!(
                    "composite `{}` declares {n} members but only {k} follow it",
                    tensors[head_i].name
                ),
            )?;
            out[slot].complete = false;
            break;
        }
        let m = order[next];
        member(tensors, head_i, m, k, rule, ctx)?;
        members.push(m);
        next = bind(tensors, order, next, depth + 1, ctx, out)?;
    }
    out[slot].members = members.clone();
    if rule == Some(CompositionRule::Partition) && out[slot].complete {
        partition_cover(tensors, head_i, &members, ctx)?;
    }
    Ok(next)
}

/// CV-1, CV-2, CV-4, CV-5 (and CH-12 for a nested head) for member `k` of a composite.
fn member(
    tensors: &[Tensor<'_>],
    head_i: usize,
    m: usize,
    k: usize,
    rule: Option<CompositionRule>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let head = &tensors[head_i].descriptor.view;
    let v = &tensors[m].descriptor.view;
    let name = tensors[m].name;
    let has_member_section = v
        .fixed_header()
        .flags()
        .has(DescriptorFlags::HAS_COMPOSITE_MEMBER);
    let Some(rule) = rule else { return Ok(()) };
    match rule {
        CompositionRule::Partition | CompositionRule::Overlay => {
            let head_shape: Vec<u64> = head.shape().iter().collect();
            match v.shard() {
                None => {
                    let r = if matches!(v.layout_fields(), LayoutVariantView::Composite(_)) {
                        Rule::Ch12
                    } else {
                        Rule::Cv1
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
                    let parent: Vec<u64> = sh.parent_shape().iter().collect();
                    if parent != head_shape {
                        ctx.violation(Rule::Cv1, sh.parent_shape_at(), format!("member `{name}`'s parent_shape {parent:?} differs from the head's shape {head_shape:?}"))?;
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
            if decoded != head.fixed_header().type_tag().raw() {
                ctx.violation(Rule::Cv2, v.fixed_header().type_tag_at(), format!("member `{name}` decodes to type {decoded:#04x}, the head's type is {:#04x}", head.fixed_header().type_tag().raw()))?;
            }
            if rule == CompositionRule::Overlay {
                let role = v.composite_member().map(|cm| cm.member_role().raw());
                let want = if k == 0 {
                    MemberRole::Base.value()
                } else {
                    MemberRole::Correction.value()
                };
                if role != Some(want) {
                    ctx.violation(Rule::Cv4, v.offset(), format!("overlay member {k} (`{name}`) must carry a composite member section with role {want:#04x}"))?;
                }
                if k == 0 {
                    let spans = v
                        .shard()
                        .is_some_and(|sh| sh.shard_offset().iter().all(|o| o == 0))
                        && v.shape().iter().collect::<Vec<_>>() == head_shape;
                    if !spans {
                        ctx.violation(Rule::Cv4, v.offset(), format!("the overlay's base member `{name}` must span the head (shard_offset 0, the head's shape)"))?;
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
    let _ = Layout::Composite;
    Ok(())
}

/// Pairwise checks are bounded so no input can make the reader quadratic without limit.
const MAX_PAIRWISE: usize = 4096;

/// CV-6 / F13: a partition's member boxes cover the head exactly once.
fn partition_cover(
    tensors: &[Tensor<'_>],
    head_i: usize,
    members: &[usize],
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let head = &tensors[head_i].descriptor.view;
    let shape: Vec<u64> = head.shape().iter().collect();
    let boxes: Vec<(Vec<u64>, Vec<u64>)> = members
        .iter()
        .filter_map(|m| {
            let v = &tensors[*m].descriptor.view;
            v.shard().map(|sh| {
                (
                    sh.shard_offset().iter().collect(),
                    v.shape().iter().collect(),
                )
            })
        })
        .collect();
    let total = shape
        .iter()
        .fold(1u128, |a, d| a.saturating_mul(u128::from(*d)));
    let sum = boxes.iter().fold(0u128, |a, (_, s)| {
        a.saturating_add(
            s.iter()
                .fold(1u128, |p, d| p.saturating_mul(u128::from(*d))),
        )
    });
    if sum != total {
        return ctx.violation(
            Rule::Cv6,
            head.offset(),
            format!("the partition's members hold {sum} elements; the head has {total}"),
        );
    }
    if boxes.len() > MAX_PAIRWISE {
        ctx.warn(
            Rule::Cv6,
            head.offset(),
            format!(
                "{} members: too many to check pairwise for overlaps",
                boxes.len()
            ),
        );
        return Ok(());
    }
    let empty = |s: &[u64]| s.contains(&0);
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            let (a, b) = (&boxes[i], &boxes[j]);
            if empty(&a.1) || empty(&b.1) {
                continue;
            }
            let overlap = (0..shape.len()).all(|k| {
                a.0[k] < b.0[k].saturating_add(b.1[k]) && b.0[k] < a.0[k].saturating_add(a.1[k])
            });
            if overlap {
                let off = tensors[members[j]].descriptor.view.offset();
                return ctx.violation(
                    Rule::Cv6,
                    off,
                    format!(
                        "partition members `{}` and `{}` overlap",
                        tensors[members[i]].name, tensors[members[j]].name
                    ),
                );
            }
        }
    }
    Ok(())
}
