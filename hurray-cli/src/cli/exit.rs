//! How a command ends: the exit codes of the CLI contract (0 accepted, 1 rejected, 2 usage or
//! I/O), the lines each prints on stderr, and the JSON error object `--json` adds on stdout.

use std::path::Path;
use std::process::ExitCode;

use hurray_runtime::Error;
use serde_json::json;

/// Where a rejection is reported: the input's name, and whether stdout carries JSON.
#[derive(Clone, Copy)]
pub struct Report<'a> {
    /// The input as the user named it (`-` for standard input).
    pub input: &'a Path,
    /// `--json`: a rejection is also printed as a JSON object on stdout.
    pub json: bool,
}

/// A runtime's rejection of the data, in the parts the contract prints.
pub struct Rejection<'a> {
    /// The error's Display: `error[<code>]: <message> (at byte <offset>)`.
    pub line: String,
    /// The stable kebab-case code.
    pub code: &'a str,
    /// The rule's id (`None` under a resource limit).
    pub rule: Option<&'a str>,
    /// The byte offset in the input.
    pub offset: u64,
    /// The detail text.
    pub detail: &'a str,
}

impl Report<'_> {
    /// The input's name for messages.
    fn name(&self) -> String {
        if self.input.as_os_str() == "-" {
            "standard input".to_string()
        } else {
            self.input.display().to_string()
        }
    }

    /// Print a rejection of the data and return exit code 1: on stderr the line
    /// `error[<code>]: <message> (at byte <offset>)` and a second line naming the input; with
    /// `--json`, on stdout the object `{"kind": "error", "code", "rule", "offset", "message",
    /// "detail", "input"}` (`rule` is null for a refusal under a resource limit, which is a
    /// policy of the reader, not a rule of the format).
    pub fn rejected(&self, e: &Error) -> ExitCode {
        self.rejection(&Rejection {
            line: e.to_string(),
            code: e.code(),
            rule: e.rule().map(|r| r.id()),
            offset: e.offset(),
            detail: e.detail(),
        })
    }

    /// [`Report::rejected`] from the parts of a rejection: what a runtime other than
    /// `hurray-runtime` (the released reader of `migrate`) reports through.
    pub fn rejection(&self, e: &Rejection<'_>) -> ExitCode {
        // The error's Display is the contract's line: `error[<code>]: <message> (at byte <offset>)`.
        eprintln!("{}", e.line);
        eprintln!("  in {}", self.name());
        if self.json {
            let object = json!({
                "kind": "error",
                "code": e.code,
                "rule": e.rule,
                "offset": e.offset,
                "message": e.line,
                "detail": e.detail,
                "input": self.name(),
            });
            outln!(
                "{}",
                serde_json::to_string_pretty(&object).unwrap_or_default()
            );
        }
        ExitCode::from(1)
    }

    /// Print a refusal of `encode`'s JSON input (a key unknown, missing or repeated, a value
    /// that contradicts another or does not fit) and return exit code 1: the line
    /// `error[<code>]: <json path>: <message>` and a line naming the input.
    pub fn refused(&self, code: &str, path: &str, message: impl std::fmt::Display) -> ExitCode {
        if path.is_empty() {
            eprintln!("error[{code}]: {message}");
        } else {
            eprintln!("error[{code}]: {path}: {message}");
        }
        eprintln!("  in {}", self.name());
        ExitCode::from(1)
    }
}

impl Report<'_> {
    /// Print a refusal of `migrate` and return exit code 1: the line
    /// `error[<code>]: <message>` (the message names the rule, the byte offset and the
    /// migration specification's entry) and a line naming the input; with `--json`, the same
    /// object as [`Report::rejected`] on stdout.
    pub fn migration_refused(&self, e: &hurray_runtime::migrate::MigrateError) -> ExitCode {
        eprintln!("error[{}]: {e}", e.code());
        eprintln!("  in {}", self.name());
        if self.json {
            let object = json!({
                "kind": "error",
                "code": e.code(),
                "rule": e.rule(),
                "offset": e.offset(),
                "message": e.to_string(),
                "input": self.name(),
            });
            outln!(
                "{}",
                serde_json::to_string_pretty(&object).unwrap_or_default()
            );
        }
        ExitCode::from(1)
    }
}

/// Print a usage or I/O error and return exit code 2.
pub fn usage_error(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}
