"""Reference checks shared by the tensorflow*.py case files (not a case file: its name starts with "_").

Pure Python at import time: numpy loads on first use, and tensorflow is never
imported here (bodies get it as `t.fw`). A reference check compares a case's
outputs with a host computation that does not use TensorFlow: NumPy/SciPy in
float64 (complex128), or an analytic answer. For float16 and bfloat16 the
float64 reference is first rounded to the case's dtype, which is what a
correctly rounded result is; the tolerances then allow about one unit in the
last place, so a result 1% off is seen in every dtype that can represent 1%.

Outputs and inputs reach checks as numpy arrays; bfloat16 arrives as float32
holding bfloat16 values (the adapter's to_numpy), so the inputs a reference
sees are the values the framework computed with.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from mudjack_probe.api import Ctx, as64, np  # np: numpy, loaded on first use (listing needs none)

Check = Callable[[list[Any], list[Any]], bool]

# (rtol, atol) of a result against its rounded float64 reference: about one
# unit in the last place of the dtype (float16: 2^-10, bfloat16: 2^-7), and an
# atol for values that round to (almost) zero. Cases whose error is relative to
# the magnitude of the terms (sums that cancel) pass their own atol.
TOL: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-6),
    "bfloat16": (8e-3, 1e-6),
    "float32": (1e-5, 1e-7),
    "float64": (1e-10, 1e-13),
    "complex64": (1e-5, 1e-7),
    "complex128": (1e-10, 1e-13),
}

# Unit roundoff of each dtype (half the distance from 1 to the next value).
UNIT = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53, "complex64": 2.0**-24, "complex128": 2.0**-53}

_ROUNDED = ("float16", "bfloat16", "float32", "complex64")


def module(name: str) -> Any:
    """A module imported when a check runs (scipy.special, scipy.fft)."""
    return importlib.import_module(name)


def numpy_dtype(name: str) -> Any:
    """The numpy dtype of a dtype name; bfloat16 through ml_dtypes (installed with TensorFlow
    since 2.12), else TensorFlow's own numpy bfloat16 type (2.11 and earlier)."""
    if name == "bfloat16":
        try:
            return module("ml_dtypes").bfloat16
        except ModuleNotFoundError:
            return module("tensorflow").bfloat16.as_numpy_dtype
    return np.dtype(name)




def rounded(x: Any, dtype: str) -> Any:
    """x (float64) rounded to `dtype` and widened back: what a correctly rounded result of that dtype holds.
    Integer and bool dtypes, and float64, leave x as it is."""
    x = np.asarray(x)
    if dtype not in _ROUNDED or x.dtype.kind not in "fc":
        return x
    if dtype == "complex64":
        return x.astype(np.complex64).astype(np.complex128)
    if x.dtype.kind == "c":
        x = x.real
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(numpy_dtype(dtype)).astype(np.float64)


def tol(dtype: str, got: Any = None) -> tuple[float, float]:
    """(rtol, atol) for a dtype name; for another name (an integer case with a float output), by the output."""
    if dtype in TOL:
        return TOL[dtype]
    if got is not None:
        kind = np.asarray(got).dtype
        if kind.kind == "c":
            return TOL["complex128" if kind.itemsize >= 16 else "complex64"]
        if kind.kind == "f":
            return TOL["float64" if kind.itemsize >= 8 else "float32"]
    return (0.0, 0.0)


