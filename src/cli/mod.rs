//! Argument parsing and dispatch. Exit codes: 0 success, 1 the input (spec or data) was
//! rejected, 2 usage or I/O errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod check;

#[derive(Debug, Parser)]
#[command(name = "hurray-spec", version, about = "The Hurray format's machine-readable spec: check it, and decode or encode Hurray data")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum OutputFormat {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load and validate spec/ and check it against every release record.
    Check {
        /// The spec directory.
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        /// Also compare with another spec tree (e.g. a checkout of an older revision).
        #[arg(long)]
        against: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: OutputFormat,
    },
}

pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Check { spec, against, format } => check::run(&spec, against.as_deref(), format.into()),
    }
}

impl From<OutputFormat> for hurray_codegen::diag::Format {
    fn from(f: OutputFormat) -> Self {
        match f {
            OutputFormat::Human => hurray_codegen::diag::Format::Human,
            OutputFormat::Json => hurray_codegen::diag::Format::Json,
            OutputFormat::Sarif => hurray_codegen::diag::Format::Sarif,
            OutputFormat::Github => hurray_codegen::diag::Format::Github,
        }
    }
}
