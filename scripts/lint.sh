#!/usr/bin/env bash
# Static checks for the engine's C++: clang-format (.clang-format) on every
# file, clang-tidy (.clang-tidy, warnings as errors) on src/. Needs a
# configured build/ for compile_commands.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null || ! command -v clang-tidy >/dev/null; then
  echo "lint: clang-format or clang-tidy not installed (scripts/install.sh installs them)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
clang-format --dry-run -Werror "${files[@]}"
echo "lint: ${#files[@]} C++ files formatted"
mapfile -t sources < <(git ls-files 'src/*.cpp')
# One file per process, two at a time; -quiet keeps only real findings.
printf '%s\n' "${sources[@]}" | xargs -P2 -n1 clang-tidy -p build --quiet 2>&1 |
  grep -v -e "warnings generated" -e "^Suppressed" -e "^Use -header-filter" > /tmp/mudjack-tidy.$$ || true
if grep -q "error:" /tmp/mudjack-tidy.$$; then
  cat /tmp/mudjack-tidy.$$
  rm -f /tmp/mudjack-tidy.$$
  exit 1
fi
rm -f /tmp/mudjack-tidy.$$
echo "lint: clang-tidy clean on ${#sources[@]} sources"
