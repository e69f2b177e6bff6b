#!/usr/bin/env bash
# Fails (exit 1) when a tracked C++ or CUDA file differs from what clang-format makes of it with the
# repository's .clang-format, listing the files; `clang-format -i FILE` fixes one. CI runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed (scripts/setup.sh)" >&2; exit 1; }
unformatted=()
while IFS= read -r file; do
  clang-format --dry-run -Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.h')
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "check-format: ${#unformatted[@]} file(s) not clang-formatted (clang-format -i FILE):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check-format: $(git ls-files '*.cpp' '*.hpp' '*.cu' '*.h' | wc -l) files clang-formatted"
