"""The adapter contract, and the parts every adapter shares.

An adapter is created once per probe process, on the probe's only thread. The
runner calls `select(device_id)` once before any case; every later call happens
on the same thread, inside `scope()`. Times are the runner's business, not the
adapter's: an adapter only has to make `sync()` return when all work it queued
has finished, so that a timed block ends on a synchronisation.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import UnsupportedDtype

# Patterns over "<ExceptionType>: <message>", first match wins. Order matters:
# a missing dtype kernel reads as "not implemented for 'Half'", which is a dtype
# problem before it is a missing-kernel problem.
_RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        "out_of_memory",
        re.compile(
            r"MemoryError|out of memory|OutOfMemoryError|RESOURCE_EXHAUSTED|ResourceExhausted|"
            r"Failed to allocate|CUBLAS_STATUS_ALLOC_FAILED|cannot allocate memory",
            re.I,
        ),
    ),
    (
        "unsupported_dtype",
        re.compile(
            r"UnsupportedDtype|not implemented for '(Half|BFloat16|ComplexFloat|ComplexDouble|Bool|Long|Int|Float|Double|Char|Byte|Short)'|"
            r"(unsupported|not supported|invalid)[^\n]{0,40}(dtype|data ?type)|"
            r"(dtype|data ?type)[^\n]{0,60}(not supported|unsupported|is not allowed)|"
            r"does not accept dtype|doesn't handle types other than|Low precision dtypes not supported|"
            # The frameworks' typed refusals of a dtype by kind (torch's words):
            r"only Tensors of floating point( and complex)? dtype can require gradients|"
            r"(Integral|Complex) inputs not supported|does not support complex dtypes|"
            r"only supports floating-point dtypes|Expected a floating point or complex tensor|"
            r"could not infer output dtype|can't be cast to the desired output type|"
            r"with two bool tensors is not supported|"
            r"Could not find device for node[^\n]*T=DT_|no (kernel|OpKernel)[^\n]*(DT_BFLOAT16|DT_HALF|DT_COMPLEX|DT_BOOL|DT_INT)",
            re.I,
        ),
    ),
    (
        "not_implemented",
        re.compile(
            r"NotImplementedError|not implemented|UNIMPLEMENTED|No registered kernel|Could not run 'aten::|"
            r"No OpKernel was registered|Cannot assign a device|Could not satisfy explicit device|"
            r"NotFoundError: No registered|only supports NHWC|Detected unsupported operations",
            re.I,
        ),
    ),
    (
        "device_error",
        re.compile(
            r"CUDA error|CUDA driver|cuDNN|CUDNN_STATUS|CUBLAS_STATUS|cusolver|device-side assert|"
            r"XlaRuntimeError: INTERNAL|INTERNAL: |illegal memory access|NCCL|InternalError",
            re.I,
        ),
    ),
    ("type_error", re.compile(r"^(TypeError|TypeCheckError|.*DTypePromotionError)\b", re.I)),
]


def compile_cache_state(before: tuple[int, int], after: tuple[int, int]) -> str | None:
    """Whether a case's compiles came from the persistent compile cache,
    from (hits, misses) counters read before and after it (protocol 1.11
    `compile_cache`): `cold` when one missed (it compiled, and filled the
    cache), `warm` when every one hit, None when none went through the
    cache. A counter that went down was reset in between: counted from 0."""
    hits, misses = (a - b if a >= b else a for a, b in zip(after, before))
    if misses > 0:
        return "cold"
    return "warm" if hits > 0 else None


def classify_exception(exc: BaseException) -> str:
    """Map an exception to a protocol error kind; the engine trusts this list."""
    text = f"{type(exc).__name__}: {exc}"
    for kind, pattern in _RULES:
        if pattern.search(text):
            return kind
    if isinstance(exc, NotImplementedError):
        return "not_implemented"
    if isinstance(exc, TypeError):
        return "type_error"
    if isinstance(exc, MemoryError):
        return "out_of_memory"
    return "other"


_NUMPY_DTYPES = {
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "bool": np.bool_,
}


def host_values(shape: tuple[int, ...], dtype_name: str, kind: str, seed: int) -> np.ndarray:
    """Deterministic host data for `make`: the same bytes on every device, so
    outputs can be compared across devices. bfloat16 data is float32 here and
    cast by the framework."""
    rng = np.random.default_rng(seed)
    if dtype_name == "bool":
        return rng.random(shape) < 0.5
    if dtype_name.startswith(("int", "uint")):
        low = 0 if dtype_name.startswith("uint") or kind == "positive" else -50
        return rng.integers(low, 50, size=shape).astype(_NUMPY_DTYPES[dtype_name])
    if kind == "positive":
        base = rng.random(shape) * 2.0 + 0.5
    else:
        base = rng.standard_normal(shape)
    if dtype_name.startswith("complex"):
        imag = rng.standard_normal(shape) if kind != "positive" else rng.random(shape)
        return (base + 1j * imag).astype(_NUMPY_DTYPES[dtype_name])
    if dtype_name == "bfloat16":
        return base.astype(np.float32)
    if dtype_name not in _NUMPY_DTYPES:
        raise UnsupportedDtype(f"unknown dtype name {dtype_name!r}")
    return base.astype(_NUMPY_DTYPES[dtype_name])


def flatten(out: Any) -> Iterator[Any]:
    """Outputs in a fixed order: tuples/lists in order, dicts by sorted key."""
    if isinstance(out, (tuple, list)):
        for item in out:
            yield from flatten(item)
    elif isinstance(out, dict):
        for key in sorted(out, key=str):
            yield from flatten(out[key])
    elif out is None:
        return
    else:
        yield out


class Adapter:
    """Base adapter. Subclasses set `name`, `module` and override the hooks."""

    name = "base"
    # True where the framework can silently run an op elsewhere (TensorFlow's
    # soft device placement): scope(soft=True) then turns it on, and the
    # runner records whether a failed case would have run with it.
    has_soft_placement = False
    # Whether kernel_support can ask a kernel registry (TensorFlow): the
    # runner asks only then, so other frameworks pay nothing per case.
    has_kernel_registry = False

    def __init__(self) -> None:
        self.module: Any = None
        self.native_device: Any = None
        self.device_id = "cpu"

    # -- discovery ---------------------------------------------------------
    def version(self) -> str:
        return str(getattr(self.module, "__version__", "unknown"))

    def devices(self) -> list[dict[str, Any]]:
        """Device records for the hello message (schemas/probe-protocol-v1.md)."""
        return [cpu_record()]

    def accelerators_absent(self) -> list[str]:
        """Accelerators this framework's build targets that no listed device
        is, one line each with the reason (adapters/absent.py; hello's
        `accelerators_absent`, protocol 1.10)."""
        return []

    def device_count(self, kind: str) -> int:
        return sum(1 for d in self.devices() if d["id"].split(":")[0] == kind)

    def select(self, device_id: str) -> None:
        """Bind this probe to one device; raise ValueError if it is not here."""
        if device_id not in {d["id"] for d in self.devices()}:
            raise ValueError(f"{self.name} sees no device {device_id}")
        self.device_id = device_id

    @contextlib.contextmanager
    def scope(self, soft: bool = False) -> Iterator[None]:
        """Where case bodies run: the device bound, placement rules applied."""
        yield

    # -- data --------------------------------------------------------------
    def dtype(self, name: str) -> Any:
        raise UnsupportedDtype(f"{self.name} has no dtype {name}")

    def from_numpy(self, array: np.ndarray, dtype_name: str | None = None) -> Any:
        raise NotImplementedError

    def cast(self, value: Any, dtype_name: str) -> Any:
        """`value` (made by this adapter) converted to dtype `dtype_name`, on its device."""
        raise NotImplementedError

    def widened(self, value: Any) -> Any:
        """A case argument for the float64 reference: floating arrays as
        float64, complex as complex128 (tuples and lists element by element);
        anything else as it is."""
        if isinstance(value, (tuple, list)):
            return type(value)(self.widened(v) for v in value)
        kind = self.float_kind(value)
        if kind == "f":
            return self.cast(value, "float64")
        if kind == "c":
            return self.cast(value, "complex128")
        return value

    def float_kind(self, value: Any) -> str:
        """"f" for a floating array of this framework, "c" for complex, "" otherwise."""
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        return kind if kind in ("f", "c") else ""

    @contextlib.contextmanager
    def strict_precision(self) -> Iterator[str]:
        """Every precision knob of the framework at its strictest while the
        block runs (TF32 off, highest matmul precision), restored after.
        Yields the settings it changed from this device's defaults, as one
        line; "" when nothing differs here (a CPU), and the runner then
        makes no strict run."""
        yield ""

    def make(self, shape: tuple[int, ...], dtype_name: str, kind: str, seed: int) -> Any:
        self.dtype(dtype_name)  # raises UnsupportedDtype first
        return self.from_numpy(host_values(shape, dtype_name, kind, seed), dtype_name)

    def to_numpy(self, out: Any) -> list[tuple[np.ndarray, str]]:
        """Outputs as host arrays with the framework's dtype name beside each."""
        result = []
        for item in flatten(out):
            arr = np.asarray(item)
            result.append((arr, str(arr.dtype)))
        return result

    # -- execution ---------------------------------------------------------
    def sync(self) -> None:
        """Return once all queued device work has finished."""

    def block(self, out: Any) -> None:
        """Return once `out` (one call's output) is computed; the runner calls
        it inside the timed block, before `sync()`. Default: nothing to wait for."""

    def compile(self, fn: Any) -> Any:
        raise NotImplementedError(f"{self.name} has no compiler")

    def start_pools(self) -> None:
        """Starts the framework's worker threads on the bound device (an
        elementwise op over 2^20 values and a 256 x 256 matmul), so they
        exist, with every core the probe has, before the calling thread is
        pinned to one (__main__._pin_main_thread)."""
        with self.scope():
            x = self.from_numpy(np.ones(1 << 20, dtype=np.float32), "float32")
            m = self.from_numpy(np.ones((256, 256), dtype=np.float32), "float32")
            self.block(x + x)
            self.block(m @ m)
            self.sync()

    def precision_matters(self, fn: Any, args: tuple[Any, ...]) -> bool:
        """Could strict_precision() change what fn(*args) computes? True
        unless the adapter can show the computation has no op a precision
        knob reaches (JAX: no dot or convolution in its jaxpr)."""
        return True

    def kernel_support(self, fn: Any, args: tuple[Any, ...]) -> dict[str, Any] | None:
        """What the framework's kernel registry predicts for fn(*args) per
        device kind, without running it: {"cpu": {"kernels": bool, "missing":
        [...]}, "gpu": {...}, "ops": N} (tf_kernels.kernel_support), or
        {"error": one line} when it cannot tell. None: the framework has no
        kernel registry to ask (then `has_kernel_registry` is False and the
        runner never calls it). Called once per case, after the case's own
        calls, untimed; it must never raise."""
        return None

    def device_timer(self) -> Any:
        """A timer of device time per call from the device's own events, or
        None where the framework exposes none (the CPU; JAX, whose device
        time is inferred from the host's enqueue time instead). See
        torch_adapter.CudaEventTimer for the interface."""
        return None

    def reset_peak_memory(self) -> None:
        pass

    def case_begin(self) -> None:
        """Called before each case's body; an adapter that reports per-case
        facts (case_facts) takes its starting counters here."""

    def case_facts(self) -> dict[str, Any]:
        """Facts about the case since case_begin(), merged into its result
        after its timing (torch on XLA: `xla{counters, compiles, ...}`,
        the runtime's counters that changed, host fallbacks among them).
        The probe reports facts only; the engine decides what they mean."""
        return {}

    def device_unusable(self) -> str | None:
        """After a case raised: can the device still compute? Runs a tiny
        computation (x + x over four float32 values, synchronised) and returns
        None when it gives the right answer, else one line saying what
        happened. A sticky error (a CUDA device-side assert, a lost device,
        an XLA runtime that stays broken) fails this, and the engine then
        replaces the probe before the next case (protocol 1.2). The device's
        state decides, not the failed case's message."""
        try:
            with self.scope():
                x = self.from_numpy(np.arange(4, dtype=np.float32), "float32")
                y = x + x
                self.block(y)
                self.sync()
                got = self.to_numpy(y)
        except Exception as exc:  # whatever the device raises now is the answer
            text = f"{type(exc).__name__}: {exc}".strip().splitlines()
            return (text[0] if text else type(exc).__name__)[:300]
        if len(got) != 1 or not np.array_equal(np.asarray(got[0][0], dtype=np.float64), [0.0, 2.0, 4.0, 6.0]):
            return "a four-element x + x on the device returned wrong values"
        return None

    def peak_device_bytes(self) -> int | None:
        return None

    def output_device(self, out: Any) -> str | None:
        """Where the outputs live when the adapter cannot say per output
        (`placements` empty); None if not known."""
        return None

    def placements(self, out: Any) -> list[str | None]:
        """The device id of every flattened output, in output order (None for
        a host value or where not known); [] when the adapter cannot say."""
        return []

    def classify(self, exc: BaseException) -> str:
        return classify_exception(exc)


