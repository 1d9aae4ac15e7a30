"""The build pool of `build` (protocol 1.9), with the numpy framework: a
build past its deadline is given up and its worker retired, so the next
case gets a fresh interpreter; a worker that dies in a build is that case's
`failed` record and the others still build."""

from __future__ import annotations

import tempfile
import textwrap
import unittest
from pathlib import Path
from typing import Any

from mudjack_probe.loading import load_suites
from mudjack_probe.prebuild import build

SUITE = '''
import builtins
import os
import signal
import time

from mudjack_probe.api import Cases, Ctx

cases = Cases("numpy")


@cases.case("pool.taint")
def taint(t: Ctx):
    builtins.mudjack_half_made = True  # as an import cut short leaves a module half-made
    time.sleep(30)


@cases.case("pool.clean")
def clean(t: Ctx):
    if getattr(builtins, "mudjack_half_made", False):
        raise RuntimeError("built in the interpreter a timed-out build left behind")
    return t.call(lambda a: a + 1, t.randn((4,)))


@cases.case("pool.crash")
def crash(t: Ctx):
    os.kill(os.getpid(), signal.SIGSEGV)


@cases.case("pool.after")
def after(t: Ctx):
    return t.call(lambda a: a * 2, t.randn((4,)))
'''


class Pool(unittest.TestCase):
    def test_timeout_retires_its_worker_and_a_crash_is_its_case_failure(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "pool.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
            ids = {c.split("/")[1]: c for c in load_suites([tmp], "numpy")}
            order = [ids[n] for n in ("pool.taint", "pool.clean", "pool.crash", "pool.after")]
            sent: list[dict[str, Any]] = []
            build("numpy", "cpu", [tmp], {}, {"cases": order, "jobs": 1, "timeout_s": 1.5}, sent.append)
        built = {m["case"]: m for m in sent if m["type"] == "built"}
        self.assertEqual(sent[-1], {"type": "build_done", "count": 4})
        self.assertEqual(len(built), 4, sent)
        self.assertEqual(built[ids["pool.taint"]]["status"], "timeout")
        self.assertEqual(built[ids["pool.clean"]]["status"], "built", built[ids["pool.clean"]])
        self.assertEqual(built[ids["pool.crash"]]["status"], "failed")
        self.assertIn("the build process died (signal SIGSEGV)", built[ids["pool.crash"]]["message"])
        self.assertEqual(built[ids["pool.after"]]["status"], "built", built[ids["pool.after"]])

    def test_two_workers_build_every_case_once(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "pool.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
            ids = [c for c in load_suites([tmp], "numpy") if "taint" not in c]
            sent: list[dict[str, Any]] = []
            build("numpy", "cpu", [tmp], {}, {"cases": ids, "jobs": 2, "timeout_s": 30}, sent.append)
        self.assertEqual(sorted(m["case"] for m in sent if m["type"] == "built"), sorted(ids))


if __name__ == "__main__":
    unittest.main()
