//! The one error type of every reader and writer: a stable kebab-case code, the byte offset,
//! and the rule it breaks (or, for an input a reader refuses by policy, the resource limit it
//! exceeds). As wasmparser's reader errors, an error is one box made on a cold path: a
//! `Result` is one word wider than its value, and the text is rendered (from `format_args!`
//! where the caller has one) only when an error is made.

use std::fmt;

use crate::generated::rules::Rule;
use crate::limit::Limit;

/// The code of every refusal under a reader's resource limit ([`Error::limit`]).
pub const LIMIT_EXCEEDED: &str = "limit-exceeded";

/// A rejection: which rule (or which limit), where, and what was found.
///
/// Its `Display` is the line `hurray decode` prints: the code, what was found, the rule (or the
/// limit), and the byte offset (`error[<code>]: <detail> (rule <id>: <text>) (at byte <offset>)`).
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
    cause: Cause,
    offset: u64,
    detail: String,
}

/// Why the input was refused: it breaks a rule of the format, or it exceeds a limit the
/// reader was configured with (a policy, not a verdict on the input).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cause {
    Rule(Rule),
    Limit(Limit),
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
            cause: Cause::Rule(rule),
            offset,
            detail: detail.into(),
        }))
    }

    /// [`Error::new`] with the detail as `format_args!(…)`: the caller's hot path only builds
    /// the arguments; the text is rendered here, on the cold path.
    #[doc(hidden)]
    #[cold]
    #[inline(never)]
    pub fn fmt(rule: Rule, offset: u64, detail: fmt::Arguments<'_>) -> Error {
        Error::new(rule, offset, fmt::format(detail))
    }

    /// A refusal under a resource limit of the reader (not a rule of the format) at
    /// absolute byte `offset`: its code is [`LIMIT_EXCEEDED`].
    #[cold]
    pub fn limit_exceeded(limit: Limit, offset: u64, detail: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            cause: Cause::Limit(limit),
            offset,
            detail: detail.into(),
        }))
    }

    /// The stable kebab-case error code (from the rule's entry in `spec/rules`), or
    /// [`LIMIT_EXCEEDED`] for a refusal under a resource limit.
    pub fn code(&self) -> &'static str {
        match self.0.cause {
            Cause::Rule(r) => r.code(),
            Cause::Limit(_) => LIMIT_EXCEEDED,
        }
    }

    /// The rule the input breaks; `None` for a refusal under a resource limit, which breaks
    /// no rule ([`Error::limit`]).
    pub fn rule(&self) -> Option<Rule> {
        match self.0.cause {
            Cause::Rule(r) => Some(r),
            Cause::Limit(_) => None,
        }
    }

    /// The resource limit the input exceeds, for a refusal by the reader's policy.
    pub fn limit(&self) -> Option<Limit> {
        match self.0.cause {
            Cause::Rule(_) => None,
            Cause::Limit(l) => Some(l),
        }
    }

    /// The rule's id (`HDR-4`), or the limit's name (`max-descriptor-length`).
    pub fn id(&self) -> &'static str {
        match self.0.cause {
            Cause::Rule(r) => r.id(),
            Cause::Limit(l) => l.name(),
        }
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
        match self.0.cause {
            Cause::Rule(r) => write!(
                f,
                "error[{}]: {} (rule {}: {}) (at byte {})",
                self.code(),
                self.0.detail,
                r.id(),
                r.text(),
                self.0.offset
            ),
            Cause::Limit(l) => write!(
                f,
                "error[{}]: {} (limit {}: a policy of this reader, not a rule of the format) (at byte {})",
                self.code(),
                self.0.detail,
                l.name(),
                self.0.offset
            ),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.0.cause {
            Cause::Rule(_) => "rule",
            Cause::Limit(_) => "limit",
        };
        write!(
            f,
            "error[{}] at byte {}: {} ({what} {})",
            self.code(),
            self.0.offset,
            self.0.detail,
            self.id()
        )
    }
}

impl std::error::Error for Error {}
