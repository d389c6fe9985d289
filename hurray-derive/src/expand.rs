//! Emission, after validation: offsets and sizes as constant expressions over the field types'
//! `WireField::SIZE` (the macro never guesses a size from a type's name), the `Section`
//! implementation, a borrowed view, and const assertions for what only the compiler knows.

use heck::ToShoutySnakeCase;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ast::{Section, Version};

fn version(v: Version) -> TokenStream {
    let (a, b) = (
        Literal::u8_unsuffixed(v.major),
        Literal::u8_unsuffixed(v.minor),
    );
    quote!(__h::Version::new(#a, #b))
}

/// The runtime crate's path: `#[hurray(crate = "…")]`, else its name in the user's manifest
/// (a renamed dependency works), else `::hurray_runtime`.
pub fn krate(s: &Section) -> TokenStream {
    if let Some(p) = &s.krate {
        return quote!(#p);
    }
    match proc_macro_crate::crate_name("hurray-runtime") {
        Ok(proc_macro_crate::FoundCrate::Itself) => quote!(crate),
        Ok(proc_macro_crate::FoundCrate::Name(n)) => {
            let i = format_ident!("{}", n);
            quote!(::#i)
        }
        Err(_) => quote!(::hurray_runtime),
    }
}

/// The impls and constants of section `s`; `own_prefix` is the field holding the section's own
/// length prefix (from the spec, or `#[hurray(length_prefix)]`), which the writer computes.
pub fn expand(s: &Section, spec_checks: TokenStream, own_prefix: Option<usize>) -> TokenStream {
    let rt = krate(s);
    let ident = &s.ident;
    let vis = &s.vis;
    let view = format_ident!("{}View", ident);
    let base = s.base;
    let base_t = version(base);
    let prefixed = s.length_prefixed;

    let offs: Vec<_> = s
        .fields
        .iter()
        .map(|f| format_ident!("OFFSET_{}", f.ident.to_string().to_shouty_snake_case()))
        .collect();
    let tys: Vec<_> = s.fields.iter().map(|f| &f.ty).collect();
    let names: Vec<_> = s.fields.iter().map(|f| &f.ident).collect();
    let name_strs: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let sinces: Vec<Version> = s.fields.iter().map(|f| f.since(base)).collect();

    // Offsets: each field ends where the next begins.
    let mut offset_consts = Vec::new();
    for (i, o) in offs.iter().enumerate() {
        let doc = format!(" Byte offset of `{}`.", name_strs[i]);
        let e = if i == 0 {
            quote!(0)
        } else {
            let (po, pt) = (&offs[i - 1], tys[i - 1]);
            quote!(Self::#po + <#pt as __h::WireField>::SIZE)
        };
        offset_consts.push(quote!(#[doc = #doc] pub const #o: usize = #e;));
    }
    let (last_o, last_t) = (offs.last(), tys.last());
    let size = quote!(Self::#last_o + <#last_t as __h::WireField>::SIZE);

    // Versions: the size after the last field of each version.
    let mut versions: Vec<Version> = sinces.clone();
    versions.sort();
    versions.dedup();
    let version_entries: Vec<_> = versions
        .iter()
        .map(|v| {
            let i = sinces.iter().rposition(|x| x <= v).unwrap_or(0);
            let (o, t) = (&offs[i], tys[i]);
            let vt = version(*v);
            quote!((#vt, #ident::#o + <#t as __h::WireField>::SIZE))
        })
        .collect();

    // Explicit offsets: checked by the compiler.
    let mut asserts = Vec::new();
    for (i, f) in s.fields.iter().enumerate() {
        if let Some((at, _)) = f.offset {
            let o = &offs[i];
            let msg = format!(
                "field `{}`: its #[hurray(offset = {at})] disagrees with the layout: the fields before it end at another offset (they overlap it or leave a gap)",
                name_strs[i]
            );
            let at = Literal::usize_unsuffixed(at as usize);
            asserts.push(quote!(
                const _: () = assert!(#ident::#o == #at, #msg);
            ));
        }
    }
    // Defaults (S4): each documented default is a constant of the field's own type, so a
    // default of another type is reported once, at the default itself.
    let mut defaults = Vec::new();
    let mut default_consts = Vec::new();
    for (i, f) in s.fields.iter().enumerate() {
        let t = tys[i];
        let e = match &f.default {
            Some(d) => {
                let c = format_ident!("DEFAULT_{}", name_strs[i].to_shouty_snake_case());
                let doc = format!(
                    " The documented default of `{}` (S4): what readers of data older than {} see (R4).",
                    name_strs[i], sinces[i]
                );
                default_consts.push(quote!(#[doc = #doc] pub const #c: #t = #d;));
                quote!(#ident::#c)
            }
            None => {
                quote!(<#t as __h::WireField>::read_le(&[0u8; <#t as __h::WireField>::SIZE]))
            }
        };
        defaults.push(e);
    }

    let acting = quote!(if data < reader { data } else { reader });
    let mut reads = Vec::new();
    let mut view_accessors = Vec::new();
    for (i, f) in s.fields.iter().enumerate() {
        let (n, o, t, d) = (&names[i], &offs[i], tys[i], &defaults[i]);
        let sv = version(sinces[i]);
        let ns = &name_strs[i];
        let read_one = quote!(<#t as __h::WireField>::read_le(&bytes[#ident::#o..#ident::#o + <#t as __h::WireField>::SIZE]));
        if sinces[i] > base {
            reads.push(quote! {
                let #n: #t = if #sv <= acting && #ident::#o + <#t as __h::WireField>::SIZE <= known {
                    #read_one
                } else {
                    defaulted.push(#ns);
                    #d
                };
            });
            let doc = format!(
                " `{ns}`, added in {}: `Defaulted` when the data or the reader predates it (R4).",
                sinces[i]
            );
            view_accessors.push(quote! {
                #[doc = #doc]
                pub fn #n(&self) -> __h::Field<#t> {
                    let bytes = self.bytes;
                    if #sv <= self.acting && #ident::#o + <#t as __h::WireField>::SIZE <= bytes.len() {
                        __h::Field::Read(#read_one)
                    } else {
                        __h::Field::Defaulted(#d)
                    }
                }
            });
        } else {
            let check = if f.reserved {
                quote! {
                    if !<#t as __h::WireField>::is_zero(&#n) {
                        return Err(__h::Error::new(__h::Rule::Sec1, #ident::#o as u64, format!("reserved field `{}` of `{}` is not zero", #ns, stringify!(#ident))));
                    }
                }
            } else {
                quote!()
            };
            reads.push(quote!(let #n: #t = #read_one; #check));
            if !f.reserved {
                let doc = format!(" `{ns}`, at a fixed offset.");
                view_accessors.push(quote! {
                    #[doc = #doc]
                    pub fn #n(&self) -> #t {
                        let bytes = self.bytes;
                        #read_one
                    }
                });
            }
        }
    }
    // Writing: whole fields up to the version (W4); reserved fields as zero.
    let writes: Vec<_> = s
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (n, t) = (&names[i], tys[i]);
            let sv = version(sinces[i]);
            let d = &defaults[i];
            if f.reserved {
                quote!(if #sv <= v { <#t as __h::WireField>::write_le(&(#d), out); })
            } else if own_prefix == Some(i) {
                // The section's own length prefix: what the fields known at `v` encode to,
                // whatever the value holds.
                quote!(if #sv <= v {
                    let __len: #t = __h::length_prefix(<#ident as __h::Section>::size_at(v));
                    <#t as __h::WireField>::write_le(&__len, out);
                })
            } else {
                let _: &_ = t;
                quote!(if #sv <= v { <#t as __h::WireField>::write_le(&self.#n, out); })
            }
        })
        .collect();
    let required: Vec<_> = s
        .fields
        .iter()
        .enumerate()
        .filter(|(i, f)| sinces[*i] > base && !f.reserved)
        .map(|(i, _)| {
            let (n, t, d) = (&names[i], tys[i], &defaults[i]);
            let sv = version(sinces[i]);
            quote!(if __h::differs(&self.#n, &#d, <#t as __h::WireField>::write_le) && need < #sv { need = #sv; })
        })
        .collect();
    let fixed_wire = if prefixed {
        quote!()
    } else {
        quote! {
            impl __h::WireField for #ident {
                const SIZE: usize = #size;
                fn read_le(bytes: &[u8]) -> Self {
                    #(let #names: #tys = <#tys as __h::WireField>::read_le(&bytes[#ident::#offs..#ident::#offs + <#tys as __h::WireField>::SIZE]);)*
                    #ident { #(#names,)* }
                }
                fn write_le(&self, out: &mut Vec<u8>) {
                    #(<#tys as __h::WireField>::write_le(&self.#names, out);)*
                }
            }
        }
    };
    let view_doc =
        format!(" A borrowed view of a `{ident}` section: fixed-offset accessors, no allocation.");
    quote! {
        #[doc = #view_doc]
        #[derive(Clone, Copy, Debug)]
        #vis struct #view<'a> {
            bytes: &'a [u8],
            acting: #rt::__private::Version,
            skipped: usize,
        }

        const _: () = {
            use #rt::__private as __h;

            #[allow(dead_code)]
            impl #ident {
                #(#offset_consts)*
                #(#default_consts)*
                /// Encoded size at the newest version.
                pub const SIZE: usize = #size;
            }

            #(#asserts)*
            #spec_checks

            impl __h::Section for #ident {
                const BASE: __h::Version = #base_t;
                const LENGTH_PREFIXED: bool = #prefixed;
                const VERSIONS: &'static [(__h::Version, usize)] = &[#(#version_entries),*];
                const FIELDS: &'static [&'static str] = &[#(#name_strs),*];

                fn read(bytes: &[u8], data: __h::Version, reader: __h::Version) -> Result<__h::Decoded<Self>, __h::Error> {
                    if data < #base_t {
                        return Err(__h::Error::new(__h::Rule::Sec2, 0, format!("{} data at version {} predates the section's base {}", stringify!(#ident), data, #base_t)));
                    }
                    let at_data = <Self as __h::Section>::size_at(data);
                    let at_reader = <Self as __h::Section>::size_at(reader);
                    let known = __h::known_length(bytes.len(), data, reader, at_data, at_reader, #prefixed)?;
                    let acting = #acting;
                    let mut defaulted: Vec<&'static str> = Vec::new();
                    #(#reads)*
                    Ok(__h::Decoded { value: #ident { #(#names,)* }, defaulted, skipped: bytes.len() - known })
                }

                fn required_version(&self) -> __h::Version {
                    let mut need = #base_t;
                    #(#required)*
                    need
                }

                fn write_at(&self, v: __h::Version, out: &mut Vec<u8>) {
                    #(#writes)*
                }
            }

            #fixed_wire

            impl<'a> #view<'a> {
                /// A view over the section's bytes, written at `data` and read at `reader`.
                pub fn new(bytes: &'a [u8], data: __h::Version, reader: __h::Version) -> Result<Self, __h::Error> {
                    // Reading checks lengths and reserved fields; the view then reads lazily.
                    let d = <#ident as __h::Section>::read(bytes, data, reader)?;
                    let known = bytes.len() - d.skipped;
                    Ok(#view { bytes: &bytes[..known], acting: #acting, skipped: d.skipped })
                }
                /// Bytes from a newer version this reader skipped (CD2).
                pub fn skipped(&self) -> usize {
                    self.skipped
                }
                #(#view_accessors)*
            }
        };
    }
}
