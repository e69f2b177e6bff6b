#!/usr/bin/env bash
# Every analysis script refuses a wrong results file with one line naming the file and the
# problem, exit status 2, and no output file: missing columns, an empty file, a non-numeric cell,
# a file that does not exist, and (plot_sizing.py) a results file without the bandwidth column.
source "$2/tests/lib/analysis_common.sh"
A=$SOURCE_DIR/analysis
# expect_refusal EXPECTED_MESSAGE SCRIPT ARGS... (the output, if any, is $WORK/out.*)
expect_refusal() {
  local expected=$1 status message
  shift
  rm -f "$WORK"/out.*
  set +e
  message=$($PY "$@" 2>&1 >/dev/null)
  status=$?
  set -e
  [[ $status == 2 ]] || fail "$(basename "$1") ${*:2}: exit status $status, expected 2 ($message)"
  [[ $message == "$expected" ]] ||
    fail "$(basename "$1"): message '$message', expected '$expected'"
  [[ -z $(find "$WORK" -name 'out.*' -o -name '.tmp-*') ]] ||
    fail "$(basename "$1"): wrote output despite bad input"
}

MISSING=$DATA/missing_columns.csv
EMPTY=$DATA/empty.csv
BAD=$DATA/non_numeric.csv
GOOD=$DATA/scaleup.csv
ALL="scenario, platform, workload, schedule, tau, delay, collective, algorithms_used, nodes, gpus, batch_per_gpu, iter_time_s, samples_per_s, speedup, efficiency, compute_s, comm_s, exposed_comm_s, comm_max_s, exposed_comm_max_s, source, calibration"
NUMBER="$BAD: line 4: column iter_time_s: expected a number, got 'fast'"

# Missing columns: every script. The other classes go through the same loader
# (analysis/results_io.py), so each is checked once, spread over the scripts.
for script in plot_scaleup.py plot_breakdown.py; do
  expect_refusal "$MISSING: missing column(s) efficiency, exposed_comm_s (is this a dasim results.csv?)" \
    "$A/$script" "$MISSING" -o "$WORK/out.png"
done
expect_refusal "$EMPTY: missing column(s) $ALL (is this a dasim results.csv?)" \
  "$A/plot_scaleup.py" "$EMPTY" -o "$WORK/out.png"
expect_refusal "$NUMBER" "$A/plot_breakdown.py" "$BAD" -o "$WORK/out.png"
expect_refusal "$WORK/nothing.csv: cannot read: no such file" \
  "$A/plot_scaleup.py" "$WORK/nothing.csv" -o "$WORK/out.png"

expect_refusal "$MISSING: missing column(s) efficiency, exposed_comm_s, inter_node_bandwidth_Bps (is this a dasim results.csv?)" \
  "$A/plot_sizing.py" "$MISSING" -o "$WORK/out.png"
expect_refusal "$GOOD: missing column(s) inter_node_bandwidth_Bps (is this a dasim results.csv?)" \
  "$A/plot_sizing.py" "$GOOD" -o "$WORK/out.png"
expect_refusal "$DATA/sizing.csv: missing column(s) link_Bps (is this a dasim results.csv?)" \
  "$A/plot_sizing.py" "$DATA/sizing.csv" -o "$WORK/out.png" --bandwidth-column link_Bps

expect_refusal "$MISSING: missing column(s) efficiency, exposed_comm_s (is this a dasim results.csv?)" \
  "$A/compare.py" "$DATA/compare_predicted.csv" "$MISSING" -o "$WORK/out.png" --csv "$WORK/out.csv"
expect_refusal "$NUMBER" "$A/compare.py" "$BAD" "$DATA/compare_measured.csv" --csv "$WORK/out.csv"

# A header with no rows, and an unknown schedule name.
head -1 "$GOOD" >"$WORK/header_only.csv"
expect_refusal "$WORK/header_only.csv: no result rows after the header (is this a dasim results.csv?)" \
  "$A/plot_scaleup.py" "$WORK/header_only.csv" -o "$WORK/out.png"
sed '2s/,sgd,/,allreduce,/' "$GOOD" >"$WORK/schedule.csv"
expect_refusal "$WORK/schedule.csv: line 2: column schedule: expected one of sgd, local_sgd, dasgd, diloco, streaming_diloco, got 'allreduce'" \
  "$A/plot_breakdown.py" "$WORK/schedule.csv" -o "$WORK/out.png"
echo "PASS analysis_bad_input"
