#!/usr/bin/env bash
# `mudjack check` on this machine's CPU: --quick of a 3-line function
# against its float64 reference (torch and numpy), the same from the Python
# API, and the full check of a small nn.Module; each with its wall time.
# Usage: bench/check/cpu_check.sh [BINARY] [OUTDIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
binary=$(realpath "${1:-$repo/build/mudjack}")
out=$(realpath -m "${2:-$(mktemp -d)}")
mkdir -p "$out"
torch_python=$("$binary" doctor --framework torch --json | python3 -c \
  'import json, sys; print(json.load(sys.stdin)["frameworks"][0]["interpreter"])')
cat > "$out/own.py" <<'PY'
import numpy as np
import torch


def rms_norm(x):  # three lines, checked against its float64 reference
    scale = torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)
    return x * scale


def rms_norm_inputs():
    return (torch.randn(64, 256),)


def softplus_np(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def softplus_np_inputs():
    return (np.linspace(-5, 5, 1000, dtype=np.float32),)


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(128)
        self.lin = torch.nn.Linear(128, 128)

    def forward(self, x):
        return x + torch.relu(self.lin(self.norm(x)))


block = Block()


def block_inputs():
    return (torch.randn(16, 128),)
PY
cd "$out"
timed() {
  echo "\$ $*"
  local start end
  start=$(date +%s.%N)
  "$@" || true
  end=$(date +%s.%N)
  python3 -c "print(f'wall {$end - $start:.1f} s')"
  echo
}
{
  timed "$binary" check own.py:rms_norm --quick --out "$out/results"
  timed "$binary" check own.py:softplus_np --quick --out "$out/results"
  timed "$binary" check own.py:block --out "$out/results"
  cat > api.py <<'PY'
import time

import torch

import mudjack


def rms_norm(x):
    scale = torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)
    return x * scale


start = time.perf_counter()
result = mudjack.check(rms_norm, torch.randn(64, 256), quick=True, out="results-api")
print(result)
print(f"mudjack.check(rms_norm, x, quick=True): wall {time.perf_counter() - start:.1f} s")
PY
  echo "\$ python api.py   # mudjack.check(rms_norm, torch.randn(64, 256), quick=True)"
  PYTHONPATH=$repo/python MUDJACK_BINARY=$binary "$torch_python" api.py || true
} > "$out/cpu.txt" 2>&1
cat "$out/cpu.txt"
