#!/usr/bin/env bash
# analysis/plot_scaleup.py on a small hand-made results file: both figures are real PNGs, the
# efficiency figure gets its default and explicit names, and the same input gives the same bytes.
set -euo pipefail
SOURCE_DIR=$2
PY=/usr/bin/python3
SCRIPT=$SOURCE_DIR/analysis/plot_scaleup.py
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

$PY "$SCRIPT" "$DATA/scaleup.csv" -o "$WORK/scaleup.png" || fail "plot_scaleup.py exited $?"
check_png "$WORK/scaleup.png"
check_png "$WORK/scaleup_efficiency.png"

$PY "$SCRIPT" "$DATA/scaleup.csv" -o "$WORK/again.png" --efficiency-out "$WORK/eff.png" ||
  fail "plot_scaleup.py --efficiency-out exited $?"
check_png "$WORK/eff.png"
[[ ! -e $WORK/again_efficiency.png ]] || fail "--efficiency-out ignored: default name written too"
cmp -s "$WORK/scaleup.png" "$WORK/again.png" || fail "same input gave different speedup PNG bytes"
cmp -s "$WORK/scaleup_efficiency.png" "$WORK/eff.png" ||
  fail "same input gave different efficiency PNG bytes"
cmp -s "$WORK/scaleup.png" "$WORK/eff.png" && fail "speedup and efficiency figures are identical"
leftovers=$(find "$WORK" -name '.tmp-*')
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"
echo "PASS analysis_scaleup"
