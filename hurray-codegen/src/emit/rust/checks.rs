//! The table checks of a field (`check` in structures/*.toml), run right after the field is
//! read: each a predicate over the value and the rule it enforces, rejecting or warning.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::common::*;
use crate::model::*;

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
                let p2 = param_local(p);
                (quote!((#p2 as i128)), p.clone())
            }
            Operand::Field(i) => {
                let f = &s.fields[*i];
                let fi = value_local(f);
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
