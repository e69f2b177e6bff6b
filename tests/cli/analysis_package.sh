#!/usr/bin/env bash
# analysis/ is one package with one command line: `python3 -m dasim_analysis --help` lists every
# command and each command's --help names it; no command or an unknown one is refused with one
# line and exit status 2; every shim at the old paths (analysis/plot_scaleup.py, ...) answers
# --help from another directory; and plot-scaleup through -m writes the same PNGs as its shim
# (the path `dasim run --plot` calls).
source "$2/tests/lib/analysis_common.sh"  # SOURCE_DIR, PY, DATA, WORK, fail, check_png
A=$SOURCE_DIR/analysis
COMMANDS="plot-scaleup plot-breakdown plot-sizing compare fidelity fidelity-ranks"
SHIMS="plot_scaleup plot_breakdown plot_sizing compare fidelity fidelity_ranks"
module() { (cd "$WORK" && PYTHONPATH=$A $PY -m dasim_analysis "$@"); }

help=$(module --help) || fail "--help exited non-zero"
for command in $COMMANDS; do
  grep -q "^  $command  " <<<"$help" || fail "--help does not list $command"
  usage=$(module "$command" --help) || fail "$command --help exited non-zero"
  [[ ${usage%%$'\n'*} == "usage: python3 -m dasim_analysis $command "* ]] ||
    fail "$command --help: ${usage%%$'\n'*}"
done

# expect_refusal EXPECTED_SUBSTRING ARGS...: exit 2, one stderr line, nothing on stdout.
expect_refusal() {
  local expected=$1 status=0
  shift
  module "$@" >"$WORK/stdout.txt" 2>"$WORK/stderr.txt" || status=$?
  [[ $status == 2 ]] || fail "'$*': exit status $status, expected 2"
  [[ ! -s $WORK/stdout.txt ]] || fail "'$*': printed to stdout: $(cat "$WORK/stdout.txt")"
  [[ $(wc -l <"$WORK/stderr.txt") == 1 ]] || fail "'$*': expected one stderr line: $(cat "$WORK/stderr.txt")"
  grep -qF -- "$expected" "$WORK/stderr.txt" || fail "'$*': stderr lacks '$expected': $(cat "$WORK/stderr.txt")"
}
expect_refusal "unknown command 'plot-everything'" plot-everything -o "$WORK/x.png"
expect_refusal "expected a command"

for shim in $SHIMS; do
  usage=$(cd / && $PY "$A/$shim.py" --help) || fail "$shim.py --help from / exited non-zero"
  [[ ${usage%%$'\n'*} == "usage: $shim.py "* ]] || fail "$shim.py --help: ${usage%%$'\n'*}"
done

module plot-scaleup "$DATA/scaleup.csv" -o "$WORK/module.png" 2>/dev/null || fail "plot-scaleup via -m failed"
(cd / && $PY "$A/plot_scaleup.py" "$DATA/scaleup.csv" -o "$WORK/shim.png" 2>/dev/null) ||
  fail "plot_scaleup.py from / failed"
for png in module.png module_efficiency.png shim.png shim_efficiency.png; do check_png "$WORK/$png"; done
cmp -s "$WORK/module.png" "$WORK/shim.png" || fail "speedup PNG differs between -m and the shim"
cmp -s "$WORK/module_efficiency.png" "$WORK/shim_efficiency.png" ||
  fail "efficiency PNG differs between -m and the shim"
echo "PASS analysis_package"
