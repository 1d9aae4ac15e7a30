"""PyTorch: cpu and cuda:N, and XLA devices (xla:N, tpu:N) where torch_xla
is installed (torch_xla_devices); compiler torch.compile.

Inputs are created on the host (base.host_values) and copied to the bound
device, so every device sees the same bytes. `scope()` makes the bound GPU the
current CUDA device but deliberately does not use `torch.device(...)` as a
default-device context: that installs a TorchFunctionMode which intercepts
every op in Python and would inflate the latencies we measure. Case bodies
pass `device=t.device` explicitly.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from ..errors import Unavailable, UnsupportedDtype
from . import absent, torch_xla_devices as txd
from .base import Adapter, compile_cache_state, cpu_record, cuda_record, flatten

_DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _compile_cache_counts() -> tuple[int, int]:
    """(hits, misses) so far in this process of Inductor's FX graph cache
    and AOT autograd's cache, the on-disk caches under
    TORCHINDUCTOR_CACHE_DIR (the build cache: models.compiler_caches)."""
    try:
        from torch._dynamo.utils import counters
    except Exception:  # an older torch: no such counters
        return (0, 0)
    inductor, aot = counters.get("inductor", {}), counters.get("aot_autograd", {})
    return (int(inductor.get("fxgraph_cache_hit", 0)) + int(aot.get("autograd_cache_hit", 0)),
            int(inductor.get("fxgraph_cache_miss", 0)) + int(aot.get("autograd_cache_miss", 0)))


class TorchAdapter(Adapter):
    name = "torch"

    def __init__(self) -> None:
        super().__init__()
        self.module = torch
        self.native_device = torch.device("cpu")
        self._devices: list[dict[str, Any]] | None = None
        self._timer: CudaEventTimer | None = None
        self._xla_counters = txd.Counters() if txd.available() else None
        self._cache_counts = (0, 0)

    def version(self) -> str:
        return str(torch.__version__)

    def devices(self) -> list[dict[str, Any]]:
        if self._devices is None:
            records = [cpu_record()]
            if torch.cuda.is_available():
                for i in range(torch.cuda.device_count()):
                    props = torch.cuda.get_device_properties(i)
                    records.append(
                        cuda_record(
                            i,
                            props.name,
                            props.total_memory,
                            str(torch.version.cuda or ""),
                            {"compute_capability": f"{props.major}.{props.minor}"},
                        )
                    )
            records.extend(txd.records(records[0]))
            self._devices = records
        return self._devices

    def accelerators_absent(self) -> list[str]:
        wanted = {}
        if torch.version.hip:
            wanted["rocm"] = f"torch {torch.__version__} is a ROCm {torch.version.hip} build"
        elif torch.version.cuda:
            wanted["cuda"] = f"torch {torch.__version__} is a CUDA {torch.version.cuda} build"
        libtpu = absent.installed("libtpu")
        if txd.available() and libtpu:
            wanted["tpu"] = f"libtpu {libtpu} is installed for torch_xla"
        return absent.lines((d["kind"] for d in self.devices()), wanted)

    def select(self, device_id: str) -> None:
        super().select(device_id)
        record = next(d for d in self.devices() if d["id"] == device_id)
        self.native_device = torch.device(record.get("torch_device", device_id))

    def _on_cuda(self) -> bool:
        return bool(self.native_device.type == "cuda")

    def _on_xla(self) -> bool:
        return bool(self.native_device.type == "xla")

    @contextlib.contextmanager
    def scope(self, soft: bool = False) -> Iterator[None]:
        if self._on_cuda():
            with torch.cuda.device(self.native_device):
                yield
        else:
            yield

    # -- data --------------------------------------------------------------
    def dtype(self, name: str) -> Any:
        if name not in _DTYPES:
            raise UnsupportedDtype(f"torch has no dtype {name}")
        return _DTYPES[name]

    def from_numpy(self, array: np.ndarray, dtype_name: str | None = None) -> Any:
        # not np.ascontiguousarray: it returns ndim >= 1, so a 0-d input became shape (1,)
        host = torch.from_numpy(np.asarray(array, order="C"))
        dtype = self.dtype(dtype_name) if dtype_name else host.dtype
        return host.to(device=self.native_device, dtype=dtype)

    def cast(self, value: Any, dtype_name: str) -> Any:
        if isinstance(value, torch.Tensor) and value.requires_grad and value.is_leaf:
            return value.detach().to(self.dtype(dtype_name)).requires_grad_(True)
        return value.to(self.dtype(dtype_name))

    def float_kind(self, value: Any) -> str:
        if not isinstance(value, torch.Tensor):
            return ""
        return "c" if value.is_complex() else "f" if value.is_floating_point() else ""

    @contextlib.contextmanager
    def strict_precision(self) -> Iterator[str]:
        if self.device_id == "cpu" or self._on_xla():
            # XLA:CPU computes float32 dots in float32; a TPU's default
            # precision is not a torch setting (torch_xla's own, not set here)
            yield ""
            return
        matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
        precision = torch.get_float32_matmul_precision()
        changed = [name for name, on in (("torch.backends.cudnn.allow_tf32=False", cudnn),
                                         ("torch.backends.cuda.matmul.allow_tf32=False", matmul),
                                         ("torch.set_float32_matmul_precision('highest')", precision != "highest")) if on]
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        try:
            yield ", ".join(changed)
        finally:
            torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn
            torch.set_float32_matmul_precision(precision)

    def to_numpy(self, out: Any) -> list[tuple[np.ndarray, str]]:
        result = []
        for item in flatten(out):
            if isinstance(item, torch.Tensor):
                t = item.detach()
                if t.layout != torch.strided:
                    t = t.to_dense()
                t = t.resolve_conj().resolve_neg()
                name = _dtype_name(t.dtype)
                if t.dtype == torch.bfloat16:
                    t = t.float()  # numpy has no bfloat16; float32 holds it exactly
                result.append((t.cpu().numpy(), name))
            else:
                arr = np.asarray(item)
                result.append((arr, str(arr.dtype)))
        return result

    # -- execution ---------------------------------------------------------
    def sync(self) -> None:
        if self._on_cuda():
            torch.cuda.synchronize(self.native_device)
        elif self._on_xla():
            txd.sync()

    def block(self, out: Any) -> None:
        if self._on_xla() and self._xla_counters is not None:
            txd.sync()  # lazy tensors: nothing ran until the graph is cut
            self._xla_counters.first_call_done()

    def case_begin(self) -> None:
        self._cache_counts = _compile_cache_counts()
        if self._on_xla() and self._xla_counters is not None:
            self._xla_counters.begin()

    def case_facts(self) -> dict[str, Any]:
        facts: dict[str, Any] = {}
        state = compile_cache_state(self._cache_counts, _compile_cache_counts())
        if state is not None:  # protocol 1.11: its compile was cold or warm
            facts["compile_cache"] = state
        if self._on_xla() and self._xla_counters is not None:
            facts.update(self._xla_counters.facts())
        return facts

    def compile(self, fn: Any) -> Any:
        """torch.compile of one case, compiled afresh. Dynamo keeps what it
        compiled on the function's code object and, after `recompile_limit`
        (8) entries, runs that code eagerly without a word: every case whose
        body shares a code object (a suite helper's closure, the models'
        forward) ran eager from the ninth case of a probe on. Its in-memory
        caches are therefore cleared first; the on-disk FX, AOT autograd and
        Inductor caches stay. (Within one case, a code object that Dynamo
        gives up on, like a graph break, stays eager, as torch.compile does.)
        torch.compile came with torch 2.0: before it, the case is unavailable."""
        if not hasattr(torch, "compile"):
            raise Unavailable(f"torch.compile does not exist in torch {torch.__version__} (added in 2.0)")
        torch._dynamo.reset()
        if self._on_xla():
            return torch.compile(fn, backend="openxla")
        return torch.compile(fn)

    def device_timer(self) -> CudaEventTimer | None:
        if not self._on_cuda():
            return None
        if self._timer is None:
            self._timer = CudaEventTimer(self.native_device)
        return self._timer

    def reset_peak_memory(self) -> None:
        if self._on_cuda():
            torch.cuda.reset_peak_memory_stats(self.native_device)

    def peak_device_bytes(self) -> int | None:
        if self._on_cuda():
            # the device timer's flush buffer is the probe's, not the case's
            held = self._timer.flush.numel() if self._timer is not None else 0
            return int(torch.cuda.max_memory_allocated(self.native_device)) - held
        return None

    def placements(self, out: Any) -> list[str | None]:
        found: list[str | None] = []
        for item in flatten(out):
            if isinstance(item, torch.Tensor):
                d = item.device
                if d.type == "cuda":
                    found.append(f"cuda:{d.index if d.index is not None else torch.cuda.current_device()}")
                elif d.type == "xla":
                    found.append(next((r["id"] for r in self.devices() if r.get("torch_device") == str(d)), str(d)))
                else:
                    found.append(str(d.type))
            else:
                found.append(None)
        return found


class CudaEventTimer:
    """Device time per call from CUDA events, as triton's do_bench measures
    it: before each call the L2 cache is flushed (a 256 MiB buffer zeroed)
    and the stream is given idle work (`torch.cuda._sleep`) lasting longer
    than the host needs to enqueue the call, so the device runs the call's
    kernels back to back and the events see device time only, not the
    host's launch cost. Spans are read after one synchronisation."""

    FLUSH_BYTES = 256 << 20

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.flush = torch.empty(self.FLUSH_BYTES, dtype=torch.int8, device=device)
        with torch.cuda.device(device):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(1000)
            start.record()
            torch.cuda._sleep(1_000_000)
            end.record()
            end.synchronize()
            self.cycles_per_ns = 1e6 / max(start.elapsed_time(end) * 1e6, 1.0)
            start.record()
            self.flush.zero_()
            end.record()
            end.synchronize()
            # what one device sample costs besides the call itself
            self.overhead_ns = start.elapsed_time(end) * 1e6

    def settle(self, fn: Any, wall_ns: float, max_ns: float) -> dict[str, Any]:
        """Calls back to back, in blocks of at least 2 ms of host time between
        two CUDA events, until a block's device time per call is within 2%
        of the block before, or `max_ns` has passed: the GPU's clocks and
        caches at steady state before the timed calls. Returns the facts:
        blocks and ms it took, each block's device time per call (ns: the
        steady-state time of calls that follow each other, no flush), and
        the SM clock (MHz) before and after where pynvml can read it."""
        n = max(1, math.ceil(2e6 / max(wall_ns, 1.0)))
        clock_before = _sm_clock_mhz(self.device)
        t0 = time.perf_counter_ns()
        per_block: list[float] = []
        while True:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(n):
                fn()
            end.record()
            end.synchronize()
            per_block.append(start.elapsed_time(end) * 1e6 / n)
            steady = len(per_block) >= 2 and abs(per_block[-1] / max(per_block[-2], 1e-9) - 1) <= 0.02
            if steady or time.perf_counter_ns() - t0 >= max_ns:
                break
        return {"blocks": len(per_block), "calls_per_block": n, "ms": (time.perf_counter_ns() - t0) / 1e6,
                "steady": steady, "block_ns": per_block,
                "sm_clock_mhz": [clock_before, _sm_clock_mhz(self.device)]}

    def time(self, fn: Any, n: int, enqueue_ns: float) -> list[float]:
        """n calls of fn, each queued behind a flush and idle device time
        1.5 times the host's enqueue time per call plus 20 µs; per-call
        device time in ns. A call that waits for the device inside (a
        synchronize, .item(), a host copy) returns only after the queued
        idle time, and its events would span the host's own work after the
        wait: then this raises, and the case has no device time."""
        backlog_ns = 1.5 * enqueue_ns + 20_000
        cycles = int(backlog_ns * self.cycles_per_ns)
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        host_ns = []
        for start, end in zip(starts, ends):
            self.flush.zero_()
            torch.cuda._sleep(cycles)
            start.record()
            t0 = time.perf_counter_ns()
            fn()
            host_ns.append(time.perf_counter_ns() - t0)
            end.record()
        torch.cuda.synchronize(self.device)
        if statistics.median(host_ns) > backlog_ns + self.overhead_ns / 2:
            raise RuntimeError("the call waits for the device (it synchronises), so device events "
                               "would time the host: no device time")
        return [start.elapsed_time(end) * 1e6 for start, end in zip(starts, ends)]


def _sm_clock_mhz(device: torch.device) -> int | None:
    """The SM clock now (torch.cuda.clock_rate, which needs pynvml), or None."""
    try:
        return int(torch.cuda.clock_rate(device))
    except Exception:  # no pynvml, no NVML: the engine's own NVML reading stands
        return None


def create() -> Adapter:
    return TorchAdapter()
