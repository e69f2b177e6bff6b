#!/usr/bin/env bash
# dasim-train --data-parallel fsdp on 4 ranks: sgd sharded over every rank, and DiLoCo, Streaming
# DiLoCo (4-bit), DaSGD and local SGD sharded inside 2 islands of 2. Each rank keeps a quarter (a
# half) of every bucket's weights and all-gathers them before their layers, with the units between
# uses filled with NaN, so a gather missed or misplaced spoils the run. Every rank's final weights
# equal the serial reference's (--verify: FSDP is DDP's arithmetic), the weights agree across ranks
# where the schedule says so (--check-consistency), the target loss is reached, and sharded sgd
# follows the loss curve of unsharded sgd. Bad combinations get one line and exit 2.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"
mpi4() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 4 "$TRAIN" "$@"; }
# 2 KiB buckets make each of the 64-64 MLP's 3 layers a unit: 4160, 4160 and 650 parameters.
UNITS=(--bucket-cap 2KiB)

check() {  # check NAME FILE: verified, target reached, fsdp in the schedule's description
  [ "$(json "$2" "d['verify']['passed']")" = True ] || fail "$1: differs from the serial reference"
  [ "$(json "$2" "d['target']['reached']")" = True ] || fail "$1: target loss not reached"
  [ "$(json "$2" "d['config']['data_parallel']")" = fsdp ] || fail "$1: config lacks data_parallel"
  [ "$(json "$2" "'fsdp' in d['results'][0]['schedule_detail']")" = True ] || fail "$1: schedule_detail"
}

mpi4 --schedule sgd --data-parallel fsdp "${UNITS[@]}" --steps 100 --check-consistency --verify \
  -o "$WORK/sgd-fsdp.json" "${TASK[@]}" || fail "sgd fsdp run failed"
check "sgd fsdp" "$WORK/sgd-fsdp.json"
[ "$(json "$WORK/sgd-fsdp.json" "len(d['config']['buckets'])")" = 3 ] || fail "sgd fsdp: not 3 units"
mpi4 --schedule sgd "${UNITS[@]}" --steps 100 -o "$WORK/sgd-ddp.json" "${TASK[@]}" || fail "sgd ddp run failed"
same_loss_curve "$WORK/sgd-fsdp.json" "$WORK/sgd-ddp.json" 100 1e-5 "sgd fsdp vs ddp" ||
  fail "sharded sgd does not follow sgd"

for schedule in "diloco --H 5" "diloco --H 5 --eager" "streaming_diloco --H 6 --fragments 3 --bits 4" \
  "dasgd --tau 4 --delay 1" "local_sgd --tau 4"; do
  name=${schedule//[ -]/}
  # shellcheck disable=SC2086
  mpi4 --schedule $schedule --island-ranks 2 --data-parallel fsdp "${UNITS[@]}" --steps 100 \
    --check-consistency --verify -o "$WORK/$name.json" "${TASK[@]}" || fail "$name fsdp run failed"
  check "$name fsdp" "$WORK/$name.json"
done
# Without --check-consistency (whose gather of the whole model must not stand in for a step's
# gathers): the same weights as the serial reference.
mpi4 --schedule diloco --H 5 --island-ranks 2 --data-parallel fsdp "${UNITS[@]}" --steps 60 --verify \
  -o "$WORK/unchecked.json" "${TASK[@]}" || fail "diloco fsdp run without the consistency check failed"
[ "$(json "$WORK/unchecked.json" "d['verify']['passed']")" = True ] || fail "unchecked run differs from reference"

refused() {  # refused MESSAGE ARGS...: one line with MESSAGE, exit 2, no output
  local message=$1 rc=0
  shift
  "$TRAIN" "$@" -o "$WORK/bad.json" 2>"$WORK/err" >/dev/null || rc=$?
  [ "$rc" = 2 ] && [ "$(wc -l <"$WORK/err")" = 1 ] && grep -q -- "$message" "$WORK/err" ||
    fail "$* -> $rc: $(cat "$WORK/err")"
  [ ! -e "$WORK/bad.json" ] || fail "$*: wrote output"
}
refused "shards the model only inside islands" --schedule diloco --data-parallel fsdp
refused "fsdp runs on --device cpu" --device cuda --data-parallel fsdp
refused "data-parallel" --data-parallel zero3
echo "executor_fsdp: ok"
