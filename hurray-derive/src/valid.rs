//! Every check the tokens alone allow, collected into one error: S6 ordering and framing, S4
//! defaults, reserved fields, versions. Facts that need sizes become const assertions in the
//! expansion instead.

use crate::ast::Section;

/// Validate a parsed section.
pub fn validate(s: &Section) -> syn::Result<()> {
    let mut errs: Vec<syn::Error> = Vec::new();
    let base = s.base;
    for (i, f) in s.fields.iter().enumerate() {
        let since = f.since(base);
        let name = &f.ident;
        if let Some((v, span)) = f.since
            && v < base
        {
            errs.push(syn::Error::new(span, format!("field `{name}` is `since` {v}, before the section's base version {base}; set #[hurray(base = \"{v}\")] or a later since")));
        }
        if since > base {
            // S6: appended fields trail the section, and only a length prefix lets older
            // readers step over them.
            if let Some(g) = s.fields[i + 1..].iter().find(|g| g.since(base) < since) {
                errs.push(syn::Error::new(
                    f.span,
                    format!("S6: field `{name}` (since {since}) comes before `{}` (since {}); a field added in a later version goes after every existing field, or older readers read its bytes as the fields that follow", g.ident, g.since(base)),
                ));
            }
            if !s.length_prefixed {
                errs.push(syn::Error::new(
                    f.span,
                    format!("S6: field `{name}` is added in {since} but `{}` has no length prefix, so older readers would take it for what follows; mark the section #[hurray(length_prefixed)]", s.ident),
                ));
            }
            // S4: the value older data means for the field.
            if f.default.is_none() && !f.reserved {
                errs.push(syn::Error::new(f.span, format!("S4: field `{name}` is added in {since} without a documented default; add #[hurray(default = <value>)], the value readers of older data see")));
            }
        } else if let Some(d) = &f.default {
            errs.push(syn::Error::new_spanned(d, format!("field `{name}` belongs to the section's base version {base}; no reader ever defaults it, so remove `default`")));
        }
        if f.reserved && (f.default.is_some() || f.since.is_some_and(|(v, _)| v > base)) {
            errs.push(syn::Error::new(
                f.span,
                format!("reserved field `{name}` is always zero: it takes no `since` or `default`"),
            ));
        }
    }
    if s.fields.is_empty() {
        errs.push(syn::Error::new(
            s.span,
            "a section needs at least one field",
        ));
    }
    let mut it = errs.into_iter();
    match it.next() {
        None => Ok(()),
        Some(mut first) => {
            for e in it {
                first.combine(e);
            }
            Err(first)
        }
    }
}
