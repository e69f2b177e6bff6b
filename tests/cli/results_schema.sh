#!/usr/bin/env bash
# The analysis package reads results files by the C++ column list: the header `dasim run` writes
# for a scenario without a sweep (one platform, node count and schedule) is exactly
# dasim_analysis.results_io.RESULT_COLUMNS joined by commas, in order (kResultColumns in
# base/results/result_row.hpp). A column added, dropped or moved on one side only fails here,
# instead of as a "missing column" refusal of every figure.
source "$2/tests/lib/analysis_common.sh"  # SOURCE_DIR, PY, WORK, fail
BIN=$1

cat >"$WORK/scenario.json" <<JSON
{"name": "schema",
 "platforms": [{"file": "$SOURCE_DIR/platforms/flat-100gbe-64.json", "nodes": [1]}],
 "workloads": ["resnet50"], "batch_per_gpu": 32, "schedules": [{"type": "sgd"}],
 "iterations": 1, "warmup": 0}
JSON
"$BIN/dasim" run "$WORK/scenario.json" --out "$WORK/out" --quiet >/dev/null 2>"$WORK/stderr.txt" ||
  fail "dasim run exited non-zero: $(head -1 "$WORK/stderr.txt")"
[[ -f $WORK/out/results.csv ]] || fail "dasim run wrote no results.csv"
header=$(head -1 "$WORK/out/results.csv")
expected=$(PYTHONPATH=$SOURCE_DIR/analysis $PY -c \
  'from dasim_analysis.results_io import RESULT_COLUMNS; print(",".join(RESULT_COLUMNS))') ||
  fail "cannot import RESULT_COLUMNS from dasim_analysis.results_io"
[[ $header == "$expected" ]] ||
  fail "results.csv header '$header' differs from dasim_analysis.results_io.RESULT_COLUMNS '$expected'"
echo "PASS results_schema"
