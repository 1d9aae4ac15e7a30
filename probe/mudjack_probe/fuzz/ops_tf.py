"""A graph as a function of TensorFlow tensors (backends `tensorflow`, `tensorflow-xla`).

`tf_function(graph)` returns `fn(*inputs) -> tuple of outputs`, one TF op
per node (docs/fuzz.md gives each op's semantics), run eagerly
(`tensorflow`) or under `tf.function(jit_compile=True)` (`tensorflow-xla`,
the adapter's compile). TensorFlow's CPU kernels for convolution and pooling
take NHWC only, so the NCHW values of a graph are transposed in and out
around them (filters to HWIO); max pooling's padding is -inf padded by
`tf.pad` before a VALID pool. Layer normalization, which TF has as no
single op, is written out with `tf.nn.moments` in float32 at least.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from typing import Any, Callable

import numpy as np
import tensorflow as tf

from .graph import Graph, Node, attr, axes_of, clamp_bounds, conv_attrs, operand_dtypes, pad_pairs, pool_attrs

TF_DTYPES = {"float16": tf.float16, "float32": tf.float32, "float64": tf.float64,
             "int32": tf.int32, "int64": tf.int64, "bool": tf.bool}

TfStep = Callable[[list[Any]], Any]


def tf_function(graph: Graph) -> Callable[..., tuple[Any, ...]]:
    """The graph as `fn(*inputs)`, inputs in graph input order."""
    steps = [(node.name, [(a, TF_DTYPES[d]) for a, d in zip(node.inputs, operand_dtypes(graph, node))],
              _tf_op(node), TF_DTYPES[node.dtype]) for node in graph.nodes]
    names = [x.name for x in graph.inputs]
    outputs = list(graph.outputs)

    def fn(*inputs: Any) -> tuple[Any, ...]:
        values = dict(zip(names, inputs))
        for name, operands, op, dtype in steps:
            args = [values[a] if values[a].dtype == d else tf.cast(values[a], d) for a, d in operands]
            out = op(args)
            values[name] = out if out.dtype == dtype else tf.cast(out, dtype)
        return tuple(values[o] for o in outputs)

    # Nothing for AutoGraph to convert (no control flow on tensors); left to
    # it, tf.function would warn that it cannot read the ops' lambdas.
    plain: Callable[..., tuple[Any, ...]] = tf.autograph.experimental.do_not_convert(fn)
    return plain


def _tf_op(node: Node) -> TfStep:
    """The node's op as `step(operands) -> tensor`, its attributes bound."""
    op = node.op
    simple = _TF_SIMPLE.get(op)
    if simple is not None:
        return simple
    if op == "leaky_relu":
        alpha = float(attr(node, "alpha"))
        return lambda a: tf.nn.leaky_relu(a[0], alpha)
    if op == "cast":
        to = TF_DTYPES[node.dtype]
        return lambda a: tf.cast(a[0], to)
    if op == "clamp":
        low, high = clamp_bounds(node, node.dtype)
        return lambda a: tf.clip_by_value(a[0], tf.constant(low, a[0].dtype), tf.constant(high, a[0].dtype))
    if op in ("conv1d", "conv2d"):
        return _tf_conv(node)
    if op in ("max_pool2d", "avg_pool2d"):
        return _tf_pool(node)
    if op.startswith("reduce_"):
        axes, keep = axes_of(node), bool(node.attrs.get("keepdims", False))
        fn = {"reduce_sum": tf.reduce_sum, "reduce_max": tf.reduce_max, "reduce_min": tf.reduce_min, "reduce_mean": tf.reduce_mean}[op]
        return lambda a: fn(a[0], axis=axes, keepdims=keep)
    if op in ("softmax", "log_softmax"):
        axis = int(attr(node, "axis"))
        return (lambda a: tf.nn.softmax(a[0], axis=axis)) if op == "softmax" else (lambda a: tf.nn.log_softmax(a[0], axis=axis))
    if op in ("layer_norm", "batch_norm"):
        return _tf_norm(node)
    return _tf_layout(node)


_TO_NHWC, _TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def _tf_conv(node: Node) -> TfStep:
    stride, padding, dilation, _ = conv_attrs(node)  # groups: the filter's C/g input channels say it
    if node.op == "conv1d":  # as a conv2d over a height of 1
        stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
    pads = [[0, 0], [padding[0], padding[0]], [padding[1], padding[1]], [0, 0]]
    one_d = node.op == "conv1d"

    def conv(a: list[Any]) -> Any:
        x, w, b = a
        if one_d:
            x, w = tf.expand_dims(x, 2), tf.expand_dims(w, 2)
        y = tf.nn.conv2d(tf.transpose(x, _TO_NHWC), tf.transpose(w, [2, 3, 1, 0]), [1, stride[0], stride[1], 1], pads,
                         dilations=[1, dilation[0], dilation[1], 1])
        y = tf.transpose(tf.nn.bias_add(y, b), _TO_NCHW)
        return tf.squeeze(y, 2) if one_d else y

    return conv


def _tf_pool(node: Node) -> TfStep:
    kernel, stride, padding = pool_attrs(node)
    if node.op == "avg_pool2d":
        return lambda a: tf.transpose(tf.nn.avg_pool2d(tf.transpose(a[0], _TO_NHWC), kernel, stride, "VALID"), _TO_NCHW)
    pads = [[0, 0], [padding[0], padding[0]], [padding[1], padding[1]], [0, 0]]

    def max_pool(a: list[Any]) -> Any:
        x = tf.pad(tf.transpose(a[0], _TO_NHWC), pads, constant_values=-np.inf)
        return tf.transpose(tf.nn.max_pool2d(x, kernel, stride, "VALID"), _TO_NCHW)

    return max_pool


