#!/usr/bin/env bash
# `host_input` in a scenario: one node's host prepares samples_per_s samples for all its GPUs, each
# GPU its share. ResNet-50 in amp at batch 256 on one DGX-1: with a host of 6000 samples/s the 8
# GPUs get 750 each, 341.3 ms for 256 samples, slower than their step, so the 8-GPU run delivers
# exactly the host's 6000 samples/s; the 1-GPU baseline has the whole host (42.7 ms for its 256
# samples) and runs as without it. The results carry the wait (input_wait_s = iteration - compute
# - exposed communication) and the summary an input_ms column. A sweep of the rate: below. Bad
# values: one line naming the key, exit 2, nothing written.
source "$2/tests/lib/cli_assert.sh"

dgx1="$SRC/platforms/dgx1-v100-edr.json"
scenario() {  # scenario NAME EXTRA_JSON
  cat >"$WORK/$1.json" <<JSON
{"platforms": [{"file": "$dgx1", "nodes": [1]}], "workloads": ["resnet50"], "batch_per_gpu": 256,
 "precision": "amp", "schedules": [{"type": "sgd"}], "iterations": 2, "warmup": 1$2}
JSON
}
scenario plain ''
scenario hosted ', "host_input": {"samples_per_s": 6000, "note": "a what-if"}'
expect_ok "run plain" "$BIN/dasim" run "$WORK/plain.json" --out "$WORK/out-plain"
grep -q "input_ms" "$WORK/stdout" && fail "an input_ms column without a host_input: $(cat "$WORK/stdout")"
expect_ok "run hosted" "$BIN/dasim" run "$WORK/hosted.json" --out "$WORK/out-hosted"
grep -q "input_ms" "$WORK/stdout" || fail "no input_ms column in the summary: $(cat "$WORK/stdout")"
/usr/bin/python3 - "$WORK/out-plain/results.csv" "$WORK/out-hosted/results.csv" <<'PY' || fail "host_input's closed form"
import csv, sys
plain, hosted = (next(csv.DictReader(open(p))) for p in sys.argv[1:])
f = lambda r, k: float(r[k])
loader_s = 8 * 256 / 6000  # the 8 GPUs' shares of the host, for one step's 256 samples each
assert f(plain, "iter_time_s") < loader_s, f"the GPUs' own step {plain['iter_time_s']} is not the faster"
assert abs(f(hosted, "iter_time_s") - loader_s) < 1e-9, hosted["iter_time_s"]
assert abs(f(hosted, "samples_per_s") - 6000) < 1e-6, hosted["samples_per_s"]
assert hosted["baseline_samples_per_s"] == plain["baseline_samples_per_s"], "the 1-GPU baseline moved"
wait = f(hosted, "iter_time_s") - f(hosted, "compute_s") - f(hosted, "exposed_comm_s")
assert abs(f(hosted, "input_wait_s") - wait) < 1e-9, (hosted["input_wait_s"], wait)
assert f(plain, "input_wait_s") == 0, plain["input_wait_s"]
PY

