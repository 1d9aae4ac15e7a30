"""Why an accelerator a framework's build targets is absent here (protocol
1.10, `accelerators_absent` in `hello`): a torch CUDA wheel on a machine
without an NVIDIA driver, libtpu installed on a host without TPU chips, and
the like. The adapter then lists only what it reaches (`cpu`, and `xla:0` on
the PJRT CPU device), and `mudjack devices` and `doctor` print these lines,
so a pod that lost its accelerator says so instead of quietly testing its
CPU. One line per accelerator kind, "<kind>: <reason>".

The checks read only the machine: device nodes, whether the driver's library
loads, which accelerator packages are installed. Each takes the facts as
arguments with the real ones as defaults, so tests can fake a machine.
"""

from __future__ import annotations

import ctypes
import glob
import importlib.metadata
from collections.abc import Callable, Iterable


def installed(distribution: str) -> str | None:
    """The installed version of a distribution (libtpu, jax-cuda13-plugin), or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _load_library(name: str) -> str | None:
    """None when the shared library loads; else the loader's message."""
    try:
        ctypes.CDLL(name)
        return None
    except OSError as exc:
        return str(exc)


def nvidia_reason(nodes: Callable[[str], list[str]] = glob.glob,
                  load: Callable[[str], str | None] = _load_library) -> str:
    """Why no NVIDIA GPU is usable: the driver's library or its device nodes."""
    failed = load("libcuda.so.1")
    if failed is not None:
        return f"the NVIDIA driver is not here ({failed})"
    if not nodes("/dev/nvidia[0-9]*"):
        return "the NVIDIA driver loads, but there is no GPU device node (/dev/nvidia0, ...)"
    return "the NVIDIA driver and device nodes are here, yet the framework sees no GPU"


def amd_reason(nodes: Callable[[str], list[str]] = glob.glob) -> str:
    """Why no AMD GPU is usable: the ROCm kernel driver's device nodes."""
    if not nodes("/dev/kfd"):
        return "the amdgpu kernel driver is not here (no /dev/kfd)"
    if not nodes("/dev/dri/renderD*"):
        return "/dev/kfd is here but no GPU render node (/dev/dri/renderD*)"
    return "the ROCm device nodes are here, yet the framework sees no GPU"


def tpu_nodes(nodes: Callable[[str], list[str]] = glob.glob) -> bool:
    """Whether this host has TPU device nodes: TPU VMs expose chips as
    /dev/accel* (v2 to v4) or as VFIO groups /dev/vfio/N (v5e, v5p, v6e)."""
    return bool(nodes("/dev/accel*") or [n for n in nodes("/dev/vfio/*") if not n.endswith("/vfio")])


def tpu_reason(nodes: Callable[[str], list[str]] = glob.glob) -> str:
    """Why no TPU chip is usable."""
    if not tpu_nodes(nodes):
        return "no TPU chip on this host (no /dev/accel* or /dev/vfio/N device)"
    return "TPU device nodes are here, yet the framework found no TPU chip"


def lines(kinds_seen: Iterable[str], wanted: dict[str, str],
          reasons: dict[str, Callable[[], str]] | None = None) -> list[str]:
    """One line per accelerator kind the build targets (`wanted`: kind ->
    what says so, e.g. "torch 2.11.0 is a CUDA 13.0 build") that no listed
    device has (`kinds_seen`: the records' kinds)."""
    reasons = reasons or {"cuda": nvidia_reason, "rocm": amd_reason, "tpu": tpu_reason}
    seen = set(kinds_seen)
    out = []
    for kind, why_wanted in wanted.items():
        # AMD GPUs are listed as cuda:N (torch and JAX reach them through
        # their CUDA-style APIs).
        if {"rocm": "cuda"}.get(kind, kind) in seen:
            continue
        reason = reasons.get(kind)
        out.append(f"{kind}: {why_wanted}, but {reason() if reason else 'none is visible'}")
    return out
