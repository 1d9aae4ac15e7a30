"""The capability suite's TensorFlow cases (Keras for the training case)."""

from __future__ import annotations

from mudjack_probe.api import Cases, Ctx, np

from _capability import (
    AUTOGRAD_SHAPES,
    JIT_SHAPES,
    MATMUL_GAIN_TOL,
    MNIST_EPS,
    MNIST_LR,
    MNIST_PARAMS,
    XLA_SHAPES,
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
    points,
)

cases = Cases("tensorflow")
BOTH = ["eager", "compiled"]


@cases.case("xla", dtype=["float32", "bfloat16"], shape=XLA_SHAPES, reduction=matmul_reduction, mode=BOTH,
            note="dense matmul; compiled = tf.function(jit_compile=True)")
def xla(t: Ctx):
    tf = t.fw
    a, b = t.randn(), t.randn()
    return (t.call(lambda x, y: tf.linalg.matmul(x, y), a, b).work(matmul_flop(t.shape[0]), "FLOP")
            .reference(f"rows match float64 NumPy (error / sqrt(A**2 @ B**2) within {t.dtype_name} tolerance)", matmul_close(t.dtype_name))
            .check("every row: C r = A (B r) for a random sign vector r, within the same bound", matmul_every_row(t.dtype_name, t.seed))
            .check(f"no systematic scale: least-squares gain of the rows within {MATMUL_GAIN_TOL} of 1", matmul_gain))


def _f(tf, v):
    return 0.2 * v + tf.sin(v) + tf.cos(2 * v)


@cases.case("jit", dtype=["float32"], shape=JIT_SHAPES, mode=BOTH,
            note="f(x) = 0.2x + sin x + cos 2x, eager or under tf.function(jit_compile=True)")
def jit(t: Ctx):
    tf = t.fw
    x = t.from_numpy(points(t.shape))
    n = int(np.prod(t.shape))
    return t.call(lambda v: _f(tf, v), x).work(n, "element").reference("f matches float64 within 1e-5", f_close)


@cases.case("autograd", dtype=["float32"], shape=AUTOGRAD_SHAPES, mode=BOTH,
            note="(f(x), f'(x)) by tf.GradientTape; at x = 3.0 the study printed f = 1.7012903690338135, f' = -0.23116151988506317")
def autograd(t: Ctx):
    tf = t.fw
    x = t.from_numpy(points(t.shape))
    n = max(1, int(np.prod(t.shape)))

    def fn(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = _f(tf, v)
            total = tf.reduce_sum(y)
        return y, tape.gradient(total, v)

    return t.call(fn, x).work(n, "element").reference("f and f' match the analytic values within 1e-5", grad_close)


@cases.case("mnist", dtype=["float32"], shape={"cnn": ()}, params=MNIST_PARAMS, mode=["compiled"],
            note="the small CNN as a Keras Sequential with keras.optimizers.Adam; train step under tf.function(jit_compile=True)")
def mnist(t: Ctx):
    tf = t.fw
    import keras

    data = mnist_data()
    h, w = data.train_x.shape[1:3]
    weights = mnist_weights(t.seed, h, w)
    batches = mnist_batches(t.seed, len(data.train_x))
    L = keras.layers
    model = keras.Sequential([
        keras.Input((h, w, 1)),
        L.Conv2D(16, 3, padding="same", activation="relu"), L.MaxPooling2D(2),
        L.Conv2D(32, 3, padding="same", activation="relu"), L.MaxPooling2D(2),
        L.Flatten(), L.Dense(64, activation="relu"), L.Dense(10),
    ])
    init = [weights[k] for k in ("conv1_w", "conv1_b", "conv2_w", "conv2_b",
                                 "dense1_w", "dense1_b", "dense2_w", "dense2_b")]
    opt = keras.optimizers.Adam(learning_rate=MNIST_LR, beta_1=0.9, beta_2=0.999, epsilon=MNIST_EPS)
    opt.build(model.trainable_variables)
    opt_init = [v.numpy() for v in opt.variables]
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    xs, ys = t.from_numpy(data.train_x), t.from_numpy(data.train_y)
    tx, ty = t.from_numpy(data.test_x), t.from_numpy(data.test_y)
    idx = t.from_numpy(batches)

    @tf.function(jit_compile=True)
    def step(i):
        xb, yb = tf.gather(xs, i), tf.gather(ys, i)
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function(jit_compile=True)
    def first_loss(i):
        return loss_fn(tf.gather(ys, i), model(tf.gather(xs, i), training=False))

    @tf.function(jit_compile=True)
    def accuracy():
        pred = tf.argmax(model(tx, training=False), axis=-1)
        return tf.reduce_mean(tf.cast(pred == ty, tf.float32))

    def train():
        model.set_weights(init)
        for v, value in zip(opt.variables, opt_init):
            v.assign(value)
        loss0 = first_loss(idx[0, 0])
        losses = []
        for e in range(batches.shape[0]):
            losses = []
            for s in range(batches.shape[1]):
                losses.append(step(idx[e, s]))
        return loss0, tf.reduce_mean(tf.stack(losses)), accuracy()

    return mnist_call(t, train, data, batches, weights)
