"""Host references for the torch*.py case files (not a case file: its name starts with "_").

Everything here is NumPy (and Python's math) in float64 or complex128 and never
imports torch: bodies get torch as `t.fw`, and the checks built here compare a
case's outputs with a computation that does not use it. Module weights are not
case inputs: bodies copy them to the host (`host(layer.weight)`) outside the
timed call and close over the copies.

Comparisons (`close`) take a tolerance per output dtype:

- `rtol` (relative to each reference element), `rms` (absolute, in units of
  the reference's root mean square: sums and products of many terms lose
  precision relative to the size of their terms, not of each result) and
  `atol` (absolute);
- `ulps`: for float16 and bfloat16, the reference is first rounded to the case
  dtype (what a correctly rounded result is) and `ulps` units in the last place
  of that dtype are allowed;
- `gain`: the least-squares gain <got, ref> / <ref, ref> must be within `gain`
  of 1. Rounding errors of a half-precision computation are not all of one
  sign, so over many elements they average out of the gain, while a result that
  is off by a constant factor (a wrong scale, a missing normalisation) shows in
  it: this lets a bfloat16 case whose elements honestly differ by more than 1%
  still see a 1% error of the whole. Used only where an output has enough
  elements (`GAIN_MIN`) for the average to mean something, and widened as
  1/sqrt(n) below `GAIN_N` elements;
- `frac`: the fraction of elements allowed outside the bound, where a few
  elements may honestly take another branch (a max pool whose window holds a
  near-tie that the device's rounding decides: the gradient then goes to the
  neighbour). A wrong scale moves every element; a NaN fails regardless.

NaN must match NaN and infinities must match exactly, wherever the tolerance.
Setting MUDJACK_REF_DEBUG=1 prints each comparison's margin (worst error over
its bound: below 1 passes) to stderr, for calibrating tolerances.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mudjack_probe.api import as64, np  # numpy, loaded on first use (listing needs none)

HALF = ("float16", "bfloat16")
GAIN_MIN = 64  # the gain is tested on outputs of at least this many elements,
GAIN_N = 250  # with its tolerance widened by sqrt(GAIN_N / n) below this many (the noise of an average)

# ------------------------------------------------------------------ tolerance profiles
# dtype -> dict(rtol=, rms=, atol=, ulps=, gain=, frac=). "pointwise": one operation
# computed in a wider type and rounded once; "accumulate": sums, products and
# convolutions over many terms and short chains of such ops; "chain": deep
# compositions (several layers, optimiser steps) that round at every step.

POINTWISE: dict[str, dict[str, float]] = {
    "float64": dict(rtol=1e-12, rms=1e-13),
    "float32": dict(rtol=1e-5, rms=1e-6),
    "complex64": dict(rtol=1e-5, rms=1e-6),
    "float16": dict(ulps=2, rms=1e-4),
    "bfloat16": dict(ulps=1, rms=1e-3),
}

ACCUMULATE: dict[str, dict[str, float]] = {
    "float64": dict(rtol=1e-9, rms=1e-10),
    "float32": dict(rtol=1e-4, rms=1e-5),
    "complex64": dict(rtol=1e-4, rms=1e-5),
    "float16": dict(ulps=2, rms=2e-3, gain=2e-3),
    "bfloat16": dict(ulps=2, rms=1e-2, gain=3e-3),
}

# Convolutions: float32 on a GPU may run in TF32 (torch.backends.cudnn.allow_tf32
# defaults to True: 10 mantissa bits, about 5e-4 relative to the terms); the
# half-precision backward (grad of the input, of the weight) rounds its partial
# sums on the CPU: up to 0.7% (float16) and 4% (bfloat16) of the gradient's RMS
# measured, where the gain still sees a 1% error of the whole.
CONV = dict(
    ACCUMULATE,
    float32=dict(rtol=3e-3, rms=3e-3),
    complex64=dict(rtol=3e-3, rms=3e-3),
    float16=dict(ulps=2, rms=2e-2, gain=2e-3),
    bfloat16=dict(ulps=2, rms=8e-2, gain=3e-3),
)

CHAIN: dict[str, dict[str, float]] = {
    "float64": dict(rtol=1e-8, rms=1e-9),
    "float32": dict(rtol=1e-3, rms=1e-4),
    "complex64": dict(rtol=1e-3, rms=1e-4),
    "float16": dict(rtol=3e-3, rms=1e-2, gain=2e-3),
    "bfloat16": dict(rtol=2e-2, rms=0.12, gain=4e-3),
}

# float32/float64 as ACCUMULATE, half precision as CHAIN: a few elementwise ops that a half-precision kernel
# rounds one by one (gates of a recurrent cell, a loss's gradient formula, a short stack of layers).
STEPS: dict[str, dict[str, float]] = dict(ACCUMULATE, float16=CHAIN["float16"], bfloat16=CHAIN["bfloat16"])

EXACT: dict[str, float] = {}

_DEBUG = bool(os.environ.get("MUDJACK_REF_DEBUG"))


# ------------------------------------------------------------------ arrays




def host(x: Any) -> Any:
    """A torch tensor (or None) as a float64/complex128 numpy copy; call it in a body, outside the timed call."""
    if x is None:
        return None
    t = x.detach().cpu().resolve_conj().resolve_neg()
    if t.is_complex():
        return t.to(dtype=_torch_of(t).complex128).numpy()
    if t.is_floating_point():
        return t.to(dtype=_torch_of(t).float64).numpy()
    return t.numpy().copy()


def _torch_of(tensor: Any) -> Any:
    return sys.modules[type(tensor).__module__.split(".")[0]]


def _bf16_round(x: Any) -> Any:
    """Round float64 values to bfloat16 (nearest, ties to even), returned as float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.asarray(x, dtype=np.float64).astype(np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    # uint64 constants: NumPy 1.x promotes uint64 with a Python int to float64
    one, half, shift = np.uint64(1), np.uint64(0x7FFF), np.uint64(16)
    rounded = ((bits + half + ((bits >> shift) & one)) >> shift) << shift
    out = rounded.astype(np.uint32).view(np.float32)
    out = np.where(np.isnan(f), np.float32(np.nan), out)
    return out.astype(np.float64)


def round_to(x: Any, dtype_name: str) -> Any:
    """A float64 reference rounded to `dtype_name` (float16, bfloat16, float32) and back to float64;
    complex and other dtypes are returned as they are."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return x
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype_name == "float16":
            return x.astype(np.float16).astype(np.float64)
        if dtype_name == "bfloat16":
            return _bf16_round(x)
        if dtype_name == "float32":
            return x.astype(np.float32).astype(np.float64)
    return x


def ulp(x: Any, dtype_name: str) -> Any:
    """The spacing of `dtype_name` (float16 or bfloat16) at |x|."""
    mant, tiny = {"float16": (10, -14), "bfloat16": (7, -126)}[dtype_name]
    a = np.abs(np.asarray(x, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(np.where(np.isfinite(e), e, 0.0), tiny)
    return np.exp2(e - mant)


def rms(x: Any) -> float:
    a = np.abs(as64(x))
    a = a[np.isfinite(a)]
    return float(np.sqrt(np.mean(a * a))) if a.size else 0.0


def _report(label: str, margin: float) -> None:
    if _DEBUG:
        print(f"[ref] {label}: margin {margin:.3g}", file=sys.stderr)


_KEYS = ("rtol", "rms", "atol", "ulps", "gain", "frac")


class Scaled:
    """A reference with the scale of the terms it sums: `rms` tolerances are taken relative to the larger of the
    reference's RMS and `scale` (a number, or an array of the reference's shape: per element), since a sum that
    cancels (the gradient of a bias followed by a batch norm, beta*M + alpha*outer) keeps the rounding errors of
    its terms."""

    def __init__(self, value: Any, scale: float) -> None:
        self.value, self.scale = value, scale


def _entry(tol: dict[str, Any] | None, dtype: str, got: Any) -> dict[str, Any]:
    """One dtype's tolerance: `tol` itself when it is an entry, else its entry for `dtype` (or, for an output
    of another dtype than the case's, for the output's own dtype)."""
    if not tol:
        return {}
    if any(k in tol for k in _KEYS):
        return dict(tol)
    for name in (dtype, _REAL_PART.get(dtype), str(np.asarray(got).dtype)):
        if name in tol:
            return dict(tol[name])
    return dict(tol.get(_REAL_PART.get(str(np.asarray(got).dtype)), {}))


# A complex dtype without its own entry in a profile takes its real part type's: complex128 is compared as float64
_REAL_PART = {"complex64": "float32", "complex128": "float64"}


def close(got: Any, want: Any, tol: dict[str, Any] | None = None, dtype: str = "", label: str = "") -> bool:
    """`got` equals the reference `want` within `tol` (a profile, or one dtype's entry of it: see the module
    docstring); `dtype` names the case dtype the profile is indexed by and half references are rounded to.
    Integer and bool results must be equal. Shapes must match. `want` may be a `Scaled` reference."""
    floor = 0.0
    if isinstance(want, Scaled):
        want, floor = want.value, want.scale
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        _report(f"{label} shape {got.shape} != {want.shape}", math.inf)
        return False
    if got.dtype.kind in "biu" and want.dtype.kind in "biu":
        ok = bool(np.array_equal(got.astype(np.int64), want.astype(np.int64)))
        _report(label, 0.0 if ok else math.inf)
        return ok
    entry = _entry(tol, dtype, got)
    g, w = as64(got), as64(want)
    if g.dtype.kind == "c" or w.dtype.kind == "c":
        g, w = g.astype(np.complex128), w.astype(np.complex128)
    half = dtype in HALF and w.dtype.kind == "f"
    if half:
        w = round_to(w, dtype)
    floor = np.broadcast_to(np.asarray(floor, dtype=np.float64), w.shape)
    gn, wn = np.isnan(g), np.isnan(w)
    if not np.array_equal(gn, wn):
        _report(f"{label} NaN pattern", math.inf)
        return False
    winf = np.isinf(w) & ~wn
    if not np.array_equal(g[winf], w[winf]) or np.any(np.isinf(g) & ~winf):
        _report(f"{label} infinities", math.inf)
        return False
    fin = ~wn & ~winf
    g, w, floor = g[fin], w[fin], floor[fin]
    if not g.size:
        _report(label, 0.0)
        return True
    bound = entry.get("atol", 0.0) + entry.get("rms", 0.0) * np.maximum(rms(w), floor) + entry.get("rtol", 0.0) * np.abs(w)
    if half and entry.get("ulps"):
        bound = bound + entry["ulps"] * ulp(w, dtype)
    err = np.abs(g - w)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(bound > 0, err / np.where(bound > 0, bound, 1.0), np.where(err > 0, np.inf, 0.0))
    frac = entry.get("frac", 0.0)
    margin = float(np.max(ratio)) if not frac else float(np.quantile(ratio, 1.0 - frac, method="lower"))
    ok = margin <= 1.0
    if ok and entry.get("gain") and w.size >= GAIN_MIN:
        den = float(np.real(np.vdot(w, w)))
        if den > 0:
            gain = float(np.real(np.vdot(w, g))) / den
            gmargin = abs(gain - 1.0) / (entry["gain"] * max(1.0, math.sqrt(GAIN_N / w.size)))
            margin = max(margin, gmargin)
            ok = gmargin <= 1.0
    _report(label, margin)
    return ok


def all_close(outs: Sequence[Any], wants: Sequence[Any], tol: Any, dtype: str, label: str = "") -> bool:
    """Every output equals its reference (a reference of None skips that output); the counts must match.
    `tol` is one profile for all, or a list of profiles, one per output."""
    if len(outs) != len(wants):
        _report(f"{label} {len(outs)} outputs, {len(wants)} references", math.inf)
        return False
    tols = tol if isinstance(tol, (list, tuple)) else [tol] * len(wants)
    ok = True
    for i, (o, w) in enumerate(zip(outs, wants)):
        if w is None:
            continue
        ok = close(o, w, tols[i], dtype, f"{label}[{i}]") and ok
        if not ok and not _DEBUG:
            return False
    return ok


def check(reference: Callable[..., Any], tol: Any, dtype: str, label: str = "") -> Callable[[list[Any], list[Any]], bool]:
    """A check fn: the outputs equal `reference(*inputs as float64)` (one array, or a list: one per output)."""

    def ok(outs: list[Any], ins: list[Any]) -> bool:
        want = reference(*[as64(i) for i in ins])
        if isinstance(want, (list, tuple)):
            return all_close(outs, list(want), tol, dtype, label)
        return close(outs[0], want, tol, dtype, label)

    return ok



# ------------------------------------------------------------------ convolution (N-d, groups, padding modes)


def _pad_pairs(padding: Any, kernel: Sequence[int], dilation: Sequence[int]) -> list[tuple[int, int]]:
    nd = len(kernel)
    if padding == "valid":
        return [(0, 0)] * nd
    if padding == "same":  # torch: the total dilation*(k-1), the extra one on the right
        return [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for k, d in zip(kernel, dilation)]
    pads = (padding,) * nd if isinstance(padding, int) else tuple(padding)
    return [(p, p) for p in pads]


def _source_index(length: int, k: int, stride: int, dil: int, pads: tuple[int, int], mode: str) -> Any:
    """(out, k) positions of the input each window element reads; `length` (the extra zero slot) for zero padding."""
    padded = length + pads[0] + pads[1]
    out = (padded - dil * (k - 1) - 1) // stride + 1
    j = np.arange(out)[:, None] * stride + np.arange(k)[None, :] * dil - pads[0]
    if mode == "zeros":
        return np.where((j >= 0) & (j < length), j, length)
    if mode == "reflect":  # no edge repeat: -1 -> 1, length -> length - 2
        j = np.abs(j)
        return np.where(j >= length, 2 * (length - 1) - j, j)
    if mode == "replicate":
        return np.clip(j, 0, length - 1)
    if mode == "circular":
        return j % length
    raise ValueError(mode)


class Conv:
    """torch.nn.ConvNd as a gather of every window (im2col) and a matrix product, with its adjoint for the
    gradients: weights (C_out, C_in/groups, *k), bias (C_out,) or None. Complex follows torch's convention
    (gradients are conjugate-linear: grad_x = W^H g)."""

    def __init__(self, weight: Any, bias: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 padding_mode: str = "zeros") -> None:
        self.w, self.b = weight, bias
        kernel = weight.shape[2:]
        nd = len(kernel)
        self.kernel = tuple(kernel)
        self.stride = (stride,) * nd if isinstance(stride, int) else tuple(stride)
        self.dilation = (dilation,) * nd if isinstance(dilation, int) else tuple(dilation)
        self.pads = _pad_pairs(padding, self.kernel, self.dilation)
        self.groups = groups
        self.mode = padding_mode

    def _index(self, spatial: Sequence[int]) -> tuple[list[Any], list[int]]:
        idx, outs = [], []
        for d, length in enumerate(spatial):
            i = _source_index(length, self.kernel[d], self.stride[d], self.dilation[d], self.pads[d], self.mode)
            idx.append(i)
            outs.append(i.shape[0])
        return idx, outs

    def _patches(self, x: Any) -> tuple[Any, list[Any], list[int]]:
        n, c, *spatial = x.shape
        nd = len(spatial)
        idx, outs = self._index(spatial)
        xe = np.pad(x, [(0, 0), (0, 0)] + [(0, 1)] * nd)  # the zero slot at the end of every spatial dim
        grids = []
        for d in range(nd):
            shape = [1] * (2 * nd)
            shape[2 * d], shape[2 * d + 1] = idx[d].shape
            grids.append(idx[d].reshape(shape))
        p = xe[(slice(None), slice(None), *grids)]  # (N, C, O1, k1, O2, k2, ...)
        order = [0, 1] + [2 + 2 * d for d in range(nd)] + [3 + 2 * d for d in range(nd)]
        p = p.transpose(order)  # (N, C, O..., k...)
        g = self.groups
        q = (c // g) * int(np.prod(self.kernel))
        p = p.reshape(n, g, c // g, int(np.prod(outs)), int(np.prod(self.kernel)))
        p = p.transpose(0, 1, 3, 2, 4).reshape(n, g, int(np.prod(outs)), q)
        return p, idx, outs

    def forward(self, x: Any) -> Any:
        unbatched = x.ndim == len(self.kernel) + 1
        if unbatched:
            x = x[None]
        p, _, outs = self._patches(x)
        g = self.groups
        cout = self.w.shape[0]
        w2 = self.w.reshape(g, cout // g, -1)
        y = np.einsum("ngpq,goq->ngop", p, w2, optimize=True).reshape((x.shape[0], cout, *outs))
        if self.b is not None:
            y = y + self.b.reshape((1, cout) + (1,) * len(outs))
        return y[0] if unbatched else y

    def backward(self, x: Any, gy: Any) -> tuple[Any, Any, Any]:
        """(grad_x, grad_weight, grad_bias or None) for the output cotangent gy."""
        unbatched = x.ndim == len(self.kernel) + 1
        if unbatched:
            x, gy = x[None], gy[None]
        n, c, *spatial = x.shape
        nd = len(spatial)
        p, idx, outs = self._patches(x)
        g = self.groups
        cout = self.w.shape[0]
        npos, kk = int(np.prod(outs)), int(np.prod(self.kernel))
        gy2 = gy.reshape(n, g, cout // g, npos)
        w2 = self.w.reshape(g, cout // g, -1)
        gw = np.einsum("ngop,ngpq->goq", gy2, np.conj(p), optimize=True).reshape(self.w.shape)
        gp = np.einsum("ngop,goq->ngpq", gy2, np.conj(w2), optimize=True)  # (N, G, O, Cg*K)
        gp = gp.reshape(n, g, npos, c // g, kk).transpose(0, 1, 3, 2, 4).reshape(n * c, npos * kk)  # rows (n, c)
        ext = [s + 1 for s in spatial]
        lin = np.zeros([1] * (2 * nd), dtype=np.int64)
        for d in range(nd):
            shape = [1] * (2 * nd)
            shape[d], shape[nd + d] = idx[d].shape  # (O..., k...) order, as the patches
            lin = lin * ext[d] + idx[d].reshape(shape)
        size = int(np.prod(ext))
        flat = (np.arange(n * c)[:, None] * size + lin.reshape(1, -1)).ravel()

        def scatter(v: Any) -> Any:
            return np.bincount(flat, weights=v.ravel(), minlength=n * c * size)

        gxe = scatter(gp.real) + 1j * scatter(gp.imag) if np.iscomplexobj(gp) else scatter(gp)
        gx = gxe.reshape((n, c, *ext))[(slice(None), slice(None)) + (slice(0, -1),) * nd]
        gb = None if self.b is None else gy.sum(axis=tuple(i for i in range(gy.ndim) if i != 1))
        return (gx[0] if unbatched else gx), gw, gb


# ------------------------------------------------------------------ pooling, activations, norms


def adaptive_avg_matrix(length: int, out: int | None) -> Any:
    """The (out, length) averaging matrix of adaptive average pooling along one dim (None keeps the dim)."""
    if out is None:
        return np.eye(length)
    a = np.zeros((out, length))
    for i in range(out):
        start, end = (i * length) // out, -((-(i + 1) * length) // out)
        a[i, start:end] = 1.0 / (end - start)
    return a


def gelu(x: Any, approximate: str = "none") -> tuple[Any, Any]:
    """(gelu(x), gelu'(x)) in float64."""
    if approximate == "tanh":
        c = math.sqrt(2 / math.pi)
        u = c * (x + 0.044715 * x**3)
        th = np.tanh(u)
        return 0.5 * x * (1 + th), 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * c * (1 + 3 * 0.044715 * x * x)
    cdf = 0.5 * (1 + erf(x / math.sqrt(2)))
    return x * cdf, cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def erf(x: Any) -> Any:
    """math.erf elementwise, in float64 (NumPy has none, and SciPy is not in every torch environment)."""
    x = np.asarray(x, dtype=np.float64)
    return np.asarray(np.frompyfunc(math.erf, 1, 1)(x), dtype=np.float64) if x.size else x.copy()


def sigmoid(x: Any) -> Any:
    return 0.5 * (1 + np.tanh(0.5 * x))


def layer_norm(x: Any, w: Any, b: Any, eps: float = 1e-5) -> Any:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    return y * w + b if w is not None else y


def softmax(x: Any, axis: int = -1) -> Any:
    m = np.max(np.where(np.isfinite(x), x, -np.inf), axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0.0))
    return e / e.sum(axis=axis, keepdims=True)


