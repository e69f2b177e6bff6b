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

# The PyTorch comparison on the committed H200 run (validation/gpu-runs/2026-12-04-h200), in a copy.
# The profiled steps import with the models' own parameter counts, derived independently:
# torchvision's ResNet-50 25,557,032 and VGG-16 138,357,544 (its model documentation), and BERT-large
# with a 2-class head from its shapes: embeddings (30522 + 512 + 2) x 1024 + LayerNorm 2 x 1024,
# 24 layers of 4 H^2 + 2 H I + 9 H + I (H 1024, I 4096), pooler H^2 + H, head 2 H + 2.
cp -r "$SRC/validation/gpu-runs/2026-12-04-h200" "$WORK/h200"
rm -f "$WORK/h200/torch-predicted.csv"
expect_ok "torch predict" /usr/bin/python3 "$SRC/scripts/gpu_torch_predict.py" --bin "$BIN" --dir "$WORK/h200" \
  --calibration "$SRC/platforms/calibration/h200-datasheet.json" --calibration "$SRC/platforms/calibration/h200-measured.json"
/usr/bin/python3 - "$BIN/dasim" "$WORK/h200" <<'PY' || fail "torch comparison"
import csv, json, lzma, os, subprocess, sys
dasim, run = sys.argv[1], sys.argv[2]
H, I, L = 1024, 4096, 24
bert = (30522 + 512 + 2) * H + 2 * H + L * (4 * H * H + 2 * H * I + 9 * H + I) + H * H + H + 2 * H + 2
expected = {"resnet50-amp-b256": (256, 25557032), "resnet50-amp-b64": (64, 25557032),
            "vgg16-amp-b128": (128, 138357544), "bert-large-amp-b64-s128": (64, bert)}
for name, (batch, params) in expected.items():
    trace = os.path.join(run, f"trace-{name}.json")
    with lzma.open(trace + ".xz") as packed, open(trace, "wb") as raw:
        raw.write(packed.read())
    subprocess.run([dasim, "workload", "import", trace, "--batch", str(batch), "--precision", "amp", "--out",
                    trace + ".w.json"], check=True, capture_output=True)
    found = sum(layer["params"] for layer in json.load(open(trace + ".w.json"))["layers"])
    assert found == params, (name, found, params)
rows = list(csv.DictReader(open(os.path.join(run, "torch-predicted.csv"))))
assert len(rows) == 10 and sum(1 for r in rows if r["trace_gpu_s"]) == 4, rows
for r in rows:
    measured = float(r["measured_step_s"])
    for stem in ("h200-datasheet", "h200-measured"):
        step = float(r[f"{stem}_step_s"])
        assert abs(float(r[f"{stem}_error_pct"]) - (step - measured) / measured * 100) < 0.06, r
# By kind: each traced configuration's kinds and update add up to its GPU time and, per
# calibration, to the predicted step.
kinds = list(csv.DictReader(open(os.path.join(run, "torch-by-kind.csv"))))
for r in rows:
    if not r["trace_gpu_s"]:
        continue
    mine = [k for k in kinds if k["config"] == r["config"]]
    assert mine and mine[-1]["kind"] == "update", mine
    assert abs(sum(float(k["trace_s"]) for k in mine) / float(r["trace_gpu_s"]) - 1) < 1e-4, r["config"]
    for stem in ("h200-datasheet", "h200-measured"):
        assert abs(sum(float(k[f"{stem}_s"]) for k in mine) / float(r[f"{stem}_step_s"]) - 1) < 1e-4, (r, stem)
print("ok: torch comparison (4 traces with their models' parameter counts, 10 configurations, by kind)")
PY
DASIM_BIN=$BIN expect_status "torch predict without a run" 2 "no torch-reference" \
  /usr/bin/python3 "$SRC/scripts/gpu_torch_predict.py" --bin "$BIN" --dir "$WORK/back" --calibration x.json
finish
