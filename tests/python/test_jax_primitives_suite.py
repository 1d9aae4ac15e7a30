"""The jax-primitives suite (suites/jax-primitives): its listing, from the
manifest alone, and the manifest writer's layout.

Runs with the numpy environment; no jax needed (listing must import none).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time
import unittest
from pathlib import Path
from typing import Any

from mudjack_probe.api import CaseDef
from mudjack_probe.loading import load_suites

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "jax-primitives"
SCRIPT = ROOT / "scripts" / "update-jax-primitives-manifest.py"


def manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SUITE / "manifest.json").read_text(encoding="utf-8"))
    return loaded


def suite_module() -> Any:
    """The suite file as loaded by the probe (its module, from sys.modules)."""
    load_suites([str(SUITE)], "jax")
    return next(m for name, m in sys.modules.items() if name.startswith("mudjack_suite_") and getattr(m, "__file__", "") == str(SUITE / "jax.py"))


class Listing(unittest.TestCase):
    cases: dict[str, CaseDef]
    seconds: float
    manifest: dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        started = time.perf_counter()
        cls.cases = load_suites([str(SUITE)], "jax")
        cls.seconds = time.perf_counter() - started
        cls.manifest = manifest()

    def test_one_case_per_harness(self) -> None:
        harnesses = self.manifest["harnesses"]
        self.assertEqual(len(self.cases), len(harnesses))
        self.assertEqual(self.manifest["count"], len(harnesses))
        self.assertGreater(len(harnesses), 1000)
        self.assertEqual(sorted({c.function for c in self.cases.values()}), sorted({h["group"] for h in harnesses}))

    def test_ids_are_unique_and_stable(self) -> None:
        ids = [c.id for c in self.cases.values()]
        self.assertEqual(len(ids), len(set(ids)))
        # A case id: jax/<group>/<dtype>-<harness name, id-safe>-eager.
        case = self.cases["jax/cumsum/float32-reverse_shape_float32_8_9_axis_0_reverse_True-eager"]
        self.assertEqual((case.function, case.dtype, case.mode, case.policy), ("cumsum", "float32", "eager", "once"))
        self.assertTrue(all(c.id.count("/") == 2 and c.mode == "eager" for c in self.cases.values()))
        self.assertFalse([c.id for c in self.cases.values() if c.invalid])

    def test_claims_follow_the_manifest(self) -> None:
        module = suite_module()
        for h in self.manifest["harnesses"]:
            meta = self.cases[f"jax/{h['group']}/{h['dtype']}-{module.shape_name(h)}-eager"].metadata()
            self.assertEqual(meta["claims"], {"cpu": h["cpu"], "cuda": h["cuda"]})
            self.assertEqual(meta["policy"], "once")
            if h.get("limits"):
                self.assertIn("JAX's limitations", meta["note"])
        self.assertTrue(any(not h["cuda"] for h in self.manifest["harnesses"]))

    def test_listing_is_fast(self) -> None:
        self.assertLess(self.seconds, 5.0, f"listing took {self.seconds:.2f} s")

    def test_listing_imports_no_framework(self) -> None:
        code = textwrap.dedent(f"""
            import sys
            from mudjack_probe.loading import load_suites
            cases = load_suites([{str(SUITE)!r}], None)
            print(len(cases), sorted(m for m in ("jax", "jaxlib", "numpy") if m in sys.modules))
        """)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT / "probe")}).stdout.split(" ", 1)
        self.assertEqual(int(out[0]), len(self.manifest["harnesses"]))
        self.assertEqual(out[1].strip(), "[]")


class Names(unittest.TestCase):
    def test_id_safe(self) -> None:
        id_safe = suite_module().id_safe
        self.assertEqual(id_safe("shape_float32_20_30_y_-3"), "shape_float32_20_30_y_m3")
        self.assertEqual(id_safe("initvalue_-inf+0j"), "initvalue_minfp0j")
        self.assertEqual(id_safe("name_:_:2"), "name_c_c2")
        self.assertEqual(id_safe("a/b"), "ax2fb")
        self.assertEqual(suite_module().shape_name({"group": "random_split", "fullname": "random_split_"}), "default")

    def test_notes_name_the_limitations(self) -> None:
        note = suite_module()._note({"limits": {"cuda": ["unimplemented"], "cpu": ["x", "y"]}, "skip_run": ["cuda"]})
        self.assertEqual(note, "JAX's limitations: cpu: x; y, cuda: unimplemented (not run on cuda: JAX's skip_run)")
        self.assertEqual(suite_module()._note({}), "")


class Writer(unittest.TestCase):
    def test_one_harness_per_line(self) -> None:
        spec = importlib.util.spec_from_file_location("update_manifest", SCRIPT)
        assert spec is not None and spec.loader is not None
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)  # imports no jax: build() does
        entries = [{"fullname": f"abs_{i}", "group": "abs", "dtype": "float32", "cpu": True, "cuda": i == 0, "largest_dim": 20} for i in range(3)]
        text = script.dump({"jax": "0.0", "count": 3, "harnesses": entries})
        self.assertEqual(json.loads(text)["harnesses"], entries)
        lines = text.splitlines()
        self.assertEqual(sum(1 for line in lines if line.startswith('{"fullname"')), 3)

    def test_the_manifest_is_compact(self) -> None:
        text = (SUITE / "manifest.json").read_text(encoding="utf-8")
        self.assertLess(len(text), 3_000_000)
        self.assertEqual(text.count('{"fullname"'), manifest()["count"])


if __name__ == "__main__":
    unittest.main()
