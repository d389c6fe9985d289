//! Writing a generated file the way every generating command does: only when its content
//! changed, saying `wrote <path>` on stdout when it did, and an I/O error on stderr.

use std::path::Path;

use hurray_codegen::build::write_if_changed;

/// Write `text` to `path` if it differs from what is there. `Err(())` after reporting an I/O
/// error (the caller exits 2).
pub fn write_reported(path: &Path, text: &str) -> Result<(), ()> {
    match write_if_changed(path, text) {
        Ok(true) => {
            outln!("wrote {}", path.display());
            Ok(())
        }
        Ok(false) => Ok(()),
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            Err(())
        }
    }
}
