//! Spec overlays: a small amendment of a spec tree (`edit.toml`), applied to a copy. Amendment
//! fixtures are overlays on the spec, the walkthrough test applies its steps as overlays, and
//! the second runtimes of the evolvability tests are generated from overlaid trees by their
//! build scripts.
//!
//! An overlay states its intent against the model rather than against today's text, so that
//! it still means the same after any legal amendment of `spec/`:
//!
//! - the base is the spec **as released**: when `spec/` holds changes not yet recorded, the
//!   copy records them first (what `hurray-spec release` would write), so "the next minor"
//!   is always a version no release has used;
//! - `[[bump]] axis = "descriptor"` moves an axis's `current` to its next minor (or `to =
//!   "major"`), whatever it is today;
//! - `[[edit]] structure = "mxfp"` with `append` adds `[[structure.field]]` tables after the
//!   structure's last field and updates its declared `size` (`structure` alone only updates
//!   the size, after a `find`/`replace` moved fields); `flags = "descriptor_flags"` with
//!   `append` adds `[[flags.bit]]` tables to that set;
//! - every text (`file`, `copy`, `find`, `replace`, `append`, `content`) may name the base's
//!   facts with placeholders, expanded by [`Vars`](crate::overlay::Vars): `${descriptor}` (an axis's current
//!   version), `${descriptor+minor}`, `${descriptor+major}`, `${descriptor.initial}`,
//!   `${free:element_type}` (the lowest unallocated value of the space's public ranges),
//!   `${free-bit:descriptor_flags}` (and `${free-bit-value:descriptor_flags}`, the value with
//!   only that bit set), and the latest release record's `${release}` (label),
//!   `${record}` and `${record+1}` (file stems), `${sequence}`, `${sequence+1}`,
//!   `${previous}`, `${fingerprint}` and `${fingerprint.short}`; `${carry-all}` is an S5
//!   migration's `[[carry]]` of every space, flag set and structure; `${text:F10}` is a rule's
//!   text as the loader wrote it in (the reject manifest quotes texts by it);
//! - every name an overlay adds starts with `x_` (`X_` for a flag bit, `X-` for a rule id), a
//!   convention no real amendment follows, so no real amendment allocates it first.
//!
//! `find`/`replace` stays for edits that are about a released item's own text (a rebind, a
//! deprecation, a broken key): released items do not move under a legal amendment.
//!
//! ```
//! use hurray_codegen::overlay;
//! let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
//! let work = std::env::temp_dir().join(format!("hurray-overlay-doc-{}", std::process::id()));
//! let edit = work.join("edit.toml");
//! std::fs::create_dir_all(&work).unwrap();
//! std::fs::write(&edit, r#"
//! description = "a new device, one minor past the released spec"
//! [[bump]]
//! axis = "descriptor"
//! [[edit]]
//! file = "tags/device.toml"
//! append = """
//!
//! [[tag]]
//! value = ${free:device}
//! name = "x_npu"
//! title = "a neural accelerator"
//! since = "${descriptor+minor}"
//! memory_classes = ["standard"]
//! """
//! "#).unwrap();
//! let m = overlay::materialize(&spec, &edit, &work).unwrap();
//! let checked = hurray_codegen::check(&m.tree, None).unwrap();
//! assert!(!checked.diags.has_errors(), "a legal amendment");
//! std::fs::remove_dir_all(&work).unwrap();
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::{AxisStyle, RangeKind, Spec, Status, Version};

/// An overlay: what it shows, and the bumps and edits that make it.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    /// What the overlay shows, one sentence.
    pub description: String,
    /// Axis bumps, applied before the edits.
    #[serde(default)]
    pub bump: Vec<Bump>,
    /// File edits, applied in order after the bumps.
    #[serde(default)]
    pub edit: Vec<Edit>,
    /// For fixtures checked `--against` another fixture's tree.
    pub against: Option<String>,
    /// Lints a fixture shows passing.
    #[serde(default)]
    pub passes: Vec<String>,
    /// For a fixture whose findings about other items depend on what amendments the spec has
    /// had (a spec marked draft again reports every axis a release moved; a field inserted
    /// before others moves every field appended since): the items its expected findings are
    /// limited to, as `file:item` locations (`spec.toml:axis[container]`), each covering the
    /// item's own keys but not the entries of its lists.
    #[serde(default)]
    pub about: Vec<String>,
}

/// Move an axis's `current` version one step past the base's.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Bump {
    /// The axis whose `current` moves.
    pub axis: String,
    /// `minor` (the default) or `major`.
    #[serde(default)]
    pub to: Step,
}