# ------------------------------------------------------------------ layers with their gradients (Sequential)


class Layer:
    """A layer of a host network: forward(x) keeps what backward(g) needs; backward returns grad_x and
    the parameter grads in torch's parameters() order."""

    params: list[Any]

    def forward(self, x: Any) -> Any:
        raise NotImplementedError

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        raise NotImplementedError


class LinearL(Layer):
    def __init__(self, w: Any, b: Any) -> None:
        self.w, self.b = w, b
        self.params = [w] if b is None else [w, b]

    def forward(self, x: Any) -> Any:
        self.x = x
        y = x @ self.w.T
        return y + self.b if self.b is not None else y

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        x2, g2 = self.x.reshape(-1, self.x.shape[-1]), g.reshape(-1, g.shape[-1])
        grads = [g2.T @ np.conj(x2)] + ([] if self.b is None else [bias_grad(g2.sum(0), g2, 1)])
        return g @ np.conj(self.w), grads


class ReLUL(Layer):
    params: list[Any] = []  # noqa: RUF012 (never mutated)

    def forward(self, x: Any) -> Any:
        self.x = x
        return np.maximum(x, 0.0)

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        return g * (self.x > 0), []


class TanhL(Layer):
    params: list[Any] = []  # noqa: RUF012

    def forward(self, x: Any) -> Any:
        self.y = np.tanh(x)
        return self.y

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        return g * (1 - self.y * self.y), []


