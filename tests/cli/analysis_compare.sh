#!/usr/bin/env bash
# analysis/compare.py on a hand-made predicted/measured pair (tests/data/analysis/compare_*.csv).
# The measured file lists the rows in another order, under another platform name and collective,
# so the join must go by configuration. Expected, computed by hand as 100*(pred-meas)/meas:
#   sgd       4 GPUs: 1.10 vs 1.00 -> +10.0 %    exposed 0.30 vs 0.22
#   sgd       8 GPUs: 0.80 vs 1.00 -> -20.0 %    exposed 0.20 vs 0.38
#   local_sgd 4 GPUs: 0.45 vs 0.50 -> -10.0 %    exposed 0.05 vs 0.08
#   dasgd     4 GPUs: 0.60 vs 0.48 -> +25.0 %    exposed 0.05 vs 0.03
#   median |error| of 10, 20, 10, 25 -> (10 + 20) / 2 = 15.0 %
# and one row on each side (16 GPUs predicted; batch 64 measured) that has no partner.
source "$2/tests/lib/analysis_common.sh"
SCRIPT=$SOURCE_DIR/analysis/compare.py
# Table columns: workload schedule tau delay nodes gpus batch_per_gpu predicted_iter_s
# measured_iter_s error_pct predicted_exposed_s measured_exposed_s
expect_row() {  # SCHEDULE GPUS PREDICTED MEASURED ERROR_PCT PRED_EXPOSED MEAS_EXPOSED
  local got
  got=$(awk -v s="$1" -v g="$2" '$2 == s && $6 == g { print $8, $9, $10, $11, $12 }' "$WORK/out.txt")
  [[ $got == "$3 $4 $5 $6 $7" ]] ||
    fail "$1 on $2 GPUs: got '$got', expected '$3 $4 $5 $6 $7'"
}

$PY "$SCRIPT" "$DATA/compare_predicted.csv" "$DATA/compare_measured.csv" -o "$WORK/compare.png" \
  --csv "$WORK/compare.csv" >"$WORK/out.txt" || fail "compare.py exited $?"
expect_row sgd 4 1.1 1 10.0 0.3 0.22
expect_row sgd 8 0.8 1 -20.0 0.2 0.38
expect_row local_sgd 4 0.45 0.5 -10.0 0.05 0.08
expect_row dasgd 4 0.6 0.48 25.0 0.05 0.03
[[ $(grep -c '^mlp-small ' "$WORK/out.txt") == 4 ]] || fail "expected exactly 4 compared rows"
grep -qx 'median |error|: 15.0% over 4 configuration(s)' "$WORK/out.txt" ||
  fail "median |error| line missing or wrong: $(grep median "$WORK/out.txt" || true)"
grep -q '1 predicted-only and 1 measured-only' "$WORK/out.txt" || fail "unmatched rows not reported"
check_png "$WORK/compare.png"

# The CSV carries the same numbers for programs.
[[ $(head -1 "$WORK/compare.csv") == workload,schedule,tau,delay,nodes,gpus,batch_per_gpu,predicted_iter_s,measured_iter_s,error_pct,predicted_exposed_s,measured_exposed_s ]] ||
  fail "unexpected CSV header: $(head -1 "$WORK/compare.csv")"
awk -F, 'NR > 1 { e[$2 "/" $6] = $10 } END {
  exit !(e["sgd/4"] == 10 && e["sgd/8"] == -20 && e["local_sgd/4"] == -10 && e["dasgd/4"] == 25) }' \
  "$WORK/compare.csv" || fail "error_pct in the CSV differs from the hand-computed values"

# Nothing in common: a clear refusal, not an empty table.
set +e
message=$($PY "$SCRIPT" "$DATA/compare_predicted.csv" "$DATA/scaleup.csv" 2>&1 >/dev/null)
status=$?
set -e
[[ $status == 2 ]] || fail "no common configuration: exit status $status, expected 2"
[[ $message == *"no rows match on configuration (workload, schedule, tau, delay, nodes, gpus, batch_per_gpu, accumulation_steps)" ]] ||
  fail "no common configuration: unexpected message: $message"

# Several rows for one configuration (a bandwidth sweep) cannot be paired one to one.
set +e
message=$($PY "$SCRIPT" "$DATA/sizing.csv" "$DATA/compare_measured.csv" 2>&1 >/dev/null)
status=$?
set -e
[[ $status == 2 ]] || fail "ambiguous configuration: exit status $status, expected 2"
[[ $message == "$DATA/sizing.csv: 6 rows for the same point (workload=resnet50, schedule=dasgd, tau=4, delay=1, nodes=8, gpus=64, batch_per_gpu=32, accumulation_steps=1); keep one row per configuration" ]] ||
  fail "ambiguous configuration: unexpected message: $message"
echo "PASS analysis_compare"
