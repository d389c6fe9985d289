//! Argument parsing and dispatch. Exit codes: 0 success, 1 the spec was rejected, 2 usage
//! or I/O errors.
//!
//! This binary depends on `hurray-codegen` only, never on code generated from `spec/`, so it
//! builds and runs whatever state the spec is in. The implementor's commands (`decode`,
//! `encode`), built on the generated runtime, are in the `hurray` binary; an unknown
//! subcommand is forwarded to it, as cargo and git forward theirs.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod check;
mod docs;
mod explain;
mod export;
mod forward;
mod generate;
mod migration;
mod refresh;
mod rules;
mod schema;
mod written;

#[derive(Debug, Parser)]
#[command(
    name = "hurray-spec",
    version,
    about = "The Hurray format's machine-readable spec: check it, list its lints and rules, explain one, release it, render its docs, write its files' JSON Schemas, export it for other tools, show the runtime code it generates",
    after_help = "Data commands (decode, encode) are in the `hurray` binary; `hurray-spec decode …` runs it when it is installed beside this one or on PATH."
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
    /// The rule catalogue: every rule and resolution, who it binds, what enforces it and
    /// which tests break it (read from the repository beside the spec directory).
    Rules {
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        #[arg(long)]
        json: bool,
        /// Exit 1 when an enforceable rule has no test or a listed test does not exist.
        #[arg(long)]
        check: bool,
    },
    /// Explain a rule, resolution, lint or error code: its text, source, who it binds, what
    /// enforces it, its rationale, and an example of a violation and its fix (from the
    /// repository's test data beside the spec directory).
    Explain {
        /// A rule id (`TYP-2`), a seed's id (`S4`, `CD2`, `W3`), a resolution (`RES-9`), a
        /// lint id (`s4-missing-default`) or an error code (`unknown-type-tag`).
        id: String,
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
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
        #[arg(long, default_value = hurray_codegen::artifacts::DOCS_DIR)]
        out: PathBuf,
        /// Fail if a page differs instead of writing it.
        #[arg(long)]
        check: bool,
    },
    /// Generate code from spec/: `gen rust` is the runtime code `hurray-runtime`'s build
    /// script generates, formatted, to review what an amendment changes in the Rust API.
    Gen {
        #[command(subcommand)]
        target: GenTarget,
    },
    /// Write the JSON Schema of every kind of spec file (spec.toml, tag spaces, flag sets,
    /// structures, rules, resolutions, release records, migrations, overlays) to spec/schema,
    /// and point every spec file at its schema with taplo's `#:schema` directive on its first
    /// line, so an editor with a TOML language server completes keys and flags a wrong one.
    Schema {
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        /// Write the schemas to DIR instead (the spec files' directives are left alone).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Fail if a schema or a directive differs instead of writing it.
        #[arg(long)]
        check: bool,
    },
    /// Write the complete skeleton of the S5 migration specification a major bump of AXIS
    /// needs (spec/migrations/AXIS-K-to-K+1.toml): every space, flag set and structure whose
    /// items all survive unchanged carried whole, every item of the others with its own
    /// entry, `to = ""` and a comment where the editor must decide. `check` then lists what
    /// is left to fill.
    Migration {
        /// The axis whose major is bumped (`descriptor`, `container`).
        axis: String,
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        /// Write over an existing migration specification.
        #[arg(long)]
        force: bool,
    },
    /// Regenerate every checked-in artifact from spec/ in one command: the Markdown tables
    /// (docs/spec), the Kaitai description (docs/kaitai), the JSON Schemas and the spec files'
    /// `#:schema` lines (spec/schema), and the snapshot of the generated runtime code
    /// (docs/generated/hurray_generated.rs). Run from the repository's root.
    Refresh {
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        /// Change nothing; exit 1 naming every artifact that is out of date.
        #[arg(long)]
        check: bool,
    },
    /// Export a description of the format for other tools (generated from spec/).
    Export {
        #[command(subcommand)]
        format: ExportFormat,
    },
    /// A command of the `hurray` binary (decode, encode): forwarded to it.
    #[command(external_subcommand)]
    Forward(Vec<OsString>),
}

#[derive(Debug, Subcommand)]
enum GenTarget {
    /// The runtime's Rust code (tag and rule enums, flags, every structure's view and owned
    /// form): to standard output, or to DIR/hurray_generated.rs with --out.
    Rust {
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        /// Write DIR/hurray_generated.rs (only when it changed) instead of printing the code.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// With --out: fail if DIR/hurray_generated.rs differs instead of writing it.
        #[arg(long, requires = "out")]
        check: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ExportFormat {
    /// A Kaitai Struct description (hurray.ksy) of the descriptor and the file container:
    /// Kaitai's compiler makes readers in a dozen languages from it, its Web IDE shows every
    /// byte.
    Kaitai {
        #[arg(long, default_value = "spec")]
        spec: PathBuf,
        /// The directory hurray.ksy is written to.
        #[arg(long, default_value = hurray_codegen::artifacts::KAITAI_DIR)]
        out: PathBuf,
        /// Fail if hurray.ksy differs instead of writing it.
        #[arg(long)]
        check: bool,
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
        Command::Rules { spec, json, check } => rules::run(&spec, json, check),
        Command::Explain { id, spec, json } => explain::run(&spec, &id, json),
        Command::Release { spec, label } => check::release(&spec, label.as_deref()),
        Command::Gen {
            target: GenTarget::Rust { spec, out, check },
        } => generate::rust(&spec, out.as_deref(), check),
        Command::Refresh { spec, check } => refresh::run(&spec, check),
        Command::Migration { axis, spec, force } => migration::run(&spec, &axis, force),
        Command::Schema { spec, out, check } => schema::run(&spec, out.as_deref(), check),
        Command::Export {
            format: ExportFormat::Kaitai { spec, out, check },
        } => export::kaitai(&spec, &out, check),
        Command::Forward(args) => forward::run(&args),
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
