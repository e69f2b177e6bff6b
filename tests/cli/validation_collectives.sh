#!/usr/bin/env bash
# validate-collectives on its own: the published cases themselves are predicted once, with every other
# class, by tests/cli/validation_suite.sh (the suite reuses this runner's loading, prediction and
# verdicts). Here: the runner's own outputs on one real case (its csv, md, json and the error column),
# then the command's bad inputs: one line naming the file and key, exit 2, nothing written.
source "$2/tests/lib/analysis_common.sh"
source "$2/tests/lib/validation_common.sh"  # expect_refusal
BIN=$1
run() { (cd "$SOURCE_DIR/analysis" && $PY -m dasim_analysis validate-collectives --dasim "$BIN/dasim" "$@"); }

mkdir -p "$WORK/one"
cp "$SOURCE_DIR/validation/collectives/stas00-h200-allreduce-1x8-16g-ring.json" "$WORK/one/"
sed -i "s|\"\.\./platforms/|\"$SOURCE_DIR/validation/platforms/|" "$WORK/one/stas00-h200-allreduce-1x8-16g-ring.json"
run --cases "$WORK/one" --out "$WORK/out" >"$WORK/table.txt" || { cat "$WORK/table.txt" >&2; fail "validate-collectives"; }
[[ $(($(wc -l <"$WORK/out/collectives.csv") - 1)) == 1 ]] || fail "collectives.csv: expected one row"
grep -q "^1 cases: 1 within target, 0 known disagreements, 0 to look at$" "$WORK/table.txt" ||
  fail "summary: $(tail -1 "$WORK/table.txt")"
[[ -s $WORK/out/collectives.md && -s $WORK/out/collectives.json ]] || fail "collectives.md/json not written"
# Errors recomputed from the csv: (predicted - published) / published.
awk -F, 'NR > 1 { e = ($10 - $9) / $9 * 100; d = e - $11; if (d < 0) d = -d
  if (d > 0.06) { printf "FAIL: %s error %s, recomputed %.2f\n", $1, $11, e; exit 1 } }' \
  "$WORK/out/collectives.csv" >&2 || fail "error column"

# Bad inputs.
one=$SOURCE_DIR/validation/collectives/stas00-h200-allreduce-1x8-16g-ring.json
mkdir -p "$WORK/cases"
edit() {  # PYTHON_STATEMENT_ON_c: a copy of one case, edited, alone in $WORK/cases
  rm -f "$WORK"/cases/*
  $PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['platform']='$SOURCE_DIR/validation/platforms/stas00-h200-node.json'; $1; json.dump(c, open(sys.argv[2], 'w'))" \
    "$one" "$WORK/cases/case.json"
}
edit "c['op']='alltoall'"
expect_refusal "$WORK/cases/case.json: op: expected one of all_gather, allreduce, broadcast, reduce_scatter" --cases "$WORK/cases"
edit "c['surprise']=1"
expect_refusal "$WORK/cases/case.json: unknown keys surprise" --cases "$WORK/cases"
edit "c['bytes']=0"
expect_refusal "$WORK/cases/case.json: bytes: expected a positive integer" --cases "$WORK/cases"
edit "c['platform']='nowhere.json'"
expect_refusal "$WORK/cases/case.json: platform: no such file $WORK/cases/nowhere.json" --cases "$WORK/cases"
edit "pass"
echo '{"no-such-case": "cause"}' >"$WORK/cases/known-disagreements.json"
expect_refusal "$WORK/cases/known-disagreements.json: no-such-case: no case has this id" --cases "$WORK/cases"
echo "ok: one case, bad inputs refused" >&2
