"""A graph as an ONNX model run by ONNX Runtime (backend `onnxruntime`).

`onnx_model(graph)` builds the ModelProto directly from the graph with
`onnx.helper` (opset 17: the first with LayerNormalization), one ONNX op per
node where ONNX has one; `onnx_function(graph, providers)` opens an
`InferenceSession` on it and returns `fn(*inputs) -> tuple of outputs` over
host numpy arrays. Operands are cast to the dtype the op computes in
(graph.operand_dtypes), as ONNX wants equal types. Composed from
primitives: `square` (Mul), `rsqrt` (Reciprocal of Sqrt), `gelu` (its tanh
formula, in float32 for float16 inputs), `linear` (MatMul by the transposed
weight, then Add). Constants (shapes, axes, bounds) are initializers.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from .graph import GELU_C, Graph, Node, attr, axes_of, clamp_bounds, conv_attrs, operand_dtypes, pad_pairs, pool_attrs

ONNX_OPSET = 17
ONNX_IR_VERSION = 8  # the IR version of opset 17
ONNX_TYPES = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
              "int32": TensorProto.INT32, "int64": TensorProto.INT64, "bool": TensorProto.BOOL}

_ONNX_SIMPLE = {
    "neg": "Neg", "abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "reciprocal": "Reciprocal", "sin": "Sin",
    "cos": "Cos", "tanh": "Tanh", "sigmoid": "Sigmoid", "relu": "Relu", "softplus": "Softplus", "add": "Add",
    "sub": "Sub", "mul": "Mul", "maximum": "Max", "minimum": "Min", "div": "Div", "pow": "Pow", "greater": "Greater",
    "less": "Less", "where": "Where", "matmul": "MatMul", "concat": "Concat",
}


class _OnnxBuilder:
    """The nodes and initializers of one model, with fresh value names."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.count = 0

    def fresh(self) -> str:
        self.count += 1
        return f"_t{self.count}"

    def const(self, value: Any, dtype: str) -> str:
        name = self.fresh()
        self.initializers.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        out = self.fresh()
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def cast(self, value: str, dtype: str) -> str:
        return self.op("Cast", [value], to=ONNX_TYPES[dtype])


def onnx_model(graph: Graph) -> Any:
    """The graph as an ONNX ModelProto (opset 17)."""
    b = _OnnxBuilder()
    values = {x.name: x.name for x in graph.inputs}
    for node in graph.nodes:
        wanted = operand_dtypes(graph, node)
        args = [values[a] if graph.dtypes[a] == d else b.cast(values[a], d) for a, d in zip(node.inputs, wanted)]
        values[node.name] = _onnx_node(b, node, args)
    outputs = []
    for i, name in enumerate(graph.outputs):  # Identity: unique output names, even for a graph input
        out = f"output_{i}"
        b.nodes.append(helper.make_node("Identity", [values[name]], [out]))
        outputs.append(helper.make_tensor_value_info(out, ONNX_TYPES[graph.dtypes[name]], list(graph.shapes[name])))
    inputs = [helper.make_tensor_value_info(x.name, ONNX_TYPES[x.dtype], list(x.shape)) for x in graph.inputs]
    body = helper.make_graph(b.nodes, "mudjack_fuzz", inputs, outputs, initializer=b.initializers)
    model = helper.make_model(body, opset_imports=[helper.make_opsetid("", ONNX_OPSET)], producer_name="mudjack")
    model.ir_version = ONNX_IR_VERSION
    return model


