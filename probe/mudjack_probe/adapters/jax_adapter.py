"""JAX: cpu, cuda:N and tpu:N (a TPU chip's one name in every framework,
docs/design.md); compiler jax.jit.

JAX dispatches asynchronously and has no device-wide "wait for everything"
that covers computations, so the runner calls `block(out)` on the last output
of each timed block (executions on one device complete in order).
"""

from __future__ import annotations

import os

# Before jax is imported: a probe must not grab 75% of the GPU at start-up
# (several probes may share a card, and peak memory must mean the case's own).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import contextlib
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import UnsupportedDtype
from . import absent
from .base import Adapter, compile_cache_state, cpu_record, cuda_record, flatten

# Without x64 JAX silently turns float64/int64/complex128 into their 32-bit
# forms, and a "float64" case would test float32. The cost: Python scalars and
# jnp constructors without a dtype default to 64-bit, so case bodies name dtypes.
jax.config.update("jax_enable_x64", True)

_DTYPES: dict[str, Any] = {
    "float16": jnp.float16,
    "bfloat16": jnp.bfloat16,
    "float32": jnp.float32,
    "float64": jnp.float64,
    "complex64": jnp.complex64,
    "complex128": jnp.complex128,
    "int8": jnp.int8,
    "int16": jnp.int16,
    "int32": jnp.int32,
    "int64": jnp.int64,
    "uint8": jnp.uint8,
    "bool": jnp.bool_,
}


def _is_key(dtype: Any) -> bool:
    """A typed PRNG key array (jax.dtypes.prng_key, absent before JAX 0.4.16)."""
    key = getattr(jax.dtypes, "prng_key", None)
    return key is not None and bool(jnp.issubdtype(dtype, key))


def _gpus() -> list[Any]:
    try:
        return list(jax.devices("gpu"))
    except RuntimeError:  # no GPU backend in this jaxlib or on this machine
        return []


def _tpus() -> list[Any]:
    try:
        return [d for d in jax.devices() if str(d.platform).lower() == "tpu"]
    except RuntimeError:  # no backend at all beyond the CPU
        return []


def _backend_error(platform: str) -> str:
    """The first line of the error JAX kept when a backend failed to start
    (jax._src.xla_bridge._backend_errors, private: empty where absent)."""
    try:
        from jax._src import xla_bridge

        error = str(getattr(xla_bridge, "_backend_errors", {}).get(platform, ""))
    except Exception:  # another JAX layout: no reason from JAX itself
        return ""
    return error.strip().splitlines()[0][:300] if error.strip() else ""


def tpu_record(index: int, d: Any) -> dict[str, Any]:
    stats = d.memory_stats() or {}
    return {
        "id": f"tpu:{index}",
        "kind": "tpu",
        "vendor": "Google",
        "model": str(d.device_kind),
        "memory_bytes": int(stats.get("bytes_limit", 0)),
        "driver_version": "",
        "runtime_version": str(getattr(d.client, "platform_version", "")),
        "clocks": {},
        "platform": "TPU",
        "jax_device_id": int(d.id),
    }


# (hits, misses) of JAX's persistent compilation cache in this process,
# counted from its monitoring events (the cache lives under
# JAX_COMPILATION_CACHE_DIR, the build cache: models.compiler_caches).
_CACHE_COUNTS = [0, 0]


def _on_event(event: str, **kwargs: Any) -> None:
    if event == "/jax/compilation_cache/cache_hits":
        _CACHE_COUNTS[0] += 1
    elif event == "/jax/compilation_cache/cache_misses":
        _CACHE_COUNTS[1] += 1


