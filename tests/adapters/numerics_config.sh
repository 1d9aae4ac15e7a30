#!/usr/bin/env bash
# CTest numerics_config (label `adapters`): the verdicts that depend on float
# rounding hold under a second numerics configuration of this machine's CPU,
# so a kernel-order change (another CPU, another oneDNN path) is seen here
# before a user sees it (issue 45: a correct ResNet-18 read `mismatch` on an
# AMD EPYC). The configuration: ATen's portable kernels
# (ATEN_CPU_CAPABILITY=default, no AVX2/AVX-512 paths), oneDNN held to SSE4.1
# (DNNL_MAX_CPU_ISA), one thread (OMP_NUM_THREADS=1): other summation orders
# than the default build's. Under it:
#   - the torch probe's ATen really runs at capability DEFAULT;
#   - `mudjack check` of the hand-written ResNet-18 passes, its error printed;
#   - a model with about 24 eps planted passes (a composition), a function
#     with the same plant is a mismatch (an op's 6 eps);
#   - the models suite's torch models of set::tiny pass eager, and a slice of
#     the paper suite's contractions and reductions gives no mismatch.
# Exit 77 (skipped, never passed) when the torch environment is absent.
#   tests/adapters/numerics_config.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env torch
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
py="$cache/envs/torch-current-$(sha256sum envs/current/torch.txt | cut -c1-16)/bin/python"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ATEN_CPU_CAPABILITY=default DNNL_MAX_CPU_ISA=SSE41 OMP_NUM_THREADS=1
capability=$("$py" -c 'import torch; print(torch.backends.cpu.get_cpu_capability())')
[ "$capability" = DEFAULT ] || { echo "ATEN_CPU_CAPABILITY=default gave capability $capability" >&2; exit 1; }

# check FILE (or FILE:NAME) on cpu, eager float32; prints the table, keeps the JSON.
check() {
  local target=$1 name=$2
  "$bin" check "$target" --quick --device cpu --out "$out/check" >"$out/$name.txt" 2>&1 || true
  cat "$out/$name.txt"
}
check suites/models/resnet18.py resnet18
grep -Eq "^ResNet +cpu +eager +float32 +pass " "$out/resnet18.txt" ||
  { echo "resnet18 is not a pass under the second numerics configuration" >&2; exit 1; }
check tests/fixtures/check/planted.py:net net
grep -Eq "^net +cpu +eager +float32 +pass " "$out/net.txt" ||
  { echo "a model with 24 eps planted is not a pass (a composition)" >&2; exit 1; }
check tests/fixtures/check/planted.py:scaled_tanh tanh
grep -Eq "^scaled_tanh +cpu +eager +float32 +mismatch " "$out/tanh.txt" ||
  { echo "a function with 24 eps planted is not a mismatch (an op's bound)" >&2; exit 1; }

mkdir -p "$out/models" "$out/paper"
run_into "$bin" "$out/models" --suite models --labels set::tiny --framework torch --mode eager \
  --device cpu --param max_seq_length=16 --param height=64 --param width=64 --budget-ms 2 \
  --rounds 1 --timeout-s 900
run_into "$bin" "$out/paper" --suite paper --framework torch --device cpu --mode eager \
  --function 'torch.sum' --function 'torch.nn.Conv2d' --function 'torch.nn.Conv3d' \
  --function 'torch.nn.Linear' --function 'torch.addr' --function 'torch.nn.Transformer' \
  --budget-ms 1 --rounds 1
python3 - "$out" <<'PY'
import glob, json, sys

problems = []
for folder, allowed in (("models", {"pass"}), ("paper", None)):
    (path,) = glob.glob(f"{sys.argv[1]}/{folder}/runs/*/results.json")
    cases = json.load(open(path, encoding="utf-8"))["cases"]
    if not cases:
        problems.append(f"{folder}: no cases ran")
    for c in cases:
        bad = c["outcome"] not in allowed if allowed else c["outcome"] == "mismatch"
        if bad:
            problems.append(f"{folder}: {c['id']}: {c['outcome']}: {c['numeric'].get('message') or c['error']}")
    worst = max((c["numeric"].get("error_eps") or 0 for c in cases), default=0)
    print(f"numerics_config: {folder}: {len(cases)} cases, largest error {worst:.3g} eps")
if problems:
    sys.exit("numerics_config:\n  " + "\n  ".join(problems[:20]))
PY
echo "numerics_config: the composition rule and the op bounds hold with ATen default, oneDNN SSE4.1, one thread"
