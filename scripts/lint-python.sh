#!/usr/bin/env bash
# Static checks for the Python (pyproject.toml holds the settings): ruff on the
# probe, the suites and their tests; mypy, strict, on probe/; both against
# Python 3.9, the oldest the probe and the suites must import on. Where a
# Python 3.9 interpreter is found (MUDJACK_PYTHON39, python3.9 on PATH, or
# pyenv's), the suites are also listed with it. Every Python function within
# 80 lines, as in C++ (scripts/py-function-size.py names the exceptions). Uses the lint environment that
# scripts/install.sh builds from tests/lint-requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
pins=tests/lint-requirements.txt
env="$cache/envs/lint-$(sha256sum "$pins" | cut -c1-16)"
[ -f "$env/.mudjack-complete" ] || { echo "lint-python: no lint environment at $env: run scripts/install.sh" >&2; exit 1; }

# No caches in the checkout: both are quick without one. (`python -m`: the
# environment was built under another name, so its bin/ scripts point elsewhere.)
"$env/bin/python" -m ruff check --no-cache --quiet probe suites tests/python tests/api python
echo "lint-python: ruff clean on $(git ls-files 'probe/*.py' 'suites/*.py' 'tests/python/*.py' 'tests/api/*.py' 'python/*.py' | wc -l) files"
"$env/bin/python" -m mypy --cache-dir=/dev/null --no-error-summary
echo "lint-python: mypy clean on probe/ and python/"
# Python functions within 80 lines, as C++ ones (exceptions named in the check).
python3 scripts/py-function-size.py

py39=""
candidates=("${MUDJACK_PYTHON39:-}" "$(command -v python3.9 || true)")
if command -v pyenv >/dev/null; then candidates+=("$(pyenv root)"/versions/3.9*/bin/python3.9); fi
for candidate in "${candidates[@]}"; do  # a pyenv shim on PATH may not run: ask each
  if [ -n "$candidate" ] && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 9))' 2>/dev/null; then
    py39=$candidate
    break
  fi
done
if [ -z "$py39" ]; then
  echo "lint-python: no Python 3.9 found; suites not listed with it (set MUDJACK_PYTHON39)"
  exit 0
fi
# Listing imports every suite file and the probe's api without any framework
# (the fuzz suite with its fixture graphs: it has no cases without a folder).
PYTHONPATH=probe "$py39" - suites/paper suites/capability suites/opinfo suites/jax-primitives suites/fuzz suites/models <<'EOF'
import sys

from mudjack_probe import api
from mudjack_probe.loading import load_suites

api.set_params({"graphs": "tests/fixtures/fuzz/graphs"})

for folder in sys.argv[1:]:
    count = len(load_suites([folder], None))
    print(f"lint-python: {folder}: {count} cases listed by Python {sys.version.split()[0]}", file=sys.stderr)
EOF
