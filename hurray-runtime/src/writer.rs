//! Writing: a single-pass file writer that never seeks back (container.md §11.3), and the
//! writer rules of the versioning model for descriptors (W1–W4): the lowest version that
//! covers what is emitted, no deprecated value when a replacement exists, whole trailing
//! fields, no reserved bit, byte or value.

use std::io::{Seek, Write};
use std::path::Path;

use hashbrown::HashTable;

use crate::consts;
use crate::ctx::ReaderConfig;
use crate::descriptor;
use crate::error::Error;
use crate::generated::axes::Axis;
use crate::generated::flags::FileFlags;
use crate::generated::rules::Rule;
use crate::generated::tags::BlockTableIndexType;
use crate::semantic::elements::{DYNAMIC, ElementSize};
use crate::semantic::size::Integer;
use crate::semantic::size::Size;
use crate::structures::{
    Descriptor, DescriptorView, FileHeader, IndexEntry, IndexSection, KvEntry, KvSection,
    LayoutVariantView, SchemeVariantView, Trailer,
};
use crate::version::Version;
use crate::wire::{FlagSet, TagClass, TagSpace};

/// Why a writer refused.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// What would be written breaks a rule.
    #[error("{0}")]
    Invalid(#[source] Error),
    /// The output could not be written.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl From<Error> for WriteError {
    fn from(e: Error) -> Self {
        WriteError::Invalid(e)
    }
}

fn invalid(rule: Rule, detail: impl Into<String>) -> WriteError {
    WriteError::Invalid(Error::new(rule, 0, detail))
}

/// Options of a new file, decided before its header is written (RES-4: no seeking back).
#[derive(Clone, Debug)]
pub struct FileOptions {
    /// `A`: every data buffer starts at a multiple of it.
    pub data_buffer_alignment: u32,
    /// Whether a KV section will follow the tensors (sets HAS_KV_METADATA).
    pub kv: bool,
    /// Whether the index is written sorted by name (sets SORTED_INDEX).
    pub sorted_index: bool,
    /// The tensor count, if known now.
    pub tensor_count_hint: Option<u64>,
    /// The container version the header declares. The header is written first and never
    /// revisited (RES-4), so the caller names the version up front; [`FileWriter::finish`]
    /// refuses a file that emits anything newer (W2). The default, the axis's initial
    /// version, is the lowest (W1) and covers every file that uses nothing added later.
    pub container_version: Version,
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            data_buffer_alignment: 4096,
            kv: false,
            sorted_index: false,
            tensor_count_hint: None,
            container_version: Axis::Container.initial(),
        }
    }
}

/// One page of zeros: every run of padding is written from it (no buffer is zeroed per call).
static ZERO_PAGE: [u8; 4096] = [0; 4096];

/// How a writer moves its output forward over padding: by writing zeros, or (for an output
/// that can seek) by seeking over long runs so the file system leaves a hole that reads as zeros.
type Skip<W> = fn(&mut W, u64) -> std::io::Result<()>;

fn write_zeros<W: Write>(out: &mut W, mut n: u64) -> std::io::Result<()> {
    while n > 0 {
        let k = n.min(ZERO_PAGE.len() as u64) as usize;
        out.write_all(&ZERO_PAGE[..k])?;
        n -= k as u64;
    }
    Ok(())
}

/// Runs of padding at least this long are seeked over by a seeking writer; shorter ones are
/// cheaper to write than to seek over (a seek flushes a buffered output).
const SEEK_AT_LEAST: u64 = 64 << 10;

fn seek_or_write_zeros<W: Write + Seek>(out: &mut W, n: u64) -> std::io::Result<()> {
    if n < SEEK_AT_LEAST {
        return write_zeros(out, n);
    }
    let by = i64::try_from(n).map_err(|_| std::io::Error::other("padding run exceeds i64"))?;
    out.seek(std::io::SeekFrom::Current(by)).map(|_| ())
}

/// A single-pass writer of a file container: the header first, then each tensor at the place
/// the placement arithmetic gives it (container.md §5.1), then the KV section, the index and
/// the trailer; it never seeks back (§11.3). Each tensor costs the same whatever the file's
/// size: its name is checked for uniqueness by hash, its padding is written from one static
/// zero page (or seeked over, [`FileWriter::seeking`]), and every offset is checked arithmetic.
#[derive(Debug)]
pub struct FileWriter<W: Write> {
    out: W,
    skip: Skip<W>,
    pos: u64,
    header: FileHeader,
    index: IndexSection,
    hasher: foldhash::fast::RandomState,
    names: HashTable<u32>,
}

