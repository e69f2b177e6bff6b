# Shared by tests/cli/executor_*.sh: how to launch dasim-train under MPI in ctest (2 ranks on a
# machine that may have fewer cores, as root in CI) and how to read its JSON output.
BIN="$1"
SRC="$2"
TRAIN="$BIN/dasim-train"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PY=${DASIM_TEST_PYTHON:-/usr/bin/python3}  # the GPU machine may have only its own python3
export OMPI_MCA_rmaps_base_oversubscribe=1
mpi2() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$TRAIN" "$@"; }
mpi1() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$TRAIN" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# json FILE EXPR: prints the Python expression EXPR evaluated with d = the parsed file.
json() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# A small, quick task every schedule learns within the step budget; SMALL is it without a batch
# (for tests that choose the batch themselves, e.g. micro-batches against one large batch).
SMALL=(--features 64 --classes 10 --samples 4096 --noise 1.5 --hidden 64,64 --lr 0.1 --quiet)
TASK=("${SMALL[@]}" --batch 32)
# same_loss_curve A.json B.json STEPS TOLERANCE LABEL: both runs have STEPS losses and the largest
# relative difference between their loss curves is below TOLERANCE (printed, labelled LABEL).
same_loss_curve() {
  "$PY" - "$@" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["loss_curve"]
b = json.load(open(sys.argv[2]))["loss_curve"]
steps, tolerance, label = int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
worst = max(abs(x - y) / max(1.0, abs(x)) for x, y in zip(a, b))
print(f"max relative loss difference {label}: {worst:.3g}")
sys.exit(0 if len(a) == len(b) == steps and worst < tolerance else 1)
PY
}