class GELUL(Layer):
    params: list[Any] = []  # noqa: RUF012

    def __init__(self, approximate: str = "none") -> None:
        self.approximate = approximate

    def forward(self, x: Any) -> Any:
        y, self.dy = gelu(x, self.approximate)
        return y

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        return g * self.dy, []


class LayerNormL(Layer):
    def __init__(self, w: Any, b: Any, eps: float = 1e-5) -> None:
        self.w, self.b, self.eps = w, b, eps
        self.params = [w, b]

    def forward(self, x: Any) -> Any:
        mu = x.mean(-1, keepdims=True)
        self.inv = 1.0 / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + self.eps)
        self.xh = (x - mu) * self.inv
        return self.xh * self.w + self.b

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        lead = tuple(range(g.ndim - 1))
        gw, gb = (g * self.xh).sum(lead), g.sum(lead)
        d = g * self.w
        gx = self.inv * (d - d.mean(-1, keepdims=True) - self.xh * (d * self.xh).mean(-1, keepdims=True))
        return gx, [gw, gb]


class BatchNormTrainL(Layer):
    """BatchNorm in training mode: batch statistics over every dim but 1 (biased variance)."""

    def __init__(self, w: Any, b: Any, eps: float = 1e-5) -> None:
        self.w, self.b, self.eps = w, b, eps
        self.params = [w, b]

    def _shape(self, x: Any) -> tuple[int, ...]:
        return (1, -1) + (1,) * (x.ndim - 2)

    def forward(self, x: Any) -> Any:
        self.axes = tuple(i for i in range(x.ndim) if i != 1)
        mu = x.mean(self.axes, keepdims=True)
        self.inv = 1.0 / np.sqrt(((x - mu) ** 2).mean(self.axes, keepdims=True) + self.eps)
        self.xh = (x - mu) * self.inv
        return self.xh * self.w.reshape(self._shape(x)) + self.b.reshape(self._shape(x))

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        gw, gb = (g * self.xh).sum(self.axes), g.sum(self.axes)
        d = g * self.w.reshape(self._shape(g))
        gx = self.inv * (d - d.mean(self.axes, keepdims=True) - self.xh * (d * self.xh).mean(self.axes, keepdims=True))
        return gx, [gw, gb]


