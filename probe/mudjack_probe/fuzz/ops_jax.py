"""A graph as a function of JAX arrays (backends `jax`, `jax-jit`).

`jax_function(graph)` returns `fn(*inputs) -> tuple of outputs`, one
`jax.numpy`/`jax.lax`/`jax.nn` call per node (docs/fuzz.md gives each op's
semantics): dispatched op by op when called as it is (`jax`), one XLA
computation under `jax.jit` (`jax-jit`, the adapter's compile). Layer and
batch normalization, which JAX has as no single op, are written out with
their statistics in float32 at least, as Flax's layers compute them.
JAX must run with `jax_enable_x64` (the adapter turns it on; `jax_glue`
in a script), or float64 quietly becomes float32.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .graph import Graph, Node, attr, axes_of, clamp_bounds, conv_attrs, operand_dtypes, pad_pairs, pool_attrs

JAX_DTYPES = {"float16": jnp.float16, "float32": jnp.float32, "float64": jnp.float64,
              "int32": jnp.int32, "int64": jnp.int64, "bool": jnp.bool_}

JaxStep = Callable[[list[Any]], Any]


def jax_function(graph: Graph) -> Callable[..., tuple[Any, ...]]:
    """The graph as `fn(*inputs)`, inputs in graph input order."""
    steps = [(node.name, [(a, jnp.dtype(JAX_DTYPES[d])) for a, d in zip(node.inputs, operand_dtypes(graph, node))],
              _jax_op(node), jnp.dtype(JAX_DTYPES[node.dtype])) for node in graph.nodes]
    names = [x.name for x in graph.inputs]
    outputs = list(graph.outputs)

    def fn(*inputs: Any) -> tuple[Any, ...]:
        values = dict(zip(names, inputs))
        for name, operands, op, dtype in steps:
            args = [values[a] if values[a].dtype == d else values[a].astype(d) for a, d in operands]
            out = op(args)
            values[name] = out if out.dtype == dtype else out.astype(dtype)
        return tuple(values[o] for o in outputs)

    return fn


def _jax_op(node: Node) -> JaxStep:
    """The node's op as `step(operands) -> array`, its attributes bound."""
    op = node.op
    simple = _JAX_SIMPLE.get(op)
    if simple is not None:
        return simple
    if op == "leaky_relu":
        alpha = float(attr(node, "alpha"))
        return lambda a: jax.nn.leaky_relu(a[0], alpha)
    if op == "cast":
        to = JAX_DTYPES[node.dtype]
        return lambda a: a[0].astype(to)
    if op == "clamp":
        low, high = clamp_bounds(node, node.dtype)
        return lambda a: jnp.clip(a[0], low, high)
    if op in ("conv1d", "conv2d"):
        return _jax_conv(node)
    if op in ("max_pool2d", "avg_pool2d"):
        return _jax_pool(node)
    if op.startswith("reduce_"):
        axes, keep = tuple(axes_of(node)), bool(node.attrs.get("keepdims", False))
        fn = {"reduce_sum": jnp.sum, "reduce_max": jnp.max, "reduce_min": jnp.min, "reduce_mean": jnp.mean}[op]
        return lambda a: fn(a[0], axis=axes, keepdims=keep)
    if op in ("softmax", "log_softmax"):
        axis = int(attr(node, "axis"))
        return (lambda a: jax.nn.softmax(a[0], axis=axis)) if op == "softmax" else (lambda a: jax.nn.log_softmax(a[0], axis=axis))
    if op in ("layer_norm", "batch_norm"):
        return _jax_norm(node)
    return _jax_layout(node)


def _jax_conv(node: Node) -> JaxStep:
    stride, padding, dilation, groups = conv_attrs(node)
    spec = ("NCH", "OIH", "NCH") if node.op == "conv1d" else ("NCHW", "OIHW", "NCHW")
    pads = [(p, p) for p in padding]
    extra = (1,) * len(stride)

    def conv(a: list[Any]) -> Any:
        out = lax.conv_general_dilated(a[0], a[1], stride, pads, rhs_dilation=dilation,
                                       dimension_numbers=spec, feature_group_count=groups)
        return out + a[2].reshape((1, -1) + extra)

    return conv


def _jax_pool(node: Node) -> JaxStep:
    kernel, stride, padding = pool_attrs(node)
    window, strides = (1, 1, kernel[0], kernel[1]), (1, 1, stride[0], stride[1])
    if node.op == "max_pool2d":
        pads = ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1]))
        return lambda a: lax.reduce_window(a[0], jnp.array(-jnp.inf, a[0].dtype), lax.max, window, strides, pads)
    count = kernel[0] * kernel[1]
    return lambda a: lax.reduce_window(a[0], jnp.array(0, a[0].dtype), lax.add, window, strides, "VALID") / count


