"""The paper's JAX functions: all 61 names of catalog/paper_jax.txt, as listed.

Each function is called the ways JAX's own tests vary it (tests/lax_numpy_test.py,
lax_numpy_reducers_test.py, lax_test.py, lax_scipy_test.py, api_test.py,
tree_util_test.py, pmap_test.py): dtypes (float16, bfloat16, float32, float64 --
the adapter enables x64 --, complex64, int32/int64, bool where the function is
defined for them), 0-d, empty, "transposed" and large (<= 4M elements) shapes,
the parameters that pick another kernel or path (axis, keepdims, where, mode,
k, precision...), eager and under jax.jit (mode "compiled").

Conventions of this file:
- JAX arrays have no strided views. The "transposed" shape is an input whose
  op is applied to `a.T` inside the timed function: under jit XLA folds the
  transpose into the consumer (another layout), eagerly it is materialised first.
- Outputs that are Python objects (ints, bools, jaxprs, avals, paths) are
  turned into small int arrays with jnp.asarray inside the timed function, so
  they land on the target device and compare across devices.
- Property checks compare with NumPy / SciPy in float64 on the host (JAX's
  tests' _CheckAgainstNumpy), so a CPU-only run checks values too.
- Internal names (jax._src.*, jax.core.*) are resolved in the case body. Cases
  with api=listed test the listed name (the paper's typo corrected) and are
  `unavailable` where it no longer exists; cases with api=successor test the
  documented public successor.
Importing this file must not import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import np  # numpy loads on first use: listing needs none

from mudjack_probe.api import Cases, Ctx

cases = Cases("jax")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INEXACT = FLOATS + ["complex64"]
COMMON = INEXACT + ["int32", "int64", "bool"]
BOTH = ["eager", "compiled"]
LARGE = 1 << 20

# Elementwise shapes: "transposed" is applied to a.T (see the module docstring).
EW_SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)}

# Relative tolerances for reductions and accumulations (the case's rtol; the
# engine's per-dtype default is kept for dtypes not named).
RED_RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-10, "complex64": 1e-5}


# --------------------------------------------------------------------------
# helpers (pure Python at import time; numpy and jax only inside functions)
# --------------------------------------------------------------------------


# cases.case takes rtol/atol per dtype ({dtype: value}) itself.
case = cases.case


def _host(t: Ctx, shape=None, kind: str = "randn", dtype: str | None = None):
    """Host data as the adapter makes it (bfloat16 comes back as float32)."""
    from mudjack_probe.adapters.base import host_values

    return host_values(tuple(t.shape if shape is None else shape), dtype or t.dtype_name, kind, t._next_seed())


def _put(t: Ctx, array, dtype: str | None = None):
    """A host array on the device, cast to `dtype` (default: the case's) on the host."""
    return t.adapter.from_numpy(np.asarray(array), dtype or t.dtype_name)


def _uniform(t: Ctx, low: float, high: float, shape=None, dtype: str | None = None):
    x = t.numpy_rng().uniform(low, high, size=tuple(t.shape if shape is None else shape))
    d = dtype or t.dtype_name
    if d.startswith("complex"):
        x = x * np.exp(1j * t.numpy_rng().uniform(-np.pi, np.pi, size=x.shape))
    return _put(t, x, d)


_CHECK_TOL = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
    "float32": (2e-5, 1e-5),
    "float64": (1e-10, 1e-12),
    "complex64": (2e-5, 1e-5),
    "complex128": (1e-10, 1e-12),
}


def _as64(x):
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return x.astype(np.float64)
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    return x


def _tol_for(dtype_name: str, got) -> tuple[float, float]:
    if dtype_name in _CHECK_TOL:
        return _CHECK_TOL[dtype_name]
    kind = np.asarray(got).dtype
    if kind.kind in "fc":  # an integer case with a float output (log of int32)
        return _CHECK_TOL["float64" if kind.itemsize >= 8 and kind.kind == "f" else "float32"]
    return (0.0, 0.0)


def _allclose(got, expected, rtol: float, atol: float) -> bool:
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        return False
    if got.dtype.kind in "biu" and expected.dtype.kind in "biu":
        return bool(np.array_equal(got.astype(np.int64), expected.astype(np.int64)))
    if got.dtype.kind == "b" or expected.dtype.kind == "b":
        return bool(np.array_equal(got.astype(bool), expected.astype(bool)))
    return bool(np.allclose(_as64(got), _as64(expected), rtol=rtol, atol=atol, equal_nan=True))


def near(t: Ctx, reference, *, out: int = 0, rtol: float | None = None, atol: float | None = None, scale: float = 1.0):
    """Check: output `out` is close to reference(*inputs as float64 numpy).

    `scale` multiplies the dtype's tolerance (accumulations, ill-conditioned ops)."""
    name = t.dtype_name

    def check(outs, ins):
        got = outs[out]
        r, a = _tol_for(name, got)
        r = (rtol if rtol is not None else r) * scale
        a = (atol if atol is not None else a) * scale
        expected = np.asarray(reference(*[_as64(i) for i in ins]))
        if name in ("float16", "bfloat16") and expected.dtype.kind == "f":
            # what a correctly rounded half result is (overflow to inf included)
            with np.errstate(over="ignore"):
                expected = expected.astype(t.dtype).astype(np.float64)
        return _allclose(got, expected, r, a)

    return check


def _maybe_t(t: Ctx, f):
    """Apply f to a.T for the "transposed" shape."""
    if t.case.shape_name == "transposed":
        return lambda *args: f(*[a.T for a in args])
    return f


def _ref_t(t: Ctx, ref):
    if t.case.shape_name == "transposed":
        return lambda *args: ref(*[a.T for a in args])
    return ref


def _unary_where(compiled=(("float32", "small"), ("float32", "transposed"), ("float32", "large"), ("bfloat16", "large"))):
    """float32 gets every shape; other dtypes small and large; jit for a few."""

    def where(d, s, m, p):
        if d != "float32" and s not in ("small", "large"):
            return False
        return m == "eager" or (d, s) in compiled

    return where


def _special(name: str):
    import importlib

    return importlib.import_module(name)


# --------------------------------------------------------------------------
# array creation
# --------------------------------------------------------------------------