class ConvL(Layer):
    def __init__(self, conv: Conv) -> None:
        self.conv = conv
        self.params = [conv.w] if conv.b is None else [conv.w, conv.b]

    def forward(self, x: Any) -> Any:
        self.x = x
        return self.conv.forward(x)

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        gx, gw, gb = self.conv.backward(self.x, g)
        return gx, [gw] + ([] if gb is None else [bias_grad(gb, g, 1)])


class MaxPool2L(Layer):
    """MaxPool2d(2) on even sizes; the gradient goes to the first maximum of each window."""

    params: list[Any] = []  # noqa: RUF012

    def forward(self, x: Any) -> Any:
        n, c, h, w = x.shape
        win = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
        self.shape = x.shape
        self.arg = np.argmax(win, axis=-1)
        return np.max(win, axis=-1)

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        n, c, h, w = self.shape
        onehot = (np.arange(4) == self.arg[..., None]) * g[..., None]
        gx = onehot.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h, w)
        return gx, []


class FlattenL(Layer):
    params: list[Any] = []  # noqa: RUF012

    def forward(self, x: Any) -> Any:
        self.shape = x.shape
        return x.reshape(x.shape[0], -1)

    def backward(self, g: Any) -> tuple[Any, list[Any]]:
        return g.reshape(self.shape), []


