#!/usr/bin/env bash
# Installs everything (scripts/install.sh), then runs the main job: the
# `paper` suite on every local device, summary printed, reports written under
# ./mudjack-results/runs/<run id>/. Extra arguments go to `mudjack run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
exec build/mudjack run --suite paper "$@"
