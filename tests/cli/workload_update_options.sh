#!/usr/bin/env bash
# `dasim workload show`'s update options on the command line: a value it does not know is one line
# naming the flag, exit 2, nothing on stdout; the values it knows change the printed update.
source "$2/tests/lib/cli_assert.sh"

expect_bad_input "unknown optimizer" '--optimizer: expected one of sgd_momentum, adam, lamb, bert_adam, got "sgd"' \
  "$BIN/dasim" workload show bert-large --optimizer sgd
expect_bad_input "unknown clipping" '--grad-clip: expected one of none, norm, norm_and_scale, got "always"' \
  "$BIN/dasim" workload show bert-large --grad-clip always
expect_bad_input "unknown zero_grad" '--zero-grad: expected one of set_to_none, zero, fill_only, got "none"' \
  "$BIN/dasim" workload show bert-large --zero-grad none

# Known values: the table says what is charged, and the JSON carries it.
CAL=$SRC/platforms/calibration/v100-sxm2-deepbench.json
"$BIN/dasim" workload show bert-large --optimizer adam --grad-clip norm --zero-grad zero --calibration "$CAL" \
  >"$WORK/table.txt" || fail "workload show with the update options"
grep -q "^gradient clipping        global norm: norm only" "$WORK/table.txt" || fail "no clipping line"
grep -q "^zero_grad                zero: " "$WORK/table.txt" || fail "no zero_grad line"
grep -q "adding into zeroed gradients" "$WORK/table.txt" || fail "no accumulation inside backward"
grep -q "clipping .* ms, zero_grad fills .* ms)" "$WORK/table.txt" || fail "no update parts: $(grep update "$WORK/table.txt")"
"$BIN/dasim" workload show bert-large --zero-grad fill_only --calibration "$CAL" --format json >"$WORK/w.json" ||
  fail "workload show --format json"
/usr/bin/python3 - "$WORK/w.json" <<'PYEOF' || fail "json"
import json, sys
w = json.load(open(sys.argv[1]))
assert w["zero_grad"] == "fill_only", w.get("zero_grad")
step = w["step"]
assert step["gradient_accumulation_s"] == 0, step["gradient_accumulation_s"]  # fills only
assert step["update_parts"]["zero_fill_s"] > 0, step["update_parts"]
PYEOF
finish
