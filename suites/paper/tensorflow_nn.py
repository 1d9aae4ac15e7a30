"""The paper's TensorFlow functions, part 2: convolutions, space_to_batch, image, signal and numpy-API ops.

See tensorflow.py for the conventions (soft placement off, re-runnable bodies,
no framework import at module level).
"""

from __future__ import annotations

from mudjack_probe.api import FLOATS, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)
from mudjack_probe.errors import Unavailable

cases = Cases("tensorflow")


def _scaled(t: Ctx, shape: tuple[int, ...], scale: float) -> object:
    """Normal values times `scale`, scaled on the host so low precisions see the same rounding."""
    return t.adapter.from_numpy(t.numpy_rng().standard_normal(shape) * scale, t.dtype_name)


def _host(t: Ctx, array: object, dtype: str | None = None) -> object:
    return t.adapter.from_numpy(np.asarray(array), dtype or t.dtype_name)


def _f64(a) -> object:
    a = np.asarray(a)
    return a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64)


# --------------------------------------------------------------------------- tf.nn.conv2d_transpose


@cases.case(
    "tf.nn.conv2d_transpose",
    dtype=FLOATS,
    shape={"small": (1, 8, 8, 4), "large": (8, 64, 64, 16)},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "small"),
    note="NHWC input, 3x3 filter halving the channels, stride 2, SAME padding: output doubles H and W",
)
def conv2d_transpose(t: Ctx):
    tf = t.fw
    n, h, w, c = t.shape
    x = t.randn()
    filters = _scaled(t, (3, 3, c // 2, c), 1.0 / (3.0 * c**0.5))
    out_shape = [n, 2 * h, 2 * w, c // 2]
    return t.call(lambda x, f: tf.nn.conv2d_transpose(x, f, out_shape, strides=2, padding="SAME"), x, filters)


@cases.case(
    "tf.nn.conv2d_transpose",
    dtype=["float32", "float64", "float16"],
    shape={"small": (2, 8, 8, 4), "empty": (0, 8, 8, 4)},
    params={"variant": ["valid", "stride1", "dilated", "nchw", "rect_stride"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (s == "small" and (d == "float32" or (d == "float64" and p["variant"] == "valid") or (d == "float16" and p["variant"] == "nchw")))
        or (s == "empty" and d == "float32" and p["variant"] == "stride1")
    ) and (m == "eager" or (d == "float32" and s == "small" and p["variant"] in ("valid", "dilated"))),
    note="3x3 filter 4 -> 2 channels. valid: stride 2, VALID (out 17x17); stride1: stride 1, SAME; dilated: "
    "stride 1, dilations 2; nchw: data_format NCHW, stride 2, SAME (the GPU's native layout); rect_stride: "
    "strides (1, 2), SAME; empty: batch 0",
)
def conv2d_transpose_variants(t: Ctx):
    tf = t.fw
    n, h, w, c = t.shape
    x = t.randn()
    filters = _scaled(t, (3, 3, c // 2, c), 1.0 / (3.0 * c**0.5))
    v = t.p.variant
    kw = {"padding": "SAME", "strides": 1}
    if v == "valid":
        kw, out_shape = {"padding": "VALID", "strides": 2}, [n, 2 * h + 1, 2 * w + 1, c // 2]
    elif v == "stride1":
        out_shape = [n, h, w, c // 2]
    elif v == "dilated":
        kw["dilations"], out_shape = 2, [n, h, w, c // 2]
    elif v == "rect_stride":
        kw["strides"], out_shape = [1, 2], [n, h, 2 * w, c // 2]
    else:  # nchw
        kw = {"padding": "SAME", "strides": 2, "data_format": "NCHW"}
        out_shape = [n, c // 2, 2 * h, 2 * w]
        x = tf.transpose(x, [0, 3, 1, 2])
    return t.call(lambda a, f: tf.nn.conv2d_transpose(a, f, out_shape, **kw), x, filters).check(
        "output shape", lambda o, i: list(o[0].shape) == out_shape)


# --------------------------------------------------------------------------- tf.nn.conv3d


def _conv3d_ref(x: np.ndarray, f: np.ndarray, stride: int, padding: str, dilation: int = 1) -> np.ndarray:
    """A direct NDHWC float64 convolution, for the small cases' property check."""
    x, f = _f64(x), _f64(f)
    kd, kh, kw, _ci, co = f.shape
    ek = [(k - 1) * dilation + 1 for k in (kd, kh, kw)]
    sp = x.shape[1:4]
    if padding == "SAME":
        outs = [-(-s // stride) for s in sp]
        pads = [max((o - 1) * stride + e - s, 0) for o, e, s in zip(outs, ek, sp)]
        x = np.pad(x, [(0, 0)] + [(p // 2, p - p // 2) for p in pads] + [(0, 0)])
    else:
        outs = [(s - e) // stride + 1 for s, e in zip(sp, ek)]
    out = np.zeros((x.shape[0], *outs, co))
    for a in range(kd):
        for b in range(kh):
            for c in range(kw):
                patch = x[:, a * dilation::stride, b * dilation::stride, c * dilation::stride, :][:, : outs[0], : outs[1], : outs[2], :]
                out += patch @ f[a, b, c]
    return out


@cases.case(
    "tf.nn.conv3d",
    dtype=FLOATS,
    shape={"small": (1, 4, 6, 6, 2), "large": (2, 16, 32, 32, 8), "empty": (0, 4, 6, 6, 2)},
    params={"strides": [1, 2], "padding": ["SAME", "VALID"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (s == "small" and (d == "float32" or (p["strides"] == 1 and p["padding"] == "SAME")))
        or (s == "large" and d in ("float16", "float32", "float64") and p["strides"] == 1 and p["padding"] == "SAME")
        or (s == "empty" and d == "float32" and p["strides"] == 1 and p["padding"] == "SAME")
    ) and (m == "eager" or (d == "float32" and p["strides"] == 1 and p["padding"] == "SAME")),
    note="NDHWC; small: 2x2x2 filter 2 -> 3 channels, checked against a direct float64 convolution; large: "
    "3x3x3 filter 8 -> 16 channels (about 113M multiply-adds); empty: batch 0, output must be [0, 4, 6, 6, 3] "
    "(TF 2.21's eager CPU kernel returns the input's shape [0, 4, 6, 6, 2]; XLA gets it right: a finding)",
)
def conv3d(t: Ctx):
    tf = t.fw
    small = t.case.shape_name != "large"
    k, ci, co = (2, 2, 3) if small else (3, 8, 16)
    x = t.randn()
    f = _scaled(t, (k, k, k, ci, co), 1.0 / (k**1.5 * ci**0.5))
    stride, padding = t.p.strides, t.p.padding
    call = t.call(lambda a, w: tf.nn.conv3d(a, w, [1, stride, stride, stride, 1], padding), x, f)
    if t.case.shape_name == "empty":
        call.check("output shape", lambda o, i: o[0].shape == (0, 4, 6, 6, 3))
    if small and t.dtype_name in ("float32", "float64") and t.case.shape_name != "empty":
        tol = 1e-4 if t.dtype_name == "float32" else 1e-10
        call.check("matches a direct convolution", lambda o, i: bool(np.allclose(
            o[0], _conv3d_ref(i[0], i[1], stride, padding), rtol=tol, atol=tol)))
    return call


@cases.case(
    "tf.nn.conv3d",
    dtype=["float32"],
    shape={"small": (1, 4, 6, 6, 2)},
    params={"variant": ["dilated", "ncdhw"]},
    note="dilated: dilations 2 in D, H, W with stride 1, SAME; ncdhw: data_format NCDHW (channels first, the "
    "GPU's preferred layout), stride 1, SAME",
)
def conv3d_variants(t: Ctx):
    tf = t.fw
    x = t.randn()
    f = _scaled(t, (2, 2, 2, 2, 3), 1.0 / (2.0**1.5 * 2**0.5))
    if t.p.variant == "dilated":
        return t.call(lambda a, w: tf.nn.conv3d(a, w, [1, 1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 2, 1]), x, f).check(
            "matches a direct convolution", lambda o, i: bool(np.allclose(o[0], _conv3d_ref(i[0], i[1], 1, "SAME", 2), rtol=1e-4, atol=1e-4)))
    xc = tf.transpose(x, [0, 4, 1, 2, 3])
    return t.call(lambda a, w: tf.nn.conv3d(a, w, [1, 1, 1, 1, 1], "SAME", data_format="NCDHW"), xc, f).check(
        "matches a direct convolution", lambda o, i: bool(np.allclose(
            o[0], np.transpose(_conv3d_ref(np.transpose(i[0], [0, 2, 3, 4, 1]), i[1], 1, "SAME"), [0, 4, 1, 2, 3]), rtol=1e-4, atol=1e-4)))


# --------------------------------------------------------------------------- tf.nn.space_to_batch

_S2B = {
    "image": ((2, 8, 8, 3), [2, 2], [[0, 0], [0, 0]]),
    "padded": ((2, 6, 5, 3), [2, 2], [[1, 1], [2, 1]]),
    "1d": ((2, 6, 3), [3], [[0, 0]]),
    "3d": ((1, 4, 4, 4, 2), [2, 2, 2], [[0, 0], [0, 0], [0, 0]]),
    "empty": ((0, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),
    "large": ((8, 256, 256, 4), [2, 2], [[0, 0], [0, 0]]),
}


def _s2b_ref(x: np.ndarray, block: list[int], pads: list[list[int]]) -> np.ndarray:
    """numpy space_to_batch_nd, as the op documents it."""
    m = len(block)
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    b = x.shape[0]
    spatial = x.shape[1 : 1 + m]
    rest = x.shape[1 + m :]
    shape = [b]
    for s, k in zip(spatial, block):
        shape += [s // k, k]
    y = x.reshape(shape + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, y.ndim))
    y = y.transpose(perm)
    return y.reshape([b * int(np.prod(block))] + [s // k for s, k in zip(spatial, block)] + list(rest))


@cases.case(
    "tf.nn.space_to_batch",
    dtype=FLOATS + ["int32", "int64", "complex64", "bool"],
    shape={name: dims for name, (dims, _, _) in _S2B.items()},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (s == "image" or (d == "float32") or (s == "large" and d == "float16"))
    and (m == "eager" or (d == "float32" and s in ("image", "large"))),
    note="image: block [2, 2] on NHWC; padded: paddings [[1, 1], [2, 1]]; 1d: block [3] over one spatial dim; "
    "3d: block [2, 2, 2]; empty: batch 0; large: 8x256x256x4. Checked against a numpy reshape/transpose. "
    "complex64 and bool have no SpaceToBatchND kernel on the CPU (a finding; the GPU registers all types)",
)
def space_to_batch(t: Ctx):
    tf = t.fw
    _, block, pads = _S2B[t.case.shape_name]
    x = t.randn()
    call = t.call(lambda a: tf.nn.space_to_batch(a, block, pads), x)
    if t.case.shape_name != "large":
        call.check("matches the numpy reshape", lambda o, i: bool(np.array_equal(o[0], _s2b_ref(i[0], block, pads))))
    return call


# --------------------------------------------------------------------------- tf.image.adjust_brightness

_IMAGES = {"image": (32, 32, 3), "batch": (4, 32, 32, 3), "empty": (0, 32, 32, 3), "large": (4, 256, 256, 3)}


def _image(t: Ctx, shape) -> object:
    rng = t.numpy_rng()
    if t.dtype_name == "uint8":
        return t.adapter.from_numpy(rng.integers(0, 256, size=shape).astype(np.uint8), "uint8")
    if t.dtype_name == "int32":
        return t.adapter.from_numpy(rng.integers(0, 2**31 - 1, size=shape).astype(np.int32), "int32")
    return t.adapter.from_numpy(rng.random(shape), t.dtype_name)


def _brightness_ok(delta: float, dtype: str):
    def check(o, i) -> bool:
        x = _f64(i[0])
        if dtype == "uint8":
            want = np.clip(np.round((x / 255.0 + delta) * 255.0), 0, 255)
            return bool(np.max(np.abs(_f64(o[0]) - want), initial=0) <= 1)
        if dtype == "int32":
            return True  # scaled through float32 and back: compared across devices only
        tol = {"float16": 2e-3, "bfloat16": 1e-2}.get(dtype, 1e-6)
        return bool(np.allclose(_f64(o[0]), x + delta, rtol=tol, atol=tol))

    return check


@cases.case(
    "tf.image.adjust_brightness",
    dtype=["uint8", "float16", "bfloat16", "float32", "float64", "int32"],
    shape=_IMAGES,
    params={"delta": [0.1, -0.2]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (p["delta"] == 0.1 and (s == "image" or (d == "float32" and s in ("batch", "empty")) or (s == "large" and d in ("uint8", "float32"))))
        or (p["delta"] == -0.2 and s == "image" and d in ("uint8", "float32"))
    ) and (m == "eager" or (d == "float32" and s == "image" and p["delta"] == 0.1) or (d == "uint8" and s == "large")),
    note="image_ops_test: integer images are converted to float32 in [0, 1], delta added, and converted back "
    "with saturation (uint8 checked against that, to within 1); float images get x + delta unclipped",
)
def adjust_brightness(t: Ctx):
    tf = t.fw
    delta = t.p.delta
    return t.call(lambda img: tf.image.adjust_brightness(img, delta), _image(t, t.shape)).check(
        "x + delta (saturating for integers)", _brightness_ok(delta, t.dtype_name))


# --------------------------------------------------------------------------- tf.signal.idct


def _norm_preserved(outs, ins) -> bool:
    x, y = _f64(ins[0]), _f64(outs[0])
    return bool(np.allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-4, atol=1e-5))


@cases.case(
    "tf.signal.idct",
    dtype=["float32", "float64", "float16"],
    shape={"vector": (16,), "batch": (8, 64), "empty": (0, 64), "large": (1024, 1024)},
    params={"type": [1, 2, 3, 4], "norm": [None, "ortho"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: not (p["type"] == 1 and p["norm"] == "ortho") and (
        (s == "batch" and d == "float32")
        or (s == "batch" and d == "float64" and (p["type"], p["norm"]) in ((2, "ortho"), (3, None)))
        or (s == "vector" and d in ("float32", "float16") and (p["type"], p["norm"]) == (2, None))
        or (s == "empty" and d == "float32" and (p["type"], p["norm"]) == (2, None))
        or (s == "large" and d == "float32" and (p["type"], p["norm"]) == (2, "ortho"))
    ) and (m == "eager" or (s == "batch" and d == "float32" and (p["type"], p["norm"]) in ((2, "ortho"), (4, None)))),
    note="dct_ops_test: types 1-4, norm None or 'ortho' (type 1 has no ortho form) along the last axis; ortho "
    "transforms must preserve the L2 norm. float16: the op is float32/float64 only (a TypeError everywhere). "
    "empty: a batch of zero rows, which TF 2.21 rejects inside its FFT padding (a finding)",
)
def idct(t: Ctx):
    tf = t.fw
    kind, norm = t.p.type, t.p.norm
    call = t.call(lambda x: tf.signal.idct(x, type=kind, norm=norm), t.randn())
    if norm == "ortho":
        call.check("orthonormal: preserves the norm", _norm_preserved)
    return call


@cases.case(
    "tf.signal.idct",
    dtype=["float32"],
    shape={"batch": (8, 64)},
    params={"n": [32, 96]},
    note="n truncates (32) or zero-pads (96) the input along the last axis before the type-2 inverse",
)
def idct_n(t: Ctx):
    tf = t.fw
    n = t.p.n
    return t.call(lambda x: tf.signal.idct(x, type=2, n=n), t.randn()).check("length n", lambda o, i: o[0].shape == (8, n))


# --------------------------------------------------------------------------- tf.python.ops.numpy_ops.clip


def _np_clip(tf):
    for name in ("tf.python.ops.numpy_ops.clip", "tf.experimental.numpy.clip"):
        fn = None
        obj = tf
        for part in name.split(".")[1:]:
            obj = getattr(obj, part, None)
            if obj is None:
                break
        else:
            fn = obj
        if fn is not None:
            return fn
    raise Unavailable(f"TensorFlow {tf.__version__} has neither tf.python.ops.numpy_ops.clip nor tf.experimental.numpy.clip")


_CLIP_BOUNDS = {"float": (-0.5, 0.5), "int": (-10, 10)}


@cases.case(
    "tf.python.ops.numpy_ops.clip",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape=shapes("scalar", "empty", "small", "large"),
    mode=["eager", "compiled"],
    successor="tf.experimental.numpy.clip",
    where=cross("float32", "small") & compiled_only("float32", ("small", "large")),
    note="tf.python.* is internal; the TF-numpy module is public as tf.experimental.numpy. Bounds are 0-d "
    "tensors of the input's dtype (+-0.5 for floats, +-10 for ints), so no promotion; checked against "
    "np.clip. bool is outside the op's dtypes (ClipByValue has no bool kernel): fails everywhere",
)
def np_clip(t: Ctx):
    tf = t.fw
    clip = _np_clip(tf)
    if t.dtype_name == "bool":
        lo, hi = False, True
    else:
        lo, hi = _CLIP_BOUNDS["int" if t.dtype_name.startswith("int") else "float"]
    x = t.randn()
    if t.dtype_name.startswith("int"):
        x = x // 2  # values in [-25, 25): both bounds bite
    a_min, a_max = _host(t, lo), _host(t, hi)
    return t.call(lambda a, b, c: clip(a, b, c), x, a_min, a_max).check(
        "equals np.clip", lambda o, i: bool(np.array_equal(_f64(o[0]), np.clip(_f64(i[0]), _f64(i[1]), _f64(i[2])))))


@cases.case(
    "tf.python.ops.numpy_ops.clip",
    dtype=["float32", "int32"],
    shape={"none_min": (1000,), "array_bounds": (100, 10), "python_float": (1000,)},
    successor="tf.experimental.numpy.clip",
    where=lambda d, s, m, p: (d == "float32") == (s != "python_float"),
    note="none_min: a_min=None clips only above; array_bounds: a_min a [10] vector broadcast over rows, a_max a "
    "scalar; python_float: int32 input with Python float bounds promotes to float64, as numpy does",
)
def np_clip_variants(t: Ctx):
    tf = t.fw
    clip = _np_clip(tf)
    s = t.case.shape_name
    x = t.randn()
    if s == "none_min":
        return t.call(lambda a: clip(a, None, 0.5), x).check(
            "min(x, 0.5)", lambda o, i: bool(np.array_equal(o[0], np.minimum(i[0], np.float32(0.5)))))
    if s == "array_bounds":
        lo = _host(t, np.linspace(-1.0, 0.0, 10))
        return t.call(lambda a, b: clip(a, b, 0.75), x, lo).check(
            "np.clip with broadcast bounds", lambda o, i: bool(np.allclose(o[0], np.clip(i[0], i[1], np.float32(0.75)))))
    return t.call(lambda a: clip(a, -10.5, 10.5), x).check(
        "float64 result, np.clip", lambda o, i: o[0].dtype == np.float64 and bool(np.array_equal(o[0], np.clip(i[0], -10.5, 10.5))))
