//! Structures: for each, a borrowed view (`parse` over a bounds-checked reader, accessors at
//! fixed offsets, table checks run in wire order) and an owned form (`encode`, `to_value`,
//! `from_value`). Dispatching tag spaces get a variant enum of both kinds.

use std::collections::{BTreeSet, HashSet};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::common::*;
use crate::model::*;

/// How a length-prefixed structure learns its length.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prefix {
    /// Not length-prefixed.
    None,
    /// Its own field (at `field`, nested) holds the length of the whole structure.
    Own { field: usize },
    /// An enclosing structure's field holds it; the encloser hands over a bounded reader.
    Enclosed,
}

fn prefix_of(spec: &Spec, id: StructId) -> Prefix {
    let s = spec.structure(id);
    match &s.framing {
        Framing::Fixed => Prefix::None,
        Framing::LengthPrefixed {
            by_struct,
            by_field,
            ..
        } => {
            if *by_struct == id {
                Prefix::Own {
                    field: by_field.steps[0],
                }
            } else if let Some(i) = s
                .fields
                .iter()
                .position(|f| f.ty == FieldType::Struct(*by_struct))
            {
                Prefix::Own { field: i }
            } else {
                Prefix::Enclosed
            }
        }
    }
}

fn bound_rule(spec: &Spec, id: StructId) -> Option<RuleId> {
    match &spec.structure(id).framing {
        Framing::LengthPrefixed { rule, .. } => Some(*rule),
        Framing::Fixed => None,
    }
}

/// Nodes of the containment graph: structures and dispatching spaces.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Node {
    S(StructId),
    D(SpaceId),
}

fn edges(spec: &Spec, n: Node) -> Vec<Node> {
    match n {
        Node::S(id) => spec
            .structure(id)
            .fields
            .iter()
            .filter_map(|f| match &f.ty {
                FieldType::Struct(t) => Some(Node::S(*t)),
                FieldType::Dispatch { space, .. } => Some(Node::D(*space)),
                _ => None,
            })
            .collect(),
        Node::D(sp) => spec.variants(sp).into_iter().map(Node::S).collect(),
    }
}

/// Nodes that can reach themselves: their parse functions carry a nesting depth.
fn cyclic(spec: &Spec) -> HashSet<Node> {
    let mut all: Vec<Node> = (0..spec.structures.len())
        .map(|i| Node::S(StructId(i as u32)))
        .collect();
    all.extend((0..spec.spaces.len()).map(|i| Node::D(SpaceId(i as u32))));
    let mut out = HashSet::new();
    for &n in &all {
        let mut stack = edges(spec, n);
        let mut seen = HashSet::new();
        while let Some(m) = stack.pop() {
            if m == n {
                out.insert(n);
                break;
            }
            if seen.insert(m) {
                stack.extend(edges(spec, m));
            }
        }
    }
    out
}

/// Whether two nodes lie on one cycle.
fn same_cycle(spec: &Spec, a: Node, b: Node) -> bool {
    let reach = |from: Node, to: Node| {
        let mut stack = vec![from];
        let mut seen = HashSet::new();
        while let Some(m) = stack.pop() {
            if m == to {
                return true;
            }
            if seen.insert(m) {
                stack.extend(edges(spec, m));
            }
        }
        false
    };
    reach(a, b) && reach(b, a)
}

struct Ctx<'s> {
    spec: &'s Spec,
    cyclic: HashSet<Node>,
    /// Views that hold a `Vec` somewhere and so are not `Copy`.
    not_copy: HashSet<Node>,
}

impl Ctx<'_> {
    fn copy(&self, n: Node) -> bool {
        !self.not_copy.contains(&n)
    }
    /// Is field `f` of `id` a structure nested in itself (boxed when owned, re-parsed on demand
    /// in a view)?
    fn recursive(&self, id: StructId, f: &Field) -> bool {
        matches!(f.ty, FieldType::Struct(t) if t == id || (self.cyclic.contains(&Node::S(t)) && same_cycle(self.spec, Node::S(id), Node::S(t))))
    }
}

