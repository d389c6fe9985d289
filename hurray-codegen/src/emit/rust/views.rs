//! The borrowed view of every structure: its bytes, its absolute offset, and a small record
//! of what its parse learnt walking it (where each field that has no constant offset starts,
//! which optional fields are present, the records of the structures nested in it). Accessors
//! read every value in place from the bytes and make nested views on demand, so a view is
//! cheap to make and to return by value: a descriptor's view is a slice, an offset and a few
//! hundred bytes of positions, never a copy of its fields. A structure nested in itself
//! through one field that forms a chain (a tiled layout's next level) keeps only its own
//! level's record: the next level is located on access, by arithmetic over the bytes its
//! parse already checked (`locate`). Also: offset and size constants, the conversion to the
//! owned form, and for a plain run of bytes a `FixedView`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::common::*;
use super::parse::{depth_check, parse_body, parse_params};
use crate::model::*;

/// Whether a view of `id` keeps field `i`'s presence as a bit (rather than as an `Option` of
/// what it keeps).
fn presence_bit(spec: &Spec, id: StructId, i: usize) -> bool {
    let s = spec.structure(id);
    s.shape.fields[i].optional()
        && matches!(
            kept(spec, id, i),
            Kept::Scalar | Kept::Span | Kept::FixedSeq | Kept::Levels
        )
}

/// The type of a record's positions: relative to the structure's first byte, `u32` for a
/// `Copy` view (the parse rejects a structure it could not address) and `u64` for one that
/// holds sequences (a file's index can exceed 4 GiB).
fn position_ty(s: &Structure) -> TokenStream {
    if s.shape.containment.copy {
        quote!(u32)
    } else {
        quote!(u64)
    }
}

