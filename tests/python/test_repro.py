"""mudjack repro's script writers, with the numpy adapter: the full script
runs on its own, reproduces the call, and fails when the output differs from
the baseline's; after the oracle's mismatch the full and the minimal script
judge the float64 error as the oracle does."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np

from mudjack_probe import api, checking, eps
from mudjack_probe.adapters import load
from mudjack_probe.minimal import make_minimal
from mudjack_probe.repro import make_script
from mudjack_probe.script_writer import CannotWrite, accuracy_check

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

SCALE = 3.0  # a module-level constant the body's helper uses


def _helper(x: np.ndarray, k: float) -> np.ndarray:
    return np.cumsum(x) * k + SCALE


class _Reference:
    """A suite's helper class a check holds an instance of."""

    def __init__(self, k: float) -> None:
        self.k = k

    def want(self, x: np.ndarray) -> np.ndarray:
        return _helper(x.astype(np.float64), self.k)


def _within(t: api.Ctx, reference: _Reference):  # type: ignore[no-untyped-def]
    """A check built by a helper: closes over the case context and an object."""

    def ok(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
        return outs[0].dtype.name == t.dtype_name and bool(np.allclose(outs[0], reference.want(ins[0]), rtol=1e-5))

    return ok


class Scripts(unittest.TestCase):
    """Writes scripts of numpy cases and runs them."""

    def setUp(self) -> None:
        api.reset()
        self.adapter = load("numpy")
        self.adapter.select("cpu")
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def case(self, body):  # type: ignore[no-untyped-def]
        cases = api.Cases("numpy")
        cases.case("numpy.cumsum", dtype=["float32"], shape={"vec": (5,)})(body)
        return cases.defs[0]

    def run_script(self, script: str) -> subprocess.CompletedProcess[str]:
        path = os.path.join(self.tmp.name, "repro.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        return subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=60, check=False)  # the tests read returncode


class Repro(Scripts):
    def test_closures_globals_and_inputs_travel(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            k = 2.5
            x = t.randn()
            return t.call(lambda a, b: _helper(a, k) + b, x, 1)

        case = self.case(body)
        script = make_script(self.adapter, case, seed=7, device="cpu", seen="pass on cpu")
        self.assertIn("What MudJack saw: pass on cpu", script)
        self.assertNotIn("mudjack_probe", script.split('"""', 2)[2], "the script needs no mudjack")
        done = self.run_script(script)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("output 0: shape (5,) dtype float32", done.stdout)

        # With the baseline's output: equal passes, different fails (exit 1).
        call = case.body(api.Ctx(self.adapter, case, 7))
        right = call.fn(*call.args)
        for expected, code in ((right, 0), (right + 1.0, 1)):
            npy = os.path.join(self.tmp.name, f"expected{code}.npy")
            np.save(npy, expected)
            done = self.run_script(make_script(self.adapter, case, 7, "cpu", expected=[npy], rtol=1e-6, atol=1e-6))
            self.assertEqual(done.returncode, code, done.stderr)
            if code:
                self.assertIn("differs from the baseline", done.stderr)

    def test_the_called_lambda_is_told_from_its_neighbours(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            k = 2
            return t.call(lambda a: a * k, t.randn()).check("twice", lambda a: np.sum(a) is not None)

        script = make_script(self.adapter, self.case(body), 0, "cpu")
        self.assertIn("_fn = (lambda a: a * k)", script)

    def test_names_the_call_closes_over_cannot_clash_with_the_script_s_own(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            fn, args, out = np.add, 1.0, 2.0
            return t.call(lambda a: fn(a, args) * out, t.randn())

        done = self.run_script(make_script(self.adapter, self.case(body), 0, "cpu"))
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_a_failing_call_fails_the_same_way(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda a: np.linalg.inv(a), t.from_numpy(np.zeros((3, 3), np.float32)))

        done = self.run_script(make_script(self.adapter, self.case(body), 0, "cpu"))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("LinAlgError", done.stderr)

    def test_the_case_s_checks_run_and_a_failed_one_fails_the_script(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            return (
                t.call(lambda a: np.sort(a)[::-1], t.randn())
                .check("not empty", lambda outs, ins: outs[0].size > 0)
                .check("ascending", lambda outs, ins: bool(np.all(np.diff(outs[0]) >= 0)))
            )

        script = make_script(self.adapter, self.case(body), 0, "cpu", seen="mismatch on cpu: property check failed: ascending")
        self.assertIn("The case's checks: not empty (property); ascending (property).", script)
        done = self.run_script(script)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("check 'not empty' (property): held", done.stdout)
        self.assertIn("check 'ascending' (property): FAILED", done.stdout)
        self.assertIn("reproduced: property check failed: ascending", done.stderr)

    def test_a_check_built_by_a_helper_travels_with_what_it_closes_over(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            k = 2.5
            return t.call(lambda a: _helper(a, k), t.randn()).reference("cumsum formula", _within(t, _Reference(k)))

        done = self.run_script(make_script(self.adapter, self.case(body), 0, "cpu"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("check 'cumsum formula' (reference): held", done.stdout)

        def wrong(t: api.Ctx) -> api.Call:  # the same check on a wrong answer fails, in the script too
            return t.call(lambda a: _helper(a, 2.0), t.randn()).reference("cumsum formula", _within(t, _Reference(2.5)))

        done = self.run_script(make_script(self.adapter, self.case(wrong), 0, "cpu"))
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("check 'cumsum formula' (reference): FAILED", done.stdout)

    def test_a_check_that_cannot_be_written_is_named_with_the_reason(self) -> None:
        handle = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - an object no script can rebuild
        self.addCleanup(handle.close)

        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda a: a * 2, t.randn()).check("uses a file", lambda outs, ins: handle is not None)

        script = make_script(self.adapter, self.case(body), 0, "cpu")
        self.assertIn("# The check 'uses a file' could not be written as source", script)
        self.assertIn('# Its source, as the suite has it:', script)
        done = self.run_script(script)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("check 'uses a file' (property): NOT RUN by this script: handle", done.stdout)

    def test_what_cannot_be_written_is_named(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            handle = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - an object no script can rebuild
            self.addCleanup(handle.close)
            return t.call(lambda a: (handle, a)[1], t.randn())

        with self.assertRaises(CannotWrite) as caught:
            make_script(self.adapter, self.case(body), 0, "cpu")
        self.assertIn("handle", str(caught.exception))


class Accuracy(Scripts):
    """After the oracle's mismatch (`bound_eps`), both scripts measure the
    error in eps against float64 with the oracle's error_parts
    (mudjack_probe/eps.py, embedded) and exit 1 beyond the bound."""

    def test_a_finite_output_where_float64_is_nan_is_reproduced(self) -> None:
        # float32: a + 1e-10 == a, so sqrt(-0.0) = -0.0; float64: sqrt(-1e-10)
        # is NaN. The oracle calls a finite output against a NaN reference
        # infinitely off; np.nanmax, in the minimal script before issue 49,
        # dropped it and printed 0 eps.
        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda a: np.sqrt(-((a + 1e-10) - a)), t.randn())

        for write in (make_script, make_minimal):
            with self.subTest(write.__name__):
                script = write(self.adapter, self.case(body), 0, "cpu", bound_eps=16.0)
                self.assertNotIn("mudjack_probe", script.split('"""', 2)[2], "the script needs no mudjack")
                done = self.run_script(script)
                self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
                self.assertIn("output 0: error inf eps against float64", done.stdout)

    def test_an_output_within_the_bound_passes(self) -> None:
        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda a: (a * 3, np.argmax(a)), t.randn())

        for write in (make_script, make_minimal):
            with self.subTest(write.__name__):
                done = self.run_script(write(self.adapter, self.case(body), 0, "cpu", bound_eps=6.0))
                self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
                self.assertIn("output 1: not judged", done.stdout)
                self.assertIn("worst error 0", done.stdout)

    def test_the_minimal_script_of_a_check_case_stays_within_40_lines(self) -> None:
        # As tests/integration/check_test.cpp counts: every line but the inline inputs.
        cases = checking.declare(str(FIXTURES / "check" / "rms_overflow.py") + ":rmsnorm", True, "numpy")
        script = make_minimal(self.adapter, cases[0].defs[0], 0, "cpu", "mismatch", bound_eps=64.0)
        self.assertLessEqual(sum(1 for line in script.splitlines() if not line.startswith("    put(")), 40, script)
        self.assertNotIn("import base64", script)
        done = self.run_script(script)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("eps against float64", done.stdout)

    def test_an_error_just_beyond_its_bound_prints_beyond_it(self) -> None:
        # To 6 significant digits: 6.0004 eps never prints as the bound's 6.
        # One output, r = 1 (its RMS 1 too): the error is |x - 1| / (2 eps).
        space = {"np": np, "ref_fn": lambda x: x, "wide": lambda a: a, "host": lambda a: np.asarray(a, np.float64),
                 "outs": lambda o: [o], "args": [np.array([1.0])], "out": np.array([1.0 + 6.0004 * 2e-3]),
                 "_EPS": [(1e-3, 65504.0)], "_BOUND": 6.0}
        printed = StringIO()
        with redirect_stdout(printed), self.assertRaises(SystemExit):
            exec("\n".join([eps.embedded("error_parts"), *accuracy_check("raise SystemExit(1)")]), space)
        self.assertIn("worst error 6.0004 eps; MudJack's bound 6 eps", printed.getvalue())


if __name__ == "__main__":
    unittest.main()

