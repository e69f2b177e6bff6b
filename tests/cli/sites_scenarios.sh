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

# Sites of different GPU types: the H100 + A100 preset against the all-H100 one. Each site computes
# with its own calibration (the results name both), so the mixed pair's compute per GPU lies
# between the H100's and the A100's, and DiLoCo's rounds wait for the A100 site.
cat >"$WORK/mixed.json" <<JSON
{"name": "mixed", "platforms": [{"file": "$SRC/platforms/h100-a100-two-continents.json", "nodes": [2]},
  {"file": "$SRC/platforms/h100-two-continents.json", "nodes": [2]}],
 "workloads": ["resnet50"], "batch_per_gpu": 32, "collective": {"algorithm": "hierarchical"},
 "schedules": [{"type": "diloco", "H": 4, "island_gpus": 8}], "iterations": 4, "warmup": 0}
JSON
expect_ok "mixed sites" "$BIN/dasim" run "$WORK/mixed.json" --out "$WORK/out-mixed" --quiet
/usr/bin/python3 - "$WORK/out-mixed/results.csv" <<'PY' || fail "mixed-site results"
import csv, sys
rows = {r["platform"]: r for r in csv.DictReader(open(sys.argv[1])) if r["gpus"] == "16"}
mixed, h100 = rows["h100-a100-two-continents"], rows["h100-two-continents"]
assert mixed["calibration"].startswith("h100-datasheet.json") and "+ a100-datasheet.json" in mixed["calibration"], mixed["calibration"]
assert "+" in mixed["calibration_sha256"], mixed["calibration_sha256"]
# The A100's datasheet bf16/fp32 rates are below the H100's: the mixed pair computes longer on
# average and each round takes the A100 site's time.
assert float(mixed["compute_s"]) > 1.3 * float(h100["compute_s"]), (mixed["compute_s"], h100["compute_s"])
assert float(mixed["iter_time_s"]) > float(h100["iter_time_s"]), (mixed["iter_time_s"], h100["iter_time_s"])
PY
expect_ok "mixed sites platform" "$BIN/dasim" validate "$SRC/platforms/h100-a100-two-continents.json"

mixed_platform() {  # NAME SITES_JSON: a sites platform file with these "sites"
  cat >"$WORK/$1.json" <<JSON
{"nodes": 2, "sites": $2}
JSON
}
mixed_platform both_forms "{\"platforms\": [\"$SRC/platforms/dgx-h100-ndr.json\", \"$SRC/platforms/dgx-a100-hdr.json\"],
  \"platform\": \"$SRC/platforms/dgx-h100-ndr.json\", \"wan\": {\"bandwidth\": \"1Gbps\", \"latency\": \"1ms\"}}"
expect_bad_input "platforms and platform" \
  "both_forms.json: sites.platform: give either platforms (a file per site) or platform and count, not both" \
  "$BIN/dasim" validate "$WORK/both_forms.json"
mixed_platform gpus_differ "{\"platforms\": [\"$SRC/platforms/dgx-h100-ndr.json\", \"$SRC/platforms/flat-100gbe-64.json\"],
  \"wan\": {\"bandwidth\": \"1Gbps\", \"latency\": \"1ms\"}}"
expect_bad_input "sites with different GPUs per node" \
  "gpus_differ.json: sites.platforms[1]: expected 8 GPUs per node as platforms[0] (dgx-h100-ndr), got 1" \
  "$BIN/dasim" validate "$WORK/gpus_differ.json"
mixed_platform one_site "{\"platforms\": [\"$SRC/platforms/dgx-h100-ndr.json\"], \"wan\": {\"bandwidth\": \"1Gbps\", \"latency\": \"1ms\"}}"
expect_bad_input "one site platform" "one_site.json: sites.platforms: expected 2 to 1024 site platforms, got 1" \
  "$BIN/dasim" validate "$WORK/one_site.json"
mixed_platform not_a_name "{\"platforms\": [\"$SRC/platforms/dgx-h100-ndr.json\", 3], \"wan\": {\"bandwidth\": \"1Gbps\", \"latency\": \"1ms\"}}"
expect_bad_input "a site that is not a file name" "not_a_name.json: sites.platforms[1]: expected a platform file name" \
  "$BIN/dasim" validate "$WORK/not_a_name.json"
mixed_platform torus_site "{\"platforms\": [\"$SRC/platforms/dgx-h100-ndr.json\", \"$SRC/platforms/dgx-h100-ndr-dragonfly.json\"],
  \"wan\": {\"bandwidth\": \"1Gbps\", \"latency\": \"1ms\"}}"
expect_bad_input "a dragonfly site" "torus_site.json: sites.platforms[1]: a dragonfly fabric cannot be a site (use star or fat_tree)" \
  "$BIN/dasim" validate "$WORK/torus_site.json"
cat >"$WORK/mixed_override.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/h100-a100-two-continents.json", "nodes": [2]}],
 "calibration": "$SRC/platforms/calibration/h100-datasheet.json",
 "workloads": ["resnet50"], "batch_per_gpu": 32, "schedules": [{"type": "sgd"}]}
JSON
expect_bad_input "one calibration for sites of two GPU types" \
  "mixed_override.json: calibration: platform h100-a100-two-continents has sites of different GPU types, each calibrated by its own platform file: leave \"calibration\" out" \
  "$BIN/dasim" validate "$WORK/mixed_override.json"
finish
