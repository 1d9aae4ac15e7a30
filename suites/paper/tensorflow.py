"""The paper's TensorFlow functions (paper_tensorflow.txt): array, math and Python-level APIs.

All 51 listed names are covered by the three `tensorflow*.py` files of this folder:
this one (array and math ops, dtypes, nest, assertions, variables), `tensorflow_nn.py`
(convolutions, space_to_batch, images, signal) and `tensorflow_graph.py` (the TF1
graph-and-session APIs, checkpoints, summaries, hooks, optimizers, distributions,
lookup tables, tf.distribute). Cases vary what TensorFlow's own kernel tests
vary: dtypes (float16, bfloat16, float32, float64, complex64, int32/int64, bool),
0-d, empty, transposed and large inputs, the parameters that pick kernels, and
eager against tf.function(jit_compile=True). A dtype TensorFlow has no kernel or
signature for is kept: its `fail` is a finding, and the note says so.

The adapter switches soft device placement off around every case, as the paper
did, so an op without a kernel on the bound device fails instead of quietly
running on the CPU. Bodies build all their state afresh, so running a case
twice (e.g. again with placement on) gives the same first output.
Importing this file must not import tensorflow or numpy: bodies get tf as `t.fw`.
"""

from __future__ import annotations

from _tf_ref import UNIT, equal, exact, module, near, near_all

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)
from mudjack_probe.errors import Unavailable

cases = Cases("tensorflow")

ALL8 = FLOATS + ["complex64", "int32", "int64", "bool"]
SHAPES = shapes("scalar", "empty", "small", "large")


def _scaled(t: Ctx, shape: tuple[int, ...], scale: float) -> object:
    """Normal values times `scale`, scaled on the host so low precisions see the same rounding."""
    return t.adapter.from_numpy(t.numpy_rng().standard_normal(shape) * scale, t.dtype_name)


def _host(t: Ctx, array: object, dtype: str | None = None) -> object:
    """A host array onto the device, cast to `dtype` (default: the case's)."""
    return t.adapter.from_numpy(np.asarray(array), dtype or t.dtype_name)


def _flag(ok: bool) -> object:
    return np.asarray(1 if ok else 0, dtype=np.int32)


def _first_is_one(outs, ins) -> bool:
    return bool(np.asarray(outs[0]).reshape(-1)[0] == 1)


def _resolve(root: object, dotted: str) -> object | None:
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _f64(a) -> object:
    a = np.asarray(a)
    return a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64)


# --------------------------------------------------------------------------- tf.reshape

_RESHAPE_TO = {"scalar": [1], "empty": [0, 4], "small": [-1, 100], "large": [1024, 1024]}


