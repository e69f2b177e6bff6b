#!/usr/bin/env bash
# A sequence length a model cannot take is reported where the user wrote it: the scenario's file
# and JSON path (workloads[i].sequence_length), or the command line's --seq-len; never one for
# the other (a scenario's error used to say --seq-len).
source "$2/tests/lib/cli_assert.sh"

scenario() {  # scenario FILE WORKLOAD_JSON: a one-configuration scenario around that workload
  cat >"$1" <<JSON
{"platforms": [{"file": "$SRC/platforms/flat-100gbe-64.json", "nodes": [1]}], "workloads": [$2],
 "batch_per_gpu": 8, "schedules": [{"type": "sgd"}]}
JSON
}
scenario "$WORK/long.json" '{"name": "bert-large", "sequence_length": 100000}'
expect_bad_input "bert-large beyond its positions (scenario)" \
  "long.json: workloads[0].sequence_length: bert-large takes a sequence length in [1, 512], got 100000" \
  "$BIN/dasim" validate "$WORK/long.json"
expect_bad_input "bert-large beyond its positions (run)" "long.json: workloads[0].sequence_length: bert-large" \
  "$BIN/dasim" run "$WORK/long.json" --out "$WORK/out" --quiet
scenario "$WORK/image.json" '{"name": "resnet50", "sequence_length": 128}'
expect_bad_input "an image model (scenario)" \
  "image.json: workloads[0].sequence_length: resnet50 is an image model: it has no sequence length" \
  "$BIN/dasim" validate "$WORK/image.json"
expect_bad_input "bert-large beyond its positions (CLI)" "--seq-len: bert-large takes a sequence length in [1, 512]" \
  "$BIN/dasim" workload show bert-large --seq-len 100000
expect_bad_input "an image model (CLI)" "--seq-len: resnet50 is an image model" \
  "$BIN/dasim" workload show resnet50 --seq-len 128
expect_bad_input "zero (CLI)" "--seq-len" "$BIN/dasim" workload show bert-large --seq-len 0
grep -q "1797693" "$WORK/stderr" && fail "--seq-len 0 printed the largest double as its range: $(cat "$WORK/stderr")"
finish
