# Every scenario in scenarios/ is valid and runs: `dasim validate` accepts it, and a tiny derived
# copy (its smallest node count, first sweep value, one iteration: one whole period of each schedule)
# runs to exit 0 with exactly one results row per expected configuration, counted here from the
# scenario's own lists, not from dasim's output.
source "$2/tests/lib/cli_assert.sh"

shopt -s nullglob
scenarios=("$SRC"/scenarios/*.json)
if [ "${#scenarios[@]}" -eq 0 ]; then fail "no scenario files in $SRC/scenarios"; fi

for scenario in "${scenarios[@]}"; do
  name=$(basename "$scenario" .json)
  expect_ok "validate $name" "$BIN/dasim" validate "$scenario"

  # derive NAME: writes $WORK/NAME.json (paths made absolute) and prints the expected row count.
  expected=$(/usr/bin/python3 - "$scenario" "$WORK/$name.json" <<'PY'
import json, os, sys
source, target = sys.argv[1], sys.argv[2]
s = json.load(open(source))
base = os.path.dirname(os.path.abspath(source))
for p in s["platforms"]:
    p["file"] = os.path.normpath(os.path.join(base, p["file"]))
    p["nodes"] = [min(p["nodes"])]
for i, w in enumerate(s["workloads"]):
    if isinstance(w, dict) and "file" in w:
        w["file"] = os.path.normpath(os.path.join(base, w["file"]))
if isinstance(s.get("calibration"), str):
    s["calibration"] = os.path.normpath(os.path.join(base, s["calibration"]))
# One iteration: dasim rounds it up to one whole period of each schedule (tau, or H for the
# DiLoCo family), so every averaging runs once and no schedule runs more than its own period.
s["iterations"] = 1
s["warmup"] = 0
sweep_values = 1
if "sweep" in s:
    s["sweep"]["values"] = s["sweep"]["values"][:1]
json.dump(s, open(target, "w"), indent=1)
print(len(s["platforms"]) * len(s["workloads"]) * len(s["schedules"]) * sweep_values)
PY
  )
  if [ -z "$expected" ]; then fail "$name: could not derive a tiny copy"; continue; fi
  expect_ok "run tiny $name" "$BIN/dasim" run "$WORK/$name.json" --out "$WORK/out-$name" --quiet
  csv="$WORK/out-$name/results.csv"
  if [ -f "$csv" ]; then
    rows=$(($(wc -l <"$csv") - 1))
    if [ "$rows" -eq "$expected" ]; then
      echo "ok: $name tiny copy gave $rows rows"
    else
      fail "$name: tiny copy gave $rows result rows, expected $expected"
    fi
  else
    fail "$name: no results.csv"
  fi
done
finish
