//! Fields of a descriptor or a file named by their spec path (`buffer_table.buffers[1].alignment`,
//! `quantization.payload.header.flags`, `trailer.index_crc32c`, `tensors.p0.descriptor.shard`),
//! resolved to absolute byte offsets through the runtime's generated views and offset
//! constants, never through a hand-computed number; and the bytes a table's value encodes to
//! in such a field, typed by the accessor's own return type.
//!
//! A path is dot-separated segments, each a spec field name with optional `[index]`es: an
//! element of an array, or a byte of a byte string or data buffer. Two names are ours, not
//! the spec's: `end` (the first byte after a structure) and, in a file, `tensors.<name>`
//! (the tensor the index names so, with `descriptor`, `data`, `buffers[k]` and `entry`).

use hurray_runtime::ReaderConfig;
use hurray_runtime::flags::{ComputedMask, DescriptorFlags, FileFlags, IndexEntryFlags};
use hurray_runtime::structures::{
    BufferHandleView, BufferTableView, CompositeMemberView, DescriptorView, ExtensionTypeView,
    FileHeaderView, FixedHeaderView, IndexEntryView, IndexSectionView, KvEntryView, KvSectionView,
    KvValueVariantView, LayoutBlockPagedView, LayoutCompositeView, LayoutCooView, LayoutCscView,
    LayoutCsrView, LayoutTiledView, LayoutVariantView, PerBlockAffineView, PerChannelAffineView,
    PerTensorAffineView, QuantizationHeaderView, QuantizationSectionView, SchemeVariantView,
    ShardView, StatisticsView, TrailerView,
};
use hurray_runtime::wire::{Array, Scalar, TagSpace, TagValue};
use toml::Value as T;

use super::access::{self, FileParts};
use super::tables;

/// How a field's bytes are written from a table value.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A structure or a position: nothing to write.
    Position,
    Unsigned,
    Signed,
    Float,
    /// A tag: a name of its space (looked up by the function) or a raw value.
    Tag(fn(&str) -> Option<u32>),
    /// Bytes: a byte string, reserved bytes, a data buffer.
    Bytes,
}

/// A resolved field: where it starts, how many bytes it spans (when known) and its kind.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    pub at: u64,
    pub len: Option<u64>,
    pub kind: Kind,
}

impl Slot {
    pub fn position(at: u64) -> Slot {
        Slot {
            at,
            len: None,
            kind: Kind::Position,
        }
    }

    pub fn bytes(at: u64, len: Option<u64>) -> Slot {
        Slot {
            at,
            len,
            kind: Kind::Bytes,
        }
    }

    /// The slot of a field from its absolute offset and its value (whose type gives the
    /// width and the encoding).
    fn of<F: Field>(at: u64, value: &F) -> Slot {
        value.slot(at)
    }

    /// The first byte after the field.
    fn after<F: Field>(at: u64, value: &F) -> u64 {
        let s = value.slot(at);
        at + s.len.expect("a field of known width")
    }
}

/// A field value's wire shape.
pub trait Field {
    fn slot(&self, at: u64) -> Slot;
}

macro_rules! numbers {
    ($kind:ident: $($t:ty),*) => {$(
        impl Field for $t {
            fn slot(&self, at: u64) -> Slot {
                Slot { at, len: Some(std::mem::size_of::<$t>() as u64), kind: Kind::$kind }
            }
        }
    )*};
}
numbers!(Unsigned: u8, u16, u32, u64);
numbers!(Signed: i8, i16, i32, i64);
numbers!(Float: f32, f64);

macro_rules! flag_sets {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn slot(&self, at: u64) -> Slot {
                Slot {
                    at,
                    len: Some(<$t as hurray_runtime::section::WireField>::SIZE as u64),
                    kind: Kind::Unsigned,
                }
            }
        }
    )*};
}
flag_sets!(DescriptorFlags, FileFlags, ComputedMask, IndexEntryFlags);

fn tag_by_name<S: TagSpace>(name: &str) -> Option<u32> {
    S::from_name(name).map(|t| t.value())
}

impl<S: TagSpace> Field for TagValue<S> {
    fn slot(&self, at: u64) -> Slot {
        Slot {
            at,
            len: Some(S::WIDTH as u64),
            kind: Kind::Tag(tag_by_name::<S>),
        }
    }
}

impl Field for &[u8] {
    fn slot(&self, at: u64) -> Slot {
        Slot::bytes(at, Some(self.len() as u64))
    }
}

impl Field for &str {
    fn slot(&self, at: u64) -> Slot {
        Slot::bytes(at, Some(self.len() as u64))
    }
}

/// Where a path is resolved.
#[derive(Debug)]
pub enum Root<'a> {
    Descriptor {
        bytes: &'a [u8],
        config: &'a ReaderConfig,
    },
    File {
        bytes: &'a [u8],
        config: &'a ReaderConfig,
    },
}

