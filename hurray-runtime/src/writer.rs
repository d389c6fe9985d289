//! Writing: a single-pass file writer that never seeks back (container.md §11.3), and the
//! writer rules of the versioning model for descriptors (W1–W4): the lowest version that
//! covers what is emitted, no deprecated value when a replacement exists, whole trailing
//! fields, no reserved bit, byte or value.

use std::io::Write;

use crate::consts;
use crate::ctx::ReaderConfig;
use crate::descriptor;
use crate::error::Error;
use crate::generated::axes::Axis;
use crate::generated::flags::FileFlags;
use crate::generated::rules::Rule;
use crate::structures::{
    Descriptor, FileHeader, IndexEntry, IndexSection, KvEntry, KvSection, Trailer,
};
use crate::version::Version;
use crate::wire::{FlagSet, TagClass, TagSpace};

/// Why a writer refused.
#[derive(Debug)]
pub enum WriteError {
    /// What would be written breaks a rule.
    Invalid(Error),
    Io(std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Invalid(e) => write!(f, "error[{}]: {e}", e.code()),
            WriteError::Io(e) => write!(f, "I/O error: {e}"),
        }
    }
}

impl std::error::Error for WriteError {}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
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

/// A single-pass writer of a file container.
#[derive(Debug)]
pub struct FileWriter<W: Write> {
    out: W,
    pos: u64,
    header: FileHeader,
    index: IndexSection,
}

impl<W: Write> FileWriter<W> {
    /// Start a file: the header is written now, with every flag decided (HAS_INDEX_CRC32C
    /// always, RES-5).
    pub fn new(out: W, options: &FileOptions) -> Result<FileWriter<W>, WriteError> {
        let mut flags = FileFlags::HAS_INDEX_CRC32C;
        if options.kv {
            flags = flags.with(FileFlags::HAS_KV_METADATA);
        }
        if options.sorted_index {
            flags = flags.with(FileFlags::SORTED_INDEX);
        }
        let v = options.container_version;
        let header = FileHeader::new(
            b"HRRYFILE".to_vec(),
            v.major,
            v.minor,
            flags,
            options.data_buffer_alignment,
            crate::file::HEADER_SIZE,
            options.tensor_count_hint.unwrap_or(u64::MAX),
        );
        Self::with_header(out, header)
    }

    /// Start a file with an explicit header (to re-encode a file exactly as it was read).
    pub fn with_header(mut out: W, header: FileHeader) -> Result<FileWriter<W>, WriteError> {
        let a = header.data_buffer_alignment;
        if !a.is_power_of_two() || !(4096..=2_097_152).contains(&a) {
            return Err(invalid(
                Rule::F17,
                format!("data_buffer_alignment {a} is not a power of two in [4096, 2097152]"),
            ));
        }
        if header.first_descriptor_offset < crate::file::HEADER_SIZE
            || !header.first_descriptor_offset.is_multiple_of(8)
        {
            return Err(invalid(
                Rule::F18,
                "first_descriptor_offset must be ≥ 64 and a multiple of 8",
            ));
        }
        if header.file_flags.0 as u64 & !FileFlags::ALLOCATED != 0 {
            return Err(invalid(Rule::Ver9, "a reserved file flag bit is set"));
        }
        let bytes = header.to_bytes();
        out.write_all(&bytes)?;
        let mut w = FileWriter {
            out,
            pos: bytes.len() as u64,
            header,
            index: IndexSection::new(Vec::new()),
        };
        let first = w.header.first_descriptor_offset;
        w.pad_to(first)?;
        Ok(w)
    }

    fn pad_to(&mut self, at: u64) -> Result<(), WriteError> {
        const ZEROS: [u8; 4096] = [0; 4096];
        while self.pos < at {
            let n = ((at - self.pos) as usize).min(ZEROS.len());
            self.out.write_all(&ZEROS[..n])?;
            self.pos += n as u64;
        }
        Ok(())
    }

    fn align(&mut self, a: u64) -> Result<(), WriteError> {
        let at = self.pos.div_ceil(a) * a;
        self.pad_to(at)
    }

