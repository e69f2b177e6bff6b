#!/usr/bin/env bash
# A built-in transformer in length bins from the command line and from a scenario: the shapes it
# reports are the bins of the Wikipedia counts (shares computed here from the file), its step is
# shorter than at the longest length, and every bad combination is one line naming where it was
# written (--length-bins, FILE: workloads[i].length_bins), exit 2.
source "$2/tests/lib/cli_assert.sh"
COUNTS=$SRC/validation/scaling/workloads/wikipedia-s512-lengths.json
PY=${DASIM_TEST_PYTHON:-/usr/bin/python3}

expect_ok "bert-large in 64-token bins" "$BIN/dasim" workload show bert-large --length-bins "$COUNTS" --bin-size 64 \
  --batch 16 --precision tf32 --calibration "$SRC/platforms/calibration/a100-datasheet.json"
expected=$($PY - "$COUNTS" <<'PYEOF'
import json, sys
counts = json.load(open(sys.argv[1]))["counts"]
total = sum(counts)
print("micro-batch shapes (8): " + ", ".join(
    f"{64 * (b + 1)} tokens {100 * sum(counts[64 * b:64 * b + 64]) / total:.1f}%" for b in range(8)))
PYEOF
)
grep -qF "$expected" "$WORK/stdout" || fail "shapes line: expected '$expected' in: $(grep micro-batch "$WORK/stdout")"
binned=$(sed -n 's/^  step *\([0-9.]*\) ms.*/\1/p' "$WORK/stdout")
"$BIN/dasim" workload show bert-large --seq-len 512 --batch 16 --precision tf32 \
  --calibration "$SRC/platforms/calibration/a100-datasheet.json" >"$WORK/full.txt"
full=$(sed -n 's/^  step *\([0-9.]*\) ms.*/\1/p' "$WORK/full.txt")
# Half the tokens on average (mean length 255.8 of 512), and the short bins run further below
# peak: between 0.4 and 0.6 of the step at 512.
$PY -c "import sys; r = $binned / $full; sys.exit(0 if 0.4 < r < 0.6 else 1)" ||
  fail "binned step $binned ms against $full ms at 512"

expect_bad_input "--length-bins alone" "--length-bins: needs --bin-size" \
  "$BIN/dasim" workload show bert-large --length-bins "$COUNTS"
expect_bad_input "--bin-size alone" "--bin-size: given without --length-bins" \
  "$BIN/dasim" workload show bert-large --bin-size 64
expect_bad_input "an image model" "--length-bins: resnet50 is an image model: it has no sequence lengths to bin" \
  "$BIN/dasim" workload show resnet50 --length-bins "$COUNTS" --bin-size 64
expect_bad_input "with --seq-len" "--length-bins: the bins set each micro-batch's length" \
  "$BIN/dasim" workload show bert-large --length-bins "$COUNTS" --bin-size 64 --seq-len 128
expect_bad_input "a bin size that cuts the longest bin" "--bin-size: bin size 100 does not divide the counts' 512 lengths" \
  "$BIN/dasim" workload show bert-large --length-bins "$COUNTS" --bin-size 100
echo '{"counts": [1, 18446744073709551615]}' >"$WORK/huge.json"  # above int64: not wrapped to -1
expect_bad_input "a count beyond 2^63" "huge.json: counts[1]: expected an integer below 2^63, got 18446744073709551615" \
  "$BIN/dasim" workload show bert-large --length-bins "$WORK/huge.json" --bin-size 1
echo '{"counts": [1, -2]}' >"$WORK/negative.json"
expect_bad_input "a negative count" "negative.json: counts[1]: expected a count >= 0, got -2" \
  "$BIN/dasim" workload show bert-large --length-bins "$WORK/negative.json" --bin-size 1

scenario() {  # scenario FILE WORKLOAD_JSON
  cat >"$1" <<JSON
{"platforms": [{"file": "$SRC/platforms/flat-100gbe-64.json", "nodes": [1]}], "workloads": [$2],
 "batch_per_gpu": 8, "schedules": [{"type": "sgd"}]}
JSON
}
scenario "$WORK/binned.json" "{\"name\": \"bert-large\", \"length_bins\": {\"file\": \"$COUNTS\", \"bin_size\": 64}}"
expect_ok "a scenario in length bins validates" "$BIN/dasim" validate "$WORK/binned.json"
expect_ok "and runs" "$BIN/dasim" run "$WORK/binned.json" --out "$WORK/out" --quiet
[[ -s $WORK/out/results.csv ]] || fail "no results.csv"
scenario "$WORK/cut.json" "{\"name\": \"bert-large\", \"length_bins\": {\"file\": \"$COUNTS\", \"bin_size\": 100}}"
expect_bad_input "scenario: a bin size that cuts" "cut.json: workloads[0].length_bins.bin_size: bin size 100 does not divide" \
  "$BIN/dasim" validate "$WORK/cut.json"
scenario "$WORK/nofile.json" '{"name": "bert-large", "length_bins": {"file": "absent.json", "bin_size": 64}}'
expect_bad_input "scenario: no counts file" "nofile.json: workloads[0].length_bins.file: file" \
  "$BIN/dasim" validate "$WORK/nofile.json"
scenario "$WORK/image.json" "{\"name\": \"vgg16\", \"length_bins\": {\"file\": \"$COUNTS\", \"bin_size\": 64}}"
expect_bad_input "scenario: an image model" "image.json: workloads[0].length_bins: vgg16 is an image model" \
  "$BIN/dasim" validate "$WORK/image.json"
finish
