#!/usr/bin/env bash
# CTest adapter_<framework> (label `adapters`): one representative paper case
# through the real binary, the real probe and the real framework on this
# machine's cpu. It must pass, be checked against a host reference, and be
# judged portable. Exit 77 (skipped, never passed) when the framework's
# environment (scripts/install.sh) is absent.
#   tests/adapters/adapter_case.sh BINARY FRAMEWORK CASE_ID
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1 framework=$2 case_id=$3
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env "$framework"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
filter="^$(printf '%s' "$case_id" | sed 's/[][\.*^$+?(){}|]/\\&/g')\$"
run_into "$bin" "$out" --suite paper --framework "$framework" --device cpu --filter "$filter" \
  --budget-ms 5
python3 - "$out" "$case_id" <<'PY'
import glob, json, sys
out, case_id = sys.argv[1], sys.argv[2]
files = glob.glob(f"{out}/runs/*/results.json")
if len(files) != 1:
    sys.exit(f"expected one results.json under {out}/runs, found {len(files)}")
doc = json.load(open(files[0], encoding="utf-8"))
cases = [c for c in doc["cases"] if c["id"] == case_id]
if len(cases) != 1:
    sys.exit(f"{case_id}: {len(cases)} results (expected exactly one)")
c = cases[0]
problems = []
if c["outcome"] != "pass":
    problems.append(f"outcome {c['outcome']}: {(c.get('error') or {}).get('message', '')}")
if c.get("checked") != "reference":
    problems.append(f"checked {c.get('checked')!r}, expected 'reference' (checks: {c['extra'].get('checks')})")
verdicts = [v for v in doc["verdicts"] if v["function"] == c["function"]]
if not verdicts or verdicts[0]["verdict"] != "portable":
    problems.append(f"verdict {[v['verdict'] for v in verdicts]}, expected portable")
if problems:
    sys.exit(f"{case_id}: " + "; ".join(problems))
print(f"{case_id}: pass, checked by a reference, portable ({c['latency']['median_ns']:.0f} ns median)")
PY
