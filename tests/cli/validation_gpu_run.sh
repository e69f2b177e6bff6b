#!/usr/bin/env bash
# The record of the first GPU run (validation/gpu-runs/2026-12-04-h200), re-read: the PyTorch steps
# against the simulator (scripts/gpu_torch_predict.py) on the committed traces. Labelled
# `validation` (its value is the numbers, which are the same under ASan: the sanitizer suite leaves
# it out, as it does the published cases; the importer's C++ has its own sanitizer tests).
source "$2/tests/lib/cli_assert.sh"
# In a copy of the run's folder. The profiled steps import with the models' own parameter counts, derived independently:
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
# A checkpointed configuration (gpu_torch_reference.py's bert-large-amp-b64-s128-ckpt) is predicted
# with --activation-checkpointing blocks: its step exceeds the plain one's by the recompute that
# `dasim workload show` reports for the same model, and by nothing else.
mkdir -p "$WORK/ckpt"
/usr/bin/python3 - "$WORK/ckpt/torch-reference.json" <<'PY'
import json, sys
common = {"model": "bert-large", "precision": "amp", "batch": 64, "seq_len": 128, "memory_format": None,
          "step_time_median_s": 0.2}
json.dump({"date": "2026-12-04T00:00:00Z", "results": [
    dict(common, name="plain"), dict(common, name="ckpt", activation_checkpointing="blocks")]}, open(sys.argv[1], "w"))
PY
CAL="$SRC/platforms/calibration/h200-measured.json"
expect_ok "torch predict, checkpointed" /usr/bin/python3 "$SRC/scripts/gpu_torch_predict.py" --bin "$BIN" \
  --dir "$WORK/ckpt" --calibration "$CAL"
"$BIN/dasim" workload show bert-large --batch 64 --precision amp --seq-len 128 --optimizer adam --zero-grad set_to_none \
  --activation-checkpointing blocks --calibration "$CAL" --format json >"$WORK/ckpt/show.json" || fail "workload show"
/usr/bin/python3 - "$WORK/ckpt" <<'PY' || fail "checkpointed prediction"
import csv, json, os, sys
rows = {r["config"]: r for r in csv.DictReader(open(os.path.join(sys.argv[1], "torch-predicted.csv")))}
recompute = json.load(open(os.path.join(sys.argv[1], "show.json")))["step"]["recompute_s"]
extra = float(rows["ckpt"]["h200-measured_step_s"]) - float(rows["plain"]["h200-measured_step_s"])
assert recompute > 0 and abs(extra - recompute) <= 1e-6, (extra, recompute)  # the CSV has 6 digits
print(f"ok: the checkpointed step is the plain one + {recompute * 1e3:.2f} ms of recompute")
PY
# A folder without PyTorch runs: one line, exit 2.
mkdir -p "$WORK/empty"
status=0
/usr/bin/python3 "$SRC/scripts/gpu_torch_predict.py" --bin "$BIN" --dir "$WORK/empty" --calibration x.json \
  2>"$WORK/err" || status=$?
[ "$status" = 2 ] && [ "$(wc -l <"$WORK/err")" = 1 ] && grep -q "no torch-reference" "$WORK/err" &&
  echo "ok: torch predict without a run" || fail "torch predict without a run: exit $status, $(cat "$WORK/err")"
finish
