"""Taking turns on a shared device (protocol 1.12, runner.DeviceTurn): the
probes of one accelerator, one per framework, hold the device one at a time
from the end of a case's cold call to its end, and each case reports how
long it waited. Two real processes on one lock file; no framework needed.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
import unittest
from typing import Any

import numpy as np
import test_capability as capability

from mudjack_probe import api, runner
from mudjack_probe.runner import Policy, run_case


def _hold(path: str, hold_s: float, queue: multiprocessing.Queue, start: Any = None) -> None:  # type: ignore[type-arg]
    turn = runner.DeviceTurn(path)
    if start is not None:  # every process asks at once, however late it started
        start.wait()
    turn.take()
    start = time.monotonic()
    time.sleep(hold_s)
    end = time.monotonic()
    wait = turn.give()
    queue.put((start, end, wait))


class DeviceTurnTest(unittest.TestCase):
    def test_two_processes_never_hold_the_device_at_once(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "device-cuda_0.lock")
            ctx = multiprocessing.get_context("spawn")
            queue = ctx.Queue()
            start = ctx.Barrier(3)
            procs = [ctx.Process(target=_hold, args=(path, 0.3, queue, start)) for _ in range(3)]
            for p in procs:
                p.start()
            spans = sorted(queue.get(timeout=30) for _ in procs)
            for p in procs:
                p.join(timeout=30)
                self.assertEqual(p.exitcode, 0)
        for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
            self.assertLessEqual(end, start, f"turns overlap: {spans}")
        waits = sorted(w for _, _, w in spans)
        self.assertIsNotNone(waits[0])
        # Asked at once, the last of three waited for the other two's 0.3 s each.
        self.assertGreater(waits[-1], 0.5e9)

    def test_without_a_lock_file_taking_the_turn_does_nothing(self) -> None:
        turn = runner.DeviceTurn(None)
        turn.take()
        self.assertIsNone(turn.give())


class CaseOnASharedDevice(unittest.TestCase):
    setUp = capability.WorkAndMetrics.setUp
    tearDown = capability.WorkAndMetrics.tearDown

    def _run(self, lock: str | None) -> dict:  # type: ignore[type-arg]
        @self.cases.case("f")
        def body(t: api.Ctx) -> api.Call:
            return t.call(np.abs, t.randn((4,)))

        saved = list(runner._TURN)
        runner._TURN[:] = [runner.DeviceTurn(lock)]
        try:
            return run_case(self.adapter, self.cases.defs[-1], 0, capability.FAST, None)
        finally:
            runner._TURN[:] = saved

    def test_a_case_reports_its_wait_only_on_a_shared_device(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            shared = self._run(os.path.join(tmp, "device.lock"))
        self.assertEqual(shared["status"], "pass")
        self.assertGreaterEqual(shared["device_wait_ns"], 0)
        alone = self._run(None)
        self.assertEqual(alone["status"], "pass")
        self.assertNotIn("device_wait_ns", alone)

    def test_host_work_after_the_timing_runs_without_the_turn(self) -> None:
        # Held through the timing and around each later call on the device
        # (the second call, the float64 reference); not while the checks run.
        seen: list[tuple[str, bool]] = []

        def held() -> bool:
            return runner.device_turn()._held

        @self.cases.case("g")
        def body(t: api.Ctx) -> api.Call:
            def fn(a: np.ndarray) -> np.ndarray:
                seen.append(("call", held()))
                return np.abs(a)

            def nonnegative(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
                seen.append(("check", held()))
                return bool((outs[0] >= 0).all())

            return t.call(fn, t.randn((4,))).check("nonnegative", nonnegative)

        saved = list(runner._TURN)
        with tempfile.TemporaryDirectory() as tmp:
            runner._TURN[:] = [runner.DeviceTurn(os.path.join(tmp, "device.lock"))]
            try:
                policy = Policy(budget_ms=0, min_samples=1, max_samples=2, warmup_ms=0, block_ms=0.01, reference=True)
                result = run_case(self.adapter, self.cases.defs[-1], 0, policy, tmp)
            finally:
                runner._TURN[:] = saved
        self.assertEqual(result["status"], "pass", result)
        self.assertIn("reference", result)
        self.assertIn("again", result)
        calls = [h for what, h in seen if what == "call"]
        self.assertFalse(calls[0], "the cold call runs without the turn")
        self.assertTrue(all(calls[1:]), f"a later call ran without the turn: {seen}")
        self.assertGreaterEqual(len(calls), 4)  # cold, warm-up/samples, again, reference
        checks = [h for what, h in seen if what == "check"]
        self.assertTrue(checks)
        self.assertFalse(any(checks), f"a check held the device: {seen}")

    def test_the_turn_is_given_back_when_a_case_fails(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            lock = os.path.join(tmp, "device.lock")

            calls: list[int] = []

            @self.cases.case("boom")
            def body(t: api.Ctx) -> api.Call:
                def fn(a: np.ndarray) -> np.ndarray:
                    calls.append(1)
                    if len(calls) > 1:  # after the cold call: the turn is held
                        raise RuntimeError("boom")
                    return a

                return t.call(fn, t.randn((4,)))

            saved = list(runner._TURN)
            runner._TURN[:] = [runner.DeviceTurn(lock)]
            try:
                result = run_case(self.adapter, self.cases.defs[-1], 0,
                                  Policy(budget_ms=7, min_samples=5, max_samples=1000, warmup_ms=5, block_ms=1), None)
            finally:
                runner._TURN[:] = saved
            self.assertEqual(result["status"], "fail")
            self.assertIn("device_wait_ns", result)
            # Another process takes the turn at once.
            ctx = multiprocessing.get_context("spawn")
            queue = ctx.Queue()
            p = ctx.Process(target=_hold, args=(lock, 0.0, queue))
            p.start()
            _, _, wait = queue.get(timeout=30)
            p.join(timeout=30)
            self.assertLess(wait, 5e9)


if __name__ == "__main__":
    unittest.main()
