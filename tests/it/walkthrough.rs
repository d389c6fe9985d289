//! The spec editor's walkthrough of `spec/README.md`, performed on a copy of spec/: allocate a
//! value, deprecate one, append a field, bump, check, docs, release, with the mistakes a
//! spec editor makes on the way. After each edit, the findings `check` reports are exactly
//! the step's verdict (level, lint and the TOML item it is on).
//!
//! Each step is an overlay (`hurray_codegen::overlay`, the format of the fixtures' `edit.toml`)
//! applied in place, so the walkthrough holds whatever amendments spec/ has had: it starts
//! one minor past spec/ as released, with free values and `x_walkthrough_` names.

use std::path::Path;

use crate::common::fixtures::{copy_dir, location};
use crate::common::{hurray_spec, root, scratch, stderr, stdout};
use hurray_codegen::overlay::{self, Overlay, Vars};

/// `check`'s findings on `spec`, one `level[lint] file:item` line each, sorted.
fn verdict(spec: &Path) -> Vec<String> {
    let checked = hurray_codegen::check(spec, None).expect("the spec reads");
    let mut out: Vec<String> = checked
        .diags
        .items()
        .iter()
        .map(|d| {
            format!(
                "{}[{}] {}",
                d.level.as_str(),
                d.lint.id,
                location(&checked.sources, spec, d)
            )
        })
        .collect();
    out.sort();
    out
}

/// Apply one step (an overlay's TOML, its `${…}` naming the spec as released).
fn edit(spec: &Path, vars: &Vars, step: &str) {
    let overlay: Overlay = toml::from_str(step).unwrap_or_else(|e| panic!("{e}\n{step}"));
    overlay::apply(spec, &overlay, vars).unwrap_or_else(|e| panic!("{e}"));
}

/// Assert `check`'s verdict on `spec` after `what`.
fn expect(spec: &Path, what: &str, want: &[&str]) {
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.sort();
    let got = verdict(spec);
    assert_eq!(
        got,
        want,
        "after {what}, check reports:\n  {}",
        got.join("\n  ")
    );
}

/// Whether `check` accepts the spec (what CI and `release` require).
fn accepted(spec: &Path) -> bool {
    hurray_spec(&["check", "--spec", spec.to_str().unwrap()])
        .status
        .success()
}

