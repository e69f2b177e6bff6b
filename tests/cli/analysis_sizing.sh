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
echo "PASS analysis_sizing"