impl<W: Write> FileWriter<W> {
    /// Start a file: the header is written now, with every flag decided (HAS_INDEX_CRC32C
    /// always, RES-5).
    pub fn new(out: W, options: &FileOptions) -> Result<FileWriter<W>, WriteError> {
        Self::with_header(out, header_for(options))
    }

    /// Start a file with an explicit header (to re-encode a file exactly as it was read).
    pub fn with_header(out: W, header: FileHeader) -> Result<FileWriter<W>, WriteError> {
        Self::start(out, header, write_zeros::<W>)
    }

    fn start(mut out: W, header: FileHeader, skip: Skip<W>) -> Result<FileWriter<W>, WriteError> {
        // VER-9 (a writer's own rule) first; then the header as a strict reader reads it: the
        // checks the tables state (F17's alignment, F18's first offset, F3's flag bits) are
        // the generated parse's, not restated here.
        if header.file_flags.0 as u64 & !FileFlags::ALLOCATED != 0 {
            return Err(invalid(Rule::Ver9, "a reserved file flag bit is set"));
        }
        let bytes = header.to_bytes();
        {
            let strict = ReaderConfig::new();
            let mut ctx = crate::ctx::Ctx::new(&strict);
            crate::structures::FileHeaderView::parse(
                &mut crate::wire::Reader::new(&bytes, 0, Rule::Len3),
                &mut ctx,
            )?;
        }
        out.write_all(&bytes)?;
        let mut w = FileWriter {
            out,
            skip,
            pos: bytes.len() as u64,
            header,
            index: IndexSection::new(Vec::new()),
            hasher: foldhash::fast::RandomState::default(),
            names: HashTable::new(),
        };
        let first = w.header.first_descriptor_offset;
        w.pad_to(first)?;
        Ok(w)
    }

    fn pad_to(&mut self, at: u64) -> Result<(), WriteError> {
        if at > self.pos {
            (self.skip)(&mut self.out, at - self.pos)?;
            self.pos = at;
        }
        Ok(())
    }

    fn align(&mut self, a: u64) -> Result<(), WriteError> {
        let at = self
            .pos
            .checked_next_multiple_of(a)
            .ok_or_else(|| overflow("padding"))?;
        self.pad_to(at)
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.out.write_all(bytes)?;
        self.pos = self
            .pos
            .checked_add(bytes.len() as u64)
            .ok_or_else(|| overflow("the file's size"))?;
        Ok(())
    }

