"""mudjack_probe.fuzz.graph: the graph format's light validation, the inputs
drawn as docs/fuzz.md says, and the accuracy oracle's error in eps."""

from __future__ import annotations

import copy
import json
import math
import unittest
from pathlib import Path
from typing import Any

import numpy as np

from mudjack_probe.fuzz.graph import OPS, alone_bound, draw_inputs, error_eps, load_graph, operand_dtypes, pad_pairs, parse_graph
from mudjack_probe.vocabulary import words

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fuzz"

SMALL: dict[str, Any] = {
    "format": "mudjack.graph/1", "seed": 17, "dtype": "float32", "reduction": 1,
    "inputs": [{"name": "x0", "shape": [2, 3], "dtype": "float32", "low": -2.0, "high": 2.0},
               {"name": "x1", "shape": [3], "dtype": "int32", "low": -5, "high": 5},
               {"name": "x2", "shape": [2, 3], "dtype": "bool", "low": 0, "high": 1}],
    "nodes": [{"name": "v0", "op": "relu", "inputs": ["x0"], "attrs": {}, "shape": [2, 3], "dtype": "float32"},
              {"name": "v1", "op": "where", "inputs": ["x2", "v0", "x1"], "attrs": {}, "shape": [2, 3], "dtype": "float32"}],
    "outputs": ["v1"],
}


def text(doc: dict[str, Any]) -> str:
    return json.dumps(doc)


class Parse(unittest.TestCase):
    def test_a_good_graph(self) -> None:
        g = parse_graph(text(SMALL))
        self.assertEqual((g.dtype, g.reduction, g.seed, g.outputs), ("float32", 1, 17, ("v1",)))
        self.assertEqual([n.op for n in g.nodes], ["relu", "where"])
        self.assertEqual(g.dtypes, {"x0": "float32", "x1": "int32", "x2": "bool", "v0": "float32", "v1": "float32"})
        self.assertEqual(g.shapes["x1"], (3,))

    def test_faults_are_one_line_each(self) -> None:
        faults = [
            (lambda d: d.update(format="mudjack.graph/2"), "format is 'mudjack.graph/2'"),
            (lambda d: d.update(dtype="bfloat16"), "dtype 'bfloat16' is not one of"),
            (lambda d: d.update(reduction=0), "reduction 0 is not a positive integer"),
            (lambda d: d["nodes"][0].update(op="softsign"), "nodes[0]: unknown op 'softsign'"),
            (lambda d: d["nodes"][1].update(inputs=["x2", "v0", "nope"]), "input 'nope' names no input or earlier node"),
            (lambda d: d["nodes"][1].update(inputs=["x2", "v1", "x1"]), "input 'v1' names no input or earlier node"),
            (lambda d: d["nodes"][0].update(inputs=["x0", "x1"]), "nodes[0] (relu): 2 inputs, expected 1"),
            (lambda d: d["nodes"][0].update(name="V0"), "does not match"),
            (lambda d: d["nodes"][0].update(name="x0"), "name 'x0' is used twice"),
            (lambda d: d["inputs"][0].update(shape=[2, 0]), "shape [2, 0] is not a list of dimensions >= 1"),
            (lambda d: d["inputs"][0].update(low=3.0), "low 3.0 and high 2.0"),
            (lambda d: d.update(outputs=[]), "outputs is empty"),
            (lambda d: d.update(outputs=["v9"]), "output 'v9' names no input or node"),
            (lambda d: d.pop("nodes"), "nodes is not a list"),
        ]
        for change, message in faults:
            doc = copy.deepcopy(SMALL)
            change(doc)
            with self.subTest(message=message), self.assertRaises(ValueError) as caught:
                parse_graph(text(doc))
            self.assertIn(message, str(caught.exception))
            self.assertNotIn("\n", str(caught.exception))
        with self.assertRaisesRegex(ValueError, "not JSON"):
            parse_graph("{")

    def test_the_bad_fixture_names_its_file(self) -> None:
        [bad] = sorted((FIXTURES / "bad").glob("*.json"))
        with self.assertRaises(ValueError) as caught:
            load_graph(str(bad))
        self.assertTrue(str(caught.exception).startswith(f"{bad}: nodes[1] (add): input 'x9'"))

    def test_fixture_graphs_cover_every_op(self) -> None:
        graphs = [load_graph(str(p)) for p in sorted((FIXTURES / "graphs").glob("*.json"))]
        self.assertEqual(OPS, words("fuzz_op"))  # every op the engine defines (src/gen/ops.cpp)
        self.assertEqual({n.op for g in graphs for n in g.nodes}, set(OPS))
        self.assertEqual({g.dtype for g in graphs}, {"float16", "float32", "float64", "int32"})
        for p in (FIXTURES / "graphs").glob("*.json"):
            self.assertRegex(p.stem, r"^[0-9a-f]{16}$")


