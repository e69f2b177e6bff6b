#!/usr/bin/env bash
# scripts/convergence-runs.sh --quick (the runs `dasim fit-convergence` fits from): every run's
# JSON is there under the name that encodes its settings, holds those settings, a loss curve of
# its steps and a reached target, and the steps to target it reports are the ones this test
# finds in the loss curve itself (the first step whose 50-step mean loss is <= the target). Bad
# arguments: exit 2, one line.
source "$2/tests/lib/cli_assert.sh"  # BIN, SRC, WORK, fail, expect_bad_input, finish
SCRIPT=$SRC/scripts/convergence-runs.sh
export DASIM_BIN=$BIN OMPI_MCA_rmaps_base_oversubscribe=1

expect_bad_input "no OUTDIR" "expected OUTDIR" bash "$SCRIPT"
expect_bad_input "unknown option" "unknown option '--fast'" bash "$SCRIPT" "$WORK/x" --fast
expect_bad_input "two OUTDIRs" "one OUTDIR expected" bash "$SCRIPT" "$WORK/x" "$WORK/y"

start=$SECONDS
if ! timeout 240 bash "$SCRIPT" "$WORK/runs" --quick >"$WORK/out.txt" 2>&1; then
  fail "convergence-runs.sh --quick exited non-zero: $(tail -3 "$WORK/out.txt")"
fi
echo "convergence-runs.sh --quick: $((SECONDS - start)) s"
grep -q "^convergence-runs: 8 runs in .* (0 failed)" "$WORK/out.txt" || fail "summary line: $(tail -1 "$WORK/out.txt")"

/usr/bin/python3 - "$WORK/runs" <<'PY' || fail "run files"
import json, os, sys
outdir, problems, count = sys.argv[1], [], 0
schedules = {"sgd": ("sgd", {}), "local_sgd-tau4": ("local_sgd", {"tau": 4}),
             "dasgd-tau4-d1": ("dasgd", {"tau": 4, "delay": 1}), "diloco-H8": ("diloco", {})}
for tag, (schedule, params) in schedules.items():
    for batch in (16, 64):
        name = f"synthetic-{tag}-n2-b{batch}.json"
        path = os.path.join(outdir, name)
        if not os.path.exists(path):
            problems.append(f"{name} missing")
            continue
        count += 1
        d = json.load(open(path))
        c, t, curve = d["config"], d["target"], d["loss_curve"]
        got = {"schedule": c["schedule"], "ranks": c["ranks"], "batch_per_rank": c["batch_per_rank"],
               **{k: c[k] for k in params}}
        want = {"schedule": schedule, "ranks": 2, "batch_per_rank": batch, **params}
        if got != want:
            problems.append(f"{name}: settings {got}, expected {want}")
        if len(curve) != c["steps"] or not all(x > 0 for x in curve):
            problems.append(f"{name}: loss curve of {len(curve)} values for {c['steps']} steps")
        if (t["target_loss"], t["window_steps"]) != (0.3, 50) or not t["reached"]:
            problems.append(f"{name}: target {t}")
            continue
        w = t["window_steps"]
        mine = next((k for k in range(w, len(curve) + 1) if sum(curve[k - w:k]) / w <= t["target_loss"]), None)
        if mine != t["steps"]:
            problems.append(f"{name}: reports {t['steps']} steps to target, its loss curve says {mine}")
        if not 2 * w <= t["steps"] <= c["steps"] // 2:
            problems.append(f"{name}: target after {t['steps']} of {c['steps']} steps: trivial or too tight")
        if curve[0] < 2 * t["target_loss"]:
            problems.append(f"{name}: starts at loss {curve[0]:.3f}, already near the target")
print(f"{count} run files checked")
for p in problems:
    print("FAIL:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
leftovers=$(find "$WORK/runs" -name '*.log')
[[ -z $leftovers ]] || fail "run logs left behind (a run failed?): $leftovers"
finish