    fn hash(&self, name: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, name.as_bytes())
    }

    /// Write one tensor: its descriptor bytes and its buffers, in buffer-table order. The
    /// descriptor is read back and the data rules run on the buffers at the offsets they are
    /// about to be written at, so nothing a reader rejects is written.
    pub fn add_tensor(
        &mut self,
        name: &str,
        descriptor: &[u8],
        buffers: &[&[u8]],
    ) -> Result<(), WriteError> {
        if name.is_empty() || name.len() > usize::from(u16::MAX) {
            return Err(invalid(Rule::F28, "a tensor name is 1 to 65535 bytes"));
        }
        let hash = self.hash(name);
        let entries = &self.index.entries;
        if self
            .names
            .find(hash, |&i| entries[i as usize].name == name)
            .is_some()
        {
            return Err(invalid(
                Rule::F25,
                format!("the name `{name}` is already used"),
            ));
        }
        let number = u32::try_from(entries.len())
            .map_err(|_| invalid(Rule::F24, "a writer holds at most 2^32 tensors"))?;
        let descriptor_length = u32::try_from(descriptor.len())
            .map_err(|_| invalid(Rule::F11, "a descriptor is at most 4 GiB"))?;
        // Placement (container.md §5.1): the descriptor at the next multiple of 8, each
        // buffer at the next multiple of A; a tensor without buffers owns no data (RES-13).
        let a = u64::from(self.header.data_buffer_alignment);
        let d = self
            .pos
            .checked_next_multiple_of(consts::DESCRIPTOR_ALIGNMENT)
            .ok_or_else(|| overflow("a descriptor offset"))?;
        let descriptor_end = d
            .checked_add(u64::from(descriptor_length))
            .ok_or_else(|| overflow("a descriptor's end"))?;
        let spans =
            crate::file::buffer_spans(descriptor_end, a, buffers.iter().map(|b| b.len() as u64))
                .ok_or_else(|| overflow("a buffer offset"))?;
        let (data_offset, data_length) = match (spans.first(), spans.last()) {
            (Some(first), Some(last)) => (first.0, last.1 - first.0),
            _ => (descriptor_end, 0),
        };
        let offsets: Vec<u64> = spans.iter().map(|s| s.0).collect();
        let cfg = ReaderConfig::new().permissive(true);
        checked_tensor(name, descriptor, buffers, &offsets, &cfg, Rule::F31)?;
        self.pad_to(d)?;
        self.put(descriptor)?;
        for (b, o) in buffers.iter().zip(&offsets) {
            self.pad_to(*o)?;
            self.put(b)?;
        }
        // RES-3: pad only to the next multiple of 8 after the last buffer.
        self.align(consts::AFTER_LAST_BUFFER.max(consts::DESCRIPTOR_ALIGNMENT))?;
        self.index.entries.push(IndexEntry::new(
            name.to_string(),
            d,
            descriptor_length,
            data_offset,
            data_length,
            crate::flags::IndexEntryFlags(0),
        ));
        let (entries, hasher) = (&self.index.entries, &self.hasher);
        self.names.insert_unique(hash, number, |&i| {
            std::hash::BuildHasher::hash_one(hasher, entries[i as usize].name.as_bytes())
        });
        Ok(())
    }

    /// The index section [`Self::finish`] writes: its entries are added by
    /// [`Self::add_tensor`]; fields a later container version appended to it start absent
    /// (written as their defaults, or not at all) and may be set here.
    pub fn index_section(&mut self) -> &mut IndexSection {
        &mut self.index
    }

    /// Write the KV section (when there is one), the index and the trailer; return the sink.
    pub fn finish(mut self, kv: &[KvEntry]) -> Result<W, WriteError> {
        let flags = self.header.file_flags;
        // W2: nothing newer than the version the header already declares.
        let declared = Version::new(
            self.header.container_version_major,
            self.header.container_version_minor,
        );
        let need = container_version_needed(kv, &self.index);
        if need > declared {
            return Err(invalid(
                Rule::Ver6,
                format!(
                    "the file emits values or fields defined at container {need}, but its header declares {declared}; start the writer with FileOptions::container_version = {need} (W2)"
                ),
            ));
        }
        let mut keys: Vec<&str> = kv.iter().map(|e| e.key.as_str()).collect();
        keys.sort_unstable();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(invalid(
                Rule::F8,
                format!("the KV key `{}` appears twice", w[0]),
            ));
        }
        // RES-4: HAS_KV_METADATA promises a section; an empty one still carries its count.
        let write_kv = flags.has(FileFlags::HAS_KV_METADATA) || !kv.is_empty();
        let (kv_offset, kv_length) = if write_kv {
            self.align(consts::KV_ALIGNMENT)?;
            let mut section = KvSection {
                entries: kv.to_vec(),
                skipped: Vec::new(),
            };
            section.fill_defaults(Axis::Container, declared);
            let bytes = section.to_bytes();
            let len = u32::try_from(bytes.len())
                .map_err(|_| invalid(Rule::F19, "the KV section exceeds 4 GiB"))?;
            let at = self.pos;
            self.put(&bytes)?;
            (at, len)
        } else {
            (0, 0)
        };
        if flags.has(FileFlags::SORTED_INDEX) {
            self.index
                .entries
                .sort_unstable_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        }
        self.align(consts::INDEX_ALIGNMENT)?;
        self.index.fill_defaults(Axis::Container, declared);
        let index = self.index.to_bytes();
        let index_offset = self.pos;
        self.put(&index)?;
        let crc = if flags.has(FileFlags::HAS_INDEX_CRC32C) {
            crc32c::crc32c(&index)
        } else {
            0
        };
        let trailer = Trailer::new(
            index_offset,
            index.len() as u64,
            kv_offset,
            kv_length,
            crc,
            crate::structures::TrailerView::EXPECTED_TRAILER_MAGIC.to_vec(),
        );
        self.put(&trailer.to_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write + Seek> FileWriter<W> {
    /// Start a file on an output that can seek: long runs of padding are seeked over (a file
    /// system leaves a hole that reads as zeros) instead of written. The output must be
    /// positioned at its start and hold nothing beyond it (a new file or an empty buffer).
    pub fn seeking(out: W, options: &FileOptions) -> Result<FileWriter<W>, WriteError> {
        Self::start(out, header_for(options), seek_or_write_zeros::<W>)
    }
}

impl FileWriter<AtomicFile> {
    /// Start a file that will appear at `path` only once it is complete: it is written to a
    /// temporary file beside `path` (seeking over long padding), and [`Self::commit`] syncs
    /// it and renames it into place. A writer dropped or a process killed before that leaves
    /// nothing under `path` (an existing file there stays as it was).
    ///
    /// ```
    /// use hurray_runtime::writer::{FileOptions, FileWriter, finalize, row_major};
    /// use hurray_runtime::tags::ElementType;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("model.hrry");
    /// let mut w = FileWriter::create(&path, &FileOptions::default())?;
    /// let d = finalize(row_major(ElementType::Float32, &[2]))?;
    /// w.add_tensor("x", &d, &[&[0u8; 8]])?;
    /// assert!(!path.exists());
    /// w.commit(&[])?;
    /// assert!(path.exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create(
        path: impl AsRef<Path>,
        options: &FileOptions,
    ) -> Result<FileWriter<AtomicFile>, WriteError> {
        FileWriter::seeking(AtomicFile::create(path.as_ref())?, options)
    }

    /// Finish the file ([`Self::finish`]) and put it in place ([`AtomicFile::commit`]).
    pub fn commit(self, kv: &[KvEntry]) -> Result<(), WriteError> {
        self.finish(kv)?.commit()?;
        Ok(())
    }
}

