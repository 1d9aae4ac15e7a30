"""A graph as a function of torch tensors (backends `torch`, `torch-compile`).

`torch_function(graph)` returns `fn(*inputs) -> tuple of outputs`, one torch
op per node (docs/fuzz.md gives each op's semantics). The runner times it as
it is (`torch`) or through `torch.compile` (`torch-compile`, the adapter's
compile). Every node's attributes are read before `fn` exists, so what a
compiler traces is torch ops only.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import numpy as np
import torch
import torch.nn.functional as F

from .graph import Graph, Node, attr, axes_of, clamp_bounds, conv_attrs, operand_dtypes, pad_pairs, pool_attrs

TORCH_DTYPES = {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64,
                "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}

TorchStep = Callable[[list[Any]], Any]


def torch_function(graph: Graph) -> Callable[..., tuple[Any, ...]]:
    """The graph as `fn(*inputs)`, inputs in graph input order."""
    steps = [(node.name, [(a, TORCH_DTYPES[d]) for a, d in zip(node.inputs, operand_dtypes(graph, node))],
              _torch_op(node), TORCH_DTYPES[node.dtype]) for node in graph.nodes]
    names = [x.name for x in graph.inputs]
    outputs = list(graph.outputs)

    def fn(*inputs: Any) -> tuple[Any, ...]:
        values = dict(zip(names, inputs))
        for name, operands, op, dtype in steps:
            args = [values[a] if values[a].dtype == d else values[a].to(d) for a, d in operands]
            out = op(args)
            values[name] = out if out.dtype == dtype else out.to(dtype)
        return tuple(values[o] for o in outputs)

    # Each graph compiles afresh however many share this code object
    # (TorchAdapter.compile).
    return fn


def _torch_op(node: Node) -> TorchStep:
    """The node's op as `step(operands) -> tensor`, its attributes bound."""
    op = node.op
    simple = _TORCH_SIMPLE.get(op)
    if simple is not None:
        return simple
    if op == "leaky_relu":
        alpha = float(attr(node, "alpha"))
        return lambda a: F.leaky_relu(a[0], alpha)
    if op == "cast":
        to = TORCH_DTYPES[node.dtype]
        return lambda a: a[0].to(to)
    if op == "clamp":
        low, high = clamp_bounds(node, node.dtype)
        return lambda a: torch.clamp(a[0], low, high)
    if op in ("conv1d", "conv2d"):
        stride, padding, dilation, groups = conv_attrs(node)
        conv = F.conv1d if op == "conv1d" else F.conv2d
        return lambda a: conv(a[0], a[1], a[2], stride, padding, dilation, groups)
    if op in ("max_pool2d", "avg_pool2d"):
        kernel, stride, padding = pool_attrs(node)
        if op == "max_pool2d":
            return lambda a: F.max_pool2d(a[0], kernel, stride, padding)
        return lambda a: F.avg_pool2d(a[0], kernel, stride)
    if op.startswith("reduce_"):
        return _torch_reduce(node)
    if op in ("softmax", "log_softmax"):
        axis = int(attr(node, "axis"))
        return (lambda a: torch.softmax(a[0], axis)) if op == "softmax" else (lambda a: torch.log_softmax(a[0], axis))
    return _torch_layout(node)


def _torch_reduce(node: Node) -> TorchStep:
    axes, keep = axes_of(node), bool(node.attrs.get("keepdims", False))
    fn = {"reduce_sum": torch.sum, "reduce_max": torch.amax, "reduce_min": torch.amin, "reduce_mean": torch.mean}[node.op]
    return lambda a: fn(a[0], dim=axes, keepdim=keep)