/// One step of a path: a name and its indexes.
#[derive(Debug)]
struct Step<'p> {
    name: &'p str,
    indexes: Vec<usize>,
}

fn steps(path: &str) -> Vec<Step<'_>> {
    path.split('.')
        .map(|s| {
            let (name, rest) = s.split_once('[').map_or((s, ""), |(n, r)| (n, r));
            let indexes = if rest.is_empty() {
                Vec::new()
            } else {
                format!("[{rest}")
                    .split(']')
                    .filter(|x| !x.is_empty())
                    .map(|x| {
                        x.trim_start_matches('[')
                            .parse()
                            .unwrap_or_else(|_| panic!("`{path}`: `{x}` is not an index"))
                    })
                    .collect()
            };
            Step { name, indexes }
        })
        .collect()
}

/// What a step lands on (views are small borrowed values; a resolution holds a handful).
#[allow(clippy::large_enum_variant)]
enum Node<'a> {
    Slot(Slot),
    /// A scalar array: its start, element count and the slot of element 0's shape.
    Scalars {
        at: u64,
        count: usize,
        elem: Slot,
    },
    Descriptor(DescriptorView<'a>),
    FixedHeader(FixedHeaderView<'a>),
    BufferTable(BufferTableView<'a>),
    Buffer(BufferHandleView<'a>),
    Layout(LayoutVariantView<'a>, u64),
    Tiled(LayoutTiledView<'a>),
    Quantization(QuantizationSectionView<'a>),
    Payload(SchemeVariantView<'a>, u64),
    SchemeHeader(QuantizationHeaderView<'a>),
    Shard(ShardView<'a>),
    Statistics(StatisticsView<'a>),
    ExtensionType(ExtensionTypeView<'a>),
    Member(CompositeMemberView<'a>),
    File,
    FileHeader(FileHeaderView<'a>),
    Trailer(TrailerView<'a>),
    Index(IndexSectionView<'a>),
    IndexEntries(IndexSectionView<'a>),
    IndexEntry(IndexEntryView<'a>),
    Kv(KvSectionView<'a>),
    KvEntries(KvSectionView<'a>),
    KvEntry(KvEntryView<'a>),
    KvValue(KvValueVariantView<'a>, u64),
    /// The elements of a KV array, and where they start.
    KvElements(KvValueVariantView<'a>, u64),
    Buffers(BufferTableView<'a>),
    Tensors,
    Tensor(String),
    /// A tensor's data buffers in a file: (absolute offset, size) each.
    TensorBuffers(Vec<(u64, u64)>),
}

fn scalars<E: Scalar + Field + Default>(at: u64, a: Array<'_, E>) -> Node<'static> {
    Node::Scalars {
        at,
        count: a.len(),
        elem: E::default().slot(at),
    }
}

/// Resolve `path` in `root`; an error says which step failed.
pub fn resolve(root: &Root<'_>, path: &str) -> Result<Slot, String> {
    let mut r = Resolver {
        root,
        parts: None,
        full: None,
    };
    r.resolve(path)
}

/// A tensor's name and its buffers' (absolute offset, size).
type TensorBuffers = (String, Vec<(u64, u64)>);

struct Resolver<'r, 'a> {
    root: &'r Root<'a>,
    parts: Option<FileParts<'a>>,
    full: Option<Result<Vec<TensorBuffers>, String>>,
}

/// Leaves of a view: each `name @ accessor_at` pair is a field whose accessor `name` gives
/// the value's type and `accessor_at` its absolute offset.
macro_rules! leaves {
    ($name:expr, $v:expr; $($acc:ident @ $at:ident),* $(,)?) => {
        $(if $name == stringify!($acc) {
            return Ok(Node::Slot(Slot::of($v.$at(), &$v.$acc())));
        })*
    };
}

impl<'r, 'a> Resolver<'r, 'a> {
    fn resolve(&mut self, path: &str) -> Result<Slot, String> {
        let mut node = match self.root {
            Root::Descriptor { bytes, config } => {
                match access::parse_descriptor(bytes, 0, config) {
                    Ok(v) => Node::Descriptor(v),
                    // A descriptor the structural layer rejects still has a fixed header, at
                    // the generated offsets.
                    Err(e) if path.starts_with("fixed_header") => {
                        return fixed_header_offset(path)
                            .map(Slot::position)
                            .ok_or_else(|| {
                                format!("`{path}`: the descriptor does not parse: {e}")
                            });
                    }
                    Err(e) => return Err(format!("`{path}`: the descriptor does not parse: {e}")),
                }
            }
            Root::File { .. } => Node::File,
        };
        let steps = steps(path);
        for (i, step) in steps.iter().enumerate() {
            node = match (&node, step.name) {
                (Node::FixedHeader(_), "fixed_header") if i == 0 => node,
                _ => self
                    .child(&node, step.name)
                    .map_err(|e| format!("`{path}` at `{}`: {e}", step.name))?,
            };
            for ix in &step.indexes {
                node = self
                    .index(node, *ix)
                    .map_err(|e| format!("`{path}` at `{}[{ix}]`: {e}", step.name))?;
            }
        }
        Ok(match node {
            Node::Slot(s) => s,
            Node::Scalars { at, .. } => Slot::position(at),
            other => Slot::position(self.start(&other)),
        })
    }

    /// The absolute offset where a structure node starts, and where it ends.
    fn start(&self, n: &Node<'a>) -> u64 {
        match n {
            Node::Slot(s) => s.at,
            Node::Scalars { at, .. } => *at,
            Node::Descriptor(v) => v.offset(),
            Node::FixedHeader(v) => v.offset(),
            Node::BufferTable(v) => v.offset(),
            Node::Buffer(v) => v.offset(),
            Node::Layout(_, at) | Node::Payload(_, at) | Node::KvValue(_, at) => *at,
            Node::Tiled(v) => v.offset(),
            Node::Quantization(v) => v.offset(),
            Node::SchemeHeader(v) => v.offset(),
            Node::Shard(v) => v.offset(),
            Node::Statistics(v) => v.offset(),
            Node::ExtensionType(v) => v.offset(),
            Node::Member(v) => v.offset(),
            Node::File | Node::Tensors => 0,
            Node::FileHeader(v) => v.offset(),
            Node::Trailer(v) => v.offset(),
            Node::Index(v) => v.offset(),
            Node::IndexEntries(v) => v.entries_at(),
            Node::IndexEntry(v) => v.offset(),
            Node::Kv(v) => v.offset(),
            Node::KvEntries(v) => v.entries_at(),
            Node::KvEntry(v) => v.offset(),
            Node::KvElements(_, at) => *at,
            Node::Buffers(v) => v.buffers_at(),
            Node::Tensor(_) | Node::TensorBuffers(_) => 0,
        }
    }

    fn end(&self, n: &Node<'a>) -> Result<u64, String> {
        let len = match n {
            Node::Descriptor(v) => v.bytes().len(),
            Node::FixedHeader(v) => v.bytes().len(),
            Node::BufferTable(v) => v.bytes().len(),
            Node::Buffer(v) => v.bytes().len(),
            Node::Tiled(v) => v.bytes().len(),
            Node::Quantization(v) => v.bytes().len(),
            Node::Payload(p, _) => match p {
                SchemeVariantView::PerTensorAffine(v) => v.bytes().len(),
                SchemeVariantView::PerChannelAffine(v) => v.bytes().len(),
                SchemeVariantView::PerBlockAffine(v) => v.bytes().len(),
                SchemeVariantView::Nf4(v) => v.bytes().len(),
                SchemeVariantView::Mxfp(v) => v.bytes().len(),
                SchemeVariantView::Private(_, v) => v.bytes().len(),
                SchemeVariantView::Opaque(_, b) => b.len(),
                other => panic!("no length for scheme {:#x}", other.tag()),
            },
            Node::Shard(v) => v.bytes().len(),
            Node::Statistics(v) => v.bytes().len(),
            Node::ExtensionType(v) => v.bytes().len(),
            Node::Member(v) => v.bytes().len(),
            Node::FileHeader(v) => v.bytes().len(),
            Node::Trailer(v) => v.bytes().len(),
            Node::Index(v) => v.bytes().len(),
            Node::IndexEntry(v) => v.bytes().len(),
            Node::Kv(v) => v.bytes().len(),
            Node::KvEntry(v) => v.bytes().len(),
            Node::Slot(Slot { len: Some(l), .. }) => *l as usize,
            Node::File => return Ok(self.root_bytes().len() as u64),
            _ => return Err("has no known end".into()),
        };
        Ok(self.start(n) + len as u64)
    }

    fn root_bytes(&self) -> &'a [u8] {
        match self.root {
            Root::Descriptor { bytes, .. } | Root::File { bytes, .. } => bytes,
        }
    }

    fn config(&self) -> &'a ReaderConfig {
        match self.root {
            Root::Descriptor { config, .. } | Root::File { config, .. } => config,
        }
    }

    fn parts(&mut self) -> &FileParts<'a> {
        let bytes = self.root_bytes();
        self.parts.get_or_insert_with(|| access::file_parts(bytes))
    }

    /// Buffer offsets and sizes of every tensor, from a full read of the file.
    fn buffers(&mut self, name: &str) -> Result<Vec<(u64, u64)>, String> {
        let (bytes, config) = (self.root_bytes(), self.config());
        let full = self.full.get_or_insert_with(|| {
            access::decode_file(bytes, config)
                .map(|f| {
                    f.tensors
                        .iter()
                        .map(|t| {
                            (
                                t.name.clone(),
                                t.buffers
                                    .iter()
                                    .map(|(at, b)| (*at, b.len() as u64))
                                    .collect(),
                            )
                        })
                        .collect()
                })
                .map_err(|e| {
                    format!("buffers are found by reading the whole file, which fails: {e}")
                })
        });
        let full = full.as_ref().map_err(|e| e.clone())?;
        full.iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| format!("no tensor `{name}`"))
    }

    fn entry(&mut self, name: &str) -> Result<IndexEntryView<'a>, String> {
        let index = self
            .parts()
            .index
            .clone()
            .ok_or("the index does not parse on its own")?;
        index
            .entries()
            .iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| format!("the index names no tensor `{name}`"))
    }

    fn index(&mut self, n: Node<'a>, i: usize) -> Result<Node<'a>, String> {
        let missing = || format!("has no element {i}");
        Ok(match n {
            Node::Scalars { at, count, elem } => {
                if i >= count {
                    return Err(missing());
                }
                let w = elem.len.expect("a scalar width");
                Node::Slot(Slot {
                    at: at + i as u64 * w,
                    ..elem
                })
            }
            Node::Buffers(v) => Node::Buffer(v.buffers().get(i).ok_or_else(missing)?),
            Node::IndexEntries(v) => Node::IndexEntry(v.entries().get(i).ok_or_else(missing)?),
            Node::KvEntries(v) => Node::KvEntry(v.entries().get(i).ok_or_else(missing)?),
            Node::TensorBuffers(b) => {
                let (at, len) = *b.get(i).ok_or_else(missing)?;
                Node::Slot(Slot::bytes(at, Some(len)))
            }
            Node::KvElements(KvValueVariantView::Array(a), _) => {
                let e = a.elements().get(i).ok_or_else(missing)?;
                let at = kv_value_at(&e).ok_or("an element without a position")?;
                Node::KvValue(e, at)
            }
            // A byte of anything with a position: a byte string, reserved bytes, a buffer, or
            // the bytes after a structure's end.
            other => Node::Slot(Slot::bytes(self.start(&other) + i as u64, Some(1))),
        })
    }

    fn child(&mut self, n: &Node<'a>, name: &str) -> Result<Node<'a>, String> {
        if name == "end" {
            return Ok(Node::Slot(Slot::bytes(self.end(n)?, None)));
        }
        let none = || Err("names no field of this part".to_string());
        match n {
            Node::Descriptor(v) => {
                leaves!(name, v; byte_offset @ byte_offset_at);
                Ok(match name {
                    "fixed_header" => Node::FixedHeader(v.fixed_header()),
                    "shape" => scalars(v.shape_at(), v.shape()),
                    "layout_fields" => Node::Layout(v.layout_fields(), v.layout_fields_at()),
                    "buffer_table" => Node::BufferTable(v.buffer_table()),
                    "quantization" => Node::Quantization(v.quantization().ok_or("absent")?),
                    "shard" => Node::Shard(v.shard().ok_or("absent")?),
                    "statistics" => Node::Statistics(v.statistics().ok_or("absent")?),
                    "extension_type" => Node::ExtensionType(v.extension_type().ok_or("absent")?),
                    "composite_member" => Node::Member(v.composite_member().ok_or("absent")?),
                    _ => return none(),
                })
            }
            Node::FixedHeader(v) => {
                leaves!(name, v; magic @ magic_at, version_major @ version_major_at,
                    version_minor @ version_minor_at, descriptor_length @ descriptor_length_at,
                    flags @ flags_at, type_tag @ type_tag_at, layout_tag @ layout_tag_at,
                    rank @ rank_at);
                none()
            }
            Node::BufferTable(v) => {
                leaves!(name, v; buffer_count @ buffer_count_at);
                match name {
                    "buffers" => Ok(Node::Buffers(*v)),
                    _ => none(),
                }
            }
            Node::Buffer(v) => {
                leaves!(name, v; byte_size @ byte_size_at, alignment @ alignment_at,
                    device_tag @ device_tag_at, sync_mode @ sync_mode_at,
                    memory_class @ memory_class_at);
                match name {
                    "_reserved" => Ok(Node::Slot(Slot::bytes(
                        v.offset() + BufferHandleView::OFFSET_RESERVED as u64,
                        None,
                    ))),
                    _ => none(),
                }
            }
            Node::Layout(l, _) => self.layout_child(l, name),
            Node::Tiled(v) => tiled_child(v, name),
            Node::Quantization(v) => {
                leaves!(name, v; quantization_length @ quantization_length_at);
                match name {
                    "payload" => Ok(Node::Payload(v.payload(), v.payload_at())),
                    _ => none(),
                }
            }
            Node::Payload(p, _) => payload_child(p, name),
            Node::SchemeHeader(v) => {
                leaves!(name, v; scheme_tag @ scheme_tag_at, scheme_version @ scheme_version_at,
                    flags @ flags_at);
                none()
            }
            Node::Shard(v) => Ok(match name {
                "parent_shape" => scalars(v.parent_shape_at(), v.parent_shape()),
                "shard_offset" => scalars(v.shard_offset_at(), v.shard_offset()),
                _ => return none(),
            }),
            Node::Statistics(v) => {
                leaves!(name, v; computed_mask @ computed_mask_at, nnz @ nnz_at,
                    sparsity_ratio @ sparsity_ratio_at, value_min @ value_min_at,
                    value_max @ value_max_at, value_abs_max @ value_abs_max_at,
                    value_mean @ value_mean_at, value_stddev @ value_stddev_at,
                    nm_n @ nm_n_at, nm_m @ nm_m_at, has_nan @ has_nan_at, has_inf @ has_inf_at);
                reserved(
                    name,
                    v.offset(),
                    &[
                        ("_reserved", StatisticsView::OFFSET_RESERVED),
                        ("_reserved2", StatisticsView::OFFSET_RESERVED2),
                    ],
                )
            }
            Node::ExtensionType(v) => {
                leaves!(name, v; bit_width @ bit_width_at, packing_factor @ packing_factor_at,
                    is_float @ is_float_at, is_signed @ is_signed_at, sign_bits @ sign_bits_at,
                    exponent_bits @ exponent_bits_at, mantissa_bits @ mantissa_bits_at,
                    exponent_bias @ exponent_bias_at, has_nan @ has_nan_at, has_inf @ has_inf_at);
                reserved(
                    name,
                    v.offset(),
                    &[
                        ("_reserved", ExtensionTypeView::OFFSET_RESERVED),
                        ("_reserved2", ExtensionTypeView::OFFSET_RESERVED2),
                    ],
                )
            }
            Node::Member(v) => {
                leaves!(name, v; member_role @ member_role_at);
                reserved(
                    name,
                    v.offset(),
                    &[("_reserved", CompositeMemberView::OFFSET_RESERVED)],
                )
            }
            Node::File => {
                let parts = self.parts();
                Ok(match name {
                    "header" => Node::FileHeader(parts.header.ok_or("does not parse")?),
                    "trailer" => Node::Trailer(parts.trailer.ok_or("does not parse")?),
                    "index" => Node::Index(parts.index.clone().ok_or("does not parse alone")?),
                    "kv" => Node::Kv(parts.kv.clone().ok_or("absent, or does not parse alone")?),
                    "tensors" => Node::Tensors,
                    _ => return none(),
                })
            }
            Node::FileHeader(v) => {
                leaves!(name, v; magic @ magic_at,
                    container_version_major @ container_version_major_at,
                    container_version_minor @ container_version_minor_at,
                    file_flags @ file_flags_at, data_buffer_alignment @ data_buffer_alignment_at,
                    first_descriptor_offset @ first_descriptor_offset_at,
                    tensor_count_hint @ tensor_count_hint_at);
                reserved(
                    name,
                    v.offset(),
                    &[
                        ("_reserved", FileHeaderView::OFFSET_RESERVED),
                        ("_reserved_header", FileHeaderView::OFFSET_RESERVED_HEADER),
                    ],
                )
            }
            Node::Trailer(v) => {
                leaves!(name, v; index_offset @ index_offset_at, index_length @ index_length_at,
                    kv_offset @ kv_offset_at, kv_length @ kv_length_at,
                    index_crc32c @ index_crc32c_at, trailer_magic @ trailer_magic_at);
                reserved(
                    name,
                    v.offset(),
                    &[("_reserved", TrailerView::OFFSET_RESERVED)],
                )
            }
            Node::Index(v) => {
                leaves!(name, v; index_entry_count @ index_entry_count_at);
                match name {
                    "entries" => Ok(Node::IndexEntries(v.clone())),
                    _ => none(),
                }
            }
            Node::IndexEntry(v) => {
                leaves!(name, v; name_length @ name_length_at, name @ name_at,
                    descriptor_offset @ descriptor_offset_at,
                    descriptor_length @ descriptor_length_at, data_offset @ data_offset_at,
                    data_length @ data_length_at, flags @ flags_at);
                none()
            }
            Node::Kv(v) => {
                leaves!(name, v; kv_count @ kv_count_at);
                match name {
                    "entries" => Ok(Node::KvEntries(v.clone())),
                    _ => none(),
                }
            }
            Node::KvEntry(v) => {
                leaves!(name, v; key_length @ key_length_at, key @ key_at,
                    value_tag @ value_tag_at);
                match name {
                    "value" => Ok(Node::KvValue(v.value().clone(), v.value_at())),
                    _ => none(),
                }
            }
            Node::KvValue(value, _) => kv_value_child(value, name),
            Node::Tensors => Ok(Node::Tensor(name.to_string())),
            Node::Tensor(t) => {
                let t = t.clone();
                let entry = self.entry(&t)?;
                Ok(match name {
                    "entry" => Node::IndexEntry(entry),
                    "data" => {
                        Node::Slot(Slot::bytes(entry.data_offset(), Some(entry.data_length())))
                    }
                    "descriptor" => {
                        let at = entry.descriptor_offset();
                        let bytes = self.root_bytes();
                        let slice = usize::try_from(at)
                            .ok()
                            .and_then(|s| {
                                bytes.get(s..s.checked_add(entry.descriptor_length() as usize)?)
                            })
                            .ok_or("the descriptor lies outside the file")?;
                        match access::parse_descriptor(slice, at, self.config()) {
                            Ok(v) => Node::Descriptor(v),
                            Err(_) => Node::FixedHeader(
                                access::parse_fixed_header(slice, at)
                                    .map_err(|e| format!("the descriptor does not parse: {e}"))?,
                            ),
                        }
                    }
                    "buffers" => Node::TensorBuffers(self.buffers(&t)?),
                    _ => return none(),
                })
            }
            Node::Slot(_)
            | Node::Scalars { .. }
            | Node::IndexEntries(_)
            | Node::KvEntries(_)
            | Node::KvElements(..)
            | Node::Buffers(_)
            | Node::TensorBuffers(_) => none(),
        }
    }

    fn layout_child(&mut self, l: &LayoutVariantView<'a>, name: &str) -> Result<Node<'a>, String> {
        let none = || Err("names no field of this layout block".to_string());
        match l {
            LayoutVariantView::RowMajor | LayoutVariantView::ColumnMajor => none(),
            LayoutVariantView::Strided(v) => match name {
                "strides" => Ok(scalars(v.strides_at(), v.strides())),
                _ => none(),
            },
            LayoutVariantView::Tiled(v) => tiled_child(v, name),
            LayoutVariantView::Morton(v) => match name {
                "morton_bits" => Ok(scalars(v.morton_bits_at(), v.morton_bits())),
                _ => none(),
            },
            LayoutVariantView::Coo(v) => {
                leaves!(name, v; nnz @ nnz_at, is_sorted @ is_sorted_at);
                reserved(
                    name,
                    v.offset(),
                    &[("_reserved", LayoutCooView::OFFSET_RESERVED)],
                )
            }
            LayoutVariantView::Csr(v) => {
                leaves!(name, v; nnz @ nnz_at);
                reserved(
                    name,
                    v.offset(),
                    &[("_reserved", LayoutCsrView::OFFSET_RESERVED)],
                )
            }
            LayoutVariantView::Csc(v) => {
                leaves!(name, v; nnz @ nnz_at);
                reserved(
                    name,
                    v.offset(),
                    &[("_reserved", LayoutCscView::OFFSET_RESERVED)],
                )
            }
            LayoutVariantView::Csf(v) => {
                leaves!(name, v; nnz @ nnz_at);
                match name {
                    "mode_order" => Ok(scalars(v.mode_order_at(), v.mode_order())),
                    // After the rank-long mode_order.
                    "_reserved" => Ok(Node::Slot(Slot::bytes(
                        v.mode_order_at() + v.mode_order().as_bytes().len() as u64,
                        None,
                    ))),
                    _ => none(),
                }
            }
            LayoutVariantView::BlockPaged(v) => {
                leaves!(name, v; page_size @ page_size_at, num_pages @ num_pages_at,
                    paged_axis @ paged_axis_at, num_seqs @ num_seqs_at, kv_role @ kv_role_at,
                    layer_index @ layer_index_at,
                    block_table_index_type @ block_table_index_type_at);
                reserved(
                    name,
                    v.offset(),
                    &[("_reserved", LayoutBlockPagedView::OFFSET_RESERVED)],
                )
            }
            LayoutVariantView::Composite(v) => {
                leaves!(name, v; composition_rule @ composition_rule_at,
                    combine_op @ combine_op_at, member_count @ member_count_at);
                reserved(
                    name,
                    v.offset(),
                    &[("_reserved", LayoutCompositeView::OFFSET_RESERVED)],
                )
            }
            LayoutVariantView::Hilbert(v) => {
                leaves!(name, v; hilbert_order @ hilbert_order_at, hilbert_rank @ hilbert_rank_at);
                none()
            }
            LayoutVariantView::Private(_, v) => {
                leaves!(name, v; extension_layout_id @ extension_layout_id_at,
                    extension_data_length @ extension_data_length_at,
                    extension_data @ extension_data_at);
                none()
            }
            #[allow(unreachable_patterns)]
            _ => none(),
        }
    }
}

/// A field of the fixed header by its generated offset constant, for a descriptor whose
/// header the reader rejects (an invalid tag, say): a position only.
fn fixed_header_offset(path: &str) -> Option<u64> {
    let field = path.strip_prefix("fixed_header.")?;
    let at = [
        ("magic", FixedHeaderView::OFFSET_MAGIC),
        ("version_major", FixedHeaderView::OFFSET_VERSION_MAJOR),
        ("version_minor", FixedHeaderView::OFFSET_VERSION_MINOR),
        (
            "descriptor_length",
            FixedHeaderView::OFFSET_DESCRIPTOR_LENGTH,
        ),
        ("flags", FixedHeaderView::OFFSET_FLAGS),
        ("type_tag", FixedHeaderView::OFFSET_TYPE_TAG),
        ("layout_tag", FixedHeaderView::OFFSET_LAYOUT_TAG),
        ("rank", FixedHeaderView::OFFSET_RANK),
    ]
    .iter()
    .find(|(n, _)| *n == field)?
    .1;
    Some(at as u64)
}

/// A reserved field at a generated offset constant of its structure.
fn reserved<'a>(name: &str, start: u64, fields: &[(&str, usize)]) -> Result<Node<'a>, String> {
    fields
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, at)| Node::Slot(Slot::bytes(start + *at as u64, None)))
        .ok_or_else(|| "names no field of this part".to_string())
}

fn tiled_child<'a>(v: &LayoutTiledView<'a>, name: &str) -> Result<Node<'a>, String> {
    leaves!(name, v; outer_layout @ outer_layout_at, inner_layout @ inner_layout_at);
    Ok(match name {
        "tile_shape" => scalars(v.tile_shape_at(), v.tile_shape()),
        // The two reserved bytes follow inner_layout.
        "_reserved" => Node::Slot(Slot::bytes(
            Slot::after(v.inner_layout_at(), &v.inner_layout()),
            None,
        )),
        "outer_strides" => scalars(v.outer_strides_at(), v.outer_strides().ok_or("absent")?),
        "inner_strides" => scalars(v.inner_strides_at(), v.inner_strides().ok_or("absent")?),
        "nested" => Node::Tiled(v.nested().ok_or("absent")?),
        _ => return Err("names no field of a tiled level".into()),
    })
}

fn payload_child<'a>(p: &SchemeVariantView<'a>, name: &str) -> Result<Node<'a>, String> {
    let none = || Err("names no field of this scheme's payload".to_string());
    match p {
        SchemeVariantView::PerTensorAffine(v) => {
            leaves!(name, v; scale @ scale_at, zero_point @ zero_point_at);
            match name {
                "header" => Ok(Node::SchemeHeader(v.header())),
                _ => reserved(
                    name,
                    v.offset(),
                    &[("_reserved", PerTensorAffineView::OFFSET_RESERVED)],
                ),
            }
        }
        SchemeVariantView::PerChannelAffine(v) => {
            leaves!(name, v; axis @ axis_at, scale_buffer_index @ scale_buffer_index_at,
                zero_point_buffer_index @ zero_point_buffer_index_at,
                scale_type_tag @ scale_type_tag_at);
            match name {
                "header" => Ok(Node::SchemeHeader(v.header())),
                _ => reserved(
                    name,
                    v.offset(),
                    &[("_reserved", PerChannelAffineView::OFFSET_RESERVED)],
                ),
            }
        }
        SchemeVariantView::PerBlockAffine(v) => {
            leaves!(name, v; axis @ axis_at, block_size @ block_size_at,
                scale_buffer_index @ scale_buffer_index_at,
                zero_point_buffer_index @ zero_point_buffer_index_at,
                scale_type_tag @ scale_type_tag_at);
            match name {
                "header" => Ok(Node::SchemeHeader(v.header())),
                _ => reserved(
                    name,
                    v.offset(),
                    &[("_reserved", PerBlockAffineView::OFFSET_RESERVED)],
                ),
            }
        }
        SchemeVariantView::Nf4(v) => {
            leaves!(name, v; axis @ axis_at, block_size @ block_size_at,
                scale_buffer_index @ scale_buffer_index_at);
            match name {
                "header" => Ok(Node::SchemeHeader(v.header())),
                _ => none(),
            }
        }
        SchemeVariantView::Mxfp(v) => {
            leaves!(name, v; axis @ axis_at, block_size @ block_size_at,
                scale_buffer_index @ scale_buffer_index_at);
            match name {
                "header" => Ok(Node::SchemeHeader(v.header())),
                _ => none(),
            }
        }
        SchemeVariantView::Private(_, v) => {
            leaves!(name, v; data @ data_at);
            match name {
                "header" => Ok(Node::SchemeHeader(v.header())),
                _ => none(),
            }
        }
        SchemeVariantView::Opaque(..) => none(),
        _ => none(),
    }
}

/// Where a KV value's payload starts.
fn kv_value_at(v: &KvValueVariantView<'_>) -> Option<u64> {
    Some(match v {
        KvValueVariantView::String(x) => x.offset(),
        KvValueVariantView::Int64(x) => x.offset(),
        KvValueVariantView::Uint64(x) => x.offset(),
        KvValueVariantView::Float64(x) => x.offset(),
        KvValueVariantView::Bool(x) => x.offset(),
        KvValueVariantView::Bytes(x) => x.offset(),
        KvValueVariantView::Array(x) => x.offset(),
        #[allow(unreachable_patterns)]
        _ => return None,
    })
}

fn kv_value_child<'a>(v: &KvValueVariantView<'a>, name: &str) -> Result<Node<'a>, String> {
    match v {
        KvValueVariantView::String(x) => {
            leaves!(name, x; length @ length_at, value @ value_at);
        }
        KvValueVariantView::Int64(x) => {
            leaves!(name, x; value @ value_at);
        }
        KvValueVariantView::Uint64(x) => {
            leaves!(name, x; value @ value_at);
        }
        KvValueVariantView::Float64(x) => {
            leaves!(name, x; value @ value_at);
        }
        KvValueVariantView::Bool(x) => {
            leaves!(name, x; value @ value_at);
        }
        KvValueVariantView::Bytes(x) => {
            leaves!(name, x; length @ length_at, value @ value_at);
        }
        KvValueVariantView::Array(x) => {
            leaves!(name, x; element_tag @ element_tag_at, count @ count_at);
            if name == "elements" {
                return Ok(Node::KvElements(v.clone(), x.elements_at()));
            }
        }
        #[allow(unreachable_patterns)]
        _ => {}
    }
    Err("names no field of this KV value".into())
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

/// The bytes a table value encodes to in `slot`. `current` is the slot's present content
/// (the relative forms `{ add = n }` and `{ xor = n }` start from it). Byte slots take hex
/// (`"c328"`), one integer (a byte), or a typed list `{ f32 = [..] }` / `{ u64 = x }` …
pub fn encode(slot: &Slot, v: &T, current: &[u8], what: &str) -> Vec<u8> {
    let width = slot.len.map(|l| l as usize);
    let int = |signed: bool| -> Vec<u8> {
        let w = width.expect("a number has a width");
        let now = || -> i128 {
            let mut b = [0u8; 16];
            b[..w].copy_from_slice(&current[..w]);
            let u = u128::from_le_bytes(b);
            if signed && w < 16 && current[w - 1] & 0x80 != 0 {
                (u | (!0u128 << (8 * w))) as i128
            } else {
                u as i128
            }
        };
        let n: i128 = match v {
            T::Table(t) if t.contains_key("add") => now() + tables::int(&t["add"], what),
            T::Table(t) if t.contains_key("xor") => now() ^ tables::int(&t["xor"], what),
            other => tables::int(other, what),
        };
        let (lo, hi) = if signed {
            (-(1i128 << (8 * w - 1)), (1i128 << (8 * w - 1)) - 1)
        } else {
            (0, (1i128 << (8 * w)) - 1)
        };
        assert!(
            (lo..=hi).contains(&n),
            "{what}: {n} does not fit a {}{} field",
            if signed { "i" } else { "u" },
            8 * w
        );
        n.to_le_bytes()[..w].to_vec()
    };
    match slot.kind {
        Kind::Position => panic!("{what}: a structure's position is not a field to write"),
        Kind::Unsigned => int(false),
        Kind::Signed => int(true),
        Kind::Float => {
            let x = tables::float(v, what);
            match width {
                Some(4) => (x as f32).to_le_bytes().to_vec(),
                Some(8) => x.to_le_bytes().to_vec(),
                w => panic!("{what}: no float of {w:?} bytes"),
            }
        }
        Kind::Tag(by_name) => match v {
            T::String(n) => {
                let raw = by_name(n).unwrap_or_else(|| panic!("{what}: `{n}` names no value"));
                raw.to_le_bytes()[..width.unwrap()].to_vec()
            }
            _ => int(false),
        },
        Kind::Bytes => match v {
            T::String(_) | T::Array(_) => tables::bytes(v, what),
            T::Integer(_) => vec![u8::try_from(tables::uint(v, what)).expect("a byte")],
            T::Table(t) => {
                assert_eq!(t.len(), 1, "{what}: one typed value");
                let (ty, x) = t.iter().next().unwrap();
                let xs: Vec<&T> = match x {
                    T::Array(a) => a.iter().collect(),
                    one => vec![one],
                };
                let mut out = Vec::new();
                for x in xs {
                    match ty.as_str() {
                        "f32" => out.extend((tables::float(x, what) as f32).to_le_bytes()),
                        "f64" => out.extend(tables::float(x, what).to_le_bytes()),
                        "i32" => out.extend((tables::int(x, what) as i32).to_le_bytes()),
                        "u32" => out.extend((tables::uint(x, what) as u32).to_le_bytes()),
                        "u64" => out.extend(tables::uint(x, what).to_le_bytes()),
                        "u8" => out.push(tables::uint(x, what) as u8),
                        other => panic!("{what}: no typed value `{other}`"),
                    }
                }
                out
            }
            other => panic!("{what}: {other} is not bytes"),
        },
    }
}
