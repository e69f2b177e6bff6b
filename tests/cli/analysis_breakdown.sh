#!/usr/bin/env bash
# analysis/plot_breakdown.py on a small hand-made results file gives a real PNG, and refuses a
# file with two rows for the same bar. --gpus draws the same figure as the file cut to those GPU
# counts by hand, and refuses a bad list or a count the file lacks. (Byte-identical reruns:
# analysis_scaleup.sh, same writer.)
source "$2/tests/lib/analysis_common.sh"
SCRIPT=$SOURCE_DIR/analysis/plot_breakdown.py

$PY "$SCRIPT" "$DATA/scaleup.csv" -o "$WORK/breakdown.png" || fail "plot_breakdown.py exited $?"
check_png "$WORK/breakdown.png"

# The same row twice: two bars in one slot would be drawn on top of each other.
{ cat "$DATA/scaleup.csv"; sed -n 2p "$DATA/scaleup.csv"; } >"$WORK/duplicate.csv"
set +e
message=$($PY "$SCRIPT" "$WORK/duplicate.csv" -o "$WORK/dup.png" 2>&1 >/dev/null)
status=$?
set -e
[[ $status == 2 ]] || fail "duplicate row: exit status $status, expected 2"
[[ $message == "$WORK/duplicate.csv: 2 rows for the same point ("*"gpus=1); keep one row per configuration" ]] ||
  fail "duplicate row: unexpected message: $message"
[[ ! -e $WORK/dup.png ]] || fail "duplicate row: a PNG was written anyway"
# --gpus 1,64: byte for byte the figure of the rows with 1 and 64 GPUs, cut out here with awk.
awk -F, 'NR == 1 || $10 == 1 || $10 == 64' "$DATA/scaleup.csv" >"$WORK/cut.csv"
[[ $(wc -l <"$WORK/cut.csv") == 13 ]] || fail "the cut file should hold a header and 12 rows"
$PY "$SCRIPT" "$WORK/cut.csv" -o "$WORK/by_hand.png" --quiet
$PY "$SCRIPT" "$DATA/scaleup.csv" -o "$WORK/by_option.png" --gpus 64,1 --quiet
cmp -s "$WORK/by_hand.png" "$WORK/by_option.png" || fail "--gpus 64,1 drew another figure than the cut file"
$PY "$SCRIPT" "$DATA/scaleup.csv" -o "$WORK/all.png" --quiet
cmp -s "$WORK/all.png" "$WORK/by_option.png" && fail "--gpus 64,1 drew every GPU count"

# The input wait (input_wait_s): a file whose rows all wait 10 ms draws its segment; one whose rows
# wait 0 draws the picture of the same file written before the column existed.
with_wait() {  # with_wait SECONDS OUT: scaleup.csv with an input_wait_s column of SECONDS
  $PY -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
w = csv.DictWriter(open(sys.argv[3], 'w', newline=''), fieldnames=list(rows[0]) + ['input_wait_s'])
w.writeheader()
for r in rows:
    w.writerow({**r, 'input_wait_s': sys.argv[2]})" "$DATA/scaleup.csv" "$1" "$2"
}
with_wait 0 "$WORK/no_wait.csv"
with_wait 0.01 "$WORK/wait.csv"
$PY "$SCRIPT" "$WORK/no_wait.csv" -o "$WORK/no_wait.png" --quiet
$PY "$SCRIPT" "$WORK/wait.csv" -o "$WORK/wait.png" --quiet
cmp -s "$WORK/no_wait.png" "$WORK/all.png" || fail "input_wait_s = 0 drew another figure than a file without it"
cmp -s "$WORK/wait.png" "$WORK/all.png" && fail "an input wait of 10 ms drew nothing"
check_png "$WORK/wait.png"

# expect_refusal EXPECTED_MESSAGE --gpus VALUE: exit 2, that one line, no PNG.
expect_refusal() {
  local status message
  set +e
  message=$($PY "$SCRIPT" "$DATA/scaleup.csv" -o "$WORK/refused.png" --gpus "$2" 2>&1 >/dev/null)
  status=$?
  set -e
  [[ $status == 2 ]] || fail "--gpus $2: exit status $status, expected 2"
  [[ $message == "$1" ]] || fail "--gpus $2: message '$message', expected '$1'"
  [[ ! -e $WORK/refused.png ]] || fail "--gpus $2: a PNG was written anyway"
}
for bad in "" "8,8" "0" "-4" "8;16" "eight"; do
  expect_refusal "--gpus: expected positive GPU counts separated by commas, each once, got '$bad'" "$bad"
done
expect_refusal "$DATA/scaleup.csv: --gpus 3,128: no rows with that many GPUs (the file has 1, 2, 4, 8, 16, 32, 64)" \
  "8,3,128"
echo "PASS analysis_breakdown"
