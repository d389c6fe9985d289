//! Generates the command line's `Refusal` enum from `refusals.toml`, the one table of the
//! codes `hurray encode` refuses its input with (the rule catalogue reads the same table), into
//! `OUT_DIR/refusals.rs`.

use std::fmt::Write as _;
use std::path::PathBuf;

use heck::ToUpperCamelCase;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    refusal: Vec<Row>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    id: String,
    code: String,
    text: String,
}

fn main() {
    println!("cargo::rerun-if-changed=refusals.toml");
    // Keyed to the checkout (the repository's `.cargo/config.toml` sets it): a target
    // directory shared by two clones must not reuse the other clone's table.
    println!("cargo::rerun-if-env-changed=HURRAY_SPEC_CHECKOUT");
    let text = std::fs::read_to_string("refusals.toml").expect("hurray-cli/refusals.toml reads");
    let table: Table =
        toml::from_str(&text).unwrap_or_else(|e| panic!("hurray-cli/refusals.toml: {e}"));
    let mut variants = String::new();
    let mut codes = String::new();
    for row in &table.refusal {
        let name = row
            .code
            .strip_prefix("encode-")
            .unwrap_or_else(|| {
                panic!(
                    "hurray-cli/refusals.toml: `{}` does not start with `encode-`",
                    row.code
                )
            })
            .to_upper_camel_case();
        writeln!(variants, "    /// {} (`{}`)\n    {name},", row.text, row.id).unwrap();
        writeln!(codes, "            Refusal::{name} => {:?},", row.code).unwrap();
    }
    let out = format!(
        "/// Why `hurray encode` refuses its input (`hurray-cli/refusals.toml`).\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq)]\n\
         pub enum Refusal {{\n{variants}}}\n\n\
         impl Refusal {{\n\
         \x20   /// The stable code printed as `error[<code>]`.\n\
         \x20   pub fn code(self) -> &'static str {{\n        match self {{\n{codes}        }}\n    }}\n\
         }}\n"
    );
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("refusals.rs");
    std::fs::write(&path, out).expect("write OUT_DIR/refusals.rs");
}
