//! Spec fixtures: an edit of the real spec/ tree, materialized in a scratch directory.

use std::path::{Path, PathBuf};

use super::root;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    pub description: String,
    #[serde(default)]
    pub edit: Vec<Edit>,
    /// `--against` another tree: a fixture name whose edited spec is the other tree.
    pub against: Option<String>,
    /// Lints this fixture shows passing: they must not fire on it.
    #[serde(default)]
    pub passes: Vec<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    file: String,
    find: Option<String>,
    replace: Option<String>,
    append: Option<String>,
    content: Option<String>,
    remove: Option<bool>,
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Build the edited spec tree of a fixture under `work`.
pub fn materialize(fixture_dir: &Path, work: &Path) -> (Fixture, PathBuf) {
    let fx: Fixture =
        toml::from_str(&std::fs::read_to_string(fixture_dir.join("edit.toml")).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", fixture_dir.display()));
    let spec = work.join("spec");
    copy_dir(&root().join("spec"), &spec);
    for ed in &fx.edit {
        let path = spec.join(&ed.file);
        if ed.remove == Some(true) {
            std::fs::remove_file(&path)
                .unwrap_or_else(|e| panic!("{}: remove {}: {e}", fixture_dir.display(), ed.file));
            continue;
        }
        if let Some(c) = &ed.content {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, c).unwrap();
            continue;
        }
        let mut text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", fixture_dir.display(), ed.file));
        if let (Some(f), Some(r)) = (&ed.find, &ed.replace) {
            let n = text.matches(f.as_str()).count();
            assert_eq!(
                n,
                1,
                "{}: `find` must match exactly once in {} (matched {n} times):\n{f}",
                fixture_dir.display(),
                ed.file
            );
            text = text.replacen(f.as_str(), r, 1);
        }
        if let Some(a) = &ed.append {
            text.push_str(a);
        }
        std::fs::write(&path, text).unwrap();
    }
    (fx, spec)
}
