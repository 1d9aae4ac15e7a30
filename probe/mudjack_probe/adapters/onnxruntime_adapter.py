"""ONNX Runtime: cpu, and cuda:N where the CUDA execution provider is installed.

ONNX Runtime runs models, not ops: a case builds its model and opens an
`InferenceSession` on `providers()` in its body (untimed), and times
`session.run`. Tensors are numpy arrays on the host: a session copies its
inputs to the device and its outputs back inside `run`, which returns when
the device is done, so `sync` has nothing to wait for and every output is
the bound device's answer (its placement is the device). A session on a GPU
refuses to fall back to the CPU for a node it has no kernel for
(fuzz/ops_onnx.py), as soft placement is off for TensorFlow. No compiler:
ONNX Runtime optimizes every model it loads.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any

import numpy as np
import onnxruntime as ort

from ..errors import UnsupportedDtype
from .base import _NUMPY_DTYPES, Adapter, classify_exception, cpu_record, cuda_record, flatten


def _cuda_devices() -> list[tuple[str, int]]:
    """(name, memory bytes) of each GPU nvidia-smi lists, when ONNX Runtime
    has its CUDA provider; [] otherwise."""
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        return []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.strip().splitlines():
        name, _, mib = line.rpartition(",")
        try:
            found.append((name.strip(), int(float(mib)) << 20))
        except ValueError:
            continue
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() != "":
        keep = [int(i) for i in visible.split(",") if i.strip().isdigit()]
        found = [found[i] for i in keep if i < len(found)]
    return found


class OnnxruntimeAdapter(Adapter):
    name = "onnxruntime"

    def __init__(self) -> None:
        super().__init__()
        self.module = ort
        self.native_device = "cpu"
        self._devices: list[dict[str, Any]] | None = None

    def version(self) -> str:
        return str(ort.__version__)

    def devices(self) -> list[dict[str, Any]]:
        if self._devices is None:
            records = [cpu_record()]
            for i, (model, memory) in enumerate(_cuda_devices()):
                records.append(cuda_record(i, model, memory, f"onnxruntime {ort.__version__} CUDAExecutionProvider"))
            self._devices = records
        return self._devices

    def select(self, device_id: str) -> None:
        super().select(device_id)
        self.native_device = device_id

    def providers(self) -> list[Any]:
        """The execution providers a session on the bound device opens with."""
        if self.device_id == "cpu":
            return ["CPUExecutionProvider"]
        return [("CUDAExecutionProvider", {"device_id": int(self.device_id.split(":")[1])})]

    # -- data --------------------------------------------------------------
    def dtype(self, name: str) -> Any:
        if name not in _NUMPY_DTYPES:
            raise UnsupportedDtype(f"onnxruntime takes numpy arrays, and numpy has no dtype {name}")
        return _NUMPY_DTYPES[name]

    def from_numpy(self, array: np.ndarray, dtype_name: str | None = None) -> Any:
        return np.asarray(array).astype(self.dtype(dtype_name)) if dtype_name else np.asarray(array)

    def cast(self, value: Any, dtype_name: str) -> Any:
        return np.asarray(value).astype(self.dtype(dtype_name))

    def placements(self, out: Any) -> list[str | None]:
        # `run` hands every output back on the host after computing it on
        # the bound device (a CPU fallback is refused): the device's answer.
        return [self.device_id for _ in flatten(out)]

    def classify(self, exc: BaseException) -> str:
        """ONNX Runtime says NOT_IMPLEMENTED "Could not find an implementation
        for Op(version)" when the op exists but has no kernel for the
        model's types on the provider, and refuses a type the op's schema
        excludes while loading the model: both a dtype gap. A node left to
        the CPU with fallback refused has no kernel on the device."""
        text = str(exc)
        if re.search(r"Could not find an implementation for|Type \S+ of input parameter .* is invalid|"
                     r"Type parameter \(\w+\) of Optype \(\w+\) bound to different types", text):
            return "unsupported_dtype"
        if "fallback to CPU EP has been explicitly disabled" in text or "NOT_IMPLEMENTED" in text:
            return "not_implemented"
        return classify_exception(exc)


def create() -> Adapter:
    return OnnxruntimeAdapter()
