"""The capability suite's JAX cases (Flax for the training case)."""

from __future__ import annotations

import time

from mudjack_probe.api import Cases, Ctx, np

from _capability import (
    AUTOGRAD_SHAPES,
    JIT_SHAPES,
    MATMUL_GAIN_TOL,
    MNIST_EPS,
    MNIST_LR,
    MNIST_PARAMS,
    SCIPY_FUN_TOL,
    SCIPY_POINTS,
    SCIPY_X0,
    SCIPY_X_TOL,
    XLA_SHAPES,
    calibration_data,
    f_close,
    grad_close,
    matmul_close,
    matmul_every_row,
    matmul_flop,
    matmul_gain,
    matmul_reduction,
    mnist_batches,
    mnist_call,
    mnist_data,
    mnist_weights,
    optimum_close,
    points,
    scipy_reference,
)

cases = Cases("jax")
BOTH = ["eager", "compiled"]


@cases.case("xla", dtype=["float32", "bfloat16"], shape=XLA_SHAPES, reduction=matmul_reduction, mode=BOTH,
            note="dense matmul; compiled = jax.jit")
def xla(t: Ctx):
    jnp = t.fw.numpy
    a, b = t.randn(), t.randn()
    return (t.call(lambda x, y: jnp.matmul(x, y), a, b).work(matmul_flop(t.shape[0]), "FLOP")
            .reference(f"rows match float64 NumPy (error / sqrt(A**2 @ B**2) within {t.dtype_name} tolerance)", matmul_close(t.dtype_name))
            .check("every row: C r = A (B r) for a random sign vector r, within the same bound", matmul_every_row(t.dtype_name, t.seed))
            .check(f"no systematic scale: least-squares gain of the rows within {MATMUL_GAIN_TOL} of 1", matmul_gain))


def _f(jnp, v):
    return 0.2 * v + jnp.sin(v) + jnp.cos(2 * v)


@cases.case("jit", dtype=["float32"], shape=JIT_SHAPES, mode=BOTH,
            note="f(x) = 0.2x + sin x + cos 2x, eager op by op or fused by jax.jit")
def jit(t: Ctx):
    jnp = t.fw.numpy
    x = t.from_numpy(points(t.shape))
    return t.call(lambda v: _f(jnp, v), x).work(x.size, "element").reference("f matches float64 within 1e-5", f_close)


@cases.case("autograd", dtype=["float32"], shape=AUTOGRAD_SHAPES, mode=BOTH,
            note="(f(x), f'(x)) by jax.value_and_grad; at x = 3.0 the study printed f = 1.7012903690338135, f' = -0.23116151988506317")
