"""The paper's JAX functions: reductions (sum, mean, var, average, prod, max, all).

See jax.py for the plan and the conventions. Importing this file must not
import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

import math

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, compiled_only, np  # np: numpy, loaded on first use (listing needs none)

from _jax_common import AXES, BOTH, INEXACT, allclose, as64, f64, host_data, is_integer, maybe_t, near, put, ref_t, uniform

cases = Cases("jax")


# Relative tolerances for reductions and accumulations (the case's rtol; the
# engine's per-dtype default is kept for dtypes not named).
RED_RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-10, "complex64": 1e-5}


# --------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------


def _reduced(axis_of=None):
    """`reduction=` of a declaration: the number of elements each output sums
    over, from the dims and the `axis` parameter (or `axis_of(shape)`); 1 for
    an empty or 0-d input."""

    def count(dims, p):
        dims = tuple(dims)
        axis = axis_of(dims) if axis_of is not None else AXES[p.get("axis", "none")]
        n = math.prod(dims) if axis is None else math.prod(dims[a] for a in ((axis,) if isinstance(axis, int) else axis))
        return max(n, 1)

    return count


@cases.case(
    "jax.numpy.sum",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (256, 128), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large"),
    rtol=None,
    grid="small",
    reduction=_reduced(lambda dims: 0 if len(dims) == 2 else None),
    note="matrix: sum over axis 0; otherwise a full reduction; large floats are positive (no cancellation, so "
    "the comparison measures the reduction, not the order of a cancelling sum); integer sums are 64-bit "
    "(promote_integers), as numpy's",
)
def sum_(t: Ctx):
    jnp = t.fw.numpy
    axis = 0 if t.case.shape_name == "matrix" else None
    x = t.positive() if t.case.shape_name == "large" else t.randn()
    return t.call(lambda a: jnp.sum(a, axis=axis), x).reference(
        "numpy's sum in float64", near(t, lambda a: np.sum(a, axis=axis), scale=1.0 if t.dtype_name in ("float16", "bfloat16") else 4.0)
    )


@cases.case(
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
        return t.call(lambda a, w: jnp.sum(a, axis=1, where=w), x, mask).reference(
            "masked sum", near(t, lambda a, w: np.sum(np.where(w, a, 0), axis=1), scale=4.0)
        )
    if form == "dtype-float32":
        return t.call(lambda a: jnp.sum(a, axis=0, dtype=jnp.float32), x).reference(
            "float32 result of the half inputs", lambda outs, ins: outs[0].dtype == np.float32 and allclose(outs[0], np.sum(as64(ins[0]), axis=0), 1e-5, 1e-5)
        )
    axis = (0, 1) if form == "axes01" else 1
    keep = form == "axis1-keepdims"
    f = maybe_t(t, lambda a: jnp.sum(a, axis=axis, keepdims=keep))
    return t.call(f, x).reference("numpy's sum", near(t, ref_t(t, lambda a: np.sum(a, axis=axis, keepdims=keep)), scale=4.0))


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


@cases.case(
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
    grid="small",
    reduction=_reduced(),
    note="positive inputs; mean of an empty array is NaN (numpy warns); half dtypes are accumulated in float32; "
    "int and bool means are float64",
)
def mean(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    keep = t.p.keepdims
    x = t.positive()
    f = maybe_t(t, lambda a: jnp.mean(a, axis=axis, keepdims=keep))
    def ref(a):
        a = f64(a)
        if a.size:
            return np.mean(a, axis=axis, keepdims=keep)
        return np.full(np.mean(np.ones(a.shape), axis=axis).shape, np.nan)

    return t.call(f, x).reference("numpy's mean", near(t, ref_t(t, ref), scale=4.0))


@cases.case(
    "jax.numpy.mean",
    dtype=["float32", "float16"],
    shape={"matrix": (64, 128)},
    params={"form": ["where", "dtype-float64"]},
    mode=BOTH,
    where=compiled_only("float32"),
    rtol=RED_RTOL,
    note="where: mean of the masked elements along axis 1; dtype-float64: accumulated and returned in float64",
)
def mean_params(t: Ctx):
    jnp = t.fw.numpy
    x = t.positive()
    if t.p.form == "where":
        mask = put(t, t.numpy_rng().random(t.shape) < 0.7, "bool")
        return t.call(lambda a, w: jnp.mean(a, axis=1, where=w), x, mask).reference(
            "masked mean", near(t, lambda a, w: np.sum(np.where(w, a, 0), axis=1) / np.sum(w, axis=1), scale=4.0)
        )
    return t.call(lambda a: jnp.mean(a, axis=0, dtype=jnp.float64), x).reference(
        "float64 mean", lambda outs, ins: outs[0].dtype == np.float64 and allclose(outs[0], np.mean(as64(ins[0]), axis=0), 1e-12, 1e-12)
    )


@cases.case(
    "jax.numpy.var",
    dtype=INEXACT + ["int32"],
    shape=_RED_SHAPES,
    params={"axis": ["none", "0", "1"], "ddof": [0, 1]},
    mode=BOTH,
    where=lambda d, s, m, p: _red_where()(d, s, m, p) and (p["ddof"] == 0 or (d == "float32" and s in ("scalar", "small", "matrix"))),
    rtol=RED_RTOL,
    grid="small",
    reduction=_reduced(),
    note="standard normal inputs; ddof=1 divides by n - 1 (NaN for a scalar, and for an empty array either way); "
    "complex variance is real",
)
def var(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    ddof = t.p.ddof
    x = t.randn()

    def ref(a):
        a = f64(a)
        n = a.size if axis is None else a.shape[axis]
        if n - ddof <= 0:
            return np.full(np.var(np.ones(a.shape), axis=axis).shape, np.nan)
        return np.var(a, axis=axis, ddof=ddof)

    f = maybe_t(t, lambda a: jnp.var(a, axis=axis, ddof=ddof))
    return t.call(f, x).reference("numpy's var", near(t, ref_t(t, ref), scale=4.0))


@cases.case(
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
        return t.call(lambda a: jnp.var(a, axis=1, keepdims=True), x).reference("numpy's var", near(t, lambda a: np.var(a, axis=1, keepdims=True), scale=4.0))
    mask = put(t, t.numpy_rng().random(t.shape) < 0.7, "bool")
    return t.call(lambda a, w: jnp.var(a, axis=1, where=w), x, mask).reference(
        "masked var", near(t, lambda a, w: np.var(a, axis=1, where=w), scale=4.0)
    )


@cases.case(
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
    grid="small",
    reduction=_reduced(),
    note="positive inputs; weights: positive, the shape of the input (axis=None) or of the reduced axis",
)
def average(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    x = t.positive()
    if t.p.weights == "none":
        f = maybe_t(t, lambda a: jnp.average(a, axis=axis))
        return t.call(f, x).reference("numpy's average", near(t, ref_t(t, lambda a: np.average(f64(a), axis=axis)), scale=4.0))
    shape = tuple(t.shape) if axis is None else (tuple(t.shape)[::-1] if t.case.shape_name == "transposed" else tuple(t.shape))[axis:axis + 1]
    w = t.positive(shape, dtype="float32" if t.dtype_name in ("int32", "complex64") else None)
    if t.case.shape_name == "transposed":
        f = lambda a, ww: jnp.average(a.T, axis=axis, weights=ww)  # noqa: E731
        ref = lambda a, ww: np.average(a.T, axis=axis, weights=ww)  # noqa: E731
    else:
        f = lambda a, ww: jnp.average(a, axis=axis, weights=ww)  # noqa: E731
        ref = lambda a, ww: np.average(a, axis=axis, weights=ww)  # noqa: E731
    # half precision: jax rounds each product a*w, the weight sum and the weighted sum to the dtype
    # (then divides): three roundings of positive terms, each within HALF_U of the result's size
    return t.call(f, x, w).reference("numpy's weighted average", near(t, ref, scale=4.0, terms=lambda a, ww: 3 * np.abs(ref(a, ww))))


@cases.case(
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
        return t.call(lambda a, ww: jnp.average(a, axis=1, weights=ww, returned=True), x, w).reference(
            "numpy's (average, weight sum)",
            lambda outs, ins: len(outs) == 2
            and all(allclose(o, e, 1e-4, 1e-5) for o, e in zip(outs, np.average(as64(ins[0]), axis=1, weights=as64(ins[1]), returned=True))),
        )
    return t.call(lambda a, ww: jnp.average(a, axis=1, weights=ww, keepdims=True), x, w).reference(
        "numpy's average, keepdims", near(t, lambda a, ww: np.average(a, axis=1, weights=ww, keepdims=True), scale=4.0)
    )


@cases.case(
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
    grid="small",
    reduction=_reduced(),
    note="floats in [0.9, 1.1] (complex: that modulus, random phase) so products neither overflow nor "
    "underflow; ints from {-2, -1, 1, 2}: products wrap modulo 2**64 exactly as numpy's do, whatever the order; "
    "uint8 from {1, 2, 3}; int32 and narrower products are 64-bit (promote_integers); empty product is 1",
)
def prod(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    name = t.dtype_name
    if name == "bool":
        x = put(t, t.numpy_rng().random(t.shape) < 0.999)
    elif is_integer(name):
        x = put(t, t.numpy_rng().choice(np.array([1, 2, 3] if name == "uint8" else [-2, -1, 1, 2]), size=t.shape))
    else:
        x = uniform(t, 0.9, 1.1)
    f = maybe_t(t, lambda a: jnp.prod(a, axis=axis))

    def ref(a):
        if a.dtype.kind in "iub":
            return np.prod(a.astype(np.int64), axis=axis)
        return np.prod(a, axis=axis)

    return t.call(f, x).reference("numpy's prod", near(t, ref_t(t, ref), scale=4.0))


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
    grid="small",
    note="standard normal inputs (ints: [-50, 50)); exact, so compared bit for bit",
)
def max_(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    f = maybe_t(t, lambda a: jnp.max(a, axis=axis))
    return t.call(f, t.randn()).reference("numpy's max", near(t, ref_t(t, lambda a: np.max(a, axis=axis)), rtol=0, atol=0))


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
        host = host_data(t)
        host[np.arange(t.shape[0]), t.numpy_rng().integers(0, t.shape[1], size=t.shape[0])] = np.nan
        return t.call(lambda a: jnp.max(a, axis=1), put(t, host)).reference(
            "NaN in every row (the analytic answer; a NaN planted there changes nothing)",
            lambda outs, ins: outs[0].shape == (ins[0].shape[0],) and bool(np.all(np.isnan(outs[0]))),
        )
    if form == "keepdims":
        return t.call(lambda a: jnp.max(a, axis=1, keepdims=True), t.randn()).reference(
            "numpy's max", near(t, lambda a: np.max(a, axis=1, keepdims=True), rtol=0, atol=0)
        )
    if form == "initial":
        return t.call(lambda a: jnp.max(a, axis=-1, initial=5), t.randn()).reference(
            "numpy's max with initial", near(t, lambda a: np.max(a, axis=-1, initial=5), rtol=0, atol=0)
        )
    mask = t.randn(dtype="bool")
    return t.call(lambda a, w: jnp.max(a, axis=1, where=w, initial=-100), t.randn(), mask).reference(
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
    grid="small",
    note="inputs are nonzero/True except about one element in 500, so some rows are all-true and some not; "
    "all of an empty array is True",
)
def all_(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    keep = t.numpy_rng().random(t.shape) >= 0.002
    if t.dtype_name == "bool":
        x = put(t, keep)
    else:
        x = put(t, np.where(keep, host_data(t, kind="positive"), 0))
    f = maybe_t(t, lambda a: jnp.all(a, axis=axis))
    return t.call(f, x).reference("numpy's all", near(t, ref_t(t, lambda a: np.all(a, axis=axis))))


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
    x = put(t, t.numpy_rng().random(t.shape) >= 0.01)
    if t.p.form == "keepdims":
        return t.call(lambda a: jnp.all(a, axis=1, keepdims=True), x).reference("numpy's all", near(t, lambda a: np.all(a, axis=1, keepdims=True)))
    mask = put(t, t.numpy_rng().random(t.shape) < 0.05)
    return t.call(lambda a, w: jnp.all(a, axis=1, where=w), x, mask).reference("numpy's masked all", near(t, lambda a, w: np.all(a, axis=1, where=w)))