def bias_grad(value: Any, g: Any, axis: int) -> Scaled:
    """A bias gradient (the sum of the output cotangent g over all but `axis`) with the scale of its terms: the
    RMS over channels of each channel's root sum of squares."""
    channels = max(1, g.shape[axis]) if g.ndim else 1
    return Scaled(value, float(np.sqrt(np.sum(np.abs(g) ** 2) / channels)))


def chain_vjp(layers: Sequence[Layer], x: Any, g: Any, dtype: str = "") -> tuple[Any, Any, list[Any]]:
    """(output, grad_x, parameter grads in order) of the layers applied in turn. With a half `dtype`, each layer's
    output is rounded to it, as a half-precision forward stores it: a max pool then picks the maximum the device
    sees (rounding makes ties and near-ties, and the gradient follows the pick)."""
    y = x
    for layer in layers:
        y = layer.forward(y)
        if dtype in HALF:
            y = round_to(y, dtype)
    grads: list[Any] = []
    gx = g
    for layer in reversed(layers):
        gx, gp = layer.backward(gx)
        grads = gp + grads
    return y, gx, grads


# ------------------------------------------------------------------ LSTM cell


def lstm_cell(x: Any, h: Any, c: Any, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any, gh: Any, gc: Any) -> tuple[Any, ...]:
    """torch.nn.LSTMCell (gates i, f, g, o): (h', c', grad_x, grad_h, grad_c, grad_w_ih, grad_w_hh, grad_b_ih,
    grad_b_hh) for the cotangents (gh, gc) of (h', c')."""
    gates = x @ w_ih.T + h @ w_hh.T
    if b_ih is not None:
        gates = gates + b_ih + b_hh
    i, f, gg, o = np.split(gates, 4, axis=-1)
    i, f, gg, o = sigmoid(i), sigmoid(f), np.tanh(gg), sigmoid(o)
    c1 = f * c + i * gg
    tc = np.tanh(c1)
    h1 = o * tc
    cj = np.conj  # complex: torch's gradients are conjugate-linear (grad_z = grad_y conj(dy/dz)); real: the identity
    dc1 = gc + gh * cj(o * (1 - tc * tc))
    d_gates = np.concatenate([dc1 * cj(gg * i * (1 - i)), dc1 * cj(c * f * (1 - f)), dc1 * cj(i * (1 - gg * gg)), gh * cj(tc * o * (1 - o))],
                             axis=-1)
    d2, x2, h2 = d_gates.reshape(-1, d_gates.shape[-1]), x.reshape(-1, x.shape[-1]), h.reshape(-1, h.shape[-1])
    return (h1, c1, d_gates @ cj(w_ih), d_gates @ cj(w_hh), dc1 * cj(f), d2.T @ cj(x2), d2.T @ cj(h2), d2.sum(0), d2.sum(0))


