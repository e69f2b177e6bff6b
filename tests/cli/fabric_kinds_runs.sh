#!/usr/bin/env bash
# The dragonfly and rail-optimised / single-plane fat-tree presets run through `dasim validate`
# and `dasim run` at 1 and 2 nodes (a dragonfly of 2048 positions with the rest empty ports).
source "$2/tests/lib/cli_strict.sh"

for preset in dgx-h100-ndr-dragonfly h100-ndr-rail-optimised h100-ndr-single-plane; do
  cat >"$work/scenario.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/$preset.json", "nodes": [1, 2]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "schedules": [{"type": "sgd"}], "iterations": 2, "warmup": 1}
JSON
  "$BIN/dasim" validate "$work/scenario.json" >"$work/stdout" 2>"$work/stderr" ||
    fail "validate $preset: $(cat "$work/stderr")"
  rm -rf "$work/out"
  "$BIN/dasim" run "$work/scenario.json" --out "$work/out" --quiet >"$work/stdout" 2>"$work/stderr" ||
    fail "run $preset: $(cat "$work/stderr")"
  rows=$(($(wc -l <"$work/out/results.csv") - 1))
  [ "$rows" = 2 ] || fail "$preset: $rows result rows, expected 2"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "efficiency") col = i; next }
           { if (!($col > 0 && $col <= 1.000001)) { print "efficiency " $col; exit 1 } }' "$work/out/results.csv" ||
    fail "$preset: bad efficiency"
  echo "ok: $preset at 1 and 2 nodes"
done
echo "PASS"
