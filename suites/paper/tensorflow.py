"""The paper's TensorFlow functions (paper_tensorflow.txt), first cut: 8 of the 51.

Chosen to exercise the whole path: float16/bfloat16/float32/float64, complex,
integer and bool dtypes; 0-d, empty and large inputs; eager and
tf.function(jit_compile=True); a TF1 graph-and-session API (placeholder); and a
listed name removed since the study's version range began (tf.contrib). The
adapter switches soft device placement off around every case, as the paper did.
Importing this file must not import tensorflow: bodies get it as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import np  # numpy loads on first use: listing needs none

from mudjack_probe.api import Ctx, Cases
from mudjack_probe.errors import Unavailable

cases = Cases("tensorflow")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
LARGE = 1 << 20
SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "large": (LARGE,)}


def _compiled_only_for(dtype: str, shape: str):
    """where=: every eager case, and compiled for one (dtype, shape)."""
    return lambda d, s, m, p: m == "eager" or (d == dtype and s == shape)


_RESHAPE_TO = {"scalar": [1], "empty": [0, 4], "small": [-1, 100], "large": [1024, 1024]}


@cases.case(
    "tf.reshape",
    dtype=FLOATS + ["int32", "int64", "bool", "complex64"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "large"),
    note="targets: scalar -> [1], empty -> [0, 4], small -> [-1, 100], large -> [1024, 1024]",
)
def reshape(t: Ctx):
    tf = t.fw
    target = _RESHAPE_TO[t.case.shape_name]
    return t.call(lambda x: tf.reshape(x, target), t.randn())


@cases.case(
    "tf.math.reduce_mean",
    dtype=FLOATS + ["int32", "complex64"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (256, 128), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "large"),
    note="matrix: mean over axis 0; otherwise a full reduction (empty: NaN for floats, 0 for int32)",
)
def reduce_mean(t: Ctx):
    tf = t.fw
    axis = 0 if t.case.shape_name == "matrix" else None
    return t.call(lambda x: tf.math.reduce_mean(x, axis=axis), t.randn())


@cases.case(
    "tf.nn.conv2d_transpose",
    dtype=FLOATS,
    shape={"small": (1, 8, 8, 4), "large": (8, 64, 64, 16)},
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "small"),
    note="NHWC input, 3x3 filter halving the channels, stride 2, SAME padding: output doubles H and W",
)
def conv2d_transpose(t: Ctx):
    tf = t.fw
    n, h, w, c = t.shape
    x = t.randn()
    filters = _scaled(t, (3, 3, c // 2, c), 1.0 / (3.0 * c**0.5))
    out_shape = [n, 2 * h, 2 * w, c // 2]
    return t.call(lambda x, f: tf.nn.conv2d_transpose(x, f, out_shape, strides=2, padding="SAME"), x, filters)


def _scaled(t: Ctx, shape: tuple[int, ...], scale: float) -> object:
    """Normal values times `scale`, scaled on the host so low precisions see the same rounding."""
    return t.adapter.from_numpy(t.numpy_rng().standard_normal(shape) * scale, t.dtype_name)


def _svd_reconstructs(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    s, u, v = (o.astype(np.complex128) for o in outs)
    a = ins[0].astype(np.complex128)
    eps = 1e-10 if outs[0].dtype == np.float64 else 1e-4
    rebuilt = (u * s) @ v.conj().T
    orthonormal = np.allclose(u.conj().T @ u, np.eye(u.shape[1]), atol=100 * eps)
    return bool(orthonormal and np.linalg.norm(rebuilt - a) <= eps * 10 * max(1.0, np.linalg.norm(a)))


@cases.case(
    "tf.linalg.svd",
    dtype=["float16", "float32", "float64", "complex64"],
    shape={"small": (32, 16), "large": (512, 512)},
    params={"part": ["values", "full"]},
    note="values: singular values only, compared across devices; full: U and V are defined only up to "
    "sign/phase, so they are not compared but must rebuild the input with orthonormal U",
)
def svd(t: Ctx):
    tf = t.fw
    x = t.randn()
    if t.p.part == "values":
        return t.call(lambda a: tf.linalg.svd(a, compute_uv=False), x)
    return t.call(lambda a: tf.linalg.svd(a, full_matrices=False), x).no_compare().check(
        "U diag(S) V^H rebuilds the input", _svd_reconstructs
    )


@cases.case(
    "tf.cast",
    dtype=FLOATS + ["int32", "int64", "uint8", "bool", "complex64"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=_compiled_only_for("bfloat16", "large"),
    note="from float32 to the case's dtype; sources in [0, 25) with exact zeros, so float->uint8 is defined "
    "behaviour and bool sees both values",
)
def cast(t: Ctx):
    tf = t.fw
    src = t.numpy_rng().uniform(0.0, 25.0, size=t.shape).astype(np.float32)
    src.reshape(-1)[::7] = 0.0
    target = t.dtype
    return t.call(lambda x: tf.cast(x, target), t.adapter.from_numpy(src, "float32"))


@cases.case(
    "tf.sequence_mask",
    dtype=["bool", "float32", "int32"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "large": (1 << 16,)},
    note="lengths in [0, 16], maxlen 16; dtype is the output's",
)
def sequence_mask(t: Ctx):
    tf = t.fw
    lengths = t.numpy_rng().integers(0, 17, size=t.shape).astype(np.int32)
    dtype = t.dtype
    return t.call(lambda n: tf.sequence_mask(n, maxlen=16, dtype=dtype), t.adapter.from_numpy(lengths, "int32"))


def _doubled_row_sums(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    return bool(np.allclose(outs[0], 2 * ins[0].astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-4))


@cases.case(
    "tf.compat.v1.placeholder",
    dtype=["float32", "float64", "int32"],
    shape={"empty": (0, 32), "small": (64, 32)},
    note="TF1 API: builds a tf.compat.v1.Graph with a placeholder of shape [None, 32] feeding "
    "reduce_sum(2x, axis=1), pinned to the bound device without soft placement; the timed call is "
    "Session.run with a host feed (so it includes the feed's copy to the device)",
)
def placeholder(t: Ctx):
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        x = v1.placeholder(t.dtype, shape=[None, t.shape[1]])
        y = tf.reduce_sum(x * 2, axis=1)
    session = v1.Session(graph=graph, config=v1.ConfigProto(allow_soft_placement=False))
    from mudjack_probe.adapters.base import host_values

    feed = host_values(t.shape, t.dtype_name, "randn", t.seed)
    # The host feed is passed as the call's argument so the check sees it.
    return t.call(lambda f: session.run(y, feed_dict={x: f}), feed).check("row sums of 2x", _doubled_row_sums)


def _resolve(root: object, dotted: str) -> object | None:
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


@cases.case(
    "tf.contrib.framework.nest.map_structure_up_to",
    note="tf.contrib was removed in TensorFlow 2.0; its nest module became tf.nest, which has no "
    "map_structure_up_to, so there is no public successor to test",
)
def contrib_map_structure_up_to(t: Ctx):
    tf = t.fw
    fn = _resolve(tf, "tf.contrib.framework.nest.map_structure_up_to")
    if fn is None:
        raise Unavailable(f"tf.contrib.framework.nest.map_structure_up_to does not exist in TensorFlow {tf.__version__}: "
                          "tf.contrib was removed in 2.0 and tf.nest has no map_structure_up_to")
    shallow = {"a": 0, "b": 0}
    inputs = {"a": t.randn((4,)), "b": [t.randn((3,)), t.randn((2,))]}
    return t.call(lambda s: fn(shallow, lambda v: len(v) if isinstance(v, list) else v * 2, s), inputs)
