//! What an inspection reports (the input's kind, the reader's verdict), and the walk of a
//! descriptor's root that both the descriptor and the file walks share.

use super::walk::{Cursor, Stop, Walker};
use crate::ctx::Warning;
use crate::error::Error;
use crate::generated::annotate::{DescriptorWalk, walk_descriptor};

/// What the input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Input {
    /// A tensor descriptor (`HRRY`).
    Descriptor,
    /// A file container (`HRRYFILE`).
    File,
    /// A canonical stream: descriptor + data pairs back to back (told, never by its magic,
    /// which is a descriptor's).
    Stream,
    /// A captured session of the interchange protocol: messages back to back (told: a
    /// message has no magic).
    Session,
}

impl Input {
    /// The input's magic says what it is: a file's header magic, else a descriptor.
    pub fn of(bytes: &[u8]) -> Input {
        if crate::file::starts_file(bytes) {
            Input::File
        } else {
            Input::Descriptor
        }
    }

    /// `descriptor`, `file`, `stream` or `session`.
    pub fn word(self) -> &'static str {
        match self {
            Input::Descriptor => DescriptorWalk::NAME,
            Input::File => "file",
            Input::Stream => "stream",
            Input::Session => "session",
        }
    }
}

/// The outcome of an inspection: what the input is and the reader's verdict on it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Inspection {
    /// What the input is.
    pub input: Input,
    /// The input's length in bytes.
    pub len: u64,
    /// The reader's rejection (the one `hurray decode` reports), when it rejects the input.
    pub error: Option<Error>,
    /// Findings of the reader that did not reject the input.
    pub warnings: Vec<Warning>,
}

/// Walk a descriptor at the cursor as the structure `name` (empty: its fields' paths start
/// at the walker's current path).
pub(crate) fn walk_root<'a>(
    w: &mut Walker<'a, '_>,
    r: &mut Cursor<'a>,
    name: &str,
) -> Result<DescriptorWalk<'a>, Stop> {
    let depth = w.depth();
    let result = (|| {
        w.open(r.offset(), name, DescriptorWalk::TITLE)?;
        let d = walk_descriptor(w, r)?;
        w.close(r.offset());
        Ok(d)
    })();
    if result.is_err() {
        w.close_to(depth);
    }
    result
}
