//! The walk of a captured session of the interchange protocol (interchange.md §3–§19):
//! messages back to back from byte 0, each its 12-byte header and the payload its type
//! selects, walked by the generated walker of `interchange_message`. The verdict is
//! [`crate::message::session`]'s; a message the input ends inside of is shown as far as it goes.

use super::root::{Input, Inspection};
use super::walk::{Cursor, Sink, Stop, Walker};
use crate::ctx::ReaderConfig;
use crate::generated::annotate::{InterchangeMessageWalk, walk_interchange_message};

pub(super) fn inspect(bytes: &[u8], config: &ReaderConfig, sink: &mut dyn Sink) -> Inspection {
    let mut error = None;
    let mut warnings = Vec::new();
    for m in crate::message::session(bytes, config) {
        match m {
            Ok(m) => warnings.extend_from_slice(m.warnings()),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let len = bytes.len() as u64;
    let mut w = Walker::new(bytes, sink, config, error.as_ref());
    let mut r = Cursor::new(bytes, 0);
    let shown = (|| {
        let mut k = 0usize;
        while r.offset() < len {
            let depth = w.depth();
            let at = r.offset();
            let walked = (|| {
                w.open(at, &format!("#{k}"), InterchangeMessageWalk::TITLE)?;
                walk_interchange_message(&mut w, &mut r)?;
                w.close(r.offset());
                Ok::<(), Stop>(())
            })();
            if walked.is_err() {
                w.close_to(depth);
            }
            walked?;
            // A message spans its header at least: the walk moves on or stops.
            if r.offset() <= at {
                return Err(Stop);
            }
            k += 1;
        }
        Ok::<(), Stop>(())
    })();
    w.conclude(len, shown, "after the session's last message");
    Inspection {
        input: Input::Session,
        len,
        error,
        warnings,
    }
}