# A sweep of the host's rate (sweep.parameter host_input): each value is a configuration whose GPUs
# and baseline share that host. At 1000 samples/s even the 1-GPU baseline waits (256 / 1000 s),
# so both deliver the host's 1000 samples/s and 8 GPUs keep exactly 1/8; at 4000 the 8 GPUs take
# 8 x 256 / 4000 = 0.512 s a step; at 16000 (128 ms for 8 x 256) the GPUs' own step is the slower:
# the run without a host's. --plot draws the sizing figure for the column.
scenario swept ', "sweep": {"parameter": "host_input", "values": [1000, 4000, 16000]}'
expect_ok "run swept" "$BIN/dasim" run "$WORK/swept.json" --out "$WORK/out-swept" --plot
grep -q "sgd host input 4000/s" "$WORK/stdout" || fail "the summary does not name the swept rate: $(cat "$WORK/stdout")"
[ -s "$WORK/out-swept/sizing.png" ] || fail "no sizing.png for a host_input sweep"
/usr/bin/python3 - "$WORK/out-plain/results.csv" "$WORK/out-swept/results.csv" <<'PY' || fail "host_input sweep's closed forms"
import csv, sys
plain = next(csv.DictReader(open(sys.argv[1])))
rows = {float(r["host_input_samples_per_s"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert sorted(rows) == [1000, 4000, 16000], sorted(rows)
f = lambda r, k: float(r[k])
slow = rows[1000]
assert abs(f(slow, "baseline_samples_per_s") - 1000) < 1e-6, slow["baseline_samples_per_s"]
assert abs(f(slow, "samples_per_s") - 1000) < 1e-6, slow["samples_per_s"]
assert abs(f(slow, "efficiency") - 1 / 8) < 1e-9, slow["efficiency"]
assert abs(f(rows[4000], "iter_time_s") - 8 * 256 / 4000) < 1e-9, rows[4000]["iter_time_s"]
assert rows[4000]["baseline_samples_per_s"] == plain["baseline_samples_per_s"], "the 4000/s baseline waited"
assert rows[16000]["iter_time_s"] == plain["iter_time_s"], (rows[16000]["iter_time_s"], plain["iter_time_s"])
assert f(rows[16000], "input_wait_s") == 0, rows[16000]["input_wait_s"]
PY

# A platform's own host (platforms[i].host_input) before the scenario's: a DGX-1 with a host of
# 6000 samples/s takes 8 x 256 / 6000 s a step; a DGX A100 without its own takes the scenario's
# 12000: 8 x 256 / 12000 s, slower than its GPUs' own step as well.
cat >"$WORK/per_platform.json" <<JSON
{"platforms": [{"file": "$dgx1", "nodes": [1], "host_input": {"samples_per_s": 6000}},
               {"file": "$SRC/platforms/dgx-a100-hdr.json", "nodes": [1]}],
 "workloads": ["resnet50"], "batch_per_gpu": 256, "precision": "amp", "schedules": [{"type": "sgd"}],
 "iterations": 2, "warmup": 1, "host_input": {"samples_per_s": 12000}}
JSON
expect_ok "run per_platform" "$BIN/dasim" run "$WORK/per_platform.json" --out "$WORK/out-per-platform"
/usr/bin/python3 - "$WORK/out-per-platform/results.csv" <<'PY' || fail "a platform's own host_input"
import csv, sys
rows = {r["platform"]: r for r in csv.DictReader(open(sys.argv[1]))}
for platform, rate in (("dgx1-v100-edr", 6000), ("dgx-a100-hdr", 12000)):
    step = float(rows[platform]["iter_time_s"])
    assert abs(step - 8 * 256 / rate) < 1e-9, (platform, step, 8 * 256 / rate)
    assert float(rows[platform]["input_wait_s"]) > 0, platform
PY

bad() {  # bad NAME EXTRA_JSON EXPECTED_MESSAGE_PART
  scenario "$1" "$2"
  expect_bad_input "$1" "$1.json: $3" "$BIN/dasim" run "$WORK/$1.json" --out "$WORK/out-$1" --quiet
  [ -e "$WORK/out-$1" ] && fail "$1: a refused scenario left output"
  return 0
}
bad zero ', "host_input": {"samples_per_s": 0}' \
  "host_input.samples_per_s: expected the samples per second one node's host prepares for all its GPUs, at least 0.001"
bad tiny ', "host_input": {"samples_per_s": 1e-320}' "host_input.samples_per_s: expected the samples per second"
bad negative ', "host_input": {"samples_per_s": -5}' "host_input.samples_per_s: expected the samples per second"
bad text ', "host_input": {"samples_per_s": "fast"}' "host_input.samples_per_s: expected a number"
bad missing ', "host_input": {}' "host_input.samples_per_s: required key is missing"
bad typo ', "host_input": {"samples_per_s": 10, "sample_per_s": 3}' "host_input.sample_per_s: unknown key"
bad not_object ', "host_input": 6000' "host_input: expected a JSON object"
bad swept_zero ', "sweep": {"parameter": "host_input", "values": [6000, 0]}' \
  "sweep.values[1]: expected the samples per second one node's host prepares for all its GPUs, at least 0.001"
bad swept_unit ', "sweep": {"parameter": "host_input", "values": ["6000/s"]}' \
  "sweep.values[0]: expected a number"
per_platform_bad() {  # NAME PLATFORM_HOST_INPUT_JSON EXTRA_JSON EXPECTED_MESSAGE_PART
  cat >"$WORK/$1.json" <<JSON
{"platforms": [{"file": "$dgx1", "nodes": [1], "host_input": $2}], "workloads": ["resnet50"],
 "batch_per_gpu": 256, "precision": "amp", "schedules": [{"type": "sgd"}], "iterations": 2$3}
JSON
  expect_bad_input "$1" "$1.json: $4" "$BIN/dasim" run "$WORK/$1.json" --out "$WORK/out-$1" --quiet
  [ -e "$WORK/out-$1" ] && fail "$1: a refused scenario left output"
  return 0
}
per_platform_bad platform_zero '{"samples_per_s": 0}' '' \
  "platforms[0].host_input.samples_per_s: expected the samples per second one node's host prepares"
per_platform_bad platform_typo '{"samples_per_s": 10, "samples": 10}' '' "platforms[0].host_input.samples: unknown key"
per_platform_bad platform_swept '{"samples_per_s": 6000}' ', "sweep": {"parameter": "host_input", "values": [6000]}' \
  "sweep.parameter: host_input is swept: remove platforms[0].host_input, which the sweep would replace"
bad swept_twice ', "host_input": {"samples_per_s": 6000}, "sweep": {"parameter": "host_input", "values": [6000]}' \
  "sweep.parameter: host_input is swept: remove the scenario's host_input section, which the sweep would replace"
finish