def _onnx_node(b: _OnnxBuilder, node: Node, a: list[str]) -> str:
    """The node's ONNX ops; returns the name of its value."""
    op, dtype = node.op, node.dtype
    if op in _ONNX_SIMPLE:
        extra = {"axis": int(attr(node, "axis"))} if op == "concat" else {}
        return b.op(_ONNX_SIMPLE[op], a, **extra)
    if op == "square":
        return b.op("Mul", [a[0], a[0]])
    if op == "rsqrt":
        return b.op("Reciprocal", [b.op("Sqrt", a)])
    if op == "leaky_relu":
        alpha = float(attr(node, "alpha"))
        if _float32_exact(alpha, dtype):
            return b.op("LeakyRelu", a, alpha=alpha)
        return b.op("Where", [b.op("GreaterOrEqual", [a[0], b.const(0, dtype)]), a[0], b.op("Mul", [b.const(alpha, dtype), a[0]])])
    if op == "elu":
        return b.op("Elu", a, alpha=1.0)
    if op == "gelu":
        return _onnx_gelu(b, a[0], dtype)
    if op == "cast":
        return b.cast(a[0], dtype)
    if op == "clamp":
        low, high = clamp_bounds(node, dtype)
        return b.op("Clip", [a[0], b.const(low, dtype), b.const(high, dtype)])
    if op == "linear":
        return b.op("Add", [b.op("MatMul", [a[0], b.op("Transpose", [a[1]], perm=[1, 0])]), a[2]])
    if op in ("conv1d", "conv2d"):
        stride, padding, dilation, groups = conv_attrs(node)
        return b.op("Conv", a, strides=stride, pads=padding + padding, dilations=dilation, group=groups)
    if op in ("max_pool2d", "avg_pool2d"):
        kernel, stride, padding = pool_attrs(node)
        if op == "avg_pool2d":
            return b.op("AveragePool", a, kernel_shape=kernel, strides=stride)
        return b.op("MaxPool", a, kernel_shape=kernel, strides=stride, pads=padding + padding)
    if op.startswith("reduce_"):
        keep = int(bool(node.attrs.get("keepdims", False)))
        if op == "reduce_sum":  # opset 13+: axes as an input; the others take them as an attribute until 18
            return b.op("ReduceSum", [a[0], b.const(axes_of(node), "int64")], keepdims=keep)
        kind = {"reduce_max": "ReduceMax", "reduce_min": "ReduceMin", "reduce_mean": "ReduceMean"}[op]
        return b.op(kind, a, axes=axes_of(node), keepdims=keep)
    if op in ("softmax", "log_softmax"):
        return b.op("Softmax" if op == "softmax" else "LogSoftmax", a, axis=int(attr(node, "axis")))
    return _onnx_layout(b, node, a)


