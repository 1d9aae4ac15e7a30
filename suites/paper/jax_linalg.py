"""The paper's JAX functions: einsum_path, linear algebra (svd, lu) and convolutions
(convolve, convolve2d).

See jax.py for the plan and the conventions. Importing this file must not
import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import Cases, Ctx, compiled_only, np  # np: numpy, loaded on first use (listing needs none)

from _jax_common import BOTH, HALF_ULPS, as64, f64, host_data, load_module, near, put

cases = Cases("jax")


# --------------------------------------------------------------------------
# einsum_path
# --------------------------------------------------------------------------

_EINSUM = "ij,jk,kl->il"


def _path_valid(n_operands: int):
    """Replay the contraction path (steps padded with -1): it must end with one operand."""

    def check(outs, ins):
        steps = outs[0]
        live = n_operands
        for row in np.atleast_2d(steps):
            picked = [int(v) for v in row if v >= 0]
            if len(picked) < 1 or len(set(picked)) != len(picked) or not all(0 <= v < live for v in picked):
                return False
            live = live - len(picked) + 1
        return live == 1

    return check


def _path_contracts_everything(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    return _path_valid(len(ins))(outs, ins)


def _path_array(jnp, steps):
    width = max([len(s) for s in steps if isinstance(s, tuple)] + [1])
    rows = [list(s) + [-1] * (width - len(s)) for s in steps if isinstance(s, tuple)]
    return jnp.asarray(np.asarray(rows, dtype=np.int64).reshape(len(rows), width))


@cases.case(
    "jax.numpy.einsum_path",
    dtype=["float32"],
    shape={"chain3": ((8, 16), (16, 32), (32, 4)), "chain3-large": ((1024, 64), (64, 1024), (1024, 8))},
    grid="chain3",
    note="returns Python objects (a list of index tuples and a text report); the case returns the path as an "
    "int64 array on the device (the report is dropped) so it compares across devices; the optimiser only "
    "reads shapes",
)
def einsum_path(t: Ctx):
    jnp = t.fw.numpy
    operands = [t.randn(s) for s in t.shape]

    def path(*ops):
        steps, _report = jnp.einsum_path(_EINSUM, *ops, optimize="greedy")
        return _path_array(jnp, steps[1:] if steps and steps[0] == "einsum_path" else steps)

    return t.call(path, *operands).check("path contracts all operands pairwise", _path_contracts_everything)


_EINSUM_MORE = {
    "batched": ("bij,bjk,bkl->bil", ((16, 8, 32), (16, 32, 64), (16, 64, 4))),
    "chain4": ("ab,bc,cd,de->ae", ((64, 8), (8, 128), (128, 4), (4, 256))),
    "outer-trace": ("i,j,kk->ij", ((100,), (50,), (20, 20))),
    "hadamard": ("ij,ij,ij->ij", ((32, 32), (32, 32), (32, 32))),
}


@cases.case(
    "jax.numpy.einsum_path",
    dtype=["float32"],
    shape={k: v[1] for k, v in _EINSUM_MORE.items()},
    params={"optimize": ["greedy", "optimal"]},
    where=lambda d, s, m, p: p["optimize"] == "optimal" or s in ("batched", "chain4"),
    note="batch dims, a 4-operand chain, an outer product with a trace, elementwise products; the optimal "
    "search vs greedy; the path (padded with -1) must contract every operand exactly once",
)
def einsum_path_more(t: Ctx):
    jnp = t.fw.numpy
    subscripts, shapes = _EINSUM_MORE[t.case.shape_name]
    operands = [t.randn(s) for s in shapes]
    how = t.p.optimize

    def path(*ops):
        steps, _report = jnp.einsum_path(subscripts, *ops, optimize=how)
        return _path_array(jnp, steps[1:] if steps and steps[0] == "einsum_path" else steps)

    return t.call(path, *operands).check("path contracts every operand", _path_valid(len(shapes)))


# --------------------------------------------------------------------------
# linear algebra and convolutions
# --------------------------------------------------------------------------


def _svd_reconstructs(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    u, s, vh = (o.astype(np.complex128) for o in outs)
    a = ins[0].astype(np.complex128)
    eps = 1e-10 if outs[1].dtype == np.float64 else 1e-4
    rebuilt = (u * s[..., None, :]) @ vh
    eye = np.eye(u.shape[-1])
    orthonormal = np.allclose(np.swapaxes(u.conj(), -1, -2) @ u, eye, atol=100 * eps)
    return bool(orthonormal and np.linalg.norm(rebuilt - a) <= eps * 10 * max(1.0, np.linalg.norm(a)))


def _singular_values(t: Ctx):
    """The S of a full decomposition against NumPy's float64 singular values (the values cases' tolerance)."""
    return near(t, lambda a: np.linalg.svd(a, compute_uv=False), out=1, scale=50.0)


def svd(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    if t.p.part == "values":
        return t.call(lambda a: jnp.linalg.svd(a, compute_uv=False), x).reference(
            "numpy's singular values", near(t, lambda a: np.linalg.svd(f64(a), compute_uv=False), scale=50.0)
        )
    return (
        t.call(lambda a: jnp.linalg.svd(a, full_matrices=False), x)
        .no_compare()
        .check("U diag(S) Vh rebuilds the input", _svd_reconstructs)
        .reference("S is numpy's singular values", _singular_values(t))
    )


# A backward-stable SVD bounds |d sigma| by about p(n) eps sigma_max, not relative to each sigma: the
# tolerance is absolute, scaled to sigma_max (about 10 for 32x16, 45 for 512x512 standard normal).
for _shape, _atol, _grid in (({"small": (32, 16)}, 1e-4, "small"), ({"large": (512, 512)}, 2e-2, None)):
    cases.case(
        "jax.numpy.linalg.svd",
        dtype=["float16", "float32", "float64", "complex64"],
        shape=_shape,
        params={"part": ["values", "full"]},
        mode=["eager", "compiled"],
        where=compiled_only("float32", "small", part="values"),
        rtol={"float32": 1e-4, "complex64": 1e-4},
        atol={"float32": _atol, "complex64": _atol},
        grid=_grid,
        note="values: singular values only, compared across devices within an absolute tolerance scaled to "
        "sigma_max (the stability bound); full: U and V are defined only up to sign/phase, so they are not "
        "compared but must rebuild the input with orthonormal U; float16 is rejected (a finding)",
    )(svd)


@cases.case(
    "jax.numpy.linalg.svd",
    dtype=["float32", "float64", "complex64"],
    shape={"wide": (16, 32), "batched": (8, 16, 16), "square": (64, 64)},
    params={"part": ["values", "full", "full_matrices", "hermitian"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["part"] != "hermitian" or s == "square")
    and (p["part"] != "full_matrices" or s == "wide")
    and (d == "float32" or (p["part"] in ("values", "full") and s == "batched"))
    and (m == "eager" or (d == "float32" and s == "batched" and p["part"] in ("values", "full"))),
    rtol={"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4},
    atol={"float32": 1e-4, "complex64": 1e-4},
    note="wide (m < n), batched (8 matrices), square; full_matrices=True gives square U and Vh (wide: Vh "
    "32x32, only the first 16 rows rebuild); hermitian=True on a symmetric input (eigendecomposition path)",
)
def svd_more(t: Ctx):
    jnp = t.fw.numpy
    x = t.randn()
    part = t.p.part
    if part == "hermitian":
        x = put(t, (lambda h: h + h.T)(host_data(t)))
        return t.call(lambda a: jnp.linalg.svd(a, compute_uv=False, hermitian=True), x).reference(
            "numpy's singular values", near(t, lambda a: np.linalg.svd(a, compute_uv=False, hermitian=True), scale=50.0)
        )
    if part == "values":
        return t.call(lambda a: jnp.linalg.svd(a, compute_uv=False), x).reference(
            "numpy's singular values", near(t, lambda a: np.linalg.svd(a, compute_uv=False), scale=50.0)
        )
    if part == "full_matrices":

        def rebuilds(outs, ins):
            u, s, vh = outs
            if u.shape != (16, 16) or vh.shape != (32, 32):
                return False
            return _svd_reconstructs([u, s, vh[:16]], ins)

        call = t.call(lambda a: jnp.linalg.svd(a, full_matrices=True), x).no_compare().check("square U, Vh; rebuilds", rebuilds)
    else:
        call = t.call(lambda a: jnp.linalg.svd(a, full_matrices=False), x).no_compare().check("U diag(S) Vh rebuilds the input", _svd_reconstructs)
    return call.reference("S is numpy's singular values", _singular_values(t))


# The rebuild bound of _lu_rebuilds is eps * 10 * |A|: about n u for the factors' dtype.
_LU_EPS = {"float16": 4e-3, "bfloat16": 3e-2}


def _lu_rebuilds(permute_l: bool, dtype_name: str = ""):
    def check(outs, ins):
        a = ins[0].astype(np.complex128)
        eps = 1e-10 if outs[-1].dtype in (np.float64, np.complex128) else _LU_EPS.get(dtype_name, 1e-4)
        if permute_l:
            pl, u = (o.astype(np.complex128) for o in outs)
            rebuilt = pl @ u
        else:
            p, lo, u = (o.astype(np.complex128) for o in outs)
            unit = np.allclose(np.diagonal(lo, axis1=-2, axis2=-1), 1)
            lower = np.allclose(np.triu(lo, 1), 0) and np.allclose(np.tril(u, -1), 0)
            if not (unit and lower):
                return False
            rebuilt = p @ lo @ u
        return bool(np.linalg.norm(rebuilt - a) <= eps * 10 * max(1.0, np.linalg.norm(a)))

    return check


@cases.case(
    "jax.scipy.linalg.lu",
    dtype=["float16", "float32", "float64", "complex64"],
    shape={"square": (32, 32), "tall": (48, 32), "wide": (32, 48), "batched": (4, 16, 16), "large": (512, 512)},
    params={"permute_l": [False, True]},
    mode=BOTH,
    grid="square",
    where=lambda d, s, m, p: (d == "float32" or (s == "square" and not p["permute_l"]))
    and (not p["permute_l"] or s in ("square", "large"))
    and (m == "eager" or (d == "float32" and s in ("square", "batched") and not p["permute_l"])),
    rtol={"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4},
    atol={"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4},
    note="partial pivoting; P, L, U (permute_l: P@L, U) are unique for a random matrix, so they compare across "
    "devices (large: not compared, the pivots may tie in rounding) and must rebuild the input; float16 is "
    "rejected by the LAPACK path (a finding); integer and bool inputs are promoted to a float",
)
def lu(t: Ctx):
    from jax.scipy import linalg

    permute_l = t.p.permute_l
    call = t.call(lambda a: linalg.lu(a, permute_l=permute_l), t.randn()).check("rebuilds the input", _lu_rebuilds(permute_l, t.dtype_name))
    return call.no_compare() if t.case.shape_name == "large" else call


def _conv_close(np_fn, t: Ctx, scale: float = 1.0):
    """Within r * scale * sum|a||v| (the sum of |products| bounds the rounding
    error; scale allows TF32 for float32 at the default precision). Half
    inputs: products are exact in float32 and accumulated there, so the result
    is the float32 sum rounded once: HALF_ULPS of the rounded value, plus
    float32 accumulation (2**-24 * 30 * sum|a||v|)."""
    name = t.dtype_name
    r = {"float32": 2e-5, "float64": 1e-10, "complex64": 2e-5, "complex128": 1e-10}.get(name, 2e-5)

    def check(outs, ins):
        a, v = f64(ins[0]), f64(ins[1])  # integer and bool inputs: the exact sums, in float64
        want = np_fn(a, v)
        size = np_fn(np.abs(a), np.abs(v))
        got = as64(outs[0])
        if got.shape != want.shape:
            return False
        if got.dtype.kind in "biu":  # an integer result: the exact sum, wrapped to its dtype as numpy's
            return bool(np.array_equal(got, np.round(want).astype(np.int64).astype(got.dtype)))
        if name in HALF_ULPS:
            rounded = want.astype(t.dtype)
            bound = HALF_ULPS[name] * np.abs(np.spacing(rounded).astype(np.float64)) + 2.0**-24 * 30 * size
            return bool(np.all(np.abs(got - as64(rounded)) <= bound))
        return bool(np.all(np.abs(got - want) <= r * scale * size + 1e-6))

    return check


_CONV1 = {"long-short": ((1000,), (31,)), "short-long": ((31,), (1000,)), "equal": ((64,), (64,)), "large": ((1 << 16,), (129,))}


@cases.case(
    "jax.numpy.convolve",
    dtype=["float16", "bfloat16", "float32", "float64", "complex64", "int32"],
    shape=dict(_CONV1),
    params={"mode": ["full", "same", "valid"], "precision": ["default", "highest"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["precision"] == "default" or (d == "float32" and s != "equal" and p["mode"] == "full"))
    and (d == "float32" or (s == "long-short" and p["mode"] == "full"))
    and (m == "eager" or (d == "float32" and s in ("long-short", "large") and p["mode"] in ("full", "same") and p["precision"] == "default")),
    grid="long-short",
    reduction=lambda dims, p: min(dims[0][0], dims[1][0]),
    rtol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    atol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    note="mode full/same/valid (short-long: jnp swaps the operands, as numpy does); precision: the default "
    "(a GPU may use TF32 for float32, a finding) or HIGHEST; int32 convolutions come back float32 in jax "
    "(numpy keeps int); compared with numpy.convolve within the rounding bound sum|a||v|",
)
def convolve(t: Ctx):
    jnp = t.fw.numpy
    a_shape, v_shape = t.shape
    a, v = t.randn(a_shape), t.randn(v_shape)
    how = t.p.mode
    precision = None if t.p.precision == "default" else t.fw.lax.Precision.HIGHEST
    return t.call(lambda x, y: jnp.convolve(x, y, mode=how, precision=precision), a, v).reference(
        "numpy's convolve", _conv_close(lambda x, y: np.convolve(x, y, mode=how), t, scale=1.0 if precision else 30.0)
    )


_CONV2 = {"image": ((32, 32), (5, 5)), "rect": ((20, 40), (7, 3)), "swapped": ((5, 5), (32, 32)), "large": ((512, 512), (9, 9))}


@cases.case(
    "jax.scipy.signal.convolve2d",
    dtype=["float16", "bfloat16", "float32", "float64", "complex64", "int32"],
    shape=dict(_CONV2),
    params={"mode": ["full", "same", "valid"], "precision": ["default", "highest"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["precision"] == "default" or (d == "float32" and s in ("image", "large")))
    and (d == "float32" or (s == "image" and p["mode"] == "same"))
    and (s != "rect" or p["mode"] == "full")
    and (m == "eager" or (d == "float32" and s in ("image", "large") and p["mode"] == "same")),
    grid="image",
    reduction=lambda dims, p: min(dims[0][0] * dims[0][1], dims[1][0] * dims[1][1]),
    rtol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    atol={"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10},
    note="boundary='fill' (the only boundary jax implements); swapped: the kernel larger than the image "
    "(valid mode then swaps, as scipy does); precision default (TF32 possible on GPU) or HIGHEST; "
    "compared with scipy.signal.convolve2d within the rounding bound",
)
def convolve2d(t: Ctx):
    from jax.scipy import signal

    a_shape, v_shape = t.shape
    a, v = t.randn(a_shape), t.randn(v_shape)
    how = t.p.mode
    precision = None if t.p.precision == "default" else t.fw.lax.Precision.HIGHEST
    return t.call(lambda x, y: signal.convolve2d(x, y, mode=how, precision=precision), a, v).reference(
        "scipy's convolve2d", _conv_close(lambda x, y: load_module("scipy.signal").convolve2d(x, y, mode=how), t, scale=1.0 if precision else 30.0)
    )
