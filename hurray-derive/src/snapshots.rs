//! Expansion snapshots: the derive's output for representative sections, formatted with
//! prettyplease and compared with `tests/expand/*.expanded.rs` (refresh with `BLESS=1`).

use std::path::PathBuf;

fn expanded(src: &str) -> String {
    let input: syn::DeriveInput = syn::parse_str(src).expect("test input parses");
    let tokens = crate::expand_tokens(&input).expect("the section is valid");
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as items");
    prettyplease::unparse(&file)
}

fn check(name: &str, src: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expand")
        .join(format!("{name}.expanded.rs"));
    let got = format!(
        "// Expansion of:\n{}\n{}",
        src.lines()
            .map(|l| format!("// {l}"))
            .collect::<Vec<_>>()
            .join("\n"),
        expanded(src)
    );
    if std::env::var_os("BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == got,
        "{} drifted; review and refresh with `BLESS=1 cargo test -p hurray-derive --lib`\n{got}",
        path.display()
    );
}

#[test]
fn fixed_section() {
    check(
        "fixed",
        "#[hurray(crate = \"hurray_runtime\")] struct Pair { a: u16, #[hurray(offset = 2)] b: u16 }",
    );
}

#[test]
fn length_prefixed_section_with_appended_fields() {
    check(
        "appended",
        "#[hurray(length_prefixed, base = 1, crate = \"hurray_runtime\")] pub struct Lut { table: u32, #[hurray(reserved)] _r: [u8; 4], #[hurray(since = 2, default = 0.0)] bias: f32 }",
    );
}