#[test]
fn the_spec_editors_walkthrough_gives_each_steps_verdict() {
    let work = scratch("walkthrough");
    let spec = work.join("spec");
    copy_dir(&root().join("spec"), &spec);
    // Start from spec/ as released: record whatever it holds that no release does yet.
    let latest = overlay::seal_pending(&spec)
        .unwrap()
        .expect("spec/ is released");
    let model = hurray_codegen::load(&spec).unwrap();
    let model = model.clean().expect("spec/ is clean");
    let vars = Vars::of(model, Some(&latest));
    expect(&spec, "nothing", &[]);

    // A released element type to deprecate, and the one writers use instead: the first two
    // the spec has not deprecated already, and that no deprecation names as its replacement
    // (deprecating a replacement is an error of its own).
    let space = model
        .spaces
        .iter()
        .find(|s| s.name == "element_type")
        .unwrap();
    let replacements: Vec<&str> = space
        .tags
        .iter()
        .filter_map(|t| t.deprecated.as_ref()?.replacement.as_deref())
        .collect();
    let mut live = space
        .tags
        .iter()
        .filter(|t| t.deprecated.is_none() && !replacements.contains(&t.name.as_str()));
    let (old, new) = (
        live.next().unwrap().name.clone(),
        live.next().unwrap().name.clone(),
    );

    // 1. Allocate a value: a new element type at the next descriptor minor, at the lowest free
    //    value of a public range. Mistake: the axis is not bumped yet.
    edit(
        &spec,
        &vars,
        r#"
description = "allocate"
[[edit]]
file = "tags/element_type.toml"
append = '''

[[tag]]
value = ${free:element_type}
name = "x_walkthrough_e3m4"
title = "FP8 E3M4"
since = "${descriptor+minor}"
bits = 8
kind = "float"
format = "1-3-4"
bias = 3
'''
"#,
    );
    expect(
        &spec,
        "allocating a value at the next minor without the bump",
        &[
            "error[since-after-current] tags/element_type.toml:tag[x_walkthrough_e3m4]",
            "error[version-too-low] spec.toml:axis[descriptor].current",
            "note[classified-minor] tags/element_type.toml:tag[x_walkthrough_e3m4]",
        ],
    );
    assert!(!accepted(&spec));

    // 2. Bump the descriptor axis: the allocation is a MINOR change, and that is all.
    edit(
        &spec,
        &vars,
        "description = \"bump\"\n[[bump]]\naxis = \"descriptor\"\n",
    );
    expect(
        &spec,
        "the bump",
        &["note[classified-minor] tags/element_type.toml:tag[x_walkthrough_e3m4]"],
    );
    assert!(accepted(&spec));

    // 3. Deprecate a released value. Mistake: `deprecated = true` says since when nobody knows.
    edit(
        &spec,
        &vars,
        &format!(
            r#"
description = "deprecate"
[[edit]]
file = "tags/element_type.toml"
find = '''
name = "{old}"
'''
replace = '''
name = "{old}"
deprecated = true
'''
"#
        ),
    );
    // The model cannot be built from it, so this error is all `check` says until it is fixed.
    let deprecated_at = format!("tags/element_type.toml:tag[{old}]");
    expect(
        &spec,
        "a deprecation without `deprecated_since`",
        &[&format!(
            "error[s3-missing-deprecated-since] {deprecated_at}"
        )],
    );
    // Then the version it happens in, but no replacement yet: a warning (S3 says SHOULD).
    edit(
        &spec,
        &vars,
        r#"
description = "deprecated_since"
[[edit]]
file = "tags/element_type.toml"
find = '''
deprecated = true
'''
replace = '''
deprecated_since = "${descriptor+minor}"
'''
"#,
    );
    expect(
        &spec,
        "a deprecation without a replacement",
        &[
            &format!("warning[s3-no-replacement] {deprecated_at}.deprecated_since"),
            &format!("note[classified-minor] {deprecated_at}"),
            "note[classified-minor] tags/element_type.toml:tag[x_walkthrough_e3m4]",
        ],
    );
    // And the replacement writers use instead (W3).
    edit(
        &spec,
        &vars,
        &format!(
            r#"
description = "replacement"
[[edit]]
file = "tags/element_type.toml"
find = '''
deprecated_since = "${{descriptor+minor}}"
'''
replace = '''
deprecated_since = "${{descriptor+minor}}"
replacement = "{new}"
'''
"#
        ),
    );
    expect(
        &spec,
        "the deprecation with its replacement",
        &[
            &format!("note[classified-minor] {deprecated_at}"),
            "note[classified-minor] tags/element_type.toml:tag[x_walkthrough_e3m4]",
        ],
    );

    // 4. Append a field to the MXFP payload (length-prefixed, so a MINOR change on its scheme
    //    axis). Mistakes: no default, and the scheme axis not bumped.
    edit(
        &spec,
        &vars,
        r#"
description = "append"
[[edit]]
file = "structures/quantization.toml"
structure = "mxfp"
append = '''
[[structure.field]]
name = "x_walkthrough_bias"
type = "f32"
since = ${scheme.mxfp+minor}
title = "additive correction applied after scaling"
'''
"#,
    );
    let field = "structures/quantization.toml:structure[mxfp].field[x_walkthrough_bias]";
    expect(
        &spec,
        "a field appended without a default and without the scheme bump",
        &[
            &format!("error[s4-missing-default] {field}"),
            &format!("error[since-after-current] {field}.since"),
            "error[version-too-low] spec.toml:axis[scheme.mxfp].current",
            &format!("note[classified-minor] {field}"),
            &format!("note[classified-minor] {deprecated_at}"),
            "note[classified-minor] tags/element_type.toml:tag[x_walkthrough_e3m4]",
        ],
    );
    // The default (what readers of older data see, R4) and the bump.
    edit(
        &spec,
        &vars,
        r#"
description = "default and bump"
[[bump]]
axis = "scheme.mxfp"
[[edit]]
file = "structures/quantization.toml"
find = '''
name = "x_walkthrough_bias"
type = "f32"
'''
replace = '''
name = "x_walkthrough_bias"
type = "f32"
default = 0.0
'''
"#,
    );
    expect(
        &spec,
        "the default and the scheme bump",
        &[
            &format!("note[classified-minor] {field}"),
            &format!("note[classified-minor] {deprecated_at}"),
            "note[classified-minor] tags/element_type.toml:tag[x_walkthrough_e3m4]",
        ],
    );
    assert!(accepted(&spec));

    // 5. Docs: the generated tables show the amendment.
    let docs = work.join("docs");
    let o = hurray_spec(&[
        "docs",
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        docs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tags = std::fs::read_to_string(docs.join("tags.md")).unwrap();
    assert!(tags.contains("x_walkthrough_e3m4"), "{tags}");
    let defaults = std::fs::read_to_string(docs.join("defaults.md")).unwrap();
    assert!(defaults.contains("x_walkthrough_bias"), "{defaults}");
    let matrix = std::fs::read_to_string(docs.join("compatibility.md")).unwrap();
    assert!(
        matrix.contains("`element_type.x_walkthrough_e3m4`")
            && matrix.contains("`mxfp.x_walkthrough_bias`"),
        "{matrix}"
    );

    // 6. Release: a record of the amendment, after which nothing is left to classify.
    let o = hurray_spec(&["release", "--spec", spec.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let recorded = format!("{:04}.toml", latest.sequence + 1);
    assert!(stdout(&o).contains(&recorded), "{}", stdout(&o));
    let record = std::fs::read_to_string(spec.join("releases").join(&recorded)).unwrap();
    let label = format!(
        "label = \"descriptor-{}+scheme.mxfp-{}\"",
        vars.get("descriptor+minor").unwrap(),
        vars.get("scheme.mxfp+minor").unwrap()
    );
    assert!(record.contains(&label), "{record}");
    expect(&spec, "the release", &[]);
    let o = hurray_spec(&["release", "--spec", spec.to_str().unwrap()]);
    assert!(
        o.status.success() && stderr(&o).contains("nothing to release"),
        "{}",
        stderr(&o)
    );

    // 7. A mistake after the release: changing what was released. The record holds it, so the
    //    checker tells (S2), and the spec cannot be released again until it is undone.
    edit(
        &spec,
        &vars,
        r#"
description = "rebind"
[[edit]]
file = "tags/element_type.toml"
find = '''
name = "x_walkthrough_e3m4"
title = "FP8 E3M4"
since = "${descriptor+minor}"
bits = 8
kind = "float"
format = "1-3-4"
'''
replace = '''
name = "x_walkthrough_e3m4"
title = "FP8 E3M4"
since = "${descriptor+minor}"
bits = 16
kind = "float"
format = "1-5-10"
'''
"#,
    );
    let verdict_after = verdict(&spec);
    assert!(
        verdict_after
            .iter()
            .any(|l| l == "error[s2-rebind] tags/element_type.toml:tag[x_walkthrough_e3m4]"),
        "{verdict_after:?}"
    );
    let o = hurray_spec(&["release", "--spec", spec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}
