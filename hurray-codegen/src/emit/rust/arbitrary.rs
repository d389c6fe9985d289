//! `arbitrary::Arbitrary` for the runtime's owned forms (behind the runtime's `arbitrary`
//! feature): every structure, every variant enum of a dispatching space, every tag field's
//! `TagValue` and every flag set. The values are drawn from the model's facts so that most of
//! them are valid: allocated tag values (and the private ranges), allocated flag bits (and for
//! a field whose bits a tag's flag set gives, that set's), the bounds of every table check,
//! sequence lengths from the params and counts that state them, the variant a dispatching tag
//! selects (and the tag a variant carries inside itself, kept equal to it), optional parts
//! present exactly when their condition holds, and nesting bounded by the depth limit (one
//! level past it, so that its rejection is reached). A value the writer or a reader still
//! rejects is a test of that rejection. The drawing helpers are `hurray_runtime::generate`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::common::*;
use crate::model::*;

/// The impls of every owned form, in one module compiled with the runtime's `arbitrary`
/// feature.
pub fn impls(spec: &Spec) -> TokenStream {
    let mut out = TokenStream::new();
    for i in 0..spec.spaces.len() {
        out.extend(tag_value(spec, SpaceId(i as u32)));
    }
    for i in 0..spec.flag_sets.len() {
        out.extend(flag_set(spec, FlagSetId(i as u32)));
    }
    for i in 0..spec.structures.len() {
        out.extend(structure(spec, StructId(i as u32)));
    }
    for (i, space) in spec.spaces.iter().enumerate() {
        if space.dispatch.is_some() {
            out.extend(variant_enum(spec, SpaceId(i as u32)));
        }
    }
    out
}

/// The largest value of a width's primitive.
fn width_max(width: Width) -> u64 {
    match width.prim().size() {
        1 => u64::from(u8::MAX),
        2 => u64::from(u16::MAX),
        4 => u64::from(u32::MAX),
        _ => u64::MAX,
    }
}

/// Every allocated bit of a flag set, as a mask.
fn allocated_mask(set: &FlagSet) -> u64 {
    set.bits.iter().fold(0, |m, b| m | (1u64 << b.bit))
}

