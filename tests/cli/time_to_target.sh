#!/usr/bin/env bash
# Time to accuracy end to end (docs/time-to-accuracy.md): dasim fit-convergence on runs written as
# dasim-train writes them, generated here from known parameters; a scenario naming the fitted file
# gets steps_to_target = S_min (1 + B_noise / B) x factor and time_to_target_s = steps x iter_time_s
# in every row (computed here from the parameters, not from dasim's output); without a convergence
# file both columns are empty; bad runs and bad convergence files are one-line input errors.
source "$2/tests/lib/cli_assert.sh"
PY=/usr/bin/python3

# Runs from S_min 400, B_noise 200, local_sgd c 0.1: a loss of target x (S - 0.5)/(k - 0.5)
# reaches the target 0.5 (window 1) at step S.
$PY - "$WORK/runs" <<'PY' || fail "could not write the runs"
import json, os, sys
out = sys.argv[1]
os.makedirs(out)
def write(name, schedule, tau, ranks, batch, factor=1.0):
    steps = round(400 * (1 + 200 / (ranks * batch)) * factor)
    loss = [0.5 * (steps - 0.5) / (k - 0.5) for k in range(1, steps + 11)]
    json.dump({"tool": "dasim-train",
               "config": {"schedule": schedule, "tau": tau, "delay": 0, "ranks": ranks, "batch_per_rank": batch},
               "target": {"target_loss": 0.5, "window_steps": 1}, "loss_curve": loss},
              open(os.path.join(out, name + ".json"), "w"))
for ranks in (1, 2, 4):
    for batch in (25, 50, 100, 200):
        write(f"sgd-n{ranks}-b{batch}", "sgd", 1, ranks, batch)
for ranks in (2, 4):
    for batch in (50, 100):
        write(f"local-n{ranks}-b{batch}", "local_sgd", 4, ranks, batch, 1 + 0.1 * 3 * (1 - 1 / ranks))
write("held-local-n8-b100", "local_sgd", 4, 8, 100, 1 + 0.1 * 3 * (1 - 1 / 8))
write("flat-sgd-b64", "sgd", 1, 1, 64)
write("flat-sgd-n2-b32", "sgd", 1, 2, 32)
PY

fit_runs=$(ls "$WORK"/runs/sgd-*.json "$WORK"/runs/local-*.json)
# shellcheck disable=SC2086
expect_ok "fit-convergence" "$BIN/dasim" fit-convergence $fit_runs --target-loss 0.5 --out "$WORK/conv.json" \
  --hold-out "$WORK/runs/held-local-n8-b100.json"
grep -q "held-back runs" "$WORK/stdout" || fail "fit-convergence printed no held-back table: $(cat "$WORK/stdout")"
$PY - "$WORK/conv.json" <<'PY' || fail "the fitted parameters are not the generating ones"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["format"] == "dasim-convergence/1", c
assert abs(c["steps_min"] - 400) < 0.05 * 400, c["steps_min"]
assert abs(c["batch_noise"] - 200) < 0.05 * 200, c["batch_noise"]
assert abs(c["schedules"]["local_sgd"]["period_coefficient"] - 0.1) < 0.005, c["schedules"]
assert "steps_min_stderr" in c and "period_coefficient_stderr" in c["schedules"]["local_sgd"], c
assert abs(c["fit"]["held_back"][0]["error_pct"]) < 5, c["fit"]["held_back"]
PY

# A scenario naming the file: each row's steps from the parameters written above.
sed -e "s|\"../platforms/|\"$SRC/platforms/|" "$SRC/scenarios/quick.json" |
  $PY -c 'import json,sys; s=json.load(sys.stdin); s["convergence"]=sys.argv[1]; s["schedules"].append({"type":"diloco","H":4}); s["platforms"][0]["nodes"]=[1,2]; json.dump(s,sys.stdout)' \
    "$WORK/conv.json" >"$WORK/with.json"
expect_ok "run with a convergence file" "$BIN/dasim" run "$WORK/with.json" --out "$WORK/with" --quiet
grep -q "time to target: diloco(H=4.*no diloco term" "$WORK/stdout" ||
  fail "no note that diloco has no term: $(cat "$WORK/stdout")"
