#!/usr/bin/env bash
# analysis/plot_sizing.py: the "slowest bandwidth with efficiency >= 0.9" table against values
# interpolated by hand (linear in log bandwidth), on the fixture tests/data/analysis/sizing.csv:
#   sgd 64 GPUs:       0.85 at 100, 0.95 at 200 Gb/s -> halfway in log: 100*sqrt(2) = 141.42
#   local_sgd 64 GPUs: 0.88 at 50,  0.93 at 100      -> 0.4 of the way:  50*2^0.4   =  65.98
#   dasgd 64 GPUs:     0.92 already at 10 Gb/s, the slowest swept point  ->             10.00
#   dasgd 256 GPUs:    0.88 at 25,  0.96 at 50       -> 0.25 of the way: 25*2^0.25  =  29.73
#   sgd 256 GPUs:      at most 0.80 (at 400 Gb/s)    -> none
# The same must come out when the bandwidth is a renamed column holding "Gbps" strings.
source "$2/tests/lib/analysis_common.sh"
SCRIPT=$SOURCE_DIR/analysis/plot_sizing.py
# Columns: workload platform schedule tau delay gpus bandwidth_Gbps note...
expect() {  # TABLE SCHEDULE GPUS EXPECTED
  local got
  got=$(awk -v s="$2" -v g="$3" '$3 == s && $6 == g { print $7 }' "$1")
  [[ $got == "$4" ]] || fail "$1: $2 on $3 GPUs: threshold bandwidth '$got', expected '$4'"
}
check_table() {
  expect "$1" sgd 64 141.42
  expect "$1" local_sgd 64 65.98
  expect "$1" dasgd 64 10.00
  expect "$1" dasgd 256 29.73
  expect "$1" sgd 256 none
  grep -q '^resnet50 .* dasgd .* 64 *10.00 *reached at the slowest swept bandwidth$' "$1" ||
    fail "$1: the dasgd 64-GPU row does not say the slowest swept point already reaches 0.9"
  grep -q 'never reached; best efficiency 0.800 at 400 Gb/s' "$1" ||
    fail "$1: the sgd 256-GPU row does not give its best efficiency"
  [[ $(grep -c '^resnet50 ' "$1") == 5 ]] || fail "$1: expected 5 curves in the table"
}

$PY "$SCRIPT" "$DATA/sizing.csv" -o "$WORK/sizing.png" >"$WORK/table.txt" ||
  fail "plot_sizing.py exited $?"
check_png "$WORK/sizing.png"
check_table "$WORK/table.txt"

# Bandwidth as a SimGrid-style string in a column with another name (Bps -> "<x>Gbps").
awk -F, -v OFS=, 'NR == 1 { $NF = "link_bandwidth" } NR > 1 { $NF = ($NF * 8 / 1e9) "Gbps" } 1' \
  "$DATA/sizing.csv" >"$WORK/strings.csv"
grep -q ',100Gbps$' "$WORK/strings.csv" || fail "fixture conversion did not produce Gbps strings"
$PY "$SCRIPT" "$WORK/strings.csv" -o "$WORK/strings.png" --bandwidth-column link_bandwidth \
  >"$WORK/strings.txt" || fail "plot_sizing.py --bandwidth-column exited $?"
check_table "$WORK/strings.txt"
# --thresholds 0.9,0.95: the same 0.9 table, then a 0.95 one, interpolated by hand:
#   sgd 64 GPUs:       0.95 exactly at 200 Gb/s                           -> 200.00
#   local_sgd 64 GPUs: 0.93 at 100, 0.97 at 200 -> halfway in log:  100*2^0.5  = 141.42
#   dasgd 64 GPUs:     0.92 at 10,  0.97 at 25  -> 0.6 of the way:  10*2.5^0.6 =  17.33
#   dasgd 256 GPUs:    0.88 at 25,  0.96 at 50  -> 0.875 of the way: 25*2^0.875 = 45.85
#   sgd 256 GPUs:      none
$PY "$SCRIPT" "$DATA/sizing.csv" -o "$WORK/two.png" --thresholds 0.9,0.95 >"$WORK/two.txt" ||
  fail "plot_sizing.py --thresholds exited $?"
