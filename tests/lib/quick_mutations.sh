# Bad-scenario cases built from scenarios/quick.json (sourced after cli_assert.sh, with $quick set):
#   mutate NAME PYTHON         writes $WORK/NAME.json from quick.json with `s` edited (paths made absolute)
#   bad NAME EXPECTED PYTHON   that file must fail `dasim run` with one line "NAME.json: EXPECTED",
#                              exit 2, no output directory
mutate() {
  /usr/bin/python3 - "$quick" "$WORK/$1.json" "$2" "$SRC" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for p in s["platforms"]:
    p["file"] = sys.argv[4] + "/platforms/" + p["file"].split("/")[-1]
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
PY
}
bad() {
  mutate "$1" "$3"
  expect_bad_input "$1" "$1.json: $2" "$BIN/dasim" run "$WORK/$1.json" --out "$WORK/out-$1" --quiet
  [ ! -e "$WORK/out-$1" ] || fail "$1: output directory was created"
}
