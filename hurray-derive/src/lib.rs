//! `#[derive(HurraySection)]`: declare an extension section of the Hurray format as a Rust
//! struct, get a zero-copy view and owned read/write that follow the evolvability rules, and
//! have the compiler refuse the additions that would break old readers.
//!
//! # Attributes
//!
//! On the struct:
//! - `#[hurray(length_prefixed)]`: a length prefix frames the section (a quantization
//!   payload, a private layout's data), so fields may be appended in later versions (W4, R4).
//!   Without it the section is fixed and nothing may ever be appended (S6).
//! - `#[hurray(base = "1.0")]`: the section's first version (default `"1.0"`). Versions are
//!   `"MAJOR.MINOR"`, or an integer for a scheme-style version (`2` is `1.2`, RES-6).
//! - `#[hurray(spec = "<structure>")]`: link to a structure of the spec; the derive compares
//!   the struct with it at compile time and refuses a struct whose framing, fields, types,
//!   since, defaults or offsets differ. The spec is the one `hurray-runtime` is generated from
//!   (the tables the `hurray-spec-tables` crate embeds), so this works from any crate.
//! - `#[hurray(spec_dir = "<path>")]`: with `spec`, check against a draft spec tree instead
//!   (a path relative to the crate's `Cargo.toml`), for a spec editor trying an amendment.
//! - `#[hurray(crate = "<path>")]`: where `hurray-runtime` is, when the manifest does not say
//!   (a renamed dependency is found on its own).
//!
//! On a field:
//! - `#[hurray(since = "1.1", default = <expr>)]`: a field appended in a later version of the
//!   section's major (CD3), with the value readers of older data see (S4): a constant
//!   expression of the field's type, emitted as `DEFAULT_<FIELD>`. Fields without `since`
//!   belong to the base.
//! - `#[hurray(offset = <bytes>)]`: the field's offset, checked at compile time.
//! - `#[hurray(reserved)]`: must be zero; writers emit zero, readers reject anything else.
//! - `#[hurray(length_prefix)]`: the field holds the section's own length prefix (a section
//!   framed by its own first field, as a flag-gated section may be): the writer computes it,
//!   the length of what it writes at the version written, whatever the value holds. One field
//!   of the base version, of a `length_prefixed` section. A struct linked with `spec` needs
//!   no attribute: the spec's framing names the field (when it names one of the structure's
//!   own), and an attribute on another field is refused.
//!
//! Field types are fixed-size wire types: `u8`…`u64`, `i8`…`i64`, `f32`, `f64`, `[u8; N]`,
//! `TagValue<…>` of a generated tag space, generated flag types, and fixed sections that
//! derive `HurraySection` themselves.
//!
//! # What it generates
//!
//! `impl Section` (read with R4 defaults and RES-7 surplus rules, write whole fields at a
//! version with W4, the lowest version covering what is written with W1/W2), `OFFSET_*`,
//! `DEFAULT_*` and `SIZE` constants, `Section::VERSIONS` (the size at each version), and a borrowed
//! `<Name>View<'a>` with fixed-offset accessors: plain values for base fields,
//! `Field::Read`/`Field::Defaulted` for appended ones.
//!
//! # Example: a private quantization scheme
//!
//! A private scheme payload (tag 0xF3) declared with the derive: written into a descriptor,
//! read back by a reader that agreed on 0xF3, and skipped by a permissive one that did not.
//!
//! ```
//! use hurray_derive::HurraySection;
//! use hurray_runtime::section::Section;
//! use hurray_runtime::structures::{QuantizationSection, SchemeVariantView};
//! use hurray_runtime::tags::{ElementType, Scheme};
//! use hurray_runtime::{ReaderConfig, Version, descriptor, writer};
//!
//! /// Our lookup-table scheme: a table buffer index and a bias appended in scheme version 2.
//! #[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
//! #[hurray(length_prefixed, base = 1)]
//! struct LutScheme {
//!     table_buffer_index: u32,
//!     bits: u8,
//!     #[hurray(reserved)]
//!     _pad: [u8; 3],
//!     #[hurray(since = 2, default = 0.0)]
//!     bias: f32,
//! }
//!
//! // Write it into a descriptor's quantization section at the lowest covering version (W1).
//! let lut = LutScheme { table_buffer_index: 1, bits: 4, _pad: [0; 3], bias: 0.5 };
//! let mut payload = Vec::new();
//! let version = lut.write(&mut payload);
//! let mut d = writer::row_major(ElementType::Uint8, &[4, 4]);
//! d.quantization = Some(QuantizationSection { payload: writer::private_scheme(0xF3, version.minor, 0, payload) });
//! let agreed = ReaderConfig::new().agree::<Scheme>(0xF3);
//! let bytes = writer::finalize_with(d, &agreed).unwrap();
//!
//! // A reader that agreed on 0xF3 reads it back.
//! let read = descriptor::read(&bytes, &agreed).unwrap();
//! let Some(SchemeVariantView::Private(_, p)) = read.view().quantization().map(|q| q.payload()) else { unreachable!() };
//! let back = LutScheme::read(p.data(), Version::new(1, p.header().scheme_version()), LutScheme::latest()).unwrap();
//! assert_eq!(back.value, lut);
//!
//! // A reader acting at scheme version 1 skips the bias and sees its default (CD2, R4).
//! let old = LutScheme::read(p.data(), version, Version::new(1, 1)).unwrap();
//! assert_eq!((old.value.bias, old.skipped), (0.0, 4));
//!
//! // A reader that does not know 0xF3 skips the section when permissive (and never
//! // dereferences the data), and rejects it when strict.
//! let skipped = descriptor::read(&bytes, &ReaderConfig::new().permissive(true)).unwrap();
//! assert!(!skipped.dereferenceable());
//! assert!(descriptor::read(&bytes, &ReaderConfig::new()).is_err());
//! ```
//!
//! See `tests/private_scheme.rs` for the whole round trip through a descriptor.

mod ast;
mod ctxt;
mod expand;
mod spec_link;
mod valid;

use proc_macro::TokenStream;

/// Derive `hurray_runtime::section::Section` for a struct; see the crate docs.
#[proc_macro_derive(HurraySection, attributes(hurray))]
pub fn derive_hurray_section(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand_tokens(&input)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// The whole pipeline on tokens (also used by the expansion snapshot tests). Every phase
/// reports into one context; each runs on what the phases before it found sound, so one
/// mistake is reported once: attributes are validated once they parse, and the spec link
/// compares a section that is valid by itself.
fn expand_tokens(input: &syn::DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let cx = ctxt::Ctxt::new();
    let section = ast::parse(&cx, input);
    let mut spec_checks = proc_macro2::TokenStream::new();
    let mut own_prefix = None;
    if let Some(section) = &section
        && !cx.has_errors()
    {
        valid::validate(&cx, section);
        if !cx.has_errors() {
            (spec_checks, own_prefix) = spec_link::check(&cx, section);
        }
    }
    cx.check()?;
    let section = section.expect("a section is parsed whenever no error is reported");
    // The field holding the section's own length prefix: the spec's (a linked section), else
    // the one marked `#[hurray(length_prefix)]`.
    let own_prefix = own_prefix.or_else(|| {
        section
            .fields
            .iter()
            .position(|f| f.length_prefix.is_some())
    });
    Ok(expand::expand(&section, spec_checks, own_prefix))
}

#[cfg(test)]
mod snapshots;
