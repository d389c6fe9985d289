//! JSON Schemas of the spec files, for help while typing (issue #9 §4): one schema per kind of
//! file the tools read, generated from the serde types that read it (the raw mirror in
//! [`raw`](crate::raw), the release record, the S5 migration, the overlay), so a key the
//! loader rejects is a key the schema rejects. `hurray-spec schema` writes them to
//! `spec/schema/`; every spec file names its schema on its first lines with taplo's
//! `#:schema` directive, which TOML language servers (taplo, Even Better TOML) follow to
//! complete keys, show each key's doc comment on hover and flag a wrong one.
//!
//! Which file is of which kind ([`Kind::of`]) and the directive that points it at its schema
//! ([`Kind::directive`]) need no schema crate; [`generate`] (the schemas themselves) needs the
//! `schema` feature.
//!
//! ```
//! use hurray_codegen::schema::Kind;
//! assert_eq!(Kind::of("tags/layout.toml"), Some(Kind::Tags));
//! assert_eq!(
//!     Kind::Tags.directive("tags/layout.toml"),
//!     "#:schema ../schema/tags.json"
//! );
//! assert_eq!(Kind::of("README.md"), None);
//! ```

/// The command that refreshes the checked-in schemas and the spec files' directives.
pub const COMMAND: &str = "cargo run --bin hurray-spec -- schema";

/// The folder of a spec tree that holds the schemas.
pub const DIR: &str = "schema";

/// The prefix of taplo's schema directive, a TOML comment.
pub const DIRECTIVE: &str = "#:schema ";

/// A kind of file the spec tools read, each with its own schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// `spec.toml`.
    Spec,
    /// `tags/<space>.toml`.
    Tags,
    /// `flags/*.toml`.
    Flags,
    /// `structures/*.toml`.
    Structures,
    /// `rules/*.toml`.
    Rules,
    /// `resolutions.toml`.
    Resolutions,
    /// `releases/NNNN.toml`, written by `hurray-spec release`.
    Release,
    /// `migrations/<axis>-<K>-to-<K+1>.toml`.
    Migration,
    /// An overlay (`edit.toml` of an amendment fixture), outside the spec tree.
    Overlay,
}

impl Kind {
    /// Every kind, in the order the schemas are written.
    pub const ALL: [Kind; 9] = [
        Kind::Spec,
        Kind::Tags,
        Kind::Flags,
        Kind::Structures,
        Kind::Rules,
        Kind::Resolutions,
        Kind::Release,
        Kind::Migration,
        Kind::Overlay,
    ];

    /// The schema's file name in [`DIR`].
    pub fn file_name(self) -> &'static str {
        match self {
            Kind::Spec => "spec.json",
            Kind::Tags => "tags.json",
            Kind::Flags => "flags.json",
            Kind::Structures => "structures.json",
            Kind::Rules => "rules.json",
            Kind::Resolutions => "resolutions.json",
            Kind::Release => "release.json",
            Kind::Migration => "migration.json",
            Kind::Overlay => "overlay.json",
        }
    }

    /// The kind of the spec tree's file at `relative` (its path from the tree's root, with
    /// `/` separators): the folders and files [`load`](crate::load) reads, the release
    /// records and the migrations. `None` for any other file (and for overlays, which live
    /// outside the tree).
    pub fn of(relative: &str) -> Option<Kind> {
        let parts: Vec<&str> = relative.split('/').collect();
        match parts[..] {
            ["spec.toml"] => Some(Kind::Spec),
            ["resolutions.toml"] => Some(Kind::Resolutions),
            [folder, name] if name.ends_with(".toml") => match folder {
                "tags" => Some(Kind::Tags),
                "flags" => Some(Kind::Flags),
                "structures" => Some(Kind::Structures),
                "rules" => Some(Kind::Rules),
                crate::amend::history::DIR => Some(Kind::Release),
                crate::amend::migration::DIR => Some(Kind::Migration),
                _ => None,
            },
            _ => None,
        }
    }

    /// The directive line (without its line break) that points the spec tree's file at
    /// `relative` at this kind's schema in the tree's [`DIR`]: a path relative to the file,
    /// as taplo resolves it.
    pub fn directive(self, relative: &str) -> String {
        let depth = relative.matches('/').count();
        let up = if depth == 0 {
            "./".to_string()
        } else {
            "../".repeat(depth)
        };
        format!("{DIRECTIVE}{up}{DIR}/{}", self.file_name())
    }
}

/// `text` with its schema directive set to `directive`: the first line replaced if it is a
/// schema directive already, else `directive` put before it. Everything else is kept byte for
/// byte.
pub fn with_directive(text: &str, directive: &str) -> String {
    let rest = match text.split_once('\n') {
        Some((first, rest)) if first.trim_end().starts_with(DIRECTIVE.trim_end()) => rest,
        None if text.trim_end().starts_with(DIRECTIVE.trim_end()) => "",
        _ => text,
    };
    format!("{directive}\n{rest}")
}