/// The header a new file starts with.
fn header_for(options: &FileOptions) -> FileHeader {
    let mut flags = FileFlags::HAS_INDEX_CRC32C;
    if options.kv {
        flags = flags.with(FileFlags::HAS_KV_METADATA);
    }
    if options.sorted_index {
        flags = flags.with(FileFlags::SORTED_INDEX);
    }
    let v = options.container_version;
    FileHeader::new(
        crate::structures::FileHeaderView::EXPECTED_MAGIC.to_vec(),
        v.major,
        v.minor,
        flags,
        options.data_buffer_alignment,
        crate::file::HEADER_SIZE,
        options.tensor_count_hint.unwrap_or(u64::MAX),
    )
}

fn overflow(what: &str) -> WriteError {
    invalid(
        Rule::F27,
        format!("{what} does not fit in 64 bits: the file would be too large"),
    )
}

/// A file written beside its final path and put there only when complete (issue: no data
/// lost): a temporary file in the same directory, written through a buffer; [`Self::commit`]
/// flushes it, syncs it to the disk, renames it over the final path and syncs the directory.
/// Dropped without a commit, the temporary file is removed; a process killed before the
/// rename leaves at most a stray temporary file, never a partial file under the final name.
#[derive(Debug)]
pub struct AtomicFile {
    out: std::io::BufWriter<tempfile::NamedTempFile>,
    path: std::path::PathBuf,
}

