#!/usr/bin/env bash
# `dasim run --out DIR`: a bad DIR fails before anything is simulated; the result set is written
# whole or not at all (no stale plots of an earlier run beside new results, nothing left after an
# interruption, even while plotting); a directory holding other files is refused unless --force.
source "$2/tests/lib/cli_strict.sh"

quick="$SRC/scenarios/quick.json"
run() { "$BIN/dasim" run "$quick" --quiet "$@" >"$work/stdout" 2>"$work/stderr"; }

# refused_before_simulating STATUS EXPECTED --out VALUE: exit STATUS with EXPECTED, one line, and no
# sign of a simulation (a bad path used to be found only after the run).
refused_before_simulating() {
  local status=$1 expected=$2
  shift 2
  run "$@"
  local got=$?
  [ "$got" = "$status" ] || fail "$*: exit $got, expected $status: $(cat "$work/stderr")"
  grep -qF -- "$expected" "$work/stderr" || fail "$*: stderr lacks \"$expected\": $(cat "$work/stderr")"
  [ "$(wc -l <"$work/stderr")" = 1 ] || fail "$*: expected one line: $(cat "$work/stderr")"
  grep -q " simulated in " "$work/stdout" && fail "$*: it simulated first"
  echo "ok: $*: $(cat "$work/stderr")"
}

refused_before_simulating 2 'dasim: error: --out: expected a directory name, got ""' --out ""
refused_before_simulating 2 "dasim: error: --out /dev/null: exists and is not a directory" --out /dev/null
touch "$work/afile"
refused_before_simulating 2 "dasim: error: --out $work/afile: exists and is not a directory" --out "$work/afile"
refused_before_simulating 1 "dasim: failed: --out $work/afile/sub: cannot create a directory beside it" \
  --out "$work/afile/sub"

# A rerun replaces the earlier result set whole: the plots of a --plot run do not survive a run
# without --plot, and a trace of one configuration does not survive a run that traced another.
out="$work/out"
run --out "$out" --plot --trace 3 || fail "first run: $(cat "$work/stderr")"
for f in results.csv results.json trace-3.json scaleup.png scaleup_efficiency.png breakdown.png; do
  [ -f "$out/$f" ] || fail "first run did not write $f"
done
grep -qF "plot: $out/breakdown.png" "$work/stdout" || fail "plot paths do not name the final directory"
grep -q "dasim-staging" "$work/stdout" "$work/stderr" && fail "the staging directory leaked into the output"
run --out "$out" --trace 5 || fail "rerun: $(cat "$work/stderr")"
[ "$(cd "$out" && ls | tr '\n' ' ')" = "results.csv results.json trace-5.json " ] ||
  fail "rerun left: $(ls "$out")"
echo "ok: a rerun replaces the earlier result set: $(ls "$out" | tr '\n' ' ')"

# Another file in the directory: refused (exit 2), then with --force only the result files change.
echo "my notes" >"$out/notes.txt"
refused_before_simulating 2 "dasim: error: --out $out: holds files that are not a dasim result set" --out "$out"
run --out "$out" --force || fail "--force: $(cat "$work/stderr")"
[ "$(cat "$out/notes.txt")" = "my notes" ] || fail "--force touched notes.txt"
[ -f "$out/results.csv" ] && [ ! -e "$out/trace-5.json" ] || fail "--force: stale result files: $(ls "$out")"
echo "ok: --force keeps other files and replaces the result files: $(ls "$out" | tr '\n' ' ')"

# Interrupted while plotting: exit 130, no result directory, the plotter gone. A stand-in
# analysis folder whose plotter sleeps makes the moment certain.
mkdir "$work/slow-analysis"
echo 'import time; time.sleep(60)' >"$work/slow-analysis/plot_scaleup.py"
DASIM_ANALYSIS_DIR="$work/slow-analysis" "$BIN/dasim" run "$quick" --quiet --plot --out "$work/interrupted" \
  >/dev/null 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 300); do
  pgrep -f "$work/slow-analysis/plot_scaleup.py" >/dev/null && break
  sleep 0.1
done
pgrep -f "$work/slow-analysis/plot_scaleup.py" >/dev/null || fail "the plotter never started: $(cat "$work/stderr")"
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" = 130 ] || fail "interrupted while plotting: exit $status, expected 130: $(cat "$work/stderr")"
sleep 0.2
pgrep -f "$work/slow-analysis/plot_scaleup.py" >/dev/null && fail "the plotter outlived the run"
[ -e "$work/interrupted" ] && fail "an interrupted run left $work/interrupted"
echo "ok: interrupted while plotting: exit 130, nothing left, plotter gone"

leftovers=$(find "$work" -maxdepth 1 -name '.*dasim-*')
[ -z "$leftovers" ] || fail "staging directories left: $leftovers"
echo "PASS"
