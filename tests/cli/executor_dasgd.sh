#!/usr/bin/env bash
# dasim-train dasgd on 2 ranks, d = 1 and d = 2: every rank's final weights equal the serial
# reference's avg(snapshots) + local progress (--verify), the weights differ between ranks when
# the schedule says so (--check-consistency), and the target loss is reached.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

for d in 1 2; do
  mpi2 --schedule dasgd --tau 4 --delay $d --steps 120 --check-consistency --verify --target-loss 0.3 \
    -o "$WORK/dasgd$d.json" "${TASK[@]}" || fail "dasgd d=$d run failed"
  [ "$(json "$WORK/dasgd$d.json" "d['verify']['passed']")" = True ] || fail "dasgd d=$d differs from serial reference"
  [ "$(json "$WORK/dasgd$d.json" "d['target']['reached'] and d['target']['steps'] <= 120")" = True ] \
    || fail "dasgd d=$d target not reached"
  [ "$(json "$WORK/dasgd$d.json" "d['results'][0]['delay']")" = $d ] || fail "delay column"
done
echo "executor_dasgd: ok"
