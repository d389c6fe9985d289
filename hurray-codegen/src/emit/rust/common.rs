//! Naming and small token helpers shared by the Rust emitters: the identifiers of generated
//! types and locals, typed scalars, paths to earlier fields, conditions, counts, defaults, and
//! how a view keeps each field (which its parse and its accessors both follow).

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Literal, Span as PSpan, TokenStream};
use quote::{format_ident, quote};

use crate::model::shape::DispatchShape;
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

/// A field's documentation: its `title` in the spec, or, for a field without one, what the
/// table says of it (its name and structure).
pub fn field_doc(s: &Structure, f: &Field) -> String {
    if f.title.is_empty() {
        format!("The `{}` field of `{}` ({}).", f.name, s.name, s.title)
    } else {
        f.title.clone()
    }
}

/// A `#[doc]` attribute of spec text (a title, a rule's text), nothing for an empty text.
pub fn doc(s: &str) -> TokenStream {
    if s.is_empty() {
        quote!()
    } else {
        let s = format!(" {}", doc_escape(s));
        quote!(#[doc = #s])
    }
}

/// Spec text as rustdoc Markdown reads it literally: outside code spans, brackets (`[k]`,
/// `[0, 1]`) would be taken for intra-doc links and angle brackets for HTML tags.
pub fn doc_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_code = false;
    for c in s.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code && matches!(c, '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
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

pub fn view_ident(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    format_ident!("{}View", camel(&spec.structure(id).name))
}

/// The record a view of `id` keeps (`<Name>Positions`): see `views`.
pub fn record_ident(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    format_ident!("{}Positions", camel(&spec.structure(id).name))
}

/// The record a view keeps of a variant a field dispatches to (`<Space>VariantPositions`).
pub fn variant_record_ident(spec: &Spec, tag_space: SpaceId) -> proc_macro2::Ident {
    format_ident!("{}VariantPositions", camel(&spec.space(tag_space).name))
}

pub fn owned_ident(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    camel(&spec.structure(id).name)
}

pub fn variant_view_ident(spec: &Spec, tag_space: SpaceId) -> proc_macro2::Ident {
    format_ident!("{}VariantView", camel(&spec.space(tag_space).name))
}

pub fn variant_owned_ident(spec: &Spec, tag_space: SpaceId) -> proc_macro2::Ident {
    format_ident!("{}Variant", camel(&spec.space(tag_space).name))
}

/// The typed Rust type of a scalar field.
pub fn scalar_ty(spec: &Spec, ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::Prim(p) => prim_type(*p),
        FieldType::Tag(tag_space) => {
            let t = space_type(spec, *tag_space);
            quote!(crate::wire::TagValue<super::tags::#t>)
        }
        FieldType::Flags(flag_set) => {
            let t = flags_type(spec, *flag_set);
            quote!(super::flags::#t)
        }
        _ => quote!(()),
    }
}

/// Wrap a raw prim expression into the field's typed scalar.
pub fn wrap_scalar(spec: &Spec, ty: &FieldType, raw: TokenStream) -> TokenStream {
    match ty {
        FieldType::Prim(_) => raw,
        FieldType::Tag(tag_space) => {
            let t = space_type(spec, *tag_space);
            quote!(crate::wire::TagValue::<super::tags::#t>::from_raw(#raw as u32))
        }
        FieldType::Flags(flag_set) => {
            let t = flags_type(spec, *flag_set);
            quote!(super::flags::#t(#raw))
        }
        _ => raw,
    }
}

/// A typed scalar as its raw prim value.
pub fn unwrap_scalar(spec: &Spec, ty: &FieldType, v: TokenStream) -> TokenStream {
    match ty {
        FieldType::Prim(_) => v,
        FieldType::Tag(tag_space) => {
            let p = prim_type(spec.space(*tag_space).width.prim());
            quote!((#v.raw() as #p))
        }
        FieldType::Flags(_) => quote!(#v.0),
        _ => v,
    }
}

/// A typed scalar as an i128 for comparisons (floats stay f64).
pub fn numeric(ty: &FieldType, prim: Prim, v: TokenStream) -> TokenStream {
    match ty {
        FieldType::Tag(_) => quote!((#v.raw() as i128)),
        FieldType::Flags(_) => quote!((#v.0 as i128)),
        _ if prim.is_float() => quote!((#v as f64)),
        _ => quote!((#v as i128)),
    }
}

/// The local holding a field's value inside a parse or `from_value` function (`f_<name>`).
pub fn value_local(f: &Field) -> proc_macro2::Ident {
    format_ident!("f_{}", f.name.trim_start_matches('_'))
}

/// The local holding a field's absolute offset inside a parse function (`o_<name>`).
pub fn offset_local(f: &Field) -> proc_macro2::Ident {
    format_ident!("o_{}", f.name.trim_start_matches('_'))
}

/// The local holding a param's value inside a parse function (`p_<name>`).
pub fn param_local(name: &str) -> proc_macro2::Ident {
    format_ident!("p_{}", name)
}

/// Expression of an earlier field's typed value reached by `path` inside the parse function
/// (views) or the from_value function (owned, `owned = true`).
pub fn path_expr(spec: &Spec, path: &FieldPath, owned: bool) -> TokenStream {
    let root = spec.structure(path.root);
    let first = &root.fields[path.steps[0]];
    let mut e = {
        let i = value_local(first);
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
pub fn path_offset_expr(spec: &Spec, path: &FieldPath) -> TokenStream {
    let root = spec.structure(path.root);
    let first = &root.fields[path.steps[0]];
    let o = offset_local(first);
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

pub fn condition_expr(spec: &Spec, c: &Condition, owned: bool) -> TokenStream {
    let f = spec.resolve(c.path());
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
        Condition::InRange(_, a, b) => {
            let (a, b) = (
                Literal::i128_unsuffixed(i128::from(*a)),
                Literal::i128_unsuffixed(i128::from(*b)),
            );
            quote!(((#a..=#b).contains(&#n)))
        }
    }
}

pub fn count_expr(s: &Structure, c: &Count) -> TokenStream {
    match c {
        Count::Const(n) => {
            let n = lit_u64(*n);
            quote!(#n)
        }
        // A conditional count field is an `Option`; the field it counts is present only
        // with it (the same condition), so an absent count is never read.
        Count::Field(i) if matches!(s.fields[*i].presence, Presence::If(_)) => {
            let f = value_local(&s.fields[*i]);
            quote!((#f.unwrap_or(0) as u64))
        }
        Count::Field(i) => {
            let f = value_local(&s.fields[*i]);
            quote!((#f as u64))
        }
        Count::Param(p) => {
            let p = param_local(p);
            quote!(#p)
        }
        Count::Rest => quote!(0u64),
    }
}

pub fn default_tokens(spec: &Spec, s: &Structure, f: &Field, owned_self: bool) -> TokenStream {
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

/// The containment of a dispatching space (the analysis pass shapes every one a field
/// dispatches on).
pub fn dispatch_shape(spec: &Spec, space: SpaceId) -> &DispatchShape {
    spec.space(space)
        .dispatch
        .as_ref()
        .expect("the analysis pass shapes every space a field dispatches on")
}

/// How a view keeps a field and how its accessor reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// A scalar at a constant offset in every version: read in place, nothing kept.
    InPlace,
    /// A scalar elsewhere (optional, appended, or after a variable-size field): read at its
    /// position.
    Scalar,
    /// A run of scalars, raw bytes or UTF-8 text: the span between its position and the next.
    Span,
    /// A structure or a dispatched variant that is a `Copy` view: its record is kept and the
    /// view made from its span on access.
    Record,
    /// A structure or a dispatched variant that holds a sequence of variable-size entries:
    /// its view is kept whole (not `Copy`).
    View,
    /// The next level of a chain of levels nested in themselves (a tiled layout's `nested`):
    /// a presence bit is kept, and the level's record is located from its bytes on access.
    Levels,
    /// A structure nested in itself other than through a chain: its view behind a box.
    Boxed,
    /// A sequence of plain fixed-size structures: a `FixedSeq` over its span.
    FixedSeq,
    /// A sequence of variable-size entries whose parse needs no params (structures, or
    /// variants selected by one tag for the whole sequence): a `VarSeq`, which keeps where
    /// each entry ends and makes an entry's view again on access.
    VarSeq,
    /// A sequence of variable-size entries parsed with params, or selected by a tag inside
    /// each entry: their views, kept in a `Vec`.
    Seq,
}

/// How field `i` of `id` is kept.
pub fn kept(spec: &Spec, id: StructId, i: usize) -> Kept {
    let s = spec.structure(id);
    let (f, shape) = (&s.fields[i], &s.shape.fields[i]);
    if shape.in_place {
        return Kept::InPlace;
    }
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => Kept::Scalar,
        (FieldType::Struct(_), None) if shape.recursive => {
            if s.shape.chain.map(|c| c.field) == Some(i) {
                Kept::Levels
            } else {
                Kept::Boxed
            }
        }
        (FieldType::Struct(t), None) if spec.structure(*t).shape.containment.copy => Kept::Record,
        (FieldType::Dispatch { space, .. }, None)
            if dispatch_shape(spec, *space).containment.copy =>
        {
            Kept::Record
        }
        (FieldType::Struct(_) | FieldType::Dispatch { .. }, None) => Kept::View,
        (FieldType::Struct(t), Some(_)) if spec.structure(*t).shape.simple => Kept::FixedSeq,
        (FieldType::Struct(t), Some(_))
            if spec.structure(*t).params.is_empty() && spec.structure(*t).shape.chain.is_none() =>
        {
            Kept::VarSeq
        }
        (
            FieldType::Dispatch {
                space,
                on: TagSource::Field(_),
            },
            Some(_),
        ) if dispatch_shape(spec, *space).params.is_empty() => Kept::VarSeq,
        (FieldType::Struct(_) | FieldType::Dispatch { .. }, Some(_)) => Kept::Seq,
        _ => Kept::Span,
    }
}

/// The version number an axis carrier field holds, as the version's byte: a wider carrier
/// (a negotiated axis's u32, RES-53) above 255 reads as 255, newer than every version the
/// tables can state.
pub fn version_number(spec: &Spec, f: &Field) -> TokenStream {
    let v = value_local(f);
    match f.ty.scalar_prim(spec) {
        Some(Prim::U8) | None => quote!(#v),
        Some(_) => quote!(u8::try_from(#v).unwrap_or(u8::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::doc_escape;

    #[test]
    fn doc_escape_keeps_brackets_literal_outside_code_spans() {
        assert_eq!(doc_escape("shape[k] in [0, 1]"), r"shape\[k\] in \[0, 1\]");
        assert_eq!(doc_escape("a Vec<u8>"), r"a Vec\<u8\>");
        assert_eq!(doc_escape("`shape[k]` and [k]"), r"`shape[k]` and \[k\]");
    }
}
