#!/usr/bin/env python3
"""Proof that `scripts/results-readme.py`'s attribution of a changed verdict
(the old headline's CPU run re-judged against today's run) names `excused by
the judge's claims` only when the failing cases that made the difference are
all excused dtypes of today's row, and otherwise `grid` or `semantics or
machine` as before (issue 46).

  tests/checks/results_attribution_test.py [-v]
"""

from __future__ import annotations

import importlib.util
import unittest
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("results_readme", ROOT / "scripts" / "results-readme.py")
assert spec is not None and spec.loader is not None
readme = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readme)
CLAIMS = "excused by the judge's claims"


def case(dtype: str, outcome: str, mode: str = "eager") -> dict[str, Any]:
    return {"id": f"tensorflow/tf.f/{dtype}-small-{mode}", "framework": "tensorflow", "function": "tf.f",
            "device": "cpu", "dtype": dtype, "outcome": outcome}


def row(unsupported: list[str], failing: tuple[str, ...] = (), kernel_missing: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"framework": "tensorflow", "function": "tf.f", "device": "cpu", "failing": list(failing), "mismatching": [],
            "unsupported": [{"dtype": d, "cases": 1, "reason": "no kernel"} for d in unsupported],
            "kernel_missing": [{"dtype": d} for d in kernel_missing]}


def attribute(old: list[dict[str, Any]], new: list[dict[str, Any]], r: dict[str, Any], was: str, now: str) -> str:
    excused = frozenset(readme._excused({"cases": new}, r))
    return str(readme._attribute({c["id"]: c["outcome"] for c in old}, {c["id"]: c["outcome"] for c in new},
                                 True, was, now, excused))


class Attribution(unittest.TestCase):
    def test_a_failure_of_both_runs_excused_today_is_the_claims(self) -> None:
        old = [case("float32", "pass"), case("float16", "fail")]
        new = old + [case("int8", "fail")]
        self.assertEqual(attribute(old, new, row(["float16", "int8"]), "partial_failure", "portable"), CLAIMS)

    def test_a_new_failure_not_excused_is_the_grid(self) -> None:
        old = [case("float32", "pass"), case("float16", "fail")]
        new = old + [case("int8", "fail")]
        self.assertEqual(attribute(old, new, row(["float16"], failing=(new[2]["id"],)), "partial_failure",
                                   "partial_failure"), "grid")

    def test_a_dtype_excused_in_one_mode_and_failing_in_another_is_no_excuse(self) -> None:
        old = [case("float32", "pass")]
        new = old + [case("bool", "fail"), case("bool", "fail", "compiled")]
        r = row(["bool"], failing=(new[2]["id"],))
        self.assertEqual(readme._excused({"cases": new}, r), {new[1]["id"]})
        self.assertEqual(attribute(old, new, r, "portable", "partial_failure"), "grid")

    def test_a_kernel_missing_dtype_is_a_failure_not_an_excuse(self) -> None:
        old = [case("float32", "pass"), case("float16", "fail")]
        self.assertEqual(readme._excused({"cases": old}, row(["float16"], kernel_missing=("float16",))), set())

    def test_only_excused_new_cases_beside_a_changed_outcome_are_semantics_alone(self) -> None:
        old = [case("float32", "pass")]
        new = [case("float32", "mismatch"), case("int8", "fail")]
        self.assertEqual(attribute(old, new, row(["int8"]), "portable", "divergent"), "semantics or machine")

    def test_a_changed_outcome_beside_an_excused_failure_of_both_names_both(self) -> None:
        old = [case("float32", "mismatch"), case("bool", "fail")]
        new = [case("float32", "pass"), case("bool", "fail")]
        self.assertEqual(attribute(old, new, row(["bool"]), "partial_failure", "portable"),
                         f"semantics or machine (and {CLAIMS})")

    def test_an_old_failure_today_lacks_is_the_grid(self) -> None:
        old = [case("float32", "pass"), case("float16", "fail"), case("int8", "fail")]
        new = [case("float32", "pass"), case("float16", "fail")]
        self.assertEqual(attribute(old, new, row(["float16"]), "partial_failure", "portable"), "grid")


if __name__ == "__main__":
    unittest.main()
