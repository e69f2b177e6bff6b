#!/usr/bin/env bash
# dasim-mpi-allreduce-bench: the sweep holds the powers of two up to --max-bytes plus every --sizes
# entry, ascending, each with the repetitions asked for (--large-reps from 4 MiB); the header names
# the call timed (--nonblocking: MPI_Iallreduce + MPI_Wait; --poll-intervals: polled, with the
# spin summed and the sgemm calls counted); a size that is not whole floats, a poll work item that
# is neither seconds nor MxNxK shapes, and polls without --nonblocking are refused with exit 2 and a
# message naming the option.
set -euo pipefail
BENCH="$1/dasim-mpi-allreduce-bench"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mpi2() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$BENCH" "$@"; }

# --help: usage on stdout, exit 0, without mpirun (it used to start MPI and abort); every option
# the parser accepts is listed.
"$BENCH" --help >"$WORK/help.txt" 2>&1 || fail "--help exited $?: $(cat "$WORK/help.txt")"
grep -q '^Usage: mpirun -np N dasim-mpi-allreduce-bench' "$WORK/help.txt" || fail "--help: $(cat "$WORK/help.txt")"
for flag in --max-bytes --sizes --reps --large-reps --warmup --evict --mean --nonblocking --in-place \
  --poll-intervals --wait-after --free-steps --step-items; do
  grep -q -- "  $flag " "$WORK/help.txt" || fail "--help does not list $flag"
done

mpi2 --max-bytes 32 --sizes 12,4194304 --reps 3 --large-reps 2 --warmup 1 --evict 1048576 \
  --nonblocking --in-place >"$WORK/table.txt" 2>"$WORK/err.txt" || fail "bench failed: $(cat "$WORK/err.txt")"
grep -q '^# dasim MPI_Iallreduce + MPI_Wait latency test, MPI_FLOAT MPI_SUM, 2 ranks$' "$WORK/table.txt" ||
  fail "header: $(head -1 "$WORK/table.txt")"
sizes=$(awk '!/^#/ { printf "%s ", $1 }' "$WORK/table.txt")
[[ $sizes == "8 12 16 32 4194304 " ]] || fail "sizes: '$sizes', expected '8 12 16 32 4194304 '"
reps=$(awk '!/^#/ { printf "%s ", $6 }' "$WORK/table.txt")
[[ $reps == "3 3 3 3 2 " ]] || fail "repetitions: '$reps', expected '3 3 3 3 2 '"
awk '!/^#/ && !($2 > 0 && $3 <= $2 && $2 <= $4) { bad = 1; print } END { exit bad }' "$WORK/table.txt" >&2 ||
  fail "a row without min <= median <= max"

mpi2 --max-bytes 64 --reps 5 --mean >"$WORK/table.txt" 2>&1 || fail "--mean failed"
grep -q '^# Size  Avg Latency(us)  Min Latency(us)' "$WORK/table.txt" || fail "--mean header: $(cat "$WORK/table.txt")"
awk '!/^#/ && !($2 > 0 && $3 <= $2 && $2 <= $4) { bad = 1; print } END { exit bad }' "$WORK/table.txt" >&2 ||
  fail "--mean: a mean outside min..max"

mpi2 --max-bytes 8 >"$WORK/table.txt" 2>&1 || fail "default call failed"
grep -q '^# dasim MPI_Allreduce latency test' "$WORK/table.txt" || fail "default header: $(head -1 "$WORK/table.txt")"

mpi2 --max-bytes 64 --reps 2 --nonblocking --poll-intervals 0.001,0.0025 --wait-after 0.0005 >"$WORK/table.txt" 2>&1 ||
  fail "polled call failed: $(cat "$WORK/table.txt")"
grep -q '^# dasim MPI_Iallreduce polled 2 times over 3.500 ms of spin and 0 sgemm calls, then MPI_Wait after 0.500 ms more' "$WORK/table.txt" ||
  fail "polled header: $(head -1 "$WORK/table.txt")"
mpi2 --max-bytes 64 --reps 2 --nonblocking --poll-intervals 0.001+8x16x4,16x4x8+4x4x16 >"$WORK/table.txt" 2>&1 ||
  fail "polled call with sgemm work failed: $(cat "$WORK/table.txt")"
grep -q '^# dasim MPI_Iallreduce polled 2 times over 1.000 ms of spin and 3 sgemm calls' "$WORK/table.txt" ||
  fail "sgemm polled header: $(head -1 "$WORK/table.txt")"
mpi2 --max-bytes 64 --reps 3 --nonblocking --poll-intervals 8x8x8 --free-steps 2 >"$WORK/table.txt" 2>&1 ||
  fail "free-running polled call failed: $(cat "$WORK/table.txt")"
grep -q ', 2 free steps of 1 work items between averages' "$WORK/table.txt" || fail "free-steps header: $(head -1 "$WORK/table.txt")"
mpi2 --max-bytes 64 --reps 3 --nonblocking --poll-intervals 8x8x8,8x8x8,0.001+8x8x8,8x8x8 --step-items 2 \
  --free-steps 1 >"$WORK/table.txt" 2>&1 || fail "free-running call with --step-items failed: $(cat "$WORK/table.txt")"
grep -q 'polled 4 times over 1.000 ms of spin and 4 sgemm calls, then MPI_Wait after 0.000 ms more, 1 free steps of 2 work items' \
  "$WORK/table.txt" || fail "--step-items header: $(head -1 "$WORK/table.txt")"

expect_refused() {  # PATTERN ARGS...: exit 2, PATTERN in the message, no table
  local pattern=$1 status=0
  shift
  mpi2 "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || status=$?
  [[ $status == 2 ]] || fail "$*: exit status $status, expected 2"
  grep -q -- "$pattern" "$WORK/err.txt" || fail "$*: message: $(cat "$WORK/err.txt")"
  [[ ! -s $WORK/out.txt ]] || fail "$*: wrote a table"
}
expect_refused '--sizes of multiples of 4 bytes' --sizes 6
expect_refused '(all with --nonblocking)' --poll-intervals 0.001
expect_refused '--poll-intervals of seconds >= 0 or sgemm shapes' --nonblocking --poll-intervals 1ms
for shape in 64x8 0x8x8 8x8x8x 8x8x8+ +8x8x8 8x+8x8 "8x 8x8" 8x8x8, inf 1e999; do
  expect_refused '--poll-intervals of seconds >= 0 or sgemm shapes' --nonblocking --poll-intervals "$shape"
done
expect_refused '--wait-after of seconds >= 0' --nonblocking --wait-after -1
expect_refused '--wait-after of seconds >= 0' --nonblocking --wait-after inf  # a spin that never ends
expect_refused '--free-steps 0..1000' --nonblocking --free-steps -1
expect_refused '--step-items >= 1' --nonblocking --free-steps 1 --step-items 0
expect_refused '(all with --nonblocking)' --free-steps 2
echo "mpi_allreduce_bench: ok"
