"""The paper's PyTorch functions (paper_torch.txt), first cut: 7 of the 43.

Chosen to exercise the whole path: float16/bfloat16/float32/float64, integer
and bool dtypes; 0-d, empty, strided (transposed view) and large inputs; eager
and torch.compile; a forward+backward pass; property checks; and a listed name
that never existed (LBGFS). Importing this file must not import torch: bodies
get it as `t.fw`. numpy is the probe's own dependency, not a framework under test.
"""

from __future__ import annotations

import math

from mudjack_probe.api import np  # numpy loads on first use: listing needs none

from mudjack_probe.api import Ctx, Cases

cases = Cases("torch")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8"]
LARGE = 1 << 20  # about a million elements: the op, not the launch, dominates

# "transposed" names the shape of a non-contiguous view: the body builds the
# reversed shape and calls .t(), so the kernel sees strides (1, n).
SHAPES = {"scalar": (), "empty": (0,), "small": (1000,), "transposed": (48, 64), "large": (LARGE,)}


def _input(t: Ctx) -> object:
    if t.case.shape_name == "transposed":
        return t.randn(tuple(reversed(t.shape))).t()
    return t.randn()


def _compiled_only_for(dtype: str, shape: str):
    """where=: every eager case, and compiled for one (dtype, shape): compiling is slow."""
    return lambda d, s, m, p: m == "eager" or (d == dtype and s == shape)


def _sorted_by_indices(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    idx, x = outs[0], ins[0]
    if x.ndim == 0:  # torch keeps 0-d, numpy returns shape (1,): both mean "index 0"
        return idx.size == 1 and int(idx.ravel()[0]) == 0
    gathered = np.take_along_axis(x, idx.astype(np.int64), axis=-1).astype(np.float64)
    return bool(np.all(np.diff(gathered, axis=-1) >= 0))


@cases.case(
    "torch.argsort",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "large"),
    note="stable=True, so ties (int, bool, float16) have one right answer and outputs compare across devices",
)
def argsort(t: Ctx):
    torch = t.fw
    x = _input(t)
    return t.call(lambda a: torch.argsort(a, dim=-1, stable=True), x).check("gather(x, idx) is sorted", _sorted_by_indices)


@cases.case(
    "torch.argsort",
    dtype=["float32", "int32"],
    shape={"small": (1000,)},
    params={"stable": [False]},
    note="unstable sort: tied indices may legitimately differ between devices, so only the property is checked",
)
def argsort_unstable(t: Ctx):
    torch = t.fw
    x = t.randn()
    return t.call(lambda a: torch.argsort(a, dim=-1), x).no_compare().check("gather(x, idx) is sorted", _sorted_by_indices)


@cases.case(
    "torch.sum",
    dtype=FLOATS + ["int32", "int64", "bool"],
    shape=SHAPES,
    mode=["eager", "compiled"],
    where=_compiled_only_for("float32", "large"),
    note="transposed: sum over dim 1 of a (128, 256) transposed view; otherwise a full reduction",
)
def sum_(t: Ctx):
    torch = t.fw
    if t.case.shape_name == "transposed":
        x = t.randn((256, 128)).t()
        return t.call(lambda a: torch.sum(a, dim=1), x)
    return t.call(lambda a: torch.sum(a), t.randn())


@cases.case(
    "torch.cat",
    dtype=FLOATS + ["int64", "bool"],
    shape={"empty": (0, 64), "small": (100, 64), "transposed": (64, 100), "large": (512, 1024)},
    note="two tensors along dim 0; transposed: two non-contiguous views",
)
def cat(t: Ctx):
    torch = t.fw
    a, b = _input(t), _input(t)
    return t.call(lambda x, y: torch.cat([x, y], dim=0), a, b)


@cases.case(
    "torch.nn.Linear",
    dtype=FLOATS,
    shape={"small": (32, 64, 16), "large": (512, 512, 512)},
    params={"pass": ["forward", "backward"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "small" and p["pass"] == "backward"),
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
    if getattr(t.p, "pass") == "forward":  # `pass` is a keyword

        def forward(x):
            with torch.no_grad():
                return layer(x)

        return t.call(forward, x)
    target = t.randn((batch, n_out))

    def step(x, target):
        layer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(layer(x), target)
        loss.backward()
        return loss.detach(), layer.weight.grad, layer.bias.grad

    return t.call(step, x, target)


def _lbfgs_reached_minimum(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    final = float(outs[0])
    x0, a, b = (v.astype(np.float64) for v in ins)
    start = 0.5 * x0 @ a @ x0 - b @ x0
    best = -0.5 * b @ np.linalg.solve(a, b)
    return final < start and abs(final - best) <= 1e-3 * max(1.0, abs(best))


@cases.case(
    "torch.optim.LBGFS",
    dtype=["float32", "float64"],
    shape={"small": (16,), "large": (1024,)},
    note="the paper lists torch.optim.LBGFS, a typo: no such class has existed in any PyTorch release; "
    "this case tests torch.optim.LBFGS, minimising a well-conditioned quadratic 0.5 x'Ax - b'x from a fixed start",
    successor="torch.optim.LBFGS",
)
def lbgfs(t: Ctx):
    torch = t.fw
    n = t.shape[0]
    rng = t.numpy_rng()
    m = rng.standard_normal((n, n))
    a = t.adapter.from_numpy(m @ m.T / n + np.eye(n), t.dtype_name)
    b = t.adapter.from_numpy(rng.standard_normal(n), t.dtype_name)
    x0 = t.adapter.from_numpy(rng.standard_normal(n), t.dtype_name)

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
    return t.call(minimise, x0, a, b).check("reaches the quadratic's minimum", _lbfgs_reached_minimum)


@cases.case(
    "torch.bitwise_not",
    dtype=INTS + ["bool"],
    shape=SHAPES,
    where=lambda d, s, m, p: s != "large" or d in ("int64", "bool"),
    note="integer and bool only: bitwise_not of a float is a type error by definition, not a portability finding",
)
def bitwise_not(t: Ctx):
    torch = t.fw
    return t.call(lambda a: torch.bitwise_not(a), _input(t))


def _dropout_zero_or_scaled(outs: list[np.ndarray], ins: list[np.ndarray]) -> bool:
    y, x = outs[0].astype(np.float64), ins[0].astype(np.float64)
    kept = y != 0
    if not np.allclose(y[kept], x[kept] * 2.0, rtol=1e-2, atol=1e-3):
        return False
    if y.size >= 10000:  # p = 0.5: the dropped fraction must be near one half
        return 0.45 <= 1.0 - kept.mean() <= 0.55
    return True


@cases.case(
    "torch.nn.functional.dropout",
    dtype=FLOATS,
    shape={"scalar": (), "empty": (0,), "small": (1000,), "large": (LARGE,)},
    params={"training": [False, True]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: m == "eager" or (d == "float32" and s == "large" and p["training"]),
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
    return call
