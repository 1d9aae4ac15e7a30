"""torch on XLA devices (torch_xla through PJRT): discovery, synchronisation
and the runtime's counters, for the torch adapter.

Device ids (docs/design.md, "device"): a TPU chip is `tpu:N` in every
framework (JAX names it the same), so JAX and torch_xla share one column per
chip. Where torch already reaches the physical device without XLA (the host
CPU as `cpu`, an NVIDIA GPU as `cuda:N`), the XLA path to it is a device of
its own, `xla:N`, with its PJRT platform in the record (`platform`: CPU,
CUDA) and shown as "xla:0 (PJRT CPU)". The record's `torch_device` is what
torch calls it (`xla:N`).

Facts per case (`case_facts`): the torch_xla counters that changed during the
case (`aten::NAME` counters count ops that had no XLA lowering and ran on the
host: the engine reads them as host fallback), and the compilations and
their time (`CompileTime`), split at the end of the case's first call (cold)
from those after it (warm calls that compiled again: recompilation).
"""

from __future__ import annotations

from typing import Any

import torch

try:  # absent unless the environment is the xla profile's
    import torch_xla
    import torch_xla.core.xla_model as xm
    import torch_xla.debug.metrics as met
    import torch_xla.runtime as xr
except ImportError:  # torch without torch_xla: no XLA devices
    torch_xla = None


def available() -> bool:
    return torch_xla is not None


def device_id(platform: str, index: int) -> str:
    """The engine's id for XLA device `index` on PJRT `platform`."""
    return f"tpu:{index}" if platform.upper() == "TPU" else f"xla:{index}"


def records(cpu: dict[str, Any]) -> list[dict[str, Any]]:
    """One record per local XLA device; `cpu` is the host's record (the PJRT
    CPU device is the host's cores, so it inherits their model and memory)."""
    if torch_xla is None:
        return []
    platform = str(xr.device_type() or "")
    out = []
    for index, dev in enumerate(_devices()):
        hw = str(xm.xla_device_hw(dev))
        rec: dict[str, Any] = {
            "id": device_id(hw, index),
            "kind": "tpu" if hw == "TPU" else "xla",
            "vendor": {"TPU": "Google", "CUDA": "NVIDIA"}.get(hw, cpu.get("vendor", "")),
            "model": _model(hw, index, cpu),
            "memory_bytes": _memory(dev, hw, cpu),
            "driver_version": "",
            "runtime_version": f"torch_xla {torch_xla.__version__}",
            "clocks": {},
            "platform": hw,
            "pjrt_device": platform,
            "torch_device": str(dev),
        }
        out.append(rec)
    return out


def _devices() -> list[Any]:
    devs = getattr(torch_xla, "devices", None)
    if callable(devs):
        return list(devs())
    return [torch.device(f"xla:{i}") for i in range(xr.addressable_runtime_device_count())]


def _model(hw: str, index: int, cpu: dict[str, Any]) -> str:
    if hw == "CPU":
        return f"PJRT CPU ({cpu.get('model', '')})"
    try:
        kind = xr.global_runtime_device_attributes()[index].get("device_kind", "")
    except Exception:  # not every PJRT plugin reports attributes
        kind = ""
    return str(kind or f"PJRT {hw}")


def _memory(dev: Any, hw: str, cpu: dict[str, Any]) -> int:
    if hw == "CPU":
        return int(cpu.get("memory_bytes", 0))
    try:
        return int(xm.get_memory_info(dev).get("bytes_limit", 0))
    except Exception:  # no memory info on this plugin
        return 0


def sync() -> None:
    """Run the pending graph and wait for the device: the XLA
    synchronisation a timed block ends on."""
    torch_xla.sync()
    xm.wait_device_ops()


class Counters:
    """The runtime's counters and compile metrics over one case."""

    def __init__(self) -> None:
        self.start: dict[str, int] = {}
        self.start_compiles = (0, 0)
        self.after_first: tuple[int, int] | None = None

    def begin(self) -> None:
        self.start = snapshot()
        self.start_compiles = compiles()
        self.after_first = None

    def first_call_done(self) -> None:
        if self.after_first is None:
            self.after_first = compiles()

    def facts(self) -> dict[str, Any]:
        now = snapshot()
        changed = {k: v - self.start.get(k, 0) for k, v in now.items() if v != self.start.get(k, 0)}
        count, total_ns = compiles()
        cold = self.after_first or (count, total_ns)
        return {"xla": {
            "counters": changed,
            "compiles": count - self.start_compiles[0],
            "compile_ns": total_ns - self.start_compiles[1],
            "cold_compiles": cold[0] - self.start_compiles[0],
            "warm_compiles": count - cold[0],
        }}


def snapshot() -> dict[str, int]:
    values: dict[str, int] = {}
    for name in met.counter_names():
        value = met.counter_value(name)
        if value is not None:
            values[str(name)] = int(value)
    return values


def compiles() -> tuple[int, int]:
    """(graphs compiled, nanoseconds spent compiling) so far in this process."""
    data = met.metric_data("CompileTime")
    if not data:
        return (0, 0)
    return (int(data[0]), int(data[1]))