impl AtomicFile {
    /// A temporary file beside `path` (hidden, named after it), to be committed to `path`.
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let stem = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{stem}."))
            .suffix(".partial")
            .tempfile_in(dir)?;
        Ok(AtomicFile {
            out: std::io::BufWriter::with_capacity(1 << 20, temp),
            path: path.to_path_buf(),
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file's path, where the bytes are until [`Self::commit`]: a caller can
    /// read what it wrote back (after a flush) before deciding to put it in place.
    pub fn temporary_path(&self) -> &Path {
        self.out.get_ref().path()
    }

    /// Flush, sync, rename into place, and sync the directory so the rename is durable.
    pub fn commit(self) -> std::io::Result<()> {
        let temp = self.out.into_inner().map_err(|e| e.into_error())?;
        temp.as_file().sync_all()?;
        temp.persist(&self.path).map_err(|e| e.error)?;
        if let Some(dir) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            // Directories can be opened and synced on Unix; elsewhere the rename stands as is.
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.out.seek(to)
    }
}

/// Write `bytes` to `path` the way [`AtomicFile`] does: complete, or not at all.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

/// W1/W2 for a file's trailing sections: the lowest container version that covers every KV
/// value tag and every appended field the KV section and the index emit.
pub fn container_version_needed(kv: &[KvEntry], index: &IndexSection) -> Version {
    let mut need = index.version_needed(Axis::Container, Axis::Container.initial());
    for e in kv {
        if let TagClass::Known(t) = crate::tags::KvValue::classify(e.value.tag()) {
            need = need.max(t.since());
        }
        need = e.version_needed(Axis::Container, need);
    }
    need
}

/// The number of version axes.
const AXES: usize = Axis::ALL.len();

/// The versions each axis needs, raised one requirement at a time (an array: no allocation).
struct Needs(std::cell::Cell<[(Axis, Version); AXES]>);

impl Needs {
    fn bump(&self, axis: Axis, v: Version) {
        let mut all = self.0.get();
        if let Some(e) = all.iter_mut().find(|(a, _)| *a == axis) {
            e.1 = e.1.max(v);
        }
        self.0.set(all);
    }
}

/// W1/W2 for tag values: each known value needs the version that allocated it.
impl TagRule for Needs {
    fn check<T: TagSpace>(&self, raw: u32) -> Result<(), WriteError> {
        if let TagClass::Known(t) = T::classify(raw) {
            self.bump(T::AXIS, t.since());
        }
        Ok(())
    }
}

/// W1/W2: the lowest descriptor version that covers every tag, flag bit and field the
/// descriptor emits (from their `since`), and likewise each scheme's version.
pub fn required_versions(d: &Descriptor) -> [(Axis, Version); AXES] {
    // The floor is the axis's first version in this build's major: after a major bump the
    // items allocated in the old major still name their old `since`, but data of this
    // build is of its major (S5: older majors migrate, `crate::migrate`).
    let needs = Needs(std::cell::Cell::new(std::array::from_fn(|i| {
        let a = Axis::ALL[i];
        (a, a.initial().max(Version::new(a.current().major, 0)))
    })));
    // Infallible: `Needs` never refuses a value.
    let _ = each_tag(d, &needs);
    let bits = d.fixed_header.flags.bits();
    for b in 0..32 {
        if bits & (1 << b) != 0
            && let Some(v) = crate::flags::DescriptorFlags::bit_since(b)
        {
            needs.bump(Axis::Descriptor, v);
        }
    }
    for axis in Axis::ALL {
        needs.bump(*axis, d.version_needed(*axis, axis.initial()));
    }
    needs.0.get()
}

/// Apply the writer rules to an owned descriptor: [`normalize`] it (the version to the lowest
/// that covers what it emits, W1, W2, the scheme version likewise, the flags to the sections
/// present, every length prefix a structure holds of itself to its encoded size); then refuse
/// what breaks W3 or a reader rule.
pub fn finalize(d: Descriptor) -> Result<Vec<u8>, WriteError> {
    finalize_with(d, &ReaderConfig::new().permissive(true))
}

/// [`finalize`], checking the result as `config` reads it: a writer that emits private values
/// agreed out of band (a private device or memory class, which every reader without the
/// agreement rejects, BH-12, BH-15) passes the agreed reader configuration.
pub fn finalize_with(mut d: Descriptor, config: &ReaderConfig) -> Result<Vec<u8>, WriteError> {
    normalize(&mut d)?;
    w3(&d)?;
    never_reserved(&d)?;
    shd_3(&d)?;
    // Encoded once, its length field already set by `normalize`.
    let bytes = d.to_bytes();
    obligations(&descriptor::read(&bytes, config)?)?;
    Ok(bytes)
}

/// The writer's normalisation, the first step of [`finalize`]: the magic; the flag bits
/// that gate optional sections set to the sections present; the rank to the shape's length;
/// the descriptor version and each scheme's version set to the lowest that covers what is
/// emitted (W1, W2), with the appended fields that version defines given their defaults
/// (W4); and every length prefix a structure holds of itself (the descriptor length, a
/// section's own prefix) to its encoded size. What a reader returns for the bytes
/// [`finalize`] writes is this normalised value.
///
/// ```
/// use hurray_runtime::tags::ElementType;
/// use hurray_runtime::writer;
///
/// let mut d = writer::row_major(ElementType::Float32, &[2, 3]);
/// d.fixed_header.rank = 7;
/// writer::normalize(&mut d)?;
/// assert_eq!(d.fixed_header.rank, 2);
/// assert_eq!(d.fixed_header.descriptor_length as usize, d.to_bytes().len());
/// assert_eq!(writer::finalize(d.clone())?, d.to_bytes());
/// # Ok::<(), writer::WriteError>(())
/// ```
pub fn normalize(d: &mut Descriptor) -> Result<(), WriteError> {
    d.sync_presence_flags();
    d.fixed_header.rank = i128::try_from(d.shape.len())
        .ok()
        .and_then(Integer::exact)
        .ok_or_else(|| invalid(Rule::Shp1, "a descriptor's rank is at most 64"))?;
    let magic = crate::structures::FixedHeaderView::EXPECTED_MAGIC;
    if d.fixed_header.magic != magic {
        d.fixed_header.magic = magic.to_vec();
    }
    for (axis, v) in required_versions(d) {
        // W4: what the declared version defines is written whole.
        d.fill_defaults(axis, v);
        if axis == Axis::Descriptor {
            d.fixed_header.version_major = v.major;
            d.fixed_header.version_minor = v.minor;
        } else if let Some(q) = &mut d.quantization
            && Axis::of_scheme(q.payload.tag()) == Some(axis)
            && let Some(h) = q.payload.header_mut()
        {
            h.scheme_version = v.minor;
        }
    }
    // Every length prefix a structure holds of itself (the descriptor's `descriptor_length`,
    // a flag-gated section's own prefix) to its encoded length.
    d.sync_length_prefixes()?;
    Ok(())
}

/// A writer rule about single tag values, applied to every tag field a descriptor carries.
trait TagRule {
    fn check<T: TagSpace>(&self, raw: u32) -> Result<(), WriteError>;
}

/// Apply `rule` to every tag value of `d`.
fn each_tag(d: &Descriptor, rule: &impl TagRule) -> Result<(), WriteError> {
    let h = &d.fixed_header;
    rule.check::<crate::tags::ElementType>(h.type_tag.raw())?;
    rule.check::<crate::tags::Layout>(h.layout_tag.raw())?;
    for b in &d.buffer_table.buffers {
        rule.check::<crate::tags::Device>(b.device_tag.raw())?;
        rule.check::<crate::tags::SyncMode>(b.sync_mode.raw())?;
        rule.check::<crate::tags::MemoryClass>(b.memory_class.raw())?;
    }
    if let Some(q) = &d.quantization {
        rule.check::<crate::tags::Scheme>(q.payload.tag())?;
    }
    Ok(())
}

/// VER-9: no reserved, unallocated or invalid tag value.
struct NeverReserved;

impl TagRule for NeverReserved {
    fn check<T: TagSpace>(&self, raw: u32) -> Result<(), WriteError> {
        match T::classify(raw) {
            TagClass::Known(_) | TagClass::Private => Ok(()),
            TagClass::UnallocatedPublic { .. } | TagClass::Reserved | TagClass::Invalid => {
                Err(invalid(
                    Rule::Ver9,
                    format!("{raw:#04x} is not an allocated {} value", T::NAME),
                ))
            }
        }
    }
}

/// W3: no deprecated value where a replacement exists.
struct NoDeprecated;

impl TagRule for NoDeprecated {
    fn check<T: TagSpace>(&self, raw: u32) -> Result<(), WriteError> {
        if let TagClass::Known(t) = T::classify(raw)
            && let (Some(since), Some(r)) = (t.deprecated_since(), t.replacement())
        {
            return Err(invalid(
                Rule::Ver7,
                format!(
                    "{} `{}` is deprecated since {since}; write `{}` instead (W3)",
                    T::NAME,
                    t.name(),
                    r.name()
                ),
            ));
        }
        Ok(())
    }
}

/// VER-9: no reserved flag bit and no reserved, unallocated or invalid tag value. (Reserved
/// bytes cannot be set: owned structures have no member for them and encode zeros.)
fn never_reserved(d: &Descriptor) -> Result<(), WriteError> {
    each_tag(d, &NeverReserved)?;
    let bits = d.fixed_header.flags.bits();
    let known = crate::flags::DescriptorFlags::known_at(Axis::Descriptor.current());
    if bits & !known != 0 {
        return Err(invalid(
            Rule::Ver9,
            format!("descriptor flag bit(s) {:#x} are reserved", bits & !known),
        ));
    }
    Ok(())
}

/// A writer obligation broken at `at` (an offset in the descriptor).
fn refused(rule: Rule, at: u64, detail: impl Into<String>) -> WriteError {
    WriteError::Invalid(Error::new(rule, at, detail))
}

/// SHD-3: "The shard fields parent_shape and shard_offset never carry the dynamic sentinel
/// 0xFFFFFFFFFFFFFFFF (RES-36)." Checked on the owned value, before a reader's SHD-2 would
/// reject the encoding under its own rule.
fn shd_3(d: &Descriptor) -> Result<(), WriteError> {
    let Some(shard) = &d.shard else {
        return Ok(());
    };
    for (field, values) in [
        ("parent_shape", &shard.parent_shape),
        ("shard_offset", &shard.shard_offset),
    ] {
        if let Some(k) = values.iter().position(|v| v.to::<u64>() == DYNAMIC) {
            return Err(invalid(
                Rule::Shd3,
                format!("the shard's {field}[{k}] holds the dynamic sentinel"),
            ));
        }
    }
    Ok(())
}

/// The writer's obligations that no reader rule enforces, on a descriptor as it reads back:
/// what a writer must refuse although a reader accepts it.
/// Everything a writer checks of one tensor before writing a byte of it: the descriptor reads
/// back under `cfg`, the writer obligations hold, the buffers given match its buffer table
/// (else `mismatch`, the placement rule of what is written), and the data rules hold on the
/// buffers at the offsets they are about to be written at. `name` names the tensor in
/// messages. Nothing a reader rejects is written.
pub(crate) fn checked_tensor<'a>(
    name: &str,
    descriptor: &'a [u8],
    buffers: &[&[u8]],
    offsets: &[u64],
    cfg: &ReaderConfig,
    mismatch: Rule,
) -> Result<descriptor::Checked<'a>, WriteError> {
    let mut checked = descriptor::read(descriptor, cfg)?;
    obligations(&checked)?;
    let table = checked.view.buffer_table().buffers();
    if table.len() != buffers.len()
        || table
            .iter()
            .zip(buffers)
            .any(|(h, b)| h.byte_size().to::<u64>() != b.len() as u64)
    {
        return Err(invalid(
            mismatch,
            format!(
                "`{name}`: the buffers given ({} of {:?} bytes) do not match the descriptor's buffer table {:?}",
                buffers.len(),
                buffers.iter().map(|b| b.len()).collect::<Vec<_>>(),
                table.iter().map(|h| h.byte_size()).collect::<Vec<_>>()
            ),
        ));
    }
    descriptor::check_data(&mut checked, buffers, offsets, cfg)?;
    dat_1(&checked, buffers)?;
    Ok(checked)
}

