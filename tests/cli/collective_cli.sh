# End-to-end `dasim collective`: the nccl-tests columns on flat-100gbe-64 against numbers derived by
# hand (closed form), and every class of bad input: exit 2, one line on stderr, nothing on stdout.
source "$2/tests/lib/cli_assert.sh"

flat="$SRC/platforms/flat-100gbe-64.json"

# 8 single-GPU nodes on one non-blocking 100 Gb/s switch: P = 8 ranks, B = 100e9 / 8 = 12.5e9 B/s per
# direction, alpha = 1 us (sending NIC) + 0 + 0 + 1 us (receiving NIC) = 2 us per ring step (the
# preset's description spells out the route). Rows: 1 MiB, 32 MiB, 1 GiB. --protocol links: the links'
# own figures, no NCCL protocol model (checked below).
expect_ok "ring sweep on 8 nodes" "$BIN/dasim" collective --platform "$flat" --nodes 8 --op allreduce --algo ring \
  --protocol links --min-bytes 1048576 --max-bytes 1073741824 --factor 32 --format csv --quiet
cp "$WORK/stdout" "$WORK/sweep.csv"

header=$(head -n 1 "$WORK/sweep.csv")
[ "$header" = "size_bytes,time_us,algbw_GBps,busbw_GBps,algorithm" ] || fail "csv header is \"$header\""
grep -q ",ring/links$" "$WORK/sweep.csv" || fail "rows do not say ring/links ran: $(cat "$WORK/sweep.csv")"

# NCCL's LL protocol on the same ring: half the bandwidth (8 data bytes per 16-byte line) and every
# step at least NCCL's 2.7 us network hop latency for ring/LL (above the route's 2 us), plus the
# 6.6 us base latency once: 1 MiB takes 2(P-1)/P x S/(0.5 B) + 2(P-1) x 2.7 us + 6.6 us.
expect_ok "ring LL on 8 nodes" "$BIN/dasim" collective --platform "$flat" --nodes 8 --algo ring --protocol ll \
  --min-bytes 1048576 --max-bytes 1048576 --format csv --quiet
awk -F, '$1 == 1048576 { P = 8; S = 1048576; B = 12.5e9
  expected_us = (2 * (P - 1) / P * S / (0.5 * B) + 2 * (P - 1) * 2.7e-6 + 6.6e-6) * 1e6
  err = ($2 - expected_us) / expected_us; if (err < 0) err = -err
  if (err > 0.01) { printf "FAIL: ring/ll 1 MiB %s us, closed form %.3f us\n", $2, expected_us; exit 1 }
  printf "ok: ring/ll 1 MiB %s us (closed form %.3f us)\n", $2, expected_us }' "$WORK/stdout" >&2 || fail "ring/ll closed form"

# auto on 8 nodes, crossovers derived in tests/collectives/nccl_model_test.cpp: tree/LL below
# 59.3 KB, tree/LL128 to 2.04 MB, ring/LL128 to 5.87 MB, ring/Simple above.
expect_ok "auto sweep" "$BIN/dasim" collective --platform "$flat" --nodes 8 --min-bytes 16384 --max-bytes 1073741824 \
  --factor 2 --format csv --quiet
grep -q "^32768,.*,tree/ll$" "$WORK/stdout" || fail "auto at 32 KiB is not tree/ll: $(grep '^32768,' "$WORK/stdout")"
grep -q "^65536,.*,tree/ll128$" "$WORK/stdout" || fail "auto at 64 KiB is not tree/ll128: $(grep '^65536,' "$WORK/stdout")"
grep -q "^1048576,.*,tree/ll128$" "$WORK/stdout" || fail "auto at 1 MiB is not tree/ll128"
grep -q "^4194304,.*,ring/ll128$" "$WORK/stdout" || fail "auto at 4 MiB is not ring/ll128"
grep -q "^8388608,.*,ring/simple$" "$WORK/stdout" || fail "auto at 8 MiB is not ring/simple"
grep -q "^1073741824,.*,ring/simple$" "$WORK/stdout" || fail "auto at 1 GiB is not ring/simple"

# Large messages: the ring is bandwidth bound, so busbw (nccl-tests: algbw x 2(P-1)/P) is the link
# bandwidth, 12.5 GB/s, to within 2%.
awk -F, -v name="1 GiB busbw" '
  $1 == 1073741824 { found = 1; err = ($4 - 12.5) / 12.5; if (err < 0) err = -err
                     if (err > 0.02) { printf "FAIL: %s %s GB/s is not within 2%% of 12.5 GB/s\n", name, $4; bad = 1 }
                     else printf "ok: %s %s GB/s (12.5 GB/s expected, %.2f%% off)\n", name, $4, 100 * err }
  END { if (!found) { print "FAIL: no 1073741824-byte row"; bad = 1 } exit bad }' "$WORK/sweep.csv" >&2 ||
  fail "1 GiB busbw check"