# ------------------------------------------------------------------ multi-head attention and nn.Transformer


def dense(x: Any, w: Any, b: Any) -> Any:
    """x @ w.T + b over the last dim, as one 2-D matrix product."""
    y = (x.reshape(-1, x.shape[-1]) @ w.T).reshape(x.shape[:-1] + (w.shape[0],))
    return y + b if b is not None else y


def mha(q: Any, k: Any, v: Any, p: dict[str, Any], prefix: str, nhead: int, attn_mask: Any = None, key_padding: Any = None) -> Any:
    """torch.nn.MultiheadAttention on batch-first (B, L, E) inputs; attn_mask (L, S) additive float or bool (True =
    masked), key_padding (B, S) bool (True = padding)."""
    e = q.shape[-1]
    w, b = p[prefix + "in_proj_weight"], p[prefix + "in_proj_bias"]
    hd = e // nhead

    def heads(x: Any, part: int) -> Any:
        y = dense(x, w[part * e:(part + 1) * e], b[part * e:(part + 1) * e])
        return y.reshape(y.shape[0], y.shape[1], nhead, hd).transpose(0, 2, 1, 3)

    qh, kh, vh = heads(q, 0), heads(k, 1), heads(v, 2)
    scores = qh @ kh.transpose(0, 1, 3, 2) / math.sqrt(hd)
    if attn_mask is not None:
        scores = np.where(attn_mask, -np.inf, scores) if attn_mask.dtype == bool else scores + attn_mask
    if key_padding is not None:
        scores = np.where(key_padding[:, None, None, :], -np.inf, scores)
    out = (softmax(scores) @ vh).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], e)
    return dense(out, p[prefix + "out_proj.weight"], p[prefix + "out_proj.bias"])


