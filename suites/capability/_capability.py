"""What every framework's capability cases share: the run parameters, the
workloads' definitions, and the host references (NumPy/SciPy in float64, or
the analytic value) each case checks its values against.

Cross-framework agreement works through these references: every framework's
case compares its own values with the same host reference under a stated
tolerance, so a framework that disagrees is a `mismatch` on its own row.
Imported by the probe before the case files (the `_` prefix); it must not
import a framework or numpy at module level.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from mudjack_probe.api import np, param

# --- run parameters (`mudjack run --param NAME=VALUE`) -----------------------
# Defaults keep the whole suite to a few minutes on a 2-core CPU; a GPU run
# raises them (e.g. --param matrix_size=1024,4096,8192).
MATRIX_SIZES: tuple[int, ...] = param("matrix_size", (256, 1024, 2048))
JIT_SIZES: tuple[int, ...] = param("jit_size", (10_000, 100_000, 1_000_000, 10_000_000))
AUTOGRAD_POINTS: int = param("autograd_points", 1000)
SCIPY_POINTS: int = param("scipy_points", 200)
MNIST_EPOCHS: int = param("mnist_epochs", 3)
MNIST_BATCH: int = param("mnist_batch", 32)
MNIST_STEPS: int = param("mnist_steps", 0)  # steps per epoch; 0 = the whole training split
DATA_DIR: str = param("data_dir", "", path=True)

for _name, _values in (("matrix_size", MATRIX_SIZES), ("jit_size", JIT_SIZES)):
    if any(v < 1 for v in _values):
        raise ValueError(f"param {_name}: sizes must be positive")
for _name, _value in (("autograd_points", AUTOGRAD_POINTS), ("scipy_points", SCIPY_POINTS),
                      ("mnist_epochs", MNIST_EPOCHS), ("mnist_batch", MNIST_BATCH)):
    if _value < 1:
        raise ValueError(f"param {_name}: must be at least 1")
if MNIST_STEPS < 0:
    raise ValueError("param mnist_steps: must be 0 (whole epoch) or more")


def size_tag(n: int) -> str:
    """1000000 -> "1e6", 256 -> "256": case-id tokens that read like the study's."""
    exp = round(math.log10(n)) if n > 0 else 0
    return f"1e{exp}" if n >= 10_000 and 10**exp == n else str(n)


XLA_SHAPES = {f"n{n}": (n, n) for n in MATRIX_SIZES}


def matmul_reduction(dims: tuple[int, ...], params: object) -> int:
    """The accuracy oracle's K for an n x n matmul: each output sums n products."""
    return dims[1]
JIT_SHAPES = {size_tag(n): (n,) for n in JIT_SIZES}
AUTOGRAD_SHAPES = {"scalar": (), f"vec{AUTOGRAD_POINTS}": (AUTOGRAD_POINTS,)}

# --- xla: dense matmul ---------------------------------------------------------
# Checked on a few rows against float64 NumPy, the error normalised by the
# root of the sum of the squared products, sqrt(A**2 @ B**2): what rounding
# each product to a precision p leaves in the sum (p times that, whatever the
# size). float32 accumulation stays far below 1e-4 of it up to n of about a
# million; TF32 rounds each input to 10 bits and leaves about 4e-4 of it at
# every n, so a float32 matmul that ran in TF32 fails (the old normaliser,
# |A| @ |B|, grows as n and hid TF32 from n of about 1000 on). bfloat16
# inputs multiply exactly; the output's rounding (2**-9 of |C|) stays within
# 2e-2.
XLA_TOL = {"float32": 1e-4, "bfloat16": 2e-2}
XLA_ROWS = 8


def matmul_close(dtype: str) -> Callable[[list[Any], list[Any]], bool]:
    """Reference: the first XLA_ROWS rows against float64 sums of products by
    np.einsum without optimisation (its own loops, not BLAS: independent of
    the matmul under test, NumPy's included)."""

    def check(outs: list[Any], ins: list[Any]) -> bool:
        a = np.asarray(ins[0], dtype=np.float64)[:XLA_ROWS]
        b = np.asarray(ins[1], dtype=np.float64)
        c = np.asarray(outs[0], dtype=np.float64)
        if c.shape != (ins[0].shape[0], ins[1].shape[1]):
            return False
        want = np.einsum("ij,jk->ik", a, b, optimize=False)
        scale = np.sqrt(np.einsum("ij,jk->ik", a * a, b * b, optimize=False))
        return bool(np.all(np.abs(c[:XLA_ROWS] - want) <= XLA_TOL[dtype] * scale))

    return check


