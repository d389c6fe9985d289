//! The Rust emitter: tag enums, flag types, rules, axes, constants, and for every structure a
//! borrowed view and an owned form with encode/decode and reflection. Split by what it emits:
//! `meta` (axes, rules, tags, flags, constants), `views` and their `parse` functions with
//! the table `checks`, `owned` forms and their `values`, the `variants` of dispatching
//! spaces, the `annotate` walkers `hurray inspect` reports through, and the `arbitrary`
//! impls of the owned forms (fuzzing); `common` holds the names and token helpers they
//! share. Every fact comes from the model, shapes included (`model::shape`); nothing here
//! analyses the spec.

mod annotate;
mod arbitrary;
mod checks;
mod common;
mod meta;
mod owned;
mod parse;
mod values;
mod variants;
mod views;

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{SpaceId, Spec, StructId};

/// The generated runtime code, formatted, with its preamble.
pub fn runtime(spec: &Spec) -> String {
    format(
        tokens(spec),
        "cargo build -p hurray-runtime (the build script runs hurray-codegen)",
    )
}

/// The generated runtime code as one token stream, before formatting: what [`runtime`]
/// formats. Tools that compare generations (the amendment checker's mutation test) read
/// this, which is much cheaper than the formatted text.
pub fn tokens(spec: &Spec) -> TokenStream {
    let axes = meta::axes(spec);
    let rules = meta::rules(spec);
    let tags = meta::tags(spec);
    let flags = meta::flags(spec);
    let consts = meta::consts(spec);
    let migrations = meta::migrations(spec);
    let structures = structures(spec);
    let annotate = annotate::walkers(spec);
    let arbitrary = arbitrary::impls(spec);
    quote! {
        /// The version axes of the spec (the version registry).
        pub mod axes { #axes }
        /// Every rule of the facts sheets, with its stable error code.
        pub mod rules { #rules }
        /// Tag spaces: every allocated value, and the classification of every other.
        pub mod tags { #tags }
        /// Flag sets.
        pub mod flags { #flags }
        /// Sizes, offsets, versions and placement constants.
        pub mod consts { #consts }
        /// The migration specifications (S5) onto this build's majors (`hurray migrate`).
        pub mod migrations { #migrations }
        /// Borrowed views and owned forms of every structure.
        pub mod structures { #structures }
        /// The annotation walkers of every structure (`hurray inspect`).
        #[allow(missing_docs)]
        pub mod annotate { #annotate }
        /// `arbitrary::Arbitrary` for every owned form (the runtime's `arbitrary` feature).
        #[cfg(feature = "arbitrary")]
        mod arbitrary_impls { #arbitrary }
    }
}

/// Every structure's view and owned form, and the variant enums of every space a field
/// dispatches on.
fn structures(spec: &Spec) -> TokenStream {
    let mut out = TokenStream::new();
    for i in 0..spec.structures.len() {
        let id = StructId(i as u32);
        out.extend(views::view(spec, id));
        out.extend(owned::owned(spec, id));
    }
    for (i, space) in spec.spaces.iter().enumerate() {
        if space.dispatch.is_some() {
            out.extend(variants::variant_enums(spec, SpaceId(i as u32)));
        }
    }
    out
}

/// Format generated tokens and prepend the preamble. Tokens that do not parse as a Rust file
/// are a bug of this emitter (on a validated model it emits valid Rust): it panics with the
/// parse error and where it is, rather than writing unformatted text.
pub fn format(tokens: TokenStream, command: &str) -> String {
    let file = match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => file,
        Err(e) => {
            let text = tokens.to_string();
            let at = text
                .find(&e.span().source_text().unwrap_or_default())
                .unwrap_or(0);
            let context: String = text
                .chars()
                .skip(at.saturating_sub(200))
                .take(400)
                .collect();
            panic!(
                "hurray-codegen emitted Rust that does not parse (a bug of the emitter, not of the spec): {e}\nnear: {context}"
            )
        }
    };
    format!(
        "{}\n{}",
        super::preamble("//", command),
        prettyplease::unparse(&file)
    )
}
