//! `hurray decode`: a descriptor or a file (by its magic), a canonical stream (`--as
//! stream`, or a path named `*.hrrys`: a stream starts with a descriptor's magic too), or a
//! captured session of the interchange protocol (`--as session`), from a path or standard
//! input.

use std::path::Path;
use std::process::ExitCode;

use hurray_runtime::ReaderConfig;
use hurray_runtime::contract;
use hurray_runtime::descriptor;

use hurray_runtime::json::descriptor_json;

use super::exit::{Report, usage_error};

/// The first bytes of a file container, which tell it from a descriptor (the magic the spec's
/// check on the file header's `magic` states).
pub const FILE_MAGIC: &[u8] = &hurray_runtime::structures::FileHeaderView::EXPECTED_MAGIC;

/// What `decode` reads its input as (`--as`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    Descriptor,
    File,
    /// A canonical stream: descriptor + data pairs back to back (interchange.md §2.1).
    Stream,
    /// A captured session of the framed interchange protocol: messages back to back
    /// (interchange.md §3–§19).
    Session,
}

/// The extension that names a canonical stream (a stream and a descriptor share their magic).
pub const STREAM_EXTENSION: &str = "hrrys";

/// Whether the input's first bytes are a file's magic.
fn starts_like_a_file(path: &Path) -> std::io::Result<bool> {
    use std::io::Read as _;
    let mut magic = Vec::with_capacity(FILE_MAGIC.len());
    std::fs::File::open(path)?
        .take(FILE_MAGIC.len() as u64)
        .read_to_end(&mut magic)?;
    Ok(magic == FILE_MAGIC)
}

/// Decode `path` as `kind`, or by its magic (`HRRYFILE`) or its extension (`.hrry`, so a file
/// with a damaged magic is reported as a file).
pub fn run(
    path: &Path,
    kind: Option<Kind>,
    json: bool,
    data_dir: Option<&Path>,
    cfg: &ReaderConfig,
) -> ExitCode {
    let report = Report { input: path, json };
    if path.as_os_str() == "-" {
        return stdin(report, kind, data_dir, cfg);
    }
    let named_stream = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(STREAM_EXTENSION));
    if kind == Some(Kind::Session) {
        return match std::fs::read(path) {
            Ok(bytes) => super::session::run(&bytes, report, cfg),
            Err(e) => usage_error(format!("cannot read {}: {e}", path.display())),
        };
    }
    if kind == Some(Kind::Stream) || (kind.is_none() && named_stream) {
        return match std::fs::File::open(path) {
            Ok(f) => super::stream::run(std::io::BufReader::new(f), report, data_dir, cfg),
            Err(e) => usage_error(format!("cannot read {}: {e}", path.display())),
        };
    }
    let is_file = match kind {
        Some(k) => k == Kind::File,
        None => match starts_like_a_file(path) {
            Ok(by_magic) => {
                by_magic
                    || path
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("hrry"))
            }
            Err(e) => return usage_error(format!("cannot read {}: {e}", path.display())),
        },
    };
    if is_file {
        return super::file::run(path, report, data_dir, cfg);
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return usage_error(format!("cannot read {}: {e}", path.display())),
    };
    descriptor(&bytes, report, cfg)
}

/// `decode -`: a file on standard input is read by the sequential reader (memory bounded by
/// its largest descriptor and a chunk, whatever its size); a descriptor is read whole.
fn stdin(
    report: Report<'_>,
    kind: Option<Kind>,
    data_dir: Option<&Path>,
    cfg: &ReaderConfig,
) -> ExitCode {
    use std::io::Read as _;
    let mut input = std::io::stdin().lock();
    if kind == Some(Kind::Stream) {
        return super::stream::run(input, report, data_dir, cfg);
    }
    if kind == Some(Kind::Session) {
        let mut bytes = Vec::new();
        if let Err(e) = input.read_to_end(&mut bytes) {
            return usage_error(format!("cannot read standard input: {e}"));
        }
        return super::session::run(&bytes, report, cfg);
    }
    let mut magic = Vec::with_capacity(8);
    if let Err(e) = input.by_ref().take(8).read_to_end(&mut magic) {
        return usage_error(format!("cannot read standard input: {e}"));
    }
    let input = std::io::Cursor::new(magic.clone()).chain(input);
    if magic == FILE_MAGIC {
        return super::file::run_sequential(input, report, cfg);
    }
    let mut bytes = Vec::new();
    if let Err(e) = { input }.read_to_end(&mut bytes) {
        return usage_error(format!("cannot read standard input: {e}"));
    }
    descriptor(&bytes, report, cfg)
}

fn descriptor(bytes: &[u8], report: Report<'_>, cfg: &ReaderConfig) -> ExitCode {
    match descriptor::read(bytes, cfg) {
        Ok(d) => {
            let owned = d.view().owned();
            let value = contract::descriptor_value(&owned);
            if report.json {
                let j = descriptor_json(&value, d.warnings(), d.dereferenceable());
                outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
            } else {
                out!(
                    "{}",
                    super::summary::descriptor(
                        &owned,
                        &value,
                        d.warnings(),
                        d.dereferenceable(),
                        0
                    )
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => report.rejected(&e),
    }
}
