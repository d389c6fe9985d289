//! Sequences of variable-size entries that a view keeps lazily ([`VarSeq`]): where each entry
//! ends, and the view of an entry made again on access, in place or by a replay of its
//! checked bytes ([`Replay`]). Beside `wire` (the reader, the scalar and fixed-size views) and
//! `ctx` (the parse's context), which it both uses.

use std::fmt;

use crate::ctx::Replay;
use crate::wire::sealed;

/// A view that a sequence can make again from one entry's bytes, given another entry of the
/// same sequence: a structure whose view is nothing but its bytes is made in place; any other
/// is parsed again under the [`Replay`] of the parse that checked it. Sealed: only the
/// generated views implement it.
pub trait Rebuild<'a>: sealed::Sealed + Clone {
    /// A view of the same structure as `self` (for a dispatched variant: selected by the same
    /// tag) over `bytes`, one entry the parse already checked, at absolute `offset`; `None`
    /// when it cannot be made from those alone.
    fn like(&self, bytes: &'a [u8], offset: u64, replay: &Replay) -> Option<Self>;
}

/// A borrowed sequence of variable-size entries, already validated: the parse keeps where each
/// entry ends (8 bytes an entry) and the first entry's view; the view of any other entry is
/// made again from its bytes on access ([`Rebuild`]). An entry that cannot be made again that
/// way (a variant other than the first entry's) is kept whole. So a sequence costs 8 bytes an
/// entry, however large one entry's view is, and an entry can be a single byte.
#[derive(Clone)]
pub struct VarSeq<'a, V> {
    bytes: &'a [u8],
    offset: u64,
    /// The end of entry `i`, relative to `bytes`; entry `i` starts where `i - 1` ends.
    ends: Vec<u64>,
    /// Entry 0 (the view the others are made like, first when there is one) and the entries
    /// it cannot make again, by index (ascending).
    kept: Vec<(usize, V)>,
    replay: Replay,
}

impl<'a, V: Rebuild<'a>> VarSeq<'a, V> {
    /// An empty sequence for a parse of `declared` entries from `remaining` bytes under
    /// `replay`; it reserves room for at most one entry per remaining byte (the parse rejects
    /// a count the bytes cannot hold before it reads an entry).
    #[doc(hidden)]
    pub fn start(declared: u64, remaining: usize, replay: Replay) -> VarSeq<'a, V> {
        let declared = usize::try_from(declared).unwrap_or(usize::MAX);
        VarSeq {
            bytes: &[],
            offset: 0,
            ends: Vec::with_capacity(declared.min(remaining)),
            kept: Vec::new(),
            replay,
        }
    }

    /// Record the next entry, parsed from `entry` (its bytes) at absolute `offset`, ending
    /// `end` bytes after the sequence's first byte. It is kept whole unless the first entry
    /// makes it again, as the same variant, from those bytes.
    #[doc(hidden)]
    pub fn push(&mut self, view: V, entry: &'a [u8], offset: u64, end: u64) {
        let i = self.ends.len();
        self.ends.push(end);
        let again = self.kept.first().is_some_and(|(_, first)| {
            first
                .like(entry, offset, &self.replay)
                .is_some_and(|w| std::mem::discriminant(&w) == std::mem::discriminant(&view))
        });
        if !again {
            self.kept.push((i, view));
        }
    }

    /// The sequence over `bytes`, the span of every entry, which starts at absolute `offset`.
    #[doc(hidden)]
    pub fn finish(mut self, bytes: &'a [u8], offset: u64) -> VarSeq<'a, V> {
        self.bytes = bytes;
        self.offset = offset;
        self.kept.shrink_to_fit();
        self
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of entry `i` and its absolute offset.
    fn span(&self, i: usize) -> Option<(&'a [u8], u64)> {
        let start = match i {
            0 => 0,
            _ => *self.ends.get(i - 1)?,
        };
        let end = *self.ends.get(i)?;
        let bytes = self
            .bytes
            .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)?;
        Some((bytes, self.offset.checked_add(start)?))
    }

    /// The entry at `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<V> {
        if let Ok(k) = self.kept.binary_search_by_key(&i, |(j, _)| *j) {
            return Some(self.kept[k].1.clone());
        }
        let (bytes, offset) = self.span(i)?;
        self.kept.first()?.1.like(bytes, offset, &self.replay)
    }

    /// Every entry, in order.
    pub fn iter(&self) -> Iter<'_, 'a, V> {
        Iter { seq: self, next: 0 }
    }
}

/// The entries of a [`VarSeq`], in order.
#[derive(Clone)]
pub struct Iter<'s, 'a, V> {
    seq: &'s VarSeq<'a, V>,
    next: usize,
}

impl<'a, V: Rebuild<'a>> Iterator for Iter<'_, 'a, V> {
    type Item = V;

    fn next(&mut self) -> Option<V> {
        // `push` kept every entry the first one does not make again: each `get` succeeds.
        let v = self.seq.get(self.next)?;
        self.next += 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.seq.len().saturating_sub(self.next);
        (n, Some(n))
    }
}

impl<'a, V: Rebuild<'a>> ExactSizeIterator for Iter<'_, 'a, V> {}

impl<V> fmt::Debug for Iter<'_, '_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("next", &self.next)
            .field("len", &self.seq.ends.len())
            .finish()
    }
}

impl<'s, 'a, V: Rebuild<'a>> IntoIterator for &'s VarSeq<'a, V> {
    type Item = V;
    type IntoIter = Iter<'s, 'a, V>;

    fn into_iter(self) -> Iter<'s, 'a, V> {
        self.iter()
    }
}

impl<'a, V: Rebuild<'a> + fmt::Debug> fmt::Debug for VarSeq<'a, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((0..self.len()).filter_map(|i| self.get(i)))
            .finish()
    }
}