fn obligations(checked: &descriptor::Checked<'_>) -> Result<(), WriteError> {
    let v = &checked.view;
    ext_5_and_6(v)?;
    bp_15(v)?;
    bp_18(v)?;
    sta_6(&checked.warnings)
}

/// EXT-5: "A float extension type (is_float = 1) has is_signed = 0 and sign_bits 0 or 1."
/// EXT-6: "An integer extension type (is_float = 0) has sign_bits, exponent_bits,
/// mantissa_bits and exponent_bias all 0."
fn ext_5_and_6(v: &DescriptorView<'_>) -> Result<(), WriteError> {
    let Some(e) = v.extension_type() else {
        return Ok(());
    };
    if e.is_float() == 1 {
        if e.is_signed() != 0 {
            return Err(refused(
                Rule::Ext5,
                e.is_signed_at(),
                format!("a float extension type has is_signed {}", e.is_signed()),
            ));
        }
        if e.sign_bits() > 1 {
            return Err(refused(
                Rule::Ext5,
                e.sign_bits_at(),
                format!("a float extension type has sign_bits {}", e.sign_bits()),
            ));
        }
    } else {
        let float_fields = [
            ("sign_bits", e.sign_bits().wide(), e.sign_bits_at()),
            (
                "exponent_bits",
                e.exponent_bits().wide(),
                e.exponent_bits_at(),
            ),
            (
                "mantissa_bits",
                e.mantissa_bits().wide(),
                e.mantissa_bits_at(),
            ),
            (
                "exponent_bias",
                e.exponent_bias().wide(),
                e.exponent_bias_at(),
            ),
        ];
        if let Some((field, value, at)) = float_fields.iter().find(|(_, value, _)| *value != 0) {
            return Err(refused(
                Rule::Ext6,
                *at,
                format!("an integer extension type has {field} {value}"),
            ));
        }
    }
    Ok(())
}

