#!/usr/bin/env bash
# Runs every libFuzzer target (docs/hardening.md): seeds each corpus from the shipped files
# (platforms, calibrations, scenarios) and fuzz/seeds/, then runs RUNS executions per target or
# SECONDS seconds, whichever comes first. Crashes land in WORK/<target>/crash-*.
#   fuzz/run_fuzzers.sh BUILD_DIR [RUNS=1000000] [SECONDS=300] [WORK=BUILD_DIR/fuzz-work] [TARGETS...]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)  # absolute: each target runs from its own work folder
RUNS=${2:-1000000}
SECONDS_PER_TARGET=${3:-300}
WORK=${4:-$BUILD/fuzz-work}
shift $(($# < 4 ? $# : 4))
TARGETS=${*:-platform scenario workload calibration linklog profiler_trace shard idx}

for t in $TARGETS; do
  if [ ! -x "$BUILD/bin/fuzz_$t" ]; then
    echo "run_fuzzers.sh: $BUILD/bin/fuzz_$t not found (configure with -DDASIM_FUZZ=ON, build fuzz_$t)" >&2
    exit 2
  fi
  corpus="$WORK/$t/corpus"
  mkdir -p "$corpus"
  case $t in
    platform) cp "$SRC"/platforms/*.json "$corpus/" ;;
    scenario) cp "$SRC"/scenarios/*.json "$corpus/" ;;
    calibration) cp "$SRC"/platforms/calibration/*.json "$corpus/" ;;
    profiler_trace) cp "$SRC"/tests/data/kineto/*.json "$corpus/" ;;
    workload | linklog | idx | shard) cp "$SRC"/fuzz/seeds/$t/* "$corpus/" ;;
  esac
  echo "== fuzz_$t: $RUNS runs or ${SECONDS_PER_TARGET} s" >&2
  (cd "$WORK/$t" && "$BUILD/bin/fuzz_$t" corpus -runs="$RUNS" \
    -max_total_time="$SECONDS_PER_TARGET" -max_len=16384 -timeout=10 -print_final_stats=1 \
    >"$WORK/$t/log.txt" 2>&1) || echo "fuzz_$t: FINDING, see $WORK/$t/log.txt" >&2
  grep -E "stat::number_of_executed_units|Done|crash-|ERROR" "$WORK/$t/log.txt" | head -5 >&2 || true
done
