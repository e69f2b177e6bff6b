#!/usr/bin/env bash
# dasim-train --device cuda. Without a usable GPU (or without CUDA in the build) every rank must exit
# 2 with a message naming --device cuda and write nothing. With GPUs: sgd, local_sgd, dasgd, diloco,
# streaming_diloco and sgd with gradient accumulation train on cuBLAS/cuDNN + NCCL, reach the
# target, and follow the CPU run's loss curve to float tolerance (different rounding in cuBLAS);
# 4 micro-batches of 8 follow one batch of 32; with 2+ GPUs also on 2 ranks with --check-consistency.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

gpus=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then gpus=$(nvidia-smi -L | grep -c '^GPU'); fi
status=0
mpi1 --device cuda --steps 10 -o "$WORK/probe.json" "${TASK[@]}" 2>"$WORK/probe.err" || status=$?
if [ "$status" != 0 ]; then
  [ "$status" = 2 ] || fail "--device cuda failed with status $status (expected 0, or 2 without a GPU): $(cat "$WORK/probe.err")"
  grep -q -- "--device cuda" "$WORK/probe.err" || fail "no --device cuda message: $(cat "$WORK/probe.err")"
  [ ! -e "$WORK/probe.json" ] || fail "output written without a device"
  [ "$gpus" = 0 ] || fail "nvidia-smi lists $gpus GPU(s) but --device cuda refused: $(cat "$WORK/probe.err")"
  echo "executor_cuda: no usable GPU here; --device cuda refused cleanly (exit 2)"
  exit 0
fi

for s in "sgd" "local_sgd --tau 4" "dasgd --tau 4 --delay 2" "diloco --H 10" \
  "streaming_diloco --H 12 --fragments 3 --overlap-steps 2 --alpha 0.5" "sgd --gradient-accumulation-steps 4"; do
  name=$(echo "$s" | tr -d ' -')
  # shellcheck disable=SC2086
  mpi1 --device cuda --schedule $s --steps 120 --target-loss 0.3 -o "$WORK/gpu_$name.json" "${TASK[@]}" \
    || fail "cuda $s failed"
  # shellcheck disable=SC2086
  mpi1 --device cpu --schedule $s --steps 120 --target-loss 0.3 -o "$WORK/cpu_$name.json" "${TASK[@]}" \
    || fail "cpu $s failed"
  [ "$(json "$WORK/gpu_$name.json" "d['target']['reached'] and d['results'][0]['collective'] == 'nccl'")" = True ] \
    || fail "cuda $s: target not reached"
  "$PY" - "$WORK/gpu_$name.json" "$WORK/cpu_$name.json" <<'PY' || fail "cuda $s does not follow the CPU loss curve"
import json, sys
a = json.load(open(sys.argv[1]))["loss_curve"][:40]
b = json.load(open(sys.argv[2]))["loss_curve"][:40]
worst = max(abs(x - y) / max(1.0, abs(y)) for x, y in zip(a, b))
print(f"max relative loss difference cuda vs cpu over 40 steps: {worst:.3g}")
sys.exit(0 if worst < 1e-2 else 1)
PY
done
# Gradient accumulation on the GPU: 4 micro-batches of 8 train as one batch of 32 (cuBLAS adds
# each micro-batch's gradients with beta 1), as on the CPU (executor_accumulation.sh).
mpi1 --device cuda --schedule sgd --steps 40 --batch 32 -o "$WORK/gpu_whole.json" "${SMALL[@]}" || fail "cuda batch 32"
mpi1 --device cuda --schedule sgd --steps 40 --batch 8 --gradient-accumulation-steps 4 -o "$WORK/gpu_micro.json" \
  "${SMALL[@]}" || fail "cuda 4 x 8"
same_loss_curve "$WORK/gpu_whole.json" "$WORK/gpu_micro.json" 40 1e-4 "cuda 4 x 8 vs 32" ||
  fail "cuda: 4 micro-batches of 8 are not one batch of 32"
if [ "$gpus" -ge 2 ]; then
  mpi2 --device cuda --schedule sgd --steps 60 --check-consistency -o "$WORK/gpu2_sgd.json" "${TASK[@]}" \
    || fail "cuda sgd on 2 ranks failed its consistency check"
  mpi2 --device cuda --schedule local_sgd --tau 4 --steps 60 --check-consistency -o "$WORK/gpu2_local.json" \
    "${TASK[@]}" || fail "cuda local_sgd on 2 ranks failed its consistency check"
  mpi2 --device cuda --schedule dasgd --tau 4 --delay 2 --steps 60 --check-consistency -o "$WORK/gpu2_dasgd.json" \
    "${TASK[@]}" || fail "cuda dasgd on 2 ranks failed its consistency check"
fi
echo "executor_cuda: ok ($gpus GPU(s))"
