#!/usr/bin/env bash
# analysis/plot_breakdown.py on a small hand-made results file gives a real PNG, and refuses a
# file with two rows for the same bar. (Byte-identical reruns: analysis_scaleup.sh, same writer.)
set -euo pipefail
SOURCE_DIR=$2
PY=/usr/bin/python3
SCRIPT=$SOURCE_DIR/analysis/plot_breakdown.py
DATA=$SOURCE_DIR/tests/data/analysis
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
check_png() {  # a PNG signature and more than 10 kB (an empty axes alone is smaller)
  [[ -f $1 ]] || fail "$1 was not written"
  local signature size
  signature=$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')
  [[ $signature == 89504e470d0a1a0a ]] || fail "$1 is not a PNG (signature $signature)"
  size=$(stat -c %s "$1")
  ((size > 10240)) || fail "$1 is only $size bytes"
}

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
