#!/usr/bin/env bash
# A torus fabric runs through `dasim run` and `dasim validate` at every size: an explicit 8 x 8
# shape at 64 nodes (its 1-GPU baseline used to be refused as "torus 8x8 holds 64 nodes, not 1"),
# and `dimensions: 2` / `3` at 1, 2 and 8 nodes (SimGrid used to abort on a link declared twice).
source "$2/tests/lib/cli_strict.sh"

for dims in "[8, 8]" 2 3; do
  nodes="1, 2, 8"
  [ "$dims" = "[8, 8]" ] && nodes="64"
  cat >"$work/torus.json" <<JSON
{"name": "torus", "nodes": 64,
 "node": {"gpus": 1, "gpu": {"model": "V100", "speed": "14Tf", "calibration": "$SRC/platforms/calibration/v100-datasheet.json"},
          "nics": [{"name": "nic", "gpus": [0], "link": {"bandwidth": "12.5GBps", "latency": "1us"}}]},
 "fabric": {"topology": "torus", "link": {"bandwidth": "12.5GBps", "latency": "1us"}, "dimensions": $dims}}
JSON
  cat >"$work/scenario.json" <<JSON
{"platforms": [{"file": "$work/torus.json", "nodes": [$nodes]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "schedules": [{"type": "sgd"}], "iterations": 2, "warmup": 1}
JSON
  "$BIN/dasim" validate "$work/scenario.json" >"$work/stdout" 2>"$work/stderr" ||
    fail "validate, dimensions $dims: $(cat "$work/stderr")"
  rm -rf "$work/out"
  "$BIN/dasim" run "$work/scenario.json" --out "$work/out" --quiet >"$work/stdout" 2>"$work/stderr" ||
    fail "run, dimensions $dims, nodes $nodes: $(cat "$work/stderr")"
  rows=$(($(wc -l <"$work/out/results.csv") - 1))
  [ "$rows" = "$(echo "$nodes" | tr ',' '\n' | wc -l)" ] || fail "dimensions $dims: $rows result rows"
  # Efficiency must be a number in (0, 1]: no nonsense from the fabric.
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "efficiency") col = i; next }
           { if (!($col > 0 && $col <= 1.000001)) { print "efficiency " $col; exit 1 } }' "$work/out/results.csv" ||
    fail "dimensions $dims: bad efficiency"
  echo "ok: torus dimensions $dims at nodes $nodes"
done
echo "PASS"
