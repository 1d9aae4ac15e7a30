"""NumPy reference cases beside the paper's lists: equivalents of a few of the
paper's functions, so the numpy adapter (the reference implementation when
frameworks are compared with each other) runs end to end. NumPy has no
bfloat16 and no compiler, so every case is eager and bfloat16 is absent.
"""

from __future__ import annotations

from mudjack_probe.api import LARGE, Cases, Ctx, np  # np: numpy, loaded on first use (listing needs none)

cases = Cases("numpy")

SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "transposed": (48, 64), "large": (LARGE,)}


def _input(t: Ctx) -> np.ndarray:
    if t.case.shape_name == "transposed":
        return t.randn(tuple(reversed(t.shape))).T  # a strided view, as in the torch cases
    return t.randn()


@cases.case(
    "numpy.sum",
    dtype=["float16", "float32", "float64", "complex64", "int32", "int64", "bool"],
    shape=SHAPES,
    note="equivalent of torch.sum / jax.numpy.sum; transposed: sum over axis 1 of a transposed view",
)
def sum_(t: Ctx):
    xp = t.fw
    axis = 1 if t.case.shape_name == "transposed" else None
    return t.call(lambda a: xp.sum(a, axis=axis), _input(t))


def _sorted_by_indices(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    idx, x = outs[0], ins[0]
    if x.ndim == 0:  # torch keeps 0-d, numpy returns shape (1,): both mean "index 0"
        return idx.size == 1 and int(idx.ravel()[0]) == 0
    gathered = np.take_along_axis(x, idx.astype(np.int64), axis=-1).astype(np.float64)
    return bool(np.all(np.diff(gathered, axis=-1) >= 0))


@cases.case(
    "numpy.argsort",
    dtype=["float16", "float32", "float64", "int32", "int64", "bool"],
    shape=SHAPES,
    note="equivalent of torch.argsort; kind='stable', so ties have one right answer",
)
def argsort(t: Ctx):
    xp = t.fw
    return t.call(lambda a: xp.argsort(a, axis=-1, kind="stable"), _input(t)).check(
        "gather(x, idx) is sorted", _sorted_by_indices
    )


@cases.case(
    "numpy.linalg.svd",
    dtype=["float32", "float64", "complex64"],
    shape={"small": (32, 16), "large": (512, 512)},
    where=lambda d, s, m, p: not (d == "complex64" and s == "large"),  # ~0.6 s a call on CPU: too slow to repeat
    note="equivalent of jax.numpy.linalg.svd / tf.linalg.svd: singular values only",
)
def svd(t: Ctx):
    xp = t.fw
    return t.call(lambda a: xp.linalg.svd(a, compute_uv=False), t.randn())
