#!/usr/bin/env bash
# `dasim workload show` on the hand-written Inception-style block tests/data/workload/inception_block.json
# (figures derived in tests/workload/inception_block_test.cpp): a 1x1 branch, a 1x7 -> 7x1 branch with
# pads (0,3) / (3,0), an average pool -> 1x1 branch and their concat, on a 17x17x768 input, fp32.
#   parameters  768*192 + 768*192*7 + 192*192*7 + 768*192 = 147456 + 1032192 + 258048 + 147456 = 1585152
#   MACs        17*17 * 1585152 = 458108928 per image -> 0.4581 GMACs
#   forward     2 x MACs + pool 17*17*768*9 = 916217856 + 1997568 = 918215424 FLOPs -> 0.9182 GFLOP
source "$2/tests/lib/cli_assert.sh"
BLOCK=$SRC/tests/data/workload/inception_block.json

expect_ok "workload show of the Inception block" "$BIN/dasim" workload show "$BLOCK"
for pattern in "^layers  *6$" "^parameters  *1585152$" "^conv+linear GMACs/image  *0\.4581$" \
  "^forward GFLOP/image  *0\.9182$" " concat  *0 .* 0\.0000 .* 0\.0000 " \
  "branch7x7\.1x7 .* c768_k192_h17_w17_r1_s7_u1_v1_p0_q3_g1$" \
  "branch7x7\.7x1 .* c192_k192_h17_w17_r7_s1_u1_v1_p3_q0_g1$" \
  "branch1x1 .* c768_k192_h17_w17_r1_s1_u1_p0_g1$"; do
  grep -q -- "$pattern" "$WORK/stdout" || fail "workload show lacks /$pattern/: $(cat "$WORK/stdout")"
done

# The JSON form loads back as the same workload: the asymmetric pads stay pad_h / pad_w.
expect_ok "workload show --format json" "$BIN/dasim" workload show "$BLOCK" --format json
cp "$WORK/stdout" "$WORK/block.json"
grep -q '"pad_w":3' "$WORK/block.json" || grep -q '"pad_w": 3' "$WORK/block.json" || fail "no pad_w in the JSON"
expect_ok "reload of the shown JSON" "$BIN/dasim" workload show "$WORK/block.json"
grep -q "^parameters  *1585152$" "$WORK/stdout" || fail "reloaded parameters: $(cat "$WORK/stdout")"

# `stride` and `stride_h` together: one line naming the file and the key, exit 2.
sed 's/"stride": 1, "pad_h": 0, "pad_w": 3/"stride": 1, "stride_h": 1, "pad_h": 0, "pad_w": 3/' "$BLOCK" >"$WORK/both.json"
expect_bad_input "stride and stride_h" \
  "both.json: layers[1].conv.stride_h: expected either stride (both directions) or stride_h / stride_w, not both" \
  "$BIN/dasim" workload show "$WORK/both.json"
finish
