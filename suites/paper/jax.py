"""The paper's JAX functions (paper_jax.txt), first cut: 7 of the 61.

Chosen to exercise the whole path: float16/bfloat16/float32/float64 (the
adapter enables x64), integer and bool dtypes; 0-d, empty and large inputs;
eager and jax.jit; a function that returns Python objects (einsum_path); a
decomposition whose outputs are only defined up to sign (svd); a collective
that needs two devices (all_gather). JAX arrays have no strided views, so there
is no "transposed" shape here; "matrix" reduces along the leading axis instead.
Importing this file must not import jax: bodies get it as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import np  # numpy loads on first use: listing needs none

from mudjack_probe.api import Ctx, Cases

cases = Cases("jax")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
LARGE = 1 << 20


def _compiled_only_for(dtype: str, shape: str):
    """where=: every eager case, and compiled for one (dtype, shape)."""
    return lambda d, s, m, p: m == "eager" or (d == dtype and s == shape)


@cases.case(
    "jax.numpy.sum",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape={"scalar": (), "empty": (0,), "small": (1000,), "matrix": (256, 128), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "large"),
    note="matrix: sum over axis 0; otherwise a full reduction",
)
def sum_(t: Ctx):
    jnp = t.fw.numpy
    axis = 0 if t.case.shape_name == "matrix" else None
    return t.call(lambda a: jnp.sum(a, axis=axis), t.randn())


_EINSUM = "ij,jk,kl->il"


def _path_contracts_everything(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    """Replay the pairwise contraction path: it must end with one operand."""
    flat = [int(v) for v in outs[0].ravel()]
    live = len(ins)
    for i in range(0, len(flat), 2):
        a, b = flat[i], flat[i + 1]
        if a == b or not (0 <= a < live and 0 <= b < live):
            return False
        live -= 1
    return live == 1


@cases.case(
    "jax.numpy.einsum_path",
    dtype=["float32"],
    shape={"chain3": ((8, 16), (16, 32), (32, 4)), "chain3-large": ((1024, 64), (64, 1024), (1024, 8))},
    note="returns Python objects (a list of index tuples and a text report); the case returns the path as an "
    "int64 array (the report is dropped) so it compares across devices; the optimiser only reads shapes",
)
def einsum_path(t: Ctx):
    jnp = t.fw.numpy
    operands = [t.randn(s) for s in t.shape]

    def path(*ops):
        steps, _report = jnp.einsum_path(_EINSUM, *ops, optimize="greedy")
        pairs = [i for step in steps if isinstance(step, tuple) for i in step]
        return np.asarray(pairs, dtype=np.int64)

    return t.call(path, *operands).check("path contracts all operands pairwise", _path_contracts_everything)


def _top_k_consistent(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    values, idx, x = outs[0], outs[1], ins[0]
    picked = np.take_along_axis(x, idx.astype(np.int64), axis=-1)
    descending = np.all(np.diff(values.astype(np.float64), axis=-1) <= 0)
    return bool(descending and np.array_equal(picked, values))


@cases.case(
    "jax.lax.top_k",
    dtype=FLOATS + ["int32"],
    shape={"small": (1000,), "matrix": (64, 512), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "large"),
    note="k=5 along the last axis; ties are documented to keep the lower index first, so indices compare too",
)
def top_k(t: Ctx):
    lax = t.fw.lax
    return t.call(lambda a: lax.top_k(a, 5), t.randn()).check("values descend and equal x[indices]", _top_k_consistent)


def _svd_reconstructs(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    u, s, vh = (o.astype(np.complex128) for o in outs)
    a = ins[0].astype(np.complex128)
    eps = 1e-10 if outs[1].dtype == np.float64 else 1e-4
    rebuilt = (u * s) @ vh
    orthonormal = np.allclose(u.conj().T @ u, np.eye(u.shape[1]), atol=100 * eps)
    return bool(orthonormal and np.linalg.norm(rebuilt - a) <= eps * 10 * max(1.0, np.linalg.norm(a)))


@cases.case(
    "jax.numpy.linalg.svd",
    dtype=["float16", "float32", "float64", "complex64"],
    shape={"small": (32, 16), "large": (512, 512)},
    params={"part": ["values", "full"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "small" and p["part"] == "values"),
    note="values: singular values only, compared across devices; full: U and V are defined only up to "
    "sign/phase, so they are not compared but must rebuild the input with orthonormal U",
)
def svd(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    if t.p.part == "values":
        return t.call(lambda a: jnp.linalg.svd(a, compute_uv=False), x)
    return t.call(lambda a: jnp.linalg.svd(a, full_matrices=False), x).no_compare().check(
        "U diag(S) Vh rebuilds the input", _svd_reconstructs
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
    return t.call(lambda i: jax.nn.one_hot(i, 10, dtype=dtype), t.from_numpy(idx))


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
    return t.call(gather, t.randn())


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
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    rows = t.numpy_rng().standard_normal(t.shape).astype(np.float32)
    x = jax.device_put(rows, NamedSharding(Mesh(np.array(devices), ("i",)), PartitionSpec("i")))  # one row per device
    return t.call(gather, x)


@cases.case(
    "jax.scipy.special.gammaln",
    dtype=FLOATS,
    shape={"scalar": (), "empty": (0,), "small": (1000,), "large": (LARGE,)},
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "large"),
    note="inputs in [3, 30): away from gammaln's roots at 1 and 2, where relative error is meaningless",
)
def gammaln(t: Ctx):
    from jax.scipy import special
    x = t.numpy_rng().uniform(3.0, 30.0, size=t.shape)
    return t.call(lambda a: special.gammaln(a), t.adapter.from_numpy(x, t.dtype_name))
