//! Source files of the spec and byte spans into them, for diagnostics that point into the TOML.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A byte range in one spec file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span {
            file,
            start: range.start as u32,
            end: range.end as u32,
        }
    }

    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One loaded spec file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as shown to the user, relative to the working directory where possible.
    pub display: String,
    pub path: PathBuf,
    pub text: String,
    /// Where each line starts, computed when a diagnostic first asks for a line: most files
    /// (the release records among them) are read and never pointed into.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

impl SourceFile {
    pub fn new(display: String, path: PathBuf, text: String) -> SourceFile {
        SourceFile {
            display,
            path,
            text,
            line_starts: std::sync::OnceLock::new(),
        }
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let starts = self.line_starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(self.text.match_indices('\n').map(|(i, _)| i + 1));
            starts
        });
        let line = match starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = starts[line];
        let end = offset.min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count())
            + 1;
        LineCol {
            line: line + 1,
            col,
        }
    }
}

/// Every file the spec was loaded from.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, display: String, path: PathBuf, text: String) -> FileId {
        self.files.push(SourceFile::new(display, path, text));
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// `path:line:col` of the start of a span.
    pub fn locate(&self, span: Span) -> String {
        let f = self.get(span.file);
        format!("{}:{}", f.display, f.line_col(span.start as usize))
    }

    /// The file whose path ends with `suffix` (used by tests and the amendment checker).
    pub fn find(&self, suffix: &Path) -> Option<FileId> {
        self.files()
            .find(|(_, f)| f.path.ends_with(suffix))
            .map(|(id, _)| id)
    }

    /// The source text a span covers.
    pub fn snippet(&self, span: Span) -> &str {
        self.get(span.file).text.get(span.range()).unwrap_or("")
    }
}
