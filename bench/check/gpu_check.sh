#!/usr/bin/env bash
# `mudjack check` and `mudjack.check` of an own torch module on cpu and
# cuda:0 of a GPU machine whose system Python has torch (the lent machines):
# the table of each and its wall time, into OUTDIR.
# Usage: bench/check/gpu_check.sh BINARY OUTDIR
set -euo pipefail
binary=$(realpath "$1")
out=$(realpath -m "$2")
mkdir -p "$out"
repo=$(cd "$(dirname "$0")/../.." && pwd)
export MUDJACK_DATA_DIR=$repo MUDJACK_BINARY=$binary PYTHONPATH=$repo/python
python=$(command -v python3)
cat > "$out/own.py" <<'PY'
import torch


class Block(torch.nn.Module):
    """A pre-norm MLP block: layer norm, two linears, GELU, residual."""

    def __init__(self, width: int = 512) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


block = Block()


def block_inputs():
    return (torch.randn(64, 512),)
PY
cd "$out"
{ echo "\$ mudjack check own.py:block --device cpu --device cuda:0"
  /usr/bin/time -f "wall %e s" "$binary" check own.py:block --device cpu --device cuda:0 \
    --python "torch=$python" --out "$out/results" 2>&1 || true
  echo
  echo "\$ mudjack check own.py:block --quick --device cpu --device cuda:0"
  /usr/bin/time -f "wall %e s" "$binary" check own.py:block --quick --device cpu --device cuda:0 \
    --python "torch=$python" --out "$out/results" 2>&1 || true
} > "$out/cli.txt"
cat > "$out/api.py" <<'PY'
import sys
import time

import torch

import mudjack

sys.path.insert(0, ".")
from own import Block  # noqa: E402

torch.manual_seed(0)
block = Block()
x = torch.randn(64, 512)
for quick in (True, False):
    start = time.perf_counter()
    result = mudjack.check(block, x, devices=["cpu", "cuda:0"], quick=quick, out="results-api")
    print(f"mudjack.check(block, x, devices=['cpu', 'cuda:0'], quick={quick}): "
          f"{time.perf_counter() - start:.1f} s, ok={result.ok}")
    print(result)
    print()
print(torch.cuda.get_device_name(0))
PY
"$python" api.py > "$out/api.txt" 2>&1 || true
