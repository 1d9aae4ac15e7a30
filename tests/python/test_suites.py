"""The probe's suite loader: helper files, shadowing, duplicates, bad files."""

from __future__ import annotations

import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

from mudjack_probe.loading import load_suites


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(textwrap.dedent(text))


class Loader(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self) -> None:
        self.tmp.cleanup()
        sys.modules.pop("_shared", None)

    def test_helpers_are_importable_and_not_case_files(self) -> None:
        write(self.dir, "_shared.py", """
            from mudjack_probe.api import Cases
            SIZE = 7
            stray = Cases("torch")  # a helper declaring cases is still not a case file
        """)
        write(self.dir, "numpy.py", """
            from mudjack_probe.api import Cases
            from _shared import SIZE
            cases = Cases("numpy")

            @cases.case("numpy.sum", shape={"n": (SIZE,)})
            def body(t):
                return t.call(lambda a: a.sum(), t.randn())
        """)
        cases = load_suites([str(self.dir)], "numpy")
        self.assertEqual(list(cases), ["numpy/numpy.sum/float32-n-eager"])
        self.assertEqual(cases["numpy/numpy.sum/float32-n-eager"].shape, (7,))
        # A case file named numpy.py must not shadow the real numpy.
        import numpy

        self.assertTrue(hasattr(numpy, "ndarray"))
        self.assertNotIn(str(self.dir), sys.path)

    def test_duplicate_ids_are_refused(self) -> None:
        for name in ("a.py", "b.py"):
            write(self.dir, name, """
                from mudjack_probe.api import Cases
                cases = Cases("numpy")

                @cases.case("numpy.sum")
                def body(t):
                    return t.call(lambda: 0)
            """)
        with self.assertRaisesRegex(ValueError, "duplicate case id numpy/numpy.sum/float32-default-eager"):
            load_suites([str(self.dir)], "numpy")

    def test_a_broken_file_is_named(self) -> None:
        write(self.dir, "broken.py", "cases = (\n")
        with self.assertRaisesRegex(ValueError, r"broken\.py: SyntaxError"):
            load_suites([str(self.dir)], "numpy")

    def test_per_dtype_tolerances(self) -> None:
        write(self.dir, "t.py", """
            from mudjack_probe.api import Cases
            cases = Cases("torch")

            @cases.case("torch.sum", dtype=["float16", "float32", "int64"], rtol={"float16": 1e-2, "float32": 1e-4}, atol=1e-6)
            def body(t):
                return t.call(lambda: 0)
        """)
        meta = {c.dtype: (c.rtol, c.atol) for c in load_suites([str(self.dir)], "torch").values()}
        self.assertEqual(meta, {"float16": (1e-2, 1e-6), "float32": (1e-4, 1e-6), "int64": (None, 1e-6)})


if __name__ == "__main__":
    unittest.main()