/// Views that hold a `Vec` (variable-size entries) directly or through what they contain.
fn not_copy(spec: &Spec) -> HashSet<Node> {
    let mut out: HashSet<Node> = HashSet::new();
    loop {
        let before = out.len();
        for (i, s) in spec.structures.iter().enumerate() {
            let n = Node::S(StructId(i as u32));
            let bad = s.fields.iter().any(|f| match (&f.ty, &f.count) {
                (FieldType::Struct(t), Some(_)) => !is_simple(spec, *t),
                (FieldType::Dispatch { .. }, Some(_)) => true,
                (FieldType::Struct(t), None) => {
                    out.contains(&Node::S(*t)) && *t != StructId(i as u32)
                }
                (FieldType::Dispatch { space, .. }, None) => out.contains(&Node::D(*space)),
                _ => false,
            });
            if bad {
                out.insert(n);
            }
        }
        for i in 0..spec.spaces.len() {
            let sp = SpaceId(i as u32);
            if spec.variants(sp).iter().any(|v| out.contains(&Node::S(*v))) {
                out.insert(Node::D(sp));
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// A structure all of whose fields sit at constant offsets and are plain scalars or fixed
/// byte runs: its view is just its bytes.
fn is_simple(spec: &Spec, id: StructId) -> bool {
    let s = spec.structure(id);
    s.framing == Framing::Fixed
        && s.params.is_empty()
        && s.const_size().is_some()
        && s.fields.iter().all(|f| {
            f.const_offset().is_some()
                && f.presence == Presence::Always
                && f.since == s.since
                && matches!(
                    (&f.ty, &f.count),
                    (
                        FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_),
                        None
                    ) | (FieldType::Bytes, Some(Count::Const(_)))
                )
        })
}

fn view_ident(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    format_ident!("{}View", camel(&spec.structure(id).name))
}

fn owned_ident(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    camel(&spec.structure(id).name)
}

fn variant_view_ident(spec: &Spec, sp: SpaceId) -> proc_macro2::Ident {
    format_ident!("{}VariantView", camel(&spec.space(sp).name))
}

fn variant_owned_ident(spec: &Spec, sp: SpaceId) -> proc_macro2::Ident {
    format_ident!("{}Variant", camel(&spec.space(sp).name))
}

/// The typed Rust type of a scalar field.
fn scalar_ty(spec: &Spec, ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::Prim(p) => prim_type(*p),
        FieldType::Tag(sp) => {
            let t = space_type(spec, *sp);
            quote!(crate::wire::TagValue<super::tags::#t>)
        }
        FieldType::Flags(fs) => {
            let t = flags_type(spec, *fs);
            quote!(super::flags::#t)
        }
        _ => quote!(()),
    }
}

/// Wrap a raw prim expression into the field's typed scalar.
fn wrap_scalar(spec: &Spec, ty: &FieldType, raw: TokenStream) -> TokenStream {
    match ty {
        FieldType::Prim(_) => raw,
        FieldType::Tag(sp) => {
            let t = space_type(spec, *sp);
            quote!(crate::wire::TagValue::<super::tags::#t>::from_raw(#raw as u32))
        }
        FieldType::Flags(fs) => {
            let t = flags_type(spec, *fs);
            quote!(super::flags::#t(#raw))
        }
        _ => raw,
    }
}

/// A typed scalar as its raw prim value.
fn unwrap_scalar(spec: &Spec, ty: &FieldType, v: TokenStream) -> TokenStream {
    match ty {
        FieldType::Prim(_) => v,
        FieldType::Tag(sp) => {
            let p = prim_type(spec.space(*sp).width.prim());
            quote!((#v.raw() as #p))
        }
        FieldType::Flags(_) => quote!(#v.0),
        _ => v,
    }
}

/// A typed scalar as an i128 for comparisons (floats stay f64).
fn numeric(ty: &FieldType, prim: Prim, v: TokenStream) -> TokenStream {
    match ty {
        FieldType::Tag(_) => quote!((#v.raw() as i128)),
        FieldType::Flags(_) => quote!((#v.0 as i128)),
        _ if prim.is_float() => quote!((#v as f64)),
        _ => quote!((#v as i128)),
    }
}

fn is_scalar(f: &Field) -> bool {
    matches!(
        f.ty,
        FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_)
    ) && f.count.is_none()
}

fn appended(s: &Structure, f: &Field) -> bool {
    f.since > s.since
}

/// Fields of `s` whose value the owned form derives from a later field (counts, and length
/// prefixes of an enclosed structure).
fn derived(spec: &Spec, id: StructId) -> Vec<Option<usize>> {
    let s = spec.structure(id);
    let mut out = vec![None; s.fields.len()];
    for (j, f) in s.fields.iter().enumerate() {
        if let Some(Count::Field(i)) = f.count {
            out[i] = Some(j);
        }
        if let Some(i) = enclosed_prefix(spec, id, j) {
            out[i] = Some(j);
        }
    }
    out
}

/// For field `j` of `id` whose structure (or every variant) is length-prefixed by an earlier
/// field of `id`: that field's index.
fn enclosed_prefix(spec: &Spec, id: StructId, j: usize) -> Option<usize> {
    let targets: Vec<StructId> = match &spec.structure(id).fields[j].ty {
        FieldType::Struct(t) => vec![*t],
        FieldType::Dispatch { space, .. } => spec.variants(*space),
        _ => return None,
    };
    let mut found = None;
    for t in targets {
        match &spec.structure(t).framing {
            Framing::LengthPrefixed {
                by_struct,
                by_field,
                ..
            } if *by_struct == id && by_field.steps.len() == 1 && by_field.steps[0] < j => {
                found = Some(by_field.steps[0]);
            }
            _ => return None,
        }
    }
    found
}

/// A bound (bytes) rule for a dispatched field whose variants are length-prefixed.
fn variant_bound(spec: &Spec, sp: SpaceId) -> Option<RuleId> {
    spec.dispatch_bound(sp)
}

fn f_ident(f: &Field) -> proc_macro2::Ident {
    format_ident!("f_{}", f.name.trim_start_matches('_'))
}

fn o_ident(f: &Field) -> proc_macro2::Ident {
    format_ident!("o_{}", f.name.trim_start_matches('_'))
}

fn p_ident(name: &str) -> proc_macro2::Ident {
    format_ident!("p_{}", name)
}

/// Expression of an earlier field's typed value reached by `path` inside the parse function
/// (views) or the from_value function (owned, `owned = true`).
fn path_expr(spec: &Spec, path: &FieldPath, owned: bool) -> TokenStream {
    let root = spec.structure(path.root);
    let first = &root.fields[path.steps[0]];
    let mut e = {
        let i = f_ident(first);
        quote!(#i)
    };
    let mut cur = first;
    for &step in &path.steps[1..] {
        let FieldType::Struct(id) = cur.ty else { break };
        let next = &spec.structure(id).fields[step];
        let n = ident(&next.name);
        e = if owned {
            quote!(#e.#n)
        } else {
            quote!(#e.#n())
        };
        cur = next;
    }
    e
}

/// Absolute offset of the field a path names, inside a parse function.
fn path_offset_expr(spec: &Spec, path: &FieldPath) -> TokenStream {
    let root = spec.structure(path.root);
    let first = &root.fields[path.steps[0]];
    let o = o_ident(first);
    let mut extra = 0u64;
    let mut cur = first;
    for &step in &path.steps[1..] {
        let FieldType::Struct(id) = cur.ty else { break };
        let next = &spec.structure(id).fields[step];
        extra += next.const_offset().unwrap_or(0);
        cur = next;
    }
    let extra = lit_u64(extra);
    quote!((#o + #extra))
}

fn path_field<'s>(spec: &'s Spec, path: &FieldPath) -> &'s Field {
    spec.resolve(path)
}

fn condition_expr(spec: &Spec, c: &Condition, owned: bool) -> TokenStream {
    let f = path_field(spec, c.path());
    let v = path_expr(spec, c.path(), owned);
    let prim = f.ty.scalar_prim(spec).unwrap_or(Prim::U64);
    let n = numeric(&f.ty, prim, v.clone());
    match c {
        Condition::Equals(_, k) => {
            let k = Literal::i128_unsuffixed(*k);
            quote!((#n == #k))
        }
        Condition::NotEquals(_, k) => {
            let k = Literal::i128_unsuffixed(*k);
            quote!((#n != #k))
        }
        Condition::HasBit(_, _, b) => {
            let m = Literal::i128_unsuffixed(1i128 << b);
            quote!((#n & #m != 0))
        }
        Condition::LacksBit(_, _, b) => {
            let m = Literal::i128_unsuffixed(1i128 << b);
            quote!((#n & #m == 0))
        }
    }
}

fn count_expr(s: &Structure, c: &Count) -> TokenStream {
    match c {
        Count::Const(n) => {
            let n = lit_u64(*n);
            quote!(#n)
        }
        Count::Field(i) => {
            let f = f_ident(&s.fields[*i]);
            quote!((#f as u64))
        }
        Count::Param(p) => {
            let p = p_ident(p);
            quote!(#p)
        }
        Count::Rest => quote!(0u64),
    }
}

fn default_tokens(spec: &Spec, s: &Structure, f: &Field, owned_self: bool) -> TokenStream {
    let prim = f.ty.scalar_prim(spec).unwrap_or(Prim::U8);
    match &f.default {
        Some(DefaultValue::Int(n)) => wrap_scalar(spec, &f.ty, prim_lit(prim, &Lit::Int(*n))),
        Some(DefaultValue::Float(x)) => wrap_scalar(spec, &f.ty, prim_lit(prim, &Lit::Float(*x))),
        Some(DefaultValue::Bytes(b)) => {
            let b: Vec<_> = b.iter().map(|x| Literal::u8_unsuffixed(*x)).collect();
            quote!(vec![#(#b),*])
        }
        Some(DefaultValue::Expr { field, .. }) => {
            let n = ident(&s.fields[*field].name);
            if owned_self {
                quote!(self.#n)
            } else {
                quote!(self.#n())
            }
        }
        None => wrap_scalar(spec, &f.ty, prim_lit(prim, &Lit::Int(0))),
    }
}

/// Every generated structure and variant enum.
pub fn structures(spec: &Spec) -> TokenStream {
    let cx = Ctx {
        spec,
        cyclic: cyclic(spec),
        not_copy: not_copy(spec),
    };
    let mut out = TokenStream::new();
    let mut spaces = BTreeSet::new();
    for (i, s) in spec.structures.iter().enumerate() {
        let id = StructId(i as u32);
        out.extend(view(&cx, id));
        out.extend(owned(&cx, id));
        for f in &s.fields {
            if let FieldType::Dispatch { space, .. } = f.ty {
                spaces.insert(space);
            }
        }
    }
    for sp in spaces {
        out.extend(variant_enums(&cx, sp));
    }
    out
}

/// The parameter list of a parse function.
fn parse_params(cx: &Ctx, params: &[String], node: Node) -> (TokenStream, bool) {
    let ps: Vec<_> = params.iter().map(|p| p_ident(p)).collect();
    let depth = cx.cyclic.contains(&node);
    let d = if depth {
        quote!(, depth: u32)
    } else {
        quote!()
    };
    (quote!(#(, #ps: u64)* #d), depth)
}

/// Arguments a caller in `from` passes to the parse function of `to`.
fn call_args(cx: &Ctx, from: Node, to: Node, params: &[String]) -> TokenStream {
    let ps: Vec<_> = params.iter().map(|p| p_ident(p)).collect();
    let depth = if cx.cyclic.contains(&to) {
        if cx.cyclic.contains(&from) && same_cycle(cx.spec, from, to) {
            quote!(, depth)
        } else {
            quote!(, 0)
        }
    } else {
        quote!()
    };
    quote!(#(, #ps)* #depth)
}

/// The params every variant of a space needs, in a stable order.
fn variant_params(spec: &Spec, sp: SpaceId) -> Vec<String> {
    let mut ps: Vec<String> = Vec::new();
    for v in spec.variants(sp) {
        for p in &spec.structure(v).params {
            if !ps.contains(p) {
                ps.push(p.clone());
            }
        }
    }
    ps.sort();
    ps
}

fn view(cx: &Ctx, id: StructId) -> TokenStream {
    let spec = cx.spec;
    let s = spec.structure(id);
    let vname = view_ident(spec, id);
    let oname = owned_ident(spec, id);
    let simple = is_simple(spec, id);
    let axis = axis_path(spec, s.axis);
    let title = format!(" {} (`{}`): a borrowed view.", s.title, s.name);
    let prefix = prefix_of(spec, id);
    let lp = s.framing.is_length_prefixed();
    let node = Node::S(id);

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
            consts.extend(quote!(pub const #c: usize = #l;));
        }
    }

    // Which fields are stored in the view (rather than read from bytes at a fixed offset).
    let stored: Vec<bool> = s
        .fields
        .iter()
        .map(|f| {
            !(is_scalar(f)
                && f.const_offset().is_some()
                && f.presence == Presence::Always
                && !appended(s, f))
        })
        .collect();

    let mut members = Vec::new();
    let mut inits = Vec::new();
    let mut accessors = Vec::new();
    let mut owned_fields = Vec::new();
    let derived = derived(spec, id);

    for (i, f) in s.fields.iter().enumerate() {
        let fi = f_ident(f);
        let oi = o_ident(f);
        let name = ident(&f.name);
        let at_name = format_ident!("{}_at", f.name.trim_start_matches('_'));
        let optional = f.presence != Presence::Always || (appended(s, f) && !is_scalar(f));
        let recursive = cx.recursive(id, f);
        let base_ty = if recursive {
            quote!((&'a [u8], u64))
        } else {
            view_member_ty(cx, id, f)
        };
        let member_ty = if optional || (appended(s, f) && is_scalar(f)) {
            quote!(Option<#base_ty>)
        } else {
            base_ty.clone()
        };
        let d = doc(&f.title);
        if stored[i] {
            members.push(quote!(#fi: #member_ty,));
            if recursive {
                inits.push(quote!(#fi: #fi.map(|v| (v.bytes(), v.offset())),));
                if let FieldType::Struct(t) = f.ty {
                    for p in &spec.structure(t).params {
                        let m = format_ident!("rp_{}", p);
                        let pi = p_ident(p);
                        members.push(quote!(#m: u64,));
                        inits.push(quote!(#m: #pi,));
                    }
                }
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
        if !stored[i] {
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
        } else if appended(s, f) && is_scalar(f) {
            let t = scalar_ty(spec, &f.ty);
            let def = default_tokens(spec, s, f, false);
            accessors.push(quote! {
                #d
                /// Appended after the structure's first version: `Defaulted` when the data or this reader predates it (R4).
                pub fn #name(&self) -> crate::wire::Field<#t> {
                    match self.#fi { Some(v) => crate::wire::Field::Read(v), None => crate::wire::Field::Defaulted(#def) }
                }
            });
        } else if recursive {
            let FieldType::Struct(t) = f.ty else { continue };
            let v = view_ident(spec, t);
            let args: Vec<_> = spec
                .structure(t)
                .params
                .iter()
                .map(|p| {
                    let m = format_ident!("rp_{}", p);
                    quote!(self.#m)
                })
                .collect();
            let depth = if cx.cyclic.contains(&Node::S(t)) {
                quote!(, 0)
            } else {
                quote!()
            };
            let wrap = if optional {
                quote!(Option<#v<'a>>)
            } else {
                quote!(#v<'a>)
            };
            let body = if optional {
                quote!(self.#fi.and_then(|(b, o)| {
                    let cfg = crate::ctx::ReaderConfig::new();
                    let mut ctx = crate::ctx::Ctx::new(&cfg);
                    #v::parse(&mut crate::wire::Reader::new(b, o, crate::generated::rules::Rule::ALL[0]), &mut ctx #(, #args)* #depth).ok()
                }))
            } else {
                quote!(compile_error!("a self-nested field must be conditional"))
            };
            accessors.push(quote!(#d
                /// The nested level, parsed again on demand (it was checked with the enclosing one).
                pub fn #name(&self) -> #wrap { #body }));
        } else {
            let (t, e) = view_accessor(cx, f, &member_ty, &fi);
            let (t, e) = if copy_ty(cx, f) {
                (t, e)
            } else {
                (quote!(&#t), quote!(&#e))
            };
            accessors.push(quote!(#d pub fn #name(&self) -> #t { #e }));
        }
        accessors.push(quote!(/// Absolute byte offset of this field.
            pub fn #at_name(&self) -> u64 { self.#oi }));
        // Owned conversion.
        if derived[i].is_some() {
            continue;
        }
        let conv = if recursive {
            quote!(self.#name().map(|v| Box::new(v.owned())))
        } else {
            owned_conv(cx, id, f, stored[i])
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

    let (params_decl, takes_depth) = parse_params(cx, &s.params, node);
    let body = parse_body(cx, id, prefix);
    let depth_check = match (s.depth_limit, takes_depth) {
        (Some((levels, rule)), true) => {
            let l = Literal::u32_unsuffixed(levels);
            let r = rule_path(spec, rule);
            let name = s.name.as_str();
            quote! {
                let depth = depth + 1;
                if depth > #l {
                    return Err(crate::error::Error::new(#r, r0.offset(), format!("{} nests {} levels deep; the limit is {}", #name, depth, #l)));
                }
            }
        }
        _ => quote!(),
    };
    let _ = axis;

    let fixed_view = if simple {
        let size = lit_usize(s.const_size().unwrap_or(0));
        let oinits: Vec<_> = s
            .fields
            .iter()
            .map(|f| {
                let oi = o_ident(f);
                let o = lit_u64(f.const_offset().unwrap_or(0));
                let stored = if let (FieldType::Bytes, Some(Count::Const(n))) = (&f.ty, &f.count) {
                    let fi = f_ident(f);
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
            impl<'a> crate::wire::FixedView<'a> for #vname<'a> {
                const SIZE: usize = #size;
                fn at(bytes: &'a [u8], offset: u64) -> Self { #vname { bytes, offset, #(#oinits)* } }
            }
        }
    } else {
        quote!()
    };

    let derives = if cx.copy(node) {
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

            /// Parse and check the structure at the reader's position.
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
            pub fn owned(&self) -> #oname {
                #oname { #(#owned_fields)* }
            }
        }

        #fixed_view
    }
}

/// Whether a field's view type is `Copy`.
fn copy_ty(cx: &Ctx, f: &Field) -> bool {
    match (&f.ty, &f.count) {
        (FieldType::Struct(t), None) => cx.copy(Node::S(*t)),
        (FieldType::Dispatch { space, .. }, None) => cx.copy(Node::D(*space)),
        // Sequences: the accessor returns a `FixedSeq` (Copy) or a slice.
        (FieldType::Struct(_) | FieldType::Dispatch { .. }, Some(_)) => true,
        _ => true,
    }
}

/// The stored type of a field in a view (without `Option`).
fn view_member_ty(cx: &Ctx, _id: StructId, f: &Field) -> TokenStream {
    let spec = cx.spec;
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
            if is_simple(spec, *t) {
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
    cx: &Ctx,
    f: &Field,
    member_ty: &TokenStream,
    fi: &proc_macro2::Ident,
) -> (TokenStream, TokenStream) {
    let spec = cx.spec;
    let is_vec = matches!((&f.ty, &f.count), (FieldType::Struct(t), Some(_)) if !is_simple(spec, *t))
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
fn owned_conv(cx: &Ctx, id: StructId, f: &Field, stored: bool) -> TokenStream {
    let spec = cx.spec;
    let s = spec.structure(id);
    let fi = f_ident(f);
    let name = ident(&f.name);
    let optional = f.presence != Presence::Always || appended(s, f);
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
    if !stored {
        return quote!(self.#name());
    }
    if optional {
        if is_scalar(f) {
            return quote!(self.#fi);
        }
        let inner = one(quote!(v));
        quote!(self.#fi.as_ref().map(|v| #inner))
    } else {
        one(quote!(self.#fi))
    }
}

/// The body of a view's `parse`.
fn parse_body(cx: &Ctx, id: StructId, prefix: Prefix) -> TokenStream {
    let spec = cx.spec;
    let s = spec.structure(id);
    let node = Node::S(id);
    let mut out = TokenStream::new();
    out.extend(quote!(let r = &mut *r0;));
    let scheme_flags = spec.scheme_flag_set(id);
    for (i, f) in s.fields.iter().enumerate() {
        let fi = f_ident(f);
        let oi = o_ident(f);
        let what = f.name.as_str();
        out.extend(quote!(let #oi = r.offset();));
        let parse = field_parse(cx, id, i, f, node);
        let mut guards = Vec::new();
        if appended(s, f) {
            let v = version_tokens(f.since);
            let ax = axis_path(spec, s.axis);
            guards.push(quote!(#v <= ctx.acting(#ax)));
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
            let optional = f.presence != Presence::Always || appended(s, f);
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
        }
        // The scheme's own flags inside the shared quantization header.
        if let (Some(fs), FieldType::Struct(h)) = (scheme_flags, &f.ty)
            && let Some(hf) = spec
                .structure(*h)
                .fields
                .iter()
                .find(|g| g.flags_of.is_some())
            && let Some(off) = hf.const_offset()
        {
            let t = flags_type(spec, fs);
            let off = lit_u64(off);
            let flags = ident(&hf.name);
            out.extend(quote!(ctx.flags(super::flags::#t(#fi.#flags()), #oi + #off)?;));
        }
        out.extend(checks(cx, id, f));
        let _ = what;
        // Entering an axis whose version this structure carries.
        out.extend(axis_entry(spec, id, i));
        // Bindings for nested structures.
        for (name, path) in &s.bindings {
            if path.steps[0] == i {
                let p = p_ident(name);
                let e = path_expr(spec, path, false);
                let rf = path_field(spec, path);
                let prim = rf.ty.scalar_prim(spec).unwrap_or(Prim::U64);
                let raw = unwrap_scalar(spec, &rf.ty, e);
                let _ = prim;
                out.extend(quote!(let #p: u64 = #raw as u64;));
            }
        }
        // The structure's own length prefix bounds everything after it.
        if let Prefix::Own { field } = prefix
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
                            return Err(crate::error::Error::new(#rule, offset, format!("the length prefix {} is shorter than the {} bytes of {} already read", __len, __used, #title)));
                        }
                        let mut __sub = r.sub(__len - __used, #rule, #title)?;
                        let r = &mut __sub;
                    });
        }
    }
    // Surplus bytes of a length-prefixed structure (RES-7, CD2).
    if s.framing.is_length_prefixed() {
        let ax = axis_path(spec, s.axis);
        let title = s.title.as_str();
        out.extend(quote! {
            let __rest_at = r.offset();
            let __rest = r.rest();
            let skipped = ctx.surplus(#ax, __rest, __rest_at, #title)?;
        });
    }
    out
}

/// `ctx.enter(...)` after the field carrying an axis's minor version.
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
    let minor = f_ident(&s.fields[i]);
    if carried.len() == 1 && carried[0].scheme.is_none() {
        let a = carried[0];
        let v = axis_variant(&a.name);
        let major = match &a.major {
            Some(p) if p.root == id => {
                let f = f_ident(&s.fields[p.steps[0]]);
                quote!(#f)
            }
            _ => quote!(crate::generated::axes::Axis::#v.current().major),
        };
        let at = match &a.major {
            Some(p) if p.root == id => o_ident(&s.fields[p.steps[0]]),
            _ => o_ident(&s.fields[i]),
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
    let t = f_ident(tag_field);
    let at = o_ident(&s.fields[i]);
    quote! {
        if let Some(axis) = crate::generated::axes::Axis::of_scheme(#t.raw()) {
            ctx.enter(axis, crate::version::Version::new(axis.current().major, #minor), #at)?;
        }
    }
}

/// The expression parsing one field from `r`.
fn field_parse(cx: &Ctx, id: StructId, i: usize, f: &Field, node: Node) -> TokenStream {
    let spec = cx.spec;
    let s = spec.structure(id);
    let what = f.name.as_str();
    let oi = o_ident(f);
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
                    Err(e) => return Err(crate::error::Error::new(#rule, #oi + e.valid_up_to() as u64, format!("{} is not valid UTF-8", #what))),
                }
            })
        }
        (FieldType::Struct(t), count) => {
            let v = view_ident(spec, *t);
            let args = call_args(cx, node, Node::S(*t), &spec.structure(*t).params);
            let inner = if let Some(pi) = enclosed_prefix(spec, id, i) {
                let pf = f_ident(&s.fields[pi]);
                let rule = rule_path(spec, bound_rule(spec, *t).unwrap_or(RuleId(0)));
                quote!({ let mut __sub = r.sub(#pf as u64, #rule, #what)?; #v::parse(&mut __sub, ctx #args)? })
            } else {
                quote!(#v::parse(r, ctx #args)?)
            };
            match count {
                None => inner,
                Some(c) => {
                    let c = count_expr(s, c);
                    if is_simple(spec, *t) {
                        let size = lit_u64(spec.structure(*t).const_size().unwrap_or(0));
                        quote!({
                            let __n = #c;
                            let __b = r.take(__n.saturating_mul(#size), #what)?;
                            let mut __r = crate::wire::Reader::new(__b, #oi, r.bound());
                            for _ in 0..__n { #v::parse(&mut __r, ctx #args)?; }
                            crate::wire::FixedSeq::new(__b, #oi)
                        })
                    } else {
                        quote!({
                            let __n = #c;
                            if __n > r.remaining() as u64 {
                                return Err(crate::error::Error::new(r.bound(), #oi, format!("{} declares {} entries but only {} bytes remain", #what, __n, r.remaining())));
                            }
                            let mut __v = Vec::with_capacity(__n as usize);
                            for _ in 0..__n { __v.push(#v::parse(r, ctx #args)?); }
                            __v
                        })
                    }
                }
            }
        }
        (FieldType::Dispatch { space, on }, count) => {
            let v = variant_view_ident(spec, *space);
            let args = call_args(cx, node, Node::D(*space), &variant_params(spec, *space));
            let width = prim_type(spec.space(*space).width.prim());
            let (tag, tag_at) = match on {
                TagSource::Field(p) => {
                    let pf = path_field(spec, p);
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
            let inner = if let Some(pi) = enclosed_prefix(spec, id, i) {
                let pf = f_ident(&s.fields[pi]);
                let rule = rule_path(spec, variant_bound(spec, *space).unwrap_or(RuleId(0)));
                let body = one(quote!(__sub));
                quote!({ let mut __sub = r.sub(#pf as u64, #rule, #what)?; let __sub = &mut __sub; #body })
            } else {
                one(quote!(r))
            };
            match count {
                None => inner,
                Some(c) => {
                    let c = count_expr(s, c);
                    quote!({
                        let __n = #c;
                        if __n > r.remaining() as u64 {
                            return Err(crate::error::Error::new(r.bound(), #oi, format!("{} declares {} entries but only {} bytes remain", #what, __n, r.remaining())));
                        }
                        let mut __v = Vec::with_capacity(__n as usize);
                        for _ in 0..__n { __v.push(#inner); }
                        __v
                    })
                }
            }
        }
        _ => quote!(compile_error!("unsupported field shape")),
    }
}

/// Table checks of one field, right after it is parsed.
fn checks(cx: &Ctx, id: StructId, f: &Field) -> TokenStream {
    let spec = cx.spec;
    let s = spec.structure(id);
    let fi = f_ident(f);
    let oi = o_ident(f);
    let name = f.name.as_str();
    let mut out = TokenStream::new();
    let optional = f.presence != Presence::Always || appended(s, f);
    for c in &f.checks {
        let rule = rule_path(spec, c.rule);
        let when = match &c.when {
            Some(w) => condition_expr(spec, w, false),
            None => quote!(true),
        };
        let report = match c.level {
            CheckLevel::Reject => quote!(ctx.violation(#rule, __at, __msg)?;),
            CheckLevel::Warn => quote!(ctx.warn(#rule, __at, __msg);),
        };
        let body = match &c.kind {
            CheckKind::Equals(Lit::Int(0)) if f.ty == FieldType::Bytes => quote! {
                if #when && v.iter().any(|b| *b != 0) {
                    let __at = #oi + v.iter().position(|b| *b != 0).unwrap_or(0) as u64;
                    let __msg = format!("reserved bytes {} are {:02x?}, not zero", #name, v);
                    #report
                }
            },
            CheckKind::Bytes(b) => {
                let bl: Vec<_> = b.iter().map(|x| Literal::u8_unsuffixed(*x)).collect();
                let hex = crate::render::hex(b);
                quote! {
                    if #when && v != [#(#bl),*] {
                        let __at = #oi;
                        let __msg = format!("{} is {:02x?}, not {}", #name, v, #hex);
                        #report
                    }
                }
            }
            kind => {
                let prim = f.ty.scalar_prim(spec).unwrap_or(Prim::U64);
                let x = quote!(__x);
                let n = numeric(&f.ty, prim, x.clone());
                let (pred, expect) = predicate(spec, s, kind, prim, &n);
                let single = quote! {
                    if #when && !(#pred) {
                        let __msg = format!("{} = {:?} {}", #name, #x, #expect);
                        #report
                    }
                };
                if f.count.is_some() && f.ty.scalar_prim(spec).is_some() {
                    let size = lit_u64(prim.size() as u64);
                    quote! {
                        for (__i, __x) in v.iter().enumerate() {
                            let __at = #oi + __i as u64 * #size;
                            #single
                        }
                    }
                } else {
                    quote!({ let __x = v; let __at = #oi; #single })
                }
            }
        };
        out.extend(if optional {
            quote!(if let Some(v) = #fi { #body })
        } else {
            quote!({ let v = #fi; #body })
        });
    }
    out
}

/// A predicate over `n` (the value, as i128 or f64) and the expectation text.
fn predicate(
    spec: &Spec,
    s: &Structure,
    kind: &CheckKind,
    prim: Prim,
    n: &TokenStream,
) -> (TokenStream, String) {
    let lit = |l: &Lit| -> TokenStream {
        match (l, prim.is_float()) {
            (Lit::Int(v), false) => {
                let v = Literal::i128_unsuffixed(*v);
                quote!(#v)
            }
            (Lit::Int(v), true) => {
                let v = Literal::f64_unsuffixed(*v as f64);
                quote!(#v)
            }
            (Lit::Float(x), _) => {
                let v = Literal::f64_unsuffixed(*x);
                quote!(#v)
            }
        }
    };
    let show = |l: &Lit| match l {
        Lit::Int(v) => v.to_string(),
        Lit::Float(x) => x.to_string(),
    };
    let operand = |o: &Operand| -> (TokenStream, String) {
        match o {
            Operand::Param(p) => {
                let p2 = p_ident(p);
                (quote!((#p2 as i128)), p.clone())
            }
            Operand::Field(i) => {
                let f = &s.fields[*i];
                let fi = f_ident(f);
                let pr = f.ty.scalar_prim(spec).unwrap_or(Prim::U64);
                (numeric(&f.ty, pr, quote!(#fi)), f.name.clone())
            }
        }
    };
    match kind {
        CheckKind::Equals(l) => {
            let v = lit(l);
            (quote!(#n == #v), format!("must be {}", show(l)))
        }
        CheckKind::NotEquals(l) => {
            let v = lit(l);
            (quote!(#n != #v), format!("must not be {}", show(l)))
        }
        CheckKind::Min(l) => {
            let v = lit(l);
            (quote!(#n >= #v), format!("must be at least {}", show(l)))
        }
        CheckKind::Max(l) => {
            let v = lit(l);
            (quote!(#n <= #v), format!("must be at most {}", show(l)))
        }
        CheckKind::Range(a, b) => {
            let (va, vb) = (lit(a), lit(b));
            (
                quote!(#n >= #va && #n <= #vb),
                format!("must lie in [{}, {}]", show(a), show(b)),
            )
        }
        CheckKind::OneOf(vs) => {
            let ls: Vec<_> = vs.iter().map(|v| Literal::i128_unsuffixed(*v)).collect();
            (
                quote!([#(#ls),*].contains(&#n)),
                format!(
                    "must be one of {}",
                    vs.iter()
                        .map(|v| format!("{v:#x}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        }
        CheckKind::PowerOfTwo => (
            quote!(#n > 0 && (#n & (#n - 1)) == 0),
            "must be a power of two".to_string(),
        ),
        CheckKind::MultipleOf(m) => {
            let m2 = Literal::i128_unsuffixed(*m as i128);
            (quote!(#n % #m2 == 0), format!("must be a multiple of {m}"))
        }
        CheckKind::LessThan(o) => {
            let (e, name) = operand(o);
            (quote!(#n < #e), format!("must be less than {name}"))
        }
        CheckKind::SameAs(o) => {
            let (e, name) = operand(o);
            (quote!(#n == #e), format!("must equal {name}"))
        }
        CheckKind::Finite => (quote!(#n.is_finite()), "must be finite".to_string()),
        CheckKind::NonZero => {
            if prim.is_float() {
                (quote!(#n != 0.0), "must not be zero".to_string())
            } else {
                (quote!(#n != 0), "must not be zero".to_string())
            }
        }
        CheckKind::Bytes(_) => (quote!(true), String::new()),
    }
}

/// `body` (which names the nested value `x`) for each structure a field holds, when it holds
/// structures: one, an optional one, a sequence, or an optional sequence.
fn nested(
    f: &Field,
    optional: bool,
    name: &proc_macro2::Ident,
    mutable: bool,
    body: TokenStream,
) -> Option<TokenStream> {
    if !matches!(f.ty, FieldType::Struct(_) | FieldType::Dispatch { .. }) {
        return None;
    }
    let r = if mutable { quote!(&mut) } else { quote!(&) };
    Some(match (f.count.is_some(), optional) {
        (false, false) => quote!({ let x = #r self.#name; #body }),
        (false, true) => quote!(if let Some(x) = #r self.#name { #body }),
        (true, false) => quote!(for x in #r self.#name { #body }),
        (true, true) => quote!(if let Some(xs) = #r self.#name { for x in xs { #body } }),
    })
}

fn owned(cx: &Ctx, id: StructId) -> TokenStream {
    let spec = cx.spec;
    let s = spec.structure(id);
    let oname = owned_ident(spec, id);
    let title = format!(" {} (`{}`): an owned value.", s.title, s.name);
    let derived = derived(spec, id);
    let lp = s.framing.is_length_prefixed();

    let mut fields = Vec::new();
    let mut new_params = Vec::new();
    let mut new_inits = Vec::new();
    let mut encode = TokenStream::new();
    let mut to_value = Vec::new();
    let mut from_value = TokenStream::new();
    let mut ctor = Vec::new();
    let mut fill = Vec::new();
    let mut need = Vec::new();

    // Pre-encode fields whose length an earlier field gives (enclosed length prefixes).
    for (i, d) in derived.iter().enumerate() {
        if let Some(j) = *d
            && enclosed_prefix(spec, id, j) == Some(i)
        {
            let tmp = format_ident!("__enc_{}", j);
            let jn = ident(&s.fields[j].name);
            let enc = encode_field(cx, id, &s.fields[j], quote!(self.#jn));
            encode
                .extend(quote!(let mut #tmp: Vec<u8> = Vec::new(); { let out = &mut #tmp; #enc }));
        }
    }

    for (i, f) in s.fields.iter().enumerate() {
        let name = ident(&f.name);
        let fi = f_ident(f);
        let key = f.name.as_str();
        let d = doc(&f.title);
        if f.reserved {
            let size = f.size.as_ref().and_then(Affine::as_constant).unwrap_or(0) as u64;
            let l = lit_usize(size);
            encode.extend(quote!(out.extend_from_slice(&[0u8; #l]);));
            continue;
        }
        if let Some(j) = derived[i] {
            // A count or length the owned form derives from a later field.
            let p = prim_type(f.ty.scalar_prim(spec).unwrap_or(Prim::U32));
            let later = &s.fields[j];
            let ln = ident(&later.name);
            let len = if enclosed_prefix(spec, id, j) == Some(i) {
                let tmp = format_ident!("__enc_{}", j);
                quote!(#tmp.len())
            } else if later.presence != Presence::Always {
                quote!(self.#ln.as_ref().map_or(0, |x| x.len()))
            } else {
                quote!(self.#ln.len())
            };
            encode.extend(quote!(crate::wire::Scalar::put(#len as #p, out);));
            continue;
        }
        let optional = f.presence != Presence::Always || appended(s, f);
        let base = owned_member_ty(cx, f);
        let base = if cx.recursive(id, f) {
            quote!(Box<#base>)
        } else {
            base
        };
        let ty = if optional {
            quote!(Option<#base>)
        } else {
            base.clone()
        };
        fields.push(quote!(#d pub #name: #ty,));
        ctor.push(quote!(#name: #fi,));
        // W4 at a declared version: appended fields it defines, absent, take their defaults.
        let since = version_tokens(f.since);
        let ax = axis_path(spec, s.axis);
        if appended(s, f) && is_scalar(f) && f.presence == Presence::Always {
            let def = default_tokens(spec, s, f, true);
            fill.push(quote!(if axis == #ax && #since <= v && self.#name.is_none() { self.#name = Some(#def); }));
        }
        // W1/W2: an appended field that is present needs the version that appended it.
        if appended(s, f) {
            need.push(quote!(if axis == #ax && self.#name.is_some() && v < #since { v = #since; }));
        }
        fill.extend(nested(
            f,
            optional,
            &name,
            true,
            quote!(x.fill_defaults(axis, v);),
        ));
        need.extend(nested(
            f,
            optional,
            &name,
            false,
            quote!(v = x.version_needed(axis, v);),
        ));
        if optional {
            new_inits.push(quote!(#name: None,));
        } else {
            new_params.push(quote!(#name: #ty));
            new_inits.push(quote!(#name,));
        }
        // encode
        if enclosed_prefix(spec, id, i).is_some() {
            let tmp = format_ident!("__enc_{}", i);
            encode.extend(quote!(out.extend_from_slice(&#tmp);));
        } else if appended(s, f) && is_scalar(f) {
            let later: Vec<_> = s.fields[i + 1..]
                .iter()
                .filter(|g| appended(s, g) && !g.reserved)
                .map(|g| ident(&g.name))
                .collect();
            let def = default_tokens(spec, s, f, true);
            let enc = encode_field(cx, id, f, quote!(__v));
            encode.extend(quote! {
                // W4: an appended field is written whole, and also when a later one is.
                if self.#name.is_some() #(|| self.#later.is_some())* {
                    let __v = self.#name.unwrap_or(#def);
                    #enc
                }
            });
        } else if optional {
            let enc = encode_field(cx, id, f, quote!(__v));
            encode.extend(quote!(if let Some(__v) = &self.#name { let __v = __v; #enc }));
        } else {
            let enc = encode_field(cx, id, f, quote!(self.#name));
            encode.extend(enc);
        }
        // to_value
        let tv = to_value_expr(cx, f, quote!(__v));
        if appended(s, f) && is_scalar(f) {
            let def = default_tokens(spec, s, f, true);
            to_value.push(quote!(out.push((#key.to_string(), match &self.#name {
                Some(__v) => #tv,
                None => { let __d = #def; let __v = &__d; crate::value::Value::Defaulted(Box::new(#tv)) }
            }));));
        } else if optional {
            to_value.push(quote!(out.push((#key.to_string(), match &self.#name { Some(__v) => #tv, None => crate::value::Value::Null }));));
        } else {
            to_value.push(quote!({ let __v = &self.#name; out.push((#key.to_string(), #tv)); }));
        }
        // from_value
        let fv = from_value_expr(cx, id, f, quote!(__x), quote!(&__p));
        let fv = if cx.recursive(id, f) {
            quote!(Box::new(#fv))
        } else {
            fv
        };
        if optional {
            from_value.extend(quote!(let #fi = match crate::value::de::opt(v, #key) { Some(__x) => { let __p = format!("{}.{}", path, #key); Some(#fv) } None => None };));
        } else {
            from_value.extend(quote!(let #fi = { let __x = crate::value::de::field(v, path, #key)?; let __p = format!("{}.{}", path, #key); #fv };));
        }
    }
    // Flag bits that gate this structure's optional fields, kept in step with presence.
    let mut sync = Vec::new();
    for f in &s.fields {
        if let Presence::If(Condition::HasBit(path, _, bit)) = &f.presence {
            if path.root != id || !matches!(path_field(spec, path).ty, FieldType::Flags(_)) {
                continue;
            }
            let mut e = quote!(self);
            let mut cur: Option<&Field> = None;
            for &step in &path.steps {
                let next = match cur {
                    None => &s.fields[step],
                    Some(c) => match c.ty {
                        FieldType::Struct(t) => &spec.structure(t).fields[step],
                        _ => break,
                    },
                };
                let n = ident(&next.name);
                e = quote!(#e.#n);
                cur = Some(next);
            }
            let name = ident(&f.name);
            let m = Literal::u64_unsuffixed(1u64 << bit);
            sync.push(quote! {
                if self.#name.is_some() { #e.0 |= #m; } else { #e.0 &= !#m; }
            });
        }
    }
    let sync_fn = if sync.is_empty() {
        quote!()
    } else {
        quote! {
            /// Set every flag bit that gates an optional field to whether the field is present.
            pub fn sync_presence_flags(&mut self) {
                #(#sync)*
            }
        }
    };
    if lp {
        fields.push(
            quote!(/// Bytes inside the length prefix that the reader's version did not define, kept for re-encoding.
            pub skipped: Vec<u8>,),
        );
        ctor.push(quote!(skipped: crate::value::de::skipped(v),));
        new_inits.push(quote!(skipped: Vec::new(),));
        encode.extend(quote!(out.extend_from_slice(&self.skipped);));
        to_value.push(quote!(if !self.skipped.is_empty() {
            out.push((
                "skipped".to_string(),
                crate::value::Value::Skipped(self.skipped.clone()),
            ));
        }));
    }
    quote! {
        #[doc = #title]
        #[derive(Clone, Debug, PartialEq)]
        pub struct #oname { #(#fields)* }

        impl #oname {
            /// A value with every field the structure always has; optional and appended
            /// fields start absent.
            #[allow(clippy::too_many_arguments, clippy::new_without_default)]
            pub fn new(#(#new_params),*) -> Self {
                #oname { #(#new_inits)* }
            }
            #sync_fn

            /// W4: data declaring version `v` on `axis` carries every field appended on that
            /// axis up to `v`; give those that are absent their documented defaults, here and
            /// in every nested structure.
            #[allow(unused_variables)]
            pub fn fill_defaults(&mut self, axis: crate::generated::axes::Axis, v: crate::version::Version) {
                #(#fill)*
            }

            /// W1/W2: the lowest version on `axis`, at least `v`, that covers every appended
            /// field present here and in every nested structure.
            #[allow(unused_variables, unused_mut)]
            pub fn version_needed(&self, axis: crate::generated::axes::Axis, mut v: crate::version::Version) -> crate::version::Version {
                #(#need)*
                v
            }

            /// Append the encoding.
            #[allow(unused_variables, clippy::identity_op)]
            pub fn encode(&self, out: &mut Vec<u8>) {
                #encode
            }

            /// The encoding as a new vector.
            pub fn to_bytes(&self) -> Vec<u8> {
                let mut out = Vec::new();
                self.encode(&mut out);
                out
            }

            /// The structure's fields by spec name (reserved bytes and derived lengths omitted).
            #[allow(unused_mut, clippy::vec_init_then_push)]
            pub fn to_value(&self) -> crate::value::Value {
                let mut out: Vec<(String, crate::value::Value)> = Vec::new();
                #(#to_value)*
                crate::value::Value::Object(out)
            }

            /// The inverse of [`Self::to_value`].
            #[allow(unused_variables, clippy::redundant_locals)]
            pub fn from_value(v: &crate::value::Value, path: &str) -> Result<Self, crate::value::ValueError> {
                #from_value
                Ok(#oname { #(#ctor)* })
            }
        }
    }
}

fn owned_member_ty(cx: &Ctx, f: &Field) -> TokenStream {
    let spec = cx.spec;
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
            scalar_ty(spec, &f.ty)
        }
        (t, Some(_)) if t.scalar_prim(spec).is_some() => {
            let p = prim_type(t.scalar_prim(spec).unwrap_or(Prim::U8));
            quote!(Vec<#p>)
        }
        (FieldType::Bytes, _) => quote!(Vec<u8>),
        (FieldType::Utf8, _) => quote!(String),
        (FieldType::Struct(t), None) => {
            let o = owned_ident(spec, *t);
            quote!(#o)
        }
        (FieldType::Struct(t), Some(_)) => {
            let o = owned_ident(spec, *t);
            quote!(Vec<#o>)
        }
        (FieldType::Dispatch { space, .. }, None) => {
            let o = variant_owned_ident(spec, *space);
            quote!(#o)
        }
        (FieldType::Dispatch { space, .. }, Some(_)) => {
            let o = variant_owned_ident(spec, *space);
            quote!(Vec<#o>)
        }
        _ => quote!(()),
    }
}

/// Statements appending one field's value `v` to `out`.
fn encode_field(cx: &Ctx, _id: StructId, f: &Field, v: TokenStream) -> TokenStream {
    let spec = cx.spec;
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
            let raw = unwrap_scalar(spec, &f.ty, quote!((#v)));
            quote!(crate::wire::Scalar::put(#raw, out);)
        }
        (t, Some(_)) if t.scalar_prim(spec).is_some() => {
            quote!(for __e in (#v).iter() { crate::wire::Scalar::put(*__e, out); })
        }
        (FieldType::Bytes, _) => quote!(out.extend_from_slice(&(#v));),
        (FieldType::Utf8, _) => quote!(out.extend_from_slice((#v).as_bytes());),
        (FieldType::Struct(_), None) | (FieldType::Dispatch { .. }, None) => {
            quote!((#v).encode(out);)
        }
        (FieldType::Struct(_), Some(_)) | (FieldType::Dispatch { .. }, Some(_)) => {
            quote!(for __e in (#v).iter() { __e.encode(out); })
        }
        _ => quote!(),
    }
}

fn scalar_value(spec: &Spec, ty: &FieldType, v: TokenStream) -> TokenStream {
    let prim = ty.scalar_prim(spec).unwrap_or(Prim::U64);
    match ty {
        FieldType::Tag(_) => quote!(crate::value::Value::UInt(#v.raw() as u64)),
        FieldType::Flags(_) => quote!(crate::value::Value::UInt(#v.0 as u64)),
        _ if prim.is_float() => quote!(crate::value::Value::Float(#v as f64)),
        _ if prim.is_signed() => quote!(crate::value::Value::Int(#v as i64)),
        _ => quote!(crate::value::Value::UInt(#v as u64)),
    }
}

fn to_value_expr(cx: &Ctx, f: &Field, v: TokenStream) -> TokenStream {
    let spec = cx.spec;
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
            let inner = scalar_value(spec, &f.ty, quote!((*#v)));
            quote!({ #inner })
        }
        (t, Some(_)) if t.scalar_prim(spec).is_some() => {
            let inner = scalar_value(
                spec,
                &FieldType::Prim(t.scalar_prim(spec).unwrap_or(Prim::U64)),
                quote!((*__e)),
            );
            quote!(crate::value::Value::Array((#v).iter().map(|__e| #inner).collect()))
        }
        (FieldType::Bytes, _) => quote!(crate::value::Value::Bytes((#v).clone())),
        (FieldType::Utf8, _) => quote!(crate::value::Value::Str((#v).clone())),
        (FieldType::Struct(_), None) | (FieldType::Dispatch { .. }, None) => {
            quote!((#v).to_value())
        }
        (FieldType::Struct(_), Some(_)) | (FieldType::Dispatch { .. }, Some(_)) => {
            quote!(crate::value::Value::Array((#v).iter().map(|__e| __e.to_value()).collect()))
        }
        _ => quote!(crate::value::Value::Null),
    }
}

/// Expression building a field from value `x` at `path` (inside `from_value`, where earlier
/// fields are locals `f_<name>`).
fn from_value_expr(
    cx: &Ctx,
    id: StructId,
    f: &Field,
    x: TokenStream,
    path: TokenStream,
) -> TokenStream {
    let spec = cx.spec;
    let scalar = |ty: &FieldType, x: TokenStream| -> TokenStream {
        match ty {
            FieldType::Prim(Prim::F32) => quote!(crate::value::de::f32(#x, #path)?),
            FieldType::Prim(Prim::F64) => quote!(crate::value::de::f64(#x, #path)?),
            FieldType::Prim(p) => {
                let t = prim_type(*p);
                quote!(crate::value::de::int::<#t>(#x, #path)?)
            }
            FieldType::Tag(_) => quote!(crate::value::de::tag(#x, #path)?),
            FieldType::Flags(fs) => {
                let t = flags_type(spec, *fs);
                let p = prim_type(spec.flag_set(*fs).width.prim());
                quote!(super::flags::#t(crate::value::de::int::<#p>(#x, #path)?))
            }
            _ => quote!(()),
        }
    };
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => scalar(&f.ty, x),
        (t, Some(_)) if t.scalar_prim(spec).is_some() => {
            let e = scalar(
                &FieldType::Prim(t.scalar_prim(spec).unwrap_or(Prim::U64)),
                quote!(__e),
            );
            quote!(crate::value::de::array(#x, #path)?.iter().map(|__e| Ok(#e)).collect::<Result<Vec<_>, crate::value::ValueError>>()?)
        }
        (FieldType::Bytes, _) => quote!(crate::value::de::bytes(#x, #path)?),
        (FieldType::Utf8, _) => quote!(crate::value::de::string(#x, #path)?),
        (FieldType::Struct(t), None) => {
            let o = owned_ident(spec, *t);
            quote!(#o::from_value(#x, #path)?)
        }
        (FieldType::Struct(t), Some(_)) => {
            let o = owned_ident(spec, *t);
            quote!(crate::value::de::array(#x, #path)?.iter().enumerate().map(|(__i, __e)| #o::from_value(__e, &format!("{}[{}]", #path, __i))).collect::<Result<Vec<_>, _>>()?)
        }
        (FieldType::Dispatch { space, on }, count) => {
            let o = variant_owned_ident(spec, *space);
            let spty = space_type(spec, *space);
            let one = |e: TokenStream, p: TokenStream| -> TokenStream {
                match on {
                    TagSource::Field(tp) => {
                        let pf = path_field(spec, tp);
                        let pe = path_expr(spec, tp, true);
                        let raw = unwrap_scalar(spec, &pf.ty, pe);
                        quote!(#o::from_value(#raw as u32, #e, #p)?)
                    }
                    TagSource::Peek {
                        path_in_variant, ..
                    } => {
                        let keys: Vec<&str> = path_in_variant.iter().map(String::as_str).collect();
                        quote!({
                            let mut __t = #e;
                            #( __t = crate::value::de::field(__t, #p, #keys)?; )*
                            let __tag = match __t {
                                crate::value::Value::Str(n) => <super::tags::#spty as crate::wire::TagSpace>::from_name(n).map(|t| crate::wire::TagSpace::value(t)).ok_or_else(|| crate::value::ValueError::new(#p, format!("unknown tag `{n}`")))?,
                                other => crate::value::de::int::<u32>(other, #p)?,
                            };
                            #o::from_value(__tag, #e, #p)?
                        })
                    }
                }
            };
            match count {
                None => one(x, path),
                Some(_) => {
                    let inner = one(quote!(__e), quote!(&__pp));
                    quote!(crate::value::de::array(#x, #path)?.iter().enumerate().map(|(__i, __e)| { let __pp = format!("{}[{}]", #path, __i); Ok(#inner) }).collect::<Result<Vec<_>, crate::value::ValueError>>()?)
                }
            }
        }
        _ => {
            let _ = id;
            quote!(())
        }
    }
}

/// The name and structure of a struct field every variant of a space starts with.
fn common_first_field(spec: &Spec, space: SpaceId) -> Option<(String, StructId)> {
    let vs = spec.variants(space);
    let first = spec.structure(*vs.first()?).fields.first()?;
    let FieldType::Struct(t) = first.ty else {
        return None;
    };
    vs.iter()
        .all(|v| {
            spec.structure(*v)
                .fields
                .first()
                .is_some_and(|f| f.name == first.name && f.ty == FieldType::Struct(t))
        })
        .then(|| (first.name.clone(), t))
}

fn variant_enums(cx: &Ctx, space: SpaceId) -> TokenStream {
    let spec = cx.spec;
    let sp = spec.space(space);
    let ty = space_type(spec, space);
    let vv = variant_view_ident(spec, space);
    let vo = variant_owned_ident(spec, space);
    let params = variant_params(spec, space);
    let node = Node::D(space);
    let (params_decl, _) = parse_params(cx, &params, node);
    let bounded = variant_bound(spec, space).is_some();
    let private_struct = sp.ranges.iter().find_map(|r| {
        (r.kind == RangeKind::Private)
            .then_some(r.structure)
            .flatten()
    });
    let axis = axis_path(spec, sp.axis);

    let mut view_variants = Vec::new();
    let mut owned_variants = Vec::new();
    let mut parse_arms = Vec::new();
    let mut owned_arms = Vec::new();
    let mut tag_arms_v = Vec::new();
    let mut tag_arms_o = Vec::new();
    let mut encode_arms = Vec::new();
    let mut tv_arms = Vec::new();
    let mut fv_arms = Vec::new();
    for t in &sp.tags {
        let v = camel(&t.name);
        let val = Literal::u32_unsuffixed(t.value);
        let d = doc(&t.title);
        tag_arms_v.push(quote!(#vv::#v { .. } => #val,));
        tag_arms_o.push(quote!(#vo::#v { .. } => #val,));
        match t.structure {
            Some(sid) => {
                let sv = view_ident(spec, sid);
                let so = owned_ident(spec, sid);
                let args = call_args(cx, node, Node::S(sid), &spec.structure(sid).params);
                view_variants.push(quote!(#d #v(#sv<'a>),));
                owned_variants.push(quote!(#d #v(#so),));
                parse_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => #vv::#v(#sv::parse(r, ctx #args)?),));
                owned_arms.push(quote!(#vv::#v(x) => #vo::#v(x.owned()),));
                encode_arms.push(quote!(#vo::#v(x) => x.encode(out),));
                tv_arms.push(quote!(#vo::#v(x) => x.to_value(),));
                fv_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => Ok(#vo::#v(#so::from_value(v, path)?)),));
            }
            None => {
                view_variants.push(quote!(#d #v,));
                owned_variants.push(quote!(#d #v,));
                parse_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => #vv::#v,));
                owned_arms.push(quote!(#vv::#v => #vo::#v,));
                encode_arms.push(quote!(#vo::#v => {},));
                tv_arms.push(quote!(#vo::#v => crate::value::Value::Object(Vec::new()),));
                fv_arms.push(quote!(crate::wire::TagClass::Known(#ty::#v) => Ok(#vo::#v),));
            }
        }
    }
    if let Some(sid) = private_struct {
        let sv = view_ident(spec, sid);
        let so = owned_ident(spec, sid);
        let args = call_args(cx, node, Node::S(sid), &spec.structure(sid).params);
        view_variants.push(quote!(/// An implementation-private value.
            Private(u32, #sv<'a>),));
        owned_variants.push(quote!(/// An implementation-private value.
            Private(u32, #so),));
        parse_arms.push(
            quote!(crate::wire::TagClass::Private => #vv::Private(tag, #sv::parse(r, ctx #args)?),),
        );
        owned_arms.push(quote!(#vv::Private(t, x) => #vo::Private(*t, x.owned()),));
        tag_arms_v.push(quote!(#vv::Private(t, _) => *t,));
        tag_arms_o.push(quote!(#vo::Private(t, _) => *t,));
        encode_arms.push(quote!(#vo::Private(_, x) => x.encode(out),));
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
        tag_arms_v.push(quote!(#vv::Opaque(t, _) => *t,));
        tag_arms_o.push(quote!(#vo::Opaque(t, _) => *t,));
        encode_arms.push(quote!(#vo::Opaque(_, b) => out.extend_from_slice(b),));
        tv_arms.push(quote!(#vo::Opaque(_, b) => crate::value::Value::Object(vec![("opaque".to_string(), crate::value::Value::Bytes(b.clone()))]),));
        quote! {
            ctx.tag(crate::wire::TagValue::<super::tags::#ty>::from_raw(tag), tag_at, None)?;
            #vv::Opaque(tag, r.rest())
        }
    } else {
        quote! {
            ctx.tag(crate::wire::TagValue::<super::tags::#ty>::from_raw(tag), tag_at, None)?;
            return Err(crate::error::Error::new(<super::tags::#ty as crate::wire::TagSpace>::REJECT_UNKNOWN, tag_at, format!("{} {:#04x} cannot be parsed by this reader", #ty::NAME_STR, tag)));
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
    let mut need_arms: Vec<_> = sp
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
    let mut fill_arms: Vec<_> = sp
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
    // A field every variant starts with (the quantization header): an accessor on both enums.
    let common = common_first_field(spec, space);
    let (common_view, common_owned) = match &common {
        Some((fname, sid)) => {
            let n = ident(fname);
            let nm = format_ident!("{}_mut", fname);
            let hv = view_ident(spec, *sid);
            let ho = owned_ident(spec, *sid);
            let arms_v: Vec<_> = sp
                .tags
                .iter()
                .filter(|t| t.structure.is_some())
                .map(|t| {
                    let v = camel(&t.name);
                    quote!(#vv::#v(x) => Some(x.#n()),)
                })
                .collect();
            let arms_o: Vec<_> = sp
                .tags
                .iter()
                .filter(|t| t.structure.is_some())
                .map(|t| {
                    let v = camel(&t.name);
                    quote!(#vo::#v(x) => Some(&x.#n),)
                })
                .collect();
            let arms_m: Vec<_> = sp
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
                    pub fn #nm(&mut self) -> Option<&mut #ho> { #[allow(unreachable_patterns)] match self { #(#arms_m)* #priv_m _ => None } }
                },
            )
        }
        None => (quote!(), quote!()),
    };
    let name = sp.name.as_str();
    let vderives = if cx.copy(node) {
        quote!(#[derive(Clone, Copy, Debug)])
    } else {
        quote!(#[derive(Clone, Debug)])
    };
    let vdoc = format!(" The structure selected by a `{name}` value: a borrowed view.");
    let odoc = format!(" The structure selected by a `{name}` value: an owned value.");
    quote! {
        impl super::tags::#ty {
            /// The space's name.
            pub const NAME_STR: &'static str = #name;
        }

        #[doc = #vdoc]
        #vderives
        pub enum #vv<'a> { #(#view_variants)* }

        impl<'a> #vv<'a> {
            /// Parse the structure `tag` selects (`tag_at` locates the tag for errors).
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

            pub fn owned(&self) -> #vo {
                match self { #(#owned_arms)* }
            }

            #parameters
            #common_view
        }

        #[doc = #odoc]
        #[derive(Clone, Debug, PartialEq)]
        pub enum #vo { #(#owned_variants)* }

        impl #vo {
            pub fn tag(&self) -> u32 {
                match self { #(#tag_arms_o)* }
            }
            #common_owned
            /// W4 at a declared version, for the selected structure (see its `fill_defaults`).
            pub fn fill_defaults(&mut self, axis: crate::generated::axes::Axis, v: crate::version::Version) {
                #[allow(unreachable_patterns)]
                match self { #(#fill_arms)* _ => {} }
            }
            /// W1/W2 for the selected structure (see its `version_needed`).
            pub fn version_needed(&self, axis: crate::generated::axes::Axis, v: crate::version::Version) -> crate::version::Version {
                #[allow(unreachable_patterns)]
                match self { #(#need_arms)* _ => v }
            }
            pub fn encode(&self, out: &mut Vec<u8>) {
                match self { #(#encode_arms)* }
            }
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
