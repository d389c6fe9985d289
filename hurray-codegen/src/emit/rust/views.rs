//! The borrowed view of every structure: the struct that keeps what a reader walked to (and
//! reads the rest in place from the bytes), its offset and size constants, its accessors, its
//! conversion to the owned form, and for a plain run of bytes a `FixedView`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::common::*;
use super::parse::{depth_check, dispatch_shape, parse_body, parse_params};
use crate::model::shape::FieldShape;
use crate::model::*;

pub fn view(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let vname = view_ident(spec, id);
    let oname = owned_ident(spec, id);
    let simple = s.shape.simple;
    let title = format!(" {} (`{}`): a borrowed view.", doc_escape(&s.title), s.name);
    let lp = s.framing.is_length_prefixed();

    // Offsets and size constants.
    let mut consts = TokenStream::new();
    if let Some(size) = s.const_size() {
        let l = lit_usize(size);
        consts.extend(quote!(/// Encoded size in bytes.
            pub const SIZE: usize = #l;));
    }
    for f in &s.fields {
        if let Some(o) = f.const_offset() {
            let c = format_ident!("OFFSET_{}", f.name.trim_start_matches('_').to_uppercase());
            let l = lit_usize(o);
            let d = doc(&format!(
                "Offset in bytes of `{}` from the start of the structure.",
                f.name
            ));
            consts.extend(quote!(#d pub const #c: usize = #l;));
        }
    }

    let mut members = Vec::new();
    let mut inits = Vec::new();
    let mut accessors = Vec::new();
    let mut owned_fields = Vec::new();

    for (i, f) in s.fields.iter().enumerate() {
        let fi = value_local(f);
        let oi = offset_local(f);
        let name = ident(&f.name);
        let at_name = format_ident!("{}_at", f.name.trim_start_matches('_'));
        let shape = &s.shape.fields[i];
        // A field the view keeps (rather than reading it in place from the bytes).
        let stored = !shape.in_place;
        let optional = shape.conditional || (shape.appended && !shape.scalar);
        // A structure nested in itself is kept behind a box: the level the enclosing parse
        // read, with the reader's configuration and nesting depth.
        let boxed = shape.recursive && f.count.is_none();
        let base_ty = if boxed {
            let inner = view_member_ty(spec, f);
            quote!(Box<#inner>)
        } else {
            view_member_ty(spec, f)
        };
        let member_ty = if optional || (shape.appended && shape.scalar) {
            quote!(Option<#base_ty>)
        } else {
            base_ty.clone()
        };
        let d = doc(&field_doc(s, f));
        if stored {
            members.push(quote!(#fi: #member_ty,));
            if boxed && optional {
                inits.push(quote!(#fi: #fi.map(Box::new),));
            } else if boxed {
                inits.push(quote!(#fi: Box::new(#fi),));
            } else {
                inits.push(quote!(#fi,));
            }
        }
        members.push(quote!(#oi: u64,));
        inits.push(quote!(#oi,));
        if f.reserved {
            continue;
        }
        // Accessor.
        if !stored {
            let o = lit_usize(f.const_offset().unwrap_or(0));
            let p = f.ty.scalar_prim(spec).unwrap_or(Prim::U8);
            let pt = prim_type(p);
            let read = wrap_scalar(
                spec,
                &f.ty,
                quote!(crate::wire::read::<#pt>(self.bytes, #o)),
            );
            let t = scalar_ty(spec, &f.ty);
            accessors.push(quote!(#d pub fn #name(&self) -> #t { #read }));
        } else if shape.appended && shape.scalar {
            let t = scalar_ty(spec, &f.ty);
            let def = default_tokens(spec, s, f, false);
            accessors.push(quote! {
                #d
                /// Appended after the structure's first version: `Defaulted` when the data or this reader predates it (R4).
                pub fn #name(&self) -> crate::wire::Field<#t> {
                    match self.#fi { Some(v) => crate::wire::Field::Read(v), None => crate::wire::Field::Defaulted(#def) }
                }
            });
        } else if boxed {
            let inner = view_member_ty(spec, f);
            let (t, e) = if optional {
                (quote!(Option<&#inner>), quote!(self.#fi.as_deref()))
            } else {
                (quote!(&#inner), quote!(&self.#fi))
            };
            accessors.push(quote!(#d
                /// The nested level, as the enclosing parse read it (with the same reader
                /// configuration, its nesting counted against the depth limit).
                pub fn #name(&self) -> #t { #e }));
        } else {
            let (t, e) = view_accessor(spec, f, &member_ty, &fi);
            let (t, e) = if copy_ty(spec, f) {
                (t, e)
            } else {
                (quote!(&#t), quote!(&#e))
            };
            accessors.push(quote!(#d pub fn #name(&self) -> #t { #e }));
        }
        accessors.push(quote!(/// Absolute byte offset of this field.
            pub fn #at_name(&self) -> u64 { self.#oi }));
        // Owned conversion.
        if shape.gives_size_of.is_some() {
            continue;
        }
        let conv = if boxed && optional {
            quote!(self.#fi.as_ref().map(|v| Box::new(v.owned())))
        } else if boxed {
            quote!(Box::new(self.#fi.owned()))
        } else {
            owned_conv(spec, f, shape)
        };
        owned_fields.push(quote!(#name: #conv,));
    }
    if lp {
        members.push(quote!(skipped: &'a [u8],));
        inits.push(quote!(skipped,));
        accessors.push(quote!(
            /// Bytes inside the length prefix that this reader's version does not define (CD2).
            pub fn skipped(&self) -> &'a [u8] {
                self.skipped
            }
        ));
        owned_fields.push(quote!(skipped: self.skipped.to_vec(),));
    }

    let (params_decl, _) = parse_params(&s.params, s.shape.containment);
    let body = parse_body(spec, id);
    let depth_check = depth_check(spec, id);

    let fixed_view = if simple {
        let size = lit_usize(s.const_size().unwrap_or(0));
        let oinits: Vec<_> = s
            .fields
            .iter()
            .map(|f| {
                let oi = offset_local(f);
                let o = lit_u64(f.const_offset().unwrap_or(0));
                let stored = if let (FieldType::Bytes, Some(Count::Const(n))) = (&f.ty, &f.count) {
                    let fi = value_local(f);
                    let (a, b) = (
                        lit_usize(f.const_offset().unwrap_or(0)),
                        lit_usize(f.const_offset().unwrap_or(0) + n),
                    );
                    quote!(#fi: &bytes[#a..#b],)
                } else {
                    quote!()
                };
                quote!(#oi: offset + #o, #stored)
            })
            .collect();
        quote! {
            impl crate::wire::sealed::Sealed for #vname<'_> {}
            impl<'a> crate::wire::FixedView<'a> for #vname<'a> {
                const SIZE: usize = #size;
                fn at(bytes: &'a [u8], offset: u64) -> Self { #vname { bytes, offset, #(#oinits)* } }
            }
        }
    } else {
        quote!()
    };

    let derives = if s.shape.containment.copy {
        quote!(#[derive(Clone, Copy, Debug)])
    } else {
        quote!(#[derive(Clone, Debug)])
    };
    quote! {
        #[doc = #title]
        #derives
        #[allow(dead_code)]
        pub struct #vname<'a> {
            bytes: &'a [u8],
            offset: u64,
            #(#members)*
        }

        impl<'a> #vname<'a> {
            #consts

            /// Parse and check the structure at the reader's position (internal: the entry
            /// points are `descriptor::read` and `file::open`).
            #[doc(hidden)]
            #[allow(unused_variables, unused_mut, clippy::too_many_arguments, clippy::needless_late_init, clippy::let_and_return, clippy::identity_op, clippy::nonminimal_bool, clippy::absurd_extreme_comparisons, unused_comparisons, clippy::manual_range_contains)]
            pub fn parse(r0: &mut crate::wire::Reader<'a>, ctx: &mut crate::ctx::Ctx<'_> #params_decl) -> Result<Self, crate::error::Error> {
                let __start = r0.pos();
                let offset = r0.offset();
                #depth_check
                #body
                let bytes = r0.since(__start);
                Ok(Self { bytes, offset, #(#inits)* })
            }

            /// The structure's bytes.
            pub fn bytes(&self) -> &'a [u8] { self.bytes }
            /// Absolute offset of the structure's first byte.
            pub fn offset(&self) -> u64 { self.offset }
            #(#accessors)*

            /// An owned copy.
            /// An owned copy of every field.
            pub fn owned(&self) -> #oname {
                #oname { #(#owned_fields)* }
            }
        }

        #fixed_view
    }
}

/// Whether a field's view type is `Copy`.
fn copy_ty(spec: &Spec, f: &Field) -> bool {
    match (&f.ty, &f.count) {
        (FieldType::Struct(t), None) => spec.structure(*t).shape.containment.copy,
        (FieldType::Dispatch { space, .. }, None) => dispatch_shape(spec, *space).containment.copy,
        // Sequences: the accessor returns a `FixedSeq` (Copy) or a slice.
        (FieldType::Struct(_) | FieldType::Dispatch { .. }, Some(_)) => true,
        _ => true,
    }
}

/// The stored type of a field in a view (without `Option`).
fn view_member_ty(spec: &Spec, f: &Field) -> TokenStream {
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
            scalar_ty(spec, &f.ty)
        }
        (t, Some(_)) if t.scalar_prim(spec).is_some() => {
            let p = prim_type(t.scalar_prim(spec).unwrap_or(Prim::U8));
            quote!(crate::wire::Array<'a, #p>)
        }
        (FieldType::Bytes, _) => quote!(&'a [u8]),
        (FieldType::Utf8, _) => quote!(&'a str),
        (FieldType::Struct(t), None) => {
            let v = view_ident(spec, *t);
            quote!(#v<'a>)
        }
        (FieldType::Struct(t), Some(_)) => {
            let v = view_ident(spec, *t);
            if spec.structure(*t).shape.simple {
                quote!(crate::wire::FixedSeq<'a, #v<'a>>)
            } else {
                quote!(Vec<#v<'a>>)
            }
        }
        (FieldType::Dispatch { space, .. }, None) => {
            let v = variant_view_ident(spec, *space);
            quote!(#v<'a>)
        }
        (FieldType::Dispatch { space, .. }, Some(_)) => {
            let v = variant_view_ident(spec, *space);
            quote!(Vec<#v<'a>>)
        }
        _ => quote!(()),
    }
}

/// Accessor return type and expression for a stored member.
fn view_accessor(
    spec: &Spec,
    f: &Field,
    member_ty: &TokenStream,
    fi: &proc_macro2::Ident,
) -> (TokenStream, TokenStream) {
    let is_vec = matches!((&f.ty, &f.count), (FieldType::Struct(t), Some(_)) if !spec.structure(*t).shape.simple)
        || matches!((&f.ty, &f.count), (FieldType::Dispatch { .. }, Some(_)));
    if is_vec {
        let inner = match &f.ty {
            FieldType::Struct(t) => {
                let v = view_ident(spec, *t);
                quote!(#v<'a>)
            }
            FieldType::Dispatch { space, .. } => {
                let v = variant_view_ident(spec, *space);
                quote!(#v<'a>)
            }
            _ => quote!(()),
        };
        if f.presence != Presence::Always {
            return (quote!(Option<&[#inner]>), quote!(self.#fi.as_deref()));
        }
        return (quote!(&[#inner]), quote!(&self.#fi));
    }
    (member_ty.clone(), quote!(self.#fi))
}

/// Expression converting a view field to its owned form.
fn owned_conv(spec: &Spec, f: &Field, shape: &FieldShape) -> TokenStream {
    let fi = value_local(f);
    let name = ident(&f.name);
    let optional = shape.optional();
    let one = |v: TokenStream| -> TokenStream {
        match (&f.ty, &f.count) {
            (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => v,
            (t, Some(_)) if t.scalar_prim(spec).is_some() => quote!(#v.to_vec()),
            (FieldType::Bytes, _) => quote!(#v.to_vec()),
            (FieldType::Utf8, _) => quote!(#v.to_string()),
            (FieldType::Struct(_), None) | (FieldType::Dispatch { .. }, None) => quote!(#v.owned()),
            (FieldType::Struct(_), Some(_)) | (FieldType::Dispatch { .. }, Some(_)) => {
                quote!(#v.iter().map(|x| x.owned()).collect())
            }
            _ => v,
        }
    };
    if shape.in_place {
        return quote!(self.#name());
    }
    if optional {
        if shape.scalar {
            return quote!(self.#fi);
        }
        let inner = one(quote!(v));
        quote!(self.#fi.as_ref().map(|v| #inner))
    } else {
        one(quote!(self.#fi))
    }
}
