"""The paper's PyTorch optimisers, schedulers, data utilities, autograd, distributions and
torch.cuda (see torch.py for the plan).

optim.Adamax, optim.lr_scheduler.ExponentialLR, utils.data.Dataset / Subset /
ConcatDataset, autograd.Variable, autograd.functional.jvp, von_mises.VonMises
(it lives in torch.distributions.von_mises) and the torch.cuda module.
Optimiser cases follow test_optim's optim_db (its constructor variants, real
steps on a known objective); data cases check that what goes in comes out.
Importing this file must not import torch.
"""

from __future__ import annotations

import math

import _torch_ref as ref

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _torch_common import ACCUMULATING, all_true as _all_true, declare, flag as _flag, inexact

cases = Cases("torch")
_case = declare(cases)


def _raises(t, fn, *exceptions) -> object:
    try:
        fn()
    except exceptions:
        return _flag(t, True)
    return _flag(t, False)


# --------------------------------------------------------------------- torch.optim.Adamax

_ADAMAX_SHAPES = {"small": (10,), "matrix": (32, 16), "empty": (0,), "transposed": (16, 32), "large": (1024, 1024)}
_ADAMAX_CONFIGS = {
    "default": {},
    "weight_decay": {"weight_decay": 0.1},
    "maximize": {"maximize": True},
    "foreach": {"foreach": True},
    "single-tensor": {"foreach": False},
    "lr-tensor": {},
    "fixed-grad": {},
}


