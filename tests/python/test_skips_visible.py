"""Every skip is visible: the test runners that CTest calls exit 77 (CTest's
Skipped, which scripts/ctest-no-skips.sh fails on) and name what did not run,
instead of passing (scripts/unittest-no-skips.py behind
scripts/python-tests.sh; tests/adapters/fuzz_backends.sh per framework)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _env_name(framework: str) -> str:
    """The cached environment's folder name (scripts/install.sh's hash rule)."""
    pins = (ROOT / "envs" / "current" / f"{framework}.txt").read_bytes()
    return f"{framework}-current-{hashlib.sha256(pins).hexdigest()[:16]}"


class Unittest(unittest.TestCase):
    def run_folder(self, tmp: str, *options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "scripts" / "unittest-no-skips.py"), "discover",
                               "-s", tmp, "-t", tmp, *options], capture_output=True, text=True, check=False,
                              timeout=120)

    def test_a_skip_and_an_expected_failure_are_listed_and_exit_77(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "test_some.py").write_text(textwrap.dedent("""
                import unittest
                class T(unittest.TestCase):
                    def test_runs(self): pass
                    @unittest.skip("needs a GPU")
                    def test_skipped(self): pass
                    @unittest.expectedFailure
                    def test_known(self): raise ValueError
                """))
            done = self.run_folder(tmp)
            self.assertEqual(done.returncode, 77, done.stderr)
            self.assertIn("test_some.T.test_skipped: skipped: needs a GPU", done.stderr)
            self.assertIn("test_some.T.test_known: expected failure", done.stderr)
            self.assertEqual(self.run_folder(tmp, "-k", "test_runs").returncode, 0)
            self.assertEqual(self.run_folder(tmp, "-k", "nothing_matches").returncode, 5)

    def test_a_failure_is_still_1(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "test_bad.py").write_text(textwrap.dedent("""
                import unittest
                class T(unittest.TestCase):
                    def test_fails(self): self.fail("no")
                    @unittest.skip("later")
                    def test_skipped(self): pass
                """))
            self.assertEqual(self.run_folder(tmp).returncode, 1)


class FuzzBackends(unittest.TestCase):
    def test_a_missing_framework_environment_is_a_skip_naming_it(self) -> None:
        """numpy's environment present, torch's not: numpy's backends still
        run, and the script exits 77 naming torch (it used to pass)."""
        numpy_env = Path(sys.executable).parent.parent
        if numpy_env.name != _env_name("numpy"):
            self.fail(f"run with the numpy environment ({_env_name('numpy')}), not {numpy_env}")
        with tempfile.TemporaryDirectory() as cache:
            (Path(cache) / "envs").mkdir()
            (Path(cache) / "envs" / numpy_env.name).symlink_to(numpy_env)
            done = subprocess.run([str(ROOT / "tests" / "adapters" / "fuzz_backends.sh"), "numpy", "torch"],
                                  capture_output=True, text=True, check=False, timeout=300,
                                  env=dict(os.environ, MUDJACK_CACHE_DIR=cache))
        self.assertEqual(done.returncode, 77, done.stdout + done.stderr)
        self.assertRegex(done.stdout, r"\nnumpy +numpy +\d+ ")
        self.assertIn("SKIPPED: no environment for torch", done.stderr)


if __name__ == "__main__":
    unittest.main()
