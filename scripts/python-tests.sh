#!/usr/bin/env bash
# The probe's Python unit tests: tests/python with the numpy environment that
# scripts/install.sh built (the same hash rule as mudjack), then
# tests/python/onnxruntime (the onnxruntime adapter) with the onnxruntime
# environment. Every skip is visible (scripts/unittest-no-skips.py): a test
# that skipped is listed with its reason, and so is a missing onnxruntime
# environment. Exit 0: all ran and passed; 1: a failure; 77 (skipped, which
# CTest reports and scripts/ctest-no-skips.sh fails on): all that ran passed,
# but something did not run.
#   scripts/python-tests.sh [unittest discover options: -v, -k PATTERN...]
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
env_of() { echo "$cache/envs/$1-current-$(sha256sum "envs/current/$1.txt" | cut -c1-16)"; }
python="$(env_of numpy)/bin/python"
[ -x "$python" ] || { echo "no numpy environment at $python: run scripts/install.sh" >&2; exit 1; }

# Runs unittest discovery of folder $2 with the Python $1; its status in $status
# when it is worse (1 over 77 over 0). No test at all (5) is a failure, but
# where the options select tests (-k): then a folder may hold none of them.
status=0
run_tests() {
  local code=0
  PYTHONPATH=probe "$1" scripts/unittest-no-skips.py discover -s "$2" -t "$2" "${@:3}" || code=$?
  if [ "$code" -eq 5 ] && [ $# -gt 2 ]; then
    code=0
  fi
  if [ "$code" -ne 0 ] && [ "$code" -ne 77 ]; then
    status=1
  elif [ "$code" -eq 77 ] && [ "$status" -eq 0 ]; then
    status=77
  fi
}

run_tests "$python" tests/python "$@"
ort=$(env_of onnxruntime)
if [ -f "$ort/.mudjack-complete" ]; then
  run_tests "$ort/bin/python" tests/python/onnxruntime "$@"
else
  echo "python-tests: SKIPPED tests/python/onnxruntime: no onnxruntime environment at $ort (scripts/install.sh builds it)" >&2
  [ "$status" -ne 0 ] || status=77
fi
exit "$status"
