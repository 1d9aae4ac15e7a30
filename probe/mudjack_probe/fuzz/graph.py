"""A generated graph (docs/fuzz.md): loading, light validation, its inputs.

Shared by every materializer (ops_numpy, ops_torch, ops_jax, ops_tf,
ops_onnx) and embedded, source and all, in each reproduction script
(script.py): this module imports only the standard library, the closed
lists of schemas/vocabulary.json (../vocabulary.py) and the accuracy
oracle's error (../eps.py, embedded before it; numpy inside the functions
that draw and judge values, so that listing the fuzz suite needs no numpy),
and its names never collide with a materializer's.

The engine validates a graph fully (every node's shape and dtype re-inferred)
before anything runs; `parse` checks only what the probe relies on (the
format, names, references, arity, the known ops and dtypes), each fault one
line (ValueError).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..eps import error_eps as error_eps  # the fuzz judge's: reproduce.py imports it from here
from ..vocabulary import VOCABULARY

FORMAT = "mudjack.graph/1"

# The lists below come from schemas/vocabulary.json, which the engine writes
# from src/gen/ops.cpp and src/oracle/accuracy.hpp; a reproduction script
# defines VOCABULARY itself (that much of the file, embedded by script.py).

GRAPH_DTYPES: tuple[str, ...] = tuple(VOCABULARY["$defs"]["fuzz_graph_dtype"]["enum"])
"""What a graph's own `dtype` may be: its main floating dtype, or int32."""

VALUE_DTYPES: tuple[str, ...] = tuple(VOCABULARY["$defs"]["fuzz_value_dtype"]["enum"])
"""The dtypes an input or a node may have."""

FLOAT_DTYPES: tuple[str, ...] = tuple(VOCABULARY["accuracy"]["eps"])

ARITY: dict[str, tuple[int, int]] = {op["name"]: (op["min_inputs"], op["max_inputs"]) for op in VOCABULARY["fuzz_ops"]}
"""Every op of docs/fuzz.md with its (fewest, most) inputs."""

OPS = tuple(ARITY)

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")

BACKENDS: dict[str, tuple[str, str]] = {
    "numpy": ("numpy", "eager"),
    "torch": ("torch", "eager"),
    "torch-compile": ("torch", "compiled"),
    "jax": ("jax", "eager"),
    "jax-jit": ("jax", "compiled"),
    "tensorflow": ("tensorflow", "eager"),
    "tensorflow-xla": ("tensorflow", "compiled"),
    "onnxruntime": ("onnxruntime", "eager"),
}
"""Every backend of docs/fuzz.md: (framework, mode). `numpy` is the graph in
its own dtypes with NumPy on the CPU (ops_numpy, native)."""

