//! The variant enums of every space a field dispatches on: the structure a tag value selects,
//! as a view and as an owned value (with an opaque variant where the variants are
//! length-prefixed, RES-9, and a private one for the private range); and for the scheme role's
//! space, the parameter buffers a payload references.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::common::*;
use super::parse::{call_args, parse_params};
use crate::model::*;

pub fn variant_enums(spec: &Spec, space: SpaceId) -> TokenStream {
    let tag_space = spec.space(space);
    let dispatch = dispatch_shape(spec, space);
    let ty = space_type(spec, space);
    let vv = variant_view_ident(spec, space);
    let vo = variant_owned_ident(spec, space);
    let (params_decl, _) = parse_params(&dispatch.params, dispatch.containment);
    let bounded = dispatch.bound.is_some();
    let private_struct = dispatch.private;
    let axis = axis_path(spec, tag_space.axis);

    let mut view_variants = Vec::new();
    let mut owned_variants = Vec::new();
    let mut parse_arms = Vec::new();
    let mut owned_arms = Vec::new();
    let mut tag_arms_v = Vec::new();
    let mut tag_arms_o = Vec::new();
    let mut encode_arms = Vec::new();
    let mut len_arms = Vec::new();
    let mut tv_arms = Vec::new();
    let mut fv_arms = Vec::new();
    // A `Copy` space's views keep a record of the variant (see `views`).
    let vr = variant_record_ident(spec, space);
    let mut record_variants = Vec::new();
    let mut positions_arms = Vec::new();
    let mut view_arms = Vec::new();
    let mut like_arms = Vec::new();
    for t in &tag_space.tags {
        let v = camel(&t.name);
        let val = Literal::u32_unsuffixed(t.value);
        let d = doc(&t.title);
        tag_arms_v.push(quote!(#vv::#v { .. } => #val,));
        tag_arms_o.push(quote!(#vo::#v { .. } => #val,));
        match t.structure {
            Some(sid) => {
                let sv = view_ident(spec, sid);
                let so = owned_ident(spec, sid);
                let args = call_args(
                    dispatch.containment,
                    spec.structure(sid).shape.containment,
                    &spec.structure(sid).params,
                );
                view_variants.push(quote!(#d #v(#sv<'a>),));
                owned_variants.push(quote!(#d #v(#so),));
                let rec = record_ident(spec, sid);
                record_variants.push(quote!(#v(#rec),));
                positions_arms.push(quote!(#vv::#v(x) => #vr::#v(x.at),));
                view_arms.push(quote!(#vr::#v(at) => #vv::#v(#sv { bytes, offset, at }),));
                let replay =
                    replay_for(dispatch.containment, spec.structure(sid).shape.containment);
                like_arms.push(quote!(#vv::#v(x) => crate::seq::Rebuild::like(x, bytes, offset, #replay).map(#vv::#v),));
                parse_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => #vv::#v(#sv::parse(r, ctx #args)?),));
                owned_arms.push(quote!(#vv::#v(x) => #vo::#v(x.owned()),));
                encode_arms.push(quote!(#vo::#v(x) => x.encode(out),));
                len_arms.push(quote!(#vo::#v(x) => x.encoded_len(),));
                tv_arms.push(quote!(#vo::#v(x) => x.to_value(),));
                fv_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => Ok(#vo::#v(#so::from_value(v, path)?)),));
            }
            None => {
                view_variants.push(quote!(#d #v,));
                owned_variants.push(quote!(#d #v,));
                record_variants.push(quote!(#v,));
                positions_arms.push(quote!(#vv::#v => #vr::#v,));
                view_arms.push(quote!(#vr::#v => #vv::#v,));
                like_arms.push(quote!(#vv::#v => Some(#vv::#v),));
                // A value with no structure inside a length prefix (an empty message
                // payload): bytes there are the surplus of a structure with no fields (RES-7,
                // RES-55), rejected at a version the reader knows.
                if bounded {
                    let what = format!("the empty {} `{}`", tag_space.title, t.name);
                    parse_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => {
                        let __at = r.offset();
                        let __rest = r.rest();
                        ctx.surplus(#axis, __rest, __at, #what)?;
                        #vv::#v
                    }));
                } else {
                    parse_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => #vv::#v,));
                }
                owned_arms.push(quote!(#vv::#v => #vo::#v,));
                encode_arms.push(quote!(#vo::#v => {},));
                len_arms.push(quote!(#vo::#v => 0,));
                tv_arms.push(quote!(#vo::#v => crate::value::Value::Object(Vec::new()),));
                fv_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => Ok(#vo::#v),));
            }
        }
    }
    if let Some(sid) = private_struct {
        let sv = view_ident(spec, sid);
        let so = owned_ident(spec, sid);
        let args = call_args(
            dispatch.containment,
            spec.structure(sid).shape.containment,
            &spec.structure(sid).params,
        );
        view_variants.push(quote!(/// An implementation-private value.
            Private(u32, #sv<'a>),));
        let rec = record_ident(spec, sid);
        record_variants.push(quote!(Private(u32, #rec),));
        positions_arms.push(quote!(#vv::Private(t, x) => #vr::Private(*t, x.at),));
        view_arms.push(quote!(#vr::Private(t, at) => #vv::Private(t, #sv { bytes, offset, at }),));
        let replay = replay_for(dispatch.containment, spec.structure(sid).shape.containment);
        like_arms.push(quote!(#vv::Private(t, x) => crate::seq::Rebuild::like(x, bytes, offset, #replay).map(|y| #vv::Private(*t, y)),));
        owned_variants.push(quote!(/// An implementation-private value.
            Private(u32, #so),));
        parse_arms.push(
            quote!(crate::wire::TagClass::Private => #vv::Private(tag, #sv::parse(r, ctx #args)?),),
        );
        owned_arms.push(quote!(#vv::Private(t, x) => #vo::Private(*t, x.owned()),));
        tag_arms_v.push(quote!(#vv::Private(t, _) => *t,));
        tag_arms_o.push(quote!(#vo::Private(t, _) => *t,));
        encode_arms.push(quote!(#vo::Private(_, x) => x.encode(out),));
        len_arms.push(quote!(#vo::Private(_, x) => x.encoded_len(),));
        tv_arms.push(quote!(#vo::Private(_, x) => x.to_value(),));
        fv_arms.push(quote!(crate::wire::TagClass::Private => Ok(#vo::Private(tag, #so::from_value(v, path)?)),));
    }
    let unknown = if bounded {
        view_variants.push(
            quote!(/// A value this reader does not know, accepted in permissive mode and kept as opaque bytes (RES-9).
            Opaque(u32, &'a [u8]),),
        );
        owned_variants.push(
            quote!(/// A value the reader did not know, kept as opaque bytes.
            Opaque(u32, Vec<u8>),),
        );
        owned_arms.push(quote!(#vv::Opaque(t, b) => #vo::Opaque(*t, b.to_vec()),));
        record_variants.push(quote!(Opaque(u32),));
        positions_arms.push(quote!(#vv::Opaque(t, _) => #vr::Opaque(*t),));
        view_arms.push(quote!(#vr::Opaque(t) => #vv::Opaque(t, bytes),));
        like_arms.push(quote!(#vv::Opaque(t, _) => Some(#vv::Opaque(*t, bytes)),));
        tag_arms_v.push(quote!(#vv::Opaque(t, _) => *t,));
        tag_arms_o.push(quote!(#vo::Opaque(t, _) => *t,));
        encode_arms.push(quote!(#vo::Opaque(_, b) => out.extend_from_slice(b),));
        len_arms.push(quote!(#vo::Opaque(_, b) => b.len(),));
        tv_arms.push(quote!(#vo::Opaque(_, b) => crate::value::Value::Object(vec![("opaque".to_string(), crate::value::Value::Bytes(b.clone()))]),));
        quote! {
            ctx.tag(crate::wire::TagValue::<super::tags::#ty>::from_raw(tag), tag_at, None)?;
            #vv::Opaque(tag, r.rest())
        }
    } else {
        quote! {
            ctx.tag(crate::wire::TagValue::<super::tags::#ty>::from_raw(tag), tag_at, None)?;
            return Err(crate::error::Error::fmt(<super::tags::#ty as crate::wire::TagSpace>::REJECT_UNKNOWN, tag_at, format_args!("{} {:#04x} cannot be parsed by this reader", #ty::NAME_STR, tag)));
        }
    };
    let opaque_fv = if bounded {
        quote!(_ => Ok(#vo::Opaque(tag, crate::value::de::bytes(crate::value::de::field(v, path, "opaque")?, path)?)),)
    } else {
        quote!(_ => Err(crate::value::ValueError::new(path, format!("{:#04x} is not a known {} value", tag, #ty::NAME_STR))),)
    };
    let parameters = if space == spec.roles.scheme {
        parameter_buffers(spec, space)
    } else {
        quote!()
    };
    let mut need_arms: Vec<_> = tag_space
        .tags
        .iter()
        .filter(|t| t.structure.is_some())
        .map(|t| {
            let v = camel(&t.name);
            quote!(#vo::#v(x) => x.version_needed(axis, v),)
        })
        .collect();
    if private_struct.is_some() {
        need_arms.push(quote!(#vo::Private(_, x) => x.version_needed(axis, v),));
    }
    let mut fill_arms: Vec<_> = tag_space
        .tags
        .iter()
        .filter(|t| t.structure.is_some())
        .map(|t| {
            let v = camel(&t.name);
            quote!(#vo::#v(x) => x.fill_defaults(axis, v),)
        })
        .collect();
    if private_struct.is_some() {
        fill_arms.push(quote!(#vo::Private(_, x) => x.fill_defaults(axis, v),));
    }
    // A structure whose value form has one field is a plain value (a KV `int64`, a string
    // with its derived length): the contract shape writes it bare, under its field's name.
    let lone_arms: Vec<_> = tag_space
        .tags
        .iter()
        .filter_map(|t| {
            let s = spec.structure(t.structure?);
            let carried: Vec<&Field> = s
                .fields
                .iter()
                .enumerate()
                .filter(|&(i, _)| s.carried(i))
                .map(|(_, f)| f)
                .collect();
            let [only] = carried.as_slice() else {
                return None;
            };
            let val = Literal::u32_unsuffixed(t.value);
            let name = only.name.as_str();
            Some(quote!(#val => Some(#name),))
        })
        .collect();
    let mut sync_arms: Vec<_> = tag_space
        .tags
        .iter()
        .filter(|t| t.structure.is_some())
        .map(|t| {
            let v = camel(&t.name);
            quote!(#vo::#v(x) => x.sync_length_prefixes(),)
        })
        .collect();
    if private_struct.is_some() {
        sync_arms.push(quote!(#vo::Private(_, x) => x.sync_length_prefixes(),));
    }
    // A field every variant starts with (the quantization header): an accessor on both enums.
    let common = &dispatch.common_first;
    let (common_view, common_owned) = match &common {
        Some((fname, sid)) => {
            let n = ident(fname);
            let nm = format_ident!("{}_mut", fname);
            let hv = view_ident(spec, *sid);
            let ho = owned_ident(spec, *sid);
            let arms_v: Vec<_> = tag_space
                .tags
                .iter()
                .filter(|t| t.structure.is_some())
                .map(|t| {
                    let v = camel(&t.name);
                    quote!(#vv::#v(x) => Some(x.#n()),)
                })
                .collect();
            let arms_o: Vec<_> = tag_space
                .tags
                .iter()
                .filter(|t| t.structure.is_some())
                .map(|t| {
                    let v = camel(&t.name);
                    quote!(#vo::#v(x) => Some(&x.#n),)
                })
                .collect();
            let arms_m: Vec<_> = tag_space
                .tags
                .iter()
                .filter(|t| t.structure.is_some())
                .map(|t| {
                    let v = camel(&t.name);
                    quote!(#vo::#v(x) => Some(&mut x.#n),)
                })
                .collect();
            let priv_v = if private_struct.is_some() {
                quote!(#vv::Private(_, x) => Some(x.#n()),)
            } else {
                quote!()
            };
            let priv_o = if private_struct.is_some() {
                quote!(#vo::Private(_, x) => Some(&x.#n),)
            } else {
                quote!()
            };
            let priv_m = if private_struct.is_some() {
                quote!(#vo::Private(_, x) => Some(&mut x.#n),)
            } else {
                quote!()
            };
            (
                quote! {
                    /// The field every variant starts with.
                    pub fn #n(&self) -> Option<#hv<'a>> { #[allow(unreachable_patterns)] match self { #(#arms_v)* #priv_v _ => None } }
                },
                quote! {
                    /// The field every variant starts with.
                    pub fn #n(&self) -> Option<&#ho> { #[allow(unreachable_patterns)] match self { #(#arms_o)* #priv_o _ => None } }
                    /// The field every variant starts with, to change it.
                    pub fn #nm(&mut self) -> Option<&mut #ho> { #[allow(unreachable_patterns)] match self { #(#arms_m)* #priv_m _ => None } }
                },
            )
        }
        None => (quote!(), quote!()),
    };
    let name = tag_space.name.as_str();
    let vderives = if dispatch.containment.copy {
        quote!(#[derive(Clone, Copy, Debug)])
    } else {
        quote!(#[derive(Clone, Debug)])
    };
    let grows = " A later spec may allocate values that select new structures, so a `match` outside this crate needs a wildcard arm.";
    let vdoc = format!(" The structure selected by a `{name}` value: a borrowed view.{grows}");
    let records = if dispatch.containment.copy {
        let rdoc = format!(
            " What a view keeps of the structure a `{name}` value selected: which one, and its record."
        );
        quote! {
            #[doc = #rdoc]
            #[derive(Clone, Copy, Debug)]
            enum #vr { #(#record_variants)* }

            impl #vr {
                /// The view of the variant over `bytes` (the field's span) at `offset`.
                fn view<'a>(self, bytes: &'a [u8], offset: u64) -> #vv<'a> {
                    match self { #(#view_arms)* }
                }
            }

            impl #vv<'_> {
                /// What a view keeps of this variant.
                fn positions(&self) -> #vr {
                    match self { #(#positions_arms)* }
                }
            }
        }
    } else {
        quote!()
    };
    let odoc = format!(" The structure selected by a `{name}` value: an owned value.{grows}");
    quote! {
        impl super::tags::#ty {
            /// The space's name.
            pub const NAME_STR: &'static str = #name;
        }

        #[doc = #vdoc]
        #vderives
        #[non_exhaustive]
        pub enum #vv<'a> { #(#view_variants)* }

        impl crate::wire::sealed::Sealed for #vv<'_> {}
        impl<'a> crate::seq::Rebuild<'a> for #vv<'a> {
            /// The same variant over another entry's bytes.
            #[allow(unused_variables)]
            fn like(&self, bytes: &'a [u8], offset: u64, replay: &crate::ctx::Replay) -> Option<Self> {
                match self { #(#like_arms)* }
            }
        }

        impl<'a> #vv<'a> {
            /// Parse the structure `tag` selects (`tag_at` locates the tag for errors).
            #[doc(hidden)]
            #[allow(unused_variables, clippy::too_many_arguments)]
            pub fn parse(r: &mut crate::wire::Reader<'a>, ctx: &mut crate::ctx::Ctx<'_>, tag: u32, tag_at: u64 #params_decl) -> Result<Self, crate::error::Error> {
                use super::tags::#ty;
                let class = <#ty as crate::wire::TagSpace>::classify(tag);
                // A value newer than the reader's version is unknown to it.
                let known_to_reader = match class {
                    crate::wire::TagClass::Known(t) => crate::wire::TagSpace::since(t) <= ctx.reader(#axis),
                    _ => true,
                };
                Ok(match class {
                    _ if !known_to_reader => { #unknown }
                    #(#parse_arms)*
                    _ => { #unknown }
                })
            }

            /// The tag value that selected this structure.
            pub fn tag(&self) -> u32 {
                match self { #(#tag_arms_v)* }
            }

            /// An owned copy of the selected structure.
            pub fn owned(&self) -> #vo {
                match self { #(#owned_arms)* }
            }

            #parameters
            #common_view
        }

        #records

        #[doc = #odoc]
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum #vo { #(#owned_variants)* }

        impl #vo {
            /// The tag value that selects this structure.
            pub fn tag(&self) -> u32 {
                match self { #(#tag_arms_o)* }
            }
            /// The name of the only field in the value form of the structure `tag` selects
            /// (reserved bytes and derived lengths omitted), when it has exactly one (a plain
            /// value); `None` for any other tag.
            pub fn lone_field(tag: u32) -> Option<&'static str> {
                match tag { #(#lone_arms)* _ => None }
            }
            #common_owned
            /// W4 at a declared version, for the selected structure (see its `fill_defaults`).
            pub fn fill_defaults(&mut self, axis: crate::generated::axes::Axis, v: crate::version::Version) {
                #[allow(unreachable_patterns)]
                match self { #(#fill_arms)* _ => {} }
            }
            /// The selected structure's own length prefixes, computed (see its
            /// `sync_length_prefixes`).
            pub fn sync_length_prefixes(&mut self) -> Result<(), crate::error::Error> {
                #[allow(unreachable_patterns)]
                match self { #(#sync_arms)* _ => Ok(()) }
            }
            /// W1/W2 for the selected structure (see its `version_needed`).
            pub fn version_needed(&self, axis: crate::generated::axes::Axis, v: crate::version::Version) -> crate::version::Version {
                #[allow(unreachable_patterns)]
                match self { #(#need_arms)* _ => v }
            }
            /// Append the selected structure's encoding.
            pub fn encode(&self, out: &mut Vec<u8>) {
                match self { #(#encode_arms)* }
            }
            /// The length in bytes of the encoding.
            pub fn encoded_len(&self) -> usize {
                match self { #(#len_arms)* }
            }
            /// The selected structure's fields by spec name.
            pub fn to_value(&self) -> crate::value::Value {
                match self { #(#tv_arms)* }
            }
            /// The structure `tag` selects, from its value.
            pub fn from_value(tag: u32, v: &crate::value::Value, path: &str) -> Result<Self, crate::value::ValueError> {
                use super::tags::#ty;
                match <#ty as crate::wire::TagSpace>::classify(tag) {
                    #(#fv_arms)*
                    #opaque_fv
                }
            }
        }
    }
}

/// The parameter buffers a scheme payload references, read through the fields its scheme's
/// `parameters` resolve to; a parameter whose `unless` bit the payload's flags set is absent.
fn parameter_buffers(spec: &Spec, space: SpaceId) -> TokenStream {
    let vv = variant_view_ident(spec, space);
    let space_ty = space_type(spec, space);
    let parameter = format_ident!("{}Parameter", space_ty);
    let buffer = format_ident!("{}ParameterBuffer", space_ty);
    let mut arms = Vec::new();
    for t in &spec.space(space).tags {
        let (Some(sid), TagAttrs::Scheme(a)) = (t.structure, &t.attrs) else {
            continue;
        };
        let v = camel(&t.name);
        let payload = spec.structure(sid);
        // The payload's flags, read where the shared header carries them (`flags_of`).
        let flags = payload.fields.iter().find_map(|f| match f.ty {
            FieldType::Struct(h) => spec
                .structure(h)
                .fields
                .iter()
                .find(|g| g.flags_of.is_some())
                .map(|g| {
                    let (outer, inner) = (ident(&f.name), ident(&g.name));
                    quote!(u64::from(x.#outer().#inner()))
                }),
            _ => None,
        });
        let pushes: Vec<_> = a
            .parameters
            .iter()
            .map(|p| {
                let field = &payload.fields[p.index_field];
                let (get, at) = (
                    ident(&field.name),
                    format_ident!("{}_at", field.name.trim_start_matches('_')),
                );
                let name = camel(&p.name);
                let push = quote!(out.push(super::tags::#buffer {
                    parameter: super::tags::#parameter::#name,
                    index: u64::from(x.#get()),
                    at: x.#at(),
                }););
                match (p.unless_bit, &flags) {
                    (Some(bit), Some(flags)) => {
                        let mask = Literal::u64_unsuffixed(1u64 << bit);
                        quote!(if #flags & #mask == 0 { #push })
                    }
                    _ => push,
                }
            })
            .collect();
        arms.push(quote!(#vv::#v(x) => {
            let mut out = Vec::new();
            #(#pushes)*
            Some(out)
        }));
    }
    quote! {
        /// The parameter buffers the payload references (its scheme's `parameters` in the
        /// spec), each with its buffer index and the absolute offset of the field holding it;
        /// a parameter whose `unless_flag` the payload sets is absent. `None` for a payload this
        /// reader does not know.
        #[allow(unused_variables, unused_mut, clippy::vec_init_then_push)]
        pub fn parameter_buffers(&self) -> Option<Vec<super::tags::#buffer>> {
            #[allow(unreachable_patterns)]
            match self {
                #(#arms)*
                _ => None,
            }
        }
    }
}

/// The replay a variant's structure is parsed again under: the dispatch's own depth when the
/// structure continues its cycle, else depth 0 (as `call_args` passes it).
fn replay_for(
    from: crate::model::shape::Containment,
    to: crate::model::shape::Containment,
) -> TokenStream {
    if to.cyclic && from.cyclic && from.component == to.component {
        quote!(replay)
    } else {
        quote!(&replay.at_depth(0))
    }
}