# 1 MiB: alpha-beta closed form of the ring allreduce, 2(P-1)/P * S/B + 2(P-1) * alpha.
awk -F, -v name="1 MiB time" '
  $1 == 1048576 { found = 1; P = 8; S = 1048576; B = 12.5e9; alpha = 2e-6
                  expected_us = (2 * (P - 1) / P * S / B + 2 * (P - 1) * alpha) * 1e6
                  err = ($2 - expected_us) / expected_us; if (err < 0) err = -err
                  if (err > 0.01) { printf "FAIL: %s %s us is not within 1%% of the closed form %.3f us\n", name, $2, expected_us; bad = 1 }
                  else printf "ok: %s %s us (closed form %.3f us, %.3f%% off)\n", name, $2, expected_us, 100 * err }
  END { if (!found) { print "FAIL: no 1048576-byte row"; bad = 1 } exit bad }' "$WORK/sweep.csv" >&2 ||
  fail "1 MiB closed-form check"

run8() { "$BIN/dasim" collective --platform "$flat" --nodes 8 --quiet "$@"; }
expect_bad_input "unknown --algo" "--algo: ring2 not in {ring,tree,hierarchical,nvls,auto}" run8 --algo ring2
expect_bad_input "unknown --protocol" "--protocol: ll64 not in {simple,ll128,ll,auto,links}" run8 --protocol ll64
expect_bad_input "nvls on a switch without it" "--algo nvls: flat-100gbe-64 (8 nodes) has no NVSwitch with NVLink SHARP" run8 --algo nvls
expect_bad_input "--ring-channels 65" "--ring-channels" run8 --ring-channels 65
expect_bad_input "unknown --op" "unknown collective operation \"allgather\"" run8 --op allgather
expect_bad_input "--min-bytes 0" "--min-bytes" run8 --min-bytes 0
expect_bad_input "--min-bytes -5" "--min-bytes" run8 --min-bytes -5
expect_bad_input "--max-bytes below --min-bytes" "--max-bytes" run8 --min-bytes 1M --max-bytes 1K
expect_bad_input "--factor 1" "--factor" run8 --factor 1
# Beyond what flows represent exactly: 1e30 bytes ran and printed 1.07e12 GB/s on a 12.5 GB/s link.
expect_bad_input "--max-bytes 1e30" "--max-bytes: expected a size <= 2^50 bytes (1 PiB), got 1e+30 bytes" \
  run8 --min-bytes 1e6 --max-bytes 1e30
expect_bad_input "--min-bytes 2P" "--min-bytes: expected a size <= 2^50 bytes" run8 --min-bytes 2251799813685248 \
  --max-bytes 4503599627370496
# A factor barely above 1 would simulate millions of sizes without a word.
expect_bad_input "--factor 1.0000001" "sizes from --min-bytes to --max-bytes; expected at most 1000" \
  run8 --factor 1.0000001
# Beyond the GPU limit: refused with the estimate (ran > 10 min with no output before).
expect_bad_input "--nodes 140000" "--nodes 140000: 140000 nodes x 1 GPU = 140000 GPUs would need ~18 GiB" \
  "$BIN/dasim" collective --platform "$flat" --nodes 140000 --max-bytes 8 --quiet
expect_bad_input "group of 0 ranks (--nodes 0)" "--nodes" \
  "$BIN/dasim" collective --platform "$flat" --nodes 0 --quiet
expect_bad_input "unknown platform file" "nope.json: cannot open file" \
  "$BIN/dasim" collective --platform "$WORK/nope.json" --nodes 8 --quiet
# The table's header says how the sweep was simulated: 16 nodes of the flat star fold onto 2 (its
# trees too); --no-fold simulates them all; 32 nodes of 24 per leaf on trees do not fold, and say
# why (tests/collectives/nccl_tree_test.cpp, TreesAcrossFatTreeLeavesAreNotFolded).
expect_ok "folded tree sweep" "$BIN/dasim" collective --platform "$flat" --nodes 16 --algo tree --min-bytes 1M --max-bytes 1M --quiet
grep -q "^# dasim collective: .*, coarse flows, simulated on 2 of the nodes (symmetric: --no-fold simulates all)$" "$WORK/stdout" ||
  fail "folded sweep: header $(head -1 "$WORK/stdout")"
expect_ok "whole tree sweep" "$BIN/dasim" collective --platform "$flat" --nodes 16 --algo tree --min-bytes 1M --max-bytes 1M --quiet --no-fold
grep -q "^# dasim collective: .*, coarse flows$" "$WORK/stdout" || fail "--no-fold: header $(head -1 "$WORK/stdout")"
expect_ok "tree across leaves" "$BIN/dasim" collective --platform "$SRC/platforms/v100-pcie-25gbe.json" --nodes 32 --algo tree \
  --min-bytes 1M --max-bytes 1M --quiet
grep -q "^# dasim collective: .*, every node simulated (not folded: the allreduce of 1048576 bytes runs tree/[a-z0-9]* across fat-tree leaves)$" "$WORK/stdout" ||
  fail "tree across leaves: header $(head -1 "$WORK/stdout")"
expect_ok "tree across leaves, folded on request" "$BIN/dasim" collective --platform "$SRC/platforms/v100-pcie-25gbe.json" \
  --nodes 32 --algo tree --min-bytes 1M --max-bytes 1M --quiet --fold-trees-across-leaves
grep -q "^# dasim collective: .*, coarse flows, simulated on 2 of the nodes (symmetric: --no-fold simulates all)$" "$WORK/stdout" ||
  fail "--fold-trees-across-leaves: header $(head -1 "$WORK/stdout")"
expect_bad_input "--fold-trees-across-leaves with --no-fold" "excludes" "$BIN/dasim" collective \
  --platform "$flat" --nodes 16 --algo tree --quiet --no-fold --fold-trees-across-leaves

finish
