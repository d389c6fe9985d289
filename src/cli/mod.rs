//! Argument parsing and dispatch. Exit codes: 0 success, 1 the input (spec or data) was
//! rejected, 2 usage or I/O errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod check;
mod decode;
mod docs;
mod file;
mod json;
mod summary;

#[derive(Debug, Parser)]
#[command(
    name = "hurray-spec",
    version,
    about = "The Hurray format's machine-readable spec: check it, and decode or encode Hurray data"
)]
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
    /// List every lint `check` can report: id, the rule it enforces, level, summary.
    Lints {
        #[arg(long)]
        json: bool,
    },
    /// Record the current spec as a release (append-only, in spec/releases).
    Release {
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        /// A label for the record (default: the versions that changed).
        #[arg(long)]
        label: Option<String>,
    },
    /// Regenerate the Markdown tables under docs/spec from spec/ (or check them with --check).
    Docs {
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        #[arg(long, default_value = "docs/spec")]
        out: PathBuf,
        /// Fail if a page differs instead of writing it.
        #[arg(long)]
        check: bool,
    },
    /// Decode a descriptor (HRRY) or a file (HRRYFILE), detected by its magic.
    Decode {
        /// Print the JSON contract instead of a summary.
        #[arg(long)]
        json: bool,
        /// Accept unknown type tags, schemes and private values where the spec allows, marking
        /// the data not dereferenceable (RES-8, RES-9).
        #[arg(long)]
        permissive: bool,
        /// Act as a reader of an older version on one axis (`descriptor=1.0`, `scheme.mxfp=1`).
        #[arg(long = "reader", value_name = "AXIS=VERSION")]
        readers: Vec<String>,
        file: PathBuf,
    },
    /// Encode the JSON `decode --json` prints for a descriptor back to bytes, byte for byte.
    Encode {
        json_file: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Write the bytes even if a reader would reject them (for crafting test vectors).
        #[arg(long)]
        unchecked: bool,
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
        Command::Check {
            spec,
            against,
            format,
        } => check::run(&spec, against.as_deref(), format.into()),
        Command::Docs { spec, out, check } => docs::run(&spec, &out, check),
        Command::Lints { json } => check::list(json),
        Command::Release { spec, label } => check::release(&spec, label.as_deref()),
        Command::Decode {
            json,
            permissive,
            readers,
            file,
        } => decode::run(&file, json, permissive, &readers),
        Command::Encode {
            json_file,
            output,
            unchecked,
        } => decode::encode(&json_file, &output, unchecked),
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
