"""Run parameters, declared work and metrics, the IDX loader, and the
capability suite's NumPy cases run for real through the runner.

Runs with the numpy environment (numpy + scipy); no framework needed.
"""

from __future__ import annotations

import gzip
import math
import os
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mudjack_probe import api, data
from mudjack_probe.adapters import load
from mudjack_probe.runner import Policy, run_case

SUITE = str(Path(__file__).resolve().parents[2] / "suites" / "capability")
FAST = Policy(budget_ms=0, min_samples=1, max_samples=2, warmup_ms=0, block_ms=0.01)


class Params(unittest.TestCase):
    def tearDown(self) -> None:
        api.set_params({})

    def test_parse_param_args(self) -> None:
        self.assertEqual(api.parse_param_args(["a=1", "b = x,y", "c=", "a=2", "d=e=f"]),
                         {"a": "2", "b": "x,y", "c": "", "d": "e=f"})
        for bad in ("novalue", "=1", "1a=2", "a-b=1"):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                api.parse_param_args([bad])

    def test_values_are_typed_by_the_default(self) -> None:
        api.set_params({"n": "4096", "big": "1e7", "x": "0.5", "flag": "off", "name": "a b",
                        "sizes": "256, 1024,", "fs": "1.5,2"})
        self.assertEqual(api.param("n", 1), 4096)
        self.assertEqual(api.param("big", 1), 10_000_000)
        self.assertEqual(api.param("x", 1.0), 0.5)
        self.assertIs(api.param("flag", True), False)
        self.assertEqual(api.param("name", ""), "a b")
        self.assertEqual(api.param("sizes", (1,)), (256, 1024))
        self.assertEqual(api.param("fs", (1.0,)), (1.5, 2.0))
        self.assertEqual(api.param("unset", (3, 4)), (3, 4))
        self.assertEqual(api.param("unset_int", 7), 7)

    def test_bad_values_name_the_parameter(self) -> None:
        api.set_params({"n": "abc", "m": "2.5", "b": "maybe", "l": ",", "f": "x"})
        for name, default in (("n", 1), ("m", 1), ("b", False), ("l", (1,)), ("f", 1.0)):
            with self.subTest(name=name), self.assertRaisesRegex(ValueError, f"param {name}="):
                api.param(name, default)

    def test_reads_are_recorded_with_type_default_and_value(self) -> None:
        api.set_params({"matrix_size": "64,128"})
        api.param("matrix_size", (256,))
        api.param("steps", 0)
        self.assertEqual(api.params_read(), {
            "matrix_size": {"type": "list[int]", "default": [256], "value": [64, 128]},
            "steps": {"type": "int", "default": 0, "value": 0},
        })
        api.reset()  # reloading suites forgets what was read, not the values
        self.assertEqual(api.params_read(), {})
        self.assertEqual(api.param("matrix_size", (256,)), (64, 128))

    def test_ctx_param_reads_the_same_values(self) -> None:
        api.set_params({"steps": "9"})
        cases = api.Cases("numpy")
        seen = []

        @cases.case("f")
        def body(t: api.Ctx) -> api.Call:
            seen.append(t.param("steps", 1))
            return t.call(lambda: 0)

        adapter = load("numpy")
        adapter.select("cpu")
        run_case(adapter, cases.defs[0], 0, FAST, None)
        self.assertEqual(seen, [9])
        api.reset()


