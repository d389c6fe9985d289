//! The one error type of every reader and writer: a stable kebab-case code, the byte offset,
//! and the rule it breaks. As wasmparser's reader errors, an error is one box made on a cold
//! path: a `Result` is one word wider than its value, and the text is rendered (from
//! `format_args!` where the caller has one) only when an error is made.

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

/// What was found, as the caller has it: a `String`, a `&str`, or `format_args!(…)` (rendered
/// only when an error or a warning is kept).
pub trait Detail {
    /// The text.
    fn render(self) -> String;
}

impl Detail for String {
    fn render(self) -> String {
        self
    }
}

impl Detail for &str {
    fn render(self) -> String {
        self.to_string()
    }
}

impl Detail for &String {
    fn render(self) -> String {
        self.clone()
    }
}

impl Detail for std::borrow::Cow<'_, str> {
    fn render(self) -> String {
        self.into_owned()
    }
}

impl Detail for fmt::Arguments<'_> {
    fn render(self) -> String {
        fmt::format(self)
    }
}

impl Error {
    /// A rejection of `rule` at absolute byte `offset`. Only the runtime's readers, its
    /// generated code and `#[derive(HurraySection)]`'s expansion make errors.
    #[doc(hidden)]
    #[cold]
    #[inline(never)]
    pub fn new(rule: Rule, offset: u64, detail: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            rule,
            offset,
            detail: detail.into(),
        }))
    }

    /// [`Error::new`] with the detail as `format_args!(…)`: the caller's hot path only builds
    /// the arguments; the text is rendered here, on the cold path.
    #[cold]
    #[inline(never)]
    pub fn fmt(rule: Rule, offset: u64, detail: fmt::Arguments<'_>) -> Error {
        Error::new(rule, offset, fmt::format(detail))
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
