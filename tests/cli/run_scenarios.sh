# dasim run end to end: the quick scenario, byte-identical reruns (also with --jobs 2), the
# trace, and every class of bad scenario (exit 2, FILE: json.path, no output written).
source "$2/tests/lib/cli_assert.sh"

quick="$SRC/scenarios/quick.json"
expect_ok "quick scenario" "$BIN/dasim" run "$quick" --out "$WORK/a" --quiet --trace 5
[ "$(wc -l <"$WORK/a/results.csv")" -eq 13 ] || fail "quick: expected 12 result rows + header"
grep -q "sgd" "$WORK/stdout" || fail "quick: no summary table on stdout"
[ -s "$WORK/a/trace-5.json" ] || fail "quick: --trace 5 wrote no trace"
/usr/bin/python3 - "$WORK/a/trace-5.json" <<'PY' || fail "trace is not a Chrome trace with compute and comm events"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
cats = {e.get("cat") for e in events}
assert {"compute", "comm"} <= cats, cats
PY
grep -q "^trace: $WORK/a/trace-5.json (configuration 5: ranks 0..1 of 2 GPUs" "$WORK/stdout" ||
  fail "quick: the trace's path and the ranks it holds are not printed"

# --trace-ranks: configuration 7 (local SGD on 8 one-GPU nodes) traced for its ranks 0..2 only.
# It is symmetric, so it is simulated on 2 of its nodes and the trace holds their 2 ranks, and says
# so; with collective.fold false all 8 ranks run and the trace holds the 3 asked for.
expect_ok "trace ranks" "$BIN/dasim" run "$quick" --out "$WORK/t3" --quiet --trace 7 --trace-ranks 3
grep -q "^trace: $WORK/t3/trace-7.json (configuration 7: ranks 0..1 of 8 GPUs; --trace-ranks sets how many, up to the 2 nodes a symmetric run simulates" "$WORK/stdout" ||
  fail "--trace-ranks 3 of a folded run: the ranks it holds are not printed: $(cat "$WORK/stdout")"
/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s.setdefault("collective",{})["fold"]=False; json.dump(s,open(sys.argv[2],"w"))' \
  "$quick" "$WORK/quick-whole.json"
sed -i "s|\"../platforms/|\"$SRC/platforms/|" "$WORK/quick-whole.json"
expect_ok "trace ranks, whole" "$BIN/dasim" run "$WORK/quick-whole.json" --out "$WORK/t3w" --quiet --trace 7 --trace-ranks 3
grep -q "^trace: $WORK/t3w/trace-7.json (configuration 7: ranks 0..2 of 8 GPUs; --trace-ranks sets how many)" "$WORK/stdout" ||
  fail "--trace-ranks 3: the ranks it holds are not printed: $(cat "$WORK/stdout")"
# Why runs were not folded: the 6 configurations of 4 and 8 nodes, in one line and in a column
# (empty for 1 and 2 nodes, which have nothing to fold); the folded run's column is empty.
grep -q "^not folded: collective.fold is false (6 configurations)$" "$WORK/stdout" ||
  fail "fold false: no 'not folded:' line: $(grep -i fold "$WORK/stdout")"
/usr/bin/python3 - "$WORK/t3w/results.csv" "$WORK/a/results.csv" <<'PY' || fail "not_folded_because column"
import csv, sys
whole = list(csv.DictReader(open(sys.argv[1])))
assert [r["not_folded_because"] for r in whole] == [
    "collective.fold is false" if int(r["nodes"]) > 2 else "" for r in whole], whole
assert all(r["not_folded_because"] == "" for r in csv.DictReader(open(sys.argv[2])))
PY
/usr/bin/python3 - "$WORK/t3w/trace-7.json" <<'PY' || fail "--trace-ranks 3: the trace does not hold exactly 3 ranks"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
nodes = {e["pid"] for e in events if e.get("cat") == "compute"}
assert len(nodes) == 3, nodes
PY