/// `TagValue<Space>`: mostly an allocated value, sometimes a private one, now and then any.
fn tag_value(spec: &Spec, id: SpaceId) -> TokenStream {
    let space = spec.space(id);
    let ty = space_type(spec, id);
    let values = space.tags.iter().map(|t| Literal::u32_unsuffixed(t.value));
    let private = space
        .ranges
        .iter()
        .filter(|r| r.kind == RangeKind::Private)
        .map(|r| {
            let (from, to) = (
                Literal::u32_unsuffixed(r.from),
                Literal::u32_unsuffixed(r.to),
            );
            quote!((#from, #to))
        });
    let max = Literal::u32_unsuffixed(width_max(space.width) as u32);
    quote! {
        impl<'a> ::arbitrary::Arbitrary<'a> for crate::wire::TagValue<super::tags::#ty> {
            fn arbitrary(u: &mut ::arbitrary::Unstructured<'a>) -> ::arbitrary::Result<Self> {
                Ok(crate::wire::TagValue::from_raw(crate::generate::tag(
                    u,
                    &[#(#values),*],
                    &[#(#private),*],
                    #max,
                )?))
            }
        }
    }
}

/// A flag set: mostly a few allocated bits, now and then any.
fn flag_set(spec: &Spec, id: FlagSetId) -> TokenStream {
    let set = spec.flag_set(id);
    let ty = flags_type(spec, id);
    let p = prim_type(set.width.prim());
    let mask = lit_u64(allocated_mask(set));
    let all = lit_u64(width_max(set.width));
    quote! {
        impl<'a> ::arbitrary::Arbitrary<'a> for super::flags::#ty {
            fn arbitrary(u: &mut ::arbitrary::Unstructured<'a>) -> ::arbitrary::Result<Self> {
                Ok(super::flags::#ty(crate::generate::bits(u, #mask, #all)? as #p))
            }
        }
    }
}

/// The params of a structure or a dispatching space as function parameters.
fn param_decls(params: &[String]) -> Vec<TokenStream> {
    params
        .iter()
        .map(|p| {
            let p = param_local(p);
            quote!(#p: u64)
        })
        .collect()
}

/// The params a caller passes on (each from its local of the same name), after `u`.
fn pass_params(params: &[String]) -> TokenStream {
    let ps = params.iter().map(|p| param_local(p));
    quote!(#(, #ps)*)
}

/// Statements drawing every param (a structure generated on its own), then the call.
fn draw_params(params: &[String]) -> Vec<TokenStream> {
    params
        .iter()
        .map(|p| {
            let p = param_local(p);
            quote!(let #p = crate::generate::param(u)?;)
        })
        .collect()
}

fn structure(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let o = owned_ident(spec, id);
    let decls = param_decls(&s.params);
    let draws = draw_params(&s.params);
    let mut args: Vec<_> = s
        .params
        .iter()
        .map(|p| param_local(p))
        .map(|p| quote!(#p))
        .collect();
    let mut decls = decls;
    if hinted_field(spec, id).is_some() {
        decls.push(quote!(hint: Option<u64>));
        args.push(quote!(None));
    }
    let limit = match s.depth_limit {
        Some((levels, _)) => Some(levels + 1),
        None if s.shape.containment.cyclic => Some(32),
        None => None,
    };
    let depth_guard = limit.map(|l| {
        let l = Literal::u32_unsuffixed(l);
        quote! {
            // One level past the depth limit is drawn (its rejection is a test); deeper is no value.
            if depth > #l {
                return Err(::arbitrary::Error::IncorrectFormat);
            }
        }
    });
    let mut body = TokenStream::new();
    let mut members = Vec::new();
    for i in 0..s.fields.len() {
        let f = &s.fields[i];
        let shape = &s.shape.fields[i];
        if f.reserved || shape.gives_size_of.is_some() {
            continue;
        }
        let local = value_local(f);
        let name = ident(&f.name);
        let value = field_value(spec, id, i);
        let value = if shape.optional() {
            let presence = match &f.presence {
                Presence::If(c) if usable(spec, id, i, c.path()) => {
                    let c = condition_expr(spec, c, true);
                    quote!(#c)
                }
                _ => quote!(crate::generate::present(u)?),
            };
            quote!(if #presence { Some(#value) } else { None })
        } else {
            value
        };
        body.extend(quote!(let #local = #value;));
        members.push(quote!(#name: #local,));
        for (param, path) in &s.bindings {
            if path.root == id && path.steps.first() == Some(&i) {
                let p = param_local(param);
                let e = binding_expr(spec, path);
                body.extend(quote!(let #p: u64 = #e;));
            }
        }
    }
    if s.framing.is_length_prefixed() {
        // What a reader of an older version keeps back; a writer has nothing of the kind.
        members.push(quote!(skipped: Vec::new(),));
    }
    quote! {
        impl super::structures::#o {
            /// A value drawn for the given params, nested `depth` levels in itself.
            #[allow(unused_variables, unused_mut, unused_parens, clippy::all)]
            pub(crate) fn arbitrary_with(u: &mut ::arbitrary::Unstructured<'_>, #(#decls,)* depth: u32) -> ::arbitrary::Result<Self> {
                #depth_guard
                #body
                Ok(super::structures::#o { #(#members)* })
            }
        }

        impl<'a> ::arbitrary::Arbitrary<'a> for super::structures::#o {
            fn arbitrary(u: &mut ::arbitrary::Unstructured<'a>) -> ::arbitrary::Result<Self> {
                #(#draws)*
                super::structures::#o::arbitrary_with(u, #(#args,)* 0)
            }
        }
    }
}

/// Whether a condition or operand `path` can be evaluated on the locals drawn before field
/// `i` of structure `id`: it starts at an earlier field of the same structure, and every step
/// is a member that is always there (not optional, not a derived length).
fn usable(spec: &Spec, id: StructId, i: usize, path: &FieldPath) -> bool {
    if path.root != id || path.steps.first().is_none_or(|&first| first >= i) {
        return false;
    }
    let mut st = spec.structure(id);
    for (k, &step) in path.steps.iter().enumerate() {
        let (f, shape) = (&st.fields[step], &st.shape.fields[step]);
        if f.reserved || shape.optional() || shape.gives_size_of.is_some() || shape.recursive {
            return false;
        }
        if k + 1 < path.steps.len() {
            let FieldType::Struct(t) = f.ty else {
                return false;
            };
            st = spec.structure(t);
        } else if f.ty.scalar_prim(spec).is_none() || f.count.is_some() {
            return false;
        }
    }
    true
}

/// The value a `let` binding names, from the locals: a field's number, or the length of the
/// sequence a derived count gives.
fn binding_expr(spec: &Spec, path: &FieldPath) -> TokenStream {
    let mut st = spec.structure(path.root);
    let first = &st.fields[path.steps[0]];
    let l = value_local(first);
    let mut e = quote!(#l);
    let mut cur = first;
    for &step in &path.steps[1..] {
        let FieldType::Struct(t) = cur.ty else { break };
        st = spec.structure(t);
        let next = &st.fields[step];
        if let Some(j) = st.shape.fields[step].gives_size_of {
            let later = ident(&st.fields[j].name);
            return if st.shape.fields[j].optional() {
                quote!((#e.#later.as_ref().map_or(0, |x| x.len()) as u64))
            } else {
                quote!((#e.#later.len() as u64))
            };
        }
        let n = ident(&next.name);
        e = quote!(#e.#n);
        cur = next;
    }
    match cur.ty {
        FieldType::Tag(_) => quote!((#e.raw() as u64)),
        FieldType::Flags(_) => quote!((#e.0 as u64)),
        _ => quote!((#e as u64)),
    }
}

/// The number of entries of field `i`'s sequence, as a `usize`.
fn count(spec: &Spec, id: StructId, i: usize, c: &Count) -> TokenStream {
    let s = spec.structure(id);
    match c {
        Count::Const(n) => {
            let n = lit_usize(*n);
            quote!(#n)
        }
        Count::Param(p) => {
            let p = param_local(p);
            quote!(crate::generate::stated_length(#p)?)
        }
        Count::Field(j) if s.shape.fields[*j].gives_size_of == Some(i) => {
            if hinted_field(spec, id) == Some(i) {
                quote!(crate::generate::hinted_length(u, hint)?)
            } else {
                quote!(crate::generate::free_length(u)?)
            }
        }
        Count::Field(j) => {
            let fpath = FieldPath {
                root: id,
                steps: vec![*j],
                text: s.fields[*j].name.clone(),
            };
            if usable(spec, id, i, &fpath) {
                let e = binding_expr(spec, &fpath);
                quote!(crate::generate::stated_length(#e)?)
            } else {
                quote!(crate::generate::free_length(u)?)
            }
        }
        Count::Rest => quote!(crate::generate::free_length(u)?),
    }
}

/// The value of a comparison operand, as an `i128`, when it can be evaluated.
fn operand(spec: &Spec, id: StructId, i: usize, op: &Operand) -> Option<TokenStream> {
    match op {
        Operand::Param(p) => {
            let p = param_local(p);
            Some(quote!((#p as i128)))
        }
        Operand::Field(j) => {
            let s = spec.structure(id);
            let path = FieldPath {
                root: id,
                steps: vec![*j],
                text: s.fields[*j].name.clone(),
            };
            usable(spec, id, i, &path).then(|| {
                let e = binding_expr(spec, &path);
                quote!((#e as i128))
            })
        }
    }
}

/// The statement applying one check to the constraint builder `c` of an integer field.
fn int_constraint(spec: &Spec, id: StructId, i: usize, kind: &CheckKind) -> Option<TokenStream> {
    let int = |l: &Lit| match l {
        Lit::Int(n) => Some(Literal::i128_unsuffixed(*n)),
        Lit::Float(_) => None,
    };
    Some(match kind {
        CheckKind::Equals(l) => {
            let n = int(l)?;
            quote!(c.exactly(#n);)
        }
        CheckKind::Min(l) => {
            let n = int(l)?;
            quote!(c.min(#n);)
        }
        CheckKind::Max(l) => {
            let n = int(l)?;
            quote!(c.max(#n);)
        }
        CheckKind::Range(a, b) => {
            let (a, b) = (int(a)?, int(b)?);
            quote!(c.min(#a); c.max(#b);)
        }
        CheckKind::OneOf(values) => {
            let values = values.iter().map(|v| Literal::i128_unsuffixed(*v));
            quote!(c.one_of(&[#(#values),*]);)
        }
        CheckKind::PowerOfTwo => quote!(c.power_of_two();),
        CheckKind::MultipleOf(k) => {
            let k = Literal::i128_unsuffixed(i128::from(*k));
            quote!(c.multiple_of(#k);)
        }
        CheckKind::LessThan(op) => {
            let v = operand(spec, id, i, op)?;
            quote!(c.less_than(#v);)
        }
        CheckKind::SameAs(op) => {
            let v = operand(spec, id, i, op)?;
            quote!(c.exactly(#v);)
        }
        CheckKind::NonZero => quote!(c.non_zero();),
        CheckKind::Bytes(_) | CheckKind::NotEquals(_) | CheckKind::Finite => return None,
    })
}

/// The statement applying one check to the constraint builder `c` of a float field.
fn float_constraint(kind: &CheckKind) -> Option<TokenStream> {
    let float = |l: &Lit| {
        let x = match l {
            Lit::Int(n) => *n as f64,
            Lit::Float(x) => *x,
        };
        Literal::f64_suffixed(x)
    };
    Some(match kind {
        CheckKind::Equals(l) => {
            let x = float(l);
            quote!(c.exactly(#x);)
        }
        CheckKind::Min(l) => {
            let x = float(l);
            quote!(c.min(#x);)
        }
        CheckKind::Max(l) => {
            let x = float(l);
            quote!(c.max(#x);)
        }
        CheckKind::Range(a, b) => {
            let (a, b) = (float(a), float(b));
            quote!(c.min(#a); c.max(#b);)
        }
        CheckKind::Finite => quote!(c.finite();),
        _ => return None,
    })
}

/// Every check of field `i` the builder `kind_fn` understands, each under its `when`
/// condition (a condition that cannot be evaluated on the locals drops its check).
fn constraints(
    spec: &Spec,
    id: StructId,
    i: usize,
    kind_fn: impl Fn(&CheckKind) -> Option<TokenStream>,
) -> TokenStream {
    let f = &spec.structure(id).fields[i];
    let mut out = TokenStream::new();
    for check in &f.checks {
        let Some(apply) = kind_fn(&check.kind) else {
            continue;
        };
        match &check.when {
            None => out.extend(apply),
            Some(w) if usable(spec, id, i, w.path()) => {
                let w = condition_expr(spec, w, true);
                out.extend(quote!(if #w { #apply }));
            }
            Some(_) => {}
        }
    }
    out
}

/// The field of structure `id` holding a sequence whose derived count some structure binds
/// as a param (a buffer table's `buffers`, bound as `buffer_count`): the enclosing structure
/// can pass the length it should have.
fn hinted_field(spec: &Spec, id: StructId) -> Option<usize> {
    spec.structures.iter().find_map(|st| {
        st.bindings.values().find_map(|path| {
            let (sid, field) = spec.locate(path)?;
            if sid != id {
                return None;
            }
            spec.structure(sid).shape.fields[field].gives_size_of
        })
    })
}

/// The path to a field of type `ty` among the members drawn before field `i` of `id`
/// (directly, or inside an earlier structure member), when there is one the locals hold.
fn earlier_path(spec: &Spec, id: StructId, i: usize, ty: &FieldType) -> Option<FieldPath> {
    let s = spec.structure(id);
    let mut candidates = Vec::new();
    for (j, f) in s.fields[..i].iter().enumerate() {
        if &f.ty == ty {
            candidates.push(vec![j]);
        } else if let FieldType::Struct(t) = f.ty {
            for (k, g) in spec.structure(t).fields.iter().enumerate() {
                if &g.ty == ty {
                    candidates.push(vec![j, k]);
                }
            }
        }
    }
    candidates
        .into_iter()
        .map(|steps| FieldPath {
            root: id,
            steps,
            text: String::new(),
        })
        .find(|p| usable(spec, id, i, p))
}

/// Whether the param `name` has a local before field `i` of `id` (a param of the structure,
/// or a binding of a field drawn before).
fn param_in_scope(spec: &Spec, id: StructId, i: usize, name: &str) -> bool {
    let s = spec.structure(id);
    s.params.iter().any(|p| p == name)
        || s.bindings
            .get(name)
            .is_some_and(|p| p.root == id && p.steps[0] < i)
}

/// The param name the model gives the number of buffer handles (a layout's `buffers`).
const BUFFER_COUNT_PARAM: &str = "buffer_count";

/// The length to pass to structure field `i` of `id` for its hinted sequence: for the
/// sequence bound as the buffer count, the layout drawn before it needs `a*rank+b` buffers
/// of its own (the layout role's `buffers`); `None` otherwise.
fn hint_for(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let bound_here = s
        .bindings
        .get(BUFFER_COUNT_PARAM)
        .is_some_and(|p| p.root == id && p.steps[0] == i);
    let layout = spec.roles.layout;
    let tag = earlier_path(spec, id, i, &FieldType::Tag(layout));
    let (true, Some(tag), true) = (bound_here, tag, param_in_scope(spec, id, i, RANK_PARAM)) else {
        return quote!(None);
    };
    let tag = binding_expr(spec, &tag);
    let rank = param_local(RANK_PARAM);
    let arms = spec.space(layout).tags.iter().filter_map(|t| match &t.attrs {
        TagAttrs::Layout(a) => {
            let v = lit_u64(u64::from(t.value));
            let (per_rank, constant) = (lit_u64(u64::from(a.buffers.a)), lit_u64(u64::from(a.buffers.b)));
            Some(quote!(#v => #rank.checked_mul(#per_rank).and_then(|n| n.checked_add(#constant)),))
        }
        _ => None,
    });
    quote!(match #tag { #(#arms)* _ => None })
}

/// For a memory class field drawn after its device's tag: mostly one of the memory classes
/// the device role's attributes list for the device drawn (a pair a reader accepts).
fn memory_class_of_device(spec: &Spec, id: StructId, i: usize) -> Option<TokenStream> {
    let (device, memory_class) = (spec.roles.device, spec.roles.memory_class);
    if spec.structure(id).fields[i].ty != FieldType::Tag(memory_class) {
        return None;
    }
    let tag = earlier_path(spec, id, i, &FieldType::Tag(device))?;
    let tag = binding_expr(spec, &tag);
    let classes = spec.space(memory_class);
    let arms = spec
        .space(device)
        .tags
        .iter()
        .filter_map(|t| match &t.attrs {
            TagAttrs::Device { memory_classes, .. } => {
                let v = lit_u64(u64::from(t.value));
                let values = memory_classes
                    .iter()
                    .filter_map(|name| classes.tag(name))
                    .map(|m| Literal::u32_unsuffixed(m.value));
                Some(quote!(#v => &[#(#values),*],))
            }
            _ => None,
        });
    let ty = space_type(spec, memory_class);
    Some(quote!({
        let paired: &[u32] = match #tag { #(#arms)* _ => &[] };
        match crate::generate::one_of(u, paired)? {
            Some(v) => crate::wire::TagValue::<super::tags::#ty>::from_raw(v),
            None => <crate::wire::TagValue<super::tags::#ty> as ::arbitrary::Arbitrary>::arbitrary(u)?,
        }
    }))
}

/// The param name the model gives a descriptor's number of dimensions (the variable of a
/// layout's `a*rank+b` buffer count, and one of the params a structure may take).
const RANK_PARAM: &str = "rank";

/// For the field some structure binds as the rank, in a structure that holds the layout tag
/// before it: the rank range of the layout drawn (the layout role's `rank_min..=rank_max`),
/// so that most descriptors have a rank their layout allows.
fn rank_of_layout(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let bound_as_rank = spec.structures.iter().any(|st| {
        st.bindings
            .get(RANK_PARAM)
            .is_some_and(|path| spec.locate(path) == Some((id, i)))
    });
    let layout = spec.roles.layout;
    let tag = earlier_path(spec, id, i, &FieldType::Tag(layout));
    let (true, Some(tag)) = (bound_as_rank, tag) else {
        return TokenStream::new();
    };
    let tag = binding_expr(spec, &tag);
    let arms = spec
        .space(layout)
        .tags
        .iter()
        .filter_map(|t| match &t.attrs {
            TagAttrs::Layout(a) => {
                let v = lit_u64(u64::from(t.value));
                let (lo, hi) = (
                    Literal::i128_unsuffixed(i128::from(a.rank_min)),
                    Literal::i128_unsuffixed(i128::from(a.rank_max)),
                );
                Some(quote!(#v => { c.min(#lo); c.max(#hi); }))
            }
            _ => None,
        });
    quote! {
        #[allow(clippy::match_single_binding)]
        match #tag { #(#arms)* _ => {} }
    }
}

/// An expression drawing one scalar of field `i` (one entry, when it is a sequence).
fn scalar(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let f = &s.fields[i];
    let prim = f.ty.scalar_prim(spec).unwrap_or(Prim::U8);
    let p = prim_type(prim);
    match &f.ty {
        FieldType::Flags(set) => {
            let ty = flags_type(spec, *set);
            quote!(<super::flags::#ty as ::arbitrary::Arbitrary>::arbitrary(u)?)
        }
        FieldType::Tag(space) => {
            let ty = space_type(spec, *space);
            let stated = f.checks.iter().any(|c| {
                c.when.is_none()
                    && matches!(
                        c.kind,
                        CheckKind::OneOf(_) | CheckKind::Equals(_) | CheckKind::SameAs(_)
                    )
            });
            if let Some(pairing) = memory_class_of_device(spec, id, i) {
                pairing
            } else if stated {
                let apply = constraints(spec, id, i, |k| int_constraint(spec, id, i, k));
                quote!({
                    let mut c = crate::generate::Int::new(#p::MIN as i128, #p::MAX as i128);
                    #apply
                    crate::wire::TagValue::<super::tags::#ty>::from_raw(c.pick(u)? as u32)
                })
            } else {
                quote!(<crate::wire::TagValue<super::tags::#ty> as ::arbitrary::Arbitrary>::arbitrary(u)?)
            }
        }
        FieldType::Prim(_) if prim.is_float() => {
            let apply = constraints(spec, id, i, float_constraint);
            quote!({
                let mut c = crate::generate::Float::new();
                #apply
                c.pick(u)? as #p
            })
        }
        FieldType::Prim(_) => match f.flags_of {
            // The bits of the flag set the earlier tag field's value names.
            Some(j) => {
                let tag_path = FieldPath {
                    root: id,
                    steps: vec![j],
                    text: s.fields[j].name.clone(),
                };
                let mut arms = Vec::new();
                if let (FieldType::Tag(space), true) =
                    (&s.fields[j].ty, usable(spec, id, i, &tag_path))
                {
                    for t in &spec.space(*space).tags {
                        if let TagAttrs::Scheme(a) = &t.attrs {
                            let v = Literal::u32_unsuffixed(t.value);
                            let m = lit_u64(allocated_mask(spec.flag_set(a.flags)));
                            arms.push(quote!(#v => #m,));
                        }
                    }
                }
                let local = value_local(&s.fields[j]);
                let selector = if arms.is_empty() {
                    quote!(0u32)
                } else {
                    quote!(#local.raw())
                };
                let all = lit_u64(match prim.size() {
                    1 => u64::from(u8::MAX),
                    2 => u64::from(u16::MAX),
                    4 => u64::from(u32::MAX),
                    _ => u64::MAX,
                });
                quote!({
                    #[allow(clippy::match_single_binding)]
                    let mask: u64 = match #selector { #(#arms)* _ => 0 };
                    crate::generate::bits(u, mask, #all)? as #p
                })
            }
            None => {
                let mut apply = constraints(spec, id, i, |k| int_constraint(spec, id, i, k));
                apply.extend(rank_of_layout(spec, id, i));
                quote!({
                    let mut c = crate::generate::Int::new(#p::MIN as i128, #p::MAX as i128);
                    #apply
                    c.pick(u)? as #p
                })
            }
        },
        _ => quote!(()),
    }
}

/// The tag value field `i` dispatches on, as a `u32`, drawn when the variant carries it.
fn dispatch_tag(
    spec: &Spec,
    id: StructId,
    i: usize,
    space: SpaceId,
    on: &TagSource,
) -> TokenStream {
    match on {
        TagSource::Field(path) if usable(spec, id, i, path) => {
            let e = binding_expr(spec, path);
            quote!((#e as u32))
        }
        _ => {
            let ty = space_type(spec, space);
            quote!(<crate::wire::TagValue<super::tags::#ty> as ::arbitrary::Arbitrary>::arbitrary(u)?.raw())
        }
    }
}

/// An expression drawing field `i`'s value (inside its `Option` when optional).
fn field_value(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let f = &s.fields[i];
    let shape = &s.shape.fields[i];
    let depth = if shape.recursive {
        quote!(depth + 1)
    } else {
        quote!(0)
    };
    let one = match &f.ty {
        FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_) => scalar(spec, id, i),
        FieldType::Bytes => {
            if let Some(CheckKind::Bytes(b)) = f
                .checks
                .iter()
                .find(|c| c.when.is_none() && matches!(c.kind, CheckKind::Bytes(_)))
                .map(|c| &c.kind)
            {
                let b = b.iter().map(|x| Literal::u8_unsuffixed(*x));
                return quote!(vec![#(#b),*]);
            }
            let n = f.count.as_ref().map_or_else(
                || quote!(crate::generate::free_length(u)?),
                |c| count(spec, id, i, c),
            );
            return quote!({ let n: usize = #n; crate::generate::bytes(u, n)? });
        }
        FieldType::Utf8 => {
            let n = f.count.as_ref().map_or_else(
                || quote!(crate::generate::free_length(u)?),
                |c| count(spec, id, i, c),
            );
            return quote!({ let n: usize = #n; crate::generate::text(u, n)? });
        }
        FieldType::Struct(t) => {
            let o = owned_ident(spec, *t);
            let target = spec.structure(*t);
            let mut args = pass_params(&target.params);
            if hinted_field(spec, *t).is_some() {
                let hint = hint_for(spec, id, i);
                args.extend(quote!(, #hint));
            }
            let v = quote!(super::structures::#o::arbitrary_with(u #args, #depth)?);
            if shape.recursive && f.count.is_none() {
                quote!(Box::new(#v))
            } else {
                v
            }
        }
        FieldType::Dispatch { space, on } => {
            let vo = variant_owned_ident(spec, *space);
            let args = pass_params(&dispatch_shape(spec, *space).params);
            let tag = dispatch_tag(spec, id, i, *space, on);
            quote!({
                let tag: u32 = #tag;
                super::structures::#vo::arbitrary_for(u, tag #args, #depth)?
            })
        }
    };
    match &f.count {
        Some(c) => {
            let n = count(spec, id, i, c);
            // A sequence of tags or flags holds their raw numbers.
            let one = match &f.ty {
                FieldType::Tag(_) | FieldType::Flags(_) => unwrap_scalar(spec, &f.ty, one),
                _ => one,
            };
            quote!({
                let n: usize = #n;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    entries.push(#one);
                }
                entries
            })
        }
        None => one,
    }
}

/// The field path inside every variant of `space` that holds the dispatching tag itself
/// (a `peek` dispatch), when some field dispatches on it that way.
fn peek_path(spec: &Spec, space: SpaceId) -> Option<&[String]> {
    spec.structures
        .iter()
        .flat_map(|s| &s.fields)
        .find_map(|f| match &f.ty {
            FieldType::Dispatch {
                space: sp,
                on: TagSource::Peek {
                    path_in_variant, ..
                },
            } if *sp == space => Some(path_in_variant.as_slice()),
            _ => None,
        })
}

/// The statement setting the tag a variant structure `sid` (bound as `x`) carries inside
/// itself to `tag`, when it has the member `path` names.
fn set_peeked(spec: &Spec, sid: StructId, path: &[String]) -> Option<TokenStream> {
    let mut st = spec.structure(sid);
    let mut e = quote!(x);
    let mut last = None;
    for (k, name) in path.iter().enumerate() {
        let (_, f) = st.field(name)?;
        let n = ident(name);
        e = quote!(#e.#n);
        if k + 1 < path.len() {
            let FieldType::Struct(t) = f.ty else {
                return None;
            };
            st = spec.structure(t);
        } else {
            last = Some(f);
        }
    }
    let f = last?;
    let v = wrap_scalar(spec, &f.ty, quote!(tag));
    Some(quote!(#e = #v;))
}

/// The variant enum of a dispatching space: the structure a tag value selects.
fn variant_enum(spec: &Spec, id: SpaceId) -> TokenStream {
    let space = spec.space(id);
    let dispatch = dispatch_shape(spec, id);
    let ty = space_type(spec, id);
    let vo = variant_owned_ident(spec, id);
    let decls = param_decls(&dispatch.params);
    let draws = draw_params(&dispatch.params);
    let args: Vec<_> = dispatch.params.iter().map(|p| param_local(p)).collect();
    let peek = peek_path(spec, id);
    let mut arms = Vec::new();
    let mut fixes = Vec::new();
    let call = |sid: StructId| {
        let so = owned_ident(spec, sid);
        let mut a = pass_params(&spec.structure(sid).params);
        if hinted_field(spec, sid).is_some() {
            a.extend(quote!(, None));
        }
        quote!(super::structures::#so::arbitrary_with(u #a, depth)?)
    };
    for t in &space.tags {
        let v = camel(&t.name);
        match t.structure {
            Some(sid) => {
                let c = call(sid);
                arms.push(quote!(crate::wire::TagClass::Known(super::tags::#ty::#v) => super::structures::#vo::#v(#c),));
                if let Some(fix) = peek.and_then(|p| set_peeked(spec, sid, p)) {
                    fixes.push(quote!(super::structures::#vo::#v(x) => { #fix }));
                }
            }
            None => arms.push(quote!(crate::wire::TagClass::Known(super::tags::#ty::#v) => super::structures::#vo::#v,)),
        }
    }
    if let Some(sid) = dispatch.private {
        let c = call(sid);
        arms.push(
            quote!(crate::wire::TagClass::Private => super::structures::#vo::Private(tag, #c),),
        );
        if let Some(fix) = peek.and_then(|p| set_peeked(spec, sid, p)) {
            fixes.push(quote!(super::structures::#vo::Private(_, x) => { #fix }));
        }
    }
    let fix = if fixes.is_empty() {
        quote!()
    } else {
        quote! {
            // The variant carries the tag that selects it: keep the two equal.
            #[allow(unreachable_patterns)]
            match &mut value { #(#fixes)* _ => {} }
        }
    };
    quote! {
        impl super::structures::#vo {
            /// The structure `tag` selects, drawn for the given params; a value no variant
            /// represents (neither allocated nor private) is no value.
            #[allow(unused_variables, unused_mut, clippy::all)]
            pub(crate) fn arbitrary_for(u: &mut ::arbitrary::Unstructured<'_>, tag: u32, #(#decls,)* depth: u32) -> ::arbitrary::Result<Self> {
                let mut value = match <super::tags::#ty as crate::wire::TagSpace>::classify(tag) {
                    #(#arms)*
                    _ => return Err(::arbitrary::Error::IncorrectFormat),
                };
                #fix
                Ok(value)
            }
        }

        impl<'a> ::arbitrary::Arbitrary<'a> for super::structures::#vo {
            fn arbitrary(u: &mut ::arbitrary::Unstructured<'a>) -> ::arbitrary::Result<Self> {
                let tag = <crate::wire::TagValue<super::tags::#ty> as ::arbitrary::Arbitrary>::arbitrary(u)?.raw();
                #(#draws)*
                super::structures::#vo::arbitrary_for(u, tag, #(#args,)* 0)
            }
        }
    }
}
