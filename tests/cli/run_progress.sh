#!/usr/bin/env bash
# Progress inside a configuration: while one long simulation runs, `dasim run` says how far it is
# ("0/2 simulations done (+0.37 running)") rather than nothing until it ends. Written to a file
# (not a terminal): one line per tenth of the work, no carriage returns; --quiet prints none.
source "$2/tests/lib/cli_assert.sh"

# 32 GPUs x 200 iterations, every node simulated (a folded run would take two nodes' time): about
# 1.5 s of simulation in the Release build, several of the parent's 200 ms wake-ups while it runs.
sed -e "s|\"../platforms/|\"$SRC/platforms/|" "$SRC/scenarios/quick.json" |
  /usr/bin/python3 -c 'import json,sys; s=json.load(sys.stdin); s["platforms"][0]["nodes"]=[32]; s["schedules"]=[{"type":"sgd"}]; s["iterations"]=200; s["warmup"]=0; s.setdefault("collective",{})["fold"]=False; json.dump(s,sys.stdout)' \
    >"$WORK/long.json"
# Without the sanitizer build's notes (SimGrid's stack switches: docs/hardening.md).
drop_asan_notes() { grep -v -e '^==[0-9]*==WARNING: ASan is ignoring' -e '^False positive error reports' -e '^For details see https://github.com/google/sanitizers'; }
"$BIN/dasim" run "$WORK/long.json" --out "$WORK/out" >/dev/null 2>"$WORK/raw.txt" || fail "dasim run exited $?"
drop_asan_notes <"$WORK/raw.txt" >"$WORK/progress.txt"
grep -q "simulations done (+0\.[0-9][0-9] running)" "$WORK/progress.txt" ||
  fail "no progress while the configuration ran: $(cat "$WORK/progress.txt")"
grep -q $'\r' "$WORK/progress.txt" && fail "carriage returns in a progress file"
tail -1 "$WORK/progress.txt" | grep -q "2/2 simulations done, " || fail "last line: $(tail -1 "$WORK/progress.txt")"
lines=$(wc -l <"$WORK/progress.txt")
[ "$lines" -le 11 ] || fail "$lines progress lines: expected at most one per tenth of the work and the last"
"$BIN/dasim" run "$WORK/long.json" --out "$WORK/quiet" --quiet >/dev/null 2>"$WORK/raw-quiet.txt" || fail "--quiet run failed"
drop_asan_notes <"$WORK/raw-quiet.txt" >"$WORK/quiet.txt"
[ -s "$WORK/quiet.txt" ] && fail "--quiet printed: $(cat "$WORK/quiet.txt")"
finish
