//! The annotation walkers (`hurray inspect`): for every structure a function that walks its
//! bytes as the generated parse does — the same fields in wire order, the same counts,
//! conditions, dispatches, length prefixes, version guards and nesting limits, all read from
//! the model — and reports each field's range, path, name, decoded value, `since` and
//! provenance to the runtime's `inspect::walk::Walker`. It checks nothing (the reader gives
//! the verdict) and stops at the first byte it cannot read, having reported what came before.
//!
//! Each walk returns what it read of the structure (`<Name>Walk`: its scalars, byte strings and
//! nested structures, by accessor), for the paths later fields and enclosing walks follow.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::common::*;
use crate::model::shape::{Containment, Prefix};
use crate::model::*;

/// The walkers of every structure and dispatching space.
pub fn walkers(spec: &Spec) -> TokenStream {
    let mut out = quote! {
        #[allow(unused_imports)]
        use crate::inspect::walk::{Cursor, Meta, Shown, Stop, Walker};
    };
    for i in 0..spec.structures.len() {
        out.extend(structure(spec, StructId(i as u32)));
    }
    for (i, space) in spec.spaces.iter().enumerate() {
        if space.dispatch.is_some() && spec.dispatched(SpaceId(i as u32)) {
            out.extend(dispatch(spec, SpaceId(i as u32)));
        }
    }
    out
}

fn walk_ident(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    format_ident!("{}Walk", camel(&spec.structure(id).name))
}

fn walk_fn(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    format_ident!("walk_{}", spec.structure(id).name)
}

fn dispatch_fn(spec: &Spec, space: SpaceId) -> proc_macro2::Ident {
    format_ident!("walk_{}_variant", spec.space(space).name)
}

fn dispatch_shape(spec: &Spec, space: SpaceId) -> &crate::model::shape::DispatchShape {
    spec.space(space)
        .dispatch
        .as_ref()
        .expect("the analysis pass shapes every space a field dispatches on")
}