def _elements(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


@cases.case(
    "tf.reshape",
    dtype=FLOATS + ["int32", "int64", "bool", "complex64"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large"),
    grid="small",
    note="targets: scalar -> [1], empty -> [0, 4], small -> [-1, 100], large -> [1024, 1024]",
)
def reshape(t: Ctx):
    tf = t.fw
    target = _RESHAPE_TO[t.case.shape_name]
    return t.call(lambda x: tf.reshape(x, target), t.randn()).reference(
        "equals numpy.reshape", exact(lambda x: np.reshape(x, target)))


@cases.case(
    "tf.reshape",
    dtype=["float32", "int64"],
    shape={"transposed": (64, 48), "rank4": (4, 6, 8, 10)},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "transposed"),
    note="transposed: reshape of a transposed (non-contiguous order) 64x48 matrix to [-1, 16], so the data "
    "must be reordered; rank4: 4x6x8x10 -> [24, -1, 5], a pure view change",
)
def reshape_strided(t: Ctx):
    tf = t.fw
    if t.case.shape_name == "transposed":
        return t.call(lambda x: tf.reshape(tf.transpose(x), [-1, 16]), t.randn()).reference(
            "row-major reshape of x.T", exact(lambda x: x.T.reshape(-1, 16)))
    return t.call(lambda x: tf.reshape(x, [24, -1, 5]), t.randn()).reference(
        "equals numpy.reshape", exact(lambda x: x.reshape(24, -1, 5)))


# --------------------------------------------------------------------------- tf.math.reduce_mean


def _mean_ref(axis, keepdims: bool = False):
    """numpy.mean in float64; for integers what TF computes: the sum divided by the count, truncated
    toward zero (0 for an empty reduction)."""

    def ref(x):
        if x.dtype.kind in "iu":
            total = np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)
            count = x.size // max(total.size, 1) if x.size else 0
            if count == 0:
                return np.zeros_like(total)
            return np.sign(total) * (np.abs(total) // count)
        if x.size == 0:  # 0 / 0: NaN (complex: NaN in both parts, as numpy gives)
            return np.full(np.sum(x, axis=axis, keepdims=keepdims).shape, complex(np.nan, np.nan) if x.dtype.kind == "c" else np.nan)
        return np.mean(x, axis=axis, keepdims=keepdims)

    return ref


def _mean_atol(dtype: str, axis, keepdims: bool = False):
    """An absolute error bound for a mean of n terms summed in `dtype`, in order: each addition rounds
    the partial sum by up to u |partial| (u: the unit roundoff), and n such errors random-walk to about
    0.2 u sqrt(n) sum|x| (a sum of same-sign terms grows linearly); u sqrt(n - 1) mean|x|, about six of
    those sigmas, bounds the mean's error (0 for one term). A blocked or pairwise sum does far better."""
    u = UNIT.get(dtype, 0.0)

    def atol(x):
        if x.size == 0 or u == 0.0:
            return 0.0
        n = max(x.size // max(np.sum(np.abs(x), axis=axis, keepdims=keepdims).size, 1), 1)
        return u * np.sqrt(n - 1.0) * np.mean(np.abs(x), axis=axis, keepdims=keepdims)

    return atol


@cases.case(
    "tf.math.reduce_mean",
    dtype=FLOATS + ["int32", "complex64"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (256, 128), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large"),
    grid="small",
    reduction=lambda dims, p: dims[0] if len(dims) == 2 else max(_elements(dims), 1),
    note="matrix: mean over axis 0; otherwise a full reduction (empty: NaN for floats, 0 for int32). Values in "
    "[0.5, 2.5) (ints in [0, 50)): a mean far from 0, so the check against numpy.mean sees a 1% error above "
    "the sum's rounding (of zero-mean data it could not)",
)
def reduce_mean(t: Ctx):
    tf = t.fw
    axis = 0 if t.case.shape_name == "matrix" else None
    return t.call(lambda x: tf.math.reduce_mean(x, axis=axis), t.positive()).reference(
        "equals numpy.mean", near(t, _mean_ref(axis), atol=_mean_atol(t.dtype_name, axis)))


@cases.case(
    "tf.math.reduce_mean",
    dtype=["float16", "float32", "float64", "int64"],
    shape={"cube": (8, 16, 32), "transposed": (256, 128)},
    mode=["eager", "compiled"],
    where=cross(("float32", "float64"), "cube") & compiled_only("float32", "cube"),
    note="cube: axis=[0, 2], keepdims=True (an 8x16x32 block, two non-adjacent axes); transposed: mean over "
    "axis 1 of a transposed 256x128 matrix (reduces across the original rows). Values in [0.5, 2.5) (ints in "
    "[0, 50)), as for the other reduce_mean cases",
)
def reduce_mean_axes(t: Ctx):
    tf = t.fw
    x = t.positive()
    if t.case.shape_name == "cube":
        return t.call(lambda a: tf.math.reduce_mean(a, axis=[0, 2], keepdims=True), x).reference(
            "equals numpy.mean", near(t, _mean_ref((0, 2), keepdims=True), atol=_mean_atol(t.dtype_name, (0, 2), True)))
    return t.call(lambda a: tf.math.reduce_mean(tf.transpose(a), axis=1), x).reference(
        "equals numpy.mean", near(t, lambda a: _mean_ref(1)(a.T), atol=lambda a: _mean_atol(t.dtype_name, 1)(a.T)))


# --------------------------------------------------------------------------- tf.math.reduce_logsumexp


def _lse_ref(axis, keepdims: bool):
    """log(sum(exp(x - m))) + m in float64, m the finite max (a row of -inf gives -inf, one holding +inf
    gives +inf; an empty reduction -inf)."""

    def ref(x):
        shape = np.sum(x, axis=axis, keepdims=keepdims).shape
        if x.size == 0:
            return np.full(shape, -np.inf)
        m = np.max(x, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
        return r.reshape(shape)

    return ref


def _lse_ok(axis, keepdims, dtype: str):
    """The float64 formula, rounded to the dtype; atol: the log of a sum of n positive terms is off by the
    sum's relative rounding error, which summing in order in the dtype keeps below about u sqrt(n - 1)
    (as for reduce_mean; none for one term), plus u for the exponentials. A sum of n terms up to 1 that
    the dtype cannot hold (float16 past 65504) must be accumulated wider, which leaves the u."""
    u = UNIT.get(dtype, 0.0)
    top = float(np.finfo(np.float16).max) if dtype == "float16" else np.inf

    def atol(x):
        n = max(x.size // max(np.sum(x, axis=axis).size, 1), 1)
        return u * ((0.0 if n > top else np.sqrt(n - 1.0)) + (1.0 if n > 1 else 0.0))

    return near(dtype, _lse_ref(axis, keepdims), atol=atol)


@cases.case(
    "tf.math.reduce_logsumexp",
    dtype=FLOATS,
    shape={"scalar": (), "empty": (0,), "vector": (1000,), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large"),
    grid="vector",
    reduction=lambda dims, p: max(_elements(dims), 1),
    note="full reduction (axis=None); empty: -inf. Checked against log(sum(exp(x - max))) + max in float64. "
    "The grid's integer, bool and complex vectors (int32-vector-eager: the first cut's integer case, same id) "
    "are outside the op's float-only signature (bfloat16, half, float, double): they fail on every device, "
    "the documented dtype limit",
)
def reduce_logsumexp(t: Ctx):
    tf = t.fw
    return t.call(lambda x: tf.math.reduce_logsumexp(x), t.randn()).reference("matches the float64 formula", _lse_ok(None, False, t.dtype_name))


@cases.case(
    "tf.math.reduce_logsumexp",
    dtype=["float16", "float32", "float64"],
    shape={"matrix": (256, 128)},
    mode=["eager", "compiled"],
    params={"axis": [0, 1], "keepdims": [False, True]},
    where=lambda d, s, m, p: (d == "float32" or not p["keepdims"]) and (m == "eager" or (d == "float32" and p["axis"] == 1 and not p["keepdims"])),
    note="per-axis reductions of a 256x128 matrix, with and without keepdims",
)
def reduce_logsumexp_axis(t: Ctx):
    tf = t.fw
    axis, keep = t.p.axis, t.p.keepdims
    return t.call(lambda x: tf.math.reduce_logsumexp(x, axis=axis, keepdims=keep), t.randn()).reference(
        "matches the float64 formula", _lse_ok(axis, keep, t.dtype_name))


@cases.case(
    "tf.math.reduce_logsumexp",
    dtype=["float32"],
    shape={"cube": (8, 16, 32)},
    note="axis=(1, 2) of a 3-D tensor",
)
def reduce_logsumexp_cube(t: Ctx):
    tf = t.fw
    return t.call(lambda x: tf.math.reduce_logsumexp(x, axis=(1, 2)), t.randn()).reference(
        "matches the float64 formula", _lse_ok((1, 2), False, t.dtype_name))


@cases.case(
    "tf.math.reduce_logsumexp",
    dtype=["float32", "float64"],
    shape={"infinities": (3, 4)},
    note="TF's testInfinity: a row of -inf reduces to -inf (not NaN), a row holding +inf to +inf; axis=1",
)
def reduce_logsumexp_inf(t: Ctx):
    tf = t.fw
    x = np.array([[-np.inf] * 4, [1.0, np.inf, -2.0, 0.5], [0.1, -0.3, 2.0, 1.0]])
    return t.call(lambda a: tf.math.reduce_logsumexp(a, axis=1), _host(t, x)).reference(
        "-inf row -> -inf, +inf row -> +inf, finite row the float64 formula", _lse_ok(1, False, t.dtype_name))


# --------------------------------------------------------------------------- tf.cast


@cases.case(
    "tf.cast",
    dtype=FLOATS + ["int32", "int64", "uint8", "bool", "complex64"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=compiled_only("bfloat16", "large"),
    grid="small",
    note="from float32 to the case's dtype; sources in [0, 25) with exact zeros, so float->uint8 is defined "
    "behaviour and bool sees both values",
)
def cast(t: Ctx):
    tf = t.fw
    src = t.numpy_rng().uniform(0.0, 25.0, size=t.shape).astype(np.float32)
    src.reshape(-1)[::7] = 0.0
    target = t.dtype
    return t.call(lambda x: tf.cast(x, target), t.adapter.from_numpy(src, "float32")).reference(
        "equals numpy astype", exact(lambda x: _cast_ref(x, t.dtype_name), dtype=t.dtype_name))


def _cast_ref(x, dtype: str):
    """numpy's conversion of float values to `dtype`: round to nearest even for floats (rounded later),
    truncation toward zero for integers, x != 0 for bool."""
    if dtype == "bool":
        return x != 0
    if dtype.startswith(("int", "uint")):
        return np.trunc(x).astype(np.int64)
    return x.astype(np.complex128) if dtype.startswith("complex") else x


@cases.case(
    "tf.cast",
    dtype=["float32", "int32", "float16"],
    shape={"from_complex": (1000,), "from_negative": (1000,)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (s == "from_complex" and d in ("float32", "float16")) or (s == "from_negative" and d == "int32"),
    note="from_complex: complex64 -> real keeps the real part (TF drops the imaginary part); from_negative: "
    "float32 in (-50, 50) -> int32 truncates toward zero",
)
def cast_other_sources(t: Ctx):
    tf = t.fw
    target = t.dtype
    if t.case.shape_name == "from_complex":
        return t.call(lambda x: tf.cast(x, target), t.randn(dtype="complex64")).reference(
            "the real part, rounded", exact(lambda x: x.real, dtype=t.dtype_name))
    src = t.numpy_rng().uniform(-50.0, 50.0, size=t.shape).astype(np.float32)
    return t.call(lambda x: tf.cast(x, target), t.adapter.from_numpy(src, "float32")).reference(
        "truncates toward zero", exact(lambda x: np.trunc(x).astype(np.int64)))


# --------------------------------------------------------------------------- tf.sequence_mask


def _mask_ref(width: int):
    """The mask numpy builds: row r is arange(width) < lengths[r] (ones then zeros), in the output's dtype."""
    return exact(lambda n: (np.arange(width) < n.astype(np.int64)[..., None]).astype(np.int64))


@cases.case(
    "tf.sequence_mask",
    dtype=["bool", "float32", "int32"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "large": (1 << 16,)},
    grid="small",
    note="lengths in [0, 16], maxlen 16; dtype is the output's; row sums must equal the lengths",
)
def sequence_mask(t: Ctx):
    tf = t.fw
    lengths = t.numpy_rng().integers(0, 17, size=t.shape).astype(np.int32)
    dtype = t.dtype
    return t.call(lambda n: tf.sequence_mask(n, maxlen=16, dtype=dtype), t.adapter.from_numpy(lengths, "int32")).reference(
        "arange(16) < lengths", _mask_ref(16))


@cases.case(
    "tf.sequence_mask",
    dtype=["bool", "float16"],
    shape={"no_maxlen": (1000,), "matrix_lengths": (32, 16)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: d == "bool" or (s == "no_maxlen" and m == "eager"),
    note="no_maxlen: maxlen defaults to max(lengths) (data-dependent output shape; under XLA it must be "
    "bounded); matrix_lengths: 2-D int64 lengths give a 3-D mask, maxlen 24",
)
def sequence_mask_variants(t: Ctx):
    tf = t.fw
    dtype = t.dtype
    lengths = t.numpy_rng().integers(0, 21, size=t.shape)
    if t.case.shape_name == "no_maxlen":
        lengths[0] = 20  # the widest row fixes the output width
        return t.call(lambda n: tf.sequence_mask(n, dtype=dtype), t.adapter.from_numpy(lengths.astype(np.int32), "int32")).reference(
            "arange(max(lengths)) < lengths", _mask_ref(20))
    return t.call(lambda n: tf.sequence_mask(n, maxlen=24, dtype=dtype), t.adapter.from_numpy(lengths, "int64")).reference(
        "arange(24) < lengths", _mask_ref(24))


# --------------------------------------------------------------------------- tf.linalg.svd


def _svd_reconstructs(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    s, u, v = (o.astype(np.complex128) for o in outs)
    a = ins[0].astype(np.complex128)
    eps = 1e-10 if outs[0].dtype == np.float64 else 1e-4
    rebuilt = (u * s[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))
    orthonormal = all(
        np.allclose(np.conj(np.swapaxes(f, -1, -2)) @ f, np.eye(f.shape[-1]), atol=100 * eps) for f in (u, v))
    return bool(orthonormal and np.linalg.norm(rebuilt - a) <= eps * 10 * max(1.0, np.linalg.norm(a)))


def _svd_values_ref(dtype: str):
    """Singular values against numpy.linalg.svd in float64 (complex128): each within a backward-stable
    SVD's error, 10 u max(m, n) ||A||_2 (u: the dtype's unit roundoff), of LAPACK's."""
    u = UNIT["float64" if dtype == "float64" else "float32"]

    def check(outs, ins) -> bool:
        a = ins[0].astype(np.complex128 if ins[0].dtype.kind == "c" else np.float64)
        ref = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (min(a.shape[-2:]),))
        got = outs[0].astype(np.float64)
        if got.shape != ref.shape:
            return False
        if ref.size == 0:
            return True
        bound = 10 * u * max(a.shape[-2:]) * ref.max(axis=-1, keepdims=True)
        return bool(np.all(np.abs(got - ref) <= bound + 2 * u * ref))

    return check


@cases.case(
    "tf.linalg.svd",
    dtype=["float16", "float32", "float64", "complex64"],
    shape={"small": (32, 16), "large": (512, 512)},
    params={"part": ["values", "full"]},
    grid="small",
    note="values: singular values only, checked against numpy.linalg.svd; full: U and V are defined only up to "
    "sign/phase, so they are not compared but must rebuild the input with orthonormal U. float16 has no "
    "Svd kernel (a finding)",
)
def svd(t: Ctx):
    tf = t.fw
    x = t.randn()
    if t.p.part == "values":
        return t.call(lambda a: tf.linalg.svd(a, compute_uv=False), x).reference(
            "equals numpy.linalg.svd's values", _svd_values_ref(t.dtype_name))
    return t.call(lambda a: tf.linalg.svd(a, full_matrices=False), x).no_compare().check(
        "U diag(S) V^H rebuilds the input, U and V orthonormal", _svd_reconstructs
    ).reference("S equals numpy.linalg.svd's values", _svd_values_ref(t.dtype_name))


@cases.case(
    "tf.linalg.svd",
    dtype=["float32", "float64", "complex64"],
    shape={"batch": (4, 16, 8), "wide": (8, 24), "empty": (0, 4)},
    params={"part": ["values", "full"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (m == "eager" and (s == "batch" or (s == "wide" and d != "complex64") or (s == "empty" and d == "float32")))
        or (m == "compiled" and d == "float32" and s == "batch")
    ),
    note="batch: a stack of 4 tall matrices; wide: more columns than rows; empty: a 0x4 matrix. Compiled: "
    "XLA's SVD (a Jacobi method, not LAPACK)",
)
def svd_shapes(t: Ctx):
    return svd(t)


# --------------------------------------------------------------------------- tf.tensor_scatter_nd_update

_TSU = {
    "vector": ((64,), 16, 1),  # tensor shape, number of updates, index depth
    "rows": ((32, 8), 5, 1),
    "points": ((16, 16), 20, 2),
    "empty": ((64,), 0, 1),
    "large": ((LARGE,), 4096, 1),
}


def _tsu_inputs(t: Ctx, index_dtype: str = "int32"):
    shape, k, depth = _TSU[t.case.shape_name]
    rng = t.numpy_rng()
    flat = rng.permutation(int(np.prod(shape[:depth])))[:k]  # unique: duplicate order is unspecified on GPU
    idx = np.stack(np.unravel_index(flat, shape[:depth]), axis=-1).astype(np.int64).reshape(k, depth)
    upd_shape = (k,) + tuple(shape[depth:])
    return t.randn(shape), t.adapter.from_numpy(idx, index_dtype), t.randn(upd_shape)


def _tsu_ok(outs, ins) -> bool:
    """numpy's fancy-index assignment: the updated positions hold the updates, the others the input."""
    out, (tensor, idx, upd) = outs[0], ins
    expected = np.array(tensor, copy=True)
    expected[tuple(idx.T)] = upd
    return equal(out, expected)


@cases.case(
    "tf.tensor_scatter_nd_update",
    dtype=ALL8,
    shape={"vector": (64,)},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "vector"),
    grid="vector",
    note="16 unique scalar updates into a 64-vector (indices [16, 1], int32); duplicates are avoided since "
    "their order is unspecified on GPU",
)
def tensor_scatter_nd_update(t: Ctx):
    tf = t.fw
    return t.call(lambda x, i, u: tf.tensor_scatter_nd_update(x, i, u), *_tsu_inputs(t)).reference(
        "updated positions hold the updates, others the input", _tsu_ok)


@cases.case(
    "tf.tensor_scatter_nd_update",
    dtype=["float32", "float16", "int64", "float64"],
    shape={"rows": (32, 8), "points": (16, 16), "empty": (64,), "large": (LARGE,)},
    params={"index": ["int32", "int64"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (p["index"] == "int32" and (d == "float32" or (s == "rows" and d == "int64") or (s == "points" and d == "float64")
                                    or (s == "large" and d == "float16")))
        or (p["index"] == "int64" and d == "float32" and s == "points" and m == "eager")
    ) and (m == "eager" or (d == "float32" and s in ("rows", "large"))),
    note="rows: whole rows of a 32x8 matrix (index depth 1); points: single elements of a 16x16 matrix (depth "
    "2); empty: zero updates; large: 4096 updates into a 2^20 vector",
)
def tensor_scatter_nd_update_shapes(t: Ctx):
    tf = t.fw
    return t.call(lambda x, i, u: tf.tensor_scatter_nd_update(x, i, u), *_tsu_inputs(t, t.p.index)).reference(
        "updated positions hold the updates, others the input", _tsu_ok)


# --------------------------------------------------------------------------- tf.range

_RANGES = {
    "basic": (0, 10, 1),
    "negative": (10, -10, -3),
    "empty": (5, 5, 1),
    "fraction": (0, 1, 0.125),
    "large": (0, 1 << 21, 1),
}


@cases.case(
    "tf.range",
    dtype=["int32", "int64", "float32", "float64", "float16", "bfloat16"],
    shape=_RANGES,
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (s == "basic")
        or (s in ("negative", "empty") and d in ("int32", "float32"))
        or (s == "fraction" and d in ("float32", "float64"))
        or (s == "large" and d in ("int32", "float32"))
    ) and (m == "eager" or (d, s) in (("int32", "basic"), ("float32", "large"))),
    grid="basic",
    note="dims are (start, limit, delta); eager passes them as device tensors of the case's dtype, compiled "
    "closes over Python constants (XLA needs a static length). fraction: delta 1/8 (exact in binary)",
)
def range_(t: Ctx):
    tf = t.fw
    start, limit, delta = t.shape
    dt = t.dtype
    # start + k delta for k < ceil((limit - start) / delta): every value is exact in these dtypes
    want = exact(lambda *_: np.arange(start, limit, delta, dtype=np.float64), dtype=t.dtype_name)
    if t.mode == "compiled":
        return t.call(lambda: tf.range(start, limit, delta, dtype=dt)).reference("equals numpy.arange", want)
    args = [_host(t, v) for v in (start, limit, delta)]
    return t.call(lambda a, b, c: tf.range(a, b, c), *args).reference("equals numpy.arange", want)


@cases.case(
    "tf.range",
    dtype=["int32"],
    shape={"limit_only": (10,)},
    note="tf.range(10): the one-argument form, start 0 and delta 1",
)
def range_limit_only(t: Ctx):
    tf = t.fw
    return t.call(lambda n: tf.range(n), _host(t, 10)).reference("0..9", exact(lambda n: np.arange(10)))


# --------------------------------------------------------------------------- tf.convert_to_tensor


def _host_array(t: Ctx, shape, dtype: str) -> object:
    from mudjack_probe.adapters.base import host_values

    a = host_values(tuple(shape), dtype, "randn", t.seed * 7 + 1)
    if dtype == "bfloat16":
        a = a.astype(t.fw.bfloat16.as_numpy_dtype)
    return a


@cases.case(
    "tf.convert_to_tensor",
    dtype=ALL8,
    shape=shapes("scalar", "empty", "small", "large"),
    where=cross("float32", "small"),
    grid="small",
    note="host numpy array (bfloat16 via ml_dtypes) -> tensor inside the device scope: the timed call includes "
    "the host-to-device copy",
)
def convert_to_tensor(t: Ctx):
    tf = t.fw
    a = _host_array(t, t.shape, t.dtype_name)
    return t.call(lambda h: tf.convert_to_tensor(h), a).reference("holds the host array", _same_as_host(t.dtype_name))


def _same_as_host(dtype: str, out: int = 0, arg: int = 0):
    """Check: output `out` holds exactly the values of host argument `arg`, in `dtype` (bfloat16 reaches
    checks as float32, so only its values are compared)."""

    def check(o, i) -> bool:
        if dtype != "bfloat16" and o[out].dtype != np.dtype(dtype):
            return False
        return equal(o[out], i[arg])

    return check


@cases.case(
    "tf.convert_to_tensor",
    dtype=["float32", "float64", "int32"],
    shape={"python_list": (16, 8), "dtype_arg": (1000,), "tensor": (1000,), "variable": (1000,), "bad_cast": (4,)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (s == "python_list" and d in ("float32", "int32")) or (s == "dtype_arg" and d == "float64")
        or (s in ("tensor", "variable") and d == "float32") or (s == "bad_cast" and d == "int32")
    ) and (m == "eager" or s == "tensor"),
    note="python_list: nested Python lists (float -> float32, int -> int32 by default); dtype_arg: Python ints "
    "converted with dtype=float64; tensor: a tensor passes through (compiled too); variable: a tf.Variable "
    "reads its value; bad_cast: [1.5] with dtype=int32 must raise TypeError (checked as a flag)",
)
def convert_to_tensor_sources(t: Ctx):
    tf = t.fw
    s = t.case.shape_name
    if s == "python_list":
        data = t.numpy_rng().integers(-9, 9, size=t.shape)
        values = (data / 4.0).tolist() if t.dtype_name == "float32" else data.tolist()
        want = np.asarray(values, dtype=t.dtype_name)
        return t.call(lambda: tf.convert_to_tensor(values)).reference(
            "the lists' values in the default dtype", lambda o, i: str(o[0].dtype) == t.dtype_name and equal(o[0], want))
    if s == "dtype_arg":
        values = list(range(t.shape[0]))
        return t.call(lambda: tf.convert_to_tensor(values, dtype=tf.float64)).reference(
            "float64 values", lambda o, i: o[0].dtype == np.float64 and bool(np.array_equal(o[0], np.arange(1000))))
    if s == "tensor":
        return t.call(lambda x: tf.convert_to_tensor(x) * 1, t.randn()).reference("the tensor's values", _same_as_host(t.dtype_name))
    if s == "variable":
        host = _host_array(t, t.shape, t.dtype_name)
        v = tf.Variable(t.adapter.from_numpy(host, t.dtype_name))
        return t.call(lambda: tf.convert_to_tensor(v)).reference(
            "the variable's value", lambda o, i: o[0].dtype == host.dtype and equal(o[0], host))

    def bad():
        try:
            tf.convert_to_tensor([1.5, 2.5, 3.5, 4.5], dtype=tf.int32)
        except (TypeError, ValueError):
            return _flag(True)
        return _flag(False)

    return t.call(bad).check("raises TypeError", _first_is_one)


# --------------------------------------------------------------------------- tf.constant


@cases.case(
    "tf.constant",
    dtype=ALL8 + ["string"],
    shape=shapes("scalar", "empty", "small", "large"),
    where=cross("float32", "small"),
    grid="small",
    note="tf.constant(host numpy array) in the device scope (bfloat16 via ml_dtypes; string: byte strings); "
    "the timed call includes the host-to-device copy",
)
def constant(t: Ctx):
    tf = t.fw
    if t.dtype_name == "string":
        a = np.array([b"s%d" % i for i in range(t.shape[0])], dtype=object)
        return t.call(lambda h: tf.constant(h), a).reference(
            "same bytes", lambda o, i: bool(np.array_equal(o[0].astype(bytes), i[0].astype(bytes))))
    a = _host_array(t, t.shape, t.dtype_name)
    return t.call(lambda h: tf.constant(h), a).reference("holds the host array", _same_as_host(t.dtype_name))


@cases.case(
    "tf.constant",
    dtype=["float32", "int32", "float64", "complex64"],
    shape={"fill": (256, 256), "python_list": (8, 8)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (s == "fill" and d in ("float32", "int32", "complex64")) or (s == "python_list" and d == "float64" and m == "eager")
    if m == "eager" else (s == "fill" and d == "float32"),
    note="fill: a Python scalar broadcast to shape [256, 256] (constant_op_test's shape argument); "
    "python_list: nested lists with dtype=float64",
)
def constant_fill(t: Ctx):
    tf = t.fw
    dt = t.dtype
    if t.case.shape_name == "fill":
        value = {"float32": 1.5, "int32": 7, "complex64": 1.5 - 2j}[t.dtype_name]
        return t.call(lambda: tf.constant(value, dtype=dt, shape=[256, 256])).reference(
            "every element is the value", lambda o, i: o[0].dtype == np.dtype(t.dtype_name) and equal(o[0], np.full((256, 256), value)))
    values = (np.arange(64).reshape(8, 8) / 8.0).tolist()
    return t.call(lambda: tf.constant(values, dtype=dt)).reference(
        "the lists' values, float64", lambda o, i: o[0].dtype == np.float64 and equal(o[0], np.arange(64).reshape(8, 8) / 8.0))


# --------------------------------------------------------------------------- tf.dtypes.as_dtype

_DTYPE_NAMES = ALL8 + ["string", "complex128", "uint8"]  # int8 and int16 come from the grid


def _dtype_facts(dt) -> object:
    return np.array(
        [dt.as_datatype_enum, dt.size if dt.name != "string" else 0, dt.is_floating, dt.is_integer, dt.is_complex, dt.is_bool],
        dtype=np.int64,
    )


# What each name must resolve to, from tensorflow/core/framework/types.proto (the DataType enum) and the
# dtypes' definitions: (enum, size in bytes, is_floating, is_integer, is_complex, is_bool).
_DTYPE_TABLE = {
    "float32": (1, 4, 1, 0, 0, 0), "float64": (2, 8, 1, 0, 0, 0), "int32": (3, 4, 0, 1, 0, 0), "uint8": (4, 1, 0, 1, 0, 0),
    "string": (7, 0, 0, 0, 0, 0), "complex64": (8, 8, 0, 0, 1, 0), "int64": (9, 8, 0, 1, 0, 0), "bool": (10, 1, 0, 0, 0, 1),
    "bfloat16": (14, 2, 1, 0, 0, 0), "complex128": (18, 16, 0, 0, 1, 0), "float16": (19, 2, 1, 0, 0, 0),
    "int16": (5, 2, 0, 1, 0, 0), "int8": (6, 1, 0, 1, 0, 0),
}


@cases.case(
    "tf.dtypes.as_dtype",
    dtype=_DTYPE_NAMES,
    shape=shapes("scalar"),
    params={"source": ["name", "numpy", "enum"]},
    where=lambda d, s, m, p: p["source"] == "name" or (p["source"] == "numpy" and d in ("float32", "int64", "bool", "bfloat16", "complex64"))
    or (p["source"] == "enum" and d in ("float32", "complex64")),
    grid="scalar",
    note="as_dtype from a name string, a numpy dtype (bfloat16 via ml_dtypes) or a DataType enum; the output is "
    "(enum, size, is_floating, is_integer, is_complex, is_bool), checked against the name. Host-only Python",
)
def as_dtype(t: Ctx):
    tf = t.fw
    name = t.dtype_name
    target = tf.as_dtype(name)
    spec = {"name": name, "numpy": getattr(target, "as_numpy_dtype", None), "enum": target.as_datatype_enum}[t.p.source]
    return t.call(lambda: _dtype_facts(tf.dtypes.as_dtype(spec))).reference(
        "the named dtype's enum, size and kind (types.proto)", exact(lambda: np.array(_DTYPE_TABLE[name])))


@cases.case(
    "tf.dtypes.as_dtype",
    dtype=["float32"],
    shape={"python_type": (), "invalid": ()},
    note="python_type: as_dtype(float) is float32; invalid: as_dtype('float33') must raise TypeError (flag)",
)
def as_dtype_other(t: Ctx):
    tf = t.fw
    if t.case.shape_name == "python_type":
        return t.call(lambda: _dtype_facts(tf.dtypes.as_dtype(float))).reference(
            "float32", exact(lambda: np.array(_DTYPE_TABLE["float32"])))

    def bad():
        try:
            tf.dtypes.as_dtype("float33")
        except TypeError:
            return _flag(True)
        return _flag(False)

    return t.call(bad).check("raises TypeError", _first_is_one)


# --------------------------------------------------------------------------- tf.numpy_function


@cases.case(
    "tf.numpy_function",
    dtype=ALL8,
    shape=shapes("scalar", "empty", "small", "large"),
    mode=["eager", "compiled"],
    where=cross("float32", "small") & compiled_only("float32", "small"),
    grid="small",
    note="numpy_function(np.negative (logical_not for bool), [x], x.dtype): a PyFunc op, whose kernel is CPU "
    "only, so with soft placement off it cannot run on an accelerator; compiled: XLA cannot compile PyFunc "
    "(documented), so that case fails everywhere",
)
def numpy_function(t: Ctx):
    tf = t.fw
    x = t.randn()
    dt = t.dtype
    fn = np.logical_not if t.dtype_name == "bool" else np.negative
    return t.call(lambda a: tf.numpy_function(lambda h: fn(h), [a], dt), x).reference(
        "applies the numpy function", exact(fn))


@cases.case(
    "tf.numpy_function",
    dtype=["float32"],
    shape={"two_outputs": (256, 64), "stateless": (1000,)},
    note="two_outputs: Tout=[float32, int64] (row sums and argmax per row); stateless: stateful=False",
)
def numpy_function_variants(t: Ctx):
    tf = t.fw
    x = t.randn()
    if t.case.shape_name == "two_outputs":
        def host(h):
            return h.sum(axis=1).astype(np.float32), h.argmax(axis=1).astype(np.int64)

        # row sums of 64 float32 terms: within 4 u sqrt(64) of the float64 sum's scale
        return t.call(lambda a: tf.numpy_function(host, [a], [tf.float32, tf.int64]), x).reference(
            "row sums", near(t, lambda h: h.sum(axis=1), atol=lambda h: 32 * UNIT["float32"] * np.abs(h).sum(axis=1))).reference(
            "argmax", exact(lambda h: h.argmax(axis=1), out=1))
    return t.call(lambda a: tf.numpy_function(lambda h: h * 2, [a], tf.float32, stateful=False), x).reference(
        "doubles", exact(lambda h: h * 2))


# --------------------------------------------------------------------------- tf.sets.intersection


def _set_rows_ok(outs, ins) -> bool:
    """Each output row (padding dropped) is exactly the intersection of the input rows, sorted."""
    out, a, b = outs[0], ins[0], ins[1]
    pad = b"" if out.dtype.kind in "OSU" else 0
    width = out.shape[-1]
    out2 = out.reshape(-1, width) if width else np.zeros((int(np.prod(out.shape[:-1])), 0), out.dtype)
    a2 = a.reshape(out2.shape[0], -1)
    b2 = b.reshape(out2.shape[0], -1)
    for ro, ra, rb in zip(out2, a2, b2):
        got = [v for v in ro.tolist() if v != pad]
        want = sorted((set(ra.tolist()) & set(rb.tolist())) - {pad})
        if got != want:
            return False
    return True


_SETS = {"matrix": (8, 12), "rank3": (2, 3, 12), "large": (2048, 64), "empty": (4, 0)}


def _set_operands(t: Ctx, dtype: str):
    rng = t.numpy_rng()
    a = rng.integers(1, 21, size=t.shape)
    b = rng.integers(1, 21, size=t.shape)
    if dtype == "string":
        tf = t.fw
        to_str = np.vectorize(lambda v: b"v%02d" % v, otypes=[object])
        return tf.constant(to_str(a) if a.size else np.zeros(t.shape, dtype=object)), tf.constant(to_str(b) if b.size else np.zeros(t.shape, dtype=object))
    return t.adapter.from_numpy(a, dtype), t.adapter.from_numpy(b, dtype)


@cases.case(
    "tf.sets.intersection",
    dtype=["int8", "int16", "int32", "int64", "uint8", "string", "float32"],
    shape=_SETS,
    where=cross("int32", "matrix"),
    grid="matrix",
    note="dense-dense, values in [1, 20] so the dense output's padding (0, or b'' for strings) is not a value; "
    "the sparse result is densified for comparison. float32 is outside the op's documented dtypes "
    "(ints and string): a TypeError on every device (as the grid's other floats, complex and bool, given the "
    "same values [1, 20] in their dtype). The set kernels are CPU-only, a finding off the CPU",
)
def sets_intersection(t: Ctx):
    tf = t.fw
    if t.dtype_name == "float32":  # the first cut's float32 case: normal values
        a, b = t.randn(), t.randn()
    else:
        a, b = _set_operands(t, t.dtype_name)
    return t.call(lambda x, y: tf.sets.intersection(x, y), a, b).reference("only the common elements, each once", _set_rows_ok)


@cases.case(
    "tf.sets.intersection",
    dtype=["int32", "int64"],
    shape={"matrix": (8, 12)},
    params={"operands": ["dense-sparse", "sparse-sparse"]},
    where=lambda d, s, m, p: d == "int32" or p["operands"] == "sparse-sparse",
    note="sparse operands from tf.sparse.from_dense (values in [1, 20], so no value is dropped as a zero)",
)
def sets_intersection_sparse(t: Ctx):
    tf = t.fw
    a, b = _set_operands(t, t.dtype_name)
    b = tf.sparse.from_dense(b)
    if t.p.operands == "sparse-sparse":
        a = tf.sparse.from_dense(a)
    return t.call(lambda x, y: tf.sets.intersection(x, y), a, b).reference("only the common elements, each once", _set_rows_ok)


# --------------------------------------------------------------------------- tf.linalg.set_diag

_SET_DIAG = {
    "square": ((8, 8), 0),
    "rect": ((4, 6), 0),
    "batch": ((3, 5, 5), 0),
    "offset": ((5, 7), 1),
    "band": ((6, 6), (-1, 1)),
    "empty": ((2, 0, 0), 0),
    "large": ((1024, 1024), 0),
}


def _diag_len(rows: int, cols: int, k: int) -> int:
    return max(0, min(rows + min(k, 0), cols - max(k, 0)))


def _set_diag_ref(x, diag, k, align: str):
    """numpy set_diag as matrix_set_diag_v3 documents it: diagonal d (k[0] <= d <= k[1]) is row k[1] - d of
    a band's `diag` (the diagonal itself for one k); element m of diagonal d sits at (m, m + d) for d >= 0,
    (m - d, m) below. A diagonal shorter than the widest is aligned in its row: superdiagonals (d >= 0) to
    the right with a first half RIGHT, subdiagonals with a second half RIGHT, else to the left."""
    out = np.array(x, copy=True)
    rows, cols = x.shape[-2], x.shape[-1]
    lo, hi = (k, k) if isinstance(k, int) else k
    band = not isinstance(k, int)
    width = max(_diag_len(rows, cols, d) for d in range(lo, hi + 1))
    first, second = align.split("_")
    for d in range(lo, hi + 1):
        n = _diag_len(rows, cols, d)
        right = (first if d >= 0 else second) == "RIGHT"
        offset = width - n if right else 0
        values = diag[..., hi - d, :] if band else diag
        for m in range(n):
            r, c = (m, m + d) if d >= 0 else (m - d, m)
            out[..., r, c] = values[..., offset + m] if band else values[..., m]
    return out


@cases.case(
    "tf.linalg.set_diag",
    dtype=ALL8,
    shape={name: dims for name, (dims, _) in _SET_DIAG.items()},
    params={"align": ["RIGHT_LEFT", "LEFT_RIGHT"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (p["align"] == "RIGHT_LEFT" and (s == "square" or d == "float32" or (s == "large" and d == "float16")))
        or (p["align"] == "LEFT_RIGHT" and s == "band" and d == "float32")
    ) and (m == "eager" or (d == "float32" and s in ("square", "band", "large") and p["align"] == "RIGHT_LEFT")),
    grid="square",
    note="k=0 except offset (k=1, a superdiagonal of a 5x7) and band (k=(-1, 1), three diagonals, packed with "
    "the align argument); empty: a batch of 0x0 matrices; large: 1024x1024",
)
def set_diag(t: Ctx):
    tf = t.fw
    dims, k = _SET_DIAG[t.case.shape_name]
    rows, cols = dims[-2], dims[-1]
    batch = tuple(dims[:-2])
    if isinstance(k, tuple):
        width = max(_diag_len(rows, cols, d) for d in range(k[0], k[1] + 1))
        dshape = batch + (k[1] - k[0] + 1, width)
    else:
        dshape = batch + (_diag_len(rows, cols, k),)
    x, diag = t.randn(dims), t.randn(dshape)
    align = t.p.align
    return t.call(lambda a, d: tf.linalg.set_diag(a, d, k=k, align=align), x, diag).reference(
        "the diagonals are the new ones, the rest the input", exact(lambda a, d: _set_diag_ref(a, d, k, align)))


# --------------------------------------------------------------------------- tf.math.igammac


@cases.case(
    "tf.math.igammac",
    dtype=FLOATS,
    shape={"scalar": (), "empty": (0,), "vector": (1000,), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=cross("float32", "vector") & compiled_only(("float32", "float64"), "vector"),
    grid="vector",
    note="Q(a, x), the regularized upper incomplete gamma, a in [0.5, 2.5), x in [0, 7.5); checked against "
    "scipy.special.gammaincc. float16 and bfloat16 have no Igammac kernel (a finding)",
)
def igammac(t: Ctx):
    tf = t.fw
    a = t.positive()
    x = _host(t, t.numpy_rng().uniform(0.0, 7.5, size=t.shape))
    return t.call(lambda aa, xx: tf.math.igammac(aa, xx), a, x).reference("equals scipy.special.gammaincc", _igammac_ref(t))


def _igammac_ref(t: Ctx):
    """Q(a, x) against scipy.special.gammaincc in float64 (a series and continued fraction, not TF's)."""
    return near(t, lambda a, x: module("scipy.special").gammaincc(a, x))


@cases.case(
    "tf.math.igammac",
    dtype=["float32", "float64"],
    shape={"a_one": (1000,), "broadcast": (8, 128), "edges": (6,)},
    where=cross("float64", "a_one"),
    note="a_one: Q(1, x) = exp(-x) exactly; broadcast: a of shape [8, 1] against x of shape [1, 128]; edges: "
    "x = 0 gives 1, tiny and huge a, x = a = 100; all against scipy.special.gammaincc",
)
def igammac_special(t: Ctx):
    tf = t.fw
    s = t.case.shape_name
    rtol = 1e-5 if t.dtype_name == "float32" else 1e-12
    if s == "a_one":
        x = _host(t, t.numpy_rng().uniform(0.0, 20.0, size=t.shape))
        a = _host(t, np.ones(t.shape))
        return t.call(lambda aa, xx: tf.math.igammac(aa, xx), a, x).reference(
            "Q(1, x) = exp(-x)", lambda o, i: bool(np.allclose(_f64(o[0]), np.exp(-_f64(i[1])), rtol=rtol * 10, atol=1e-30)))
    if s == "broadcast":
        a = _host(t, t.numpy_rng().uniform(0.1, 10.0, size=(8, 1)))
        x = _host(t, t.numpy_rng().uniform(0.0, 12.0, size=(1, 128)))
        return t.call(lambda aa, xx: tf.math.igammac(aa, xx), a, x).reference("equals scipy.special.gammaincc, shape [8, 128]", _igammac_ref(t))
    a = _host(t, np.array([1e-3, 100.0, 1.0, 5.0, 1e3, 0.5]))
    x = _host(t, np.array([0.0, 100.0, 0.0, 1e-6, 900.0, 50.0]))
    return t.call(lambda aa, xx: tf.math.igammac(aa, xx), a, x).reference(
        "x = 0 gives 1; the rest equals scipy.special.gammaincc", lambda o, i: bool(o[0][0] == 1 and o[0][2] == 1) and _igammac_ref(t)(o, i))


# --------------------------------------------------------------------------- tf.Tensor.get_shape


def _shape_array(shape) -> object:
    if shape.rank is None:
        return np.array([-2], dtype=np.int64)  # unknown rank
    return np.array([-1 if d is None else d for d in shape.as_list()], dtype=np.int64)


@cases.case(
    "tf.Tensor.get_shape",
    dtype=["float32", "int32", "bool", "complex64"],
    shape={"scalar": (), "empty": (0, 3), "matrix": (3, 4), "rank5": (2, 1, 3, 1, 4)},
    mode=["eager", "compiled"],
    where=cross("float32", "matrix") & compiled_only("float32", "matrix"),
    grid="matrix",
    note="static shape of an eager tensor as a list; compiled: read while tracing, so XLA returns it as a constant",
)
def get_shape(t: Ctx):
    tf = t.fw
    dims = list(t.shape)
    call = t.call(lambda x: tf.constant(_shape_array(x.get_shape())), t.randn())
    return call.reference("equals the dims", lambda o, i: o[0].shape == (len(dims),) and list(o[0]) == dims)


@cases.case(
    "tf.Tensor.get_shape",
    dtype=["float32"],
    shape={"graph_partial": (-1, 3), "graph_unknown_rank": ()},
    note="graph tensors: a placeholder of shape [None, 3] gives [None, 3] (-1 here); shape=None gives an "
    "unknown rank (-2 here)",
)
def get_shape_graph(t: Ctx):
    tf = t.fw
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        ph = tf.compat.v1.placeholder(tf.float32, shape=None if t.case.shape_name == "graph_unknown_rank" else [None, 3])
        y = tf.abs(ph)
    want = [-2] if t.case.shape_name == "graph_unknown_rank" else [-1, 3]
    return t.call(lambda: _shape_array(y.get_shape())).reference("partial shape", lambda o, i: list(o[0]) == want)


# --------------------------------------------------------------------------- tf.nest.map_structure


def _nested(t: Ctx, n_leaf: tuple[int, ...]):
    return {"a": t.randn(n_leaf), "b": [t.randn(n_leaf), (t.randn(n_leaf), t.randn(()))], "c": {"d": t.randn(n_leaf)}}


@cases.case(
    "tf.nest.map_structure",
    dtype=["float16", "float32", "float64", "int32", "bfloat16"],
    shape={"nested": (16,), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=cross("float32", "nested") & compiled_only("float32", "nested"),
    grid="nested",
    note="a dict/list/tuple nest of 5 tensors, each doubled (bool: negated); the output keeps the structure "
    "(flattened in key order)",
)
def map_structure(t: Ctx):
    tf = t.fw
    if t.dtype_name == "bool":
        return t.call(lambda s: tf.nest.map_structure(tf.logical_not, s), _nested(t, t.shape)).reference(
            "each leaf negated, in the same nest", near_all(t, lambda *leaves: [np.logical_not(v) for v in leaves]))
    return t.call(lambda s: tf.nest.map_structure(lambda v: v * 2, s), _nested(t, t.shape)).reference(
        "each leaf doubled, in the same nest", near_all(t, lambda *leaves: [2 * v for v in leaves]))


@cases.case(
    "tf.nest.map_structure",
    dtype=["float32"],
    shape={"two_structures": (64,), "many_leaves": (1000,), "mismatch": (4,), "composite": (32, 32)},
    note="two_structures: a + b leaf by leaf; many_leaves: a list of 1000 scalars; mismatch: structures of "
    "different shape must raise ValueError (flag); composite: expand_composites=True over a SparseTensor, "
    "doubling its values (its indices and dense_shape pass through)",
)
def map_structure_variants(t: Ctx):
    tf = t.fw
    s = t.case.shape_name
    if s == "two_structures":
        a, b = _nested(t, t.shape), _nested(t, t.shape)
        return t.call(lambda x, y: tf.nest.map_structure(lambda u, v: u + v, x, y), a, b).reference(
            "leaf by leaf sums", near_all(t, lambda *leaves: [u + v for u, v in zip(leaves[:5], leaves[5:])]))
    if s == "many_leaves":
        leaves = [t.randn(()) for _ in range(t.shape[0])]
        return t.call(lambda x: tf.nest.map_structure(lambda v: v + 1, x), leaves).reference(
            "each leaf plus one", near_all(t, lambda *vs: [v + 1 for v in vs]))
    if s == "mismatch":
        a, b = {"a": t.randn(), "b": [t.randn()]}, {"a": t.randn(), "b": [t.randn(), t.randn()]}

        def bad(x, y):
            try:
                tf.nest.map_structure(lambda u, v: u + v, x, y)
            except (ValueError, TypeError):
                return _flag(True)
            return _flag(False)

        return t.call(bad, a, b).check("raises ValueError", _first_is_one)
    dense = t.randn()
    sp = tf.sparse.from_dense(tf.where(tf.abs(dense) > 1.0, dense, tf.zeros_like(dense)))
    return t.call(lambda x: tf.nest.map_structure(lambda v: v * 2 if v.dtype.is_floating else v, x, expand_composites=True), sp).reference(
        "the sparse values doubled (densified)", near(t, lambda d: 2 * d))


# --------------------------------------------------------------------------- tf.contrib.framework.nest.map_structure_up_to


@cases.case(
    "tf.contrib.framework.nest.map_structure_up_to",
    dtype=["float32", "int32", "float64"],
    shape={"default": (4,), "list": (16,), "mismatch": (4,)},
    successor="tf.__internal__.nest.map_structure_up_to",
    where=cross("float32", "default"),
    grid="default",
    note="tf.contrib was removed in TensorFlow 2.0 and the public tf.nest has no map_structure_up_to; the same "
    "function (tensorflow/python/util/nest.py) is exported as tf.__internal__.nest.map_structure_up_to, which "
    "this tests. default: shallow {a, b} over {a: x, b: [y, z]}, so the function gets the list whole; list: "
    "shallow [0, (0, 0)]; mismatch: a shallow structure the input does not have must raise (flag)",
)
def contrib_map_structure_up_to(t: Ctx):
    tf = t.fw
    fn = _resolve(tf, "tf.contrib.framework.nest.map_structure_up_to") or _resolve(tf, "tf.__internal__.nest.map_structure_up_to")
    if fn is None:
        raise Unavailable(f"tf.contrib.framework.nest.map_structure_up_to does not exist in TensorFlow {tf.__version__}: "
                          "tf.contrib was removed in 2.0 and neither tf.nest nor tf.__internal__.nest has map_structure_up_to")
    s = t.case.shape_name
    if s == "default":
        shallow = {"a": 0, "b": 0}
        inputs = {"a": t.randn((4,)), "b": [t.randn((3,)), t.randn((2,))]}
        if t.dtype_name == "bool":  # bool has no multiply: negate instead
            return t.call(lambda x: fn(shallow, lambda v: tf.logical_not(tf.concat(v, 0) if isinstance(v, list) else v), x), inputs).reference(
                "a negated, the list b concatenated and negated",
                near_all(t, lambda a, b0, b1: [np.logical_not(a), np.logical_not(np.concatenate([b0, b1]))]))
        return t.call(lambda x: fn(shallow, lambda v: tf.concat(v, 0) * 2 if isinstance(v, list) else v * 2, x), inputs).reference(
            "a doubled, the list b concatenated and doubled", near_all(t, lambda a, b0, b1: [2 * a, 2 * np.concatenate([b0, b1])]))
    if s == "list":
        shallow = [0, (0, 0)]
        inputs = [t.randn(t.shape), (t.randn(t.shape), {"deep": t.randn(t.shape)})]
        return t.call(lambda x: fn(shallow, lambda v: v["deep"] - 1 if isinstance(v, dict) else v + 1, x), inputs).reference(
            "x + 1, y + 1 and the dict's deep - 1", near_all(t, lambda x, y, z: [x + 1, y + 1, z - 1]))

    def bad(x):
        try:
            fn({"a": 0, "zz": 0}, lambda v: v, x)
        except (ValueError, TypeError, KeyError):
            return _flag(True)
        return _flag(False)

    return t.call(bad, {"a": t.randn(), "b": t.randn()}).check("raises on a missing key", _first_is_one)


# --------------------------------------------------------------------------- tf.python.framework.smart_cond


def _smart_cond(tf):
    fn = _resolve(tf, "tf.python.framework.smart_cond.smart_cond") or _resolve(tf, "tf.__internal__.smart_cond.smart_cond")
    if fn is not None:
        return fn
    cond = getattr(tf, "cond", None)
    if cond is None:
        raise Unavailable(f"TensorFlow {tf.__version__} has no smart_cond and no tf.cond")
    return lambda pred, true_fn, false_fn: true_fn() if pred is True else false_fn() if pred is False else cond(pred, true_fn, false_fn)


@cases.case(
    "tf.python.framework.smart_cond",
    dtype=["float32", "float64", "int32"],
    shape=shapes("small", "large"),
    params={"pred": ["dynamic", "python_true", "python_false", "constant_tensor"]},
    mode=["eager", "compiled"],
    successor="tf.__internal__.smart_cond.smart_cond",
    grid="small",
    where=lambda d, s, m, p: (
        (s == "small" and (d == "float32" or p["pred"] == "dynamic")) or (s == "large" and d == "float32" and p["pred"] == "dynamic")
    ) and (m == "eager" or (d == "float32" and s == "small" and p["pred"] in ("python_true", "dynamic"))),
    note="tf.python.* is not public API; smart_cond lives on as tf.__internal__.smart_cond.smart_cond (tf.cond "
    "if that is gone too). It picks the branch statically for a Python bool or a constant tensor and emits "
    "tf.cond otherwise (dynamic: pred = sum(x) > 0, x cast to float32). Branches: 2x and x - 1 (bool: not x "
    "and x)",
)
def smart_cond(t: Ctx):
    tf = t.fw
    sc = _smart_cond(tf)
    kind = t.p.pred
    x = t.randn()
    boolean = t.dtype_name == "bool"
    if boolean:  # bool has no arithmetic: the branches are logical_not and identity
        def true_fn(a):
            return tf.logical_not(a)

        def false_fn(a):
            return tf.identity(a)
    else:
        two = tf.constant(2, dtype=t.dtype)
        one = tf.constant(1, dtype=t.dtype)

        def true_fn(a):
            return a * two

        def false_fn(a):
            return a - one

    def fn(a):
        if kind == "python_true":
            pred = True
        elif kind == "python_false":
            pred = False
        elif kind == "constant_tensor":
            pred = tf.constant(True)
        else:
            pred = tf.reduce_sum(tf.cast(a, tf.float32)) > 0
        return sc(pred, lambda: true_fn(a), lambda: false_fn(a))

    def branch(a):
        taken = {"python_true": True, "python_false": False, "constant_tensor": True}.get(kind)
        if taken is None:  # TF's predicate: the sum of x cast to float32 (the real part of complex)
            taken = float(np.sum(np.real(a).astype(np.float64))) > 0
        if boolean:
            return np.logical_not(a) if taken else a
        return a * 2 if taken else a - 1

    return t.call(fn, x).reference("the right branch's value", near(t, branch))


# --------------------------------------------------------------------------- tf.debugging.assert_less


def _raises_flag(tf, fn):
    try:
        fn()
    except tf.errors.InvalidArgumentError:
        return _flag(True)
    return _flag(False)


@cases.case(
    "tf.debugging.assert_less",
    dtype=FLOATS + ["int32", "int64", "bool", "complex64"],
    shape=shapes("scalar", "empty", "small", "large"),
    params={"holds": [True, False]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (p["holds"] and (s == "small" or d == "float32")) or (not p["holds"] and s == "small" and d in ("float32", "int32"))
    ) and (m == "eager" or (d == "float32" and s == "small")),
    grid="small",
    note="holds: x < x + 1 elementwise; the call must not raise and then returns the comparison x < y as "
    "int32 (checked against numpy.less). holds=false: one element violates; eager must raise "
    "InvalidArgumentError (flag 1). Compiled violation: TF's XLA bridge compiles Assert to nothing (tf2xla's "
    "AssertOp logs 'Ignoring Assert operator'), so either outcome is TF's: raising (the case then returns -1s) "
    "or running on with the right x < y (numpy.less, a 0 at the violation); the body compiles the call itself "
    "to tell them apart. bool and complex64 are outside the op's ordered dtypes: fail on every device",
)
def assert_less(t: Ctx):
    tf = t.fw
    x = t.randn()
    if t.dtype_name == "bool":
        y = tf.ones_like(x)
        x = tf.zeros_like(x)
    else:
        y = x + tf.constant(1, dtype=t.dtype)
    holds = t.p.holds
    if not holds:
        y = tf.tensor_scatter_nd_update(y, [[3]], tf.gather(x, [3]))  # x[3] == y[3] violates x < y

    def asserted(a, b):
        tf.debugging.assert_less(a, b)
        return tf.cast(tf.less(a, b), tf.int32)  # runs after the assertion (automatic control dependencies)

    less = exact(lambda a, b: np.less(a, b).astype(np.int64))
    if holds:
        return t.call(asserted, x, y).reference("no error, and x < y as numpy.less", less)
    if t.mode == "compiled":
        compiled = tf.function(asserted, jit_compile=True)

        def fn(a, b):
            try:
                return compiled(a, b)
            except tf.errors.InvalidArgumentError:  # the assertion fired under XLA
                return -tf.ones_like(a, dtype=tf.int32)

        def either(o, i) -> bool:
            return bool(np.all(o[0] == -1)) or less(o, i)

        return t.call(fn, x, y).self_compiled().reference("raised (all -1), or ran on with x < y as numpy.less", either)
    return t.call(lambda a, b: _raises_flag(tf, lambda: tf.debugging.assert_less(a, b)), x, y).check(
        "raises InvalidArgumentError", _first_is_one)


@cases.case(
    "tf.debugging.assert_less",
    dtype=["float32"],
    shape={"broadcast": (64, 1000)},
    note="x of shape [64, 1000] against y of shape [1000] (broadcast), holding; returns x < y as int32",
)
def assert_less_broadcast(t: Ctx):
    tf = t.fw
    x = t.randn()
    y = tf.reduce_max(x, axis=0) + 1.0

    def asserted(a, b):
        tf.debugging.assert_less(a, b)
        return tf.cast(tf.less(a, b), tf.int32)

    return t.call(asserted, x, y).reference("no error, and x < y as numpy.less", exact(lambda a, b: np.less(a, b).astype(np.int64)))


# --------------------------------------------------------------------------- tf.test.TestCase.assert_equal


def _test_case(tf):
    tc_cls = getattr(getattr(tf, "test", None), "TestCase", None)
    if tc_cls is None:
        raise Unavailable(f"TensorFlow {tf.__version__} has no tf.test.TestCase")
    tc = tc_cls()
    method = getattr(tc, "assert_equal", None) or getattr(tc, "assertAllEqual", None)
    if method is None:
        raise Unavailable("tf.test.TestCase has neither assert_equal nor assertAllEqual")
    return method


@cases.case(
    "tf.test.TestCase.assert_equal",
    dtype=ALL8 + ["string"],
    shape=shapes("scalar", "small", "large"),
    params={"equal": [True, False]},
    successor="tf.test.TestCase.assertAllEqual",
    where=lambda d, s, m, p: (p["equal"] and (s == "small" or d == "float32")) or (not p["equal"] and s == "small" and d in ("float32", "int32")),
    grid="small",
    note="tf.test.TestCase has no assert_equal (unittest's camelCase assertEqual cannot compare tensors); its "
    "tensor equality assertion is assertAllEqual, tested here: equal tensors pass (flag 1), one differing "
    "element must raise AssertionError (flag 1). It evaluates tensors to host arrays, so it runs anywhere",
)
def testcase_assert_equal(t: Ctx):
    tf = t.fw
    assert_equal = _test_case(tf)
    if t.dtype_name == "string":
        x = tf.constant(np.array([b"s%d" % i for i in range(t.shape[0])], dtype=object))
    else:
        x = t.randn()
    y = tf.identity(x)
    if not t.p.equal:
        y = tf.tensor_scatter_nd_update(y, [[7]], tf.gather(x, [7]) + tf.constant(1, dtype=x.dtype))

        def fn(a, b):
            try:
                assert_equal(a, b)
            except AssertionError:
                return _flag(True)
            return _flag(False)

        return t.call(fn, x, y).check("raises AssertionError", _first_is_one)

    def passes(a, b):
        try:
            assert_equal(a, b)
        except AssertionError:
            return _flag(False)
        return _flag(True)

    return t.call(passes, x, y).check("no AssertionError", _first_is_one)


@cases.case(
    "tf.test.TestCase.assert_equal",
    dtype=["float32"],
    shape={"shape_mismatch": (4,)},
    successor="tf.test.TestCase.assertAllEqual",
    note="shapes [4] and [5] must raise AssertionError (flag 1)",
)
def testcase_assert_equal_shapes(t: Ctx):
    tf = t.fw
    assert_equal = _test_case(tf)

    def fn(a, b):
        try:
            assert_equal(a, b)
        except AssertionError:
            return _flag(True)
        return _flag(False)

    return t.call(fn, t.randn((4,)), t.randn((5,))).check("raises AssertionError", _first_is_one)


# --------------------------------------------------------------------------- tf.Variable


@cases.case(
    "tf.Variable",
    dtype=ALL8,
    shape=shapes("scalar", "empty", "small", "large"),
    where=cross("float32", "small"),
    grid="small",
    note="create: tf.Variable(x) then read_value(), in the device scope (allocation plus copy); the variable "
    "is released after each call",
)
def variable_create(t: Ctx):
    tf = t.fw
    return t.call(lambda x: tf.Variable(x).read_value(), t.randn()).reference("reads back the initial value", _same_as_host(t.dtype_name))


@cases.case(
    "tf.Variable",
    dtype=FLOATS + ["complex64", "int32", "int64"],
    shape={"assign_add": (1000,), "assign_add_large": (LARGE,)},
    mode=["eager", "compiled"],
    where=cross("float32", "assign_add") & compiled_only("float32"),
    note="a variable made in the body; the timed call is v.assign_add(d) then read_value(), so the first "
    "call's output is x + d (later calls keep adding; only the first is compared); compiled: assign_add on "
    "a captured resource variable under XLA",
)
def variable_assign_add(t: Ctx):
    tf = t.fw
    x_host = _host_array(t, t.shape, t.dtype_name)
    v = tf.Variable(t.adapter.from_numpy(x_host, t.dtype_name))
    d = t.randn()

    def fn(delta):
        v.assign_add(delta)
        return v.read_value()

    x64 = _f64(x_host)
    return t.call(fn, d).stateful("assign_add per call: the variable keeps every sum").reference(
        "x + d", near(t, lambda delta: x64 + delta))


@cases.case(
    "tf.Variable",
    dtype=["float32"],
    shape={"scatter_update": (1000, 16), "sliced_assign": (64, 64)},
    note="scatter_update: v.scatter_update(IndexedSlices) of 50 rows; sliced_assign: v[8:24, ::2].assign(...) "
    "(a strided slice assignment)",
)
def variable_updates(t: Ctx):
    tf = t.fw
    v0 = _host_array(t, t.shape, t.dtype_name)
    v = tf.Variable(t.adapter.from_numpy(v0, t.dtype_name))
    if t.case.shape_name == "scatter_update":
        idx = t.adapter.from_numpy(t.numpy_rng().permutation(1000)[:50].astype(np.int32), "int32")
        upd = t.randn((50, 16))

        def scattered(i, u):
            want = np.array(v0, copy=True)
            want[i.astype(np.int64)] = u
            return want

        return t.call(lambda i, u: (v.scatter_update(tf.IndexedSlices(u, i)), v.read_value())[1], idx, upd).reference(
            "numpy row assignment", exact(scattered))
    upd = t.randn((16, 32))

    def sliced(u):
        want = np.array(v0, copy=True)
        want[8:24, ::2] = u
        return want

    return t.call(lambda u: (v[8:24, ::2].assign(u), v.read_value())[1], upd).reference("numpy slice assignment", exact(sliced))
