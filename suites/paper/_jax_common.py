"""Helpers shared by the jax*.py case files (not a case file: its name starts with "_").

Pure Python at import time: numpy loads on first use, and jax is never
imported here (bodies get it as `t.fw`). Checks (`near`, `allclose`) compare
outputs with NumPy/SciPy references computed in float64 on the host.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from mudjack_probe.api import FLOATS, Ctx, np  # np: numpy, loaded on first use (listing needs none)

INEXACT = [*FLOATS, "complex64"]
BOTH = ["eager", "compiled"]

# The `axis` parameter of reductions and indexing cases, by its token in the case id.
AXES: dict[str, Any] = {"none": None, "0": 0, "1": 1, "01": (0, 1)}

# Checks: (rtol, atol) of a result against the float64 NumPy/SciPy reference.
_CHECK_TOL = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
    "float32": (2e-5, 1e-5),
    "float64": (1e-10, 1e-12),
    "complex64": (2e-5, 1e-5),
    "complex128": (1e-10, 1e-12),
}


def host_data(t: Ctx, shape: Any = None, kind: str = "randn", dtype: str | None = None) -> Any:
    """Host data as the adapter makes it (bfloat16 comes back as float32)."""
    from mudjack_probe.adapters.base import host_values

    return host_values(tuple(t.shape if shape is None else shape), dtype or t.dtype_name, kind, t._next_seed())


def put(t: Ctx, array: Any, dtype: str | None = None) -> Any:
    """A host array on the device, cast to `dtype` (default: the case's) on the host."""
    return t.adapter.from_numpy(np.asarray(array), dtype or t.dtype_name)


def uniform(t: Ctx, low: float, high: float, shape: Any = None, dtype: str | None = None) -> Any:
    """Uniform values in [low, high) on the device (complex: that modulus, a random phase)."""
    x = t.numpy_rng().uniform(low, high, size=tuple(t.shape if shape is None else shape))
    d = dtype or t.dtype_name
    if d.startswith("complex"):
        x = x * np.exp(1j * t.numpy_rng().uniform(-np.pi, np.pi, size=x.shape))
    return put(t, x, d)


def as64(x: Any) -> Any:
    """x as a numpy array, floats widened to float64 and complex to complex128."""
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return x.astype(np.float64)
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    return x


def _tol_for(dtype_name: str, got: Any) -> tuple[float, float]:
    if dtype_name in _CHECK_TOL:
        return _CHECK_TOL[dtype_name]
    kind = np.asarray(got).dtype
    if kind.kind in "fc":  # an integer case with a float output (log of int32)
        return _CHECK_TOL["float64" if kind.itemsize >= 8 and kind.kind == "f" else "float32"]
    return (0.0, 0.0)


def allclose(got: Any, expected: Any, rtol: float, atol: float) -> bool:
    """Same shape and close in float64 (NaN equals NaN); integers and bools exactly equal."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        return False
    if got.dtype.kind in "biu" and expected.dtype.kind in "biu":
        return bool(np.array_equal(got.astype(np.int64), expected.astype(np.int64)))
    if got.dtype.kind == "b" or expected.dtype.kind == "b":
        return bool(np.array_equal(got.astype(bool), expected.astype(bool)))
    return bool(np.allclose(as64(got), as64(expected), rtol=rtol, atol=atol, equal_nan=True))


def near(
    t: Ctx, reference: Callable[..., Any], *, out: int = 0, rtol: float | None = None, atol: float | None = None, scale: float = 1.0
) -> Callable[[list[Any], list[Any]], bool]:
    """Check: output `out` is close to reference(*inputs as float64 numpy).

    `scale` multiplies the dtype's tolerance (accumulations, ill-conditioned ops)."""
    name = t.dtype_name

    def check(outs: list[Any], ins: list[Any]) -> bool:
        got = outs[out]
        r, a = _tol_for(name, got)
        r = (rtol if rtol is not None else r) * scale
        a = (atol if atol is not None else a) * scale
        expected = np.asarray(reference(*[as64(i) for i in ins]))
        if name in ("float16", "bfloat16") and expected.dtype.kind == "f":
            # what a correctly rounded half result is (overflow to inf included)
            with np.errstate(over="ignore"):
                expected = expected.astype(t.dtype).astype(np.float64)
        return allclose(got, expected, r, a)

    return check


def maybe_t(t: Ctx, f: Callable[..., Any]) -> Callable[..., Any]:
    """Apply f to a.T for the "transposed" shape."""
    if t.case.shape_name == "transposed":
        return lambda *args: f(*[a.T for a in args])
    return f


def ref_t(t: Ctx, ref: Callable[..., Any]) -> Callable[..., Any]:
    """The reference of `maybe_t(t, f)`: ref applied to the transposed inputs for "transposed"."""
    if t.case.shape_name == "transposed":
        return lambda *args: ref(*[a.T for a in args])
    return ref


def load_module(name: str) -> Any:
    """A module imported when a body or check runs (scipy.special, jax.scipy.special)."""
    return importlib.import_module(name)
