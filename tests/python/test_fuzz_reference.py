"""mudjack_probe.fuzz.ops_numpy: the float64 reference and the numpy backend
against independent computations (loops, math) of docs/fuzz.md's semantics."""

from __future__ import annotations

import json
import math
import unittest
from typing import Any

import numpy as np

from mudjack_probe.fuzz.graph import Graph, parse_graph
from mudjack_probe.fuzz.ops_numpy import evaluate


def one_op(op: str, inputs: list[tuple[list[int], str]], out_shape: list[int], dtype: str, **attrs: Any) -> Graph:
    """A graph of one node over fresh inputs x0, x1, ..."""
    doc = {
        "format": "mudjack.graph/1", "seed": 0, "dtype": "int32" if dtype in ("int32", "bool") else dtype, "reduction": 1,
        "inputs": [{"name": f"x{i}", "shape": s, "dtype": d, "low": -1, "high": 1} for i, (s, d) in enumerate(inputs)],
        "nodes": [{"name": "v0", "op": op, "inputs": [f"x{i}" for i in range(len(inputs))], "attrs": attrs, "shape": out_shape, "dtype": dtype}],
        "outputs": ["v0"],
    }
    return parse_graph(json.dumps(doc))


def conv_loops(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: list[int], pad: list[int], dil: list[int], groups: int) -> np.ndarray:
    """Cross-correlation over 2 spatial dims by loops (conv1d: a height of 1)."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, [(0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])])
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    per = o // groups
    for ni in range(n):
        for oi in range(o):
            g = oi // per
            for i in range(oh):
                for j in range(ow):
                    acc = b[oi]
                    for ci in range(cg):
                        for a in range(kh):
                            for e in range(kw):
                                acc += xp[ni, g * cg + ci, i * stride[0] + a * dil[0], j * stride[1] + e * dil[1]] * w[oi, ci, a, e]
                    out[ni, oi, i, j] = acc
    return out


class Reference(unittest.TestCase):
    rng = np.random.default_rng(0)

    def test_casts_round_as_the_graph_says(self) -> None:
        x = np.array([1.0 + 2.0 ** -12, -2.7, 2.7, 70000.0], dtype=np.float32)
        half = evaluate(one_op("cast", [([4], "float32")], [4], "float16"), [x])[0]
        self.assertEqual(half.dtype, np.float64)  # rounded to float16, widened back
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(half, x.astype(np.float16).astype(np.float64))
        self.assertEqual(half[0], 1.0)
        self.assertTrue(math.isinf(half[3]))
        ints = evaluate(one_op("cast", [([4], "float32")], [4], "int32"), [x[:3]])[0]
        np.testing.assert_array_equal(ints, [1, -2, 2])  # toward zero
        wide = evaluate(one_op("cast", [([2], "int32")], [2], "float32"), [np.array([3, -7], dtype=np.int32)])[0]
        np.testing.assert_array_equal(wide, [3.0, -7.0])

    def test_only_casts_round_in_the_reference(self) -> None:
        x = np.array([0.3, 1.1], dtype=np.float16)
        g = one_op("exp", [([2], "float16")], [2], "float16")
        np.testing.assert_array_equal(evaluate(g, [x])[0], np.exp(x.astype(np.float64)))
        native = evaluate(g, [x], native=True)[0]
        self.assertEqual(native.dtype, np.float16)
        np.testing.assert_array_equal(native, np.exp(x.astype(np.float32)).astype(np.float16))

    def test_integers_in_int64_bools_as_bools(self) -> None:
        a = np.array([2 ** 30, -3], dtype=np.int32)
        g = one_op("add", [([2], "int32"), ([2], "int32")], [2], "int32")
        out = evaluate(g, [a, a])[0]
        np.testing.assert_array_equal(out, [2 ** 31, -6])  # int64: no wraparound in the reference
        lt = evaluate(one_op("less", [([2], "int32"), ([1], "float32")], [2], "bool"), [a, np.array([0.5], np.float32)])[0]
        np.testing.assert_array_equal(lt, [False, True])

    def test_conv_against_loops(self) -> None:
        x = self.rng.uniform(-1, 1, (2, 4, 7, 9))
        w = self.rng.uniform(-1, 1, (6, 2, 3, 2))
        b = self.rng.uniform(-1, 1, 6)
        attrs = {"stride": [2, 1], "padding": [1, 2], "dilation": [1, 3], "groups": 2}
        want = conv_loops(x, w, b, [2, 1], [1, 2], [1, 3], 2)
        g = one_op("conv2d", [([2, 4, 7, 9], "float32"), ([6, 2, 3, 2], "float32"), ([6], "float32")], list(want.shape), "float32", **attrs)
        np.testing.assert_allclose(evaluate(g, [x, w, b])[0], want, rtol=1e-12, atol=1e-12)
        x1, w1 = x[:, :, 0, :], w[:, :, 0, :]
        want1 = conv_loops(x1[:, :, None, :], w1[:, :, None, :], b, [1, 2], [0, 1], [1, 2], 2)[:, :, 0, :]
        g1 = one_op("conv1d", [([2, 4, 9], "float32"), ([6, 2, 2], "float32"), ([6], "float32")], list(want1.shape), "float32",
                    stride=2, padding=1, dilation=2, groups=2)
        np.testing.assert_allclose(evaluate(g1, [x1, w1, b])[0], want1, rtol=1e-12, atol=1e-12)

    def test_pools(self) -> None:
        x = -self.rng.uniform(1, 2, (1, 2, 5, 5))  # all negative: zero padding would win, -inf must not
        g = one_op("max_pool2d", [([1, 2, 5, 5], "float32")], [1, 2, 3, 3], "float32", kernel=[3, 3], stride=[2, 2], padding=[1, 1])
        out = evaluate(g, [x])[0]
        self.assertEqual(out[0, 0, 0, 0], x[0, 0, :2, :2].max())
        self.assertEqual(out[0, 1, 1, 2], x[0, 1, 1:4, 3:5].max())
        self.assertTrue((out < 0).all())
        a = one_op("avg_pool2d", [([1, 2, 5, 5], "float32")], [1, 2, 2, 1], "float32", kernel=[2, 3], stride=[2, 2])
        avg = evaluate(a, [x])[0]
        self.assertEqual(avg.shape, (1, 2, 2, 2))  # floor mode: rows 0-1 and 2-3, columns 0-2 and 2-4
        self.assertAlmostEqual(avg[0, 1, 1, 1], x[0, 1, 2:4, 2:5].mean())

    def test_normalizations(self) -> None:
        x = self.rng.uniform(-2, 2, (2, 3, 4))
        g = one_op("layer_norm", [([2, 3, 4], "float32")], [2, 3, 4], "float32", normalized_dims=2, eps=1e-5)
        out = evaluate(g, [x])[0]
        m, v = x[1].mean(), x[1].var()  # biased
        np.testing.assert_allclose(out[1], (x[1] - m) / math.sqrt(v + 1e-5))
        mean, var, w, b = (self.rng.uniform(0.5, 2, 3) for _ in range(4))
        bn = one_op("batch_norm", [([2, 3, 4], "float32")] + [([3], "float32")] * 4, [2, 3, 4], "float32", eps=1e-3)
        out = evaluate(bn, [x, mean, var, w, b])[0]
        np.testing.assert_allclose(out[1, 2], (x[1, 2] - mean[2]) / math.sqrt(var[2] + 1e-3) * w[2] + b[2])

    def test_activations(self) -> None:
        x = np.array([-3.0, -0.5, 0.0, 0.7, 4.0])
        gelu = evaluate(one_op("gelu", [([5], "float64")], [5], "float64"), [x])[0]
        for xi, yi in zip(x, gelu):
            self.assertAlmostEqual(yi, 0.5 * xi * (1 + math.tanh(math.sqrt(2 / math.pi) * (xi + 0.044715 * xi ** 3))), places=14)
        elu = evaluate(one_op("elu", [([5], "float64")], [5], "float64"), [x])[0]
        np.testing.assert_allclose(elu, [math.exp(-3) - 1, math.exp(-0.5) - 1, 0, 0.7, 4])
        lrelu = evaluate(one_op("leaky_relu", [([5], "float64")], [5], "float64", alpha=0.25), [x])[0]
        np.testing.assert_array_equal(lrelu, [-0.75, -0.125, 0, 0.7, 4])
        sp = evaluate(one_op("softplus", [([5], "float64")], [5], "float64"), [x])[0]
        np.testing.assert_allclose(sp, np.log1p(np.exp(x)))
        sig = evaluate(one_op("sigmoid", [([5], "float64")], [5], "float64"), [x])[0]
        np.testing.assert_allclose(sig, 1 / (1 + np.exp(-x)))

    def test_softmax_and_reductions(self) -> None:
        x = self.rng.uniform(-3, 3, (2, 3, 4))
        sm = evaluate(one_op("softmax", [([2, 3, 4], "float32")], [2, 3, 4], "float32", axis=1), [x])[0]
        np.testing.assert_allclose(sm.sum(axis=1), 1.0)
        lsm = evaluate(one_op("log_softmax", [([2, 3, 4], "float32")], [2, 3, 4], "float32", axis=2), [x])[0]
        np.testing.assert_allclose(np.exp(lsm).sum(axis=2), 1.0)
        s = evaluate(one_op("reduce_sum", [([2, 3, 4], "float32")], [2, 1, 1], "float32", axes=[1, 2], keepdims=True), [x])[0]
        np.testing.assert_allclose(s[:, 0, 0], x.sum(axis=(1, 2)))
        mn = evaluate(one_op("reduce_min", [([2, 3, 4], "float32")], [3], "float32", axes=[0, 2], keepdims=False), [x])[0]
        np.testing.assert_array_equal(mn, x.min(axis=(0, 2)))

    def test_layout(self) -> None:
        x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
        p = evaluate(one_op("pad", [([2, 3, 4], "int32")], [3, 5, 6], "int32", pads=[[1, 0], [0, 2], [1, 1]]), [x])[0]
        self.assertEqual(p.shape, (3, 5, 6))
        np.testing.assert_array_equal(p[1:, :3, 1:5], x)
        self.assertEqual(p.sum(), x.sum())
        s = evaluate(one_op("slice", [([2, 3, 4], "int32")], [2, 3, 2], "int32", axis=2, start=1, end=4, step=2), [x])[0]
        np.testing.assert_array_equal(s, x[:, :, 1:4:2])
        e = evaluate(one_op("expand", [([1, 3, 1], "int32")], [2, 3, 4], "int32", shape=[2, 3, 4]), [x[:1, :, :1]])[0]
        np.testing.assert_array_equal(e, np.broadcast_to(x[:1, :, :1], (2, 3, 4)))
        c = evaluate(one_op("clamp", [([2, 3, 4], "int32")], [2, 3, 4], "int32", min=2.5, max=20.5), [x])[0]
        self.assertEqual((c.min(), c.max()), (3, 20))  # integers kept by [2.5, 20.5]


if __name__ == "__main__":
    unittest.main()
