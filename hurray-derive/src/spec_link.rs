//! `#[hurray(spec = "<structure>")]`: the derive compares the struct with the spec's structure
//! at compile time (the tables `hurray-spec-tables` embeds, or a draft tree at
//! `#[hurray(spec_dir = "<path>")]`) and refuses a struct whose framing, fields, types, since
//! or defaults differ, so Rust and TOML cannot drift. Offsets and default values become const
//! assertions (sizes and values are the compiler's).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::Section;
use crate::ctxt::Ctxt;
use hurray_codegen::Loaded;
use hurray_codegen::model::{DefaultValue, Field, FieldType, Position, Spec, Structure};
use hurray_codegen::render;

/// The spec tables `hurray-spec-tables` embeds, loaded once per compiler session.
fn embedded() -> &'static Loaded {
    static EMBEDDED: OnceLock<Loaded> = OnceLock::new();
    EMBEDDED.get_or_init(|| {
        hurray_codegen::load_files(hurray_spec_tables::ROOT, hurray_spec_tables::FILES)
    })
}

/// A loaded spec: the embedded tables, or a draft tree read from disk.
enum Source {
    Embedded(&'static Loaded),
    Draft(Box<Loaded>, PathBuf),
}

impl Source {
    fn loaded(&self) -> &Loaded {
        match self {
            Source::Embedded(l) => l,
            Source::Draft(l, _) => l,
        }
    }

    /// Where the spec came from, for messages.
    fn place(&self) -> String {
        match self {
            Source::Embedded(_) => hurray_spec_tables::ROOT.to_owned(),
            Source::Draft(_, dir) => dir.display().to_string(),
        }
    }
}

/// The spec a linked struct is compared with: the embedded tables, or the draft tree at
/// `#[hurray(spec_dir = "…")]` (relative to the crate's manifest directory).
fn load(cx: &Ctxt, s: &Section) -> Option<Source> {
    let Some(dir) = &s.spec_dir else {
        return Some(Source::Embedded(embedded()));
    };
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let path = manifest
        .as_deref()
        .unwrap_or(Path::new("."))
        .join(dir.value());
    match hurray_codegen::load(&path) {
        Ok(loaded) => Some(Source::Draft(Box::new(loaded), path)),
        Err(e) => {
            cx.error_spanned_by(
                dir,
                format!("cannot read the spec tree at {}: {e}", path.display()),
            );
            None
        }
    }
}

fn last_segment(ty: &syn::Type) -> Option<(String, Option<String>)> {
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    let arg = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => last_segment(t).map(|x| x.0),
            _ => None,
        }),
        _ => None,
    };
    Some((seg.ident.to_string(), arg))
}

/// Whether a Rust field type is the TOML field's type.
fn type_matches(spec: &Spec, f: &Field, ty: &syn::Type) -> bool {
    let text = ty.to_token_stream().to_string().replace(' ', "");
    match (&f.ty, &f.count) {
        (FieldType::Prim(p), None) => text == p.name(),
        (FieldType::Bytes, Some(hurray_codegen::model::Count::Const(n))) => {
            text == format!("[u8;{n}]")
        }
        (FieldType::Tag(sp), None) => last_segment(ty).is_some_and(|(s, a)| {
            s == "TagValue" && a.as_deref() == Some(&spec.space(*sp).name.to_upper_camel_case())
        }),
        (FieldType::Flags(fs), None) => last_segment(ty)
            .is_some_and(|(s, _)| s == spec.flag_set(*fs).name.to_upper_camel_case()),
        (FieldType::Struct(id), None) => last_segment(ty)
            .is_some_and(|(s, _)| s == spec.structure(*id).name.to_upper_camel_case()),
        _ => false,
    }
}

fn toml_type(spec: &Spec, st: &Structure, f: &Field) -> String {
    render::field_type(spec, st, f, render::Style::Message)
        + f.count.as_ref().map(|_| " (counted)").unwrap_or_default()
}

