"""The paper's JAX functions: shapes, indexing and selection (reshape, stack, split,
flip, fliplr, delete, compress, tril, slice_in_dim, size, isscalar, top_k, one_hot).

See jax.py for the plan and the conventions. Importing this file must not
import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import COMMON, FLOATS, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _jax_common import AXES, BOTH, as64, maybe_t, put

cases = Cases("jax")


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
    where=cross("float32", "to2d") & compiled_only("float32", ("to2d", "order-F", "transposed", "large")),
    grid="to2d",
    note="to2d (1000,)->(10,100); flatten: -1; order-F: Fortran order (a transpose under the hood); "
    "transposed: (a.T).reshape, which must copy; scalar -> (1, 1); empty (0,4) -> (4,0)",
)
def reshape(t: Ctx):
    jnp = t.fw.numpy
    _, new, order = _RESHAPE[t.case.shape_name]
    x = t.randn()
    if t.case.shape_name == "transposed":
        return t.call(lambda a: jnp.reshape(a.T, new, order=order), x).reference(
            "numpy's reshape", lambda outs, ins: np.array_equal(outs[0], np.reshape(ins[0].T, (32, 256)))
        )
    return t.call(lambda a: jnp.reshape(a, new, order=order), x).reference(
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
    grid="matrix",
    note="three arrays of the shape; a new axis at 0, 1 or -1",
)
def stack(t: Ctx):
    jnp = t.fw.numpy
    axis = t.p.axis
    arrays = [t.randn() for _ in range(3)]
    return t.call(lambda a, b, c: jnp.stack([a, b, c], axis=axis), *arrays).reference(
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
    grid="small",
    note="sections: equal pieces; indices: cut points [10, 30, 31]; beyond-end: a cut point past the end, "
    "where numpy gives an empty last piece (jax 0.10 raises: a finding); the pieces, a list, are the outputs",
)
def split(t: Ctx):
    jnp = t.fw.numpy
    how, axis = _SPLIT[t.p.how]
    return t.call(lambda a: jnp.split(a, how, axis=axis), t.randn()).reference(
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
    grid="small",
    note="axis None flips every axis; 01: a tuple of axes",
)
def flip(t: Ctx):
    jnp = t.fw.numpy
    axis = {"none": None, "0": 0, "1": 1, "01": (0, 1), "-1": -1}[t.p.axis]
    return t.call(lambda a: jnp.flip(a, axis=axis), t.randn()).reference(
        "numpy's flip", lambda outs, ins: np.array_equal(outs[0], np.flip(ins[0], axis=axis))
    )


@cases.case(
    "jax.numpy.fliplr",
    dtype=["float32", "bfloat16", "float64", "int32", "bool", "complex64"],
    shape={"matrix": (64, 128), "cube": (8, 16, 4), "empty": (0, 5), "transposed": (128, 64), "large": (1024, 1024)},
    mode=BOTH,
    where=cross("float32", "matrix") & compiled_only("float32", ("matrix", "transposed", "large")),
    grid="matrix",
    note="flips axis 1 (needs ndim >= 2)",
)
def fliplr(t: Ctx):
    jnp = t.fw.numpy
    f = maybe_t(t, lambda a: jnp.fliplr(a))
    return t.call(f, t.randn()).reference(
        "numpy's fliplr", lambda outs, ins: np.array_equal(outs[0], np.fliplr(ins[0].T if t.case.shape_name == "transposed" else ins[0]))
    )


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
    where=lambda d, s, m, p: (
        (s == "small" and p["axis"] == "none")
        or (s == "matrix" and p["axis"] != "none")
        or (s == "large" and p["axis"] == "none" and p["obj"] == "array")
    )
    and (d == "float32" or (s == "small" and p["obj"] in ("int", "array")))
    and (s != "matrix" or (p["obj"] in ("int", "slice", "array", "mask") and (p["axis"] == "1" or p["obj"] in ("int", "array"))))
    and (m == "eager" or (d == "float32" and p["obj"] in ("slice", "array", "unique-sorted") and s != "matrix")),
    grid="small",
    note="obj static (NumPy values in the closure): an int, -1, a slice, an index array with a duplicate, a "
    "boolean mask, or sorted unique indices passed with assume_unique_indices=True (another code path); "
    "axis none flattens first. No large slice: jax turns a slice into unique indices and compares every "
    "index with every position (O(n * len(obj)) memory: 2 TB asked for n = 2**20 on jax 0.10.2, ~97 GB "
    "resident before the probe was killed on 0.11.2)",
)
def delete(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    n = t.shape[axis] if axis is not None else int(np.prod(t.shape))
    obj = _DELETE[t.p.obj](n)
    unique = t.p.obj == "unique-sorted"
    return t.call(lambda a: jnp.delete(a, obj, axis=axis, assume_unique_indices=unique), t.randn()).reference(
        "numpy's delete", lambda outs, ins: np.array_equal(outs[0], np.delete(ins[0], obj, axis=axis))
    )


def _compress_where(d, s, m, p):
    return (
        ((s in ("small", "large") and p["axis"] == "none") or (s == "matrix" and (p["axis"] != "none" or p["condition"] == "static")))
        and (d == "float32" or (s == "small" and p["condition"] == "static"))
        and (s != "large" or p["condition"] != "short")
    )


_COMPRESS_NOTE = (
    "static: a NumPy boolean condition in the closure; short: a condition shorter than the axis (the "
    "rest is dropped); both eager only: the output's size depends on values, so under jit compress needs "
    "size=. traced-size (compiled): the condition is a traced argument, with size= (the true count) and "
    "fill_value"
)


@cases.case(
    "jax.numpy.compress",
    dtype=["float32", "int32", "bool", "complex64"],
    shape={"small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"condition": ["traced-size"], "axis": ["none", "0", "1"]},
    mode=["compiled"],
    where=_compress_where,
    note=_COMPRESS_NOTE,
)
@cases.case(
    "jax.numpy.compress",
    dtype=["float32", "int32", "bool", "complex64"],
    shape={"small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"condition": ["static", "short"], "axis": ["none", "0", "1"]},
    mode=["eager"],
    where=_compress_where,
    grid="small",
    note=_COMPRESS_NOTE,
)
def compress(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    n = t.shape[axis] if axis is not None else int(np.prod(t.shape))
    cond = t.numpy_rng().random(n) < 0.4
    if t.p.condition == "short":
        cond = cond[: n // 2]
    x = t.randn()
    if t.p.condition == "traced-size":
        size = int(cond.sum())
        return t.call(lambda c, a: jnp.compress(c, a, axis=axis, size=size, fill_value=0), put(t, cond, "bool"), x).reference(
            "numpy's compress", lambda outs, ins: np.array_equal(outs[0], np.compress(ins[0], ins[1], axis=axis))
        )
    return t.call(lambda a: jnp.compress(cond, a, axis=axis), x).reference(
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
    grid="square",
    note="the lower triangle of the last two axes (batched: each of 4); k shifts the diagonal",
)
def tril(t: Ctx):
    jnp = t.fw.numpy
    k = t.p.k
    f = maybe_t(t, lambda a: jnp.tril(a, k=k))
    return t.call(f, t.randn()).reference(
        "numpy's tril", lambda outs, ins: np.array_equal(outs[0], np.tril(ins[0].T if t.case.shape_name == "transposed" else ins[0], k=k))
    )


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
    grid="small",
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

    return t.call(lambda a: lax.slice_in_dim(a, start, limit, stride, axis), t.randn()).reference(
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
    grid="matrix",
    note="a Python int (static even under jit), returned as a 0-d int array on the device",
)
def size(t: Ctx):
    jnp = t.fw.numpy
    axis = AXES[t.p.axis]
    return t.call(lambda a: jnp.asarray(jnp.size(a, axis), dtype=jnp.int64), t.randn()).reference(
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
    return t.call(lambda: jnp.asarray(jnp.size(value), dtype=jnp.int64)).reference(f"size {want}", lambda outs, ins: int(outs[0]) == want)


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
    grid="default",
    note="jnp.isscalar: True for Python and NumPy scalars and for 0-d arrays (also traced ones under jit: a "
    "documented difference from numpy.isscalar); the bool is returned as a device array. The dtype label is "
    "float32 for the declared variants (the argument kind is the `arg` parameter); grid dtypes: a 0-d "
    "array of that dtype",
)
def isscalar(t: Ctx):
    jnp = t.fw.numpy
    kind = t.p.arg
    want = _ISSCALAR[kind][1]
    array_shapes = {"array-0d": (), "array-1d": (3,), "array-0d-int": (), "array-empty": (0,)}
    if kind in array_shapes:
        dt = "int32" if kind.endswith("int") else t.dtype_name
        x = t.randn(array_shapes[kind], dtype=dt)
        return t.call(lambda a: jnp.asarray(jnp.isscalar(a)), x).reference(f"is {want}", lambda outs, ins: bool(outs[0]) is want)
    value = {
        "numpy-0d": np.array(1.5),
        "numpy-scalar": np.float32(1.5),
        "python-float": 1.5,
        "python-complex": 1 + 2j,
        "python-bool": True,
        "python-list": [1.0, 2.0],
        "none": None,
    }[kind]
    return t.call(lambda: jnp.asarray(jnp.isscalar(value))).reference(f"is {want}", lambda outs, ins: bool(outs[0]) is want)


# ---- selection: top_k, one_hot ------------------------------------------


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
    where=compiled_only("float32", "large"),
    grid="small",
    note="k=5 along the last axis; ties are documented to keep the lower index first, so indices compare too",
)
def top_k(t: Ctx):
    lax = t.fw.lax
    return t.call(lambda a: lax.top_k(a, 5), t.randn()).reference("values are the top 5, descending, equal x[indices]", _top_k_is_top(5))


@cases.case(
    "jax.lax.top_k",
    dtype=["float32", "bfloat16", "int32"],
    shape=shapes("small", matrix=(64, 512)),
    params={"k": [1, 64, "all"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "matrix" and p["k"] == 64)) and (m == "eager" or (d == "float32" and s == "matrix")),
    note="k=1 (an argmax), 64, and k = the axis length (a full descending sort); bfloat16 and int32 have many ties",
)
def top_k_k(t: Ctx):
    lax = t.fw.lax
    k = t.shape[-1] if t.p.k == "all" else t.p.k
    return t.call(lambda a: lax.top_k(a, k), t.randn()).reference(f"values are the top {k}, descending, equal x[indices]", _top_k_is_top(k))


@cases.case(
    "jax.nn.one_hot",
    dtype=["float32", "bfloat16", "float16", "int32", "bool"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "large": (1 << 17,)},
    grid="small",
    note="10 classes; dtype is the output's (the indices are int32); indices include -1 and 10, which must give "
    "all-zero rows",
)
def one_hot(t: Ctx):
    jax = t.fw
    idx = t.numpy_rng().integers(-1, 11, size=t.shape).astype(np.int32)
    dtype = t.dtype

    def check(outs, ins):
        o = as64(outs[0])
        if o.dtype.kind in "biu":
            o = o.astype(np.float64)
        i = ins[0]
        valid = (i >= 0) & (i < 10)
        return bool(np.array_equal(o.sum(-1), valid.astype(np.float64)) and np.array_equal(o, (np.arange(10) == i[..., None]).astype(np.float64)))

    return t.call(lambda i: jax.nn.one_hot(i, 10, dtype=dtype), t.from_numpy(idx)).reference("rows sum to 1 (0 out of range), hot at the index", check)


@cases.case(
    "jax.nn.one_hot",
    dtype=["float32", "int32"],
    shape={"matrix": (64, 128), "large": (1 << 12,)},
    params={"form": ["axis0", "classes1000"]},
    mode=BOTH,
    where=cross("float32", "matrix") & compiled_only("float32"),
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

    return t.call(lambda i: jax.nn.one_hot(i, classes, dtype=dtype, axis=axis), t.from_numpy(idx)).reference("rows sum to 1, hot at the index", check)
