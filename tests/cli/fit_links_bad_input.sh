#!/usr/bin/env bash
# `dasim fit-links` refuses a log it cannot read with one line naming the file and the line,
# exit status 2, and no output file: an unknown format, a malformed row, a header without rows,
# a single message size, and a missing file.
set -euo pipefail
BIN_DIR=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_refusal() {  # expect_refusal LOG EXPECTED_MESSAGE
  local status message
  set +e
  message=$("$BIN_DIR/dasim" fit-links "$1" --out "$WORK/out.json" 2>&1 >/dev/null)
  status=$?
  set -e
  [[ $status == 2 ]] || fail "$1: exit status $status, expected 2 ($message)"
  [[ $message == "dasim: error: $2" ]] || fail "$1: message '$message', expected 'dasim: error: $2'"
  [[ ! -e $WORK/out.json ]] || fail "$1: wrote output despite bad input"
}

printf 'hello\nworld\n' >"$WORK/unknown.log"
expect_refusal "$WORK/unknown.log" "$WORK/unknown.log: line 1: unrecognized log format (expected an nccl-tests table, a CSV with size and time columns, or an OSU-style '# Size Latency/Bandwidth' table)"
printf '# Size  Avg Latency(us)\n8 1.5\n16 n/a\n' >"$WORK/row.log"
expect_refusal "$WORK/row.log" "$WORK/row.log: line 3: expected a positive number, got 'n/a'"
printf '# Size  Avg Latency(us)\n' >"$WORK/empty.log"
expect_refusal "$WORK/empty.log" "$WORK/empty.log: line 1: osu-latency table has no data rows"
printf '# Size  Avg Latency(us)\n8 1.5\n8 1.6\n' >"$WORK/one.log"
expect_refusal "$WORK/one.log" "$WORK/one.log: need at least 2 distinct message sizes to fit alpha and beta, got 1"
expect_refusal "$WORK/missing.log" "$WORK/missing.log: cannot open log file"