/// The step of a [`Bump`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// The next minor version (on a scheme axis, the next `scheme_version`).
    #[default]
    Minor,
    /// The next major version, minor 0 (major.minor axes only).
    Major,
}

/// One edit of one file: replace exactly one match, append (to the file, or to the list of a
/// named structure or flag set), write whole, or remove.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// The file of the spec tree edited, relative to its root.
    pub file: String,
    /// The text to find, exactly once.
    pub find: Option<String>,
    /// What replaces `find`.
    pub replace: Option<String>,
    /// Text added at the end of the file (or of the named structure or flag set).
    pub append: Option<String>,
    /// The `[[structure]]` this edit is about: `append` holds `[[structure.field]]` tables
    /// that go after its last field. Either way its declared `size`, if it has one, is set
    /// to what its fields add up to once the overlay's every edit is made, as the spec
    /// editor would.
    pub structure: Option<String>,
    /// The `[[flags]]` set `append` adds `[[flags.bit]]` tables to.
    pub flags: Option<String>,
    /// Start the file as a copy of this file of the tree (then `find`/`replace` edit it).
    pub copy: Option<String>,
    /// The whole new text of the file.
    pub content: Option<String>,
    /// `true`: delete the file.
    pub remove: Option<bool>,
}

/// A materialized overlay: the overlay, the edited tree, and the base's facts its texts (and
/// a fixture's expected output) may name.
#[derive(Debug)]
pub struct Materialized {
    pub overlay: Overlay,
    pub tree: PathBuf,
    pub vars: Vars,
}

/// The facts of a base spec that overlays and expected outputs name with `${…}`.
#[derive(Clone, Debug, Default)]
pub struct Vars {
    values: BTreeMap<String, String>,
}

impl Vars {
    /// The placeholders of a loaded base spec and its release history.
    pub fn of(spec: &Spec, latest: Option<&crate::amend::snapshot::ReleaseMeta>) -> Vars {
        let mut values = BTreeMap::new();
        for axis in &spec.axes {
            let show = |v: Version| axis.show(v);
            values.insert(axis.name.clone(), show(axis.current));
            values.insert(format!("{}.initial", axis.name), show(axis.initial));
            values.insert(
                format!("{}+minor", axis.name),
                show(next(axis.current, Step::Minor)),
            );
            if axis.style == AxisStyle::MajorMinor {
                values.insert(
                    format!("{}+major", axis.name),
                    show(next(axis.current, Step::Major)),
                );
            }
        }
        for space in &spec.spaces {
            let free = space
                .ranges
                .iter()
                .filter(|r| matches!(r.kind, RangeKind::Public { .. }))
                .flat_map(|r| r.from..=r.to)
                .find(|v| space.tag_by_value(*v).is_none());
            if let Some(v) = free {
                values.insert(format!("free:{}", space.name), format!("{v:#04x}"));
            }
        }
        for set in &spec.flag_sets {
            if let Some(bit) = (0..set.width.bits()).find(|b| (set.allocated_mask() >> b) & 1 == 0)
            {
                values.insert(format!("free-bit:{}", set.name), bit.to_string());
                values.insert(
                    format!("free-bit-value:{}", set.name),
                    (1u64 << bit).to_string(),
                );
            }
        }
        if let Some(r) = latest {
            values.insert("release".into(), r.label.clone());
            values.insert("record".into(), format!("{:04}", r.sequence));
            values.insert("record+1".into(), format!("{:04}", r.sequence + 1));
            values.insert("sequence".into(), r.sequence.to_string());
            values.insert("sequence+1".into(), (r.sequence + 1).to_string());
            values.insert("previous".into(), r.previous.clone());
            values.insert("fingerprint".into(), r.fingerprint.clone());
            // As the checker's messages show a fingerprint: the algorithm and 12 hex digits.
            let short: String = r.fingerprint.chars().take(19).collect();
            values.insert("fingerprint.short".into(), short);
        }
        // An S5 migration that carries every space, flag set and structure over unchanged.
        let mut carry = String::new();
        let names = (spec.spaces.iter().map(|s| ("space", &s.name)))
            .chain(spec.flag_sets.iter().map(|f| ("flags", &f.name)))
            .chain(spec.structures.iter().map(|s| ("structure", &s.name)));
        for (kind, name) in names {
            carry.push_str(&format!("[[carry]]\n{kind} = \"{name}\"\n\n"));
        }
        values.insert("carry-all".into(), carry);
        // Every rule's text as the loader wrote it in (its placeholders filled from the
        // tables), so what quotes a text (the reject manifest) follows an amendment.
        for rule in &spec.rules {
            values.insert(format!("text:{}", rule.id), rule.text.clone());
        }
        Vars { values }
    }

