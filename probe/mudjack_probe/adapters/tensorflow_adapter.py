"""TensorFlow: cpu and cuda:N (TF's /GPU:N); compiler tf.function(jit_compile=True).

Inside `scope()` soft device placement is off, as in the paper: an op with no
kernel for the bound device then raises instead of quietly running on the
CPU (with it on, the paper's TF GPU failures fell from 16 functions to 3).
"""

from __future__ import annotations

import os

# Before tensorflow is imported: C++ INFO and WARNING lines would drown stderr,
# which the engine keeps as a crash's evidence.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import tensorflow as tf

from ..errors import UnsupportedDtype, one_line
from . import absent
from .base import Adapter, classify_exception, cpu_record, cuda_record, flatten

# Before any GPU is initialised: allocate on demand instead of taking nearly
# the whole card, so probes can share a GPU and peak memory is meaningful.
for _gpu in tf.config.list_physical_devices("GPU"):
    with contextlib.suppress(RuntimeError):  # already initialised by someone else; nothing to do
        tf.config.experimental.set_memory_growth(_gpu, True)

_DTYPES: dict[str, tf.DType] = {
    "float16": tf.float16,
    "bfloat16": tf.bfloat16,
    "float32": tf.float32,
    "float64": tf.float64,
    "complex64": tf.complex64,
    "complex128": tf.complex128,
    "int8": tf.int8,
    "int16": tf.int16,
    "int32": tf.int32,
    "int64": tf.int64,
    "uint8": tf.uint8,
    "bool": tf.bool,
}


def _parse_device(name: str) -> str | None:
    """'/job:localhost/replica:0/task:0/device:GPU:0' -> 'cuda:0'; CPU -> 'cpu'."""
    parts = name.rsplit("device:", 1)[-1].split(":")
    if len(parts) < 2:
        return None
    kind, index = parts[-2].upper(), parts[-1]
    if kind == "CPU":
        return "cpu"
    if kind == "GPU":
        return f"cuda:{index}"
    return f"{kind.lower()}:{index}"


