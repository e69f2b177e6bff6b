#!/usr/bin/env bash
# dasim-train sgd on 2 ranks: weights bit-identical on both ranks after every step
# (--check-consistency), equal to the serial reference (--verify), target loss reached, and the
# result JSON / CSV / profile in the shared formats.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

mpi2 --schedule sgd --steps 120 --bucket 4KiB --check-consistency --verify --target-loss 0.3 \
  --profile "$WORK/profile.json" -o "$WORK/sgd.json" "${TASK[@]}" || fail "sgd run failed"
[ "$(json "$WORK/sgd.json" "d['consistency_checks']")" = 120 ] || fail "not every step was checked"
[ "$(json "$WORK/sgd.json" "d['verify']['passed']")" = True ] || fail "sgd differs from serial reference"
[ "$(json "$WORK/sgd.json" "d['target']['reached'] and d['target']['steps'] <= 120")" = True ] || fail "target not reached"
[ "$(json "$WORK/sgd.json" "len(d['config']['buckets']) > 1")" = True ] || fail "4KiB buckets should split the model"
row='d["results"][0]'
[ "$(json "$WORK/sgd.json" "$row['source'], $row['collective'], $row['gpus'], $row['workload']")" = \
  "measured mpi 2 mlp-64x64x64x10" ] || fail "result row fields"
[ "$(json "$WORK/sgd.json" "$row['iter_time_s'] > 0 and $row['compute_s'] > 0 and $row['comm_s'] > 0")" = True ] \
  || fail "timings missing"
[ "$(json "$WORK/sgd.json" "d['loss_curve'][0] > 1.5 * d['loss_curve'][-1]")" = True ] || fail "loss did not decrease"
head -1 "$WORK/sgd.csv" | grep -q '^scenario,platform,workload,precision,compute_precision,fusion,schedule,tau,delay,schedule_detail,bucket_cap_bytes,collective,' || fail "CSV header"
[ "$(wc -l < "$WORK/sgd.csv")" = 2 ] || fail "CSV should hold one row"
[ "$(json "$WORK/profile.json" "d['measured_batch'], len(d['layers']), d['layers'][0]['params'], d['layers'][1]['forward_flops']")" = \
  "32 3 4160 8192.0" ] || fail "profile JSON"
[ "$(json "$WORK/profile.json" "all(l['forward_time_s'] > 0 and l['backward_time_s'] > 0 for l in d['layers'])")" = True ] \
  || fail "profile times"
echo "executor_sgd: ok"