def allclose(got: Any, expected: Any, rtol: float, atol: float) -> bool:
    """Same shape and close in float64 (NaN only where expected has NaN, inf equal to inf); complex values
    compare real and imaginary parts separately; integers, bools and strings exactly equal."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return False
    if got.dtype.kind in "SUO" or expected.dtype.kind in "SUO":
        return bool(np.array_equal(got, expected))
    if got.dtype.kind in "biu" and expected.dtype.kind in "biu":
        return bool(np.array_equal(got.astype(np.int64), expected.astype(np.int64)))
    g, e = as64(got), as64(expected)
    if g.dtype.kind == "c" or e.dtype.kind == "c":
        g, e = g.astype(np.complex128), e.astype(np.complex128)
        return _close(g.real, e.real, rtol, atol) and _close(g.imag, e.imag, rtol, atol)
    return _close(g, e, rtol, atol)


def _close(g: Any, e: Any, rtol: float, atol: float) -> bool:
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True))


def equal(got: Any, expected: Any) -> bool:
    """Same shape and the same values (NaN equals NaN; any numeric dtypes)."""
    return allclose(got, expected, 0.0, 0.0)


def near(
    dtype: str | Ctx,
    reference: Callable[..., Any],
    *,
    out: int = 0,
    rtol: float | None = None,
    atol: float | Callable[..., Any] | None = None,
    scale: float = 1.0,
) -> Check:
    """Check: output `out` is close to `reference(*inputs as float64)`, rounded to the case's dtype first.
    `scale` multiplies the dtype's tolerance (accumulations, ill-conditioned ops);
    `atol` may be a function of the inputs (an error bound that scales with the terms summed)."""
    name = dtype.dtype_name if isinstance(dtype, Ctx) else dtype

    def check(outs: list[Any], ins: list[Any]) -> bool:
        got = outs[out]
        wide = [as64(i) for i in ins]
        r, a = tol(name, got)
        r = (rtol if rtol is not None else r) * scale
        a = (atol(*wide) if callable(atol) else atol if atol is not None else a) * scale
        expected = rounded(reference(*wide), name)
        return allclose(got, expected, r, a)

    return check


def near_all(
    dtype: str | Ctx, reference: Callable[..., list[Any]], *, rtol: float | None = None, atol: float | None = None, scale: float = 1.0
) -> Check:
    """Check: every output is close to the matching array of `reference(*inputs)` (as `near`), and there
    are as many outputs as reference arrays."""
    name = dtype.dtype_name if isinstance(dtype, Ctx) else dtype

    def check(outs: list[Any], ins: list[Any]) -> bool:
        expected = reference(*[as64(i) for i in ins])
        if len(expected) != len(outs):
            return False
        for got, want in zip(outs, expected):
            r, a = tol(name, got)
            r = (rtol if rtol is not None else r) * scale
            a = (atol if atol is not None else a) * scale
            if not allclose(got, rounded(want, name), r, a):
                return False
        return True

    return check


def exact(reference: Callable[..., Any], *, out: int = 0, dtype: str | None = None) -> Check:
    """Check: output `out` equals `reference(*inputs as float64)` exactly (rounded to `dtype` first, if given)."""

    def check(outs: list[Any], ins: list[Any]) -> bool:
        expected = reference(*[as64(i) for i in ins])
        return equal(outs[out], rounded(expected, dtype) if dtype else expected)

    return check


def rel_error(reference: Callable[..., Any], bound: float, *, out: int = 0) -> Check:
    """Check: ||got - ref|| <= bound * ||ref|| over the whole output (2-norm), same shape, no NaN: for
    transforms whose error is relative to the signal's norm rather than to each element (FFT-based)."""

    def check(outs: list[Any], ins: list[Any]) -> bool:
        got, ref = as64(outs[out]), as64(reference(*[as64(i) for i in ins]))
        if got.shape != ref.shape:
            return False
        if ref.size == 0:
            return True
        err = float(np.linalg.norm((got - ref).ravel()))
        return bool(np.isfinite(err) and err <= bound * max(float(np.linalg.norm(ref.ravel())), 1e-300))

    return check


def unscaled(dtype: str | Ctx, reference: Callable[..., Any], *, atol: Callable[..., Any] | None = None, out: int = 0) -> Check:
    """Check: the output is not systematically scaled against `reference(*inputs)`: the least-squares gain
    g = <got, ref> / <ref, ref> is within u + 6 sigma of 1, u the dtype's unit roundoff (room for a biased
    rounding) and sigma what independent errors of at most `atol(*inputs)` per element (the elementwise
    bound) could move it. For half-precision results with many elements, whose elementwise bound is
    wider than 1% but whose rounding errors do not all lean one way."""
    name = dtype.dtype_name if isinstance(dtype, Ctx) else dtype
    u = UNIT.get(name, 0.0)

    def check(outs: list[Any], ins: list[Any]) -> bool:
        wide = [as64(i) for i in ins]
        got, ref = as64(outs[out]), as64(reference(*wide))
        if got.shape != ref.shape:
            return False
        bound = np.broadcast_to(atol(*wide) if atol is not None else 0.0, ref.shape)
        energy = float(np.sum(np.abs(ref) ** 2))
        if energy == 0.0:
            return True
        g = float(np.real(np.sum(got * np.conj(ref)))) / energy
        sigma = float(np.sqrt(np.sum((bound * np.abs(ref)) ** 2))) / energy
        return bool(np.isfinite(g) and abs(g - 1.0) <= u + 6.0 * sigma)

    return check


