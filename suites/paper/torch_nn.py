"""The paper's PyTorch layers, losses and Module methods (see torch.py for the plan).

AdaptiveAvgPool3d, Conv2d, Conv3d, GELU, LSTMCell, Sequential, Transformer,
KLDivLoss, BCEWithLogitsLoss, Module.state_dict, Module.zero_grad and
Parameter.register_parameter (a misattribution: Module.register_parameter).
Cases follow test_nn's module_db (torch/testing/_internal/common_modules.py)
and the nn.functional OpInfos: constructor arguments that pick other kernels
(stride, padding modes, dilation, groups, bias, reductions, masks), batched and
unbatched inputs, empty batches, non-contiguous and channels_last inputs. Every
layer and loss case runs forward and backward in the timed call and returns the
output and the gradients of the input and of every parameter, so both passes
are compared across devices. Parameters are filled from the case seed, not
torch's initialisers, so every device starts from the same weights.
Importing this file must not import torch.
"""

from __future__ import annotations

import math

import _torch_ref as ref

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, cross, np  # np: numpy, loaded on first use (listing needs none)

from _torch_common import ACCUMULATING, all_true as _all_true, declare, flag as _flag, from_host, inexact

cases = Cases("torch")
_case = declare(cases, ACCUMULATING)


def _last_true(outs, ins) -> bool:
    """The last output is a flag tensor (device outputs come first, so output_device names the device)."""
    return bool(np.all(outs[-1]))


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _fill(t: Ctx, module, dtype_name: str | None = None) -> None:
    """Deterministic parameters from the case seed: weights ~ N(0, 1/fan_in), 1-D weights (norms) ~ 1 + 0.1 N(0, 1),
    biases ~ 0.1 N(0, 1)."""
    torch = t.fw
    # The float64 reference run (t.widen) rounds each weight to the case's dtype, as the case's own copy_ does.
    rounded = t.rounded if dtype_name is None else (lambda x: x)
    with torch.no_grad():
        for name, p in module.named_parameters():
            d = dtype_name or _dtype_name(p.dtype)
            v = t.randn(tuple(p.shape), d)
            if p.dim() >= 2:
                p.copy_(rounded(v * (1.0 / math.sqrt(max(1, p[0].numel())))))
            elif name.endswith("weight"):
                p.copy_(rounded(1.0 + 0.1 * v))
            else:
                p.copy_(rounded(0.1 * v))


def _vjp(t: Ctx, f, xs, params):
    """The timed call runs f forward and backward (autograd.grad with fixed output cotangents) and returns the
    outputs, then the grads of every input that requires grad and of every parameter."""
    torch = t.fw
    params = list(params)
    if not inexact(t):  # integer and bool (grid) cases: the forward alone, such tensors take no gradient

        def forward(*ins):
            out = f(*ins)
            return out if isinstance(out, tuple) else (out,)

        return t.call(forward, *xs)
    with torch.no_grad():
        out0 = f(*xs)
    outs0 = out0 if isinstance(out0, tuple) else (out0,)
    gs = [t.randn(tuple(o.shape), _dtype_name(o.dtype)) for o in outs0]
    n = len(xs)

    def step(*args):
        ins, go = args[:n], args[n:]
        out = f(*ins)
        outs = out if isinstance(out, tuple) else (out,)
        wrt = [x for x in ins if x.requires_grad] + params
        grads = torch.autograd.grad(outs, wrt, go, allow_unused=True)
        return tuple(o.detach() for o in outs) + tuple(grads)

    return t.call(step, *xs, *gs)


def _vjp_reference(t: Ctx, call, n_inputs: int, reference, tol, name: str = "forward and gradients equal the float64 host computation"):
    """Attach a reference to a `_vjp` call: reference(inputs, cotangents) (float64 host arrays) returns the
    expected outputs in the call's order (forward outputs, then the grads)."""
    dtype = t.dtype_name

    def ok(outs, ins):
        xs, gs = [ref.as64(i) for i in ins[:n_inputs]], [ref.as64(g) for g in ins[n_inputs:]]
        if not inexact(t):  # a forward-only call (see _vjp): its outputs against the reference's forward outputs
            return ref.all_close(outs, _forward_reference(reference, xs, outs), tol, dtype, t.case.id)
        return ref.all_close(outs, list(reference(xs, gs)), tol, dtype, t.case.id)

    return call.reference(name, ok)


def _forward_reference(reference, xs, outs) -> list:
    """The forward outputs of `reference` for integer or bool inputs, computed in float64 (numpy would compute
    sin or log of int8 in float16); an integer or bool output is that value rounded to float32 (torch computes a
    floating function of integers in its default dtype) and converted as torch converts a float to the output's
    dtype (toward zero; bool: nonzero)."""
    xs = [x.astype(np.float64) if x.dtype.kind in "biu" else x for x in xs]
    want = list(reference(xs, [np.zeros(np.shape(o)) for o in outs]))[:len(outs)]
    for i, (o, value) in enumerate(zip(outs, want)):
        if o.dtype.kind in "biu":
            w32 = ref.round_to(np.asarray(value.value if isinstance(value, ref.Scaled) else value, dtype=np.float64), "float32")
            with np.errstate(invalid="ignore"):
                want[i] = (w32 != 0) if o.dtype == np.bool_ else np.trunc(w32).astype(o.dtype)
    return want


def _spatial_input(t: Ctx, channels: int, shape_name: str, dims) -> object:
    """(N, C, *spatial) input for conv/pool cases: None batch = unbatched, "transposed" = a view with the last two
    spatial dims swapped, "channels-last" = channels_last(_3d) memory format."""
    torch = t.fw
    batch, *spatial = dims
    full = ((batch,) if batch is not None else ()) + (channels,) + tuple(spatial)
    if shape_name == "transposed":
        swapped = full[:-2] + (full[-1], full[-2])
        x = t.randn(swapped).transpose(-1, -2)
    else:
        x = t.randn(full)
    if shape_name == "channels-last":
        fmt = torch.channels_last if len(full) == 4 else torch.channels_last_3d
        x = x.contiguous(memory_format=fmt)
    return x.requires_grad_(True) if inexact(t) else x


# ---------------------------------------------------------- torch.nn.AdaptiveAvgPool3d

