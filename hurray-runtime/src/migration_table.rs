//! The shape of the generated migration table (`generated::migrations::ALL`): one
//! [`Migration`] per migration specification (S5, `spec/migrations/<axis>-<K>-to-<K+1>.toml`)
//! onto a major of this build's spec. The data is generated from the spec; this module only
//! names its parts (a leaf: it depends on nothing generated, so the table can be).

/// One item of the old major and where it goes in the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move<T: 'static, U: 'static> {
    /// The item in the old major: `(tag space, value)`, `(flag set, bit)` or
    /// `(structure, field)`, by the spec's names.
    pub item: (&'static str, T),
    /// Where it goes in the new major, by the same kind of name; `None`: dropped (a value
    /// that uses it cannot migrate).
    pub to: Option<(&'static str, U)>,
}

/// A migration specification from major `from` of an axis onto major `to` (this build's):
/// the items it moves or drops. Every item not listed keeps its value and name (carried, or
/// mapped onto itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Migration {
    /// The file under the spec's `migrations/` that states it.
    pub file: &'static str,
    /// The axis's name (`descriptor`).
    pub axis: &'static str,
    /// The old major.
    pub from: u16,
    /// The new major: this build's.
    pub to: u16,
    /// The specification's note.
    pub note: &'static str,
    /// Tag values moved or dropped.
    pub tags: &'static [Move<u32, u32>],
    /// Flag bits moved or dropped.
    pub bits: &'static [Move<u32, u32>],
    /// Fields moved or dropped.
    pub fields: &'static [Move<&'static str, &'static str>],
}
