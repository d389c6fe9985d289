//! The owned form of every structure: a plain struct with every field the data can carry,
//! its constructor, the flag bits kept in step with optional parts, the writer rules on
//! appended fields (W4's defaults, W1/W2's lowest version), and its encoding; the value tree
//! conversions come from `values`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::common::*;
use super::values::{field_from_value, field_to_value};
use crate::model::*;

pub fn owned(spec: &Spec, id: StructId) -> TokenStream {
    let s = spec.structure(id);
    let shapes = &s.shape.fields;
    let oname = owned_ident(spec, id);
    let title = format!(" {} (`{}`): an owned value.", doc_escape(&s.title), s.name);
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

    // The encoding's length, summed field by field as `encode` writes them.
    let mut length = Vec::new();

    for (i, f) in s.fields.iter().enumerate() {
        let name = ident(&f.name);
        let fi = value_local(f);
        let d = doc(&field_doc(s, f));
        if f.reserved {
            let size = f.size.as_ref().and_then(Affine::as_constant).unwrap_or(0) as u64;
            let l = lit_usize(size);
            encode.extend(quote!(out.extend_from_slice(&[0u8; #l]);));
            length.push(quote!(#l));
            continue;
        }
        let shape = &shapes[i];
        if let Some(j) = shape.gives_size_of {
            // A count or length the owned form derives from a later field.
            let prim = f.ty.scalar_prim(spec).unwrap_or(Prim::U32);
            let p = prim_type(prim);
            let later = &s.fields[j];
            let ln = ident(&later.name);
            let len = if shapes[j].sized_by.map(|b| b.field) == Some(i) {
                // An enclosed length prefix: the byte length of the later field's encoding.
                encoded_len(spec, later, quote!(self.#ln))
            } else if later.presence != Presence::Always {
                quote!(self.#ln.as_ref().map_or(0, |x| x.len()))
            } else {
                quote!(self.#ln.len())
            };
            let size = lit_usize(prim.size() as u64);
            if f.presence != Presence::Always && later.presence != Presence::Always {
                // A conditional count is present exactly with the field it counts (the same
                // condition): written when that field is.
                encode.extend(
                    quote!(if self.#ln.is_some() { crate::wire::Scalar::put(#len as #p, out); }),
                );
                length.push(quote!(if self.#ln.is_some() { #size } else { 0 }));
            } else {
                encode.extend(quote!(crate::wire::Scalar::put(#len as #p, out);));
                length.push(quote!(#size));
            }
            continue;
        }
        let optional = shape.optional();
        let base = owned_member_ty(spec, f);
        let base = if shape.recursive {
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
        let axis_tokens = axis_path(spec, s.axis);
        if shape.appended && shape.scalar && !shape.conditional {
            let def = default_tokens(spec, s, f, true);
            fill.push(quote!(if axis == #axis_tokens && #since <= v && self.#name.is_none() { self.#name = Some(#def); }));
        }
        // W1/W2: an appended field that is present needs the version that appended it.
        if shape.appended {
            need.push(quote!(if axis == #axis_tokens && self.#name.is_some() && v < #since { v = #since; }));
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
        if shape.appended && shape.scalar {
            let later: Vec<_> = s.fields[i + 1..]
                .iter()
                .zip(&shapes[i + 1..])
                .filter(|(g, g_shape)| g_shape.appended && !g.reserved)
                .map(|(g, _)| ident(&g.name))
                .collect();
            let def = default_tokens(spec, s, f, true);
            let enc = encode_field(spec, f, quote!(__v));
            let len = encoded_len(spec, f, quote!(__v));
            encode.extend(quote! {
                // W4: an appended field is written whole, and also when a later one is.
                if self.#name.is_some() #(|| self.#later.is_some())* {
                    let __v = self.#name.unwrap_or(#def);
                    #enc
                }
            });
            length.push(
                quote!(if self.#name.is_some() #(|| self.#later.is_some())* { #len } else { 0 }),
            );
        } else if optional {
            let enc = encode_field(spec, f, quote!(__v));
            let len = encoded_len(spec, f, quote!(__v));
            encode.extend(quote!(if let Some(__v) = &self.#name { let __v = __v; #enc }));
            length.push(quote!(match &self.#name { Some(__v) => #len, None => 0 }));
        } else {
            let enc = encode_field(spec, f, quote!(self.#name));
            encode.extend(enc);
            length.push(encoded_len(spec, f, quote!(self.#name)));
        }
        to_value.push(field_to_value(spec, id, i));
        from_value.extend(field_from_value(spec, id, i));
    }
    // Flag bits that gate this structure's optional fields, kept in step with presence.
    let mut sync = Vec::new();
    let mut gates = Vec::new();
    for f in &s.fields {
        if let Presence::If(Condition::HasBit(path, _, bit)) = &f.presence {
            if path.root != id || !matches!(spec.resolve(path).ty, FieldType::Flags(_)) {
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
            let (spec_name, bit_index) = (f.name.as_str(), Literal::u32_unsuffixed(*bit));
            gates.push(quote!((#spec_name, #bit_index)));
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
        length.push(quote!(self.skipped.len()));
        to_value.push(quote!(if !self.skipped.is_empty() {
            out.push((
                "skipped".to_string(),
                crate::value::Value::Skipped(self.skipped.clone()),
            ));
        }));
    }
    // Every structure nested in this one computes its own prefix first (their lengths do
    // not depend on their prefixes' values); then this one's, from its whole encoding.
    let mut sync_prefixes: Vec<TokenStream> = s
        .fields
        .iter()
        .enumerate()
        .filter(|(i, _)| s.carried(*i))
        .filter_map(|(i, f)| {
            nested(
                f,
                shapes[i].optional(),
                &ident(&f.name),
                true,
                quote!(x.sync_length_prefixes()?;),
            )
        })
        .collect();
    let mut prefix_placeholder = quote!();
    let mut finish = quote!(Ok(#oname { #(#ctor)* }));
    if let Some(p) = own_prefix(spec, id) {
        let place = &p.place;
        let ty = prim_type(p.prim);
        let keys = &p.keys;
        let key_path = p.keys.join(".");
        let rule = rule_path(spec, p.rule);
        let title = s.title.as_str();
        let width = p.prim.name();
        sync_prefixes.push(quote! {
            let __len = self.encoded_len();
            self.#(#place).* = <#ty>::try_from(__len).map_err(|_| crate::error::Error::fmt(#rule, 0, format_args!("the {} encodes to {} bytes, more than its {} length prefix holds", #title, __len, #width)))?;
        });
        // `from_value`: a value without its own length prefix has it computed (the field
        // reads as 0 until the structure is whole, then takes the encoded length).
        prefix_placeholder = quote! {
            let __with_prefix = crate::value::de::placeholder(v, &[#(#keys),*]);
            let __computed_prefix = __with_prefix.is_some();
            let v: &crate::value::Value = __with_prefix.as_ref().unwrap_or(v);
        };
        finish = quote! {
            let mut __out = #oname { #(#ctor)* };
            if __computed_prefix {
                let __len = __out.encoded_len();
                __out.#(#place).* = <#ty>::try_from(__len).map_err(|_| crate::value::ValueError::new(&format!("{}.{}", path, #key_path), format!("the {} encodes to {} bytes, more than its {} length prefix holds", #title, __len, #width)))?;
            }
            Ok(__out)
        };
    }
    // The spec names of the fields present only when their condition holds (flag-gated
    // sections), in wire order.
    let conditional: Vec<&str> = s
        .fields
        .iter()
        .zip(shapes)
        .filter(|(f, shape)| shape.conditional && !f.reserved)
        .map(|(f, _)| f.name.as_str())
        .collect();
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

            /// The spec names of the fields present only when a condition on earlier fields
            /// holds (a flag-gated section), in wire order.
            pub const CONDITIONAL_FIELDS: &'static [&'static str] = &[#(#conditional),*];

            /// Each optional field a bit of this structure's own flag field gates: its spec
            /// name and the bit's index (a reader reads the field exactly when the bit is set).
            pub const PRESENCE_BITS: &'static [(&'static str, u32)] = &[#(#gates),*];

            /// Set every length prefix a structure holds of itself (its framing's own field)
            /// to its encoded length, here and in every nested structure (a writer's duty:
            /// [`crate::writer::normalize`] calls it). A length its prefix's width cannot
            /// hold breaks the framing's rule.
            #[allow(clippy::unnecessary_fallible_conversions, clippy::useless_conversion)]
            pub fn sync_length_prefixes(&mut self) -> Result<(), crate::error::Error> {
                #(#sync_prefixes)*
                Ok(())
            }

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

            /// The length in bytes of the encoding.
            #[allow(clippy::identity_op)]
            pub fn encoded_len(&self) -> usize {
                0 #(+ #length)*
            }

            /// The encoding as a new vector, allocated once at its length.
            pub fn to_bytes(&self) -> Vec<u8> {
                let len = self.encoded_len();
                let mut out = Vec::with_capacity(len);
                self.encode(&mut out);
                debug_assert_eq!(out.len(), len, "encoded_len is the encoding's length");
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
                #prefix_placeholder
                #from_value
                #finish
            }
        }
    }
}

/// A structure's own length prefix as the owned form holds it: the members from `self` down
/// to the prefix field (`fixed_header.descriptor_length`), their spec names (the value tree's
/// keys), the field's primitive type and the framing's rule. `None` when the structure has no
/// prefix of its own, or when the way to it passes through a part that may be absent or
/// repeats (then nothing is computed).
struct OwnPrefix {
    place: Vec<proc_macro2::Ident>,
    keys: Vec<String>,
    prim: Prim,
    rule: RuleId,
}

fn own_prefix(spec: &Spec, id: StructId) -> Option<OwnPrefix> {
    let steps = spec.own_prefix(id)?;
    let Framing::LengthPrefixed { rule, .. } = spec.structure(id).framing else {
        return None;
    };
    let mut place = Vec::new();
    let mut keys = Vec::new();
    for &(sid, i) in &steps {
        let st = spec.structure(sid);
        let (f, shape) = (&st.fields[i], &st.shape.fields[i]);
        if f.reserved
            || f.count.is_some()
            || shape.optional()
            || shape.recursive
            || shape.gives_size_of.is_some()
        {
            return None;
        }
        place.push(ident(&f.name));
        keys.push(f.name.clone());
    }
    let &(sid, i) = steps.last()?;
    let FieldType::Prim(prim) = spec.structure(sid).fields[i].ty else {
        return None;
    };
    (prim.is_int() && !prim.is_signed()).then_some(OwnPrefix {
        place,
        keys,
        prim,
        rule,
    })
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

fn owned_member_ty(spec: &Spec, f: &Field) -> TokenStream {
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

/// The length in bytes of one field's value `v` as `encode_field` writes it.
fn encoded_len(spec: &Spec, f: &Field, v: TokenStream) -> TokenStream {
    match (&f.ty, &f.count) {
        (FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_), None) => {
            let size = lit_usize(f.ty.scalar_prim(spec).map_or(0, |p| p.size() as u64));
            quote!(#size)
        }
        (t, Some(_)) if t.scalar_prim(spec).is_some() => {
            let size = lit_usize(t.scalar_prim(spec).map_or(0, |p| p.size() as u64));
            quote!((#v).len() * #size)
        }
        (FieldType::Bytes | FieldType::Utf8, _) => quote!((#v).len()),
        (FieldType::Struct(_), None) | (FieldType::Dispatch { .. }, None) => {
            quote!((#v).encoded_len())
        }
        (FieldType::Struct(_), Some(_)) | (FieldType::Dispatch { .. }, Some(_)) => {
            quote!((#v).iter().map(|__e| __e.encoded_len()).sum::<usize>())
        }
        _ => quote!(0),
    }
}

/// Statements appending one field's value `v` to `out`.
fn encode_field(spec: &Spec, f: &Field, v: TokenStream) -> TokenStream {
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

#[cfg(test)]
mod tests {
    /// The repository's spec amended by a new flag-gated descriptor section framed by its own
    /// first field, as a spec editor adds one (through the overlay machinery the fixtures use).
    fn self_prefixed() -> crate::Loaded {
        let root = crate::manifest_dir().join("../spec");
        let work = std::env::temp_dir().join(format!("hurray-own-prefix-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        // The amendment fixture a spec editor's new self-prefixed section is tested by.
        let edit = crate::manifest_dir()
            .join("../tests/fixtures/amendments/new-self-prefixed-section/edit.toml");
        let m = crate::overlay::materialize(&root, &edit, &work).unwrap();
        let loaded = crate::load(&m.tree).unwrap();
        std::fs::remove_dir_all(&work).unwrap();
        loaded
    }

    #[test]
    fn an_own_length_prefix_is_computed_by_the_owned_form() {
        let loaded = self_prefixed();
        let spec = loaded.clean().expect("the amended spec is clean");
        let id = spec.structure_id("x_provenance").unwrap();
        let steps = spec.own_prefix(id).expect("x_length is its own prefix");
        assert_eq!(steps, vec![(id, 0)]);
        // The descriptor's prefix is a field of the structure its first field holds.
        // The structure the overlay appends the section to (the descriptor).
        let d = spec
            .structures
            .iter()
            .position(|s| s.fields.iter().any(|f| f.name == "x_provenance"))
            .map(|i| crate::model::StructId(i as u32))
            .unwrap();
        assert_eq!(spec.own_prefix(d).map(|s| s.len()), Some(2));
        let code = super::owned(spec, id).to_string().replace(' ', "");
        // `sync_length_prefixes` and a `from_value` without the prefix both compute it.
        assert!(
            code.contains("self.x_length=<u32>::try_from(__len)"),
            "{code}"
        );
        assert!(
            code.contains("crate::value::de::placeholder(v,&[\"x_length\"])"),
            "{code}"
        );
        assert!(
            code.contains("__out.x_length=<u32>::try_from(__len)"),
            "{code}"
        );
        // The descriptor lists the new section among its conditional fields and syncs it.
        let code = super::owned(spec, d).to_string().replace(' ', "");
        assert!(code.contains("\"x_provenance\"]"), "{code}");
        assert!(code.contains("(\"x_provenance\","), "{code}");
        assert!(
            code.contains("ifletSome(x)=&mutself.x_provenance{x.sync_length_prefixes()?;}"),
            "{code}"
        );
    }
}
