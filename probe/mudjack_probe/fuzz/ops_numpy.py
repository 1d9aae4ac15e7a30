"""A graph evaluated with NumPy: the float64 reference, and the `numpy` backend.

`evaluate(graph, inputs)` is the reference the accuracy oracle judges every
backend against (docs/fuzz.md): each op computed in float64 (integers in
int64, bools as bools), rounding only where the graph says so, at `cast`
nodes (to float16: rounded to float16 and widened back; to int32: truncated
toward zero).

`evaluate(graph, inputs, native=True)` is the `numpy` backend: the graph in
its own dtypes, every node rounded to its declared dtype (float16 ops
computed in float32 first, as the frameworks' CPU kernels do).

`ops` replaces ops by name (the planted-bug fixture breaks `add` this way):
each op is `fn(node, args) -> array` over operands already converted to the
dtype it computes in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from .graph import GELU_C, Graph, Node, attr, axes_of, clamp_bounds, conv_attrs, operand_dtypes, pad_pairs, pool_attrs

NumpyOp = Callable[[Node, list[Any]], Any]


def evaluate(graph: Graph, inputs: Sequence[Any], native: bool = False, ops: Mapping[str, NumpyOp] | None = None) -> list[np.ndarray]:
    """The graph's outputs, in order, from host `inputs` (in input order;
    floating inputs may come widened to float64)."""
    values = evaluate_values(graph, inputs, native, ops)
    return [np.array(values[name]) for name in graph.outputs]


def evaluate_values(graph: Graph, inputs: Sequence[Any], native: bool = False,
                    ops: Mapping[str, NumpyOp] | None = None) -> dict[str, Any]:
    """Every value of the graph (inputs and nodes), by name, as evaluate computes them."""
    table = {**NUMPY_OPS, **(ops or {})}
    values: dict[str, Any] = {}
    for x, value in zip(graph.inputs, inputs):
        values[x.name] = np.asarray(value).astype(x.dtype if native else _wide(x.dtype))
    with np.errstate(all="ignore"):
        for node in graph.nodes:
            wanted = operand_dtypes(graph, node)
            args = [np.asarray(values[a]).astype(_computes_in(d, native)) for a, d in zip(node.inputs, wanted)]
            out = np.asarray(table[node.op](node, args))
            if native:
                out = out.astype(node.dtype)
            elif node.op == "cast":
                out = out.astype(node.dtype).astype(_wide(node.dtype))
            else:
                out = out.astype(_wide(node.dtype))
            values[node.name] = out
    return values


def _wide(dtype: str) -> str:
    if dtype.startswith("float"):
        return "float64"
    if dtype.startswith("int"):
        return "int64"
    return dtype


def _computes_in(dtype: str, native: bool) -> str:
    if not native:
        return _wide(dtype)
    return "float32" if dtype == "float16" else dtype


def _sigmoid(x: Any) -> Any:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _gelu(x: Any) -> Any:
    return 0.5 * x * (1 + np.tanh(GELU_C * (x + 0.044715 * x * x * x)))


def _conv(node: Node, args: list[Any]) -> Any:
    x, w, b = args
    stride, padding, dilation, groups = conv_attrs(node)
    dims = len(stride)
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    kernel = w.shape[2:]
    span = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    windows = np.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + dims)))
    pick = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d) for d in dilation)
    windows = windows[pick]  # [N, C, *out, *kernel]
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    windows = windows.reshape(n, groups, c // groups, *windows.shape[2:])
    wg = w.reshape(groups, o // groups, c // groups, *kernel)
    spec = "ngclk,gock->ngol" if dims == 1 else "ngchwij,gocij->ngohw"
    out = np.einsum(spec, windows, wg, optimize=True)
    return out.reshape(n, o, *out.shape[3:]) + b.reshape(1, o, *([1] * dims))


def _pool_windows(node: Node, x: Any, fill: float) -> Any:
    kernel, stride, padding = pool_attrs(node)
    x = np.pad(x, [(0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])], constant_values=fill)
    windows = np.lib.stride_tricks.sliding_window_view(x, kernel, axis=(2, 3))
    return windows[:, :, ::stride[0], ::stride[1]]


def _reduce(fn: Callable[..., Any]) -> NumpyOp:
    return lambda node, a: fn(a[0], axis=tuple(axes_of(node)), keepdims=bool(node.attrs.get("keepdims", False)))


def _softmax(node: Node, args: list[Any]) -> Any:
    x, axis = args[0], int(attr(node, "axis"))
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(node: Node, args: list[Any]) -> Any:
    x, axis = args[0], int(attr(node, "axis"))
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _layer_norm(node: Node, args: list[Any]) -> Any:
    x, k = args[0], int(attr(node, "normalized_dims"))
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = np.mean(x, axis=axes, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + float(attr(node, "eps")))


def _batch_norm(node: Node, args: list[Any]) -> Any:
    x, mean, var, w, b = args
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    scale = w.reshape(shape) / np.sqrt(var.reshape(shape) + float(attr(node, "eps")))
    return (x - mean.reshape(shape)) * scale + b.reshape(shape)


def _slice(node: Node, args: list[Any]) -> Any:
    x, axis = args[0], int(attr(node, "axis"))
    index = [slice(None)] * x.ndim
    index[axis] = slice(int(attr(node, "start")), int(attr(node, "end")), int(node.attrs.get("step", 1)))
    return x[tuple(index)]


def _clamp(node: Node, args: list[Any]) -> Any:
    low, high = clamp_bounds(node, node.dtype)
    return np.minimum(np.maximum(args[0], low), high)


NUMPY_OPS: dict[str, NumpyOp] = {
    "neg": lambda n, a: -a[0],
    "abs": lambda n, a: np.abs(a[0]),
    "square": lambda n, a: a[0] * a[0],
    "exp": lambda n, a: np.exp(a[0]),
    "log": lambda n, a: np.log(a[0]),
    "sqrt": lambda n, a: np.sqrt(a[0]),
    "rsqrt": lambda n, a: 1 / np.sqrt(a[0]),
    "reciprocal": lambda n, a: 1 / a[0],
    "sin": lambda n, a: np.sin(a[0]),
    "cos": lambda n, a: np.cos(a[0]),
    "tanh": lambda n, a: np.tanh(a[0]),
    "sigmoid": lambda n, a: _sigmoid(a[0]),
    "relu": lambda n, a: np.maximum(a[0], 0),
    "leaky_relu": lambda n, a: np.where(a[0] >= 0, a[0], float(attr(n, "alpha")) * a[0]),
    "elu": lambda n, a: np.where(a[0] > 0, a[0], np.expm1(a[0])),
    "softplus": lambda n, a: np.logaddexp(0, a[0]),
    "gelu": lambda n, a: _gelu(a[0]),
    "cast": lambda n, a: a[0],  # the rounding is evaluate's, after every op
    "add": lambda n, a: a[0] + a[1],
    "sub": lambda n, a: a[0] - a[1],
    "mul": lambda n, a: a[0] * a[1],
    "maximum": lambda n, a: np.maximum(a[0], a[1]),
    "minimum": lambda n, a: np.minimum(a[0], a[1]),
    "div": lambda n, a: a[0] / a[1],
    "pow": lambda n, a: np.power(a[0], a[1]),
    "greater": lambda n, a: np.greater(a[0], a[1]),
    "less": lambda n, a: np.less(a[0], a[1]),
    "where": lambda n, a: np.where(a[0], a[1], a[2]),
    "clamp": _clamp,
    "matmul": lambda n, a: np.matmul(a[0], a[1]),
    "linear": lambda n, a: np.matmul(a[0], a[1].T) + a[2],
    "conv1d": _conv,
    "conv2d": _conv,
    "max_pool2d": lambda n, a: np.max(_pool_windows(n, a[0], -np.inf), axis=(-2, -1)),
    "avg_pool2d": lambda n, a: np.mean(_pool_windows(n, a[0], 0.0), axis=(-2, -1)),
    "reduce_sum": _reduce(np.sum),
    "reduce_max": _reduce(np.max),
    "reduce_min": _reduce(np.min),
    "reduce_mean": _reduce(np.mean),
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "layer_norm": _layer_norm,
    "batch_norm": _batch_norm,
    "reshape": lambda n, a: np.reshape(a[0], [int(d) for d in attr(n, "shape")]),
    "transpose": lambda n, a: np.transpose(a[0], [int(p) for p in attr(n, "perm")]),
    "concat": lambda n, a: np.concatenate(a, axis=int(attr(n, "axis"))),
    "slice": _slice,
    "pad": lambda n, a: np.pad(a[0], pad_pairs(n, a[0].ndim)),
    "unsqueeze": lambda n, a: np.expand_dims(a[0], int(attr(n, "axis"))),
    "squeeze": lambda n, a: np.squeeze(a[0], axis=int(attr(n, "axis"))),
    "expand": lambda n, a: np.broadcast_to(a[0], [int(d) for d in attr(n, "shape")]),
}
"""Every op of docs/fuzz.md in NumPy."""


def numpy_glue() -> dict[str, Callable[..., Any]]:
    """reproduce.py's glue for the `numpy` backend (the graph in its own dtypes)."""
    return {
        "function": lambda graph, device: (lambda *xs: tuple(evaluate(graph, xs, native=True))),
        "place": lambda array, device: np.asarray(array),
        "host": lambda value: np.asarray(value),
        "sync": lambda device, out: None,
        "compile": lambda fn: fn,
        "scope": lambda device: contextlib.nullcontext(),
        "version": lambda: "the numpy backend",
    }