def _tf_norm(node: Node) -> TfStep:
    eps = float(attr(node, "eps"))
    if node.op == "layer_norm":
        k = int(attr(node, "normalized_dims"))

        def layer_norm(a: list[Any]) -> Any:
            x = a[0]
            wide = tf.cast(x, tf.float32) if x.dtype == tf.float16 else x
            axes = list(range(len(x.shape) - k, len(x.shape)))
            mean, var = tf.nn.moments(wide, axes, keepdims=True)
            return tf.cast((wide - mean) * tf.math.rsqrt(var + eps), x.dtype)

        return layer_norm

    def batch_norm(a: list[Any]) -> Any:
        x, mean, var, w, b = a
        shape = [1, -1] + [1] * (len(x.shape) - 2)
        return tf.nn.batch_normalization(x, tf.reshape(mean, shape), tf.reshape(var, shape), tf.reshape(b, shape),
                                         tf.reshape(w, shape), eps)

    return batch_norm


def _tf_layout(node: Node) -> TfStep:
    """The ops that move values around."""
    op = node.op
    if op in ("reshape", "expand"):
        shape = [int(d) for d in attr(node, "shape")]
        return (lambda a: tf.reshape(a[0], shape)) if op == "reshape" else (lambda a: tf.broadcast_to(a[0], shape))
    if op == "transpose":
        perm = [int(p) for p in attr(node, "perm")]
        return lambda a: tf.transpose(a[0], perm)
    if op == "concat":
        axis = int(attr(node, "axis"))
        return lambda a: tf.concat(a, axis)
    if op == "slice":
        axis, start, end, step = int(attr(node, "axis")), int(attr(node, "start")), int(attr(node, "end")), int(node.attrs.get("step", 1))
        return lambda a: a[0][(slice(None),) * axis + (slice(start, end, step),)]
    if op == "pad":
        pairs = [list(p) for p in pad_pairs(node, len(node.shape))]
        return lambda a: tf.pad(a[0], pairs)
    if op in ("unsqueeze", "squeeze"):
        axis = int(attr(node, "axis"))
        return (lambda a: tf.expand_dims(a[0], axis)) if op == "unsqueeze" else (lambda a: tf.squeeze(a[0], [axis]))
    raise ValueError(f"node {node.name}: tensorflow has no materialization of op {op!r}")


_TF_SIMPLE: dict[str, TfStep] = {
    "neg": lambda a: tf.negative(a[0]),
    "abs": lambda a: tf.abs(a[0]),
    "square": lambda a: a[0] * a[0],
    "exp": lambda a: tf.exp(a[0]),
    "log": lambda a: tf.math.log(a[0]),
    "sqrt": lambda a: tf.sqrt(a[0]),
    "rsqrt": lambda a: tf.math.rsqrt(a[0]),
    "reciprocal": lambda a: tf.math.reciprocal(a[0]),
    "sin": lambda a: tf.sin(a[0]),
    "cos": lambda a: tf.cos(a[0]),
    "tanh": lambda a: tf.tanh(a[0]),
    "sigmoid": lambda a: tf.sigmoid(a[0]),
    "relu": lambda a: tf.nn.relu(a[0]),
    "elu": lambda a: tf.nn.elu(a[0]),
    "softplus": lambda a: tf.math.softplus(a[0]),
    "gelu": lambda a: tf.nn.gelu(a[0], approximate=True),
    "add": lambda a: tf.add(a[0], a[1]),
    "sub": lambda a: tf.subtract(a[0], a[1]),
    "mul": lambda a: tf.multiply(a[0], a[1]),
    "maximum": lambda a: tf.maximum(a[0], a[1]),
    "minimum": lambda a: tf.minimum(a[0], a[1]),
    "div": lambda a: tf.divide(a[0], a[1]),
    "pow": lambda a: tf.pow(a[0], a[1]),
    "greater": lambda a: tf.greater(a[0], a[1]),
    "less": lambda a: tf.less(a[0], a[1]),
    "where": lambda a: tf.where(a[0], a[1], a[2]),
    "matmul": lambda a: tf.matmul(a[0], a[1]),
    # tensordot, not matmul: x may have rank 1 (matmul wants 2 or more)
    "linear": lambda a: tf.tensordot(a[0], a[1], [[len(a[0].shape) - 1], [1]]) + a[2],
}


# --------------------------------------------------------------------------
# How reproduce.py reaches TensorFlow (the check command, reproduction scripts)
# --------------------------------------------------------------------------

def tf_glue() -> dict[str, Callable[..., Any]]:
    """reproduce.py's glue for TensorFlow (eager; tf.function(jit_compile=True)
    as the compiler), with soft device placement off, as MudJack runs it: an
    op with no kernel on the device raises instead of moving to the CPU."""
    tf.config.set_soft_device_placement(False)

    def name(device: str) -> str:
        return "/CPU:0" if device == "cpu" else f"/GPU:{device.split(':')[1]}"

    def place(array: np.ndarray, device: str) -> Any:
        with tf.device(name(device)):
            return tf.identity(tf.constant(np.asarray(array)))

    def sync(device: str, out: Any) -> None:
        if device != "cpu":
            tf.test.experimental.sync_devices()

    return {
        "function": lambda graph, device: tf_function(graph),
        "place": place,
        "host": lambda value: np.asarray(value.numpy()),
        "sync": sync,
        "compile": lambda fn: tf.function(fn, jit_compile=True),
        "scope": lambda device: tf.device(name(device)),
        "version": lambda: f"tensorflow {tf.__version__}",
    }
