"""Machine faults in the probe (protocol 1.1 `engine_fault`) and artefact names.

A machine that cannot hold a case's outputs or load the framework is not a
case outcome: the probe says `engine_fault` instead. Run with the numpy
environment (scripts/python-tests.sh).
"""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
import tempfile
import unittest
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mudjack_probe.errors import MachineFault, machine_fault
from mudjack_probe.runner import _save, artifact_name

ROOT = Path(__file__).resolve().parents[2]
FAULTS = ROOT / "tests" / "fixtures" / "suites" / "faults"


class ArtifactNames(unittest.TestCase):
    def test_ids_that_read_alike_get_different_files(self) -> None:
        a = artifact_name("numpy/faults.twin a b/float32-default-eager")
        b = artifact_name("numpy/faults.twin a_b/float32-default-eager")
        self.assertNotEqual(a, b)
        self.assertTrue(a.startswith("numpy_faults.twin_a_b_float32-default-eager-"), a)
        self.assertEqual(a, artifact_name("numpy/faults.twin a b/float32-default-eager"), "stable")

    def test_names_fit_any_file_system(self) -> None:
        name = artifact_name("numpy/" + "x" * 5000 + "/\x1b[2J\u00e9")
        self.assertLessEqual(len(f"{name}.99.npy".encode()), 255)
        self.assertRegex(name, r"^[A-Za-z0-9_.=-]+$")
        self.assertNotEqual(artifact_name("a" * 200 + "1"), artifact_name("a" * 200 + "2"))

    def test_saved_twins_keep_their_own_values(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            one = _save([(np.ones(3), "float64")], "c/a b", tmp)
            two = _save([(np.zeros(3), "float64")], "c/a_b", tmp)
            self.assertNotEqual(one[0]["path"], two[0]["path"])
            self.assertEqual(np.load(one[0]["path"]).tolist(), [1.0, 1.0, 1.0])
            self.assertEqual(np.load(two[0]["path"]).tolist(), [0.0, 0.0, 0.0])


NOBODY = 65534
"""The user id a test drops to where it runs as root, who writes into
read-only folders."""


def _saving_faults(folder: str) -> str:
    """What saving an output into `folder` raises: its type's name, or ""."""
    try:
        _save([(np.ones(2), "float64")], "c/x", folder)
    except Exception as exc:
        return type(exc).__name__
    return ""


def _unprivileged(fn: Callable[[], str]) -> str:
    """fn() as this user, or, under root, in a forked child that has dropped
    to user `nobody` (its answer comes back through a pipe)."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the test runner
        code = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.write(write, fn().encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        said = answer.read().decode()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise AssertionError(f"the unprivileged child failed (wait status {status})")
    return said


class SavingFaults(unittest.TestCase):
    def test_an_unwritable_folder_is_a_machine_fault(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            blocked = os.path.join(tmp, "artifacts")
            Path(blocked).write_text("a file where the folder should be")
            with self.assertRaises(MachineFault) as caught:
                _save([(np.ones(2), "float64")], "c/x", os.path.join(blocked, "cpu"))
            self.assertIn("cannot save outputs in", str(caught.exception))
            self.assertEqual(machine_fault(caught.exception), str(caught.exception))

    def test_a_read_only_folder_is_a_machine_fault(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o555)
            try:
                self.assertEqual(_unprivileged(lambda: _saving_faults(tmp)), "MachineFault")
            finally:
                os.chmod(tmp, 0o755)

    def test_what_counts_as_the_machine(self) -> None:
        self.assertIsNotNone(machine_fault(OSError(errno.ENOSPC, "No space left on device")))
        self.assertIsNotNone(machine_fault(OSError(errno.EROFS, "Read-only file system")))
        self.assertIsNotNone(machine_fault(MemoryError()))
        wrapped = ImportError("Importing the numpy C-extensions failed.\n\nOriginal error was: "
                              "libgfortran.so.5: failed to map segment from shared object")
        self.assertEqual(machine_fault(wrapped),
                         "ImportError: Original error was: libgfortran.so.5: failed to map segment from shared object")
        try:
            try:
                raise OSError(errno.ENOMEM, "Cannot allocate memory")
            except OSError as inner:
                raise ImportError("cannot import torch") from inner
        except ImportError as outer:
            self.assertEqual(machine_fault(outer), "OSError: [Errno 12] Cannot allocate memory")
        self.assertIsNone(machine_fault(ImportError("No module named 'torch'")))
        self.assertIsNone(machine_fault(ValueError("bad shape")))


def _probe(args: list[str], requests: list[dict[str, object]], limit_bytes: int | None = None) -> list[dict[str, object]]:
    """Runs a probe on the fixture suite; its reply lines."""
    def limit() -> None:
        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    env = dict(os.environ, PYTHONPATH=str(ROOT / "probe"))
    proc = subprocess.run(
        [sys.executable, "-m", "mudjack_probe", "--protocol", "1", "--suite-dir", str(FAULTS), *args],
        input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True,
        env=env, timeout=120, preexec_fn=limit, check=False)
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


class ProbeFaults(unittest.TestCase):
    def test_outputs_that_cannot_be_saved_give_an_engine_fault_not_an_outcome(self) -> None:
        case = "numpy/faults.twin a b/float32-default-eager"
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "cpu").write_text("not a folder")
            replies = _probe(["--framework", "numpy", "--device", "cpu"], [
                {"type": "run", "case": case, "device": "cpu", "seed": 0,
                 "policy": {"budget_ms": 1, "min_samples": 1, "max_samples": 2, "warmup_ms": 0, "block_ms": 1},
                 "artifact_dir": os.path.join(tmp, "cpu")},
                {"type": "shutdown"}])
        self.assertEqual(replies[0]["protocol_minor"], 14)
        result = replies[1]
        self.assertEqual(result["type"], "result")
        self.assertEqual(result["case"], case)
        self.assertNotIn("status", result)
        self.assertIn("cannot save outputs in", str(result["engine_fault"]))
        self.assertEqual(replies[2]["type"], "bye", "the probe lives on")

    def test_a_framework_that_does_not_fit_the_address_space_is_an_engine_fault(self) -> None:
        # 50 MB: Python starts, numpy's libraries cannot be mapped.
        replies = _probe(["--framework", "numpy", "--device", "cpu"], [{"type": "shutdown"}], 50 << 20)
        self.assertTrue(replies, "a hello comes")
        hello = replies[0]
        self.assertEqual(hello["type"], "hello")
        self.assertIn("numpy cannot load on this machine", str(hello["engine_fault"]))
        self.assertEqual(hello["unavailable"], hello["engine_fault"], "what an older engine reads")


if __name__ == "__main__":
    unittest.main()
