//! Reading a file container (`HRRYFILE`) over a byte slice or a memory map, lazily and
//! strictly: the random-access protocol of container.md §11.1 with every rejection rule of §12
//! and the resolutions RES-3, RES-4, RES-5, RES-13, RES-14.
//!
//! Checking is split in three stages, so that opening costs nothing proportional to the data
//! and every byte is still checked before anything built on it is handed out:
//!
//! | Stage | Checks | Rules |
//! |-------|--------|-------|
//! | [`open`] | header; trailer; index bounds and CRC-32C; every index entry; the KV section; where the sections start; name order and uniqueness; each descriptor's bounds and alignment | F1–F7, F16–F19, F24–F29, F33–F36, F38 (a truncated or torn file), LEN-1, LEN-3, VER-1/2, F27, F30 (per entry) |
//! | first access to a tensor ([`FileView::tensor`], [`FileView::tensor_at`], [`FileView::tensors`]) | its descriptor and every descriptor rule; its index entry against it; its data placement; the padding inside it; the data rules on its buffers | F11, F14 (every descriptor rule), F27 and F31 (its data), F32 (inside the tensor), F37, the data rules |
//! | [`FileView::verify_all`] (what `hurray decode` runs) | every tensor as above; the first descriptor's place; overlaps; every padding byte of the file; composite membership | F12, F13, F30 (first descriptor, overlaps), F32, CV-1…CV-7, CH-12 |
//!
//! [`read`] is [`open`] followed by [`FileView::verify_all`]: the whole verdict at once. A
//! [`Tensor`] is a handle that only [`FileView`] makes, and only after its checks passed: an
//! unchecked tensor cannot be reached. Per tensor the view keeps 40 bytes (offsets, lengths, the
//! place of its name, its check state); names are found by hash over the borrowed index bytes.

mod composite;
pub(crate) mod cover;
mod placement;
pub(crate) mod truncation;

use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use crate::consts;
use crate::ctx::{Ctx, Limit, ReaderConfig, Warning};
use crate::descriptor::{self, Checked};
use crate::error::Error;
use crate::generated::flags::FileFlags;
use crate::generated::rules::Rule;
use crate::semantic::size::Integer;
use crate::structures::{
    DescriptorView, FileHeaderView, IndexEntryView, IndexSectionView, KvSectionView, TrailerView,
};
use crate::wire::Reader;

pub use composite::Composite;
pub(crate) use composite::Tracker;
pub use placement::{HEADER_SIZE, TRAILER_SIZE, buffer_spans};
pub(crate) use placement::{padding, starts_descriptor, starts_file, too_short};

/// Padding is read, and pages of a mapped file released, this many bytes at a time.
const CHUNK: u64 = 8 << 20;

/// A tensor's check state: not yet checked; checked with nothing to remark; checked with
/// warnings or not dereferenceable (kept in [`FileView`]'s remarks).
const UNCHECKED: u8 = 0;
const CLEAN: u8 = 1;
const REMARKED: u8 = 2;

/// What the view keeps per tensor: the index entry's numbers and where its name is.
#[derive(Debug)]
pub(crate) struct Record {
    /// Absolute offset of the index entry.
    pub(crate) entry_at: u64,
    pub(crate) descriptor_offset: u64,
    pub(crate) data_offset: u64,
    pub(crate) data_length: u64,
    pub(crate) descriptor_length: u32,
    pub(crate) name_length: u16,
    state: AtomicU8,
}

impl Record {
    pub(crate) fn new(e: &IndexEntryView<'_>) -> Record {
        Record {
            entry_at: e.offset(),
            descriptor_offset: e.descriptor_offset(),
            data_offset: e.data_offset(),
            data_length: e.data_length(),
            descriptor_length: e.descriptor_length(),
            name_length: e.name_length(),
            state: AtomicU8::new(UNCHECKED),
        }
    }

    /// Absolute offset of the name.
    pub(crate) fn name_at(&self) -> u64 {
        self.entry_at + IndexEntryView::OFFSET_NAME as u64
    }

    /// Where the tensor's parts end: its data region's end, or its descriptor's for a tensor
    /// without buffers (RES-13). Valid once the tensor is checked.
    fn end(&self) -> u64 {
        (self.descriptor_offset + u64::from(self.descriptor_length))
            .max(self.data_offset + self.data_length)
    }
}

