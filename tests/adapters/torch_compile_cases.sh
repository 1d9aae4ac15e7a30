#!/usr/bin/env bash
# CTest torch_compile_cases (label `adapters`): the torch adapter compiles
# every case, however many share a code object. Dynamo keeps compiled code on
# the function's code object and runs it eagerly, silently, after 8 entries;
# a probe's compiled cases share code objects (a suite helper's closure, the
# models' forward), so without a fresh compile per case the ninth on ran
# eager while reported `compiled`. Twelve closures of one function, each over
# another module, compiled through TorchAdapter.compile: each must make a
# graph of its own (Dynamo's unique_graphs counter).
# Exit 77 (skipped, never passed) when the torch environment is absent.
#   tests/adapters/torch_compile_cases.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env torch
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
python="$cache/envs/torch-current-$(sha256sum envs/current/torch.txt | cut -c1-16)/bin/python"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
TORCHINDUCTOR_CACHE_DIR="$out/inductor" PYTHONPATH=probe "$python" - <<'PY'
import sys

import torch
from torch._dynamo.utils import counters

from mudjack_probe.adapters.torch_adapter import TorchAdapter


def case(module: torch.nn.Module):
    def fn(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return module(x)
    return fn


adapter = TorchAdapter()
adapter.select("cpu")
x = torch.randn(4, 8)
graphs = []
for i in range(12):
    before = counters["stats"]["unique_graphs"]
    adapter.compile(case(torch.nn.Linear(8, 8 + i)))(x)
    graphs.append(counters["stats"]["unique_graphs"] - before)
if graphs != [1] * 12:
    sys.exit(f"torch_compile_cases: graphs compiled per case {graphs}; every case must compile its own")
print("torch_compile_cases: 12 cases sharing one code object, 12 graphs compiled")
PY
