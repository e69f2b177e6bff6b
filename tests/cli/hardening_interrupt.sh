#!/usr/bin/env bash
# SIGINT / SIGTERM during `dasim run --jobs 2`: the run must end with one line
# "dasim: interrupted (SIGxxx)", exit status 128 + signal (130 / 143), leave no results file and no
# temporary file in the output directory, and leave no simulation child running; a SIGKILL of
# dasim takes its children with it.
source "$2/tests/lib/cli_strict.sh"

# children_of PID: waits (up to 30 s: loading takes longer under sanitizers) until PID has
# simulation children, prints their pids (nothing if PID ended first).
children_of() {
  local children=""
  for _ in $(seq 1 300); do
    children=$(pgrep -P "$1" || true)
    [ -n "$children" ] && break
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  echo $children
}

for sig in INT TERM; do
  if [ "$sig" = INT ]; then want=130; else want=143; fi
  out="$work/out-$sig"
  "$BIN/dasim" run "$SRC/scenarios/paper-scaleup.json" --out "$out" --jobs 2 --quiet \
    >"$work/stdout-$sig" 2>"$work/stderr-$sig" &
  pid=$!
  # Wait until the simulation children run, then ~2 s more.
  children=$(children_of "$pid")
  [ -n "$children" ] || fail "SIG$sig: no simulation child started ($(cat "$work/stderr-$sig"))"
  sleep 2
  children=$(pgrep -P "$pid" || true)
  kill -0 "$pid" 2>/dev/null || fail "SIG$sig: dasim finished before the signal"
  kill -"$sig" "$pid"
  wait "$pid"
  status=$?
  [ "$status" = "$want" ] || fail "SIG$sig: exit status $status, expected $want; stderr: $(cat "$work/stderr-$sig")"
  # (Under ASan, SimGrid's stack switching in the children adds a known three-line warning.)
  message=$(grep -v -e '^==[0-9]*==WARNING: ASan is ignoring requested __asan_handle_no_return' \
    -e '^False positive error reports may follow' -e 'github.com/google/sanitizers/issues/189' "$work/stderr-$sig")
  [ "$message" = "dasim: interrupted (SIG$sig)" ] ||
    fail "SIG$sig: stderr is not the one-line message: $(cat "$work/stderr-$sig")"
  for f in results.csv results.json; do
    [ -e "$out/$f" ] && fail "SIG$sig: $out/$f was written"
  done
  if [ -d "$out" ]; then
    leftovers=$(find "$out" -name '*.tmp.*')
    [ -z "$leftovers" ] || fail "SIG$sig: temporary files left: $leftovers"
  fi
  for c in $children; do
    if kill -0 "$c" 2>/dev/null; then fail "SIG$sig: simulation child $c still running"; fi
  done
  echo "ok: SIG$sig -> exit $status, no results, children $(echo $children) gone"
done

# `dasim collective` and `dasim platform show` stop the same way (they ignored SIGINT in the
# background and left their child running after SIGTERM).
for command in collective show; do
  if [ "$command" = collective ]; then
    "$BIN/dasim" collective --platform "$SRC/platforms/dgx-a100-hdr.json" --nodes 512 --min-bytes 1M \
      --max-bytes 1G --factor 1.05 --quiet >/dev/null 2>"$work/stderr-$command" &
  else
    "$BIN/dasim" platform show "$SRC/platforms/dgx-a100-hdr.json" --nodes 8192 >/dev/null 2>"$work/stderr-$command" &
  fi
  pid=$!
  children=$(children_of "$pid")
  [ -n "$children" ] || fail "$command: no simulation child started ($(cat "$work/stderr-$command"))"
  sleep 0.5
  kill -0 "$pid" 2>/dev/null || fail "$command: finished before the signal"
  kill -INT "$pid"
  wait "$pid"
  status=$?
  [ "$status" = 130 ] || fail "$command: exit $status after SIGINT, expected 130: $(cat "$work/stderr-$command")"
  for c in $children; do kill -0 "$c" 2>/dev/null && fail "$command: child $c still running"; done
  echo "ok: $command: SIGINT -> exit 130, child gone"
done

# kill -9 of the parent cannot be handled: its children must die with it (PR_SET_PDEATHSIG), not
# run on as orphans holding their memory until their configuration ends.
"$BIN/dasim" run "$SRC/scenarios/paper-scaleup.json" --out "$work/out-KILL" --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
children=$(children_of "$pid")
[ -n "$children" ] || fail "SIGKILL: no simulation child started"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 1 50); do
  alive=""
  for c in $children; do kill -0 "$c" 2>/dev/null && alive="$alive $c"; done
  [ -z "$alive" ] && break
  sleep 0.1
done
[ -z "$alive" ] || fail "SIGKILL of the parent left children running:$alive"
echo "ok: SIGKILL of the parent -> children $(echo $children) gone"
echo "PASS"
