//! Naming and small token helpers shared by the Rust emitters.

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Literal, Span as PSpan, TokenStream};
use quote::{format_ident, quote};

use crate::model::*;

pub fn ident(s: &str) -> Ident {
    let s = if syn::parse_str::<Ident>(s).is_ok() {
        s.to_string()
    } else {
        format!("r#{s}")
    };
    syn::parse_str::<Ident>(&s)
        .unwrap_or_else(|_| Ident::new("invalid_identifier", PSpan::call_site()))
}

pub fn camel(s: &str) -> Ident {
    let c = s.replace('.', "_").to_upper_camel_case();
    let c = if c.starts_with(|ch: char| ch.is_ascii_digit()) {
        format!("V{c}")
    } else {
        c
    };
    format_ident!("{}", c)
}

pub fn shouty(s: &str) -> Ident {
    format_ident!("{}", s.to_shouty_snake_case())
}

/// `Hdr1` for rule `HDR-1`.
pub fn rule_variant(id: &str) -> Ident {
    camel(&id.replace('-', "_").to_lowercase())
}

pub fn rule_path(spec: &Spec, id: RuleId) -> TokenStream {
    let v = rule_variant(&spec.rule(id).id);
    quote!(crate::generated::rules::Rule::#v)
}

pub fn axis_variant(name: &str) -> Ident {
    camel(name)
}

pub fn axis_path(spec: &Spec, id: AxisId) -> TokenStream {
    let v = axis_variant(&spec.axis(id).name);
    quote!(crate::generated::axes::Axis::#v)
}

pub fn space_type(spec: &Spec, id: SpaceId) -> Ident {
    camel(&spec.space(id).name)
}

pub fn flags_type(spec: &Spec, id: FlagSetId) -> Ident {
    camel(&spec.flag_set(id).name)
}

pub fn version_tokens(v: Version) -> TokenStream {
    let (a, b) = (
        Literal::u8_unsuffixed(v.major),
        Literal::u8_unsuffixed(v.minor),
    );
    quote!(crate::version::Version::new(#a, #b))
}

pub fn prim_type(p: Prim) -> TokenStream {
    let i = format_ident!("{}", p.name());
    quote!(#i)
}

pub fn lit_u64(n: u64) -> Literal {
    Literal::u64_unsuffixed(n)
}

pub fn lit_usize(n: u64) -> Literal {
    Literal::usize_unsuffixed(n as usize)
}

pub fn doc(s: &str) -> TokenStream {
    if s.is_empty() {
        quote!()
    } else {
        let s = format!(" {s}");
        quote!(#[doc = #s])
    }
}

/// A literal of a primitive type.
pub fn prim_lit(p: Prim, v: &Lit) -> TokenStream {
    match (p, v) {
        (Prim::F32, Lit::Float(x)) => {
            let l = Literal::f32_suffixed(*x as f32);
            quote!(#l)
        }
        (Prim::F64, Lit::Float(x)) => {
            let l = Literal::f64_suffixed(*x);
            quote!(#l)
        }
        (Prim::F32, Lit::Int(n)) => {
            let l = Literal::f32_suffixed(*n as f32);
            quote!(#l)
        }
        (Prim::F64, Lit::Int(n)) => {
            let l = Literal::f64_suffixed(*n as f64);
            quote!(#l)
        }
        (_, Lit::Int(n)) => {
            let l = Literal::i128_unsuffixed(*n);
            let t = prim_type(p);
            quote!((#l as #t))
        }
        (_, Lit::Float(x)) => {
            let l = Literal::f64_unsuffixed(*x);
            quote!(#l)
        }
    }
}