class WorkAndMetrics(unittest.TestCase):
    def setUp(self) -> None:
        api.reset()
        self.adapter = load("numpy")
        self.adapter.select("cpu")
        self.cases = api.Cases("numpy")

    def tearDown(self) -> None:
        api.reset()

    def run_one(self) -> dict:
        return run_case(self.adapter, self.cases.defs[-1], 0, FAST, None)

    def test_result_carries_work_and_metrics(self) -> None:
        @self.cases.case("matmul", shape={"n8": (8, 8)})
        def body(t: api.Ctx) -> api.Call:
            a = t.randn()
            return (t.call(lambda x: x @ x, a).work(2 * 8**3, "FLOP")
                    .metric("trace", lambda outs, ins: np.trace(outs[0]))
                    .metric("constant", 3, "s")
                    .metric("nan", float("nan")))

        result = self.run_one()
        self.assertEqual(result["status"], "pass")
        self.assertEqual(result["work"], {"amount": 1024.0, "unit": "FLOP"})
        self.assertEqual(result["metrics"]["constant"], {"value": 3.0, "unit": "s"})
        self.assertIsNone(result["metrics"]["nan"]["value"])  # not finite: null, never NaN on the wire
        self.assertTrue(math.isfinite(result["metrics"]["trace"]["value"]))

    def test_no_declarations_no_fields(self) -> None:
        @self.cases.case("plain")
        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda: np.zeros(2))

        result = self.run_one()
        self.assertEqual(result["status"], "pass")
        self.assertNotIn("work", result)
        self.assertNotIn("metrics", result)

    def test_work_must_be_positive(self) -> None:
        with self.assertRaises(ValueError):
            api.Call(lambda: 0, ()).work(0, "FLOP")

    def test_a_broken_metric_is_a_suite_error(self) -> None:
        @self.cases.case("broken")
        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda: np.zeros(2)).metric("m", lambda outs, ins: 1 / 0)

        result = self.run_one()
        self.assertEqual(result["status"], "error")
        self.assertIn("metric 'm' raised ZeroDivisionError", result["error"]["message"])
        self.assertIn("1 / 0", result["error"]["traceback"])

    def test_self_compiled_is_not_compiled_again(self) -> None:
        # numpy has no compiler: a compiled case fails unless the body compiled it itself.
        @self.cases.case("own", mode=["compiled"])
        def own(t: api.Ctx) -> api.Call:
            return t.call(lambda: np.ones(1)).self_compiled()

        self.assertEqual(self.run_one()["status"], "pass")

        @self.cases.case("runner", mode=["compiled"])
        def runner(t: api.Ctx) -> api.Call:
            return t.call(lambda: np.ones(1))

        self.assertEqual(self.run_one()["status"], "fail")


