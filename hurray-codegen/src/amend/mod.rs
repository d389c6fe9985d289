//! The amendment checker: the spec is compared with every release record (and optionally
//! another spec tree). S1–S6, change classification with byte witnesses, and the version bump
//! each axis needs; everything collected in one run.

pub mod archive;
pub mod axis_names;
pub mod classify;
pub mod history;
pub mod migration;
pub mod readers;
pub mod rules;
pub mod snapshot;
pub mod span_index;
pub mod witness;

use std::path::Path;

use crate::diag::{Diagnostic, Diagnostics};
use crate::lints;
use crate::model::{Spec, Status};
use crate::source::SourceMap;

pub use axis_names::AxisNames;
use snapshot::Snapshot;

/// Check `spec` (loaded from `spec_dir`) against its history and, with `against`, another
/// spec tree used as the base of the classification.
pub fn check(
    spec: &Spec,
    spec_dir: &Path,
    against: Option<&Snapshot>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) {
    let history = history::load(spec_dir, sources, diags);
    archive::verify(spec_dir, &history, sources, diags);
    check_history(spec, &history, spec_dir, against, sources, diags);
}

/// [`check`] with the history already loaded (from `spec_dir`'s release records, or any
/// other): what a tool that checks many variants of one spec against one history calls.
/// Migrations (S5) are still read from `spec_dir`.
pub fn check_history(
    spec: &Spec,
    history: &history::History,
    spec_dir: &Path,
    against: Option<&Snapshot>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) {
    match (spec.status, history.records.is_empty()) {
        (Status::Draft, false) => diags.push(
            Diagnostic::new(
                &lints::STATUS_HISTORY,
                Some(spec.status_span),
                "the spec is marked draft but has release records",
            )
            .help("once released, a spec stays released: set `status = \"released\"`"),
        ),
        (Status::Released, true) => diags.push(
            Diagnostic::new(
                &lints::STATUS_HISTORY,
                Some(spec.status_span),
                "the spec is marked released but spec/releases holds no record",
            )
            .help("record the first release with `hurray-spec release`"),
        ),
        _ => {}
    }
    if spec.status == Status::Draft && against.is_none() {
        return; // before the first release only the intrinsic rules apply
    }
    let (cur, spans) = snapshot::of_spec(spec);
    let mut records: Vec<(String, &Snapshot)> = history
        .records
        .iter()
        .map(|(_, s)| (s.release.label.clone(), &**s))
        .collect();
    if let Some(a) = against {
        records.push(("--against".to_string(), a));
    }
    let axes = AxisNames::of(spec);
    rules::s2_anti_rebind(&cur, &spans, &records, axes, diags);
    let (base, label) = match (against, history.latest()) {
        (Some(a), _) => (a, "--against".to_string()),
        (None, Some(l)) => (l, l.release.label.clone()),
        (None, None) => return,
    };
    let changes = classify::diff(base, &cur, &spans, axes, diags);
    let prior_readers: Vec<rules::PriorReading<'_>> = changes
        .iter()
        .filter_map(|c| {
            Some(rules::PriorReading {
                axis: &c.axis,
                span: c.span,
                reading: c.prior_reader.as_deref()?,
            })
        })
        .collect();
    rules::cd2_forward_additive(base, &label, &cur, &prior_readers, axes, diags);
    classify::verdicts(
        spec, base, &label, &cur, &spans, changes, spec_dir, sources, diags,
    );
}

/// The record `hurray-spec release` would write now: the current spec sealed after the last
/// record. `None` when nothing changed since the last release.
pub fn next_record(
    spec: &Spec,
    history: &history::History,
    label: Option<&str>,
) -> Option<Snapshot> {
    let (cur, _) = snapshot::of_spec(spec);
    let (seq, prev) = match history.latest() {
        Some(l) => {
            let mut same = cur.clone();
            same.release = l.release.clone();
            if &same == l {
                return None;
            }
            (l.release.sequence + 1, l.release.fingerprint.clone())
        }
        None => (1, String::new()),
    };
    let label = label.map(String::from).unwrap_or_else(|| {
        cur.axis(AxisNames::of(spec).scheme_parent)
            .map(|a| a.version.clone())
            .filter(|_| seq == 1)
            .unwrap_or_else(|| {
                cur.axis
                    .iter()
                    .filter(|a| {
                        history
                            .latest()
                            .and_then(|l| l.axis(&a.name))
                            .is_none_or(|b| b.version != a.version)
                    })
                    .map(|a| format!("{}-{}", a.name, a.version))
                    .collect::<Vec<_>>()
                    .join("+")
            })
    });
    Some(cur.seal(seq, &label, &prev))
}
