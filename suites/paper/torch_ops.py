"""The paper's PyTorch tensor functions and linear algebra (see torch.py for the plan).

fliplr, broadcast_tensors, addr, Tensor.is_same_size, moveaxis, lt, multinomial,
diag, zeros, round, range, Tensor.to, triangular_solve, linalg.matrix_rank,
slogdet. Cases follow the OpInfo entries of
torch/testing/_internal/common_methods_invocations.py: their dtypes, their
sample inputs (0-d, empty, broadcasting, non-contiguous), their keyword
variants. Importing this file must not import torch.
"""

from __future__ import annotations

import _torch_ref as ref

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _torch_common import ACCUMULATING, all_true as _all_true, declare, flag as _flag, from_host

cases = Cases("torch")
_case = declare(cases)

ALL = FLOATS + ["complex64", "int32", "int64", "bool"]

# Linear algebra in float32 on well-conditioned inputs: LAPACK, MAGMA and cuSOLVER
# take different routes; OpInfo linalg entries override to about this.
LINALG = {"float32": (1e-3, 1e-4), "complex64": (1e-3, 1e-4), "float64": (1e-7, 1e-9)}


def _input(t: Ctx, shape=None, dtype=None):
    """t.randn, or for the shape named "transposed" a view with its last two dims swapped."""
    shape = tuple(t.shape if shape is None else shape)
    if t.case.shape_name == "transposed" and len(shape) >= 2:
        swapped = shape[:-2] + (shape[-1], shape[-2])
        return t.randn(swapped, dtype).transpose(-1, -2)
    return t.randn(shape, dtype)


def _equals(reference):
    """Check: output equals reference(*inputs) exactly (values and shape)."""

    def ok(outs, ins):
        want = np.asarray(reference(*ins))
        return outs[0].shape == want.shape and bool(np.array_equal(outs[0], want.astype(outs[0].dtype)))

    return ok


# ----------------------------------------------------------------- torch.fliplr


@cases.case(
    "torch.fliplr",
    dtype=ALL,
    shape={"matrix": (64, 100), "3d": (8, 16, 32), "empty": (0, 16), "transposed": (48, 64), "large": (1024, 1024)},
    mode=["eager", "compiled"],
    where=cross(("float32", "int64", "bool"), ("matrix", "transposed")) & compiled_only("float32", "large"),
    grid="matrix",
    note="OpInfo fliplr: all dtypes, inputs of 2 or more dims (it flips dim 1), empty and non-contiguous",
)
def fliplr(t: Ctx):
    torch = t.fw
    x = _input(t)
    return t.call(lambda a: torch.fliplr(a), x).reference("equals numpy.fliplr", _equals(np.fliplr))


@cases.case(
    "torch.fliplr",
    dtype=["float32"],
    shape={"vector": (10,)},
    note="error input (OpInfo error_inputs): a 1-D tensor must raise, fliplr needs 2 or more dims",
)
def fliplr_1d_raises(t: Ctx):
    torch = t.fw

    def raises(a):
        try:
            torch.fliplr(a)
        except RuntimeError:
            return _flag(t, True)
        return _flag(t, False)

    return t.call(raises, t.randn()).check("raised RuntimeError", _all_true)


# ------------------------------------------------------- torch.broadcast_tensors

_BROADCAST = {
    "pair": ((8, 1, 16), (4, 16)),
    "scalar": ((), (8, 16)),
    "three": ((1, 16), (8, 1), (16,)),
    "same": ((8, 16), (8, 16)),
    "empty": ((0, 1), (1, 16)),
    "large": ((1024, 1, 1024), (1, 4, 1)),
}


def _broadcast_ok(outs, ins):
    shape = np.broadcast_shapes(*[i.shape for i in ins])
    return len(outs) == len(ins) and all(
        o.shape == shape and np.array_equal(o, np.broadcast_to(i, shape)) for o, i in zip(outs, ins)
    )


@cases.case(
    "torch.broadcast_tensors",
    dtype=["float32", "float16", "bfloat16", "float64", "complex64", "int64", "bool"],
    shape=_BROADCAST,
    mode=["eager", "compiled"],
    where=cross("float32", "pair") & compiled_only("float32", "pair"),
    grid="pair",
    note="OpInfo broadcast_tensors' shape sets: two, three, 0-d with a matrix, identical, empty, large; "
    "outputs are expanded views, checked against numpy.broadcast_to",
)
def broadcast_tensors(t: Ctx):
    torch = t.fw
    xs = [t.randn(s) for s in t.shape]
    return t.call(lambda *a: torch.broadcast_tensors(*a), *xs).reference("equals numpy.broadcast_to", _broadcast_ok)


@cases.case(
    "torch.broadcast_tensors",
    dtype=["float32"],
    shape={"mixed": ((8, 1), (1, 16))},
    params={"other": ["int64", "bool", "complex64"]},
    note="inputs of different dtypes: each output keeps its own dtype (no promotion)",
)
def broadcast_tensors_mixed(t: Ctx):
    torch = t.fw
    a, b = t.randn(t.shape[0]), t.randn(t.shape[1], t.p.other)
    return t.call(lambda x, y: torch.broadcast_tensors(x, y), a, b).reference(
        "equals numpy.broadcast_to, dtypes kept",
        lambda outs, ins: _broadcast_ok(outs, ins) and all(o.dtype == i.dtype for o, i in zip(outs, ins)),
    )


@cases.case(
    "torch.broadcast_tensors",
    dtype=["float32"],
    shape={"incompatible": ((3, 4), (5, 4))},
    note="error input: shapes that do not broadcast must raise",
)
def broadcast_tensors_raises(t: Ctx):
    torch = t.fw

    def raises(a, b):
        try:
            torch.broadcast_tensors(a, b)
        except RuntimeError:
            return _flag(t, True)
        return _flag(t, False)

    return t.call(raises, *[t.randn(s) for s in t.shape]).check("raised RuntimeError", _all_true)


# ------------------------------------------------------------------- torch.addr


