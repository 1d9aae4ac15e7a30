"""Writes suites/paper/opinfo-claims.json: the dtypes PyTorch's OpInfo
database claims, per device kind, for each torch function of the `paper`
suite that has an OpInfo entry doing what the case does, read from
suites/opinfo/manifest.json (no torch import).

The engine (run::judge, verdict::apply_claims_map) gives a torch case with
no claims of its own the claims of its function's entry, when the run's torch
has the manifest's major.minor version: the function's domain then comes from
OpInfo rather than from the refusal's message (docs/design.md, "domain vs
device gap"). Modules with learnable parameters (Linear, Conv2d, Conv3d,
LSTMCell, Transformer) are not mapped: their integer cases are refused by the
parameters' contract (grad on integers), not by the functional op's dtypes.

  python3 scripts/update-paper-opinfo-claims.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "suites" / "opinfo" / "manifest.json"
OUT = ROOT / "suites" / "paper" / "opinfo-claims.json"

# paper function -> OpInfo entry (its "" variant): the same op on the case's dtype.
MAP = {
    "torch.Tensor.to": "to",
    "torch.addr": "addr",
    "torch.argsort": "argsort",
    "torch.bitwise_not": "bitwise_not",
    "torch.broadcast_tensors": "broadcast_tensors",
    "torch.cat": "cat",
    "torch.diag": "diag",
    "torch.fliplr": "fliplr",
    "torch.linalg.matrix_rank": "linalg.matrix_rank",
    "torch.lt": "lt",
    "torch.moveaxis": "movedim",
    "torch.multinomial": "multinomial",
    "torch.nn.AdaptiveAvgPool3d": "nn.functional.adaptive_avg_pool3d",
    "torch.nn.BCEWithLogitsLoss": "nn.functional.binary_cross_entropy_with_logits",
    "torch.nn.GELU": "nn.functional.gelu",
    "torch.nn.KLDivLoss": "nn.functional.kl_div",
    "torch.nn.functional.dropout": "nn.functional.dropout",
    "torch.round": "round",
    "torch.slogdet": "linalg.slogdet",
    "torch.sum": "sum",
    "torch.triangular_solve": "triangular_solve",
    "torch.zeros": "zeros",
}


def build() -> dict:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    entries = {o["name"]: o for o in manifest["ops"] if o["variant"] == ""}
    functions = {}
    for function, name in sorted(MAP.items()):
        entry = entries.get(name)
        if entry is None:
            raise SystemExit(f"update-paper-opinfo-claims: {function}: no OpInfo entry {name!r} in {MANIFEST}")
        functions[function] = {"opinfo": name, "cpu": entry["cpu"], "cuda": entry["cuda"]}
    return {"torch": manifest["torch"], "source": "suites/opinfo/manifest.json",
            "command": "python3 scripts/update-paper-opinfo-claims.py", "functions": functions}


def main() -> int:
    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    if "--check" in sys.argv[1:]:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale: run python3 scripts/update-paper-opinfo-claims.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"update-paper-opinfo-claims: {len(MAP)} functions from OpInfo ({json.loads(text)['torch']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