@dataclass(frozen=True)
class Input:
    """A leaf tensor (weights included), drawn from the run's seed."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    low: float
    high: float


@dataclass(frozen=True)
class Node:
    """One op; its output is named `name`."""

    name: str
    op: str
    inputs: tuple[str, ...]
    attrs: dict[str, Any]
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class Graph:
    seed: int
    dtype: str
    reduction: int
    inputs: tuple[Input, ...]
    nodes: tuple[Node, ...]
    outputs: tuple[str, ...]
    dtypes: dict[str, str] = field(default_factory=dict)  # every value's declared dtype, by name
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)  # every value's declared shape


def load_graph(path: str) -> Graph:
    """The graph in file `path`; ValueError (one line naming the file) when
    it cannot be read or is malformed."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot be read: {exc}") from None
    try:
        return parse_graph(text)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def parse_graph(text: str) -> Graph:
    """The graph in JSON `text`; ValueError, one line, when it is malformed."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    if doc.get("format") != FORMAT:
        raise ValueError(f"format is {doc.get('format')!r}, not {FORMAT!r}")
    dtype = doc.get("dtype")
    if dtype not in GRAPH_DTYPES:
        raise ValueError(f"dtype {dtype!r} is not one of {', '.join(GRAPH_DTYPES)}")
    reduction = doc.get("reduction")
    if not isinstance(reduction, int) or isinstance(reduction, bool) or reduction < 1:
        raise ValueError(f"reduction {reduction!r} is not a positive integer")
    seed = doc.get("seed", 0)
    dtypes: dict[str, str] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    inputs = tuple(_input(x, i, dtypes, shapes) for i, x in enumerate(_list(doc, "inputs")))
    nodes = tuple(_node(x, i, dtypes, shapes) for i, x in enumerate(_list(doc, "nodes")))
    outputs = _list(doc, "outputs")
    if not outputs:
        raise ValueError("outputs is empty")
    for out in outputs:
        if out not in dtypes:
            raise ValueError(f"output {out!r} names no input or node")
    return Graph(int(seed) if isinstance(seed, int) else 0, dtype, reduction, inputs, nodes, tuple(outputs), dtypes, shapes)


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key)
    if not isinstance(value, list):
        raise ValueError(f"{key} is not a list")
    return value


def _shape(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in value):
        raise ValueError(f"{where}: shape {value!r} is not a list of dimensions >= 1")
    return tuple(value)


def _declare(name: Any, dtype: Any, shape: Any, where: str, dtypes: dict[str, str],
             shapes: dict[str, tuple[int, ...]]) -> tuple[str, str, tuple[int, ...]]:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{where}: name {name!r} does not match [a-z][a-z0-9_]*")
    if name in dtypes:
        raise ValueError(f"{where}: name {name!r} is used twice")
    if dtype not in VALUE_DTYPES:
        raise ValueError(f"{where} ({name}): dtype {dtype!r} is not one of {', '.join(VALUE_DTYPES)}")
    dims = _shape(shape, f"{where} ({name})")
    dtypes[name] = dtype
    shapes[name] = dims
    return name, dtype, dims


def _input(x: Any, i: int, dtypes: dict[str, str], shapes: dict[str, tuple[int, ...]]) -> Input:
    if not isinstance(x, dict):
        raise ValueError(f"inputs[{i}] is not an object")
    name, dtype, dims = _declare(x.get("name"), x.get("dtype"), x.get("shape"), f"inputs[{i}]", dtypes, shapes)
    low, high = x.get("low", 0), x.get("high", 1)
    if not _number(low) or not _number(high) or not low <= high:
        raise ValueError(f"inputs[{i}] ({name}): low {low!r} and high {high!r} are not numbers with low <= high")
    return Input(name, dims, dtype, float(low), float(high))


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _node(x: Any, i: int, dtypes: dict[str, str], shapes: dict[str, tuple[int, ...]]) -> Node:
    if not isinstance(x, dict):
        raise ValueError(f"nodes[{i}] is not an object")
    op = x.get("op")
    if op not in ARITY:
        raise ValueError(f"nodes[{i}]: unknown op {op!r}")
    args = x.get("inputs")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError(f"nodes[{i}] ({op}): inputs is not a list of names")
    fewest, most = ARITY[op]
    if not fewest <= len(args) <= most:
        raise ValueError(f"nodes[{i}] ({op}): {len(args)} inputs, expected {fewest}" + (f" to {most}" if most != fewest else ""))
    for a in args:
        if a not in dtypes:
            raise ValueError(f"nodes[{i}] ({op}): input {a!r} names no input or earlier node")
    attrs = x.get("attrs", {})
    if not isinstance(attrs, dict):
        raise ValueError(f"nodes[{i}] ({op}): attrs is not an object")
    name, dtype, dims = _declare(x.get("name"), x.get("dtype"), x.get("shape"), f"nodes[{i}]", dtypes, shapes)
    return Node(name, op, tuple(args), dict(attrs), dims, dtype)


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def draw_inputs(graph: Graph, seed: int) -> list[Any]:
    """Every input's values, drawn in input order from
    `numpy.random.default_rng(seed)` exactly as docs/fuzz.md says: floating
    `uniform(low, high, shape)` (float64, then cast), integer
    `integers(low, high, shape, endpoint=True)`, bool `integers(0, 1, shape,
    endpoint=True) == 1`. Every backend of a graph sees these values."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for x in graph.inputs:
        if x.dtype == "bool":
            value = np.asarray(rng.integers(0, 1, x.shape, endpoint=True) == 1)
        elif x.dtype in FLOAT_DTYPES:
            value = np.asarray(rng.uniform(x.low, x.high, x.shape)).astype(x.dtype)
        else:
            value = np.asarray(rng.integers(math.ceil(x.low), math.floor(x.high), x.shape, endpoint=True)).astype(x.dtype)
        out.append(value)
    return out


# --------------------------------------------------------------------------
# What materializers share
# --------------------------------------------------------------------------

