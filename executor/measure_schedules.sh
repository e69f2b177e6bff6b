#!/usr/bin/env bash
# Measures the three schedules at 1 and 2 ranks on this machine and prints the Markdown table of
# docs/executor.md: median over REPEATS runs of step time, compute, communication in flight, exposed
# time (inside MPI calls), throughput and speedup over the 1-rank run of the same schedule, plus
# steps and seconds to the target loss.
# Usage: executor/measure_schedules.sh BIN_DIR [REPEATS] [extra dasim-train args]
set -euo pipefail
bin="$1"
repeats="${2:-3}"
shift $(( $# >= 2 ? 2 : 1 ))
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
schedules=("sgd" "local_sgd --tau 4" "dasgd --tau 4 --delay 1" "dasgd --tau 4 --delay 2")
for np in 1 2; do
  for i in "${!schedules[@]}"; do
    for r in $(seq 1 "$repeats"); do
      # shellcheck disable=SC2086
      mpirun --allow-run-as-root --oversubscribe -np "$np" "$bin/dasim-train" --schedule ${schedules[$i]} \
        --steps 400 --target-loss 0.3 --quiet "$@" -o "$work/np${np}_s${i}_r${r}.json"
    done
  done
done
/usr/bin/python3 - "$work" "$repeats" "${schedules[@]}" <<'PY'
import json, statistics, sys
work, repeats, schedules = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def runs(np, i):
    return [json.load(open(f"{work}/np{np}_s{i}_r{r}.json")) for r in range(1, repeats + 1)]
def med(rs, key):
    return statistics.median(r["results"][0][key] for r in rs)
print("| ranks | schedule | step ms | compute ms | comm in flight ms | exposed ms | exposed share "
      "| samples/s | speedup | steps to target | s to target |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for np in (1, 2):
    for i, s in enumerate(schedules):
        rs = runs(np, i)
        step = med(rs, "iter_time_s")
        exposed = med(rs, "exposed_comm_s")
        tput = med(rs, "samples_per_s")
        base = med(runs(1, i), "samples_per_s")
        steps = sorted({r["target"].get("steps") for r in rs}, key=lambda x: (x is None, x))
        secs = statistics.median(r["target"].get("wall_time_s", float("nan")) for r in rs)
        print(f"| {np} | {s} | {step*1e3:.2f} | {med(rs, 'compute_s')*1e3:.2f} | {med(rs, 'comm_s')*1e3:.2f} "
              f"| {exposed*1e3:.2f} | {100*exposed/step:.0f}% | {tput:.0f} | {tput/base:.2f} "
              f"| {'/'.join(str(x) for x in steps)} | {secs:.2f} |")
PY