def autograd(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    x = t.from_numpy(points(t.shape))

    def total(v):
        y = _f(jnp, v)
        return jnp.sum(y), y

    vg = jax.value_and_grad(total, has_aux=True)

    def fn(v):
        (_, y), g = vg(v)
        return y, g

    return (t.call(fn, x).work(max(1, x.size), "element")
            .reference("f and f' match the analytic values within 1e-5", grad_close))


@cases.case("scipy", dtype=["float32"], shape={f"n{SCIPY_POINTS}": (SCIPY_POINTS,)}, mode=BOTH,
            note="calibration fit by jax.scipy.optimize.minimize (BFGS, autodiff gradient, JAX's default float32); "
                 "compiled = the whole minimize under jax.jit. Must agree with SciPy's float64 optimum.")
def scipy_bfgs(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    from jax.scipy.optimize import minimize

    n = t.shape[0]
    raw, ref = calibration_data(t.seed, n)
    want = scipy_reference(raw, ref)
    r, y = t.from_numpy(raw.astype(np.float32)), t.from_numpy(ref.astype(np.float32))
    x0 = t.from_numpy(np.asarray(SCIPY_X0, dtype=np.float32))

    def rmse(theta, rr, yy):
        return jnp.sqrt(jnp.mean((theta[0] * rr + theta[1] - yy) ** 2))

    def fit(rr, yy):
        res = minimize(rmse, x0, args=(rr, yy), method="BFGS")
        return res.x, res.fun, res.nit, res.nfev, res.njev, res.status

    fn = jax.jit(fit) if t.mode == "compiled" else fit

    def reshape_call_s(outs, ins):
        # The first call on data of another length: what a new shape costs (retrace, recompile).
        raw2, ref2 = calibration_data(t.seed, n + 1)
        r2, y2 = t.from_numpy(raw2.astype(np.float32)), t.from_numpy(ref2.astype(np.float32))
        t0 = time.perf_counter()
        jax.block_until_ready(fn(r2, y2))
        return time.perf_counter() - t0

    # Iteration counts legitimately differ between devices (float32 rounding
    # steers the line search), so outputs are not compared device to device;
    # the oracle is SciPy's optimum, checked on every device.
    return (t.call(fn, r, y).self_compiled().no_compare()
            .reference(f"optimum matches SciPy's (x within {SCIPY_X_TOL}, fun within {SCIPY_FUN_TOL}, relative)",
                   optimum_close(want.x, float(want.fun)))
            .metric("fun", lambda o, i: o[1])
            .metric("gain", lambda o, i: o[0][0])
            .metric("offset", lambda o, i: o[0][1])
            .metric("iterations", lambda o, i: o[2])
            .metric("function_evals", lambda o, i: o[3])
            .metric("gradient_evals", lambda o, i: o[4])
            .metric("status", lambda o, i: o[5])
            .metric("scipy_fun", float(want.fun))
            .metric("reshape_call_s", reshape_call_s, "s"))


@cases.case("mnist", dtype=["float32"], shape={"cnn": ()}, params=MNIST_PARAMS, mode=["compiled"],
            note="the small CNN in Flax (linen) with optax.adam, train step under jax.jit")
def mnist(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    try:
        import flax.linen as nn
        import optax
    except ImportError as exc:
        from mudjack_probe.errors import Unavailable

        raise Unavailable(f"flax/optax not installed: {exc}") from None

    data = mnist_data()
    h, w = data.train_x.shape[1:3]
    weights = mnist_weights(t.seed, h, w)
    batches = mnist_batches(t.seed, len(data.train_x))

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Conv(16, (3, 3), padding="SAME")(x))
            x = nn.max_pool(x, (2, 2), strides=(2, 2))
            x = nn.relu(nn.Conv(32, (3, 3), padding="SAME")(x))
            x = nn.max_pool(x, (2, 2), strides=(2, 2))
            x = x.reshape((x.shape[0], -1))
            x = nn.relu(nn.Dense(64)(x))
            return nn.Dense(10)(x)

    model = CNN()
    put = t.from_numpy
    init = {"params": {
        "Conv_0": {"kernel": put(weights["conv1_w"]), "bias": put(weights["conv1_b"])},
        "Conv_1": {"kernel": put(weights["conv2_w"]), "bias": put(weights["conv2_b"])},
        "Dense_0": {"kernel": put(weights["dense1_w"]), "bias": put(weights["dense1_b"])},
        "Dense_1": {"kernel": put(weights["dense2_w"]), "bias": put(weights["dense2_b"])},
    }}
    tx = optax.adam(MNIST_LR, b1=0.9, b2=0.999, eps=MNIST_EPS)
    xs, ys = put(data.train_x), put(data.train_y.astype(np.int32))
    tx_, ty_ = put(data.test_x), put(data.test_y.astype(np.int32))
    idx = put(batches.astype(np.int32))

    def loss_fn(params, xb, yb):
        logits = model.apply(params, xb)
        return optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean()

    @jax.jit
    def step(params, opt_state, i):
        loss, grads = jax.value_and_grad(loss_fn)(params, xs[i], ys[i])
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    @jax.jit
    def first_loss(params):
        return loss_fn(params, xs[idx[0, 0]], ys[idx[0, 0]])

    @jax.jit
    def accuracy(params):
        return jnp.mean(jnp.argmax(model.apply(params, tx_), -1) == ty_)

    def train():
        params, opt_state = init, tx.init(init)
        loss0 = first_loss(params)
        losses = []
        for e in range(idx.shape[0]):
            losses = []
            for s in range(idx.shape[1]):
                params, opt_state, loss = step(params, opt_state, idx[e, s])
                losses.append(loss)
        return loss0, jnp.mean(jnp.stack(losses)), accuracy(params)

    return mnist_call(t, train, data, batches, weights)
