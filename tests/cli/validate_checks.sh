#!/usr/bin/env bash
# `dasim validate` runs every check `dasim run` makes before simulating, and checks every file it
# is given: each of these used to pass validate and fail (or run wrongly) later.
source "$2/tests/lib/cli_strict.sh"

flat="$SRC/platforms/flat-100gbe-64.json"
# scenario NAME EXTRA_JSON [PLATFORM [NODES]]: writes $work/NAME.json
scenario() {
  cat >"$work/$1.json" <<JSON
{"platforms": [{"file": "${3:-$flat}", "nodes": [${4:-2}]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "schedules": [{"type": "sgd"}]$2}
JSON
}
# refused NAME EXPECTED: validate exits 2 with one line holding EXPECTED
refused() {
  "$BIN/dasim" validate "$work/$1.json" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [ "$status" = 2 ] || fail "$1: exit $status, expected 2: $(cat "$work/stderr")"
  [ "$(wc -l <"$work/stderr")" = 1 ] || fail "$1: expected one line: $(cat "$work/stderr")"
  grep -qF -- "$2" "$work/stderr" || fail "$1: stderr lacks \"$2\": $(cat "$work/stderr")"
  echo "ok: $1: $(cat "$work/stderr")"
}

# A valid scenario's summary counts its configurations in the right number (was "1 configurations").
scenario one ''
"$BIN/dasim" validate "$work/one.json" >"$work/stdout" 2>"$work/stderr" || fail "one: $(cat "$work/stderr")"
grep -qF ": 1 configuration)" "$work/stdout" || fail "one: $(cat "$work/stdout")"
echo "ok: one: $(cat "$work/stdout")"

scenario limits '' "$flat" 140000
refused limits "platforms[0].nodes[0]: 140000 nodes x 1 GPU = 140000 GPUs would need"

scenario sweep ', "sweep": {"parameter": "nvlink_bandwidth", "values": ["100GBps"]}'
refused sweep "sweep.json: sweep.parameter: platforms[0] (flat-100gbe-64) cannot be swept: "

scenario duplicate_nodes '' "$flat" "2, 2"
refused duplicate_nodes "platforms[0].nodes[1]: 2 nodes is listed twice"

scenario straggler ', "stragglers": [{"rank": 100, "slowdown": 2}]' "$flat" "2, 4"
refused straggler "stragglers: rank 100 does not exist: the largest configuration has 4 GPUs (ranks 0..3)"

# A torus whose explicit shape does not hold a configuration's node count.
cat >"$work/torus.json" <<JSON
{"nodes": 64, "node": {"gpus": 1, "gpu": {"model": "V100", "speed": "14Tf", "calibration": "$SRC/platforms/calibration/v100-datasheet.json"},
 "nics": [{"name": "nic", "gpus": [0], "link": {"bandwidth": "12.5GBps", "latency": "1us"}}]},
 "fabric": {"topology": "torus", "link": {"bandwidth": "12.5GBps", "latency": "1us"}, "dimensions": [8, 8]}}
JSON
scenario torus_shape '' "$work/torus.json" 32
refused torus_shape "torus_shape.json: platforms[0].nodes[0]: 32 nodes do not fit the platform: $work/torus.json: fabric.dimensions: torus 8x8 holds 64 nodes, not 32"

# A platform naming a calibration file that does not exist: the platform file is to blame.
sed "s|$SRC/platforms/calibration/v100-datasheet.json|$work/missing-calibration.json|" "$work/torus.json" \
  >"$work/no_calibration.json"
refused no_calibration "no_calibration.json: node.gpu.calibration: file \"$work/missing-calibration.json\" does not exist"

# Several files: every one is checked, each bad one gets its line, exit 2.
scenario good ''
"$BIN/dasim" validate "$work/good.json" "$work/missing.json" "$work/sweep.json" "$flat" \
  >"$work/stdout" 2>"$work/stderr"
status=$?
[ "$status" = 2 ] || fail "several files: exit $status"
[ "$(grep -c ': ok (' "$work/stdout")" = 2 ] || fail "several files: $(cat "$work/stdout")"
[ "$(wc -l <"$work/stderr")" = 2 ] || fail "several files: expected two error lines: $(cat "$work/stderr")"
grep -qF "missing.json: cannot open file" "$work/stderr" && grep -qF "cannot sweep nvlink_bandwidth" "$work/stderr" ||
  fail "several files: $(cat "$work/stderr")"
echo "ok: several files: every one checked"
echo "PASS"
