"""Every fuzz backend of the frameworks this interpreter has, against the
NumPy float64 reference on the fixture graphs (tests/fixtures/fuzz): each
framework's tests skip where it is not installed (the numpy environment of
scripts/python-tests.sh has none of them; tests/adapters/fuzz_backends.sh
runs them all in their own environments)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import unittest
from pathlib import Path

from mudjack_probe.fuzz.__main__ import check, read_expected

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "fuzz"
GRAPHS = sorted(str(p) for p in (FIXTURES / "graphs").glob("*.json"))
EXPECTED = read_expected(str(FIXTURES / "expected.txt"))
COMPILED_GRAPHS = 4
"""Compiled backends run only this many graphs here: torch.compile takes seconds a graph."""


def has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


class Backends(unittest.TestCase):
    def agree(self, backends: list[str], graphs: list[str] = GRAPHS) -> None:
        table = io.StringIO()
        with contextlib.redirect_stdout(table):
            status = check(graphs, backends, "cpu", 0, EXPECTED)
        self.assertEqual(status, 0, table.getvalue())

    def test_numpy(self) -> None:
        self.agree(["numpy"])

    @unittest.skipUnless(has("torch"), "torch is not installed here")
    def test_torch(self) -> None:
        self.agree(["torch"])
        self.agree(["torch-compile"], GRAPHS[:COMPILED_GRAPHS])

    @unittest.skipUnless(has("jax"), "jax is not installed here")
    def test_jax(self) -> None:
        self.agree(["jax"])
        self.agree(["jax-jit"], GRAPHS[:COMPILED_GRAPHS])

    @unittest.skipUnless(has("tensorflow"), "tensorflow is not installed here")
    def test_tensorflow(self) -> None:
        self.agree(["tensorflow"])
        self.agree(["tensorflow-xla"], GRAPHS[:COMPILED_GRAPHS])

    @unittest.skipUnless(has("onnxruntime") and has("onnx"), "onnxruntime or onnx is not installed here")
    def test_onnxruntime(self) -> None:
        self.agree(["onnxruntime"])


@unittest.skipUnless(has("onnxruntime"), "onnxruntime is not installed here")
class OnnxruntimeAdapter(unittest.TestCase):
    def test_devices_and_host_arrays(self) -> None:
        import numpy as np

        from mudjack_probe.adapters import load

        adapter = load("onnxruntime")
        self.assertEqual(adapter.devices()[0]["id"], "cpu")
        adapter.select("cpu")
        self.assertEqual(adapter.providers(), ["CPUExecutionProvider"])  # type: ignore[attr-defined]
        x = adapter.from_numpy(np.arange(3), "float32")
        self.assertEqual(x.dtype, np.float32)
        self.assertEqual(adapter.cast(x, "float64").dtype, np.float64)
        self.assertEqual(adapter.placements((x, x)), ["cpu", "cpu"])
        self.assertIsNone(adapter.device_unusable())

    def test_classify(self) -> None:
        from mudjack_probe.adapters import load

        adapter = load("onnxruntime")
        kinds = [
            ("[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Elu(6) node with name ''", "unsupported_dtype"),
            (("[ONNXRuntimeError] : 10 : INVALID_GRAPH : Load model from m failed:This is an invalid model. Type Error: "
              "Type (tensor(int32)) of input parameter (x) of operator (Relu) in node () is invalid."), "unsupported_dtype"),
            (("[ONNXRuntimeError] : 1 : FAIL : This session contains graph nodes that are assigned to the default CPU EP, "
              "but fallback to CPU EP has been explicitly disabled by the user."), "not_implemented"),
            (("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running Conv node. "
              "CUDA error cudaErrorIllegalAddress"), "device_error"),
        ]
        for text, kind in kinds:
            with self.subTest(text=text[:60]):
                self.assertEqual(adapter.classify(RuntimeError(text)), kind)

    def test_the_elu_finding_reproduces_as_a_script(self) -> None:
        import os
        import subprocess
        import sys
        import tempfile

        from mudjack_probe.fuzz.script import script_for_file

        [graph] = [g for g in GRAPHS if "459f0479413b2c13" in g]  # float64 elu: no CPU kernel in onnxruntime 1.30
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "repro.py")
            Path(path).write_text(script_for_file(graph, "onnxruntime", "cpu", 0, "raise"))
            seen = subprocess.run([sys.executable, path], capture_output=True, text=True, check=False,
                                  env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
        self.assertEqual(seen.returncode, 1, seen.stdout + seen.stderr)
        self.assertIn("Could not find an implementation for Elu", seen.stdout)


if __name__ == "__main__":
    unittest.main()
