# scripts/gpu-validation.sh, every step that can run without a GPU: its arguments, the one-line
# refusals (no bundle, no GPU, nothing to predict from), the files the device step leaves without
# a GPU, and the predict step end to end on a CPU run of dasim-train standing in for a GPU run
# (the datasheet calibration standing in for the measured one: this checks the plumbing, not a
# GPU's numbers).
source "$2/tests/lib/cli_assert.sh"
script="$SRC/scripts/gpu-validation.sh"

expect_status() {  # NAME STATUS EXPECTED_TEXT CMD...: exit STATUS and stderr containing the text
  local name=$1 want=$2 text=$3
  shift 3
  "$@" >"$WORK/out" 2>"$WORK/err"
  local status=$?
  [ "$status" = "$want" ] || { fail "$name: exit $status, expected $want ($(cat "$WORK/err"))"; return; }
  grep -q -- "$text" "$WORK/err" && echo "ok: $name" || fail "$name: stderr lacks '$text': $(cat "$WORK/err")"
}

expect_status "no arguments" 2 "usage: scripts/gpu-validation.sh" bash "$script"
expect_status "unknown step" 2 "usage:" bash "$script" calibrate
expect_status "device without OUT" 2 "usage:" bash "$script" device
DASIM_GPU_BUNDLE=$WORK/nothing expect_status "device without a bundle" 2 "no bundle at $WORK/nothing" \
  bash "$script" device "$WORK/out1"
DASIM_GPU_STEPS="facts calibrat" expect_status "an unknown step" 2 "DASIM_GPU_STEPS: unknown step 'calibrat'" \
  bash "$script" device "$WORK/out0"

# A bundle of this build's binaries; this machine has no GPU (the test is skipped where one is).
if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  mkdir -p "$WORK/bundle/bin"
  ln -s "$BIN"/dasim "$BIN"/dasim-train "$WORK/bundle/bin/"
  DASIM_GPU_BUNDLE=$WORK/bundle DASIM_GPU_STATE=$WORK/state expect_status "device without a GPU" 2 \
    "no usable GPU here" bash "$script" device "$WORK/out2"
  grep -q "no usable GPU" "$WORK/out2/summary.txt" || fail "device without a GPU: no summary.txt saying so"
fi

expect_status "predict without a folder" 2 "is not a folder" bash "$script" predict "$WORK/missing"
mkdir -p "$WORK/back"
expect_status "predict without a calibration" 2 "h200-measured.json is missing" bash "$script" predict "$WORK/back"

# The predict step on a real dasim-train run (CPU, one rank).
cp "$SRC/platforms/calibration/h200-datasheet.json" "$WORK/back/h200-measured.json"
OMPI_MCA_ess_singleton_isolated=1 "$BIN/dasim-train" --hidden 64,64 --batch 32 --steps 40 --warmup-steps 4 \
  --schedule dasgd --tau 4 --delay 1 --quiet -o "$WORK/back/train-dasgd.json" || fail "dasim-train run"
DASIM_BIN=$BIN expect_ok "predict" bash "$script" predict "$WORK/back"
/usr/bin/python3 - "$WORK/back/predicted.csv" <<'PY' || fail "predicted.csv layout"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["schedule"] for r in rows] == ["dasgd"], rows
assert list(rows[0]) == ["schedule", "measured_iter_s", "predicted_iter_s", "error_pct", "measured_compute_s",
                         "predicted_compute_s"], list(rows[0])
measured, predicted = float(rows[0]["measured_iter_s"]), float(rows[0]["predicted_iter_s"])
assert measured > 0 and predicted > 0
assert abs(float(rows[0]["error_pct"]) - (predicted - measured) / measured * 100) < 0.01
PY

finish
