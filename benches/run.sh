#!/usr/bin/env bash
# Issue #12's measurements, then the table in BENCHMARKS.md: criterion benches with the
# safetensors crate in the same run (benches/scale.rs), peak RSS in separate processes
# (benches/rss.rs), the spec check's time (hurray-codegen/benches/check.rs), and the report
# (benches/report.rs) that judges each target from these figures. 10k and 100k tensors by
# default; `HURRAY_BENCH_1M=1 benches/run.sh` adds 1M (a 4 GB fixture, minutes per row).
# Extra arguments go to criterion (e.g. a filter). Not part of CI: CI only compiles the
# benches (`cargo bench --no-run`).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo bench --bench scale -- "$@"
cargo bench --bench rss
cargo bench -p hurray-codegen --bench check -- "spec/check"
# The report shows the sizes of this run (HURRAY_BENCH_1M passes through).
HURRAY_BENCH_REPORT=1 cargo bench --bench report
