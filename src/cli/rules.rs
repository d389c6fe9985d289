//! `hurray-spec rules`: the rule catalogue. Every rule of `spec/rules` and every resolution,
//! with its code, source, who it binds, what enforces it and which tests break it; the
//! tests come from the repository that holds the spec directory, and are left out when the
//! spec stands alone.

use std::path::Path;
use std::process::ExitCode;

use hurray_codegen::Loaded;
use hurray_codegen::catalogue::{COVERAGE_TABLE, Catalogue, Coverage, Entry, Kind};
use hurray_codegen::diag::{self, Format};
use serde_json::{Value, json};

/// The repository a spec directory belongs to: its parent.
pub fn repository(spec: &Path) -> &Path {
    match spec.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Load a spec that must load cleanly; otherwise print why and give the exit code (2: it
/// cannot be read, 1: it has errors).
pub fn load_clean(spec: &Path) -> Result<Loaded, ExitCode> {
    let loaded = match hurray_codegen::load(spec) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot read spec: {e}");
            return Err(ExitCode::from(2));
        }
    };
    if loaded.clean().is_none() {
        eprint!(
            "{}",
            diag::render(&loaded.sources, loaded.diags.items(), Format::Human)
        );
        eprintln!("error: the spec does not load cleanly; `hurray-spec check` says why");
        return Err(ExitCode::from(1));
    }
    Ok(loaded)
}

pub fn run(spec: &Path, json: bool, check: bool) -> ExitCode {
    let loaded = match load_clean(spec) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let Some(model) = loaded.clean() else {
        return ExitCode::from(1);
    };
    let catalogue = Catalogue::of_spec(model);
    let (catalogue, problems, coverage) = match Coverage::scan(repository(spec)) {
        Ok(Some(c)) => {
            let catalogue = catalogue.with_coverage(&c);
            let problems = catalogue.coverage_problems(&c);
            (catalogue, problems, true)
        }
        Ok(None) => (catalogue, Vec::new(), false),
        Err(e) => {
            eprintln!("error: cannot read the repository's test data: {e}");
            return ExitCode::from(2);
        }
    };
    if json {
        let out = json!({
            "coverage": if coverage { Value::from(COVERAGE_TABLE) } else { Value::Null },
            "entries": catalogue.entries.iter().map(entry_json).collect::<Vec<_>>(),
            "problems": problems,
        });
        outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        human(&catalogue, coverage);
        for p in &problems {
            eprintln!("error: {p}");
        }
    }
    if check && !problems.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn words<T>(xs: &[T], word: impl Fn(&T) -> &'static str) -> Vec<&'static str> {
    xs.iter().map(word).collect()
}

/// An entry as `rules --json` prints it.
pub fn entry_json(e: &Entry) -> Value {
    json!({
        "id": e.id,
        "kind": match e.kind { Kind::Rule => "rule", _ => "resolution" },
        "code": e.code,
        "seed": e.seed,
        "text": e.text,
        "source": e.source,
        "action": e.action.map(|a| format!("{a:?}").to_lowercase()),
        "binds": words(&e.binds, |p| p.word()),
        "enforced_by": words(&e.enforced_by, |x| x.word()),
        "lints": e.lints,
        "unenforceable": e.unenforceable,
        "pending": e.pending,
        "rationale": e.rationale.as_ref().map(|r| json!({ "text": r.text, "source": r.source })),
        "related": e.related,
        "tested_by": e.tested_by.as_ref().map(|ts| ts.iter().map(|t| json!({
            "kind": t.kind.word(),
            "name": t.name,
            "via": t.via,
        })).collect::<Vec<_>>()),
        "untested": e.untested,
    })
}

fn human(catalogue: &Catalogue, coverage: bool) {
    let id_w = catalogue
        .entries
        .iter()
        .map(|e| e.id.len())
        .max()
        .unwrap_or(0);
    let code_w = catalogue
        .entries
        .iter()
        .map(|e| e.code.as_deref().unwrap_or("-").len())
        .max()
        .unwrap_or(0);
    let (mut tested, mut untested, mut unenforceable, mut pending) = (0, 0, 0, 0);
    for e in &catalogue.entries {
        let binds = words(&e.binds, |p| p.word()).join(", ");
        let enforced = if e.pending {
            "pending".to_string()
        } else if e.enforced_by.is_empty() {
            "none".to_string()
        } else {
            words(&e.enforced_by, |x| x.word()).join(", ")
        };
        let tests = match (&e.tested_by, &e.untested, &e.unenforceable) {
            (_, _, Some(_)) => {
                unenforceable += 1;
                "no software can enforce it".to_string()
            }
            _ if e.pending => {
                pending += 1;
                "pending: not enforced yet".to_string()
            }
            (Some(t), _, None) if !t.is_empty() => {
                tested += 1;
                format!("{} test(s)", t.len())
            }
            (Some(_), Some(_), None) => {
                untested += 1;
                "untested (see tests/coverage.toml)".to_string()
            }
            (Some(_), None, None) => "NO TEST".to_string(),
            (None, _, None) => String::new(),
        };
        outln!(
            "{:id_w$}  {:code_w$}  {:22}  {:34}  {:28}  {}",
            e.id,
            e.code.as_deref().unwrap_or("-"),
            binds,
            enforced,
            tests,
            e.source
        );
    }
    let rules = catalogue
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Rule)
        .count();
    let resolutions = catalogue.entries.len() - rules;
    if coverage {
        eprintln!(
            "{rules} rules and {resolutions} resolutions: {tested} tested, {untested} untested with a reason, {unenforceable} no software can enforce, {pending} pending (not enforced yet)"
        );
    } else {
        eprintln!(
            "{rules} rules and {resolutions} resolutions (no {COVERAGE_TABLE} beside the spec directory: tests not shown)"
        );
    }
}