def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def operand_dtypes(graph: Graph, node: Node) -> list[str]:
    """The dtype each operand of `node` is converted to before the op, so
    that every backend computes the op on the same types whatever its own
    promotion rules (TensorFlow has none): the node's dtype for every op but
    `cast` (its operand as it is), `greater`/`less` (both operands in their
    common dtype) and `where` (a bool condition)."""
    given = [graph.dtypes[a] for a in node.inputs]
    if node.op == "cast":
        return given
    if node.op in ("greater", "less"):
        common = promote(given)
        return [common for _ in given]
    if node.op == "where":
        return ["bool", node.dtype, node.dtype]
    return [node.dtype for _ in given]


_RANK = {"bool": 0, "int32": 1, "int64": 2, "float16": 3, "float32": 4, "float64": 5}


def promote(dtypes: list[str]) -> str:
    """The common dtype of operands: the widest, floats above integers
    (int32 with float16 is float16, as in torch and JAX)."""
    return max(dtypes, key=lambda d: _RANK[d])


def attr(node: Node, key: str) -> Any:
    """An attribute the op needs; ValueError naming the node when it is missing."""
    if key not in node.attrs:
        raise ValueError(f"node {node.name} ({node.op}) has no attribute {key!r}")
    return node.attrs[key]


def pair(value: Any, n: int) -> list[int]:
    """An int or a list of n ints as a list of n ints (conv1d's `stride` is an
    int, conv2d's a pair)."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"expected {n} values, got {list(value)}")
        return [int(v) for v in value]
    return [int(value)] * n


def conv_attrs(node: Node) -> tuple[list[int], list[int], list[int], int]:
    """(stride, padding, dilation, groups) of conv1d or conv2d, one entry per
    spatial dim; padding is on both sides of each dim."""
    dims = 1 if node.op == "conv1d" else 2
    return (pair(node.attrs.get("stride", 1), dims), pair(node.attrs.get("padding", 0), dims),
            pair(node.attrs.get("dilation", 1), dims), int(node.attrs.get("groups", 1)))


def pool_attrs(node: Node) -> tuple[list[int], list[int], list[int]]:
    """(kernel, stride, padding) of max_pool2d or avg_pool2d ([h, w] each;
    stride defaults to the kernel, padding to 0)."""
    kernel = pair(attr(node, "kernel"), 2)
    return kernel, pair(node.attrs.get("stride", kernel), 2), pair(node.attrs.get("padding", 0), 2)


def pad_pairs(node: Node, rank: int) -> list[tuple[int, int]]:
    """`pads` as (before, after) per dim: given as [[b, a], ...] or flat
    [b0, a0, b1, a1, ...]."""
    pads = attr(node, "pads")
    if pads and isinstance(pads[0], (list, tuple)):
        pairs = [(int(p[0]), int(p[1])) for p in pads]
    else:
        pairs = [(int(pads[2 * i]), int(pads[2 * i + 1])) for i in range(len(pads) // 2)]
    if len(pairs) != rank:
        raise ValueError(f"node {node.name} (pad): pads {pads} do not give one pair per dim of {rank}")
    return pairs


def axes_of(node: Node) -> list[int]:
    return [int(a) for a in attr(node, "axes")]


def clamp_bounds(node: Node, dtype: str) -> tuple[Any, Any]:
    """clamp's (min, max) in the operand's kind: integers for an integer
    operand (min rounded up, max down: the same integers are kept)."""
    low, high = attr(node, "min"), attr(node, "max")
    if is_float(dtype):
        return float(low), float(high)
    return math.ceil(low), math.floor(high)


GELU_C = math.sqrt(2.0 / math.pi)
"""sqrt(2/pi) of gelu's tanh approximation."""


# --------------------------------------------------------------------------
# The accuracy oracle's bound, as src/oracle/accuracy.hpp defines it (its
# error is ../eps.py's `error_eps`, imported above)
# --------------------------------------------------------------------------

FLOOR_EPS: dict[str, float] = VOCABULARY["accuracy"]["floor_eps"]
PER_SQRT_K: float = VOCABULARY["accuracy"]["per_sqrt_k"]


def alone_bound(dtype: str, reduction: int) -> float:
    """The oracle's bound, in eps, for one device judged alone:
    max(16 sqrt(K), the dtype's floor)."""
    return max(PER_SQRT_K * math.sqrt(max(reduction, 1)), FLOOR_EPS.get(dtype, 2.0 ** 13))
