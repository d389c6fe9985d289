//! `hurray-spec`: the command line of the Hurray spec toolchain.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