def _jax_norm(node: Node) -> JaxStep:
    eps = float(attr(node, "eps"))
    if node.op == "layer_norm":
        k = int(attr(node, "normalized_dims"))

        def layer_norm(a: list[Any]) -> Any:
            x = a[0]
            wide = x.astype(jnp.promote_types(x.dtype, jnp.float32))
            axes = tuple(range(x.ndim - k, x.ndim))
            mean = jnp.mean(wide, axis=axes, keepdims=True)
            var = jnp.mean(jnp.square(wide - mean), axis=axes, keepdims=True)
            return ((wide - mean) * lax.rsqrt(var + eps)).astype(x.dtype)

        return layer_norm

    def batch_norm(a: list[Any]) -> Any:
        x, mean, var, w, b = a
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        scale = w.reshape(shape) * lax.rsqrt(var.reshape(shape) + eps)
        return (x - mean.reshape(shape)) * scale + b.reshape(shape)

    return batch_norm


def _jax_layout(node: Node) -> JaxStep:
    """The ops that move values around."""
    op = node.op
    if op in ("reshape", "expand"):
        shape = tuple(int(d) for d in attr(node, "shape"))
        return (lambda a: jnp.reshape(a[0], shape)) if op == "reshape" else (lambda a: jnp.broadcast_to(a[0], shape))
    if op == "transpose":
        perm = tuple(int(p) for p in attr(node, "perm"))
        return lambda a: jnp.transpose(a[0], perm)
    if op == "concat":
        axis = int(attr(node, "axis"))
        return lambda a: jnp.concatenate(a, axis=axis)
    if op == "slice":
        axis, start, end, step = int(attr(node, "axis")), int(attr(node, "start")), int(attr(node, "end")), int(node.attrs.get("step", 1))
        return lambda a: lax.slice_in_dim(a[0], start, end, step, axis)
    if op == "pad":
        pairs = pad_pairs(node, len(node.shape))
        return lambda a: jnp.pad(a[0], pairs)
    if op in ("unsqueeze", "squeeze"):
        axis = int(attr(node, "axis"))
        return (lambda a: jnp.expand_dims(a[0], axis)) if op == "unsqueeze" else (lambda a: jnp.squeeze(a[0], axis))
    raise ValueError(f"node {node.name}: jax has no materialization of op {op!r}")


_JAX_SIMPLE: dict[str, JaxStep] = {
    "neg": lambda a: jnp.negative(a[0]),
    "abs": lambda a: jnp.abs(a[0]),
    "square": lambda a: a[0] * a[0],
    "exp": lambda a: jnp.exp(a[0]),
    "log": lambda a: jnp.log(a[0]),
    "sqrt": lambda a: jnp.sqrt(a[0]),
    "rsqrt": lambda a: lax.rsqrt(a[0]),
    "reciprocal": lambda a: jnp.reciprocal(a[0]),
    "sin": lambda a: jnp.sin(a[0]),
    "cos": lambda a: jnp.cos(a[0]),
    "tanh": lambda a: jnp.tanh(a[0]),
    "sigmoid": lambda a: jax.nn.sigmoid(a[0]),
    "relu": lambda a: jax.nn.relu(a[0]),
    "elu": lambda a: jax.nn.elu(a[0]),
    "softplus": lambda a: jax.nn.softplus(a[0]),
    "gelu": lambda a: jax.nn.gelu(a[0], approximate=True),
    "add": lambda a: jnp.add(a[0], a[1]),
    "sub": lambda a: jnp.subtract(a[0], a[1]),
    "mul": lambda a: jnp.multiply(a[0], a[1]),
    "maximum": lambda a: jnp.maximum(a[0], a[1]),
    "minimum": lambda a: jnp.minimum(a[0], a[1]),
    "div": lambda a: jnp.divide(a[0], a[1]),
    "pow": lambda a: jnp.power(a[0], a[1]),
    "greater": lambda a: jnp.greater(a[0], a[1]),
    "less": lambda a: jnp.less(a[0], a[1]),
    "where": lambda a: jnp.where(a[0], a[1], a[2]),
    "matmul": lambda a: jnp.matmul(a[0], a[1]),
    "linear": lambda a: jnp.matmul(a[0], a[1].T) + a[2],
}


# --------------------------------------------------------------------------
# How reproduce.py reaches JAX (the check command, reproduction scripts)
# --------------------------------------------------------------------------

def jax_glue() -> dict[str, Callable[..., Any]]:
    """reproduce.py's glue for JAX (op by op; jax.jit as the compiler), with
    64-bit types on, as MudJack runs JAX."""
    jax.config.update("jax_enable_x64", True)

    def device_of(device: str) -> Any:
        if device == "cpu":
            return jax.devices("cpu")[0]
        return jax.devices("gpu")[int(device.split(":")[1])]

    return {
        "function": lambda graph, device: jax_function(graph),
        "place": lambda array, device: jax.device_put(np.asarray(array), device_of(device)),
        "host": lambda value: np.asarray(value),
        "sync": lambda device, out: jax.block_until_ready(out),
        "compile": jax.jit,
        "scope": lambda device: jax.default_device(device_of(device)),
        "version": lambda: f"jax {jax.__version__}",
    }