@_case(
    "torch.optim.Adamax",
    dtype=["float32", "float64", "float16", "bfloat16", "complex64"],
    tol=ACCUMULATING,
    shape=_ADAMAX_SHAPES,
    params={"config": list(_ADAMAX_CONFIGS)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: ((d == "float32" and s == "small") or p["config"] == "default")
    and (d == "float32" or s == "small")
    and (m == "eager" or (d == "float32" and s == "small" and p["config"] == "fixed-grad")),
    grid="small",
    note="optim_db Adamax, lr=0.1: two parameters (the shape, and a bias-like vector; transposed: a non-contiguous "
    "leaf) and 5 real steps on sum |p - target|^2; configs weight_decay, maximize, foreach=True/False (the "
    "default picks foreach on CUDA and the single-tensor loop on CPU), lr as a tensor; fixed-grad: "
    "optimizer.step() alone with a fixed .grad (the form test_optim compiles; one step per timed call, the first "
    "call's parameters are compared). Checked: the objective went down (up with maximize)",
)
def adamax(t: Ctx):
    torch = t.fw
    cfg = t.p.config
    shape = tuple(t.shape)
    bias_len = shape[-1] if shape and shape[-1] else 4
    if t.case.shape_name == "transposed":
        p0 = t.randn(shape[::-1]).t()
    else:
        p0 = t.randn(shape)
    q0, tp, tq = t.randn((bias_len,)), t.randn(shape), t.randn((bias_len,))
    kwargs = dict(_ADAMAX_CONFIGS[cfg])
    lr = torch.tensor(0.1) if cfg == "lr-tensor" else 0.1
    sign = -1.0 if kwargs.get("maximize") else 1.0

    def objective(p, q, tp, tq):
        return (p - tp).abs().pow(2).sum() + (q - tq).abs().pow(2).sum()

    if cfg == "fixed-grad":
        p = p0.clone().requires_grad_(True)
        q = q0.clone().requires_grad_(True)
        p.grad, q.grad = (p0 - tp).detach().clone(), (q0 - tq).detach().clone()
        opt = torch.optim.Adamax([p, q], lr=0.1)

        def step():
            opt.step()
            return p.detach().clone(), q.detach().clone()

        host = [ref.host(v) for v in (p0, q0, tp, tq)]

        def moved(outs, ins):  # the first step from a fixed gradient g
            return ref.all_close(outs, _adamax([host[0], host[1]], [host[2], host[3]], 0.1, 1, fixed=True)[:2], ref.STEPS, t.dtype_name, t.case.id)

        return t.call(step).stateful("one optimizer step per call on the parameters it keeps").reference(
            "the first step is lr * g / (|g| + eps) (the bias corrections cancel)", moved)

    def run(p0, q0, tp, tq):
        p = p0.clone().requires_grad_(True)
        q = q0.clone().requires_grad_(True)
        opt = torch.optim.Adamax([p, q], lr=lr, **kwargs)
        with torch.no_grad():
            start = objective(p, q, tp, tq)
        for _ in range(5):
            opt.zero_grad()
            objective(p, q, tp, tq).backward()
            opt.step()
        with torch.no_grad():
            end = objective(p, q, tp, tq)
        return p.detach(), q.detach(), start, end

    def improved(outs, ins):
        start, end = float(np.real(outs[2])), float(np.real(outs[3]))
        if not (math.isfinite(start) and math.isfinite(end)):
            return False
        return (end > start) if sign < 0 else (end < start or (start == 0 and end == 0))

    def same_steps(outs, ins):
        want = _adamax(ins[:2], ins[2:], 0.1, 5, weight_decay=kwargs.get("weight_decay", 0.0), maximize=sign < 0)
        return ref.all_close(outs, want, ref.STEPS, t.dtype_name, t.case.id)

    return (
        t.call(run, p0, q0, tp, tq)
        .check("5 steps lower the objective (raise it with maximize)", improved)
        .reference("parameters and objectives equal 5 Adamax steps in float64", same_steps)
    )


def _adamax(starts, targets, lr, steps, weight_decay=0.0, maximize=False, fixed=False, betas=(0.9, 0.999), eps=1e-8):
    """torch.optim.Adamax in float64 on sum |p - target|^2 over the parameters (gradient 2 (p - target); complex
    parameters are stepped as pairs of reals, as torch does). Returns the parameters, then the objective before and
    after. fixed: the gradient is p0 - target, given once, not the objective's."""
    params = [ref.as64(p).copy() for p in starts]
    targets = [ref.as64(x) for x in targets]
    m = [np.zeros(p.shape, dtype=p.dtype) for p in params]
    u = [np.zeros(p.shape) for p in params]  # per real component: |.| of each

    def objective():
        return sum(float(np.sum(np.abs(p - x) ** 2)) for p, x in zip(params, targets))

    start = objective()
    for step in range(1, steps + 1):
        for i, (p, x) in enumerate(zip(params, targets)):
            g = (p - x) if fixed else 2 * (p - x)
            if maximize:
                g = -g
            if weight_decay:
                g = g + weight_decay * p
            m[i] = m[i] + (1 - betas[0]) * (g - m[i])
            if np.iscomplexobj(p):  # view_as_real: the real and imaginary parts have their own exp_inf
                u_re = np.maximum(u[i].real * betas[1], np.abs(g.real) + eps)
                u_im = np.maximum(u[i].imag * betas[1], np.abs(g.imag) + eps)
                u[i] = u_re + 1j * u_im
                params[i] = p - lr / (1 - betas[0] ** step) * (m[i].real / u_re + 1j * m[i].imag / u_im)
            else:
                u[i] = np.maximum(u[i] * betas[1], np.abs(g) + eps)
                params[i] = p - lr / (1 - betas[0] ** step) * m[i] / u[i]
    return [*params, start, objective()]


# ----------------------------------------------------- torch.optim.lr_scheduler.ExponentialLR


def _lr_final(t: Ctx, cfg: str, start: list, gamma: float):
    """exponential_lr's check of its final parameters: 10 steps of its
    optimiser at lr_k = start * gamma^k, in float64."""

    def final(outs, ins):  # the parameters after 10 steps at lr_k = start * gamma^k, in float64
        p, goal = ref.as64(ins[0]).copy(), ref.as64(ins[1])
        lrs = np.repeat(np.array(start, dtype=np.float64)[None, :], 10, axis=0) * gamma ** np.arange(10)[:, None]
        if cfg == "groups":  # each half of p has its group's lr
            half = p.shape[0] // 2
            lr_of = lambda k: np.concatenate([np.full(half, lrs[k, 0]), np.full(p.shape[0] - half, lrs[k, 1])])  # noqa: E731
        else:
            lr_of = lambda k: lrs[k, 0]  # noqa: E731
        m, v = np.zeros_like(p), np.zeros_like(p)
        for k in range(10):
            g = 2 * (p - goal)
            if cfg == "adam":  # torch.optim.Adam defaults: betas (0.9, 0.999), eps 1e-8
                m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
                p = p - lr_of(k) / (1 - 0.9 ** (k + 1)) * m / (np.sqrt(v) / math.sqrt(1 - 0.999 ** (k + 1)) + 1e-8)
            else:
                p = p - lr_of(k) * g
        return ref.close(outs[0], p, ref.STEPS, t.dtype_name, t.case.id)

    return final


@cases.case(
    "torch.optim.lr_scheduler.ExponentialLR",
    dtype=["float32", "float64"],
    shape={"small": (10,), "large": (LARGE,)},
    params={"config": ["gamma0.9", "gamma0.5", "gamma1.0", "groups", "adam", "resume", "state-dict", "tensor-lr"]},
    where=lambda d, s, m, p: (d == "float32" and s == "small") or p["config"] == "gamma0.9",
    grid="small",
    note="10 real optimisation steps (SGD unless adam) on sum (p - target)^2, a scheduler.step() after each; "
    "returns the final parameters, the lr after every step (per param group) and the epoch counter. Checked: "
    "after step k every group's lr is its starting lr * gamma^k, and the epoch counter counts up by one. groups: two param groups (lr 0.1 and 0.01); resume: "
    "built with last_epoch=3 (initial_lr set, as documented); state-dict: 5 steps, then a new optimizer and "
    "scheduler load both state_dicts and do 5 more; tensor-lr: SGD(lr=torch.tensor(0.1))",
)
def exponential_lr(t: Ctx):
    torch = t.fw
    cfg = t.p.config
    gamma = {"gamma0.5": 0.5, "gamma1.0": 1.0}.get(cfg, 0.9)
    p0, target = t.randn(), t.randn()
    lr0 = [0.1, 0.01] if cfg == "groups" else [0.1]
    ExponentialLR = torch.optim.lr_scheduler.ExponentialLR

    def build(p):
        if cfg == "groups":
            half = p.shape[0] // 2
            # two groups over the same leaf would be rejected: split p into two leaves
            a, b = p[:half].detach().clone().requires_grad_(True), p[half:].detach().clone().requires_grad_(True)
            opt = torch.optim.SGD([{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.01}], lr=0.1)
            return opt, [a, b]
        if cfg == "adam":
            return torch.optim.Adam([p], lr=0.1), [p]
        if cfg == "tensor-lr":
            return torch.optim.SGD([p], lr=torch.tensor(0.1)), [p]
        return torch.optim.SGD([p], lr=0.1), [p]

    def run(p0, target):
        p = p0.clone().requires_grad_(True)
        opt, leaves = build(p)
        if cfg == "resume":
            for g in opt.param_groups:
                g["initial_lr"] = g["lr"]
                g["lr"] = g["lr"] * gamma**3
            sched = ExponentialLR(opt, gamma=gamma, last_epoch=3)
        else:
            sched = ExponentialLR(opt, gamma=gamma)
        lrs, epochs = [], []
        for i in range(10):
            if cfg == "state-dict" and i == 5:
                opt_sd, sched_sd = opt.state_dict(), sched.state_dict()
                opt, _ = build(p)
                opt.param_groups[0]["params"] = [p]
                opt.load_state_dict(opt_sd)
                sched = ExponentialLR(opt, gamma=gamma)
                sched.load_state_dict(sched_sd)
            opt.zero_grad()
            flat = torch.cat([x.reshape(-1) for x in leaves]) if cfg == "groups" else p
            d = flat - target
            (d.abs() if d.is_complex() else d).pow(2).sum().backward()  # complex: sum |p - target|^2, gradient 2 (p - target)
            opt.step()
            sched.step()
            lrs.append([float(v) for v in sched.get_last_lr()])
            epochs.append(sched.last_epoch)
        final = torch.cat([x.detach().reshape(-1) for x in leaves])
        return final, torch.tensor(lrs, dtype=torch.float64), torch.tensor(epochs)

    start = [lr * gamma**3 for lr in lr0] if cfg == "resume" else lr0
    rtol = 1e-6 if cfg == "tensor-lr" else 1e-10  # a tensor lr decays in float32

    def schedule(outs, ins):
        lrs, epochs = outs[1], outs[2]
        want = np.array([[base * gamma ** (k + 1) for base in start] for k in range(len(epochs))])
        first = 4 if cfg == "resume" else 0  # the constructor steps once: to 0, or from last_epoch=3 to 4
        consecutive = epochs.tolist() == list(range(first + 1, first + 1 + len(epochs)))
        return consecutive and lrs.shape == want.shape and bool(np.allclose(lrs, want, rtol=rtol, atol=0))

    return (
        t.call(run, p0, target)
        .reference("each step multiplies every group's lr by gamma; epochs count up", schedule)
        .reference("the parameters equal 10 steps at those lrs in float64", _lr_final(t, cfg, start, gamma))
        .host_outputs(1, 2)  # the lrs and epochs, as the scheduler reports them
    )


# --------------------------------------------------------------- torch.utils.data (shared)


def _holder(torch):
    """A map-style Dataset subclass holding tensors, as user code writes one."""

    class Holder(torch.utils.data.Dataset):
        def __init__(self, x, y, as_dict=False):
            self.x, self.y, self.as_dict = x, y, as_dict

        def __len__(self):
            return self.x.shape[0]

        def __getitem__(self, i):
            if self.as_dict:
                return {"x": self.x[i], "y": self.y[i]}
            return self.x[i], self.y[i]

    return Holder


def _xy(t: Ctx, n: int, features: int):
    return t.randn((n, features)), t.randn((n,), "int64")


def _loader_cat(torch, loader):
    xs, ys = [], []
    for batch in loader:
        if isinstance(batch, dict):
            xs.append(batch["x"])
            ys.append(batch["y"])
        else:
            xs.append(batch[0])
            ys.append(batch[1])
    return torch.cat(xs), torch.cat(ys)


def _holds(outs, ins) -> bool:
    """Reference: the outputs (X, Y) are the inputs (x, y), exactly."""
    return len(outs) >= 2 and all(ref.close(o, i) for o, i in zip(outs[:2], ins[:2]))


# ----------------------------------------------------------------- torch.utils.data.Dataset


@cases.case(
    "torch.utils.data.Dataset",
    dtype=["float32", "float64", "float16", "bfloat16", "complex64", "int64", "bool"],
    shape={"small": (100, 8), "large": (4096, 256)},
    params={"use": ["getitem", "dataloader", "drop-last", "dict-items", "add", "base-raises"]},
    where=lambda d, s, m, p: (d == "float32" and s == "small")
    or (p["use"] in ("getitem", "dataloader") and (s == "small" or d == "float32")),
    grid="small",
    note="a user-defined map-style Dataset (the documented way: subclass, __getitem__, __len__) over tensors on the "
    "device; getitem: every item indexed and stacked; dataloader: DataLoader(batch_size=16) with default_collate "
    "(stacks device tensors, any dtype); drop-last: batch_size=24, drop_last=True; dict-items: items are dicts "
    "and collate to a dict; add: ds + ds is a ConcatDataset; base-raises: Dataset() itself does not implement "
    "__getitem__ (NotImplementedError). Checked: it yields what it holds",
)
def dataset(t: Ctx):
    torch = t.fw
    n, features = t.shape
    use = t.p.use
    x, y = t.randn((n, features)), t.randn((n,), "int64")
    Holder = _holder(torch)
    DataLoader = torch.utils.data.DataLoader
    if use == "getitem":
        ds = Holder(x, y)

        def items(x, y):
            got = [ds[i] for i in range(len(ds))]
            return torch.stack([a for a, _ in got]), torch.stack([b for _, b in got])

        return t.call(items, x, y).reference("yields what it holds", _holds)
    if use in ("dataloader", "dict-items"):
        ds = Holder(x, y, as_dict=use == "dict-items")
        return t.call(lambda x, y: _loader_cat(torch, DataLoader(ds, batch_size=16)), x, y).reference("yields what it holds", _holds)
    if use == "drop-last":
        ds = Holder(x, y)

        def dropped(x, y):
            X, Y = _loader_cat(torch, DataLoader(ds, batch_size=24, drop_last=True))
            return X, Y

        keep = (n // 24) * 24
        return t.call(dropped, x, y).reference(
            "full batches only: the first rows", lambda outs, ins: ref.close(outs[0], ins[0][:keep]) and ref.close(outs[1], ins[1][:keep])
        )
    if use == "add":
        ds = Holder(x, y)

        def added(x, y):
            both = ds + ds
            a, b = both[n + 3]
            return a, b, _flag(t, isinstance(both, torch.utils.data.ConcatDataset), len(both) == 2 * n)

        return (
            t.call(added, x, y)
            .check("ds + ds is a ConcatDataset of twice the length", lambda outs, ins: bool(outs[2].all()))
            .reference("(ds + ds)[n + 3] is item 3", lambda outs, ins: ref.close(outs[0], ins[0][3]) and ref.close(outs[1], ins[1][3]))
        )
    return t.call(lambda: _raises(t, lambda: torch.utils.data.Dataset()[0], NotImplementedError)).check(
        "raises NotImplementedError", _all_true
    )


# ------------------------------------------------------------------ torch.utils.data.Subset


@cases.case(
    "torch.utils.data.Subset",
    dtype=["float32", "int64", "float16", "bool", "complex64"],
    shape={"small": (100, 8), "large": (4096, 256)},
    params={"indices": ["list", "range", "tensor", "negative", "nested", "getitems", "dataloader", "empty"]},
    where=lambda d, s, m, p: (d == "float32" and s == "small")
    or (p["indices"] == "list" and (s == "small" or d == "float32"))
    or (d == "float32" and p["indices"] == "dataloader"),
    grid="small",
    note="Subset of a TensorDataset on the device: indices as a list (every 3rd), a range, a tensor, negative "
    "indices, a Subset of a Subset, the batched __getitems__ that DataLoader uses, a DataLoader (batch_size=16) "
    "over it, and no indices (len 0, indexing raises). Checked: len(subset) and every item is dataset[indices[i]]",
)
def subset(t: Ctx):
    torch = t.fw
    n, features = t.shape
    kind = t.p.indices
    x, y = t.randn((n, features)), t.randn((n,), "int64")
    base = torch.utils.data.TensorDataset(x, y)
    Subset = torch.utils.data.Subset
    every3 = list(range(0, n, 3))
    want_idx = {
        "list": every3, "range": list(range(10, n - 10)), "tensor": every3, "negative": [-1, -2, -n],
        "nested": every3[1::2], "getitems": every3, "dataloader": every3, "empty": [],
    }[kind]

    def make():
        if kind == "range":
            return Subset(base, range(10, n - 10))
        if kind == "tensor":
            return Subset(base, torch.arange(0, n, 3))
        if kind == "negative":
            return Subset(base, [-1, -2, -n])
        if kind == "nested":
            return Subset(Subset(base, every3), list(range(1, len(every3), 2)))
        if kind == "empty":
            return Subset(base, [])
        return Subset(base, every3)

    if kind == "empty":

        def empty(x, y):
            sub = make()
            return _flag(t, len(sub) == 0, bool(_raises(t, lambda: sub[0], IndexError).all()))

        return t.call(empty, x, y).check("len 0, indexing raises IndexError", _all_true)

    def items(x, y):
        sub = make()
        if kind == "getitems":
            got = sub.__getitems__(list(range(len(sub))))
        elif kind == "dataloader":
            X, Y = _loader_cat(torch, torch.utils.data.DataLoader(sub, batch_size=16))
            return X, Y, torch.tensor(len(sub))
        else:
            got = [sub[i] for i in range(len(sub))]
        return torch.stack([a for a, _ in got]), torch.stack([b for _, b in got]), torch.tensor(len(sub))

    idx = np.array(want_idx)

    def picked(outs, ins):
        return ref.close(outs[2], np.asarray(len(idx))) and ref.close(outs[0], ins[0][idx]) and ref.close(outs[1], ins[1][idx])

    return t.call(items, x, y).reference("len and items are dataset[indices]", picked).host_outputs(2)  # len


# ------------------------------------------------------------ torch.utils.data.ConcatDataset


@cases.case(
    "torch.utils.data.ConcatDataset",
    dtype=["float32", "int64", "float16", "bool", "complex64"],
    shape={"small": (60, 8), "large": (4096, 256)},
    params={"use": ["two", "three-with-empty", "negative-index", "nested", "mixed", "dataloader", "cumulative-sizes",
                    "empty-list-raises", "iterable-raises"]},
    where=lambda d, s, m, p: (d == "float32" and s == "small")
    or (p["use"] == "two" and (s == "small" or d == "float32"))
    or (d == "float32" and p["use"] == "dataloader"),
    grid="small",
    note="ConcatDataset of TensorDatasets on the device (n and n/2 rows): two; three with an empty one in the "
    "middle; negative indices; a ConcatDataset of ConcatDatasets; mixed (a TensorDataset and a user Dataset); a "
    "DataLoader over it; cumulative_sizes; and test_dataloader's errors: an empty list and an IterableDataset "
    "are rejected. Checked: the length is the sum and the items are the parts' items in order",
)
def concat_dataset(t: Ctx):
    torch = t.fw
    data = torch.utils.data
    n, features = t.shape
    m = n // 2
    use = t.p.use
    x1, y1 = t.randn((n, features)), t.randn((n,), "int64")
    x2, y2 = t.randn((m, features)), t.randn((m,), "int64")
    d1, d2 = data.TensorDataset(x1, y1), data.TensorDataset(x2, y2)
    Holder = _holder(torch)

    if use == "empty-list-raises":
        return t.call(lambda: _raises(t, lambda: data.ConcatDataset([]), AssertionError, ValueError)).check("raises", _all_true)
    if use == "iterable-raises":

        class Stream(data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        return t.call(lambda: _raises(t, lambda: data.ConcatDataset([d1, Stream()]), AssertionError, ValueError, TypeError)).check(
            "raises", _all_true
        )
    if use == "cumulative-sizes":
        empty = data.TensorDataset(x1[:0], y1[:0])
        return t.call(lambda: torch.tensor(data.ConcatDataset([d1, empty, d2]).cumulative_sizes, device=t.device)).reference(
            "running totals", lambda outs, ins: ref.close(outs[0], np.array([n, n, n + m]))
        )
    if use == "negative-index":

        def negative(x1, y1, x2, y2):
            cat = data.ConcatDataset([d1, d2])
            a, b = cat[-1], cat[-(m + 1)]
            return a[0], b[0], _flag(t, len(cat) == n + m)

        return (
            t.call(negative, x1, y1, x2, y2)
            .check("the length is the sum", lambda outs, ins: bool(outs[2].all()))
            .reference("negative indices count from the end: [-1] is x2[-1], [-(m+1)] is x1[-1]",
                       lambda outs, ins: ref.close(outs[0], ins[2][-1]) and ref.close(outs[1], ins[0][-1]))
        )

    def make():
        if use == "three-with-empty":
            return data.ConcatDataset([d1, data.TensorDataset(x1[:0], y1[:0]), d2])
        if use == "nested":
            return data.ConcatDataset([data.ConcatDataset([d1]), data.ConcatDataset([d2])])
        if use == "mixed":
            return data.ConcatDataset([d1, Holder(x2, y2)])
        return data.ConcatDataset([d1, d2])

    def items(x1, y1, x2, y2):
        cat = make()
        if use == "dataloader":
            X, Y = _loader_cat(torch, data.DataLoader(cat, batch_size=16))
        else:
            got = [cat[i] for i in range(len(cat))]
            X, Y = torch.stack([a for a, _ in got]), torch.stack([b for _, b in got])
        return X, Y, torch.tensor(len(cat))

    def in_order(outs, ins):
        a1, b1, a2, b2 = ins
        return (ref.close(outs[2], np.asarray(n + m)) and ref.close(outs[0], np.concatenate([a1, a2]))
                and ref.close(outs[1], np.concatenate([b1, b2])))

    return t.call(items, x1, y1, x2, y2).reference("length is the sum, items in order", in_order).host_outputs(2)  # len


# ------------------------------------------------------------------ torch.autograd.Variable

_VARIABLE_NOTE = (
    "torch.autograd.Variable is deprecated since PyTorch 0.4 (Variable and Tensor merged): Variable(t) returns a "
    "plain Tensor, Variable(t, requires_grad=True) a leaf that requires grad; the successor is a Tensor with "
    "requires_grad (t.detach().requires_grad_())"
)


@cases.case(
    "torch.autograd.Variable",
    dtype=FLOATS + ["complex64", "int64", "bool"],
    shape=shapes("scalar", "small", "large"),
    params={"api": ["Variable", "requires_grad_"], "use": ["wrap", "grad", "volatile"]},
    where=lambda d, s, m, p: (
        (p["use"] == "wrap" and p["api"] == "Variable" and s == "small")
        or (p["use"] == "grad" and p["api"] == "Variable" and d in FLOATS + ["complex64"] and (s == "small" or d == "float32"))
        or (p["use"] == "grad" and p["api"] == "requires_grad_" and d == "float32" and s in ("small", "large"))
        or (p["use"] == "volatile" and p["api"] == "Variable" and d == "float32" and s == "small")
    ),
    grid="small",
    note=_VARIABLE_NOTE + ". wrap: Variable(x) is a Tensor sharing x's storage (every dtype); grad: "
    "Variable(x, requires_grad=True), backward of sum(|v|^2) gives 2v (float and complex only: integer tensors "
    "cannot require grad); api=requires_grad_ does the same with the successor; volatile: the removed volatile=True "
    "keyword is accepted with a warning and has no effect",
    successor="torch.Tensor.requires_grad_",
)
def variable(t: Ctx):
    import warnings

    torch = t.fw
    Variable = torch.autograd.Variable
    x = t.randn()
    use, api = t.p.use, t.p.api
    if use == "wrap":

        def wrap(x):
            v = Variable(x)
            return v, _flag(t, type(v) is torch.Tensor, v.data_ptr() == x.data_ptr(), not v.requires_grad)

        return (
            t.call(wrap, x)
            .check("a Tensor sharing storage, not requiring grad", lambda outs, ins: bool(outs[1].all()))
            .reference("holds the input's values", lambda outs, ins: ref.close(outs[0], ins[0]))
        )
    if use == "volatile":

        def volatile(x):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                v = Variable(x, volatile=True)
            return _flag(t, isinstance(v, torch.Tensor), any("volatile" in str(w.message) for w in seen))

        return t.call(volatile, x).check("accepted with a warning", _all_true)

    def grad(x):
        v = Variable(x, requires_grad=True) if api == "Variable" else x.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(v.abs().pow(2).sum(), [v])
        return g, _flag(t, v.is_leaf, v.requires_grad)

    return (
        t.call(grad, x)
        .check("a leaf that requires grad", lambda outs, ins: bool(outs[1].all()))
        .reference("grad of sum |v|^2 is 2v", lambda outs, ins: ref.close(outs[0], 2 * ref.as64(ins[0]), ref.POINTWISE, t.dtype_name))
    )


# ------------------------------------------------------------ torch.autograd.functional.jvp


@_case(
    "torch.autograd.functional.jvp",
    dtype=["float32", "float64", "float16", "bfloat16", "complex64"],
    tol=ACCUMULATING,
    shape={"scalar": (), "small": (1000,), "matrix": (64, 64), "large": (LARGE,), "large-matrix": (1024, 1024)},
    params={"func": ["elementwise", "matmul", "multi-input", "reduction", "create-graph"]},
    where=lambda d, s, m, p: (
        (p["func"] == "elementwise" and ((d == "float32" and s in ("scalar", "small", "large")) or s == "small"))
        or (p["func"] == "matmul" and d in ("float32", "float64") and s in ("matrix", "large-matrix") and (d == "float32" or s == "matrix"))
        or (p["func"] in ("multi-input", "reduction", "create-graph") and d == "float32" and s == "small")
    ),
    grid="small",
    reduction=lambda dims, p: dims[0] if p["func"] == "matmul" else 1,
    note="test_autograd's functional jvp: (func_output, J v) by the double-backward trick. elementwise: "
    "sin(x) x (J v = (cos(x) x + sin(x)) v); matmul: A x with A (n, n) fixed, x and v vectors; multi-input: "
    "f(x, y) = (x y, x + y) with a tuple of tangents; reduction: sum(x^2) (a 0-d output); create-graph: "
    "create_graph=True, then the jvp is differentiated again. Checked against the closed form",
)
def jvp(t: Ctx):
    torch = t.fw
    AF = torch.autograd.functional
    func = t.p.func
    dtype = t.dtype_name

    def matches(reference, tols):
        """Reference: the outputs equal reference(*inputs in float64), one tolerance profile per output."""

        def ok(outs, ins):
            return ref.all_close(outs, reference(*[ref.as64(i) for i in ins]), tols, dtype, t.case.id)

        return ok

    # sin(x) x rounds twice in half precision; J v takes several more ops (double backward), which may cancel
    f_tol, jv_tol = ref.ACCUMULATE, ref.STEPS
    if func == "elementwise":
        x, v = t.randn(), t.randn()
        return t.call(lambda x, v: AF.jvp(lambda a: torch.sin(a) * a, x, v), x, v).reference(
            "f = sin(x) x, J v = (cos(x) x + sin(x)) v",
            matches(lambda x, v: [np.sin(x) * x, (np.cos(x) * x + np.sin(x)) * v], [f_tol, jv_tol]),
        )
    if func == "matmul":
        n = t.shape[0]
        a = t.randn((n, n)) * (1.0 / math.sqrt(n))
        x, v = t.randn((n,)), t.randn((n,))
        return t.call(lambda a, x, v: AF.jvp(lambda z: a @ z, x, v), a, x, v).reference(
            "f = A x, J v = A v", matches(lambda a, x, v: [a @ x, a @ v], ref.ACCUMULATE)
        )
    x, y, v, w = t.randn(), t.randn(), t.randn(), t.randn()
    if func == "multi-input":
        return t.call(lambda x, y, v, w: AF.jvp(lambda a, b: (a * b, a + b), (x, y), (v, w)), x, y, v, w).reference(
            "f = (x y, x + y), J (v, w) = (v y + x w, v + w)",
            matches(lambda x, y, v, w: [x * y, x + y, v * y + x * w, v + w], [f_tol, f_tol, jv_tol, f_tol]),
        )
    if func == "reduction":

        def reduction(x, v):  # sums: RMS tolerances relative to the terms
            return [ref.Scaled(np.sum(x * x), float(np.sqrt(np.sum(x**4)))), ref.Scaled(2 * np.dot(x, v), 2 * float(np.sqrt(np.sum((x * v) ** 2))))]

        return t.call(lambda x, v: AF.jvp(lambda a: (a * a).sum(), x, v), x, v).reference(
            "f = sum(x^2), J v = 2 x . v", matches(reduction, ref.ACCUMULATE)
        )

    def second(x, v):
        x = x.detach().requires_grad_(True)
        out, jv = AF.jvp(lambda a: torch.sin(a) * a, x, v, create_graph=True)
        (g,) = torch.autograd.grad(jv.sum(), [x])
        return out.detach(), jv.detach(), g

    return t.call(second, x, v).reference(
        "f = sin(x) x, J v = (cos(x) x + sin(x)) v, d/dx sum(J v) = (2 cos(x) - x sin(x)) v",
        matches(lambda x, v: [np.sin(x) * x, (np.cos(x) * x + np.sin(x)) * v, (2 * np.cos(x) - x * np.sin(x)) * v], [f_tol, jv_tol, jv_tol]),
    )


@cases.case(
    "torch.autograd.functional.jvp",
    dtype=["float32"],
    shape={"small": (10,)},
    params={"func": ["strict-independent"]},
    note="strict=True with an output that does not depend on the input must raise RuntimeError (documented)",
)
def jvp_strict(t: Ctx):
    torch = t.fw
    AF = torch.autograd.functional
    x, v = t.randn(), t.randn()
    return t.call(
        lambda x, v: _raises(t, lambda: AF.jvp(lambda a: torch.ones_like(a), x, v, strict=True), RuntimeError), x, v
    ).check("raises RuntimeError", _all_true)


# ---------------------------------------------------------------- torch.von_mises.VonMises

_VM_NOTE = (
    "the paper lists torch.von_mises.VonMises; torch has no von_mises module: the class is "
    "torch.distributions.von_mises.VonMises (also torch.distributions.VonMises), tested here"
)


@cases.case(
    "torch.von_mises.VonMises",
    dtype=["float32"],
    shape={"as-listed": ()},
    note=_VM_NOTE + "; this case looks the name up as listed and is unavailable by design (the finding)",
    successor="torch.distributions.von_mises.VonMises",
)
def von_mises_as_listed(t: Ctx):
    from mudjack_probe.errors import NameMissing

    torch = t.fw
    if not hasattr(torch, "von_mises"):
        raise NameMissing("torch.von_mises.VonMises",
                          f"torch {torch.__version__} has no torch.von_mises; VonMises is in torch.distributions.von_mises")
    return t.call(lambda: _flag(t, hasattr(torch.von_mises, "VonMises")))


def _log_i0(k: float) -> float:
    return math.log(float(np.i0(k)))


def _bessel_ratio(k: float) -> float:
    """I1(k)/I0(k), the mean resultant length of VonMises(., k)."""
    if k > 30:
        return 1 - 1 / (2 * k) - 1 / (8 * k * k) - 1 / (8 * k**3)
    terms = np.arange(80)
    lg = np.array([math.lgamma(i + 1) for i in terms])
    lg1 = np.array([math.lgamma(i + 2) for i in terms])
    half = math.log(k / 2) if k > 0 else -np.inf
    i0 = np.exp(2 * terms * half - 2 * lg).sum()
    i1 = np.exp((2 * terms + 1) * half - lg - lg1).sum()
    return float(i1 / i0)


@_case(
    "torch.von_mises.VonMises",
    dtype=["float32", "float64", "float16", "bfloat16"],
    tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2), "float32": (1e-4, 1e-4)},
    shape={"scalar": (), "batch": (8,), "large": (LARGE,)},
    params={"method": ["log_prob", "moments"], "concentration": [1.0, 0.01, 100.0]},
    where=lambda d, s, m, p: (
        (p["method"] == "log_prob" and ((d == "float32" and (s == "batch" or p["concentration"] == 1.0)) or (s == "batch" and p["concentration"] == 1.0)))
        or (p["method"] == "moments" and s == "batch" and d in ("float32", "float64") and p["concentration"] == 1.0)
    ),
    grid="batch",
    note=_VM_NOTE + ". log_prob of values x ~ N(0, 1) under VonMises(loc, concentration): scalar parameters, a "
    "batch of 8 locs, a million values; concentration 0.01 (nearly uniform), 1, 100 (the Bessel-function "
    "approximations switch branches); checked against k cos(x - loc) - log(2 pi I0(k)). moments: mean, mode, "
    "variance = 1 - I1(k)/I0(k)",
    successor="torch.distributions.von_mises.VonMises",
)
def von_mises(t: Ctx):
    from torch.distributions.von_mises import VonMises

    torch = t.fw
    kappa = t.p.concentration
    batch = t.shape if t.case.shape_name == "batch" else ()
    loc = t.randn(tuple(batch)) * 0.5 if inexact(t) else t.randn(tuple(batch))  # ints and bools: the dtype's own values
    conc = torch.full(tuple(batch), kappa, dtype=t.dtype, device=t.device)
    if t.p.method == "moments":

        def moments(loc, conc):
            d = VonMises(loc, conc)
            return d.mean, d.mode, d.variance

        def known(outs, ins):
            loc64 = ref.as64(ins[0])
            return ref.all_close(outs, [loc64, loc64, np.full(loc64.shape, 1 - _bessel_ratio(kappa))], _VM_TOL, t.dtype_name, t.case.id)

        return t.call(moments, loc, conc).reference("mean = mode = loc, variance = 1 - I1(k)/I0(k)", known)
    values = t.randn(tuple(t.shape) if t.case.shape_name != "batch" else (100, 8))

    def log_prob(loc, conc, x):
        return VonMises(loc, conc).log_prob(x)

    def formula(outs, ins):
        mu, x = ref.as64(ins[0]), ref.as64(ins[2])
        diff = (x - mu).astype(np.float64)  # integer inputs subtract in their dtype (uint8 wraps around), as torch does
        norm = math.log(2 * math.pi) + _log_i0(kappa)
        want = kappa * np.cos(diff) - norm
        terms = kappa * np.abs(np.cos(diff)) + abs(norm)  # the difference cancels for large k: errors scale with these
        return ref.close(outs[0], ref.Scaled(want, terms), _VM_TOL, t.dtype_name, t.case.id)

    return t.call(log_prob, loc, conc, values).reference("k cos(x - loc) - log(2 pi I0(k))", formula)


# torch evaluates log I0 and I1/I0 with polynomial approximations (Abramowitz and Stegun, about 1e-7 relative);
# half precision rounds cos(x - loc), the product and the difference: a few ops
_VM_TOL = dict(ref.STEPS, float64=dict(rtol=1e-6, rms=1e-7), float32=dict(rtol=1e-5, rms=1e-6))


@cases.case(
    "torch.von_mises.VonMises",
    dtype=["float32", "float64", "float16", "bfloat16"],
    shape={"large": (100000,), "batch": (1000, 8)},
    params={"method": ["sample"], "concentration": [0.01, 1.0, 100.0]},
    where=lambda d, s, m, p: (d == "float32" and (s == "large" or p["concentration"] == 1.0))
    or (s == "large" and p["concentration"] == 1.0),
    note=_VM_NOTE + ". sample() by rejection: random, so not compared across devices; checked: values in "
    "[-pi, pi], and per loc the means of cos(x - loc) and sin(x - loc) are I1(k)/I0(k) and 0 within 5 standard "
    "errors for the number of draws",
    successor="torch.distributions.von_mises.VonMises",
)
def von_mises_sample(t: Ctx):
    from torch.distributions.von_mises import VonMises

    torch = t.fw
    kappa = t.p.concentration
    n = t.shape[0]
    batch = (t.shape[1],) if len(t.shape) > 1 else ()
    loc = t.randn(batch) * 0.5
    conc = torch.full(batch, kappa, dtype=t.dtype, device=t.device)

    def sample(loc, conc):
        return VonMises(loc, conc).sample((n,))

    a = _bessel_ratio(kappa)  # E cos(X - loc) = I1/I0 = A; E sin(X - loc) = 0
    i2 = 1 - 2 * a / kappa  # I2/I0, by the recurrence I2 = I0 - (2/k) I1
    sd_cos, sd_sin = math.sqrt(max((1 + i2) / 2 - a * a, 0.0) / n), math.sqrt((1 - i2) / 2 / n)

    def stats(outs, ins):
        """Within [-pi, pi]; per location, the means of cos(x - loc) and sin(x - loc) within 5 standard errors
        (for n draws) of A = I1(k)/I0(k) and 0."""
        x, mu = ref.as64(outs[0]), ref.as64(ins[0])
        if x.shape != (n,) + batch or not np.all(np.isfinite(x)) or np.any(np.abs(x) > math.pi + 1e-3):
            return False
        c, s = np.cos(x - mu).mean(axis=0), np.sin(x - mu).mean(axis=0)
        return bool(np.all(np.abs(c - a) <= 5 * sd_cos) and np.all(np.abs(s) <= 5 * sd_sin))

    return t.call(sample, loc, conc).no_compare().check("range; mean cos and sin of x - loc within 5 standard errors", stats)


@cases.case(
    "torch.von_mises.VonMises",
    dtype=["float32"],
    shape=shapes("scalar"),
    params={"method": ["validate-args"]},
    note=_VM_NOTE + ". validate_args=True rejects a negative concentration with ValueError",
    successor="torch.distributions.von_mises.VonMises",
)
def von_mises_validate(t: Ctx):
    from torch.distributions.von_mises import VonMises

    torch = t.fw
    loc = t.randn()
    conc = torch.tensor(-1.0, device=t.device)
    return t.call(lambda loc, conc: _raises(t, lambda: VonMises(loc, conc, validate_args=True), ValueError), loc, conc).check(
        "raises ValueError", _all_true
    )


# ------------------------------------------------------------------------------ torch.cuda

_CUDA_NOTE = (
    "torch.cuda is a module, not a function; these cases test its device API. On a CUDA device they run; on the "
    "cpu device the device-bound ones are skipped (torch.cuda acts on CUDA devices only: there is nothing to "
    "synchronise, no stream, no event, no CUDA memory), while is_available/device_count and manual_seed (documented "
    "as silently ignored without CUDA) run everywhere"
)


def _cuda_only(t: Ctx, api: str) -> None:
    from mudjack_probe.errors import Skip

    if t.device.type != "cuda":
        raise Skip(f"torch.cuda.{api} acts on a CUDA device; the {t.device.type} device has none, so it has no meaning here")


# cuBLAS: float32 without TF32 (torch.backends.cuda.matmul.allow_tf32 defaults to False); float16/bfloat16
# accumulate in float32 but may reduce split-K partial sums in the half dtype (allow_*_reduced_precision_reduction
# default to True): a few ulps, relative to the size of the terms
_CUDA_MATMUL = dict(
    ref.ACCUMULATE,
    float16=dict(ulps=2, rms=5e-3, gain=2e-3),
    bfloat16=dict(ulps=2, rms=2e-2, gain=3e-3),
)


def _matmul_ok(dtype: str):
    """Reference: x @ x in float64."""

    def ok(outs, ins) -> bool:
        x = ref.as64(ins[0])
        if x.dtype.kind in "biu":  # exact: bool as or-of-ands, integers wrapping around in their dtype
            want = (x @ x) if x.dtype == np.bool_ else (x.astype(np.int64) @ x.astype(np.int64)).astype(x.dtype)
            return ref.close(outs[0], want)
        return ref.close(outs[0], x @ x, _CUDA_MATMUL, dtype, "x @ x")

    return ok


@cases.case(
    "torch.cuda",
    dtype=["float32", "float16", "bfloat16"],
    shape={"small": (64, 64), "large": (1024, 1024)},
    params={"api": ["synchronize", "stream", "event"]},
    where=lambda d, s, m, p: d == "float32" or (s == "large" and p["api"] == "synchronize"),
    grid="small",
    reduction=lambda dims, p: dims[0],
    note=_CUDA_NOTE + ". synchronize: a matmul then torch.cuda.synchronize(device); stream: the matmul on a side "
    "torch.cuda.Stream with wait_stream both ways (the documented pattern); event: Event(enable_timing=True) "
    "records around the matmul and elapsed_time is positive. Checked: the product equals x @ x in float64",
)
def cuda_device_api(t: Ctx):
    torch = t.fw
    api = t.p.api
    _cuda_only(t, api if api != "event" else "Event")
    dev = t.device
    x = t.randn() * (1.0 / math.sqrt(t.shape[0])) if inexact(t) else t.randn()  # ints and bools: unscaled
    if api == "synchronize":

        def sync(x):
            y = x @ x
            torch.cuda.synchronize(dev)
            return y

        return t.call(sync, x).reference("x @ x", _matmul_ok(t.dtype_name))
    if api == "stream":
        side = torch.cuda.Stream(device=dev)

        def on_stream(x):
            current = torch.cuda.current_stream(dev)
            side.wait_stream(current)
            with torch.cuda.stream(side):
                y = x @ x
            current.wait_stream(side)
            y.record_stream(current)
            return y

        return t.call(on_stream, x).reference("x @ x", _matmul_ok(t.dtype_name))

    def timed(x):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        y = x @ x
        end.record()
        end.synchronize()
        return y, _flag(t, start.elapsed_time(end) >= 0.0, end.query())

    return (
        t.call(timed, x)
        .check("elapsed_time >= 0, the end event done", lambda outs, ins: bool(outs[1].all()))
        .reference("x @ x", _matmul_ok(t.dtype_name))
    )


@cases.case(
    "torch.cuda",
    dtype=["float32"],
    shape={"default": ()},
    params={"api": ["device-context", "memory"]},
    note=_CUDA_NOTE + ". device-context: with torch.cuda.device(i), current_device() is i; get_device_name and "
    "get_device_properties describe it (nonempty name, total_memory > 0). memory: allocating 4 MiB raises "
    "memory_allocated by at least that and freeing it lowers it again",
)
def cuda_device_state(t: Ctx):
    torch = t.fw
    api = t.p.api
    _cuda_only(t, {"device-context": "device", "memory": "memory_allocated"}[api])
    dev = t.device
    index = dev.index if dev.index is not None else torch.cuda.current_device()
    if api == "device-context":

        def ctx():
            with torch.cuda.device(index):
                here = torch.cuda.current_device() == index
            props = torch.cuda.get_device_properties(index)
            return _flag(t, here, len(torch.cuda.get_device_name(index)) > 0, props.total_memory > 0)

        return t.call(ctx).check("current device, name and properties", _all_true)

    def memory():
        before = torch.cuda.memory_allocated(dev)
        block = torch.empty(1 << 20, dtype=torch.float32, device=dev)
        during = torch.cuda.memory_allocated(dev)
        del block
        after = torch.cuda.memory_allocated(dev)
        return _flag(t, during - before >= 4 << 20, after < during)

    return t.call(memory).check("allocation is counted", _all_true)


@cases.case(
    "torch.cuda",
    dtype=["float32"],
    shape={"default": (1000,)},
    params={"api": ["is_available", "manual_seed"]},
    note=_CUDA_NOTE + ". is_available: True exactly when device_count() > 0 (on every device: the answer describes "
    "the host); manual_seed: on CUDA, reseeding gives the same draws twice; on cpu torch.cuda.manual_seed is "
    "documented as silently ignored, so it must not raise nor touch the host generator",
)
def cuda_host_api(t: Ctx):
    torch = t.fw
    if t.p.api == "is_available":
        return t.call(lambda: _flag(t, torch.cuda.is_available() == (torch.cuda.device_count() > 0))).check(
            "is_available() == (device_count() > 0)", _all_true
        )
    dev, size = t.device, t.shape

    def reseed():
        if dev.type != "cuda":  # ignored: the host generator is left as it was
            before = torch.get_rng_state()
            torch.cuda.manual_seed(1234)
            return _flag(t, torch.equal(before, torch.get_rng_state()))
        torch.cuda.manual_seed(1234)
        a = torch.randn(size, device=dev)
        torch.cuda.manual_seed(1234)
        b = torch.randn(size, device=dev)
        return _flag(t, torch.equal(a, b))

    return t.call(reseed).check("same seed, same draws (without CUDA: ignored, the host generator untouched)", _all_true)