class Idx(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_round_trip_of_every_type(self) -> None:
        for dtype in (np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64):
            with self.subTest(dtype=dtype):
                a = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
                path = os.path.join(self.dir, "a.idx")
                data.write_idx(path, a)
                b = data.read_idx(path)
                self.assertEqual(b.dtype, np.dtype(dtype))
                self.assertTrue(np.array_equal(a, b))

    def test_bytes_are_big_endian_as_the_format_says(self) -> None:
        path = os.path.join(self.dir, "labels")
        with open(path, "wb") as f:  # written by hand: magic 0x00000801, 3 labels
            f.write(bytes([0, 0, 8, 1, 0, 0, 0, 3, 7, 0, 9]))
        self.assertEqual(data.read_idx(path).tolist(), [7, 0, 9])
        path = os.path.join(self.dir, "ints")
        with open(path, "wb") as f:  # int32 0x0C, 1 dim of 2: 258 and -1
            f.write(bytes([0, 0, 0x0C, 1, 0, 0, 0, 2, 0, 0, 1, 2, 255, 255, 255, 255]))
        self.assertEqual(data.read_idx(path).tolist(), [258, -1])

    def test_malformed_files_are_refused_naming_the_file(self) -> None:
        cases = {
            "magic": bytes([1, 0, 8, 1, 0, 0, 0, 1, 5]),
            "type": bytes([0, 0, 0x42, 1, 0, 0, 0, 1, 5]),
            "header": bytes([0, 0, 8, 3, 0, 0]),
            "short": bytes([0, 0, 8, 1, 0, 0, 0, 4, 1, 2]),
            "long": bytes([0, 0, 8, 1, 0, 0, 0, 1, 1, 2]),
        }
        for name, raw in cases.items():
            with self.subTest(name=name):
                path = os.path.join(self.dir, name)
                with open(path, "wb") as f:
                    f.write(raw)
                with self.assertRaisesRegex(ValueError, name):
                    data.read_idx(path)

    def write_mnist(self, n_train: int, n_test: int, gz: bool) -> None:
        rng = np.random.default_rng(3)
        parts = {
            "train_images": rng.integers(0, 256, (n_train, 6, 5), dtype=np.uint8),
            "train_labels": rng.integers(0, 10, n_train, dtype=np.uint8),
            "test_images": rng.integers(0, 256, (n_test, 6, 5), dtype=np.uint8),
            "test_labels": rng.integers(0, 10, n_test, dtype=np.uint8),
        }
        for key, array in parts.items():
            path = os.path.join(self.dir, data.IDX_FILES[key])
            data.write_idx(path, array)
            if gz:
                with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                    dst.write(src.read())
                os.remove(path)
        self.parts = parts

    def test_mnist_folder_plain_and_gzip(self) -> None:
        for gz in (False, True):
            with self.subTest(gz=gz):
                self.write_mnist(7, 3, gz)
                s = data.load_images(self.dir)
                self.assertEqual(s.train_x.shape, (7, 6, 5, 1))
                self.assertEqual(s.train_x.dtype, np.float32)
                self.assertEqual(s.test_y.dtype, np.int64)
                self.assertTrue(np.allclose(s.train_x[..., 0] * 255, self.parts["train_images"]))
                self.assertEqual(s.test_y.tolist(), self.parts["test_labels"].tolist())
                self.assertTrue(s.source.startswith("idx:"))

    def test_missing_file_and_count_mismatch(self) -> None:
        self.write_mnist(4, 2, False)
        os.remove(os.path.join(self.dir, data.IDX_FILES["test_labels"]))
        with self.assertRaisesRegex(FileNotFoundError, "t10k-labels"):
            data.load_images(self.dir)
        data.write_idx(os.path.join(self.dir, data.IDX_FILES["test_labels"]), np.zeros(5, np.uint8))
        with self.assertRaisesRegex(ValueError, "2 test images but 5 labels"):
            data.load_images(self.dir)


class CapabilitySuite(unittest.TestCase):
    """The suite's NumPy cases, listed with parameters and run for real."""

    def setUp(self) -> None:
        from mudjack_probe.loading import load_suites

        self.load_suites = load_suites
        self.adapter = load("numpy")
        self.adapter.select("cpu")

    def tearDown(self) -> None:
        api.set_params({})
        sys.modules.pop("_capability", None)

    def test_params_shape_the_case_grid(self) -> None:
        api.set_params({"matrix_size": "48,64", "jit_size": "1000"})
        cases = self.load_suites([SUITE], "numpy")
        self.assertIn("numpy/xla/float32-n48-eager", cases)
        self.assertIn("numpy/xla/float32-n64-eager", cases)
        self.assertIn("numpy/jit/float32-1000-eager", cases)
        self.assertNotIn("numpy/xla/float32-n256-eager", cases)
        self.assertEqual(api.params_read()["matrix_size"]["value"], [48, 64])
        api.set_params({"matrix_size": "big"})
        with self.assertRaisesRegex(ValueError, "param matrix_size='big': expected an integer"):
            self.load_suites([SUITE], "numpy")

    def test_numpy_cases_pass_against_their_references(self) -> None:
        api.set_params({"matrix_size": "64", "jit_size": "10000", "scipy_points": "50"})
        cases = self.load_suites([SUITE], "numpy")
        xla = run_case(self.adapter, cases["numpy/xla/float32-n64-eager"], 0, FAST, None)
        self.assertEqual(xla["status"], "pass", xla.get("error"))
        self.assertEqual(xla["work"], {"amount": 2.0 * 64**3, "unit": "FLOP"})
        jit = run_case(self.adapter, cases["numpy/jit/float32-1e4-eager"], 0, FAST, None)
        self.assertEqual(jit["status"], "pass", jit.get("error"))
        self.assertEqual(jit["work"], {"amount": 10000.0, "unit": "element"})
        fit = run_case(self.adapter, cases["numpy/scipy/float64-n50-eager"], 0, FAST, None)
        self.assertEqual(fit["status"], "pass", fit.get("error"))
        m = fit["metrics"]
        self.assertAlmostEqual(m["gain"]["value"], 1.5, delta=0.05)
        self.assertAlmostEqual(m["offset"]["value"], 3.0, delta=0.1)
        self.assertGreater(m["iterations"]["value"], 0)

    def test_references(self) -> None:
        cap = sys.modules.get("_capability")
        if cap is None:
            self.load_suites([SUITE], "numpy")
            cap = sys.modules["_capability"]
        # The study's printed f(3.0), f'(3.0) are float32 results: within a
        # float32 rounding or two of the float64 values.
        self.assertAlmostEqual(float(cap.f_host(3.0)), cap.F_AT_3, delta=2e-7)
        self.assertAlmostEqual(float(cap.df_host(3.0)), cap.DF_AT_3, delta=2e-7)
        self.assertEqual(cap.size_tag(10_000_000), "1e7")
        self.assertEqual(cap.size_tag(2048), "2048")
        # A wrong product fails the matmul check; a right one passes.
        a = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
        check = cap.matmul_close("float32")
        self.assertTrue(check([a @ a], [a, a]))
        self.assertFalse(check([a @ a + 1e-2], [a, a]))
        # The NumPy CNN forward of zero weights is log(10) for any batch.
        w = {k: np.zeros_like(v) for k, v in cap.mnist_weights(0, 8, 8).items()}
        x = np.random.default_rng(1).random((4, 8, 8, 1), dtype=np.float32)
        self.assertAlmostEqual(cap.mnist_loss_host(w, x, np.array([0, 1, 2, 3])), math.log(10), places=12)


if __name__ == "__main__":
    unittest.main()
