"""Reproduction scripts (mudjack_probe.fuzz.script): standalone for every
framework, and run for real with the numpy backend for each symptom."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from mudjack_probe.fuzz import MODULES
from mudjack_probe.fuzz.graph import BACKENDS
from mudjack_probe.fuzz.script import make_script, script_for_file

ROOT = Path(__file__).resolve().parents[2]
GRAPHS = ROOT / "tests" / "fixtures" / "fuzz" / "graphs"
FIRST = sorted(GRAPHS.glob("*.json"))[0]
BAD = sorted((ROOT / "tests" / "fixtures" / "fuzz" / "bad").glob("*.json"))[0]


def top_level_names(tree: ast.Module) -> list[str]:
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


class Writing(unittest.TestCase):
    def test_one_file_per_framework_with_no_name_defined_twice(self) -> None:
        for framework in MODULES:
            backend = next(b for b, (fw, _) in BACKENDS.items() if fw == framework)
            with self.subTest(framework=framework):
                text = script_for_file(str(FIRST), backend, "cpu", 7)
                tree = ast.parse(text)
                names = top_level_names(tree)
                self.assertEqual(sorted({n for n in names if names.count(n) > 1}), [])
                imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
                imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
                self.assertNotIn("mudjack_probe", imported)
                self.assertEqual(sum(1 for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0), 0)
                self.assertEqual(text.count("from __future__ import annotations"), 1)
                others = {"torch", "jax", "tensorflow", "onnxruntime", "onnx"} - {framework, "onnx" if framework == "onnxruntime" else ""}
                self.assertEqual(imported & others, set())
                self.assertIn(f"{MODULES[framework][1]}_glue()", text)
                self.assertIn("\ndef error_parts(x, r, eps, big):", text)  # the oracle's error, mudjack_probe/eps.py

    def test_refusals(self) -> None:
        text = FIRST.read_text()
        with self.assertRaisesRegex(ValueError, "unknown backend 'mxnet'"):
            make_script(text, "x", "mxnet", "cpu", 0)
        with self.assertRaisesRegex(ValueError, "unknown symptom 'wrong'"):
            make_script(text, "x", "numpy", "cpu", 0, symptom="wrong")
        with self.assertRaisesRegex(ValueError, "input 'x9'"):
            script_for_file(str(BAD), "numpy", "cpu", 0)

    def test_the_protocol_requests(self) -> None:
        # The engine reaches this code only over the probe protocol (1.9):
        # `repro_graph` answered by a listing probe with a `repro`, `reference`
        # with the float64 magnitudes; a bad graph is one line in each.
        env = {**os.environ, "PYTHONPATH": str(ROOT / "probe")}
        requests = [{"type": "repro_graph", "graph": str(FIRST), "backend": "torch-compile", "device": "cuda:1",
                     "seed": 3, "symptom": "slow", "bound_eps": None, "slow_ratio": 4, "timeout_s": 60,
                     "eager": "torch"},
                    {"type": "repro_graph", "graph": str(BAD), "backend": "numpy", "device": "cpu", "seed": 0,
                     "symptom": "mismatch"},
                    {"type": "reference", "graph": str(FIRST), "seed": 0},
                    {"type": "reference", "graph": str(BAD), "seed": 0},
                    {"type": "shutdown"}]
        proc = subprocess.run([sys.executable, "-m", "mudjack_probe", "--protocol", "1"],
                              input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True,
                              text=True, env=env, timeout=120, check=False)
        replies = [json.loads(line) for line in proc.stdout.splitlines()]
        self.assertEqual([r["type"] for r in replies], ["hello", "repro", "repro", "reference", "reference", "bye"],
                         proc.stderr)
        ok, bad, facts, no_facts = replies[1:5]
        self.assertIsNone(ok["unwritable"])
        self.assertIn("reproduce(parse_graph(GRAPH_JSON), 'torch-compile', 'cuda:1', 3, 'slow', torch_glue()",
                      ok["script"])
        self.assertIn("eager='torch'", ok["script"])  # the engine's twin, passed through
        self.assertEqual(bad["script"], "")
        self.assertIn("input 'x9'", bad["unwritable"])
        self.assertNotIn("\n", bad["unwritable"])
        self.assertTrue(facts["outputs"] and all(o["rms"] >= 0 for o in facts["outputs"]))
        self.assertNotIn("outputs", no_facts)
        self.assertNotIn("\n", no_facts["error"])


class Running(unittest.TestCase):
    """The numpy backend's scripts, run by this interpreter with no PYTHONPATH."""

    def run_script(self, graph: Path, backend: str, seed: int, symptom: str = "mismatch",
                   bound_eps: float | None = None) -> subprocess.CompletedProcess[str]:
        text = script_for_file(str(graph), backend, "cpu", seed, symptom, bound_eps)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "repro.py")
            Path(path).write_text(text)
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            return subprocess.run([sys.executable, path], capture_output=True, text=True, env=env, cwd=tmp, timeout=120, check=False)

    def test_mismatch(self) -> None:
        agree = self.run_script(FIRST, "numpy", 5)
        self.assertEqual(agree.returncode, 0, agree.stdout + agree.stderr)
        self.assertIn("every output agrees with the reference", agree.stdout)
        self.assertIn("numpy 2.", agree.stdout)
        float32 = next(p for p in sorted(GRAPHS.glob("*.json")) if '"dtype": "float32"' in p.read_text()[:200])
        strict = self.run_script(float32, "numpy", 5, bound_eps=0.0)  # any rounding at all is beyond 0 eps
        self.assertEqual(strict.returncode, 1, strict.stdout + strict.stderr)
        self.assertIn("an output disagrees with the reference", strict.stdout)

    def test_other_symptoms_do_not_show_on_a_correct_backend(self) -> None:
        for symptom in ("raise", "crash", "timeout", "slow"):
            with self.subTest(symptom=symptom):
                seen = self.run_script(FIRST, "numpy", 1, symptom=symptom)
                self.assertEqual(seen.returncode, 0, seen.stdout + seen.stderr)
        self.assertIn("not a compiled backend", self.run_script(FIRST, "numpy", 1, symptom="slow").stdout)
        self.assertIn("no crash", self.run_script(FIRST, "numpy", 1, symptom="crash").stdout)


if __name__ == "__main__":
    unittest.main()
