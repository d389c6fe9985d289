//! How a command ends: the exit codes of the CLI contract (1 rejected, 2 usage or I/O), with
//! the message each prints on stderr.

use std::process::ExitCode;

use hurray_runtime::Error;

/// Print a rejection as the CLI contract says and return exit code 1.
pub fn rejected(e: &Error) -> ExitCode {
    // The error's Display is the contract's line: `error[<code>]: <message> (at byte <offset>)`.
    eprintln!("{e}");
    ExitCode::from(1)
}

/// Print a usage or I/O error and return exit code 2.
pub fn usage_error(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}
