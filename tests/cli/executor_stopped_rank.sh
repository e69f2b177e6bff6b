#!/usr/bin/env bash
# A rank that was itself stopped (SIGSTOP, then SIGCONT: a suspended VM, a starved CPU) must not
# blame its peers for its own stop. Rank 1 (--comm-timeout 3) is stopped for 6 s while it waits
# for rank 0 (--comm-timeout 30): rank 0 is stopped first, so rank 1 is blocked in a guarded wait,
# then rank 1 is stopped, rank 0 resumed, and after 6 s rank 1 resumed. Its wait's deadline had
# passed by the clock, but the stop was its own: the job must go on training, with no watchdog
# line. (Before executor/watchdog_clock.hpp the resumed rank exited at once: "did not complete
# within 3 s (a peer rank died or hangs)".)
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

args=(--schedule sgd --steps 100000000 -o "$WORK/never.json" "${TASK[@]}")
mpirun --allow-run-as-root --oversubscribe -np 1 "$TRAIN" "${args[@]}" --comm-timeout 30 : \
  -np 1 "$TRAIN" "${args[@]}" --comm-timeout 3 >"$WORK/out" 2>&1 &
launcher=$!
ranks=""
for _ in $(seq 1 100); do
  ranks=$(ps -o pid=,comm= --ppid "$launcher" | awk '$2 == "dasim-train" {print $1}' | sort -n || true)
  [ "$(echo "$ranks" | grep -c .)" -ge 2 ] && break
  sleep 0.1
done
rank0=$(echo "$ranks" | head -1)
rank1=$(echo "$ranks" | tail -1)
[ -n "$rank0" ] && [ "$rank0" != "$rank1" ] || { kill -9 "$launcher"; fail "ranks did not start"; }
cleanup() { kill -CONT "$rank0" "$rank1" 2>/dev/null || true; kill -9 "$rank0" "$rank1" "$launcher" 2>/dev/null || true; }
sleep 2  # both ranks train
kill -STOP "$rank0"
sleep 0.5  # rank 1 now waits for rank 0 inside a guarded collective wait
kill -STOP "$rank1"
kill -CONT "$rank0"  # rank 0 waits for the stopped rank 1, well within its 30 s
sleep 6
kill -CONT "$rank1"
sleep 3  # time for a wrongly fired watchdog of rank 1 to end the job
alive=true
kill -0 "$launcher" 2>/dev/null || alive=false
cleanup
wait "$launcher" 2>/dev/null || true
if grep -q "did not complete within" "$WORK/out"; then
  fail "a rank blamed its peers for its own stop: $(grep "did not complete" "$WORK/out")"
fi
[ "$alive" = true ] || fail "the job ended after rank 1's own stop: $(cat "$WORK/out")"
echo "executor_stopped_rank: ok"
