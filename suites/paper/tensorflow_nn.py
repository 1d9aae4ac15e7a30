"""The paper's TensorFlow functions, part 2: convolutions, space_to_batch, image, signal and numpy-API ops.

See tensorflow.py for the conventions (soft placement off, re-runnable bodies,
no framework import at module level).
"""

from __future__ import annotations

from _tf_ref import UNIT, equal, exact, module, near, rel_error, rounded, unscaled

from mudjack_probe.api import FLOATS, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)
from mudjack_probe.errors import Unavailable

cases = Cases("tensorflow")


# Said in the notes of float32 matmul and convolution cases checked at float32's precision.
_TF32 = (" float32 is checked at float32's precision: a GPU where TensorFlow uses TF32 by default "
        "(tf.config.experimental.enable_tensor_float_32_execution) fails it, and that is the default, not noise")


def _scaled(t: Ctx, shape: tuple[int, ...], scale: float) -> object:
    """Normal values times `scale`, scaled on the host so low precisions see the same rounding; for
    integer and bool dtypes (where scaled normals would round to 0) values in {-1, 0, 1} ({0, 1})."""
    rng = t.numpy_rng()
    if t.dtype_name == "bool" or t.dtype_name.startswith(("int", "uint")):
        low = 0 if t.dtype_name in ("bool", "uint8") else -1
        return t.adapter.from_numpy(rng.integers(low, 2, size=shape), t.dtype_name)
    return t.adapter.from_numpy(rng.standard_normal(shape) * scale, t.dtype_name)


def _host(t: Ctx, array: object, dtype: str | None = None) -> object:
    return t.adapter.from_numpy(np.asarray(array), dtype or t.dtype_name)


def _f64(a) -> object:
    a = np.asarray(a)
    return a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64)


def _sum_bound(t: Ctx, magnitude, terms: int):
    """atol for a result that sums `terms` products: 2 u sqrt(terms) times the sum of the products'
    magnitudes (`magnitude(*inputs)`, the same sum over |inputs|). Rounding errors of a sum grow like
    sqrt(terms); 2 u covers the products' and the sum's own rounding."""
    u = UNIT.get(t.dtype_name, 0.0)
    return lambda *ins: 2 * u * np.sqrt(terms) * magnitude(*[np.abs(a) for a in ins])


def _conv_checks(t: Ctx, call, name: str, ref, terms: int):
    """A convolution's checks: each element within its rounding bound of the float64 reference; in half
    precision, whose bound is wider than 1% where the terms cancel, also no systematic gain against it."""
    bound = _sum_bound(t, ref, terms)
    call.reference(name, near(t, ref, atol=bound))
    if t.dtype_name in ("float16", "bfloat16"):
        call.reference("no systematic scaling against the float64 reference", unscaled(t, ref, atol=bound))
    return call


# --------------------------------------------------------------------------- tf.nn.conv2d_transpose


def _conv2d_transpose_ref(x, f, out_shape, strides=(1, 1), padding="SAME", dilation=1):
    """A direct NHWC float64 transposed convolution (the gradient of conv2d with respect to its input):
    x[n, i, j] scatters x[n, i, j] @ f[a, b].T to row i*sh + a*dilation - pad_top, column
    j*sw + b*dilation - pad_left of the output, the pads being the forward convolution's SAME padding
    (pad_top = total // 2) or 0 for VALID. f is [kh, kw, out_channels, in_channels]."""
    n, h, w, _ci = x.shape
    kh, kw, co, _ = f.shape
    sh, sw = strides
    big_h, big_w = out_shape[1], out_shape[2]
    ekh, ekw = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    if padding == "SAME":
        top, left = max((h - 1) * sh + ekh - big_h, 0) // 2, max((w - 1) * sw + ekw - big_w, 0) // 2
    else:
        top = left = 0
    full = np.zeros((n, max((h - 1) * sh + ekh, top + big_h), max((w - 1) * sw + ekw, left + big_w), co), np.result_type(x, f, np.float64))
    for a in range(kh):
        for b in range(kw):
            full[:, a * dilation : a * dilation + (h - 1) * sh + 1 : sh, b * dilation : b * dilation + (w - 1) * sw + 1 : sw, :] += x @ f[a, b].T
    return full[:, top : top + big_h, left : left + big_w, :]


