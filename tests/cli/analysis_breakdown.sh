#!/usr/bin/env bash
# analysis/plot_breakdown.py on a small hand-made results file gives a real PNG, and refuses a
# file with two rows for the same bar. (Byte-identical reruns: analysis_scaleup.sh, same writer.)
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
echo "PASS analysis_breakdown"
