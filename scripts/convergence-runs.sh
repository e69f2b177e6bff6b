#!/usr/bin/env bash
# Runs dasim-train to measure how many steps each schedule needs to reach a target loss at several
# per-rank batches and rank counts: the runs `dasim fit-convergence` fits its convergence model
# from (docs/time-to-accuracy.md). One JSON per run (dasim-train's output, with loss_curve, target,
# batch, ranks and schedule), named after its settings:
#
#   OUTDIR/TASK-SCHEDULE-nRANKS-bBATCH.json     (and dasim-train's .csv beside it)
#   TASK      synthetic | digits
#   SCHEDULE  sgd | local_sgd-tau4 | dasgd-tau4-d1 | diloco-H8
#
# Usage: scripts/convergence-runs.sh OUTDIR [--quick]
#   full:    both tasks x 4 schedules x batches 8 16 32 64 x ranks 1 2 4 (96 runs); the digits only
#            where python3-sklearn is installed (scripts/export-digits-idx.py writes their IDX files
#            to OUTDIR/digits-idx/ unless they are there already), else skipped with a note
#   --quick: the synthetic task, every schedule on 2 ranks at batches 16 and 64 (8 runs), for
#            tests/cli/convergence_runs.sh
# Environment: DASIM_BIN (default build/bin of this checkout), CONVERGENCE_NICE (default 10: the
# runs yield to other work on the machine; 0 to measure timings).
#
# Every run trains long enough to pass its task's target loss: the mean training loss over the
# last 50 steps (--target-window 50: the minibatch loss at batch 8 is too noisy for a 10-step
# window to cross a target once and for all). The script prints one line per run and a table, and
# exits 1 when a run fails or does not reach its target, 2 on bad arguments.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${DASIM_BIN:-$here/build/bin}
niceness=${CONVERGENCE_NICE:-10}
usage="usage: scripts/convergence-runs.sh OUTDIR [--quick]"

outdir="" quick=0
for arg in "$@"; do
  case $arg in
    --quick) quick=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "convergence-runs: unknown option '$arg' ($usage)" >&2; exit 2 ;;
    *)
      [[ -z $outdir ]] || { echo "convergence-runs: one OUTDIR expected, got '$outdir' and '$arg'" >&2; exit 2; }
      outdir=$arg ;;
  esac
