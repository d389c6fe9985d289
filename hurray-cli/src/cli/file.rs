//! `decode` of a file (`HRRYFILE`): mapped, opened lazily, then checked whole
//! (`verify_all`, which reads padding in chunks and releases the pages it has passed, so the
//! resident set stays bounded whatever the file's size).

use std::path::Path;
use std::process::ExitCode;

use hurray_runtime::file::{FileView, MappedFile};
use hurray_runtime::sequential::{SequentialError, SequentialReader, SequentialTensor};
use hurray_runtime::{ReaderConfig, Value, contract};

use super::exit::{rejected, usage_error};
use hurray_runtime::json::{Evolution, to_json};

pub fn run(path: &Path, json: bool, cfg: &ReaderConfig) -> ExitCode {
    let map = match MappedFile::open(path) {
        Ok(m) => m,
        Err(e) => return usage_error(format!("cannot read {}: {e}", path.display())),
    };
    let f = match map.read(cfg) {
        Ok(f) => f,
        Err(e) => return rejected(&e),
    };
    match show(&f, json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => rejected(&e),
    }
}

/// `decode -` of a file: the sequential reader, data discarded as it passes. The tensors'
/// descriptors are kept until the index names them at the end of the input.
pub fn run_sequential(input: impl std::io::Read, json: bool, cfg: &ReaderConfig) -> ExitCode {
    let failed = |e: SequentialError| match e {
        SequentialError::Invalid(e) => rejected(&e),
        other => usage_error(format!("standard input: {other}")),
    };
    let mut r = match SequentialReader::new(input, cfg) {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    let mut tensors: Vec<SequentialTensor> = Vec::new();
    loop {
        match r.next_tensor(&mut |_, _, _| {}) {
            Ok(Some(t)) => tensors.push(t),
            Ok(None) => break,
            Err(e) => return failed(e),
        }
    }
    let f = match r.finish() {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    if json {
        return match contract::sequential_file_value(&f, &tensors) {
            Ok(v) => {
                let mut evo = Evolution::default();
                let j = to_json(&v, "", &mut evo);
                outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
                ExitCode::SUCCESS
            }
            Err(e) => rejected(&e),
        };
    }
    let h = f.header();
    outln!(
        "file {}.{}, {} bytes, {} tensor(s), data alignment {}, flags {:#x} (read sequentially)",
        h.container_version_major(),
        h.container_version_minor(),
        f.len(),
        f.tensors(),
        h.data_buffer_alignment(),
        h.file_flags().0
    );
    tensors.sort_by_key(|t| f.index_position(t.position()));
    for t in &tensors {
        let dv = contract::descriptor_value(t.descriptor());
        outln!(
            "tensor `{}`: descriptor at {}, data {} bytes at {}",
            f.name(t.position()),
            t.descriptor_offset(),
            t.data_length(),
            t.data_offset()
        );
        out!(
            "{}",
            super::summary::descriptor(t.descriptor(), &dv, &[], t.dereferenceable(), 2)
        );
    }
    match f.kv() {
        Ok(Some(kv)) => show_kv(&kv),
        Ok(None) => {}
        Err(e) => return rejected(&e),
    }
    for c in f.composites() {
        composite(f.name(c.head), c);
    }
    for w in f.warnings() {
        outln!("{w}");
    }
    for t in &tensors {
        for w in t.warnings() {
            outln!("{w}");
        }
    }
    ExitCode::SUCCESS
}

fn show_kv(kv: &hurray_runtime::structures::KvSectionView<'_>) {
    outln!(
        "kv: {} entr{}",
        kv.entries().len(),
        if kv.entries().len() == 1 { "y" } else { "ies" }
    );
    for e in kv.entries() {
        let v = contract::kv_value(&e.value().owned());
        outln!("  {} = {}", e.key(), value(&v));
    }
}

fn composite(head: &str, c: &hurray_runtime::file::Composite) {
    outln!(
        "composite `{head}`: {} member(s){}",
        c.members.len(),
        if c.complete {
            ""
        } else {
            " (torn: not complete)"
        }
    );
}

fn show(f: &FileView<'_>, json: bool) -> Result<(), hurray_runtime::Error> {
    if json {
        let v = contract::file_value(f)?;
        let mut evo = Evolution::default();
        let j = to_json(&v, "", &mut evo);
        outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
        return Ok(());
    }
    let h = f.header();
    outln!(
        "file {}.{}, {} bytes, {} tensor(s), data alignment {}, flags {:#x}",
        h.container_version_major(),
        h.container_version_minor(),
        f.bytes().len(),
        f.len(),
        h.data_buffer_alignment(),
        h.file_flags().0
    );
    for (i, t) in f.tensors().enumerate() {
        let t = t?;
        if i % 4096 == 4095 {
            // Each descriptor may sit on its own page: keep the resident set bounded.
            f.release_pages();
        }
        let checked = t.descriptor();
        let owned = checked.view().owned();
        let dv = contract::descriptor_value(&owned);
        outln!(
            "tensor `{}`: descriptor at {}, data {} bytes at {}",
            t.name(),
            t.descriptor_offset(),
            t.data_length(),
            t.data_offset()
        );
        out!(
            "{}",
            super::summary::descriptor(&owned, &dv, &[], checked.dereferenceable(), 2)
        );
    }
    if let Some(kv) = f.kv() {
        show_kv(kv);
    }
    for c in f.composites()? {
        composite(f.name(c.head), c);
    }
    for w in f.warnings() {
        outln!("{w}");
    }
    Ok(())
}

fn value(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("{s:?}"),
        Value::Int(n) => n.to_string(),
        Value::UInt(n) => n.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Bytes(b) => format!("<{} bytes>", b.len()),
        Value::Array(a) => format!("[{}]", a.iter().map(value).collect::<Vec<_>>().join(", ")),
        _ => "-".to_string(),
    }
}
