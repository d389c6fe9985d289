//! Whether a documented default fits its field (S4 for an appended field, the model rule for
//! any other): a value of the field's own type, with its dependencies declared.

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::model::*;

/// Report a default that does not fit field `f` of `s`; `appended` selects S4's lint.
pub(super) fn default_fits(
    spec: &Spec,
    s: &Structure,
    f: &Field,
    d: &DefaultValue,
    appended: bool,
    diags: &mut Diagnostics,
) {
    let lint = if appended {
        &lints::S4_DEFAULT_TYPE
    } else {
        &lints::DEFAULT_TYPE
    };
    let location = f.default_span.or(Some(f.span));
    let prim = f.ty.scalar_prim(spec);
    let bad = |diags: &mut Diagnostics, why: String| {
        diags.report(
            lint,
            location,
            format!("the default of `{}.{}` {why}", s.name, f.name),
            "S4: the documented default is a value of the field's own type",
        );
    };
    match (d, &f.ty, prim) {
        (DefaultValue::Expr { field, depends_on }, _, _) => {
            let dep = &s.fields[*field].name;
            if !depends_on.contains(dep) {
                diags.push(
                    Diagnostic::new(&lints::S4_UNDECLARED_DEPENDENCY, location, format!("the default of `{}` depends on `{dep}` without declaring it", f.name))
                        .help(format!("S4: a default may depend on another field only when the dependency is documented: add `depends_on = [\"{dep}\"]`")),
                );
            }
            if s.fields[*field].ty != f.ty {
                bad(diags, format!("copies `{dep}`, a field of another type"));
            }
        }
        (DefaultValue::Bytes(b), FieldType::Bytes, _) => {
            if f.count != Some(Count::Const(b.len() as u64)) {
                bad(
                    diags,
                    format!("has {} bytes, not the field's length", b.len()),
                );
            }
        }
        (DefaultValue::Int(n), _, Some(p)) if p.is_int() => {
            let (lo, hi) = p.int_range();
            if *n < lo || *n > hi {
                bad(diags, format!("{n} does not fit `{}`", p.name()));
            }
            if let FieldType::Tag(space) = f.ty
                && spec.space(space).tag_by_value(*n as u32).is_none()
            {
                bad(
                    diags,
                    format!(
                        "{n:#x} is not an allocated `{}` value",
                        spec.space(space).name
                    ),
                );
            }
        }
        (DefaultValue::Float(_) | DefaultValue::Int(_), _, Some(p)) if p.is_float() => {}
        (DefaultValue::Float(x), _, _) => bad(diags, format!("{x} is a float; the field is not")),
        _ => bad(diags, "does not fit its type".to_string()),
    }
    if f.count.is_some()
        && !matches!(d, DefaultValue::Bytes(_))
        && !matches!(f.ty, FieldType::Bytes)
    {
        bad(diags, "is a single value; the field repeats".to_string());
    }
}