def _torch_layout(node: Node) -> TorchStep:
    """Normalizations and the ops that move values around."""
    op = node.op
    if op == "layer_norm":
        k, eps = int(attr(node, "normalized_dims")), float(attr(node, "eps"))
        return lambda a: F.layer_norm(a[0], a[0].shape[a[0].dim() - k:], eps=eps)
    if op == "batch_norm":
        eps = float(attr(node, "eps"))
        return lambda a: F.batch_norm(a[0], a[1], a[2], a[3], a[4], training=False, eps=eps)
    if op in ("reshape", "expand"):
        shape = [int(d) for d in attr(node, "shape")]
        return (lambda a: torch.reshape(a[0], shape)) if op == "reshape" else (lambda a: a[0].expand(shape))
    if op == "transpose":
        perm = [int(p) for p in attr(node, "perm")]
        return lambda a: a[0].permute(perm)
    if op == "concat":
        axis = int(attr(node, "axis"))
        return lambda a: torch.cat(a, dim=axis)
    if op == "slice":
        axis, start, end, step = int(attr(node, "axis")), int(attr(node, "start")), int(attr(node, "end")), int(node.attrs.get("step", 1))
        return lambda a: a[0][(slice(None),) * axis + (slice(start, end, step),)]
    if op == "pad":
        rank = len(node.shape)
        flat = [p for pair in reversed(pad_pairs(node, rank)) for p in pair]  # last dim first
        return lambda a: F.pad(a[0], flat)
    if op in ("unsqueeze", "squeeze"):
        axis = int(attr(node, "axis"))
        return (lambda a: torch.unsqueeze(a[0], axis)) if op == "unsqueeze" else (lambda a: torch.squeeze(a[0], axis))
    raise ValueError(f"node {node.name}: torch has no materialization of op {op!r}")


_TORCH_SIMPLE: dict[str, TorchStep] = {
    "neg": lambda a: torch.neg(a[0]),
    "abs": lambda a: torch.abs(a[0]),
    "square": lambda a: a[0] * a[0],
    "exp": lambda a: torch.exp(a[0]),
    "log": lambda a: torch.log(a[0]),
    "sqrt": lambda a: torch.sqrt(a[0]),
    "rsqrt": lambda a: torch.rsqrt(a[0]),
    "reciprocal": lambda a: torch.reciprocal(a[0]),
    "sin": lambda a: torch.sin(a[0]),
    "cos": lambda a: torch.cos(a[0]),
    "tanh": lambda a: torch.tanh(a[0]),
    "sigmoid": lambda a: torch.sigmoid(a[0]),
    "relu": lambda a: torch.relu(a[0]),
    "elu": lambda a: F.elu(a[0]),
    "softplus": lambda a: F.softplus(a[0]),
    "gelu": lambda a: F.gelu(a[0], approximate="tanh"),
    "add": lambda a: torch.add(a[0], a[1]),
    "sub": lambda a: torch.sub(a[0], a[1]),
    "mul": lambda a: torch.mul(a[0], a[1]),
    "maximum": lambda a: torch.maximum(a[0], a[1]),
    "minimum": lambda a: torch.minimum(a[0], a[1]),
    "div": lambda a: torch.div(a[0], a[1]),
    "pow": lambda a: torch.pow(a[0], a[1]),
    "greater": lambda a: torch.gt(a[0], a[1]),
    "less": lambda a: torch.lt(a[0], a[1]),
    "where": lambda a: torch.where(a[0], a[1], a[2]),
    "matmul": lambda a: torch.matmul(a[0], a[1]),
    "linear": lambda a: F.linear(a[0], a[1], a[2]),
}


# --------------------------------------------------------------------------
# How reproduce.py reaches torch (the check command, reproduction scripts)
# --------------------------------------------------------------------------

def torch_glue() -> dict[str, Callable[..., Any]]:
    """reproduce.py's glue for torch (eager; torch.compile as the compiler)."""

    def place(array: np.ndarray, device: str) -> Any:
        return torch.from_numpy(np.asarray(array, order="C")).to(torch.device(device))

    def sync(device: str, out: Any) -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize(torch.device(device))

    return {
        "function": lambda graph, device: torch_function(graph),
        "place": place,
        "host": lambda value: np.asarray(value.detach().cpu().numpy()),
        "sync": sync,
        "compile": torch.compile,
        "scope": lambda device: contextlib.nullcontext(),
        "version": lambda: f"torch {torch.__version__}",
    }
