//! Argument parsing and dispatch of `hurray`. Exit codes: 0 accepted, 1 the data (or
//! `encode`'s JSON) was rejected, 2 usage or I/O errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod data;
mod decode;
mod encode;
mod exit;
mod file;
mod inspect;
mod migrate;
mod reader;
mod refusal;
mod session;
mod stream;
mod strict_json;
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
    /// Decode a descriptor (HRRY) or a file (HRRYFILE), detected by its magic, or a canonical
    /// stream of tensors (`--as stream`, or a file named `*.hrrys`).
    Decode {
        /// Print the JSON contract instead of a summary (a rejection: a JSON error object).
        #[arg(long)]
        json: bool,
        /// With `--json` on a file or a stream: write each data buffer to a raw file in DIR and refer to
        /// it by path, instead of inline base64.
        #[arg(long, value_name = "DIR", requires = "json")]
        data_dir: Option<PathBuf>,
        /// Read the input as this, whatever its first bytes (by default: a file when it
        /// starts with `HRRYFILE` or is named `*.hrry`, a stream when named `*.hrrys`, else a
        /// descriptor).
        #[arg(long = "as", value_enum, value_name = "KIND")]
        kind: Option<decode::Kind>,
        #[command(flatten)]
        reader: reader::ReaderArgs,
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
        #[command(flatten)]
        reader: reader::ReaderArgs,
        /// Read the input as this, whatever its first bytes (by default as `decode` does: a
        /// file by its magic or a `*.hrry` name, a stream by a `*.hrrys` name, else a
        /// descriptor).
        #[arg(long = "as", value_enum, value_name = "KIND")]
        kind: Option<decode::Kind>,
        /// Show each tensor's element buffer as a typed array (dequantized where the scheme
        /// keeps its parameters inline); `--data=hex` dumps every data buffer's bytes.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "values")]
        data: Option<inspect::DataMode>,
        /// The descriptor or file; `-` reads standard input.
        file: PathBuf,
    },
    /// Encode the JSON `decode --json` prints (a descriptor, a file or a stream with its data) back to
    /// bytes, byte for byte.
    Encode {
        json_file: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Write the bytes even if a reader would reject them (for crafting test vectors).
        #[arg(long)]
        unchecked: bool,
        #[command(flatten)]
        reader: reader::ReaderArgs,
    },
    /// Rewrite a descriptor or a file of an older major into the new one as the spec's
    /// migration specification (`spec/migrations/`) says: read by the released runtime,
    /// written by the new one. A value the migration drops, or one that does not fit its new
    /// type, is refused with its byte offset and the entry.
    Migrate {
        /// The axis and the major to migrate to (`descriptor=2.0`).
        #[arg(long, value_name = "AXIS=MAJOR.0")]
        to: String,
        /// The descriptor or file to migrate.
        input: PathBuf,
        /// Where to write the migrated data (written beside it, then renamed into place).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// A refusal is also printed as a JSON object on stdout.
        #[arg(long)]
        json: bool,
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
            data_dir,
            kind,
            reader,
            file,
        } => match reader::config(&reader) {
            Ok(cfg) => decode::run(&file, kind, json, data_dir.as_deref(), &cfg),
            Err(e) => exit::usage_error(e),
        },
        Command::Inspect {
            json,
            reader,
            kind,
            data,
            file,
        } => match reader::config(&reader) {
            Ok(cfg) => inspect::run(&file, json, &cfg, data, kind),
            Err(e) => exit::usage_error(e),
        },
        Command::Encode {
            json_file,
            output,
            unchecked,
            reader,
        } => match reader::config(&reader) {
            Ok(cfg) => encode::run(&json_file, &output, unchecked, &cfg),
            Err(e) => exit::usage_error(e),
        },
        Command::Migrate {
            to,
            input,
            output,
            json,
        } => migrate::run(&input, &output, &to, json),
    }
}