/// BP-15: "Per-channel quantization (0x02) of a block-paged tensor never quantizes axis 0,
/// axes 1 and 2 being allowed and per-tensor (0x01) composing unchanged."
fn bp_15(v: &DescriptorView<'_>) -> Result<(), WriteError> {
    if let (LayoutVariantView::BlockPaged(_), Some(q)) = (v.layout_fields(), v.quantization())
        && let SchemeVariantView::PerChannelAffine(p) = q.payload()
        && p.axis() == 0
    {
        return Err(refused(
            Rule::Bp15,
            p.axis_at(),
            "per-channel quantization of a block-paged tensor along axis 0",
        ));
    }
    Ok(())
}

/// BP-18: "A block-paged tensor whose num_pages exceeds the u32 range uses
/// block_table_index_type 0x01 (u64)."
fn bp_18(v: &DescriptorView<'_>) -> Result<(), WriteError> {
    if let LayoutVariantView::BlockPaged(b) = v.layout_fields()
        && b.num_pages().wide() > i128::from(u32::MAX)
        && b.block_table_index_type().get() != Ok(BlockTableIndexType::U64)
    {
        return Err(refused(
            Rule::Bp18,
            b.block_table_index_type_at(),
            format!(
                "num_pages {} exceeds the u32 range but the block table's index type is {:#04x}",
                b.num_pages(),
                b.block_table_index_type().raw()
            ),
        ));
    }
    Ok(())
}

/// STA-6: "Under their mask bits, sparsity_ratio lies in [0.0, 1.0], value_stddev ≥ 0.0,
/// nm_n ≤ nm_m, and has_nan and has_inf are 0 or 1: writers refuse a violation and readers
/// report it as a warning (RES-35)." The reader's warning is the writer's refusal.
fn sta_6(warnings: &[crate::ctx::Warning]) -> Result<(), WriteError> {
    match warnings.iter().find(|w| w.rule == Rule::Sta6) {
        Some(w) => Err(refused(Rule::Sta6, w.offset, w.detail.clone())),
        None => Ok(()),
    }
}