def _addr_reference(alpha, beta):
    def reference(m, u, v):
        if m.dtype == np.bool_:
            return np.logical_or(np.logical_and(beta, m), np.logical_and(alpha, np.outer(u, v)))
        if m.dtype.kind in "iu":  # computed in the dtype: int8, uint8 and int16 wrap around as the result's dtype does
            return (alpha * np.outer(u.astype(np.int64), v.astype(np.int64)) + beta * m.astype(np.int64)).astype(m.dtype)
        out = alpha * np.outer(u.astype(np.complex128), v.astype(np.complex128))
        if beta != 0:
            out = out + beta * m.astype(np.complex128)
        return out if np.iscomplexobj(m) else np.real(out)

    return reference


# Two products and a sum per element. With alpha = beta = 1 half precision is within 1.5 ulps of the float64
# result (rounded once in float32, or the outer product first); other alpha, beta are rounded to the half dtype
# first (0.6 is 0.6015625 in bfloat16) and the products rounded, so the error scales with the terms |beta M| +
# |alpha u v|, which may cancel (11 bfloat16 ulps of the result measured)
_ADDR = {
    "default": dict(ref.ACCUMULATE, float16=dict(ulps=1.5, rms=1e-3), bfloat16=dict(ulps=1.5, rms=1e-3)),
    "scaled": dict(ref.ACCUMULATE, float16=dict(ulps=2, rms=6e-4), bfloat16=dict(ulps=2, rms=4e-3)),
}


def _addr_close(alpha, beta, dtype_name, scale="default"):
    """Reference: beta*M + alpha*outer(u, v) in float64 (ints exactly, bools as or/and), RMS tolerances relative to
    the terms."""

    def ok(outs, ins):
        m, u, v = ins
        want = _addr_reference(alpha, beta)(m, u, v)
        if want.dtype.kind in "fc":
            terms = np.abs(alpha * np.outer(ref.as64(u), ref.as64(v))) + (np.abs(beta * ref.as64(m)) if beta else 0.0)
            want = ref.Scaled(want, np.nan_to_num(terms))
        return ref.close(outs[0], want, _ADDR[scale], dtype_name, "addr")

    return ok


