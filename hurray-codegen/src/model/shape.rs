//! The shape of every structure and dispatching space, as the analysis pass (`analysis`)
//! computes it after layout: how a structure learns its length, which fields sit in place
//! and which a reader must walk to, which fields another field's value sizes, what contains
//! itself, what is a plain run of bytes. Emitters read these facts; none computes them.

use super::{RuleId, StructId};

/// How a structure's end is known to a reader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Prefix {
    /// Not length-prefixed: its end is where its last field ends.
    #[default]
    None,
    /// Its own field `field` (directly, or a structure field holding the prefix) gives the
    /// length of the whole structure; what follows that field is read inside the length.
    Own { field: usize },
    /// An enclosing structure's field gives the length; the encloser reads it inside that
    /// many bytes.
    Enclosed,
}

/// Where a structure or a dispatching space sits in the containment graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Containment {
    /// It can contain itself, directly or through other structures: a reader bounds its
    /// nesting (the structure's `depth_limit`).
    pub cyclic: bool,
    /// The strongly connected component of the containment graph it belongs to: two items
    /// with the same component contain each other.
    pub component: u32,
    /// It holds no sequence of variable-size entries, directly or through what it contains:
    /// a view of it is a fixed set of borrowed slices and numbers (a `Copy` value in Rust).
    pub copy: bool,
}

/// The shape of one field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldShape {
    /// A single integer, float, tag or flags value (no count).
    pub scalar: bool,
    /// Introduced after its structure's first version (S4, R4).
    pub appended: bool,
    /// Present only when a condition on earlier fields holds (`present_if`).
    pub conditional: bool,
    /// A scalar a reader finds at a constant offset in every version: read in place, never
    /// walked to.
    pub in_place: bool,
    /// The later field whose count or enclosed length this field's value gives; an encoder
    /// derives this field from that one.
    pub gives_size_of: Option<usize>,
    /// The earlier field that gives this field's length (every structure it holds is
    /// length-prefixed by it), and the rule a read past that length breaks.
    pub sized_by: Option<SizedBy>,
    /// A structure nested in itself (directly or through a cycle).
    pub recursive: bool,
}

/// An earlier field that gives a field's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizedBy {
    pub field: usize,
    pub rule: RuleId,
}

impl FieldShape {
    /// Absent from some data: behind a condition, or appended after data's version.
    pub fn optional(&self) -> bool {
        self.conditional || self.appended
    }
}

/// The shape of one structure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StructureShape {
    pub prefix: Prefix,
    pub containment: Containment,
    /// Fixed framing, no params, a constant size, and every field an in-place scalar or a
    /// fixed byte run of the first version: the structure is a plain run of bytes.
    pub simple: bool,
    /// The field through which the structure nests itself directly (a tiled layout's next
    /// level), when the levels form a chain a reader walks by arithmetic alone: the field is
    /// the last and only one nesting the structure in itself, a depth limit bounds it, and
    /// every other field is a plain scalar or run whose count and presence follow from the
    /// level's own scalars and the params. A view keeps its level and finds the next one.
    pub chain: Option<Chain>,
    /// One per field, in wire order.
    pub fields: Vec<FieldShape>,
}

/// A structure's chain of levels nested in itself through one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    /// The field holding the next level (the structure's last).
    pub field: usize,
    /// The most levels a reader accepts (the structure's depth limit).
    pub levels: u32,
}

/// The shape of a dispatching space: what its values select.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DispatchShape {
    /// The structures its values (and its private range) select, in the order they name
    /// them.
    pub variants: Vec<StructId>,
    /// The structure an implementation-private value selects.
    pub private: Option<StructId>,
    /// The params every variant needs, sorted.
    pub params: Vec<String>,
    /// When every variant is length-prefixed, the rule that prefix enforces: a value a
    /// reader does not know can be skipped as opaque bytes (RES-9).
    pub bound: Option<RuleId>,
    /// The field every variant starts with, when it is one and the same structure field
    /// (the quantization header): its name and structure.
    pub common_first: Option<(String, StructId)>,
    pub containment: Containment,
}
