# Scenario lists and stated baselines, end to end: batch_per_gpu and precision as lists (one
# configuration per value, in the documented order), the columns that say what was run, a tf32
# request on a V100 (no TF32) reported as the fp32 rate it fell back to, and efficiency relative
# to 1 GPU, 1 node or a GPU count, checked against relations between separate simulations.
source "$2/tests/lib/cli_assert.sh"

platform="$SRC/platforms/dgx1-v100-edr.json"
calibration="$SRC/platforms/calibration/v100-sxm2-deepbench.json"  # the platform's node.gpu.calibration
scenario() {  # scenario NAME EXTRA_JSON: a 1, 2 and 4 node sgd study of ResNet-50 with EXTRA merged in
  /usr/bin/python3 - "$WORK/$1.json" "$platform" "$2" <<'PY'
import json, sys
s = {"name": "lists", "platforms": [{"file": sys.argv[2], "nodes": [1, 2, 4]}], "workloads": ["resnet50"],
     "batch_per_gpu": 32, "schedules": [{"type": "sgd"}], "collective": {"algorithm": "ring"},
     "iterations": 3, "warmup": 1}
s.update(json.loads(sys.argv[3]))
json.dump(s, open(sys.argv[1], "w"))
PY
}

# Lists: 2 precisions x 2 batches x 3 node counts, precisions outermost, node counts fastest.
scenario lists '{"batch_per_gpu": [16, 32], "precision": ["fp32", "tf32"]}'
expect_ok "lists" "$BIN/dasim" run "$WORK/lists.json" --out "$WORK/lists" --quiet
grep -q "^precision: tf32 on dgx1-v100-edr ran at the fp32 rate (its calibration has no tf32 rate)" \
  "$WORK/stdout" || fail "lists: the tf32 fallback is not reported"
/usr/bin/python3 - "$WORK/lists/results.csv" "$(sha256sum "$calibration" | cut -c1-64)" <<'PY' ||
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = [(r["precision"], r["batch_per_gpu"], r["gpus"]) for r in rows]
want = [(p, b, g) for p in ("fp32", "tf32") for b in ("16", "32") for g in ("8", "16", "32")]
assert got == want, got
for r in rows:
    assert r["compute_precision"] == "fp32", r             # V100: no tf32 rate
    assert (r["iterations"], r["warmup"]) == ("3", "1"), r
    assert r["bucket_cap_bytes"] == str(25 * 2**20), r      # DDP's default cap
    assert (r["progress"], r["granularity"], r["fusion"]) == ("async", "coarse", "none"), r
    assert r["calibration"].startswith("v100-sxm2-deepbench.json (measured on "), r  # no path
    assert r["calibration_sha256"] == sys.argv[2], r        # what sha256sum says of the file
    assert r["baseline_gpus"] == "1", r
    # samples/s is GPUs x batch / iteration time; speedup is it over the 1-GPU baseline's.
    assert abs(float(r["samples_per_s"]) - int(r["gpus"]) * int(r["batch_per_gpu"]) / float(r["iter_time_s"])) \
        <= 1e-8 * float(r["samples_per_s"]), r
    assert abs(float(r["speedup"]) - float(r["samples_per_s"]) / float(r["baseline_samples_per_s"])) < 1e-6, r
# tf32 that fell back is fp32: the same numbers.
by = {(r["precision"], r["batch_per_gpu"], r["gpus"]): r for r in rows}
for b in ("16", "32"):
    for g in ("8", "16", "32"):
        assert by[("tf32", b, g)]["iter_time_s"] == by[("fp32", b, g)]["iter_time_s"], (b, g)
# The batch changes the step: twice the batch is a longer step but not twice as long per sample.
assert float(by[("fp32", "32", "8")]["iter_time_s"]) > float(by[("fp32", "16", "8")]["iter_time_s"])
PY
  fail "lists: rows or columns wrong"

# Baselines. efficiency(n) vs 1 node = efficiency(n) vs 1 GPU / efficiency(1 node) vs 1 GPU, and
# the baseline's own row has efficiency 1: relations between separate simulations.
scenario gpu '{}'
scenario node '{"efficiency_baseline": "node"}'
scenario sixteen '{"efficiency_baseline": 16}'
expect_ok "baseline gpu" "$BIN/dasim" run "$WORK/gpu.json" --out "$WORK/gpu" --quiet
expect_ok "baseline node" "$BIN/dasim" run "$WORK/node.json" --out "$WORK/node" --quiet
expect_ok "baseline 16" "$BIN/dasim" run "$WORK/sixteen.json" --out "$WORK/sixteen" --quiet
/usr/bin/python3 - "$WORK/gpu/results.csv" "$WORK/node/results.csv" "$WORK/sixteen/results.csv" <<'PY' ||
import csv, sys
gpu, node, sixteen = ({r["gpus"]: r for r in csv.DictReader(open(f))} for f in sys.argv[1:])
e = lambda rows, g: float(rows[g]["efficiency"])
assert node["8"]["baseline_gpus"] == "8" and sixteen["8"]["baseline_gpus"] == "16"
assert abs(e(node, "8") - 1) < 1e-9 and abs(e(sixteen, "16") - 1) < 1e-9, (e(node, "8"), e(sixteen, "16"))
assert float(node["8"]["baseline_samples_per_s"]) == float(node["8"]["samples_per_s"])
for g in ("8", "16", "32"):
    assert abs(e(node, g) - e(gpu, g) / e(gpu, "8")) < 1e-7, g  # CSV cells: 9 digits
    assert abs(e(sixteen, g) - e(gpu, g) / e(gpu, "16")) < 1e-7, g
    # speedup is in GPUs: the baseline counts as its own GPU count.
    assert abs(float(node[g]["speedup"]) - 8 * float(node[g]["samples_per_s"]) / float(node["8"]["samples_per_s"])) < 1e-6
PY
  fail "baselines: efficiency relative to 1 node or 16 GPUs does not follow from the 1-GPU one"

# Bad input: one line naming the key, exit 2, nothing written.
bad() {  # bad NAME EXPECTED EXTRA_JSON
  scenario "$1" "$3"
  expect_bad_input "$1" "$1.json: $2" "$BIN/dasim" run "$WORK/$1.json" --out "$WORK/out-$1" --quiet
  [ ! -e "$WORK/out-$1" ] || fail "$1: output directory was created"
}
bad half_node 'efficiency_baseline: expected 1 GPU or whole nodes: platform dgx1-v100-edr has 8 GPUs per node, got 4 GPUs' '{"efficiency_baseline": 4}'
bad rack 'efficiency_baseline: expected a GPU count or "node", got "rack"' '{"efficiency_baseline": "rack"}'
bad empty_batches 'batch_per_gpu: expected a value or a non-empty list of values' '{"batch_per_gpu": []}'
bad twice_batch 'batch_per_gpu[1]: 32 is listed twice' '{"batch_per_gpu": [32, 32]}'
bad zero_batch_in_list 'batch_per_gpu[1]: expected an integer in 1..1048576, got 0' '{"batch_per_gpu": [32, 0]}'
bad bad_precision_in_list 'precision[1]: expected one of fp32, tf32, fp16, bf16, amp, amp_bf16, got "fp8"' '{"precision": ["fp32", "fp8"]}'
bad precision_number 'precision[0]: expected a precision name (a string)' '{"precision": [16]}'
finish
