//! Argument parsing and dispatch of `hurray`. Exit codes: 0 accepted, 1 the data was
//! rejected, 2 usage or I/O errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod decode;
mod exit;
mod file;
mod inspect;
mod summary;

#[derive(Debug, Parser)]
#[command(
    name = "hurray",
    version,
    about = "Decode and encode Hurray tensor data (descriptors and files) with the runtime generated from the spec",
    after_help = "The spec editor's commands (check, docs, release, lints) are in `hurray-spec`."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
        /// The file to decode; `-` reads standard input (a file there is read sequentially,
        /// in memory bounded by its largest descriptor and a chunk).
        file: PathBuf,
    },
    /// Annotate every byte of a descriptor or a file: offset, bytes, structure path, field,
    /// decoded value, the version that defined the field and its provenance (read, default,
    /// skipped); a rejected input up to the failing byte, marked with the error.
    Inspect {
        /// Print the annotations as JSON (the shape is in the `hurray` README).
        #[arg(long)]
        json: bool,
        /// Accept unknown type tags, schemes and private values where the spec allows.
        #[arg(long)]
        permissive: bool,
        /// Act as a reader of an older version on one axis (`descriptor=1.0`, `scheme.mxfp=1`).
        #[arg(long = "reader", value_name = "AXIS=VERSION")]
        readers: Vec<String>,
        /// Show each tensor's element buffer as a typed array (dequantized where the scheme
        /// keeps its parameters inline); `--data=hex` dumps every data buffer's bytes.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "values")]
        data: Option<inspect::DataMode>,
        /// The descriptor or file; `-` reads standard input.
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
        Command::Decode {
            json,
            permissive,
            readers,
            file,
        } => decode::run(&file, json, permissive, &readers),
        Command::Inspect {
            json,
            permissive,
            readers,
            data,
            file,
        } => inspect::run(&file, json, permissive, &readers, data),
        Command::Encode {
            json_file,
            output,
            unchecked,
        } => decode::encode(&json_file, &output, unchecked),
    }
}