# TensorFlow's default graph-level seed (random_seed.DEFAULT_GRAPH_SEED): an op seed without a graph
# seed runs its kernel with seeds (DEFAULT_GRAPH_SEED, op seed).
DEFAULT_GRAPH_SEED = 87654321
_M32 = 0xFFFFFFFF


def _philox4x32(counters: Any, key: tuple[int, int], rounds: int = 10) -> Any:
    """Philox4x32-10 (Salmon et al., SC'11) on an (n, 4) array of 32-bit counter words: the generator
    TensorFlow's stateful random kernels draw from (philox_random.h, the same on CPU and GPU)."""
    c = counters.astype(np.uint64)
    mask = np.uint64(_M32)
    k0, k1 = np.uint64(key[0] & _M32), np.uint64(key[1] & _M32)
    for r in range(rounds):
        p0, p1 = np.uint64(0xD2511F53) * c[:, 0], np.uint64(0xCD9E8D57) * c[:, 2]
        c = np.stack([(p1 >> np.uint64(32)) ^ c[:, 1] ^ k0, p1 & mask, (p0 >> np.uint64(32)) ^ c[:, 3] ^ k1, p0 & mask], axis=1)
        if r < rounds - 1:
            k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
    return c.astype(np.uint32)


def _counters(starts: Any, seed2: int) -> Any:
    """(n, 4) Philox counter words for 64-bit group numbers `starts` (words 0, 1) and seed2 (words 2, 3)."""
    starts = np.asarray(starts, dtype=np.uint64)
    counters = np.zeros((starts.size, 4), np.uint64)
    counters[:, 0], counters[:, 1] = starts & np.uint64(_M32), starts >> np.uint64(32)
    counters[:, 2], counters[:, 3] = seed2 & _M32, (seed2 >> 32) & _M32
    return counters


def philox_normal(n: int, seed: int, seed2: int, offset: int = 0) -> Any:
    """The n float32 standard normals a RandomStandardNormal kernel with seeds (seed, seed2) draws when its
    Philox counter stands at group `offset` (0: a fresh kernel), in float64: Philox keyed by seed,
    counter (offset, seed2) advanced by one per group of four; each group's words (w0, w1), (w2, w3)
    become two normals by Box-Muller on the uniforms u = mantissa(w) in [0, 1) (the first clamped to
    1e-7): sqrt(-2 log u1) (sin, cos)(2 pi u2). Each call of the kernel moves the counter on by 256
    groups per output (GuardedPhiloxRandom::ReserveRandomOutputs)."""
    groups = -(-n // 4)
    bits = _philox4x32(_counters(offset + np.arange(groups, dtype=np.uint64), seed2), (seed & _M32, (seed >> 32) & _M32))

    def uniform(w: Any) -> Any:
        return (((w & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)).astype(np.float64)

    out = np.empty((groups, 4))
    for j in (0, 2):
        radius = np.sqrt(-2.0 * np.log(np.maximum(uniform(bits[:, j]), 1e-7)))
        angle = 2.0 * np.pi * uniform(bits[:, j + 1])
        out[:, j], out[:, j + 1] = radius * np.sin(angle), radius * np.cos(angle)
    return out.ravel()[:n]


def philox_normal_draw(first: float, n: int, seed: int, seed2: int, calls: int = 1 << 16) -> Any:
    """The normals of the kernel call, among its first `calls` calls of n outputs each, whose first value is
    `first` (an eager kernel with fixed seeds is cached and keeps its counter from call to call); None
    if no call starts with it."""
    starts = np.arange(calls, dtype=np.uint64) * np.uint64(256 * n)
    bits = _philox4x32(_counters(starts, seed2), (seed & _M32, (seed >> 32) & _M32))
    u1 = np.maximum((((bits[:, 0] & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)).astype(np.float64), 1e-7)
    u2 = (((bits[:, 1] & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)).astype(np.float64)
    heads = np.sqrt(-2.0 * np.log(u1)) * np.sin(2.0 * np.pi * u2)
    hits = np.flatnonzero(np.abs(heads - first) <= 1e-5 * max(1.0, abs(first)))
    return philox_normal(n, seed, seed2, int(starts[hits[0]])) if hits.size else None
