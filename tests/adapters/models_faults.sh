#!/usr/bin/env bash
# CTest models_faults (label `adapters`): model scripts that go wrong, beside
# one that works (tests/fixtures/suites/models-faults), run eager and
# through ONNX Runtime on this machine's cpu under --memory-limit-mb 1500:
# a syntax error is that script's suite error; a build that reaches for the
# network fails with the probe's refusal; a model that needs 8 GiB is a crash
# over the memory limit; the working model still passes every stage; the
# run completes. Exit 77 when the torch environment is absent.
#   tests/adapters/models_faults.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env torch
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export MUDJACK_BUILD_CACHE="$out/builds"
# A suite error makes the run exit 1; the results are what this checks.
"$bin" run --suite-dir tests/fixtures/suites/models-faults --framework torch --device cpu \
  --memory-limit-mb 1500 --budget-ms 2 --rounds 1 --timeout-s 900 --out "$out" >"$out/stdout.txt" 2>"$out/stderr.txt" || true
python3 - "$out" <<'PY'
import glob, json, sys

out = sys.argv[1]
files = glob.glob(f"{out}/runs/*/results.json")
if len(files) != 1:
    sys.exit(f"models_faults: expected one results.json, found {len(files)}: " + open(f"{out}/stderr.txt").read()[-2000:])
doc = json.load(open(files[0], encoding="utf-8"))
got = {c["id"]: (c["outcome"], (c.get("error") or {}).get("message", "")) for c in doc["cases"]}
want = {
    "torch/tiny-mlp/float32-b2-f16-eager": ("pass", ""),
    "torch/tiny-mlp/float32-b2-f16-onnxruntime": ("pass", ""),
    "torch/broken/float32-script-eager": ("error", "broken.py does not load: SyntaxError"),
    "torch/phones-home/float32-b2-f16-eager": ("fail", "network access refused: connection to '192.0.2.1' is not loopback"),
    "torch/hungry/float32-b2-f16-eager": ("crash", "exceeded the probe limit of 1500 MiB"),
}
problems = []
for case_id, (outcome, text) in want.items():
    if case_id not in got:
        problems.append(f"{case_id}: missing (cases: {sorted(got)})")
        continue
    if got[case_id][0] != outcome or text not in got[case_id][1]:
        problems.append(f"{case_id}: {got[case_id]}, expected {outcome} with {text!r}")
if doc["run"]["state"] != "complete":
    problems.append(f"run state {doc['run']['state']}")
if problems:
    sys.exit("models_faults:\n  " + "\n  ".join(problems))
print("models_faults: a syntax error, a network attempt and an 8 GiB model each have their outcome; tiny-mlp passes")
PY
