"""The paper's JAX functions (catalog/paper_jax.txt): array creation and elementwise functions.

The 61 listed names are split over seven files of this folder, all loaded by the
probe: this one (array creation; unary and binary elementwise functions),
jax_reductions.py (sum, mean, var, average, prod, max, all), jax_indexing.py
(shapes, indexing, slicing, top_k, one_hot), jax_linalg.py (einsum_path, svd, lu,
convolutions), jax_transforms.py (random keys, vjp, make_jaxpr, disable_jit,
stop_gradient, pytrees), jax_internals.py (partial_eval, get_aval, eval_context:
internal names resolved at run time) and jax_collectives.py (all_gather, pmax).
Their shared helpers are in _jax_common.py; the conventions below hold for all.

Each function is called the ways JAX's own tests vary it (tests/lax_numpy_test.py,
lax_numpy_reducers_test.py, lax_test.py, lax_scipy_test.py, api_test.py,
tree_util_test.py, pmap_test.py): dtypes (float16, bfloat16, float32, float64 --
the adapter enables x64 --, complex64, int32/int64, bool where the function is
defined for them), 0-d, empty, "transposed" and large (<= 4M elements) shapes,
the parameters that pick another kernel or path (axis, keepdims, where, mode,
k, precision...), eager and under jax.jit (mode "compiled").

Conventions of these files:
- JAX arrays have no strided views. The "transposed" shape is an input whose
  op is applied to `a.T` inside the timed function: under jit XLA folds the
  transpose into the consumer (another layout), eagerly it is materialised first.
- Outputs that are Python objects (ints, bools, jaxprs, avals, paths) are
  turned into small int arrays with jnp.asarray inside the timed function, so
  they land on the target device and compare across devices.
- Reference checks (`.reference`) compare with NumPy / SciPy in float64 on
  the host, or an analytic value (JAX's tests' _CheckAgainstNumpy), so a
  CPU-only run checks values too; float16/bfloat16 in units in the last place
  (_jax_common.HALF_ULPS). Property checks (`.check`) test what any right
  answer satisfies where no unique answer exists (U and V of an SVD, LU
  factors, einsum paths, rbg random draws).
- Internal names (jax._src.*, jax.core.*) are resolved in the case body. Cases
  with api=listed test the listed name as printed (a typo included) and are
  `unavailable` with `missing_name` where it does not exist; cases with
  api=successor test the successor (a typo's corrected name, else the
  documented public successor).
Importing these files must not import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import COMMON, FLOATS, GRID, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _jax_common import BOTH, INEXACT, allclose, as64, f64, host_data, is_integer, load_module, matches, maybe_t, near, put, ref_t, uniform

cases = Cases("jax")


# Elementwise shapes: "transposed" is applied to a.T (see the module docstring).
EW_SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)}


def _unary_where(compiled=(("float32", "small"), ("float32", "transposed"), ("float32", "large"), ("bfloat16", "large"))):
    """float32 gets every shape; other dtypes small and large; jit for a few."""

    def where(d, s, m, p):
        if d != "float32" and s not in ("small", "large"):
            return False
        return m == "eager" or (d, s) in compiled

    return where


# --------------------------------------------------------------------------
# array creation
# --------------------------------------------------------------------------


@cases.case(
    "jax.numpy.array",
    dtype=COMMON,
    shape={"scalar": (), "empty": (0, 3), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    params={"source": ["host"]},
    mode=BOTH,
    where=cross("float32", "small") & compiled_only("float32", "small"),
    grid="small",
    note="host: a NumPy array (transposed: a non-contiguous view) copied to the device by jnp.array; "
    "compiled: it becomes a jit constant",
)
def array_host(t: Ctx):
    jnp = t.fw.numpy
    host = host_data(t)
    if t.dtype_name == "bfloat16":
        host = host.astype(t.dtype)
    if t.case.shape_name == "transposed":
        host = host.T  # a strided view: jnp.array must copy it in order
    dtype = t.dtype
    return t.call(lambda: jnp.array(host, dtype=dtype)).reference(
        "equals the host array", lambda outs, ins: allclose(outs[0], as64(host.astype(np.float32) if t.dtype_name == "bfloat16" else host), 0, 0)
    )


@cases.case(
    "jax.numpy.array",
    dtype=COMMON,
    shape=shapes("small", "large"),
    params={"source": ["cast"]},
    mode=BOTH,
    where=lambda d, s, m, p: (s == "small" and (m == "eager" or d in ("float32", "bfloat16", "int32", "bool")))
    or (s == "large" and d == "float16" and m == "eager"),
    note="cast: jnp.array(x_float32, dtype=D) converts on the device (float to int truncates, to bool is x != 0)",
)
def array_cast(t: Ctx):
    jnp = t.fw.numpy
    x = put(t, host_data(t, dtype="float32") * 10.0, "float32")
    dtype = t.dtype
    name = t.dtype_name

    def ref(a):
        if name == "bool":
            return a != 0
        if name.startswith("int"):
            return np.trunc(a)
        return a

    return t.call(lambda a: jnp.array(a, dtype=dtype), x).reference("cast like numpy", near(t, ref))


@cases.case(
    "jax.numpy.array",
    dtype=["float32", "int32", "complex64", "bool"],
    shape={"nested": (10, 10)},
    params={"source": ["list"]},
    note="a nested Python list of Python scalars (weak types): the dtype comes from dtype=",
)
def array_list(t: Ctx):
    jnp = t.fw.numpy
    host = host_data(t)
    values = host.tolist()
    dtype = t.dtype
    return t.call(lambda: jnp.array(values, dtype=dtype)).reference("equals the list", lambda outs, ins: allclose(outs[0], host, 1e-6, 0))


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
    return t.call(lambda a: jnp.array(a, ndmin=3), t.randn()).reference(
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
        grid="small",
        note=f"no array inputs: the shape and dtype are static; the output is {value} everywhere, on the default device",
    )
    def filled(t: Ctx):
        jnp = t.fw.numpy
        fn = getattr(jnp, function.rsplit(".", 1)[1])
        shape, dtype = tuple(t.shape), t.dtype
        return t.call(lambda: fn(shape, dtype=dtype)).reference(
            f"all {value}, right shape", lambda outs, ins: outs[0].shape == shape and bool(np.all(outs[0] == value))
        )

    @cases.case(
        function,
        dtype=["float64"],
        shape=shapes("small"),
        params={"dtype_arg": ["default", "int-shape"]},
        mode=BOTH,
        where=compiled_only(dtype_arg="default"),
        note="default: no dtype= (float64 with x64 on); int-shape: the shape as a bare int",
    )
    def filled_default(t: Ctx):
        jnp = t.fw.numpy
        fn = getattr(jnp, function.rsplit(".", 1)[1])
        if t.p.dtype_arg == "default":
            call = t.call(lambda: fn((1000,)))
        else:
            call = t.call(lambda: fn(1000))
        return call.reference(f"all {value}, 1000 of them", lambda outs, ins: outs[0].shape == (1000,) and bool(np.all(outs[0] == value)))


_filled_cases("jax.numpy.zeros", 0)
_filled_cases("jax.numpy.ones", 1)


_ARANGE_STOP = {"int8": 100, "uint8": 200, "bool": 2}  # a stop the dtype can count to

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
    grid="default",
    note="static bounds: jnp.arange is an iota (stop only) or a host-computed constant (fractional steps, "
    "numpy length semantics: arange(0, 1, 0.1) has 10 elements). Grid dtypes: args=stop with the stop "
    "clamped to what the dtype holds (int8: 100, uint8: 200, bool: 2)",
)
def arange(t: Ctx):
    jnp = t.fw.numpy
    args, _ = _ARANGE[t.p.args]
    dtype = t.dtype
    name = t.dtype_name
    if t.p.args == "stop" and name in _ARANGE_STOP:
        args = (_ARANGE_STOP[name],)

    def ref():
        r = np.arange(*args, dtype=np.float64)
        if name == "bfloat16":
            return r.astype(np.float32).astype(t.dtype).astype(np.float64)
        return r.astype(np.dtype(name) if name != "bfloat16" else np.float64)

    return t.call(lambda: jnp.arange(*args, dtype=dtype)).reference(
        "numpy's arange", lambda outs, ins: allclose(outs[0], ref(), 1e-3 if name in ("float16", "bfloat16") else 1e-6, 1e-6)
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
def triu_indices(t: Ctx):  # takes Python ints only: excused from the grid below
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

    return t.call(lambda: jnp.triu_indices(n, k, m)).reference("numpy's triu_indices (count n(n+1)/2 for k=0)", check)


cases.excuse("jax.numpy.triu_indices", "no_tensor_input", [d for d in GRID if d != "int64"])


@cases.case(
    "jax.numpy.tril_indices_from",
    dtype=["float32", "bool", "int32"],
    shape={"square": (6, 6), "tall": (7, 4), "wide": (4, 7), "empty": (0, 0), "large": (2048, 2048)},
    params={"k": [-2, 0, 1]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "square" and p["k"] == 0))
    and (m == "eager" or (d == "float32" and p["k"] == 0 and s in ("square", "large"))),
    grid="square",
    note="only the input's shape matters (also under jit, where the input is traced)",
)
def tril_indices_from(t: Ctx):
    jnp = t.fw.numpy
    k = t.p.k
    return t.call(lambda a: jnp.tril_indices_from(a, k=k), t.randn()).reference(
        "numpy's tril_indices_from",
        lambda outs, ins: all(np.array_equal(o, e) for o, e in zip(outs, np.tril_indices_from(ins[0], k=k))),
    )


# --------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------


def _unary(function, op, ref, *, dtype, data="randn", where=None, note="", scale=1.0, rtol=None, atol=None, params=None, mode=BOTH, terms=None):
    """Register a unary elementwise function: op(jax, a), ref(x_float64) on the host."""

    @cases.case(function, dtype=dtype, shape=EW_SHAPES, mode=mode, params=params, where=where or _unary_where(), note=note, rtol=rtol, atol=atol,
                grid="small")
    def body(t: Ctx):
        jax = t.fw
        if callable(data):
            x = data(t)
        elif data == "positive":
            x = t.positive()
        else:
            x = t.randn()
        f = maybe_t(t, lambda a: op(jax, a, t))
        half_terms = None if terms is None else ref_t(t, lambda a: terms(f64(a)))
        # integer and bool inputs are promoted to a float by jax: the reference computes in float64
        return t.call(f, x).reference("matches numpy/scipy in float64", near(t, ref_t(t, lambda a: ref(f64(a), t)), scale=scale, terms=half_terms))

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
    shape=shapes("small", "large"),
    params={"range": ["wide"]},
    mode=BOTH,
    where=compiled_only("float32", "large"),
    note="arguments uniform in [-1e4, 1e4]: exercises argument reduction (a different code path from |x| < pi)",
)
def cos_wide(t: Ctx):
    jnp = t.fw.numpy
    return t.call(lambda a: jnp.cos(a), uniform(t, -1e4, 1e4)).reference(
        "matches numpy in float64 (atol 1e-4 in float32)", near(t, np.cos, atol=1e-4 if t.dtype_name == "float32" else None)
    )


_unary(
    "jax.numpy.sqrt",
    lambda jax, a, t: jax.numpy.sqrt(a),
    lambda x, t: np.sqrt(x),
    dtype=INEXACT + ["int32"],
    data=lambda t: t.randn() if t.dtype_name.startswith("complex") else t.positive(),
    note="positive inputs (complex: standard normal, principal branch)",
)


@cases.case(
    "jax.numpy.sqrt",
    dtype=["float32", "float16"],
    shape=shapes("small"),
    params={"domain": ["negative"]},
    mode=BOTH,
    where=compiled_only("float32"),
    note="negative inputs give NaN, as numpy does",
)
def sqrt_negative(t: Ctx):
    jnp = t.fw.numpy
    return t.call(lambda a: jnp.sqrt(a), uniform(t, -3.0, -0.5)).reference(
        "all NaN (the analytic answer; a NaN planted there changes nothing)",
        lambda outs, ins: outs[0].shape == ins[0].shape and bool(np.all(np.isnan(outs[0]))),
    )


_unary(
    "jax.lax.erf",
    lambda jax, a, t: jax.lax.erf(a),
    lambda x, t: load_module("scipy.special").erf(x),
    dtype=FLOATS,
    data=lambda t: uniform(t, -4.0, 4.0),
    note="lax is strict: floating inputs only; uniform in [-4, 4] (both tails)",
)
_unary(
    "jax.scipy.special.ndtr",
    lambda jax, a, t: load_module("jax.scipy.special").ndtr(a),
    lambda x, t: load_module("scipy.special").ndtr(x),
    dtype=FLOATS,
    data=lambda t: uniform(t, -8.0, 8.0),
    note="uniform in [-8, 8] (deep tails); float16 and bfloat16 are rejected by jax (TypeError), a finding",
)
_unary(
    "jax.scipy.special.i0",
    lambda jax, a, t: load_module("jax.scipy.special").i0(a),
    lambda x, t: load_module("scipy.special").i0(x),
    dtype=FLOATS + ["int32"],
    data=lambda t: put(t, t.numpy_rng().integers(0 if t.dtype_name == "uint8" else -10, 11, size=t.shape)) if is_integer(t.dtype_name)
    else (t.randn() if t.dtype_name == "bool" else uniform(t, -10.0, 10.0)),
    note="uniform in [-10, 10] (i0(10) ~ 2816); int32 is promoted. Half precision: jax computes exp(|x|) * i0e(x), "
    "three roundings: the half-precision check allows one rounding of each factor",
    scale=4.0,
    terms=lambda x: 2 * np.abs(load_module("scipy.special").i0(x)),
)


@cases.case(
    "jax.scipy.special.gammaln",
    dtype=FLOATS,
    shape=shapes("scalar", "empty", "small", "large"),
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large"),
    grid="small",
    note="inputs in [3, 30): away from gammaln's roots at 1 and 2, where relative error is meaningless "
    "(integer grid dtypes: truncated to 3..29; bool: True)",
)
def gammaln(t: Ctx):
    from jax.scipy import special

    x = t.numpy_rng().uniform(3.0, 30.0, size=t.shape)
    return t.call(lambda a: special.gammaln(a), put(t, x)).reference(
        "matches scipy.special.gammaln", near(t, lambda a: load_module("scipy.special").gammaln(f64(a)))
    )


@cases.case(
    "jax.scipy.special.gammaln",
    dtype=["float32", "float64"],
    shape=shapes("small"),
    params={"domain": ["negative", "tiny"]},
    mode=BOTH,
    where=compiled_only("float32"),
    note="negative: non-integers in (-10, 0), log|gamma|; tiny: (1e-6, 1e-2), where gammaln ~ -log(x)",
)
def gammaln_domain(t: Ctx):
    from jax.scipy import special

    if t.p.domain == "negative":
        x = t.numpy_rng().uniform(-10.0, 0.0, size=t.shape)
        x = np.where(np.abs(x - np.round(x)) < 0.05, x + 0.1, x)  # away from the poles
    else:
        x = t.numpy_rng().uniform(1e-6, 1e-2, size=t.shape)
    return t.call(lambda a: special.gammaln(a), put(t, x)).reference(
        "matches scipy.special.gammaln", near(t, lambda a: load_module("scipy.special").gammaln(a), scale=50.0)
    )


@cases.case(
    "jax.scipy.stats.norm.cdf",
    dtype=FLOATS,
    shape={"scalar": (), "small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"loc_scale": ["standard", "arrays"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["loc_scale"] == "standard"))
    and (m == "eager" or (d == "float32" and s in ("small", "large"))),
    grid="small",
    note="standard: cdf(x); arrays: loc (per column) and scale (positive, per column) broadcast against x; "
    "float16/bfloat16 go through ndtr, which rejects them",
)
def norm_cdf(t: Ctx):
    from jax.scipy.stats import norm

    x = t.randn()
    if t.p.loc_scale == "standard":
        return t.call(lambda a: norm.cdf(a), x).reference("matches scipy.stats.norm.cdf", near(t, lambda a: load_module("scipy.stats").norm.cdf(f64(a))))
    cols = t.shape[-1:] if t.shape else ()
    loc, scale = t.randn(cols), t.positive(cols)
    return t.call(lambda a, mu, sigma: norm.cdf(a, mu, sigma), x, loc, scale).reference(
        "matches scipy.stats.norm.cdf", near(t, lambda a, mu, sigma: load_module("scipy.stats").norm.cdf(a, mu, sigma))
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
    grid="small",
    note="broadcast: (256,1) + (1,128); bool + bool is logical or; transposed: a.T + b.T; integers wrap as numpy's do",
)
def add(t: Ctx):
    jnp = t.fw.numpy
    if t.case.shape_name == "broadcast":
        a, b = t.randn(t.shape[0]), t.randn(t.shape[1])
    else:
        a, b = t.randn(), t.randn()
    f = maybe_t(t, lambda x, y: jnp.add(x, y))
    return t.call(f, a, b).reference("numpy's add", near(t, ref_t(t, np.add)))


@cases.case(
    "jax.numpy.add",
    dtype=["float32", "int32", "bfloat16"],
    shape=shapes("small"),
    params={"other": ["int32-array", "python-scalar"]},
    mode=BOTH,
    where=compiled_only("float32", other="int32-array"),
    note="promotion: + an int32 array (float32+int32 -> float32; bfloat16+int32 -> bfloat16); + a Python "
    "scalar 3 (weakly typed: keeps the array's dtype)",
)
def add_promote(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    if t.p.other == "python-scalar":
        return t.call(lambda a: jnp.add(a, 3), x).reference(
            "x + 3, dtype kept", lambda outs, ins: outs[0].dtype == ins[0].dtype and matches(t, outs[0], as64(ins[0]) + 3)
        )
    y = t.randn(dtype="int32")
    return t.call(lambda a, b: jnp.add(a, b), x, y).reference(
        "x + y, in x's dtype", lambda outs, ins: outs[0].dtype == ins[0].dtype and matches(t, outs[0], as64(ins[0]) + ins[1])
    )


@cases.case(
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
    grid="small",
    note="array: x**y elementwise (floats: x in [0.5, 2.5), y standard normal; ints: x in [-50, 50) (uint8: "
    "[0, 50)), y in [0, 4), wrapping as numpy's do; bool: random bools; complex: both standard normal); "
    "int3: x**3 (Python int: integer_pow); half: x**0.5",
)
def power(t: Ctx):
    jnp = t.fw.numpy
    name = t.dtype_name
    if t.p.exponent == "array":
        if name == "bool":
            x, y = t.randn(), t.randn()
            f = maybe_t(t, lambda a, b: jnp.power(a, b))
            # numpy has no bool power: x**y of 0/1 is x or not y, compared as integers
            return t.call(f, x, y).reference("x ** y of 0/1 values", near(t, ref_t(t, lambda a, b: np.power(a.astype(np.int64), b.astype(np.int64)))))
        if is_integer(name):
            x = t.randn()
            y = put(t, t.numpy_rng().integers(0, 4, size=t.shape))
        elif name.startswith("complex"):
            x, y = t.randn(), t.randn()
        else:
            x, y = t.positive(), t.randn()
        f = maybe_t(t, lambda a, b: jnp.power(a, b))
        return t.call(f, x, y).reference("numpy's power", near(t, ref_t(t, np.power), scale=10.0))
    x = t.positive() if t.p.exponent == "half" and not name.startswith("complex") else t.randn()
    e = 3 if t.p.exponent == "int3" else 0.5
    f = maybe_t(t, lambda a: jnp.power(a, e))
    return t.call(f, x).reference(f"x ** {e}", near(t, ref_t(t, lambda a: np.power(a, e)), scale=10.0))


@cases.case(
    "jax.lax.integer_pow",
    dtype=INEXACT + ["int32", "int64"],
    shape=shapes("scalar", "small", "large"),
    params={"y": [2, 0, 3, -2, 7]},
    mode=BOTH,
    where=lambda d, s, m, p: not (d.startswith("int") and p["y"] < 0)
    and (d == "float32" or (s == "small" and p["y"] in (2, 3, -2)))
    and (p["y"] in (2, 3) or (s == "small"))
    and (m == "eager" or (d == "float32" and p["y"] == 3 and s != "scalar")),
    rtol={"float32": 1e-5, "complex64": 1e-5},
    grid="small",
    note="y static; repeated squaring: y=0 gives ones, y<0 the reciprocal (floating only: negative powers of "
    "integers are rejected); y=2,3 on standard normal inputs, y=-2,7 on inputs in [0.5, 2.5)",
)
def integer_pow(t: Ctx):
    lax = t.fw.lax
    y = t.p.y
    x = t.positive() if y in (-2, 7) else t.randn()
    return t.call(lambda a: lax.integer_pow(a, y), x).reference(
        f"x ** {y}", near(t, lambda a: np.power(a, float(y)) if a.dtype.kind in "fc" else (a.astype(np.int64) if a.dtype.kind == "b" else a) ** y, scale=10.0)
    )


_INT_FULL = ["bool", "uint8", "int8", "int32", "int64"]


@cases.case(
    "jax.lax.bitwise_and",
    dtype=_INT_FULL,
    shape={"scalar": (), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "int32" or s in ("small", "large")) and (m == "eager" or (d in ("int32", "bool") and s != "scalar")),
    grid="small",
    note="the full range of each integer type (negative values: two's complement); bool is logical and; "
    "lax is strict: both operands have the same dtype. Floating and complex grid dtypes: standard normal "
    "operands, which lax rejects (a finding only if it does not)",
)
def bitwise_and(t: Ctx):
    lax = t.fw.lax
    rng = t.numpy_rng()
    name = t.dtype_name

    def draw():
        if name == "bool":
            return put(t, rng.random(t.shape) < 0.5)
        if not is_integer(name):
            return t.randn()
        info = np.iinfo(np.dtype(name))
        return put(t, rng.integers(info.min, info.max, size=t.shape, dtype=np.dtype(name), endpoint=True))

    a, b = draw(), draw()
    f = maybe_t(t, lambda x, y: lax.bitwise_and(x, y))
    return t.call(f, a, b).reference("numpy's bitwise_and", near(t, ref_t(t, np.bitwise_and)))


@cases.case(
    "jax.lax.ge",
    dtype=FLOATS + ["int32", "int64", "uint8", "bool"],
    shape={"scalar": (), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    params={"values": ["random", "nan-ties"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s in ("small", "large"))
    and (p["values"] == "random" or (s == "small" and d in FLOATS))
    and (m == "eager" or (d in ("float32", "int32") and s in ("small", "large"))),
    grid="small",
    note="nan-ties: a quarter NaN (never >=) and a quarter exact ties (always >=); lax is strict: same "
    "shapes and dtypes, no broadcasting",
)
def ge(t: Ctx):
    lax = t.fw.lax
    if t.p.values == "random":
        a, b = t.randn(), t.randn()
    else:
        x = host_data(t, dtype="float32")
        y = host_data(t, dtype="float32")
        y[::4] = x[::4]
        x[1::4] = np.nan
        a, b = put(t, x), put(t, y)
    f = maybe_t(t, lambda x, y: lax.ge(x, y))
    return t.call(f, a, b).reference("numpy's >= (NaN never)", near(t, ref_t(t, np.greater_equal)))


@cases.case(
    "jax.lax.select",
    dtype=COMMON,
    shape={"scalar": (), "empty": (0,), "small": (1000,), "transposed": (192, 256), "large": (LARGE,)},
    params={"pred": ["array", "scalar"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s in ("small", "large"))
    and (p["pred"] == "array" or (s in ("small", "transposed") and d in ("float32", "int32")))
    and (m == "eager" or (d in ("float32", "int32") and s in ("small", "large")) or (p["pred"] == "scalar" and d == "float32")),
    grid="small",
    note="select(pred, on_true, on_false); pred: a bool array of the operands' shape, or a 0-d bool "
    "(the only broadcast lax.select allows)",
)
def select(t: Ctx):
    lax = t.fw.lax
    a, b = t.randn(), t.randn()
    if t.p.pred == "scalar":
        pred = put(t, np.array(True), "bool")
        return t.call(maybe_t(t, lambda x, y: lax.select(pred, x, y)), a, b).reference("takes on_true", near(t, ref_t(t, lambda x, y: x)))
    pred = t.randn(dtype="bool")
    f = maybe_t(t, lambda p, x, y: lax.select(p, x, y))
    return t.call(f, pred, a, b).reference("numpy's where", near(t, ref_t(t, np.where)))
