#!/usr/bin/env bash
# `dasim workload import` end to end on the hand-written torch.profiler trace
# tests/data/kineto/training_step.json (numbers derived in tests/workload/profiler_trace_import_test.cpp):
# the summary, the written file through `dasim workload show` (table, and a prediction that scales
# the measured batch-8 times to batch 16), then bad input: exit 2, one stderr line, no file.
source "$2/tests/lib/cli_assert.sh"
TRACE=$SRC/tests/data/kineto/training_step.json
OUT=$WORK/net.json

"$BIN/dasim" workload import "$TRACE" --batch 8 --out "$OUT" >"$WORK/summary.txt" 2>"$WORK/err.txt" ||
  fail "import failed: $(cat "$WORK/err.txt")"
[ -f "$OUT" ] || fail "no workload file written"
for line in "ProfilerStep#1 (layers are nn.Module calls)" \
  "layers            4 (164298 parameters, from recorded shapes)" \
  "forward           0.101 ms" "backward          0.092 ms" \
  "optimizer         0.013 ms (2 GPU activities)" "host copies       0.008 ms (1 memcpy HtoD/DtoH)" \
  "not attributed    0.017 ms (6 GPU activities)" "update_time_s     0.038 ms" \
  "NCCL dropped      2 kernels" "streams           7, 20 (overlap 0.009 ms"; do
  grep -qF -- "$line" "$WORK/summary.txt" || fail "summary lacks '$line': $(cat "$WORK/summary.txt")"
done

expect_ok "workload show of the imported file" "$BIN/dasim" workload show "$OUT"
grep -q "Linear_0" "$WORK/stdout" || fail "workload show lacks Linear_0: $(cat "$WORK/stdout")"
grep -q "parameters *164298" "$WORK/stdout" || fail "workload show lacks the parameters: $(cat "$WORK/stdout")"

# Measured times scale linearly with the batch: batch 16 doubles forward 101 us and backward 92 us;
# update_time_s (38 us) is per step.
expect_ok "predicted step" "$BIN/dasim" workload show "$OUT" --batch 16 --format json \
  --calibration "$SRC/platforms/calibration/a100-datasheet.json"
/usr/bin/python3 - "$WORK/stdout" <<'PY' || fail "predicted step of the imported workload"
import json, sys
step = json.load(open(sys.argv[1]))["step"]
for key, want in (("forward_s", 202e-6), ("backward_s", 184e-6), ("update_s", 38e-6)):
    if abs(step[key] - want) > 1e-12:
        sys.exit(f"{key} = {step[key]}, expected {want}")
PY

# Bad input: one line, exit 2, nothing written.
expect_no_file() {  # NAME EXPECTED ARGS...
  local name=$1 expected=$2
  shift 2
  rm -f "$WORK/bad.json"
  expect_bad_input "$name" "$expected" "$BIN/dasim" workload import "$@" --out "$WORK/bad.json"
  [ ! -e "$WORK/bad.json" ] || fail "$name: wrote $WORK/bad.json"
}
printf '{"traceEvents": [' >"$WORK/truncated.json"
expect_no_file "not JSON" "truncated.json: malformed JSON" "$WORK/truncated.json" --batch 8
printf '{"schemaVersion": 1}' >"$WORK/no_events.json"
expect_no_file "no traceEvents" "no_events.json: traceEvents: required key is missing" "$WORK/no_events.json" --batch 8
printf '{"traceEvents": []}' >"$WORK/empty.json"
expect_no_file "no kernels" "empty.json: traceEvents: no GPU kernels" "$WORK/empty.json" --batch 8
expect_no_file "unknown step" "training_step.json: traceEvents: no ProfilerStep#5 (the trace has ProfilerStep#1, ProfilerStep#2)" \
  "$TRACE" --batch 8 --step 5
expect_no_file "incomplete step" "traceEvents: ProfilerStep#2 is not a complete training step" "$TRACE" --batch 8 --step 2
/usr/bin/python3 - "$TRACE" "$WORK/no_shapes.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    e.get("args", {}).pop("Input Dims", None)
json.dump(t, open(sys.argv[2], "w"))
PY
expect_no_file "no parameter shapes" "no_shapes.json: traceEvents: no parameter sizes" "$WORK/no_shapes.json" --batch 8
printf '[{"name": "conv.weight", "shape": "16x3"}]' >"$WORK/params.json"
expect_no_file "bad side file" "params.json: [0].shape: expected a list of sizes" "$WORK/no_shapes.json" --batch 8 \
  --params "$WORK/params.json"
expect_no_file "missing --batch" "--batch is required" "$TRACE"
printf '[{"name": "conv.weight", "shape": [16, 3, 3, 3]}, {"name": "fc.weight", "numel": 163840}]' >"$WORK/params.json"
expect_ok "side file" "$BIN/dasim" workload import "$WORK/no_shapes.json" --batch 8 --params "$WORK/params.json" \
  --out "$WORK/side.json"
grep -qF "layers            4 (164272 parameters, from $WORK/params.json)" "$WORK/stdout" ||
  fail "side-file parameters: $(cat "$WORK/stdout")"
finish
