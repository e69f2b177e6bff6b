#!/usr/bin/env bash
# `python3 -m dasim_analysis calibrate-from-published deepbench` on a small workbook laid out as
# DeepBench's published training results (tests/data/deepbench/fixture.xlsx, written by
# make_fixture.py there): the fitted numbers, curve points and per-shape entries against values
# derived by hand below (not by rerunning the converter), the file accepted by `dasim validate`,
# the same bytes on a second run; then bad input: one stderr line, exit status 2, no file.
source "$2/tests/lib/analysis_common.sh"  # SOURCE_DIR, PY, WORK, fail
BIN=$1
FIXTURE=$SOURCE_DIR/tests/data/deepbench/fixture.xlsx
COMMIT=da81ba7820739e2e506dc27f382d15be5479f98f
convert() {  # OUT ARGS...: the converter with the fixture's usual options, then ARGS
  local out=$1
  shift
  (cd "$SOURCE_DIR/analysis" && $PY -m dasim_analysis calibrate-from-published deepbench "$@" \
    --device-name "Fixture GPU" --date 2019-10-07T23:52:09Z --source-commit $COMMIT \
    --source-path results/train/fixture.xlsx --memory-bandwidth 8.1e11 \
    --memory-bandwidth-source "a test figure" --launch-overhead 8e-6 \
    --launch-overhead-source "a test figure" --out "$out")
}
SHEETS=(--sheet "Results FP32=fp32" --sheet "Results - FP16 ip, Mixed math=fp16")

# The committed fixture is what make_fixture.py writes (stored zip, fixed timestamps).
$PY "$SOURCE_DIR/tests/data/deepbench/make_fixture.py" "$WORK/fixture.xlsx"
cmp -s "$WORK/fixture.xlsx" "$FIXTURE" || fail "tests/data/deepbench/fixture.xlsx differs from what make_fixture.py writes"

# Two runs into two folders (the file records the command, with the output's file name).
mkdir "$WORK/1" "$WORK/2"
convert "$WORK/1/fixture.json" "$FIXTURE" "${SHEETS[@]}" >"$WORK/stdout.txt" || fail "conversion failed"
convert "$WORK/2/fixture.json" "$FIXTURE" "${SHEETS[@]}" >/dev/null || fail "second conversion failed"
cmp -s "$WORK/1/fixture.json" "$WORK/2/fixture.json" || fail "two runs on the same workbook wrote different files"
"$BIN/dasim" validate "$WORK/1/fixture.json" >"$WORK/validate.txt" 2>&1 ||
  fail "dasim validate refused the converted file: $(cat "$WORK/validate.txt")"

