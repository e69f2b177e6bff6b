#!/usr/bin/env bash
# The built-ins resnet101, resnet152 and inception-v3 from the command line: `dasim workload show`
# prints torchvision's parameter counts (44,549,160; 60,192,808; 27,161,264 for Inception3 with its
# auxiliary head, less the head's 3,326,696 = 23,834,568) and its model cards' multiply-adds (7.80,
# 11.51 and 5.71 G, printed here to 4 decimals), its JSON loads back as the same workload, and a
# two-node sgd scenario of each runs and writes one row per configuration.
source "$2/tests/lib/cli_assert.sh"

check_model() {  # NAME PARAMS GMACS_PREFIX (the card's two decimals)
  expect_ok "workload show $1" "$BIN/dasim" workload show "$1"
  grep -q "^parameters  *$2$" "$WORK/stdout" || fail "$1 parameters: $(grep ^parameters "$WORK/stdout")"
  grep -q "^conv+linear GMACs/image  *$3[0-9][0-9]$" "$WORK/stdout" ||
    fail "$1 GMACs: $(grep GMACs "$WORK/stdout")"
  expect_ok "workload show $1 --format json" "$BIN/dasim" workload show "$1" --format json
  cp "$WORK/stdout" "$WORK/$1.json"
  expect_ok "reload of $1's JSON" "$BIN/dasim" workload show "$WORK/$1.json"
  grep -q "^parameters  *$2$" "$WORK/stdout" || fail "$1 reloaded parameters: $(grep ^parameters "$WORK/stdout")"
}
check_model resnet101 44549160 7.80
check_model resnet152 60192808 11.51
check_model inception-v3 23834568 5.71

cat >"$WORK/two-nodes.json" <<EOF
{"name": "deeper-cnns", "platforms": [{"file": "$SRC/platforms/dgx1-v100-edr.json", "nodes": [2]}],
 "workloads": ["resnet101", "resnet152", "inception-v3"], "batch_per_gpu": 32, "precision": "amp",
 "schedules": [{"type": "sgd"}], "iterations": 1, "warmup": 0}
EOF
expect_ok "a run of the three" "$BIN/dasim" run "$WORK/two-nodes.json" --out "$WORK/out" --quiet
rows=$(($(wc -l <"$WORK/out/results.csv") - 1))
[[ $rows == 3 ]] || fail "expected 3 result rows, got $rows"
for name in resnet101 resnet152 inception-v3; do
  grep -q ",$name," "$WORK/out/results.csv" || fail "no row for $name"
done
finish
