//! The input of the derive as a small typed tree: the section and its fields with their
//! `#[hurray(...)]` attributes, spans kept for every error.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;
use syn::{
    Attribute, Data, DeriveInput, Expr, ExprLit, Fields, Ident, Lit, LitStr, Type, Visibility,
};

use hurray_codegen::version::AxisStyle;
/// A version as the attributes write it: `"1.1"`, or an integer `2` (a scheme-style version
/// `1.2`, the scheme_version byte being the minor, RES-6). The one version type of the tools.
pub use hurray_codegen::version::Version;

pub struct Section {
    pub ident: Ident,
    pub vis: Visibility,
    pub length_prefixed: bool,
    pub base: Version,
    pub spec: Option<LitStr>,
    pub spec_dir: Option<LitStr>,
    pub krate: Option<syn::Path>,
    pub fields: Vec<FieldDef>,
    pub span: Span,
}

pub struct FieldDef {
    pub ident: Ident,
    pub ty: Type,
    pub since: Option<(Version, Span)>,
    pub default: Option<Expr>,
    pub offset: Option<(u64, Span)>,
    pub reserved: bool,
    /// `#[hurray(length_prefix)]`: the field holds the section's own length prefix, which the
    /// writer computes (a linked section's comes from the spec's framing instead).
    pub length_prefix: Option<Span>,
    pub span: Span,
}

impl FieldDef {
    pub fn since(&self, base: Version) -> Version {
        self.since.map_or(base, |(v, _)| v)
    }
}

fn version(e: &Expr) -> syn::Result<Version> {
    let bad = || {
        syn::Error::new(
            e.span(),
            "not a valid version: write \"MAJOR.MINOR\" (each 0–255), or an integer scheme version such as 2",
        )
    };
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => AxisStyle::MajorMinor.parse(&s.value()).map_err(|_| bad()),
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => AxisStyle::Scheme
            .parse(i.base10_digits())
            .map_err(|_| bad()),
        _ => Err(bad()),
    }
}

/// Parse the derive input, recording every problem in `cx`. `None` when the input is not a
/// struct with named fields.
pub fn parse(cx: &Ctxt, input: &DeriveInput) -> Option<Section> {
    if !input.generics.params.is_empty() {
        cx.error_at(
            input.generics.span(),
            "HurraySection takes no generic parameters: a section's layout is fixed",
        );
    }
    let mut s = Section {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        length_prefixed: false,
        base: Version::new(1, 0),
        spec: None,
        spec_dir: None,
        krate: None,
        fields: Vec::new(),
        span: input.ident.span(),
    };
    for attr in hurray_attrs(&input.attrs) {
        let r = attr.parse_nested_meta(|m| {
            if m.path.is_ident("length_prefixed") {
                s.length_prefixed = true;
            } else if m.path.is_ident("base") {
                s.base = version(&m.value()?.parse()?)?;
            } else if m.path.is_ident("spec") {
                s.spec = Some(m.value()?.parse()?);
            } else if m.path.is_ident("spec_dir") {
                s.spec_dir = Some(m.value()?.parse()?);
            } else if m.path.is_ident("crate") {
                let lit: LitStr = m.value()?.parse()?;
                s.krate = Some(lit.parse()?);
            } else {
                return Err(m.error("unknown section attribute: expected `length_prefixed`, `base = \"1.0\"`, `spec = \"<structure>\"`, `spec_dir = \"<path>\"` or `crate = \"<path>\"`"));
            }
            Ok(())
        });
        if let Err(e) = r {
            cx.syn_error(e);
        }
    }
    let named = match &input.data {
        Data::Struct(d) => match &d.fields {
            Fields::Named(named) => Some(named),
            _ => None,
        },
        _ => None,
    };
    let Some(named) = named else {
        cx.error_at(
            input.ident.span(),
            "HurraySection needs a struct with named fields",
        );
        return None;
    };
    s.fields = named.named.iter().map(|f| field(cx, f)).collect();
    Some(s)
}

fn hurray_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("hurray"))
}

fn field(cx: &Ctxt, f: &syn::Field) -> FieldDef {
    let ident = f
        .ident
        .clone()
        .expect("the fields of a struct with named fields have names");
    let span = ident.span();
    let mut fd = FieldDef {
        ident,
        ty: f.ty.clone(),
        since: None,
        default: None,
        offset: None,
        reserved: false,
        length_prefix: None,
        span,
    };
    for attr in hurray_attrs(&f.attrs) {
        let r = attr.parse_nested_meta(|m| {
            if m.path.is_ident("since") {
                let e: Expr = m.value()?.parse()?;
                fd.since = Some((version(&e)?, e.span()));
            } else if m.path.is_ident("default") {
                fd.default = Some(m.value()?.parse()?);
            } else if m.path.is_ident("offset") {
                let lit: syn::LitInt = m.value()?.parse()?;
                fd.offset = Some((lit.base10_parse()?, lit.span()));
            } else if m.path.is_ident("reserved") {
                fd.reserved = true;
            } else if m.path.is_ident("length_prefix") {
                fd.length_prefix = Some(m.path.span());
            } else {
                return Err(m.error("unknown field attribute: expected `since = \"1.1\"`, `default = <expr>`, `offset = <bytes>`, `reserved` or `length_prefix`"));
            }
            Ok(())
        });
        if let Err(e) = r {
            cx.syn_error(e);
        }
    }
    fd
}
