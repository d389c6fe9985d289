//! Spec overlays: a small edit of a spec tree (`edit.toml`), applied to a copy. Amendment
//! fixtures are overlays on the released spec; the second runtimes of the evolvability tests
//! are generated from overlaid trees by their build scripts.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// An overlay: what it shows, and the edits that make it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    pub description: String,
    #[serde(default)]
    pub edit: Vec<Edit>,
    /// For fixtures checked `--against` another fixture's tree.
    pub against: Option<String>,
    /// Lints a fixture shows passing.
    #[serde(default)]
    pub passes: Vec<String>,
}

/// One edit of one file: replace exactly one match, append, write whole, or remove.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    pub file: String,
    pub find: Option<String>,
    pub replace: Option<String>,
    pub append: Option<String>,
    pub content: Option<String>,
    pub remove: Option<bool>,
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

/// Copy `spec` to `work/spec` and apply the overlay; return the overlay and the new tree.
pub fn materialize(
    spec: &Path,
    edit_toml: &Path,
    work: &Path,
) -> std::io::Result<(Overlay, PathBuf)> {
    let ov = read(edit_toml)?;
    let out = work.join("spec");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    copy_dir(spec, &out)?;
    for ed in &ov.edit {
        let path = out.join(&ed.file);
        if ed.remove == Some(true) {
            std::fs::remove_file(&path)?;
            continue;
        }
        if let Some(c) = &ed.content {
            if let Some(d) = path.parent() {
                std::fs::create_dir_all(d)?;
            }
            std::fs::write(&path, c)?;
            continue;
        }
        let mut text = std::fs::read_to_string(&path)
            .map_err(|e| io(format!("{}: {}: {e}", edit_toml.display(), ed.file)))?;
        if let (Some(f), Some(r)) = (&ed.find, &ed.replace) {
            let n = text.matches(f.as_str()).count();
            if n != 1 {
                return Err(io(format!(
                    "{}: `find` must match exactly once in {} (matched {n} times):\n{f}",
                    edit_toml.display(),
                    ed.file
                )));
            }
            text = text.replacen(f.as_str(), r, 1);
        }
        if let Some(a) = &ed.append {
            text.push_str(a);
        }
        std::fs::write(&path, text)?;
    }
    Ok((ov, out))
}
