#!/usr/bin/env bash
# `dasim calibrate --device cpu --quick` finishes in seconds and writes a calibration file that
# `dasim` itself can read back: measured, with a device, a date, the command line, an fp32 rate,
# positive bandwidth and launch figures, per-shape times for the workload shapes, and progress
# on stderr (stdout keeps one summary line).
set -euo pipefail
BIN_DIR=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

start=$(date +%s)
"$BIN_DIR/dasim" calibrate --device cpu --quick --out "$WORK/cpu.json" >"$WORK/stdout" 2>"$WORK/stderr" ||
  fail "exit status $? ($(tail -1 "$WORK/stderr"))"
elapsed=$(($(date +%s) - start))
((elapsed < 60)) || fail "--quick took ${elapsed}s"
[[ $(wc -l <"$WORK/stdout") == 1 ]] || fail "stdout should be one summary line"
grep -q '^calibrate: sgemm 256^3$' "$WORK/stderr" || fail "no progress on stderr"

/usr/bin/python3 - "$WORK/cpu.json" <<'PY' || fail "calibration file content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "dasim-calibration/1", d["format"]
assert d["measured"] is True
assert d["device"]["kind"] == "cpu" and d["device"]["name"]
assert d["command"].startswith("dasim calibrate --device cpu --quick --out ")
assert d["date"].endswith("Z") and "T" in d["date"]
f = d["fitted"]
assert f["flops"]["fp32"] > 1e8, f["flops"]
assert f["memory_bandwidth_Bps"] > 1e8 and 0 < f["launch_overhead_s"] < 1e-3
for curve in ("gemm_efficiency", "conv_efficiency"):
    xs = [p[0] for p in f[curve]]
    assert xs == sorted(xs) and len(set(xs)) == len(xs), curve
    assert all(0 < p[1] <= 1 for p in f[curve]), curve
kinds = {p["kind"] for p in d["per_shape"]}
assert kinds == {"conv_fwd", "conv_bwd_data", "conv_bwd_filter", "gemm"}, kinds
# ResNet-50's classifier is a 2048 -> 1000 GEMM per image.
assert any(p["kind"] == "gemm" and p["key"] == "m1_n1000_k2048" for p in d["per_shape"])
names = [m["name"] for m in d["measurements"]]
assert len(names) == len(set(names)), "measurement names must be unique"
PY
