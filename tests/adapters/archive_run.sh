#!/usr/bin/env bash
# CTest archive_run (issue 48): a run from an install form that is no git
# checkout (a `git archive` tarball, as a release tarball, an sdist or a
# container image without .git would be) completes: exit 0, every report
# written, its source recorded as unknown, summary.md saying so, and
# `report --publish` refuses it with that reason. Before, such a run stored
# every case and then exited 2 with "type must be boolean, but is null".
# Exit 77 (skipped, never passed) when the numpy environment is absent.
#   tests/adapters/archive_run.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env numpy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree" "$tmp/out"
git archive HEAD | tar -x -C "$tmp/tree"
[ ! -e "$tmp/tree/.git" ] || { echo "the archive has a .git" >&2; exit 1; }
export MUDJACK_DATA_DIR="$tmp/tree"
run_into "$bin" "$tmp/out" --suite-dir "$tmp/tree/tests/fixtures/suites/cpu-probes" --budget-ms 1 --rounds 1
runs=("$tmp"/out/runs/*/)
run=${runs[0]}
for f in results.json results.csv junit.xml summary.md report.html; do
  [ -s "$run/$f" ] || { echo "no $f for a run from an archive" >&2; exit 1; }
done
python3 - "$run/results.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
source = doc["environment"]["machines"][0]["source"]
assert source["dirty"] is None, source
assert all(c["outcome"] == "pass" for c in doc["cases"]), [c["outcome"] for c in doc["cases"]]
print("source recorded as unknown:", source.get("why_unknown"))
PY
grep -q "source state unknown" "$run/summary.md" || { echo "summary.md does not say the source is unknown" >&2; exit 1; }
if "$bin" report --out "$tmp/out" latest --publish "$tmp/pub" 2>"$tmp/publish.err"; then
  echo "a run from an unknown source was published" >&2
  exit 1
fi
grep -q "will not publish run .*source tree's state is unknown" "$tmp/publish.err" ||
  { echo "publish refused without the reason:" >&2; cat "$tmp/publish.err" >&2; exit 1; }
echo "archive_run: a run from a git archive completes; its source is unknown and it is not published"
