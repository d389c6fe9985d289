//! The runtime's reading API as the integration tests use it: every entry point the corpus
//! tests call to read a descriptor or a file, or to parse one part of either alone, goes
//! through here, so a change of the reader's API is adapted in this file only.

use hurray_runtime::ctx::Ctx;
use hurray_runtime::descriptor::{self, Checked};
use hurray_runtime::file::{self, FileView};
use hurray_runtime::rules::Rule;
use hurray_runtime::structures::{
    Descriptor, DescriptorView, FileHeader, FileHeaderView, FixedHeaderView, IndexEntry,
    IndexSectionView, KvEntry, KvSectionView, Trailer, TrailerView,
};
use hurray_runtime::tags::{
    BlockTableIndexType, CombineOp, CompositionRule, Device, ElementType, KvRole, KvValue, Layout,
    MemberRole, MemoryClass, Scheme, SyncMode,
};
use hurray_runtime::wire::{Reader, TagSpace};
use hurray_runtime::{Error, ReaderConfig, Value, Warning, contract};

/// Read one descriptor that spans exactly `bytes`, every rule applied.
pub fn read_descriptor<'a>(bytes: &'a [u8], config: &ReaderConfig) -> Result<Checked<'a>, Error> {
    descriptor::read(bytes, config)
}

/// Apply the data checks of a descriptor to its buffers (`offsets` are what errors report).
pub fn check_descriptor_data(
    checked: &mut Checked<'_>,
    buffers: &[&[u8]],
    offsets: &[u64],
    config: &ReaderConfig,
) -> Result<(), Error> {
    descriptor::check_data(checked, buffers, offsets, config)
}

/// Read a whole file container, every rule applied (data checks included).
pub fn read_file<'a>(bytes: &'a [u8], config: &ReaderConfig) -> Result<FileView<'a>, Error> {
    file::read(bytes, config)
}

/// A file read with every rule applied, as owned values: what the tests look at.
#[derive(Debug)]
pub struct DecodedFile {
    pub header: FileHeader,
    pub trailer: Trailer,
    /// In index order.
    pub tensors: Vec<DecodedTensor>,
    /// Tensor positions in the order they were written (by descriptor offset).
    pub write_order: Vec<usize>,
    pub kv: Vec<KvEntry>,
    pub composites: Vec<DecodedComposite>,
    pub warnings: Vec<Warning>,
    /// The contract value `hurray decode --json` prints.
    pub contract: Value,
}

#[derive(Debug)]
pub struct DecodedTensor {
    pub name: String,
    pub entry: IndexEntry,
    pub descriptor: Descriptor,
    /// The descriptor's bytes as the file holds them.
    pub descriptor_bytes: Vec<u8>,
    pub dereferenceable: bool,
    /// The tensor's data region.
    pub data: Vec<u8>,
    /// Each buffer's absolute offset and bytes.
    pub buffers: Vec<(u64, Vec<u8>)>,
}

#[derive(Debug)]
pub struct DecodedComposite {
    /// Positions in `tensors`.
    pub head: usize,
    pub members: Vec<usize>,
    pub complete: bool,
}

impl DecodedFile {
    pub fn tensor(&self, name: &str) -> Option<&DecodedTensor> {
        self.tensors.iter().find(|t| t.name == name)
    }
}

/// Read a whole file, every rule applied, into owned values.
pub fn decode_file(bytes: &[u8], config: &ReaderConfig) -> Result<DecodedFile, Error> {
    let f = read_file(bytes, config)?;
    let mut tensors = Vec::with_capacity(f.len());
    for t in f.tensors() {
        let t = t?;
        let checked = t.descriptor();
        tensors.push(DecodedTensor {
            name: t.name().to_string(),
            entry: t.entry().owned(),
            descriptor: checked.view().owned(),
            descriptor_bytes: checked.view().bytes().to_vec(),
            dereferenceable: checked.dereferenceable(),
            data: t.data().to_vec(),
            buffers: t
                .buffers()
                .iter()
                .map(|(at, b)| (*at, b.to_vec()))
                .collect(),
        });
    }
    Ok(DecodedFile {
        header: f.header().owned(),
        trailer: f.trailer().owned(),
        tensors,
        write_order: f.write_order(),
        kv: f
            .kv()
            .map(|k| k.entries().iter().map(|e| e.owned()).collect())
            .unwrap_or_default(),
        composites: f
            .composites()?
            .iter()
            .map(|c| DecodedComposite {
                head: c.head,
                members: c.members.clone(),
                complete: c.complete,
            })
            .collect(),
        warnings: f.warnings(),
        contract: contract::file_value(&f)?,
    })
}