MATMUL_GAIN_TOL = 5e-3


def matmul_gain(outs: list[Any], ins: list[Any]) -> bool:
    """Property: no systematic scale error. The least-squares gain of the first
    XLA_ROWS rows of C on their float64 values, sum(c * ref) / sum(ref**2), is
    within MATMUL_GAIN_TOL of 1. Rounding errors, which the per-element bound
    must allow up to 2e-2 * (|A| @ |B|) for bfloat16, are unbiased (round to
    nearest) or at worst biased by 2**-8 (truncation): thousands of elements
    average them out, a wrong scale they do not."""
    a = np.asarray(ins[0], dtype=np.float64)[:XLA_ROWS]
    b = np.asarray(ins[1], dtype=np.float64)
    c = np.asarray(outs[0], dtype=np.float64)[:XLA_ROWS]
    want = np.einsum("ij,jk->ik", a, b, optimize=False)
    if c.shape != want.shape:
        return False
    return abs(float(np.sum(c * want) / np.sum(want * want)) - 1.0) <= MATMUL_GAIN_TOL


def matmul_every_row(dtype: str, seed: int) -> Callable[[list[Any], list[Any]], bool]:
    """Property (Freivalds): C r = A (B r) for a random sign vector r, every
    row at once, in float64 matrix-vector products. An element of C within
    XLA_TOL * sqrt(A**2 @ B**2) moves (C r)_i by at most the sum of those
    over the row, so the bound is the rows check's own; a NaN or a wrong
    element anywhere fails."""

    def check(outs: list[Any], ins: list[Any]) -> bool:
        a = np.asarray(ins[0], dtype=np.float64)
        b = np.asarray(ins[1], dtype=np.float64)
        c = np.asarray(outs[0], dtype=np.float64)
        if c.shape != (a.shape[0], b.shape[1]):
            return False
        r = np.random.default_rng(seed).choice(np.array([-1.0, 1.0]), size=b.shape[1])
        bound = XLA_TOL[dtype] * (np.sqrt((a * a) @ (b * b)) @ np.abs(r))
        return bool(np.all(np.abs(c @ r - a @ (b @ r)) <= bound + 1e-12 * bound.max()))

    return check


def matmul_flop(n: int) -> float:
    return 2.0 * n * n * n


# --- jit and autograd: f(x) = 0.2 x + sin x + cos 2x -------------------------------
# The study's printed f(3.0) and f'(3.0). They are float32 results (float64
# gives 1.7012902947102333 and -0.2311615002025937), so they are checked within the
# float32 tolerance below, not to the last digit.
F_AT_3 = 1.7012903690338135
DF_AT_3 = -0.23116151988506317
F_TOL = 1e-5  # float32: |f - f64 reference| <= F_TOL * (1 + |f64 reference|)


def f_host(x: Any) -> Any:
    x = np.asarray(x, dtype=np.float64)
    return 0.2 * x + np.sin(x) + np.cos(2 * x)


def df_host(x: Any) -> Any:
    x = np.asarray(x, dtype=np.float64)
    return 0.2 + np.cos(x) - 2 * np.sin(2 * x)


def points(shape: tuple[int, ...]) -> Any:
    """x = 3.0 for a scalar, else evenly spaced on [0, 4*pi] as in the study (float32)."""
    if shape == ():
        return np.asarray(3.0, dtype=np.float32)
    return np.linspace(0.0, 4 * np.pi, int(np.prod(shape)), dtype=np.float32).reshape(shape)


def close(got: Any, want: Any, tol: float = F_TOL) -> bool:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol * (1 + np.abs(want))))


def f_close(outs: list[Any], ins: list[Any]) -> bool:
    return close(outs[0], f_host(ins[0]))


