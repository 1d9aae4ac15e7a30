"""One spelling per closed list: the probe's lists are schemas/vocabulary.json's
(which the engine writes; CTest `vocabulary` holds that side), the words the
scripts group by are words of the vocabulary, and every grouping of outcomes
and verdicts is the engine's flags (outcome_properties, verdict_properties)."""

from __future__ import annotations

import ast
import math
import unittest
from pathlib import Path
from typing import Any

from mudjack_probe import adapters, api, eps, models, runner
from mudjack_probe.fuzz import graph, script
from mudjack_probe.vocabulary import VOCABULARY, having, words

ROOT = Path(__file__).resolve().parents[2]

# (script, module-level name, vocabulary list its words come from)
SCRIPT_LISTS = (
    ("scripts/results-readme.py", "VERDICTS", "verdict"),
    ("scripts/results-readme.py", "AXIS_VERDICTS", "verdict"),
    ("scripts/results-readme.py", "MODEL_OUTCOMES", "outcome"),
    ("scripts/results-readme.py", "FRAMEWORKS", "framework"),
    ("scripts/tf-kernels.py", "RAN", "outcome"),
    ("scripts/tf-kernels.py", "FAILED", "outcome"),
    ("studies/version-axis/version-axis.py", "FAILED", "verdict"),
    ("studies/version-axis/version-axis.py", "RUNS", "verdict"),
)