def _onnx_gelu(b: _OnnxBuilder, x: str, dtype: str) -> str:
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in float32 for float16."""
    work = "float32" if dtype == "float16" else dtype
    v = b.cast(x, work) if work != dtype else x
    cube = b.op("Mul", [b.op("Mul", [v, v]), v])
    inner = b.op("Mul", [b.const(GELU_C, work), b.op("Add", [v, b.op("Mul", [b.const(0.044715, work), cube])])])
    y = b.op("Mul", [b.op("Mul", [b.const(0.5, work), v]), b.op("Add", [b.const(1.0, work), b.op("Tanh", [inner])])])
    return b.cast(y, dtype) if work != dtype else y


def _float32_exact(value: float, dtype: str) -> bool:
    """Whether an ONNX float attribute (32 bits) holds `value` as the op's
    dtype needs it: always below float64; in float64 only when exact."""
    return dtype != "float64" or float(np.float32(value)) == value


def _onnx_norm(b: _OnnxBuilder, node: Node, a: list[str]) -> str:
    """layer_norm and batch_norm: ONNX's ops, or, in float64 with an eps a
    32-bit attribute cannot hold, the same formula from primitives (eps a
    float64 constant): else the model would compute with another eps."""
    dtype, eps = node.dtype, float(attr(node, "eps"))
    rank = len(node.shape)
    if node.op == "layer_norm":
        k = int(attr(node, "normalized_dims"))
        if _float32_exact(eps, dtype):
            dims = list(node.shape[rank - k:])
            return b.op("LayerNormalization", [a[0], b.const(np.ones(dims), dtype), b.const(np.zeros(dims), dtype)], axis=-k, epsilon=eps)
        axes = list(range(rank - k, rank))
        centered = b.op("Sub", [a[0], b.op("ReduceMean", [a[0]], axes=axes, keepdims=1)])
        var = b.op("ReduceMean", [b.op("Mul", [centered, centered])], axes=axes, keepdims=1)
        return b.op("Div", [centered, b.op("Sqrt", [b.op("Add", [var, b.const(eps, dtype)])])])
    if _float32_exact(eps, dtype):  # ONNX's order: X, scale, B, mean, var
        return b.op("BatchNormalization", [a[0], a[3], a[4], a[1], a[2]], epsilon=eps)
    shape = b.const([1, -1] + [1] * (rank - 2), "int64")
    x, mean, var, w, bias = a[0], *(b.op("Reshape", [v, shape]) for v in a[1:])
    scale = b.op("Div", [w, b.op("Sqrt", [b.op("Add", [var, b.const(eps, dtype)])])])
    return b.op("Add", [b.op("Mul", [b.op("Sub", [x, mean]), scale]), bias])


def _onnx_layout(b: _OnnxBuilder, node: Node, a: list[str]) -> str:
    """Normalizations and the ops that move values around."""
    op = node.op
    if op in ("layer_norm", "batch_norm"):
        return _onnx_norm(b, node, a)
    if op in ("reshape", "expand"):
        shape = b.const([int(d) for d in attr(node, "shape")], "int64")
        return b.op("Reshape" if op == "reshape" else "Expand", [a[0], shape])
    if op == "transpose":
        return b.op("Transpose", a, perm=[int(p) for p in attr(node, "perm")])
    if op == "slice":
        ints = [[int(attr(node, "start"))], [int(attr(node, "end"))], [int(attr(node, "axis"))], [int(node.attrs.get("step", 1))]]
        return b.op("Slice", [a[0]] + [b.const(v, "int64") for v in ints])
    if op == "pad":
        pairs = pad_pairs(node, len(node.shape))
        return b.op("Pad", [a[0], b.const([p for p, _ in pairs] + [q for _, q in pairs], "int64")], mode="constant")
    if op in ("unsqueeze", "squeeze"):
        return b.op("Unsqueeze" if op == "unsqueeze" else "Squeeze", [a[0], b.const([int(attr(node, "axis"))], "int64")])
    raise ValueError(f"node {node.name}: onnx has no materialization of op {op!r}")


def onnx_session(graph: Graph, providers: list[Any]) -> Any:
    """An InferenceSession on the graph's model. With a provider other than
    the CPU's, falling back to the CPU for a node it has no kernel for is
    refused (the session raises), as MudJack runs every framework: an op
    that cannot run on the device fails, it does not quietly move."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if any((p[0] if isinstance(p, tuple) else p) != "CPUExecutionProvider" for p in providers):
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    model = onnx_model(graph)
    return ort.InferenceSession(model.SerializeToString(), options, providers=providers)


def onnx_function(graph: Graph, providers: list[Any]) -> Callable[..., tuple[Any, ...]]:
    """The graph as `fn(*inputs)` over host arrays, run by a session on `providers`."""
    session = onnx_session(graph, providers)
    names = [x.name for x in graph.inputs]

    def fn(*inputs: Any) -> tuple[Any, ...]:
        return tuple(session.run(None, dict(zip(names, inputs))))

    return fn


# --------------------------------------------------------------------------
# How reproduce.py reaches ONNX Runtime (the check command, reproduction scripts)
# --------------------------------------------------------------------------

def onnx_providers(device: str) -> list[Any]:
    """The execution providers for `device`: the CPU's, or CUDA's on GPU N."""
    if device == "cpu":
        return ["CPUExecutionProvider"]
    return [("CUDAExecutionProvider", {"device_id": int(device.split(":")[1])})]


def onnx_glue() -> dict[str, Callable[..., Any]]:
    """reproduce.py's glue for ONNX Runtime: host arrays in and out; no compiler."""
    return {
        "function": lambda graph, device: onnx_function(graph, onnx_providers(device)),
        "place": lambda array, device: np.asarray(array),
        "host": lambda value: np.asarray(value),
        "sync": lambda device, out: None,
        "compile": lambda fn: fn,
        "scope": lambda device: contextlib.nullcontext(),
        "version": lambda: f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, providers {ort.get_available_providers()}",
    }
