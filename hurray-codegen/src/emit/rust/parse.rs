//! The parse function of every view: fields read in wire order through a bounds-checked
//! reader, each behind its version and presence guards, tag and flag values checked at the
//! acting version, the table checks run right after each field, length prefixes bounding what
//! follows them, and the surplus of a length-prefixed structure skipped or rejected (CD2).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::checks::checks;
use super::common::*;
use crate::model::shape::{Containment, Prefix};
use crate::model::*;

/// The parameter list of a parse function: its params, and a nesting depth for what can
/// contain itself.
pub fn parse_params(params: &[String], containment: Containment) -> (TokenStream, bool) {
    let ps: Vec<_> = params.iter().map(|p| param_local(p)).collect();
    let depth = containment.cyclic;
    let d = if depth {
        quote!(, depth: u32)
    } else {
        quote!()
    };
    (quote!(#(, #ps: u64)* #d), depth)
}

/// Arguments a caller passes to the parse function of what it contains: the params, and the
/// nesting depth — carried on inside one cycle, restarted at 0 when entering one.
pub fn call_args(from: Containment, to: Containment, params: &[String]) -> TokenStream {
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

/// The nesting depth a caller passes to the parse of what it contains (as `call_args` does),
/// 0 for a parse that takes none.
pub fn depth_arg(from: Containment, to: Containment) -> TokenStream {
    if to.cyclic && from.cyclic && from.component == to.component {
        quote!(depth)
    } else {
        quote!(0)
    }
}

/// The check of a structure's nesting limit at the start of its parse (TL-6 for tiling).
pub fn depth_check(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    match (s.depth_limit, s.shape.containment.cyclic) {
        (Some((levels, rule)), true) => {
            let l = Literal::u32_unsuffixed(levels);
            let r = rule_path(spec, rule);
            let name = s.name.as_str();
            quote! {
                let depth = depth + 1;
                if depth > #l {
                    return Err(crate::error::Error::fmt(#r, r0.offset(), format_args!("{} nests {} levels deep; the limit is {}", #name, depth, #l)));
                }
            }
        }
        _ => quote!(),
    }
}

/// The body of a view's `parse`.
pub fn parse_body(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let mut out = TokenStream::new();
    out.extend(quote!(let r = &mut *r0;));
    let scheme_flags = spec.scheme_flag_set(id);
    for (i, f) in s.fields.iter().enumerate() {
        let fi = value_local(f);
        let oi = offset_local(f);
        out.extend(quote!(let #oi = r.offset();));
        let shape = &s.shape.fields[i];
        let parse = field_parse(spec, id, i, f);
        let mut guards = Vec::new();
        if shape.appended {
            let v = version_tokens(f.since);
            let axis_tokens = axis_path(spec, s.axis);
            guards.push(quote!(#v <= ctx.acting(#axis_tokens)));
        }
        if let Presence::If(c) = &f.presence {
            guards.push(condition_expr(spec, c, false));
        }
        let expr = if guards.is_empty() {
            parse
        } else {
            quote!(if #(#guards)&&* { Some(#parse) } else { None })
        };
        out.extend(quote!(let #fi = #expr;));
        // Tag and flag checks at the acting version.
        let per_value = |body: TokenStream| -> TokenStream {
            let optional = shape.optional();
            if optional {
                quote!(if let Some(v) = #fi { #body })
            } else {
                quote!({ let v = #fi; #body })
            }
        };
        if f.count.is_none() {
            match &f.ty {
                FieldType::Tag(_) => {
                    let rule = match f.rule {
                        Some(r) => {
                            let r = rule_path(spec, r);
                            quote!(Some(#r))
                        }
                        None => quote!(None),
                    };
                    out.extend(per_value(quote!(ctx.tag(v, #oi, #rule)?;)));
                }
                FieldType::Flags(_) => out.extend(per_value(quote!(ctx.flags(v, #oi)?;))),
                _ => {}
            }
        } else if let FieldType::Tag(space) = &f.ty {
            // A list of tags: each value checked where it lies.
            let rule = match f.rule {
                Some(r) => {
                    let r = rule_path(spec, r);
                    quote!(Some(#r))
                }
                None => quote!(None),
            };
            let width = lit_u64(u64::from(spec.space(*space).width.bytes()));
            let value = wrap_scalar(spec, &f.ty, quote!(__raw));
            out.extend(per_value(quote!(
                for (__k, __raw) in v.iter().enumerate() {
                    ctx.tag(#value, #oi + __k as u64 * #width, #rule)?;
                }
            )));
        }
        // The scheme's own flags inside the shared quantization header.
        if let (Some(set), FieldType::Struct(h)) = (scheme_flags, &f.ty)
            && let Some(hf) = spec
                .structure(*h)
                .fields
                .iter()
                .find(|g| g.flags_of.is_some())
            && let Some(off) = hf.const_offset()
        {
            let t = flags_type(spec, set);
            let off = lit_u64(off);
            let flags = ident(&hf.name);
            out.extend(quote!(ctx.flags(super::flags::#t(#fi.#flags()), #oi + #off)?;));
        }
        out.extend(checks(spec, id, i));
        // Entering an axis whose version this structure carries.
        out.extend(axis_entry(spec, id, i));
        // Bindings for nested structures.
        for (name, path) in &s.bindings {
            if path.steps[0] == i {
                let p = param_local(name);
                let e = path_expr(spec, path, false);
                let rf = spec.resolve(path);
                let raw = unwrap_scalar(spec, &rf.ty, e);
                out.extend(quote!(let #p: u64 = #raw as u64;));
            }
        }
        // The structure's own length prefix bounds everything after it.
        if let Prefix::Own { field } = s.shape.prefix
            && field == i
            && let Framing::LengthPrefixed { by_field, rule, .. } = &s.framing
        {
            let e = {
                let pf = spec.resolve(by_field);
                let inner = if by_field.root == id {
                    path_expr(spec, by_field, false)
                } else {
                    // `fixed_header.descriptor_length` read through this structure's field.
                    let n = ident(&pf.name);
                    quote!(#fi.#n())
                };
                unwrap_scalar(spec, &pf.ty, inner)
            };
            let rule = rule_path(spec, *rule);
            let title = s.title.as_str();
            out.extend(quote! {
                        let __len = #e as u64;
                        let __used = r.offset() - offset;
                        if __len < __used {
                            return Err(crate::error::Error::fmt(#rule, offset, format_args!("the length prefix {} is shorter than the {} bytes of {} already read", __len, __used, #title)));
                        }
                        let mut __sub = r.sub(__len - __used, #rule, #title)?;
                        let r = &mut __sub;
                    });
        }
    }
    // Surplus bytes of a length-prefixed structure (RES-7, CD2).
    if s.framing.is_length_prefixed() {
        let axis_tokens = axis_path(spec, s.axis);
        let title = s.title.as_str();
        out.extend(quote! {
            let __rest_at = r.offset();
            let __rest = r.rest();
            let skipped = ctx.surplus(#axis_tokens, __rest, __rest_at, #title)?;
        });
    }
    out
}

/// `ctx.enter(...)` after the field carrying an axis's minor version.
pub fn axis_entry(spec: &Spec, id: StructId, i: usize) -> TokenStream {
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
        let at = match &a.major {
            Some(p) if p.root == id => offset_local(&s.fields[p.steps[0]]),
            _ => offset_local(&s.fields[i]),
        };
        return quote!(ctx.enter(crate::generated::axes::Axis::#v, crate::version::Version::new(#major, #minor), #at)?;);
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
    let at = offset_local(&s.fields[i]);
    quote! {
        if let Some(axis) = crate::generated::axes::Axis::of_scheme(#t.raw()) {
            ctx.enter(axis, crate::version::Version::new(axis.current().major, #minor), #at)?;
        }
    }
}

/// The expression parsing one field from `r`.
fn field_parse(spec: &Spec, id: StructId, i: usize, f: &Field) -> TokenStream {
    let s = spec.structure(id);
    let here = s.shape.containment;
    let what = f.name.as_str();
    let oi = offset_local(f);
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
            let p = prim_type(f.ty.scalar_prim(spec).unwrap_or(Prim::U8));
            wrap_scalar(spec, &f.ty, quote!(r.scalar::<#p>(#what)?))
        }
        (t, Some(c)) if t.scalar_prim(spec).is_some() => {
            let p = prim_type(t.scalar_prim(spec).unwrap_or(Prim::U8));
            let c = count_expr(s, c);
            quote!(r.array::<#p>(#c, #what)?)
        }
        (FieldType::Bytes, Some(Count::Rest)) => quote!(r.rest()),
        (FieldType::Bytes, Some(c)) => {
            let c = count_expr(s, c);
            quote!(r.take(#c, #what)?)
        }
        (FieldType::Utf8, Some(c)) => {
            let c = count_expr(s, c);
            let rule = f
                .rule
                .map(|r| rule_path(spec, r))
                .unwrap_or_else(|| quote!(r.bound()));
            quote!({
                let __b = r.take(#c, #what)?;
                match std::str::from_utf8(__b) {
                    Ok(s) => s,
                    Err(e) => return Err(crate::error::Error::fmt(#rule, #oi + e.valid_up_to() as u64, format_args!("{} is not valid UTF-8", #what))),
                }
            })
        }
        (FieldType::Struct(t), count) => {
            let v = view_ident(spec, *t);
            let inner_shape = &spec.structure(*t).shape;
            let args = call_args(here, inner_shape.containment, &spec.structure(*t).params);
            let inner = if let Some(sized) = s.shape.fields[i].sized_by {
                let pf = value_local(&s.fields[sized.field]);
                let rule = rule_path(spec, sized.rule);
                quote!({ let mut __sub = r.sub(#pf as u64, #rule, #what)?; #v::parse(&mut __sub, ctx #args)? })
            } else {
                quote!(#v::parse(r, ctx #args)?)
            };
            match count {
                None => inner,
                Some(c) => {
                    let c = count_expr(s, c);
                    if inner_shape.simple {
                        let size = lit_u64(spec.structure(*t).const_size().unwrap_or(0));
                        quote!({
                            let __n = #c;
                            let __b = r.take(__n.saturating_mul(#size), #what)?;
                            let mut __r = crate::wire::Reader::new(__b, #oi, r.bound());
                            for _ in 0..__n { #v::parse(&mut __r, ctx #args)?; }
                            crate::wire::FixedSeq::<#v>::new(__b, #oi)
                        })
                    } else if kept(spec, id, i) == Kept::VarSeq {
                        let depth = depth_arg(here, inner_shape.containment);
                        var_seq(&c, what, &oi, &depth, quote!(#v::parse(r, ctx #args)?))
                    } else {
                        vec_seq(&c, what, &oi, quote!(#v::parse(r, ctx #args)?))
                    }
                }
            }
        }
        (FieldType::Dispatch { space, on }, count) => {
            let v = variant_view_ident(spec, *space);
            let dispatch = dispatch_shape(spec, *space);
            let args = call_args(here, dispatch.containment, &dispatch.params);
            let width = prim_type(spec.space(*space).width.prim());
            let (tag, tag_at) = match on {
                TagSource::Field(p) => {
                    let pf = spec.resolve(p);
                    let e = path_expr(spec, p, false);
                    let raw = unwrap_scalar(spec, &pf.ty, e);
                    (quote!((#raw as u32)), path_offset_expr(spec, p))
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
                    (
                        quote!((__r.peek::<#width>(#off, #what)? as u32)),
                        quote!(#oi + #off as u64),
                    )
                }
            };
            let one = |reader: TokenStream| -> TokenStream {
                quote!({ let __r = &mut *#reader; let __tag = #tag; #v::parse(__r, ctx, __tag, #tag_at #args)? })
            };
            let inner = if let Some(sized) = s.shape.fields[i].sized_by {
                let pf = value_local(&s.fields[sized.field]);
                let rule = rule_path(spec, sized.rule);
                let body = one(quote!(__sub));
                quote!({ let mut __sub = r.sub(#pf as u64, #rule, #what)?; let __sub = &mut __sub; #body })
            } else {
                one(quote!(r))
            };
            match count {
                None => inner,
                Some(c) => {
                    let c = count_expr(s, c);
                    if kept(spec, id, i) == Kept::VarSeq {
                        let depth = depth_arg(here, dispatch.containment);
                        return var_seq(&c, what, &oi, &depth, inner);
                    }
                    vec_seq(&c, what, &oi, inner)
                }
            }
        }
        _ => quote!(compile_error!("unsupported field shape")),
    }
}

/// The parse of a counted sequence kept as a `VarSeq` (`Kept::VarSeq`): each entry parsed and
/// checked by `one`, which reads from `r`; the sequence keeps where each ends.
fn var_seq(
    count: &TokenStream,
    what: &str,
    oi: &proc_macro2::Ident,
    depth: &TokenStream,
    one: TokenStream,
) -> TokenStream {
    let fits = entries_fit(count, what, oi);
    quote!({
        #fits
        let __seq_pos = r.pos();
        let mut __seq = crate::seq::VarSeq::start(__n, r.remaining(), ctx.replay(#depth));
        for _ in 0..__n {
            let (__entry_pos, __entry_at) = (r.pos(), r.offset());
            let __entry = #one;
            __seq.push(__entry, r.since(__entry_pos), __entry_at, r.offset() - #oi);
        }
        __seq.finish(r.since(__seq_pos), #oi)
    })
}

/// A counted sequence of variable-size entries kept as a `Vec` of their views, each parsed by
/// `one`.
fn vec_seq(
    count: &TokenStream,
    what: &str,
    oi: &proc_macro2::Ident,
    one: TokenStream,
) -> TokenStream {
    let fits = entries_fit(count, what, oi);
    quote!({
        #fits
        let mut __v = crate::wire::vec_for_entries(__n, r.remaining());
        for _ in 0..__n { __v.push(#one); }
        __v
    })
}

/// `__n`, the count of a sequence of variable-size entries, and its rejection when the bytes
/// left cannot hold one byte per entry: what every such sequence checks before it parses one.
fn entries_fit(count: &TokenStream, what: &str, oi: &proc_macro2::Ident) -> TokenStream {
    quote! {
        let __n = #count;
        if __n > r.remaining() as u64 {
            return Err(crate::error::Error::fmt(r.bound(), #oi, format_args!("{} declares {} entries but only {} bytes remain", #what, __n, r.remaining())));
        }
    }
}