class Inputs(unittest.TestCase):
    def test_drawn_in_order_from_the_seed(self) -> None:
        g = parse_graph(text(SMALL))
        x0, x1, x2 = draw_inputs(g, 5)
        rng = np.random.default_rng(5)
        np.testing.assert_array_equal(x0, rng.uniform(-2.0, 2.0, (2, 3)).astype(np.float32))
        np.testing.assert_array_equal(x1, rng.integers(-5, 5, (3,), endpoint=True).astype(np.int32))
        np.testing.assert_array_equal(x2, rng.integers(0, 1, (2, 3), endpoint=True) == 1)
        self.assertEqual((x0.dtype, x1.dtype, x2.dtype), (np.float32, np.int32, np.bool_))
        again = draw_inputs(g, 5)
        for a, b in zip(again, (x0, x1, x2)):
            np.testing.assert_array_equal(a, b)
        self.assertFalse(np.array_equal(draw_inputs(g, 6)[0], x0))

    def test_integer_bounds_are_inclusive(self) -> None:
        doc = copy.deepcopy(SMALL)
        doc["inputs"][1].update(shape=[4000], low=-2, high=2)
        values = draw_inputs(parse_graph(text(doc)), 0)[1]
        self.assertEqual(set(values.tolist()), {-2, -1, 0, 1, 2})


class Shared(unittest.TestCase):
    def test_operand_dtypes(self) -> None:
        g = parse_graph(text(SMALL))
        self.assertEqual(operand_dtypes(g, g.nodes[1]), ["bool", "float32", "float32"])

    def test_pad_pairs_nested_or_flat(self) -> None:
        node = parse_graph(text(SMALL)).nodes[0]
        for pads in ([[1, 0], [0, 2]], [1, 0, 0, 2]):
            node.attrs["pads"] = pads
            self.assertEqual(pad_pairs(node, 2), [(1, 0), (0, 2)])
        with self.assertRaisesRegex(ValueError, "one pair per dim"):
            pad_pairs(node, 3)


class ErrorInEps(unittest.TestCase):
    """As src/oracle/accuracy.hpp defines it."""

    def test_finite(self) -> None:
        r = np.array([1.0, -2.0, 0.0])
        s = math.sqrt(5 / 3)
        x = r + np.array([0.0, 0.0, 2.0 ** -23 * 3])
        self.assertAlmostEqual(error_eps(x.astype(np.float32), r, "float32"), 3 / s, places=5)
        self.assertEqual(error_eps(r, r, "float16"), 0.0)
        self.assertEqual(error_eps(np.zeros(3), np.zeros(3), "float32"), 0.0)  # s = 1 when the rms is 0

    def test_non_finite_rules(self) -> None:
        nan, inf = math.nan, math.inf
        self.assertEqual(error_eps(np.array([nan]), np.array([nan]), "float32"), 0.0)
        self.assertEqual(error_eps(np.array([1.0]), np.array([nan]), "float32"), inf)
        self.assertEqual(error_eps(np.array([inf]), np.array([1e6]), "float16"), 0.0)  # a right overflow
        self.assertEqual(error_eps(np.array([65504.0]), np.array([1e6]), "float16"), 0.0)
        self.assertEqual(error_eps(np.array([-inf]), np.array([1e6]), "float16"), inf)
        self.assertEqual(error_eps(np.array([inf]), np.array([1.0]), "float32"), inf)
        self.assertEqual(error_eps(np.zeros(2), np.zeros(3), "float32"), inf)

    def test_alone_bound(self) -> None:
        self.assertEqual(alone_bound("float32", 1), 2.0 ** 13)
        self.assertEqual(alone_bound("float16", 1), 16.0)
        self.assertEqual(alone_bound("float16", 100), 160.0)


if __name__ == "__main__":
    unittest.main()