def cpu_record() -> dict[str, Any]:
    import os
    import platform

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    clocks: dict[str, Any] = {}
    try:
        with open("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", encoding="utf-8") as f:
            clocks["max_mhz"] = int(f.read().strip()) // 1000
    except OSError:
        pass
    return {
        "id": "cpu",
        "kind": "cpu",
        "vendor": _cpu_vendor(),
        "model": model,
        "memory_bytes": mem,
        "cores": len(os.sched_getaffinity(0)),
        "driver_version": "",
        "runtime_version": platform.release(),
        "clocks": clocks,
    }


# /proc/cpuinfo's vendor_id as people name the vendor.
_CPU_VENDORS = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD", "HygonGenuine": "Hygon", "CentaurHauls": "Centaur"}


def _cpu_vendor() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    vendor = line.split(":", 1)[1].strip()
                    return _CPU_VENDORS.get(vendor, vendor)
                if line.startswith("CPU implementer"):  # Arm: no vendor_id
                    return "Arm"
    except OSError:
        pass
    return ""


def nvidia_smi(index: int) -> dict[str, Any]:
    """Driver version and clocks of GPU `index` from nvidia-smi; {} where it is absent."""
    import subprocess

    fields = "driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit,pci.bus_id"
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--id={index}", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {}
    values = [v.strip() for v in out.split(",")]
    if len(values) != 6:
        return {}

    def num(v: str) -> Any:
        try:
            return float(v) if "." in v else int(v)
        except ValueError:
            return v

    return {
        "driver_version": values[0],
        "clocks": {"max_sm_mhz": num(values[1]), "max_mem_mhz": num(values[2]), "sm_mhz": num(values[3])},
        "power_limit_w": num(values[4]),
        "pci_bus_id": values[5],
    }


def cuda_record(index: int, model: str, memory_bytes: int, runtime_version: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    smi = nvidia_smi(index)
    record: dict[str, Any] = {
        "id": f"cuda:{index}",
        "kind": "cuda",
        "vendor": "NVIDIA",
        "model": model,
        "memory_bytes": int(memory_bytes),
        "driver_version": smi.get("driver_version", ""),
        "runtime_version": runtime_version,
        "clocks": smi.get("clocks", {}),
    }
    if "pci_bus_id" in smi:
        record["pci_bus_id"] = smi["pci_bus_id"]
    if extra:
        record.update(extra)
    return record
