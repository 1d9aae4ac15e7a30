#!/usr/bin/env bash
# Regenerates suites/paper/case-ids.txt, the golden list of the paper suite's
# case ids that tests/integration/catalogue_test.cpp holds the suite to.
# Run it only when adding or (deliberately) renaming cases.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  echo "# The paper suite's case ids: history and reports key on them."
  echo "# Regenerate with scripts/update-case-ids.sh when cases change on purpose."
  build/mudjack list --suite paper --json --python numpy=/usr/bin/python3 |
    python3 -c 'import json,sys; print("\n".join(sorted(c["id"] for c in json.load(sys.stdin))))'
} > suites/paper/case-ids.txt
echo "$(grep -vc '^#' suites/paper/case-ids.txt) case ids written to suites/paper/case-ids.txt"
