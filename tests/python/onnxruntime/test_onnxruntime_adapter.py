"""The onnxruntime adapter and its fuzz finding, with onnxruntime: run by
scripts/python-tests.sh with the onnxruntime environment (the numpy one,
which runs the rest of tests/python, has no onnxruntime; this folder is no
package, so its discovery does not enter it)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mudjack_probe.adapters import load
from mudjack_probe.fuzz.script import script_for_file

ROOT = Path(__file__).resolve().parents[3]
GRAPHS = sorted(str(p) for p in (ROOT / "tests" / "fixtures" / "fuzz" / "graphs").glob("*.json"))


class OnnxruntimeAdapter(unittest.TestCase):
    def test_devices_and_host_arrays(self) -> None:
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