class StudyListsAreTheVocabulary(unittest.TestCase):
    def test_dtype_coverage_reads_the_grid(self) -> None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("dtype_coverage", ROOT / "studies/dtype-coverage/dtype-coverage.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.assertEqual(module.GRID, words("grid_dtype"))
        self.assertEqual(module.REASONS, words("excuse"))


def literal(path: Path, name: str) -> Any:
    """A script's module-level list: typed there (a literal), or computed
    from a file when the script is loaded (then its value as loaded)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                import runpy

                return runpy.run_path(str(path), run_name="vocabulary_test")[name]
    raise AssertionError(f"{path}: no module-level {name}")


class ProbeListsAreTheVocabulary(unittest.TestCase):
    def test_api_lists(self) -> None:
        self.assertEqual(api.GRID, words("grid_dtype"))
        self.assertEqual(api.KNOWN_DTYPES, words("dtype"))
        self.assertEqual(api.EXCUSES, words("excuse"))
        self.assertEqual(api.MODES + api.MODEL_STAGES, words("mode"))
        self.assertEqual(api.POLICIES, words("policy"))
        self.assertTrue(set(api.WIDE) <= set(words("dtype")))
        self.assertEqual(models.STAGES, words("mode"))

    def test_fuzz_lists(self) -> None:
        self.assertEqual(graph.OPS, words("fuzz_op"))
        for op in VOCABULARY["fuzz_ops"]:
            self.assertEqual(graph.ARITY[op["name"]], (op["min_inputs"], op["max_inputs"]))
        self.assertEqual(graph.VALUE_DTYPES, words("fuzz_value_dtype"))
        self.assertEqual(graph.GRAPH_DTYPES, words("fuzz_graph_dtype"))

    def test_fuzz_accuracy_bound_is_the_oracles(self) -> None:
        acc = VOCABULARY["accuracy"]
        # The fuzz judge's error is mudjack_probe/eps.py's, with the oracle's epsilons.
        judged = {d: (eps.oracle_dtype(d) or (0.0, 0.0))[0] for d in graph.FLOAT_DTYPES}
        self.assertEqual(judged, {"float16": 2.0 ** -10, "float32": 2.0 ** -23, "float64": 2.0 ** -52})
        self.assertEqual(judged, acc["eps"])
        self.assertEqual(graph.alone_bound("float32", 1), acc["floor_eps"]["float32"])
        self.assertEqual(graph.alone_bound("float16", 4), max(2 * acc["per_sqrt_k"], acc["floor_eps"]["float16"]))
        self.assertEqual(graph.alone_bound("float16", 10 ** 6), acc["per_sqrt_k"] * math.sqrt(10 ** 6))

    def test_the_eager_twin_rule_is_the_engines_alone(self) -> None:
        # The engine sends a compiled backend's eager twin in `repro_graph` (1.10); the probe keeps no rule.
        self.assertFalse(hasattr(graph, "EAGER_TWIN"))

    def test_the_verdict_list_says_unverified(self) -> None:
        self.assertIn("unverified", words("verdict"))
        self.assertIn("error", words("outcome"))


def load_script(rel: str) -> Any:
    """A script or study as a module (its main() not run)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(Path(rel).stem.replace("-", "_"), ROOT / rel)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class GroupingsAreTheFlags(unittest.TestCase):
    def test_every_word_has_its_flags(self) -> None:
        for name in ("outcome", "verdict"):
            props = VOCABULARY[f"{name}_properties"]
            self.assertEqual(tuple(props), words(name))
            self.assertEqual(len({tuple(p) for p in props.values()}), 1, f"{name}: one set of flags")

    def test_the_groupings(self) -> None:
        self.assertEqual(having("outcome", "ran"), ("pass", "mismatch"))
        self.assertEqual(having("outcome", "failed"), ("fail", "crash", "timeout"))
        self.assertEqual(having("outcome", "fine"), ("pass", "skip"))
        self.assertNotIn("error", having("outcome", "judged"))
        self.assertIn("divergent", having("verdict", "ran"))
        self.assertEqual(having("verdict", "failed"), ("complete_failure", "partial_failure"))

    def test_the_version_axis_and_its_bisect_agree_on_what_ran(self) -> None:
        axis = load_script("studies/version-axis/version-axis.py")
        bisect = load_script("studies/version-axis/bisect-release.py")
        for v in words("verdict"):
            with self.subTest(verdict=v):
                klass, _ = bisect.classify({"verdicts": [{"function": "f", "device": "cpu", "verdict": v}],
                                            "cases": []}, "f")
                self.assertEqual(v in axis.RUNS, klass in ("runs", "divergent"))
                self.assertEqual(v in axis.FAILED, klass == "fails")
        self.assertIn("divergent", axis.RUNS)

    def test_the_probe_reads_them(self) -> None:
        self.assertTrue({"pass", "mismatch", "fail"} <= runner._ATTEMPTED)
        self.assertEqual(adapters.NAMES, words("framework"))
        self.assertEqual(set(script.SYMPTOMS), set(words("fuzz_symptom")) - {"suspect"})

    def test_the_python_package_reads_them(self) -> None:
        import sys

        sys.path.insert(0, str(ROOT / "python"))
        try:
            import mudjack
        finally:
            sys.path.remove(str(ROOT / "python"))
        self.assertEqual(mudjack._FINE_OUTCOMES, having("outcome", "fine"))
        self.assertEqual(mudjack._FRAMEWORKS, words("framework"))
        self.assertEqual(mudjack._FALLBACK, (having("outcome", "fine"), words("framework")),
                         "python/mudjack's fallback words are the file's")


class AMissingVocabularyIsOneLine(unittest.TestCase):
    def test_a_probe_without_schemas_names_the_file(self) -> None:
        import shutil
        import subprocess
        import sys
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(ROOT / "probe" / "mudjack_probe", Path(tmp) / "probe" / "mudjack_probe")
            r = subprocess.run([sys.executable, "-c", "import mudjack_probe.vocabulary"], check=False,
                               cwd=Path(tmp) / "probe",
                               capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        last = r.stderr.strip().splitlines()[-1]
        self.assertRegex(last, r"^RuntimeError: .*schemas/vocabulary\.json: cannot be read: ")


class ScriptWordsAreVocabulary(unittest.TestCase):
    def test_every_listed_word_is_known(self) -> None:
        for rel, name, vocab in SCRIPT_LISTS:
            with self.subTest(script=rel, name=name):
                listed = literal(ROOT / rel, name)
                self.assertTrue(set(listed) <= set(words(vocab)),
                                f"{rel} {name}: {sorted(set(listed) - set(words(vocab)))} not in {vocab}")


if __name__ == "__main__":
    unittest.main()
