"""The kernel registry's prediction in a case's result (`kernels`), without
TensorFlow: the base adapter has no registry (None); the runner records what
an adapter predicts for passes and failures alike, after every other call of
the case, and never lets the prediction change the outcome. Also
scripts/tf-kernels.py on a small made-up results.json.

Runs with the numpy environment; no framework needed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any

import numpy as np
import test_capability as capability

from mudjack_probe import api
from mudjack_probe.adapters.base import Adapter
from mudjack_probe.adapters.numpy_adapter import NumpyAdapter
from mudjack_probe.runner import Policy, run_case

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = {"ops": 1, "cpu": {"kernels": True}, "gpu": {"kernels": False, "missing": ["Svd(T=complex64)"]}}


class Predicting(NumpyAdapter):
    """numpy, with a made-up registry: returns `answer`, or raises it when it is an exception."""

    has_kernel_registry = True

    def __init__(self, answer: Any) -> None:
        super().__init__()
        self.answer = answer
        self.asked: list[int] = []  # the case's calls made before each question
        self.calls = 0

    def kernel_support(self, fn: Any, args: tuple[Any, ...]) -> dict[str, Any] | None:
        self.asked.append(self.calls)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return dict(self.answer) if self.answer is not None else None


class KernelSupport(unittest.TestCase):
    def setUp(self) -> None:
        api.reset()
        self.cases = api.Cases("numpy")

    def tearDown(self) -> None:
        api.reset()

    def run_case(self, adapter: Predicting, fn: Any, policy: Policy = capability.FAST) -> dict[str, Any]:
        def counted(x: Any) -> Any:
            adapter.calls += 1
            return fn(x)

        @self.cases.case("f", shape={"v": (4,)})
        def body(t: api.Ctx) -> api.Call:
            return t.call(counted, t.randn())

        adapter.select("cpu")
        return run_case(adapter, self.cases.defs[-1], 0, policy, None)

    def test_the_base_adapter_has_no_registry(self) -> None:
        self.assertIsNone(Adapter().kernel_support(np.abs, (np.ones(3),)))
        self.assertIsNone(NumpyAdapter().kernel_support(np.abs, (np.ones(3),)))

    def test_no_registry_no_field(self) -> None:
        result = self.run_case(Predicting(None), np.abs)
        self.assertEqual(result["status"], "pass")
        self.assertNotIn("kernels", result)

    def test_an_adapter_without_a_registry_is_never_asked(self) -> None:
        adapter = Predicting(SUPPORT)
        adapter.has_kernel_registry = False
        result = self.run_case(adapter, np.abs)
        self.assertNotIn("kernels", result)
        self.assertEqual(adapter.asked, [])

    def test_a_pass_carries_the_prediction_asked_once_after_every_call(self) -> None:
        adapter = Predicting(SUPPORT)
        result = self.run_case(adapter, np.abs)
        self.assertEqual(result["status"], "pass")
        self.assertEqual(result["kernels"], SUPPORT)
        self.assertEqual(len(adapter.asked), 1, "once per case")
        self.assertEqual(adapter.asked[0], adapter.calls, "after the timed, warm-up and cold calls")
        self.assertGreater(adapter.calls, 1)

    def test_a_failure_carries_it_too(self) -> None:
        def broken(x: Any) -> Any:
            raise RuntimeError("No OpKernel was registered to support Op 'Svd'")

        result = self.run_case(Predicting(SUPPORT), broken)
        self.assertEqual(result["status"], "fail")
        self.assertEqual(result["error"]["kind"], "not_implemented")
        self.assertEqual(result["kernels"], SUPPORT)

    def test_a_mismatch_carries_it_too(self) -> None:
        adapter = Predicting(SUPPORT)

        @self.cases.case("f", shape={"v": (4,)})
        def body(t: api.Ctx) -> api.Call:
            return t.call(np.abs, t.randn()).check("negative", lambda outs, ins: bool(outs[0].max() < 0))

        adapter.select("cpu")
        result = run_case(adapter, self.cases.defs[-1], 0, capability.FAST, None)
        self.assertEqual(result["status"], "mismatch")
        self.assertEqual(result["kernels"], SUPPORT)

    def test_a_prediction_that_raises_leaves_the_outcome_alone(self) -> None:
        passed = self.run_case(Predicting(ValueError("trace\nfailed")), np.abs)
        self.assertEqual(passed["status"], "pass")
        self.assertEqual(passed["kernels"], {"error": "ValueError: failed"})

        def broken(x: Any) -> Any:
            raise TypeError("bad operand")

        failed = self.run_case(Predicting(ValueError("trace failed")), broken)
        self.assertEqual(failed["status"], "fail")
        self.assertEqual(failed["error"]["kind"], "type_error")
        self.assertEqual(failed["kernels"], {"error": "ValueError: trace failed"})

    def test_nothing_to_ask_when_the_body_never_built_its_call(self) -> None:
        adapter = Predicting(SUPPORT)

        @self.cases.case("f")
        def body(t: api.Ctx) -> api.Call:
            raise RuntimeError("building the inputs failed")

        adapter.select("cpu")
        result = run_case(adapter, self.cases.defs[-1], 0, capability.FAST, None)
        self.assertEqual(result["status"], "fail")
        self.assertNotIn("kernels", result)
        self.assertEqual(adapter.asked, [])

    def test_a_later_timing_round_asks_nothing(self) -> None:
        adapter = Predicting(SUPPORT)
        result = self.run_case(adapter, np.abs, Policy(budget_ms=0, min_samples=1, max_samples=2, warmup_ms=0,
                                                       block_ms=0.01, timing_only=True))
        self.assertEqual(result["status"], "pass")
        self.assertNotIn("kernels", result)
        self.assertEqual(adapter.asked, [])


def _case(function: str, dtype: str, outcome: str, kernels: dict[str, Any] | None, kind: str = "") -> dict[str, Any]:
    extra = {"kernels": kernels} if kernels is not None else {}
    return {"id": f"tensorflow/{function}/{dtype}-small-eager", "framework": "tensorflow", "function": function,
            "dtype": dtype, "device": "cpu", "outcome": outcome, "extra": extra,
            "error": {"kind": kind, "message": "Could not find device for node Svd"} if kind else None}


class Script(unittest.TestCase):
    """scripts/tf-kernels.py reads extra.kernels and counts both directions of disagreement."""

    def test_summary(self) -> None:
        ok = {"ops": 2, "cpu": {"kernels": True}, "gpu": {"kernels": True}}
        gpu_gap = {"ops": 2, "cpu": {"kernels": True}, "gpu": {"kernels": False, "missing": ["Svd(T=complex64)"]}}
        none = {"ops": 2, "cpu": {"kernels": False, "missing": ["Svd(T=float16)"]},
                "gpu": {"kernels": False, "missing": ["Svd(T=float16)"]}}
        results = {"run": {"options": {"suites": []}}, "environment": {"machines": [{"frameworks": {}}]}, "cases": [
            _case("tf.linalg.svd", "float32", "pass", ok),
            _case("tf.linalg.svd", "complex64", "pass", gpu_gap),
            _case("tf.linalg.svd", "float16", "fail", none, "unsupported_dtype"),
            _case("tf.linalg.svd", "bfloat16", "pass", none),  # predicted missing, but ran
            _case("tf.math.igammac", "float32", "fail", ok, "other"),  # predicted there, but failed
            _case("tf.math.igammac", "int8", "fail", {"error": "TypeError: refused"}, "type_error"),
            _case("tf.math.igammac", "bool", "fail", None, "other"),
            _case("tf.keras.optimizers.experimental.Adadelta", "float32", "pass",
                  {"ops": 3, "cpu": {"kernels": True}, "gpu": {"kernels": True, "maybe": ["ScatterNd(T=bool, Tindices=int32)"]}}),
        ]}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "results.json")
            path.write_text(json.dumps(results), encoding="utf-8")
            out = subprocess.run([sys.executable, str(ROOT / "scripts" / "tf-kernels.py"), str(path)],
                                 capture_output=True, text=True, check=True).stdout
        self.assertIn("a prediction: 6; the trace failed ({error}): 1; no `kernels` at all", out)
        self.assertIn("- kernels predicted, ran: 3", out)
        self.assertIn("- kernels missing, failed: 1", out)
        self.assertIn("- DISAGREE kernels missing, but ran: 1", out)
        self.assertIn("tensorflow/tf.linalg.svd/bfloat16-small-eager: missing Svd(T=float16)", out)
        self.assertIn("- DISAGREE kernels predicted, but failed: 1; by error kind {'other': 1}", out)
        self.assertIn("3 cases predicted to lack a GPU kernel; 1 of them have every CPU kernel", out)
        self.assertIn("tf.linalg.svd: Svd(T=complex64) [complex64]", out)
        self.assertIn("(run only if taken; not counted as predicted failures): 1, e.g. ScatterNd(T=bool, Tindices=int32)", out)
        row = next(line for line in out.splitlines() if line.startswith("tf.linalg.svd") and "complex64" in line)
        self.assertEqual(row.split()[3:6], ["ok", "ran", "MISSING:"])

    def test_no_kernels_anywhere_says_why(self) -> None:
        results = {"cases": [_case("tf.linalg.svd", "float32", "pass", None)]}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "results.json")
            path.write_text(json.dumps(results), encoding="utf-8")
            done = subprocess.run([sys.executable, str(ROOT / "scripts" / "tf-kernels.py"), str(path)],
                                  capture_output=True, text=True, check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("no case of this run carries extra.kernels", done.stderr)


if __name__ == "__main__":
    unittest.main()