@cases.case(
    "jax.numpy.array",
    dtype=COMMON,
    shape={"scalar": (), "empty": (0, 3), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    params={"source": ["host"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or (d == "float32" and s == "small")),
    note="host: a NumPy array (transposed: a non-contiguous view) copied to the device by jnp.array; "
    "compiled: it becomes a jit constant",
)
def array_host(t: Ctx):
    jnp = t.fw.numpy
    host = _host(t)
    if t.dtype_name == "bfloat16":
        host = host.astype(t.dtype)
    if t.case.shape_name == "transposed":
        host = host.T  # a strided view: jnp.array must copy it in order
    dtype = t.dtype
    return t.call(lambda: jnp.array(host, dtype=dtype)).check(
        "equals the host array", lambda outs, ins: _allclose(outs[0], _as64(host.astype(np.float32) if t.dtype_name == "bfloat16" else host), 0, 0)
    )


@cases.case(
    "jax.numpy.array",
    dtype=COMMON,
    shape={"small": (1000,), "large": (LARGE,)},
    params={"source": ["cast"]},
    mode=BOTH,
    where=lambda d, s, m, p: s == "small" and (m == "eager" or d in ("float32", "bfloat16", "int32", "bool"))
    or (s == "large" and d == "float16" and m == "eager"),
    note="cast: jnp.array(x_float32, dtype=D) converts on the device (float to int truncates, to bool is x != 0)",
)
def array_cast(t: Ctx):
    jnp = t.fw.numpy
    x = _put(t, _host(t, dtype="float32") * 10.0, "float32")
    dtype = t.dtype
    name = t.dtype_name

    def ref(a):
        if name == "bool":
            return a != 0
        if name.startswith("int"):
            return np.trunc(a)
        return a

    return t.call(lambda a: jnp.array(a, dtype=dtype), x).check("cast like numpy", near(t, ref))


@cases.case(
    "jax.numpy.array",
    dtype=["float32", "int32", "complex64", "bool"],
    shape={"nested": (10, 10)},
    params={"source": ["list"]},
    note="a nested Python list of Python scalars (weak types): the dtype comes from dtype=",
)
def array_list(t: Ctx):
    jnp = t.fw.numpy
    host = _host(t)
    values = host.tolist()
    dtype = t.dtype
    return t.call(lambda: jnp.array(values, dtype=dtype)).check("equals the list", lambda outs, ins: _allclose(outs[0], host, 1e-6, 0))


@cases.case(
    "jax.numpy.array",
    dtype=["float32"],
    shape={"scalar": (), "small": (16,)},
    params={"source": ["ndmin"]},
    mode=BOTH,
    note="ndmin=3 prepends unit axes",
)
def array_ndmin(t: Ctx):
    jnp = t.fw.numpy
    return t.call(lambda a: jnp.array(a, ndmin=3), t.randn()).check(
        "ndim 3, same values", lambda outs, ins: outs[0].ndim == 3 and np.array_equal(outs[0].ravel(), ins[0].ravel())
    )


def _filled_cases(function: str, value: int):
    @cases.case(
        function,
        dtype=COMMON,
        shape={"scalar": (), "empty": (0, 3), "small": (1000,), "matrix": (64, 128), "large": (1024, 1024)},
        mode=BOTH,
        where=lambda d, s, m, p: (s == "small" or d == "float32")
        and (m == "eager" or (d, s) in {("float32", "small"), ("float32", "large"), ("int32", "small"), ("bool", "small")}),
        note=f"no array inputs: the shape and dtype are static; the output is {value} everywhere, on the default device",
    )
    def filled(t: Ctx):
        jnp = t.fw.numpy
        fn = getattr(jnp, function.rsplit(".", 1)[1])
        shape, dtype = tuple(t.shape), t.dtype
        return t.call(lambda: fn(shape, dtype=dtype)).check(
            f"all {value}, right shape", lambda outs, ins: outs[0].shape == shape and bool(np.all(outs[0] == value))
        )

    @cases.case(
        function,
        dtype=["float64"],
        shape={"small": (1000,)},
        params={"dtype_arg": ["default", "int-shape"]},
        mode=BOTH,
        where=lambda d, s, m, p: m == "eager" or p["dtype_arg"] == "default",
        note="default: no dtype= (float64 with x64 on); int-shape: the shape as a bare int",
    )
    def filled_default(t: Ctx):
        jnp = t.fw.numpy
        fn = getattr(jnp, function.rsplit(".", 1)[1])
        if t.p.dtype_arg == "default":
            call = t.call(lambda: fn((1000,)))
        else:
            call = t.call(lambda: fn(1000))
        return call.check(f"all {value}, 1000 of them", lambda outs, ins: outs[0].shape == (1000,) and bool(np.all(outs[0] == value)))


_filled_cases("jax.numpy.zeros", 0)
_filled_cases("jax.numpy.ones", 1)


_ARANGE = {
    "stop": ((1000,), "small"),
    "empty": ((0,), "empty"),
    "start-stop-step": ((-3, 7, 0.25), "small"),
    "negative-step": ((10, -10, -2), "small"),
    "tenths": ((0, 1, 0.1), "small"),
    "large": ((LARGE,), "large"),
}


@cases.case(
    "jax.numpy.arange",
    dtype=["float16", "bfloat16", "float32", "float64", "int32", "int64"],
    shape={"default": ()},
    params={"args": list(_ARANGE)},
    mode=BOTH,
    where=lambda d, s, m, p: not (d.startswith("int") and p["args"] in ("start-stop-step", "tenths"))
    and not (d in ("float16", "bfloat16") and p["args"] in ("large", "empty"))
    and (m == "eager" or (d in ("float32", "int32") and p["args"] in ("stop", "large", "start-stop-step"))),
    note="static bounds: jnp.arange is an iota (stop only) or a host-computed constant (fractional steps, "
    "numpy length semantics: arange(0, 1, 0.1) has 10 elements)",
)
def arange(t: Ctx):
    jnp = t.fw.numpy
    args, _ = _ARANGE[t.p.args]
    dtype = t.dtype
    name = t.dtype_name

    def ref():
        r = np.arange(*args, dtype=np.float64)
        if name == "bfloat16":
            return r.astype(np.float32).astype(t.dtype).astype(np.float64)
        return r.astype(np.dtype(name) if name != "bfloat16" else np.float64)

    return t.call(lambda: jnp.arange(*args, dtype=dtype)).check(
        "numpy's arange", lambda outs, ins: _allclose(outs[0], ref(), 1e-3 if name in ("float16", "bfloat16") else 1e-6, 1e-6)
    )


@cases.case(
    "jax.numpy.triu_indices",
    dtype=["int64"],
    shape={"empty": (0,), "small": (5,), "medium": (64,), "large": (2048,)},
    params={"k": [-1, 0, 2], "m": ["square", "rect"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["m"] == "square" or (p["k"] == 1 or s == "medium"))
    and (m == "eager" or (p["k"] == 0 and p["m"] == "square" and s in ("small", "large"))),
    note="n = the shape's only dim, rect: m = n + 3; static arguments, so the indices are a constant; the "
    "dtype is the index dtype with x64 on",
)
def triu_indices(t: Ctx):
    jnp = t.fw.numpy
    n = t.shape[0]
    k = t.p.k
    m = n + 3 if t.p.m == "rect" else None

    def check(outs, ins):
        ei, ej = np.triu_indices(n, k, m)
        count_ok = True
        if k == 0 and m is None:
            count_ok = outs[0].size == n * (n + 1) // 2
        return count_ok and np.array_equal(outs[0], ei) and np.array_equal(outs[1], ej)

    return t.call(lambda: jnp.triu_indices(n, k, m)).check("numpy's triu_indices (count n(n+1)/2 for k=0)", check)


@cases.case(
    "jax.numpy.tril_indices_from",
    dtype=["float32", "bool", "int32"],
    shape={"square": (6, 6), "tall": (7, 4), "wide": (4, 7), "empty": (0, 0), "large": (2048, 2048)},
    params={"k": [-2, 0, 1]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "square" and p["k"] == 0))
    and (m == "eager" or (d == "float32" and p["k"] == 0 and s in ("square", "large"))),
    note="only the input's shape matters (also under jit, where the input is traced)",
)
def tril_indices_from(t: Ctx):
    jnp = t.fw.numpy
    k = t.p.k
    return t.call(lambda a: jnp.tril_indices_from(a, k=k), t.randn()).check(
        "numpy's tril_indices_from",
        lambda outs, ins: all(np.array_equal(o, e) for o, e in zip(outs, np.tril_indices_from(ins[0], k=k))),
    )


# --------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------


def _unary(function, op, ref, *, dtype, data="randn", where=None, note="", scale=1.0, rtol=None, atol=None, params=None, mode=BOTH):
    """Register a unary elementwise function: op(jax, a), ref(x_float64) on the host."""

    @case(function, dtype=dtype, shape=EW_SHAPES, mode=mode, params=params, where=where or _unary_where(), note=note, rtol=rtol, atol=atol)
    def body(t: Ctx):
        jax = t.fw
        if callable(data):
            x = data(t)
        elif data == "positive":
            x = t.positive()
        else:
            x = t.randn()
        f = _maybe_t(t, lambda a: op(jax, a, t))
        return t.call(f, x).check("matches numpy/scipy in float64", near(t, _ref_t(t, lambda a: ref(a, t)), scale=scale))

    return body


_unary(
    "jax.numpy.log",
    lambda jax, a, t: jax.numpy.log(a),
    lambda x, t: np.log(x),
    dtype=INEXACT + ["int32"],
    data="positive",
    note="inputs in [0.5, 2.5) (int32: [0, 50), so log(0) = -inf); complex64: modulus and phase random",
)
_unary(
    "jax.numpy.exp",
    lambda jax, a, t: jax.numpy.exp(a),
    lambda x, t: np.exp(x),
    dtype=INEXACT + ["int32"],
    note="standard normal inputs (int32: [-50, 50), promoted to float64)",
)
_unary(
    "jax.numpy.cos",
    lambda jax, a, t: jax.numpy.cos(a),
    lambda x, t: np.cos(x),
    dtype=INEXACT + ["int32"],
    note="standard normal inputs",
)


@cases.case(
    "jax.numpy.cos",
    dtype=["float32", "float64"],
    shape={"small": (1000,), "large": (LARGE,)},
    params={"range": ["wide"]},
    mode=BOTH,
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "large"),
    note="arguments uniform in [-1e4, 1e4]: exercises argument reduction (a different code path from |x| < pi)",
)
def cos_wide(t: Ctx):
    jnp = t.fw.numpy
    return t.call(lambda a: jnp.cos(a), _uniform(t, -1e4, 1e4)).check(
        "matches numpy in float64 (atol 1e-4 in float32)", near(t, np.cos, atol=1e-4 if t.dtype_name == "float32" else None)
    )


_unary(
    "jax.numpy.sqrt",
    lambda jax, a, t: jax.numpy.sqrt(a),
    lambda x, t: np.sqrt(x),
    dtype=INEXACT + ["int32"],
    data=lambda t: t.randn() if t.dtype_name == "complex64" else t.positive(),
    note="positive inputs (complex64: standard normal, principal branch)",
)


@cases.case(
    "jax.numpy.sqrt",
    dtype=["float32", "float16"],
    shape={"small": (1000,)},
    params={"domain": ["negative"]},
    mode=BOTH,
    where=lambda d, s, m, p: m == "eager" or d == "float32",
    note="negative inputs give NaN, as numpy does",
)
def sqrt_negative(t: Ctx):
    jnp = t.fw.numpy
    return t.call(lambda a: jnp.sqrt(a), _uniform(t, -3.0, -0.5)).check("all NaN", lambda outs, ins: bool(np.all(np.isnan(outs[0]))))


_unary(
    "jax.lax.erf",
    lambda jax, a, t: jax.lax.erf(a),
    lambda x, t: _special("scipy.special").erf(x),
    dtype=FLOATS,
    data=lambda t: _uniform(t, -4.0, 4.0),
    note="lax is strict: floating inputs only; uniform in [-4, 4] (both tails)",
)
_unary(
    "jax.scipy.special.ndtr",
    lambda jax, a, t: _special("jax.scipy.special").ndtr(a),
    lambda x, t: _special("scipy.special").ndtr(x),
    dtype=FLOATS,
    data=lambda t: _uniform(t, -8.0, 8.0),
    note="uniform in [-8, 8] (deep tails); float16 and bfloat16 are rejected by jax (TypeError), a finding",
)
_unary(
    "jax.scipy.special.i0",
    lambda jax, a, t: _special("jax.scipy.special").i0(a),
    lambda x, t: _special("scipy.special").i0(x),
    dtype=FLOATS + ["int32"],
    data=lambda t: _uniform(t, -10.0, 10.0) if t.dtype_name != "int32" else _put(t, t.numpy_rng().integers(-10, 11, size=t.shape), "int32"),
    note="uniform in [-10, 10] (i0(10) ~ 2816); int32 is promoted",
    scale=4.0,
)


@cases.case(
    "jax.scipy.special.gammaln",
    dtype=FLOATS,
    shape={"scalar": (), "empty": (0,), "small": (1000,), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "large"),
    note="inputs in [3, 30): away from gammaln's roots at 1 and 2, where relative error is meaningless",
)
def gammaln(t: Ctx):
    from jax.scipy import special

    x = t.numpy_rng().uniform(3.0, 30.0, size=t.shape)
    return t.call(lambda a: special.gammaln(a), t.adapter.from_numpy(x, t.dtype_name)).check(
        "matches scipy.special.gammaln", near(t, lambda a: _special("scipy.special").gammaln(a))
    )


@cases.case(
    "jax.scipy.special.gammaln",
    dtype=["float32", "float64"],
    shape={"small": (1000,)},
    params={"domain": ["negative", "tiny"]},
    mode=BOTH,
    where=lambda d, s, m, p: m == "eager" or d == "float32",
    note="negative: non-integers in (-10, 0), log|gamma|; tiny: (1e-6, 1e-2), where gammaln ~ -log(x)",
)
def gammaln_domain(t: Ctx):
    from jax.scipy import special

    if t.p.domain == "negative":
        x = t.numpy_rng().uniform(-10.0, 0.0, size=t.shape)
        x = np.where(np.abs(x - np.round(x)) < 0.05, x + 0.1, x)  # away from the poles
    else:
        x = t.numpy_rng().uniform(1e-6, 1e-2, size=t.shape)
    return t.call(lambda a: special.gammaln(a), _put(t, x)).check(
        "matches scipy.special.gammaln", near(t, lambda a: _special("scipy.special").gammaln(a), scale=50.0)
    )


@cases.case(
    "jax.scipy.stats.norm.cdf",
    dtype=FLOATS,
    shape={"scalar": (), "small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"loc_scale": ["standard", "arrays"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["loc_scale"] == "standard"))
    and (m == "eager" or (d == "float32" and s in ("small", "large"))),
    note="standard: cdf(x); arrays: loc (per column) and scale (positive, per column) broadcast against x; "
    "float16/bfloat16 go through ndtr, which rejects them",
)
def norm_cdf(t: Ctx):
    from jax.scipy.stats import norm

    x = t.randn()
    if t.p.loc_scale == "standard":
        return t.call(lambda a: norm.cdf(a), x).check("matches scipy.stats.norm.cdf", near(t, lambda a: _special("scipy.stats").norm.cdf(a)))
    cols = t.shape[-1:] if t.shape else ()
    loc, scale = t.randn(cols), t.positive(cols)
    return t.call(lambda a, l, s: norm.cdf(a, l, s), x, loc, scale).check(
        "matches scipy.stats.norm.cdf", near(t, lambda a, l, s: _special("scipy.stats").norm.cdf(a, l, s))
    )


# ---- binary ---------------------------------------------------------------


@cases.case(
    "jax.numpy.add",
    dtype=COMMON,
    shape={
        "scalar": (),
        "empty": (0,),
        "small": (1000,),
        "transposed": (192, 256),
        "broadcast": ((256, 1), (1, 128)),
        "large": (LARGE,),
    },
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small" or (s == "large" and d in FLOATS) or (d == "int32" and s in ("broadcast", "transposed")))
    and (m == "eager" or (d in ("float32", "int32") and s in ("small", "broadcast")) or (d in ("float32", "bfloat16") and s == "large")),
    note="broadcast: (256,1) + (1,128); bool + bool is logical or; transposed: a.T + b.T",
)
def add(t: Ctx):
    jnp = t.fw.numpy
    if t.case.shape_name == "broadcast":
        a, b = t.randn(t.shape[0]), t.randn(t.shape[1])
    else:
        a, b = t.randn(), t.randn()
    f = _maybe_t(t, lambda x, y: jnp.add(x, y))
    return t.call(f, a, b).check("numpy's add", near(t, _ref_t(t, np.add)))


@cases.case(
    "jax.numpy.add",
    dtype=["float32", "int32", "bfloat16"],
    shape={"small": (1000,)},
    params={"other": ["int32-array", "python-scalar"]},
    mode=BOTH,
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and p["other"] == "int32-array"),
    note="promotion: + an int32 array (float32+int32 -> float32; bfloat16+int32 -> bfloat16); + a Python "
    "scalar 3 (weakly typed: keeps the array's dtype)",
)
def add_promote(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    dtype = t.dtype
    if t.p.other == "python-scalar":
        return t.call(lambda a: jnp.add(a, 3), x).check(
            "x + 3, dtype kept", lambda outs, ins: _allclose(outs[0], _as64(ins[0]) + 3, 1e-2, 1e-2)
        )
    y = t.randn(dtype="int32")
    return t.call(lambda a, b: jnp.add(a, b), x, y).check(
        "x + y", lambda outs, ins: _allclose(outs[0], _as64(ins[0]) + ins[1], 1.6e-2, 1e-2)
    )


@case(
    "jax.numpy.power",
    dtype=INEXACT + ["int32", "int64"],
    shape={"scalar": (), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    params={"exponent": ["array", "int3", "half"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small")
    and not (d.startswith("int") and p["exponent"] == "half")
    and not (s == "scalar" and p["exponent"] == "half")
    and (m == "eager" or (d == "float32" and (s, p["exponent"]) in {("small", "array"), ("large", "array"), ("large", "int3")})),
    rtol={"float32": 1e-5, "complex64": 1e-5},
    note="array: x**y elementwise (floats: x in [0.5, 2.5), y standard normal; ints: x in [-50, 50), y in [0, 4); "
    "complex: both standard normal); int3: x**3 (Python int: integer_pow); half: x**0.5",
)
def power(t: Ctx):
    jnp = t.fw.numpy
    name = t.dtype_name
    if t.p.exponent == "array":
        if name.startswith("int"):
            x = t.randn()
            y = _put(t, t.numpy_rng().integers(0, 4, size=t.shape))
        elif name.startswith("complex"):
            x, y = t.randn(), t.randn()
        else:
            x, y = t.positive(), t.randn()
        f = _maybe_t(t, lambda a, b: jnp.power(a, b))
        return t.call(f, x, y).check("numpy's power", near(t, _ref_t(t, np.power), scale=10.0))
    x = t.positive() if t.p.exponent == "half" and not name.startswith("complex") else t.randn()
    e = 3 if t.p.exponent == "int3" else 0.5
    f = _maybe_t(t, lambda a: jnp.power(a, e))
    return t.call(f, x).check(f"x ** {e}", near(t, _ref_t(t, lambda a: np.power(a, e)), scale=10.0))


@case(
    "jax.lax.integer_pow",
    dtype=INEXACT + ["int32", "int64"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"y": [0, 2, 3, -2, 7]},
    mode=BOTH,
    where=lambda d, s, m, p: not (d.startswith("int") and p["y"] < 0)
    and (d == "float32" or (s == "small" and p["y"] in (2, 3, -2)))
    and (p["y"] in (2, 3) or (s == "small"))
    and (m == "eager" or (d == "float32" and p["y"] == 3 and s != "scalar")),
    rtol={"float32": 1e-5, "complex64": 1e-5},
    note="y static; repeated squaring: y=0 gives ones, y<0 the reciprocal (floating only: negative powers of "
    "integers are rejected); y=2,3 on standard normal inputs, y=-2,7 on inputs in [0.5, 2.5)",
)
def integer_pow(t: Ctx):
    lax = t.fw.lax
    y = t.p.y
    x = t.positive() if y in (-2, 7) else t.randn()
    return t.call(lambda a: lax.integer_pow(a, y), x).check(f"x ** {y}", near(t, lambda a: np.power(a, float(y)) if a.dtype.kind in "fc" else a ** y, scale=10.0))


_INT_FULL = ["bool", "uint8", "int8", "int32", "int64"]


@cases.case(
    "jax.lax.bitwise_and",
    dtype=_INT_FULL,
    shape={"scalar": (), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "int32" or s in ("small", "large")) and (m == "eager" or (d in ("int32", "bool") and s != "scalar")),
    note="the full range of each integer type (negative values: two's complement); bool is logical and; "
    "lax is strict: both operands have the same dtype",
)
def bitwise_and(t: Ctx):
    lax = t.fw.lax
    rng = t.numpy_rng()
    name = t.dtype_name

    def draw():
        if name == "bool":
            return rng.random(t.shape) < 0.5
        info = np.iinfo(np.dtype(name))
        return rng.integers(info.min, info.max, size=t.shape, dtype=np.dtype(name), endpoint=True)

    a, b = _put(t, draw()), _put(t, draw())
    f = _maybe_t(t, lambda x, y: lax.bitwise_and(x, y))
    return t.call(f, a, b).check("numpy's bitwise_and", near(t, _ref_t(t, np.bitwise_and)))


@cases.case(
    "jax.lax.ge",
    dtype=FLOATS + ["int32", "int64", "uint8", "bool"],
    shape={"scalar": (), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    params={"values": ["random", "nan-ties"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s in ("small", "large"))
    and (p["values"] == "random" or (s == "small" and d in FLOATS))
    and (m == "eager" or (d in ("float32", "int32") and s in ("small", "large"))),
    note="nan-ties: a quarter NaN (never >=) and a quarter exact ties (always >=); lax is strict: same "
    "shapes and dtypes, no broadcasting",
)
def ge(t: Ctx):
    lax = t.fw.lax
    if t.p.values == "random":
        a, b = t.randn(), t.randn()
    else:
        x = _host(t, dtype="float32")
        y = _host(t, dtype="float32")
        y[::4] = x[::4]
        x[1::4] = np.nan
        a, b = _put(t, x), _put(t, y)
    f = _maybe_t(t, lambda x, y: lax.ge(x, y))
    return t.call(f, a, b).check("numpy's >= (NaN never)", near(t, _ref_t(t, np.greater_equal)))


@cases.case(
    "jax.lax.select",
    dtype=COMMON,
    shape={"scalar": (), "empty": (0,), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    params={"pred": ["array", "scalar"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s in ("small", "large"))
    and (p["pred"] == "array" or (s in ("small", "transposed") and d in ("float32", "int32")))
    and (m == "eager" or (d in ("float32", "int32") and s in ("small", "large")) or (p["pred"] == "scalar" and d == "float32")),
    note="select(pred, on_true, on_false); pred: a bool array of the operands' shape, or a 0-d bool "
    "(the only broadcast lax.select allows)",
)
def select(t: Ctx):
    lax = t.fw.lax
    a, b = t.randn(), t.randn()
    if t.p.pred == "scalar":
        pred = _put(t, np.array(True), "bool")
        return t.call(_maybe_t(t, lambda x, y: lax.select(pred, x, y)), a, b).check("takes on_true", near(t, _ref_t(t, lambda x, y: x)))
    pred = t.randn(dtype="bool")
    f = _maybe_t(t, lambda p, x, y: lax.select(p, x, y))
    return t.call(f, pred, a, b).check("numpy's where", near(t, _ref_t(t, np.where)))


# --------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------


@cases.case(
    "jax.numpy.sum",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (256, 128), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "large"),
    rtol=None,
    note="matrix: sum over axis 0; otherwise a full reduction; large floats are positive (no cancellation, so "
    "the comparison measures the reduction, not the order of a cancelling sum)",
)
def sum_(t: Ctx):
    jnp = t.fw.numpy
    axis = 0 if t.case.shape_name == "matrix" else None
    x = t.positive() if t.case.shape_name == "large" else t.randn()
    return t.call(lambda a: jnp.sum(a, axis=axis), x).check(
        "numpy's sum in float64", near(t, lambda a: np.sum(a, axis=axis), scale=1.0 if t.dtype_name in ("float16", "bfloat16") else 4.0)
    )


@case(
    "jax.numpy.sum",
    dtype=["float16", "bfloat16", "float32"],
    shape={"matrix": (256, 128), "transposed": (256, 128), "large": (1024, 1024)},
    params={"form": ["axis1-keepdims", "axes01", "where", "dtype-float32"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["form"] == "dtype-float32") == (d in ("float16", "bfloat16"))
    and (d == "float32" or (s == "matrix" and m == "eager"))
    and (s != "transposed" or p["form"] == "axis1-keepdims")
    and (s != "large" or p["form"] != "where")
    and (m == "eager" or (s == "matrix" and p["form"] == "where") or (s == "large" and p["form"] == "axis1-keepdims")),
    rtol=RED_RTOL,
    note="axis1-keepdims: the minor axis, shape (n, 1); axes01: both axes; where: a mask selects the summands; "
    "dtype-float32: half inputs accumulated and returned in float32",
)
def sum_params(t: Ctx):
    jnp = t.fw.numpy
    x = t.positive()
    form = t.p.form
    if form == "where":
        mask = t.randn(dtype="bool")
        return t.call(lambda a, w: jnp.sum(a, axis=1, where=w), x, mask).check(
            "masked sum", near(t, lambda a, w: np.sum(np.where(w, a, 0), axis=1), scale=4.0)
        )
    if form == "dtype-float32":
        return t.call(lambda a: jnp.sum(a, axis=0, dtype=jnp.float32), x).check(
            "float32 result of the half inputs", lambda outs, ins: outs[0].dtype == np.float32 and _allclose(outs[0], np.sum(_as64(ins[0]), axis=0), 1e-5, 1e-5)
        )
    axis = (0, 1) if form == "axes01" else 1
    keep = form == "axis1-keepdims"
    f = _maybe_t(t, lambda a: jnp.sum(a, axis=axis, keepdims=keep))
    return t.call(f, x).check("numpy's sum", near(t, _ref_t(t, lambda a: np.sum(a, axis=axis, keepdims=keep)), scale=4.0))


_RED_SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "matrix": (64, 128), "transposed": (64, 128), "large": (1024, 1024)}


def _red_where(dtypes_all=("float32",), compiled_shapes=("matrix", "large")):
    def where(d, s, m, p):
        axis = p.get("axis", None)
        if s in ("scalar", "empty", "small") and axis not in (None, "none"):
            return False
        if d not in dtypes_all and s not in ("matrix",):
            return False
        if d not in dtypes_all and axis not in ("1", 1):
            return False
        return m == "eager" or (d == "float32" and s in compiled_shapes and axis in ("1", 1, "none", None))

    return where


_AXES = {"none": None, "0": 0, "1": 1, "01": (0, 1)}


@case(
    "jax.numpy.mean",
    dtype=INEXACT + ["int32", "bool"],
    shape=_RED_SHAPES,
    params={"axis": ["none", "0", "1", "01"], "keepdims": [False, True]},
    mode=BOTH,
    where=lambda d, s, m, p: _red_where()(d, s, m, p)
    and (s != "large" or p["axis"] in ("none", "1"))
    and (s != "transposed" or p["axis"] in ("0", "1"))
    and (not p["keepdims"] or (d == "float32" and s == "matrix" and p["axis"] in ("1", "01"))),
    rtol=RED_RTOL,
    note="positive inputs; mean of an empty array is NaN (numpy warns); half dtypes are accumulated in float32; "
    "int and bool means are float64",
)
def mean(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    keep = t.p.keepdims
    x = t.positive()
    f = _maybe_t(t, lambda a: jnp.mean(a, axis=axis, keepdims=keep))
    return t.call(f, x).check("numpy's mean", near(t, _ref_t(t, lambda a: np.mean(a, axis=axis, keepdims=keep) if a.size else np.full(np.mean(np.ones(a.shape), axis=axis).shape, np.nan)), scale=4.0))


@case(
    "jax.numpy.mean",
    dtype=["float32", "float16"],
    shape={"matrix": (64, 128)},
    params={"form": ["where", "dtype-float64"]},
    mode=BOTH,
    where=lambda d, s, m, p: m == "eager" or d == "float32",
    rtol=RED_RTOL,
    note="where: mean of the masked elements along axis 1; dtype-float64: accumulated and returned in float64",
)
def mean_params(t: Ctx):
    jnp = t.fw.numpy
    x = t.positive()
    if t.p.form == "where":
        mask = _put(t, t.numpy_rng().random(t.shape) < 0.7, "bool")
        return t.call(lambda a, w: jnp.mean(a, axis=1, where=w), x, mask).check(
            "masked mean", near(t, lambda a, w: np.sum(np.where(w, a, 0), axis=1) / np.sum(w, axis=1), scale=4.0)
        )
    return t.call(lambda a: jnp.mean(a, axis=0, dtype=jnp.float64), x).check(
        "float64 mean", lambda outs, ins: outs[0].dtype == np.float64 and _allclose(outs[0], np.mean(_as64(ins[0]), axis=0), 1e-12, 1e-12)
    )


@case(
    "jax.numpy.var",
    dtype=INEXACT + ["int32"],
    shape=_RED_SHAPES,
    params={"axis": ["none", "0", "1"], "ddof": [0, 1]},
    mode=BOTH,
    where=lambda d, s, m, p: _red_where()(d, s, m, p) and (p["ddof"] == 0 or (d == "float32" and s in ("scalar", "small", "matrix"))),
    rtol=RED_RTOL,
    note="standard normal inputs; ddof=1 divides by n - 1 (NaN for a scalar, and for an empty array either way); "
    "complex variance is real",
)
def var(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    ddof = t.p.ddof
    x = t.randn()

    def ref(a):
        n = a.size if axis is None else a.shape[axis]
        if n - ddof <= 0:
            return np.full(np.var(np.ones(a.shape), axis=axis).shape, np.nan)
        return np.var(a, axis=axis, ddof=ddof)

    f = _maybe_t(t, lambda a: jnp.var(a, axis=axis, ddof=ddof))
    return t.call(f, x).check("numpy's var", near(t, _ref_t(t, ref), scale=4.0))


@case(
    "jax.numpy.var",
    dtype=["float32"],
    shape={"matrix": (64, 128)},
    params={"form": ["keepdims", "where"]},
    mode=BOTH,
    rtol=RED_RTOL,
    note="keepdims along axis 1; where: variance of the masked elements along axis 1",
)
def var_params(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    if t.p.form == "keepdims":
        return t.call(lambda a: jnp.var(a, axis=1, keepdims=True), x).check("numpy's var", near(t, lambda a: np.var(a, axis=1, keepdims=True), scale=4.0))
    mask = _put(t, t.numpy_rng().random(t.shape) < 0.7, "bool")
    return t.call(lambda a, w: jnp.var(a, axis=1, where=w), x, mask).check(
        "masked var", near(t, lambda a, w: np.var(a, axis=1, where=w), scale=4.0)
    )


@case(
    "jax.numpy.average",
    dtype=FLOATS + ["complex64", "int32"],
    shape={"small": (1000,), "matrix": (64, 128), "transposed": (64, 128), "large": (1024, 1024)},
    params={"weights": ["none", "array"], "axis": ["none", "0", "1"]},
    mode=BOTH,
    where=lambda d, s, m, p: not (s == "small" and p["axis"] != "none")
    and (d == "float32" or (s == "matrix" and p["axis"] == "1" and p["weights"] == "array"))
    and (s != "large" or p["axis"] == "1")
    and (s != "transposed" or p["axis"] == "1")
    and (m == "eager" or (d == "float32" and s in ("matrix", "large") and p["axis"] == "1")),
    rtol=RED_RTOL,
    note="positive inputs; weights: positive, the shape of the input (axis=None) or of the reduced axis",
)
def average(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    x = t.positive()
    if t.p.weights == "none":
        f = _maybe_t(t, lambda a: jnp.average(a, axis=axis))
        return t.call(f, x).check("numpy's average", near(t, _ref_t(t, lambda a: np.average(a, axis=axis)), scale=4.0))
    shape = tuple(t.shape) if axis is None else (tuple(t.shape)[::-1] if t.case.shape_name == "transposed" else tuple(t.shape))[axis:axis + 1]
    w = t.positive(shape, dtype="float32" if t.dtype_name in ("int32", "complex64") else None)
    if t.case.shape_name == "transposed":
        f = lambda a, ww: jnp.average(a.T, axis=axis, weights=ww)  # noqa: E731
        ref = lambda a, ww: np.average(a.T, axis=axis, weights=ww)  # noqa: E731
    else:
        f = lambda a, ww: jnp.average(a, axis=axis, weights=ww)  # noqa: E731
        ref = lambda a, ww: np.average(a, axis=axis, weights=ww)  # noqa: E731
    return t.call(f, x, w).check("numpy's weighted average", near(t, ref, scale=4.0))


@case(
    "jax.numpy.average",
    dtype=["float32"],
    shape={"matrix": (64, 128)},
    params={"form": ["returned", "keepdims"]},
    mode=BOTH,
    rtol=RED_RTOL,
    note="returned=True: (average, sum of weights); keepdims=True along axis 1 with weights",
)
def average_params(t: Ctx):
    jnp = t.fw.numpy
    x = t.positive()
    w = t.positive((128,))
    if t.p.form == "returned":
        return t.call(lambda a, ww: jnp.average(a, axis=1, weights=ww, returned=True), x, w).check(
            "numpy's (average, weight sum)",
            lambda outs, ins: all(_allclose(o, e, 1e-4, 1e-5) for o, e in zip(outs, np.average(_as64(ins[0]), axis=1, weights=_as64(ins[1]), returned=True))),
        )
    return t.call(lambda a, ww: jnp.average(a, axis=1, weights=ww, keepdims=True), x, w).check(
        "numpy's average, keepdims", near(t, lambda a, ww: np.average(a, axis=1, weights=ww, keepdims=True), scale=4.0)
    )


@case(
    "jax.numpy.prod",
    dtype=INEXACT + ["int32", "int64", "bool"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (64, 128), "transposed": (64, 128), "large": (16384, 64)},
    params={"axis": ["none", "0", "1"]},
    mode=BOTH,
    where=lambda d, s, m, p: not (s in ("scalar", "empty", "small") and p["axis"] != "none")
    and not (s == "large" and p["axis"] != "1")
    and not (s in ("matrix", "transposed") and p["axis"] == "none")
    and (d == "float32" or (s == "matrix" and p["axis"] == "1") or (s == "small"))
    and (m == "eager" or (d == "float32" and s in ("matrix", "large") and p["axis"] == "1") or (d == "int32" and s == "small")),
    rtol={"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5, "float64": 1e-10, "complex64": 2e-5},
    note="floats in [0.9, 1.1] (complex: that modulus, random phase) so products neither overflow nor "
    "underflow; ints from {-2, -1, 1, 2}: products wrap modulo 2**64 exactly as numpy's do, whatever the order; "
    "int32 products are int64 (promote_integers); empty product is 1",
)
def prod(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    name = t.dtype_name
    if name == "bool":
        x = _put(t, t.numpy_rng().random(t.shape) < 0.999)
    elif name.startswith("int"):
        x = _put(t, t.numpy_rng().choice(np.array([-2, -1, 1, 2]), size=t.shape))
    else:
        x = _uniform(t, 0.9, 1.1)
    f = _maybe_t(t, lambda a: jnp.prod(a, axis=axis))

    def ref(a):
        if a.dtype.kind in "iub":
            return np.prod(a.astype(np.int64), axis=axis)
        return np.prod(a, axis=axis)

    return t.call(f, x).check("numpy's prod", near(t, _ref_t(t, ref), scale=4.0))


@cases.case(
    "jax.numpy.max",
    dtype=FLOATS + ["int32", "int64", "uint8", "bool"],
    shape={"scalar": (), "small": (1000,), "matrix": (64, 128), "transposed": (64, 128), "large": (1024, 1024)},
    params={"axis": ["none", "0", "1"]},
    mode=BOTH,
    where=lambda d, s, m, p: not (s in ("scalar", "small") and p["axis"] != "none")
    and (d == "float32" or (s == "matrix" and p["axis"] == "1"))
    and not (s == "transposed" and p["axis"] == "none")
    and not (s == "large" and p["axis"] == "0")
    and (m == "eager" or ((d, s) in {("float32", "matrix"), ("float32", "large"), ("int32", "matrix")} and p["axis"] == "1")),
    note="standard normal inputs (ints: [-50, 50)); exact, so compared bit for bit",
)
def max_(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    f = _maybe_t(t, lambda a: jnp.max(a, axis=axis))
    return t.call(f, t.randn()).check("numpy's max", near(t, _ref_t(t, lambda a: np.max(a, axis=axis)), rtol=0, atol=0))


@cases.case(
    "jax.numpy.max",
    dtype=["float32", "float16", "int32"],
    shape={"matrix": (64, 128), "empty": (0,)},
    params={"form": ["nan", "keepdims", "initial", "where"]},
    mode=BOTH,
    where=lambda d, s, m, p: (s == "matrix" or p["form"] == "initial")
    and not (d == "int32" and p["form"] == "nan")
    and (d == "float32" or p["form"] in ("nan", "where"))
    and (m == "eager" or (d == "float32" and s == "matrix" and p["form"] in ("nan", "where"))),
    note="nan: one NaN per row propagates (max is NaN); keepdims along axis 1; initial=5: a floor "
    "(and the answer for an empty array, which has no max otherwise); where: masked with initial=-100",
)
def max_params(t: Ctx):
    jnp = t.fw.numpy
    form = t.p.form
    if form == "nan":
        host = _host(t)
        host[np.arange(t.shape[0]), t.numpy_rng().integers(0, t.shape[1], size=t.shape[0])] = np.nan
        return t.call(lambda a: jnp.max(a, axis=1), _put(t, host)).check("NaN in every row", lambda outs, ins: bool(np.all(np.isnan(outs[0]))))
    if form == "keepdims":
        return t.call(lambda a: jnp.max(a, axis=1, keepdims=True), t.randn()).check("numpy's max", near(t, lambda a: np.max(a, axis=1, keepdims=True), rtol=0, atol=0))
    if form == "initial":
        return t.call(lambda a: jnp.max(a, axis=-1, initial=5), t.randn()).check("numpy's max with initial", near(t, lambda a: np.max(a, axis=-1, initial=5), rtol=0, atol=0))
    mask = t.randn(dtype="bool")
    return t.call(lambda a, w: jnp.max(a, axis=1, where=w, initial=-100), t.randn(), mask).check(
        "numpy's masked max", near(t, lambda a, w: np.max(a, axis=1, where=w, initial=-100), rtol=0, atol=0)
    )


@cases.case(
    "jax.numpy.all",
    dtype=["bool", "float32", "int32", "complex64"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (64, 128), "transposed": (64, 128), "large": (1024, 1024)},
    params={"axis": ["none", "0", "1"]},
    mode=BOTH,
    where=lambda d, s, m, p: not (s in ("scalar", "empty", "small") and p["axis"] != "none")
    and (d == "bool" or (s in ("small", "matrix") and p["axis"] in ("none", "1")))
    and (m == "eager" or (d == "bool" and s in ("matrix", "large") and p["axis"] != "0")),
    note="inputs are nonzero/True except about one element in 500, so some rows are all-true and some not; "
    "all of an empty array is True",
)
def all_(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    keep = t.numpy_rng().random(t.shape) >= 0.002
    if t.dtype_name == "bool":
        x = _put(t, keep)
    else:
        x = _put(t, np.where(keep, _host(t, kind="positive"), 0))
    f = _maybe_t(t, lambda a: jnp.all(a, axis=axis))
    return t.call(f, x).check("numpy's all", near(t, _ref_t(t, lambda a: np.all(a, axis=axis))))


@cases.case(
    "jax.numpy.all",
    dtype=["bool"],
    shape={"matrix": (64, 128)},
    params={"form": ["keepdims", "where"]},
    mode=BOTH,
    note="keepdims along axis 1; where: only masked elements count (an all-masked row is True)",
)
def all_params(t: Ctx):
    jnp = t.fw.numpy
    x = _put(t, t.numpy_rng().random(t.shape) >= 0.01)
    if t.p.form == "keepdims":
        return t.call(lambda a: jnp.all(a, axis=1, keepdims=True), x).check("numpy's all", near(t, lambda a: np.all(a, axis=1, keepdims=True)))
    mask = _put(t, t.numpy_rng().random(t.shape) < 0.05)
    return t.call(lambda a, w: jnp.all(a, axis=1, where=w), x, mask).check("numpy's masked all", near(t, lambda a, w: np.all(a, axis=1, where=w)))


# --------------------------------------------------------------------------
# shapes, indexing
# --------------------------------------------------------------------------

_RESHAPE = {
    "to2d": ((1000,), (10, 100), "C"),
    "flatten": ((64, 128), (-1,), "C"),
    "order-F": ((64, 128), (128, 64), "F"),
    "transposed": ((64, 128), (32, 256), "C"),
    "scalar": ((), (1, 1), "C"),
    "empty": ((0, 4), (4, 0), "C"),
    "large": ((LARGE,), (1024, 1024), "C"),
}


@cases.case(
    "jax.numpy.reshape",
    dtype=["float32", "bfloat16", "int32", "bool", "complex64"],
    shape={k: v[0] for k, v in _RESHAPE.items()},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "to2d") and (m == "eager" or (d == "float32" and s in ("to2d", "order-F", "transposed", "large"))),
    note="to2d (1000,)->(10,100); flatten: -1; order-F: Fortran order (a transpose under the hood); "
    "transposed: (a.T).reshape, which must copy; scalar -> (1, 1); empty (0,4) -> (4,0)",
)
def reshape(t: Ctx):
    jnp = t.fw.numpy
    _, new, order = _RESHAPE[t.case.shape_name]
    x = t.randn()
    if t.case.shape_name == "transposed":
        return t.call(lambda a: jnp.reshape(a.T, new, order=order), x).check(
            "numpy's reshape", lambda outs, ins: np.array_equal(outs[0], np.reshape(ins[0].T, (32, 256)))
        )
    return t.call(lambda a: jnp.reshape(a, new, order=order), x).check(
        "numpy's reshape", lambda outs, ins: np.array_equal(outs[0], np.reshape(ins[0], new, order=order))
    )


@cases.case(
    "jax.numpy.stack",
    dtype=["float32", "bfloat16", "int32", "bool", "complex64"],
    shape={"scalar": (), "empty": (0,), "matrix": (64, 128), "large": (512, 512)},
    params={"axis": [0, 1, -1]},
    mode=BOTH,
    where=lambda d, s, m, p: (s in ("matrix",) or p["axis"] in (0, -1))
    and (s != "scalar" or p["axis"] == 0)
    and (d == "float32" or (s == "matrix" and p["axis"] == 0))
    and (m == "eager" or (d == "float32" and s in ("matrix", "large") and p["axis"] != 0)),
    note="three arrays of the shape; a new axis at 0, 1 or -1",
)
def stack(t: Ctx):
    jnp = t.fw.numpy
    axis = t.p.axis
    arrays = [t.randn() for _ in range(3)]
    return t.call(lambda a, b, c: jnp.stack([a, b, c], axis=axis), *arrays).check(
        "numpy's stack", lambda outs, ins: np.array_equal(outs[0], np.stack(ins, axis=axis))
    )


_SPLIT = {
    "sections4": (4, 0),
    "indices": ([10, 30, 31], 0),
    "sections2-axis1": (2, 1),
    "indices-axis1": ([3, 100], 1),
    "beyond-end": ([10, 2000], 0),
}


@cases.case(
    "jax.numpy.split",
    dtype=["float32", "bfloat16", "int32", "bool"],
    shape={"empty": (0,), "small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"how": list(_SPLIT)},
    mode=BOTH,
    where=lambda d, s, m, p: (s == "matrix" or (_SPLIT[p["how"]][1] == 0))
    and (s != "empty" or p["how"] == "sections4")
    and (p["how"] != "beyond-end" or (s == "small" and d == "float32" and m == "eager"))
    and (d == "float32" or (s == "matrix" and p["how"] in ("sections4", "indices-axis1")))
    and (m == "eager" or (d == "float32" and (s, p["how"]) in {("matrix", "sections4"), ("matrix", "indices-axis1"), ("large", "sections4")})),
    note="sections: equal pieces; indices: cut points [10, 30, 31]; beyond-end: a cut point past the end, "
    "where numpy gives an empty last piece (jax 0.10 raises: a finding); the pieces, a list, are the outputs",
)
def split(t: Ctx):
    jnp = t.fw.numpy
    how, axis = _SPLIT[t.p.how]
    return t.call(lambda a: jnp.split(a, how, axis=axis), t.randn()).check(
        "pieces are numpy's and concatenate back",
        lambda outs, ins: len(outs) == len(np.split(ins[0], how, axis=axis))
        and all(np.array_equal(o, e) for o, e in zip(outs, np.split(ins[0], how, axis=axis)))
        and np.array_equal(np.concatenate(outs, axis=axis), ins[0]),
    )


@cases.case(
    "jax.numpy.flip",
    dtype=["float32", "bfloat16", "int32", "bool", "complex64"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (64, 128), "cube": (8, 16, 32), "large": (1024, 1024)},
    params={"axis": ["none", "0", "1", "01", "-1"]},
    mode=BOTH,
    where=lambda d, s, m, p: (s in ("matrix", "cube") or p["axis"] == "none" or (s == "large" and p["axis"] == "0"))
    and (d == "float32" or (s == "matrix" and p["axis"] == "1"))
    and (m == "eager" or (d == "float32" and s in ("matrix", "large") and p["axis"] in ("none", "0"))),
    note="axis None flips every axis; 01: a tuple of axes",
)
def flip(t: Ctx):
    jnp = t.fw.numpy
    axis = {"none": None, "0": 0, "1": 1, "01": (0, 1), "-1": -1}[t.p.axis]
    return t.call(lambda a: jnp.flip(a, axis=axis), t.randn()).check(
        "numpy's flip", lambda outs, ins: np.array_equal(outs[0], np.flip(ins[0], axis=axis))
    )


@cases.case(
    "jax.numpy.fliplr",
    dtype=["float32", "bfloat16", "float64", "int32", "bool", "complex64"],
    shape={"matrix": (64, 128), "cube": (8, 16, 4), "empty": (0, 5), "transposed": (128, 64), "large": (1024, 1024)},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "matrix") and (m == "eager" or (d == "float32" and s in ("matrix", "transposed", "large"))),
    note="flips axis 1 (needs ndim >= 2)",
)
def fliplr(t: Ctx):
    jnp = t.fw.numpy
    f = _maybe_t(t, lambda a: jnp.fliplr(a))
    return t.call(f, t.randn()).check("numpy's fliplr", lambda outs, ins: np.array_equal(outs[0], np.fliplr(ins[0].T if t.case.shape_name == "transposed" else ins[0])))


_DELETE = {
    "int": (lambda n: 3),
    "negative-int": (lambda n: -1),
    "slice": (lambda n: slice(2, n - 5, 3)),
    "array": (lambda n: np.array([0, 5, 7, 7, n - 1])),
    "mask": (lambda n: np.arange(n) % 3 == 0),
    "unique-sorted": (lambda n: np.array([1, 4, 9, n - 2])),
}


@cases.case(
    "jax.numpy.delete",
    dtype=["float32", "int32", "bool", "bfloat16"],
    shape={"small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"obj": list(_DELETE), "axis": ["none", "0", "1"]},
    mode=BOTH,
    where=lambda d, s, m, p: ((s == "small" and p["axis"] == "none") or (s == "matrix" and p["axis"] != "none") or (s == "large" and p["axis"] == "none" and p["obj"] == "array"))
    and (d == "float32" or (s == "small" and p["obj"] in ("int", "array")))
    and (s != "matrix" or p["obj"] in ("int", "slice", "array", "mask") and (p["axis"] == "1" or p["obj"] in ("int", "array")))
    and (m == "eager" or (d == "float32" and p["obj"] in ("slice", "array", "unique-sorted") and s != "matrix")),
    note="obj static (NumPy values in the closure): an int, -1, a slice, an index array with a duplicate, a "
    "boolean mask, or sorted unique indices passed with assume_unique_indices=True (another code path); "
    "axis none flattens first. No large slice: jax turns a slice into unique indices and compares every "
    "index with every position (O(n * len(obj)) memory: 2 TB asked for n = 2**20 on jax 0.10.2, ~97 GB "
    "resident before the probe was killed on 0.11.2)",
)
def delete(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    n = t.shape[axis] if axis is not None else int(np.prod(t.shape))
    obj = _DELETE[t.p.obj](n)
    unique = t.p.obj == "unique-sorted"
    return t.call(lambda a: jnp.delete(a, obj, axis=axis, assume_unique_indices=unique), t.randn()).check(
        "numpy's delete", lambda outs, ins: np.array_equal(outs[0], np.delete(ins[0], obj, axis=axis))
    )


@cases.case(
    "jax.numpy.compress",
    dtype=["float32", "int32", "bool", "complex64"],
    shape={"small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"condition": ["static", "short", "traced-size"], "axis": ["none", "0", "1"]},
    mode=BOTH,
    where=lambda d, s, m, p: ((s in ("small", "large") and p["axis"] == "none") or (s == "matrix" and (p["axis"] != "none" or p["condition"] == "static")))
    and (d == "float32" or (s == "small" and p["condition"] == "static"))
    and (s != "large" or p["condition"] != "short")
    and ((p["condition"] == "traced-size") == (m == "compiled")),
    note="static: a NumPy boolean condition in the closure; short: a condition shorter than the axis (the "
    "rest is dropped); both eager only: the output's size depends on values, so under jit compress needs "
    "size=. traced-size (compiled): the condition is a traced argument, with size= (the true count) and "
    "fill_value",
)
def compress(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    n = t.shape[axis] if axis is not None else int(np.prod(t.shape))
    cond = t.numpy_rng().random(n) < 0.4
    if t.p.condition == "short":
        cond = cond[: n // 2]
    x = t.randn()
    if t.p.condition == "traced-size":
        size = int(cond.sum())
        return t.call(lambda c, a: jnp.compress(c, a, axis=axis, size=size, fill_value=0), _put(t, cond, "bool"), x).check(
            "numpy's compress", lambda outs, ins: np.array_equal(outs[0], np.compress(ins[0], ins[1], axis=axis))
        )
    return t.call(lambda a: jnp.compress(cond, a, axis=axis), x).check(
        "numpy's compress", lambda outs, ins: np.array_equal(outs[0], np.compress(cond, ins[0], axis=axis))
    )


@cases.case(
    "jax.numpy.tril",
    dtype=COMMON,
    shape={"square": (64, 64), "wide": (32, 48), "tall": (48, 32), "batched": (4, 16, 16), "empty": (0, 0), "transposed": (48, 32), "large": (1024, 1024)},
    params={"k": [-1, 0, 2]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "square" and p["k"] == 0))
    and (p["k"] == 0 or s in ("square", "wide", "large"))
    and (m == "eager" or (d == "float32" and s in ("square", "transposed", "large") and p["k"] != 2)),
    note="the lower triangle of the last two axes (batched: each of 4); k shifts the diagonal",
)
def tril(t: Ctx):
    jnp = t.fw.numpy
    k = t.p.k
    f = _maybe_t(t, lambda a: jnp.tril(a, k=k))
    return t.call(f, t.randn()).check("numpy's tril", lambda outs, ins: np.array_equal(outs[0], np.tril(ins[0].T if t.case.shape_name == "transposed" else ins[0], k=k)))


_SLICE = {
    "range": (10, 500, 1, 0),
    "stride3": (None, None, 3, 0),
    "negative": (-100, None, 1, 0),
    "axis1-stride2": (1, 127, 2, 1),
    "empty-range": (20, 20, 1, 0),
}


@cases.case(
    "jax.lax.slice_in_dim",
    dtype=["float32", "bfloat16", "int32", "bool", "complex64"],
    shape={"small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"slice": list(_SLICE)},
    mode=BOTH,
    where=lambda d, s, m, p: ((s == "matrix") == (_SLICE[p["slice"]][3] == 1) or (s == "matrix" and p["slice"] == "stride3"))
    and (s != "large" or p["slice"] in ("stride3", "range"))
    and (d == "float32" or (s == "small" and p["slice"] == "range"))
    and (m == "eager" or (d == "float32" and p["slice"] in ("stride3", "axis1-stride2", "negative"))),
    note="slice_in_dim(x, start, limit, stride, axis): None means the bound; a negative start counts from the "
    "end; start == limit gives an empty slice",
)
def slice_in_dim(t: Ctx):
    lax = t.fw.lax
    start, limit, stride, axis = _SLICE[t.p.slice]

    def ref(a):
        idx = [slice(None)] * a.ndim
        idx[axis] = slice(start, limit, stride)
        return a[tuple(idx)]

    return t.call(lambda a: lax.slice_in_dim(a, start, limit, stride, axis), t.randn()).check(
        "numpy slicing", lambda outs, ins: np.array_equal(outs[0], ref(ins[0]))
    )


@cases.case(
    "jax.numpy.size",
    dtype=["float32", "bool", "int32", "complex64"],
    shape={"scalar": (), "empty": (0, 3), "matrix": (64, 128), "large": (1024, 1024)},
    params={"axis": ["none", "0", "1"]},
    mode=BOTH,
    where=lambda d, s, m, p: (s in ("matrix", "empty", "large") or p["axis"] == "none")
    and (d == "float32" or (s == "matrix" and p["axis"] == "none"))
    and (m == "eager" or (d == "float32" and s in ("matrix", "large"))),
    note="a Python int (static even under jit), returned as a 0-d int array on the device",
)
def size(t: Ctx):
    jnp = t.fw.numpy
    axis = _AXES[t.p.axis]
    return t.call(lambda a: jnp.asarray(jnp.size(a, axis), dtype=jnp.int64), t.randn()).check(
        "numpy's size", lambda outs, ins: int(outs[0]) == np.size(ins[0], axis)
    )


@cases.case(
    "jax.numpy.size",
    dtype=["float64"],
    shape={"default": ()},
    params={"arg": ["numpy", "python-float"]},
    note="a NumPy array (2 x 3) and a Python float: size 6 and 1 (Python lists are deprecated inputs)",
)
def size_python(t: Ctx):
    jnp = t.fw.numpy
    value = np.ones((2, 3)) if t.p.arg == "numpy" else 2.5
    want = 6 if t.p.arg == "numpy" else 1
    return t.call(lambda: jnp.asarray(jnp.size(value), dtype=jnp.int64)).check(f"size {want}", lambda outs, ins: int(outs[0]) == want)


# (kind, dtype label, expected): JAX counts 0-d arrays as scalars, numpy does not.
_ISSCALAR = {
    "array-0d": ("float32", True),
    "array-1d": ("float32", False),
    "array-0d-int": ("int32", True),
    "array-empty": ("float32", False),
    "numpy-0d": ("float64", True),
    "numpy-scalar": ("float32", True),
    "python-float": ("float64", True),
    "python-complex": ("complex64", True),
    "python-bool": ("bool", True),
    "python-list": ("float64", False),
    "none": ("float64", False),
}


@cases.case(
    "jax.numpy.isscalar",
    dtype=["float32"],
    shape={"default": ()},
    params={"arg": list(_ISSCALAR)},
    mode=BOTH,
    where=lambda d, s, m, p: m == "eager" or p["arg"] in ("array-0d", "array-1d", "array-0d-int"),
    note="jnp.isscalar: True for Python and NumPy scalars and for 0-d arrays (also traced ones under jit: a "
    "documented difference from numpy.isscalar); the bool is returned as a device array. The dtype label is "
    "float32 for every variant; the argument kind is the `arg` parameter",
)
def isscalar(t: Ctx):
    jnp = t.fw.numpy
    kind = t.p.arg
    want = _ISSCALAR[kind][1]
    shapes = {"array-0d": (), "array-1d": (3,), "array-0d-int": (), "array-empty": (0,)}
    if kind in shapes:
        dt = "int32" if kind.endswith("int") else "float32"
        return t.call(lambda a: jnp.asarray(jnp.isscalar(a)), t.randn(shapes[kind], dtype=dt)).check(f"is {want}", lambda outs, ins: bool(outs[0]) is want)
    value = {
        "numpy-0d": np.array(1.5),
        "numpy-scalar": np.float32(1.5),
        "python-float": 1.5,
        "python-complex": 1 + 2j,
        "python-bool": True,
        "python-list": [1.0, 2.0],
        "none": None,
    }[kind]
    return t.call(lambda: jnp.asarray(jnp.isscalar(value))).check(f"is {want}", lambda outs, ins: bool(outs[0]) is want)


# --------------------------------------------------------------------------
# existing first-cut functions (ids kept), and more of their variants
# --------------------------------------------------------------------------

_EINSUM = "ij,jk,kl->il"


def _path_valid(n_operands: int):
    """Replay the contraction path (steps padded with -1): it must end with one operand."""

    def check(outs, ins):
        steps = outs[0]
        live = n_operands
        for row in np.atleast_2d(steps):
            picked = [int(v) for v in row if v >= 0]
            if len(picked) < 1 or len(set(picked)) != len(picked) or not all(0 <= v < live for v in picked):
                return False
            live = live - len(picked) + 1
        return live == 1

    return check


def _path_contracts_everything(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    return _path_valid(len(ins))(outs, ins)


def _path_array(jnp, steps):
    width = max([len(s) for s in steps if isinstance(s, tuple)] + [1])
    rows = [list(s) + [-1] * (width - len(s)) for s in steps if isinstance(s, tuple)]
    return jnp.asarray(np.asarray(rows, dtype=np.int64).reshape(len(rows), width))


@cases.case(
    "jax.numpy.einsum_path",
    dtype=["float32"],
    shape={"chain3": ((8, 16), (16, 32), (32, 4)), "chain3-large": ((1024, 64), (64, 1024), (1024, 8))},
    note="returns Python objects (a list of index tuples and a text report); the case returns the path as an "
    "int64 array on the device (the report is dropped) so it compares across devices; the optimiser only "
    "reads shapes",
)
def einsum_path(t: Ctx):
    jnp = t.fw.numpy
    operands = [t.randn(s) for s in t.shape]

    def path(*ops):
        steps, _report = jnp.einsum_path(_EINSUM, *ops, optimize="greedy")
        return _path_array(jnp, steps[1:] if steps and steps[0] == "einsum_path" else steps)

    return t.call(path, *operands).check("path contracts all operands pairwise", _path_contracts_everything)


_EINSUM_MORE = {
    "batched": ("bij,bjk,bkl->bil", ((16, 8, 32), (16, 32, 64), (16, 64, 4))),
    "chain4": ("ab,bc,cd,de->ae", ((64, 8), (8, 128), (128, 4), (4, 256))),
    "outer-trace": ("i,j,kk->ij", ((100,), (50,), (20, 20))),
    "hadamard": ("ij,ij,ij->ij", ((32, 32), (32, 32), (32, 32))),
}


@cases.case(
    "jax.numpy.einsum_path",
    dtype=["float32"],
    shape={k: v[1] for k, v in _EINSUM_MORE.items()},
    params={"optimize": ["greedy", "optimal"]},
    where=lambda d, s, m, p: p["optimize"] == "optimal" or s in ("batched", "chain4"),
    note="batch dims, a 4-operand chain, an outer product with a trace, elementwise products; the optimal "
    "search vs greedy; the path (padded with -1) must contract every operand exactly once",
)
def einsum_path_more(t: Ctx):
    jnp = t.fw.numpy
    subscripts, shapes = _EINSUM_MORE[t.case.shape_name]
    operands = [t.randn(s) for s in shapes]
    how = t.p.optimize

    def path(*ops):
        steps, _report = jnp.einsum_path(subscripts, *ops, optimize=how)
        return _path_array(jnp, steps[1:] if steps and steps[0] == "einsum_path" else steps)

    return t.call(path, *operands).check("path contracts every operand", _path_valid(len(shapes)))


def _top_k_consistent(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    values, idx, x = outs[0], outs[1], ins[0]
    picked = np.take_along_axis(x, idx.astype(np.int64), axis=-1)
    descending = np.all(np.diff(values.astype(np.float64), axis=-1) <= 0)
    return bool(descending and np.array_equal(picked, values))


def _top_k_is_top(k: int):
    def check(outs, ins):
        if not _top_k_consistent(outs, ins):
            return False
        want = -np.sort(-ins[0].astype(np.float64), axis=-1)[..., :k]
        return bool(np.array_equal(outs[0].astype(np.float64), want))

    return check


@cases.case(
    "jax.lax.top_k",
    dtype=FLOATS + ["int32"],
    shape={"small": (1000,), "matrix": (64, 512), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "large"),
    note="k=5 along the last axis; ties are documented to keep the lower index first, so indices compare too",
)
def top_k(t: Ctx):
    lax = t.fw.lax
    return t.call(lambda a: lax.top_k(a, 5), t.randn()).check("values are the top 5, descending, equal x[indices]", _top_k_is_top(5))


@cases.case(
    "jax.lax.top_k",
    dtype=["float32", "bfloat16", "int32"],
    shape={"small": (1000,), "matrix": (64, 512)},
    params={"k": [1, 64, "all"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "matrix" and p["k"] == 64)) and (m == "eager" or (d == "float32" and s == "matrix")),
    note="k=1 (an argmax), 64, and k = the axis length (a full descending sort); bfloat16 and int32 have many ties",
)
def top_k_k(t: Ctx):
    lax = t.fw.lax
    k = t.shape[-1] if t.p.k == "all" else t.p.k
    return t.call(lambda a: lax.top_k(a, k), t.randn()).check(f"values are the top {k}, descending, equal x[indices]", _top_k_is_top(k))


def _svd_reconstructs(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    u, s, vh = (o.astype(np.complex128) for o in outs)
    a = ins[0].astype(np.complex128)
    eps = 1e-10 if outs[1].dtype == np.float64 else 1e-4
    rebuilt = (u * s[..., None, :]) @ vh
    eye = np.eye(u.shape[-1])
    orthonormal = np.allclose(np.swapaxes(u.conj(), -1, -2) @ u, eye, atol=100 * eps)
    return bool(orthonormal and np.linalg.norm(rebuilt - a) <= eps * 10 * max(1.0, np.linalg.norm(a)))


def svd(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    if t.p.part == "values":
        return t.call(lambda a: jnp.linalg.svd(a, compute_uv=False), x).check(
            "numpy's singular values", near(t, lambda a: np.linalg.svd(a, compute_uv=False), scale=50.0)
        )
    return t.call(lambda a: jnp.linalg.svd(a, full_matrices=False), x).no_compare().check(
        "U diag(S) Vh rebuilds the input", _svd_reconstructs
    )


# A backward-stable SVD bounds |d sigma| by about p(n) eps sigma_max, not relative to each sigma: the
# tolerance is absolute, scaled to sigma_max (about 10 for 32x16, 45 for 512x512 standard normal).
for _shape, _atol in (({"small": (32, 16)}, 1e-4), ({"large": (512, 512)}, 2e-2)):
    case(
        "jax.numpy.linalg.svd",
        dtype=["float16", "float32", "float64", "complex64"],
        shape=_shape,
        params={"part": ["values", "full"]},
        mode=["eager", "compiled"],
        where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "small" and p["part"] == "values"),
        rtol={"float32": 1e-4, "complex64": 1e-4},
        atol={"float32": _atol, "complex64": _atol},
        note="values: singular values only, compared across devices within an absolute tolerance scaled to "
        "sigma_max (the stability bound); full: U and V are defined only up to sign/phase, so they are not "
        "compared but must rebuild the input with orthonormal U; float16 is rejected (a finding)",
    )(svd)


@case(
    "jax.numpy.linalg.svd",
    dtype=["float32", "float64", "complex64"],
    shape={"wide": (16, 32), "batched": (8, 16, 16), "square": (64, 64)},
    params={"part": ["values", "full", "full_matrices", "hermitian"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["part"] != "hermitian" or s == "square")
    and (p["part"] != "full_matrices" or s == "wide")
    and (d == "float32" or (p["part"] in ("values", "full") and s == "batched"))
    and (m == "eager" or (d == "float32" and s == "batched" and p["part"] in ("values", "full"))),
    rtol={"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4},
    atol={"float32": 1e-4, "complex64": 1e-4},
    note="wide (m < n), batched (8 matrices), square; full_matrices=True gives square U and Vh (wide: Vh "
    "32x32, only the first 16 rows rebuild); hermitian=True on a symmetric input (eigendecomposition path)",
)
def svd_more(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    part = t.p.part
    if part == "hermitian":
        x = _put(t, (lambda h: h + h.T)(_host(t)))
        return t.call(lambda a: jnp.linalg.svd(a, compute_uv=False, hermitian=True), x).check(
            "numpy's singular values", near(t, lambda a: np.linalg.svd(a, compute_uv=False, hermitian=True), scale=50.0)
        )
    if part == "values":
        return t.call(lambda a: jnp.linalg.svd(a, compute_uv=False), x).check(
            "numpy's singular values", near(t, lambda a: np.linalg.svd(a, compute_uv=False), scale=50.0)
        )
    if part == "full_matrices":

        def rebuilds(outs, ins):
            u, s, vh = outs
            if u.shape != (16, 16) or vh.shape != (32, 32):
                return False
            return _svd_reconstructs([u, s, vh[:16]], ins)

        return t.call(lambda a: jnp.linalg.svd(a, full_matrices=True), x).no_compare().check("square U, Vh; rebuilds", rebuilds)
    return t.call(lambda a: jnp.linalg.svd(a, full_matrices=False), x).no_compare().check("U diag(S) Vh rebuilds the input", _svd_reconstructs)


def _lu_rebuilds(permute_l: bool):
    def check(outs, ins):
        a = ins[0].astype(np.complex128)
        eps = 1e-10 if outs[-1].dtype in (np.float64, np.complex128) else 1e-4
        if permute_l:
            pl, u = (o.astype(np.complex128) for o in outs)
            rebuilt = pl @ u
        else:
            p, l, u = (o.astype(np.complex128) for o in outs)
            unit = np.allclose(np.diagonal(l, axis1=-2, axis2=-1), 1)
            lower = np.allclose(np.triu(l, 1), 0) and np.allclose(np.tril(u, -1), 0)
            if not (unit and lower):
                return False
            rebuilt = p @ l @ u
        return bool(np.linalg.norm(rebuilt - a) <= eps * 10 * max(1.0, np.linalg.norm(a)))

    return check


@case(
    "jax.scipy.linalg.lu",
    dtype=["float16", "float32", "float64", "complex64"],
    shape={"square": (32, 32), "tall": (48, 32), "wide": (32, 48), "batched": (4, 16, 16), "large": (512, 512)},
    params={"permute_l": [False, True]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "square" and not p["permute_l"]))
    and (not p["permute_l"] or s in ("square", "large"))
    and (m == "eager" or (d == "float32" and s in ("square", "batched") and not p["permute_l"])),
    rtol={"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4},
    atol={"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4},
    note="partial pivoting; P, L, U (permute_l: P@L, U) are unique for a random matrix, so they compare across "
    "devices (large: not compared, the pivots may tie in rounding) and must rebuild the input; float16 is "
    "rejected by the LAPACK path (a finding)",
)
def lu(t: Ctx):
    from jax.scipy import linalg

    permute_l = t.p.permute_l
    call = t.call(lambda a: linalg.lu(a, permute_l=permute_l), t.randn()).check("rebuilds the input", _lu_rebuilds(permute_l))
    return call.no_compare() if t.case.shape_name == "large" else call


def _conv_close(np_fn, name: str, scale: float = 1.0):
    r = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5, "float64": 1e-10, "complex64": 2e-5}.get(name, 2e-5)

    def check(outs, ins):
        a, v = _as64(ins[0]), _as64(ins[1])
        want = np_fn(a, v)
        bound = r * scale * np_fn(np.abs(a), np.abs(v))  # the sum of |products| bounds the rounding error
        got = _as64(outs[0])
        return got.shape == want.shape and bool(np.all(np.abs(got - want) <= bound + 1e-6))

    return check


_CONV1 = {"long-short": ((1000,), (31,)), "short-long": ((31,), (1000,)), "equal": ((64,), (64,)), "large": ((1 << 16,), (129,))}


@case(
    "jax.numpy.convolve",
    dtype=["float16", "bfloat16", "float32", "float64", "complex64", "int32"],
    shape={k: v for k, v in _CONV1.items()},
    params={"mode": ["full", "same", "valid"], "precision": ["default", "highest"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["precision"] == "default" or (d == "float32" and s != "equal" and p["mode"] == "full"))
    and (d == "float32" or (s == "long-short" and p["mode"] == "full"))
    and (m == "eager" or (d == "float32" and s in ("long-short", "large") and p["mode"] in ("full", "same") and p["precision"] == "default")),
    rtol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    atol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    note="mode full/same/valid (short-long: jnp swaps the operands, as numpy does); precision: the default "
    "(a GPU may use TF32 for float32, a finding) or HIGHEST; int32 convolutions come back float32 in jax "
    "(numpy keeps int); compared with numpy.convolve within the rounding bound sum|a||v|",
)
def convolve(t: Ctx):
    jnp = t.fw.numpy
    a_shape, v_shape = t.shape
    a, v = t.randn(a_shape), t.randn(v_shape)
    how = t.p.mode
    precision = None if t.p.precision == "default" else t.fw.lax.Precision.HIGHEST
    return t.call(lambda x, y: jnp.convolve(x, y, mode=how, precision=precision), a, v).check(
        "numpy's convolve", _conv_close(lambda x, y: np.convolve(x, y, mode=how), t.dtype_name, scale=1.0 if precision else 30.0)
    )


_CONV2 = {"image": ((32, 32), (5, 5)), "rect": ((20, 40), (7, 3)), "swapped": ((5, 5), (32, 32)), "large": ((512, 512), (9, 9))}


@case(
    "jax.scipy.signal.convolve2d",
    dtype=["float16", "bfloat16", "float32", "float64", "complex64", "int32"],
    shape={k: v for k, v in _CONV2.items()},
    params={"mode": ["full", "same", "valid"], "precision": ["default", "highest"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["precision"] == "default" or (d == "float32" and s in ("image", "large")))
    and (d == "float32" or (s == "image" and p["mode"] == "same"))
    and (s != "rect" or p["mode"] == "full")
    and (m == "eager" or (d == "float32" and s in ("image", "large") and p["mode"] == "same")),
    rtol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    atol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    note="boundary='fill' (the only boundary jax implements); swapped: the kernel larger than the image "
    "(valid mode then swaps, as scipy does); precision default (TF32 possible on GPU) or HIGHEST; "
    "compared with scipy.signal.convolve2d within the rounding bound",
)
def convolve2d(t: Ctx):
    from jax.scipy import signal

    a_shape, v_shape = t.shape
    a, v = t.randn(a_shape), t.randn(v_shape)
    how = t.p.mode
    precision = None if t.p.precision == "default" else t.fw.lax.Precision.HIGHEST
    return t.call(lambda x, y: signal.convolve2d(x, y, mode=how, precision=precision), a, v).check(
        "scipy's convolve2d", _conv_close(lambda x, y: _special("scipy.signal").convolve2d(x, y, mode=how), t.dtype_name, scale=1.0 if precision else 30.0)
    )


@cases.case(
    "jax.nn.one_hot",
    dtype=["float32", "bfloat16", "float16", "int32", "bool"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "large": (1 << 17,)},
    note="10 classes; dtype is the output's; indices include -1 and 10, which must give all-zero rows",
)
def one_hot(t: Ctx):
    jax = t.fw
    idx = t.numpy_rng().integers(-1, 11, size=t.shape).astype(np.int32)
    dtype = t.dtype

    def check(outs, ins):
        o = outs[0].astype(np.float64)
        i = ins[0]
        valid = (i >= 0) & (i < 10)
        return bool(np.array_equal(o.sum(-1), valid.astype(np.float64)) and np.array_equal(o, (np.arange(10) == i[..., None]).astype(np.float64)))

    return t.call(lambda i: jax.nn.one_hot(i, 10, dtype=dtype), t.from_numpy(idx)).check("rows sum to 1 (0 out of range), hot at the index", check)


@cases.case(
    "jax.nn.one_hot",
    dtype=["float32", "int32"],
    shape={"matrix": (64, 128), "large": (1 << 12,)},
    params={"form": ["axis0", "classes1000"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "matrix") and (m == "eager" or d == "float32"),
    note="axis0: the class axis first; classes1000: 1000 classes (large: 4096 x 1000 output)",
)
def one_hot_more(t: Ctx):
    jax = t.fw
    classes = 1000 if t.p.form == "classes1000" else 10
    axis = 0 if t.p.form == "axis0" else -1
    idx = t.numpy_rng().integers(0, classes, size=t.shape).astype(np.int32)
    dtype = t.dtype

    def check(outs, ins):
        o = np.moveaxis(outs[0], axis, -1).astype(np.float64)
        return bool(np.all(o.sum(-1) == 1) and np.array_equal(np.argmax(o, -1), ins[0]))

    return t.call(lambda i: jax.nn.one_hot(i, classes, dtype=dtype, axis=axis), t.from_numpy(idx)).check("rows sum to 1, hot at the index", check)


# --------------------------------------------------------------------------
# random
# --------------------------------------------------------------------------


@cases.case(
    "jax.random.PRNGKey",
    dtype=["int64"],
    shape={"default": ()},
    params={"seed": ["0", "42", "2**31-1", "-1", "2**40"], "impl": ["threefry2x32", "rbg"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["impl"] == "threefry2x32" or p["seed"] in ("0", "2**40")) and (m == "eager" or p["seed"] in ("42", "2**40")),
    note="a Python int seed (-1 and 2**40 exercise the 64-bit split with x64 on); the raw uint32 key data is the "
    "output. Key creation is bit manipulation: identical on every backend for both impls",
)
def prng_key(t: Ctx):
    jax = t.fw
    seed = {"0": 0, "42": 42, "2**31-1": 2**31 - 1, "-1": -1, "2**40": 2**40}[t.p.seed]
    impl = t.p.impl

    def check(outs, ins):
        key = outs[0]
        if impl != "threefry2x32":
            return key.dtype == np.uint32 and key.shape == (4,)
        s = seed % (1 << 64)
        return key.dtype == np.uint32 and np.array_equal(key, np.array([s >> 32, s & 0xFFFFFFFF], dtype=np.uint32))

    return t.call(lambda: jax.random.PRNGKey(seed, impl=impl)).check("the seed's two 32-bit halves (threefry)", check)


@cases.case(
    "jax.random.PRNGKey",
    dtype=["int32", "int64", "uint8"],
    shape={"small": (1000,), "large": (1 << 16,)},
    params={"form": ["vmap-seeds"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "int32" or s == "small") and (m == "eager" or d == "int32"),
    note="jax.vmap(PRNGKey) over an array of seeds (traced seeds under jit)",
)
def prng_key_vmap(t: Ctx):
    jax = t.fw
    seeds = t.randn()

    def check(outs, ins):
        u = ins[0].astype(np.int64).view(np.uint64)  # sign-extended to 64 bits
        # 32-bit and narrower seeds: the high word is 0 (a logical shift by 32 of a 32-bit value)
        hi = (u >> np.uint64(32)) if ins[0].dtype.itemsize == 8 else np.zeros_like(u)
        want = np.stack([hi, u & np.uint64(0xFFFFFFFF)], -1).astype(np.uint32)
        return bool(np.array_equal(outs[0], want))

    return t.call(lambda s: jax.vmap(jax.random.PRNGKey)(s), seeds).check("each seed's two 32-bit halves", check)


@cases.case(
    "jax.random.PRNGKey",
    dtype=["float32", "bfloat16", "float64"],
    shape={"small": (1000,), "large": (LARGE,)},
    params={"use": ["split-uniform", "normal"], "impl": ["threefry2x32", "rbg"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["impl"] == "threefry2x32"))
    and (m == "eager" or (d == "float32" and p["impl"] == "threefry2x32")),
    note="a key then used: split + uniform in [0, 1), or normal. threefry2x32 is a counter-based hash in "
    "plain integer ops, expected bit-identical across backends, so compared; rbg uses XLA's "
    "RngBitGenerator, whose bits are documented to differ across backends: not compared, properties only",
)
def prng_key_sample(t: Ctx):
    jax = t.fw
    impl, use, shape, dtype = t.p.impl, t.p.use, tuple(t.shape), t.dtype

    def f():
        # PRNGKey returns raw key data; a non-default impl must be named again to use it
        key = jax.random.wrap_key_data(jax.random.PRNGKey(1234, impl=impl), impl=impl)
        if use == "normal":
            return jax.random.normal(key, shape, dtype=dtype)
        k1, k2 = jax.random.split(key)
        return jax.random.uniform(k2, shape, dtype=dtype)

    def check(outs, ins):
        x = outs[0].astype(np.float64)
        if not np.all(np.isfinite(x)):
            return False
        if use == "normal":
            return abs(x.mean()) < 0.2 and 0.8 < x.std() < 1.2
        return bool(np.all((x >= 0) & (x < 1)) and abs(x.mean() - 0.5) < 0.05)

    call = t.call(f).check("in range, mean and spread plausible", check)
    return call.no_compare() if impl == "rbg" else call


# --------------------------------------------------------------------------
# transformations and pytrees
# --------------------------------------------------------------------------


@cases.case(
    "jax.named_call",
    dtype=INEXACT,
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"use": ["call", "grad"]},
    mode=BOTH,
    where=lambda d, s, m, p: not (p["use"] == "grad" and d == "complex64")
    and (d == "float32" or s == "small")
    and (p["use"] == "call" or s != "scalar" or d == "float32")
    and (m == "eager" or d == "float32"),
    note="jax.named_call(f, name=...) only names f's computation in the jaxpr/HLO: values must equal f's; "
    "grad: the gradient of sum(f) through the named call",
)
def named_call(t: Ctx):
    jax = t.fw
    jnp = jax.numpy

    def block(x):
        return jnp.sin(x) * 2 + x

    named = jax.named_call(block, name="mudjack_block")
    if t.p.use == "call":
        return t.call(lambda a: named(a), t.randn()).check("sin(x)*2 + x", near(t, lambda a: np.sin(a) * 2 + a, scale=4.0))
    grad = jax.grad(lambda a: jnp.sum(named(a)))
    return t.call(grad, t.randn()).check("2 cos(x) + 1", near(t, lambda a: 2 * np.cos(a) + 1, scale=4.0))


def vjp(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    form = t.p.f
    x = t.randn()
    if form == "elementwise":
        ct = t.randn()

        def run(a, c):
            out, pull = jax.vjp(lambda z: jnp.sin(z) * z, a)
            return out, pull(c)[0]

        return t.call(run, x, ct).check(
            "pullback = ct (cos(x) x + sin(x))", near(t, lambda a, c: c * (np.cos(a) * a + np.sin(a)), out=1, scale=8.0)
        )
    if form == "matmul":
        v = t.randn((t.shape[1],))
        ct = t.randn((t.shape[0],))
        hi = jax.lax.Precision.HIGHEST

        def run(w, vv, c):
            out, pull = jax.vjp(lambda ww: jnp.tanh(jnp.matmul(ww, vv, precision=hi)), w)
            return out, pull(c)[0]

        def ref(w, vv, c):
            y = np.tanh(w @ vv)
            return np.outer(c * (1 - y * y), vv)

        return t.call(run, x, v, ct).check("pullback = outer(ct (1 - y^2), v)", near(t, ref, out=1, scale=50.0))
    if form == "reduce":

        def run(a):
            out, pull = jax.vjp(lambda z: jnp.sum(z * z), a)
            return out, pull(jnp.ones((), out.dtype))[0]

        return t.call(run, x).check("pullback = 2x", near(t, lambda a: 2 * a, out=1))
    if form == "has_aux":
        ct = t.randn()

        def run(a, c):
            out, pull, aux = jax.vjp(lambda z: (jnp.exp(z), jnp.max(z)), a, has_aux=True)
            return out, pull(c)[0], aux

        return t.call(run, x, ct).check("pullback = ct exp(x); aux = max(x)", lambda outs, ins: near(t, lambda a, c: c * np.exp(a), out=1, scale=8.0)(outs, ins) and np.allclose(outs[2], ins[0].max()))
    y, ct_a, ct_b = t.randn(), t.randn(), t.randn()

    def run(a, b, ca, cb):
        out, pull = jax.vjp(lambda d: {"prod": d["a"] * d["b"], "sum": d["a"] + d["b"]}, {"a": a, "b": b})
        return out, pull({"prod": ca, "sum": cb})[0]

    # outputs flattened in sorted-key order: out["prod"], out["sum"], grad["a"], grad["b"]
    return t.call(run, x, y, ct_a, ct_b).check(
        "grad a = ca b + cb, grad b = ca a + cb",
        lambda outs, ins: near(t, lambda a, b, ca, cb: ca * b + cb, out=2, scale=4.0)(outs, ins) and near(t, lambda a, b, ca, cb: ca * a + cb, out=3, scale=4.0)(outs, ins),
    )


_VJP_NOTE = (
    "vjp returns (f(x), pullback); the case returns f(x) and pullback(ct) for a random cotangent ct. "
    "elementwise: sin(x)*x, pullback ct*(cos(x) x + sin(x)); matmul: tanh(W @ v) at HIGHEST precision "
    "wrt W (a 128-term dot: half-precision tolerances allow for the accumulation order and width, which "
    "differ by backend); reduce: sum(x**2) (scalar cotangent); has_aux: an auxiliary output passed through; "
    "pytree: a dict of inputs and of outputs. Complex: JAX's convention ct * f'(x) for holomorphic f"
)


def _vjp_where(matmul: bool):
    def where(d, s, m, p):
        if (p["f"] == "matmul") != matmul:
            return False
        return (
            (p["f"] == "elementwise" or s == "matrix" or (p["f"] == "reduce" and s == "large"))
            and (s != "matrix" or p["f"] != "elementwise")
            and (d == "float32" or (p["f"] in ("elementwise", "matmul") and s in ("small", "matrix")))
            and (m == "eager" or (d == "float32" and s in ("small", "matrix", "large")))
        )

    return where


for _matmul, _rtol, _atol in (
    (False, {"float32": 1e-5, "complex64": 1e-5}, None),
    (True, {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-5, "complex64": 1e-5}, {"float16": 2e-2, "bfloat16": 5e-2}),
):
    case(
        "jax.vjp",
        dtype=INEXACT,
        shape={"scalar": (), "small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
        params={"f": ["elementwise", "matmul", "reduce", "has_aux", "pytree"]},
        mode=BOTH,
        where=_vjp_where(_matmul),
        rtol=_rtol,
        atol=_atol,
        note=_VJP_NOTE,
    )(vjp)


def _jaxpr_summary(jnp, closed):
    """A jaxpr as ints: equation, input, output and constant counts, and a crc32 of the primitive names."""
    import zlib

    jaxpr = closed.jaxpr
    names = ",".join(str(e.primitive) for e in jaxpr.eqns)
    return jnp.asarray(
        np.array([len(jaxpr.eqns), len(jaxpr.invars), len(jaxpr.outvars), len(closed.consts), zlib.crc32(names.encode()) & 0x7FFFFFFF], dtype=np.int64)
    )


@cases.case(
    "jax.make_jaxpr",
    dtype=INEXACT + ["int32"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"f": ["chain", "jit-inside", "cond", "scan", "static-arg", "return-shape"]},
    where=lambda d, s, m, p: (d == "float32" or (p["f"] == "chain" and s == "small"))
    and (p["f"] == "chain" or s == "small")
    and not (d == "int32" and p["f"] != "chain"),
    note="tracing only (no device work but the evaluation): the case returns the jaxpr as ints (equation, "
    "input, output, constant counts, crc32 of the primitive names -- version-specific, device-independent) "
    "and the jaxpr evaluated on the input with jax.core.eval_jaxpr, checked against numpy. chain: "
    "sin/mul/add; jit-inside: a nested jit (one pjit/jit equation); cond: lax.cond; scan: lax.scan of 5 "
    "steps; static-arg: static_argnums; return-shape: return_shape=True also gives a ShapeDtypeStruct",
)
def make_jaxpr(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    form = t.p.f
    x = t.randn()

    def chain(a):
        return jnp.sin(a) * 2 + a

    ref = lambda a: np.sin(a) * 2 + a  # noqa: E731
    if form == "jit-inside":
        f = jax.jit(chain)
    elif form == "cond":
        f = lambda a: jax.lax.cond(jnp.sum(a.real) > 0, chain, lambda z: z * 3, a)  # noqa: E731
        ref = lambda a: np.sin(a) * 2 + a if np.sum(a.real) > 0 else a * 3  # noqa: E731
    elif form == "scan":

        def f(a):
            def step(c, _):
                return c * 0.5 + 1, None

            return jax.lax.scan(step, a, None, length=5)[0]

        ref = lambda a: (((((a * 0.5 + 1) * 0.5 + 1) * 0.5 + 1) * 0.5 + 1) * 0.5 + 1)  # noqa: E731
    else:
        f = chain

    def run(a):
        if form == "static-arg":
            closed = jax.make_jaxpr(lambda z, n: chain(z) * n, static_argnums=1)(a, 3)
            value = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, a)[0]
            return _jaxpr_summary(jnp, closed), value
        if form == "return-shape":
            closed, shape = jax.make_jaxpr(f, return_shape=True)(a)
            value = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, a)[0]
            return _jaxpr_summary(jnp, closed), value, jnp.asarray(np.array(shape.shape + (np.dtype(shape.dtype).itemsize,), dtype=np.int64))
        closed = jax.make_jaxpr(f)(a)
        value = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, a)[0]
        return _jaxpr_summary(jnp, closed), value

    want_ref = (lambda a: ref(a) * 3) if form == "static-arg" else ref
    return t.call(run, x).check("the jaxpr has 1 input, 1 output and evaluates to f(x)", lambda outs, ins: outs[0][1] == 1 and outs[0][2] == 1 and near(t, want_ref, out=1, scale=4.0)(outs, ins))


@cases.case(
    "jax.disable_jit",
    dtype=FLOATS,
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"use": ["nested-jit", "python-control", "concrete"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["use"] == "nested-jit"))
    and (p["use"] == "nested-jit" or s == "small")
    and (m == "eager" or (p["use"] == "nested-jit" and d == "float32")),
    note="with jax.disable_jit(): a jitted function runs op by op. nested-jit: its value equals the "
    "compiled one; python-control: Python `if` on an array value inside a jitted function, which only "
    "works with jit disabled; concrete: inside the jitted function the argument is not a Tracer (returned "
    "as a 0/1 flag). compiled: the case's own jax.jit around the disable_jit block (inner jits are inlined)",
)
def disable_jit(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    use = t.p.use
    x = t.randn()
    if use == "nested-jit":
        g = jax.jit(lambda a: jnp.tanh(a) * a)

        def run(a):
            with jax.disable_jit():
                return g(a)

        return t.call(run, x).check("tanh(x) x", near(t, lambda a: np.tanh(a) * a, scale=4.0))
    if use == "python-control":

        @jax.jit
        def g(a):
            if float(jnp.sum(a)) > 0:  # needs a concrete value
                return a * 2
            return -a

        def run(a):
            with jax.disable_jit():
                return g(a)

        return t.call(run, x).check("2x if sum > 0 else -x", near(t, lambda a: a * 2 if a.sum() > 0 else -a))

    @jax.jit
    def g(a):
        return a + 1, jnp.asarray(0 if isinstance(a, jax.core.Tracer) else 1, dtype=jnp.int32)

    def run(a):
        with jax.disable_jit():
            return g(a)

    return t.call(run, x).check("the argument was concrete", lambda outs, ins: int(outs[1]) == 1)


@cases.case(
    "jax.lax.stop_gradient",
    dtype=FLOATS + ["complex64", "int32"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"use": ["value", "grad", "pytree"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["use"] == "value" or d in FLOATS)
    and (d == "float32" or s == "small")
    and (p["use"] != "pytree" or s == "small")
    and (m == "eager" or (d == "float32" and s != "scalar")),
    note="value: the identity on values (ints too); grad: d/dx sum(x * stop_gradient(x)) = x (not 2x); "
    "pytree: a dict of arrays, every leaf stopped",
)
def stop_gradient(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    lax = jax.lax
    x = t.randn()
    use = t.p.use
    if use == "value":
        return t.call(lambda a: lax.stop_gradient(a * 2), x).check("2x", near(t, lambda a: a * 2))
    if use == "grad":
        g = jax.grad(lambda a: jnp.sum(a * lax.stop_gradient(a)).astype(jnp.float32))
        return t.call(g, x).check("gradient is x, not 2x", near(t, lambda a: a, scale=4.0))
    y = t.randn()

    def run(a, b):
        g = jax.grad(lambda d: jnp.sum(d["a"] * d["b"] + lax.stop_gradient(d)["a"] * d["a"]).astype(jnp.float32))
        return g({"a": a, "b": b})

    return t.call(run, x, y).check("grad a = b + a, grad b = a", lambda outs, ins: near(t, lambda a, b: b + a, out=0, scale=4.0)(outs, ins) and near(t, lambda a, b: a, out=1, scale=4.0)(outs, ins))


@cases.case(
    "jax.tree_util.Partial",
    dtype=["float32", "bfloat16", "float64", "int32"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"use": ["call", "kwargs", "nested", "jit-arg", "flatten"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["use"] in ("call", "jit-arg")))
    and (p["use"] in ("call", "jit-arg") or s == "small")
    and (m == "eager" or (d == "float32" and p["use"] in ("call", "nested", "jit-arg") and s != "scalar")),
    note="Partial(fn, *args, **kw) is a pytree whose leaves are the bound arrays. call: Partial(jnp.add, a)(b); "
    "kwargs: bound keyword array; nested: Partial of a Partial; jit-arg: the Partial itself is an argument "
    "of a jitted function (its leaves are traced, fn is static); flatten: its leaves and a rebuilt copy",
)
def partial(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    Partial = jax.tree_util.Partial
    a, b = t.randn(), t.randn()
    use = t.p.use
    if use == "call":
        return t.call(lambda x, y: Partial(jnp.add, x)(y), a, b).check("a + b", near(t, np.add))
    if use == "kwargs":
        return t.call(lambda x, y: Partial(jnp.clip, min=x)(y), a, b).check("clip(b, min=a)", near(t, lambda x, y: np.maximum(y, x)))
    if use == "nested":
        return t.call(lambda x, y: Partial(Partial(jnp.clip, y), x)(x + 1), a, b).check("clip(b, a, a + 1)", near(t, lambda x, y: np.clip(y, x, x + 1)))
    if use == "jit-arg":
        apply = jax.jit(lambda p, y: p(y))
        return t.call(lambda x, y: apply(Partial(jnp.multiply, x), y), a, b).check("a * b", near(t, np.multiply))

    def run(x, y):
        p = Partial(jnp.subtract, x, y)
        leaves, treedef = jax.tree_util.tree_flatten(p)
        rebuilt = jax.tree_util.tree_unflatten(treedef, [leaf * 2 for leaf in leaves])
        return jnp.asarray(len(leaves), dtype=jnp.int32), rebuilt()

    return t.call(run, a, b).check("2 leaves; rebuilt(2a, 2b)() = 2(a - b)", lambda outs, ins: int(outs[0]) == 2 and near(t, lambda x, y: 2 * (x - y), out=1)(outs, ins))


def _trees(jnp, a, b, c):
    """The trees of tree_util_test.py, with arrays as leaves."""
    import collections

    Point = collections.namedtuple("Point", ["x", "y"])
    return {
        "dict": {"w": a, "b": b, "z": c},
        "nested": [a, (b, [c]), {"k": a}],
        "namedtuple": Point(a, (b, c)),
        "none-leaves": {"a": a, "gap": None, "rest": [None, b, c]},
        "single": a,
    }


@cases.case(
    "jax.tree_util.tree_map",
    dtype=["float32", "bfloat16", "int32", "complex64"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"tree": ["dict", "nested", "namedtuple", "none-leaves", "single"], "use": ["one-tree", "two-trees", "is_leaf"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["use"] == "one-tree" or p["tree"] in ("nested", "dict"))
    and (p["tree"] != "single" or p["use"] == "one-tree")
    and (d == "float32" or (s == "small" and p["tree"] == "nested" and p["use"] == "one-tree"))
    and (s == "small" or (p["tree"] == "dict" and p["use"] == "one-tree"))
    and (m == "eager" or (d == "float32" and p["tree"] in ("dict", "nested") and p["use"] != "is_leaf")),
    note="one-tree: f(x) = 2x + 1 on every leaf (None is an empty subtree, kept); two-trees: f(x, y) = x * y "
    "over two trees of one structure; is_leaf: tuples are leaves, so f gets each tuple whole. Outputs are "
    "the result tree's leaves in tree order",
)
def tree_map(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    tu = jax.tree_util
    kind, use = t.p.tree, t.p.use
    a, b, c = t.randn(), t.randn(), t.randn()

    def pick(x, y, z):
        return _trees(jnp, x, y, z)[kind]

    if use == "one-tree":

        def run(x, y, z):
            return tu.tree_leaves(tu.tree_map(lambda v: v * 2 + 1, pick(x, y, z)))

        def check(outs, ins):
            want = [v * 2 + 1 for v in _leaves_np(pick(*[_as64(i) for i in ins]))]
            return len(outs) == len(want) and all(_allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs, want))

        return t.call(run, a, b, c).check("2x + 1 on every leaf, in order", check)
    if use == "two-trees":

        def run(x, y, z):
            return tu.tree_leaves(tu.tree_map(lambda u, v: u * v, pick(x, y, z), pick(z, x, y)))

        def check(outs, ins):
            i = [_as64(v) for v in ins]
            want = [u * v for u, v in zip(_leaves_np(pick(*i)), _leaves_np(pick(i[2], i[0], i[1])))]
            return len(outs) == len(want) and all(_allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs, want))

        return t.call(run, a, b, c).check("x * y leaf by leaf", check)

    def run(x, y, z):
        out = tu.tree_map(lambda v: v[0] * 10 if isinstance(v, tuple) else -v, pick(x, y, z), is_leaf=lambda v: isinstance(v, tuple))
        return tu.tree_leaves(out)

    def check_leaf(outs, ins):
        x, y, z = (_as64(v) for v in ins)
        # nested [a, (b, [c]), {"k": a}]: the tuple is one leaf -> b * 10; dict keys sorted: b, w, z
        want = {"nested": [-x, y * 10, -x], "dict": [-y, -x, -z]}[kind]
        return len(outs) == len(want) and all(_allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs, want))

    return t.call(run, a, b, c).check("tuples reach f whole", check_leaf)


def _leaves_np(tree):
    """tree_leaves for the _trees structures on numpy arrays (dict keys sorted, None dropped)."""
    if tree is None:
        return []
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in _leaves_np(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _leaves_np(item)]
    return [tree]


@cases.case(
    "jax.tree_util.tree_unflatten",
    dtype=["float32", "bfloat16", "int32", "bool"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"tree": ["dict", "nested", "namedtuple", "none-leaves", "custom-node", "empty"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["tree"] in ("nested", "custom-node")))
    and (s == "small" or p["tree"] == "dict")
    and (m == "eager" or (d == "float32" and p["tree"] in ("dict", "custom-node"))),
    note="flatten, transform the leaves, tree_unflatten(treedef, leaves): the rebuilt tree has the treedef "
    "(returned as a 0/1 flag) and the new leaves; custom-node: a class registered with "
    "register_pytree_node (aux data kept); empty: no leaves ({} and [None])",
)
def tree_unflatten(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    tu = jax.tree_util
    kind = t.p.tree
    a, b, c = t.randn(), t.randn(), t.randn()
    name = t.dtype_name

    def bump(v):
        return ~v if name == "bool" else v + 1

    if kind == "custom-node":

        class Box:
            def __init__(self, lo, hi, label):
                self.lo, self.hi, self.label = lo, hi, label

        tu.register_pytree_node(Box, lambda bx: ((bx.lo, bx.hi), bx.label), lambda label, kids: Box(kids[0], kids[1], label))

        def run(x, y, z):
            leaves, treedef = tu.tree_flatten(Box(x, [y, z], "mudjack"))
            box = tu.tree_unflatten(treedef, [bump(v) for v in leaves])
            same = isinstance(box, Box) and box.label == "mudjack" and tu.tree_structure(box) == treedef
            return jnp.asarray(same), box.lo, box.hi

        def check(outs, ins):
            return bool(outs[0]) and all(_allclose(o, bump(i), 1.6e-2, 1e-2) for o, i in zip(outs[1:], ins))

        return t.call(run, a, b, c).check("a Box again, aux data kept, leaves bumped", check)
    if kind == "empty":

        def run(x, y, z):
            ok = True
            for tree in ({}, [None], ()):
                leaves, treedef = tu.tree_flatten(tree)
                ok = ok and leaves == [] and tu.tree_unflatten(treedef, []) == tree
            return jnp.asarray(ok), x

        return t.call(run, a, b, c).check("empty trees rebuild", lambda outs, ins: bool(outs[0]))

    def run(x, y, z):
        tree = _trees(jnp, x, y, z)[kind]
        leaves, treedef = tu.tree_flatten(tree)
        rebuilt = tu.tree_unflatten(treedef, [bump(v) for v in leaves])
        return jnp.asarray(tu.tree_structure(rebuilt) == treedef and type(rebuilt) is type(tree)), tu.tree_leaves(rebuilt)

    def check(outs, ins):
        want = [bump(v) for v in _leaves_np(_trees(None, *ins)[kind])]
        return bool(outs[0]) and len(outs) - 1 == len(want) and all(_allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs[1:], want))

    return t.call(run, a, b, c).check("same treedef and type, leaves bumped", check)


# --------------------------------------------------------------------------
# internals: resolved at run time (jax._src.* and jax.core.* move between releases)
# --------------------------------------------------------------------------


def _resolve(dotted: str):
    """The object at a dotted path, or raise Unavailable naming what is missing."""
    import importlib

    from mudjack_probe.errors import Unavailable

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for j, attr in enumerate(parts[i:]):
            if not hasattr(obj, attr):
                import jax

                raise Unavailable(f"{'.'.join(parts[: i + j + 1])} does not exist in jax {jax.__version__}")
            obj = getattr(obj, attr)
        return obj
    raise Unavailable(f"{dotted}: no importable module")


def _pe_f(jnp):
    def f(x, y):
        a = jnp.sin(x) * 2
        return a * y + jnp.cos(x)

    return f


def _pe_ref(x, y):
    return np.sin(x) * 2 * y + np.cos(x)


@cases.case(
    "jax._src.interpreters.partial_eval",
    dtype=FLOATS + ["complex64"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"api": ["listed"], "op": ["partial_eval_jaxpr_nounits", "dce_jaxpr"], "unknown": ["y", "x"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["op"] == "partial_eval_jaxpr_nounits" or p["unknown"] == "y")
    and (d == "float32" or (s == "small" and p["unknown"] == "y"))
    and (m == "eager" or (d == "float32" and s != "scalar" and p["unknown"] == "y")),
    note="the module is internal: resolved at run time, unavailable where it is gone. "
    "partial_eval_jaxpr_nounits splits the jaxpr of f(x, y) = sin(x)*2*y + cos(x) into a known part "
    "(evaluated first, giving residuals) and an unknown part (y or x unknown); the case evaluates both with "
    "jax.core.eval_jaxpr and must get f(x, y), plus the equation counts of each part. dce_jaxpr removes a "
    "dead output's equations (counts before/after and the live value)",
)
def partial_eval_module(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    pe = _resolve("jax._src.interpreters.partial_eval")
    op = getattr(pe, t.p.op, None)
    if op is None:
        from mudjack_probe.errors import Unavailable

        raise Unavailable(f"jax._src.interpreters.partial_eval.{t.p.op} does not exist in jax {jax.__version__}")
    f = _pe_f(jnp)
    x, y = t.randn(), t.randn()
    core = jax.core
    if t.p.op == "dce_jaxpr":

        def run(a, b):
            closed = jax.make_jaxpr(lambda u, v: (f(u, v), jnp.exp(u) * 3 + v))(a, b)
            live, used = op(closed.jaxpr, [True, False])
            value = core.eval_jaxpr(live, closed.consts, *[v for v, keep in zip((a, b), used) if keep])[0]
            return jnp.asarray(np.array([len(closed.jaxpr.eqns), len(live.eqns), sum(used)], dtype=np.int64)), value

        return t.call(run, x, y).check(
            "dead equations dropped; value f(x, y)", lambda outs, ins: outs[0][1] < outs[0][0] and near(t, _pe_ref, out=1, scale=4.0)(outs, ins)
        )
    unknown_x = t.p.unknown == "x"

    def run(a, b):
        closed = jax.make_jaxpr(f)(a, b)
        known, unknown, out_unknowns, res_avals = op(closed, [unknown_x, not unknown_x], False)
        known_in = b if unknown_x else a
        unknown_in = a if unknown_x else b
        kouts = core.eval_jaxpr(known.jaxpr, known.consts, known_in)
        n_res = len(res_avals)
        residuals = kouts[len(kouts) - n_res:] if n_res else []
        value = core.eval_jaxpr(unknown.jaxpr, unknown.consts, *residuals, unknown_in)[0]
        counts = np.array([len(known.jaxpr.eqns), len(unknown.jaxpr.eqns), n_res, sum(out_unknowns)], dtype=np.int64)
        return jnp.asarray(counts), value

    return t.call(run, x, y).check("known then unknown part give f(x, y); the output is unknown", lambda outs, ins: outs[0][3] == 1 and near(t, _pe_ref, out=1, scale=4.0)(outs, ins))


@cases.case(
    "jax._src.interpreters.partial_eval",
    dtype=FLOATS + ["complex64"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"api": ["successor"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or (d == "float32" and s != "scalar")),
    successor="jax.linearize",
    note="the public face of partial evaluation: jax.linearize partially evaluates the JVP of "
    "f(x) = sin(x)*2*x + cos(x) (known primal, unknown tangent); the case returns f(x) and the linear map at "
    "a random tangent, checked against the derivative (2 cos(x) x + 2 sin(x) - sin(x)) * tangent",
)
def partial_eval_successor(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    x, tangent = t.randn(), t.randn()

    def run(a, v):
        out, lin = jax.linearize(lambda z: jnp.sin(z) * 2 * z + jnp.cos(z), a)
        return out, lin(v)

    return t.call(run, x, tangent).check(
        "f(x) and f'(x) v", lambda outs, ins: near(t, lambda a, v: np.sin(a) * 2 * a + np.cos(a), out=0, scale=4.0)(outs, ins)
        and near(t, lambda a, v: (2 * np.cos(a) * a + 2 * np.sin(a) - np.sin(a)) * v, out=1, scale=8.0)(outs, ins)
    )


@cases.case(
    "jax._src.interpreters.partial_eval.trace_to_jax_pr_dynamic",
    dtype=INEXACT + ["int32"],
    shape={"scalar": (), "small": (1000,), "large": (LARGE,)},
    params={"api": ["listed", "successor"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or (d == "float32" and s != "scalar")),
    successor="jax.make_jaxpr",
    note="the paper prints trace_to_jax_pr_dynamic, a typo for trace_to_jaxpr_dynamic (no release has the "
    "typo'd name). listed: partial_eval.trace_to_jaxpr_dynamic(lu.wrap_init(f, debug_info=...), in_avals), "
    "resolved at run time (unavailable where it or its calling convention is gone); successor: jax.make_jaxpr. "
    "Both return the jaxpr as ints (equations, inputs, outputs, constants) and its value at the input "
    "through jax.core.eval_jaxpr, f(x, y) = sin(x)*2*y + cos(x) (ints: f = x*2*y + x)",
)
def trace_to_jaxpr_dynamic(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    from mudjack_probe.errors import Unavailable

    is_int = t.dtype_name.startswith("int")
    f = (lambda u, v: u * 2 * v + u) if is_int else _pe_f(jnp)
    ref = (lambda u, v: u * 2 * v + u) if is_int else _pe_ref
    x, y = t.randn(), t.randn()

    if t.p.api == "successor":

        def run(a, b):
            closed = jax.make_jaxpr(f)(a, b)
            counts = [len(closed.jaxpr.eqns), len(closed.jaxpr.invars), len(closed.jaxpr.outvars), len(closed.consts)]
            return jnp.asarray(np.array(counts, dtype=np.int64)), jax.core.eval_jaxpr(closed.jaxpr, closed.consts, a, b)[0]

    else:
        pe = _resolve("jax._src.interpreters.partial_eval")
        trace = getattr(pe, "trace_to_jax_pr_dynamic", None) or getattr(pe, "trace_to_jaxpr_dynamic", None)
        if trace is None:
            raise Unavailable(f"neither trace_to_jax_pr_dynamic nor trace_to_jaxpr_dynamic in jax {jax.__version__}")
        lu = _resolve("jax._src.linear_util")
        api_util = _resolve("jax._src.api_util")
        import inspect

        if "debug_info" not in inspect.signature(lu.wrap_init).parameters or not hasattr(api_util, "debug_info"):
            raise Unavailable(f"jax {jax.__version__}: lu.wrap_init has no debug_info parameter; calling convention changed")

        def run(a, b):
            flat = lambda *args: [f(*args)]  # noqa: E731 - the traced function takes and returns flat lists
            wrapped = lu.wrap_init(flat, debug_info=api_util.debug_info("mudjack", flat, (a, b), {}))
            traced = trace(wrapped, [jax.typeof(a), jax.typeof(b)] if hasattr(jax, "typeof") else [jax.core.get_aval(a), jax.core.get_aval(b)])
            jaxpr, consts = traced[0], traced[2] if len(traced) > 2 else []
            counts = [len(jaxpr.eqns), len(jaxpr.invars), len(jaxpr.outvars), len(consts)]
            return jnp.asarray(np.array(counts, dtype=np.int64)), jax.core.eval_jaxpr(jaxpr, consts, a, b)[0]

    return t.call(run, x, y).check(
        "2 inputs, 1 output; evaluates to f(x, y)", lambda outs, ins: outs[0][1] == 2 and outs[0][2] == 1 and near(t, ref, out=1, scale=4.0)(outs, ins)
    )


def _aval_ints(jnp, aval, weak_default=False):
    """An aval as ints: ndim, itemsize, dtype kind (ord), weak_type, then the shape."""
    dtype = np.dtype(aval.dtype)
    weak = int(bool(getattr(aval, "weak_type", weak_default)))
    return jnp.asarray(np.array([len(aval.shape), dtype.itemsize, ord(dtype.kind), weak] + list(aval.shape), dtype=np.int64))


_AVAL_ARGS = {
    "array": None,
    "python-float": 2.5,
    "python-int": 7,
    "numpy": "numpy",
}


@cases.case(
    "jax._src.core.get_aval",
    dtype=COMMON,
    shape={"scalar": (), "empty": (0, 3), "matrix": (64, 128), "large": (LARGE,)},
    params={"api": ["listed", "successor"], "arg": list(_AVAL_ARGS)},
    mode=BOTH,
    where=lambda d, s, m, p: (p["arg"] == "array" or (d == "float32" and s == "scalar"))
    and (d == "float32" or s == "matrix")
    and (m == "eager" or (p["arg"] == "array" and d in ("float32", "bfloat16") and s in ("scalar", "matrix"))),
    successor="jax.typeof",
    note="listed: jax._src.core.get_aval (removed in jax 0.10 -- also tried as jax.core.get_aval; unavailable "
    "where neither exists); successor: jax.typeof. The aval as ints: ndim, itemsize, dtype kind, weak_type, "
    "shape. Python scalars are weakly typed (weak_type 1, 64-bit with x64); compiled: the aval of a Tracer",
)
def get_aval(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    from mudjack_probe.errors import Unavailable

    if t.p.api == "listed":
        fn = None
        for path in ("jax._src.core.get_aval", "jax.core.get_aval"):
            try:
                fn = _resolve(path)
                break
            except Unavailable:
                continue
        if fn is None:
            raise Unavailable(f"jax._src.core.get_aval (and jax.core.get_aval) do not exist in jax {jax.__version__}; successor jax.typeof")
    else:
        fn = _resolve("jax.typeof")
    arg = t.p.arg
    name = t.dtype_name
    want_dtype = np.dtype(t.dtype)
    if arg == "array":
        shape = tuple(t.shape)
        return t.call(lambda a: _aval_ints(jnp, fn(a)), t.randn()).check(
            "ndim, itemsize, kind, not weak, shape",
            lambda outs, ins: list(outs[0]) == [len(shape), want_dtype.itemsize, ord(want_dtype.kind), 0] + list(shape),
        )
    if arg == "numpy":
        host = _host(t)
        return t.call(lambda: _aval_ints(jnp, fn(host))).check(
            "the numpy array's ndim, dtype, shape; not weak", lambda outs, ins: list(outs[0]) == [host.ndim, host.dtype.itemsize, ord(host.dtype.kind), 0] + list(host.shape)
        )
    value = _AVAL_ARGS[arg]
    kind = "f" if isinstance(value, float) else "i"
    return t.call(lambda: _aval_ints(jnp, fn(value))).check(
        "0-d, 64-bit, weakly typed", lambda outs, ins: list(outs[0]) == [0, 8, ord(kind), 1]
    )


@cases.case(
    "jax.core.eval_context",
    dtype=FLOATS + ["complex64"],
    shape={"scalar": (), "small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"api": ["listed", "successor"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or d in ("float32", "bfloat16")),
    successor="jax.ensure_compile_time_eval",
    note="listed: jax.core.eval_context (internal; unavailable where gone); successor: "
    "jax.ensure_compile_time_eval. Inside the context a table cos(linspace(0, 1, n)) is computed; under jit "
    "(compiled) it must still be a concrete value, not a Tracer (returned as a 0/1 flag), and x + table "
    "must be right either way",
)
def eval_context(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    ctx = _resolve("jax.core.eval_context") if t.p.api == "listed" else _resolve("jax.ensure_compile_time_eval")
    shape = tuple(t.shape)
    n = int(np.prod(shape)) if shape else 1
    dtype = t.dtype

    real = np.float64 if t.dtype_name == "float64" else np.float32

    def run(a):
        with ctx():
            table = jnp.cos(jnp.linspace(0.0, 1.0, n, dtype=real)).reshape(shape).astype(dtype)
            concrete = not isinstance(table, jax.core.Tracer)
        return a + table, jnp.asarray(1 if concrete else 0, dtype=jnp.int32)

    return t.call(run, t.randn()).check(
        "table concrete; x + table", lambda outs, ins: int(outs[1]) == 1 and near(t, lambda a: a + np.cos(np.linspace(0.0, 1.0, n, dtype=real)).reshape(shape), scale=4.0)(outs, ins)
    )


# --------------------------------------------------------------------------
# collectives: one-device forms everywhere, two-device forms where two exist
# --------------------------------------------------------------------------


def _shard_map(jax):
    sm = getattr(jax, "shard_map", None)
    if sm is None:
        from jax.experimental.shard_map import shard_map as sm  # before jax 0.7
    return sm


def _mesh(jax, devices):
    from jax.sharding import Mesh

    return Mesh(np.array(devices), ("i",))


def _shard(jax, host, devices):
    from jax.sharding import NamedSharding, PartitionSpec

    return jax.device_put(host, NamedSharding(_mesh(jax, devices), PartitionSpec("i")))


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32"],
    shape={"small": (4, 256)},
    params={"form": ["vmap"]},
    note="one-device form: the collective over a vmapped named axis of size 4",
)
def all_gather_vmap(t: Ctx):
    jax = t.fw
    gather = jax.vmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")
    return t.call(gather, t.randn()).check("every member gets the whole input", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0], (4,) + ins[0].shape)))


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32", "bfloat16", "float64", "int32", "bool"],
    shape={"small": (4, 256), "large": (8, 65536)},
    params={"form": ["vmap-more"], "gather": ["stack", "tiled", "axis1"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["gather"] == "stack")) and (m == "eager" or (d == "float32" and s == "small") or (d == "float32" and p["gather"] == "stack")),
    note="vmapped named axis: stack (a new leading axis), tiled=True (concatenated), axis=1 (the gathered axis second)",
)
def all_gather_vmap_more(t: Ctx):
    jax = t.fw
    how = t.p.gather
    kw = {"tiled": True} if how == "tiled" else ({"axis": 1} if how == "axis1" else {})
    gather = jax.vmap(lambda v: jax.lax.all_gather(v, "i", **kw), axis_name="i")
    n = t.shape[0]

    def ref(x):
        one = {"stack": x, "tiled": x.reshape(-1), "axis1": x.T}[how]
        return np.broadcast_to(one, (n,) + one.shape)

    return t.call(gather, t.randn()).check("every member gets the whole input", lambda outs, ins: np.array_equal(outs[0], ref(ins[0])))


def _one_device(t: Ctx, fn_factory, host):
    """pmap or shard_map over a one-device list (the bound device)."""
    jax = t.fw
    dev = [t.device]
    if t.p.form == "pmap1":
        f = jax.pmap(fn_factory("pmap"), axis_name="i", devices=dev)
        return f, jax.device_put(host, t.device)
    from jax.sharding import PartitionSpec as P

    sm = _shard_map(jax)
    f = jax.jit(sm(fn_factory("shard_map"), mesh=_mesh(jax, dev), in_specs=P("i"), out_specs=P("i")))
    return f, _shard(jax, host, dev)


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32", "int32"],
    shape={"small": (1, 256), "large": (1, LARGE)},
    params={"form": ["pmap1", "shard_map1"]},
    where=lambda d, s, m, p: d == "float32" or s == "small",
    note="one-device forms of the real collective: jax.pmap over [the bound device], and "
    "shard_map over a one-device mesh (jitted; tiled; out_specs P('i'): each member's gathered copy)",
)
def all_gather_one_device(t: Ctx):
    jax = t.fw
    host = _host(t)

    def factory(kind):
        if kind == "pmap":
            return lambda v: jax.lax.all_gather(v, "i")
        return lambda v: jax.lax.all_gather(v, "i", tiled=True)

    f, x = _one_device(t, factory, host)

    def check(outs, ins):
        got = outs[0]
        return np.array_equal(got.reshape(-1), ins[0].reshape(-1))

    return t.call(f, x).check("the one member's input back", check)


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32"],
    shape={"small": (2, 256)},
    params={"form": ["pmap"]},
    requires={"devices": 2},
    note="the first two devices of the bound kind, one row each, via jax.pmap",
)
def all_gather_pmap(t: Ctx):
    jax = t.fw
    kind = t.device.platform
    devices = jax.devices(kind)[:2]
    gather = jax.pmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i", devices=devices)
    rows = t.numpy_rng().standard_normal(t.shape).astype(np.float32)
    x = _shard(jax, rows, devices)  # one row per device
    return t.call(gather, x).check("each device holds both rows", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0], (2,) + ins[0].shape)))


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32", "bfloat16"],
    shape={"small": (2, 256), "large": (2, LARGE)},
    params={"form": ["shard_map"]},
    requires={"devices": 2},
    where=lambda d, s, m, p: d == "float32" or s == "small",
    note="shard_map over the first two devices of the bound kind (one row each), all_gather tiled; out_specs "
    "P('i') stacks the two devices' copies (replication of all_gather output is not inferred by jax 0.10)",
)
def all_gather_shard_map(t: Ctx):
    jax = t.fw
    from jax.sharding import PartitionSpec as P

    devices = jax.devices(t.device.platform)[:2]
    sm = _shard_map(jax)
    f = jax.jit(sm(lambda v: jax.lax.all_gather(v, "i", tiled=True), mesh=_mesh(jax, devices), in_specs=P("i"), out_specs=P("i")))
    host = _host(t)
    if t.dtype_name == "bfloat16":
        host = host.astype(t.dtype)
    return t.call(f, _shard(jax, host, devices)).check(
        "each device's copy is the whole input", lambda outs, ins: np.array_equal(outs[0], np.concatenate([ins[0], ins[0]]))
    )


@cases.case(
    "jax.lax.pmax",
    dtype=["float32", "float16", "bfloat16", "float64", "int32", "int64"],
    shape={"small": (4, 256), "large": (8, 131072)},
    params={"form": ["vmap"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or d in ("float32", "int32")),
    note="one-device form: pmax over a vmapped named axis (size 4 or 8): every member gets the elementwise max",
)
def pmax_vmap(t: Ctx):
    jax = t.fw
    f = jax.vmap(lambda v: jax.lax.pmax(v, "i"), axis_name="i")
    return t.call(f, t.randn()).check("the column max, broadcast", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0].max(0), ins[0].shape)))


@cases.case(
    "jax.lax.pmax",
    dtype=["float32", "int32"],
    shape={"small": (1, 256), "large": (1, LARGE)},
    params={"form": ["pmap1", "shard_map1"]},
    where=lambda d, s, m, p: d == "float32" or s == "small",
    note="one-device forms: jax.pmap over [the bound device]; shard_map over a one-device mesh (jitted)",
)
def pmax_one_device(t: Ctx):
    jax = t.fw
    host = _host(t)

    def factory(kind):
        return lambda v: jax.lax.pmax(v, "i")

    from jax.sharding import PartitionSpec as P

    if t.p.form == "pmap1":
        f, x = _one_device(t, factory, host)
    else:
        sm = _shard_map(jax)
        dev = [t.device]
        f = jax.jit(sm(lambda v: jax.lax.pmax(v, "i"), mesh=_mesh(jax, dev), in_specs=P("i"), out_specs=P("i")))
        x = _shard(jax, host, dev)
    return t.call(f, x).check("max over one member is the input", lambda outs, ins: np.array_equal(outs[0].reshape(-1), ins[0].reshape(-1)))


@cases.case(
    "jax.lax.pmax",
    dtype=["float32", "int32"],
    shape={"small": (2, 256), "large": (2, LARGE)},
    params={"form": ["pmap", "shard_map"]},
    requires={"devices": 2},
    where=lambda d, s, m, p: d == "float32" or s == "small",
    note="the first two devices of the bound kind, one row each: jax.pmap, or jitted shard_map (out_specs "
    "P('i'): each device's copy of the max)",
)
def pmax_two_devices(t: Ctx):
    jax = t.fw
    devices = jax.devices(t.device.platform)[:2]
    host = _host(t)
    if t.p.form == "pmap":
        f = jax.pmap(lambda v: jax.lax.pmax(v, "i"), axis_name="i", devices=devices)
    else:
        from jax.sharding import PartitionSpec as P

        sm = _shard_map(jax)
        f = jax.jit(sm(lambda v: jax.lax.pmax(v, "i"), mesh=_mesh(jax, devices), in_specs=P("i"), out_specs=P("i")))
    return t.call(f, _shard(jax, host, devices)).check("both rows are the column max", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0].max(0), ins[0].shape)))