    /// The value of one placeholder name (`descriptor+minor`, `free:device`, …).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every placeholder with its value.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Replace every `${name}` in `text`; an unknown name is an error naming it.
    pub fn expand(&self, text: &str) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("${") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let Some(end) = after.find('}') else {
                return Err(format!("unclosed placeholder in: {text}"));
            };
            let name = &after[..end];
            match self.get(name) {
                Some(v) => out.push_str(v),
                None => {
                    return Err(format!(
                        "unknown placeholder `${{{name}}}`; known: {}",
                        self.values.keys().cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// The version one step past `v`.
fn next(v: Version, step: Step) -> Version {
    match step {
        Step::Minor => Version::new(v.major, v.minor + 1),
        Step::Major => Version::new(v.major + 1, 0),
    }
}

fn io(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg)
}

/// Copy a directory tree.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()))?;
        } else {
            std::fs::copy(&p, to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// Read an overlay file.
pub fn read(edit_toml: &Path) -> std::io::Result<Overlay> {
    let text = std::fs::read_to_string(edit_toml)?;
    toml::from_str(&text).map_err(|e| io(format!("{}: {e}", edit_toml.display())))
}

/// Record the changes of a released spec tree that no release record holds yet, as
/// `hurray-spec release` would. A draft, or a tree that does not check clean, is left as is.
/// Returns the latest release record afterwards.
pub fn seal_pending(tree: &Path) -> std::io::Result<Option<crate::amend::snapshot::ReleaseMeta>> {
    use crate::amend::{self, history};
    let loaded = crate::check(tree, None)?;
    let mut sources = crate::source::SourceMap::default();
    let mut diags = crate::diag::Diagnostics::default();
    let hist = history::load(tree, &mut sources, &mut diags);
    let spec = loaded.clean().filter(|s| s.status == Status::Released);
    if let Some(record) = spec.and_then(|s| amend::next_record(s, &hist, None)) {
        let path = history::dir(tree).join(format!("{:04}.toml", record.release.sequence));
        std::fs::write(path, crate::schema::record_text(tree, &record))?;
        amend::archive::write(tree, record.release.sequence)?;
        return Ok(Some(record.release));
    }
    Ok(hist.latest().map(|s| s.release.clone()))
}

/// Copy `spec` to `work/spec`, record its pending changes (see [`seal_pending`]), and apply
/// the overlay.
pub fn materialize(spec: &Path, edit_toml: &Path, work: &Path) -> std::io::Result<Materialized> {
    let overlay = read(edit_toml)?;
    let out = work.join("spec");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    copy_dir(spec, &out)?;
    let latest = seal_pending(&out)?;
    let base = crate::load(&out)?;
    let Some(model) = base.spec.as_ref() else {
        return Err(io(format!(
            "{}: the spec in {} does not load, so it cannot be overlaid; run `hurray-spec check --spec {}`",
            edit_toml.display(),
            spec.display(),
            spec.display()
        )));
    };
    let vars = Vars::of(model, latest.as_ref());
    apply(&out, &overlay, &vars).map_err(|what| io(format!("{}: {what}", edit_toml.display())))?;
    Ok(Materialized {
        overlay,
        tree: out,
        vars,
    })
}

/// Set an axis's `current` to its next version, keeping the file's formatting.
/// Apply an overlay's bumps, then its edits, to the spec tree `tree` in place; `vars` are the
/// facts of the spec the overlay amends (the versions its bumps step from).
pub fn apply(tree: &Path, overlay: &Overlay, vars: &Vars) -> Result<(), String> {
    for b in &overlay.bump {
        bump(vars, tree, b)?;
    }
    for ed in &overlay.edit {
        apply_edit(vars, tree, ed)?;
    }
    // Declared sizes follow the fields once every edit is made (an edit may need a later one,
    // in another file, before the spec loads again).
    for ed in &overlay.edit {
        if let Some(name) = &ed.structure {
            let path = tree.join(vars.expand(&ed.file)?);
            let mut doc = parse_doc(&path)?;
            refresh_size(tree, &path, &mut doc, name)?;
        }
    }
    Ok(())
}

/// Set an axis's `current` to its next version, keeping the file's formatting (and the
/// value's kind: a `"major.minor"` string or a scheme's integer).
fn bump(vars: &Vars, tree: &Path, b: &Bump) -> Result<(), String> {
    let step = match b.to {
        Step::Minor => "minor",
        Step::Major => "major",
    };
    let v = vars.get(&format!("{}+{step}", b.axis)).ok_or_else(|| {
        format!(
            "bump: the spec has no axis `{}` with a next {step} version",
            b.axis
        )
    })?;
    let path = tree.join("spec.toml");
    let mut doc = parse_doc(&path)?;
    let slot = named_table(&mut doc, "axis", &b.axis)
        .ok_or_else(|| format!("bump: spec.toml has no [[axis]] named `{}`", b.axis))?
        .get_mut("current")
        .and_then(toml_edit::Item::as_value_mut)
        .ok_or_else(|| format!("bump: axis `{}` has no `current`", b.axis))?;
    let value = match slot.as_integer() {
        Some(_) => toml_edit::Value::from(
            v.parse::<i64>()
                .map_err(|e| format!("bump: `{v}` on axis `{}`: {e}", b.axis))?,
        ),
        None => toml_edit::Value::from(v),
    };
    let decor = slot.decor().clone();
    *slot = value;
    *slot.decor_mut() = decor;
    write(&path, &doc.to_string())
}

/// Apply one edit, its texts expanded.
fn apply_edit(vars: &Vars, tree: &Path, ed: &Edit) -> Result<(), String> {
    let x = |t: &Option<String>| t.as_deref().map(|t| vars.expand(t)).transpose();
    let file = vars.expand(&ed.file)?;
    let path = tree.join(&file);
    if ed.remove == Some(true) {
        return std::fs::remove_file(&path).map_err(|e| format!("{file}: {e}"));
    }
    if let Some(c) = x(&ed.content)? {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).map_err(|e| format!("{file}: {e}"))?;
        }
        return write(&path, &c);
    }
    if let Some(from) = &ed.copy {
        let from = vars.expand(from)?;
        std::fs::copy(tree.join(&from), &path).map_err(|e| format!("{from}: {e}"))?;
    }
    let mut text = std::fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
    if let (Some(f), Some(r)) = (x(&ed.find)?, x(&ed.replace)?) {
        let n = text.matches(f.as_str()).count();
        if n != 1 {
            return Err(format!(
                "`find` must match exactly once in {file} (matched {n} times):\n{f}"
            ));
        }
        text = text.replacen(f.as_str(), &r, 1);
    }
    let append = x(&ed.append)?;
    let list = match (&ed.structure, &ed.flags) {
        (Some(s), None) => Some(("structure", "field", s)),
        (None, Some(f)) => Some(("flags", "bit", f)),
        (None, None) => None,
        (Some(_), Some(_)) => {
            return Err("an edit names a structure or a flag set, not both".into());
        }
    };
    let Some((kind, item, name)) = list else {
        if let Some(a) = append {
            text.push_str(&a);
        }
        return write(&path, &text);
    };
    write(&path, &text)?;
    if let Some(a) = append {
        let mut doc = parse_doc(&path)?;
        append_into(&mut doc, kind, item, name, &a)?;
        write(&path, &doc.to_string())?;
    }
    Ok(())
}

/// Append the `[[<kind>.<item>]]` tables of `text` to the list of the `[[<kind>]]` named
/// `name` (after its last entry, keeping the file's formatting).
fn append_into(
    doc: &mut toml_edit::DocumentMut,
    kind: &str,
    item: &str,
    name: &str,
    text: &str,
) -> Result<(), String> {
    let added: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| format!("the text appended to {kind} `{name}`: {e}"))?;
    let entries = added
        .get(kind)
        .and_then(|s| s.get(item))
        .and_then(toml_edit::Item::as_array_of_tables)
        .ok_or_else(|| {
            format!("the text appended to {kind} `{name}` must be `[[{kind}.{item}]]` tables")
        })?;
    let list = named_table(doc, kind, name)
        .ok_or_else(|| format!("no [[{kind}]] named `{name}`"))?
        .get_mut(item)
        .and_then(toml_edit::Item::as_array_of_tables_mut)
        .ok_or_else(|| format!("{kind} `{name}` has no `{item}` list to append to"))?;
    for entry in entries.iter() {
        let new_name = entry.get("name").and_then(|n| n.as_str()).unwrap_or("");
        if list
            .iter()
            .any(|t| t.get("name").and_then(|n| n.as_str()) == Some(new_name))
        {
            return Err(format!(
                "{kind} `{name}` already has `{new_name}`: the spec now defines what this overlay adds; rename the overlay's {item}"
            ));
        }
        let mut t = entry.clone();
        // Without a position the table is written right after the list's last entry.
        t.set_position(None);
        list.push(t);
    }
    Ok(())
}

/// Set the declared `size` of structure `name` (if it declares one) to what its fields add
/// up to, computed by loading the edited tree.
fn refresh_size(
    tree: &Path,
    path: &Path,
    doc: &mut toml_edit::DocumentMut,
    name: &str,
) -> Result<(), String> {
    let declared = named_table(doc, "structure", name)
        .ok_or_else(|| format!("no [[structure]] named `{name}`"))?
        .get("size")
        .and_then(toml_edit::Item::as_value)
        .map(|v| v.decor().clone());
    let Some(decor) = declared else {
        return Ok(());
    };
    let loaded = crate::load(tree).map_err(|e| e.to_string())?;
    let size = loaded
        .spec
        .as_ref()
        .and_then(|s| s.structure_id(name).map(|id| s.structure(id)))
        .and_then(|s| s.const_size())
        .ok_or_else(|| {
            format!(
                "structure `{name}` declares a size, but its edited fields have no constant size"
            )
        })?;
    let mut v = toml_edit::Value::from(size as i64);
    *v.decor_mut() = decor;
    if let Some(t) = named_table(doc, "structure", name) {
        t["size"] = toml_edit::Item::Value(v);
    }
    write(path, &doc.to_string())
}

/// The `[[<kind>]]` table named `name`.
fn named_table<'d>(
    doc: &'d mut toml_edit::DocumentMut,
    kind: &str,
    name: &str,
) -> Option<&'d mut toml_edit::Table> {
    doc.get_mut(kind)
        .and_then(toml_edit::Item::as_array_of_tables_mut)?
        .iter_mut()
        .find(|t| t.get("name").and_then(|n| n.as_str()) == Some(name))
}