class JaxAdapter(Adapter):
    name = "jax"

    def __init__(self) -> None:
        super().__init__()
        self.module = jax
        self.native_device = jax.devices("cpu")[0]
        self._devices: list[dict[str, Any]] | None = None
        self._peak_before: int | None = None
        self._cache_counts = (0, 0)
        with contextlib.suppress(Exception):  # no monitoring: no compile_cache facts
            jax.monitoring.register_event_listener(_on_event)

    def case_begin(self) -> None:
        self._cache_counts = (_CACHE_COUNTS[0], _CACHE_COUNTS[1])

    def case_facts(self) -> dict[str, Any]:
        """`compile_cache` (protocol 1.11): whether the case's compiles
        came from the persistent compilation cache (warm) or filled it (cold)."""
        state = compile_cache_state(self._cache_counts, (_CACHE_COUNTS[0], _CACHE_COUNTS[1]))
        return {"compile_cache": state} if state is not None else {}

    def version(self) -> str:
        return str(jax.__version__)

    def devices(self) -> list[dict[str, Any]]:
        if self._devices is None:
            records = [cpu_record()]
            for i, d in enumerate(_gpus()):
                stats = d.memory_stats() or {}
                # bytes_limit is what the allocator may use (a fraction of the card).
                records.append(
                    cuda_record(
                        i,
                        str(d.device_kind),
                        int(stats.get("bytes_limit", 0)),
                        str(getattr(d.client, "platform_version", "")),
                        {"jax_device_id": int(d.id)},
                    )
                )
            records.extend(tpu_record(i, d) for i, d in enumerate(_tpus()))
            self._devices = records
        return self._devices

    def accelerators_absent(self) -> list[str]:
        wanted: dict[str, str] = {}
        for dist, kind in (("jax-cuda13-plugin", "cuda"), ("jax-cuda12-plugin", "cuda"),
                           ("jax-rocm7-plugin", "rocm"), ("jax-rocm6-plugin", "rocm"), ("libtpu", "tpu")):
            version = absent.installed(dist)
            if version and kind not in wanted:
                wanted[kind] = f"{dist} {version} is installed"
        reasons = {}
        for kind, platform in (("cuda", "cuda"), ("rocm", "rocm"), ("tpu", "tpu")):
            error = _backend_error(platform)
            if error:
                reasons[kind] = lambda e=error, p=platform: f"JAX could not start its {p} backend: {e}"
        defaults = {"cuda": absent.nvidia_reason, "rocm": absent.amd_reason, "tpu": absent.tpu_reason}
        return absent.lines((d["kind"] for d in self.devices()), wanted, {**defaults, **reasons})

    def select(self, device_id: str) -> None:
        super().select(device_id)
        if device_id == "cpu":
            self.native_device = jax.devices("cpu")[0]
        elif device_id.startswith("tpu:"):
            self.native_device = _tpus()[int(device_id.split(":")[1])]
        else:
            self.native_device = _gpus()[int(device_id.split(":")[1])]

    @contextlib.contextmanager
    def scope(self, soft: bool = False) -> Iterator[None]:
        with jax.default_device(self.native_device):
            yield

    # -- data --------------------------------------------------------------
    def dtype(self, name: str) -> Any:
        if name not in _DTYPES:
            raise UnsupportedDtype(f"jax has no dtype {name}")
        return _DTYPES[name]

    def from_numpy(self, array: np.ndarray, dtype_name: str | None = None) -> Any:
        host = np.asarray(array)
        if dtype_name:
            host = host.astype(self.dtype(dtype_name))  # bfloat16 via ml_dtypes, on the host
        return jax.device_put(host, self.native_device)

    def float_kind(self, value: Any) -> str:
        if not isinstance(value, jax.Array) or _is_key(value.dtype):
            return ""
        if jnp.issubdtype(value.dtype, jnp.complexfloating):
            return "c"
        return "f" if jnp.issubdtype(value.dtype, jnp.floating) else ""

    def cast(self, value: Any, dtype_name: str) -> Any:
        return jax.device_put(jnp.asarray(value).astype(self.dtype(dtype_name)), self.native_device)

    @contextlib.contextmanager
    def strict_precision(self) -> Iterator[str]:
        # XLA:GPU runs float32 dots and convolutions in TF32 at the default
        # precision; XLA:CPU computes them in float32 whatever the setting.
        if self.device_id == "cpu" or jax.config.jax_default_matmul_precision in ("highest", "float32"):
            yield ""
            return
        with jax.default_matmul_precision("highest"):
            yield "jax.default_matmul_precision('highest')"

    def precision_matters(self, fn: Any, args: tuple[Any, ...]) -> bool:
        # The matmul precision reaches dots and convolutions only; a strict
        # run of anything else would only recompile it (about 80 ms a case on
        # an H100) to compute the same bits.
        try:
            closed = jax.make_jaxpr(fn)(*args)
        except Exception:  # not traceable as it stands: run it strictly to be sure
            return True
        return _has_precision_op(closed.jaxpr)

    def to_numpy(self, out: Any) -> list[tuple[np.ndarray, str]]:
        result = []
        for leaf in flatten(out):
            item = leaf
            if isinstance(item, jax.Array):
                if _is_key(item.dtype):
                    item = jax.random.key_data(item)
                arr = np.asarray(item)
                name = str(item.dtype)
                if arr.dtype.kind not in "biufc":  # bfloat16, float8: ml_dtypes types
                    arr = arr.astype(np.float32)
                result.append((arr, name))
            else:
                arr = np.asarray(item)
                result.append((arr, str(arr.dtype)))
        return result

    # -- execution ---------------------------------------------------------
    def sync(self) -> None:
        jax.effects_barrier()

    def block(self, out: Any) -> None:
        jax.block_until_ready(out)

    def compile(self, fn: Any) -> Any:
        return jax.jit(fn)

    def _peak(self) -> int | None:
        stats = self.native_device.memory_stats()
        if not stats or "peak_bytes_in_use" not in stats:
            return None
        return int(stats["peak_bytes_in_use"])

    def reset_peak_memory(self) -> None:
        self._peak_before = self._peak()

    def peak_device_bytes(self) -> int | None:
        # JAX cannot reset its peak counter. If this case raised the process's
        # high-water mark, the new mark is exactly this case's peak; otherwise
        # the case's peak is unknown (below an earlier case's) and we say None.
        peak = self._peak()
        if peak is None or self._peak_before is None or peak <= self._peak_before:
            return None
        return peak

    def placements(self, out: Any) -> list[str | None]:
        gpus = _gpus()
        found: list[str | None] = []
        for item in flatten(out):
            if not isinstance(item, jax.Array):
                found.append(None)
                continue
            devs = sorted(item.devices(), key=lambda d: d.id)
            if not devs:
                found.append(None)
                continue
            d = devs[0]
            if d.platform == "cpu":
                found.append("cpu")
                continue
            if str(d.platform).lower() == "tpu":
                found.append(next((f"tpu:{i}" for i, t in enumerate(_tpus()) if t == d), f"tpu:{d.id}"))
                continue
            found.append(next((f"cuda:{i}" for i, g in enumerate(gpus) if g == d), f"{d.platform}:{d.id}"))
        return found


_PRECISION_OPS = frozenset(("dot_general", "conv_general_dilated", "ragged_dot", "ragged_dot_general"))


def _has_precision_op(jaxpr: Any) -> bool:
    """Does the jaxpr, or any jaxpr nested in its equations' parameters
    (jit, scan, cond, custom derivatives), contain a dot or a convolution?"""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _PRECISION_OPS:
            return True
        for value in eqn.params.values():
            for inner in value if isinstance(value, (tuple, list)) else (value,):
                sub = getattr(inner, "jaxpr", inner)  # ClosedJaxpr -> Jaxpr
                if hasattr(sub, "eqns") and _has_precision_op(sub):
                    return True
    return False


def create() -> Adapter:
    return JaxAdapter()
