//! The Kaitai Struct description checked in under docs/kaitai is exactly what the spec
//! generates (`hurray-spec export kaitai`), and it describes every item of the spec: an enum
//! per tag space with every allocated value, a type per structure and per flag set, every
//! table check stated with its rule. That Kaitai's compiler accepts it and that the reader it
//! generates agrees with the runtime on every accepted vector is `tests/kaitai/run` (CI).

use crate::common::{self, root};
use hurray_codegen::emit::kaitai;
use hurray_codegen::model::{CheckLevel, Spec};

fn spec() -> Spec {
    let loaded = hurray_codegen::load(&root().join("spec")).expect("spec loads");
    assert!(!loaded.diags.has_errors(), "spec/ is clean");
    loaded.spec.expect("spec/ lowers")
}

#[test]
fn checked_in_description_is_up_to_date() {
    let text = kaitai::ksy(&spec());
    let path = root().join("docs/kaitai").join(kaitai::FILE_NAME);
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == text,
        "{} is out of date; refresh it with `{}`",
        path.display(),
        kaitai::COMMAND
    );
}

#[test]
fn export_check_fails_on_drift_and_names_the_command() {
    let dir = common::scratch("kaitai-drift");
    let out = dir.to_str().unwrap();
    let written = common::hurray_spec(&["export", "kaitai", "--out", out]);
    assert!(written.status.success(), "{}", common::stderr(&written));
    let clean = common::hurray_spec(&["export", "kaitai", "--check", "--out", out]);
    assert!(clean.status.success(), "{}", common::stderr(&clean));
    std::fs::write(dir.join(kaitai::FILE_NAME), "meta: {id: edited}\n").unwrap();
    let stale = common::hurray_spec(&["export", "kaitai", "--check", "--out", out]);
    assert_eq!(stale.status.code(), Some(1));
    let err = common::stderr(&stale);
    assert!(
        err.contains(kaitai::FILE_NAME) && err.contains(kaitai::COMMAND),
        "{err}"
    );
}

/// The lines of the top-level block `key:` (every line indented under it).
fn block<'t>(text: &'t str, key: &str) -> Vec<&'t str> {
    text.lines()
        .skip_while(|l| *l != format!("{key}:"))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .collect()
}

/// The lines of the entry `name:` of a block, at an indentation of two.
fn entry<'t>(lines: &[&'t str], name: &str) -> Vec<&'t str> {
    lines
        .iter()
        .skip_while(|l| **l != format!("  {name}:"))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .copied()
        .collect()
}

#[test]
fn every_space_structure_flag_set_and_check_is_described() {
    let spec = spec();
    let text = kaitai::ksy(&spec);
    let enums = block(&text, "enums");
    let types = block(&text, "types");
    for space in &spec.spaces {
        let values = entry(&enums, &space.name);
        for tag in &space.tags {
            assert!(
                values
                    .iter()
                    .any(|l| l.trim() == format!("id: {}", tag.name)),
                "enum {} lacks {}",
                space.name,
                tag.name
            );
        }
    }
    for s in &spec.structures {
        let ty = entry(&types, &s.name);
        assert!(!ty.is_empty(), "no type for structure {}", s.name);
        assert!(
            ty.iter().any(|l| l.contains(&s.title)),
            "type {} lacks its title in `doc`",
            s.name
        );
        for f in &s.fields {
            for c in f.checks.iter().filter(|c| c.level == CheckLevel::Reject) {
                let rule = &spec.rule(c.rule).id;
                assert!(
                    ty.iter().any(|l| l.contains(&format!("[{rule}]"))),
                    "type {}: the check of `{}` ({rule}) is not described",
                    s.name,
                    f.name
                );
            }
        }
    }
    for set in &spec.flag_sets {
        let ty = entry(&types, &set.name);
        for bit in &set.bits {
            assert!(
                ty.iter()
                    .any(|l| l.trim() == format!("{}:", bit.name.to_lowercase())),
                "flag type {} lacks bit {}",
                set.name,
                bit.name
            );
        }
    }
}
