"""Helpers shared by the jax*.py case files (not a case file: its name starts with "_").

Pure Python at import time: numpy loads on first use, and jax is never
imported here (bodies get it as `t.fw`). Checks (`near`, `allclose`) compare
outputs with NumPy/SciPy references computed in float64 on the host.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from mudjack_probe.api import FLOATS, WIDE, Ctx, as64, np  # np: numpy, loaded on first use (listing needs none)

INEXACT = [*FLOATS, "complex64"]
BOTH = ["eager", "compiled"]
INTEGERS = ("int8", "uint8", "int16", "int32", "int64")


def is_integer(name: str) -> bool:
    """An integer grid dtype (signed or unsigned; not bool)."""
    return name in INTEGERS


def exact_kind(name: str) -> bool:
    """An integer or bool grid dtype: values compared exactly."""
    return name in INTEGERS or name == "bool"


def f64(a: Any) -> Any:
    """A host reference's input as float64 when it is integer or bool (NumPy
    would compute exp/sin/... of int8 in float16, of bool in float16), complex
    and floating values as `as64` gives them."""
    a = as64(a)
    return a.astype(np.float64) if a.dtype.kind in "biu" else a

# The `axis` parameter of reductions and indexing cases, by its token in the case id.
AXES: dict[str, Any] = {"none": None, "0": 0, "1": 1, "01": (0, 1)}

# Checks: (rtol, atol) of a result against the float64 NumPy/SciPy reference.
# float16 and bfloat16 are not compared with these by default: see HALF_ULPS.
_CHECK_TOL = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
    "float32": (2e-5, 1e-5),
    "float64": (1e-10, 1e-12),
    "complex64": (2e-5, 1e-5),
    "complex128": (1e-10, 1e-12),
}

# Half-precision results are compared in units in the last place of the
# correctly rounded reference: JAX computes float16/bfloat16 elementwise ops
# and reductions in float32 and rounds once, so a right answer is within one
# rounding (a tie, or float32's own error, can tip it to the neighbour). An
# eager chain of half-precision ops rounds every intermediate: such a case
# passes `terms=`, the magnitudes of those intermediates, and each may be off
# by HALF_U of its size. The planted x(1+1e-2) is 10-20 float16 ulps but only
# 1-2 bfloat16 ulps: a bfloat16 tolerance of 2 ulps or more cannot see it.
# (The jax adapter hands bfloat16 outputs to the checks as float32 arrays.)
HALF_ULPS = {"float16": 2.0, "bfloat16": 1.0}
HALF_U = {"float16": 2.0**-11, "bfloat16": 2.0**-8}


def host_data(t: Ctx, shape: Any = None, kind: str = "randn", dtype: str | None = None) -> Any:
    """Host data as the adapter makes it (bfloat16 comes back as float32)."""
    from mudjack_probe.adapters.base import host_values

    return host_values(tuple(t.shape if shape is None else shape), dtype or t.dtype_name, kind, t._next_seed())


def put(t: Ctx, array: Any, dtype: str | None = None) -> Any:
    """A host array on the device, cast to `dtype` (default: the case's) on the host;
    when the body builds the widened reference (`Ctx(widen=True)`), a floating or
    complex one is then widened, as `t.randn` does."""
    name = dtype or t.dtype_name
    value = t.adapter.from_numpy(np.asarray(array), name)
    if getattr(t, "widen", False) and name in WIDE:
        value = t.adapter.cast(value, WIDE[name])
    return value


def uniform(t: Ctx, low: float, high: float, shape: Any = None, dtype: str | None = None) -> Any:
    """Uniform values in [low, high) on the device (complex: that modulus, a random phase)."""
    x = t.numpy_rng().uniform(low, high, size=tuple(t.shape if shape is None else shape))
    d = dtype or t.dtype_name
    if d.startswith("complex"):
        x = x * np.exp(1j * t.numpy_rng().uniform(-np.pi, np.pi, size=x.shape))
    return put(t, x, d)




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


def within_ulps(got: Any, expected: Any, half: Any, ulps: float, slack: Any = 0.0) -> bool:
    """Same shape; each value within `ulps` units in the last place (of the
    half dtype `half`) of the expected value rounded to `half`, plus `slack`
    (absolute, broadcast); infinities and NaN must match exactly. Integer and
    bool outputs must be equal."""
    got = np.asarray(got)
    if got.dtype.kind not in "fc":
        return allclose(got, expected, 0.0, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.asarray(expected).astype(half)
        spacing = np.abs(np.spacing(want).astype(np.float64))
    if got.shape != want.shape:
        return False
    g, w = as64(got), as64(want)
    same = (g == w) | (np.isnan(g) & np.isnan(w))
    close = np.isfinite(w) & (np.abs(g - w) <= ulps * spacing + slack)
    return bool(np.all(same | close))


def matches(t: Ctx, got: Any, expected: Any, *, rtol: float | None = None, atol: float | None = None,
            scale: float = 1.0, ulps: float | None = None, terms: Any = None) -> bool:
    """`got` against a host float64 `expected` under the case dtype's tolerance:
    float16/bfloat16 within `ulps` (default HALF_ULPS) of the correctly rounded
    value plus HALF_U * `terms` (see HALF_ULPS) unless rtol/atol are given;
    other dtypes allclose with the dtype's (rtol, atol) times `scale`."""
    name = t.dtype_name
    expected = np.asarray(expected)
    g = np.asarray(got)
    if name in HALF_ULPS and rtol is None and atol is None and g.dtype.kind == "f" and g.dtype.itemsize <= 4:
        slack = 0.0 if terms is None else HALF_U[name] * np.asarray(terms, dtype=np.float64)
        return within_ulps(g, expected, t.dtype, HALF_ULPS[name] if ulps is None else ulps, slack)
    r, a = _tol_for(name, got)
    r = (rtol if rtol is not None else r) * scale
    a = (atol if atol is not None else a) * scale
    if name in ("float16", "bfloat16") and expected.dtype.kind == "f":
        # what a correctly rounded half result is (overflow to inf included)
        with np.errstate(over="ignore"):
            expected = expected.astype(t.dtype).astype(np.float64)
    return allclose(got, expected, r, a)


def near(
    t: Ctx, reference: Callable[..., Any], *, out: int = 0, rtol: float | None = None, atol: float | None = None,
    scale: float = 1.0, ulps: float | None = None, terms: Callable[..., Any] | None = None,
) -> Callable[[list[Any], list[Any]], bool]:
    """Check: output `out` is close to reference(*inputs as float64 numpy) (see `matches`).

    `scale` multiplies the float32/float64/complex tolerance (accumulations,
    ill-conditioned ops); `ulps` and `terms(*inputs)` set the half-precision one."""

    def check(outs: list[Any], ins: list[Any]) -> bool:
        args = [as64(i) for i in ins]
        expected = np.asarray(reference(*args))
        return matches(t, outs[out], expected, rtol=rtol, atol=atol, scale=scale, ulps=ulps,
                       terms=None if terms is None else terms(*args))

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