/// Findings of a tensor's checks that the tensor handle reports.
#[derive(Debug)]
struct Remark {
    index: u32,
    warnings: Vec<Warning>,
    dereferenceable: bool,
}

/// Composite membership with the warnings its checks raised.
#[derive(Debug)]
struct CompositeScan {
    composites: Vec<Composite>,
    warnings: Vec<Warning>,
}

/// An opened file: the header, the trailer, the KV section, one compact record per tensor,
/// and lookup by name. Tensors are checked on first access; see the module documentation.
pub struct FileView<'a> {
    bytes: &'a [u8],
    config: ReaderConfig,
    header: FileHeaderView<'a>,
    trailer: TrailerView<'a>,
    kv: Option<KvSectionView<'a>>,
    region_end: u64,
    records: Box<[Record]>,
    hasher: foldhash::fast::RandomState,
    names: OnceLock<HashTable<u32>>,
    warnings: Vec<Warning>,
    remarks: Mutex<Vec<Remark>>,
    composites: OnceLock<Result<CompositeScan, Error>>,
    pages: Option<&'a memmap2::Mmap>,
}

impl std::fmt::Debug for FileView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileView")
            .field("len", &self.bytes.len())
            .field("region_end", &self.region_end)
            .field("tensors", &self.records.len())
            .finish_non_exhaustive()
    }
}

/// One tensor of a file, checked: only [`FileView`] makes one, after the tensor's descriptor,
/// placement, padding and data passed every check. It is a handle (the file and a position);
/// the descriptor view is parsed again when asked for.
#[derive(Clone, Copy)]
pub struct Tensor<'f> {
    file: &'f FileView<'f>,
    index: u32,
}

impl std::fmt::Debug for Tensor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("name", &self.name())
            .field("descriptor_offset", &self.descriptor_offset())
            .field("data_offset", &self.data_offset())
            .field("data_length", &self.data_length())
            .finish()
    }
}

impl<'f> Tensor<'f> {
    fn record(&self) -> &'f Record {
        &self.file.records[self.index as usize]
    }

    /// Its position in the index.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// Its name.
    pub fn name(&self) -> &'f str {
        self.file.name(self.index as usize)
    }

    /// Absolute offset of its descriptor.
    pub fn descriptor_offset(&self) -> u64 {
        self.record().descriptor_offset
    }

    /// Its descriptor's length.
    pub fn descriptor_length(&self) -> u32 {
        self.record().descriptor_length
    }

    /// Absolute offset of its data region (buffer 0).
    pub fn data_offset(&self) -> u64 {
        self.record().data_offset
    }

    /// Its data region's length: every buffer and the padding between them.
    pub fn data_length(&self) -> u64 {
        self.record().data_length
    }

    /// Its data region (`data_offset`, `data_length`).
    pub fn data(&self) -> &'f [u8] {
        let r = self.record();
        &self.file.bytes[r.data_offset as usize..(r.data_offset + r.data_length) as usize]
    }

    /// Its index entry.
    pub fn entry(&self) -> IndexEntryView<'f> {
        self.file
            .entry(self.record())
            .expect("the entry parsed when the file was opened")
    }

    /// Its descriptor, with the findings of its checks.
    ///
    /// # Panics
    /// Never for bytes that stay as they were when the tensor was checked (a mapped file must
    /// not be modified while it is mapped).
    pub fn descriptor(&self) -> Checked<'f> {
        let view = self
            .file
            .descriptor_view(self.record())
            .expect("the descriptor passed its checks on first access");
        let (warnings, dereferenceable) = self.file.remark(self.index);
        Checked {
            view,
            warnings,
            dereferenceable,
        }
    }

    /// Each buffer: its absolute offset and its bytes, in buffer-table order.
    pub fn buffers(&self) -> Vec<(u64, &'f [u8])> {
        let r = self.record();
        let view = self
            .file
            .descriptor_view(r)
            .expect("the descriptor passed its checks on first access");
        let sizes = view
            .buffer_table()
            .buffers()
            .iter()
            .map(|b| b.byte_size().to());
        let spans = buffer_spans(
            r.descriptor_offset + u64::from(r.descriptor_length),
            self.file.alignment(),
            sizes,
        )
        .expect("the placement was checked on first access");
        spans
            .into_iter()
            .map(|(s, e)| (s, &self.file.bytes[s as usize..e as usize]))
            .collect()
    }

    /// False when the data must not be dereferenced (RES-8, RES-9, RES-36).
    pub fn dereferenceable(&self) -> bool {
        self.file.remark(self.index).1
    }

    /// Findings of its checks that did not reject it.
    pub fn warnings(&self) -> Vec<Warning> {
        self.file.remark(self.index).0
    }
}

