#!/usr/bin/env python3
"""Proof that scripts/check-vocabulary.py catches what it claims to catch.

Each test copies schemas/ into a temporary folder, plants a second spelling
there (a stale vocabulary file, a schema enum that lacks a word) and runs the
check on the copy; the checkout is never touched.

  tests/checks/vocabulary_test.py ENGINE [-v ...]   (ENGINE: build/vocabulary)
"""

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check-vocabulary.py"
ENGINE = ""


class VocabularyCatches(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="mudjack-vocabulary-"))
        self.addCleanup(shutil.rmtree, self.tmp)
        shutil.copytree(ROOT / "schemas", self.tmp / "schemas")

    def check(self) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(CHECK), "--engine", ENGINE, "--root", str(self.tmp)],
                              capture_output=True, text=True, timeout=120)

    def test_the_checkout_passes(self) -> None:
        r = self.check()
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_stale_vocabulary_is_caught(self) -> None:
        path = self.tmp / "schemas" / "vocabulary.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["$defs"]["verdict"]["enum"].remove("unverified")
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn("vocabulary.json: differs from what the engine writes", r.stderr)

    def test_a_schema_enum_missing_a_word_is_caught(self) -> None:
        path = self.tmp / "schemas" / "results-v1.schema.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["$defs"]["verdict"]["enum"].remove("unverified")
        path.write_text(json.dumps(doc), encoding="utf-8")
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn("/$defs/verdict: verdict differs", r.stderr)
        self.assertIn("missing ['unverified']", r.stderr)

    def test_flags_that_miss_a_word_are_caught(self) -> None:
        # an engine whose verdict flags leave `portable` out (a fake: it prints the planted file)
        path = self.tmp / "schemas" / "vocabulary.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        del doc["verdict_properties"]["portable"]
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        engine = self.tmp / "engine.sh"
        engine.write_text(f"#!/bin/sh\ncat '{path}'\n", encoding="utf-8")
        engine.chmod(0o755)
        r = subprocess.run([sys.executable, str(CHECK), "--engine", str(engine), "--root", str(self.tmp)],
                           check=False, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 1)
        self.assertIn("verdict_properties: does not hold each verdict once, in order", r.stderr)

    def test_an_engine_that_cannot_run_is_one_line(self) -> None:
        r = subprocess.run([sys.executable, str(CHECK), "--engine", str(self.tmp / "missing"), "--root", str(self.tmp)],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        self.assertIn("check-vocabulary: ", r.stderr)


if __name__ == "__main__":
    ENGINE = sys.argv.pop(1)
    unittest.main()
