"""The capability suite's PyTorch cases."""

from __future__ import annotations

from mudjack_probe.api import Cases, Ctx

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

cases = Cases("torch")
BOTH = ["eager", "compiled"]


@cases.case("xla", dtype=["float32", "bfloat16"], shape=XLA_SHAPES, reduction=matmul_reduction, mode=BOTH,
            note="dense matmul; compiled = torch.compile")
def xla(t: Ctx):
    torch = t.fw
    a, b = t.randn(), t.randn()
    return (t.call(lambda x, y: torch.matmul(x, y), a, b).work(matmul_flop(t.shape[0]), "FLOP")
            .reference(f"rows match float64 NumPy (error / sqrt(A**2 @ B**2) within {t.dtype_name} tolerance)", matmul_close(t.dtype_name))
            .check("every row: C r = A (B r) for a random sign vector r, within the same bound", matmul_every_row(t.dtype_name, t.seed))
            .check(f"no systematic scale: least-squares gain of the rows within {MATMUL_GAIN_TOL} of 1", matmul_gain))


def _f(torch, v):
    return 0.2 * v + torch.sin(v) + torch.cos(2 * v)


@cases.case("jit", dtype=["float32"], shape=JIT_SHAPES, mode=BOTH,
            note="f(x) = 0.2x + sin x + cos 2x, eager or fused by torch.compile")
def jit(t: Ctx):
    torch = t.fw
    x = t.from_numpy(points(t.shape))
    return t.call(lambda v: _f(torch, v), x).work(x.numel(), "element").reference("f matches float64 within 1e-5", f_close)


@cases.case("autograd", dtype=["float32"], shape=AUTOGRAD_SHAPES, mode=BOTH,
            note="(f(x), f'(x)) by torch.func.grad_and_value; at x = 3.0 the study printed f = 1.7012903690338135, f' = -0.23116151988506317")
def autograd(t: Ctx):
    torch = t.fw
    x = t.from_numpy(points(t.shape))

    def total(v):
        y = _f(torch, v)
        return y.sum(), y

    gv = torch.func.grad_and_value(total, has_aux=True)

    def fn(v):
        g, (_, y) = gv(v)
        return y, g

    return (t.call(fn, x).work(max(1, x.numel()), "element")
            .reference("f and f' match the analytic values within 1e-5", grad_close))


@cases.case("mnist", dtype=["float32"], shape={"cnn": ()}, params=MNIST_PARAMS, mode=["eager"],
            note="the small CNN in torch.nn with torch.optim.Adam, eager")
def mnist(t: Ctx):
    torch = t.fw
    nn = torch.nn
    F = torch.nn.functional
    data = mnist_data()
    h, w = data.train_x.shape[1:3]
    weights = mnist_weights(t.seed, h, w)
    batches = mnist_batches(t.seed, len(data.train_x))
    dev = t.device

    class CNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc1 = nn.Linear((h // 4) * (w // 4) * 32, 64)
            self.fc2 = nn.Linear(64, 10)

        def forward(self, x):
            x = x.permute(0, 3, 1, 2)  # the data is NHWC, as in Flax and Keras
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.permute(0, 2, 3, 1).flatten(1)  # flatten in NHWC order, like the others
            return self.fc2(F.relu(self.fc1(x)))

    model = CNN().to(dev)
    host = {
        "conv1.weight": weights["conv1_w"].transpose(3, 2, 0, 1), "conv1.bias": weights["conv1_b"],
        "conv2.weight": weights["conv2_w"].transpose(3, 2, 0, 1), "conv2.bias": weights["conv2_b"],
        "fc1.weight": weights["dense1_w"].T, "fc1.bias": weights["dense1_b"],
        "fc2.weight": weights["dense2_w"].T, "fc2.bias": weights["dense2_b"],
    }
    init = {k: t.from_numpy(v.copy()) for k, v in host.items()}
    xs, ys = t.from_numpy(data.train_x), t.from_numpy(data.train_y)
    tx, ty = t.from_numpy(data.test_x), t.from_numpy(data.test_y)
    idx = t.from_numpy(batches)

    def train():
        model.load_state_dict(init)
        opt = torch.optim.Adam(model.parameters(), lr=MNIST_LR, betas=(0.9, 0.999), eps=MNIST_EPS)
        with torch.no_grad():
            loss0 = F.cross_entropy(model(xs[idx[0, 0]]), ys[idx[0, 0]])
        losses = []
        for e in range(idx.shape[0]):
            losses = []
            for s in range(idx.shape[1]):
                i = idx[e, s]
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(model(xs[i]), ys[i])
                loss.backward()
                opt.step()
                losses.append(loss.detach())
        with torch.no_grad():
            acc = (model(tx).argmax(-1) == ty).float().mean()
        return loss0, torch.stack(losses).mean(), acc

    return mnist_call(t, train, data, batches, weights)
