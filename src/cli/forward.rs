//! Forwarding a data command (`hurray-spec decode …`) to the `hurray` binary, found beside
//! this executable or on `PATH`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The implementor's binary that holds the data commands.
const DATA_BINARY: &str = "hurray";

/// Run `hurray <args>` with this process's standard streams and return its exit code.
pub fn run(args: &[OsString]) -> ExitCode {
    let name = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(binary) = find() else {
        eprintln!(
            "error: `hurray-spec` has no command `{name}`\n\
             help: the data commands (decode, encode) are in the `{DATA_BINARY}` binary, built on \
             the runtime generated from the spec; install it with `cargo install --path hurray-cli` \
             or run it in this repository with `cargo run --bin {DATA_BINARY} -- {name} …`"
        );
        return ExitCode::from(2);
    };
    match Command::new(&binary).args(args).status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(2)),
            None => ExitCode::from(2),
        },
        Err(e) => {
            eprintln!("error: cannot run {}: {e}", binary.display());
            ExitCode::from(2)
        }
    }
}

/// `hurray` beside the running executable (an install or a target directory), else on `PATH`.
fn find() -> Option<PathBuf> {
    let file = format!("{DATA_BINARY}{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&file)));
    beside.filter(|p| p.is_file()).or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(&file))
                .find(|p| p.is_file())
        })
    })
}
