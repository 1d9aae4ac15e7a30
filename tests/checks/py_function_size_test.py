#!/usr/bin/env python3
"""Proof that scripts/py-function-size.py catches what it claims to catch:
a temporary git tree with one Python function of 81 lines fails, one line
naming it; at 80 lines it passes. The checkout is never touched.

  tests/checks/py_function_size_test.py [-v ...]
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "py-function-size.py"


def tree_with(body_lines: int) -> tuple[tempfile.TemporaryDirectory, Path]:
    tmp = tempfile.TemporaryDirectory(prefix="mudjack-pysize-")
    root = Path(tmp.name)
    (root / "probe").mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines - 2))
    (root / "probe" / "long.py").write_text(f"def long():\n{body}    return 0\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return tmp, root


class PyFunctionSizeCatches(unittest.TestCase):
    def check(self, root: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(CHECK), "--root", str(root)], capture_output=True, text=True,
                              timeout=120, check=False)

    def test_81_lines_fail_with_one_line(self) -> None:
        tmp, root = tree_with(81)
        with tmp:
            r = self.check(root)
        self.assertEqual(r.returncode, 1)
        # the exception named for the real tree is stale here: a second line says so
        self.assertIn("probe/long.py:1: long is 81 lines (limit 80)", r.stderr)

    def test_80_lines_pass_the_size_rule(self) -> None:
        tmp, root = tree_with(80)
        with tmp:
            r = self.check(root)
        self.assertNotIn("long is", r.stderr)


if __name__ == "__main__":
    unittest.main()
