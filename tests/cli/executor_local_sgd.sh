#!/usr/bin/env bash
# dasim-train local_sgd on 2 ranks: weights identical right after each averaging and different
# between averagings (--check-consistency), equal to the serial reference, target reached; with
# tau = 1 its loss curve follows sgd's to float tolerance.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

mpi2 --schedule local_sgd --tau 4 --steps 120 --check-consistency --verify --target-loss 0.3 \
  -o "$WORK/local.json" "${TASK[@]}" || fail "local_sgd run failed"
[ "$(json "$WORK/local.json" "d['consistency_checks']")" = 120 ] || fail "not every step was checked"
[ "$(json "$WORK/local.json" "d['verify']['passed']")" = True ] || fail "local_sgd differs from serial reference"
[ "$(json "$WORK/local.json" "d['target']['reached'] and d['target']['steps'] <= 120")" = True ] || fail "target not reached"

mpi2 --schedule sgd --steps 40 -o "$WORK/sgd.json" "${TASK[@]}" || fail "sgd run failed"
mpi2 --schedule local_sgd --tau 1 --steps 40 -o "$WORK/tau1.json" "${TASK[@]}" || fail "local_sgd tau 1 failed"
same_loss_curve "$WORK/sgd.json" "$WORK/tau1.json" 40 1e-4 "sgd vs local_sgd(tau=1)" ||
  fail "local_sgd tau=1 does not follow sgd"
echo "executor_local_sgd: ok"
