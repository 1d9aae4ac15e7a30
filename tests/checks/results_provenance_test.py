#!/usr/bin/env python3
"""Proof that `scripts/results-readme.py --provenance DIR` (the rule `--check`
applies to results/) fails on a published folder without provenance and
passes one with it.

Each test builds a small results folder in a temporary directory (the
checkout's results/ is never touched): a folder with a results.json.gz, a
published fuzz campaign, a folder-level provenance.json, and history/.

  tests/checks/results_provenance_test.py [-v]
"""

import gzip
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "results-readme.py"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def machine(source: object = None, gpu_driver: str = "580.159.04") -> dict:
    m = {"cpu_model": "Intel(R) Xeon(R) Processor", "mudjack_revision": "abc1234",
         "devices": [{"id": "cpu", "kind": "cpu", "model": "Intel(R) Xeon(R) Processor"},
                     {"id": "cuda:0", "kind": "cuda", "model": "NVIDIA H100 80GB HBM3", "driver_version": gpu_driver}]}
    if source is not None:
        m["source"] = source
    return m


def write_run(folder: Path, m: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"run": {"id": "r", "suite": "paper"}, "environment": {"machines": [m]}, "cases": [], "verdicts": []}
    (folder / "results.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))


def check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--provenance", str(root)],
                          capture_output=True, text=True, timeout=120, check=False)


class Provenance(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_complete_folders_pass(self) -> None:
        write_run(self.root / "2026-01-01-h100" / "torch", machine({"commit": COMMIT, "dirty": False}))
        fuzz = self.root / "2026-01-01-fuzz"
        fuzz.mkdir()
        entry = dict(machine({"commit": COMMIT, "dirty": False}), run="r1")
        (fuzz / "findings.json").write_text(json.dumps({"format": "mudjack.fuzz-findings/1", "provenance": [entry]}))
        (self.root / "2026-01-01-notes").mkdir()
        (self.root / "2026-01-01-notes" / "provenance.json").write_text(json.dumps([entry]))
        r = check(self.root)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_run_without_source_fails_and_names_the_folder(self) -> None:
        write_run(self.root / "2026-01-01-old", machine())
        r = check(self.root)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("2026-01-01-old/results.json.gz: no source commit, no clean or dirty", r.stderr)

    def test_unknown_tree_and_missing_driver_fail(self) -> None:
        write_run(self.root / "2026-01-01-a", machine({"commit": COMMIT, "dirty": None}))
        write_run(self.root / "2026-01-01-b", machine({"commit": COMMIT, "dirty": True}, gpu_driver=""))
        r = check(self.root)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("2026-01-01-a/results.json.gz: no clean or dirty", r.stderr)
        self.assertIn("2026-01-01-b/results.json.gz: no GPU model and driver", r.stderr)

    def test_folder_with_nothing_that_records_it_fails(self) -> None:
        (self.root / "2026-01-01-bare").mkdir()
        (self.root / "2026-01-01-bare" / "summary.md").write_text("# a summary\n")
        fuzz = self.root / "2026-01-01-fuzz"
        fuzz.mkdir()
        (fuzz / "findings.json").write_text(json.dumps({"format": "mudjack.fuzz-findings/1", "findings": []}))
        r = check(self.root)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("results/2026-01-01-bare: records no provenance", r.stderr)
        self.assertIn("2026-01-01-fuzz/findings.json: no source commit", r.stderr)

    def test_history_is_exempt(self) -> None:
        write_run(self.root / "history" / "2026-01-01-old", machine())
        (self.root / "history" / "2026-01-01-bare").mkdir()
        r = check(self.root)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
