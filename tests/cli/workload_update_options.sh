#!/usr/bin/env bash
# `dasim workload show`'s update options on the command line: a value it does not know is one line
# naming the flag, exit 2, nothing on stdout; the values it knows change the printed update.
source "$2/tests/lib/cli_assert.sh"

expect_bad_input "unknown optimizer" '--optimizer: expected one of sgd_momentum, adam, lamb, bert_adam, got "sgd"' \
  "$BIN/dasim" workload show bert-large --optimizer sgd
expect_bad_input "unknown clipping" '--grad-clip: expected one of none, norm, norm_and_scale, got "always"' \
  "$BIN/dasim" workload show bert-large --grad-clip always
expect_bad_input "unknown zero_grad" '--zero-grad: expected one of set_to_none, zero, fill_only, got "none"' \
  "$BIN/dasim" workload show bert-large --zero-grad none
expect_bad_input "unknown checkpointing" '--activation-checkpointing: expected one of none, blocks, got "all"' \
  "$BIN/dasim" workload show bert-large --activation-checkpointing all
expect_bad_input "checkpointing without blocks" \
  '--activation-checkpointing: activation_checkpointing "blocks" recomputes the layers'"'"' blocks, and no layer of vgg16 names one' \
  "$BIN/dasim" workload show vgg16 --activation-checkpointing blocks

# Known values: the table says what is charged, and the JSON carries it.
CAL=$SRC/platforms/calibration/v100-sxm2-deepbench.json
"$BIN/dasim" workload show bert-large --optimizer adam --grad-clip norm --zero-grad zero --calibration "$CAL" \
  >"$WORK/table.txt" || fail "workload show with the update options"
grep -q "^gradient clipping        global norm: norm only" "$WORK/table.txt" || fail "no clipping line"
grep -q "^zero_grad                zero: " "$WORK/table.txt" || fail "no zero_grad line"
grep -q "adding into zeroed gradients" "$WORK/table.txt" || fail "no accumulation inside backward"
grep -q "clipping .* ms, zero_grad fills .* ms)" "$WORK/table.txt" || fail "no update parts: $(grep update "$WORK/table.txt")"
"$BIN/dasim" workload show bert-large --zero-grad fill_only --calibration "$CAL" --format json >"$WORK/w.json" ||
  fail "workload show --format json"
/usr/bin/python3 - "$WORK/w.json" <<'PYEOF' || fail "json"
import json, sys
w = json.load(open(sys.argv[1]))
assert w["zero_grad"] == "fill_only", w.get("zero_grad")
step = w["step"]
assert step["gradient_accumulation_s"] == 0, step["gradient_accumulation_s"]  # fills only
assert step["update_parts"]["zero_fill_s"] > 0, step["update_parts"]
PYEOF

# Activation checkpointing: the recomputed forward is its own line, and it is the blocks' share
# of the forward: GPT-2 XL's forward minus what lies outside its 48 blocks (wte+wpe, drop, ln_f,
# lm_head, lm_loss), summed from the per-layer times of the same JSON.
"$BIN/dasim" workload show gpt2-xl --precision amp --batch 4 --activation-checkpointing blocks --calibration "$CAL" \
  >"$WORK/ckpt.txt" || fail "workload show --activation-checkpointing blocks"
grep -q "^activation checkpointing blocks: each of the 48 blocks runs its forward again" "$WORK/ckpt.txt" ||
  fail "no checkpointing line in the report"
grep -q "^  recompute .* ms (activation checkpointing: the blocks' forward again)" "$WORK/ckpt.txt" ||
  fail "no recompute line: $(grep -A6 'predicted step' "$WORK/ckpt.txt")"
"$BIN/dasim" workload show gpt2-xl --precision amp --batch 4 --activation-checkpointing blocks --calibration "$CAL" \
  --format json >"$WORK/ckpt.json" || fail "workload show --activation-checkpointing blocks --format json"
/usr/bin/python3 - "$WORK/ckpt.json" <<'PYEOF' || fail "recompute json"
import json, sys
w = json.load(open(sys.argv[1]))
assert w["activation_checkpointing"] == "blocks", w.get("activation_checkpointing")
block_of = {l["name"]: l.get("block") for l in w["layers"]}
assert len({b for b in block_of.values() if b}) == 48, "expected 48 blocks"
step = w["step"]
in_blocks = sum(l["forward_s"] for l in step["layers"] if block_of[l["name"]])
assert abs(step["recompute_s"] - in_blocks) <= 1e-9 * in_blocks, (step["recompute_s"], in_blocks)
assert in_blocks < step["forward_s"], "the head and embeddings run once"
total = step["forward_s"] + step["backward_s"] + step["recompute_s"] + step["update_s"] + step["input_wait_s"]
assert abs(step["step_s"] - total) <= 1e-9 * total, (step["step_s"], total)
PYEOF
finish
