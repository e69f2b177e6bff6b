# Shared assertions for the end-to-end CLI tests (sourced, not run). Usage in a test:
#   source "$SRC/tests/lib/cli_assert.sh"; expect_bad_input "what" "expected text" dasim validate f.json
set -u
BIN=${1:?usage: test.sh BIN_DIR SOURCE_DIR}
SRC=${2:?usage: test.sh BIN_DIR SOURCE_DIR}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect_bad_input NAME EXPECTED_SUBSTRING CMD...: exit 2, one stderr line containing the text,
# nothing on stdout.
expect_bad_input() {
  local name=$1 expected=$2
  shift 2
  local out err status
  out=$("$@" 2>"$WORK/stderr")
  status=$?
  err=$(cat "$WORK/stderr")
  if [ "$status" -ne 2 ]; then fail "$name: exit status $status, expected 2 (stderr: $err)"; return; fi
  if [ -n "$out" ]; then fail "$name: printed to stdout: $out"; return; fi
  if [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then fail "$name: expected one stderr line, got: $err"; return; fi
  case "$err" in
    *"$expected"*) echo "ok: $name -> $err" ;;
    *) fail "$name: stderr lacks \"$expected\": $err" ;;
  esac
}

# expect_ok NAME CMD...: exit 0.
expect_ok() {
  local name=$1
  shift
  if "$@" >"$WORK/stdout" 2>"$WORK/stderr"; then
    echo "ok: $name"
  else
    fail "$name: exit status $? (stderr: $(cat "$WORK/stderr"))"
  fi
}

finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
  fi
  echo "all passed"
}