class TensorflowAdapter(Adapter):
    name = "tensorflow"
    has_soft_placement = True
    has_kernel_registry = True

    def __init__(self) -> None:
        super().__init__()
        self.module = tf
        self.native_device = "/CPU:0"
        self._devices: list[dict[str, Any]] | None = None

    def version(self) -> str:
        return str(tf.__version__)

    def devices(self) -> list[dict[str, Any]]:
        if self._devices is None:
            records = [cpu_record()]
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                limits = _gpu_memory_limits()
                runtime = str(tf.sysconfig.get_build_info().get("cuda_version", ""))
                for i, gpu in enumerate(gpus):
                    details = tf.config.experimental.get_device_details(gpu)
                    cc = details.get("compute_capability")
                    extra = {"compute_capability": f"{cc[0]}.{cc[1]}"} if cc else {}
                    # memory_bytes is what TF may allocate, a little under the card's total.
                    records.append(cuda_record(i, str(details.get("device_name", "")), limits.get(i, 0), runtime, extra))
            self._devices = records
        return self._devices

    def accelerators_absent(self) -> list[str]:
        wanted = {}
        if tf.test.is_built_with_cuda():
            cuda = tf.sysconfig.get_build_info().get("cuda_version", "")
            wanted["cuda"] = f"TensorFlow {tf.__version__} is built with CUDA {cuda}".rstrip()
        libtpu = absent.installed("libtpu")
        if libtpu:
            wanted["tpu"] = f"libtpu {libtpu} is installed"

        def tpu() -> str:  # this adapter lists no TPU devices, even where there are chips
            if absent.tpu_nodes():
                return "MudJack's tensorflow adapter does not list TPU devices yet"
            return absent.tpu_reason()

        return absent.lines((d["kind"] for d in self.devices()), wanted,
                            {"cuda": absent.nvidia_reason, "tpu": tpu})

    def select(self, device_id: str) -> None:
        super().select(device_id)
        self.native_device = "/CPU:0" if device_id == "cpu" else f"/GPU:{device_id.split(':')[1]}"

    def _on_gpu(self) -> bool:
        return bool(self.native_device.startswith("/GPU"))

    @contextlib.contextmanager
    def scope(self, soft: bool = False) -> Iterator[None]:
        previous = tf.config.get_soft_device_placement()
        tf.config.set_soft_device_placement(soft)
        try:
            with tf.device(self.native_device):
                yield
        finally:
            tf.config.set_soft_device_placement(previous)

    # -- data --------------------------------------------------------------
    def dtype(self, name: str) -> Any:
        if name not in _DTYPES:
            raise UnsupportedDtype(f"tensorflow has no dtype {name}")
        return _DTYPES[name]

    def from_numpy(self, array: np.ndarray, dtype_name: str | None = None) -> Any:
        with tf.device(self.native_device):
            x = tf.identity(tf.constant(np.asarray(array)))
            if dtype_name:
                x = tf.cast(x, self.dtype(dtype_name))
            return x

    def float_kind(self, value: Any) -> str:
        if not isinstance(value, (tf.Tensor, tf.Variable)):
            return ""
        return "c" if value.dtype.is_complex else "f" if value.dtype.is_floating else ""

    def cast(self, value: Any, dtype_name: str) -> Any:
        with tf.device(self.native_device):
            return tf.identity(tf.cast(value, self.dtype(dtype_name)))

    @contextlib.contextmanager
    def strict_precision(self) -> Iterator[str]:
        if not self._on_gpu() or not tf.config.experimental.tensor_float_32_execution_enabled():
            yield ""
            return
        tf.config.experimental.enable_tensor_float_32_execution(False)
        try:
            yield "tf.config.experimental.enable_tensor_float_32_execution(False)"
        finally:
            tf.config.experimental.enable_tensor_float_32_execution(True)

    def to_numpy(self, out: Any) -> list[tuple[np.ndarray, str]]:
        result = []
        for leaf in flatten(out):
            item = leaf
            if isinstance(item, tf.SparseTensor):
                item = tf.sparse.to_dense(item)
            elif isinstance(item, tf.RaggedTensor):
                # The row splits are part of the answer: compared as outputs of their own.
                for splits in item.nested_row_splits:
                    result.append((np.asarray(splits.numpy()), splits.dtype.name))
                item = item.flat_values
            if isinstance(item, (tf.Tensor, tf.Variable)):
                name = item.dtype.name
                arr = np.asarray(item.numpy())
            else:
                arr = np.asarray(item)
                name = str(arr.dtype)
            if arr.dtype.kind not in "biufcSUO":  # bfloat16 etc. from ml_dtypes
                arr = arr.astype(np.float32)
            result.append((arr, name))
        return result

    # -- execution ---------------------------------------------------------
    def sync(self) -> None:
        # Eager GPU ops are queued on a stream; on CPU they run synchronously.
        if self._on_gpu():
            tf.test.experimental.sync_devices()

    def compile(self, fn: Any) -> Any:
        return tf.function(fn, jit_compile=True)

    def reset_peak_memory(self) -> None:
        if self._on_gpu():
            tf.config.experimental.reset_memory_stats(self.native_device.lstrip("/"))

    def peak_device_bytes(self) -> int | None:
        if self._on_gpu():  # on CPU TF reports zeros, which would be a lie
            return int(tf.config.experimental.get_memory_info(self.native_device.lstrip("/"))["peak"])
        return None

    def kernel_support(self, fn: Any, args: tuple[Any, ...]) -> dict[str, Any] | None:
        """The registry's prediction for the call on CPU and GPU (tf_kernels)."""
        try:
            from . import tf_kernels
        except Exception as exc:  # an internal module moved: recorded, never the case's failure
            return {"error": one_line(exc)[:300]}
        try:
            return tf_kernels.kernel_support(fn, args)
        except Exception as exc:  # a prediction that cannot be made is recorded, never the case's failure
            return {"error": tf_kernels.error_line(exc)}

    def classify(self, exc: BaseException) -> str:
        """TF's placement error lists the kernels the op has; with soft placement
        off it is how a missing kernel shows. A kernel for this device type in
        other dtypes makes it a dtype gap; none at all, a missing implementation."""
        text = str(exc)
        if "Could not find device for node" in text:
            kind = "GPU" if self._on_gpu() else "CPU"
            return "unsupported_dtype" if re.search(rf"device='{kind}'", text) else "not_implemented"
        if re.search(r"Value for attr '\w+' of \w+ is not in the list of allowed values", text):
            return "unsupported_dtype"  # the op's signature excludes this dtype on every device
        return classify_exception(exc)

    def placements(self, out: Any) -> list[str | None]:
        found: list[str | None] = []
        for leaf in flatten(out):
            item = leaf.flat_values if isinstance(leaf, tf.RaggedTensor) else leaf
            if isinstance(item, (tf.Tensor, tf.Variable)):
                try:
                    found.append(_parse_device(item.device))
                except (AttributeError, RuntimeError):  # symbolic tensors have no placement
                    found.append(None)
            else:
                found.append(None)  # host values (numpy from Session.run): not known
        return found


def _gpu_memory_limits() -> dict[int, int]:
    """TF's usable memory per GPU index; initialises the GPUs (memory growth is on)."""
    try:
        from tensorflow.python.client import device_lib

        limits = {}
        for d in device_lib.list_local_devices():
            if d.device_type == "GPU":
                limits[int(d.name.rsplit(":", 1)[1])] = int(d.memory_limit)
        return limits
    except Exception:  # an internal module; a missing number is not worth failing discovery
        return {}


def create() -> Adapter:
    return TensorflowAdapter()
