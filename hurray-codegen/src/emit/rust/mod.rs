//! The Rust emitter: tag enums, flag types, rules, axes, constants, and for every structure a
//! borrowed view and an owned form with encode/decode and reflection.

mod common;
mod meta;
mod structs;

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::Spec;

/// The generated runtime code, formatted, with its preamble.
pub fn runtime(spec: &Spec) -> String {
    let axes = meta::axes(spec);
    let rules = meta::rules(spec);
    let tags = meta::tags(spec);
    let flags = meta::flags(spec);
    let consts = meta::consts(spec);
    let structures = structs::structures(spec);
    let file: TokenStream = quote! {
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
        /// Borrowed views and owned forms of every structure.
        pub mod structures { #structures }
    };
    format(
        file,
        "cargo build -p hurray-runtime (the build script runs hurray-codegen)",
    )
}

/// Format generated tokens and prepend the preamble.
pub fn format(tokens: TokenStream, command: &str) -> String {
    let body = match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        // The emitter produced tokens that do not parse: leave them unformatted so the
        // compiler points at the problem.
        Err(_) => tokens.to_string(),
    };
    format!("{}\n{body}", super::preamble("//", command))
}
