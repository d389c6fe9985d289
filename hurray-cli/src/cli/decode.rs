//! `hurray decode` and `hurray encode`.

use std::path::Path;
use std::process::ExitCode;

use hurray_runtime::ReaderConfig;
use hurray_runtime::contract;
use hurray_runtime::descriptor;
use serde_json::Value as J;

use hurray_runtime::json::{descriptor_json, evolution_from_json, from_json};

use super::exit::{rejected, usage_error};

pub fn config(permissive: bool, readers: &[String]) -> Result<ReaderConfig, String> {
    let mut c = ReaderConfig::new().permissive(permissive);
    for r in readers {
        c = c.with_version_str(r).map_err(|e| e.to_string())?;
    }
    Ok(c)
}

pub fn run(path: &Path, json_out: bool, permissive: bool, readers: &[String]) -> ExitCode {
    let cfg = match config(permissive, readers) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    if path.as_os_str() == "-" {
        return stdin(json_out, &cfg);
    }
    let mut magic = [0u8; 8];
    let is_file = match std::fs::File::open(path).and_then(|mut f| {
        use std::io::Read as _;
        let mut n = 0;
        while n < magic.len() {
            match f.read(&mut magic[n..])? {
                0 => break,
                k => n += k,
            }
        }
        Ok(magic[..n] == *b"HRRYFILE")
    }) {
        Ok(is_file) => is_file,
        Err(e) => return usage_error(format!("cannot read {}: {e}", path.display())),
    };
    if is_file {
        return super::file::run(path, json_out, &cfg);
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return usage_error(format!("cannot read {}: {e}", path.display())),
    };
    descriptor(&bytes, json_out, &cfg)
}

/// `decode -`: a file on standard input is read by the sequential reader (memory bounded by
/// its largest descriptor and a chunk, whatever its size); a descriptor is read whole.
fn stdin(json_out: bool, cfg: &ReaderConfig) -> ExitCode {
    use std::io::Read as _;
    let mut input = std::io::stdin().lock();
    let mut magic = Vec::with_capacity(8);
    if let Err(e) = input.by_ref().take(8).read_to_end(&mut magic) {
        return usage_error(format!("cannot read standard input: {e}"));
    }
    let input = std::io::Cursor::new(magic.clone()).chain(input);
    if magic == *b"HRRYFILE" {
        return super::file::run_sequential(input, json_out, cfg);
    }
    let mut bytes = Vec::new();
    if let Err(e) = { input }.read_to_end(&mut bytes) {
        return usage_error(format!("cannot read standard input: {e}"));
    }
    descriptor(&bytes, json_out, cfg)
}

fn descriptor(bytes: &[u8], json_out: bool, cfg: &ReaderConfig) -> ExitCode {
    match descriptor::read(bytes, cfg) {
        Ok(d) => {
            let owned = d.view().owned();
            let value = contract::descriptor_value(&owned);
            if json_out {
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
        Err(e) => rejected(&e),
    }
}

pub fn encode(input: &Path, output: &Path, unchecked: bool) -> ExitCode {
    let text = match std::fs::read_to_string(input) {
        Ok(t) => t,
        Err(e) => return usage_error(format!("cannot read {}: {e}", input.display())),
    };
    let j: J = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => return usage_error(format!("{}: not JSON: {e}", input.display())),
    };
    match j.get("kind").and_then(J::as_str) {
        Some("descriptor") | None => {}
        Some(other) => {
            return usage_error(format!(
                "cannot encode a `{other}`: encode takes the JSON `decode --json` prints for a descriptor"
            ));
        }
    }
    let evo = evolution_from_json(&j);
    let value = from_json(&j, "", &evo);
    let d = match contract::descriptor_from_value(&value) {
        Ok(d) => d,
        Err(e) => return usage_error(format!("{}: {e}", input.display())),
    };
    let bytes = d.to_bytes();
    if !unchecked {
        // Never write what a reader rejects: read the result back (permissively, so data
        // decoded permissively round-trips too).
        let cfg = ReaderConfig::new().permissive(true);
        if let Err(e) = descriptor::read(&bytes, &cfg) {
            return rejected(&e);
        }
    }
    if let Err(e) = hurray_runtime::writer::write_atomically(output, &bytes) {
        return usage_error(format!("cannot write {}: {e}", output.display()));
    }
    ExitCode::SUCCESS
}
