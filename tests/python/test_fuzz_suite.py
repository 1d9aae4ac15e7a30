"""The built-in suite `fuzz` (suites/fuzz, mudjack_probe.fuzz.suite): listing
without frameworks, case ids and metadata, bodies run by the real runner
with the numpy adapter, broken graph files, and the planted-bug fixture."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from typing import Any

import numpy as np

from mudjack_probe import api
from mudjack_probe.adapters import load as load_adapter
from mudjack_probe.fuzz.graph import BACKENDS, alone_bound, error_eps, load_graph
from mudjack_probe.loading import load_suites
from mudjack_probe.runner import Policy, run_case

ROOT = Path(__file__).resolve().parents[2]
SUITE = str(ROOT / "suites" / "fuzz")
PLANTED = str(ROOT / "tests" / "fixtures" / "suites" / "fuzz-planted")
GRAPHS = ROOT / "tests" / "fixtures" / "fuzz" / "graphs"
BAD = ROOT / "tests" / "fixtures" / "fuzz" / "bad"


def listed(folder: str | None, suites: list[str], framework: str | None = None) -> dict[str, api.CaseDef]:
    api.set_params({} if folder is None else {"graphs": folder})
    return load_suites(suites, framework)


def run(case: api.CaseDef, tmp: str, seed: int = 0) -> dict[str, Any]:
    adapter = load_adapter("numpy")
    adapter.select("cpu")
    policy = Policy(budget_ms=1, warmup_ms=0.1, block_ms=1, min_samples=1, max_samples=2, reference=True)
    return run_case(adapter, case, seed, policy, tmp)


def broadcasting_adds(path: Path) -> bool:
    g = load_graph(str(path))
    return any(n.op == "add" and g.shapes[n.inputs[0]] != g.shapes[n.inputs[1]] for n in g.nodes)


class Listing(unittest.TestCase):
    def tearDown(self) -> None:
        api.set_params({})

    def test_no_graphs_no_cases(self) -> None:
        self.assertEqual(listed(None, [SUITE]), {})
        self.assertEqual(listed("", [SUITE]), {})
        self.assertIn("graphs", api.params_read())

    def test_one_case_per_graph_and_backend(self) -> None:
        cases = listed(str(GRAPHS), [SUITE])
        files = sorted(GRAPHS.glob("*.json"))
        self.assertEqual(len(cases), len(files) * len(BACKENDS))
        for path in files:
            graph = load_graph(str(path))
            for backend, (framework, mode) in BACKENDS.items():
                case = cases[f"fuzz/{path.stem}/{backend}"]
                meta = case.metadata()
                self.assertEqual((meta["framework"], meta["function"], meta["variant"], meta["mode"]),
                                 (framework, f"fuzz/{path.stem}", backend, mode))
                self.assertEqual((meta["dtype"], meta["reduction"], meta["tags"]), (graph.dtype, graph.reduction, ["fuzz"]))
                self.assertNotIn("policy", meta)  # timed
                self.assertNotIn("invalid", meta)
        self.assertEqual(len(listed(str(GRAPHS), [SUITE], "onnxruntime")), len(files))

    def test_listing_imports_no_numpy_and_no_framework(self) -> None:
        code = ("import sys; from mudjack_probe import api; from mudjack_probe.loading import load_suites; "
                f"api.set_params({{'graphs': {str(GRAPHS)!r}}}); n = len(load_suites([{SUITE!r}], None)); "
                "bad = [m for m in ('numpy', 'torch', 'jax', 'tensorflow', 'onnxruntime', 'onnx') if m in sys.modules]; "
                "print(n, bad)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT / "probe")}).stdout.split(maxsplit=1)
        self.assertEqual(out, [str(len(list(GRAPHS.glob("*.json"))) * len(BACKENDS)), "[]\n"])

    def test_listing_two_thousand_graphs_is_fast(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            sources = sorted(GRAPHS.glob("*.json"))
            for i in range(2000):
                shutil.copy(sources[i % len(sources)], os.path.join(tmp, f"{i:016x}.json"))
            t0 = time.perf_counter()
            cases = listed(tmp, [SUITE])
            seconds = time.perf_counter() - t0
        self.assertEqual(len(cases), 2000 * len(BACKENDS))
        print(f"\nlisting 2000 graphs x {len(BACKENDS)} backends: {seconds:.2f} s", file=sys.stderr)
        self.assertLess(seconds, 10.0)

    def test_a_broken_file_lists_its_cases_and_each_answers_error(self) -> None:
        cases = listed(str(BAD), [SUITE])
        [bad] = sorted(BAD.glob("*.json"))
        self.assertEqual(sorted(cases), sorted(f"fuzz/{bad.stem}/{b}" for b in BACKENDS))
        with tempfile.TemporaryDirectory() as tmp:
            result = run(cases[f"fuzz/{bad.stem}/numpy"], tmp)
        self.assertEqual(result["status"], "error")
        self.assertEqual(result["error"]["message"], f"suite error: {bad}: nodes[1] (add): input 'x9' names no input or earlier node")


class Running(unittest.TestCase):
    def tearDown(self) -> None:
        api.set_params({})

    def test_every_fixture_graph_passes_on_the_numpy_backend(self) -> None:
        cases = listed(str(GRAPHS), [SUITE], "numpy")
        with tempfile.TemporaryDirectory() as tmp:
            for case in cases.values():
                with self.subTest(case=case.id):
                    result = run(case, tmp)
                    self.assertEqual(result["status"], "pass", result.get("error"))
                    self.assertEqual([(c["kind"], c["ok"]) for c in result["checks"]], [("reference", True)])
                    graph = load_graph(str(GRAPHS / f"{case.function.split('/')[1]}.json"))
                    if case.dtype in ("float16", "float32"):  # the runner built a float64 reference
                        refs = result["reference"]["outputs"]
                        self.assertEqual(len(refs), len(graph.outputs))
                        for name, out, ref in zip(graph.outputs, result["outputs"], refs):
                            dtype = graph.dtypes[name]
                            if dtype in ("float16", "float32"):
                                err = error_eps(np.load(out["path"]), np.load(ref["path"]), dtype)
                                self.assertLessEqual(err, alone_bound(dtype, graph.reduction))
                    else:
                        self.assertNotIn("reference", result)

    def test_the_planted_add_is_caught_where_add_broadcasts(self) -> None:
        cases = listed(str(GRAPHS), [SUITE, PLANTED], "numpy")
        planted = {cid: c for cid, c in cases.items() if cid.endswith("/numpy-planted")}
        self.assertEqual(len(planted), len(list(GRAPHS.glob("*.json"))))
        broadcasting = {p.stem for p in GRAPHS.glob("*.json") if broadcasting_adds(p)}
        self.assertGreaterEqual(len(broadcasting), 2)
        with tempfile.TemporaryDirectory() as tmp:
            for cid, case in planted.items():
                with self.subTest(case=cid):
                    result = run(case, tmp)
                    want = "mismatch" if cid.split("/")[1] in broadcasting else "pass"
                    self.assertEqual(result["status"], want, result.get("error"))

    def test_reference_is_the_numpy_evaluation_of_the_widened_arguments(self) -> None:
        [cast_graph] = [p for p in GRAPHS.glob("*.json") if any(n.op == "cast" and n.dtype == "float16" for n in load_graph(str(p)).nodes)
                        and load_graph(str(p)).dtype == "float32"]
        case = listed(str(GRAPHS), [SUITE], "numpy")[f"fuzz/{cast_graph.stem}/numpy"]
        with tempfile.TemporaryDirectory() as tmp:
            result = run(case, tmp, seed=3)
            refs = [np.load(r["path"]) for r in result["reference"]["outputs"]]
        from mudjack_probe.fuzz.graph import draw_inputs
        from mudjack_probe.fuzz.ops_numpy import evaluate

        graph = load_graph(str(cast_graph))
        want = evaluate(graph, draw_inputs(graph, 3))
        for r, w in zip(refs, want):
            np.testing.assert_array_equal(r, w)
        self.assertEqual(json.loads(cast_graph.read_text())["dtype"], "float32")


if __name__ == "__main__":
    unittest.main()
