//! Reading one tensor descriptor: the structural parse (generated), then the semantic layer.

use crate::ctx::{Ctx, Limit, ReaderConfig, Warning};
use crate::error::Error;
use crate::generated::rules::Rule;
use crate::semantic::{self, Facts, data::Buffers};
use crate::structures::DescriptorView;
use crate::wire::Reader;

/// A descriptor that passed every check the reader could apply. Only the readers make one,
/// so its fields are private: a `Checked` that says `dereferenceable` was checked to be.
#[derive(Debug)]
pub struct Checked<'a> {
    pub(crate) view: DescriptorView<'a>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) dereferenceable: bool,
}

impl<'a> Checked<'a> {
    /// The descriptor's view: every field as read, borrowed from the input.
    pub fn view(&self) -> &DescriptorView<'a> {
        &self.view
    }

    /// Findings that did not reject the descriptor (permissive acceptances, statistics ranges).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// False when the tensor's data must not be dereferenced: something was accepted in
    /// permissive mode without being understood (RES-8, RES-9), or a dimension is dynamic
    /// (RES-36).
    pub fn dereferenceable(&self) -> bool {
        self.dereferenceable
    }

    /// The view, the warnings and the dereferenceable verdict, taken apart.
    pub fn into_parts(self) -> (DescriptorView<'a>, Vec<Warning>, bool) {
        (self.view, self.warnings, self.dereferenceable)
    }
}

/// Read the descriptor at the start of `bytes` (absolute offset `base`), returning it and the
/// number of bytes it spans (its `descriptor_length`, HDR-6).
#[inline]
pub fn read_prefix<'a>(
    bytes: &'a [u8],
    base: u64,
    config: &ReaderConfig,
) -> Result<(Checked<'a>, usize), Error> {
    // A reader's limit on the descriptor's length (a policy, checked before anything is
    // parsed); a header too short to hold the length is left to the structural parse.
    let at = crate::structures::FixedHeaderView::OFFSET_DESCRIPTOR_LENGTH;
    if let Some(length) = bytes.get(at..at + 4) {
        let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
        config.check_limit(Limit::DescriptorLength, u64::from(length), base + at as u64)?;
    }
    let mut ctx = Ctx::new(config);
    let mut r = Reader::new(bytes, base, Rule::Hdr5);
    let view = DescriptorView::parse(&mut r, &mut ctx)?;
    semantic::check_descriptor(&view, &mut ctx)?;
    let len = r.pos();
    let dereferenceable = ctx.dereferenceable();
    Ok((
        Checked {
            view,
            warnings: ctx.take_warnings(),
            dereferenceable,
        },
        len,
    ))
}

/// Read a descriptor that spans exactly `bytes`.
pub fn read<'a>(bytes: &'a [u8], config: &ReaderConfig) -> Result<Checked<'a>, Error> {
    read_exact(bytes, 0, config)
}

/// [`read`], the descriptor starting at absolute offset `base` of its input (the offsets of
/// a rejection count from there).
pub fn read_exact<'a>(
    bytes: &'a [u8],
    base: u64,
    config: &ReaderConfig,
) -> Result<Checked<'a>, Error> {
    let (d, len) = read_prefix(bytes, base, config)?;
    if len != bytes.len() {
        return Err(Error::new(
            Rule::Hdr6,
            base + len as u64,
            format!(
                "{} byte(s) follow the descriptor's {len} bytes",
                bytes.len() - len
            ),
        ));
    }
    Ok(d)
}

/// Which of a tensor's buffers the data rules read ([`check_data`]), by buffer-table
/// position: a reader that streams the data holds these whole while the tensor is checked
/// (every buffer after the first: sparse indices, block tables, quantization parameters; and
/// the first when it holds parameters or `float8_e8m0` payload), and passes the rest through.
pub(crate) fn held_buffers(view: &DescriptorView<'_>) -> Vec<bool> {
    let first = first_buffer_held(view);
    (0..view.buffer_table().buffers().len())
        .map(|k| k > 0 || first)
        .collect()
}

/// Whether the data rules read the first buffer too ([`held_buffers`]: every later one they do).
pub(crate) fn first_buffer_held(view: &DescriptorView<'_>) -> bool {
    let facts = Facts::new(view);
    facts.type_tag == crate::wire::TagSpace::value(crate::generated::tags::ElementType::Float8E8m0)
        || facts.params.iter().any(|p| p.index == 0)
}

/// Apply the checks that need the tensor's data buffers (sparse structure, parameter values,
/// reserved element encodings).
pub fn check_data(
    d: &mut Checked<'_>,
    slices: &[&[u8]],
    offsets: &[u64],
    config: &ReaderConfig,
) -> Result<(), Error> {
    let mut ctx = Ctx::new(config);
    let facts = Facts::new(&d.view);
    semantic::data::check(&facts, Buffers { slices, offsets }, &mut ctx)?;
    d.dereferenceable &= ctx.dereferenceable();
    d.warnings.extend(ctx.take_warnings());
    Ok(())
}
