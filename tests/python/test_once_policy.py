"""The run policy `once` (protocol 1.6) and a case's `claims`: one call, its
outputs and checks as a timed case's, no samples; policy and claims checked
at declaration and carried in the listing.

Runs with the numpy environment; no framework needed.
"""

from __future__ import annotations

import unittest

import numpy as np
import test_capability as capability

from mudjack_probe import api
from mudjack_probe.runner import Policy, run_case


class OncePolicy(unittest.TestCase):
    setUp = capability.WorkAndMetrics.setUp
    tearDown = capability.WorkAndMetrics.tearDown

    def test_once_calls_the_function_once_and_still_checks_it(self) -> None:
        calls = []

        @self.cases.case("f", policy="once", claims={"cpu": ["float32"], "cuda": []})
        def body(t: api.Ctx) -> api.Call:
            def fn(a: np.ndarray) -> np.ndarray:
                calls.append(1)
                return np.abs(a)

            return t.call(fn, t.randn((4,))).check("non-negative", lambda outs, ins: bool((outs[0] >= 0).all()))

        case = self.cases.defs[0]
        self.assertEqual(case.metadata()["policy"], "once")
        self.assertEqual(case.metadata()["claims"], {"cpu": True, "cuda": False})
        result = run_case(self.adapter, case, 0, Policy.from_json({"budget_ms": 7, "min_samples": 5, "max_samples": 1000, "warmup_ms": 5,
                                                             "block_ms": 1, "once": True}), None)
        self.assertEqual(result["status"], "pass")
        self.assertEqual(len(calls), 1)
        self.assertEqual(result["samples_ns"], [])
        self.assertGreater(result["cold_ns"], 0)
        self.assertNotIn("drift_ns", result)
        self.assertEqual(result["checks"], [{"name": "non-negative", "kind": "property", "ok": True}])

    def test_timed_is_the_default_and_is_left_out_of_the_listing(self) -> None:
        @self.cases.case("f")
        def body(t: api.Ctx) -> api.Call:
            return t.call(np.abs, t.randn((4,)))

        meta = self.cases.defs[0].metadata()
        self.assertNotIn("policy", meta)
        self.assertNotIn("claims", meta)

    def test_a_bad_policy_or_device_kind_is_refused_when_declared(self) -> None:
        with self.assertRaisesRegex(ValueError, "policy 'fast' is not one of"):
            self.cases.case("f", policy="fast")
        with self.assertRaisesRegex(ValueError, "device kind 'gpu'"):
            self.cases.case("f", claims={"gpu": ["float32"]})


if __name__ == "__main__":
    unittest.main()
