#!/usr/bin/env bash
# The probe's Python unit tests (tests/python), run with the numpy
# environment that scripts/install.sh built (the same hash rule as mudjack).
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
hash=$(sha256sum envs/current/numpy.txt | cut -c1-16)
python="$cache/envs/numpy-current-$hash/bin/python"
[ -x "$python" ] || { echo "no numpy environment at $python: run scripts/install.sh" >&2; exit 1; }
PYTHONPATH=probe exec "$python" -m unittest discover -s tests/python -t tests/python "$@"