/// The JSON Schema of every [`Kind`], as pretty JSON text (with a final line break) beside its
/// kind: draft 7, the draft taplo and most editors read.
#[cfg(feature = "schema")]
pub fn generate() -> Vec<(Kind, String)> {
    Kind::ALL
        .iter()
        .map(|&kind| {
            let settings = schemars::generate::SchemaSettings::draft07()
                .with_transform(schemars::transform::RecursiveTransform(without_null));
            let generator = settings.into_generator();
            let mut schema = match kind {
                Kind::Spec => generator.into_root_schema_for::<crate::raw::SpecFile>(),
                Kind::Tags => generator.into_root_schema_for::<crate::raw::TagFile>(),
                Kind::Flags => generator.into_root_schema_for::<crate::raw::FlagsFile>(),
                Kind::Structures => generator.into_root_schema_for::<crate::raw::StructFile>(),
                Kind::Rules => generator.into_root_schema_for::<crate::raw::RulesFile>(),
                Kind::Resolutions => {
                    generator.into_root_schema_for::<crate::raw::ResolutionsFile>()
                }
                Kind::Release => {
                    generator.into_root_schema_for::<crate::amend::snapshot::Snapshot>()
                }
                Kind::Migration => {
                    generator.into_root_schema_for::<crate::amend::migration::Migration>()
                }
                Kind::Overlay => generator.into_root_schema_for::<crate::overlay::Overlay>(),
            };
            schema.insert(
                "$comment".to_string(),
                serde_json::Value::String(
                    "Generated by `hurray-spec schema` from the serde types hurray-codegen reads \
                     this kind of file with; never edit it by hand."
                        .to_string(),
                ),
            );
            let mut text = serde_json::to_string_pretty(&schema)
                .expect("a JSON Schema is a JSON value, which always serializes");
            text.push('\n');
            (kind, text)
        })
        .collect()
}

/// TOML has no null: an optional key is one that may be left out, nothing more. Drops the
/// `null` alternative schemars gives every `Option` (`"type": ["integer", "null"]`, or `anyOf`
/// with `{ "type": "null" }`), so an editor never offers it.
#[cfg(feature = "schema")]
fn without_null(schema: &mut schemars::Schema) {
    use serde_json::Value;
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = &types[..] {
            let only = only.clone();
            object.insert("type".to_string(), only);
        }
    }
    let null = serde_json::json!({ "type": "null" });
    if let Some(Value::Array(alternatives)) = object.get_mut("anyOf") {
        alternatives.retain(|a| *a != null);
        if alternatives.len() == 1 {
            // `allOf` of one keeps a `$ref` beside the key's description, which draft 7
            // would ignore next to a bare `$ref`.
            let only = alternatives.clone();
            object.remove("anyOf");
            object.insert("allOf".to_string(), Value::Array(only));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_the_tools_read_has_a_kind() {
        for (relative, kind) in [
            ("spec.toml", Kind::Spec),
            ("tags/device.toml", Kind::Tags),
            ("flags/file.toml", Kind::Flags),
            ("structures/placement.toml", Kind::Structures),
            ("rules/layouts.toml", Kind::Rules),
            ("resolutions.toml", Kind::Resolutions),
            ("releases/0001.toml", Kind::Release),
            ("migrations/descriptor-1-to-2.toml", Kind::Migration),
        ] {
            assert_eq!(Kind::of(relative), Some(kind), "{relative}");
        }
        for relative in [
            "README.md",
            "migrations/README.md",
            "tags/a/b.toml",
            "x.toml",
        ] {
            assert_eq!(Kind::of(relative), None, "{relative}");
        }
        for folder in crate::load::TABLE_DIRS {
            assert!(
                Kind::of(&format!("{folder}/any.toml")).is_some(),
                "{folder}"
            );
        }
    }

    #[test]
    fn a_directive_is_relative_to_its_file() {
        assert_eq!(
            Kind::Spec.directive("spec.toml"),
            "#:schema ./schema/spec.json"
        );
        assert_eq!(
            Kind::Release.directive("releases/0003.toml"),
            "#:schema ../schema/release.json"
        );
    }

    #[test]
    fn setting_a_directive_replaces_only_the_first_line() {
        let d = "#:schema ../schema/tags.json";
        assert_eq!(with_directive("a = 1\n", d), format!("{d}\na = 1\n"));
        assert_eq!(
            with_directive("#:schema ./old.json\na = 1\n", d),
            format!("{d}\na = 1\n")
        );
        assert_eq!(with_directive("#:schema ./old.json", d), format!("{d}\n"));
        assert_eq!(
            with_directive(&format!("{d}\n# note\n"), d),
            format!("{d}\n# note\n")
        );
    }
}
