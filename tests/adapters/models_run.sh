#!/usr/bin/env bash
# CTest models_run (label `adapters`): the built-in suite `models`, its tiny
# set (set::tiny: bert, resnet18, keras-mobilenet-v2; at most 3 models) at
# small inputs, through the real binary and probes on this machine's cpu:
#   - `list --labels task::Computer_Vision` lists exactly the vision models,
#     with their labels;
#   - eager, onnxruntime, train and amp run and pass, each checked; the
#     Keras model runs on torch, jax and tensorflow from the same weights;
#   - the first run exports every ONNX model into an empty build cache, the
#     second reuses every export (build_reused) and measures again;
#   - results.json has a `models` row per model x device x stage and
#     summary.md a Models section; torch models' eager rows carry params, FLOPs,
#     the aten operator histogram and a structure hash, onnxruntime rows
#     the exported graph's.
# Exit 77 (skipped, never passed) when the torch, jax or tensorflow
# environment (scripts/install.sh) is absent.
#   tests/adapters/models_run.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env torch
skip_without_env jax
skip_without_env tensorflow
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export MUDJACK_BUILD_CACHE="$out/builds"
"$bin" list --suite models --labels task::Computer_Vision >"$out/list.txt"
grep -q "^resnet18 .*task::Computer_Vision" "$out/list.txt" || { cat "$out/list.txt" >&2; exit 1; }
if grep -q "^bert " "$out/list.txt"; then echo "list --labels task::Computer_Vision lists bert" >&2; exit 1; fi
args=(--suite models --labels set::tiny --device cpu --param max_seq_length=16 --param height=64
  --param width=64 --budget-ms 2 --rounds 1 --timeout-s 900)
mkdir -p "$out/first" "$out/second"
run_into "$bin" "$out/first" "${args[@]}" --mode eager,onnxruntime,train,amp
run_into "$bin" "$out/second" "${args[@]}" --mode onnxruntime
python3 - "$out" <<'PY'
import glob, json, sys

out = sys.argv[1]
def doc(folder):
    files = glob.glob(f"{out}/{folder}/runs/*/results.json")
    if len(files) != 1:
        sys.exit(f"expected one results.json under {out}/{folder}/runs, found {len(files)}")
    return json.load(open(files[0], encoding="utf-8"))

problems = []
first, second = doc("first"), doc("second")
rows = {(r["model"], r["framework"], r["stage"]): r for r in first.get("models", [])}
want = {("bert", "torch", s) for s in ("eager", "onnxruntime", "train", "amp")}
want |= {("resnet18", "torch", s) for s in ("eager", "onnxruntime", "train", "amp")}
want |= {("keras-mobilenet-v2", fw, s) for fw in ("torch", "jax", "tensorflow") for s in ("eager", "amp")}
if set(rows) != want:
    problems.append(f"model rows {sorted(set(rows) ^ want)} differ from the tiny set's stages")
for key, r in sorted(rows.items()):
    if r["outcome"] != "pass":
        problems.append(f"{key}: {r['outcome']}: {r['error']}")
for c in first["cases"]:
    if c["outcome"] == "pass" and c.get("checked") in (None, "none"):
        problems.append(f"{c['id']}: passed unchecked")
built = [r for r in first["models"] if r["stage"] == "onnxruntime"]
if not built or any(r["build_reused"] is not False or not r["build_s"] for r in built):
    problems.append(f"first run: exports {[(r['model'], r['build_s'], r['build_reused']) for r in built]}, expected fresh builds")
reused = [r for r in second.get("models", []) if r["stage"] == "onnxruntime"]
if len(reused) != len(built) or any(r["build_reused"] is not True or r["median_ns"] is None for r in reused):
    problems.append(f"second run: {[(r['model'], r['build_reused'], r['median_ns']) for r in reused]}, expected every export reused and measured")
for r in first["models"]:  # what each model is (issue 38): size, work, operators, structure
    if r["model"] in ("bert", "resnet18") and r["stage"] == "eager" and not (  # torch models, not Keras
            r["params"] and r["flops"] and r["ops_source"] == "aten" and len(r["structure_hash"] or "") == 13):
        problems.append(f"{r['model']} eager: params {r['params']}, flops {r['flops']}, ops from {r['ops_source']}, hash {r['structure_hash']}")
    if r["stage"] == "onnxruntime" and not (r["ops_source"] == "onnx" and r["ops"] and r["structure_hash"]):
        problems.append(f"{r['model']} onnxruntime: ops {r['ops_source']} {r['ops']}")
summary = open(glob.glob(f"{out}/first/runs/*/summary.md")[0], encoding="utf-8").read()
if "## Models" not in summary:
    problems.append("summary.md has no Models section")
if problems:
    sys.exit("models_run:\n  " + "\n  ".join(problems))
print(f"models_run: {len(rows)} model x stage rows pass; {len(built)} exports built, then reused")
PY
