//! Axes, rules, tag spaces, flag sets and constants.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::common::*;
use crate::model::*;
use crate::render::{self, Style};

pub fn axes(spec: &Spec) -> TokenStream {
    let variants: Vec<_> = spec.axes.iter().map(|a| axis_variant(&a.name)).collect();
    let docs: Vec<_> = spec.axes.iter().map(|a| doc(&a.title)).collect();
    let names: Vec<_> = spec.axes.iter().map(|a| a.name.as_str()).collect();
    let indices: Vec<_> = (0..spec.axes.len())
        .map(Literal::usize_unsuffixed)
        .collect();
    let currents: Vec<_> = spec
        .axes
        .iter()
        .map(|a| version_tokens(a.current))
        .collect();
    let initials: Vec<_> = spec
        .axes
        .iter()
        .map(|a| version_tokens(a.initial))
        .collect();
    let styles: Vec<_> = spec
        .axes
        .iter()
        .map(|a| match a.style {
            AxisStyle::MajorMinor => quote!(crate::version::AxisStyle::MajorMinor),
            AxisStyle::Scheme => quote!(crate::version::AxisStyle::Scheme),
            AxisStyle::Negotiated => quote!(crate::version::AxisStyle::Negotiated),
        })
        .collect();
    let majors: Vec<_> = spec
        .axes
        .iter()
        .map(|a| match a.reject {
            Some((hi, lo)) => {
                let (hi, lo) = (rule_path(spec, hi), rule_path(spec, lo));
                quote!(Some((#hi, #lo)))
            }
            None => quote!(None),
        })
        .collect();
    // The names of the fields that carry each axis's version (the last step of its `major`
    // and `minor` paths): the keys a structure's value tree gives them.
    let version_fields: Vec<_> = spec
        .axes
        .iter()
        .map(|a| {
            let major = match &a.major {
                Some(p) => {
                    let n = spec.resolve(p).name.as_str();
                    quote!(Some(#n))
                }
                None => quote!(None),
            };
            let minor = spec.resolve(&a.minor).name.as_str();
            quote!((#major, #minor))
        })
        .collect();
    let scheme_arms: Vec<_> = spec
        .axes
        .iter()
        .filter_map(|a| {
            let scheme = a.scheme.as_ref()?;
            let tag_space = spec.space(spec.roles.scheme);
            let value = Literal::u32_unsuffixed(tag_space.tag(scheme)?.value);
            let v = axis_variant(&a.name);
            Some(quote!(#value => Some(Axis::#v),))
        })
        .collect();
    // The R4 defaults table, derived from every field appended after its structure's first
    // version (never written twice).
    let mut defaults = Vec::new();
    for st in &spec.structures {
        for f in &st.fields {
            if f.since > st.since {
                let v = axis_variant(&spec.axis(st.axis).name);
                let since = version_tokens(f.since);
                let (sn, fname) = (st.name.as_str(), f.name.as_str());
                let default = f.default.as_ref().map_or("(none)".to_string(), |d| {
                    render::default(st, d, Style::Message)
                });
                defaults.push(quote!(AppendedField { axis: Axis::#v, structure: #sn, field: #fname, since: #since, default: #default }));
            }
        }
    }
    let status = spec.status.word();
    quote! {
        /// `"draft"` before the first stable release, `"released"` after.
        pub const STATUS: &str = #status;

        /// A field appended to a length-prefixed structure after its first version (S4, R4).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct AppendedField {
            /// The axis that versions the structure.
            pub axis: Axis,
            /// The structure's name in the spec.
            pub structure: &'static str,
            /// The field's name in the spec.
            pub field: &'static str,
            /// The version that appended it.
            pub since: crate::version::Version,
            /// The documented default, as the spec writes it.
            pub default: &'static str,
        }

        /// The defaults table for appended trailing fields (versioning § Defaults), derived from
        /// the fields' `since` and `default`.
        pub const DEFAULTS: &[AppendedField] = &[#(#defaults),*];

        /// A version axis. A later spec may add axes (a new scheme brings its own), so a
        /// `match` outside this crate needs a wildcard arm.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Axis { #( #docs #variants, )* }

        impl Axis {
            /// Every axis, in registry order.
            pub const ALL: &'static [Axis] = &[#(Axis::#variants),*];
            /// The axis's name in the spec (`descriptor`, `scheme.mxfp`).
            pub fn name(self) -> &'static str { match self { #(Axis::#variants => #names,)* } }
            /// Position in [`Axis::ALL`].
            pub fn index(self) -> usize { match self { #(Axis::#variants => #indices,)* } }
            /// The axis of that name in the spec.
            pub fn from_name(name: &str) -> Option<Axis> { Axis::ALL.iter().copied().find(|a| a.name() == name) }
            /// The version this build's spec defines.
            pub fn current(self) -> crate::version::Version { match self { #(Axis::#variants => #currents,)* } }
            /// The first released version.
            pub fn initial(self) -> crate::version::Version { match self { #(Axis::#variants => #initials,)* } }
            /// How versions of the axis are written (`MAJOR.MINOR`, or a scheme's integer).
            pub fn style(self) -> crate::version::AxisStyle { match self { #(Axis::#variants => #styles,)* } }
            /// Rules broken by a major above and below the reader's (axes with a major byte).
            pub fn major_rules(self) -> Option<(crate::generated::rules::Rule, crate::generated::rules::Rule)> { match self { #(Axis::#variants => #majors,)* } }
            /// The spec names of the fields that carry the axis's version: the major's (axes
            /// with a major byte) and the minor's (`container_version_major`,
            /// `container_version_minor`).
            pub fn version_fields(self) -> (Option<&'static str>, &'static str) { match self { #(Axis::#variants => #version_fields,)* } }
            /// The axis of a scheme tag value (RES-6).
            pub fn of_scheme(tag: u32) -> Option<Axis> { match tag { #(#scheme_arms)* _ => None } }
        }
    }
}

pub fn rules(spec: &Spec) -> TokenStream {
    let variants: Vec<_> = spec.rules.iter().map(|r| rule_variant(&r.id)).collect();
    let docs: Vec<_> = spec
        .rules
        .iter()
        .map(|r| doc(&format!("{}: {}", r.id, r.text)))
        .collect();
    let ids: Vec<_> = spec.rules.iter().map(|r| r.id.as_str()).collect();
    let codes: Vec<_> = spec.rules.iter().map(|r| r.code.as_str()).collect();
    let texts: Vec<_> = spec.rules.iter().map(|r| r.text.as_str()).collect();
    let sources: Vec<_> = spec.rules.iter().map(|r| r.source.as_str()).collect();
    // The model's enums and the generated ones share variant names.
    let actions: Vec<_> = spec
        .rules
        .iter()
        .map(|r| format_ident!("{}", format!("{:?}", r.action)))
        .collect();
    let actors: Vec<_> = spec
        .rules
        .iter()
        .map(|r| format_ident!("{}", format!("{:?}", r.actor)))
        .collect();
    let enforced: Vec<_> = spec
        .rules
        .iter()
        .map(|r| format_ident!("{}", format!("{:?}", r.enforced_by)))
        .collect();
    let answers: Vec<_> = spec
        .rules
        .iter()
        .map(|r| match r.answer {
            Some((space, value)) => {
                let name = spec.space(space).name.as_str();
                quote!(Some((#name, #value)))
            }
            None => quote!(None),
        })
        .collect();
    let action_enum = word_enum::<Action>("Action", "What a reader does when a rule is broken.");
    let actor_enum = word_enum::<Actor>("Actor", "Who a rule binds.");
    let enforced_by_enum = word_enum::<EnforcedBy>("EnforcedBy", "Where a rule is enforced.");
    quote! {
        #action_enum
        #actor_enum
        #enforced_by_enum

        /// Every rule of the facts sheets (spec/rules). A minor spec release adds rules, so a
        /// `match` outside this crate needs a wildcard arm.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Rule { #( #docs #variants, )* }

        impl Rule {
            /// Every rule, in the order of the tables.
            pub const ALL: &'static [Rule] = &[#(Rule::#variants),*];
            /// The sheet's id (`HDR-4`).
            pub fn id(self) -> &'static str { match self { #(Rule::#variants => #ids,)* } }
            /// The stable kebab-case error code.
            pub fn code(self) -> &'static str { match self { #(Rule::#variants => #codes,)* } }
            /// The rule's text.
            pub fn text(self) -> &'static str { match self { #(Rule::#variants => #texts,)* } }
            /// Where the facts sheets or seeds state it.
            pub fn source(self) -> &'static str { match self { #(Rule::#variants => #sources,)* } }
            /// What a reader does when it is broken.
            pub fn action(self) -> Action { match self { #(Rule::#variants => Action::#actions,)* } }
            /// Who it binds.
            pub fn actor(self) -> Actor { match self { #(Rule::#variants => Actor::#actors,)* } }
            /// Where it is enforced.
            pub fn enforced_by(self) -> EnforcedBy { match self { #(Rule::#variants => EnforcedBy::#enforced,)* } }
            /// The code a receiver answers a violation with (`answer` in its table): the code
            /// space's name and the code's value. `None`: the protocol's generic answer.
            pub fn answer(self) -> Option<(&'static str, u32)> { match self { #(Rule::#variants => #answers,)* } }
            /// The rule with that id (`HDR-4`).
            pub fn from_id(id: &str) -> Option<Rule> { Rule::ALL.iter().copied().find(|r| r.id() == id) }
        }
    }
}

pub fn tags(spec: &Spec) -> TokenStream {
    let mut out = TokenStream::new();
    out.extend(word_enum::<ElementKind>(
        "ElementKind",
        "What an element type's bits mean.",
    ));
    out.extend(word_enum::<Packing>(
        "Packing",
        "How sub-byte elements share bytes.",
    ));
    out.extend(word_enum::<LayoutClass>("LayoutClass", "A layout's class."));
    out.extend(quote! {
        /// A float element format (`format` and `bias` in tags/element_type.toml): sign,
        /// exponent and mantissa bits (of one part, for a complex type) and the exponent bias.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct FloatFormat {
            /// Sign bits (0 or 1).
            pub sign: u32,
            /// Exponent bits.
            pub exponent: u32,
            /// Mantissa bits.
            pub mantissa: u32,
            /// The exponent bias.
            pub bias: i64,
        }
    });
    out.extend(scheme_parameters(spec));
    out.extend(message_senders(spec));
    for (i, tag_space) in spec.spaces.iter().enumerate() {
        let id = SpaceId(i as u32);
        let ty = space_type(spec, id);
        let name = tag_space.name.as_str();
        let axis = axis_path(spec, tag_space.axis);
        let (inv, unk, prv) = (
            rule_path(spec, tag_space.reject.invalid),
            rule_path(spec, tag_space.reject.unknown),
            rule_path(spec, tag_space.reject.private),
        );
        let raw = prim_type(tag_space.width.prim());
        let wbytes = Literal::usize_unsuffixed(tag_space.width.bytes() as usize);
        let variants: Vec<_> = tag_space.tags.iter().map(|t| camel(&t.name)).collect();
        let docs: Vec<_> = tag_space
            .tags
            .iter()
            .map(|t| doc(&format!("`{:#04x}`: {}", t.value, t.title)))
            .collect();
        let deprecations: Vec<_> = tag_space
            .tags
            .iter()
            .map(|t| match &t.deprecated {
                Some(d) => {
                    let note = render::deprecation(spec, tag_space.axis, d, Style::Message);
                    quote!(#[deprecated(note = #note)])
                }
                None => quote!(),
            })
            .collect();
        let values: Vec<_> = tag_space
            .tags
            .iter()
            .map(|t| Literal::u32_unsuffixed(t.value))
            .collect();
        let names: Vec<_> = tag_space.tags.iter().map(|t| t.name.as_str()).collect();
        let titles: Vec<_> = tag_space.tags.iter().map(|t| t.title.as_str()).collect();
        let sinces: Vec<_> = tag_space
            .tags
            .iter()
            .map(|t| version_tokens(t.since))
            .collect();
        let dep_since: Vec<_> = tag_space
            .tags
            .iter()
            .map(|t| match &t.deprecated {
                Some(d) => {
                    let v = version_tokens(d.since);
                    quote!(Some(#v))
                }
                None => quote!(None),
            })
            .collect();
        let replacements: Vec<_> = tag_space
            .tags
            .iter()
            .map(
                |t| match t.deprecated.as_ref().and_then(|d| d.replacement.as_ref()) {
                    Some(r) => {
                        let v = camel(r);
                        quote!(Some(#ty::#v))
                    }
                    None => quote!(None),
                },
            )
            .collect();
        let range_arms: Vec<_> = tag_space
            .ranges
            .iter()
            .map(|r| {
                let (a, b) = (
                    Literal::u32_unsuffixed(r.from),
                    Literal::u32_unsuffixed(r.to),
                );
                let class = match r.kind {
                    RangeKind::Invalid => quote!(crate::wire::TagClass::Invalid),
                    RangeKind::Reserved => quote!(crate::wire::TagClass::Reserved),
                    RangeKind::Private => quote!(crate::wire::TagClass::Private),
                    RangeKind::Public { tier } => {
                        let t = match tier {
                            Some(t) => {
                                let l = Literal::u8_unsuffixed(t);
                                quote!(Some(#l))
                            }
                            None => quote!(None),
                        };
                        quote!(crate::wire::TagClass::UnallocatedPublic { tier: #t })
                    }
                };
                quote!(#a..=#b => #class,)
            })
            .collect();
        let ranges_doc: Vec<_> = tag_space
            .ranges
            .iter()
            .map(|r| {
                let (a, b) = (
                    Literal::u32_unsuffixed(r.from),
                    Literal::u32_unsuffixed(r.to),
                );
                let kind = r.kind.word();
                let note = r.note.as_str();
                quote!((#a, #b, #kind, #note))
            })
            .collect();
        let extra = tag_attr_methods(spec, id);
        let default_tag = tag_space.default_tag.map(|i| {
            let v = &variants[i];
            let d = doc(&format!(
                "The value that stands where the format leaves a `{}` unsaid (`default_tag`).",
                tag_space.name
            ));
            quote!(#d pub const DEFAULT: Self = Self::#v;)
        });
        let tydoc = format!(
            " {} tag space (`{}`).",
            doc_escape(&tag_space.title),
            tag_space.name
        );
        let allow_dep = if tag_space.tags.iter().any(|t| t.deprecated.is_some()) {
            quote!(#[allow(deprecated)])
        } else {
            quote!()
        };
        out.extend(quote! {
            #[doc = #tydoc]
            #[doc = ""]
            #[doc = " A minor spec release allocates new values (CD2), so a `match` outside this crate needs a wildcard arm; a value this build does not know stays reachable as the raw tag of its [`TagValue`](crate::wire::TagValue)."]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #[non_exhaustive]
            pub enum #ty { #( #docs #deprecations #variants, )* }

            #allow_dep
            impl #ty {
                /// Every range of the space: `(from, to, kind, note)`.
                pub const RANGES: &'static [(u32, u32, &'static str, &'static str)] = &[#(#ranges_doc),*];
                #default_tag
                #extra
            }

            impl crate::wire::sealed::Sealed for #ty {}

            #allow_dep
            impl crate::wire::TagSpace for #ty {
                const NAME: &'static str = #name;
                const WIDTH: usize = #wbytes;
                const AXIS: crate::generated::axes::Axis = #axis;
                const REJECT_INVALID: crate::generated::rules::Rule = #inv;
                const REJECT_UNKNOWN: crate::generated::rules::Rule = #unk;
                const REJECT_PRIVATE: crate::generated::rules::Rule = #prv;
                const ALL: &'static [Self] = &[#(#ty::#variants),*];
                fn classify(raw: u32) -> crate::wire::TagClass<Self> {
                    match raw {
                        #( #values => crate::wire::TagClass::Known(#ty::#variants), )*
                        #(#range_arms)*
                        _ => crate::wire::TagClass::Invalid,
                    }
                }
                fn value(self) -> u32 { match self { #(#ty::#variants => #values,)* } }
                fn name(self) -> &'static str { match self { #(#ty::#variants => #names,)* } }
                fn title(self) -> &'static str { match self { #(#ty::#variants => #titles,)* } }
                fn since(self) -> crate::version::Version { match self { #(#ty::#variants => #sinces,)* } }
                fn deprecated_since(self) -> Option<crate::version::Version> { match self { #(#ty::#variants => #dep_since,)* } }
                fn replacement(self) -> Option<Self> { match self { #(#ty::#variants => #replacements,)* } }
            }

            impl TryFrom<#raw> for #ty {
                type Error = crate::wire::UnknownTag;
                /// The allocated value, or whether `raw` is unallocated public, reserved, private or invalid.
                fn try_from(raw: #raw) -> Result<Self, crate::wire::UnknownTag> {
                    <#ty as crate::wire::TagSpace>::lookup(raw as u32)
                }
            }

            impl From<#ty> for #raw {
                fn from(t: #ty) -> #raw { crate::wire::TagSpace::value(t) as #raw }
            }
        });
    }
    let types: Vec<_> = (0..spec.spaces.len())
        .map(|i| space_type(spec, SpaceId(i as u32)))
        .collect();
    out.extend(quote! {
        /// Every tag space of the spec, for callers that name a space at run time (an
        /// out-of-band agreement given on a command line: `ReaderConfig::agree_named`).
        pub const SPACES: &[crate::tag_space::TagSpaceInfo] = &[#(crate::tag_space::TagSpaceInfo::of::<#types>()),*];
    });
    out
}

/// A model enum of words as a generated enum of the same variants, with its doc and each
/// variant's.
fn word_enum<T: Word + std::fmt::Debug>(name: &str, doc_text: &str) -> TokenStream {
    let ty = format_ident!("{}", name);
    let variants: Vec<_> = T::values()
        .iter()
        .map(|v| {
            let variant = format_ident!("{}", format!("{v:?}"));
            let d = doc(v.meaning());
            quote!(#d #variant)
        })
        .collect();
    let d = doc(doc_text);
    quote! {
        #d
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #ty { #(#variants),* }
    }
}

/// The attributes of every tag of a space, when each tag carries them.
fn attributes<'s, A>(
    tag_space: &'s TagSpace,
    pick: impl Fn(&'s TagAttrs) -> Option<A>,
) -> Option<Vec<A>> {
    tag_space.tags.iter().map(|t| pick(&t.attrs)).collect()
}

/// Accessors for the attributes of the space's role (spec/README.md, "Space-specific
/// attributes").
fn tag_attr_methods(spec: &Spec, id: SpaceId) -> TokenStream {
    let tag_space = spec.space(id);
    let ty = space_type(spec, id);
    let vs: Vec<_> = tag_space.tags.iter().map(|t| camel(&t.name)).collect();
    match spec.roles.of(id) {
        Some(Role::ElementType) => {
            let Some(attrs) = attributes(tag_space, |a| match a {
                TagAttrs::ElementType(a) => Some(a),
                _ => None,
            }) else {
                return quote!();
            };
            let bits: Vec<_> = attrs
                .iter()
                .map(|a| Literal::u32_unsuffixed(a.bits))
                .collect();
            let kinds: Vec<_> = attrs
                .iter()
                .map(|a| {
                    let k = format_ident!("{}", format!("{:?}", a.kind));
                    quote!(ElementKind::#k)
                })
                .collect();
            let packing: Vec<_> = attrs
                .iter()
                .map(|a| {
                    let k = format_ident!("{}", format!("{:?}", a.packing));
                    quote!(Packing::#k)
                })
                .collect();
            let formats: Vec<_> = attrs
                .iter()
                .map(|a| a.format.map(|f| f.to_string()).unwrap_or_default())
                .collect();
            let float_formats: Vec<_> = attrs
                .iter()
                .map(|a| match (a.format, a.bias) {
                    (Some(f), Some(bias)) => {
                        let (s, e, m) = (
                            Literal::u32_unsuffixed(f.sign),
                            Literal::u32_unsuffixed(f.exponent),
                            Literal::u32_unsuffixed(f.mantissa),
                        );
                        let b = Literal::i64_unsuffixed(bias);
                        quote!(Some(FloatFormat { sign: #s, exponent: #e, mantissa: #m, bias: #b }))
                    }
                    _ => quote!(None),
                })
                .collect();
            quote! {
                /// Bit width of one element.
                pub fn bits(self) -> u32 { match self { #(#ty::#vs => #bits,)* } }
                /// What the element's bits mean.
                pub fn kind(self) -> ElementKind { match self { #(#ty::#vs => #kinds,)* } }
                /// How sub-byte elements share bytes.
                pub fn packing(self) -> Packing { match self { #(#ty::#vs => #packing,)* } }
                /// Sign-exponent-mantissa bits, for float formats, as the table writes them (`1-5-10`).
                pub fn format(self) -> &'static str { match self { #(#ty::#vs => #formats,)* } }
                /// The float format, typed, with the table's exponent bias; `None` for a type with no format.
                pub fn float_format(self) -> Option<FloatFormat> { match self { #(#ty::#vs => #float_formats,)* } }
            }
        }
        Some(Role::Layout) => {
            let Some(attrs) = attributes(tag_space, |a| match a {
                TagAttrs::Layout(a) => Some(a),
                _ => None,
            }) else {
                return quote!();
            };
            let classes: Vec<_> = attrs
                .iter()
                .map(|a| {
                    let k = format_ident!("{}", format!("{:?}", a.class));
                    quote!(LayoutClass::#k)
                })
                .collect();
            let rmin: Vec<_> = attrs
                .iter()
                .map(|a| Literal::u32_unsuffixed(a.rank_min))
                .collect();
            let rmax: Vec<_> = attrs
                .iter()
                .map(|a| Literal::u32_unsuffixed(a.rank_max))
                .collect();
            let ba: Vec<_> = attrs
                .iter()
                .map(|a| Literal::u64_unsuffixed(a.buffers.a as u64))
                .collect();
            let bb: Vec<_> = attrs
                .iter()
                .map(|a| Literal::u64_unsuffixed(a.buffers.b as u64))
                .collect();
            let zero: Vec<_> = attrs
                .iter()
                .map(|a| a.byte_offset == ByteOffsetRule::Zero)
                .collect();
            let rank_rules: Vec<_> = attrs.iter().map(|a| rule_path(spec, a.rank_rule)).collect();
            let scalar_rules: Vec<_> = attrs
                .iter()
                .map(|a| optional_rule(spec, a.scalar_rule))
                .collect();
            let private_scalar = optional_rule(
                spec,
                tag_space
                    .ranges
                    .iter()
                    .filter(|r| r.kind == RangeKind::Private)
                    .find_map(|r| r.scalar_rule),
            );
            let private_buffer_count = optional_rule(
                spec,
                tag_space
                    .ranges
                    .iter()
                    .filter(|r| r.kind == RangeKind::Private)
                    .find_map(|r| r.buffer_count_rule),
            );
            let Some(d) = tag_space.layout_default() else {
                return quote!();
            };
            let rule = |r: RuleId| rule_path(spec, r);
            let (bounded_default, zero_default) =
                (rule(d.byte_offset_bounded), rule(d.byte_offset_zero));
            let (unquantized, quantized) = (
                rule(d.buffer_count_unquantized),
                rule(d.buffer_count_quantized),
            );
            let (buffer, parameter_buffer) = (
                rule(d.same_device_buffer),
                rule(d.same_device_parameter_buffer),
            );
            let unsharded = rule(d.unsharded_member);
            // A layout's own rule, else the space's default (`[space.default]`).
            let byte_offset_rules: Vec<_> =
                attrs.iter().map(|a| rule(a.byte_offset_rule(d))).collect();
            let own_or = |own: Option<RuleId>, default: TokenStream| match own {
                Some(r) => rule(r),
                None => default,
            };
            let buffer_count_rules: Vec<_> = attrs
                .iter()
                .map(|a| {
                    own_or(
                        a.rules.buffer_count,
                        quote!(Self::default_buffer_count_rule(quantized)),
                    )
                })
                .collect();
            let same_device_rules: Vec<_> = attrs
                .iter()
                .map(|a| {
                    own_or(
                        a.rules.same_device,
                        quote!(Self::default_same_device_rule(parameter_buffer)),
                    )
                })
                .collect();
            let unsharded_rules: Vec<_> = attrs
                .iter()
                .map(|a| rule(a.unsharded_member_rule(d)))
                .collect();
            let shard_rules: Vec<_> = attrs
                .iter()
                .map(|a| optional_rule(spec, a.rules.shard))
                .collect();
            let nnz_rules: Vec<_> = attrs
                .iter()
                .map(|a| optional_rule(spec, a.rules.statistics_nnz))
                .collect();
            quote! {
                /// The layout's class.
                pub fn class(self) -> LayoutClass { match self { #(#ty::#vs => #classes,)* } }
                /// The ranks the layout allows, inclusive.
                pub fn rank_range(self) -> (u32, u32) { match self { #(#ty::#vs => (#rmin, #rmax),)* } }
                /// The rule a rank outside [`Self::rank_range`] breaks.
                pub fn rank_rule(self) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #rank_rules,)* } }
                /// The rule rank 0 (a scalar) breaks; `None` for a layout that allows rank 0.
                pub fn scalar_rule(self) -> Option<crate::generated::rules::Rule> { match self { #(#ty::#vs => #scalar_rules,)* } }
                /// The rule rank 0 breaks under an implementation-private layout.
                pub const PRIVATE_SCALAR_RULE: Option<crate::generated::rules::Rule> = #private_scalar;
                /// The layout's own buffers (before quantization parameter buffers) at `rank`.
                pub fn layout_buffers(self, rank: u64) -> u64 { match self { #(#ty::#vs => #ba * rank + #bb,)* } }
                /// Whether `byte_offset` must be zero (OFS-2) rather than bounded by buffer 0 (OFS-1).
                pub fn byte_offset_zero(self) -> bool { match self { #(#ty::#vs => #zero,)* } }
                /// The rule a `byte_offset` outside the layout's bound breaks (`byte_offset_rule`: the layout's own, else the space's default for what bounds it).
                pub fn byte_offset_rule(self) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #byte_offset_rules,)* } }
                /// The space's default rule of a `byte_offset` outside its bound, for a layout whose `byte_offset` must be zero or is bounded by buffer 0.
                pub fn default_byte_offset_rule(zero: bool) -> crate::generated::rules::Rule { if zero { #zero_default } else { #bounded_default } }
                /// The rule a `buffer_count` other than the layout's breaks (`buffer_count_rule`: the layout's own, else the space's default for a descriptor `quantized` or not).
                #[allow(unused_variables)]
                pub fn buffer_count_rule(self, quantized: bool) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #buffer_count_rules,)* } }
                /// The space's default rule of a wrong `buffer_count`, for a descriptor `quantized` or not.
                pub fn default_buffer_count_rule(quantized: bool) -> crate::generated::rules::Rule { if quantized { #quantized } else { #unquantized } }
                /// The rule an implementation-private layout without a buffer breaks (its range's `buffer_count_rule`).
                pub const PRIVATE_BUFFER_COUNT_RULE: Option<crate::generated::rules::Rule> = #private_buffer_count;
                /// The rule a buffer on another device or memory class than buffer 0 breaks (`same_device_rule`: the layout's own, else the space's default for a `parameter_buffer` or another buffer).
                #[allow(unused_variables)]
                pub fn same_device_rule(self, parameter_buffer: bool) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #same_device_rules,)* } }
                /// The space's default rule of a buffer on another device or memory class than buffer 0, for a quantization `parameter_buffer` or another buffer.
                pub fn default_same_device_rule(parameter_buffer: bool) -> crate::generated::rules::Rule { if parameter_buffer { #parameter_buffer } else { #buffer } }
                /// The rule a partition or overlay member with this layout and no shard section breaks (`unsharded_member_rule`: the layout's own, else the space's default).
                pub fn unsharded_member_rule(self) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #unsharded_rules,)* } }
                /// The space's default rule of a partition or overlay member without a shard section.
                pub const DEFAULT_UNSHARDED_MEMBER_RULE: crate::generated::rules::Rule = #unsharded;
                /// The rule a shard section breaks; `None` for a layout that allows one (`shard_rule`).
                pub fn shard_rule(self) -> Option<crate::generated::rules::Rule> { match self { #(#ty::#vs => #shard_rules,)* } }
                /// The rule a statistics nnz other than the layout's breaks; `None` for a layout that counts no stored values (`statistics_nnz_rule`).
                pub fn statistics_nnz_rule(self) -> Option<crate::generated::rules::Rule> { match self { #(#ty::#vs => #nnz_rules,)* } }
            }
        }
        Some(Role::Device) => {
            // Each memory class named in the table, typed: an allocated class of the space
            // that plays the memory_class role, or that space's private range (`private`).
            let memory_class = space_type(spec, spec.roles.memory_class);
            let class = |name: &String| {
                if name == "private" {
                    quote!(crate::wire::TagClass::Private)
                } else {
                    let v = camel(name);
                    quote!(crate::wire::TagClass::Known(super::tags::#memory_class::#v))
                }
            };
            let lists: Vec<_> = tag_space
                .tags
                .iter()
                .map(|t| {
                    let m: Vec<_> = match &t.attrs {
                        TagAttrs::Device { memory_classes, .. } => {
                            memory_classes.iter().map(class).collect()
                        }
                        _ => Vec::new(),
                    };
                    quote!(&[#(#m),*])
                })
                .collect();
            let alignments = transfer_alignments(tag_space);
            let private: Vec<_> = tag_space
                .ranges
                .iter()
                .filter(|r| r.kind == RangeKind::Private)
                .flat_map(|r| r.memory_classes.iter().map(class).collect::<Vec<_>>())
                .collect();
            quote! {
                /// The memory classes valid on this device (BH-13): allocated classes, and the private range as `TagClass::Private`.
                pub fn memory_classes(self) -> &'static [crate::wire::TagClass<super::tags::#memory_class>] { match self { #(#ty::#vs => #lists,)* } }
                /// Memory classes valid on a private device.
                pub const PRIVATE_MEMORY_CLASSES: &'static [crate::wire::TagClass<super::tags::#memory_class>] = &[#(#private),*];
                /// The least `alignment` a non-empty buffer transferred to this device declares (IX-92, `transfer_alignment`); `None`: the buffer protocol's own minimum only.
                pub fn transfer_alignment(self) -> Option<u64> { match self { #(#ty::#vs => #alignments,)* } }
            }
        }
        Some(Role::Scheme) => {
            let Some(attrs) = attributes(tag_space, |a| match a {
                TagAttrs::Scheme(a) => Some(a),
                _ => None,
            }) else {
                return quote!();
            };
            let element_type = space_type(spec, spec.roles.element_type);
            let storage: Vec<_> = attrs
                .iter()
                .map(|a| {
                    let st = a.storage.iter().map(|s| camel(s));
                    quote!(&[#(super::tags::#element_type::#st),*])
                })
                .collect();
            let storage_rules: Vec<_> = attrs
                .iter()
                .map(|a| rule_path(spec, a.storage_rule))
                .collect();
            let flags: Vec<_> = attrs
                .iter()
                .map(|a| spec.flag_set(a.flags).name.as_str())
                .collect();
            let Some(d) = tag_space.scheme_default() else {
                return quote!();
            };
            let alias_default = rule_path(spec, d.data_alias);
            let alias_rules: Vec<_> = attrs
                .iter()
                .map(|a| rule_path(spec, a.data_alias_rule(d)))
                .collect();
            let padded_rules: Vec<_> = attrs
                .iter()
                .map(|a| optional_rule(spec, a.padded_extent_rule))
                .collect();
            quote! {
                /// Element types the scheme may quantize.
                pub fn storage(self) -> &'static [super::tags::#element_type] { match self { #(#ty::#vs => #storage,)* } }
                /// The rule a payload breaks when its type tag is not in `storage`.
                pub fn storage_rule(self) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #storage_rules,)* } }
                /// The scheme's flag set.
                pub fn flag_set(self) -> &'static str { match self { #(#ty::#vs => #flags,)* } }
                /// The rule a parameter buffer index naming the data buffer breaks (`data_alias_rule`: the scheme's own, else the space's default).
                pub fn data_alias_rule(self) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #alias_rules,)* } }
                /// The space's default rule of a parameter buffer index naming the data buffer.
                pub const DEFAULT_DATA_ALIAS_RULE: crate::generated::rules::Rule = #alias_default;
                /// The rule a dense data buffer holding the elements but not their padded extent breaks (RES-38); `None` for a scheme that pads nothing (`padded_extent_rule`).
                pub fn padded_extent_rule(self) -> Option<crate::generated::rules::Rule> { match self { #(#ty::#vs => #padded_rules,)* } }
            }
        }
        Some(Role::CombineOp) => {
            let lists: Vec<_> = tag_space
                .tags
                .iter()
                .map(|t| {
                    let m = match &t.attrs {
                        TagAttrs::CombineOp { legal_with } => legal_with.clone(),
                        _ => Vec::new(),
                    };
                    quote!(&[#(#m),*])
                })
                .collect();
            quote! {
                /// Composition rules the operation may appear with (CH-5, CH-6).
                pub fn legal_with(self) -> &'static [&'static str] { match self { #(#ty::#vs => #lists,)* } }
            }
        }
        Some(Role::BlockTableIndexType) => {
            let Some(bytes) = attributes(tag_space, |a| match a {
                TagAttrs::IndexType { bytes } => Some(Literal::u64_unsuffixed(u64::from(*bytes))),
                _ => None,
            }) else {
                return quote!();
            };
            quote! {
                /// Byte width of one index.
                pub fn index_bytes(self) -> u64 { match self { #(#ty::#vs => #bytes,)* } }
            }
        }
        Some(Role::CompositionRule) => {
            let Some(rules) = attributes(tag_space, |a| match a {
                TagAttrs::CompositionRule { combine_op_rule } => {
                    Some(rule_path(spec, *combine_op_rule))
                }
                _ => None,
            }) else {
                return quote!();
            };
            quote! {
                /// The rule a head breaks whose `combine_op` is not legal with the composition rule (`combine_op_rule`).
                pub fn combine_op_rule(self) -> crate::generated::rules::Rule { match self { #(#ty::#vs => #rules,)* } }
            }
        }
        Some(Role::MessageType) => {
            let sender = format_ident!("{}Sender", ty);
            let alignments = transfer_alignments(tag_space);
            let Some(senders) = attributes(tag_space, |a| match a {
                TagAttrs::MessageType { sender: s, .. } => {
                    let v = camel(s.word());
                    Some(quote!(#sender::#v))
                }
                _ => None,
            }) else {
                return quote!();
            };
            quote! {
                /// Which side of a connection sends a message of this type (`sender`).
                pub fn sender(self) -> #sender { match self { #(#ty::#vs => #senders,)* } }
                /// The least `alignment` a non-empty buffer transferred on the path this message begins declares (IX-92, `transfer_alignment`); `None`: no minimum of its own.
                pub fn transfer_alignment(self) -> Option<u64> { match self { #(#ty::#vs => #alignments,)* } }
            }
        }
        Some(Role::MemoryClass) | None => quote!(),
    }
}

/// Each tag's `transfer_alignment` (device and message type roles) as an `Option<u64>`
/// expression, in tag order.
fn transfer_alignments(tag_space: &TagSpace) -> Vec<TokenStream> {
    tag_space
        .tags
        .iter()
        .map(|t| match t.attrs {
            TagAttrs::Device {
                transfer_alignment: Some(a),
                ..
            }
            | TagAttrs::MessageType {
                transfer_alignment: Some(a),
                ..
            } => {
                let a = Literal::u64_unsuffixed(u64::from(a));
                quote!(Some(#a))
            }
            _ => quote!(None),
        })
        .collect()
}

/// Which side sends a message type: an enum of the `sender` words, beside the message type
/// role's space (`MessageTypeSender`); nothing for a spec without the role.
fn message_senders(spec: &Spec) -> TokenStream {
    let Some(space) = spec.roles.message_type else {
        return quote!();
    };
    let ty = format_ident!("{}Sender", space_type(spec, space));
    let entries: Vec<(&str, String)> = Sender::values()
        .iter()
        .map(|s| (s.word(), format!("`{}`: {}", s.word(), s.meaning())))
        .collect();
    let doc_text = format!(
        "Which side of a connection sends a `{}` (its `sender` in the spec).",
        spec.space(space).name
    );
    let method = quote! {
        /// The word the spec writes (`client`, `source`, …).
        pub fn word
    };
    named_enum(
        &ty,
        &doc_text,
        &entries,
        "Every side, in the spec's order.",
        method,
    )
}

/// An enum of names the spec writes (`entries`: each name and its variant's doc), with
/// `ALL` (documented by `all_doc`) and `method` (its doc and signature up to the name:
/// `pub fn name`), which gives each variant's name back.
fn named_enum(
    ty: &Ident,
    doc_text: &str,
    entries: &[(&str, String)],
    all_doc: &str,
    method: TokenStream,
) -> TokenStream {
    let variants: Vec<_> = entries
        .iter()
        .map(|(w, d)| {
            let v = camel(w);
            let d = doc(d);
            quote!(#d #v)
        })
        .collect();
    let names: Vec<_> = entries.iter().map(|(w, _)| camel(w)).collect();
    let words: Vec<&str> = entries.iter().map(|(w, _)| *w).collect();
    let doc_text = format!(" {doc_text}");
    let all_doc = format!(" {all_doc}");
    quote! {
        #[doc = #doc_text]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #ty { #(#variants),* }

        impl #ty {
            #[doc = #all_doc]
            pub const ALL: &'static [#ty] = &[#(#ty::#names),*];
            #method(self) -> &'static str { match self { #(#ty::#names => #words,)* } }
        }
    }
}

/// `Some(rule)` or `None` as tokens.
fn optional_rule(spec: &Spec, rule: Option<RuleId>) -> TokenStream {
    match rule {
        Some(r) => {
            let r = rule_path(spec, r);
            quote!(Some(#r))
        }
        None => quote!(None),
    }
}

/// The parameter buffers of the scheme role's space: an enum of every parameter any scheme
/// names (`SchemeParameter`), and a parameter buffer a payload references.
fn scheme_parameters(spec: &Spec) -> TokenStream {
    let scheme = spec.roles.scheme;
    let space = space_type(spec, scheme);
    let ty = format_ident!("{}Parameter", space);
    let buffer = format_ident!("{}ParameterBuffer", space);
    let mut names: Vec<&str> = Vec::new();
    for t in &spec.space(scheme).tags {
        if let TagAttrs::Scheme(a) = &t.attrs {
            for p in &a.parameters {
                if !names.contains(&p.name.as_str()) {
                    names.push(&p.name);
                }
            }
        }
    }
    let entries: Vec<(&str, String)> = names
        .iter()
        .map(|n| (*n, format!("The `{n}` parameter buffer.")))
        .collect();
    let doc_text = format!(
        "A parameter buffer of a `{}` value (its `parameters` in the spec).",
        spec.space(scheme).name
    );
    let method = quote! {
        /// The parameter's name in the spec.
        pub fn name
    };
    let parameter = named_enum(
        &ty,
        &doc_text,
        &entries,
        "Every parameter, in the order the spec first names them.",
        method,
    );
    quote! {
        #parameter

        /// A parameter buffer a payload references: the parameter, the buffer's index in the
        /// buffer table, and the absolute offset of the field holding the index.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct #buffer {
            /// Which parameter the buffer holds.
            pub parameter: #ty,
            /// The buffer's index in the buffer table.
            pub index: u64,
            /// Absolute byte offset of the field holding the index.
            pub at: u64,
        }
    }
}

pub fn flags(spec: &Spec) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, flag_set) in spec.flag_sets.iter().enumerate() {
        let ty = flags_type(spec, FlagSetId(i as u32));
        let raw = prim_type(flag_set.width.prim());
        let wbytes = Literal::usize_unsuffixed(flag_set.width.bytes() as usize);
        let name = flag_set.name.as_str();
        let axis = axis_path(spec, flag_set.axis);
        let rule = rule_path(spec, flag_set.rule);
        let consts: Vec<_> = flag_set
            .bits
            .iter()
            .map(|b| {
                let c = shouty(&b.name);
                let m = Literal::u64_unsuffixed(1u64 << b.bit);
                let d = doc(&format!("bit {}: {}", b.bit, b.title));
                let dep = match &b.deprecated {
                    Some(d) => {
                        let note = render::deprecation(spec, flag_set.axis, d, Style::Message);
                        quote!(#[deprecated(note = #note)])
                    }
                    None => quote!(),
                };
                quote!(#d #dep pub const #c: #ty = #ty(#m as #raw);)
            })
            .collect();
        let allocated = Literal::u64_unsuffixed(flag_set.allocated_mask());
        let reserved = Literal::u64_unsuffixed(flag_set.reserved_mask());
        let known_arms: Vec<_> = flag_set
            .bits
            .iter()
            .map(|b| {
                let m = Literal::u64_unsuffixed(1u64 << b.bit);
                let v = version_tokens(b.since);
                quote!(if #v <= v { m |= #m; })
            })
            .collect();
        let name_arms: Vec<_> = flag_set
            .bits
            .iter()
            .map(|b| {
                let n = Literal::u32_unsuffixed(b.bit);
                let s = b.name.as_str();
                quote!(#n => Some(#s),)
            })
            .collect();
        let since_arms: Vec<_> = flag_set
            .bits
            .iter()
            .map(|b| {
                let n = Literal::u32_unsuffixed(b.bit);
                let v = version_tokens(b.since);
                quote!(#n => Some(#v),)
            })
            .collect();
        let dep_mask: u64 = flag_set
            .bits
            .iter()
            .filter(|b| {
                b.deprecated
                    .as_ref()
                    .is_some_and(|d| d.replacement.is_some())
            })
            .fold(0, |m, b| m | (1 << b.bit));
        let dep_mask = Literal::u64_unsuffixed(dep_mask);
        let requires: Vec<_> = flag_set
            .bits
            .iter()
            .filter_map(|b| {
                let r = b.requires.as_ref()?;
                let bit = Literal::u64_unsuffixed(1u64 << b.bit);
                let needs = Literal::u64_unsuffixed(r.mask());
                let rule = rule_path(spec, r.rule);
                Some(quote!((#bit, #needs, #rule)))
            })
            .collect();
        let tydoc = format!(
            " {} (`{}`); every bit not listed is reserved and must be zero.",
            doc_escape(&flag_set.title),
            flag_set.name
        );
        // The bits a reader at version `v` knows; a set without bits knows none.
        let known_at = if flag_set.bits.is_empty() {
            quote!(
                fn known_at(_: crate::version::Version) -> u64 {
                    0
                }
            )
        } else {
            quote!(fn known_at(v: crate::version::Version) -> u64 { let mut m = 0u64; #(#known_arms)* m })
        };
        out.extend(quote! {
            #[doc = #tydoc]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
            pub struct #ty(pub #raw);

            #[allow(deprecated)]
            impl #ty {
                #(#consts)*
                /// Every allocated bit.
                pub const ALLOCATED_MASK: u64 = #allocated;
                /// Every reserved bit (must be zero).
                pub const RESERVED_MASK: u64 = #reserved;
                /// No bit set.
                pub const fn empty() -> #ty { #ty(0) }
                /// These bits and `other`'s.
                pub fn with(self, other: #ty) -> #ty { #ty(self.0 | other.0) }
                /// These bits without `other`'s.
                pub fn without(self, other: #ty) -> #ty { #ty(self.0 & !other.0) }
                /// Whether every bit of `other` is set.
                pub fn has(self, other: #ty) -> bool { self.0 & other.0 == other.0 }
            }

            impl crate::section::WireField for #ty {
                const SIZE: usize = #wbytes;
                fn read_le(b: &[u8]) -> Self { #ty(<#raw as crate::wire::Scalar>::from_le(b)) }
                fn write_le(&self, out: &mut Vec<u8>) { crate::wire::Scalar::put(self.0, out) }
            }

            impl crate::wire::sealed::Sealed for #ty {}

            impl crate::wire::FlagSet for #ty {
                const NAME: &'static str = #name;
                const AXIS: crate::generated::axes::Axis = #axis;
                const ALLOCATED: u64 = #allocated;
                const RULE: crate::generated::rules::Rule = #rule;
                fn from_bits(bits: u64) -> Self { #ty(bits as #raw) }
                fn bits(self) -> u64 { self.0 as u64 }
                #known_at
                fn bit_name(bit: u32) -> Option<&'static str> { match bit { #(#name_arms)* _ => None } }
                fn bit_since(bit: u32) -> Option<crate::version::Version> { match bit { #(#since_arms)* _ => None } }
                fn deprecated_mask() -> u64 { #dep_mask }
                const REQUIRES: &'static [(u64, u64, crate::generated::rules::Rule)] = &[#(#requires),*];
            }
        });
    }
    out
}

pub fn consts(spec: &Spec) -> TokenStream {
    let mut out = TokenStream::new();
    for a in &spec.axes {
        let n = shouty(&format!("{}_current", a.name.replace('.', "_")));
        let v = version_tokens(a.current);
        let d = doc(&format!("Current version of axis `{}`.", a.name));
        out.extend(quote!(#d pub const #n: crate::version::Version = #v;));
    }
    let p = &spec.placement;
    let (da, alb, ach, ka, ia) = (
        Literal::u64_unsuffixed(p.descriptor_alignment as u64),
        Literal::u64_unsuffixed(p.after_last_buffer as u64),
        Literal::u64_unsuffixed(p.after_composite_head as u64),
        Literal::u64_unsuffixed(p.kv_alignment as u64),
        Literal::u64_unsuffixed(p.index_alignment as u64),
    );
    out.extend(quote! {
        /// Every descriptor in a file starts at a multiple of this.
        pub const DESCRIPTOR_ALIGNMENT: u64 = #da;
        /// Padding after a tensor's last data buffer reaches a multiple of this (RES-3).
        pub const AFTER_LAST_BUFFER: u64 = #alb;
        /// The next descriptor after a composite head starts at a multiple of this (RES-13).
        pub const AFTER_COMPOSITE_HEAD: u64 = #ach;
        /// The KV section starts at a multiple of this.
        pub const KV_ALIGNMENT: u64 = #ka;
        /// The index section starts at a multiple of this.
        pub const INDEX_ALIGNMENT: u64 = #ia;
    });
    let resolutions: Vec<_> = spec
        .resolutions
        .iter()
        .map(|r| {
            let (id, point, decision) = (r.id.as_str(), r.point.as_str(), r.decision.as_str());
            quote!((#id, #point, #decision))
        })
        .collect();
    out.extend(quote! {
        /// Every resolution: `(id, point, decision)`.
        pub const RESOLUTIONS: &[(&str, &str, &str)] = &[#(#resolutions),*];
    });
    out
}

/// The migration table (S5): every migration specification onto a major of this spec, as
/// data (`crate::migration_table`), so the runtime knows whether a migration exists and what
/// it moves or drops.
pub fn migrations(spec: &Spec) -> TokenStream {
    let entries = spec.migrations.iter().map(|m| {
        let file = m.file.as_str();
        let axis = spec.axes[m.axis.index()].name.as_str();
        let (from, to, note) = (m.from, m.to, m.note.as_str());
        let opt_pair = |to: &Option<(String, u32)>| match to {
            Some((a, b)) => quote!(Some((#a, #b))),
            None => quote!(None),
        };
        let tags = m.tags.iter().map(|((space, value), to)| {
            let to = opt_pair(to);
            quote!(crate::migration_table::Move { item: (#space, #value), to: #to })
        });
        let bits = m.bits.iter().map(|((set, bit), to)| {
            let to = opt_pair(to);
            quote!(crate::migration_table::Move { item: (#set, #bit), to: #to })
        });
        let fields = m.fields.iter().map(|((s, f), to)| {
            let to = match to {
                Some((a, b)) => quote!(Some((#a, #b))),
                None => quote!(None),
            };
            quote!(crate::migration_table::Move { item: (#s, #f), to: #to })
        });
        quote! {
            crate::migration_table::Migration {
                file: #file,
                axis: #axis,
                from: #from,
                to: #to,
                note: #note,
                tags: &[#(#tags),*],
                bits: &[#(#bits),*],
                fields: &[#(#fields),*],
            }
        }
    });
    quote! {
        /// Every migration specification onto a major of this build's spec.
        pub const ALL: &[crate::migration_table::Migration] = &[#(#entries),*];
        /// The migration onto this build's major of the axis named `axis` from its major
        /// `from`, if the spec defines one.
        pub fn find(axis: &str, from: u16) -> Option<&'static crate::migration_table::Migration> {
            ALL.iter().find(|m| m.axis == axis && m.from == from)
        }
    }
}
