#!/usr/bin/env bash
# Installs everything (scripts/install.sh), checks formatting, then runs every
# test: unit tests and integration tests that drive the real binary and real
# probes, through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
scripts/lint.sh
ctest --test-dir build --output-on-failure -j2 --timeout 900