/// The name of the entry `r` describes, in `bytes` (which start at absolute offset `base`
/// and hold the index).
pub(crate) fn record_name<'b>(bytes: &'b [u8], base: u64, r: &Record) -> &'b str {
    let at = (r.name_at() - base) as usize;
    let name = &bytes[at..at + usize::from(r.name_length)];
    // SAFETY: the record was made from an entry the generated index-entry view parsed, which
    // rejects a name that is not UTF-8 (F29), over these same bytes, borrowed immutably (a
    // mapped file must not be modified while mapped: `MappedFile::open`'s contract).
    unsafe { std::str::from_utf8_unchecked(name) }
}

/// The index's names sorted when SORTED_INDEX is set (F26, which with its strict order also
/// makes them unique), else unique (F25), checked through a hash table over the borrowed
/// names, which is returned.
pub(crate) fn check_names(
    records: &[Record],
    bytes: &[u8],
    base: u64,
    sorted: bool,
    hasher: &foldhash::fast::RandomState,
) -> Result<Option<HashTable<u32>>, Error> {
    let name = |i: usize| record_name(bytes, base, &records[i]);
    if sorted {
        for (i, r) in records.iter().enumerate().skip(1) {
            let (a, b) = (name(i - 1), name(i));
            if a.as_bytes() >= b.as_bytes() {
                return Err(Error::new(
                    Rule::F26,
                    r.name_at(),
                    format!("SORTED_INDEX is set but `{b}` does not sort after `{a}`"),
                ));
            }
        }
        return Ok(None);
    }
    let hash = |n: &str| std::hash::BuildHasher::hash_one(hasher, n.as_bytes());
    let mut table = HashTable::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let n = name(i);
        match table.entry(
            hash(n),
            |&j: &u32| name(j as usize) == n,
            |&j| hash(name(j as usize)),
        ) {
            Entry::Occupied(_) => {
                return Err(Error::new(
                    Rule::F25,
                    r.name_at(),
                    format!("the name `{n}` appears twice in the index"),
                ));
            }
            Entry::Vacant(v) => {
                v.insert(i as u32);
            }
        }
    }
    Ok(Some(table))
}

/// The trailing sections of a file, checked: the trailer, the KV section and one record per
/// index entry. Offsets are absolute; `tail` holds the file's bytes from `base` to its end
/// (the whole file for a random-access read, what follows the tensor region for a sequential one).
#[derive(Debug)]
pub(crate) struct Sections<'a> {
    pub(crate) trailer: TrailerView<'a>,
    pub(crate) kv: Option<KvSectionView<'a>>,
    pub(crate) records: Vec<Record>,
    /// Where the tensor region ends: the first of the KV and index sections (RES-14).
    pub(crate) region_end: u64,
}

/// The parts the trailing sections occupy in a file of `len` bytes, as (start, end), in file
/// order (their bounds were checked by [`Sections::read`]).
pub(crate) fn section_parts(trailer: &TrailerView<'_>, kv: bool, len: u64) -> Vec<(u64, u64)> {
    let t = trailer;
    let mut parts = vec![
        (t.index_offset(), t.index_offset() + t.index_length()),
        (len - TRAILER_SIZE, len),
    ];
    if kv {
        parts.push((t.kv_offset(), t.kv_offset() + u64::from(t.kv_length())));
    }
    parts.sort_unstable();
    parts
}

