//! `hurray-spec check`, `hurray-spec lints` and `hurray-spec release`.

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::amend::{self, history};
use hurray_codegen::diag::{self, Diagnostics, Format};
use hurray_codegen::lints;
use hurray_codegen::source::SourceMap;

pub fn run(spec: &Path, against: Option<&Path>, format: Format) -> ExitCode {
    let loaded = match hurray_codegen::check(spec, against) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot read spec: {e}");
            return ExitCode::from(2);
        }
    };
    let out = diag::render(&loaded.sources, loaded.diags.items(), format);
    out!("{out}");
    if loaded.diags.has_errors() {
        ExitCode::from(1)
    } else {
        if format == Format::Human {
            eprintln!("spec: clean ({} note(s))", loaded.diags.items().len());
            if let Some(spec) = loaded.clean() {
                let posture = hurray_codegen::compat::posture(spec);
                let width = posture
                    .iter()
                    .map(|p| p.name.len() + p.current.len() + 1)
                    .max()
                    .unwrap_or(0);
                eprintln!("compatibility posture per axis (ADR-019):");
                for p in &posture {
                    let axis = format!("{} {}", p.name, p.current);
                    eprintln!("  {axis:width$}  {}", p.sentence());
                }
            }
        }
        ExitCode::SUCCESS
    }
}

/// The ADR-019 checklist item a lint checks, as the `lints` table names it (`ADR-019 #6`).
fn checklist_label(l: &lints::Lint) -> String {
    lints::checklist_item(l.id).map_or(String::new(), |item| format!("ADR-019 #{}", item.number))
}

pub fn list(json: bool) -> ExitCode {
    if json {
        let items: Vec<serde_json::Value> = lints::ALL
            .iter()
            .map(|l| {
                let item = lints::checklist_item(l.id).map(|item| {
                    serde_json::json!({"number": item.number, "text": item.text, "rule": item.rule})
                });
                serde_json::json!({"id": l.id, "rule": l.rule, "level": l.level.as_str(), "summary": l.summary, "adr_019_item": item})
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&items).unwrap_or_default()
        );
    } else {
        let w = lints::ALL.iter().map(|l| l.id.len()).max().unwrap_or(0);
        for l in lints::ALL {
            outln!(
                "{:w$}  {:14}  {:7}  {:10}  {}",
                l.id,
                l.rule,
                l.level.as_str(),
                checklist_label(l),
                l.summary
            );
        }
        outln!();
        outln!("ADR-019's spec-checker items (§ Handoff), one lint each:");
        for item in &lints::ADR_019_CHECKLIST {
            outln!(
                "  #{}  {:w$}  {} ({})",
                item.number,
                item.lint.id,
                item.text,
                item.rule
            );
        }
    }
    ExitCode::SUCCESS
}

pub fn release(spec: &Path, label: Option<&str>) -> ExitCode {
    let loaded = match hurray_codegen::check(spec, None) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot read spec: {e}");
            return ExitCode::from(2);
        }
    };
    // A draft spec has no history yet; releasing it is what ends the draft.
    let blocking: Vec<_> = loaded
        .diags
        .items()
        .iter()
        .filter(|d| d.level == diag::Level::Error && d.lint.id != lints::STATUS_HISTORY.id)
        .cloned()
        .collect();
    if !blocking.is_empty() {
        eprint!(
            "{}",
            diag::render(&loaded.sources, &blocking, Format::Human)
        );
        eprintln!("error: `check` reports errors; a release records only a clean spec");
        return ExitCode::from(1);
    }
    let Some(model) = loaded.spec.as_ref() else {
        return ExitCode::from(1);
    };
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let hist = history::load(spec, &mut sources, &mut diags);
    let Some(record) = amend::next_record(model, &hist, label) else {
        eprintln!(
            "nothing to release: the spec equals release {}",
            hist.latest()
                .map(|l| l.release.label.as_str())
                .unwrap_or("?")
        );
        return ExitCode::SUCCESS;
    };
    let path = history::dir(spec).join(format!("{:04}.toml", record.release.sequence));
    if let Err(e) = std::fs::create_dir_all(history::dir(spec))
        .and_then(|_| std::fs::write(&path, hurray_codegen::schema::record_text(spec, &record)))
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    if let Err(e) = mark_released(&spec.join("spec.toml")) {
        eprintln!("error: cannot update spec.toml: {e}");
        return ExitCode::from(2);
    }
    // The tables as released (spec.toml marked released first), for the released runtime
    // `hurray migrate` reads with once a major is pending.
    let archived = match amend::archive::write(spec, record.release.sequence) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot archive the released tables: {e}");
            return ExitCode::from(2);
        }
    };
    outln!(
        "recorded release {} ({}) in {}, its tables in {}",
        record.release.sequence,
        record.release.label,
        path.display(),
        archived.display()
    );
    ExitCode::SUCCESS
}

/// Set `spec.status = "released"`, keeping the file's formatting and comments.
fn mark_released(path: &Path) -> std::io::Result<()> {
    let text = std::fs::read_to_string(path)?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{e}")))?;
    if doc["spec"]["status"].as_str() == Some("released") {
        return Ok(());
    }
    doc["spec"]["status"] = toml_edit::value("released");
    std::fs::write(path, doc.to_string())
}
