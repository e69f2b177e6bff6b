# Shared set-up of the analysis/ script tests (sourced, not run): Debian's python3, the fixture
# folder, a scratch folder removed on exit, fail() and check_png().
set -euo pipefail
SOURCE_DIR=$2
PY=/usr/bin/python3
DATA=$SOURCE_DIR/tests/data/analysis
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
check_png() {  # a PNG signature and more than 10 kB (an empty axes alone is smaller)
  [[ -f $1 ]] || fail "$1 was not written"
  local signature size
  signature=$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')
  [[ $signature == 89504e470d0a1a0a ]] || fail "$1 is not a PNG (signature $signature)"
  size=$(stat -c %s "$1")
  ((size > 10240)) || fail "$1 is only $size bytes"
}
