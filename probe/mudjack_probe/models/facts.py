"""What a model is: size, work, operators, structure.

Reported as the case's metrics (numbers, so they travel in results.json,
results.csv and the Models table without a new field): `params`, `flops`
(one forward pass, torch.utils.flop_counter), `op:<aten op>` (the operator
histogram of one eager forward pass, as dispatched) or, for the onnxruntime
stage, `onnx:<op type>` (the exported graph's nodes), and `structure_hash`
(the first 52 bits of a SHA-256 over the operators in order, their
argument shapes, dtypes and non-tensor arguments, not the weights' values;
the ONNX stage's over node types, attributes and initializer shapes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

from ..api import Metric

HASH_BITS = 52  # exact in a JSON double


def _shape_sig(value: Any) -> Any:
    """A value as its structure: a tensor's shape and dtype, containers
    element by element, anything else its repr."""
    import torch

    if isinstance(value, torch.Tensor):
        return ("T", tuple(value.shape), str(value.dtype))
    if isinstance(value, (list, tuple)):
        return tuple(_shape_sig(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _shape_sig(v)) for k, v in sorted(value.items()))
    return repr(value)


def _hash_metric(digest: Any) -> Metric:
    return Metric("structure_hash", int(digest.hexdigest()[: HASH_BITS // 4], 16), "hash")


def eager_facts(m: Any, forward: Callable[..., Any], args: tuple[Any, ...]) -> list[Metric]:
    """params, flops, the dispatched operator histogram and the structure
    hash, from one extra forward pass. FLOPs are torch's own counter's
    formulas (torch.utils.flop_counter's registry, what FlopCounterMode
    sums), applied here: FlopCounterMode's module tracker asserts on some
    models under no_grad (timm's PiT: "Expected gradient function to be
    set"). A model whose facts cannot be taken still runs: only its params."""
    import torch

    facts = [Metric("params", sum(p.numel() for p in m.parameters()))]
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils.flop_counter import flop_registry
    except ImportError:
        return facts
    ops: dict[str, int] = {}
    flops = [0]
    digest = hashlib.sha256()

    class Recording(TorchDispatchMode):  # type: ignore[misc]
        def __torch_dispatch__(self, func: Any, types: Any, a: Any = (), kw: Any = None) -> Any:
            kw = kw or {}
            packet = func.overloadpacket
            ops[str(packet)] = ops.get(str(packet), 0) + 1
            digest.update(repr((str(func), _shape_sig(a), _shape_sig(kw))).encode())
            out = func(*a, **kw)
            if packet in flop_registry:
                flops[0] += int(flop_registry[packet](*a, **kw, out_val=out))
            return out

    try:
        with torch.no_grad(), Recording():
            forward(m, *args)
    except Exception:  # a model the dispatch mode cannot follow: its case still runs
        return facts
    facts += [Metric("flops", flops[0], "FLOP"), _hash_metric(digest)]
    return facts + [Metric(f"op:{k}", v, "op") for k, v in sorted(ops.items())]


def onnx_facts(path: Path) -> list[Metric]:
    """The exported graph's node histogram and structure hash (weights not read)."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    ops: dict[str, int] = {}
    digest = hashlib.sha256()
    for init in graph.initializer:
        digest.update(repr((init.name, tuple(init.dims), init.data_type)).encode())
    for node in graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
        attrs = sorted((a.name, str(onnx.helper.get_attribute_value(a))[:200]) for a in node.attribute)
        digest.update(repr((node.domain, node.op_type, len(node.input), len(node.output), attrs)).encode())
    return [_hash_metric(digest)] + [Metric(f"onnx:{k}", v, "op") for k, v in sorted(ops.items())]
