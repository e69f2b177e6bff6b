# Platforms of several sites in scenarios: a DiLoCo run with islands over the 2-site preset and a
# WAN bandwidth sweep (its column in the results), and the bad inputs: node counts that do not
# split into the sites, a WAN sweep of a platform without sites (exit 2, FILE: json.path).
source "$2/tests/lib/cli_assert.sh"

cat >"$WORK/good.json" <<JSON
{"name": "good", "platforms": [{"file": "$SRC/platforms/h100-two-continents.json", "nodes": [2]}],
 "workloads": ["resnet50"], "batch_per_gpu": 32, "collective": {"algorithm": "hierarchical"},
 "schedules": [{"type": "diloco", "H": 4, "island_gpus": 8}], "iterations": 4, "warmup": 0,
 "sweep": {"parameter": "wan_bandwidth", "values": ["1Gbps", "10Gbps"]}}
JSON
expect_ok "two sites" "$BIN/dasim" run "$WORK/good.json" --out "$WORK/out" --quiet
/usr/bin/python3 - "$WORK/out/results.csv" <<'PY' || fail "two-site results"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [float(r["wan_bandwidth_Bps"]) for r in rows] == [1.25e8, 1.25e9], rows
slow, fast = (float(r["exposed_comm_s"]) for r in rows)
# ResNet-50's 102 MB outer gradient over the WAN once per 4 steps: 10x the bandwidth, far less exposed.
assert slow > 5 * fast > 0, (slow, fast)
PY

cat >"$WORK/odd.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/h100-two-continents.json", "nodes": [3]}],
 "workloads": ["resnet50"], "batch_per_gpu": 32, "schedules": [{"type": "sgd"}]}
JSON
expect_bad_input "nodes that do not split into the sites" \
  "odd.json: platforms[0].nodes[0]: 3 nodes do not fit the platform: " "$BIN/dasim" validate "$WORK/odd.json"
cat >"$WORK/nosites.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/flat-100gbe-64.json", "nodes": [2]}],
 "workloads": ["resnet50"], "batch_per_gpu": 32, "schedules": [{"type": "sgd"}],
 "sweep": {"parameter": "wan_bandwidth", "values": ["1Gbps"]}}
JSON
expect_bad_input "a WAN sweep without sites" "nosites.json: sweep.parameter: platforms[0] (flat-100gbe-64) cannot be swept" \
  "$BIN/dasim" run "$WORK/nosites.json" --out "$WORK/out-nosites" --quiet
[ ! -e "$WORK/out-nosites" ] || fail "a WAN sweep without sites created its output directory"
finish