# ResNet-50's weight allreduce on <= 8 GPUs at 12.5 GB/s (2 x 7/8 x 102 MB / 12.5e9 = 14 ms) is far
# shorter than one step (~110 ms), so DaSGD with d = 1 must show no exposed time; what it still
# pays is the compute slowed beside that allreduce (the calibration's interference), so its
# iteration is the 1-GPU step plus exactly compute_slowdown_s, which only the 1-GPU run lacks.
/usr/bin/python3 - "$WORK/a/results.csv" <<'PY' || fail "quick: DaSGD did not hide its allreduce"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["schedule"] == "dasgd"]
assert len(rows) == 4
one = [r for r in rows if r["gpus"] == "1"][0]
for r in rows:
    assert float(r["exposed_comm_s"]) == 0.0, r
    slowdown = float(r["compute_slowdown_s"])
    assert (slowdown == 0) == (r["gpus"] == "1"), r
    assert abs(float(r["iter_time_s"]) - float(one["iter_time_s"]) - slowdown) < 1e-9, r
    assert abs(float(r["efficiency"]) - float(one["iter_time_s"]) / float(r["iter_time_s"])) < 1e-6, r
PY

expect_ok "rerun" "$BIN/dasim" run "$quick" --out "$WORK/b" --quiet
expect_ok "rerun with --jobs 2" "$BIN/dasim" run "$quick" --out "$WORK/c" --quiet --jobs 2
for f in results.csv results.json; do
  cmp -s "$WORK/a/$f" "$WORK/b/$f" || fail "rerun: $f differs"
  cmp -s "$WORK/a/$f" "$WORK/c/$f" || fail "--jobs 2: $f differs"
done

# Trees across fat-tree leaves (32 nodes of 24 a leaf) are simulated whole and the summary says
# how to fold them; with collective.fold_trees_across_leaves they fold and the hint is gone.
/usr/bin/python3 - "$SRC" "$WORK/leaves.json" "$WORK/leaves-folded.json" <<'PY'
import json, sys
s = {"name": "leaves", "platforms": [{"file": sys.argv[1] + "/platforms/v100-pcie-25gbe.json", "nodes": [32]}],
     "workloads": ["resnet50"], "batch_per_gpu": 32, "schedules": [{"type": "sgd"}],
     "collective": {"algorithm": "tree"}, "iterations": 1, "warmup": 0}
json.dump(s, open(sys.argv[2], "w"))
s["collective"]["fold_trees_across_leaves"] = True
json.dump(s, open(sys.argv[3], "w"))
PY
expect_ok "trees across leaves" "$BIN/dasim" run "$WORK/leaves.json" --out "$WORK/leaves" --quiet
grep -q "^not folded: the allreduce runs tree/[a-z0-9]* across fat-tree leaves (1 configuration)$" "$WORK/stdout" ||
  fail "trees across leaves: no 'not folded:' line: $(grep -i fold "$WORK/stdout")"
grep -q "^fold hint: collective.fold_trees_across_leaves folds trees across fat-tree leaves too" "$WORK/stdout" ||
  fail "trees across leaves: no fold hint: $(grep -i fold "$WORK/stdout")"
expect_ok "trees across leaves, folded" "$BIN/dasim" run "$WORK/leaves-folded.json" --out "$WORK/leaves-folded" --quiet
grep -q "^fold: 1 of 1 configurations were symmetric" "$WORK/stdout" ||
  fail "fold_trees_across_leaves: not folded: $(grep -i fold "$WORK/stdout")"
grep -q "fold hint" "$WORK/stdout" && fail "fold_trees_across_leaves: the hint is still printed"