    /// Write one tensor: its descriptor bytes and its buffers, in buffer-table order.
    pub fn add_tensor(
        &mut self,
        name: &str,
        descriptor: &[u8],
        buffers: &[&[u8]],
    ) -> Result<(), WriteError> {
        if name.is_empty() || name.len() > usize::from(u16::MAX) {
            return Err(invalid(Rule::F28, "a tensor name is 1 to 65535 bytes"));
        }
        if self.index.entries.iter().any(|e| e.name == name) {
            return Err(invalid(
                Rule::F25,
                format!("the name `{name}` is already used"),
            ));
        }
        let cfg = ReaderConfig::new().permissive(true);
        let mut checked = descriptor::read(descriptor, &cfg)?;
        let sizes: Vec<u64> = checked
            .view
            .buffer_table()
            .buffers()
            .iter()
            .map(|b| b.byte_size())
            .collect();
        if sizes.len() != buffers.len()
            || sizes.iter().zip(buffers).any(|(z, b)| *z != b.len() as u64)
        {
            return Err(invalid(
                Rule::F31,
                format!(
                    "`{name}`: the buffers given ({} of {:?} bytes) do not match the descriptor's buffer table {sizes:?}",
                    buffers.len(),
                    buffers.iter().map(|b| b.len()).collect::<Vec<_>>()
                ),
            ));
        }
        // Placement (container.md §5.1): the descriptor at the next multiple of 8, each
        // buffer at the next multiple of A; a tensor without buffers owns no data (RES-13).
        let a = u64::from(self.header.data_buffer_alignment);
        let d = self.pos.next_multiple_of(consts::DESCRIPTOR_ALIGNMENT);
        let mut at = d + descriptor.len() as u64;
        let offsets: Vec<u64> = buffers
            .iter()
            .map(|b| {
                let start = at.next_multiple_of(a);
                at = start + b.len() as u64;
                start
            })
            .collect();
        let (data_offset, data_length) = match offsets.first() {
            Some(&start) => (start, at - start),
            None => (at, 0),
        };
        // Never write data a reader rejects: the data checks run on the buffers, at the
        // offsets they are about to be written at.
        descriptor::check_data(&mut checked, buffers, &offsets, &cfg)?;
        self.pad_to(d)?;
        self.out.write_all(descriptor)?;
        self.pos += descriptor.len() as u64;
        for (b, o) in buffers.iter().zip(&offsets) {
            self.pad_to(*o)?;
            self.out.write_all(b)?;
            self.pos += b.len() as u64;
        }
        // RES-3: pad only to the next multiple of 8 after the last buffer.
        self.align(consts::AFTER_LAST_BUFFER.max(consts::DESCRIPTOR_ALIGNMENT))?;
        self.index.entries.push(IndexEntry::new(
            name.to_string(),
            d,
            descriptor.len() as u32,
            data_offset,
            data_length,
            crate::flags::IndexEntryFlags(0),
        ));
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
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(invalid(Rule::F8, "a KV key appears twice"));
        }
        if flags.has(FileFlags::HAS_KV_METADATA) && kv.is_empty() {
            // RES-4: the flag promises a section; an empty one still carries its count.
        }
        let write_kv = flags.has(FileFlags::HAS_KV_METADATA) || !kv.is_empty();
        let (kv_offset, kv_length) = if write_kv {
            self.align(consts::KV_ALIGNMENT)?;
            let mut section = KvSection {
                entries: kv.to_vec(),
                skipped: Vec::new(),
            };
            section.fill_defaults(Axis::Container, declared);
            let bytes = section.to_bytes();
            let at = self.pos;
            self.out.write_all(&bytes)?;
            self.pos += bytes.len() as u64;
            let len = u32::try_from(bytes.len())
                .map_err(|_| invalid(Rule::F19, "the KV section exceeds 4 GiB"))?;
            (at, len)
        } else {
            (0, 0)
        };
        if flags.has(FileFlags::SORTED_INDEX) {
            self.index
                .entries
                .sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        }
        self.align(consts::INDEX_ALIGNMENT)?;
        self.index.fill_defaults(Axis::Container, declared);
        let index = self.index.to_bytes();
        let index_offset = self.pos;
        self.out.write_all(&index)?;
        self.pos += index.len() as u64;
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
            b"HRRY".to_vec(),
        );
        self.out.write_all(&trailer.to_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }
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

/// The versions each axis needs, raised one requirement at a time.
struct Needs(std::cell::RefCell<Vec<(Axis, Version)>>);

impl Needs {
    fn bump(&self, axis: Axis, v: Version) {
        if let Some(e) = self.0.borrow_mut().iter_mut().find(|(a, _)| *a == axis) {
            e.1 = e.1.max(v);
        }
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
pub fn required_versions(d: &Descriptor) -> Vec<(Axis, Version)> {
    let needs = Needs(std::cell::RefCell::new(
        Axis::ALL.iter().map(|a| (*a, a.initial())).collect(),
    ));
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
    needs.0.into_inner()
}

/// Apply the writer rules to an owned descriptor: set the version to the lowest that covers
/// what it emits (W1, W2), the scheme version likewise, the flags to the sections present, and
/// the descriptor length to the encoded size; then refuse what breaks W3 or a reader rule.
pub fn finalize(d: Descriptor) -> Result<Vec<u8>, WriteError> {
    finalize_with(d, &ReaderConfig::new().permissive(true))
}

/// [`finalize`], checking the result as `config` reads it: a writer that emits private values
/// agreed out of band (a private device or memory class, which every reader without the
/// agreement rejects, BH-12, BH-15) passes the agreed reader configuration.
pub fn finalize_with(mut d: Descriptor, config: &ReaderConfig) -> Result<Vec<u8>, WriteError> {
    d.sync_presence_flags();
    d.fixed_header.rank = d.shape.len() as u32;
    d.fixed_header.magic = b"HRRY".to_vec();
    for (axis, v) in required_versions(&d) {
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
    w3(&d)?;
    never_reserved(&d)?;
    d.fixed_header.descriptor_length = 0;
    let len = d.to_bytes().len() as u32;
    d.fixed_header.descriptor_length = len;
    let bytes = d.to_bytes();
    descriptor::read(&bytes, config)?;
    Ok(bytes)
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
            _ => Err(invalid(
                Rule::Ver9,
                format!("{raw:#04x} is not an allocated {} value", T::NAME),
            )),
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
    let n = crate::semantic::elements::element_count(shape.iter().copied()).unwrap_or(0);
    let size = crate::semantic::elements::ElementSize::of(element).bytes_for(n);
    Descriptor::new(
        FixedHeader::new(
            b"HRRY".to_vec(),
            1,
            0,
            0,
            crate::flags::DescriptorFlags(0),
            TagValue::new(element),
            TagValue::new(crate::tags::Layout::RowMajor),
            shape.len() as u32,
        ),
        shape.to_vec(),
        0,
        LayoutVariant::RowMajor,
        BufferTable::new(vec![BufferHandle::new(
            u64::try_from(size).unwrap_or(u64::MAX),
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
