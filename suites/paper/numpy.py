"""NumPy reference cases beside the paper's lists: equivalents of a few of the
paper's functions, so the numpy adapter (the reference implementation when
frameworks are compared with each other) runs end to end. NumPy has no
bfloat16 and no compiler, so every case is eager and bfloat16 is absent.

NumPy is the framework under test here, so a check that recomputes the op
with NumPy would be a tautology. The references are independent of it: sums
are `math.fsum` (exactly rounded) and Python integer sums; argsort is
Python's own stable sort; singular values are located by a float64
Golub-Kahan bidiagonalisation written here (Householder reflectors) and
Sturm-sequence counts on its tridiagonal form (no LAPACK).
"""

from __future__ import annotations

import math
from typing import Any

from mudjack_probe.api import LARGE, Cases, Ctx, np  # np: numpy, loaded on first use (listing needs none)

cases = Cases("numpy")

SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "transposed": (48, 64), "large": (LARGE,)}

# Unit roundoff of each dtype (half its machine epsilon).
_U = {"float16": 2.0**-11, "float32": 2.0**-24, "float64": 2.0**-53, "complex64": 2.0**-24, "complex128": 2.0**-53}


def _input(t: Ctx) -> np.ndarray:
    if t.case.shape_name == "transposed":
        return t.randn(tuple(reversed(t.shape))).T  # a strided view, as in the torch cases
    return t.randn()


def _rows(x: np.ndarray, axis: int | None) -> list[np.ndarray]:
    """The 1-D runs the sum reduces: each row for axis=1 of a 2-D array, else everything."""
    if axis is None:
        return [x.reshape(-1)]
    return [x[i] for i in range(x.shape[0])]


def _sum_reference(t: Ctx, axis: int | None):
    """numpy.sum against math.fsum (floats: the exactly rounded sum; complex:
    real and imaginary parts apart) and Python's exact integer sum (ints and
    bools: numpy sums them in int64; no input here comes near overflow).

    Float tolerance: |got - S| <= 2u|S| + c u_acc sum|x|: the output's own
    rounding, plus the accumulation's. Along the contiguous axis numpy sums
    pairwise (float16 in float32 intermediates): c u_acc = 8 * 2**-24. The
    "transposed" case reduces a strided axis: 48 terms added one by one in
    the dtype itself: c u_acc = 4u (measured: about 1.3u for float16)."""
    name = t.dtype_name
    strided = t.case.shape_name == "transposed"

    def check(outs: list[Any], ins: list[Any]) -> bool:
        got, x = np.asarray(outs[0]), ins[0]
        rows = _rows(x, axis)
        if got.shape != (() if axis is None else (len(rows),)):
            return False
        flat = got.reshape(-1).tolist()
        if name == "bool" or name.startswith(("int", "uint")):
            if got.dtype.kind not in "iu":
                return False
            return all(g == sum(int(v) for v in row.tolist()) for g, row in zip(flat, rows))
        u = _U[name]
        slack = 4 * u if strided else 8 * 2.0**-24
        for g, row in zip(flat, rows):
            values = row.tolist()
            parts = [(complex(g).real, [complex(v).real for v in values]), (complex(g).imag, [complex(v).imag for v in values])]
            if not name.startswith("complex"):
                parts = parts[:1]
            for got_part, terms in parts:
                exact = math.fsum(terms)
                bound = 2 * u * abs(exact) + slack * math.fsum(abs(v) for v in terms)
                if not abs(got_part - exact) <= bound:  # NaN fails
                    return False
        return True

    return check


@cases.case(
    "numpy.sum",
    dtype=["float16", "float32", "float64", "complex64", "int32", "int64", "bool"],
    shape=SHAPES,
    grid="small",
    reduction=lambda dims, p: dims[1] if len(dims) == 2 else max(1, dims[0] if dims else 1),
    note="equivalent of torch.sum / jax.numpy.sum; transposed: sum over axis 1 of a transposed view. The grid's "
    "int8/uint8/int16 sum in numpy's default integer (no overflow); bfloat16: numpy has none (fails)",
)
def sum_(t: Ctx):
    xp = t.fw
    axis = 1 if t.case.shape_name == "transposed" else None
    return t.call(lambda a: xp.sum(a, axis=axis), _input(t)).reference(
        "math.fsum / Python int sum, within the rounding of the sum", _sum_reference(t, axis)
    )


