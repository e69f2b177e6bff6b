#!/usr/bin/env bash
# `dasim fit-links` on small hand-written logs of each format recovers the alpha (10 us) and beta
# (10 GB/s) the rows were computed from (time_us = 10 + bytes / 1e4): an nccl-tests table (whose
# busbw/algbw = 1.5 makes the link bandwidth 15 GB/s), an nccl-tests-style CSV, an OSU latency
# table and an OSU bandwidth table.
set -euo pipefail
BIN_DIR=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$WORK/nccl.log" <<'LOG'
# nThread 1 nGpus 4 minBytes 1024 maxBytes 16777216 step: 1024(factor) warmup iters: 5 iters: 20
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
        1024           256     float     sum      -1  10.1024    0.10    0.15      0  10.1024    0.10    0.15      0
     1048576        262144     float     sum      -1 114.8576    9.13   13.69      0 114.8576    9.13   13.69      0
    16777216       4194304     float     sum      -1 1687.7216   9.94   14.91      0 1687.7216   9.94   14.91      0
# Avg bus bandwidth    : 9.58
LOG
cat >"$WORK/nccl.csv" <<'LOG'
size,count,type,redop,root,time,algbw,busbw
1024,256,float,sum,-1,10.1024,0.10,0.15
1048576,262144,float,sum,-1,114.8576,9.13,13.69
16777216,4194304,float,sum,-1,1687.7216,9.94,14.91
LOG
cat >"$WORK/osu_latency.txt" <<'LOG'
# OSU MPI Allreduce Latency Test v7.1
# Size       Avg Latency(us)
1024                 10.1024
1048576             114.8576
16777216           1687.7216
LOG
# bandwidth = bytes / time: 1048576 B in 114.8576 us = 9129.34 MB/s, 16 MiB in 1687.7216 us = 9940.71 MB/s
cat >"$WORK/osu_bw.txt" <<'LOG'
# OSU MPI Bandwidth Test v7.1
# Size      Bandwidth (MB/s)
1024                  101.36342
1048576              9129.3394
16777216             9940.7108
LOG

check() {  # check LOG EXPECTED_FORMAT EXPECTED_LINK_BANDWIDTH
  "$BIN_DIR/dasim" fit-links "$WORK/$1" --out "$WORK/$1.json" >/dev/null || fail "$1: exit status $?"
  /usr/bin/python3 - "$WORK/$1.json" "$2" "$3" <<'PY' || fail "$1: fit"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["log_format"] == sys.argv[2], d["log_format"]
link = d["link"]
assert abs(link["latency"] - 10e-6) < 0.01 * 10e-6, link
assert abs(link["bandwidth"] - float(sys.argv[3])) < 0.01 * float(sys.argv[3]), link
assert len(d["fits"]["all"]["residuals"]) == 3
PY
}
check nccl.log nccl-tests 15e9
check nccl.csv csv 15e9
check osu_latency.txt osu-latency 10e9
check osu_bw.txt osu-bandwidth 10e9

# --min-bytes keeps the two large rows: the bandwidth-range fit alone.
"$BIN_DIR/dasim" fit-links "$WORK/osu_latency.txt" --min-bytes 1000000 --out "$WORK/range.json" >/dev/null
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["fits"]["all"]["points"]==2; assert abs(d["fits"]["all"]["beta_Bps"]-1e10)<1e8' "$WORK/range.json" ||
  fail "--min-bytes"
