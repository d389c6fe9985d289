//! `decode` of a file (`HRRYFILE`).

use std::process::ExitCode;

use hurray_runtime::ReaderConfig;

pub fn run(_bytes: &[u8], _json: bool, _cfg: &ReaderConfig) -> ExitCode {
    super::decode::usage_error("file decoding is not available yet")
}
