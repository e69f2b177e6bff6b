#!/usr/bin/env bash
# dasim-train with gradient accumulation on 2 ranks: 4 micro-batches of 8 read the samples one
# batch of 32 reads and average to its gradient, so the loss curve is the batch-32 run's to float
# rounding; the ranks stay identical (--check-consistency) and equal to the serial reference
# (--verify); a step counts its 4 micro-batches in samples/s; accumulation with fsdp is refused.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

mpi2 --schedule sgd --steps 40 --bucket 4KiB --batch 32 -o "$WORK/whole.json" "${SMALL[@]}" || fail "batch 32 run failed"
mpi2 --schedule sgd --steps 40 --bucket 4KiB --batch 8 --gradient-accumulation-steps 4 --check-consistency --verify \
  -o "$WORK/micro.json" "${SMALL[@]}" || fail "accumulation run failed"
[ "$(json "$WORK/micro.json" "d['verify']['passed']")" = True ] || fail "accumulation differs from the serial reference"
[ "$(json "$WORK/micro.json" "d['consistency_checks']")" = 40 ] || fail "not every step was checked"
same_loss_curve "$WORK/whole.json" "$WORK/micro.json" 40 1e-4 "4 x 8 vs 32" || fail "4 micro-batches of 8 are not one batch of 32"
row='d["results"][0]'
[ "$(json "$WORK/micro.json" "d['config']['gradient_accumulation_steps'], d['config']['batch_per_rank'], $row['schedule_detail']")" = \
  "4 8 sgd(accumulate=4)" ] || fail "configuration block"
# Samples per step: 2 ranks x 4 micro-batches x 8.
[ "$(json "$WORK/micro.json" "abs($row['samples_per_s'] * $row['iter_time_s'] - 64) < 1e-6")" = True ] \
  || fail "samples/s should count every micro-batch"

mpi2 --schedule local_sgd --tau 3 --steps 12 --batch 8 --gradient-accumulation-steps 2 --verify \
  -o "$WORK/local.json" "${SMALL[@]}" || fail "local_sgd with accumulation failed"
[ "$(json "$WORK/local.json" "d['verify']['passed']")" = True ] || fail "local_sgd accumulation differs from the reference"

set +e
out=$(mpi1 --gradient-accumulation-steps 0 -o "$WORK/bad.json" "${SMALL[@]}" 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--gradient-accumulation-steps: expected an integer in 1..65536, got 0" <<<"$out" \
  || fail "zero micro-batches: rc $rc, $out"
out=$(mpi1 --data-parallel fsdp --gradient-accumulation-steps 2 -o "$WORK/bad.json" "${SMALL[@]}" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "accumulation runs with ddp only" <<<"$out" || fail "fsdp with accumulation: rc $rc, $out"
out=$(mpi1 --gradient-accumulation-steps 2 --profile "$WORK/p.json" -o "$WORK/bad.json" "${SMALL[@]}" 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--profile: a profile holds one batch's layer times" <<<"$out" || fail "profile with accumulation: rc $rc, $out"
set -e
[ ! -e "$WORK/bad.json" ] && [ ! -e "$WORK/p.json" ] || fail "a refused run left output"
echo "executor_accumulation: ok"
