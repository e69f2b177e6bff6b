#!/usr/bin/env bash
# dasim-train with bad arguments: one clear message, exit status 2 on every rank, no output file.
# Argument errors are caught before MPI work; a bad data file is caught after MPI_Init and agreed
# on by all ranks.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

expect_bad() {
  local pattern="$1"
  shift
  local status=0
  mpi2 "$@" -o "$WORK/out.json" >"$WORK/stdout" 2>"$WORK/stderr" || status=$?
  [ "$status" = 2 ] || fail "expected exit 2 for '$*', got $status: $(cat "$WORK/stderr")"
  grep -q -- "$pattern" "$WORK/stderr" || fail "message for '$*' lacks '$pattern': $(cat "$WORK/stderr")"
  [ ! -e "$WORK/out.json" ] || fail "output written despite bad input '$*'"
}

expect_bad "schedule" --schedule adam
expect_bad "delay" --schedule dasgd --tau 2 --delay 3
expect_bad "steps" --steps 0
expect_bad "hidden" --hidden 8,x
expect_bad "tau" --tau 3
expect_bad "bogus" --bogus
printf 'not an idx file at all' > "$WORK/junk.idx"
expect_bad "$WORK/junk.idx: not an IDX image file" --mnist-images "$WORK/junk.idx" --mnist-labels "$WORK/junk.idx"
expect_bad "cannot open" --mnist-images "$WORK/missing" --mnist-labels "$WORK/missing"
# The argument error is printed once (by rank 0), not once per rank.
mpi2 --steps 0 2>"$WORK/stderr" || true
[ "$(grep -c -- '--steps' "$WORK/stderr")" = 1 ] || fail "argument error printed $(grep -c -- '--steps' "$WORK/stderr") times"
# A bad data file fails every rank alike: said once, as one whole line (it came out as
# "/nope: cannot open IDX file/nope: cannot open IDX file").
mpi2 --mnist-images "$WORK/missing" --mnist-labels "$WORK/missing" -o "$WORK/out.json" 2>"$WORK/stderr" || true
[ "$(grep -c 'cannot open IDX file' "$WORK/stderr")" = 1 ] || fail "data error printed: $(cat "$WORK/stderr")"
grep -qx "$WORK/missing: cannot open IDX file" "$WORK/stderr" || fail "data error line: $(cat "$WORK/stderr")"
# An output that cannot be written is a bad argument, found before training (it was found after).
for out in /proc/x/y.json "$WORK"; do
  status=0
  mpi2 -o "$out" >"$WORK/stdout" 2>"$WORK/stderr" || status=$?
  [ "$status" = 2 ] || fail "-o $out: exit $status, expected 2: $(cat "$WORK/stderr")"
  grep -q "^dasim-train: -o $out: \(cannot create its directory\|is a directory\)" "$WORK/stderr" ||
    fail "-o $out: $(cat "$WORK/stderr")"
  grep -q "step " "$WORK/stderr" && fail "-o $out: it trained first: $(cat "$WORK/stderr")"
  [ "$(grep -c "^dasim-train:" "$WORK/stderr")" = 1 ] || fail "-o $out: expected one line: $(cat "$WORK/stderr")"
done
echo "executor_bad_input: ok"
