#!/usr/bin/env bash
# plot_scaleup.py (what `dasim run --plot` calls) on a hand-made results file with the
# steps_to_target and time_to_target_s columns: time_to_target.png is written beside the scale-up
# figures, is a real PNG, the same input gives the same bytes and other times give other bytes.
# Without values (the columns absent, as in files written before them, or all cells empty) it is
# not written and not mentioned, and the two columns never split the scale-up curves: those
# figures are byte-identical with and without them. A bad cell is refused (exit 2, one line).
source "$2/tests/lib/analysis_common.sh"  # SOURCE_DIR, PY, DATA, WORK, fail, check_png
SCRIPT=$SOURCE_DIR/analysis/plot_scaleup.py
CSV=$DATA/time_to_target.csv

# edit_csv IN OUT PYTHON: OUT = IN with each row (a dict) passed through PYTHON (`row` in scope;
# `drop`: columns to leave out).
edit_csv() {
  "$PY" - "$1" "$2" "$3" <<'PY'
import csv, sys
with open(sys.argv[1], newline="") as f:
    rows = list(csv.DictReader(f))
drop = []
for row in rows:
    exec(sys.argv[3])
columns = [c for c in rows[0] if c not in drop]
with open(sys.argv[2], "w", newline="") as f:
    writer = csv.DictWriter(f, columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
PY
}
plot() {  # plot DIR CSV [ARGS...]: the three figures' default names in DIR, stderr in DIR/stderr.txt
  local dir=$1 csv=$2
  shift 2
  mkdir -p "$dir"
  $PY "$SCRIPT" "$csv" -o "$dir/scaleup.png" "$@" 2>"$dir/stderr.txt" ||
    fail "plot_scaleup.py $csv exited $?: $(cat "$dir/stderr.txt")"
}

plot "$WORK/with" "$CSV"
check_png "$WORK/with/scaleup.png"
check_png "$WORK/with/time_to_target.png"
grep -q "time_to_target.png" "$WORK/with/stderr.txt" || fail "the time to target figure is not reported"
plot "$WORK/again" "$CSV" --time-to-target-out "$WORK/again/ttt.png" --quiet
[[ ! -e $WORK/again/time_to_target.png ]] || fail "--time-to-target-out ignored: default name written too"
cmp -s "$WORK/with/time_to_target.png" "$WORK/again/ttt.png" || fail "same input gave different PNG bytes"
cmp -s "$WORK/with/time_to_target.png" "$WORK/with/scaleup.png" && fail "time to target figure is the speedup figure"

# Other times, other figure: DaSGD twice as slow to the target.
edit_csv "$CSV" "$WORK/slower.csv" \
  'row["time_to_target_s"] = str(2 * float(row["time_to_target_s"])) if row["schedule"] == "dasgd" else row["time_to_target_s"]'
plot "$WORK/slower" "$WORK/slower.csv"
cmp -s "$WORK/with/time_to_target.png" "$WORK/slower/time_to_target.png" &&
  fail "doubled DaSGD times drew the same figure"

# Without the columns (an older file) and with them all empty (no convergence file): nothing
# written, nothing said, and the same scale-up figures.
edit_csv "$CSV" "$WORK/without.csv" 'drop = ["steps_to_target", "time_to_target_s"]'
edit_csv "$CSV" "$WORK/empty.csv" 'row["steps_to_target"] = row["time_to_target_s"] = ""'
for case in without empty; do
  plot "$WORK/$case" "$WORK/$case.csv"
  [[ ! -e $WORK/$case/time_to_target.png ]] || fail "$case: time_to_target.png written"
  grep -qi "target" "$WORK/$case/stderr.txt" && fail "$case: stderr mentions the target: $(cat "$WORK/$case/stderr.txt")"
  for png in scaleup.png scaleup_efficiency.png; do
    cmp -s "$WORK/with/$png" "$WORK/$case/$png" || fail "$case: $png differs: the columns split curves"
  done
done
plot "$WORK/old" "$DATA/scaleup.csv"
[[ ! -e $WORK/old/time_to_target.png ]] || fail "old results file: time_to_target.png written"

# A bad cell: exit 2, one line naming the line and the column, no figure.
edit_csv "$CSV" "$WORK/bad.csv" 'row["time_to_target_s"] = "soon" if row["gpus"] == "4" else row["time_to_target_s"]'
status=0
$PY "$SCRIPT" "$WORK/bad.csv" -o "$WORK/bad/scaleup.png" 2>"$WORK/bad-stderr.txt" || status=$?
[[ $status == 2 ]] || fail "bad cell: exit status $status, expected 2"
[[ $(wc -l <"$WORK/bad-stderr.txt") == 1 ]] || fail "bad cell: expected one line: $(cat "$WORK/bad-stderr.txt")"
grep -q "line 4: column time_to_target_s" "$WORK/bad-stderr.txt" || fail "bad cell: $(cat "$WORK/bad-stderr.txt")"
[[ ! -e $WORK/bad ]] || fail "bad cell: something was written"
leftovers=$(find "$WORK" -name '.tmp-*')
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"
echo "PASS analysis_time_to_target"