def f_close_libm(outs: list[Any], ins: list[Any]) -> bool:
    """f_close with f computed by Python's math module (the C library's sin
    and cos in float64) a million points at a time: for NumPy, where a NumPy
    float64 reference would check NumPy against itself."""
    got = np.asarray(outs[0], dtype=np.float64).reshape(-1)
    x = np.asarray(ins[0], dtype=np.float64).reshape(-1)
    if np.shape(outs[0]) != np.shape(ins[0]):
        return False
    step = 1 << 20
    for i in range(0, x.size, step):
        want = np.array([0.2 * v + math.sin(v) + math.cos(2 * v) for v in x[i:i + step].tolist()], dtype=np.float64)
        if not close(got[i:i + step], want):
            return False
    return True


def grad_close(outs: list[Any], ins: list[Any]) -> bool:
    """outs = (f(x), f'(x)); against the analytic derivative, and at x = 3.0
    against the study's printed values too."""
    x = np.asarray(ins[0])
    ok = close(outs[0], f_host(x)) and close(outs[1], df_host(x))
    if x.shape == ():
        ok = ok and close(outs[0], F_AT_3) and close(outs[1], DF_AT_3)
    return ok


# --- scipy: a two-parameter calibration fit ---------------------------------------
# A sensor reads raw values r; the calibrated reading is gain * r + offset; the
# fit minimises the RMSE against reference readings. Data drawn on the host
# from the seed (true gain 1.5, offset 3.0, noise 0.08), so every framework
# fits the same numbers. Reference optimum: SciPy's BFGS in float64 (and the
# closed-form least-squares solution, which SciPy must reach too).
SCIPY_X0 = (1.0, 1.0)
SCIPY_X_TOL = 1e-3  # |x - SciPy's x| <= SCIPY_X_TOL * (1 + |x|), per parameter
SCIPY_FUN_TOL = 1e-4  # |fun - SciPy's fun| <= SCIPY_FUN_TOL * (1 + fun)


def calibration_data(seed: int, n: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed + 7)
    raw = rng.uniform(0.0, 10.0, n)
    ref = 1.5 * raw + 3.0 + rng.normal(0.0, 0.08, n)
    return raw, ref


def rmse_host(theta: Any, raw: Any, ref: Any) -> float:
    return float(np.sqrt(np.mean((theta[0] * raw + theta[1] - ref) ** 2)))


def scipy_reference(raw: Any, ref: Any) -> Any:
    """SciPy's BFGS on the float64 problem, finite-difference gradient (as the study ran it)."""
    from scipy.optimize import minimize

    return minimize(rmse_host, np.asarray(SCIPY_X0, dtype=np.float64), args=(raw, ref), method="BFGS")


def least_squares(raw: Any, ref: Any) -> Any:
    a = np.stack([raw, np.ones_like(raw)], axis=1)
    return np.linalg.lstsq(a, ref, rcond=None)[0]


def optimum_close(want_x: Any, want_fun: float) -> Callable[[list[Any], list[Any]], bool]:
    """outs = (x, fun, ...): the optimum agrees with the reference within the stated tolerances."""

    def check(outs: list[Any], ins: list[Any]) -> bool:
        x = np.asarray(outs[0], dtype=np.float64)
        fun = float(np.asarray(outs[1], dtype=np.float64))
        want = np.asarray(want_x, dtype=np.float64)
        return (x.shape == want.shape and bool(np.all(np.abs(x - want) <= SCIPY_X_TOL * (1 + np.abs(want))))
                and abs(fun - want_fun) <= SCIPY_FUN_TOL * (1 + want_fun))

    return check


# --- mnist: one small CNN, identical in every framework ------------------------------
# conv3x3(16, same) relu maxpool2 -> conv3x3(32, same) relu maxpool2 -> flatten
# (NHWC order) -> dense 64 relu -> dense 10. Weights are drawn on the host from
# the seed (He-uniform) and loaded into each framework; batches come in the
# same order; the optimiser is Adam (lr 1e-3, betas 0.9/0.999, eps 1e-8).
# Each timed call trains MNIST_EPOCHS epochs from those same initial weights,
# so every call (and every framework) does the same work.
# The parameters that shape the training run are the case's params (and so
# part of its id): a run with other epochs or data is another case.
MNIST_PARAMS = {"epochs": [MNIST_EPOCHS], "batch": [MNIST_BATCH], "steps": [MNIST_STEPS or "all"],
                "data": ["idx" if DATA_DIR else "digits"]}