def transformer(p: dict[str, Any], src: Any, tgt: Any, *, nhead: int, layers: int = 2, norm_first: bool = False,
                activation: str = "relu", batch_first: bool = False, tgt_mask: Any = None,
                src_key_padding: Any = None, memory_key_padding: Any = None) -> Any:
    """torch.nn.Transformer (encoder and decoder stacks with their final LayerNorms, dropout 0) from its
    named parameters. Inputs (L, B, E), or (B, L, E) with batch_first, or unbatched (L, E)."""
    unbatched = src.ndim == 2
    if unbatched:
        src, tgt = src[:, None], tgt[:, None]
    if not batch_first or unbatched:
        src, tgt = src.transpose(1, 0, 2), tgt.transpose(1, 0, 2)

    def ff(x: Any, pre: str) -> Any:
        hidden = dense(x, p[pre + "linear1.weight"], p[pre + "linear1.bias"])
        hidden = np.maximum(hidden, 0.0) if activation == "relu" else gelu(hidden)[0]
        return dense(hidden, p[pre + "linear2.weight"], p[pre + "linear2.bias"])

    def norm(x: Any, name: str) -> Any:
        return layer_norm(x, p[name + ".weight"], p[name + ".bias"])

    x = src
    for i in range(layers):
        pre = f"encoder.layers.{i}."
        if norm_first:
            y = norm(x, pre + "norm1")
            x = x + mha(y, y, y, p, pre + "self_attn.", nhead, key_padding=src_key_padding)
            x = x + ff(norm(x, pre + "norm2"), pre)
        else:
            x = norm(x + mha(x, x, x, p, pre + "self_attn.", nhead, key_padding=src_key_padding), pre + "norm1")
            x = norm(x + ff(x, pre), pre + "norm2")
    memory = norm(x, "encoder.norm")
    x = tgt
    for i in range(layers):
        pre = f"decoder.layers.{i}."
        if norm_first:
            y = norm(x, pre + "norm1")
            x = x + mha(y, y, y, p, pre + "self_attn.", nhead, attn_mask=tgt_mask)
            x = x + mha(norm(x, pre + "norm2"), memory, memory, p, pre + "multihead_attn.", nhead, key_padding=memory_key_padding)
            x = x + ff(norm(x, pre + "norm3"), pre)
        else:
            x = norm(x + mha(x, x, x, p, pre + "self_attn.", nhead, attn_mask=tgt_mask), pre + "norm1")
            x = norm(x + mha(x, memory, memory, p, pre + "multihead_attn.", nhead, key_padding=memory_key_padding), pre + "norm2")
            x = norm(x + ff(x, pre), pre + "norm3")
    out = norm(x, "decoder.norm")
    if not batch_first or unbatched:
        out = out.transpose(1, 0, 2)
    return out[:, 0] if unbatched else out