awk 'NF == 0 { second = 1; next } !second' "$WORK/two.txt" >"$WORK/first.txt"
awk 'NF == 0 { second = 1; next } second' "$WORK/two.txt" >"$WORK/second.txt"
check_table "$WORK/first.txt"
head -1 "$WORK/second.txt" | grep -q '^slowest bandwidth with efficiency >= 0.95 ' ||
  fail "the second table is not the 0.95 one: $(head -1 "$WORK/second.txt")"
expect "$WORK/second.txt" sgd 64 200.00
expect "$WORK/second.txt" local_sgd 64 141.42
expect "$WORK/second.txt" dasgd 64 17.33
expect "$WORK/second.txt" dasgd 256 45.85
expect "$WORK/second.txt" sgd 256 none
for bad in 1.5 0 0.9,0.9 ninety; do
  rc=0
  $PY "$SCRIPT" "$DATA/sizing.csv" -o "$WORK/bad.png" --thresholds "$bad" >/dev/null 2>"$WORK/err" || rc=$?
  [[ $rc == 2 && $(wc -l <"$WORK/err") == 1 ]] && grep -q '^--thresholds: expected' "$WORK/err" ||
    fail "--thresholds $bad: exit $rc, $(cat "$WORK/err")"
  [[ ! -e $WORK/bad.png ]] || fail "--thresholds $bad: wrote a figure"
done

# A swept quantity whose efficiency falls as it grows, read from a dasim column's name: the fixture
# with latency L = 1 / bandwidth (1000 us at 1 Gb/s). log L is -log b + a constant, so the
# largest latency keeping 0.9 is 1000 / (the slowest bandwidth reaching it), interpolated alike:
#   sgd 64: 1000 / 141.42 = 7.07; local_sgd 64: 1000 / 65.98 = 15.16; dasgd 256: 1000 / 29.73 =
#   33.64; dasgd 64: 100.00, still at the largest swept latency; sgd 256: none.
to_column() {  # NAME AWK_EXPRESSION_OF_gbps: the fixture with its bandwidth column replaced
  awk -F, -v OFS=, -v name="$1" "NR == 1 { \$NF = name } NR > 1 { gbps = \$NF * 8 / 1e9; \$NF = $2 } 1" \
    "$DATA/sizing.csv"
}
size_column() {  # NAME COLUMN AWK_EXPRESSION HEADER_START: the fixture mapped, sized, its header checked
  to_column "$2" "$3" >"$WORK/$1.csv"
  $PY "$SCRIPT" "$WORK/$1.csv" -o "$WORK/$1.png" --column "$2" >"$WORK/$1.txt" ||
    fail "plot_sizing.py --column $2 ($1) exited $?"
  check_png "$WORK/$1.png"
  head -1 "$WORK/$1.txt" | grep -qF -- "$4" || fail "$1: table header: $(head -1 "$WORK/$1.txt")"
}
size_column latency fabric_latency_s '1e-3 / gbps' \
  'largest latency with efficiency >= 0.9 (column fabric_latency_s; linear interpolation in log latency '
grep -q ' latency_us  *note$' "$WORK/latency.txt" || fail "latency table: no latency_us column"
expect "$WORK/latency.txt" sgd 64 7.07
expect "$WORK/latency.txt" local_sgd 64 15.16
expect "$WORK/latency.txt" dasgd 256 33.64
expect "$WORK/latency.txt" dasgd 64 100.00
expect "$WORK/latency.txt" sgd 256 none
grep -q ' 64 *100.00 *reached at the largest swept latency$' "$WORK/latency.txt" ||
  fail "latency: the dasgd 64-GPU row does not say the largest swept latency still keeps 0.9"
grep -q 'never reached; best efficiency 0.800 at 2.5 us' "$WORK/latency.txt" ||
  fail "latency: the sgd 256-GPU row does not give its best efficiency in us"
