//! `#[hurray(spec = "<structure>")]`: the derive reads the spec tables at compile time and
//! refuses a struct whose fields, types, since or defaults differ from the TOML structure, so
//! Rust and TOML cannot drift. Offsets become const assertions (sizes are the compiler's).

use std::path::PathBuf;

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote};

use crate::ast::Section;
use hurray_codegen::model::{DefaultValue, Field, FieldType, Framing, Position, Spec, Structure};
use hurray_codegen::render;

fn spec_dir(s: &Section) -> Option<PathBuf> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    if let Some(d) = &s.spec_dir {
        return Some(manifest.join(d.value()));
    }
    manifest
        .ancestors()
        .map(|a| a.join("spec"))
        .find(|d| d.join("spec.toml").is_file())
}

fn last_segment(ty: &syn::Type) -> Option<(String, Option<String>)> {
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    let arg = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => last_segment(t).map(|x| x.0),
            _ => None,
        }),
        _ => None,
    };
    Some((seg.ident.to_string(), arg))
}

/// Whether a Rust field type is the TOML field's type.
fn type_matches(spec: &Spec, f: &Field, ty: &syn::Type) -> bool {
    let text = ty.to_token_stream().to_string().replace(' ', "");
    match (&f.ty, &f.count) {
        (FieldType::Prim(p), None) => text == p.name(),
        (FieldType::Bytes, Some(hurray_codegen::model::Count::Const(n))) => {
            text == format!("[u8;{n}]")
        }
        (FieldType::Tag(sp), None) => last_segment(ty).is_some_and(|(s, a)| {
            s == "TagValue" && a.as_deref() == Some(&spec.space(*sp).name.to_upper_camel_case())
        }),
        (FieldType::Flags(fs), None) => last_segment(ty)
            .is_some_and(|(s, _)| s == spec.flag_set(*fs).name.to_upper_camel_case()),
        (FieldType::Struct(id), None) => last_segment(ty)
            .is_some_and(|(s, _)| s == spec.structure(*id).name.to_upper_camel_case()),
        _ => false,
    }
}

fn toml_type(spec: &Spec, st: &Structure, f: &Field) -> String {
    render::field_type(spec, st, f, render::Style::Message)
        + f.count.as_ref().map(|_| " (counted)").unwrap_or_default()
}

/// Compare the struct with the TOML structure; return the const assertions for offsets and
/// defaults, or every difference as one error.
pub fn check(s: &Section) -> syn::Result<TokenStream> {
    let Some(lit) = &s.spec else {
        return Ok(quote!());
    };
    let name = lit.value();
    let err = |msg: String| syn::Error::new(lit.span(), msg);
    let dir = spec_dir(s).ok_or_else(|| err("cannot find the spec directory: no spec/spec.toml above CARGO_MANIFEST_DIR; set #[hurray(spec_dir = \"<path>\")]".into()))?;
    let loaded = hurray_codegen::load(&dir)
        .map_err(|e| err(format!("cannot read the spec in {}: {e}", dir.display())))?;
    let spec = loaded.clean().ok_or_else(|| {
        err(format!(
            "the spec in {} has errors; run `hurray-spec check`",
            dir.display()
        ))
    })?;
    let st: &Structure = spec
        .structure_id(&name)
        .map(|id| spec.structure(id))
        .ok_or_else(|| err(format!("the spec has no structure `{name}`")))?;
    let axis = spec.axis(st.axis);
    let mut errs: Vec<String> = Vec::new();
    if s.length_prefixed != st.framing.is_length_prefixed() {
        errs.push(format!(
            "structure `{name}` is {} in the spec; the struct says {}",
            if st.framing.is_length_prefixed() {
                "length-prefixed"
            } else {
                "fixed"
            },
            if s.length_prefixed {
                "length_prefixed"
            } else {
                "fixed"
            }
        ));
    }
    if s.base != st.since {
        errs.push(format!(
            "structure `{name}` begins at {} in the spec; the struct's base is {}",
            axis.show(st.since),
            s.base
        ));
    }
    let rust: Vec<String> = s.fields.iter().map(|f| f.ident.to_string()).collect();
    let toml: Vec<String> = st
        .fields
        .iter()
        .map(|f| f.name.trim_start_matches('_').to_string())
        .collect();
    let rust_cmp: Vec<String> = rust
        .iter()
        .map(|n| n.trim_start_matches('_').to_string())
        .collect();
    if rust_cmp != toml {
        errs.push(format!(
            "the spec's `{name}` has fields [{}]; the struct has [{}]",
            toml.join(", "),
            rust.join(", ")
        ));
    }
    let mut asserts = Vec::new();
    let ident = &s.ident;
    for (rf, tf) in s.fields.iter().zip(&st.fields) {
        if rf.ident.to_string().trim_start_matches('_') != tf.name.trim_start_matches('_') {
            continue;
        }
        let fname = &tf.name;
        if !type_matches(spec, tf, &rf.ty) {
            errs.push(format!(
                "field `{fname}` is `{}` in the spec; the struct says `{}`",
                toml_type(spec, st, tf),
                rf.ty.to_token_stream().to_string().replace(' ', "")
            ));
        }
        if rf.since(s.base) != tf.since {
            errs.push(format!(
                "field `{fname}` is since {} in the spec; the struct says {}",
                axis.show(tf.since),
                rf.since(s.base)
            ));
        }
        if rf.reserved != tf.reserved {
            errs.push(format!(
                "field `{fname}` is {}reserved in the spec",
                if tf.reserved { "" } else { "not " }
            ));
        }
        match (&tf.default, &rf.default) {
            (None, None) => {}
            (Some(_), None) => errs.push(format!(
                "field `{fname}` has a default in the spec; the struct documents none"
            )),
            (None, Some(_)) => errs.push(format!(
                "field `{fname}` has no default in the spec; the struct documents one"
            )),
            (Some(d), Some(e)) => {
                let msg = format!(
                    "field `{fname}`: the struct's default differs from the spec's ({})",
                    render::default(st, d, render::Style::Message)
                );
                let t = &rf.ty;
                let check = match d {
                    DefaultValue::Int(n) => {
                        let l = Literal::i128_unsuffixed(*n);
                        quote!((__h::default_of::<#t, _>(#e) as i128) == #l)
                    }
                    DefaultValue::Float(x) => {
                        let l = Literal::f64_unsuffixed(*x);
                        quote!((__h::default_of::<#t, _>(#e) as f64).to_bits() == (#l as #t as f64).to_bits())
                    }
                    _ => quote!(true),
                };
                asserts.push(quote!(
                    const _: () = assert!(#check, #msg);
                ));
            }
        }
        if let Position::Offset(a) = &tf.position
            && let Some(c) = a.as_constant()
        {
            let o = format_ident!("OFFSET_{}", rf.ident.to_string().to_shouty_snake_case());
            let l = Literal::usize_unsuffixed(c as usize);
            let msg = format!(
                "field `{fname}` lies at byte {c} in the spec's `{name}`; the struct's layout puts it elsewhere"
            );
            asserts.push(quote!(
                const _: () = assert!(#ident::#o == #l, #msg);
            ));
        }
    }
    let _ = Framing::Fixed;
    if !errs.is_empty() {
        return Err(err(format!(
            "`{}` does not match spec structure `{name}` ({}): {}",
            s.ident,
            dir.display(),
            errs.join("; ")
        )));
    }
    Ok(quote!(#(#asserts)*))
}
