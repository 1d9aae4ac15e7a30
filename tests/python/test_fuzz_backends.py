"""The NumPy fuzz backend against the NumPy float64 reference on the fixture
graphs (tests/fixtures/fuzz). The other frameworks' backends, compiled ones
too, are checked on every fixture graph in their own environments by
tests/adapters/fuzz_backends.sh (CTest fuzz_backends): the numpy environment
of scripts/python-tests.sh has none of them, so a test of theirs here would
only ever skip. The onnxruntime adapter's own tests: onnxruntime/, run with
its environment."""

from __future__ import annotations

import contextlib
import io
import unittest
from pathlib import Path

from mudjack_probe.fuzz.__main__ import check, read_expected

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "fuzz"
GRAPHS = sorted(str(p) for p in (FIXTURES / "graphs").glob("*.json"))
EXPECTED = read_expected(str(FIXTURES / "expected.txt"))


class Backends(unittest.TestCase):
    def test_numpy(self) -> None:
        table = io.StringIO()
        with contextlib.redirect_stdout(table):
            status = check(GRAPHS, ["numpy"], "cpu", 0, EXPECTED)
        self.assertEqual(status, 0, table.getvalue())


if __name__ == "__main__":
    unittest.main()
