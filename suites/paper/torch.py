"""The paper's PyTorch functions (paper_torch.txt): the first seven, extended.

The 43 listed names are split over four files of this folder, all loaded by the
probe: this one (argsort, sum, cat, Linear, LBGFS, bitwise_not, dropout),
torch_ops.py (tensor functions and linear algebra), torch_nn.py (layers,
losses, Module methods) and torch_misc.py (optimisers, schedulers, data,
autograd, distributions, torch.cuda). Each file is self-contained: the probe
imports suite files by path, so they cannot import each other.

Cases vary what PyTorch's own tests vary (OpInfo sample inputs, test_nn's
module_db, test_optim's optim_db): every documented dtype plus the common ones
an op may lack, 0-d, empty, non-contiguous and large inputs, the parameters that
select different kernels, eager and torch.compile (one compiled case per
function at most: compiling costs seconds on a CPU). Importing this file must
not import torch: bodies get it as `t.fw`. numpy is the probe's own dependency,
not a framework under test.
"""

from __future__ import annotations

import math

import _torch_ref as ref

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, compiled_only, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _torch_common import ACCUMULATING, declare, flag as _flag, from_host

cases = Cases("torch")
_case = declare(cases)
cases.excuse("torch.bitwise_not", "integer_only", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"])

INTS = ["int8", "int16", "int32", "int64", "uint8"]

# "transposed" names the shape of a non-contiguous view: the body builds the
# reversed shape and calls .t(), so the kernel sees strides (1, n).
SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "transposed": (48, 64), "large": (LARGE,)}


def _input(t: Ctx) -> object:
    if t.case.shape_name == "transposed":
        return t.randn(tuple(reversed(t.shape))).t()
    return t.randn()


# ---------------------------------------------------------------- torch.argsort


