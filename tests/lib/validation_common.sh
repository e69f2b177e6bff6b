# Shared by the validation runners' tests (sourced after analysis_common.sh, not run).
# expect_refusal EXPECTED_MESSAGE ARGS...: the caller's run() with ARGS and --out $WORK/bad must exit
# 2 with exactly that one message and write nothing.
expect_refusal() {  # EXPECTED_MESSAGE ARGS...
  local expected=$1 status message
  shift
  set +e
  message=$(run "$@" --out "$WORK/bad" 2>&1 >/dev/null)
  status=$?
  set -e
  [[ $status == 2 ]] || fail "$*: exit status $status, expected 2 ($message)"
  [[ $message == "$expected" ]] || fail "message '$message', expected '$expected'"
  [[ ! -e $WORK/bad ]] || fail "$*: wrote output despite bad input"
}