# Expected values, derived by hand from make_fixture.py's rows:
#  fitted.flops.fp32: GEMMs of >= 1e11 FLOPs (2 M N K): 5000^3 -> 2.5e11 in 25 ms = 1.0e13 FLOP/s;
#    5000x5000x10000 -> 5e11 in 40 ms = 1.25e13; 5000x10000x10000 -> 1e12 in 125 ms = 8e12.
#    Median 1.0e13.
#  fitted.flops.fp16: one large GEMM, 2.5e11 in 2.5 ms = 1.0e14.
#  gemm fp32 curve: 1000^3 -> 2e9 FLOPs in 0.5 ms = 4e12 (0.4 of 1e13); 1000x1000x1500 -> 3e9 in
#    0.6 ms = 5e12 (0.5). Both in the half decade [1e9, 10^9.5 = 3.16e9): one point at the median
#    FLOPs 2.5e9 and median fraction 0.45. The 5e11 GEMM's 1.25 is clamped to 1.0.
#  conv_3x3_s1.forward fp32: 28x28x128 -> 128, N 16, pad 1, stride 1: P = Q = 28, FLOPs
#    2*16*128*128*3*3*28*28 = 3,699,376,128; 0.1 ms -> 3.699e13 FLOP/s = 3.699376 of 1e13,
#    written with 6 significant digits: [3.69938e9, 3.69938] (Winograd-style, above 1, below 4).
#  conv_other.forward fp32: the 7x7 stride-2 row (2*16*64*3*7*7*112*112 = 3,776,446,464 FLOPs,
#    0.5 ms: 0.755289) and the stride 2x1 row (P = (79 - 5) / 1 + 1 = 75, Q = (341 - 10) / 2 + 1
#    = 166, 2*4*32*32*5*10*75*166 = 5,099,520,000 FLOPs, 0.3 ms: 1.69984) share one half decade,
#    so the curve is split in two points.
#  per_shape fp16: the P100-ordered row R=5 (filter height), S=20 (width) on a 700 wide, 161 high
#    input, stride 2, pad 0, C 1, K 32, N 4: key c1_k32_h161_w700_r5_s20_u2_p0_g1, forward
#    0.591 ms = 0.000591 s; its backward-data cell is N/A*, so no conv_bwd_data entry.
#  The stride 2x1 row has no per-shape entry (a key has one stride): 13 entries in all.
$PY - "$WORK/1/fixture.json" <<'EOF' || fail "converted values"
import json, sys
c = json.load(open(sys.argv[1]))
f = c["fitted"]
def check(what, got, want):
    if got != want:
        print(f"FAIL: {what}: {got!r}, expected {want!r}", file=sys.stderr)
        raise SystemExit(1)
check("measured", c["measured"], True)
check("device", c["device"], {"name": "Fixture GPU", "kind": "cuda", "driver": "418.67",
                              "toolkit": "CUDA 10.1.243, cuDNN 7.6.2.24"})
check("flops", f["flops"], {"fp32": 1e13, "fp16": 1e14})
check("memory bandwidth", f["memory_bandwidth_Bps"], 8.1e11)
check("launch overhead", f["launch_overhead_s"], 8e-6)
gemm = f["efficiency_curves"]["fp32"]["gemm"]
check("fp32 gemm curve", gemm, [[2e6, 0.02], [2.5e9, 0.45], [2.5e11, 1.0], [5e11, 1.0], [1e12, 0.8]])
check("fp32 conv_3x3_s1.forward", f["efficiency_curves"]["fp32"]["conv_3x3_s1.forward"],
      [[3.69938e9, 3.69938]])
check("fp32 conv_other.forward", f["efficiency_curves"]["fp32"]["conv_other.forward"],
      [[3.77645e9, 0.755289], [5.09952e9, 1.69984]])
check("fp16 classes", sorted(f["efficiency_curves"]["fp16"]),
      ["conv_1x1.backward_data", "conv_1x1.backward_filter", "conv_1x1.forward",
       "conv_other.backward_filter", "conv_other.forward", "gemm"])
shapes = {(e["kind"], e["key"], e["batch"], e["precision"]): e["time_s"] for e in c["per_shape"]}
key = "c1_k32_h161_w700_r5_s20_u2_p0_g1"
check("fp16 forward time", shapes.get(("conv_fwd", key, 4, "fp16")), 0.000591)
check("fp16 N/A* backward data", ("conv_bwd_data", key, 4, "fp16") in shapes, False)
check("fp32 3x3 forward time",
      shapes.get(("conv_fwd", "c128_k128_h28_w28_r3_s3_u1_p1_g1", 16, "fp32")), 0.0001)
check("per_shape entries", len(shapes), 13)
check("no key for the 2x1 stride", [k for k in shapes if "h79_w341" in k[1]], [])
check("clamp said", "gemm 1 point(s)" in c["sources"]["fitted.efficiency_curves.fp32"], True)
for what in ("fitted.flops.fp32", "fitted.flops.fp16", "fitted.efficiency_curves.fp32", "per_shape"):
    check(f"sources.{what} names the commit", "da81ba7820739e2e506dc27f382d15be5479f98f" in
          c["sources"][what], True)