def _sorted_by_indices(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    idx, x = outs[0], ins[0]
    if x.ndim == 0:  # argsort of a 0-d tensor is the 0-d index 0
        return idx.size == 1 and int(idx.ravel()[0]) == 0
    gathered = np.take_along_axis(x, idx.astype(np.int64), axis=-1).astype(np.float64)
    return bool(np.all(np.diff(gathered, axis=-1) >= 0))


@cases.case(
    "torch.argsort",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large"),
    grid="small",
    note="stable=True, so ties (int, bool, float16) have one right answer and outputs compare across devices",
)
def argsort(t: Ctx):
    torch = t.fw
    x = _input(t)
    return (
        t.call(lambda a: torch.argsort(a, dim=-1, stable=True), x)
        .check("gather(x, idx) is sorted", _sorted_by_indices)
        .reference("equals numpy.argsort(kind='stable')", _stable_argsort(-1, False))
    )


def _stable_argsort(dim: int, descending: bool):
    """Reference: the stable sort's permutation is unique (ties keep their order), so numpy's is torch's."""

    def ok(outs, ins):
        x = ins[0]
        if x.ndim == 0:
            return ref.close(outs[0], np.asarray(0))
        key = -x.astype(np.float64) if descending else x
        return ref.close(outs[0], np.argsort(key, axis=dim, kind="stable"))

    return ok


def _permutation(outs, ins) -> bool:
    """Each row of indices is a permutation of 0..n-1."""
    idx = outs[0].astype(np.int64)
    return idx.shape == ins[0].shape and bool(np.all(np.sort(idx, axis=-1) == np.arange(idx.shape[-1])))


@cases.case(
    "torch.argsort",
    dtype=["float32", "int32"],
    shape=shapes("small"),
    params={"stable": [False]},
    note="unstable sort: tied indices may legitimately differ between devices, so only the property is checked",
)
def argsort_unstable(t: Ctx):
    torch = t.fw
    x = t.randn()
    return (
        t.call(lambda a: torch.argsort(a, dim=-1), x)
        .no_compare()
        .check("gather(x, idx) is sorted", _sorted_by_indices)
        .check("the indices are a permutation", _permutation)
    )


@cases.case(
    "torch.argsort",
    dtype=["float32", "int64"],
    shape={"matrix": (64, 100)},
    params={"dim": [0, -1], "descending": [True]},
    note="descending along either dim of a matrix (OpInfo argsort varies dim and descending); stable, so ties compare",
)
def argsort_dim(t: Ctx):
    torch = t.fw
    dim = t.p.dim

    def ordered(outs, ins):
        g = np.take_along_axis(ins[0], outs[0].astype(np.int64), axis=dim).astype(np.float64)
        return bool(np.all(np.diff(g, axis=dim) <= 0))

    x = t.randn()
    return (
        t.call(lambda a: torch.argsort(a, dim=dim, descending=True, stable=True), x)
        .check("gather(x, idx) is descending along dim", ordered)
        .reference("equals numpy.argsort(-x, kind='stable')", _stable_argsort(dim, True))
    )


# -------------------------------------------------------------------- torch.sum


@cases.case(
    "torch.sum",
    dtype=["complex64"],
    shape=shapes("small", "large"),
    reduction=lambda dims, p: math.prod(dims),
    note="complex full reduction (OpInfo sum covers complex types); declared before sum_, whose grid then leaves "
    "complex64-small to it",
)
def sum_complex(t: Ctx):
    torch = t.fw
    return t.call(lambda a: torch.sum(a), t.randn()).reference("equals numpy.sum in complex128", _sum_matches(None, False, "complex64"))


@cases.case(
    "torch.sum",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large"),
    grid="small",
    reduction=lambda dims, p: 256 if dims == (48, 64) else math.prod(dims),
    note="transposed: sum over dim 1 of a (128, 256) transposed view; otherwise a full reduction",
)
def sum_(t: Ctx):
    torch = t.fw
    if t.case.shape_name == "transposed":
        x = t.randn((256, 128)).t()
        return t.call(lambda a: torch.sum(a, dim=1), x).reference("equals numpy.sum in float64", _sum_matches(1, False, t.dtype_name))
    return t.call(lambda a: torch.sum(a), t.randn()).reference("equals numpy.sum in float64", _sum_matches(None, False, t.dtype_name))


# A sum's rounding error is relative to the size of its terms (sqrt of the sum of squares), not of the result,
# which cancels. float16/bfloat16 accumulate in float32, but a parallel reduction on the CPU rounds each thread's
# partial sum to the half dtype before combining them: up to 2 ulps of the result (1.9 measured for float16).
_SUM = {
    "float64": dict(rtol=1e-12, rms=1e-12),
    "float32": dict(rtol=1e-5, rms=1e-5),
    "complex64": dict(rtol=1e-5, rms=1e-5),
    "float16": dict(ulps=2, rms=1e-4),
    "bfloat16": dict(ulps=2, rms=1e-4),
}


def _sum_matches(dim, keepdim, dtype: str):
    """Reference: numpy.sum in float64 (ints and bools exactly, as int64), within _SUM[dtype]."""

    def ok(outs, ins):
        x = ref.as64(ins[0])
        if x.dtype.kind in "biu":
            return ref.close(outs[0], np.sum(x.astype(np.int64), axis=dim, keepdims=keepdim))
        want = np.sum(x, axis=dim, keepdims=keepdim)
        terms = np.sqrt(np.sum(np.abs(x) ** 2, axis=dim)) if x.size else np.zeros(1)
        tol = _SUM if x.size > 1 else ref.EXACT  # the sum of one element is that element
        return ref.close(outs[0], ref.Scaled(want, ref.rms(terms)), tol, dtype, f"sum over {dim}")

    return ok


@cases.case(
    "torch.sum",
    dtype=["float32"],
    shape={"3d": (8, 16, 32)},
    params={"dim": [0, (1, 2)], "keepdim": [False, True]},
    reduction=lambda dims, p: dims[0] if p["dim"] == 0 else dims[1] * dims[2],
    note="partial reductions over one or several dims, with and without keepdim (OpInfo sum's sample inputs)",
)
def sum_dims(t: Ctx):
    torch = t.fw
    dim, keepdim = t.p.dim, t.p.keepdim
    x = t.randn()
    return t.call(lambda a: torch.sum(a, dim=dim, keepdim=keepdim), x).reference("equals numpy.sum", _sum_matches(dim, keepdim, t.dtype_name))


@cases.case(
    "torch.sum",
    dtype=["int32", "float16"],
    shape={"3d": (8, 16, 32)},
    params={"dim": [(1, 2)], "out_dtype": ["wide"]},
    reduction=16 * 32,
    note="the dtype= argument accumulates in a wider type: int32 -> int64, float16 -> float32",
)
def sum_out_dtype(t: Ctx):
    torch = t.fw
    wide = torch.int64 if t.dtype_name == "int32" else torch.float32
    x = t.randn()
    out = "int64" if t.dtype_name == "int32" else "float32"  # the result's dtype: compared at its own precision
    return t.call(lambda a: torch.sum(a, dim=(1, 2), dtype=wide), x).reference("equals numpy.sum", _sum_matches((1, 2), False, out))


# -------------------------------------------------------------------- torch.cat


@cases.case(
    "torch.cat",
    dtype=FLOATS + ["int64", "bool"],
    shape={"empty": (0, 64), "small": (100, 64), "transposed": (64, 100), "large": (512, 1024)},
    grid="small",
    note="two tensors along dim 0; transposed: two non-contiguous views",
)
def cat(t: Ctx):
    torch = t.fw
    a, b = _input(t), _input(t)
    return t.call(lambda x, y: torch.cat([x, y], dim=0), a, b).reference(
        "equals numpy.concatenate", lambda outs, ins: ref.close(outs[0], np.concatenate(ins, axis=0))
    )


@cases.case(
    "torch.cat",
    dtype=["float32"],
    shape={"small": (100, 64), "transposed": (64, 100), "large": (512, 1024)},
    params={"dim": [1]},
    mode=["eager", "compiled"],
    where=compiled_only(shape="large"),
    note="along dim 1 (the inner dim for contiguous inputs, the outer one for transposed views)",
)
def cat_dim1(t: Ctx):
    torch = t.fw
    a, b = _input(t), _input(t)
    return t.call(lambda x, y: torch.cat([x, y], dim=1), a, b).reference(
        "equals numpy.concatenate", lambda outs, ins: ref.close(outs[0], np.concatenate(ins, axis=1))
    )


@cases.case(
    "torch.cat",
    dtype=["float32", "complex64"],
    shape={"small": (16, 64)},
    params={"form": ["many", "promote", "legacy-empty"]},
    where=lambda d, s, m, p: d == "float32" or p["form"] == "many",
    note="many: 32 tensors along dim -1; promote: float32 with int64 and float16 (result float32, as "
    "torch.result_type); legacy-empty: a 1-D empty tensor among 2-D ones is skipped (documented legacy rule)",
)
def cat_forms(t: Ctx):
    torch = t.fw
    form = t.p.form
    if form == "many":
        xs = [t.randn((16, 2)) for _ in range(32)]
        return t.call(lambda *a: torch.cat(a, dim=-1), *xs).reference(
            "equals numpy.concatenate", lambda outs, ins: ref.close(outs[0], np.concatenate(ins, axis=-1))
        )
    if form == "promote":
        xs = (t.randn((16, 8)), t.randn((16, 8), "int64"), t.randn((16, 8), "float16"))
        return t.call(lambda a, b, c: torch.cat([a, b, c], dim=0), *xs).reference(
            "result is float32 and holds each input", lambda outs, ins: outs[0].dtype == np.float32
            and ref.close(outs[0], np.concatenate([i.astype(np.float32) for i in ins]))
        )
    xs = (t.randn((16, 8)), t.randn((0,)), t.randn((4, 8)))
    return t.call(lambda a, b, c: torch.cat([a, b, c], dim=0), *xs).reference(
        "the 1-D empty tensor is skipped: equals numpy.concatenate of the others", lambda outs, ins: ref.close(outs[0], np.concatenate([ins[0], ins[2]]))
    )


# ------------------------------------------------------------- torch.nn.Linear


@_case(
    "torch.nn.Linear",
    dtype=FLOATS,
    tol=ACCUMULATING,
    shape={"small": (32, 64, 16), "large": (512, 512, 512)},
    params={"pass": ["forward", "backward"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "small" and p["pass"] == "backward"),
    grid="small",
    reduction=lambda dims, p: dims[1] if p["pass"] == "forward" else max(dims[0] * dims[2], dims[1]),
    note="dims are (batch, in_features, out_features); backward: MSE loss to a fixed target, returns loss and the weight and bias grads",
)
def linear(t: Ctx):
    torch = t.fw
    batch, n_in, n_out = t.shape
    layer = torch.nn.Linear(n_in, n_out, device=t.device, dtype=t.dtype)
    with torch.no_grad():  # identical weights on every device, not torch's own init
        layer.weight.copy_(t.randn((n_out, n_in)) * (1.0 / math.sqrt(n_in)))
        layer.bias.copy_(t.randn((n_out,)))
    x = t.randn((batch, n_in))
    w, b = ref.host(layer.weight), ref.host(layer.bias)
    if getattr(t.p, "pass") == "forward":  # `pass` is a keyword

        def forward(x):
            with torch.no_grad():
                return layer(x)

        return t.call(forward, x).reference("equals x W^T + b in float64", ref.check(lambda x: x @ w.T + b, ref.ACCUMULATE, t.dtype_name))
    target = t.randn((batch, n_out))

    def step(x, target):
        layer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(layer(x), target)
        loss.backward()
        return loss.detach(), layer.weight.grad, layer.bias.grad

    def backward(x, target):  # loss = mean((y - target)^2); dL/dy = 2 (y - target) / numel
        d = x @ w.T + b - target
        dy = 2 * d / d.size
        return [np.mean(d * d), dy.T @ x, dy.sum(0)]

    return t.call(step, x, target).reference(
        "the MSE loss and its weight and bias gradients equal the float64 formulas", ref.check(backward, ref.STEPS, t.dtype_name)
    )


@_case(
    "torch.nn.Linear",
    dtype=["float32", "complex64"],
    tol=ACCUMULATING,
    shape={"small": (32, 64, 16)},
    params={"form": ["nobias", "unbatched", "3d", "transposed", "empty"]},
    where=lambda d, s, m, p: d == "float32" or p["form"] in ("nobias", "3d"),
    reduction=lambda dims, p: max(dims),
    note="module_db Linear variants, forward+backward (grads of input and parameters): bias=False; a 1-D "
    "unbatched input; a (4, batch/4, in) input; a non-contiguous (transposed) input; an empty batch. "
    "complex64: Linear documents complex support",
)
def linear_forms(t: Ctx):
    torch = t.fw
    batch, n_in, n_out = t.shape
    form = t.p.form
    layer = torch.nn.Linear(n_in, n_out, bias=form != "nobias", device=t.device, dtype=t.dtype)
    with torch.no_grad():
        layer.weight.copy_(t.randn((n_out, n_in)) * (1.0 / math.sqrt(n_in)))
        if layer.bias is not None:
            layer.bias.copy_(t.randn((n_out,)))
    if form == "unbatched":
        x = t.randn((n_in,))
    elif form == "3d":
        x = t.randn((4, batch // 4, n_in))
    elif form == "transposed":
        x = t.randn((n_in, batch)).t()
    elif form == "empty":
        x = t.randn((0, n_in))
    else:
        x = t.randn((batch, n_in))
    x.requires_grad_(True)
    params = list(layer.parameters())
    with torch.no_grad():
        g = t.randn(tuple(layer(x).shape))

    def step(x, g):
        y = layer(x)
        return (y.detach(),) + torch.autograd.grad(y, [x] + params, g)

    w, b = ref.host(layer.weight), ref.host(layer.bias)

    def reference(x, g):  # y = x W^T + b; grads (torch's complex convention): g conj(W), g^T conj(x), sum g
        y = x @ w.T + (b if b is not None else 0)
        x2, g2 = x.reshape(-1, n_in), g.reshape(-1, n_out)
        return [y, g @ np.conj(w), g2.T @ np.conj(x2)] + ([] if b is None else [g2.sum(0)])

    return t.call(step, x, g).reference("output and gradients equal the float64 formulas", ref.check(reference, ref.ACCUMULATE, t.dtype_name))


# ----------------------------------------------------------- torch.optim.LBGFS


# |final loss - minimum| / max(1, |minimum|) allowed: LBFGS converges on these well-conditioned quadratics to the
# precision the loss is evaluated in (measured: 4e-8 float32, 5e-11 float64, 1e-3 float16, 5e-3 bfloat16, whose
# 16-term dot products round every product)
_LBFGS_TOL = {"float32": 1e-5, "complex64": 1e-5, "float64": 1e-9, "complex128": 1e-9, "float16": 5e-3, "bfloat16": 1.2e-2}


def _lbfgs_minimum(dtype: str):
    """Reference: the final loss is the quadratic's minimum -b^H A^-1 b / 2 (A real symmetric positive definite)."""

    def ok(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
        final = complex(outs[0])
        _, a, b = (v.astype(np.complex128) for v in ins)
        best = float(np.real(-0.5 * np.conj(b) @ np.linalg.solve(a, b)))
        return final.imag == 0 and abs(final.real - best) <= _LBFGS_TOL[dtype] * max(1.0, abs(best))

    return ok


def _lbfgs_reached_minimum(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    final = float(outs[0])
    x0, a, b = (v.astype(np.float64) for v in ins)
    start = 0.5 * x0 @ a @ x0 - b @ x0
    return final < start


def _lbfgs_lowered(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    final = float(np.real(outs[0]))
    x0, a, b = (v.astype(np.complex128) for v in ins)
    start = float(np.real(0.5 * np.conj(x0) @ a @ x0 - np.real(np.conj(b) @ x0)))
    return math.isfinite(final) and final < start


_LBGFS_NOTE = (
    "the paper lists torch.optim.LBGFS, a typo: no such class has existed in any PyTorch release; "
    "this case tests torch.optim.LBFGS, minimising a well-conditioned quadratic 0.5 x'Ax - b'x from a fixed start"
)


@cases.case(
    "torch.optim.LBGFS",
    dtype=["float32", "float64"],
    shape={"small": (16,), "large": (1024,)},
    note=_LBGFS_NOTE,
    successor="torch.optim.LBFGS",
)
def lbgfs(t: Ctx):
    torch = t.fw
    n = t.shape[0]
    rng = t.numpy_rng()
    m = rng.standard_normal((n, n))
    a = from_host(t, m @ m.T / n + np.eye(n))
    b = from_host(t, rng.standard_normal(n))
    x0 = from_host(t, rng.standard_normal(n))

    def minimise(x0, a, b):
        x = x0.clone().requires_grad_(True)
        opt = torch.optim.LBFGS([x], lr=1.0, max_iter=50, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = 0.5 * torch.dot(x, a @ x) - torch.dot(b, x)
            loss.backward()
            return loss

        opt.step(closure)
        with torch.no_grad():
            return 0.5 * torch.dot(x, a @ x) - torch.dot(b, x)

    # Only the final loss is compared: at the minimum it is flat in x, so it is
    # stable across devices where the iterate x is not.
    return (
        t.call(minimise, x0, a, b)
        .check("lowers the quadratic", _lbfgs_reached_minimum)
        .reference("reaches the quadratic's minimum -b'A^-1 b / 2", _lbfgs_minimum(t.dtype_name))
    )


@cases.case(
    "torch.optim.LBGFS",
    dtype=["float32"],
    shape={"as-listed": ()},
    note="the name exactly as the paper prints it: torch.optim has no LBGFS, so this case is unavailable by "
    "design (the finding); the other cases test the successor torch.optim.LBFGS",
    successor="torch.optim.LBFGS",
)
def lbgfs_as_listed(t: Ctx):
    from mudjack_probe.errors import NameMissing

    torch = t.fw
    if not hasattr(torch.optim, "LBGFS"):
        raise NameMissing("torch.optim.LBGFS",
                          f"torch.optim.LBGFS does not exist in torch {torch.__version__} (a typo for torch.optim.LBFGS)")
    return t.call(lambda: _flag(t, True))


@_case(
    "torch.optim.LBGFS",
    dtype=["float32", "float64", "float16", "bfloat16", "complex64"],
    tol={"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-9, 1e-9), "complex128": (1e-9, 1e-9)},
    shape={"small": (16,)},
    grid="small",
    params={"line_search": ["none", "strong_wolfe"], "history": [100, 2]},
    where=lambda d, s, m, p: (d in ("float32", "float64") and (p["line_search"] == "none") != (p["history"] == 2))
    or (d not in ("float32", "float64") and p["line_search"] == "strong_wolfe" and p["history"] == 100),
    note=_LBGFS_NOTE + "; optim_db LBFGS variants: no line search (fixed lr=0.5, max_iter=20), a short history "
    "(history_size=2), half precisions and complex parameters (LBFGS supports complex); checked: the loss went down, "
    "to the quadratic's minimum",
    successor="torch.optim.LBFGS",
)
def lbgfs_variants(t: Ctx):
    torch = t.fw
    n = t.shape[0]
    rng = t.numpy_rng()
    m = rng.standard_normal((n, n))
    a = from_host(t, m @ m.T / n + np.eye(n))
    b = from_host(t, rng.standard_normal(n))
    x0 = from_host(t, rng.standard_normal(n))
    search = None if t.p.line_search == "none" else "strong_wolfe"
    lr = 0.5 if search is None else 1.0
    history = t.p.history

    def loss_of(x, a, b):
        return (0.5 * (x.conj() * (a @ x)).sum() - (b.conj() * x).sum()).real

    def minimise(x0, a, b):
        x = x0.clone().requires_grad_(True)
        opt = torch.optim.LBFGS([x], lr=lr, max_iter=20, history_size=history, line_search_fn=search)

        def closure():
            opt.zero_grad()
            loss = loss_of(x, a, b)
            loss.backward()
            return loss

        opt.step(closure)
        with torch.no_grad():
            return loss_of(x, a, b)

    call = (
        t.call(minimise, x0, a, b)
        .check("lowers the quadratic", _lbfgs_lowered)
        .reference("reaches the quadratic's minimum -Re(b^H A^-1 b) / 2", _lbfgs_minimum(t.dtype_name))
    )
    if t.dtype_name in ("float16", "bfloat16"):
        call.no_compare()  # 20 steps in half precision diverge in the last bits: only the property is checked
    return call


# ------------------------------------------------------------ torch.bitwise_not


@cases.case(
    "torch.bitwise_not",
    dtype=INTS + ["bool"],
    shape=SHAPES,
    where=lambda d, s, m, p: s != "large" or d in ("int64", "bool"),
    note="integer and bool only: bitwise_not of a float is a type error by definition, not a portability finding",
)
def bitwise_not(t: Ctx):  # every integer dtype and bool declared: the grid needs nothing more
    torch = t.fw
    return t.call(lambda a: torch.bitwise_not(a), _input(t)).reference("equals numpy.invert", _is_not)


def _is_not(outs, ins):
    x = ins[0]
    want = np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)
    return outs[0].dtype == want.dtype and ref.close(outs[0], want)


@cases.case(
    "torch.bitwise_not",
    dtype=["int64"],
    shape=shapes("large"),
    mode=["compiled"],
    note="torch.compile of bitwise_not; checked against numpy.invert",
)
def bitwise_not_compiled(t: Ctx):
    torch = t.fw
    return t.call(lambda a: torch.bitwise_not(a), t.randn()).reference("equals numpy.invert", _is_not)


@cases.case(
    "torch.bitwise_not",
    dtype=["int32", "bool"],
    shape=shapes("small"),
    params={"form": ["inplace", "out"]},
    note="in-place Tensor.bitwise_not_ on a copy, and the out= overload (OpInfo's out/inplace variants)",
)
def bitwise_not_forms(t: Ctx):
    torch = t.fw
    x = t.randn()
    if t.p.form == "inplace":
        return t.call(lambda a: a.clone().bitwise_not_(), x).reference("equals numpy.invert", _is_not)
    out = torch.empty_like(x)
    return t.call(lambda a: torch.bitwise_not(a, out=out), x).reference("equals numpy.invert", _is_not)


# ---------------------------------------------------- torch.nn.functional.dropout


def _dropout_zero_or_scaled(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    """Each element is 0 or exactly 2x (x * 2 is exact in every float dtype); over 1000 elements or more the dropped
    fraction is within 5 standard deviations (sqrt(p(1-p)/n)) of p = 0.5."""
    y, x = ref.as64(outs[0]), ref.as64(ins[0])
    if y.shape != x.shape or y.dtype != x.dtype:
        return False
    kept = y != 0
    if not np.array_equal(y[kept], x[kept] * 2):
        return False
    if y.size >= 1000:
        return abs((1.0 - kept.mean()) - 0.5) <= 5 * math.sqrt(0.25 / y.size)
    return True


@cases.case(
    "torch.nn.functional.dropout",
    dtype=FLOATS,
    shape=shapes("scalar", "empty", "small", "large"),
    params={"training": [True, False]},
    mode=["eager", "compiled"],
    where=compiled_only("float32", "large", training=True),
    grid="small",
    note="p=0.5; training=False is the identity and compares across devices; "
    "training=True draws a random mask, so only its properties are checked",
)
def dropout(t: Ctx):
    torch = t.fw
    x = t.randn()
    training = t.p.training
    call = t.call(lambda a: torch.nn.functional.dropout(a, p=0.5, training=training), x)
    if training:
        call.no_compare().check("each element is 0 or x/(1-p), about half dropped", _dropout_zero_or_scaled)
    else:
        call.reference("training=False is the identity", lambda outs, ins: ref.close(outs[0], ins[0]))
    return call


def _dropout_fraction(p: float):
    """Kept elements are x/(1-p) rounded to float32; the dropped fraction is within 5 standard deviations of p."""

    def ok(outs, ins):
        y, x = outs[0].astype(np.float64), ins[0].astype(np.float64)
        if y.shape != x.shape:
            return False
        kept = y != 0
        if not ref.close(y[kept], ref.round_to(x[kept] / (1.0 - p), "float32"), dict(rtol=1.2e-7)):
            return False
        return abs((1.0 - kept.mean()) - p) <= 5 * math.sqrt(p * (1 - p) / y.size)

    return ok


@cases.case(
    "torch.nn.functional.dropout",
    dtype=["float32"],
    shape={"small": (1000,), "transposed": (512, 1024), "large": (LARGE,)},
    params={"p": [0.0, 0.2, 1.0], "inplace": [False, True]},
    where=lambda d, s, m, p: (s == "small" and p["p"] in (0.0, 1.0) and not p["inplace"])
    or (s in ("transposed", "large") and p["p"] == 0.2 and p["inplace"] == (s == "large")),
    note="edge probabilities p=0 (identity) and p=1 (all zeros) compare across devices; p=0.2 on a "
    "non-contiguous view and in place (on a copy) are random, so the kept fraction and 1/(1-p) scale are checked",
)
def dropout_p(t: Ctx):
    torch = t.fw
    p, inplace = t.p.p, t.p.inplace
    x = _input(t)
    if inplace:
        fn = lambda a: torch.nn.functional.dropout(a.clone(), p=p, training=True, inplace=True)  # noqa: E731
    else:
        fn = lambda a: torch.nn.functional.dropout(a, p=p, training=True)  # noqa: E731
    call = t.call(fn, x)
    if p == 0.0:
        return call.reference("p=0 is the identity", lambda outs, ins: ref.close(outs[0], ins[0]))
    if p == 1.0:
        return call.reference("p=1 zeroes everything", lambda outs, ins: ref.close(outs[0], np.zeros(ins[0].shape, np.float32)))
    return call.no_compare().check("about p dropped, the rest scaled by 1/(1-p)", _dropout_fraction(p))
