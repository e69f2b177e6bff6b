# End-to-end `dasim collective`: the nccl-tests columns on flat-100gbe-64 against numbers derived by
# hand (closed form), and every class of bad input: exit 2, one line on stderr, nothing on stdout.
source "$2/tests/lib/cli_assert.sh"

flat="$SRC/platforms/flat-100gbe-64.json"

# 8 single-GPU nodes on one non-blocking 100 Gb/s switch: P = 8 ranks, B = 100e9 / 8 = 12.5e9 B/s per
# direction, alpha = 1 us (sending NIC) + 0 + 0 + 1 us (receiving NIC) = 2 us per ring step (the
# preset's description spells out the route). Rows: 1 MiB, 32 MiB, 1 GiB.
expect_ok "ring sweep on 8 nodes" "$BIN/dasim" collective --platform "$flat" --nodes 8 --op allreduce --algo ring \
  --min-bytes 1048576 --max-bytes 1073741824 --factor 32 --format csv --quiet
cp "$WORK/stdout" "$WORK/sweep.csv"

header=$(head -n 1 "$WORK/sweep.csv")
[ "$header" = "size_bytes,time_us,algbw_GBps,busbw_GBps" ] || fail "csv header is \"$header\""

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
expect_bad_input "unknown --algo" "unknown collective algorithm \"ring2\"" run8 --algo ring2
expect_bad_input "unknown --op" "unknown collective operation \"allgather\"" run8 --op allgather
expect_bad_input "--min-bytes 0" "--min-bytes" run8 --min-bytes 0
expect_bad_input "--min-bytes -5" "--min-bytes" run8 --min-bytes -5
expect_bad_input "--max-bytes below --min-bytes" "--max-bytes" run8 --min-bytes 1M --max-bytes 1K
expect_bad_input "--factor 1" "--factor" run8 --factor 1
expect_bad_input "group of 0 ranks (--nodes 0)" "--nodes" \
  "$BIN/dasim" collective --platform "$flat" --nodes 0 --quiet
expect_bad_input "unknown platform file" "nope.json: cannot open file" \
  "$BIN/dasim" collective --platform "$WORK/nope.json" --nodes 8 --quiet
finish