check("command", c["command"].split(" --sheet")[0],
      "python3 -m dasim_analysis calibrate-from-published deepbench fixture.xlsx")
EOF

# Memory-bound GEMMs stay out of the compute-efficiency curve. DeepBench's 35 x 8457 x 2560 fp32 GEMM:
# 2 x 35 x 8457 x 2560 = 1.5155e9 FLOPs over 4 x (35 x 2560 + 2560 x 8457 + 35 x 8457) = 8.8150e7 bytes
# = 17.19 FLOP/B; at 13.59 TFLOP/s and 810 GB/s the ridge is 16.78 FLOP/B: compute-bound, just. The
# K = 500,000 N = 8 language-model GEMM (M = 1024) moves 4 x (1024 x 5e5 + 5e5 x 8 + 1024 x 8) B for
# 8.19e9 FLOPs = 3.97 FLOP/B: memory-bound.
(cd "$SOURCE_DIR/analysis" && $PY - <<'PYEOF'
from dasim_analysis.deepbench import is_compute_bound
gemm = lambda m, n, k: {"m": m, "n": n, "k": k, "flops": 2 * m * n * k}
assert is_compute_bound(gemm(35, 8457, 2560), "fp32", 13.59e12, 810e9)
assert not is_compute_bound(gemm(1024, 8, 500000), "fp32", 13.59e12, 810e9)
# The same GEMM in fp16 moves half the bytes (7.94 FLOP/B), still below 101.75e12 / 810e9 = 125.6.
assert not is_compute_bound(gemm(1024, 8, 500000), "fp16", 101.75e12, 810e9)
PYEOF
) || fail "memory-bound GEMMs"

# Bad input: one line on stderr, exit status 2, nothing written.
expect_refusal() {  # EXPECTED_MESSAGE WORKBOOK ARGS...
  local expected=$1 status=0
  shift
  convert "$WORK/bad.json" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || status=$?
  [[ $status == 2 ]] || fail "$*: exit status $status, expected 2 ($(cat "$WORK/err.txt"))"
  [[ $(wc -l <"$WORK/err.txt") == 1 ]] || fail "$*: expected one stderr line: $(cat "$WORK/err.txt")"
  [[ $(cat "$WORK/err.txt") == "$expected" ]] || fail "message '$(cat "$WORK/err.txt")', expected '$expected'"
  [[ ! -s $WORK/out.txt ]] || fail "$*: printed to stdout: $(cat "$WORK/out.txt")"
  [[ ! -e $WORK/bad.json ]] || fail "$*: wrote output despite bad input"
}
expect_refusal "$FIXTURE: no sheet 'Results FP64' (the workbook has 'Results FP32', 'Results - FP16 ip, Mixed math', 'Specs')" \
  "$FIXTURE" --sheet "Results FP64=fp32"
NOT_XLSX=$SOURCE_DIR/tests/data/deepbench/make_fixture.py
expect_refusal "$NOT_XLSX: not an .xlsx workbook (not a zip archive)" "$NOT_XLSX" --sheet "Results FP32=fp32"
expect_refusal "--sheet 'Results FP32=fp64': unknown precision 'fp64' (expected one of fp32, tf32, fp16, bf16)" \
  "$FIXTURE" --sheet "Results FP32=fp64"
expect_refusal "--sheet: no sheet is fp32 (a calibration needs fitted.flops.fp32)" \
  "$FIXTURE" --sheet "Results - FP16 ip, Mixed math=fp16"
expect_refusal "--compute-slowdown: expected a fraction in [0, 1), got 1.0" \
  "$FIXTURE" --sheet "Results FP32=fp32" --compute-slowdown 1 --compute-slowdown-source "x"
expect_refusal "--compute-slowdown-source: required with --compute-slowdown (where the number comes from)" \
  "$FIXTURE" --sheet "Results FP32=fp32" --compute-slowdown 0.2
echo "PASS deepbench_converter"