@_case(
    "torch.addr",
    dtype=ALL,
    tol=ACCUMULATING,
    shape={"small": (5, 10), "empty": (0, 10), "transposed": (64, 48), "large": (2048, 2048)},
    params={"scale": ["default", "scaled"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (s == "small" or d in ("float32", "int64", "bool"))
    and (p["scale"] == "default" or s == "small")
    and (m == "eager" or (d == "float32" and s == "large" and p["scale"] == "default")),
    grid="small",
    note="beta*M + alpha*outer(v1, v2), OpInfo addr: all dtypes; default alpha=beta=1; scaled: alpha=0.2, "
    "beta=0.6 for floats and complex, alpha=2, beta=3 for ints, alpha=True, beta=False for bool (bool "
    "takes only bool scalars); transposed: M is a non-contiguous view",
)
def addr(t: Ctx):
    torch = t.fw
    rows, cols = t.shape
    m, u, v = _input(t), t.randn((rows,)), t.randn((cols,))
    if t.p.scale == "default":
        alpha, beta = (True, True) if t.dtype_name == "bool" else (1, 1)
    elif t.dtype_name == "bool":
        alpha, beta = True, False
    elif t.dtype_name.startswith(("int", "uint")):
        alpha, beta = 2, 3
    else:
        alpha, beta = 0.2, 0.6
    return t.call(lambda m, u, v: torch.addr(m, u, v, beta=beta, alpha=alpha), m, u, v).reference(
        "equals beta*M + alpha*outer(v1, v2)", _addr_close(alpha, beta, t.dtype_name, t.p.scale)
    )


@cases.case(
    "torch.addr",
    dtype=["float32"],
    shape={"small": (5, 10)},
    params={"form": ["broadcast-M", "beta0-nan", "out"]},
    note="broadcast-M: M of shape (10,) broadcasts to (5, 10); beta0-nan: beta=0 must ignore M even where it "
    "holds NaN (documented); out: the out= overload",
)
def addr_forms(t: Ctx):
    torch = t.fw
    rows, cols = t.shape
    u, v = t.randn((rows,)), t.randn((cols,))
    if t.p.form == "broadcast-M":
        m = t.randn((cols,))
        return t.call(lambda m, u, v: torch.addr(m, u, v), m, u, v).reference("equals M + outer", _addr_close(1, 1, "float32"))
    if t.p.form == "beta0-nan":
        m = t.from_numpy(np.full((rows, cols), np.nan, dtype=np.float32))
        return t.call(lambda m, u, v: torch.addr(m, u, v, beta=0), m, u, v).reference("NaN in M ignored: equals outer", _addr_close(1, 0, "float32"))
    m = t.randn()
    out = torch.empty((rows, cols), device=t.device, dtype=t.dtype)
    return t.call(lambda m, u, v: torch.addr(m, u, v, out=out), m, u, v).reference("equals M + outer", _addr_close(1, 1, "float32"))


# ------------------------------------------------------ torch.Tensor.is_same_size

_SIZES = {
    "same": ((8, 16), (8, 16)),
    "different": ((8, 16), (8, 15)),
    "same-numel": ((16, 8), (8, 16)),
    "rank": ((8, 16), (1, 8, 16)),
    "scalar": ((), ()),
    "scalar-vs-1": ((), (1,)),
    "empty": ((0, 4), (0, 4)),
    "empty-vs-other": ((0, 4), (4, 0)),
}


@cases.case(
    "torch.Tensor.is_same_size",
    dtype=["float32", "int64", "bool", "complex64", "float16"],
    shape=_SIZES,
    params={"other": ["same-dtype", "float64"]},
    where=lambda d, s, m, p: (d == "float32" or s == "same")
    and (p["other"] == "same-dtype" or (d == "float32" and s in ("same", "different"))),
    grid="same",
    note="returns a Python bool, returned as a bool tensor; compares sizes only (not dtype, strides or device): "
    "same, different, same numel but other shape, other rank, 0-d, empty; other=float64: a second operand of "
    "another dtype",
)
def is_same_size(t: Ctx):
    torch = t.fw
    sa, sb = t.shape
    a = t.randn(sa)
    b = t.randn(sb) if t.p.other == "same-dtype" else t.randn(sb, "float64")
    return t.call(lambda x, y: torch.tensor(x.is_same_size(y), device=x.device), a, b).reference(
        "answer equals (x.shape == y.shape)", lambda outs, ins: bool(outs[0]) == (ins[0].shape == ins[1].shape)
    )


@cases.case(
    "torch.Tensor.is_same_size",
    dtype=["float32"],
    shape={"transposed": (16, 16), "expanded": (8, 16)},
    note="views: a transposed square view and an expanded (stride-0) view have the same size as a contiguous "
    "tensor of that shape, whatever their strides",
)
def is_same_size_views(t: Ctx):
    torch = t.fw
    rows, cols = t.shape
    if t.case.shape_name == "transposed":
        a = t.randn((rows, cols)).t()
    else:
        a = t.randn((1, cols)).expand(rows, cols)
    b = t.randn((rows, cols))
    return t.call(lambda x, y: torch.tensor(x.is_same_size(y), device=x.device), a, b).reference(
        "is the same size (True)", lambda outs, ins: bool(outs[0]) is True and ins[0].shape == ins[1].shape
    )


# --------------------------------------------------------------- torch.moveaxis

_MOVES = {
    "single": (0, -1),
    "pair": ((0, 1), (2, 0)),
    "negative": (-1, 0),
    "identity": ((0, 1, 2), (0, 1, 2)),
}


@cases.case(
    "torch.moveaxis",
    dtype=ALL,
    shape={"3d": (4, 5, 6), "empty": (0, 5, 6), "transposed": (8, 6, 10), "large": (64, 128, 128)},
    params={"move": list(_MOVES)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: ((s == "3d" and p["move"] == "pair") or d == "float32")
    and (p["move"] in ("single", "pair") or (s == "3d" and d == "float32"))
    and (m == "eager" or (d == "float32" and s == "large" and p["move"] == "pair")),
    grid="3d",
    note="alias of torch.movedim; OpInfo movedim: single dims, tuples of dims, negative dims, the identity "
    "move; all dtypes; the output is a view, checked against numpy.moveaxis",
)
def moveaxis(t: Ctx):
    torch = t.fw
    src, dst = _MOVES[t.p.move]
    x = _input(t)
    return t.call(lambda a: torch.moveaxis(a, src, dst), x).reference(
        "equals numpy.moveaxis", _equals(lambda a: np.moveaxis(a, src, dst))
    )


@cases.case(
    "torch.moveaxis",
    dtype=["float32"],
    shape={"3d": (4, 5, 6)},
    params={"error": ["repeated", "out-of-range"]},
    note="error inputs (OpInfo movedim error_inputs): a repeated source dim and an out-of-range dim must raise",
)
def moveaxis_raises(t: Ctx):
    torch = t.fw
    src, dst = ((0, 0), (1, 2)) if t.p.error == "repeated" else (3, 0)

    def raises(a):
        try:
            torch.moveaxis(a, src, dst)
        except (RuntimeError, IndexError):
            return _flag(t, True)
        return _flag(t, False)

    return t.call(raises, t.randn()).check("raised", _all_true)


# --------------------------------------------------------------------- torch.lt

_LT_SHAPES = {
    "scalar": ((), ()),
    "same": ((1000,), (1000,)),
    "broadcast": ((32, 1), (1, 64)),
    "0d-other": ((8, 16), ()),
    "empty": ((0, 4), (0, 4)),
    "transposed": ((48, 64), (48, 64)),
    "large": ((LARGE,), (LARGE,)),
}


@cases.case(
    "torch.lt",
    dtype=FLOATS + ["int8", "int32", "int64", "uint8", "bool"],
    shape=_LT_SHAPES,
    mode=["eager", "compiled"],
    where=cross(("float32", "int64"), ("same", "broadcast")) & compiled_only("float32", "large"),
    grid="same",
    note="OpInfo lt (a binary comparison): real dtypes and bool (complex has no order, torch rejects it by "
    "design); same shape, broadcasting, a 0-d other, empty, non-contiguous (both transposed), large",
)
def lt(t: Ctx):
    torch = t.fw
    sa, sb = t.shape
    if t.case.shape_name == "transposed":
        a, b = t.randn(sa[::-1]).t(), t.randn(sb[::-1]).t()
    else:
        a, b = t.randn(sa), t.randn(sb)
    return t.call(lambda x, y: torch.lt(x, y), a, b).reference("equals numpy.less", _equals(np.less))


@cases.case(
    "torch.lt",
    dtype=["float32", "int64", "float16"],
    shape=shapes("small"),
    params={"other": ["python-number", "int32-tensor", "float64-tensor", "nan"]},
    where=lambda d, s, m, p: d == "float32" or p["other"] == "python-number",
    note="type promotion and scalars: a Python number; tensors of other dtypes (compared after promotion); "
    "NaN compares false",
)
def lt_other(t: Ctx):
    torch = t.fw
    x = t.randn()
    other = t.p.other
    if other == "python-number":
        return t.call(lambda a: torch.lt(a, 0.25), x).reference("equals numpy.less", _equals(lambda a: np.less(a, 0.25)))
    if other == "nan":
        vals = np.where(np.arange(1000) % 3 == 0, np.nan, np.linspace(-2, 2, 1000)).astype(np.float32)
        y = t.from_numpy(vals)
        return t.call(lambda a, b: torch.lt(a, b), x, y).reference("equals numpy.less (NaN is false)", _equals(np.less))
    y = t.randn(None, "int32" if other == "int32-tensor" else "float64")
    return t.call(lambda a, b: torch.lt(a, b), x, y).reference(
        "equals numpy.less after promotion", _equals(lambda a, b: np.less(a.astype(np.float64), b.astype(np.float64)))
    )


# ------------------------------------------------------------ torch.multinomial


def _multinomial_ok(n_samples: int, replacement: bool):
    """Property: n_samples indices per row, each of a category of nonzero weight; distinct without replacement."""

    def ok(outs, ins):
        idx, w = outs[0].astype(np.int64), ins[0].astype(np.float64)
        if idx.shape != w.shape[:-1] + (n_samples,):
            return False
        w2 = w.reshape(-1, w.shape[-1])
        i2 = idx.reshape(-1, n_samples)
        for row_w, row_i in zip(w2, i2):
            if np.any(row_i < 0) or np.any(row_i >= row_w.size) or np.any(row_w[row_i] <= 0):
                return False
            if not replacement and len(set(row_i.tolist())) != row_i.size:
                return False
        return True

    return ok


def _weights(t: Ctx, shape, dtype=None):
    """Nonnegative weights with about a third exactly zero: a sample of a zero weight is an error."""
    w = np.abs(t.numpy_rng().standard_normal(shape)) + 0.1
    w[..., ::3] = 0.0
    return from_host(t, w, dtype or t.dtype_name)


@cases.case(
    "torch.multinomial",
    dtype=FLOATS,
    shape={"vector": (100,), "matrix": (16, 100), "large": (1024, 1024)},
    params={"replacement": [False, True], "n": [1, 20]},
    where=lambda d, s, m, p: (d == "float32" or (s == "matrix" and p["n"] == 20))
    and (s != "large" or p["n"] == 20),
    grid="vector",
    note="random draws: not compared across devices; checked: indices in range, only categories of nonzero "
    "weight, no repeats without replacement. OpInfo multinomial: 1-D and 2-D weights, replacement, sample counts",
)
def multinomial(t: Ctx):
    torch = t.fw
    n, replacement = t.p.n, t.p.replacement
    w = _weights(t, t.shape)
    return (
        t.call(lambda a: torch.multinomial(a, n, replacement=replacement), w)
        .no_compare()
        .check("only nonzero-weight indices; unique without replacement", _multinomial_ok(n, replacement))
    )


@cases.case(
    "torch.multinomial",
    dtype=["float32", "float64"],
    shape={"one-hot": (8, 50)},
    params={"replacement": [True]},
    note="each row has a single nonzero weight, so the draw is determined: outputs compare across devices",
)
def multinomial_one_hot(t: Ctx):
    torch = t.fw
    rows, cols = t.shape
    w = np.zeros((rows, cols))
    w[np.arange(rows), (np.arange(rows) * 7) % cols] = 1.0
    x = from_host(t, w, t.dtype_name)
    want = np.repeat(((np.arange(rows) * 7) % cols)[:, None], 10, axis=1)
    return t.call(lambda a: torch.multinomial(a, 10, replacement=True), x).reference(
        "always the one category", lambda outs, ins: ref.close(outs[0], want)
    )


@cases.case(
    "torch.multinomial",
    dtype=["float32"],
    shape={"frequencies": (4,)},
    note="empirical frequencies of 200k draws with replacement from weights 1:2:3:4 are within 5 standard deviations "
    "(0.55% at most) of 0.1/0.2/0.3/0.4",
)
def multinomial_frequencies(t: Ctx):
    torch = t.fw
    w = t.from_numpy(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32))

    def freq(outs, ins):  # each frequency within 5 standard deviations sqrt(p(1-p)/n) of p (0.55% at n = 200k)
        idx = outs[0].astype(np.int64)
        if idx.shape != (200000,) or idx.min() < 0 or idx.max() > 3:
            return False
        p = np.array([0.1, 0.2, 0.3, 0.4])
        counts = np.bincount(idx, minlength=4) / idx.size
        return bool(np.all(np.abs(counts - p) <= 5 * np.sqrt(p * (1 - p) / idx.size)))

    return t.call(lambda a: torch.multinomial(a, 200000, replacement=True), w).no_compare().check("frequencies", freq)


# ------------------------------------------------------------------- torch.diag


@cases.case(
    "torch.diag",
    dtype=ALL,
    shape={"vector": (10,), "matrix": (12, 9), "empty-vector": (0,), "empty-matrix": (0, 5), "transposed": (12, 9),
           "large-vector": (2048,), "large-matrix": (2048, 2048)},
    params={"diagonal": [0, 2, -3]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (d == "float32" or (s in ("vector", "matrix") and p["diagonal"] == 0))
    and (p["diagonal"] == 0 or s in ("vector", "matrix", "transposed"))
    and (m == "eager" or (d == "float32" and s == "large-vector" and p["diagonal"] == 0)),
    grid="matrix",
    note="OpInfo diag: a vector builds a matrix, a matrix gives its diagonal; offsets 0, 2, -3; all dtypes; "
    "empty and non-contiguous inputs",
)
def diag(t: Ctx):
    torch = t.fw
    k = t.p.diagonal
    x = _input(t)
    return t.call(lambda a: torch.diag(a, k), x).reference("equals numpy.diag", _equals(lambda a: np.diag(a, k)))


@cases.case(
    "torch.diag",
    dtype=["float32"],
    shape={"scalar": (), "3d": (2, 3, 4)},
    note="error inputs: diag accepts only 1-D or 2-D tensors, a 0-d or 3-D input must raise",
)
def diag_raises(t: Ctx):
    torch = t.fw

    def raises(a):
        try:
            torch.diag(a)
        except RuntimeError:
            return _flag(t, True)
        return _flag(t, False)

    return t.call(raises, t.randn()).check("raised RuntimeError", _all_true)


# ------------------------------------------------------------------ torch.zeros


@cases.case(
    "torch.zeros",
    dtype=ALL + ["int8", "uint8", "complex128"],
    shape={"scalar": (), "empty": (0, 3), "small": (10, 20), "large": (2048, 2048)},
    mode=["eager", "compiled"],
    where=cross(("float32", "int64", "bool", "complex64"), "small") & compiled_only("float32", "large"),
    grid="small",
    note="a factory: no inputs; size given as a tuple, dtype and device as keywords; checked all zero",
)
def zeros(t: Ctx):
    torch = t.fw
    size, dtype, device = tuple(t.shape), t.dtype, t.device
    return t.call(lambda: torch.zeros(size, dtype=dtype, device=device)).reference(
        "all zero, requested shape and dtype", _zeros_of(size, t.dtype_name)
    )


def _zeros_of(size, dtype_name: str):
    """Reference: numpy.zeros(size, dtype) (bfloat16 comes back as float32)."""
    np_dtype = "float32" if dtype_name == "bfloat16" else dtype_name

    def ok(outs, ins):
        return len(outs) >= 1 and outs[0].dtype == np.dtype(np_dtype) and ref.close(outs[0], np.zeros(size, np_dtype))

    return ok


@cases.case(
    "torch.zeros",
    dtype=["float32"],
    shape={"small": (10, 20)},
    params={"form": ["varargs", "out", "requires-grad", "channels-last"]},
    note="other overloads: sizes as varargs; out=; requires_grad=True (a leaf that can take a grad); "
    "zeros(...).contiguous(memory_format=channels_last) on a 4-D size",
)
def zeros_forms(t: Ctx):
    torch = t.fw
    device = t.device
    form = t.p.form
    if form == "varargs":
        return t.call(lambda: torch.zeros(10, 20, device=device)).reference("all zero, (10, 20) float32", _zeros_of((10, 20), "float32"))
    if form == "out":
        out = torch.empty((10, 20), device=device)
        return t.call(lambda: torch.zeros((10, 20), out=out)).reference("all zero, (10, 20) float32", _zeros_of((10, 20), "float32"))
    if form == "requires-grad":

        def leaf():
            z = torch.zeros((10, 20), device=device, requires_grad=True)
            (z * 3.0).sum().backward()
            return z.detach(), z.grad, _flag(t, z.is_leaf)

        return (
            t.call(leaf)
            .check("a leaf", lambda outs, ins: bool(outs[2].all()))
            .reference("zeros, and the grad of sum(3z) is 3 everywhere", lambda outs, ins: ref.close(outs[0], np.zeros((10, 20)))
                       and ref.close(outs[1], np.full((10, 20), 3.0)))
        )
    return t.call(
        lambda: torch.zeros((2, 3, 4, 5), device=device).contiguous(memory_format=torch.channels_last)
    ).reference("all zero, (2, 3, 4, 5)", _zeros_of((2, 3, 4, 5), "float32"))


# ------------------------------------------------------------------ torch.round


# decimals != 0 scales by 10^d, rounds and scales back in the input's precision: the result is within a few
# ulps of numpy.round in float64 (rounded to the dtype), except an element whose scaled value lands on a
# rounding boundary, which may go either way: 1% of the elements may differ more
_ROUND = {
    "float64": dict(rtol=1e-12, frac=0.01),
    "float32": dict(rtol=1e-6, frac=0.01),
    "float16": dict(ulps=4, frac=0.01),
    "bfloat16": dict(ulps=2, frac=0.01),
}


def _round_ok(decimals: int, dtype_name: str):
    """Reference: numpy.round in float64 (exact for decimals=0 and for ints, the identity)."""

    def ok(outs, ins):
        x = ref.as64(ins[0])
        if x.dtype.kind in "biu" or decimals == 0:
            return ref.close(outs[0], np.round(x))
        return ref.close(outs[0], np.round(x, decimals), _ROUND, dtype_name, f"round({decimals})")

    return ok


@cases.case(
    "torch.round",
    dtype=FLOATS + ["int32", "int64"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "transposed": (48, 64), "large": (LARGE,)},
    params={"decimals": [0, 3, -1]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (p["decimals"] == 0 or (s == "small" and d in FLOATS))
    and (s in ("small", "large") or d in ("float32", "int64"))
    and (m == "eager" or (d == "float32" and s == "large" and p["decimals"] == 0)),
    grid="small",
    note="OpInfo round and round.decimals: floats and ints (identity for ints); decimals 3 and -1 for floats. "
    "Inputs are standard normal x 100 so decimals=-1 is not all zeros; checked against numpy.round",
)
def round_(t: Ctx):
    torch = t.fw
    decimals = t.p.decimals
    x = _input(t)
    if t.dtype_name in FLOATS:
        x = x * 100 if t.dtype_name != "float16" else x * 10
    if decimals:
        fn = lambda a: torch.round(a, decimals=decimals)  # noqa: E731
    else:
        fn = lambda a: torch.round(a)  # noqa: E731
    return t.call(fn, x).reference("equals numpy.round", _round_ok(decimals, t.dtype_name))


@cases.case(
    "torch.round",
    dtype=FLOATS,
    shape={"halves": (12,)},
    note="round half to even, as documented: -2.5 -1.5 -0.5 0.5 1.5 2.5 ... -> -2 -2 -0 0 2 2 ...",
)
def round_halves(t: Ctx):
    torch = t.fw
    x = from_host(t, np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 0.49, 0.51, -0.0, 7.0]), t.dtype_name)
    want = np.array([-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 4.0, 4.0, 0.0, 1.0, -0.0, 7.0])
    return t.call(lambda a: torch.round(a), x).reference(
        "half to even", lambda outs, ins: bool(np.array_equal(outs[0].astype(np.float64), want))
    )


# ------------------------------------------------------------------ torch.range

_RANGES = {
    "unit": (0, 10, 1),
    "fractional": (-1.0, 1.0, 0.25),
    "negative-step": (5, -5, -2),
    "single": (3, 3, 1),
    "large": (0, LARGE - 1, 1),
}


@cases.case(
    "torch.range",
    dtype=["float32", "float64", "int64", "int32", "float16", "bfloat16"],
    shape=_RANGES,
    params={"api": ["range", "arange"]},
    where=lambda d, s, m, p: (d in ("float32", "int64") or s in ("unit", "fractional"))
    and not (d.startswith("int") and s == "fractional")
    and not (d in ("float16", "bfloat16") and s == "large")
    and (p["api"] == "range" or d in ("float32", "int64")),
    grid="unit",
    note="torch.range is deprecated (UserWarning since 0.4: it includes `end`, unlike Python's range) in favour "
    "of torch.arange; api=range calls the listed function, api=arange the successor with end + step/2 "
    "so both produce start, start+step, ..., end. Checked: the values and the length floor((end-start)/step)+1",
    successor="torch.arange",
)
def range_(t: Ctx):
    import warnings

    torch = t.fw
    start, end, step = t.shape
    dtype, device = t.dtype, t.device
    if t.p.api == "range":

        def fn():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return torch.range(start, end, step, dtype=dtype, device=device)

    else:
        stop = end + step / 2 if isinstance(step, float) or not t.dtype_name.startswith("int") else end + (1 if step > 0 else -1)
        fn = lambda: torch.arange(start, stop, step, dtype=dtype, device=device)  # noqa: E731
    n = int(np.floor((end - start) / step)) + 1
    want = start + step * np.arange(n, dtype=np.float64)
    # every value here (multiples of 0.25 and 1 up to 2^20) is exact in every dtype listed
    return t.call(fn).reference("start..end inclusive, exactly", lambda outs, ins: ref.close(outs[0], want.astype(outs[0].dtype)))


@cases.case(
    "torch.range",
    dtype=["float32"],
    shape={"warns": (0, 4, 1)},
    note="the deprecation itself: torch.range must raise a UserWarning that names torch.arange",
    successor="torch.arange",
)
def range_warns(t: Ctx):
    import warnings

    torch = t.fw
    device = t.device

    def fn():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            torch.range(0, 4, 1, device=device)
        return _flag(t, any(issubclass(w.category, UserWarning) and "arange" in str(w.message) for w in seen))

    return t.call(fn).check("UserWarning names torch.arange", _all_true)


# -------------------------------------------------------------- torch.Tensor.to


@cases.case(
    "torch.Tensor.to",
    dtype=["float32", "float16", "bfloat16", "float64", "complex64", "int32", "int64", "bool"],
    shape={"small": (1000,), "transposed": (48, 64), "large": (LARGE,)},
    params={"target": ["float16", "bfloat16", "float32", "float64", "int32", "int64", "bool", "complex64"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: d != p["target"]
    and (d == "float32" or p["target"] in ("float32", "int64"))
    and not (d == "complex64" and p["target"] not in ("complex64",) and p["target"] != "float32")
    and (s == "small" or (d == "float32" and p["target"] in ("float16", "int32")))
    and (m == "eager" or (d == "float32" and s == "large" and p["target"] == "float16")),
    grid="small",
    note="dtype conversions (Tensor.to(dtype)): from float32 to every dtype, from every dtype to float32 and "
    "int64; complex to float32 drops the imaginary part (with a warning); values are standard normal, so "
    "float -> int truncates within range. Checked against numpy's astype",
)
def tensor_to_dtype(t: Ctx):
    import warnings

    target = t.adapter.dtype(t.p.target)
    x = t.randn((48, 64)).t() if t.case.shape_name == "transposed" else t.randn()
    np_target = {"bfloat16": np.float32}.get(t.p.target, np.dtype(t.p.target) if t.p.target != "bfloat16" else None)

    def fn(a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return a.to(target)

    def ok(outs, ins):  # every conversion here is exact or correctly rounded (nearest even; floats to ints truncate)
        src = ins[0]
        if t.p.target == "bfloat16":
            return outs[0].dtype == np.float32 and ref.close(outs[0], ref.round_to(ref.as64(src), "bfloat16"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = (np.real(src) if np.iscomplexobj(src) and not np.issubdtype(np_target, np.complexfloating) else src).astype(np_target)
        return outs[0].dtype == want.dtype and ref.close(outs[0], want)

    return t.call(fn, x).reference("equals numpy astype, exactly", ok)


@cases.case(
    "torch.Tensor.to",
    dtype=["float32"],
    shape={"small": (1000,), "4d": (2, 3, 8, 8), "large": (LARGE,)},
    params={"form": ["to-cpu", "from-cpu", "same-dtype", "copy", "channels-last", "other-tensor", "non-blocking"]},
    where=lambda d, s, m, p: (s == "4d") == (p["form"] == "channels-last") and (s != "large" or p["form"] in ("to-cpu", "from-cpu")),
    note="the other overloads: to('cpu') (device to host: on cpu a no-op that returns self) and to(device) from a "
    "host tensor (host to device; the input is a host copy made outside the timed call); to(same dtype) returns "
    "self, copy=True always copies; memory_format=channels_last; to(other) takes other's dtype and device; "
    "non_blocking=True to the host, followed by a synchronize. The two to-host forms return (source, host copy), "
    "the copy declared a host output",
)
def tensor_to_forms(t: Ctx):
    torch = t.fw
    form = t.p.form
    device = t.device
    x = t.randn()
    if form == "to-cpu":  # the source comes back first, so the outputs' device is the one under test
        return t.call(lambda a: (a, a.to("cpu")), x).reference("source and host copy equal the input", _all_equal_input).host_outputs(1)
    if form == "from-cpu":
        host = x.cpu()
        return t.call(lambda a: a.to(device), host).reference("values kept", _all_equal_input)
    if form == "same-dtype":
        return t.call(lambda a: _flag(t, a.to(torch.float32) is a), x).check("returns self", _all_true)
    if form == "copy":

        def copied(a):
            b = a.to(torch.float32, copy=True)
            return b, _flag(t, b is not a and b.data_ptr() != a.data_ptr())

        return (
            t.call(copied, x)
            .check("a new tensor", lambda outs, ins: bool(outs[1].all()))
            .reference("the copy equals the input", lambda outs, ins: ref.close(outs[0], ins[0]))
        )
    if form == "channels-last":

        def cl(a):
            b = a.to(memory_format=torch.channels_last)
            return b, _flag(t, b.is_contiguous(memory_format=torch.channels_last))

        return (
            t.call(cl, x)
            .check("channels_last strides", lambda outs, ins: bool(outs[1].all()))
            .reference("values kept", lambda outs, ins: ref.close(outs[0], ins[0]))
        )
    if form == "other-tensor":
        other = torch.zeros((), dtype=torch.float64, device=device)
        return t.call(lambda a: a.to(other), x).reference(
            "float64, the input's values", lambda outs, ins: outs[0].dtype == np.float64 and ref.close(outs[0], ins[0].astype(np.float64))
        )

    def nb(a):
        b = a.to("cpu", non_blocking=True)
        if a.device.type == "cuda":
            torch.cuda.synchronize(a.device)
        return a, b

    return t.call(nb, x).reference("source and host copy equal the input", _all_equal_input).host_outputs(1)


def _all_equal_input(outs, ins) -> bool:
    """Reference: every output is the input, exactly (dtype and values)."""
    return all(o.dtype == ins[0].dtype and ref.close(o, ins[0]) for o in outs)


# ------------------------------------------------------- torch.triangular_solve


def _well_conditioned_triangular(t: Ctx, n: int, batch=(), upper=True):
    rng = t.numpy_rng()
    shape = tuple(batch) + (n, n)
    a = rng.standard_normal(shape) * (0.5 / np.sqrt(n))
    if t.dtype_name.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape) * (0.5 / np.sqrt(n))
    a = np.triu(a) if upper else np.tril(a)
    idx = np.arange(n)
    a[..., idx, idx] = 1.0 + rng.random(tuple(batch) + (n,))
    return a


_TRI_SHAPES = {
    "small": ((), 8, 3),
    "batched": ((4, 3), 16, 5),
    "broadcast": ((4, 1), 16, 5),
    "empty-batch": ((0,), 8, 3),
    "empty-rhs": ((), 8, 0),
    "transposed": ((), 64, 64),
    "large": ((), 1024, 64),
}


@_case(
    "torch.triangular_solve",
    dtype=["float32", "float64", "complex64", "float16", "bfloat16"],
    tol=LINALG,
    shape=_TRI_SHAPES,
    params={"api": ["triangular_solve", "linalg.solve_triangular"], "upper": [True, False], "transpose": [False, True],
            "unitriangular": [False, True]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (d == "float32" and s == "small")
        or (p["upper"] and not p["transpose"] and not p["unitriangular"]
            and (d == "float32" or (s == "small" and p["api"] == "triangular_solve")))
    )
    and (p["api"] == "triangular_solve" or (not p["transpose"] and s in ("small", "batched", "large")))
    and (m == "eager" or (d == "float32" and s == "large" and p["api"] == "triangular_solve" and p["upper"]
                          and not p["transpose"] and not p["unitriangular"])),
    grid="small",
    reduction=lambda dims, p: dims[1],
    note="torch.triangular_solve is deprecated (since 1.11) in favour of torch.linalg.solve_triangular; "
    "api=triangular_solve calls the listed function (A, b, upper, transpose, unitriangular, batched and "
    "broadcast batches), api=linalg.solve_triangular the successor (it has no transpose flag; A.mT is passed "
    "instead). OpInfo dtypes: float and complex; float16/bfloat16 are expected to be rejected on CPU. "
    "Checked: op(A) X = b",
    successor="torch.linalg.solve_triangular",
)
def triangular_solve(t: Ctx):
    torch = t.fw
    batch, n, k = t.shape
    upper, transpose, unit = t.p.upper, t.p.transpose, t.p.unitriangular
    a_np = _well_conditioned_triangular(t, n, batch, upper)
    if t.case.shape_name == "transposed":  # A as a non-contiguous view of its transpose
        a = from_host(t, np.swapaxes(a_np, -1, -2).copy()).mT
    else:
        a = from_host(t, a_np, t.dtype_name)
    rhs_batch = (batch[0], 3) if t.case.shape_name == "broadcast" else batch
    b = t.randn(tuple(rhs_batch) + (n, k))
    if t.p.api == "triangular_solve":
        fn = lambda b, a: torch.triangular_solve(b, a, upper=upper, transpose=transpose, unitriangular=unit).solution  # noqa: E731
    else:
        fn = lambda b, a: torch.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit)  # noqa: E731

    def solves(outs, ins):
        bb, aa = ins[0].astype(np.complex128), ins[1].astype(np.complex128)
        aa = np.triu(aa) if upper else np.tril(aa)
        if unit:
            idx = np.arange(n)
            aa[..., idx, idx] = 1.0
        if transpose:
            aa = np.swapaxes(aa, -1, -2)
        return bool(np.allclose(aa @ outs[0].astype(np.complex128), bb, rtol=1e-3, atol=1e-3))

    def solution(outs, ins):  # the same op(A), solved by LAPACK in float64/complex128 (broadcasting the batch)
        bb, aa = ref.as64(ins[0]), ref.as64(ins[1])
        aa = np.triu(aa) if upper else np.tril(aa)
        if unit:
            idx = np.arange(n)
            aa[..., idx, idx] = 1.0
        if transpose:
            aa = np.swapaxes(aa, -1, -2)
        shape = np.broadcast_shapes(aa.shape[:-2], bb.shape[:-2])
        aa, bb = np.broadcast_to(aa, shape + aa.shape[-2:]), np.broadcast_to(bb, shape + bb.shape[-2:])
        want = np.linalg.solve(aa, bb) if aa.size and bb.size else np.zeros(shape + (n, k))
        return ref.close(outs[0], want, _SOLVE, t.dtype_name, "solve")

    return t.call(fn, b, a).check("op(A) X = b", solves).reference("equals numpy.linalg.solve(op(A), b) in float64", solution)


# A triangular solve of a well-conditioned matrix: forward substitution over n terms
_SOLVE = dict(ref.ACCUMULATE, float32=dict(rtol=1e-4, rms=1e-4), complex64=dict(rtol=1e-4, rms=1e-4))


# ------------------------------------------------------ torch.linalg.matrix_rank


def _low_rank(t: Ctx, batch, rows, cols, rank, hermitian=False):
    rng = t.numpy_rng()
    cplx = t.dtype_name.startswith("complex")

    def draw(shape):
        m = rng.standard_normal(shape)
        return m + 1j * rng.standard_normal(shape) if cplx else m

    u = draw(tuple(batch) + (rows, rank))
    v = np.conj(np.swapaxes(u, -1, -2)) if hermitian else draw(tuple(batch) + (rank, cols))
    return u @ v


_RANK_SHAPES = {
    "square": ((), 8, 8, 3),
    "full": ((), 6, 6, 6),
    "wide": ((), 6, 10, 4),
    "tall": ((), 10, 6, 2),
    "batched": ((3, 2), 7, 7, 5),
    "zero-matrix": ((), 5, 5, 0),
    "empty": ((), 0, 0, 0),
    "transposed": ((), 32, 48, 12),
    "large": ((), 512, 512, 100),
}


@_case(
    "torch.linalg.matrix_rank",
    dtype=["float32", "float64", "complex64", "float16", "bfloat16"],
    shape=_RANK_SHAPES,
    params={"hermitian": [False, True], "tol": ["default", "atol-rtol"]},
    where=lambda d, s, m, p: (d in ("float32", "float64") or (s == "square" and p["tol"] == "default"))
    and (not p["hermitian"] or (s in ("square", "batched", "large") and p["tol"] == "default"))
    and (p["tol"] == "default" or (d == "float32" and s in ("square", "batched")))
    and (d == "float32" or s in ("square", "full", "batched", "large")),
    grid="square",
    note="OpInfo linalg.matrix_rank: float and complex dtypes, batches, hermitian=True (eigvalsh instead of "
    "svd), explicit atol/rtol; inputs are products U V of a known rank (hermitian: U U^H), so the answer is exact; "
    "float16/bfloat16 are expected to be rejected on CPU (no half SVD)",
)
def matrix_rank(t: Ctx):
    torch = t.fw
    batch, rows, cols, rank = t.shape
    herm = t.p.hermitian
    m = _low_rank(t, batch, rows, cols, rank, herm)
    if t.case.shape_name == "transposed":
        x = from_host(t, np.swapaxes(m, -1, -2).copy()).mT
    else:
        x = from_host(t, m, t.dtype_name)
    if t.p.tol == "default":
        fn = lambda a: torch.linalg.matrix_rank(a, hermitian=herm)  # noqa: E731
    else:
        fn = lambda a: torch.linalg.matrix_rank(a, atol=1e-3, rtol=1e-4, hermitian=herm)  # noqa: E731
    want = np.full(tuple(batch), rank)
    return t.call(fn, x).reference(f"rank is {rank}", lambda outs, ins: ref.close(outs[0], want))


# ---------------------------------------------------------------- torch.slogdet


def _with_known_det(t: Ctx, batch, n, singular=False):
    """A = L U with unit lower L and upper U of chosen diagonal: det(A) = prod(diag(U)), no cancellation."""
    rng = t.numpy_rng()
    cplx = t.dtype_name.startswith("complex")
    shape = tuple(batch) + (n, n)
    lo = np.tril(rng.standard_normal(shape) * (0.3 / max(1.0, np.sqrt(n))), -1)
    up = np.triu(rng.standard_normal(shape) * (0.3 / max(1.0, np.sqrt(n))), 1)
    diag = (0.8 + 0.4 * rng.random(tuple(batch) + (n,))) * np.where(rng.random(tuple(batch) + (n,)) < 0.3, -1.0, 1.0)
    if cplx:
        diag = diag * np.exp(1j * rng.uniform(-np.pi, np.pi, diag.shape))
        up = up + 1j * np.triu(rng.standard_normal(shape) * (0.3 / max(1.0, np.sqrt(n))), 1)
    idx = np.arange(n)
    lo[..., idx, idx] = 1.0
    up = up.astype(np.complex128) if cplx else up
    up[..., idx, idx] = diag
    a = lo @ up
    if singular and n:  # a zero row: elimination keeps it exactly zero, so the last pivot is exactly 0
        a[..., -1, :] = 0.0
        diag[..., -1] = 0.0
    sign = np.prod(diag / np.where(diag == 0, 1, np.abs(diag)), axis=-1) * np.where(np.any(diag == 0, axis=-1), 0, 1)
    logabs = np.sum(np.log(np.where(diag == 0, 1, np.abs(diag))), axis=-1) + np.where(np.any(diag == 0, axis=-1), -np.inf, 0)
    return a, sign, logabs


_SLOGDET_SHAPES = {
    "scalar-1x1": ((), 1),
    "small": ((), 5),
    "batched": ((3, 2), 4),
    "empty": ((), 0),
    "empty-batch": ((0,), 4),
    "singular": ((), 6),
    "transposed": ((), 64),
    "large": ((), 512),
}


@_case(
    "torch.slogdet",
    dtype=["float32", "float64", "complex64", "float16", "bfloat16"],
    tol=LINALG,
    shape=_SLOGDET_SHAPES,
    params={"api": ["slogdet", "linalg.slogdet"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (d in ("float32", "float64") or s in ("small", "batched"))
    and (d not in ("float16", "bfloat16") or s == "small")
    and (p["api"] == "slogdet" or (d == "float32" and s in ("small", "batched")))
    and (m == "eager" or (d == "float32" and s == "large" and p["api"] == "slogdet")),
    grid="small",
    reduction=lambda dims, p: max(1, dims[1]),
    note="torch.slogdet is an alias of torch.linalg.slogdet (both documented; api= picks the name). Inputs are "
    "L U products of known determinant: checked (sign, log|det|) against it, singular gives sign 0 and "
    "log|det| = -inf, 0x0 gives (1, 0). float16/bfloat16 are expected to be rejected on CPU (no half LU)",
)
def slogdet(t: Ctx):
    torch = t.fw
    batch, n = t.shape
    a, sign, logabs = _with_known_det(t, batch, n, singular=t.case.shape_name == "singular")
    if t.case.shape_name == "transposed":
        x = from_host(t, np.swapaxes(a, -1, -2).copy()).mT
    else:
        x = from_host(t, a, t.dtype_name)
    if t.p.api == "slogdet":
        fn = lambda a: tuple(torch.slogdet(a))  # noqa: E731
    else:
        fn = lambda a: tuple(torch.linalg.slogdet(a))  # noqa: E731

    # LU of a well-conditioned n x n matrix: the sign is exact up to rounding, log|det| a sum of n logs
    tol = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=1e-4, atol=1e-4), "complex64": dict(rtol=1e-4, atol=1e-4)}

    def known(outs, ins):
        return ref.close(outs[0], sign if np.iscomplexobj(outs[0]) else np.real(sign), tol, t.dtype_name, "sign") and ref.close(
            outs[1], logabs, tol, t.dtype_name, "logabsdet"
        )

    return t.call(fn, x).reference("(sign, log|det|) of the known determinant", known)