_POOL_OUT = {"1": 1, "2x3x4": (2, 3, 4), "none-2-3": (None, 2, 3), "larger": (10, 11, 12)}
_POOL_SHAPES = {
    "batched": (2, 8, 9, 10),
    "unbatched": (None, 8, 9, 10),
    "empty": (0, 4, 4, 4),
    "channels-last": (2, 8, 9, 10),
    "transposed": (2, 8, 9, 10),
    "large": (4, 32, 32, 32),
}


@_case(
    "torch.nn.AdaptiveAvgPool3d",
    dtype=FLOATS,
    shape=_POOL_SHAPES,
    params={"output_size": list(_POOL_OUT)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: ((d == "float32" and s == "batched") or p["output_size"] == "2x3x4")
    and (d == "float32" or s in ("batched", "large"))
    and (m == "eager" or (d == "float32" and s == "batched" and p["output_size"] == "2x3x4")),
    grid="batched",
    note="module_db AdaptiveAvgPool3d: output_size as an int (global average: its own kernel), a tuple, a tuple "
    "with None (keep that dim), larger than the input (windows overlap); batched (N=2, C=3) and unbatched "
    "inputs, an empty batch, channels_last_3d, a non-contiguous view; C=16 for large (4x16x32^3 = 2M). "
    "Forward and backward",
)
def adaptive_avg_pool3d(t: Ctx):
    torch = t.fw
    channels = 16 if t.case.shape_name == "large" else 3
    x = _spatial_input(t, channels, t.case.shape_name, t.shape)
    out_size = _POOL_OUT[t.p.output_size]
    pool = torch.nn.AdaptiveAvgPool3d(out_size)
    sizes = out_size if isinstance(out_size, tuple) else (out_size,) * 3

    def reference(xs, gs):  # separable: one averaging matrix per spatial dim
        x, g = xs[0], gs[0]
        mats = [ref.adaptive_avg_matrix(n, o) for n, o in zip(x.shape[-3:], sizes)]
        return [np.einsum("...ijk,ai,bj,ck->...abc", x, *mats), np.einsum("...abc,ai,bj,ck->...ijk", g, *mats)]

    return _vjp_reference(t, _vjp(t, pool, [x], []), 1, reference, ref.ACCUMULATE)


# ----------------------------------------------------------------- torch.nn.Conv2d / Conv3d

_CONV2D = {
    "k3": dict(kernel_size=3),
    "stride2-pad1": dict(kernel_size=3, stride=2, padding=1),
    "rect-dilated": dict(kernel_size=(1, 3), dilation=2, padding=(0, 2)),
    "groups2": dict(kernel_size=3, groups=2, padding=1),
    "depthwise": dict(kernel_size=3, groups=4, padding=1),
    "same": dict(kernel_size=3, padding="same", dilation=2),
    "valid-1x1": dict(kernel_size=1, padding="valid"),
    "nobias": dict(kernel_size=3, bias=False),
    "reflect": dict(kernel_size=3, padding=1, padding_mode="reflect"),
    "circular": dict(kernel_size=3, padding=2, padding_mode="circular"),
    "replicate": dict(kernel_size=3, padding=1, padding_mode="replicate"),
}
_CONV2D_SHAPES = {
    "small": (2, 10, 12),
    "unbatched": (None, 10, 12),
    "empty": (0, 10, 12),
    "transposed": (2, 10, 12),
    "channels-last": (2, 10, 12),
    "large": (4, 64, 64),
}


def _conv_reduction(config: dict, cin: int, nd: int) -> int:
    """Terms of each output element: C_in / groups times the kernel's elements."""
    k = config["kernel_size"]
    return cin // config.get("groups", 1) * math.prod((k,) * nd if isinstance(k, int) else k)


def _conv(t: Ctx, cls, config: dict, dims):
    torch = t.fw
    large = t.case.shape_name == "large"
    cin, cout = (32, 32) if large and cls is torch.nn.Conv2d else (8, 16) if large else (4, 8)
    layer = cls(cin, cout, device=t.device, dtype=t.dtype, **config)
    _fill(t, layer)
    if t.case.shape_name == "channels-last":
        fmt = torch.channels_last if cls is torch.nn.Conv2d else torch.channels_last_3d
        layer = layer.to(memory_format=fmt)
    x = _spatial_input(t, cin, t.case.shape_name, dims)
    conv = ref.Conv(ref.host(layer.weight), ref.host(layer.bias), layer.stride, config.get("padding", 0), layer.dilation, layer.groups,
                layer.padding_mode)

    def reference(xs, gs):
        gx, gw, gb = conv.backward(xs[0], gs[0])
        return [conv.forward(xs[0]), gx, gw] + ([] if gb is None else [gb])

    return _vjp_reference(t, _vjp(t, layer, [x], layer.parameters()), 1, reference, ref.CONV)


@_case(
    "torch.nn.Conv2d",
    dtype=["float32", "float16", "bfloat16", "float64", "complex64"],
    shape=_CONV2D_SHAPES,
    params={"config": list(_CONV2D)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: ((d == "float32" and s == "small") or p["config"] == "k3")
    and (d == "float32" or s == "small" or (d == "bfloat16" and s == "large"))
    and (m == "eager" or (d == "float32" and s == "small" and p["config"] == "k3")),
    grid="small",
    reduction=lambda dims, p: _conv_reduction(_CONV2D[p["config"]], 32 if dims == _CONV2D_SHAPES["large"] else 4, 2),
    note="module_db Conv2d: 4->8 channels (32->32 for large, input 4x32x64x64); kernel, stride, padding "
    "(int, tuple, 'same', 'valid'), dilation, groups (and depthwise), bias=False, padding modes reflect/"
    "circular/replicate; unbatched, empty batch, non-contiguous, channels_last; complex64 is documented. "
    "Forward and backward. On GPUs cuDNN may use TF32 for float32 by default "
    "(torch.backends.cudnn.allow_tf32): a mismatch there is that default, not noise",
)
def conv2d(t: Ctx):
    return _conv(t, t.fw.nn.Conv2d, _CONV2D[t.p.config], t.shape)


_CONV3D = {
    "k3": dict(kernel_size=3),
    "stride2-pad1": dict(kernel_size=3, stride=2, padding=1),
    "groups2": dict(kernel_size=3, groups=2, padding=1),
    "same": dict(kernel_size=3, padding="same", dilation=2),
    "nobias": dict(kernel_size=(1, 3, 3), bias=False),
    "reflect": dict(kernel_size=3, padding=1, padding_mode="reflect"),
    "circular": dict(kernel_size=3, padding=1, padding_mode="circular"),
    "replicate": dict(kernel_size=3, padding=1, padding_mode="replicate"),
}
_CONV3D_SHAPES = {
    "small": (2, 6, 7, 8),
    "unbatched": (None, 6, 7, 8),
    "empty": (0, 6, 7, 8),
    "transposed": (2, 6, 7, 8),
    "channels-last": (2, 6, 7, 8),
    "large": (2, 16, 32, 32),
}


@_case(
    "torch.nn.Conv3d",
    dtype=["float32", "float16", "bfloat16", "float64", "complex64"],
    shape=_CONV3D_SHAPES,
    params={"config": list(_CONV3D)},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: ((d == "float32" and s == "small") or p["config"] == "k3")
    and (d == "float32" or s == "small")
    and (m == "eager" or (d == "float32" and s == "small" and p["config"] == "k3")),
    grid="small",
    reduction=lambda dims, p: _conv_reduction(_CONV3D[p["config"]], 8 if dims == _CONV3D_SHAPES["large"] else 4, 3),
    note="module_db Conv3d: 4->8 channels (8->16 for large, input 2x8x16x32x32, kept modest for CPU runs); "
    "stride, padding ('same' with dilation), groups, a (1,3,3) kernel without bias, padding modes; unbatched, "
    "empty batch, non-contiguous, channels_last_3d; complex64 is documented. Forward and backward",
)
def conv3d(t: Ctx):
    return _conv(t, t.fw.nn.Conv3d, _CONV3D[t.p.config], t.shape)


# ------------------------------------------------------------------------ torch.nn.GELU


@_case(
    "torch.nn.GELU",
    dtype=FLOATS,
    shape={"scalar": (), "empty": (0,), "small": (1000,), "transposed": (48, 64), "large": (LARGE,)},
    params={"approximate": ["none", "tanh"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (d == "float32" or s in ("small", "large"))
    and (p["approximate"] == "none" or d == "float32" or s == "small")
    and (m == "eager" or (d == "float32" and s == "large" and p["approximate"] == "none")),
    grid="small",
    note="OpInfo nn.functional.gelu / module_db GELU: approximate='none' (erf) and 'tanh' are separate kernels; "
    "float dtypes (complex is not supported by design). Forward and backward; the output is also checked "
    "against the erf / tanh formula in float64",
)
def gelu(t: Ctx):
    torch = t.fw
    approx = t.p.approximate
    if t.case.shape_name == "transposed":
        x = t.randn(tuple(reversed(t.shape))).t()
    else:
        x = t.randn()
    if inexact(t):
        x.requires_grad_(True)
    layer = torch.nn.GELU(approximate=approx)
    def reference(xs, gs):  # the erf / tanh formula and its derivative
        y, dy = ref.gelu(xs[0], approx)
        return [y, gs[0] * dy]

    tol = [ref.POINTWISE, ref.ACCUMULATE]  # the derivative takes a few float32 ops
    return _vjp_reference(t, _vjp(t, layer, [x], []), 1, reference, tol, "matches the GELU formula and its derivative")


# -------------------------------------------------------------------- torch.nn.LSTMCell

_LSTM_SHAPES = {
    "small": (3, 10, 20),
    "unbatched": (None, 10, 20),
    "empty": (0, 10, 20),
    "transposed": (3, 10, 20),
    "large": (128, 256, 256),
}


# float32/float64 accumulate in one matmul; half precision rounds after every gate op (errors up to 0.6% of the
# RMS for float16, 9% for bfloat16 measured)
_GATES = ref.STEPS


@_case(
    "torch.nn.LSTMCell",
    dtype=FLOATS,
    shape=_LSTM_SHAPES,
    params={"config": ["default", "no-hx", "no-bias"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (p["config"] == "default" or (d == "float32" and s == "small"))
    and (d == "float32" or s in ("small", "large"))
    and (m == "eager" or (d == "float32" and s == "small" and p["config"] == "default")),
    grid="small",
    reduction=lambda dims, p: dims[1] + dims[2],
    note="module_db LSTMCell: dims are (batch, input_size, hidden_size); (h, c) given or omitted (zeros), "
    "bias=False, unbatched 1-D input, empty batch, a non-contiguous input. Forward and backward through h and c",
)
def lstm_cell(t: Ctx):
    torch = t.fw
    batch, n_in, hidden = t.shape
    cfg = t.p.config
    cell = torch.nn.LSTMCell(n_in, hidden, bias=cfg != "no-bias", device=t.device, dtype=t.dtype)
    _fill(t, cell)
    lead = () if batch is None else (batch,)
    if t.case.shape_name == "transposed":
        x = t.randn((n_in, batch)).t()
    else:
        x = t.randn(lead + (n_in,))
    x.requires_grad_(True)
    weights = [ref.host(p) for p in cell.parameters()]  # w_ih, w_hh[, b_ih, b_hh]
    if len(weights) == 2:
        weights += [None, None]

    def reference(xs, gs):
        x = xs[0]
        h, c = (xs[1], xs[2]) if len(xs) == 3 else (np.zeros(x.shape[:-1] + (hidden,)),) * 2
        h1, c1, gx, gh, gc, gw_ih, gw_hh, gb_ih, gb_hh = ref.lstm_cell(x, h, c, *weights, gs[0], gs[1])
        grads = [gx, gh, gc] if len(xs) == 3 else [gx]
        return [h1, c1, *grads, gw_ih, gw_hh] + ([gb_ih, gb_hh] if weights[2] is not None else [])

    if cfg == "no-hx":
        return _vjp_reference(t, _vjp(t, lambda x: cell(x), [x], cell.parameters()), 1, reference, _GATES)
    h, c = t.randn(lead + (hidden,)).requires_grad_(True), t.randn(lead + (hidden,)).requires_grad_(True)
    return _vjp_reference(t, _vjp(t, lambda x, h, c: cell(x, (h, c)), [x, h, c], cell.parameters()), 3, reference, _GATES)


# ------------------------------------------------------------------ torch.nn.Sequential


def _sequential(t: Ctx, config: str, width: int):
    from collections import OrderedDict

    torch = t.fw
    nn = torch.nn
    kw = dict(device=t.device, dtype=t.dtype)
    if config in ("mlp", "slice", "index"):
        seq = nn.Sequential(nn.Linear(width, 2 * width, **kw), nn.ReLU(), nn.Linear(2 * width, 10, **kw))
    elif config == "cnn":
        seq = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1, **kw), nn.BatchNorm2d(8, **kw), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(8 * (width // 2) ** 2, 10, **kw),
        )
    elif config == "named":
        seq = nn.Sequential(OrderedDict([("fc1", nn.Linear(width, 32, **kw)), ("act", nn.Tanh()), ("fc2", nn.Linear(32, 10, **kw))]))
    elif config == "append":
        seq = nn.Sequential()
        seq.append(nn.Linear(width, 32, **kw)).append(nn.GELU()).append(nn.Linear(32, 10, **kw))
    elif config == "nested":
        seq = nn.Sequential(nn.Sequential(nn.Linear(width, 32, **kw), nn.ReLU()), nn.Sequential(nn.LayerNorm(32, **kw), nn.Linear(32, 10, **kw)))
    else:  # empty: the identity
        seq = nn.Sequential()
    _fill(t, seq)
    return seq


_SEQ_SHAPES = {"small": (16, 16), "large": (512, 512)}


@_case(
    "torch.nn.Sequential",
    dtype=FLOATS,
    shape=_SEQ_SHAPES,
    params={"config": ["mlp", "cnn", "named", "append", "nested", "slice", "index", "empty"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (d == "float32" or p["config"] in ("mlp", "cnn"))
    and (s == "small" or (d == "float32" and p["config"] in ("mlp", "cnn")))
    and (m == "eager" or (d == "float32" and s == "small" and p["config"] == "mlp")),
    grid="small",
    # bfloat16 rounds the activations between layers: a max-pool window whose two largest values are within a
    # bfloat16 ulp routes the gradient to the other element than the float64 reference does (O(1) at a few of
    # 12288 elements), on any device. The loosened elements are those; every other stays in the oracle's bound.
    tol={**ACCUMULATING, "bfloat16": (5e-2, 0.25)},
    note="dims are (batch, width). mlp: Linear-ReLU-Linear; cnn: Conv2d-BatchNorm2d(train)-ReLU-MaxPool2d-"
    "Flatten-Linear on (batch, 3, width, width) images (large: 16 images of 64x64); named: built from an "
    "OrderedDict; append: built with .append; nested Sequentials with LayerNorm; slice: seq[1:] (a new "
    "Sequential); index: seq[0]; empty: Sequential() is the identity. Forward and backward",
)
def sequential(t: Ctx):
    batch, width = t.shape
    cfg = t.p.config
    if cfg == "cnn":
        if t.case.shape_name == "large":
            batch, width = 16, 64
        x = t.randn((batch, 3, width, width))
    else:
        x = t.randn((batch, width))
    x.requires_grad_(True)
    seq = _sequential(t, cfg, width)
    layers = _host_layers(t, seq[0] if cfg == "index" else seq)

    def reference(xs, gs):
        y, gx, grads = ref.chain_vjp(layers, xs[0], gs[0], t.dtype_name)
        return [y, gx, *grads]

    if cfg == "slice":
        first, rest = seq[0], seq[1:]
        call = _vjp(t, lambda x: rest(first(x)), [x], seq.parameters())
    elif cfg == "index":
        call = _vjp(t, lambda x: seq[0](x), [x], seq[0].parameters())
    else:
        call = _vjp(t, seq, [x], seq.parameters())
    if cfg == "cnn":
        routed = {d: dict(v, frac=0.01) for d, v in _CNN_TOL.items()}  # grad_x: 1% of the elements may follow another pick
        tol = [_CNN_TOL, routed] + [_CNN_TOL] * 6
    else:
        tol = _SEQ_TOL if cfg != "empty" else ref.EXACT
    return _vjp_reference(t, call, 1, reference, tol)


# Sequential chains several layers (BatchNorm and LayerNorm divide by batch statistics): chain tolerances for half;
# the cnn's convolution may run in TF32 on a GPU (see ref.CONV), and its max pool picks the maximum of each window as
# the device rounds it: where rounding decides a near-tie, the gradient goes to the neighbour
_SEQ_TOL = ref.STEPS
_CNN_TOL = dict(ref.CONV, float16=ref.CHAIN["float16"], bfloat16=ref.CHAIN["bfloat16"])


def _host_layers(t: Ctx, module) -> list:
    """The host (NumPy) layers of a Sequential (nested ones flattened) or of one layer, with host copies of its
    parameters."""
    nn = t.fw.nn
    if isinstance(module, nn.Sequential):
        return [layer for child in module for layer in _host_layers(t, child)]
    if isinstance(module, nn.Linear):
        return [ref.LinearL(ref.host(module.weight), ref.host(module.bias))]
    if isinstance(module, nn.Conv2d):
        return [ref.ConvL(ref.Conv(ref.host(module.weight), ref.host(module.bias), module.stride, module.padding, module.dilation,
                                   module.groups, module.padding_mode))]
    if isinstance(module, nn.BatchNorm2d):  # training mode: batch statistics
        return [ref.BatchNormTrainL(ref.host(module.weight), ref.host(module.bias), module.eps)]
    if isinstance(module, nn.LayerNorm):
        return [ref.LayerNormL(ref.host(module.weight), ref.host(module.bias), module.eps)]
    simple = {nn.ReLU: ref.ReLUL, nn.Tanh: ref.TanhL, nn.MaxPool2d: ref.MaxPool2L, nn.Flatten: ref.FlattenL}
    if isinstance(module, nn.GELU):
        return [ref.GELUL(module.approximate)]
    return [simple[type(module)]()]


# ----------------------------------------------------------------- torch.nn.Transformer

_TRANSFORMER_SIZES = {  # d_model, nhead, ff, src len, tgt len, batch
    "small": (16, 2, 32, 6, 5, 3),
    "large": (128, 4, 256, 64, 64, 8),
}


@_case(
    "torch.nn.Transformer",
    dtype=FLOATS,
    shape=_TRANSFORMER_SIZES,
    params={
        "config": ["default", "batch-first", "norm-first", "gelu", "causal", "padding-mask", "unbatched"],
        "pass": ["train", "eval"],
    },
    where=lambda d, s, m, p: (d == "float32" and s == "small")
    or (d == "float64" and s == "small" and p["config"] == "default" and p["pass"] == "train")
    or (d in ("float16", "bfloat16") and s == "small" and p["config"] in ("default", "batch-first") and p["pass"] == "eval")
    or (d == "float32" and s == "large" and p["config"] in ("default", "batch-first") and (p["pass"] == "train") == (p["config"] == "default")),
    grid="small",
    note="module_db Transformer with 2 encoder and 2 decoder layers, dropout=0 so it is deterministic; sizes are "
    "(d_model, nhead, dim_feedforward, src len, tgt len, batch). config: batch_first, norm_first, "
    "activation='gelu', a causal tgt mask (generate_square_subsequent_mask, tgt_is_causal), key padding masks "
    "for src and memory, unbatched 2-D inputs. pass=train: training mode, forward and backward; pass=eval: "
    "inference under no_grad, where the encoder may take the fused 'fast path' (and nested tensors with a "
    "padding mask). No compiled case: compiling it costs minutes on a CPU",
)
def transformer(t: Ctx):
    torch = t.fw
    d_model, nhead, ff, s_len, t_len, batch = t.shape
    cfg = t.p.config
    batch_first = cfg in ("batch-first", "padding-mask")
    model = torch.nn.Transformer(
        d_model=d_model, nhead=nhead, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=ff,
        dropout=0.0, activation="gelu" if cfg == "gelu" else "relu", batch_first=batch_first,
        norm_first=cfg == "norm-first", device=t.device, dtype=t.dtype,
    )
    _fill(t, model)

    def seq(length):
        if cfg == "unbatched":
            return t.randn((length, d_model))
        return t.randn((batch, length, d_model) if batch_first else (length, batch, d_model))

    src, tgt = seq(s_len), seq(t_len)
    kwargs = {}
    if cfg == "causal":
        kwargs = dict(tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(t_len, device=t.device, dtype=t.dtype), tgt_is_causal=True)
    elif cfg == "padding-mask":
        pad = np.zeros((batch, s_len), dtype=bool)
        pad[:, s_len - 2:] = True  # the last two source positions of every sequence are padding
        pad[0, :] = False
        mask = t.from_numpy(pad)
        kwargs = dict(src_key_padding_mask=mask, memory_key_padding_mask=mask)

    params = {n: ref.host(p) for n, p in model.named_parameters()}
    names = list(params)
    host_kw = dict(nhead=nhead, norm_first=cfg == "norm-first", activation="gelu" if cfg == "gelu" else "relu", batch_first=batch_first)
    if cfg == "causal":
        host_kw["tgt_mask"] = ref.host(kwargs["tgt_mask"])
    elif cfg == "padding-mask":
        host_kw.update(src_key_padding=pad, memory_key_padding=pad)

    if getattr(t.p, "pass") == "eval":
        model.eval()

        def infer(src, tgt):
            with torch.no_grad():
                return model(src, tgt, **kwargs)

        return t.call(infer, src, tgt).reference(
            "equals the float64 host transformer", ref.check(lambda s, g: ref.transformer(params, s, g, **host_kw), _TRANSFORMER_TOL, t.dtype_name)
        )
    model.train()
    src.requires_grad_(True)
    tgt.requires_grad_(True)
    rtol = {"float64": 1e-6}.get(t.dtype_name, 2e-3)

    def matches(outs, ins):
        s, g, cot = (ref.as64(i) for i in ins)

        def loss(point):
            return float(np.sum(cot * ref.transformer(dict(zip(names, point[2:])), point[0], point[1], **host_kw)))

        point = [s, g] + [params[n] for n in names]
        return ref.close(outs[0], ref.transformer(params, s, g, **host_kw), _TRANSFORMER_TOL, t.dtype_name, t.case.id) and ref.directional(
            loss, point, outs[1:], rtol, t.case.id, groups
        )

    groups = None  # small: each gradient along itself; large: the inputs, then the parameters of each layer together
    if t.case.shape_name == "large":
        prefixes = sorted({".".join(n.split(".")[:3]) for n in names})
        groups = [[0], [1]] + [[2 + i for i, n in enumerate(names) if n.startswith(pre + ".")] for pre in prefixes]

    return _vjp(t, lambda s, g: model(s, g, **kwargs), [src, tgt], model.parameters()).reference(
        "output equals the float64 host transformer; each gradient G matches the host derivative along G", matches
    )


# a chain of 4 attention and feed-forward layers with LayerNorms
_TRANSFORMER_TOL = dict(ref.CHAIN, float32=dict(rtol=1e-4, rms=1e-4))


# ------------------------------------------------------------------- torch.nn.KLDivLoss

_KL_SHAPES = {"scalar": (), "vector": (10,), "small": (16, 10), "empty": (0, 10), "transposed": (16, 10), "large": (1024, 1024)}


@_case(
    "torch.nn.KLDivLoss",
    dtype=FLOATS,
    shape=_KL_SHAPES,
    params={"reduction": ["none", "mean", "sum", "batchmean"], "log_target": [False, True]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (d == "float32" and s == "small")
        or (d == "float32" and not p["log_target"] and p["reduction"] == ("sum" if s == "scalar" else "batchmean"))
        or (d != "float32" and s == "small" and (p["reduction"], p["log_target"]) in (("batchmean", False), ("none", True)))
    )
    and (m == "eager" or (d == "float32" and s == "small" and p["reduction"] == "batchmean" and not p["log_target"])),
    grid="small",
    note="module_db KLDivLoss: every reduction (mean warns: it is not the KL divergence; batchmean is) and "
    "log_target; the input is log-probabilities (minus values in [0.5, 2.5)), the target probabilities in "
    "[0.2, 1) or their logs. batchmean needs a batch dim, so the 0-d case uses sum. Forward and backward "
    "(grad of the input); checked against the formula in float64",
)
def kl_div_loss(t: Ctx):
    import warnings

    torch = t.fw
    red, log_target = t.p.reduction, t.p.log_target
    shape = tuple(t.shape)
    if not inexact(t):  # integer and bool (grid) cases: the dtype's own values, forward only
        x, target = t.randn(shape), t.positive(shape)
    else:
        if t.case.shape_name == "transposed":
            x = (-t.positive(shape[::-1])).t()
        else:
            x = -t.positive(shape)
        target = t.positive(shape) * 0.4
        if log_target:
            target = target.log()
        x = x.detach().requires_grad_(True)
    loss = torch.nn.KLDivLoss(reduction=red, log_target=log_target)

    def f(x, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return loss(x, y)

    def reference(xs, gs):
        lx, y = xs
        target_p = np.exp(y) if log_target else y
        pointwise = target_p * (y - lx) if log_target else y * (np.log(y) - lx)
        n, b = pointwise.size, pointwise.shape[0] if pointwise.ndim else 1
        nan = float("nan")
        want = {"none": pointwise, "sum": pointwise.sum(), "mean": pointwise.mean() if n else nan,
                "batchmean": pointwise.sum() / b if pointwise.ndim and b else nan}[red]
        factor = {"none": 1.0, "sum": 1.0, "mean": 1.0 / max(n, 1), "batchmean": 1.0 / max(b, 1)}[red]
        return [want, -target_p * gs[0] * factor]

    return _vjp_reference(t, _vjp(t, f, [x, target], []), 2, reference, ref.ACCUMULATE, "matches the KL formula and its gradient")


# ----------------------------------------------------------- torch.nn.BCEWithLogitsLoss

_BCE_SHAPES = {"scalar": (), "small": (16, 10), "3d": (4, 8, 10), "empty": (0, 10), "transposed": (16, 10), "large": (1024, 1024)}


@_case(
    "torch.nn.BCEWithLogitsLoss",
    dtype=FLOATS,
    shape=_BCE_SHAPES,
    params={"reduction": ["none", "mean", "sum"], "weights": ["none", "weight", "pos_weight", "both"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (d == "float32" and s == "small" and (p["weights"] == "none" or p["reduction"] == "mean"))
        or (d == "float32" and s == "small" and p["weights"] == "both" and p["reduction"] == "sum")
        or (d == "float32" and s not in ("small",) and p["reduction"] == "mean" and p["weights"] == ("pos_weight" if s in ("3d", "large") else "none"))
        or (d != "float32" and s == "small" and p["reduction"] == "mean" and p["weights"] in ("none", "pos_weight"))
    )
    and (m == "eager" or (d == "float32" and s == "small" and p["reduction"] == "mean" and p["weights"] == "pos_weight")),
    grid="small",
    note="module_db BCEWithLogitsLoss: reductions none/mean/sum; weight (per class, broadcast over the batch) and "
    "pos_weight (per class, the last dim), alone and together; targets in [0.2, 1); 0-d, 3-D (pos_weight "
    "broadcasts over the leading dims), empty, non-contiguous and large inputs. Forward and backward (grad of "
    "the logits); checked against the log-sum-exp formula in float64",
)
def bce_with_logits(t: Ctx):
    torch = t.fw
    red, which = t.p.reduction, t.p.weights
    shape = tuple(t.shape)
    if t.case.shape_name == "transposed":
        x = t.randn(shape[::-1]).t()
    else:
        x = t.randn(shape)
    if inexact(t):
        x = x.detach().requires_grad_(True)
        target = t.positive(shape) * 0.4
    else:  # integer and bool (grid) cases: targets of the dtype, forward only
        target = t.positive(shape)
    classes = shape[-1] if shape else 1
    weight = t.positive((classes,)) if which in ("weight", "both") and shape else None
    pos_weight = t.positive((classes,)) if which in ("pos_weight", "both") and shape else None
    loss = torch.nn.BCEWithLogitsLoss(weight=weight, reduction=red, pos_weight=pos_weight)
    w = None if weight is None else weight.double().cpu().numpy()
    pw = None if pos_weight is None else pos_weight.double().cpu().numpy()
    def reference(xs, gs):
        return _bce(xs[0], xs[1], w, pw, red, gs[0])

    # the gradient formula is several ops, each rounded in half precision
    return _vjp_reference(t, _vjp(t, loss, [x, target], []), 2, reference, [ref.ACCUMULATE, ref.STEPS],
                          "matches the log-sum-exp formula and its gradient")


def _bce(z, y, w, pw, red, g):
    """[loss, grad of the logits] of BCEWithLogitsLoss in float64 (log-sum-exp form)."""
    log_sig, log_one_minus = -np.logaddexp(0, -z), -np.logaddexp(0, z)
    pos = pw if pw is not None else 1.0
    pointwise = -(pos * y * log_sig + (1 - y) * log_one_minus)
    sig = ref.sigmoid(z)
    dz = (1 - y) * sig - pos * y * (1 - sig)
    if w is not None:
        pointwise, dz = pointwise * w, dz * w
    n = pointwise.size
    want = {"none": pointwise, "sum": pointwise.sum(), "mean": pointwise.mean() if n else float("nan")}[red]
    return [want, dz * g * (1.0 / max(n, 1) if red == "mean" else 1.0)]


@_case(
    "torch.nn.BCEWithLogitsLoss",
    dtype=["float32", "float16", "bfloat16"],
    shape={"extreme": (64,)},
    note="numerical stability: logits of +-100 with targets 0 and 1 must give finite losses and gradients "
    "(the log-sum-exp form; a naive log(sigmoid) gives inf)",
)
def bce_with_logits_extreme(t: Ctx):
    torch = t.fw
    z = np.where(np.arange(64) % 2 == 0, 100.0, -100.0)
    y = (np.arange(64) % 4 < 2).astype(np.float64)  # half the signs agree with the target, half do not
    x = from_host(t, z).requires_grad_(True)
    target = from_host(t, y)
    loss = torch.nn.BCEWithLogitsLoss()
    call = _vjp(t, loss, [x, target], []).check(
        "finite loss and grads", lambda outs, ins: all(bool(np.all(np.isfinite(o.astype(np.float64)))) for o in outs)
    )
    # the answers are exact in every dtype: a mean of 0s and 100s, gradients 0 and +-1/64
    return _vjp_reference(t, call, 2, lambda xs, gs: _bce(xs[0], xs[1], None, None, "mean", gs[0]), ref.POINTWISE,
                          "loss (mean of 0 and 100) and gradient ((sigmoid(z) - y) / 64) equal the formula")


# ------------------------------------------------------------ torch.nn.Module.state_dict


def _module_for(t: Ctx, kind: str):
    torch = t.fw
    nn = torch.nn
    kw = dict(device=t.device, dtype=t.dtype)
    if kind == "linear" and not inexact(t):  # integer and bool (grid) cases: nn.Linear itself is float or complex, so
        m = nn.Linear(16, 8, device=t.device)  # its parameters are replaced by ones of the dtype (no grad: they take none)
        for name, p in list(m.named_parameters()):
            setattr(m, name, nn.Parameter(t.randn(tuple(p.shape)), requires_grad=False))
        return m
    if kind == "linear":
        m = nn.Linear(16, 8, **kw)
    elif kind == "batchnorm":
        m = nn.BatchNorm1d(8, **kw)
    elif kind == "sequential":
        m = nn.Sequential(nn.Conv2d(3, 4, 3, **kw), nn.BatchNorm2d(4, **kw), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 5, **kw))
    elif kind == "lstm":
        m = nn.LSTM(8, 16, num_layers=2, **kw)
    else:  # large: 4M parameters
        m = nn.Linear(2048, 2048, bias=False, **kw)
    _fill(t, m)
    if kind in ("batchnorm", "sequential"):  # one training step moves the running statistics
        x = t.randn((4, 8) if kind == "batchnorm" else (4, 3, 8, 8))
        with torch.no_grad():
            m.train()(x)
    return m


@cases.case(
    "torch.nn.Module.state_dict",
    dtype=["float32", "float64", "float16", "bfloat16", "complex64"],
    shape={"linear": (), "batchnorm": (), "sequential": (), "lstm": (), "large": ()},
    params={"op": ["state_dict", "keep_vars", "prefix", "roundtrip", "load-nonstrict"]},
    where=lambda d, s, m, p: (d == "float32" and (s != "large" or p["op"] in ("state_dict", "roundtrip")))
    or (d != "float32" and s == "linear" and p["op"] in ("state_dict", "roundtrip"))
    or (d == "float64" and s == "batchnorm" and p["op"] == "roundtrip"),
    grid="linear",
    note="shape names the module: Linear, BatchNorm1d (buffers: running stats, num_batches_tracked after one "
    "training step), a nested Sequential (Conv2d, BatchNorm2d, Linear), a 2-layer LSTM, a 2048x2048 Linear "
    "(4M parameters). op: state_dict(); keep_vars=True (Parameters instead of detached tensors); "
    "prefix='model.'; roundtrip: load_state_dict into a fresh module of the same shape and read its state_dict "
    "back; load-nonstrict: strict=False with one key missing reports it. Returned as a dict of tensors with a "
    "flag that the keys are the module's names",
)
def state_dict(t: Ctx):
    torch = t.fw
    kind, op = t.case.shape_name, t.p.op
    m = _module_for(t, kind)
    expected = [n for n, _ in m.named_parameters()] + [n for n, _ in m.named_buffers()]
    expected_set = set(expected)
    known = {n: ref.host(v) for n, v in list(m.named_parameters()) + list(m.named_buffers())}  # the module's state

    def holds(state: dict):
        """Reference: the returned state (the dict's values by sorted key, then the flag) is `state` exactly."""

        def ok(outs, ins):
            return ref.all_close(outs[:-1], [state[k] for k in sorted(state)], ref.EXACT, t.dtype_name, t.case.id)

        return ok

    if op in ("state_dict", "keep_vars", "prefix"):
        prefix = "model." if op == "prefix" else ""

        def fn():
            sd = m.state_dict(prefix=prefix, keep_vars=op == "keep_vars")
            keys_ok = {k[len(prefix):] for k in sd} == expected_set and all(k.startswith(prefix) for k in sd)
            kinds_ok = all(isinstance(v, torch.nn.Parameter) == (op == "keep_vars" and k[len(prefix):] in dict(m.named_parameters())) for k, v in sd.items())
            return {"state": dict(sd), "verified": _flag(t, keys_ok, kinds_ok)}

        return (
            t.call(fn)
            .check("keys are the module's names; Parameters only with keep_vars", _last_true)
            .reference("values are the module's parameters and buffers", holds(known))
        )
    fresh = _module_for(t, kind)
    with torch.no_grad():
        for p in fresh.parameters():
            p.zero_()
    if op == "roundtrip":

        def fn():
            fresh.load_state_dict(m.state_dict())
            b = fresh.state_dict()
            return {"state": dict(b), "verified": _flag(t, set(b) == expected_set)}

        return (
            t.call(fn)
            .check("the fresh module has the same keys", _last_true)
            .reference("the fresh module's state is the source's, exactly", holds(known))
        )
    missing_name = expected[0]  # a parameter: BatchNorm fills in a missing num_batches_tracked itself
    partial = dict(known, **{missing_name: np.zeros_like(known[missing_name])})  # the missing one keeps its zeros

    def nonstrict():
        sd = dict(m.state_dict())
        sd.pop(missing_name)
        result = fresh.load_state_dict(sd, strict=False)
        return {"state": dict(fresh.state_dict()),
                "verified": _flag(t, list(result.missing_keys) == [missing_name], list(result.unexpected_keys) == [])}

    return (
        t.call(nonstrict)
        .check("reports the missing key", _last_true)
        .reference("loads every other key; the missing one keeps its value", holds(partial))
    )


# ------------------------------------------------------------ torch.nn.Module.zero_grad


@cases.case(
    "torch.nn.Module.zero_grad",
    dtype=["float32", "float64", "float16", "bfloat16"],
    shape={"linear": (32, 64, 16), "sequential": (32, 64, 16), "large": (64, 2048, 2048)},
    params={"set_to_none": [True, False]},
    where=cross("float32", "linear"),
    grid="linear",
    note="shape is (batch, in, out); sequential: Linear-ReLU-Linear-LayerNorm; large: a 2048x2048 Linear. The timed "
    "call runs forward and backward (so every grad is set) then zero_grad; set_to_none=True (the default since "
    "2.0) must leave every .grad None, False must leave zero tensors. Returns the grads (zeros) or a None flag",
)
def zero_grad(t: Ctx):
    torch = t.fw
    nn = torch.nn
    batch, n_in, n_out = t.shape
    kw = dict(device=t.device, dtype=t.dtype)
    if t.case.shape_name == "sequential":
        m = nn.Sequential(nn.Linear(n_in, 32, **kw), nn.ReLU(), nn.Linear(32, n_out, **kw), nn.LayerNorm(n_out, **kw))
    else:
        m = nn.Linear(n_in, n_out, **kw)
    _fill(t, m)
    x = t.randn((batch, n_in))
    to_none = t.p.set_to_none
    params = list(m.parameters())

    def fn(x):
        m(x).float().pow(2).sum().backward()
        had = all(p.grad is not None for p in params)
        m.zero_grad(set_to_none=to_none)
        if to_none:
            return _flag(t, had, *[p.grad is None for p in params])
        return tuple(p.grad for p in params) + (_flag(t, had),)

    if to_none:
        return t.call(fn, x).check("grads were set, now None", _all_true)
    return (
        t.call(fn, x)
        .check("grads were set", lambda outs, ins: bool(outs[-1].all()))
        .reference("every grad is now zero", lambda outs, ins: len(outs) == len(params) + 1 and not any(np.any(o) for o in outs[:-1]))
    )


# ------------------------------------------------------ torch.nn.Parameter.register_parameter

_REGISTER_NOTE = (
    "the paper lists torch.nn.Parameter.register_parameter, which does not exist: register_parameter is a "
    "method of torch.nn.Module (Parameter is a Tensor subclass); these cases test "
    "torch.nn.Module.register_parameter"
)


@cases.case(
    "torch.nn.Parameter.register_parameter",
    dtype=["float32"],
    shape={"as-listed": ()},
    note=_REGISTER_NOTE + "; this one looks up the name as listed and is unavailable by design (the finding)",
    successor="torch.nn.Module.register_parameter",
)
def register_parameter_as_listed(t: Ctx):
    from mudjack_probe.errors import NameMissing

    torch = t.fw
    if not hasattr(torch.nn.Parameter, "register_parameter"):
        raise NameMissing(
            "torch.nn.Parameter.register_parameter",
            f"torch.nn.Parameter has no attribute register_parameter in torch {torch.__version__}; "
            "it is torch.nn.Module.register_parameter",
        )
    return t.call(lambda: _flag(t, True))


@_case(
    "torch.nn.Parameter.register_parameter",
    dtype=["float32", "float64", "float16", "bfloat16", "complex64"],
    shape={"small": (16, 8), "large": (2048, 2048)},
    params={"use": ["forward", "replace"]},
    where=lambda d, s, m, p: (s == "small" or d == "float32") and (p["use"] == "forward" or (d == "float32" and s == "small")),
    grid="small",
    note=_REGISTER_NOTE + ". forward: register a Parameter on a bare Module, use it in a forward pass, backward "
    "reaches it (its grad is returned) and it is listed by named_parameters; replace: registering the same "
    "name again swaps the Parameter",
    successor="torch.nn.Module.register_parameter",
)
def register_parameter(t: Ctx):
    torch = t.fw
    nn = torch.nn
    rows, cols = t.shape
    grads = inexact(t)  # integer and bool (grid) cases: a Parameter with requires_grad=False (they take no gradient)
    w0 = t.randn((rows, cols)) * (1.0 / math.sqrt(cols)) if grads else t.randn((rows, cols))
    x = t.randn((4, cols))
    replace = t.p.use == "replace"
    w1 = t.randn((rows, cols)) if replace else None

    def forward_only(w0, x):
        m = nn.Module()
        m.register_parameter("weight", nn.Parameter(w0.clone(), requires_grad=False))
        listed = [n for n, _ in m.named_parameters()] == ["weight"]
        return x @ m.weight.mT, _flag(t, listed, isinstance(m.weight, nn.Parameter))

    def wraps(outs, ins):  # integers multiply and add in their dtype (wrapping around); bools: or of ands
        w, xx = ins[0], ins[1]
        want = (xx @ w.T) if w.dtype == np.bool_ else (xx.astype(np.int64) @ w.T.astype(np.int64)).astype(w.dtype)
        return ref.close(outs[0], want)

    if not grads:
        return (
            t.call(forward_only, w0, x)
            .check("listed by named_parameters, a Parameter", lambda outs, ins: bool(outs[1].all()))
            .reference("y = x W^T in the dtype, W the registered Parameter", wraps)
        )

    def fn(w0, x):
        m = nn.Module()
        m.register_parameter("weight", nn.Parameter(w0.clone()))
        if replace:
            m.register_parameter("weight", nn.Parameter(w1.clone()))
        y = x @ m.weight.mT
        (g,) = torch.autograd.grad(y.abs().pow(2).sum(), [m.weight])
        listed = [n for n, _ in m.named_parameters()] == ["weight"]
        return y.detach(), g, _flag(t, listed, isinstance(m.weight, nn.Parameter))

    w_used = ref.host(w1) if replace else None

    def reference(outs, ins):  # y = x W^T; the gradient of sum |y|^2 is 2 y^T conj(x)
        w, xx = (w_used if replace else ref.as64(ins[0])), ref.as64(ins[1])
        y = xx @ w.T
        return ref.all_close(outs[:2], [y, 2 * y.T @ np.conj(xx)], ref.ACCUMULATE, t.dtype_name, t.case.id)

    return (
        t.call(fn, w0, x)
        .check("listed by named_parameters, a Parameter", lambda outs, ins: bool(outs[2].all()))
        .reference("y = x W^T and its gradient 2 y^T conj(x), W the registered Parameter", reference)
    )


@cases.case(
    "torch.nn.Parameter.register_parameter",
    dtype=["float32"],
    shape={"small": (4,)},
    params={"case": ["none", "dotted-name", "empty-name", "existing-attr", "not-a-parameter"]},
    note=_REGISTER_NOTE + ". none: registering None declares the name without a parameter (getattr gives None, "
    "parameters() skips it); the others are test_nn's error cases: a name with '.', an empty name, a name that "
    "is already a plain attribute (KeyError) and a plain tensor instead of a Parameter (TypeError)",
    successor="torch.nn.Module.register_parameter",
)
def register_parameter_edges(t: Ctx):
    torch = t.fw
    nn = torch.nn
    which = t.p.case
    w = t.randn()

    def fn(w):
        m = nn.Module()
        if which == "none":
            m.register_parameter("bias", None)
            return _flag(t, m.bias is None, len(list(m.parameters())) == 0, "bias" in m._parameters)
        m.plain = 1
        name, value = {
            "dotted-name": ("a.b", nn.Parameter(w.clone())),
            "empty-name": ("", nn.Parameter(w.clone())),
            "existing-attr": ("plain", nn.Parameter(w.clone())),
            "not-a-parameter": ("weight", w.clone()),
        }[which]
        want = TypeError if which == "not-a-parameter" else KeyError
        try:
            m.register_parameter(name, value)
        except want:
            return _flag(t, True)
        return _flag(t, False)

    return t.call(fn, w).check("behaves as documented", _all_true)