/// Compare the struct with the TOML structure it links to, reporting each difference into
/// `cx` at the most specific span; return the const assertions for offsets and defaults, and
/// the index of the field that holds the structure's own length prefix when the spec frames
/// it so (`Spec::own_prefix`: the framing's `length_prefixed` names a field of the structure
/// itself), which the writer then computes.
pub fn check(cx: &Ctxt, s: &Section) -> (TokenStream, Option<usize>) {
    let Some(lit) = &s.spec else {
        if let Some(dir) = &s.spec_dir {
            cx.error_spanned_by(
                dir,
                "`spec_dir` names the spec tree a `spec = \"<structure>\"` link is checked against; add `spec`, or remove `spec_dir`",
            );
        }
        return (quote!(), None);
    };
    let Some(source) = load(cx, s) else {
        return (quote!(), None);
    };
    let name = lit.value();
    let place = source.place();
    let Some(spec) = source.loaded().clean() else {
        cx.error_spanned_by(
            lit,
            format!("the spec in {place} has errors; run `hurray-spec check` to see them"),
        );
        return (quote!(), None);
    };
    let Some(id) = spec.structure_id(&name) else {
        cx.error_spanned_by(
            lit,
            format!("the spec in {place} has no structure `{name}`"),
        );
        return (quote!(), None);
    };
    let st = spec.structure(id);
    // The spec's own length prefix, when it is a field of the structure itself.
    let own_prefix = spec
        .own_prefix(id)
        .filter(|steps| steps.len() == 1)
        .map(|steps| steps[0].1);
    let ident = &s.ident;
    let message = |detail: String| {
        format!("`{ident}` does not match spec structure `{name}` ({place}): {detail}")
    };
    let differs =
        |tokens: &dyn ToTokens, detail: String| cx.error_spanned_by(tokens, message(detail));
    let axis = spec.axis(st.axis);
    if s.length_prefixed != st.framing.is_length_prefixed() {
        let framing = |prefixed: bool| if prefixed { "length-prefixed" } else { "fixed" };
        differs(
            lit,
            format!(
                "it is {} in the spec; the struct is {}",
                framing(st.framing.is_length_prefixed()),
                framing(s.length_prefixed)
            ),
        );
    }
    if s.base != st.since {
        differs(
            lit,
            format!(
                "it begins at {} in the spec; the struct's base is {}",
                axis.show(st.since),
                s.base
            ),
        );
    }
    let rust: Vec<String> = s.fields.iter().map(|f| f.ident.to_string()).collect();
    let toml: Vec<&str> = st
        .fields
        .iter()
        .map(|f| f.name.trim_start_matches('_'))
        .collect();
    if rust
        .iter()
        .map(|n| n.trim_start_matches('_'))
        .ne(toml.iter().copied())
    {
        differs(
            lit,
            format!(
                "the spec's fields are [{}]; the struct's are [{}]",
                toml.join(", "),
                rust.join(", ")
            ),
        );
    }
    let mut asserts = Vec::new();
    for (rf, tf) in s.fields.iter().zip(&st.fields) {
        if rf.ident.to_string().trim_start_matches('_') != tf.name.trim_start_matches('_') {
            continue;
        }
        let fname = &tf.name;
        if !type_matches(spec, tf, &rf.ty) {
            differs(
                &rf.ty,
                format!(
                    "field `{fname}` is `{}` in the spec; the struct says `{}`",
                    toml_type(spec, st, tf),
                    rf.ty.to_token_stream().to_string().replace(' ', "")
                ),
            );
        }
        if rf.since(s.base) != tf.since {
            let detail = format!(
                "field `{fname}` is since {} in the spec; the struct says {}",
                axis.show(tf.since),
                rf.since(s.base)
            );
            match rf.since {
                Some((_, span)) => cx.error_at(span, message(detail)),
                None => differs(&rf.ident, detail),
            }
        }
        if rf.reserved != tf.reserved {
            differs(
                &rf.ident,
                format!(
                    "field `{fname}` is {}reserved in the spec",
                    if tf.reserved { "" } else { "not " }
                ),
            );
        }
        match (&tf.default, &rf.default) {
            (None, None) => {}
            (Some(d), None) => differs(
                &rf.ident,
                format!(
                    "field `{fname}` has the default {} in the spec; the struct documents none",
                    render::default(st, d, render::Style::Message)
                ),
            ),
            (None, Some(e)) => differs(
                e,
                format!("field `{fname}` has no default in the spec; the struct documents one"),
            ),
            (Some(d), Some(e)) => {
                let msg = message(format!(
                    "field `{fname}`'s default differs from the spec's ({})",
                    render::default(st, d, render::Style::Message)
                ));
                let c = format_ident!("DEFAULT_{}", rf.ident.to_string().to_shouty_snake_case());
                let check = match d {
                    DefaultValue::Int(n) => {
                        let l = Literal::i128_unsuffixed(*n);
                        Some(quote!((#ident::#c as i128) == #l))
                    }
                    DefaultValue::Float(x) => {
                        let (l, t) = (Literal::f64_unsuffixed(*x), &rf.ty);
                        Some(quote!((#ident::#c as f64).to_bits() == (#l as #t as f64).to_bits()))
                    }
                    _ => None,
                };
                // Evaluated by the compiler, reported at the struct's default.
                if let Some(check) = check {
                    asserts.push(quote_spanned!(e.span()=> const _: () = assert!(#check, #msg);));
                }
            }
        }
        if let Position::Offset(a) = &tf.position
            && let Some(c) = a.as_constant()
        {
            let o = format_ident!("OFFSET_{}", rf.ident.to_string().to_shouty_snake_case());
            let l = Literal::usize_unsuffixed(c as usize);
            let msg = message(format!(
                "field `{fname}` lies at byte {c} in the spec; the struct's layout puts it elsewhere"
            ));
            asserts.push(
                quote_spanned!(rf.ident.span()=> const _: () = assert!(#ident::#o == #l, #msg);),
            );
        }
    }
    for (i, rf) in s.fields.iter().enumerate() {
        if let Some(span) = rf.length_prefix
            && own_prefix != Some(i)
        {
            cx.error_at(
                span,
                message(match own_prefix.and_then(|k| st.fields.get(k)) {
                    Some(f) => format!(
                        "the spec's own length prefix is field `{}`, not `{}`",
                        f.name, rf.ident
                    ),
                    None => format!(
                        "the spec gives the structure no length prefix of its own, so `{}` is none",
                        rf.ident
                    ),
                }),
            );
        }
    }
    (quote!(#(#asserts)*), own_prefix)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    /// A draft spec tree, as a spec editor would have mid-amendment: the embedded tables with
    /// the NF4 payload amended (a trailing `gamma: f32`, since scheme version 2, default 0.5,
    /// and `scheme.nf4` at 2), written to a fresh directory.
    fn draft(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hurray-derive-draft-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (relative, text) in hurray_spec_tables::FILES {
            let mut text = text.to_string();
            let mut edit = |find: &str, replace: &str| {
                assert_eq!(text.matches(find).count(), 1, "{relative}: {find}");
                text = text.replace(find, replace);
            };
            match *relative {
                "spec.toml" => edit(
                    "scheme = \"nf4\"\ninitial = 1\ncurrent = 1",
                    "scheme = \"nf4\"\ninitial = 1\ncurrent = 2",
                ),
                "structures/quantization.toml" => {
                    edit(
                        "rules = [\"NF-3\", \"NF-4\", \"NF-5\", \"NF-6\", \"P2\", \"P4\"]\nsize = 16",
                        "rules = [\"NF-3\", \"NF-4\", \"NF-5\", \"NF-6\", \"P2\", \"P4\"]\nsize = 20",
                    );
                    edit(
                        "check = { less_than = \"buffer_count\", rule = \"NF-7\" }\n",
                        "check = { less_than = \"buffer_count\", rule = \"NF-7\" }\n\n[[structure.field]]\nname = \"gamma\"\ntype = \"f32\"\noffset = 16\nsince = 2\ndefault = 0.5\ntitle = \"a correction appended in scheme version 2\"\n",
                    );
                }
                _ => {}
            }
            let path = dir.join(relative);
            std::fs::create_dir_all(path.parent().expect("a file has a folder")).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn expand(section_attributes: &str, default: &str) -> syn::Result<proc_macro2::TokenStream> {
        let input = syn::parse_str(&format!(
            "#[hurray(length_prefixed, base = 1, spec = \"nf4\"{section_attributes})]
             struct Nf4 {{
                 header: QuantizationHeader,
                 axis: u32,
                 block_size: u32,
                 scale_buffer_index: u32,
                 #[hurray(since = 2, default = {default})]
                 gamma: f32,
             }}"
        ))
        .expect("the test input parses");
        crate::expand_tokens(&input)
    }

    #[test]
    fn the_embedded_spec_refuses_a_field_it_does_not_have() {
        let error = expand("", "0.5").expect_err("the released spec has no gamma");
        assert!(
            error.to_string().contains("the spec's fields are [header, axis, block_size, scale_buffer_index]; the struct's are [header, axis, block_size, scale_buffer_index, gamma]"),
            "{error}"
        );
    }

    #[test]
    fn a_draft_spec_dir_is_the_spec_the_struct_is_compared_with() {
        let dir = draft("accepts");
        let tokens = expand(
            &format!(", spec_dir = {:?}", dir.display().to_string()),
            "0.5",
        )
        .expect("the struct matches the draft spec");
        let text = tokens.to_string().replace(' ', "");
        assert!(text.contains("pubconstDEFAULT_GAMMA:f32=0.5;"), "{text}");
        // The spec's default becomes a const assertion on the struct's.
        assert!(
            text.contains("(Nf4::DEFAULT_GAMMAasf64).to_bits()==(0.5asf32asf64).to_bits()"),
            "{text}"
        );
        assert!(text.contains("Nf4::OFFSET_GAMMA==16"), "{text}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The embedded tables amended by a new flag-gated descriptor section framed by its own
    /// first field (`x_provenance.x_length`), as a spec editor adds one: written to a fresh
    /// directory through the overlay machinery the fixtures use.
    /// Returns the tree and the descriptor version the section is new at (the next minor of
    /// whatever the embedded spec's is).
    fn self_prefixed_draft() -> (PathBuf, String) {
        let dir = std::env::temp_dir().join(format!(
            "hurray-derive-self-prefixed-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let base = dir.join("base");
        for (relative, text) in hurray_spec_tables::FILES {
            let path = base.join(relative);
            std::fs::create_dir_all(path.parent().expect("a file has a folder")).unwrap();
            std::fs::write(path, text).unwrap();
        }
        // The amendment fixture a spec editor's new self-prefixed section is tested by.
        let edit = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/amendments/new-self-prefixed-section/edit.toml");
        let m = hurray_codegen::overlay::materialize(&base, &edit, &dir).unwrap();
        let since = m
            .vars
            .get("descriptor+minor")
            .expect("the axis has a next minor");
        (m.tree.clone(), since.to_string())
    }

    fn expand_provenance(
        dir: &std::path::Path,
        since: &str,
        length_attribute: &str,
    ) -> syn::Result<proc_macro2::TokenStream> {
        let input = syn::parse_str(&format!(
            "#[hurray(length_prefixed, base = {since:?}, spec = \"x_provenance\", spec_dir = {:?})]
             struct Provenance {{
                 {length_attribute} x_length: u32,
                 id: u64,
             }}",
            dir.display().to_string()
        ))
        .expect("the test input parses");
        crate::expand_tokens(&input)
    }

    #[test]
    fn a_linked_sections_own_length_prefix_comes_from_the_spec_and_is_computed() {
        let (tree, since) = self_prefixed_draft();
        let tokens =
            expand_provenance(&tree, &since, "").expect("the struct matches the draft spec");
        let text = tokens.to_string().replace(' ', "");
        // The writer writes the length of what it writes, not the value's `x_length`.
        assert!(
            text.contains(
                "let__len:u32=__h::length_prefix(<Provenanceas__h::Section>::size_at(v));"
            ),
            "{text}"
        );
        assert!(!text.contains("write_le(&self.x_length"), "{text}");
        // An attribute on another field contradicts the spec's framing.
        let input = syn::parse_str(&format!(
            "#[hurray(length_prefixed, base = {since:?}, spec = \"x_provenance\", spec_dir = {:?})]
             struct Provenance {{
                 x_length: u32,
                 #[hurray(length_prefix)] id: u64,
             }}",
            tree.display().to_string()
        ))
        .expect("the test input parses");
        let error = crate::expand_tokens(&input).expect_err("the spec's prefix is x_length");
        assert!(
            error
                .to_string()
                .contains("the spec's own length prefix is field `x_length`, not `id`"),
            "{error}"
        );
        std::fs::remove_dir_all(tree.parent().expect("the draft is in its folder")).unwrap();
    }

    #[test]
    fn a_missing_draft_spec_dir_is_reported_at_the_attribute() {
        let error = expand(", spec_dir = \"/nonexistent/spec\"", "0.5").expect_err("no such tree");
        assert!(
            error
                .to_string()
                .starts_with("cannot read the spec tree at /nonexistent/spec"),
            "{error}"
        );
    }
}