grep -q "to_target_s" "$WORK/stdout" || fail "the summary table has no time-to-target column"
$PY - "$WORK/with/results.csv" "$WORK/conv.json" <<'PY' || fail "steps_to_target / time_to_target_s disagree with the closed form"
import csv, json, math, sys
c = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 8, len(rows)
for r in rows:
    gpus, batch = int(r["gpus"]), int(r["batch_per_gpu"])
    base = c["steps_min"] * (1 + c["batch_noise"] / (gpus * batch))
    if r["schedule"] == "diloco" and gpus > 1:
        assert r["steps_to_target"] == "" and r["time_to_target_s"] == "", r  # no term: empty, not 0
        continue
    factor = 1.0
    if r["schedule"] in ("local_sgd", "dasgd") and gpus > 1:
        if r["schedule"] == "dasgd":
            assert r["steps_to_target"] == "", r  # the fit had no dasgd runs
            continue
        factor = 1 + c["schedules"]["local_sgd"]["period_coefficient"] * 3 * (1 - 1 / gpus)
    steps = float(r["steps_to_target"])
    assert math.isclose(steps, base * factor, rel_tol=1e-6), (r["schedule"], gpus, steps, base * factor)
    assert math.isclose(float(r["time_to_target_s"]), steps * float(r["iter_time_s"]), rel_tol=1e-6), r
PY
sed -e "s|\"../platforms/|\"$SRC/platforms/|" "$SRC/scenarios/quick.json" >"$WORK/without.json"
expect_ok "run without a convergence file" "$BIN/dasim" run "$WORK/without.json" --out "$WORK/without" --quiet
$PY -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); assert rows and all(r["steps_to_target"]=="" and r["time_to_target_s"]=="" for r in rows)' \
  "$WORK/without/results.csv" || fail "without a convergence file the columns are not empty"

# What the runs cannot identify, and runs that are not runs.
expect_bad_input "one global batch" "every sgd run has global batch 64" \
  "$BIN/dasim" fit-convergence "$WORK/runs/flat-sgd-b64.json" "$WORK/runs/flat-sgd-n2-b32.json" --target-loss 0.5 \
  --out "$WORK/never.json"
expect_bad_input "target never reached" "loss_curve: the mean loss over 1 steps never reaches 0.01" \
  "$BIN/dasim" fit-convergence $fit_runs --target-loss 0.01 --out "$WORK/never.json"
echo '{"tool": "dasim-train", "config": {"schedule": "sgd"}}' >"$WORK/partial.json"
expect_bad_input "not a run" "partial.json: config.tau: required key is missing" \
  "$BIN/dasim" fit-convergence "$WORK/partial.json" --target-loss 0.5 --out "$WORK/never.json"
[ -e "$WORK/never.json" ] && fail "a refused fit wrote its output"

# Bad convergence files: the scenario names one; each error names the file and the key.
bad_convergence() {
  local name=$1 expected=$2 edit=$3
  $PY -c "import json,sys; c=json.load(open(sys.argv[1])); $edit; json.dump(c, open(sys.argv[2],'w'))" \
    "$WORK/conv.json" "$WORK/bad-$name.json"
  $PY -c 'import json,sys; s=json.load(open(sys.argv[1])); s["convergence"]=sys.argv[2]; json.dump(s,open(sys.argv[3],"w"))' \
    "$WORK/with.json" "$WORK/bad-$name.json" "$WORK/scenario-$name.json"
  expect_bad_input "$name" "bad-$name.json: $expected" "$BIN/dasim" validate "$WORK/scenario-$name.json"
  expect_bad_input "$name (run)" "bad-$name.json: $expected" \
    "$BIN/dasim" run "$WORK/scenario-$name.json" --out "$WORK/out-$name" --quiet
  [ -e "$WORK/out-$name" ] && fail "$name: a refused run left $WORK/out-$name"
}
bad_convergence negative-smin "steps_min: expected a number > 0" 'c["steps_min"] = -3'
bad_convergence unknown-schedule "schedules.localsgd: expected a schedule of" \
  'c["schedules"]["localsgd"] = c["schedules"].pop("local_sgd")'
bad_convergence sgd-term "schedules.sgd: sgd is the model" 'c["schedules"]["sgd"] = {"period_coefficient": 1}'
bad_convergence format "format: expected \"dasim-convergence/1\"" 'c["format"] = "dasim-convergence/0"'
bad_convergence typo "steps_mn" 'c["steps_mn"] = c["steps_min"]'
$PY -c 'import json,sys; s=json.load(open(sys.argv[1])); s["convergence"]="nowhere.json"; json.dump(s,open(sys.argv[2],"w"))' \
  "$WORK/with.json" "$WORK/scenario-missing.json"
expect_bad_input "missing convergence file" "convergence: file" "$BIN/dasim" validate "$WORK/scenario-missing.json"
finish
