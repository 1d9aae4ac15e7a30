#!/usr/bin/env bash
# CTest fuzz_run (label `adapters`): the built-in suite `fuzz` through the real
# binary and probes on this machine's cpu, on the fixture graphs
# (tests/fixtures/fuzz/graphs), with the planted-bug fixture beside it
# (tests/fixtures/suites/fuzz-planted): every `numpy` case passes, checked by
# a reference; `numpy-planted` is a mismatch exactly on the graphs whose `add`
# broadcasts; `onnxruntime` passes but where tests/fixtures/fuzz/expected.txt
# lists a finding; a broken graph file's cases are suite errors naming its
# fault. Exit 77 (skipped, never passed) when the numpy or onnxruntime
# environment (scripts/install.sh) is absent.
#   tests/adapters/fuzz_run.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env numpy
skip_without_env onnxruntime
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/good" "$out/bad"
run_into "$bin" "$out/good" --suite fuzz --suite-dir tests/fixtures/suites/fuzz-planted \
  --framework numpy,onnxruntime --device cpu --param "graphs=$PWD/tests/fixtures/fuzz/graphs" --budget-ms 2 --rounds 1
# A run with a suite error exits 1 (and says so); the results are what matter.
"$bin" run --suite fuzz --framework numpy --device cpu --param "graphs=$PWD/tests/fixtures/fuzz/bad" \
  --budget-ms 2 --out "$out/bad" >"$out/bad/stdout.txt" 2>"$out/bad/stderr.txt" || true
python3 - "$out" <<'PY'
import glob, json, sys
from pathlib import Path

out = sys.argv[1]
def results(folder):
    files = glob.glob(f"{out}/{folder}/runs/*/results.json")
    if len(files) != 1:
        sys.exit(f"expected one results.json under {out}/{folder}/runs, found {len(files)}")
    return json.load(open(files[0], encoding="utf-8"))["cases"]

graphs = Path("tests/fixtures/fuzz/graphs")
def broadcasts(path):
    g = json.loads(path.read_text())
    shapes = {x["name"]: x["shape"] for x in g["inputs"]} | {n["name"]: n["shape"] for n in g["nodes"]}
    return any(n["op"] == "add" and shapes[n["inputs"][0]] != shapes[n["inputs"][1]] for n in g["nodes"])
broadcasting = {p.stem for p in graphs.glob("*.json") if broadcasts(p)}
expected = {tuple(line.split()[:2]) for line in open("tests/fixtures/fuzz/expected.txt") if line.strip() and not line.startswith("#")}
problems, seen = [], {}
for c in results("good"):
    _, digest, backend = c["id"].split("/")
    seen[backend] = seen.get(backend, 0) + 1
    want = "pass"
    if backend == "numpy-planted" and digest in broadcasting:
        want = "mismatch"
    if (digest, backend) in expected:
        want = c["outcome"] if c["outcome"] in ("fail", "mismatch") else "fail or mismatch"
    if c["outcome"] != want:
        problems.append(f"{c['id']}: {c['outcome']}, expected {want}: {(c.get('error') or {}).get('message', '')}")
    elif want == "pass" and c.get("checked") != "reference":
        problems.append(f"{c['id']}: passed but checked {c.get('checked')!r}, not by a reference")
count = len(list(graphs.glob("*.json")))
if seen != {"numpy": count, "numpy-planted": count, "onnxruntime": count}:
    problems.append(f"cases per backend {seen}, expected {count} each of numpy, numpy-planted, onnxruntime")
bad = results("bad")
if not bad or any(c["outcome"] != "error" or "names no input or earlier node" not in (c.get("error") or {}).get("message", "") for c in bad):
    problems.append(f"broken graph file: {[(c['id'], c['outcome'], (c.get('error') or {}).get('message')) for c in bad]}")
if problems:
    sys.exit("fuzz_run:\n  " + "\n  ".join(problems))
print(f"fuzz_run: {count} graphs x numpy, numpy-planted, onnxruntime as expected; "
      f"the planted add caught on {len(broadcasting)} broadcasting graphs; a broken file is a suite error")
PY