impl<'a> Sections<'a> {
    /// Read the trailer, the index (bounds, CRC-32C, entries) and the KV section from `tail`
    /// (the file's bytes from absolute offset `base` to its end).
    pub(crate) fn read(
        tail: &'a [u8],
        base: u64,
        header: &FileHeaderView<'_>,
        ctx: &mut Ctx<'_>,
    ) -> Result<Sections<'a>, Error> {
        let len = base + tail.len() as u64;
        let first = header.first_descriptor_offset();
        let flags = header.file_flags();
        let slice = |from: u64, to: u64| &tail[(from - base) as usize..(to - base) as usize];
        // Trailer: located only by file_size - 40 (F4 and the other trailer rules).
        let trailer_at = len - TRAILER_SIZE;
        let trailer = TrailerView::parse(
            &mut Reader::new(slice(trailer_at, len), trailer_at, Rule::Len3),
            ctx,
        )?;
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
        if io < base {
            return Err(Error::new(
                Rule::F39,
                trailer.index_offset_at(),
                format!("the index starts at {io}, inside the tensor region that ended at {base}"),
            ));
        }
        let index_bytes = slice(io, io + il);
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
        let records = index_records(index_bytes, io, ctx)?;
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
            ctx.config
                .check_limit(Limit::KvLength, kl, trailer.kv_length_at())?;
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
            if ko < base {
                return Err(Error::new(
                    Rule::F39,
                    trailer.kv_offset_at(),
                    format!(
                        "the KV section starts at {ko}, inside the tensor region that ended at {base}"
                    ),
                ));
            }
            if !flags.has(FileFlags::HAS_KV_METADATA) {
                ctx.warn(
                    Rule::F34,
                    header.file_flags_at(),
                    "a KV section is present but HAS_KV_METADATA is clear; the trailer is authoritative (RES-4)",
                );
            }
            let kv =
                KvSectionView::parse(&mut Reader::new(slice(ko, ko + kl), ko, Rule::F19), ctx)?;
            let mut keys: Vec<(&str, u64)> =
                kv.entries().iter().map(|e| (e.key(), e.key_at())).collect();
            keys.sort_unstable();
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
        if records.is_empty() && region_end != first {
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
        Ok(Sections {
            trailer,
            kv,
            records,
            region_end,
        })
    }
}

/// One record per index entry, each entry parsed by the generated code; the section is
/// parsed whole by the generated code too (for its appended fields or surplus) only when bytes
/// follow the entries.
fn index_records(bytes: &[u8], at: u64, ctx: &mut Ctx<'_>) -> Result<Vec<Record>, Error> {
    let mut r = Reader::new(bytes, at, Rule::F24);
    let count = r.scalar::<u64>("index_entry_count")?;
    ctx.config.check_limit(Limit::Tensors, count, at)?;
    if count > r.remaining() as u64 {
        return Err(Error::new(
            Rule::F24,
            r.offset(),
            format!(
                "entries declares {count} entries but only {} bytes remain",
                r.remaining()
            ),
        ));
    }
    // An entry has at least one byte per record word; growth beyond that is by need.
    let mut records = Vec::with_capacity((count as usize).min(r.remaining() / 32));
    for _ in 0..count {
        records.push(Record::new(&IndexEntryView::parse(&mut r, ctx)?));
    }
    if r.remaining() != 0 {
        IndexSectionView::parse(&mut Reader::new(bytes, at, Rule::F24), ctx)?;
    }
    Ok(records)
}

/// Open a file held in memory: check what every access depends on (see the module
/// documentation); tensors are checked on first access.
///
/// ```
/// use hurray_runtime::{ReaderConfig, file, writer};
/// use hurray_runtime::tags::ElementType;
///
/// let d = writer::finalize(writer::row_major(ElementType::Float32, &[2]))?;
/// let mut w = writer::FileWriter::new(Vec::new(), &writer::FileOptions::default())?;
/// w.add_tensor("x", &d, &[&[0u8; 8]])?;
/// let bytes = w.finish(&[])?;
///
/// let f = file::open(&bytes, &ReaderConfig::new())?;
/// let x = f.tensor("x")?.expect("x is in the index");
/// assert_eq!(x.data(), &[0u8; 8]);
/// f.verify_all()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open<'a>(bytes: &'a [u8], config: &ReaderConfig) -> Result<FileView<'a>, Error> {
    let len = bytes.len() as u64;
    let mut ctx = Ctx::new(config);
    // Header (F1, F2, F3, F16, F17, F18).
    let header = FileHeaderView::parse(&mut Reader::new(bytes, 0, Rule::Len3), &mut ctx)?;
    too_short(len)?;
    // A trailer that does not parse may be the end of a file cut short (F38).
    let trailer_at = len - TRAILER_SIZE;
    if let Err(e) = TrailerView::parse(
        &mut Reader::new(&bytes[trailer_at as usize..], trailer_at, Rule::Len3),
        &mut Ctx::new(config),
    ) {
        return Err(truncation::diagnose(bytes, &header, config).unwrap_or(e));
    }
    let Sections {
        trailer,
        kv,
        records,
        region_end,
    } = Sections::read(bytes, 0, &header, &mut ctx)?;
    let mut view = FileView {
        bytes,
        config: config.clone(),
        header,
        trailer,
        kv,
        region_end,
        records: records.into_boxed_slice(),
        hasher: foldhash::fast::RandomState::default(),
        names: OnceLock::new(),
        warnings: Vec::new(),
        remarks: Mutex::new(Vec::new()),
        composites: OnceLock::new(),
        pages: None,
    };
    // Names: sorted when flagged (F26), unique (F25).
    let sorted = header.file_flags().has(FileFlags::SORTED_INDEX);
    if let Some(table) = check_names(&view.records, bytes, 0, sorted, &view.hasher)? {
        let _ = view.names.set(table);
    }
    // Each descriptor's bounds and alignment (F27, F30).
    let first = header.first_descriptor_offset();
    for i in 0..view.records.len() {
        let r = &view.records[i];
        let (d, dl) = (r.descriptor_offset, u64::from(r.descriptor_length));
        if d < first || d.checked_add(dl).is_none_or(|end| end > region_end) {
            let e = view.entry(r)?;
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
            let e = view.entry(r)?;
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
    }
    view.warnings = ctx.take_warnings();
    Ok(view)
}

