#!/usr/bin/env bash
# Formatting check for the engine's C++ (.clang-format in the repo).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "lint: clang-format not installed; skipping" >&2
  exit 0
fi
files=$(git ls-files '*.cpp' '*.hpp')
clang-format --dry-run -Werror $files
echo "lint: $(echo "$files" | wc -w) C++ files formatted"
