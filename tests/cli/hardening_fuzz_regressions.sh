#!/usr/bin/env bash
# Inputs the fuzzers (fuzz/, docs/hardening.md) found crashing a loader: each must now be a
# one-line input error naming the file, exit status 2, and no output.
source "$2/tests/lib/cli_strict.sh"

# expect_input_error EXPECTED_MESSAGE COMMAND...
expect_input_error() {
  local expected=$1
  shift
  "$@" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [ "$status" = 2 ] || fail "$*: exit status $status, expected 2: $(cat "$work/stderr")"
  [ "$(wc -l <"$work/stderr")" = 1 ] || fail "$*: expected one line: $(cat "$work/stderr")"
  grep -qF "$expected" "$work/stderr" || fail "$*: expected \"$expected\" in: $(cat "$work/stderr")"
  echo "ok: $(cat "$work/stderr")"
}

R="$SRC/fuzz/regressions"
# A number beyond a double's range (nlohmann out_of_range.406, not a parse_error) escaped the
# JSON reader as an internal error (exit 1).
expect_input_error "$R/platform-number-overflow.json: malformed JSON: number overflow parsing '666666666666e666666'" \
  "$BIN/dasim" platform show "$R/platform-number-overflow.json"
expect_input_error "$R/scenario-number-overflow.json: malformed JSON: number overflow parsing '111111e41212'" \
  "$BIN/dasim" run "$R/scenario-number-overflow.json" --out "$work/out"
[ -e "$work/out" ] && fail "output directory created"
# A platform file name longer than NAME_MAX made std::filesystem throw ("File name too long")
# when the loader checked that the file exists: an internal error (exit 1) instead of this.
expect_input_error "$R/scenario-long-path.json: platforms[0].file: file \"$R/ppppp" \
  "$BIN/dasim" run "$R/scenario-long-path.json" --out "$work/out"
[ -e "$work/out" ] && fail "output directory created"
# An IDX image header whose count x rows x cols wraps around 2^64 to the file's size (4 images of
# 2^31 x 2^31 pixels in a 16-byte file) passed the size check and the loader read past the end of
# the file (found by review while writing fuzz_idx). dasim-train reports a data error after
# MPI_Init, through mpirun, which adds its own lines: the message must be one of them, exit 2.
if [ -x "$BIN/dasim-train" ]; then
  status=0
  OMPI_MCA_rmaps_base_oversubscribe=1 timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 \
    "$BIN/dasim-train" --mnist-images "$R/idx-size-wrap-images.idx" --mnist-labels "$R/idx-size-wrap-labels.idx" \
    -o "$work/train.json" >"$work/stdout" 2>"$work/stderr" || status=$?
  [ "$status" = 2 ] || fail "dasim-train on $R/idx-size-wrap-*.idx: exit status $status, expected 2: $(cat "$work/stderr")"
  grep -qxF "$R/idx-size-wrap-images.idx: IDX images of 2147483648x2147483648 pixels are too large" "$work/stderr" ||
    fail "dasim-train on $R/idx-size-wrap-*.idx: message: $(cat "$work/stderr")"
  [ -e "$work/train.json" ] && fail "dasim-train wrote an output"
  echo "ok: $(grep -F 'too large' "$work/stderr")"
fi
echo "PASS"
