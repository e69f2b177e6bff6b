#!/usr/bin/env bash
# analysis/fidelity_ranks.py on a hand-made run: per rank and per period of tau = 4 steps over the
# timed window (steps 5-12, 2 periods), compute, exposed and MPI_Wait in ms and the first step with
# a wait over 2 ms. Rank 0: 20 ms of compute and 1 ms inside MPI per step, never waiting: 80, 4,
# 0. Rank 1: 18 ms of compute per step, 0.5 ms of polls per step and a 6 ms wait at steps 6 and 10
# (and 9 ms at step 2, before the window): 72, (8 x 0.5 + 2 x 6) / 2 = 8, 6, first wait step 6.
#
# --simulate: OUT's scenario re-run with the run's rank speeds. With both ranks equally fast
# (equal compute), polled_rounds DaSGD in step costs each rank its two chunk copies per average:
# ResNet-50's 25,557,032 fp32 parameters = 102,228,128 B on flat-100gbe (12.5e9 B/s, 2 us per
# route), 2 x (51,114,064 / 12.5e9 + 2 us) = 8.18 ms per period.
source "$2/tests/lib/cli_assert.sh"  # BIN, SRC, WORK, fail, expect_bad_input, finish
PY=/usr/bin/python3
SCRIPT=$SRC/analysis/fidelity_ranks.py

mkdir -p "$WORK/out/runs"
$PY - "$WORK/out/runs" <<'PY'
import json, os, sys
runs = sys.argv[1]
steps = 12
wait1 = [0.009 if k == 2 else 0.006 if k in (6, 10) else 0.0 for k in range(1, steps + 1)]
run = {"config": {"schedule": "dasgd", "tau": 4, "timed_steps": [5, 12]},
       "per_rank_steps": [
           {"rank": 0, "compute_s": [0.020] * steps, "exposed_s": [0.001] * steps, "wait_s": [0.0] * steps},
           {"rank": 1, "compute_s": [0.018] * steps, "exposed_s": [0.0005 + w for w in wait1], "wait_s": wait1}]}
json.dump(run, open(os.path.join(runs, "dasgd_np2_r0.json"), "w"))
one = {"config": {"schedule": "dasgd", "tau": 4, "timed_steps": [5, 12]},
       "per_rank_steps": [run["per_rank_steps"][0]]}
json.dump(one, open(os.path.join(runs, "dasgd_np1_r0.json"), "w"))  # one rank: not listed
PY
out=$($PY "$SCRIPT" "$WORK/out")
expected="dasgd_np2_r0.json: one waits; rank 0: compute 80.00 exposed 4.00 wait 0.00 first wait -; rank 1: compute 72.00 exposed 8.00 wait 6.00 first wait 6"
[[ $(echo "$out" | tail -n +2) == "$expected" ]] || fail "got: $out"
[[ $(echo "$out" | wc -l) == 2 ]] || fail "expected a header and one run: $out"
# A threshold above the waits: in step.
$PY "$SCRIPT" "$WORK/out" --wait-ms 7 | grep -q "dasgd_np2_r0.json: in step;" || fail "--wait-ms 7 did not give in step"
# Bad input, each one line on stderr, exit 2 and nothing on stdout: no multi-rank run of the
# schedule, a run file that is not a dasim-train run (an older one without timed_steps),
# --simulate without the folder's scenario, and a --bin-dir without dasim.
expect_bad_input "no sgd runs" "no multi-rank sgd runs" $PY "$SCRIPT" "$WORK/out" --schedule sgd
expect_bad_input "--simulate without a scenario" "--simulate needs" $PY "$SCRIPT" "$WORK/out" --simulate polled_rounds
mkdir -p "$WORK/old/runs"
$PY -c "
import json, sys
run = json.load(open(sys.argv[1]))
del run['config']['timed_steps']
json.dump(run, open(sys.argv[2], 'w'))" "$WORK/out/runs/dasgd_np2_r0.json" "$WORK/old/runs/dasgd_np2_r1.json"
cp "$WORK/out/runs/dasgd_np2_r0.json" "$WORK/old/runs/"
expect_bad_input "a run without timed_steps" "dasgd_np2_r1.json: not a dasim-train run" $PY "$SCRIPT" "$WORK/old"

# --simulate with equal ranks: the closed form above. The folder's scenario says progress async
# (which hides the whole allreduce behind the next step: 0 ms), so 8.18 also shows that
# --simulate's progress replaces the scenario's. The older spelling polled-rounds is accepted and
# reported under the canonical name.
$PY - "$WORK/out" "$SRC" <<'PY'
import json, os, sys
out, source = sys.argv[1], sys.argv[2]
scenario = {"name": "ranks", "platforms": [{"file": os.path.join(source, "platforms/flat-100gbe-64.json"),
                                           "nodes": [2]}],
            "workloads": ["resnet50"], "batch_per_gpu": 32, "schedules": [{"type": "dasgd", "tau": 4, "delay": 1}],
            "collective": {"progress": "async"}, "iterations": 8, "warmup": 4}
json.dump(scenario, open(os.path.join(out, "scenario_np2_dasgd.json"), "w"))
run = json.load(open(os.path.join(out, "runs", "dasgd_np2_r0.json")))
run["per_rank_steps"][1]["compute_s"] = run["per_rank_steps"][0]["compute_s"]
json.dump(run, open(os.path.join(out, "runs", "dasgd_np2_r0.json"), "w"))
PY
out=$($PY "$SCRIPT" "$WORK/out" --bin-dir "$BIN" --simulate async,polled_rounds)
[[ $out == *"exposed (mean of ranks) measured 6.00, simulated async 0.00, polled_rounds 8.18" ]] || fail "--simulate: $out"
out=$($PY "$SCRIPT" "$WORK/out" --bin-dir "$BIN" --simulate polled-rounds)
[[ $out == *"exposed (mean of ranks) measured 6.00, simulated polled_rounds 8.18" ]] || fail "--simulate polled-rounds: $out"
expect_bad_input "a --bin-dir without dasim" "--bin-dir: cannot run" $PY "$SCRIPT" "$WORK/out" --bin-dir "$WORK/nowhere" --simulate polled
finish