@cases.case(
    "tf.nn.conv2d_transpose",
    dtype=FLOATS,
    shape={"small": (1, 8, 8, 4), "large": (8, 64, 64, 16)},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "small"),
    grid="small",
    reduction=lambda dims, p: 9 * dims[3],
    note="NHWC input, 3x3 filter halving the channels, stride 2, SAME padding: output doubles H and W; checked "
    "against a direct float64 transposed convolution;" + _TF32,
)
def conv2d_transpose(t: Ctx):
    tf = t.fw
    n, h, w, c = t.shape
    x = t.randn()
    filters = _scaled(t, (3, 3, c // 2, c), 1.0 / (3.0 * c**0.5))
    out_shape = [n, 2 * h, 2 * w, c // 2]
    ref = lambda a, f: _conv2d_transpose_ref(a, f, out_shape, (2, 2), "SAME")  # noqa: E731
    return _conv_checks(t, t.call(lambda x, f: tf.nn.conv2d_transpose(x, f, out_shape, strides=2, padding="SAME"), x, filters),
                        "matches a direct transposed convolution", ref, 9 * c)


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
    "strides (1, 2), SAME; empty: batch 0. Checked against a direct float64 transposed convolution;" + _TF32,
)
def conv2d_transpose_variants(t: Ctx):
    tf = t.fw
    n, h, w, c = t.shape
    x = t.randn()
    filters = _scaled(t, (3, 3, c // 2, c), 1.0 / (3.0 * c**0.5))
    v = t.p.variant
    kw = {"padding": "SAME", "strides": 1}
    stride, dilation, nchw = (1, 1), 1, False
    if v == "valid":
        kw, out_shape, stride = {"padding": "VALID", "strides": 2}, [n, 2 * h + 1, 2 * w + 1, c // 2], (2, 2)
    elif v == "stride1":
        out_shape = [n, h, w, c // 2]
    elif v == "dilated":
        kw["dilations"], out_shape, dilation = 2, [n, h, w, c // 2], 2
    elif v == "rect_stride":
        kw["strides"], out_shape, stride = [1, 2], [n, h, 2 * w, c // 2], (1, 2)
    else:  # nchw
        kw = {"padding": "SAME", "strides": 2, "data_format": "NCHW"}
        out_shape, stride, nchw = [n, c // 2, 2 * h, 2 * w], (2, 2), True
        x = tf.transpose(x, [0, 3, 1, 2])
    nhwc_shape = [out_shape[0], out_shape[2], out_shape[3], out_shape[1]] if nchw else out_shape

    def ref(a, f):
        if nchw:
            return _conv2d_transpose_ref(a.transpose(0, 2, 3, 1), f, nhwc_shape, stride, kw["padding"], dilation).transpose(0, 3, 1, 2)
        return _conv2d_transpose_ref(a, f, nhwc_shape, stride, kw["padding"], dilation)

    return _conv_checks(t, t.call(lambda a, f: tf.nn.conv2d_transpose(a, f, out_shape, **kw), x, filters),
                        "matches a direct transposed convolution", ref, 9 * c)


# --------------------------------------------------------------------------- tf.nn.conv3d


def _conv3d_ref(x: np.ndarray, f: np.ndarray, stride: int, padding: str, dilation: int = 1) -> np.ndarray:
    """A direct NDHWC float64 convolution (SAME pads as TF: the smaller half before)."""
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
    out = np.zeros((x.shape[0], *outs, co), np.result_type(x, f))
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
    grid="small",
    reduction=lambda dims, p: 8 * dims[4] if dims[1] <= 4 else 27 * dims[4],
    note="NDHWC; small: 2x2x2 filter 2 -> 3 channels; large: 3x3x3 filter 8 -> 16 channels (about 113M "
    "multiply-adds); both checked against a direct float64 convolution; empty: batch 0, output must be "
    "[0, 4, 6, 6, 3];" + _TF32,
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
        return call.reference("output shape [0, 4, 6, 6, 3]", lambda o, i: o[0].shape == (0, 4, 6, 6, 3))
    return _conv_checks(t, call, "matches a direct convolution", lambda a, w: _conv3d_ref(a, w, stride, padding), k**3 * ci)


@cases.case(
    "tf.nn.conv3d",
    dtype=["float32"],
    shape={"small": (1, 4, 6, 6, 2)},
    params={"variant": ["dilated", "ncdhw"]},
    note="dilated: dilations 2 in D, H, W with stride 1, SAME; ncdhw: data_format NCDHW (channels first, the "
    "GPU's preferred layout), stride 1, SAME; checked against a direct float64 convolution;" + _TF32,
)
def conv3d_variants(t: Ctx):
    tf = t.fw
    x = t.randn()
    f = _scaled(t, (2, 2, 2, 2, 3), 1.0 / (2.0**1.5 * 2**0.5))
    if t.p.variant == "dilated":
        call = t.call(lambda a, w: tf.nn.conv3d(a, w, [1, 1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 2, 1]), x, f)
        return _conv_checks(t, call, "matches a direct convolution", lambda a, w: _conv3d_ref(a, w, 1, "SAME", 2), 16)
    xc = tf.transpose(x, [0, 4, 1, 2, 3])
    call = t.call(lambda a, w: tf.nn.conv3d(a, w, [1, 1, 1, 1, 1], "SAME", data_format="NCDHW"), xc, f)
    return _conv_checks(t, call, "matches a direct convolution",
                        lambda a, w: np.transpose(_conv3d_ref(np.transpose(a, [0, 2, 3, 4, 1]), w, 1, "SAME"), [0, 4, 1, 2, 3]), 16)


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
    grid="image",
    note="image: block [2, 2] on NHWC; padded: paddings [[1, 1], [2, 1]]; 1d: block [3] over one spatial dim; "
    "3d: block [2, 2, 2]; empty: batch 0; large: 8x256x256x4. Checked against a numpy reshape/transpose. "
    "complex64 and bool have no SpaceToBatchND kernel on the CPU (a finding; the GPU registers all types)",
)
def space_to_batch(t: Ctx):
    tf = t.fw
    _, block, pads = _S2B[t.case.shape_name]
    x = t.randn()
    return t.call(lambda a: tf.nn.space_to_batch(a, block, pads), x).reference(
        "matches the numpy reshape", exact(lambda a: _s2b_ref(a, block, pads)))


# --------------------------------------------------------------------------- tf.image.adjust_brightness

_IMAGES = {"image": (32, 32, 3), "batch": (4, 32, 32, 3), "empty": (0, 32, 32, 3), "large": (4, 256, 256, 3)}


def _image(t: Ctx, shape) -> object:
    rng = t.numpy_rng()
    if t.dtype_name == "uint8":
        return t.adapter.from_numpy(rng.integers(0, 256, size=shape).astype(np.uint8), "uint8")
    if t.dtype_name in _IMAGE_MAX:
        return t.adapter.from_numpy(rng.integers(0, _IMAGE_MAX[t.dtype_name], size=shape, endpoint=True), t.dtype_name)
    if t.dtype_name == "bool":
        return t.adapter.from_numpy(rng.random(shape) < 0.5, "bool")
    return t.adapter.from_numpy(rng.random(shape), t.dtype_name)


# The largest value of each integer image dtype: convert_image_dtype maps [0, MAX] to [0, 1].
_IMAGE_MAX = {"uint8": 255, "int8": 127, "int16": 2**15 - 1, "int32": 2**31 - 1, "int64": 2**63 - 1}


def _brightness_ref(delta: float, dtype: str):
    """adjust_brightness as image_ops_impl documents and writes it, step by step in numpy with the same
    roundings: float16 and float32 images get x + delta in their dtype; other floats go through float32
    (x + delta there, cast back); integer images are converted to float32 in [0, 1] (x * float32(1 / MAX)),
    get delta, and come back by convert_image_dtype(saturate=True): times float32(MAX + 0.5), clamped to
    [0, the largest float32 not above MAX], truncated toward zero."""
    f32 = np.float32

    def ref(x):
        if dtype in ("float16", "float32"):
            nd = np.dtype(dtype).type
            return (x.astype(nd) + nd(delta)).astype(np.float64)
        if dtype in ("bfloat16", "float64"):
            return rounded((x.astype(f32) + f32(delta)).astype(np.float64), dtype)
        top = _IMAGE_MAX[dtype]
        scaled = (x.astype(f32) * f32(1.0 / top) + f32(delta)) * f32(top + 0.5)
        high = f32(top)
        if float(high) > top:  # float32(2^31 - 1) is 2^31: TF nudges the limit down, as here
            high = np.nextafter(high, f32(0))
        return np.trunc(np.clip(scaled, f32(0), high)).astype(np.int64)

    return exact(ref)


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
    grid="image",
    note="image_ops_test: integer images are converted to float32 in [0, 1], delta added, and converted back "
    "with saturation; float images get x + delta unclipped (bfloat16 and float64 through float32). Checked "
    "exactly against those steps in numpy. The grid's integer images hold [0, MAX] of their dtype; complex and bool "
    "images are outside convert_image_dtype's dtypes",
)
def adjust_brightness(t: Ctx):
    tf = t.fw
    delta = t.p.delta
    return t.call(lambda img: tf.image.adjust_brightness(img, delta), _image(t, t.shape)).reference(
        "x + delta, through float32 and back with saturation for integers", _brightness_ref(delta, t.dtype_name))


# --------------------------------------------------------------------------- tf.signal.idct


def _norm_preserved(outs, ins) -> bool:
    x, y = _f64(ins[0]), _f64(outs[0])
    return bool(np.allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-4, atol=1e-5))


def _idct_ref(t: Ctx, kind: int, norm, n=None):
    """idct of type k is the DCT of the inverse type (1 <-> 1, 2 <-> 3, 4 <-> 4), unnormalized or ortho,
    as dct_ops writes it: checked against scipy.fft.dct in float64 (the same definitions as
    scipy.fftpack.dct, which TF documents as equivalent). An FFT's error is relative to the signal's norm:
    within 10 u log2(2N) of it."""
    inverse = {1: 1, 2: 3, 3: 2, 4: 4}[kind]
    length = n or t.shape[-1]
    bound = 10 * UNIT.get(t.dtype_name, UNIT["float64"]) * np.log2(2 * length)
    return rel_error(lambda x: module("scipy.fft").dct(x, type=inverse, n=n, norm="ortho" if norm == "ortho" else "backward", axis=-1), bound)


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
    grid="batch",
    note="dct_ops_test: types 1-4, norm None or 'ortho' (type 1 has no ortho form) along the last axis; ortho "
    "transforms must preserve the L2 norm; all are checked against scipy.fft.dct of the inverse type. "
    "float16: the op is float32/float64 only (a TypeError everywhere). "
    "empty: a batch of zero rows, which TF 2.21 rejects inside its FFT padding (a finding)",
)
def idct(t: Ctx):
    tf = t.fw
    kind, norm = t.p.type, t.p.norm
    call = t.call(lambda x: tf.signal.idct(x, type=kind, norm=norm), t.randn()).reference(
        "equals scipy.fft.dct of the inverse type", _idct_ref(t, kind, norm))
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
    return t.call(lambda x: tf.signal.idct(x, type=2, n=n), t.randn()).reference(
        "equals scipy.fft.dct(type=3, n) (truncated or zero-padded input)", _idct_ref(t, 2, None, n))


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
    grid="small",
    note="tf.python.* is internal; the TF-numpy module is public as tf.experimental.numpy. Bounds are 0-d "
    "tensors of the input's dtype (+-0.5 for floats and complex, +-10 for signed ints, [5, 20] for uint8), so no promotion; checked against "
    "np.clip. bool is outside the op's dtypes (ClipByValue has no bool kernel): fails everywhere",
)
def np_clip(t: Ctx):
    tf = t.fw
    clip = _np_clip(tf)
    integer = t.dtype_name.startswith(("int", "uint"))
    if t.dtype_name == "bool":
        lo, hi = False, True
    elif t.dtype_name == "uint8":
        lo, hi = 5, 20
    else:
        lo, hi = _CLIP_BOUNDS["int" if integer else "float"]
    x = t.randn()
    if integer:
        x = x // 2  # values in [-25, 25) ([0, 25) unsigned): both bounds bite
    a_min, a_max = _host(t, lo), _host(t, hi)
    return t.call(lambda a, b, c: clip(a, b, c), x, a_min, a_max).reference("equals np.clip", exact(np.clip))


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
        return t.call(lambda a: clip(a, None, 0.5), x).reference("min(x, 0.5)", exact(lambda a: np.minimum(a, 0.5)))
    if s == "array_bounds":
        lo = _host(t, np.linspace(-1.0, 0.0, 10))
        return t.call(lambda a, b: clip(a, b, 0.75), x, lo).reference(
            "np.clip with broadcast bounds", exact(lambda a, b: np.clip(a, b, 0.75)))
    return t.call(lambda a: clip(a, -10.5, 10.5), x).reference(
        "float64 result, np.clip", lambda o, i: o[0].dtype == np.float64 and equal(o[0], np.clip(i[0], -10.5, 10.5)))
