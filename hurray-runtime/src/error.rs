//! The one error type of every reader and writer: a stable kebab-case code, the byte offset,
//! and the rule it breaks. Errors are boxed so `Result`s stay one word wide.

use std::fmt;

use crate::generated::rules::Rule;

/// A rejection: which rule, where, and what was found.
///
/// Its `Display` is the line `hurray decode` prints: the code, what was found, the rule, and
/// the byte offset (`error[<code>]: <detail> (rule <id>: <text>) (at byte <offset>)`).
///
/// ```
/// use hurray_runtime::{ReaderConfig, descriptor};
///
/// let error = descriptor::read(b"HRRX", &ReaderConfig::new()).unwrap_err();
/// assert_eq!(error.offset(), 0);
/// let line = error.to_string();
/// assert!(line.starts_with(&format!("error[{}]: ", error.code())));
/// assert!(line.ends_with("(at byte 0)"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    rule: Rule,
    offset: u64,
    detail: String,
}

impl Error {
    /// A rejection of `rule` at absolute byte `offset`. Only the runtime's readers, its
    /// generated code and `#[derive(HurraySection)]`'s expansion make errors.
    #[doc(hidden)]
    #[cold]
    pub fn new(rule: Rule, offset: u64, detail: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            rule,
            offset,
            detail: detail.into(),
        }))
    }

    /// The stable kebab-case error code (from the rule's entry in `spec/rules`).
    pub fn code(&self) -> &'static str {
        self.0.rule.code()
    }

    /// The rule the input breaks.
    pub fn rule(&self) -> Rule {
        self.0.rule
    }

    /// Absolute byte offset of the offending field in the input.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// What was found, in one sentence.
    pub fn detail(&self) -> &str {
        &self.0.detail
    }

    /// The same error at another offset base (used when a descriptor is read inside a file).
    pub fn rebase(mut self, base: u64) -> Error {
        self.0.offset += base;
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error[{}]: {} (rule {}: {}) (at byte {})",
            self.code(),
            self.0.detail,
            self.0.rule.id(),
            self.0.rule.text(),
            self.0.offset
        )
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error[{}] at byte {}: {} (rule {})",
            self.code(),
            self.0.offset,
            self.0.detail,
            self.0.rule.id()
        )
    }
}

impl std::error::Error for Error {}
