"""A suite's own mistakes are status `error` (protocol 1.5), never a
framework failure: a body that returns something other than `t.call(...)`, an
unknown dtype name, a check that raises. A check that returns False is still
the framework's mismatch, and a body whose call raises still a `fail`.

Runs with the numpy environment; no framework needed.
"""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
import test_capability as capability

from mudjack_probe import api
from mudjack_probe.loading import load_suites
from mudjack_probe.runner import run_case


class SuiteErrors(unittest.TestCase):
    # One numpy Cases collection and its last case run, as in test_capability.
    setUp = capability.WorkAndMetrics.setUp
    tearDown = capability.WorkAndMetrics.tearDown
    run_one = capability.WorkAndMetrics.run_one

    def test_a_body_that_returns_a_tensor_is_an_error_naming_the_body(self) -> None:
        @self.cases.case("f")
        def my_body(t: api.Ctx) -> api.Call:
            return np.abs(t.randn((4,)))  # type: ignore[no-any-return]

        result = self.run_one()
        self.assertEqual(result["status"], "error")
        self.assertIn("my_body", result["error"]["message"])
        self.assertIn("returned ndarray, not t.call", result["error"]["message"])

    def test_an_unknown_dtype_is_an_invalid_case_with_a_suggestion(self) -> None:
        @self.cases.case("f", dtype=["fp16", "float32"])
        def body(t: api.Ctx) -> api.Call:
            return t.call(np.abs, t.randn((4,)))

        typo, good = self.cases.defs
        self.assertIn("did you mean 'float16'", typo.invalid)
        self.assertEqual(typo.metadata()["invalid"], typo.invalid)
        self.assertNotIn("invalid", good.metadata())
        self.assertEqual(run_case(self.adapter, typo, 0, capability.FAST, None)["status"], "error")
        self.assertEqual(run_case(self.adapter, good, 0, capability.FAST, None)["status"], "pass")

    def test_a_check_that_raises_is_an_error_with_its_traceback(self) -> None:
        @self.cases.case("f")
        def body(t: api.Ctx) -> api.Call:
            return t.call(np.abs, t.randn((4,))).check("bad", lambda outs, ins: outs[3] > 0)

        result = self.run_one()
        self.assertEqual(result["status"], "error")
        self.assertIn("check 'bad' raised IndexError", result["error"]["message"])
        self.assertIn("outs[3]", result["error"]["traceback"])

    def test_a_check_that_is_false_is_still_the_frameworks_mismatch(self) -> None:
        @self.cases.case("f")
        def body(t: api.Ctx) -> api.Call:
            return t.call(np.abs, t.randn((4,))).check("negative", lambda outs, ins: bool((outs[0] < 0).all()))

        self.assertEqual(self.run_one()["status"], "mismatch")

    def test_a_call_that_raises_is_still_a_failure(self) -> None:
        def broken(x: np.ndarray) -> np.ndarray:
            raise RuntimeError("kernel")

        @self.cases.case("f")
        def body(t: api.Ctx) -> api.Call:
            return t.call(broken, t.randn((4,)))

        self.assertEqual(self.run_one()["status"], "fail")


class SuiteFiles(unittest.TestCase):
    def test_a_suite_file_that_exits_at_import_is_its_error_not_the_probes_end(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "leaves.py").write_text("import sys\nsys.exit(3)\n")
            with self.assertRaises(ValueError) as caught:
                load_suites([tmp], "numpy")
        self.assertEqual(str(caught.exception), f"{Path(tmp, 'leaves.py')}: the file exited at import (SystemExit: 3)")


if __name__ == "__main__":
    unittest.main()
