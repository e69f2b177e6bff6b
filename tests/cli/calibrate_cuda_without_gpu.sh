#!/usr/bin/env bash
# `dasim calibrate --device cuda` on a machine without a usable GPU ends with one clear line
# ("no CUDA device found: ...; use --device cpu"), exit status 1, and no file. On a machine with a
# GPU the same command (--quick) must succeed and write a measured CUDA file instead.
set -euo pipefail
BIN_DIR=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  "$BIN_DIR/dasim" calibrate --device cuda --quick --out "$WORK/cuda.json" 2>"$WORK/stderr" ||
    fail "GPU present but --device cuda failed: $(tail -1 "$WORK/stderr")"
  "${DASIM_TEST_PYTHON:-/usr/bin/python3}" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["device"]["kind"]=="cuda" and d["fitted"]["flops"]["fp32"]>1e11' "$WORK/cuda.json" ||
    fail "CUDA calibration content"
  exit 0
fi

set +e
"$BIN_DIR/dasim" calibrate --device cuda --quick --out "$WORK/cuda.json" >"$WORK/stdout" 2>"$WORK/stderr"
status=$?
set -e
[[ $status == 1 ]] || fail "exit status $status, expected 1"
[[ $(wc -l <"$WORK/stderr") == 1 ]] || fail "expected one line on stderr, got: $(cat "$WORK/stderr")"
grep -Eq '^dasim: failed: no CUDA device found: .+; use --device cpu$' "$WORK/stderr" ||
  fail "message: $(cat "$WORK/stderr")"
[[ ! -e $WORK/cuda.json ]] || fail "wrote a file without a GPU"
