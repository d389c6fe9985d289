//! `decode` of a file (`HRRYFILE`).

use std::process::ExitCode;

use hurray_runtime::{ReaderConfig, Value, contract, file};

use super::exit::rejected;
use hurray_runtime::json::{Evolution, to_json};

pub fn run(bytes: &[u8], json: bool, cfg: &ReaderConfig) -> ExitCode {
    let f = match file::read(bytes, cfg) {
        Ok(f) => f,
        Err(e) => return rejected(&e),
    };
    let v = contract::file_value(&f);
    if json {
        let mut evo = Evolution::default();
        let j = to_json(&v, "", &mut evo);
        outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    let h = f.header;
    outln!(
        "file {}.{}, {} bytes, {} tensor(s), data alignment {}, flags {:#x}",
        h.container_version_major(),
        h.container_version_minor(),
        bytes.len(),
        f.tensors.len(),
        h.data_buffer_alignment(),
        h.file_flags().0
    );
    for t in &f.tensors {
        let owned = t.descriptor.view.owned();
        let dv = contract::descriptor_value(&owned);
        outln!(
            "tensor `{}`: descriptor at {}, data {} bytes at {}",
            t.name,
            t.entry.descriptor_offset(),
            t.entry.data_length(),
            t.entry.data_offset()
        );
        out!(
            "{}",
            super::summary::descriptor(&owned, &dv, &[], t.descriptor.dereferenceable, 2)
        );
    }
    if let Some(kv) = &f.kv {
        outln!(
            "kv: {} entr{}",
            kv.entries().len(),
            if kv.entries().len() == 1 { "y" } else { "ies" }
        );
        for e in kv.entries() {
            let v = contract::kv_value(&e.value().owned());
            outln!("  {} = {}", e.key(), show(&v));
        }
    }
    for c in &f.composites {
        outln!(
            "composite `{}`: {} member(s){}",
            f.tensors[c.head].name,
            c.members.len(),
            if c.complete {
                ""
            } else {
                " (torn: not complete)"
            }
        );
    }
    for w in &f.warnings {
        outln!("{w}");
    }
    ExitCode::SUCCESS
}

fn show(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("{s:?}"),
        Value::Int(n) => n.to_string(),
        Value::UInt(n) => n.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Bytes(b) => format!("<{} bytes>", b.len()),
        Value::Array(a) => format!("[{}]", a.iter().map(show).collect::<Vec<_>>().join(", ")),
        _ => "-".to_string(),
    }
}
