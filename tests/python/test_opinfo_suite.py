"""The OpInfo suite (suites/opinfo): listed from its manifest without torch.

Runs with the numpy environment; the cases themselves need torch and run
through `mudjack run --suite opinfo`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import unittest
from pathlib import Path

from mudjack_probe import api
from mudjack_probe.loading import load_suites

ROOT = Path(__file__).resolve().parents[2]
SUITE = str(ROOT / "suites" / "opinfo")
MANIFEST = json.loads((ROOT / "suites" / "opinfo" / "manifest.json").read_text(encoding="utf-8"))
ID = re.compile(r"^torch/[A-Za-z0-9_.-]+/(" + "|".join(api.GRID) + r")-default-sample=\d+-eager$")


def function(record: dict[str, str]) -> str:
    return f"{record['name']}.{record['variant']}" if record["variant"] else record["name"]


class OpinfoSuite(unittest.TestCase):
    def tearDown(self) -> None:
        api.set_params({})
        sys.modules.pop("_opinfo", None)

    def test_listing_imports_no_framework(self) -> None:
        code = ("import sys; from mudjack_probe.loading import load_suites; "
                f"cases = load_suites([{SUITE!r}], None); "
                "print(len(cases), sorted(m for m in ('torch', 'jax', 'tensorflow', 'numpy') if m in sys.modules))")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                              env={**os.environ, "PYTHONPATH": str(ROOT / "probe")})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        count, imported = proc.stdout.split(" ", 1)
        self.assertEqual(int(count), len(MANIFEST["ops"]) * len(api.GRID) * 2)
        self.assertEqual(imported.strip(), "[]")

    def test_one_case_per_entry_dtype_and_sample(self) -> None:
        start = time.perf_counter()
        cases = load_suites([SUITE], "torch")
        elapsed = time.perf_counter() - start
        self.assertLess(elapsed, 5.0, "listing the whole suite should take a few seconds at most")
        self.assertEqual(len(cases), len(MANIFEST["ops"]) * len(api.GRID) * 2)
        self.assertEqual(len(set(cases)), len(cases))
        for case_id, c in cases.items():
            self.assertRegex(case_id, ID)
            self.assertEqual(c.policy, "once")
            self.assertEqual(c.mode, "eager")
        functions = {function(r) for r in MANIFEST["ops"]}
        self.assertEqual({c.function for c in cases.values()}, functions)
        self.assertIn("torch/abs/float32-default-sample=0-eager", cases)
        self.assertIn("torch/max.reduction_with_dim/int64-default-sample=1-eager", cases)

    def test_claims_are_carried(self) -> None:
        cases = load_suites([SUITE], "torch")
        for record in MANIFEST["ops"]:
            for dtype in api.GRID:
                meta = cases[f"torch/{function(record)}/{dtype}-default-sample=0-eager"].metadata()
                self.assertEqual(meta["claims"], {"cpu": dtype in record["cpu"], "cuda": dtype in record["cuda"]})
                self.assertEqual(meta["policy"], "once")
        abs_bool = cases["torch/abs/bool-default-sample=0-eager"].metadata()["claims"]
        self.assertEqual(abs_bool, {"cpu": False, "cuda": True})  # OpInfo: no bool abs on the CPU

    def test_samples_parameter(self) -> None:
        two = load_suites([SUITE], "torch")
        api.set_params({"opinfo_samples": "1"})
        one = load_suites([SUITE], "torch")
        self.assertEqual(2 * len(one), len(two))
        self.assertTrue(set(one) < set(two))
        self.assertEqual(api.params_read()["opinfo_samples"], {"type": "int", "default": 2, "value": 1})
        api.set_params({"opinfo_samples": "3"})
        self.assertEqual(len(load_suites([SUITE], "torch")), 3 * len(one))

    def test_manifest_records(self) -> None:
        self.assertEqual(MANIFEST["grid"], list(api.GRID))
        names = [(r["name"], r["variant"]) for r in MANIFEST["ops"]]
        self.assertEqual(names, sorted(names))
        for r in MANIFEST["ops"]:
            self.assertTrue(set(r["cpu"]) <= set(api.GRID) and set(r["cuda"]) <= set(api.GRID))
            self.assertEqual(list(r["samples"]), list(api.GRID))
            for key in ("random", "uninitialised", "unrepeatable"):
                self.assertTrue(all(0 <= i < r["probed"] for i in r[key]), (r["name"], key))
            # What `mudjack portability` maps a model's aten operators by.
            self.assertTrue(isinstance(r["aten_name"], str) and r["aten_name"], r["name"])
            self.assertEqual(r["aliases"], sorted(r["aliases"]), r["name"])


if __name__ == "__main__":
    unittest.main()