/// What reading a vector produced when it did not reject it.
#[derive(Debug)]
pub struct Outcome {
    pub warnings: Vec<Warning>,
    pub dereferenceable: bool,
}

/// Read a vector by its kind (`file` or `descriptor`) and summarize the outcome.
pub fn outcome(is_file: bool, bytes: &[u8], config: &ReaderConfig) -> Result<Outcome, Error> {
    if is_file {
        let f = decode_file(bytes, config)?;
        Ok(Outcome {
            dereferenceable: f.tensors.iter().all(|t| t.dereferenceable)
                && f.composites.iter().all(|c| c.complete),
            warnings: f.warnings,
        })
    } else {
        let d = read_descriptor(bytes, config)?;
        Ok(Outcome {
            warnings: d.warnings().to_vec(),
            dereferenceable: d.dereferenceable(),
        })
    }
}

/// The generated (structural) layer alone, without the semantic rules: the descriptor that
/// starts `bytes`, whose first byte is at absolute offset `base`.
pub fn parse_descriptor<'a>(
    bytes: &'a [u8],
    base: u64,
    config: &ReaderConfig,
) -> Result<DescriptorView<'a>, Error> {
    let mut ctx = Ctx::new(config);
    DescriptorView::parse(&mut Reader::new(bytes, base, Rule::Hdr5), &mut ctx)
}

/// The fixed header of the descriptor that starts `bytes`, parsed alone.
pub fn parse_fixed_header(bytes: &[u8], base: u64) -> Result<FixedHeaderView<'_>, Error> {
    let config = ReaderConfig::new();
    let mut ctx = Ctx::new(&config);
    FixedHeaderView::parse(&mut Reader::new(bytes, base, Rule::Hdr5), &mut ctx)
}

/// The parts of a file, each parsed alone from where the trailer says it is, so that a file
/// whose tensors or composites break a rule still shows its header, trailer, index and KV.
#[derive(Debug)]
pub struct FileParts<'a> {
    pub header: Option<FileHeaderView<'a>>,
    pub trailer: Option<TrailerView<'a>>,
    pub index: Option<IndexSectionView<'a>>,
    pub kv: Option<KvSectionView<'a>>,
}

/// Parse a file's header, trailer, index and KV section, each on its own.
pub fn file_parts(bytes: &[u8]) -> FileParts<'_> {
    let config = ReaderConfig::new();
    let mut ctx = Ctx::new(&config);
    let header = FileHeaderView::parse(&mut Reader::new(bytes, 0, Rule::Len3), &mut ctx).ok();
    let trailer = bytes.len().checked_sub(TrailerView::SIZE).and_then(|at| {
        TrailerView::parse(
            &mut Reader::new(&bytes[at..], at as u64, Rule::Len3),
            &mut ctx,
        )
        .ok()
    });
    let section = |offset: u64, length: u64| -> Option<(&[u8], u64)> {
        let start = usize::try_from(offset).ok()?;
        let end = start.checked_add(usize::try_from(length).ok()?)?;
        Some((bytes.get(start..end)?, offset))
    };
    let index = trailer
        .and_then(|t| section(t.index_offset(), t.index_length()))
        .and_then(|(b, at)| {
            IndexSectionView::parse(&mut Reader::new(b, at, Rule::F24), &mut ctx).ok()
        });
    let kv = trailer
        .filter(|t| t.kv_length() != 0)
        .and_then(|t| section(t.kv_offset(), u64::from(t.kv_length())))
        .and_then(|(b, at)| {
            KvSectionView::parse(&mut Reader::new(b, at, Rule::F19), &mut ctx).ok()
        });
    FileParts {
        header,
        trailer,
        index,
        kv,
    }
}

/// A reader configuration that agrees on `raw` in the tag space named `space`.
pub fn agree_by_name(config: ReaderConfig, space: &str, raw: u32) -> ReaderConfig {
    macro_rules! spaces {
        ($($t:ty),*) => {
            $(if space == <$t>::NAME { return config.agree::<$t>(raw); })*
        };
    }
    spaces!(
        ElementType,
        Layout,
        Device,
        SyncMode,
        MemoryClass,
        Scheme,
        KvValue,
        CompositionRule,
        CombineOp,
        MemberRole,
        BlockTableIndexType,
        KvRole
    );
    panic!("no tag space `{space}`")
}