MNIST_LR = 1e-3
MNIST_EPS = 1e-8
MNIST_MIN_ACCURACY = 0.8  # on the held-out split after training (digits: 0.86 after the default 3 epochs of batch 32)
MNIST_LOSS_TOL = 1e-4  # first-batch loss vs the NumPy forward pass of the same weights


def mnist_data() -> Any:
    from mudjack_probe.data import load_images

    return load_images(DATA_DIR)


def mnist_weights(seed: int, height: int, width: int) -> dict[str, Any]:
    """HWIO conv kernels and (in, out) dense matrices, float32."""
    rng = np.random.default_rng(seed + 11)

    def he(shape: tuple[int, ...], fan_in: int) -> Any:
        bound = math.sqrt(6.0 / fan_in)
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    flat = (height // 4) * (width // 4) * 32
    return {
        "conv1_w": he((3, 3, 1, 16), 9), "conv1_b": np.zeros(16, np.float32),
        "conv2_w": he((3, 3, 16, 32), 144), "conv2_b": np.zeros(32, np.float32),
        "dense1_w": he((flat, 64), flat), "dense1_b": np.zeros(64, np.float32),
        "dense2_w": he((64, 10), 64), "dense2_b": np.zeros(10, np.float32),
    }


def mnist_batches(seed: int, n_train: int) -> Any:
    """(epochs, steps, batch) indices into the training split, drawn on the host."""
    steps = n_train // MNIST_BATCH
    if MNIST_STEPS:
        steps = min(steps, MNIST_STEPS)
    if steps < 1:
        raise ValueError(f"training split of {n_train} is smaller than one batch of {MNIST_BATCH}")
    rng = np.random.default_rng(seed + 13)
    return np.stack([rng.permutation(n_train)[: steps * MNIST_BATCH].reshape(steps, MNIST_BATCH)
                     for _ in range(MNIST_EPOCHS)])


def _conv_same(x: Any, w: Any, b: Any) -> Any:
    n, h, wd, c = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = np.stack([p[:, i:i + h, j:j + wd, :] for i in range(3) for j in range(3)], axis=3)
    return cols.reshape(n, h, wd, 9 * c) @ w.reshape(9 * c, -1) + b


def _pool(x: Any) -> Any:
    n, h, w, c = x.shape
    return x[:, : h // 2 * 2, : w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def mnist_loss_host(weights: dict[str, Any], x: Any, y: Any) -> float:
    """Mean cross-entropy of the untrained model on one batch, float64 NumPy."""
    w = {k: v.astype(np.float64) for k, v in weights.items()}
    h = _pool(np.maximum(_conv_same(x.astype(np.float64), w["conv1_w"], w["conv1_b"]), 0))
    h = _pool(np.maximum(_conv_same(h, w["conv2_w"], w["conv2_b"]), 0))
    h = np.maximum(h.reshape(len(h), -1) @ w["dense1_w"] + w["dense1_b"], 0)
    logits = h @ w["dense2_w"] + w["dense2_b"]
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


def mnist_call(t: Any, train: Callable[[], Any], data: Any, batches: Any, weights: dict[str, Any]) -> Any:
    """The Call every framework's mnist case returns: `train()` runs
    MNIST_EPOCHS epochs from the initial weights and returns
    (first-batch loss before any step, mean loss of the last epoch, test accuracy)."""
    first = batches[0, 0]
    want_first = mnist_loss_host(weights, data.train_x[first], data.train_y[first])
    samples = batches.size
    epochs = batches.shape[0]
    return (
        t.call(train)
        .self_compiled()
        .no_compare()  # training is chaotic across devices; the checks below are the oracle
        .work(samples, "sample")
        .reference(f"untrained loss equals NumPy's on the first batch within {MNIST_LOSS_TOL}",
               lambda outs, ins: abs(float(outs[0]) - want_first) <= MNIST_LOSS_TOL * (1 + want_first))
        .check(f"test accuracy >= {MNIST_MIN_ACCURACY}", lambda outs, ins: float(outs[2]) >= MNIST_MIN_ACCURACY)
        .metric("final_loss", lambda outs, ins: float(outs[1]))
        .metric("accuracy", lambda outs, ins: float(outs[2]), "1")
        .metric("epochs", epochs)
        .metric("train_samples", len(data.train_x))
        .metric("test_samples", len(data.test_x))
    )