/// The parameters of a walk: its params and, for what can contain itself, a nesting depth.
fn params(params: &[String], containment: Containment) -> TokenStream {
    let ps: Vec<_> = params.iter().map(|p| param_local(p)).collect();
    let depth = if containment.cyclic {
        quote!(, depth: u32)
    } else {
        quote!()
    };
    quote!(#(, #ps: u64)* #depth)
}

/// The arguments a walk passes to the walk of what it contains: the params, and the depth —
/// carried on inside one cycle, restarted at 0 when entering one.
fn args(from: Containment, to: Containment, params: &[String]) -> TokenStream {
    let ps: Vec<_> = params.iter().map(|p| param_local(p)).collect();
    let depth = if to.cyclic {
        if from.cyclic && from.component == to.component {
            quote!(, depth)
        } else {
            quote!(, 0)
        }
    } else {
        quote!()
    };
    quote!(#(, #ps)* #depth)
}

/// The `Meta` of a field.
fn meta(spec: &Spec, s: &Structure, f: &Field) -> TokenStream {
    let name = f.name.as_str();
    let title = f.title.as_str();
    let since = version_tokens(f.since);
    let axis = axis_path(spec, s.axis);
    let structure = s.name.as_str();
    quote!(Meta { name: #name, title: #title, since: #since, axis: #axis, structure: #structure })
}

/// What a walk keeps of a field for later paths, and its type.
enum Kept {
    /// A typed scalar.
    Scalar(TokenStream),
    /// A byte string or text.
    Bytes,
    /// A nested structure's walk.
    Struct(StructId),
    /// A sequence of a structure's walks.
    Seq(StructId),
    /// Nothing (arrays, dispatched parts).
    Nothing,
}

fn kept(spec: &Spec, f: &Field) -> Kept {
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
            Kept::Scalar(scalar_ty(spec, &f.ty))
        }
        (FieldType::Bytes | FieldType::Utf8, Some(_)) => Kept::Bytes,
        (FieldType::Struct(t), None) => Kept::Struct(*t),
        (FieldType::Struct(t), Some(_)) => Kept::Seq(*t),
        _ => Kept::Nothing,
    }
}

/// The `<Name>Walk` struct, its accessors, and the walk function of one structure.
fn structure(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let wname = walk_ident(spec, id);
    let fname = walk_fn(spec, id);
    let doc_text = format!(" What the walk of {} (`{}`) read.", s.title, s.name);
    let fn_doc = format!(
        " Walk {} (`{}`) at the cursor, annotating every field.",
        s.title, s.name
    );

    let mut members = Vec::new();
    let mut inits = Vec::new();
    let mut accessors = Vec::new();
    for (i, f) in s.fields.iter().enumerate() {
        let shape = &s.shape.fields[i];
        let optional = shape.optional();
        let local = value_local(f);
        let name = ident(&f.name);
        let (ty, by_ref) = match kept(spec, f) {
            Kept::Scalar(t) => (t, false),
            Kept::Bytes => (quote!(&'a [u8]), false),
            Kept::Struct(t) => {
                let w = walk_ident(spec, t);
                if shape.recursive {
                    (quote!(Box<#w<'a>>), true)
                } else {
                    (quote!(#w<'a>), true)
                }
            }
            Kept::Seq(t) => {
                let w = walk_ident(spec, t);
                (quote!(Vec<#w<'a>>), true)
            }
            Kept::Nothing => continue,
        };
        let d = doc(&f.title);
        if optional {
            members.push(quote!(#local: Option<#ty>,));
            if by_ref {
                accessors
                    .push(quote!(#d pub fn #name(&self) -> Option<&#ty> { self.#local.as_ref() }));
            } else {
                accessors.push(quote!(#d pub fn #name(&self) -> Option<#ty> { self.#local }));
            }
        } else {
            members.push(quote!(#local: #ty,));
            if by_ref {
                accessors.push(quote!(#d pub fn #name(&self) -> &#ty { &self.#local }));
            } else {
                accessors.push(quote!(#d pub fn #name(&self) -> #ty { self.#local }));
            }
        }
        let boxed = shape.recursive && matches!(kept(spec, f), Kept::Struct(_));
        inits.push(match (boxed, optional) {
            (true, true) => quote!(#local: #local.map(Box::new),),
            (true, false) => quote!(#local: Box::new(#local),),
            _ => quote!(#local,),
        });
    }

    let (sname, stitle) = (s.name.as_str(), s.title.as_str());
    let params_decl = params(&s.params, s.shape.containment);
    let depth_check = match (s.shape.containment.cyclic, s.depth_limit) {
        (true, limit) => {
            // A cycle without a limit in the tables still ends: the walk allows 256 levels.
            let l = Literal::u32_unsuffixed(limit.map_or(256, |(l, _)| l));
            let name = s.name.as_str();
            quote! {
                let depth = depth + 1;
                if depth > #l {
                    return Err(w.stop(format!("{} nests {} levels deep; the limit is {}", #name, depth, #l)));
                }
            }
        }
        _ => quote!(),
    };
    let body = body(spec, id);
    let tail = if s.framing.is_length_prefixed() {
        let axis = axis_path(spec, s.axis);
        quote!(w.surplus(r, #axis)?;)
    } else {
        quote!()
    };
    quote! {
        #[doc = #doc_text]
        #[derive(Clone, Debug)]
        #[allow(dead_code)]
        pub struct #wname<'a> {
            #(#members)*
            _bytes: std::marker::PhantomData<&'a [u8]>,
        }

        #[allow(clippy::needless_lifetimes)]
        impl<'a> #wname<'a> {
            /// The structure's name in the spec.
            pub const NAME: &'static str = #sname;
            /// The structure's title.
            pub const TITLE: &'static str = #stitle;
            #(#accessors)*
        }

        #[doc = #fn_doc]
        #[allow(unused_variables, unused_mut, clippy::too_many_arguments, clippy::needless_late_init, clippy::let_and_return, clippy::identity_op, clippy::nonminimal_bool, clippy::unnecessary_cast, clippy::needless_borrow, clippy::redundant_locals, unused_parens, unused_braces)]
        pub fn #fname<'a>(w: &mut Walker<'a, '_>, r0: &mut Cursor<'a> #params_decl) -> Result<#wname<'a>, Stop> {
            let offset = r0.offset();
            #depth_check
            let mut __short = false;
            let r = &mut *r0;
            #body
            #tail
            if __short {
                return Err(w.stop("the length prefix runs past the end of the input".to_string()));
            }
            Ok(#wname { #(#inits)* _bytes: std::marker::PhantomData })
        }
    }
}

/// The body of a walk: every field in wire order behind its guards, the axis a field
/// carries entered, the bindings for nested structures made, and the structure's own length
/// prefix bounding what follows it.
fn body(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let mut out = TokenStream::new();
    for (i, f) in s.fields.iter().enumerate() {
        let local = value_local(f);
        let at = offset_local(f);
        let shape = &s.shape.fields[i];
        let m = meta(spec, s, f);
        out.extend(quote!(let #at = r.offset(); let __m = #m;));
        let read = field(spec, id, i);
        let presence = match &f.presence {
            Presence::If(c) => Some(condition_expr(spec, c, false)),
            Presence::Always => None,
        };
        let expr = if shape.appended {
            let v = version_tokens(f.since);
            let axis = axis_path(spec, s.axis);
            let default = default_shown(spec, s, f);
            let inner = quote! {
                if #v <= w.acting(#axis) { Some(#read) } else { w.defaulted(#at, &__m, #default)?; None }
            };
            match presence {
                Some(p) => quote!(if #p { #inner } else { None }),
                None => inner,
            }
        } else {
            match presence {
                Some(p) => quote!(if #p { Some(#read) } else { None }),
                None => read,
            }
        };
        out.extend(quote!(let #local = #expr;));
        out.extend(axis_entry(spec, id, i));
        for (name, path) in &s.bindings {
            if path.steps[0] == i {
                let p = param_local(name);
                let e = path_expr(spec, path, false);
                let raw = unwrap_scalar(spec, &spec.resolve(path).ty, e);
                out.extend(quote!(let #p: u64 = #raw as u64;));
            }
        }
        if let Prefix::Own { field } = s.shape.prefix
            && field == i
            && let Framing::LengthPrefixed { by_field, .. } = &s.framing
        {
            let pf = spec.resolve(by_field);
            let inner = if by_field.root == id {
                path_expr(spec, by_field, false)
            } else {
                let n = ident(&pf.name);
                quote!(#local.#n())
            };
            let e = unwrap_scalar(spec, &pf.ty, inner);
            let title = s.title.as_str();
            out.extend(quote! {
                let __len = #e as u64;
                let __used = r.offset() - offset;
                if __len < __used {
                    return Err(w.stop(format!("the length prefix {} is shorter than the {} bytes of {} already read", __len, __used, #title)));
                }
                let (mut __sub, __past) = w.sub(r, __len - __used);
                __short = __past;
                let r = &mut __sub;
            });
        }
    }
    out
}

/// The version an axis carrier declares, entered after the field carrying its minor.
fn axis_entry(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let carried: Vec<&Axis> = spec
        .axes
        .iter()
        .filter(|a| a.minor.root == id && a.minor.steps == [i])
        .collect();
    if carried.is_empty() {
        return quote!();
    }
    let minor = super::common::version_number(spec, &s.fields[i]);
    if carried.len() == 1 && carried[0].scheme.is_none() {
        let a = carried[0];
        let v = axis_variant(&a.name);
        let major = match &a.major {
            Some(p) if p.root == id => {
                let f = value_local(&s.fields[p.steps[0]]);
                quote!(#f)
            }
            _ => quote!(crate::generated::axes::Axis::#v.current().major),
        };
        return quote!(w.enter(crate::generated::axes::Axis::#v, crate::version::Version::new(#major, #minor))?;);
    }
    // Scheme axes share the carrier: the scheme tag in the same structure selects the axis.
    let Some(tag_field) = s
        .fields
        .iter()
        .find(|f| f.ty == FieldType::Tag(spec.roles.scheme))
    else {
        return quote!();
    };
    let t = value_local(tag_field);
    quote! {
        if let Some(axis) = crate::generated::axes::Axis::of_scheme(#t.raw()) {
            w.enter(axis, crate::version::Version::new(axis.current().major, #minor))?;
        }
    }
}

/// A documented default as shown (R4).
fn default_shown(spec: &Spec, s: &Structure, f: &Field) -> TokenStream {
    let shown = |v: TokenStream| -> TokenStream {
        match &f.ty {
            FieldType::Tag(_) => quote!(crate::inspect::walk::tag_shown(#v)),
            FieldType::Flags(set) => {
                let t = flags_type(spec, *set);
                quote!(crate::inspect::walk::flags_shown(#v.0 as u64, <super::flags::#t as crate::wire::FlagSet>::NAME, <super::flags::#t as crate::wire::FlagSet>::ALLOCATED, <super::flags::#t as crate::wire::FlagSet>::bit_name))
            }
            _ => quote!(crate::inspect::walk::Scalar::shown(#v)),
        }
    };
    let prim = f.ty.scalar_prim(spec);
    match (&f.default, prim, &f.count) {
        (Some(DefaultValue::Int(n)), Some(p), None) => {
            shown(wrap_scalar(spec, &f.ty, prim_lit(p, &Lit::Int(*n))))
        }
        (Some(DefaultValue::Float(x)), Some(p), None) => {
            shown(wrap_scalar(spec, &f.ty, prim_lit(p, &Lit::Float(*x))))
        }
        (Some(DefaultValue::Expr { field, .. }), Some(_), None) => {
            let other = value_local(&s.fields[*field]);
            shown(quote!(#other))
        }
        _ => quote!(Shown::None),
    }
}

/// The expression walking one field (its value, as the walk keeps it).
fn field(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let f = &s.fields[i];
    let here = s.shape.containment;
    let name = f.name.as_str();
    match (&f.ty, &f.count) {
        (FieldType::Prim(p), None) => {
            if let Some(tag) = f.flags_of {
                let set = flags_of_set(spec, &s.fields[tag]);
                let p = prim_type(*p);
                quote!(w.flags_of::<#p>(r, &__m, #set)?)
            } else {
                let p = prim_type(*p);
                quote!(w.scalar::<#p>(r, &__m)?)
            }
        }
        (FieldType::Tag(space), None) => {
            let t = space_type(spec, *space);
            let p = prim_type(spec.space(*space).width.prim());
            quote!(w.tag::<super::tags::#t, #p>(r, &__m)?)
        }
        (FieldType::Flags(set), None) => {
            let t = flags_type(spec, *set);
            let p = prim_type(spec.flag_set(*set).width.prim());
            quote!(w.flags::<super::flags::#t, #p>(r, &__m)?)
        }
        (t, Some(c)) if t.scalar_prim(spec).is_some() => {
            let p = prim_type(t.scalar_prim(spec).unwrap_or(Prim::U8));
            let c = count_expr(s, c);
            quote!(w.array::<#p>(r, #c, &__m)?)
        }
        (FieldType::Bytes, Some(Count::Rest)) => quote!(w.rest(r, &__m)?),
        (FieldType::Bytes, Some(c)) => {
            let c = count_expr(s, c);
            quote!(w.bytes(r, #c, &__m)?)
        }
        (FieldType::Utf8, Some(c)) => {
            let c = count_expr(s, c);
            quote!(w.utf8(r, #c, &__m)?)
        }
        (FieldType::Struct(t), count) => {
            let inner_struct = spec.structure(*t);
            let walk = walk_fn(spec, *t);
            let title = inner_struct.title.as_str();
            let a = args(here, inner_struct.shape.containment, &inner_struct.params);
            let sized = s.shape.fields[i]
                .sized_by
                .map(|sz| value_local(&s.fields[sz.field]));
            let one = |label: TokenStream| -> TokenStream {
                match &sized {
                    Some(pf) => quote!({
                        let (mut __sub, __past) = w.sub(r, #pf as u64);
                        w.open(__sub.offset(), #label, #title)?;
                        let __v = #walk(w, &mut __sub #a)?;
                        w.close(__sub.offset());
                        if __past {
                            return Err(w.stop(format!("{} runs past the end of the input", #name)));
                        }
                        __v
                    }),
                    None => quote!({
                        w.open(r.offset(), #label, #title)?;
                        let __v = #walk(w, r #a)?;
                        w.close(r.offset());
                        __v
                    }),
                }
            };
            match count {
                None => one(quote!(#name)),
                Some(c) => {
                    let c = count_expr(s, c);
                    let body = one(quote!(&format!("{}[{}]", #name, __i)));
                    quote!({
                        let __n: u64 = #c;
                        // Each entry takes at least one byte, or the reader rejects the count:
                        // the walk reads no more entries than bytes remain.
                        let __walked = __n.min(r.remaining() as u64);
                        let mut __v = Vec::new();
                        for __i in 0..__walked { __v.push(#body); }
                        if __walked < __n {
                            return Err(w.stop(format!("{} declares {} entries; the walk read {} before the bytes ended", #name, __n, __walked)));
                        }
                        __v
                    })
                }
            }
        }
        (FieldType::Dispatch { space, on }, count) => {
            let walk = dispatch_fn(spec, *space);
            let d = dispatch_shape(spec, *space);
            let a = args(here, d.containment, &d.params);
            let width = prim_type(spec.space(*space).width.prim());
            let peeked = match on {
                TagSource::Field(_) => quote!(None),
                TagSource::Peek {
                    path_in_variant, ..
                } => {
                    let off = spec
                        .variants(*space)
                        .first()
                        .and_then(|v| spec.peek_offset(*v, path_in_variant, *space))
                        .unwrap_or(0);
                    let path = path_in_variant.join(".");
                    quote!(Some((#off as u64, std::mem::size_of::<#width>() as u64, #path)))
                }
            };
            let tag = match on {
                TagSource::Field(p) => {
                    let pf = spec.resolve(p);
                    let e = path_expr(spec, p, false);
                    let raw = unwrap_scalar(spec, &pf.ty, e);
                    quote!(let __tag = (#raw as u32);)
                }
                TagSource::Peek {
                    path_in_variant, ..
                } => {
                    let off = spec
                        .variants(*space)
                        .first()
                        .and_then(|v| spec.peek_offset(*v, path_in_variant, *space))
                        .unwrap_or(0);
                    let off = lit_usize(off);
                    quote! {
                        let Some(__tag) = w.peek::<#width>(__r, #off) else {
                            return Err(w.short(__r, &__m, (#off + std::mem::size_of::<#width>()) as u64));
                        };
                    }
                }
            };
            let sized = s.shape.fields[i]
                .sized_by
                .map(|sz| value_local(&s.fields[sz.field]));
            let one = |label: TokenStream| -> TokenStream {
                match &sized {
                    Some(pf) => quote!({
                        let (mut __sub, __past) = w.sub(r, #pf as u64);
                        let __r = &mut __sub;
                        #tag
                        #walk(w, __r, #label, __tag, &__m, #peeked #a)?;
                        if __past {
                            return Err(w.stop(format!("{} runs past the end of the input", #name)));
                        }
                    }),
                    None => quote!({
                        let __r = &mut *r;
                        #tag
                        #walk(w, __r, #label, __tag, &__m, #peeked #a)?;
                    }),
                }
            };
            match count {
                None => one(quote!(#name)),
                Some(c) => {
                    let c = count_expr(s, c);
                    let body = one(quote!(&format!("{}[{}]", #name, __i)));
                    quote!({
                        let __n: u64 = #c;
                        let __walked = __n.min(r.remaining() as u64);
                        for __i in 0..__walked { #body }
                        if __walked < __n {
                            return Err(w.stop(format!("{} declares {} entries; the walk read {} before the bytes ended", #name, __n, __walked)));
                        }
                    })
                }
            }
        }
        _ => quote!(compile_error!("unsupported field shape")),
    }
}

/// The flag set an earlier scheme tag selects for a `flags_of` field, as the walker's
/// `(name, allocated bits, bit names)`, or `None`.
fn flags_of_set(spec: &Spec, tag_field: &Field) -> TokenStream {
    let FieldType::Tag(space) = tag_field.ty else {
        return quote!(None);
    };
    let ty = space_type(spec, space);
    let t = value_local(tag_field);
    let arms: Vec<_> = spec
        .space(space)
        .tags
        .iter()
        .filter_map(|tag| {
            let TagAttrs::Scheme(a) = &tag.attrs else {
                return None;
            };
            let v = camel(&tag.name);
            let set = flags_type(spec, a.flags);
            Some(quote! {
                crate::wire::TagClass::Known(super::tags::#ty::#v) => Some((
                    <super::flags::#set as crate::wire::FlagSet>::NAME,
                    <super::flags::#set as crate::wire::FlagSet>::ALLOCATED,
                    <super::flags::#set as crate::wire::FlagSet>::bit_name as fn(u32) -> Option<&'static str>,
                )),
            })
        })
        .collect();
    quote!({
        #[allow(unreachable_patterns)]
        match #t.class() { #(#arms)* _ => None }
    })
}

/// The walk of the structure a tag value of a dispatching space selects.
fn dispatch(spec: &Spec, space: SpaceId) -> TokenStream {
    let tag_space = spec.space(space);
    let d = dispatch_shape(spec, space);
    let ty = space_type(spec, space);
    let fname = dispatch_fn(spec, space);
    let params_decl = params(&d.params, d.containment);
    let axis = axis_path(spec, tag_space.axis);
    let mut arms = Vec::new();
    let walk_one = |sid: StructId| -> TokenStream {
        let st = spec.structure(sid);
        let walk = walk_fn(spec, sid);
        let title = st.title.as_str();
        let a = args(d.containment, st.shape.containment, &st.params);
        quote!({
            w.open(r.offset(), name, #title)?;
            #walk(w, r #a)?;
            w.close(r.offset());
            Ok(())
        })
    };
    for t in &tag_space.tags {
        let v = camel(&t.name);
        let body = match t.structure {
            Some(sid) => walk_one(sid),
            None => quote!(Ok(())),
        };
        arms.push(quote!(crate::wire::TagClass::Known(super::tags::#ty::#v) => #body,));
    }
    if let Some(sid) = d.private {
        let body = walk_one(sid);
        arms.push(quote!(crate::wire::TagClass::Private => #body,));
    }
    let unknown = if d.bound.is_some() {
        quote!({
            let peek = peek.map(|(at, width, path)| {
                (at, width, path, crate::inspect::walk::tag_shown(crate::wire::TagValue::<super::tags::#ty>::from_raw(tag)))
            });
            w.opaque(r, name, meta, <super::tags::#ty as crate::wire::TagSpace>::NAME, tag, peek)
        })
    } else {
        quote!(Err(w.stop(format!("{} {:#04x} is unknown to this reader: what it selects cannot be located", <super::tags::#ty as crate::wire::TagSpace>::NAME, tag))))
    };
    let doc_text = format!(
        " Walk the structure a `{}` value selects, as the field `name` (`peek`: where the tag lies \
         inside the structure it selects — offset, width, path — when it is read there).",
        tag_space.name
    );
    quote! {
        #[doc = #doc_text]
        #[allow(unused_variables, clippy::too_many_arguments, unreachable_patterns)]
        pub fn #fname<'a>(w: &mut Walker<'a, '_>, r: &mut Cursor<'a>, name: &str, tag: u32, meta: &Meta, peek: Option<(u64, u64, &'static str)> #params_decl) -> Result<(), Stop> {
            let class = <super::tags::#ty as crate::wire::TagSpace>::classify(tag);
            // A value newer than the reader's version is unknown to it.
            let known_to_reader = match class {
                crate::wire::TagClass::Known(t) => crate::wire::TagSpace::since(t) <= w.reader(#axis),
                _ => true,
            };
            match class {
                _ if !known_to_reader => #unknown,
                #(#arms)*
                _ => #unknown,
            }
        }
    }
}