fn parse_doc(path: &Path) -> Result<toml_edit::DocumentMut, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.parse().map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        let mut values = BTreeMap::new();
        values.insert("alpha+minor".to_string(), "1.1".to_string());
        values.insert("scheme.beta+minor".to_string(), "2".to_string());
        Vars { values }
    }

    #[test]
    fn placeholders_expand_and_an_unknown_one_is_named() {
        let v = vars();
        assert_eq!(
            v.expand("since = \"${alpha+minor}\", { x = 1 }").unwrap(),
            "since = \"1.1\", { x = 1 }"
        );
        let e = v.expand("${alpha+patch}").unwrap_err();
        assert!(
            e.contains("`${alpha+patch}`") && e.contains("alpha+minor"),
            "{e}"
        );
        assert!(v.expand("${alpha").is_err());
    }

    #[test]
    fn a_bump_keeps_the_value_kind_and_the_files_text() {
        let dir = std::env::temp_dir().join(format!("hurray-overlay-bump-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = "# axes\n[[axis]]\nname = \"alpha\"\ncurrent = \"1.0\" # the current one\n\n[[axis]]\nname = \"scheme.beta\"\ncurrent = 1\n";
        std::fs::write(dir.join("spec.toml"), text).unwrap();
        for axis in ["alpha", "scheme.beta"] {
            let b = Bump {
                axis: axis.to_string(),
                to: Step::Minor,
            };
            bump(&vars(), &dir, &b).unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(dir.join("spec.toml")).unwrap(),
            text.replace("\"1.0\"", "\"1.1\"")
                .replace("current = 1\n", "current = 2\n")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fields_are_appended_after_the_structures_last_field() {
        let mut doc: toml_edit::DocumentMut = "[[structure]]\nname = \"a\"\n\n[[structure.field]]\nname = \"f\"\n\n[[structure]]\nname = \"b\"\n\n[[structure.field]]\nname = \"g\"\n"
            .parse()
            .unwrap();
        append_into(
            &mut doc,
            "structure",
            "field",
            "a",
            "[[structure.field]]\nname = \"x_new\"\n",
        )
        .unwrap();
        let text = doc.to_string();
        let (f, new, b) = (
            text.find("\"f\"").unwrap(),
            text.find("\"x_new\"").unwrap(),
            text.find("\"b\"").unwrap(),
        );
        assert!(f < new && new < b, "{text}");
        // A name the structure already has is refused, naming the collision.
        let e = append_into(
            &mut doc,
            "structure",
            "field",
            "b",
            "[[structure.field]]\nname = \"g\"\n",
        )
        .unwrap_err();
        assert!(e.contains("already has `g`"), "{e}");
    }
}
