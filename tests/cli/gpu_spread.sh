#!/usr/bin/env bash
# `gpu_spread` in a scenario: each GPU of a job of N takes the spread's quantile at (i + 0.5) / N.
# With quantiles 1.0, 1.0, 2.0 (linear between p = 0, 0.5, 1), the 1-GPU baseline is the median GPU
# (1.0) and a 2-GPU job has one GPU at p = 0.25 (1.0) and one at p = 0.75 (1.5): the same run as a
# straggler of slowdown 1.5, an existing mechanism, whichever rank the seed makes slow. Bad spread
# files and keys are one line naming the file and the path, exit 2.
source "$2/tests/lib/cli_assert.sh"

flat="$SRC/platforms/flat-100gbe-64.json"
spread() {  # spread NAME QUANTILES
  cat >"$WORK/$1.json" <<JSON
{"format": "dasim-gpu-spread-1", "gpu": "test", "metric": "test", "gpus_measured": 3,
 "relative_time_quantiles": [$2]}
JSON
}
scenario() {  # scenario NAME EXTRA_JSON
  cat >"$WORK/$1.json" <<JSON
{"platforms": [{"file": "$flat", "nodes": [2]}], "workloads": ["resnet50"], "batch_per_gpu": 32,
 "schedules": [{"type": "sgd"}], "iterations": 2, "warmup": 1$2}
JSON
}
columns() {  # the simulated numbers of a results.csv: iteration time, throughput, efficiency
  /usr/bin/python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["iter_time_s"], r["samples_per_s"], r["speedup"], r["efficiency"])' "$1"
}

spread tail "1.0, 1.0, 2.0"
scenario with_spread ", \"gpu_spread\": {\"file\": \"$WORK/tail.json\", \"seed\": 3}"
scenario rank0 ', "stragglers": [{"rank": 0, "slowdown": 1.5}]'
scenario rank1 ', "stragglers": [{"rank": 1, "slowdown": 1.5}]'
scenario plain ''
for s in with_spread rank0 rank1 plain; do
  expect_ok "run $s" "$BIN/dasim" run "$WORK/$s.json" --out "$WORK/out-$s" --quiet
done
spread_numbers=$(columns "$WORK/out-with_spread/results.csv")
if [ "$spread_numbers" != "$(columns "$WORK/out-rank0/results.csv")" ] &&
  [ "$spread_numbers" != "$(columns "$WORK/out-rank1/results.csv")" ]; then
  fail "gpu_spread is not a straggler of 1.5: $spread_numbers vs $(columns "$WORK/out-rank0/results.csv")"
fi
[ "$spread_numbers" != "$(columns "$WORK/out-plain/results.csv")" ] || fail "gpu_spread changed nothing"
# More than 2 nodes would fold if the GPUs were alike; these are not, and the row says why.
cat >"$WORK/four.json" <<JSON
{"platforms": [{"file": "$flat", "nodes": [4]}], "workloads": ["resnet50"], "batch_per_gpu": 32,
 "schedules": [{"type": "sgd"}], "iterations": 2, "warmup": 1, "gpu_spread": {"file": "$WORK/tail.json"}}
JSON
expect_ok "run four" "$BIN/dasim" run "$WORK/four.json" --out "$WORK/out-four" --quiet
grep -q ",4,stragglers or gpu_spread," "$WORK/out-four/results.csv" ||
  fail "4 GPUs of unequal speed: no not_folded_because: $(head -c 600 "$WORK/out-four/results.csv")"
# `dasim validate` knows a spread file.
"$BIN/dasim" validate "$SRC/platforms/gpu-spread/longhorn-v100-sgemm.json" >"$WORK/v.txt" 2>&1 ||
  fail "validate the shipped spread file: $(cat "$WORK/v.txt")"
grep -q "GPU spread of .*392 GPUs measured, the slowest 1.203 x the median GPU" "$WORK/v.txt" || fail "$(cat "$WORK/v.txt")"

scenario missing ', "gpu_spread": {"file": "nowhere.json"}'
expect_bad_input "missing spread file" 'missing.json: gpu_spread.file: file "' "$BIN/dasim" validate "$WORK/missing.json"
scenario typo ", \"gpu_spread\": {\"file\": \"$WORK/tail.json\", \"sede\": 3}"
expect_bad_input "unknown key" 'typo.json: gpu_spread.sede: unknown key' "$BIN/dasim" validate "$WORK/typo.json"
spread decreasing "1.0, 0.9"
scenario bad_file ", \"gpu_spread\": {\"file\": \"$WORK/decreasing.json\"}"
expect_bad_input "decreasing quantiles" \
  'decreasing.json: relative_time_quantiles[1]: expected quantiles in nondecreasing order, got 0.9 after 1' \
  "$BIN/dasim" run "$WORK/bad_file.json" --out "$WORK/out-bad" --quiet
[ -e "$WORK/out-bad" ] && fail "a refused scenario left output"
finish