done
[[ -n $outdir ]] || { echo "convergence-runs: expected OUTDIR ($usage)" >&2; exit 2; }
[[ -x $bin/dasim-train ]] || { echo "convergence-runs: $bin/dasim-train not found (build it, or set DASIM_BIN)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "convergence-runs: mpirun not found (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$outdir"

mpi=(mpirun --oversubscribe)
[[ $(id -u) -ne 0 ]] || mpi+=(--allow-run-as-root)

# The tasks: data, model, learning rate, steps and target, chosen (docs/executor.md) so that
# every run of the full grid passes the target with room to spare, the smallest global batch (8)
# needs 2-3.5x the steps of the largest (256), the batch-size effect the model fits, and the
# target stays above the loss that batch 8 levels off at (else reaching it is luck).
# synthetic: 64 features, 10 classes, loss 2.3 at step 0; lr 0.1: batch 8 levels off at 0.2-0.26.
synthetic=(--features 64 --classes 10 --samples 65536 --noise 2 --hidden 64,64 --lr 0.1 --steps 800
           --target-loss 0.3)
# digits: 8x8 images (64 features), 10 classes, 1497 training images; lr 0.3: batch 8 levels off
# at about 0.19.
digits_task() {
  local dir=$outdir/digits-idx
  if [[ ! -f $dir/digits-train-images.idx || ! -f $dir/digits-train-labels.idx ]]; then
    local status=0
    /usr/bin/python3 "$here/scripts/export-digits-idx.py" --quiet "$dir" || status=$?
    if [[ $status == 2 ]]; then
      echo "convergence-runs: digits skipped (scripts/export-digits-idx.py needs python3-sklearn)" >&2
      return 1
    fi
    ((status == 0)) || { echo "convergence-runs: export-digits-idx.py failed ($status)" >&2; exit 1; }
  fi
  digits=(--mnist-images "$dir/digits-train-images.idx" --mnist-labels "$dir/digits-train-labels.idx"
          --hidden 64,64 --lr 0.3 --steps 700 --target-loss 0.3)
}
declare -A schedule_args=(
  [sgd]="--schedule sgd"
  [local_sgd-tau4]="--schedule local_sgd --tau 4"
  [dasgd-tau4-d1]="--schedule dasgd --tau 4 --delay 1"
  # DiLoCo's outer Nesterov step with momentum 0.5, not the paper's 0.9: with H = 8 and these
  # inner learning rates, 0.9 does not settle below the synthetic target at global batch 8-16.
  [diloco-H8]="--schedule diloco --H 8 --outer-lr 0.7 --outer-momentum 0.5"
)
schedules=(sgd local_sgd-tau4 dasgd-tau4-d1 diloco-H8)

runs=() failed=0
# run TASK SCHEDULE RANKS BATCH TASK_ARGS...
run() {
  local task=$1 schedule=$2 ranks=$3 batch=$4
  shift 4
  local name=$task-$schedule-n$ranks-b$batch
  local -a sargs
  read -r -a sargs <<<"${schedule_args[$schedule]}"
  local start=$SECONDS
  if timeout 300 nice -n "$niceness" "${mpi[@]}" -np "$ranks" "$bin/dasim-train" "${sargs[@]}" \
      --batch "$batch" --target-window 50 --seed 1 --quiet "$@" -o "$outdir/$name.json" \
      >"$outdir/$name.log" 2>&1; then
    rm -f "$outdir/$name.log"
    runs+=("$outdir/$name.json")
    echo "convergence-runs: $name ($((SECONDS - start)) s)"
  else
    echo "convergence-runs: $name FAILED (exit $?): $(tail -1 "$outdir/$name.log")" >&2
    failed=$((failed + 1))
  fi
}

start=$SECONDS
if ((quick)); then
  for batch in 16 64; do
    for schedule in "${schedules[@]}"; do run synthetic "$schedule" 2 "$batch" "${synthetic[@]}"; done
  done
else
  tasks=(synthetic)
  if digits_task; then tasks+=(digits); fi
  for task in "${tasks[@]}"; do
    declare -n task_args=$task
    for schedule in "${schedules[@]}"; do
      for ranks in 1 2 4; do
        for batch in 8 16 32 64; do run "$task" "$schedule" "$ranks" "$batch" "${task_args[@]}"; done
      done
    done
    unset -n task_args
  done
fi
elapsed=$((SECONDS - start))

# The table: steps to the target per run, and whether every run reached it.
status=0
/usr/bin/python3 - "${runs[@]}" <<'PY' || status=$?
import json, os, sys
missed = 0
print(f"{'run':<36} {'global batch':>12} {'target':>7} {'steps to target':>15} {'last loss':>9}")
for path in sys.argv[1:]:
    with open(path) as f:
        d = json.load(f)
    c, t = d["config"], d["target"]
    steps = t["steps"] if t["reached"] else "NOT REACHED"
    missed += not t["reached"]
    name = os.path.basename(path)[:-len(".json")]
    tail = d["loss_curve"][-t["window_steps"]:]  # the last window's mean, as the target is judged
    print(f"{name:<36} {c['ranks'] * c['batch_per_rank']:>12} {t['target_loss']:>7g} {steps:>15} "
          f"{sum(tail) / len(tail):>9.3f}")
sys.exit(1 if missed else 0)
PY
echo "convergence-runs: ${#runs[@]} runs in $elapsed s ($failed failed) -> $outdir"
if ((status)); then echo "convergence-runs: some runs did not reach their target loss" >&2; fi
((failed == 0 && status == 0)) || exit 1
