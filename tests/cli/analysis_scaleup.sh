#!/usr/bin/env bash
# analysis/plot_scaleup.py on a small hand-made results file: both figures are real PNGs, the
# efficiency figure gets its default and explicit names, and the same input gives the same bytes.
source "$2/tests/lib/analysis_common.sh"
SCRIPT=$SOURCE_DIR/analysis/plot_scaleup.py

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