/// DAT-1: "The padding bits of packed element data, in the last byte or the last 3-byte
/// group, are 0." Checked for the dense layouts, whose data buffer holds the elements from
/// `byte_offset` on, packed LSB-first: every bit after the last element's, up to the end of
/// the bytes the elements take (a whole last byte, or a whole last 3-byte group), is 0.
fn dat_1(checked: &descriptor::Checked<'_>, buffers: &[&[u8]]) -> Result<(), WriteError> {
    let facts = crate::semantic::Facts::new(&checked.view);
    let bits = match facts.elem {
        Some(ElementSize::Packed { bits }) => u64::from(bits),
        Some(ElementSize::Group6) => 6,
        _ => return Ok(()),
    };
    let dense = matches!(
        checked.view.layout_fields(),
        LayoutVariantView::RowMajor | LayoutVariantView::ColumnMajor
    );
    let (Some(count), Some(data)) = (facts.count.and_then(|n| n.get()), buffers.first()) else {
        return Ok(());
    };
    if !dense || count == 0 {
        return Ok(());
    }
    let Some(elem) = facts.elem else {
        return Ok(());
    };
    // The reader's footprint checks passed, so these bytes lie inside the buffer; a value
    // that does not compute is left to them.
    let length = elem.bytes(Size::new(count)).get();
    let start = usize::try_from(checked.view.byte_offset()).ok();
    let (Some(length), Some(start), Some(used_bits)) = (
        length.and_then(|l| usize::try_from(l).ok()),
        start,
        count.checked_mul(u128::from(bits)),
    ) else {
        return Ok(());
    };
    let Some(bytes) = start
        .checked_add(length)
        .and_then(|end| data.get(start..end))
    else {
        return Ok(());
    };
    // Bits are numbered LSB-first across the bytes; the padding starts at `used_bits`.
    let total_bits = 8 * bytes.len() as u128;
    let mut bit = used_bits;
    while bit < total_bits {
        let byte = (bit / 8) as usize;
        let mask = 0xffu8 << (bit % 8);
        if bytes[byte] & mask != 0 {
            return Err(refused(
                Rule::Dat1,
                0,
                format!(
                    "byte {} of the packed data sets padding bits (mask {mask:#04x}) after its {count} elements",
                    start + byte
                ),
            ));
        }
        bit = (bit / 8 + 1) * 8;
    }
    Ok(())
}

/// W3: no deprecated tag value or flag bit where a replacement exists.
fn w3(d: &Descriptor) -> Result<(), WriteError> {
    each_tag(d, &NoDeprecated)?;
    if d.fixed_header.flags.bits() & crate::flags::DescriptorFlags::deprecated_mask() != 0 {
        return Err(invalid(
            Rule::Ver7,
            "a deprecated descriptor flag bit is set (W3)",
        ));
    }
    Ok(())
}

/// A row-major descriptor of `element` with `shape`: one CPU buffer of exactly the data's
/// size, alignment 64. Pass it to [`finalize`] once complete.
pub fn row_major(element: crate::tags::ElementType, shape: &[u64]) -> Descriptor {
    use crate::structures::{BufferHandle, BufferTable, FixedHeader, LayoutVariant};
    use crate::wire::TagValue;
    // A dynamic dimension holds no data yet (an empty buffer). A count or byte size too large
    // to compute saturates to a buffer size `finalize` refuses under the rule it breaks.
    let n = crate::semantic::elements::element_count(shape.iter().copied()).unwrap_or(0);
    let size = crate::semantic::elements::ElementSize::of(element).bytes_for(n);
    let initial = Axis::Descriptor.initial();
    Descriptor::new(
        FixedHeader::new(
            crate::structures::FixedHeaderView::EXPECTED_MAGIC.to_vec(),
            initial.major,
            initial.minor,
            0,
            crate::flags::DescriptorFlags(0),
            TagValue::new(element),
            TagValue::new(crate::tags::Layout::RowMajor),
            Integer::saturating(i128::try_from(shape.len()).unwrap_or(i128::MAX)),
        ),
        shape.iter().map(|d| d.to()).collect(),
        0,
        LayoutVariant::RowMajor,
        BufferTable::new(vec![BufferHandle::new(
            Integer::saturating(i128::try_from(size).unwrap_or(i128::MAX)),
            64,
            TagValue::new(crate::tags::Device::Cpu),
            TagValue::new(crate::tags::SyncMode::ProducerSynced),
            TagValue::new(crate::tags::MemoryClass::Standard),
        )]),
    )
}

/// The payload of a private quantization scheme: the common header, then `data` (a section
/// declared with `#[derive(HurraySection)]`, written at `scheme_version`).
pub fn private_scheme(
    tag: u8,
    scheme_version: u8,
    flags: u16,
    data: Vec<u8>,
) -> crate::structures::SchemeVariant {
    use crate::structures::{PrivateScheme, QuantizationHeader, SchemeVariant};
    SchemeVariant::Private(
        u32::from(tag),
        PrivateScheme::new(
            QuantizationHeader::new(
                crate::wire::TagValue::from_raw(u32::from(tag)),
                scheme_version,
                flags,
            ),
            data,
        ),
    )
}