# ------------------------------------------------------------------ gradients by directional derivatives


def directional(loss: Callable[[list[Any]], float], point: list[Any], grads: Sequence[Any], rtol: float, label: str = "",
                groups: Sequence[Sequence[int]] | None = None) -> bool:
    """Each grads[i] is the gradient of the scalar loss(point) with respect to point[i]: checked along the
    direction of the gradient itself, by a central difference of the float64 host loss, d = <grad_true, G>,
    against <G, G> (a gradient scaled by s gives s^2 |G|^2 against s |G|^2; a NaN fails). `rtol` is
    relative to |G|^2. `groups` (lists of indices) moves several points together along their gradients
    (default: each on its own)."""
    if len(grads) != len(point):
        _report(f"{label} {len(grads)} gradients for {len(point)} arguments", math.inf)
        return False
    vs = []
    for i, grad in enumerate(grads):
        v = as64(grad)
        if v.shape != np.shape(point[i]) or not np.all(np.isfinite(v)):
            _report(f"{label}[{i}] shape or NaN", math.inf)
            return False
        vs.append(v)
    ok = True
    for group in groups if groups is not None else [[i] for i in range(len(point))]:
        norm2 = sum(float(np.sum(vs[i] * vs[i])) for i in group)
        if norm2 == 0.0:
            continue
        scale = max([1.0] + [float(np.max(np.abs(point[i]))) for i in group if np.size(point[i])])
        step = 1e-6 * scale / max(float(np.max(np.abs(vs[i]))) for i in group if vs[i].size)
        plus, minus = list(point), list(point)
        for i in group:
            plus[i], minus[i] = point[i] + step * vs[i], point[i] - step * vs[i]
        d = (loss(plus) - loss(minus)) / (2 * step)
        margin = abs(d - norm2) / (rtol * norm2)
        _report(f"{label}{list(group)[:3]}", margin)
        ok = ok and margin <= 1.0
        if not ok and not _DEBUG:
            return False
    return ok
