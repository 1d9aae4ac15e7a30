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
# Two at a time; a source whose clean result for the same preprocessed input
# is cached (scripts/clang-tidy-cached.py) is not analysed again. Any
# finding, a crash or an unreadable compilation database fails the lint.
scripts/clang-tidy-cached.py build "${sources[@]}" || {
  echo "lint: clang-tidy failed" >&2
  exit 1
}
echo "lint: clang-tidy clean on ${#sources[@]} sources"
