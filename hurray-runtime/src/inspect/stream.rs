//! The walk of a canonical stream (interchange.md §2.1, RES-51): from byte 0, each tensor's
//! descriptor (walked, its own `descriptor_length` ending it) and its buffers right after it,
//! with no padding, up to the end of the input. A tensor the input ends inside of is shown as
//! far as it goes.

use super::file::{TensorPart, show_tensor, tensor};
use super::root::{Input, Inspection};
use super::walk::{Discard, Stop, Walker};
use crate::ctx::{ReaderConfig, Warning};
use crate::stream::{StreamError, StreamReader};

pub(super) fn inspect(
    bytes: &[u8],
    config: &ReaderConfig,
    sink: &mut dyn super::walk::Sink,
) -> Inspection {
    let (error, warnings) = verdict(bytes, config);
    let len = bytes.len() as u64;
    let parts = plan(bytes, config);
    let mut w = Walker::new(bytes, sink, config, error.as_ref());
    let shown = (|| {
        for t in &parts {
            show_tensor(&mut w, bytes, t)?;
        }
        Ok::<(), Stop>(())
    })();
    w.conclude(len, shown, "no tensor of the stream locates these bytes");
    Inspection {
        input: Input::Stream,
        len,
        error,
        warnings,
    }
}

/// The stream reader's verdict and its warnings (the tensors' and the stream's end's).
fn verdict(bytes: &[u8], config: &ReaderConfig) -> (Option<crate::Error>, Vec<Warning>) {
    let mut r = StreamReader::new(bytes, config);
    let mut warnings = Vec::new();
    let failed = |e: StreamError| match e {
        StreamError::Invalid(e) => Some(e),
        StreamError::Io(_) => unreachable!("a slice reads without I/O errors"),
    };
    loop {
        match r.next_tensor(&mut |_, _, _| {}) {
            Ok(Some(t)) => warnings.extend_from_slice(t.warnings()),
            Ok(None) => break,
            Err(e) => return (failed(e), warnings),
        }
    }
    match r.finish() {
        Ok(s) => {
            warnings.extend_from_slice(s.warnings());
            (None, warnings)
        }
        Err(e) => (failed(e), warnings),
    }
}

/// Every tensor, located: descriptors walked without annotating, buffers by arithmetic.
fn plan(bytes: &[u8], config: &ReaderConfig) -> Vec<TensorPart> {
    let len = bytes.len() as u64;
    let mut sink = Discard;
    let mut w = Walker::new(bytes, &mut sink, config, None);
    let mut parts = Vec::new();
    let mut at = 0u64;
    while at < len {
        let position = u32::try_from(parts.len()).unwrap_or(u32::MAX);
        let t = tensor(
            &mut w,
            bytes,
            at,
            len,
            1,
            position,
            format!("#{position}"),
            len,
        );
        let end = t.end();
        parts.push(t);
        // A descriptor the walk could not end stops the plan: nothing after it is located.
        if end <= at {
            break;
        }
        at = end;
    }
    parts
}
