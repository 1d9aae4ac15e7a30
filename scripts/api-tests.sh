#!/usr/bin/env bash
# The Python API's tests (tests/api: python/mudjack and its pytest plugin),
# run by pytest with the numpy environment that scripts/install.sh built (the
# same hash rule as mudjack) against the engine binary given as $1, which
# runs this checkout's probe and suites (MUDJACK_DATA_DIR, unless set). Every
# skip is visible (tests/api/conftest.py): a skipped test is listed with its
# reason and, when nothing failed, the exit status is 77 (CTest: Skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-build/mudjack}")
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
hash=$(sha256sum envs/current/numpy.txt | cut -c1-16)
python="$cache/envs/numpy-current-$hash/bin/python"
[ -x "$python" ] || { echo "no numpy environment at $python: run scripts/install.sh" >&2; exit 1; }
shift || true
MUDJACK_DATA_DIR=${MUDJACK_DATA_DIR:-$PWD} MUDJACK_BINARY=$binary PYTHONPATH=python:tests/api exec "$python" -m pytest -q -p no:cacheprovider \
  -p mudjack.pytest_plugin tests/api "$@"
