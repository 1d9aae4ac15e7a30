#!/usr/bin/env bash
# Static checks for the shell scripts: shellcheck (default severity, every
# finding is an error) on every shell script of the checkout, found by name
# (*.sh) or by a shell shebang on the first line (sh, bash, dash). That is
# scripts/, deploy/ (images and install.sh), tests/deploy/, bench/, .ci/ and
# the test fixtures. A finding that is intended gets a directive on the line
# before it, with the reason:  # shellcheck disable=SC2086  # word-split on purpose
#   scripts/lint-shell.sh [FILE...]   (default: every shell script of the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v shellcheck >/dev/null; then
  echo "lint-shell: shellcheck not installed (scripts/install.sh installs it)" >&2
  exit 1
fi

is_shell() {
  [ -f "$1" ] || return 1  # listed by git but deleted in the work tree
  case "$1" in
    *.sh) return 0 ;;
  esac
  local first
  IFS= read -r first < "$1" || true
  [[ $first =~ ^#!.*(/|[[:space:]])(ba|da)?sh([[:space:]]|$) ]]
}

scripts=()
if [ $# -gt 0 ]; then
  scripts=("$@")
else
  # Tracked files and new ones not yet added; ignored build output is left out.
  while IFS= read -r -d '' f; do
    if is_shell "$f"; then scripts+=("$f"); fi
  done < <(git ls-files -z --cached --others --exclude-standard)
fi
if [ ${#scripts[@]} -eq 0 ]; then
  echo "lint-shell: no shell scripts found" >&2
  exit 1
fi
shellcheck --format=gcc "${scripts[@]}"
echo "lint-shell: shellcheck clean on ${#scripts[@]} scripts"
