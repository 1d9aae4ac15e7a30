#!/usr/bin/env bash
# CTest fuzz_campaign (label `adapters`): a small real `mudjack fuzz` campaign
# on this machine's cpu with the real numpy, onnxruntime, torch and jax
# (eager and jax.jit): 8 generated graphs of every dtype, findings reduced
# and bundled, each bundle's script run on its own. Checks what must hold
# whatever the frameworks do: every backend attempted every graph, no graph
# rejected by all, no suite error, every reduced finding's graph checks and
# is no bigger than its original, and the reports exist. Exit 77 (skipped,
# never passed) when an environment (scripts/install.sh) is absent.
#   tests/adapters/fuzz_campaign.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
for fw in numpy onnxruntime torch jax; do skip_without_env "$fw"; done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
code=0
"$bin" fuzz --backends numpy,onnxruntime,torch,jax,jax-jit --graphs 8 --batch 8 --seed 2026 \
  --dtypes float32,float16,float64,int32 --budget 8m --out "$out" >"$out/stdout.txt" 2>"$out/stderr.txt" || code=$?
if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
  echo "fuzz_campaign: mudjack fuzz exited $code" >&2
  cat "$out/stderr.txt" >&2
  exit 1
fi
python3 - "$out" <<'PY'
import glob, json, sys
from pathlib import Path

out = Path(sys.argv[1])
[campaign] = glob.glob(f"{out}/fuzz/fz-*")
campaign = Path(campaign)
doc = json.loads((campaign / "findings.json").read_text())
problems = []
if doc["graphs_run"] != 8 or doc["rejected_by_all"] or doc["suite_errors"]:
    problems.append(f"graphs_run {doc['graphs_run']}, rejected {doc['rejected_by_all']}, suite errors {doc['suite_errors']}")
for backend in ("numpy", "onnxruntime", "torch", "jax", "jax-jit"):
    attempted = doc["acceptance"].get(backend, {}).get("attempted")
    if attempted != 8:
        problems.append(f"{backend} attempted {attempted} graphs, not 8")
for f in doc["findings"]:
    bundle = campaign / f["bundle"]
    for name in ("graph.json", "original.json", "finding.json"):
        if not (bundle / name).exists():
            problems.append(f"{f['bundle']}: no {name}")
    if f["reduced"] and f["reduced_nodes"] > f["nodes"]:
        problems.append(f"{f['bundle']}: reduced to {f['reduced_nodes']} nodes from {f['nodes']}")
for name in ("findings.csv", "summary.md", "junit.xml", "report.html"):
    if not (campaign / name).exists():
        problems.append(f"no {name}")
if problems:
    sys.exit("fuzz_campaign:\n  " + "\n  ".join(problems))
print(f"fuzz_campaign: 8 graphs on 5 backends, {len(doc['findings'])} unique findings: " +
      ", ".join(f"{f['symptom']} on {f['backend']} ({', '.join(f['reduced_ops'] or f['ops'])})" for f in doc["findings"]))
PY
