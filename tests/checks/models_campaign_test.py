"""CTest models_campaign: scripts/models-campaign.py's summary, from a made
campaign folder (no engine run): failures grouped by the issue's causes
(export, runtime, accuracy, timeout) and a reason with numbers folded, every
failing model named under its reason, an accuracy failure with its error in
eps, and counts per corpus with a total row, a pass nothing checked
(`unverified`) counted apart from the passes and named.

  python3 tests/checks/models_campaign_test.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("models_campaign", ROOT / "scripts" / "models-campaign.py")
assert spec is not None and spec.loader is not None
campaign = importlib.util.module_from_spec(spec)
spec.loader.exec_module(campaign)


def case(name: str, corpus: str, outcome: str, message: str = "", eps: float | None = None,
         checked: str = "float64") -> dict:
    return {"function": name, "outcome": outcome, "tags": [f"corpus::{corpus}", "size::tiny"],
            "checked": checked if outcome == "pass" else "none",
            "error": {"message": message} if message else None,
            "numeric": {"error_eps": eps, "cause": "full_precision"} if eps is not None else None}


CASES = [
    case("timm-a", "timm", "pass"),
    case("timm-u", "timm", "pass", checked="none"),
    case("timm-b", "timm", "mismatch", "property check failed: the first output is not constant"),
    case("timm-c", "timm", "mismatch", "output 0: 999 of 1000 elements beyond 8.19e+03 eps of the float64 "
         "reference; worst 1.37e+07 eps at [0, 90]: 5.2e+05 vs reference -5.64e+04", eps=1.37e7),
    case("hf-d", "transformers", "fail", "RuntimeError: The size of tensor a (12) must match the size of tensor b (7)"),
    case("hf-e", "transformers", "fail", "RuntimeError: The size of tensor a (3) must match the size of tensor b (4)"),
    case("tv-f", "torchvision", "fail", "ONNX export failed: TorchExportError: data-dependent shape"),
    case("tv-g", "torchvision", "timeout", "no answer within 300 s; probe killed"),
]


class Summary(unittest.TestCase):
    def test_failures_group_by_cause_and_reason_with_every_model_named(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            run = Path(d) / "tiny" / "runs" / "r1"
            run.mkdir(parents=True)
            (run / "results.json").write_text(json.dumps({"cases": CASES}))
            state = {"commit": "c234fd5" + "0" * 33, "modes": "eager",
                     "classes": {"tiny": {"complete": True, "wall_s": 120.0}}}
            args = argparse.Namespace(out=d, modes="eager")
            listing = {"tiny": [{"tags": c["tags"]} for c in CASES] + [{"tags": ["corpus::timm"]}]}
            campaign.summary(args, state, listing)
            text = (Path(d) / "summary.md").read_text()
            doc = json.loads((Path(d) / "summary.json").read_text())
        self.assertIn("| timm | 5 | 4 | 1 | 1 |", text)
        self.assertIn("| all | 9 | 8 | 1 | 1 |", text)
        self.assertIn("## Unverified (a pass checked by nothing)\n\n1: timm-u", text)
        self.assertRegex(text, r"Not built offline \(every class\), with reasons in the manifests' `unbuildable` "
                               r"lists \(`suites/models/<corpus>.json`\): \d+ \(timm \d+, transformers \d+\)")
        self.assertIn("- **runtime**: 2", text)
        self.assertIn("  - 2 x RuntimeError: The size of tensor a (N) must match the size of tensor b (N): hf-d, hf-e",
                      text)
        self.assertIn("- **export**: 1", text)
        self.assertIn("- **timeout**: 1", text)
        self.assertIn("  - 1 x the first output is not constant: timm-b", text)
        self.assertIn("  - 1 x beyond the float64 reference's bound (oracle's cause: full_precision): timm-c (1.37e+07 eps)", text)
        causes = [line for line in text.splitlines() if line.startswith("- **")]
        self.assertEqual([c.split("**")[1] for c in causes], ["export", "runtime", "accuracy", "timeout"])
        self.assertEqual(doc["counts"]["timm"], {"listed": 5, "run": 4, "passed": 1, "unverified": 1})
        self.assertEqual(doc["unverified"], ["timm-u"])
        self.assertEqual(doc["failures"]["accuracy"]["the first output is not constant"], ["timm-b"])


if __name__ == "__main__":
    unittest.main()
