#!/usr/bin/env bash
# CTest surface_<name> (label `adapters`): a small, real slice of a
# whole-surface feature through the real binary, probe and framework on this
# machine's cpu, with the results it must show. Exit 77 (skipped, never
# passed) when the framework's environment (scripts/install.sh) is absent.
#   tests/adapters/surface_slice.sh BINARY opinfo|jax-primitives|tf-kernels
#
# opinfo: torch's OpInfo entries abs and linalg.svd in float32, bool and
#   float16, run once: abs float32 passes checked by its float64 reference,
#   abs bool (OpInfo claims bool for abs on cuda only) fails, and the claims
#   block counts every (function, dtype) on cpu.
# jax-primitives: JAX's cumsum harnesses in float32, run once, pass, with
#   claims for cpu and cuda.
# tf-kernels: tf.linalg.svd in complex64 on the cpu runs, and TensorFlow's
#   kernel registry predicts no GPU kernel for Svd(T=complex64).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1 slice=$2
case $slice in
  opinfo) framework=torch args=(--suite opinfo --function abs --function linalg.svd
    --dtype float32 --dtype bool --dtype float16 --param opinfo_samples=1) ;;
  jax-primitives) framework=jax args=(--suite jax-primitives --function cumsum --dtype float32) ;;
  tf-kernels) framework=tensorflow args=(--suite paper --framework tensorflow
    --function tf.linalg.svd --dtype complex64 --budget-ms 1 --rounds 1) ;;
  *) echo "unknown slice $slice" >&2; exit 2 ;;
esac
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env "$framework"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run_into "$bin" "$out" "${args[@]}" --device cpu
python3 - "$out" "$slice" <<'PY'
import glob, json, sys
out, slice_ = sys.argv[1], sys.argv[2]
files = glob.glob(f"{out}/runs/*/results.json")
if len(files) != 1:
    sys.exit(f"expected one results.json under {out}/runs, found {len(files)}")
doc = json.load(open(files[0], encoding="utf-8"))
cases = {c["id"]: c for c in doc["cases"]}
problems = []


def expect(case_id, outcome, checked=None):
    c = cases.get(case_id)
    if c is None:
        problems.append(f"{case_id}: no result")
        return
    if c["outcome"] != outcome:
        problems.append(f"{case_id}: outcome {c['outcome']} ({(c.get('error') or {}).get('message', '')}), expected {outcome}")
    if checked and c.get("checked") != checked:
        problems.append(f"{case_id}: checked {c.get('checked')!r}, expected {checked!r}")


if slice_ == "opinfo":
    expect("torch/abs/float32-default-sample=0-eager", "pass", "reference")
    expect("torch/abs/bool-default-sample=0-eager", "fail")
    abs32 = cases["torch/abs/float32-default-sample=0-eager"]
    if abs32.get("policy") != "once" or abs32["latency"]["samples_ns"]:
        problems.append(f"abs float32 was not run once: policy {abs32.get('policy')}, samples {abs32['latency']['samples_ns']}")
    if abs32.get("claims") != {"cpu": True, "cuda": True}:
        problems.append(f"abs float32 claims {abs32.get('claims')}")
    claims = doc.get("claims", {}).get("torch", {}).get("cpu")
    rows = 0 if claims is None else claims["agrees"] + len(claims["claimed_failing"]) + len(claims["unclaimed_working"])
    if rows != 6:  # 2 functions x 3 dtypes
        problems.append(f"claims on cpu count {rows} (function, dtype) rows, expected 6: {claims}")
elif slice_ == "jax-primitives":
    mine = [c for c in doc["cases"] if c["function"] == "cumsum"]
    if not mine:
        problems.append("no cumsum harness ran")
    for c in mine:
        if c["outcome"] != "pass" or c.get("policy") != "once" or set(c.get("claims", {})) != {"cpu", "cuda"}:
            problems.append(f"{c['id']}: {c['outcome']}, policy {c.get('policy')}, claims {c.get('claims')}")
    if "jax" not in doc.get("claims", {}):
        problems.append("no claims block for jax")
else:
    svd = [c for c in doc["cases"] if c["function"] == "tf.linalg.svd"]
    if not svd or any(c["outcome"] != "pass" for c in svd):
        problems.append(f"tf.linalg.svd complex64: {[(c['id'], c['outcome']) for c in svd]}")
    gpu = doc.get("kernels", {}).get("tensorflow", {}).get("unobserved_missing", {}).get("gpu", [])
    if not any("Svd(T=complex64)" in row["missing"].get("gpu", []) for row in gpu):
        problems.append(f"no predicted missing GPU kernel Svd(T=complex64): {gpu}")
if problems:
    sys.exit(f"{slice_}: " + "; ".join(problems))
print(f"{slice_}: {len(doc['cases'])} cases as expected")
PY
