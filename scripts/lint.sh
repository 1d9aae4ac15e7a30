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
# One file per process, two at a time; -quiet keeps only real findings. The
# pipeline's status is kept: a clang-tidy that crashes or cannot read the
# compilation database fails the lint even when it printed no "error:".
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${sources[@]}" | xargs -P2 -n1 clang-tidy -p build --quiet >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ] || grep -q "error:" "$log"; then
  grep -v -e "warnings generated" -e "^Suppressed" -e "^Use -header-filter" "$log" || true
  echo "lint: clang-tidy failed (exit status $status)" >&2
  exit 1
fi
echo "lint: clang-tidy clean on ${#sources[@]} sources"
