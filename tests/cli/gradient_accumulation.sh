#!/usr/bin/env bash
# Gradient accumulation in scenarios. A schedule's gradient_accumulation_steps A: a step trains on
# GPUs x batch x A samples. A scenario's global_batch (strong scaling): every configuration and
# its baseline take global_batch / (GPUs x batch) micro-batches, so each step trains on exactly
# global_batch samples at every GPU count, and the configuration equal to its baseline has
# efficiency 1. Bad values are one line naming the file and the path, exit 2, no output.
source "$2/tests/lib/cli_assert.sh"

flat="$SRC/platforms/flat-100gbe-64.json"
scenario() {  # scenario NAME SCHEDULE EXTRA_JSON
  cat >"$WORK/$1.json" <<JSON
{"platforms": [{"file": "$flat", "nodes": [1, 2, 4]}], "workloads": ["resnet50"], "batch_per_gpu": 32,
 "schedules": [$2], "iterations": 2, "warmup": 1$3}
JSON
}
# Per row: GPUs, samples per step (samples/s x step time), schedule detail, efficiency.
rows() {
  /usr/bin/python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["gpus"], round(float(r["samples_per_s"]) * float(r["iter_time_s"]), 3), r["schedule_detail"],
          round(float(r["efficiency"]), 12))' "$1"
}

scenario weak '{"type": "sgd", "gradient_accumulation_steps": 4}' ''
expect_ok "run weak" "$BIN/dasim" run "$WORK/weak.json" --out "$WORK/out-weak" --quiet
grep -q " sgd(accumulate=4) " "$WORK/stdout" || fail "the table should name the accumulation: $(cat "$WORK/stdout")"
rows "$WORK/out-weak/results.csv" >"$WORK/weak.txt"
[ "$(cut -d' ' -f1-3 "$WORK/weak.txt" | tr '\n' ';')" = \
  "1 128.0 sgd(accumulate=4);2 256.0 sgd(accumulate=4);4 512.0 sgd(accumulate=4);" ] ||
  fail "weak scaling with 4 micro-batches of 32: $(cat "$WORK/weak.txt")"

scenario strong '{"type": "sgd"}' ', "global_batch": 512'
expect_ok "run strong" "$BIN/dasim" run "$WORK/strong.json" --out "$WORK/out-strong" --quiet
rows "$WORK/out-strong/results.csv" >"$WORK/strong.txt"
[ "$(cut -d' ' -f1-3 "$WORK/strong.txt" | tr '\n' ';')" = \
  "1 512.0 sgd(accumulate=16);2 512.0 sgd(accumulate=8);4 512.0 sgd(accumulate=4);" ] ||
  fail "strong scaling at 512 samples per step: $(cat "$WORK/strong.txt")"
[ "$(head -1 "$WORK/strong.txt" | cut -d' ' -f4)" = 1.0 ] || fail "1 GPU is its own baseline: $(head -1 "$WORK/strong.txt")"
# At 4 GPUs both runs take 4 micro-batches (compute c each), one update u and one allreduce a. The
# weak baseline is (4c + u), the strong one (16c + u) for 4 x the samples, so the efficiencies are
# (4c + u) / (4c + u + a) and (16c + u) / (16c + 4u + 4a): the strong one is higher by
# 12cu + 3u^2 + 3ua > 0 (cross-multiplied), its baseline's update shared by 16 micro-batches.
/usr/bin/python3 -c '
import sys
weak = float(open(sys.argv[1]).read().split("\n")[2].split()[3])
strong = float(open(sys.argv[2]).read().split("\n")[2].split()[3])
sys.exit(0 if weak < strong < 1 else 1)' "$WORK/weak.txt" "$WORK/strong.txt" ||
  fail "4 GPUs: strong scaling should be above weak and below 1"

# The analysis reads the accumulation out of schedule_detail: under the global batch one curve per
# schedule, titled strong scaling; in weak scaling one curve per number of micro-batches.
scenario both_schedules '{"type": "sgd"}, {"type": "sgd", "gradient_accumulation_steps": 4}' ''
expect_ok "run both" "$BIN/dasim" run "$WORK/both_schedules.json" --out "$WORK/out-both" --quiet
PYTHONPATH="$SRC/analysis" /usr/bin/python3 - "$WORK/out-strong/results.csv" "$WORK/out-both/results.csv" <<'PY' ||
import sys
from dasim_analysis.curves import PANEL_COLUMNS, curve_columns, curve_label, scaling_kind, sorted_curves
from dasim_analysis.results_io import load_results
def labels(path):
    frame = load_results(path)
    columns = curve_columns(frame, PANEL_COLUMNS + ["gpus"])
    return scaling_kind(frame), [curve_label(columns, key) for key, _ in sorted_curves(frame, columns)]
strong, weak = labels(sys.argv[1]), labels(sys.argv[2])
assert strong == ("strong scaling, fixed global batch", ["sync SGD"]), strong
assert weak == ("weak scaling, fixed batch per GPU", ["sync SGD, no accumulation", "sync SGD, 4 micro-batches/step"]), weak
PY
  fail "the analysis' curves of accumulated runs"

scenario zero '{"type": "sgd", "gradient_accumulation_steps": 0}' ''
expect_bad_input "zero steps" 'zero.json: schedules[0].gradient_accumulation_steps: expected an integer in 1..65536, got 0' \
  "$BIN/dasim" run "$WORK/zero.json" --out "$WORK/out-bad" --quiet
scenario fsdp '{"type": "sgd", "data_parallel": "fsdp", "gradient_accumulation_steps": 2}' ''
expect_bad_input "fsdp" 'fsdp.json: schedules[0].gradient_accumulation_steps: gradient accumulation is modelled for ddp only' \
  "$BIN/dasim" run "$WORK/fsdp.json" --out "$WORK/out-bad" --quiet
scenario indivisible '{"type": "sgd"}' ', "global_batch": 96'
expect_bad_input "indivisible" \
  'indivisible.json: global_batch: expected a multiple of GPUs x batch_per_gpu, at most 65536 micro-batches, for every configuration and baseline: 2 GPUs of platform' \
  "$BIN/dasim" run "$WORK/indivisible.json" --out "$WORK/out-bad" --quiet
scenario both '{"type": "sgd", "gradient_accumulation_steps": 2}' ', "global_batch": 512'
expect_bad_input "both" 'both.json: global_batch: schedules[0] sets gradient_accumulation_steps' \
  "$BIN/dasim" validate "$WORK/both.json"
# 65,536 micro-batches on 64 unfolded GPUs for 12 iterations: 5e7 executions of each kind, refused
# up front with the estimate (the limit is 2e7 per configuration).
cat >"$WORK/huge.json" <<JSON
{"platforms": [{"file": "$flat", "nodes": [64]}], "workloads": ["resnet50"], "batch_per_gpu": 32,
 "schedules": [{"type": "sgd", "gradient_accumulation_steps": 65536}], "iterations": 8, "warmup": 4,
 "jitter": {"stddev": 0.01}}
JSON
expect_bad_input "too many micro-batches" \
  'huge.json: schedules[0].gradient_accumulation_steps: 65536 micro-batches per step on 64 simulated GPUs and 65536 on the baseline'"'"'s 1 x 12 iterations are 5.11e+07 micro-batches' \
  "$BIN/dasim" run "$WORK/huge.json" --out "$WORK/out-bad" --quiet
[ -e "$WORK/out-bad" ] && fail "a refused scenario left output"
finish
