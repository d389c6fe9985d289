//! The phases after reading, in order: lower, lay out, analyse, validate. A leaf below the
//! crate root, so that a module the root uses (`amend`, loading a release's archive) can run
//! them without importing the root back.

use crate::diag::Diagnostics;
use crate::model::Spec;
use crate::source::SourceMap;
use crate::{analysis, layout, load, lower, validate};

/// The result of loading a spec directory.
#[derive(Debug)]
pub struct Loaded {
    pub sources: SourceMap,
    /// The model, when it could be built (no lowering errors).
    pub spec: Option<Spec>,
    pub diags: Diagnostics,
}

impl Loaded {
    /// The spec, if loading reported no errors at all.
    pub fn clean(&self) -> Option<&Spec> {
        if self.diags.has_errors() {
            None
        } else {
            self.spec.as_ref()
        }
    }
}

/// The phases after reading.
pub fn finish(raw: load::RawSpec, sources: SourceMap, mut diags: Diagnostics) -> Loaded {
    let spec = if diags.has_errors() {
        None
    } else {
        lower::lower(raw, &mut diags)
    };
    let spec = spec.map(|mut s| {
        layout::compute(&mut s, &mut diags);
        analysis::analyse(&mut s);
        validate::validate(&s, &mut diags);
        s
    });
    diags.sort();
    Loaded {
        sources,
        spec,
        diags,
    }
}