def _stable_argsort_reference(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    """Python's sorted (a stable Timsort) of the indices by value, row by row:
    kind='stable' has exactly one right answer, ties in input order."""
    idx, x = np.asarray(outs[0]), ins[0]
    if x.ndim == 0:  # torch keeps 0-d, numpy returns shape (1,): both mean "index 0"
        return idx.size == 1 and int(idx.ravel()[0]) == 0
    if idx.shape != x.shape or idx.dtype.kind not in "iu":
        return False
    if x.size == 0:
        return True
    rows = zip(idx.reshape(-1, x.shape[-1]).tolist(), x.reshape(-1, x.shape[-1]).tolist())
    if x.dtype.kind == "c":  # numpy orders complex lexicographically: real part, then imaginary part
        return all(got == sorted(range(len(values)), key=lambda k, v=values: (v[k].real, v[k].imag)) for got, values in rows)
    return all(got == sorted(range(len(values)), key=values.__getitem__) for got, values in rows)


@cases.case(
    "numpy.argsort",
    dtype=["float16", "float32", "float64", "int32", "int64", "bool"],
    shape=SHAPES,
    grid="small",
    note="equivalent of torch.argsort; kind='stable', so ties have one right answer (complex: lexicographic "
    "order, as numpy sorts them)",
)
def argsort(t: Ctx):
    xp = t.fw
    return t.call(lambda a: xp.argsort(a, axis=-1, kind="stable"), _input(t)).reference(
        "Python's stable sorted(range(n), key=x), row by row", _stable_argsort_reference
    )


def _bidiagonal(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Golub-Kahan bidiagonalisation by Householder reflectors, float64,
    m >= n: the diagonal d and superdiagonal e of B with the singular values of a."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[1]
    d, e = np.zeros(n), np.zeros(max(n - 1, 0))

    def reflect(x: np.ndarray) -> tuple[np.ndarray, float, float]:
        norm = math.sqrt(math.fsum((x * x).tolist()))
        alpha = -math.copysign(norm, x[0]) if norm else 0.0
        v = x.copy()
        v[0] -= alpha
        return v, float(v @ v), alpha

    for k in range(n):
        v, vv, alpha = reflect(a[k:, k])
        if vv > 0:
            a[k:, k:] -= np.outer(v, (2.0 / vv) * (v @ a[k:, k:]))
        d[k] = alpha
        if k < n - 1:
            v, vv, alpha = reflect(a[k, k + 1:])
            if vv > 0:
                a[k:, k + 1:] -= np.outer((2.0 / vv) * (a[k:, k + 1:] @ v), v)
            e[k] = alpha
    return d, e


def _count_below(d: np.ndarray, e: np.ndarray, x: np.ndarray) -> np.ndarray:
    """How many singular values of the bidiagonal (d, e) lie below each x > 0:
    Sturm counts of the Golub-Kahan tridiagonal (zero diagonal, off-diagonal
    d0, e0, d1, e1, ...), whose eigenvalues are +-sigma; n of them are negative."""
    off = np.empty(2 * len(d) - 1)
    off[0::2], off[1::2] = d, e
    tiny = np.finfo(np.float64).tiny
    q = -x.astype(np.float64)
    negative = (q < 0).astype(np.int64)
    for b in off:
        q = np.where(q == 0, -tiny, q)
        q = -x - (b * b) / q
        negative += q < 0
    return negative - len(d)


def _singular_values_reference(name: str):
    """Each output sigma_i (descending) is within rtol sigma_i + atol sigma_max
    of the i-th largest singular value of the input, located by Sturm counts
    of a float64 bidiagonalisation (no LAPACK; complex input as its real
    embedding [[Re, -Im], [Im, Re]], whose singular values come in pairs).
    Tolerance: float32/complex64 64u (measured: under 1u sigma_max);
    float64 1e-12 (numpy's and this bidiagonalisation's own rounding)."""
    tol = {"float64": 1e-12, "complex128": 1e-12}.get(name, 64 * 2.0**-24)
    cache: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def check(outs: list[Any], ins: list[Any]) -> bool:
        a = np.asarray(ins[0])
        s = np.asarray(outs[0]).astype(np.float64)
        k = min(a.shape)
        if s.shape != (k,) or not np.all(np.isfinite(s)) or np.any(s < 0) or np.any(np.diff(s) > 0):
            return False
        key = a.tobytes()
        if key not in cache:
            real = np.block([[a.real, -a.imag], [a.imag, a.real]]) if a.dtype.kind == "c" else a
            real = real.astype(np.float64)
            cache.clear()
            cache[key] = _bidiagonal(real if real.shape[0] >= real.shape[1] else real.T)
        d, e = cache[key]
        if a.dtype.kind == "c":
            s = np.repeat(s, 2)
        n = len(d)
        slack = tol * s + tol * s[0]
        below_lo = _count_below(d, e, np.maximum(s - slack, 1e-300))
        at_most_hi = _count_below(d, e, s + slack)
        i = np.arange(n)
        return bool(np.all(below_lo <= n - 1 - i) and np.all(at_most_hi >= n - i))

    return check


@cases.case(
    "numpy.linalg.svd",
    dtype=["float32", "float64", "complex64"],
    shape={"small": (32, 16), "large": (512, 512)},
    where=lambda d, s, m, p: not (d == "complex64" and s == "large"),  # ~0.6 s a call on CPU: too slow to repeat
    grid="small",
    note="equivalent of jax.numpy.linalg.svd / tf.linalg.svd: singular values only. numpy.linalg takes integer "
    "and bool matrices as float64; float16 it refuses (and has no bfloat16)",
)
def svd(t: Ctx):
    xp = t.fw
    return t.call(lambda a: xp.linalg.svd(a, compute_uv=False), t.randn()).reference(
        "Sturm counts of a float64 Householder bidiagonalisation bracket each value", _singular_values_reference(t.dtype_name)
    )
