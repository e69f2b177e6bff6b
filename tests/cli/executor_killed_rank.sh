#!/usr/bin/env bash
# A rank that dies (kill -9) or hangs (SIGSTOP) must not hang the job: the job exits non-zero within
# 30 s. The SIGSTOP case exercises dasim-train's own watchdog: mpirun sees nothing wrong, so the
# surviving rank must notice that its wait outlives --comm-timeout and exit.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

# Starts a long run in the background, waits until both ranks train, then sends SIGNAL to rank 1's
# process (a child of the mpirun this test started) and measures how long the job takes to end.
run_and_signal() {
  local signal="$1"
  mpirun --allow-run-as-root --oversubscribe -np 2 "$TRAIN" --schedule sgd --steps 1000000 --comm-timeout 5 \
    -o "$WORK/never.json" "${TASK[@]}" >"$WORK/out_$signal" 2>&1 &
  local launcher=$!
  local victim=""
  for _ in $(seq 1 100); do
    victim=$(ps -o pid=,comm= --ppid "$launcher" | awk '$2 == "dasim-train" {print $1}' | sort -n | tail -1 || true)
    [ -n "$victim" ] && [ "$( (ps -o pid= --ppid "$launcher" || true) | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  [ -n "$victim" ] || { kill -9 "$launcher"; fail "ranks did not start"; }
  sleep 2  # both ranks are now inside the training loop
  local start=$SECONDS status=0
  kill "-$signal" "$victim"
  local waited=0
  while kill -0 "$launcher" 2>/dev/null && [ $waited -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$launcher" 2>/dev/null; then
    kill -CONT "$victim" 2>/dev/null || true
    kill -9 "$victim" "$launcher" 2>/dev/null || true
    fail "job still running 30 s after SIG$signal of one rank: $(cat "$WORK/out_$signal")"
  fi
  wait "$launcher" || status=$?
  [ "$status" != 0 ] || fail "job exited 0 after SIG$signal of one rank"
  [ ! -e "$WORK/never.json" ] || fail "output written by a failed job"
  echo "SIG$signal: job ended with status $status after $((SECONDS - start)) s"
}

run_and_signal KILL
run_and_signal STOP
grep -q "did not complete within 5 s" "$WORK/out_STOP" || fail "watchdog message missing: $(cat "$WORK/out_STOP")"
echo "executor_killed_rank: ok"
