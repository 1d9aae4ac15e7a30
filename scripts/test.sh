#!/usr/bin/env bash
# Installs everything (scripts/install.sh), checks formatting, then runs every
# test: unit tests and integration tests that drive the real binary and real
# probes, through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
# Free disk first: the environments and three builds need several GB, and a
# full disk otherwise shows up only as a failed link.
df -h . | tail -n 1 | awk '{print "test: " $4 " free on " $6}' >&2
scripts/install.sh
cmake --build build -j2  # the tests too (install.sh built the engine and its tools)
scripts/lint.sh
scripts/lint-shell.sh
scripts/lint-python.sh
# A test that is not opt-in must run: one reported skipped (a missing
# framework environment, no kubectl) fails the whole job, by name and reason.
# Label `xla` (torch_xla on this CPU: the xla profile's environment, 4.5 GB,
# installed on request) is opt-in: `ctest --test-dir build -L xla`.
scripts/ctest-no-skips.sh --test-dir build --output-on-failure -j2 --timeout 900 -LE '^xla$'
# Every test again against a build with address and undefined-behaviour
# sanitizers, but the whole-model runs (label `models`: minutes of framework
# time, through engine paths the other tests take too) and the checks over the
# published results (label `published`: `mudjack report` over 10 MB of JSON,
# the same code the report tests run on small runs).
cmake -S . -B build-asan -DMUDJACK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j2
scripts/ctest-no-skips.sh --test-dir build-asan --output-on-failure -j2 --timeout 900 -LE '^(models|xla|published)$'
# The threads of the server, the sweep and the supervisor under the thread sanitizer.
cmake -S . -B build-tsan -DMUDJACK_TSAN=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-tsan -j2
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp" \
  scripts/ctest-no-skips.sh --test-dir build-tsan --output-on-failure -j2 --timeout 900 \
  -R '^(ServeTest|SweepTest|Sweep|Cli|Process|Routes|Sse|Metrics|OracleFlow|StoreTest)\.'
