"""NumPy: the reference implementation. CPU only; no compiler; no bfloat16."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import UnsupportedDtype
from .base import _NUMPY_DTYPES, Adapter


class NumpyAdapter(Adapter):
    name = "numpy"

    def __init__(self) -> None:
        super().__init__()
        self.module = np

    def dtype(self, name: str) -> Any:
        if name not in _NUMPY_DTYPES:
            raise UnsupportedDtype(f"numpy has no dtype {name}")
        return _NUMPY_DTYPES[name]

    def from_numpy(self, array: np.ndarray, dtype_name: str | None = None) -> Any:
        return array.astype(self.dtype(dtype_name)) if dtype_name else array

    def cast(self, value: Any, dtype_name: str) -> Any:
        return np.asarray(value).astype(self.dtype(dtype_name))

    def output_device(self, out: Any) -> str | None:
        return "cpu"  # numpy arrays live on the host


def create() -> Adapter:
    return NumpyAdapter()
