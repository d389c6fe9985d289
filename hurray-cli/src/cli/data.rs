//! A file's data in its JSON: each tensor's `data` is an array with one reference per buffer
//! (in buffer-table order): `{"base64": "…"}` or `{"hex": "…"}` inline, or `{"path": "…"}`,
//! a raw file (a relative path is relative to the JSON file's directory). `decode --json`
//! writes base64, or paths with `--data-dir`; `encode` reads any of them.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value as J, json};

use super::refusal::Refusal;

/// A buffer's reference as `decode --json` prints it: inline base64, or (with `dir`) the path
/// of a raw file written there, named after the tensor's position and the buffer's.
pub fn reference(
    bytes: &[u8],
    dir: Option<&Path>,
    tensor: usize,
    buffer: usize,
) -> std::io::Result<J> {
    match dir {
        None => Ok(json!({ "base64": STANDARD.encode(bytes) })),
        Some(dir) => {
            let path = dir.join(format!("tensor-{tensor}-buffer-{buffer}.bin"));
            std::fs::write(&path, bytes)?;
            let path = std::path::absolute(&path).unwrap_or(path);
            Ok(json!({ "path": path.display().to_string() }))
        }
    }
}

/// Why a data reference was refused: the JSON path, the error code and what is wrong.
pub struct Refused {
    pub path: String,
    pub code: Refusal,
    pub message: String,
}

fn refuse(path: &str, code: Refusal, message: impl Into<String>) -> Refused {
    Refused {
        path: path.to_string(),
        code,
        message: message.into(),
    }
}

/// The bytes a reference at `path` names; `expected` is the buffer's `byte_size` in the
/// descriptor, checked before a file is read whole (a reference never makes `encode` hold
/// more than the buffer it describes).
pub fn resolve(r: &J, path: &str, base: &Path, expected: u64) -> Result<Vec<u8>, Refused> {
    let Some(object) = r.as_object() else {
        return Err(refuse(
            path,
            Refusal::InvalidValue,
            "expected {\"base64\": …}, {\"hex\": …} or {\"path\": …}",
        ));
    };
    if object.len() != 1 {
        let extra = object
            .keys()
            .find(|k| !["base64", "hex", "path"].contains(&k.as_str()))
            .map_or_else(
                || "give exactly one of base64, hex or path".to_string(),
                |k| format!("unknown key `{k}`"),
            );
        return Err(refuse(path, Refusal::UnknownKey, extra));
    }
    let (kind, value) = object.iter().next().expect("one key");
    let at = format!("{path}.{kind}");
    let text = value
        .as_str()
        .ok_or_else(|| refuse(&at, Refusal::InvalidValue, "expected a string"))?;
    let bytes = match kind.as_str() {
        "base64" => STANDARD
            .decode(text)
            .map_err(|e| refuse(&at, Refusal::InvalidValue, format!("not base64: {e}")))?,
        "hex" => hurray_runtime::value::hex_decode(text)
            .ok_or_else(|| refuse(&at, Refusal::InvalidValue, "not hex bytes"))?,
        "path" => {
            let file = PathBuf::from(text);
            let file = if file.is_relative() {
                base.join(file)
            } else {
                file
            };
            let size = std::fs::metadata(&file)
                .map_err(|e| {
                    refuse(
                        &at,
                        Refusal::DataUnreadable,
                        format!("{}: {e}", file.display()),
                    )
                })?
                .len();
            if size != expected {
                return Err(refuse(
                    &at,
                    Refusal::DataSize,
                    format!(
                        "{} holds {size} bytes, but the buffer's byte_size is {expected}",
                        file.display()
                    ),
                ));
            }
            std::fs::read(&file).map_err(|e| {
                refuse(
                    &at,
                    Refusal::DataUnreadable,
                    format!("{}: {e}", file.display()),
                )
            })?
        }
        other => {
            return Err(refuse(
                path,
                Refusal::UnknownKey,
                format!("unknown key `{other}`"),
            ));
        }
    };
    if bytes.len() as u64 != expected {
        return Err(refuse(
            &at,
            Refusal::DataSize,
            format!(
                "{} bytes given, but the buffer's byte_size is {expected}",
                bytes.len()
            ),
        ));
    }
    Ok(bytes)
}