/// The record type of a structure, with its lifetime when it keeps views.
pub fn record_ty(spec: &Spec, id: StructId) -> TokenStream {
    let r = record_ident(spec, id);
    if spec.structure(id).shape.containment.copy {
        quote!(#r)
    } else {
        quote!(#r<'a>)
    }
}

/// The record member holding field `i`'s start (fields without a constant offset).
fn start_member(f: &Field) -> proc_macro2::Ident {
    format_ident!("start_{}", f.name.trim_start_matches('_'))
}

/// The record member holding what a view keeps of field `i` (a record, a view, a sequence).
fn kept_member(f: &Field) -> proc_macro2::Ident {
    format_ident!("kept_{}", f.name.trim_start_matches('_'))
}

/// Expressions over a view (`self`) locating field `i`: start and end (as `usize`, relative
/// to the structure's first byte), and whether it is present.
struct Locate<'s> {
    spec: &'s Spec,
    id: StructId,
    /// The record of this level (`self.at`, or `self.at.own` for a chain of levels).
    rec: TokenStream,
}

impl Locate<'_> {
    fn s(&self) -> &Structure {
        self.spec.structure(self.id)
    }

    fn start(&self, i: usize) -> TokenStream {
        let s = self.s();
        if i == s.fields.len() {
            return if s.framing.is_length_prefixed() {
                let rec = &self.rec;
                quote!((#rec.end as usize))
            } else {
                quote!(self.bytes.len())
            };
        }
        let f = &s.fields[i];
        match f.const_offset() {
            Some(o) => {
                let o = lit_usize(o);
                quote!(#o)
            }
            None => {
                let (m, rec) = (start_member(f), &self.rec);
                quote!((#rec.#m as usize))
            }
        }
    }

    fn end(&self, i: usize) -> TokenStream {
        self.start(i + 1)
    }

    fn span(&self, i: usize) -> TokenStream {
        let (a, b) = (self.start(i), self.end(i));
        quote!(&self.bytes[#a..#b])
    }

    fn absolute(&self, i: usize) -> TokenStream {
        let a = self.start(i);
        quote!((self.offset + #a as u64))
    }

    /// The presence test of an optional field kept as a bit.
    fn present(&self, i: usize) -> TokenStream {
        let bit = bit_index(self.spec, self.id, i);
        let (byte, mask) = (
            lit_usize((bit / 8) as u64),
            proc_macro2::Literal::u8_unsuffixed(1u8 << (bit % 8)),
        );
        let rec = &self.rec;
        quote!((#rec.present[#byte] & #mask != 0))
    }
}

/// The index of field `i` among the fields of `id` whose presence is a bit.
fn bit_index(spec: &Spec, id: StructId, i: usize) -> usize {
    (0..i).filter(|j| presence_bit(spec, id, *j)).count()
}

fn bit_count(spec: &Spec, id: StructId) -> usize {
    bit_index(spec, id, spec.structure(id).fields.len())
}

pub fn view(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let vname = view_ident(spec, id);
    let oname = owned_ident(spec, id);
    let rname = record_ident(spec, id);
    let copy = s.shape.containment.copy;
    let title = format!(" {} (`{}`): a borrowed view.", doc_escape(&s.title), s.name);
    let lp = s.framing.is_length_prefixed();
    // A chain of levels keeps each level's own record (`<Name>Level`) and the deeper ones.
    let chain = s.shape.chain;
    let level = level_ident(spec, id);
    let at = Locate {
        spec,
        id,
        rec: if chain.is_some() {
            quote!(self.at.own)
        } else {
            quote!(self.at)
        },
    };
    let pos = position_ty(s);

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
        consts.extend(max_const(spec, f));
        consts.extend(bytes_const(spec, f));
    }

    // The record: its members, and how the parse fills them from its locals.
    let mut members = Vec::new();
    let mut inits = Vec::new();
    let mut bits = Vec::new();
    let mut accessors = Vec::new();
    let mut owned_fields = Vec::new();

    for (i, f) in s.fields.iter().enumerate() {
        let fi = value_local(f);
        let oi = offset_local(f);
        let shape = &s.shape.fields[i];
        let how = kept(spec, id, i);
        if f.const_offset().is_none() {
            let m = start_member(f);
            members.push(quote!(#m: #pos,));
            inits.push(quote!(#m: (#oi - offset) as #pos,));
        }
        if presence_bit(spec, id, i) {
            bits.push(quote!(#fi.is_some()));
        }
        let optional = shape.optional();
        let km = kept_member(f);
        match how {
            Kept::Record => {
                let rt = match (&f.ty, &f.count) {
                    (FieldType::Struct(t), None) => record_ty(spec, *t),
                    (FieldType::Dispatch { space, .. }, None) => {
                        let r = variant_record_ident(spec, *space);
                        quote!(#r)
                    }
                    _ => quote!(()),
                };
                let take = match f.ty {
                    FieldType::Dispatch { .. } => quote!(v.positions()),
                    _ => quote!(v.at),
                };
                if optional {
                    members.push(quote!(#km: Option<#rt>,));
                    inits.push(quote!(#km: #fi.map(|v| #take),));
                } else {
                    members.push(quote!(#km: #rt,));
                    inits.push(quote!(#km: { let v = #fi; #take },));
                }
            }
            Kept::View | Kept::Seq | Kept::VarSeq | Kept::Boxed => {
                let t = view_member_ty(spec, id, i);
                let (t, wrap) = if how == Kept::Boxed {
                    (quote!(Box<#t>), quote!(Box::new))
                } else {
                    (t, quote!())
                };
                if optional {
                    members.push(quote!(#km: Option<#t>,));
                    if how == Kept::Boxed {
                        inits.push(quote!(#km: #fi.map(Box::new),));
                    } else {
                        inits.push(quote!(#km: #fi,));
                    }
                } else {
                    members.push(quote!(#km: #t,));
                    inits.push(quote!(#km: #wrap(#fi),));
                }
            }
            Kept::InPlace | Kept::Scalar | Kept::Span | Kept::FixedSeq | Kept::Levels => {}
        }
        if f.reserved {
            continue;
        }
        let name = ident(&f.name);
        let at_name = format_ident!("{}_at", f.name.trim_start_matches('_'));
        accessors.push(accessor(spec, id, i, &at));
        let abs = at.absolute(i);
        accessors.push(quote!(/// Absolute byte offset of this field.
            pub fn #at_name(&self) -> u64 { #abs }));
        // Owned conversion, through the accessor.
        if shape.gives_size_of.is_some() {
            continue;
        }
        let conv = owned_conv(spec, id, i);
        owned_fields.push(quote!(#name: #conv,));
    }
    if !bits.is_empty() {
        let n = bit_count(spec, id);
        let bytes = n.div_ceil(8);
        let nb = lit_usize(bytes as u64);
        members.push(quote!(present: [u8; #nb],));
        let per_byte = bit_bytes(&bits);
        inits.push(quote!(present: [#(#per_byte),*],));
    }
    if lp {
        members.push(quote!(end: #pos,));
        inits.push(quote!(end: (__rest_at - offset) as #pos,));
        let end = at.start(s.fields.len());
        accessors.push(quote!(
            /// Bytes inside the length prefix that this reader's version does not define (CD2).
            pub fn skipped(&self) -> &'a [u8] {
                &self.bytes[#end..]
            }
        ));
        owned_fields.push(quote!(skipped: self.skipped().to_vec(),));
    }

    let (params_decl, _) = parse_params(&s.params, s.shape.containment);
    let body = parse_body(spec, id);
    let depth_check = depth_check(spec, id);
    // A `Copy` view addresses its fields with 32-bit positions: a larger structure is
    // rejected at the reader's bound rather than misread.
    let addressable = if copy {
        let what = s.title.as_str();
        quote!(crate::wire::addressable(bytes.len(), offset, r0.bound(), #what)?;)
    } else {
        quote!()
    };

    // How a sequence makes this view again from an entry's checked bytes: in place when its
    // record is empty, else by a replay of its parse (which takes no params here).
    let remake = if members.is_empty() && chain.is_none() {
        quote!(Some(#vname { bytes, offset, at: #rname {} }))
    } else if s.params.is_empty() && chain.is_none() {
        let depth = if s.shape.containment.cyclic {
            quote!(, depth)
        } else {
            quote!()
        };
        quote!(replay.parse(bytes, offset, |r, ctx, depth| #vname::parse(r, ctx #depth)))
    } else {
        quote!(None)
    };
    let rebuild = quote! {
        impl crate::wire::sealed::Sealed for #vname<'_> {}
        impl<'a> crate::seq::Rebuild<'a> for #vname<'a> {
            #[allow(unused_variables)]
            fn like(&self, bytes: &'a [u8], offset: u64, replay: &crate::ctx::Replay) -> Option<Self> {
                #remake
            }
        }
    };
    let fixed_view = if s.shape.simple {
        let size = lit_usize(s.const_size().unwrap_or(0));
        quote! {
            impl<'a> crate::wire::FixedView<'a> for #vname<'a> {
                const SIZE: usize = #size;
                fn at(bytes: &'a [u8], offset: u64) -> Self { #vname { bytes, offset, at: #rname {} } }
            }
        }
    } else {
        quote!()
    };

    let (record_derives, record_lt) = if copy {
        (quote!(#[derive(Clone, Copy, Debug)]), quote!())
    } else {
        (quote!(#[derive(Clone, Debug)]), quote!(<'a>))
    };
    let derives = if copy {
        quote!(#[derive(Clone, Copy, Debug)])
    } else {
        quote!(#[derive(Clone, Debug)])
    };
    let record_doc = format!(
        " What a parse of `{}` learnt walking it: where each field without a constant offset starts (relative to the first byte), which optional fields are present, and what is kept of the structures nested in it.",
        s.name
    );
    // The record, and how the parse makes it; for a chain, the level's own record and the
    // params the next level is found with.
    let (records, make_record, locate_fn) = match chain {
        None => (
            quote! {
                #[doc = #record_doc]
                #record_derives
                #[allow(dead_code)]
                struct #rname #record_lt { #(#members)* }
            },
            quote!(#rname { #(#inits)* }),
            quote!(),
        ),
        Some(_) => {
            let args: Vec<_> = s.params.iter().map(|p| param_local(p)).collect();
            let chain_doc = format!(
                " A `{}` level's record, and the params its next level is found with.",
                s.name
            );
            (
                quote! {
                    #[doc = #record_doc]
                    #record_derives
                    #[derive(PartialEq)]
                    #[allow(dead_code)]
                    struct #level #record_lt { #(#members)* }

                    #[doc = #chain_doc]
                    #record_derives
                    struct #rname #record_lt {
                        own: #level,
                        #(#args: u64,)*
                    }
                },
                quote!({
                    let own = #level { #(#inits)* };
                    debug_assert_eq!(Self::locate(bytes #(, #args)*), own, "locate finds what the parse read");
                    #rname { own, #(#args,)* }
                }),
                locate(spec, id),
            )
        }
    };
    quote! {
        #records

        #[doc = #title]
        #derives
        #[allow(dead_code)]
        pub struct #vname<'a> {
            bytes: &'a [u8],
            offset: u64,
            at: #rname #record_lt,
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
                #addressable
                Ok(Self { bytes, offset, at: #make_record })
            }

            #locate_fn

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
        #rebuild
    }
}

/// `MAX_<FIELD>`: the largest value of an integer field every reader accepts, when a table
/// check bounds it unconditionally under a rule every reader rejects with (SHP-1 bounds
/// `rank`): what a reader may size a fixed buffer by.
/// The bytes a field must hold (an unconditional `bytes` check that rejects: a magic), as a
/// constant writers and tools use instead of restating it.
fn bytes_const(spec: &Spec, f: &Field) -> TokenStream {
    let found = f
        .checks
        .iter()
        .find_map(|c| match (&c.kind, &c.when, c.level) {
            (CheckKind::Bytes(b), None, CheckLevel::Reject)
                if spec.rule(c.rule).action == Action::Reject =>
            {
                Some((b, c.rule))
            }
            _ => None,
        });
    let Some((bytes, rule)) = found else {
        return quote!();
    };
    let c = format_ident!("EXPECTED_{}", f.name.trim_start_matches('_').to_uppercase());
    let n = lit_usize(bytes.len() as u64);
    let b = bytes
        .iter()
        .map(|x| proc_macro2::Literal::u8_unsuffixed(*x));
    let d = format!(
        " The bytes `{}` must hold (rule {}).",
        f.name,
        spec.rule(rule).id
    );
    quote!(#[doc = #d] pub const #c: [u8; #n] = [#(#b),*];)
}

fn max_const(spec: &Spec, f: &Field) -> TokenStream {
    let Some(prim) = f.ty.scalar_prim(spec) else {
        return quote!();
    };
    if f.count.is_some() || prim.is_float() || !matches!(f.ty, FieldType::Prim(_)) {
        return quote!();
    }
    let bound = f
        .checks
        .iter()
        .find_map(|c| match (&c.kind, &c.when, c.level) {
            (
                CheckKind::Max(Lit::Int(n)) | CheckKind::Range(_, Lit::Int(n)),
                None,
                CheckLevel::Reject,
            ) if spec.rule(c.rule).action == Action::Reject => Some((*n, c.rule)),
            _ => None,
        });
    let Some((n, rule)) = bound else {
        return quote!();
    };
    let c = format_ident!("MAX_{}", f.name.trim_start_matches('_').to_uppercase());
    let t = prim_type(prim);
    let v = prim_lit(prim, &Lit::Int(n));
    let d = format!(
        " The largest `{}` a reader accepts (rule {}).",
        f.name,
        spec.rule(rule).id
    );
    quote!(#[doc = #d] pub const #c: #t = #v;)
}

/// `locate`: where each field of one level of a chain starts, by arithmetic over the level's
/// bytes and the params, the same walk its parse made (counts from constants, params and
/// earlier scalars; presence from conditions on them). Total: on bytes the parse checked it
/// reproduces the parse's record, and on any other bytes it reads zeros past the end.
fn locate(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let level = level_ident(spec, id);
    let pos = position_ty(s);
    let params: Vec<_> = s.params.iter().map(|p| param_local(p)).collect();
    let mut body = TokenStream::new();
    let mut inits = Vec::new();
    let mut bits = Vec::new();
    for (i, f) in s.fields.iter().enumerate() {
        let fi = value_local(f);
        let here = format_ident!("__here_{}", i);
        if f.const_offset().is_none() {
            let (m, start) = (start_member(f), format_ident!("__start_{}", i));
            body.extend(quote!(let #start = __pos;));
            inits.push(quote!(#m: #start as #pos,));
        }
        let present = match &f.presence {
            Presence::Always => quote!(true),
            Presence::If(c) => condition_expr(spec, c, false),
        };
        let size = match (&f.ty, &f.count) {
            (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
                let p = f.ty.scalar_prim(spec).unwrap_or(Prim::U8);
                let pt = prim_type(p);
                if f.presence == Presence::Always {
                    let read = wrap_scalar(
                        spec,
                        &f.ty,
                        quote!(crate::wire::read_within::<#pt>(bytes, __pos)),
                    );
                    body.extend(quote!(let #fi = #read;));
                }
                let n = lit_u64(p.size() as u64);
                quote!(#n)
            }
            (t, Some(c)) => {
                let elem = lit_u64(t.scalar_prim(spec).map_or(1, |p| p.size() as u64));
                let c = count_expr(s, c);
                quote!(u64::saturating_mul(#c, #elem))
            }
            // The next level: the level's last field, which ends it.
            _ => {
                body.extend(quote!(let #here = #present;));
                if presence_bit(spec, id, i) {
                    bits.push(quote!(#here));
                }
                continue;
            }
        };
        body.extend(quote! {
            let #here = #present;
            if #here {
                __pos = __pos.saturating_add(usize::try_from(#size).unwrap_or(usize::MAX));
            }
        });
        if presence_bit(spec, id, i) {
            bits.push(quote!(#here));
        }
    }
    let present = if bits.is_empty() {
        quote!()
    } else {
        let per_byte = bit_bytes(&bits);
        quote!(present: [#(#per_byte),*],)
    };
    quote! {
        /// Where each field of the level at `bytes` starts, as its parse found them.
        #[allow(unused_variables, unused_mut, unused_parens, clippy::identity_op, clippy::nonminimal_bool)]
        fn locate(bytes: &[u8] #(, #params: u64)*) -> #level {
            let mut __pos: usize = 0;
            #body
            #level { #(#inits)* #present }
        }
    }
}

/// The bytes of a presence bit set, from one boolean expression per bit.
fn bit_bytes(bits: &[TokenStream]) -> Vec<TokenStream> {
    bits.chunks(8)
        .map(|chunk| {
            let terms: Vec<TokenStream> = chunk
                .iter()
                .enumerate()
                .map(|(k, b)| {
                    let k = proc_macro2::Literal::u8_unsuffixed(k as u8);
                    quote!(((#b as u8) << #k))
                })
                .collect();
            quote!(#(#terms)|*)
        })
        .collect()
}

/// The record of one level of a chain (`<Name>Level`).
fn level_ident(spec: &Spec, id: StructId) -> proc_macro2::Ident {
    format_ident!("{}Level", camel(&spec.structure(id).name))
}

/// The accessor of field `i`.
fn accessor(spec: &Spec, id: StructId, i: usize, at: &Locate<'_>) -> TokenStream {
    let s = spec.structure(id);
    let rname = record_ident(spec, id);
    let (f, shape) = (&s.fields[i], &s.shape.fields[i]);
    let name = ident(&f.name);
    let d = doc(&field_doc(s, f));
    let how = kept(spec, id, i);
    let optional = shape.optional();
    let km = kept_member(f);
    // The value, when present, and its type.
    let (t, v) = match how {
        Kept::InPlace | Kept::Scalar => {
            let p = f.ty.scalar_prim(spec).unwrap_or(Prim::U8);
            let pt = prim_type(p);
            let start = at.start(i);
            let read = wrap_scalar(
                spec,
                &f.ty,
                quote!(crate::wire::read::<#pt>(self.bytes, #start)),
            );
            if shape.appended && shape.scalar {
                let t = scalar_ty(spec, &f.ty);
                let def = default_tokens(spec, s, f, false);
                let present = at.present(i);
                return quote! {
                    #d
                    /// Appended after the structure's first version: `Defaulted` when the data or this reader predates it (R4).
                    pub fn #name(&self) -> crate::wire::Field<#t> {
                        if #present { crate::wire::Field::Read(#read) } else { crate::wire::Field::Defaulted(#def) }
                    }
                };
            }
            (scalar_ty(spec, &f.ty), read)
        }
        Kept::Span => {
            let span = at.span(i);
            match (&f.ty, &f.count) {
                (FieldType::Utf8, _) => (
                    quote!(&'a str),
                    quote!({
                        let __b: &'a [u8] = #span;
                        // SAFETY: the parse rejects these bytes unless they are UTF-8, and a
                        // view of this structure is only made by its parse (or from its parent's record).
                        unsafe { crate::wire::validated_str(__b) }
                    }),
                ),
                (t, Some(_)) if t.scalar_prim(spec).is_some() => {
                    let p = prim_type(t.scalar_prim(spec).unwrap_or(Prim::U8));
                    (
                        quote!(crate::wire::Array<'a, #p>),
                        quote!(crate::wire::Array::new(#span)),
                    )
                }
                _ => (quote!(&'a [u8]), quote!(#span)),
            }
        }
        Kept::FixedSeq => {
            let v = view_member_ty(spec, id, i);
            let (span, abs) = (at.span(i), at.absolute(i));
            (v, quote!(crate::wire::FixedSeq::new(#span, #abs)))
        }
        Kept::Record => {
            let (span, abs) = (at.span(i), at.absolute(i));
            let (t, make) = match &f.ty {
                FieldType::Struct(t) => {
                    let v = view_ident(spec, *t);
                    (
                        quote!(#v<'a>),
                        quote!(#v { bytes: #span, offset: #abs, at: __r }),
                    )
                }
                FieldType::Dispatch { space, .. } => {
                    let v = variant_view_ident(spec, *space);
                    (quote!(#v<'a>), quote!(__r.view(#span, #abs)))
                }
                _ => (quote!(()), quote!(())),
            };
            return if optional {
                quote!(#d pub fn #name(&self) -> Option<#t> {
                    let __r = self.at.#km?;
                    Some(#make)
                })
            } else {
                quote!(#d pub fn #name(&self) -> #t {
                    let __r = self.at.#km;
                    #make
                })
            };
        }
        Kept::View | Kept::VarSeq => {
            let t = view_member_ty(spec, id, i);
            return if optional {
                quote!(#d pub fn #name(&self) -> Option<&#t> { self.at.#km.as_ref() })
            } else {
                quote!(#d pub fn #name(&self) -> &#t { &self.at.#km })
            };
        }
        Kept::Boxed => {
            let t = view_member_ty(spec, id, i);
            return if optional {
                quote!(#d pub fn #name(&self) -> Option<&#t> { self.at.#km.as_deref() })
            } else {
                quote!(#d pub fn #name(&self) -> &#t { &self.at.#km })
            };
        }
        Kept::Seq => {
            let inner = seq_item_ty(spec, f);
            return if optional {
                quote!(#d pub fn #name(&self) -> Option<&[#inner]> { self.at.#km.as_deref() })
            } else {
                quote!(#d pub fn #name(&self) -> &[#inner] { &self.at.#km })
            };
        }
        Kept::Levels => {
            // The next level starts where this one says; where its own fields start follows
            // from its bytes and the params (`locate`).
            let v = view_ident(spec, id);
            let args: Vec<_> = s.params.iter().map(|p| param_local(p)).collect();
            let (span, abs, present) = (at.span(i), at.absolute(i), at.present(i));
            return quote! {
                #d
                /// The next level, which the enclosing parse read and checked.
                pub fn #name(&self) -> Option<#v<'a>> {
                    if !#present {
                        return None;
                    }
                    let bytes: &'a [u8] = #span;
                    #(let #args = self.at.#args;)*
                    Some(#v { bytes, offset: #abs, at: #rname { own: #v::locate(bytes #(, #args)*), #(#args,)* } })
                }
            };
        }
    };
    if optional {
        let present = at.present(i);
        quote!(#d pub fn #name(&self) -> Option<#t> { if #present { Some(#v) } else { None } })
    } else {
        quote!(#d pub fn #name(&self) -> #t { #v })
    }
}

/// The view type of one entry of a sequence field.
fn seq_item_ty(spec: &Spec, f: &Field) -> TokenStream {
    match &f.ty {
        FieldType::Struct(t) => {
            let v = view_ident(spec, *t);
            quote!(#v<'a>)
        }
        FieldType::Dispatch { space, .. } => {
            let v = variant_view_ident(spec, *space);
            quote!(#v<'a>)
        }
        _ => quote!(()),
    }
}

/// The type a view keeps or returns for field `i` of `id` (without `Option`).
fn view_member_ty(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let f = &spec.structure(id).fields[i];
    if kept(spec, id, i) == Kept::VarSeq {
        let item = seq_item_ty(spec, f);
        return quote!(crate::seq::VarSeq<'a, #item>);
    }
    match (&f.ty, &f.count) {
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

/// Expression converting field `i` of a view (`self`) to its owned form, through its accessor.
fn owned_conv(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let (f, shape) = (&s.fields[i], &s.shape.fields[i]);
    let name = ident(&f.name);
    let optional = shape.optional();
    if shape.in_place {
        return quote!(self.#name());
    }
    if shape.appended && shape.scalar {
        return quote!(match self.#name() {
            crate::wire::Field::Read(v) => Some(v),
            crate::wire::Field::Defaulted(_) => None,
        });
    }
    let one = |v: TokenStream| -> TokenStream {
        match (&f.ty, &f.count) {
            (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => v,
            (t, Some(_)) if t.scalar_prim(spec).is_some() => quote!(#v.to_vec()),
            (FieldType::Bytes, _) => quote!(#v.to_vec()),
            (FieldType::Utf8, _) => quote!(#v.to_string()),
            (FieldType::Struct(_), None) if shape.recursive => quote!(Box::new(#v.owned())),
            (FieldType::Struct(_), None) | (FieldType::Dispatch { .. }, None) => quote!(#v.owned()),
            (FieldType::Struct(_), Some(_)) | (FieldType::Dispatch { .. }, Some(_)) => {
                quote!(#v.iter().map(|x| x.owned()).collect())
            }
            _ => v,
        }
    };
    if optional {
        let inner = one(quote!(v));
        quote!(self.#name().map(|v| #inner))
    } else {
        one(quote!(self.#name()))
    }
}
