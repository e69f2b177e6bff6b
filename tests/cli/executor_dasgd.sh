#!/usr/bin/env bash
# dasim-train dasgd on 2 ranks, d = 1 and d = 2: every rank's final weights equal the serial
# reference's avg(snapshots) + local progress (--verify), the weights differ between ranks when
# the schedule says so (--check-consistency), and the target loss is reached; d = 0 is local SGD.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

for d in 1 2; do
  mpi2 --schedule dasgd --tau 4 --delay $d --steps 120 --check-consistency --verify --target-loss 0.3 \
    -o "$WORK/dasgd$d.json" "${TASK[@]}" || fail "dasgd d=$d run failed"
  [ "$(json "$WORK/dasgd$d.json" "d['verify']['passed']")" = True ] || fail "dasgd d=$d differs from serial reference"
  [ "$(json "$WORK/dasgd$d.json" "d['target']['reached'] and d['target']['steps'] <= 120")" = True ] \
    || fail "dasgd d=$d target not reached"
  [ "$(json "$WORK/dasgd$d.json" "d['results'][0]['delay']")" = $d ] || fail "delay column"
  # Step 120 starts an average that is due after the run: the rank waits for it after its last
  # step (drain_s, on every rank), outside the timed window: warm-up 5 -> 8 steps, then 28 periods.
  [ "$(json "$WORK/dasgd$d.json" "all(r['drain_s'] > 0 for r in d['per_rank_steps'])")" = True ] \
    || fail "dasgd d=$d: no end-of-run drain recorded"
  # ... and not also inside step 120: that step started the average and did not wait for it.
  [ "$(json "$WORK/dasgd$d.json" "all(r['wait_s'][-1] == 0 for r in d['per_rank_steps'])")" = True ] \
    || fail "dasgd d=$d: the last step still holds a wait"
  [ "$(json "$WORK/dasgd$d.json" "d['config']['timed_steps']")" = "[9, 120]" ] || fail "timed steps"
done
# d = 0 degenerates to local SGD (ALGORITHMS.md): same loss curve and --check-consistency sees
# identical weights right after every averaging.
mpi2 --schedule dasgd --tau 4 --delay 0 --steps 40 --check-consistency -o "$WORK/d0.json" "${TASK[@]}" \
  || fail "dasgd d=0 run failed"
mpi2 --schedule local_sgd --tau 4 --steps 40 -o "$WORK/local.json" "${TASK[@]}" || fail "local_sgd run failed"
same_loss_curve "$WORK/d0.json" "$WORK/local.json" 40 1e-5 "dasgd(d=0) vs local_sgd" ||
  fail "dasgd d=0 does not follow local_sgd"
# Nothing is left in flight after the last step of d = 0 or of local SGD: no drain.
for f in d0 local; do
  [ "$(json "$WORK/$f.json" "all(r['drain_s'] == 0 for r in d['per_rank_steps'])")" = True ] || fail "$f: drain_s"
done
echo "executor_dasgd: ok"
