//! The table checks of a field (`check` in structures/*.toml), run right after the field is
//! read: each a predicate over the value and the rule it enforces, rejecting or warning.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::common::*;
use crate::model::*;
use crate::render::{self, Style};

/// Table checks of one field, right after it is parsed.
pub fn checks(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let f = &s.fields[i];
    let fi = value_local(f);
    let oi = offset_local(f);
    let name = f.name.as_str();
    let mut out = TokenStream::new();
    let optional = s.shape.fields[i].optional();
    for c in &f.checks {
        let rule = rule_path(spec, c.rule);
        let when = match &c.when {
            Some(w) => condition_expr(spec, w, false),
            None => quote!(true),
        };
        // The message is rendered only when the check fails and its finding is kept.
        let report = |msg: TokenStream| match c.level {
            CheckLevel::Reject => quote!(ctx.violation(#rule, __at, #msg)?;),
            CheckLevel::Warn => quote!(ctx.warn(#rule, __at, #msg);),
        };
        let body = match &c.kind {
            CheckKind::Equals(Lit::Int(0)) if f.ty == FieldType::Bytes => {
                let report = report(quote!(
                    format_args!("reserved bytes {} are {:02x?}, not zero", #name, v)
                ));
                quote! {
                    if #when && let Some(__i) = v.iter().position(|b| *b != 0) {
                        let __at = #oi + __i as u64;
                        #report
                    }
                }
            }
            CheckKind::Bytes(b) => {
                let bl: Vec<_> = b.iter().map(|x| Literal::u8_unsuffixed(*x)).collect();
                let hex = crate::render::hex(b);
                let report = report(quote!(
                    format_args!("{} is {:02x?}, not {}", #name, v, #hex)
                ));
                quote! {
                    if #when && v != [#(#bl),*] {
                        let __at = #oi;
                        #report
                    }
                }
            }
            kind => {
                let prim = f.ty.scalar_prim(spec).unwrap_or(Prim::U64);
                let x = quote!(__x);
                let n = numeric(&f.ty, prim, x.clone());
                let pred = predicate(spec, s, kind, prim, &n);
                let expect = render::check_kind(s, kind, Style::Message);
                let report = report(quote!(format_args!("{} = {:?} {}", #name, #x, #expect)));
                let single = quote! {
                    if #when && !(#pred) {
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

/// The predicate a check states over `n` (the value, as i128 or f64).
fn predicate(
    spec: &Spec,
    s: &Structure,
    kind: &CheckKind,
    prim: Prim,
    n: &TokenStream,
) -> TokenStream {
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
    let operand = |o: &Operand| -> TokenStream {
        match o {
            Operand::Param(p) => {
                let p = param_local(p);
                quote!((#p as i128))
            }
            Operand::Field(i) => {
                let f = &s.fields[*i];
                let local = value_local(f);
                let prim = f.ty.scalar_prim(spec).unwrap_or(Prim::U64);
                numeric(&f.ty, prim, quote!(#local))
            }
        }
    };
    match kind {
        CheckKind::Equals(l) => {
            let v = lit(l);
            quote!(#n == #v)
        }
        CheckKind::NotEquals(l) => {
            let v = lit(l);
            quote!(#n != #v)
        }
        CheckKind::Min(l) => {
            let v = lit(l);
            quote!(#n >= #v)
        }
        CheckKind::Max(l) => {
            let v = lit(l);
            quote!(#n <= #v)
        }
        CheckKind::Range(a, b) => {
            let (a, b) = (lit(a), lit(b));
            quote!(#n >= #a && #n <= #b)
        }
        CheckKind::OneOf(values) => {
            let values: Vec<_> = values
                .iter()
                .map(|v| Literal::i128_unsuffixed(*v))
                .collect();
            quote!([#(#values),*].contains(&#n))
        }
        CheckKind::PowerOfTwo => quote!(#n > 0 && (#n & (#n - 1)) == 0),
        CheckKind::MultipleOf(m) => {
            let m = Literal::i128_unsuffixed(*m as i128);
            quote!(#n % #m == 0)
        }
        CheckKind::LessThan(o) => {
            let e = operand(o);
            quote!(#n < #e)
        }
        CheckKind::SameAs(o) => {
            let e = operand(o);
            quote!(#n == #e)
        }
        CheckKind::Finite => quote!(#n.is_finite()),
        CheckKind::NonZero if prim.is_float() => quote!(#n != 0.0),
        CheckKind::NonZero => quote!(#n != 0),
        // Byte runs are compared whole, not through a numeric predicate.
        CheckKind::Bytes(_) => quote!(true),
    }
}
