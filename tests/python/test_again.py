"""The case's call once more on the same arguments (protocol 1.13,
runner._again): identical outputs say so without saving anything; outputs
that differ are saved for the engine, which judges whether a mismatch is the
function's own nondeterminism."""

from __future__ import annotations

import itertools
import os
import tempfile
import unittest
from typing import Any

import numpy as np
import test_capability as capability

from mudjack_probe import api
from mudjack_probe.adapters.numpy_adapter import NumpyAdapter
from mudjack_probe.runner import _again, _same_bits, run_case


class Again(unittest.TestCase):
    def setUp(self) -> None:
        self.adapter = NumpyAdapter()
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def first(self, fn: Any, args: tuple[Any, ...]) -> list[tuple[np.ndarray, str]]:
        return self.adapter.to_numpy(fn(*args))

    def test_a_deterministic_call_is_identical_and_saves_nothing(self) -> None:
        x = np.arange(8, dtype=np.float32)
        fn = lambda a: a * 2  # noqa: E731
        again = _again(self.adapter, fn, (x,), self.first(fn, (x,)), "c", self.tmp.name)
        self.assertEqual(again, {"identical": True})
        self.assertEqual(os.listdir(self.tmp.name), [])

    def test_nan_in_the_same_place_is_identical(self) -> None:
        x = np.array([1.0, np.nan], dtype=np.float64)
        fn = lambda a: a + 1  # noqa: E731
        self.assertEqual(_again(self.adapter, fn, (x,), self.first(fn, (x,)), "c", self.tmp.name),
                         {"identical": True})

    def test_a_stateful_call_saves_its_second_outputs(self) -> None:
        calls = itertools.count(1)
        fn = lambda a: a + np.float32(next(calls))  # noqa: E731
        x = np.zeros(4, dtype=np.float32)
        again = _again(self.adapter, fn, (x,), self.first(fn, (x,)), "c", self.tmp.name)
        self.assertNotIn("identical", again)
        self.assertEqual(len(again["outputs"]), 1)
        np.testing.assert_array_equal(np.load(again["outputs"][0]["path"]), np.full(4, 2, np.float32))

    def test_a_second_call_that_raises_is_recorded_not_raised(self) -> None:
        calls = itertools.count(1)

        def once_only(a: Any) -> Any:
            if next(calls) > 1:
                raise RuntimeError("only once")
            return a

        x = np.zeros(2, dtype=np.float32)
        again = _again(self.adapter, once_only, (x,), self.first(once_only, (x,)), "c", self.tmp.name)
        self.assertEqual(again["outputs"], [])
        self.assertIn("only once", again["error"])

    def test_same_bits_tells_shapes_dtypes_and_values_apart(self) -> None:
        a = np.ones(3, np.float32)
        self.assertTrue(_same_bits(a, a.copy()))
        self.assertFalse(_same_bits(a, np.ones(3, np.float64)))
        self.assertFalse(_same_bits(a, np.ones(4, np.float32)))
        self.assertFalse(_same_bits(a, a + np.float32(1e-7)))


class DeclaredStateful(unittest.TestCase):
    """A call its suite declares stateful (protocol 1.14) gets no second
    call: each call starts where the last left off, so a second one would
    read as nondeterminism. Its outputs stay the first call's."""

    setUp = capability.WorkAndMetrics.setUp
    tearDown = capability.WorkAndMetrics.tearDown

    def _run(self, stateful: bool) -> dict[str, Any]:
        calls = itertools.count(1)

        @self.cases.case("step")
        def body(t: api.Ctx) -> api.Call:
            state = np.zeros(4, dtype=np.float32)

            def step(a: np.ndarray) -> np.ndarray:
                state[:] += a + np.float32(next(calls))  # an accumulator the call keeps
                return state.copy()

            call = t.call(step, np.ones(4, dtype=np.float32))
            return call.stateful("adds to an accumulator it keeps") if stateful else call

        with tempfile.TemporaryDirectory() as tmp:
            return run_case(self.adapter, self.cases.defs[-1], 0, capability.FAST, tmp)

    def test_a_declared_stateful_call_has_no_second_call(self) -> None:
        result = self._run(stateful=True)
        self.assertEqual(result["status"], "pass")
        self.assertEqual(result["again"], {"skipped": "stateful: adds to an accumulator it keeps"})

    def test_an_undeclared_one_saves_a_second_call_that_differs(self) -> None:
        result = self._run(stateful=False)
        self.assertNotIn("identical", result["again"])
        self.assertEqual(len(result["again"]["outputs"]), 1)


if __name__ == "__main__":
    unittest.main()