/// Open a file held in memory and check everything: [`open`], then [`FileView::verify_all`].
pub fn read<'a>(bytes: &'a [u8], config: &ReaderConfig) -> Result<FileView<'a>, Error> {
    let f = open(bytes, config)?;
    f.verify_all()?;
    Ok(f)
}

impl<'a> FileView<'a> {
    /// The file's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The file header.
    pub fn header(&self) -> FileHeaderView<'a> {
        self.header
    }

    /// The trailer.
    pub fn trailer(&self) -> TrailerView<'a> {
        self.trailer
    }

    /// The KV section, when the file has one.
    pub fn kv(&self) -> Option<&KvSectionView<'a>> {
        self.kv.as_ref()
    }

    /// The index section, parsed whole (every entry a view, and the fields a later container
    /// version appended to the section): for showing it; lookups use the compact records.
    pub fn index_section(&self) -> Result<IndexSectionView<'a>, Error> {
        let (io, il) = (self.trailer.index_offset(), self.trailer.index_length());
        let mut ctx = Ctx::new(&self.config);
        self.enter_container(&mut ctx)?;
        IndexSectionView::parse(
            &mut Reader::new(&self.bytes[io as usize..(io + il) as usize], io, Rule::F24),
            &mut ctx,
        )
    }

    /// The number of tensors.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True for a file without tensors.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The name of tensor `i` (index order); no check of the tensor itself.
    pub fn name(&self, i: usize) -> &'a str {
        record_name(self.bytes, 0, &self.records[i])
    }

    /// Every tensor name, in index order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'a str> + '_ {
        (0..self.records.len()).map(|i| self.name(i))
    }

    /// The tensor named `name`, checked (on first access) before it is returned; `Ok(None)`
    /// when no tensor has that name.
    pub fn tensor(&self, name: &str) -> Result<Option<Tensor<'_>>, Error> {
        match self.find(name) {
            Some(i) => self.tensor_at(i).map(Some),
            None => Ok(None),
        }
    }

    /// Tensor `i` (index order), checked (on first access) before it is returned.
    ///
    /// # Panics
    /// When `i` is not below [`Self::len`].
    pub fn tensor_at(&self, i: usize) -> Result<Tensor<'_>, Error> {
        if self.records[i].state.load(Ordering::Acquire) == UNCHECKED {
            self.check(i)?;
        }
        Ok(Tensor {
            file: self,
            index: i as u32,
        })
    }

    /// Every tensor in index order, each checked on first access.
    pub fn tensors(&self) -> impl ExactSizeIterator<Item = Result<Tensor<'_>, Error>> + '_ {
        (0..self.records.len()).map(|i| self.tensor_at(i))
    }

    /// Tensors in write order (ascending descriptor offset), as index positions.
    pub fn write_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.records.len()).collect();
        order.sort_by_key(|i| self.records[*i].descriptor_offset);
        order
    }

    /// Composites, by head, in write order, with their membership checked (CV-1…CV-7,
    /// CH-12, F12, F13); this checks every tensor it passes.
    pub fn composites(&self) -> Result<&[Composite], Error> {
        if self.composites.get().is_none() {
            let scan = self.scan_composites();
            let _ = self.composites.set(scan);
        }
        self.composite_scan().map(|s| s.composites.as_slice())
    }

    fn composite_scan(&self) -> Result<&CompositeScan, Error> {
        match self.composites.get() {
            Some(Ok(s)) => Ok(s),
            Some(Err(e)) => Err(e.clone()),
            None => unreachable!("composite_scan runs after the scan is stored"),
        }
    }

    fn scan_composites(&self) -> Result<CompositeScan, Error> {
        let mut ctx = Ctx::new(&self.config);
        let mut tracker = Tracker::default();
        for i in self.write_order() {
            let checked = self.checked(i)?;
            tracker.push(i, self.name(i), &checked.view, &mut ctx)?;
        }
        let composites = tracker.finish(&mut ctx)?;
        Ok(CompositeScan {
            composites,
            warnings: ctx.take_warnings(),
        })
    }

    /// Every finding that did not reject the file: the file's own, composite membership's,
    /// then each checked tensor's, in index order.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut out = self.warnings.clone();
        if let Some(Ok(s)) = self.composites.get() {
            out.extend(s.warnings.iter().cloned());
        }
        let remarks = self.remarks.lock().unwrap_or_else(|p| p.into_inner());
        let mut mine: Vec<&Remark> = remarks.iter().collect();
        mine.sort_by_key(|r| r.index);
        for r in mine {
            out.extend(r.warnings.iter().cloned());
        }
        out
    }

    /// Check everything [`open`] and first access leave for later: every tensor, the first
    /// descriptor's place and every overlap (F30), every padding byte (F32), composite
    /// membership. Padding is read in chunks; for a [`MappedFile`] the pages behind the check
    /// are released as it goes, so the resident set stays bounded whatever the file's size.
    pub fn verify_all(&self) -> Result<(), Error> {
        let order = self.write_order();
        let mut sweep = Sweep {
            file: self,
            released: 0,
        };
        // F30: the first descriptor starts at first_descriptor_offset.
        let first = self.header.first_descriptor_offset();
        if let Some(&i) = order.first()
            && self.records[i].descriptor_offset != first
        {
            let e = self.entry(&self.records[i])?;
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
        let mut ctx = Ctx::new(&self.config);
        let mut tracker = Tracker::default();
        let mut end = HEADER_SIZE;
        for &i in &order {
            let checked = self.checked(i)?;
            let r = &self.records[i];
            sweep.part(&mut end, r.descriptor_offset, r.end())?;
            if self.composites.get().is_none() {
                tracker.push(i, self.name(i), &checked.view, &mut ctx)?;
            }
        }
        let len = self.bytes.len() as u64;
        for (s, e) in section_parts(&self.trailer, self.kv.is_some(), len) {
            sweep.part(&mut end, s, e)?;
        }
        if self.composites.get().is_none() {
            let composites = tracker.finish(&mut ctx)?;
            let _ = self.composites.set(Ok(CompositeScan {
                composites,
                warnings: ctx.take_warnings(),
            }));
        }
        self.composite_scan().map(|_| ())
    }

    /// Drop this process's copies of a mapped file's pages (the next access reads them back
    /// from the file): a caller walking every tensor of a large mapped file calls it now and
    /// then to keep its resident set bounded. No effect on a file held in memory.
    pub fn release_pages(&self) {
        if let Some(map) = self.pages {
            // SAFETY: as in `Sweep::release`: a read-only shared file mapping, whose pages
            // MADV_DONTNEED drops and the next read faults back unchanged.
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, map.len())
            };
        }
    }

    fn alignment(&self) -> u64 {
        u64::from(self.header.data_buffer_alignment())
    }

    /// A context that knows the file's container version, as `open`'s did.
    fn enter_container(&self, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        FileHeaderView::parse(&mut Reader::new(self.bytes, 0, Rule::Len3), ctx).map(|_| ())
    }

    fn entry(&self, r: &Record) -> Result<IndexEntryView<'a>, Error> {
        let mut ctx = Ctx::new(&self.config);
        self.enter_container(&mut ctx)?;
        let at = r.entry_at;
        IndexEntryView::parse(
            &mut Reader::new(&self.bytes[at as usize..], at, Rule::F24),
            &mut ctx,
        )
    }

    /// The structural parse of a checked tensor's descriptor (its rules already passed).
    fn descriptor_view(&self, r: &Record) -> Result<DescriptorView<'a>, Error> {
        let d = r.descriptor_offset;
        let mut ctx = Ctx::new(&self.config);
        DescriptorView::parse(
            &mut Reader::new(
                &self.bytes[d as usize..self.region_end as usize],
                d,
                Rule::Hdr5,
            ),
            &mut ctx,
        )
    }

    fn name_bytes(&self, i: usize) -> &'a [u8] {
        self.name(i).as_bytes()
    }

    fn hash(&self, name: &[u8]) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, name)
    }

    fn find(&self, name: &str) -> Option<usize> {
        let table = self.names.get_or_init(|| {
            // Names are unique here: `open` checked a sorted index's strict order.
            let mut table = HashTable::with_capacity(self.records.len());
            for i in 0..self.records.len() {
                table.insert_unique(self.hash(self.name_bytes(i)), i as u32, |&j: &u32| {
                    self.hash(self.name_bytes(j as usize))
                });
            }
            table
        });
        let name = name.as_bytes();
        table
            .find(self.hash(name), |&j| self.name_bytes(j as usize) == name)
            .map(|&j| j as usize)
    }

    /// The findings kept for tensor `i`: its warnings and whether it is dereferenceable.
    fn remark(&self, i: u32) -> (Vec<Warning>, bool) {
        if self.records[i as usize].state.load(Ordering::Acquire) != REMARKED {
            return (Vec::new(), true);
        }
        let remarks = self.remarks.lock().unwrap_or_else(|p| p.into_inner());
        remarks
            .iter()
            .find(|r| r.index == i)
            .map_or((Vec::new(), true), |r| {
                (r.warnings.clone(), r.dereferenceable)
            })
    }

    /// Tensor `i`'s descriptor, checked first if it was not yet.
    fn checked(&self, i: usize) -> Result<Checked<'a>, Error> {
        if self.records[i].state.load(Ordering::Acquire) == UNCHECKED {
            return self.check(i);
        }
        let view = self.descriptor_view(&self.records[i])?;
        let (warnings, dereferenceable) = self.remark(i as u32);
        Ok(Checked {
            view,
            warnings,
            dereferenceable,
        })
    }

    /// Every check of tensor `i` (the first-access stage): its descriptor (F11, F14), its
    /// data placement (F27, F31), the padding inside it (F32), F37, and its data rules.
    fn check(&self, i: usize) -> Result<Checked<'a>, Error> {
        let r = &self.records[i];
        let bytes = self.bytes;
        let (d, dl) = (r.descriptor_offset, u64::from(r.descriptor_length));
        let region_end = self.region_end;
        let a = self.alignment();
        let (mut checked, read) =
            descriptor::read_prefix(&bytes[d as usize..region_end as usize], d, &self.config)?;
        if read as u64 != dl {
            let e = self.entry(r)?;
            return Err(Error::new(
                Rule::F11,
                e.descriptor_length_at(),
                format!(
                    "the index says {dl} bytes but the descriptor of `{}` is {read}",
                    e.name()
                ),
            ));
        }
        let (data_offset, data_length) = (r.data_offset, r.data_length);
        let buffers = checked.view.buffer_table().buffers();
        let mut spans = Vec::with_capacity(buffers.len());
        if buffers.is_empty() {
            // RES-13: a composite head's data region is empty and starts right after it.
            if data_offset != d + dl || data_length != 0 {
                let e = self.entry(r)?;
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
            let overflow = |e: &IndexEntryView<'_>| {
                Error::new(Rule::F31, e.data_offset_at(), "data placement overflows")
            };
            let mut at = match (d + dl).checked_next_multiple_of(a) {
                Some(at) => at,
                None => return Err(overflow(&self.entry(r)?)),
            };
            if data_offset != at {
                let e = self.entry(r)?;
                return Err(Error::new(
                    Rule::F31,
                    e.data_offset_at(),
                    format!(
                        "data of `{}` must start at {at} (the next multiple of {a} after its descriptor), not {data_offset}",
                        e.name()
                    ),
                ));
            }
            for (k, b) in buffers.iter().enumerate() {
                let z: u64 = b.byte_size().to();
                if k > 0 {
                    at = match at.checked_next_multiple_of(a) {
                        Some(at) => at,
                        None => return Err(overflow(&self.entry(r)?)),
                    };
                }
                let Some(end) = at.checked_add(z).filter(|end| *end <= region_end) else {
                    let e = self.entry(r)?;
                    return Err(Error::new(
                        Rule::F27,
                        e.data_offset_at(),
                        format!(
                            "buffer {k} of `{}` ({z} bytes at {at}) runs past the tensor region's end {region_end}",
                            e.name()
                        ),
                    ));
                };
                spans.push((at, end));
                at = end;
            }
            if data_length != at - data_offset {
                let e = self.entry(r)?;
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
            for b in buffers.iter() {
                if b.alignment().to::<u64>() > a {
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
            // The padding inside the tensor: after the descriptor, between buffers (F32).
            let mut from = d + dl;
            for (s, e) in &spans {
                padding(bytes, 0, from, *s)?;
                from = *e;
            }
        }
        let slices: Vec<&[u8]> = spans
            .iter()
            .map(|(s, e)| &bytes[*s as usize..*e as usize])
            .collect();
        let offsets: Vec<u64> = spans.iter().map(|(s, _)| *s).collect();
        descriptor::check_data(&mut checked, &slices, &offsets, &self.config)?;
        if checked.warnings.is_empty() && checked.dereferenceable {
            r.state.store(CLEAN, Ordering::Release);
        } else {
            let mut remarks = self.remarks.lock().unwrap_or_else(|p| p.into_inner());
            if r.state.load(Ordering::Acquire) == UNCHECKED {
                remarks.push(Remark {
                    index: i as u32,
                    warnings: checked.warnings.clone(),
                    dereferenceable: checked.dereferenceable,
                });
                r.state.store(REMARKED, Ordering::Release);
            }
        }
        Ok(checked)
    }
}

/// `verify_all`'s pass over the file's parts in file order: overlaps, the padding between
/// them read in chunks, and (for a mapped file) the pages behind it released.
struct Sweep<'f, 'a> {
    file: &'f FileView<'a>,
    released: u64,
}

impl Sweep<'_, '_> {
    /// The next part, `start..end`; `*covered` is where the parts so far end.
    fn part(&mut self, covered: &mut u64, start: u64, end: u64) -> Result<(), Error> {
        if start < *covered {
            return Err(Error::new(
                Rule::F30,
                start,
                format!("parts of the file overlap at byte {start}"),
            ));
        }
        let mut from = *covered;
        while from < start {
            let to = start.min(from + CHUNK);
            padding(self.file.bytes, 0, from, to)?;
            from = to;
            self.release(to);
        }
        *covered = end;
        self.release(start);
        Ok(())
    }

    /// Release the mapped pages below `to` once a chunk's worth has been passed.
    fn release(&mut self, to: u64) {
        let Some(map) = self.file.pages else {
            return;
        };
        const PAGE: u64 = 4096;
        let to = to / PAGE * PAGE;
        if to < self.released + CHUNK {
            return;
        }
        let (from, len) = (self.released as usize, (to - self.released) as usize);
        // SAFETY: the map is a read-only, shared mapping of a file (`MappedFile::open`):
        // MADV_DONTNEED only drops the process's copies of these pages, and the next read of
        // them faults the same file bytes back in, so every borrowed slice stays valid and
        // unchanged. A failure only means the pages stay resident.
        let _ =
            unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, len) };
        self.released = to;
    }
}

/// A memory-mapped file, read through [`MappedFile::view`] or [`MappedFile::read`].
#[derive(Debug)]
pub struct MappedFile {
    map: memmap2::Mmap,
}

impl MappedFile {
    /// Map `path` read-only. The file must not be truncated or rewritten while the map lives
    /// (the usual memory-map contract); every read through it is bounds-checked against the
    /// length taken at map time.
    pub fn open(path: &Path) -> std::io::Result<MappedFile> {
        let file = std::fs::File::open(path)?;
        // SAFETY: the map is read-only and shared; the caller keeps the file unmodified while
        // the map lives (documented above), so the bytes behave as an immutable slice.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(MappedFile { map })
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Open the mapped file lazily ([`open`]); [`FileView::verify_all`] on it releases the
    /// pages it has checked.
    pub fn view(&self, config: &ReaderConfig) -> Result<FileView<'_>, Error> {
        let mut f = open(&self.map, config)?;
        f.pages = Some(&self.map);
        Ok(f)
    }

    /// Open and check everything ([`read`]), releasing pages as the check passes them.
    pub fn read(&self, config: &ReaderConfig) -> Result<FileView<'_>, Error> {
        let f = self.view(config)?;
        f.verify_all()?;
        Ok(f)
    }
}