source "$SRC/tests/lib/quick_mutations.sh"
bad unknown_schedule 'schedules[1].type: expected one of sgd, local_sgd, dasgd, diloco, streaming_diloco, got "lars"' 's["schedules"][1]["type"] = "lars"'
bad tau_zero 'schedules[1].tau: expected a positive integer, got 0' 's["schedules"][1]["tau"] = 0'
bad delay_above_tau 'schedules[2].delay: expected 0 <= delay <= tau = 4, got 5' 's["schedules"][2]["delay"] = 5'
bad missing_platform 'platforms[0].file: file "/nonexistent/p.json" does not exist' 's["platforms"][0]["file"] = "/nonexistent/p.json"'
bad missing_calibration 'calibration: file "/nonexistent/c.json" does not exist' 's["calibration"] = "/nonexistent/c.json"'
bad precision_mode 'precision: expected one of fp32, tf32, fp16, bf16, amp, amp_bf16, got "fp8"' 's["precision"] = "fp8"'
bad grad_precision 'grad_precision: expected one of fp32, fp16, bf16, got "amp"' 's["grad_precision"] = "amp"'
bad fusion 'fusion: expected one of none, bn_relu, got "xla"' 's["fusion"] = "xla"'
bad memory_format 'memory_format: expected one of channels_last, nchw, got "nhwc"' 's["memory_format"] = "nhwc"'
bad optimizer 'optimizer: expected one of sgd_momentum, adam, lamb, bert_adam, got "adagrad"' 's["optimizer"] = "adagrad"'
bad grad_clip 'grad_clip: expected one of none, norm, norm_and_scale, got "always"' 's["grad_clip"] = "always"'
bad zero_grad 'zero_grad: expected one of set_to_none, zero, fill_only, got "none"' 's["zero_grad"] = "none"'
bad activation_checkpointing 'activation_checkpointing: expected one of none, blocks, got "all"' \
  's["activation_checkpointing"] = "all"'
bad checkpointing_without_blocks 'workloads[0]: activation_checkpointing "blocks" recomputes the layers'"'"' blocks, and no layer of resnet50 names one' \
  's["activation_checkpointing"] = "blocks"'
bad unknown_key 'iteration: unknown key' 's["iteration"] = 3'
bad zero_batch 'batch_per_gpu: expected an integer in 1..1048576, got 0' 's["batch_per_gpu"] = 0'
bad zero_nodes 'platforms[0].nodes[0]: expected a positive node count' 's["platforms"][0]["nodes"] = [0, 2]'
bad unknown_workload 'workloads[0]: resnet51: not a built-in workload' 's["workloads"] = ["resnet51"]'
bad sweep_parameter 'sweep.parameter: expected one of' 's["sweep"] = {"parameter": "warp_speed", "values": [1]}'
bad sweep_value 'sweep.values[1]: unknown bandwidth unit' 's["sweep"] = {"parameter": "inter_node_bandwidth", "values": ["10Gbps", "25GBq"]}'
bad sweep_negative_latency 'sweep.values[1]: expected a latency >= 0' 's["sweep"] = {"parameter": "fabric_latency", "values": [0, "-1us"]}'
bad no_schedules 'schedules: expected at least one schedule' 's["schedules"] = []'
bad unknown_progress 'collective.progress: expected one of async, host, polled, polled_rounds, got "sometimes"' 's.setdefault("collective", {})["progress"] = "sometimes"'
bad polled_rounds_tree 'collective.progress: polled_rounds runs a single ring' 's["collective"] = {"algorithm": "tree", "progress": "polled-rounds"}'
bad polled_rounds_channels 'collective.progress: polled_rounds runs a single ring' 's["collective"] = {"ring_channels": 2, "progress": "polled_rounds"}'
bad fold_trees_without_fold 'collective.fold_trees_across_leaves: expected false or absent when fold is false' 's["collective"] = {"fold": False, "fold_trees_across_leaves": True}'
bad fold_trees_not_boolean 'collective.fold_trees_across_leaves: expected' 's["collective"] = {"fold_trees_across_leaves": "yes"}'

printf '{"platforms": [' >"$WORK/malformed.json"
expect_bad_input "malformed scenario" "malformed.json: malformed JSON" "$BIN/dasim" run "$WORK/malformed.json" --out "$WORK/out-m" --quiet
expect_bad_input "trace index out of range" "--trace 99" "$BIN/dasim" run "$quick" --out "$WORK/out-t" --quiet --trace 99
[ ! -e "$WORK/out-t" ] || fail "trace out of range: output directory was created"
expect_bad_input "missing --out" "--out" "$BIN/dasim" run "$quick"
finish
