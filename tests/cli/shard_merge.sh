# dasim run --shard I/N and dasim merge: a scenario run as 3 shards (a sweep, so the extra column
# is carried too) merges into results.csv and results.json byte-identical to one local run;
# bad shards and bad combinations are refused with one line, exit 2, nothing written.
source "$2/tests/lib/cli_assert.sh"

/usr/bin/python3 - "$SRC/scenarios/quick.json" "$WORK/sweep.json" "$SRC" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["platforms"][0]["file"] = sys.argv[3] + "/platforms/flat-100gbe-64.json"
s["platforms"][0]["nodes"] = [1, 4]
s["sweep"] = {"parameter": "inter_node_bandwidth", "values": ["10Gbps", "100Gbps"]}
json.dump(s, open(sys.argv[2], "w"))
PY
expect_ok "local run" "$BIN/dasim" run "$WORK/sweep.json" --out "$WORK/local" --quiet
for i in 0 1 2; do
  expect_ok "shard $i/3" "$BIN/dasim" run "$WORK/sweep.json" --out "$WORK/shard$i" --quiet --shard $i/3
  [ -s "$WORK/shard$i/shard-$i-of-3.json" ] || fail "shard $i/3: no shard file"
  [ ! -e "$WORK/shard$i/results.csv" ] || fail "shard $i/3: wrote a results.csv of part of the rows"
done
rows() { /usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$1"; }
total=$(( $(rows "$WORK/shard0/shard-0-of-3.json") + $(rows "$WORK/shard1/shard-1-of-3.json") + $(rows "$WORK/shard2/shard-2-of-3.json") ))
[ "$total" -eq 12 ] || fail "the shards hold $total rows, expected the scenario's 12 configurations"
expect_ok "merge" "$BIN/dasim" merge "$WORK/shard0" "$WORK/shard2/shard-2-of-3.json" "$WORK/shard1" --out "$WORK/merged"
grep -q "^12 configurations from 3 shards; results in $WORK/merged/results.csv" "$WORK/stdout" ||
  fail "merge: no closing line"
grep -q "^  11 resnet50" "$WORK/stdout" || fail "merge: the summary table lacks configuration 11"
for f in results.csv results.json; do
  cmp -s "$WORK/local/$f" "$WORK/merged/$f" || fail "merged $f differs from the local run's"
done

# Bad input.
expect_bad_input "missing shard" "shard(s) 1 of 3 missing (configurations" \
  "$BIN/dasim" merge "$WORK/shard0" "$WORK/shard2" --out "$WORK/m1"
[ ! -e "$WORK/m1" ] || fail "missing shard: output directory was created"
expect_bad_input "shard twice" "shard-0-of-3.json: is given twice" \
  "$BIN/dasim" merge "$WORK/shard0" "$WORK/shard0/shard-0-of-3.json" "$WORK/shard1" "$WORK/shard2" --out "$WORK/m2"
sed 's/"iterations": 8/"iterations": 9/' "$WORK/sweep.json" >"$WORK/other.json"
expect_ok "shard of another scenario" "$BIN/dasim" run "$WORK/other.json" --out "$WORK/other1" --quiet --shard 1/3
expect_bad_input "another scenario" "shard-1-of-3.json: inputs_sha256: is shard 1 of 3 of another scenario" \
  "$BIN/dasim" merge "$WORK/shard0" "$WORK/other1" "$WORK/shard2" --out "$WORK/m3"
# A workload file is an input too: the same scenario over an edited workload file is another run.
"$BIN/dasim" workload show resnet50 --format json >"$WORK/w.json" || fail "workload show resnet50 --format json"
/usr/bin/python3 - "$WORK/sweep.json" "$WORK/sweep-file.json" "$WORK/w.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["workloads"] = [sys.argv[3]]
json.dump(s, open(sys.argv[2], "w"))
PY
for i in 0 2; do
  expect_ok "shard $i/3 over a workload file" "$BIN/dasim" run "$WORK/sweep-file.json" --out "$WORK/wf$i" --quiet --shard $i/3
done
sed -i 's/"name": "resnet50"/"name": "resnet50-edited"/' "$WORK/w.json"
expect_ok "shard 1/3 over the edited workload file" "$BIN/dasim" run "$WORK/sweep-file.json" --out "$WORK/wf1" --quiet --shard 1/3
expect_bad_input "another workload file" "shard-1-of-3.json: inputs_sha256: is shard 1 of 3 of another scenario" \
  "$BIN/dasim" merge "$WORK/wf0" "$WORK/wf1" "$WORK/wf2" --out "$WORK/m6"
expect_bad_input "not a shard file" "results.json: format: expected \"dasim-shard/4\"" \
  "$BIN/dasim" merge "$WORK/local/results.json" --out "$WORK/m4"
expect_bad_input "no shard files in a directory" "is a directory without shard files" \
  "$BIN/dasim" merge "$WORK/local" --out "$WORK/m5"
expect_bad_input "shard out of range" '--shard: expected I/N with 0 <= I < N' \
  "$BIN/dasim" run "$WORK/sweep.json" --out "$WORK/m6" --quiet --shard 3/3
expect_bad_input "shard with --plot" "--plot: plot the merged results" \
  "$BIN/dasim" run "$WORK/sweep.json" --out "$WORK/m7" --quiet --shard 0/3 --plot
expect_bad_input "shard with --trace" "--trace: trace a configuration in a run without --shard" \
  "$BIN/dasim" run "$WORK/sweep.json" --out "$WORK/m8" --quiet --shard 0/3 --trace 1
for d in m4 m5 m6 m7 m8; do [ ! -e "$WORK/$d" ] || fail "$d: output directory was created"; done
finish
