# Set-up for CLI tests that stop at the first failure (sourced, not run): BIN and SRC from the
# ctest arguments, a scratch folder $work removed on exit, and fail() that exits 1.
# (tests/lib/cli_assert.sh is the variant that counts failures and reports them at the end.)
set -u
BIN="$1"
SRC="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