# A swept 0 makes log impossible: linear in the latency, L = 400 - bandwidth in us (0 at 400 Gb/s):
#   sgd 64: 0.85 at 300 us, 0.95 at 200 -> 250.00; local_sgd 64: 0.88 at 350, 0.93 at 300 ->
#   330.00; dasgd 256: 0.88 at 375, 0.96 at 350 -> 368.75.
size_column zero fabric_latency_s '(400 - gbps) * 1e-6' 'linear interpolation in latency between'
expect "$WORK/zero.txt" sgd 64 250.00
expect "$WORK/zero.txt" local_sgd 64 330.00
expect "$WORK/zero.txt" dasgd 256 368.75
# A host's input rate rises like a bandwidth, interpolated linearly (efficiency is proportional to
# it): 100 samples/s per Gb/s; sgd 64: 0.85 at 10000, 0.95 at 20000 -> halfway: 15000.00; local_sgd
# 64: 0.88 at 5000, 0.93 at 10000 -> 0.4 of the way: 7000.00; dasgd 64: at the slowest, 1000.00.
size_column host host_input_samples_per_s 'gbps * 100' \
  'slowest host input rate with efficiency >= 0.9 (column host_input_samples_per_s; linear interpolation in host input rate '
grep -q ' host_samples_per_s  *note$' "$WORK/host.txt" || fail "host table: no host_samples_per_s column"
expect "$WORK/host.txt" sgd 64 15000.00
expect "$WORK/host.txt" local_sgd 64 7000.00
expect "$WORK/host.txt" dasgd 64 1000.00
# A WAN's latencies, 0.25 to 10 ms (100 ms at 1 Gb/s), in ms: sgd 64: 100 / 141.42 = 0.71 ms.
size_column wan wan_latency_s '0.1 / gbps' 'largest latency with efficiency >= 0.9 (column wan_latency_s; '
grep -q ' latency_ms  *note$' "$WORK/wan.txt" || fail "wan table: no latency_ms column"
expect "$WORK/wan.txt" sgd 64 0.71
grep -q 'never reached; best efficiency 0.800 at 0.25 ms' "$WORK/wan.txt" || fail "wan: best in ms"
size_column over oversubscription '1000 / gbps' 'highest oversubscription with efficiency >= 0.9 '
expect "$WORK/over.txt" sgd 64 7.07
grep -q 'never reached; best efficiency 0.800 at 2.5:1' "$WORK/over.txt" || fail "oversubscription: best as a ratio"
# A column whose quantity the name does not say, and a bandwidth of 0: one line, exit 2, no figure.
refuse() {  # EXPECTED_MESSAGE ARGS...
  local expected=$1 rc=0
  shift
  rm -f "$WORK/bad.png"
  $PY "$SCRIPT" "$@" -o "$WORK/bad.png" >/dev/null 2>"$WORK/err" || rc=$?
  [[ $rc == 2 && $(wc -l <"$WORK/err") == 1 ]] && grep -qF -- "$expected" "$WORK/err" ||
    fail "$*: exit $rc, $(cat "$WORK/err")"
  [[ ! -e $WORK/bad.png ]] || fail "$*: wrote a figure"
}
refuse "--column efficiency: expected a dasim sweep column" "$DATA/sizing.csv" --column efficiency
# A row without an efficiency (a measured row without a baseline) cannot be placed on a curve.
awk -F, -v OFS=, 'NR == 3 { $15 = "" } 1' "$DATA/sizing.csv" >"$WORK/no_efficiency.csv"
refuse "no_efficiency.csv: line 3: column efficiency: expected a number: plot-sizing needs every row's efficiency" \
  "$WORK/no_efficiency.csv"
to_column inter_node_bandwidth_Bps '(gbps == 400 ? 0 : gbps * 1e9 / 8)' >"$WORK/zero_bw.csv"
refuse "column inter_node_bandwidth_Bps: expected a positive bandwidth, got 0" "$WORK/zero_bw.csv"
echo "PASS analysis_sizing"
