//! The value tree of every owned form (`to_value`, `from_value`): fields by their spec names,
//! defaults marked (R4), skipped bytes kept, tags read by name or number.

use proc_macro2::TokenStream;
use quote::quote;

use super::common::*;
use crate::model::*;

/// The statement that adds field `i` of `id` to `to_value`'s list, by its spec name: a value
/// read, a documented default marked as defaulted (R4), or null for an absent part.
pub fn field_to_value(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let (f, shape) = (&s.fields[i], &s.shape.fields[i]);
    let name = ident(&f.name);
    let key = f.name.as_str();
    let tv = to_value_expr(spec, f, quote!(__v));
    if shape.appended && shape.scalar {
        let def = default_tokens(spec, s, f, true);
        quote!(out.push((#key.to_string(), match &self.#name {
            Some(__v) => #tv,
            None => { let __d = #def; let __v = &__d; crate::value::Value::Defaulted(Box::new(#tv)) }
        }));)
    } else if shape.optional() {
        quote!(out.push((#key.to_string(), match &self.#name { Some(__v) => #tv, None => crate::value::Value::Null }));)
    } else {
        quote!({ let __v = &self.#name; out.push((#key.to_string(), #tv)); })
    }
}

/// The statement of `from_value` that reads field `i` of `id` into its local.
pub fn field_from_value(spec: &Spec, id: StructId, i: usize) -> TokenStream {
    let s = spec.structure(id);
    let (f, shape) = (&s.fields[i], &s.shape.fields[i]);
    let fi = value_local(f);
    let key = f.name.as_str();
    let fv = from_value_expr(spec, f, quote!(__x), quote!(&__p));
    let fv = if shape.recursive {
        quote!(Box::new(#fv))
    } else {
        fv
    };
    if shape.optional() {
        quote!(let #fi = match crate::value::de::opt(v, #key) { Some(__x) => { let __p = format!("{}.{}", path, #key); Some(#fv) } None => None };)
    } else {
        quote!(let #fi = { let __x = crate::value::de::field(v, path, #key)?; let __p = format!("{}.{}", path, #key); #fv };)
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

fn to_value_expr(spec: &Spec, f: &Field, v: TokenStream) -> TokenStream {
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
fn from_value_expr(spec: &Spec, f: &Field, x: TokenStream, path: TokenStream) -> TokenStream {
    let scalar = |ty: &FieldType, x: TokenStream| -> TokenStream {
        match ty {
            FieldType::Prim(Prim::F32) => quote!(crate::value::de::f32(#x, #path)?),
            FieldType::Prim(Prim::F64) => quote!(crate::value::de::f64(#x, #path)?),
            FieldType::Prim(p) => {
                let t = prim_type(*p);
                quote!(crate::value::de::int::<#t>(#x, #path)?)
            }
            FieldType::Tag(_) => quote!(crate::value::de::tag(#x, #path)?),
            FieldType::Flags(set) => {
                let t = flags_type(spec, *set);
                let p = prim_type(spec.flag_set(*set).width.prim());
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
                        let pf = spec.resolve(tp);
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
        _ => quote!(()),
    }
}
