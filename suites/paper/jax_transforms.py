"""The paper's JAX functions: random keys, transformations and pytrees (PRNGKey,
named_call, vjp, make_jaxpr, disable_jit, stop_gradient, Partial, tree_map,
tree_unflatten).

See jax.py for the plan and the conventions. Importing this file must not
import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

import math
from typing import Any

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _jax_common import BOTH, INEXACT, allclose, as64, exact_kind, f64, load_module, matches, near, within_ulps

cases = Cases("jax")


# --------------------------------------------------------------------------
# random
# --------------------------------------------------------------------------


@cases.case(
    "jax.random.PRNGKey",
    dtype=["int64"],
    shape={"default": ()},
    params={"seed": ["0", "42", "2**31-1", "-1", "2**40"], "impl": ["threefry2x32", "rbg"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["impl"] == "threefry2x32" or p["seed"] in ("0", "2**40")) and (m == "eager" or p["seed"] in ("42", "2**40")),
    note="a Python int seed (-1 and 2**40 exercise the 64-bit split with x64 on); the raw uint32 key data is the "
    "output. Key creation is bit manipulation: identical on every backend for both impls",
)
def prng_key(t: Ctx):
    jax = t.fw
    seed = {"0": 0, "42": 42, "2**31-1": 2**31 - 1, "-1": -1, "2**40": 2**40}[t.p.seed]
    impl = t.p.impl

    def check(outs, ins):
        key = outs[0]
        s = seed % (1 << 64)
        half = [s >> 32, s & 0xFFFFFFFF]
        # rbg seeds with the threefry key twice (jax._src.random.rbg._rbg_seed)
        want = np.array(half if impl == "threefry2x32" else half + half, dtype=np.uint32)
        return key.dtype == np.uint32 and np.array_equal(key, want)

    return t.call(lambda: jax.random.PRNGKey(seed, impl=impl)).reference("the seed's two 32-bit halves (rbg: twice)", check)


@cases.case(
    "jax.random.PRNGKey",
    dtype=["int32", "int64", "uint8"],
    shape={"small": (1000,), "large": (1 << 16,)},
    params={"form": ["vmap-seeds"]},
    mode=BOTH,
    where=cross("int32", "small") & compiled_only("int32"),
    grid="small",
    note="jax.vmap(PRNGKey) over an array of seeds (traced seeds under jit); grid: int8, int16 and bool seeds",
)
def prng_key_vmap(t: Ctx):  # a seed is an integer: floating and complex seeds are excused below
    jax = t.fw
    seeds = t.randn()

    def check(outs, ins):
        u = ins[0].astype(np.int64).view(np.uint64)  # sign-extended to 64 bits
        # 32-bit and narrower seeds: the high word is 0 (a logical shift by 32 of a 32-bit value)
        hi = (u >> np.uint64(32)) if ins[0].dtype.itemsize == 8 else np.zeros_like(u)
        want = np.stack([hi, u & np.uint64(0xFFFFFFFF)], -1).astype(np.uint32)
        return bool(np.array_equal(outs[0], want))

    return t.call(lambda s: jax.vmap(jax.random.PRNGKey)(s), seeds).reference("each seed's two 32-bit halves", check)


def _threefry2x32_host(k1: Any, k2: Any, x1: Any, x2: Any) -> tuple[Any, Any]:
    """The Threefry-2x32 hash (20 rounds, Salmon et al. 2011; the Random123
    known answer (0x13198a2e, 0x03707344) x (0x243f6a88, 0x85a308d3) ->
    (0xc4923a9c, 0x483df7a0)) on host uint32 arrays."""
    u32 = np.uint32
    with np.errstate(over="ignore"):
        k1, k2 = np.asarray(k1, u32), np.asarray(k2, u32)
        ks = [k1, k2, k1 ^ k2 ^ u32(0x1BD11BDA)]
        x = [np.asarray(x1, u32) + ks[0], np.asarray(x2, u32) + ks[1]]
        for i in range(5):
            for r in ((13, 15, 26, 6), (17, 29, 16, 24))[i % 2]:
                x[0] = x[0] + x[1]
                x[1] = x[0] ^ ((x[1] << u32(r)) | (x[1] >> u32(32 - r)))
            x[0] = x[0] + ks[(i + 1) % 3]
            x[1] = x[1] + ks[(i + 2) % 3] + u32(i + 1)
    return x[0], x[1]


def _threefry_counts(key: Any, counts: Any) -> Any:
    """jax's threefry_2x32(key, counts): the counts halved (padded to even), hashed pairwise, concatenated."""
    c = np.asarray(counts, np.uint32).ravel()
    n = c.size
    if n % 2:
        c = np.concatenate([c, np.zeros(1, np.uint32)])
    a, b = _threefry2x32_host(key[0], key[1], c[: c.size // 2], c[c.size // 2:])
    return np.concatenate([a, b])[:n]


def _threefry_split_host(key: Any, partitionable: bool) -> Any:
    """jax.random.split(key) (two keys) for a raw threefry key, in either counter layout."""
    if partitionable:
        a, b = _threefry2x32_host(key[0], key[1], np.zeros(2, np.uint32), np.arange(2, dtype=np.uint32))
        return np.stack([a, b], axis=-1)
    return _threefry_counts(key, np.arange(4, dtype=np.uint32)).reshape(2, 2)


def _threefry_bits_host(key: Any, width: int, n: int, partitionable: bool) -> Any:
    """random_bits(key, width, (n,)): jax_threefry_partitionable hashes the
    64-bit element index; the original layout hashes a 32-bit iota of words."""
    dtype = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    if partitionable:
        i = np.arange(n, dtype=np.uint64)
        a, b = _threefry2x32_host(key[0], key[1], (i >> np.uint64(32)).astype(np.uint32), (i & np.uint64(0xFFFFFFFF)).astype(np.uint32))
        if width == 64:
            return (a.astype(np.uint64) << np.uint64(32)) | b.astype(np.uint64)
        return (a ^ b).astype(dtype)
    bits = _threefry_counts(key, np.arange(-(-width * n // 32), dtype=np.uint32))
    if width == 64:
        half = bits.size // 2
        return (bits[:half].astype(np.uint64) << np.uint64(32)) | bits[half:].astype(np.uint64)
    return bits.view(dtype)[:n]  # 8/16 bits: each 32-bit word's little-endian pieces, as jax unpacks them


def _uniform_host(key: Any, dtype: Any, n: int, lo: Any, hi: Any, partitionable: bool) -> Any:
    """jax.random.uniform's values (random mantissa under exponent 0, minus 1,
    scaled to [lo, hi)): every step is exact in the dtype, so bit for bit."""
    dt = np.dtype(dtype)
    nbits = dt.itemsize * 8
    nmant = 7 if dt.name == "bfloat16" else {16: 10, 32: 23, 64: 52}[nbits]
    rng_bits = 8 if nmant < 8 else nbits
    uint = {16: np.uint16, 32: np.uint32, 64: np.uint64}[nbits]
    bits = _threefry_bits_host(key, rng_bits, n, partitionable).astype(uint)
    floats = ((bits >> uint(rng_bits - nmant)) | np.array(1.0, dt).view(uint)).view(dt) - np.array(1.0, dt)
    lo, hi = np.array(lo, dt), np.array(hi, dt)
    return np.maximum(lo, floats * (hi - lo) + lo)


# The floating and complex "PRNGKey" cases below label the dtype of the draws made
# with the key: each of those dtypes has a draw case (a complex draw is `normal`
# only; jax.random.uniform refuses complex dtypes by its API). The seed cases
# above get no floating or complex seed from the grid: a seed is integer (or
# bool) by the API.
cases.excuse("jax.random.PRNGKey", "integer_only", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"])


# The bits a draw takes depend on its dtype: a float64 draw is another draw, not this one widened.
_DRAWS = "the values drawn depend on the dtype"


@cases.case(
    "jax.random.PRNGKey",
    dtype=["float32", "bfloat16", "float16", "float64", "complex64", "complex128"],
    shape=shapes("small", "large"),
    params={"use": ["split-uniform", "normal"], "impl": ["threefry2x32", "rbg"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["impl"] == "threefry2x32"))
    and (m == "eager" or (d == "float32" and p["impl"] == "threefry2x32"))
    and (not d.startswith("complex") or p["use"] == "normal"),
    note="a key then used: split + uniform in [0, 1), or normal. threefry2x32 is a counter-based hash in "
    "plain integer ops, expected bit-identical across backends, so compared, and checked against the same "
    "hash computed on the host (either counter layout, as jax_threefry_partitionable says): uniform bit for "
    "bit, normal = sqrt(2) erfinv(u) with erfinv from SciPy (complex normal draws: statistical properties); rbg uses XLA's RngBitGenerator, whose bits are "
    "documented to differ across backends: not compared, statistical properties only",
)
def prng_key_sample(t: Ctx):
    jax = t.fw
    impl, use, shape, dtype = t.p.impl, t.p.use, tuple(t.shape), t.dtype
    n = int(np.prod(shape))

    def f():
        # PRNGKey returns raw key data; a non-default impl must be named again to use it
        key = jax.random.wrap_key_data(jax.random.PRNGKey(1234, impl=impl), impl=impl)
        if use == "normal":
            return jax.random.normal(key, shape, dtype=dtype)
        _, k2 = jax.random.split(key)
        return jax.random.uniform(k2, shape, dtype=dtype)

    if impl == "threefry2x32" and not t.dtype_name.startswith("complex"):
        partitionable = bool(getattr(jax.config, "jax_threefry_partitionable", False))
        key = np.array([0, 1234], dtype=np.uint32)

        def reference(outs, ins):
            got = outs[0]
            if got.shape != shape:  # (bfloat16 arrives as float32)
                return False
            if use == "split-uniform":
                want = _uniform_host(_threefry_split_host(key, partitionable)[1], dtype, n, 0.0, 1.0, partitionable)
                return bool(np.array_equal(got.astype(np.float64), want.astype(np.float64).reshape(shape)))
            lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype) if t.dtype_name != "bfloat16" else np.array(-1 + 2.0**-8, dtype)
            u = _uniform_host(key, dtype, n, lo, 1.0, partitionable).astype(np.float64).reshape(shape)
            erfinv = load_module("scipy.special").erfinv(u)
            sqrt2 = float(np.array(np.sqrt(2), dtype))
            if t.dtype_name in ("bfloat16", "float16"):  # lax.mul(sqrt2, erf_inv(u)): two roundings in the half dtype
                return within_ulps(got, sqrt2 * erfinv.astype(dtype).astype(np.float64), dtype, 1.0)
            # erf_inv's own error grows in the tails (|u| -> 1): measured 6e-6 relative in float32
            r, a = (5e-5, 1e-6) if t.dtype_name == "float32" else (1e-10, 1e-12)
            return allclose(got, sqrt2 * erfinv, r, a)

        return t.call(f).reference("the same threefry draws computed on the host", reference).no_reference(_DRAWS)

    def check(outs, ins):
        if outs[0].shape != shape or not np.all(np.isfinite(outs[0])):
            return False
        if np.iscomplexobj(outs[0]):  # standard complex normal: real and imaginary parts N(0, 1/2), independent
            z = outs[0].astype(np.complex128)
            parts = np.concatenate([z.real.ravel(), z.imag.ravel()]) * np.sqrt(2)
            return abs(parts.mean()) < 5 / np.sqrt(2 * n) and abs(parts.std() - 1) < 5 / np.sqrt(4 * n)
        x = outs[0].astype(np.float64)
        # five standard errors of the sample mean and spread for n draws
        if use == "normal":
            return abs(x.mean()) < 5 / np.sqrt(n) and abs(x.std() - 1) < 5 / np.sqrt(2 * n)
        return bool(np.all((x >= 0) & (x < 1)) and abs(x.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
                    and abs(x.var() - 1 / 12) < 5 * np.sqrt((1 / 80 - 1 / 144) / n))

    return t.call(f).no_compare().check("in range; mean and spread within 5 standard errors", check)


# --------------------------------------------------------------------------
# transformations and pytrees
# --------------------------------------------------------------------------


@cases.case(
    "jax.named_call",
    dtype=INEXACT,
    shape=shapes("scalar", "small", "large"),
    params={"use": ["call", "grad"]},
    mode=BOTH,
    where=lambda d, s, m, p: not (p["use"] == "grad" and d == "complex64")
    and (d == "float32" or s == "small")
    and (p["use"] == "call" or s != "scalar" or d == "float32")
    and (m == "eager" or d == "float32"),
    grid="small",
    note="jax.named_call(f, name=...) only names f's computation in the jaxpr/HLO: values must equal f's; "
    "grad: the gradient of sum(f) through the named call; integer and bool inputs: sin promotes to a float",
)
def named_call(t: Ctx):
    jax = t.fw
    jnp = jax.numpy

    def block(x):
        return jnp.sin(x) * 2 + x

    named = jax.named_call(block, name="mudjack_block")
    if t.p.use == "call":
        return t.call(lambda a: named(a), t.randn()).reference(
            "sin(x)*2 + x", near(t, lambda a: np.sin(f64(a)) * 2 + f64(a), scale=4.0, terms=lambda a: 2 * np.abs(np.sin(f64(a))))
        )
    grad = jax.grad(lambda a: jnp.sum(named(a)))
    return t.call(grad, t.randn()).reference("2 cos(x) + 1", near(t, lambda a: 2 * np.cos(a) + 1, scale=4.0, terms=lambda a: 2 * np.abs(np.cos(a))))


def vjp(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    form = t.p.f
    x = t.randn()
    if form == "elementwise" and exact_kind(t.dtype_name):
        # integer and bool inputs: f(x) is a float (sin promotes); the cotangent takes f's dtype, and
        # the pullback to an integer input is float0 zeros (returned as bools) by jax's design
        ct = t.randn()

        def run_int(a, c):
            out, pull = jax.vjp(lambda z: jnp.sin(z) * z, a)
            g = pull(c.astype(out.dtype))[0]
            return out, jnp.zeros(g.shape, bool) if g.dtype == jax.dtypes.float0 else g

        return t.call(run_int, x, ct).reference(
            "f(x) = sin(x) x; pullback to an integer input = float0 zeros",
            lambda outs, ins: near(t, lambda a, c: np.sin(f64(a)) * f64(a), out=0, scale=4.0)(outs, ins)
            and outs[1].dtype == np.bool_ and not bool(np.any(outs[1])) and outs[1].shape == ins[0].shape,
        )
    if form == "elementwise":
        ct = t.randn()

        def run(a, c):
            out, pull = jax.vjp(lambda z: jnp.sin(z) * z, a)
            return out, pull(c)[0]

        return t.call(run, x, ct).reference(
            "f(x) = sin(x) x; pullback = ct (cos(x) x + sin(x))",
            lambda outs, ins: near(t, lambda a, c: np.sin(a) * a, out=0, scale=4.0, terms=lambda a, c: np.abs(np.sin(a) * a))(outs, ins)
            and near(t, lambda a, c: c * (np.cos(a) * a + np.sin(a)), out=1, scale=8.0,
                     terms=lambda a, c: 2 * np.abs(c) * (np.abs(np.cos(a) * a) + np.abs(np.sin(a))))(outs, ins),
        )
    if form == "matmul":
        return _vjp_matmul(t, x)
    return _vjp_reduce_aux_tree(t, x, form)


def _vjp_matmul(t: Ctx, x):
    """jax.vjp of tanh(W v) with respect to W (form "matmul")."""
    jax = t.fw
    jnp = jax.numpy
    v = t.randn((t.shape[1],))
    ct = t.randn((t.shape[0],))
    hi = jax.lax.Precision.HIGHEST

    def run(w, vv, c):
        out, pull = jax.vjp(lambda ww: jnp.tanh(jnp.matmul(ww, vv, precision=hi)), w)
        return out, pull(c)[0]

    def ref(w, vv, c):
        y = np.tanh(w @ vv)
        return np.outer(c * (1 - y * y), vv)

    def terms(w, vv, c):  # y, y*y, 1 - y*y and the products are rounded in half precision
        y = np.tanh(w @ vv)
        return 2 * np.outer(np.abs(c) * (1 + y * y), np.abs(vv))

    return t.call(run, x, v, ct).reference(
        "f(W) = tanh(W v); pullback = outer(ct (1 - y^2), v)",
        lambda outs, ins: near(t, lambda w, vv, c: np.tanh(w @ vv), out=0, scale=50.0, terms=lambda w, vv, c: np.abs(w) @ np.abs(vv))(outs, ins)
        and near(t, ref, out=1, scale=50.0, terms=terms)(outs, ins),
    )


def _vjp_reduce_aux_tree(t: Ctx, x, form: str):
    """jax.vjp of a reduction, with an auxiliary output, and over a dict of
    inputs and outputs (forms "reduce", "has_aux", "pytree")."""
    jax = t.fw
    jnp = jax.numpy
    if form == "reduce":

        def run(a):
            out, pull = jax.vjp(lambda z: jnp.sum(z * z), a)
            return out, pull(jnp.ones((), out.dtype))[0]

        return t.call(run, x).reference(
            "f(x) = sum(x^2); pullback = 2x",
            lambda outs, ins: near(t, lambda a: np.sum(a * a), out=0, scale=4.0)(outs, ins) and near(t, lambda a: 2 * a, out=1)(outs, ins),
        )
    if form == "has_aux":
        ct = t.randn()

        def run(a, c):
            out, pull, aux = jax.vjp(lambda z: (jnp.exp(z), jnp.max(z)), a, has_aux=True)
            return out, pull(c)[0], aux

        return t.call(run, x, ct).reference(
            "f(x) = exp(x); pullback = ct exp(x); aux = max(x)",
            lambda outs, ins: near(t, lambda a, c: np.exp(a), out=0, scale=8.0)(outs, ins)
            and near(t, lambda a, c: c * np.exp(a), out=1, scale=8.0)(outs, ins)
            and near(t, lambda a, c: a.max(), out=2, rtol=0, atol=0)(outs, ins),
        )
    y, ct_a, ct_b = t.randn(), t.randn(), t.randn()

    def run(a, b, ca, cb):
        out, pull = jax.vjp(lambda d: {"prod": d["a"] * d["b"], "sum": d["a"] + d["b"]}, {"a": a, "b": b})
        return out, pull({"prod": ca, "sum": cb})[0]

    # outputs flattened in sorted-key order: out["prod"], out["sum"], grad["a"], grad["b"]
    return t.call(run, x, y, ct_a, ct_b).reference(
        "out = (a b, a + b); grad a = ca b + cb, grad b = ca a + cb",
        lambda outs, ins: near(t, lambda a, b, ca, cb: a * b, out=0)(outs, ins)
        and near(t, lambda a, b, ca, cb: a + b, out=1)(outs, ins)
        and near(t, lambda a, b, ca, cb: ca * b + cb, out=2, scale=4.0)(outs, ins)
        and near(t, lambda a, b, ca, cb: ca * a + cb, out=3, scale=4.0)(outs, ins),
    )


_VJP_NOTE = (
    "vjp returns (f(x), pullback); the case returns f(x) and pullback(ct) for a random cotangent ct. "
    "elementwise: sin(x)*x, pullback ct*(cos(x) x + sin(x)); matmul: tanh(W @ v) at HIGHEST precision "
    "wrt W (a 128-term dot: half-precision tolerances allow for the accumulation order and width, which "
    "differ by backend); reduce: sum(x**2) (scalar cotangent); has_aux: an auxiliary output passed through; "
    "pytree: a dict of inputs and of outputs. Complex: JAX's convention ct * f'(x) for holomorphic f"
)


def _vjp_where(matmul: bool):
    def where(d, s, m, p):
        if (p["f"] == "matmul") != matmul:
            return False
        return (
            (p["f"] == "elementwise" or s == "matrix" or (p["f"] == "reduce" and s == "large"))
            and (s != "matrix" or p["f"] != "elementwise")
            and (d == "float32" or (p["f"] in ("elementwise", "matmul") and s in ("small", "matrix")))
            and (m == "eager" or (d == "float32" and s in ("small", "matrix", "large")))
        )

    return where


for _matmul, _rtol, _atol, _grid in (
    (False, {"float32": 1e-5, "complex64": 1e-5}, None, "small"),
    (True, {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-5, "complex64": 1e-5}, {"float16": 2e-2, "bfloat16": 5e-2}, None),
):
    cases.case(
        "jax.vjp",
        dtype=INEXACT,
        shape={"scalar": (), "small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
        params={"f": ["elementwise", "matmul", "reduce", "has_aux", "pytree"]},
        mode=BOTH,
        where=_vjp_where(_matmul),
        rtol=_rtol,
        atol=_atol,
        grid=_grid,
        reduction=lambda dims, p: dims[1] if p["f"] == "matmul" else (max(math.prod(dims), 1) if p["f"] == "reduce" else 1),
        note=_VJP_NOTE,
    )(vjp)


def _jaxpr_summary(jnp, closed):
    """A jaxpr as ints: equation, input, output and constant counts, and a crc32 of the primitive names."""
    import zlib

    jaxpr = closed.jaxpr
    names = ",".join(str(e.primitive) for e in jaxpr.eqns)
    return jnp.asarray(
        np.array([len(jaxpr.eqns), len(jaxpr.invars), len(jaxpr.outvars), len(closed.consts), zlib.crc32(names.encode()) & 0x7FFFFFFF], dtype=np.int64)
    )


@cases.case(
    "jax.make_jaxpr",
    dtype=INEXACT + ["int32"],
    shape=shapes("scalar", "small", "large"),
    params={"f": ["chain", "jit-inside", "cond", "scan", "static-arg", "return-shape"]},
    where=lambda d, s, m, p: (d == "float32" or (p["f"] == "chain" and s == "small"))
    and (p["f"] == "chain" or s == "small")
    and not (d == "int32" and p["f"] != "chain"),
    grid="small",
    note="tracing only (no device work but the evaluation): the case returns the jaxpr as ints (equation, "
    "input, output, constant counts, crc32 of the primitive names -- version-specific, device-independent) "
    "and the jaxpr evaluated on the input with jax.core.eval_jaxpr, checked against numpy. chain: "
    "sin/mul/add; jit-inside: a nested jit (one pjit/jit equation); cond: lax.cond; scan: lax.scan of 5 "
    "steps; static-arg: static_argnums; return-shape: return_shape=True also gives a ShapeDtypeStruct",
)
def make_jaxpr(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    form = t.p.f
    x = t.randn()

    def chain(a):
        return jnp.sin(a) * 2 + a

    ref = lambda a: np.sin(f64(a)) * 2 + f64(a)  # noqa: E731 - integer and bool inputs: sin promotes to a float
    if form == "jit-inside":
        f = jax.jit(chain)
    elif form == "cond":
        f = lambda a: jax.lax.cond(jnp.sum(a.real) > 0, chain, lambda z: z * 3, a)  # noqa: E731
        ref = lambda a: np.sin(a) * 2 + a if np.sum(a.real) > 0 else a * 3  # noqa: E731
    elif form == "scan":

        def f(a):
            def step(c, _):
                return c * 0.5 + 1, None

            return jax.lax.scan(step, a, None, length=5)[0]

        ref = lambda a: (((((a * 0.5 + 1) * 0.5 + 1) * 0.5 + 1) * 0.5 + 1) * 0.5 + 1)  # noqa: E731
    else:
        f = chain

    def run(a):
        if form == "static-arg":
            closed = jax.make_jaxpr(lambda z, n: chain(z) * n, static_argnums=1)(a, 3)
            value = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, a)[0]
            return _jaxpr_summary(jnp, closed), value
        if form == "return-shape":
            closed, shape = jax.make_jaxpr(f, return_shape=True)(a)
            value = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, a)[0]
            return _jaxpr_summary(jnp, closed), value, jnp.asarray(np.array(shape.shape + (np.dtype(shape.dtype).itemsize,), dtype=np.int64))
        closed = jax.make_jaxpr(f)(a)
        value = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, a)[0]
        return _jaxpr_summary(jnp, closed), value

    want_ref = (lambda a: ref(a) * 3) if form == "static-arg" else ref
    return t.call(run, x).reference(
        "the jaxpr has 1 input, 1 output and evaluates to f(x)",
        lambda outs, ins: outs[0][1] == 1 and outs[0][2] == 1 and near(t, want_ref, out=1, scale=4.0, terms=lambda a: 2 * np.abs(np.sin(f64(a))))(outs, ins),
    )


@cases.case(
    "jax.disable_jit",
    dtype=FLOATS,
    shape=shapes("scalar", "small", "large"),
    params={"use": ["nested-jit", "python-control", "concrete"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["use"] == "nested-jit"))
    and (p["use"] == "nested-jit" or s == "small")
    and (m == "eager" or (p["use"] == "nested-jit" and d == "float32")),
    grid="small",
    note="with jax.disable_jit(): a jitted function runs op by op. nested-jit: its value equals the "
    "compiled one; python-control: Python `if` on an array value inside a jitted function, which only "
    "works with jit disabled; concrete: inside the jitted function the argument is not a Tracer (returned "
    "as a 0/1 flag). compiled: the case's own jax.jit around the disable_jit block (inner jits are inlined)",
)
def disable_jit(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    use = t.p.use
    x = t.randn()
    if use == "nested-jit":
        g = jax.jit(lambda a: jnp.tanh(a) * a)

        def run(a):
            with jax.disable_jit():
                return g(a)

        return t.call(run, x).reference("tanh(x) x", near(t, lambda a: np.tanh(f64(a)) * f64(a), scale=4.0, terms=lambda a: np.abs(np.tanh(f64(a)) * f64(a))))
    if use == "python-control":

        @jax.jit
        def g(a):
            if float(jnp.sum(a)) > 0:  # needs a concrete value
                return a * 2
            return -a

        def run(a):
            with jax.disable_jit():
                return g(a)

        return t.call(run, x).reference("2x if sum > 0 else -x", near(t, lambda a: a * 2 if a.sum() > 0 else -a))

    @jax.jit
    def g(a):
        return a + 1, jnp.asarray(0 if isinstance(a, jax.core.Tracer) else 1, dtype=jnp.int32)

    def run(a):
        with jax.disable_jit():
            return g(a)

    return t.call(run, x).reference(
        "x + 1; the argument was concrete", lambda outs, ins: int(outs[1]) == 1 and near(t, lambda a: a + 1)(outs, ins)
    )


@cases.case(
    "jax.lax.stop_gradient",
    dtype=FLOATS + ["complex64", "int32"],
    shape=shapes("scalar", "small", "large"),
    params={"use": ["value", "grad", "pytree"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["use"] == "value" or d in FLOATS)
    and (d == "float32" or s == "small")
    and (p["use"] != "pytree" or s == "small")
    and (m == "eager" or (d == "float32" and s != "scalar")),
    grid="small",
    note="value: the identity on values (ints too); grad: d/dx sum(x * stop_gradient(x)) = x (not 2x); "
    "pytree: a dict of arrays, every leaf stopped",
)
def stop_gradient(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    lax = jax.lax
    x = t.randn()
    use = t.p.use
    if use == "value":
        return t.call(lambda a: lax.stop_gradient(a * 2), x).reference("2x", near(t, lambda a: a * 2))
    if use == "grad":
        g = jax.grad(lambda a: jnp.sum(a * lax.stop_gradient(a)).astype(jnp.float32))
        return t.call(g, x).reference("gradient is x, not 2x", near(t, lambda a: a, scale=4.0))
    y = t.randn()

    def run(a, b):
        g = jax.grad(lambda d: jnp.sum(d["a"] * d["b"] + lax.stop_gradient(d)["a"] * d["a"]).astype(jnp.float32))
        return g({"a": a, "b": b})

    return t.call(run, x, y).reference(
        "grad a = b + a, grad b = a",
        lambda outs, ins: near(t, lambda a, b: b + a, out=0, scale=4.0)(outs, ins) and near(t, lambda a, b: a, out=1, scale=4.0)(outs, ins),
    )


@cases.case(
    "jax.tree_util.Partial",
    dtype=["float32", "bfloat16", "float64", "int32"],
    shape=shapes("scalar", "small", "large"),
    params={"use": ["call", "kwargs", "nested", "jit-arg", "flatten"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["use"] in ("call", "jit-arg")))
    and (p["use"] in ("call", "jit-arg") or s == "small")
    and (m == "eager" or (d == "float32" and p["use"] in ("call", "nested", "jit-arg") and s != "scalar")),
    grid="small",
    note="Partial(fn, *args, **kw) is a pytree whose leaves are the bound arrays. call: Partial(jnp.add, a)(b); "
    "kwargs: bound keyword array; nested: Partial of a Partial; jit-arg: the Partial itself is an argument "
    "of a jitted function (its leaves are traced, fn is static); flatten: its leaves and a rebuilt copy",
)
def partial(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    Partial = jax.tree_util.Partial
    a, b = t.randn(), t.randn()
    use = t.p.use
    if use == "call":
        return t.call(lambda x, y: Partial(jnp.add, x)(y), a, b).reference("a + b", near(t, np.add))
    if use == "kwargs":
        return t.call(lambda x, y: Partial(jnp.clip, min=x)(y), a, b).reference("clip(b, min=a)", near(t, lambda x, y: np.maximum(y, x)))
    if use == "nested":
        return t.call(lambda x, y: Partial(Partial(jnp.clip, y), x)(x + 1), a, b).reference("clip(b, a, a + 1)", near(t, lambda x, y: np.clip(y, x, x + 1)))
    if use == "jit-arg":
        apply = jax.jit(lambda p, y: p(y))
        return t.call(lambda x, y: apply(Partial(jnp.multiply, x), y), a, b).reference("a * b", near(t, np.multiply))

    def run(x, y):
        p = Partial(jnp.subtract, x, y)
        leaves, treedef = jax.tree_util.tree_flatten(p)
        rebuilt = jax.tree_util.tree_unflatten(treedef, [leaf * 2 for leaf in leaves])
        return jnp.asarray(len(leaves), dtype=jnp.int32), rebuilt()

    return t.call(run, a, b).reference(
        "2 leaves; rebuilt(2a, 2b)() = 2(a - b)", lambda outs, ins: int(outs[0]) == 2 and near(t, lambda x, y: 2 * (x - y), out=1)(outs, ins)
    )


def _trees(jnp, a, b, c):
    """The trees of tree_util_test.py, with arrays as leaves."""
    import collections

    Point = collections.namedtuple("Point", ["x", "y"])
    return {
        "dict": {"w": a, "b": b, "z": c},
        "nested": [a, (b, [c]), {"k": a}],
        "namedtuple": Point(a, (b, c)),
        "none-leaves": {"a": a, "gap": None, "rest": [None, b, c]},
        "single": a,
    }


@cases.case(
    "jax.tree_util.tree_map",
    dtype=["float32", "bfloat16", "int32", "complex64"],
    shape=shapes("scalar", "small", "large"),
    params={"tree": ["dict", "nested", "namedtuple", "none-leaves", "single"], "use": ["one-tree", "two-trees", "is_leaf"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["use"] == "one-tree" or p["tree"] in ("nested", "dict"))
    and (p["tree"] != "single" or p["use"] == "one-tree")
    and (d == "float32" or (s == "small" and p["tree"] == "nested" and p["use"] == "one-tree"))
    and (s == "small" or (p["tree"] == "dict" and p["use"] == "one-tree"))
    and (m == "eager" or (d == "float32" and p["tree"] in ("dict", "nested") and p["use"] != "is_leaf")),
    grid="small",
    note="one-tree: f(x) = 2x + 1 on every leaf (None is an empty subtree, kept); two-trees: f(x, y) = x * y "
    "over two trees of one structure; is_leaf: tuples are leaves, so f gets each tuple whole. Outputs are "
    "the result tree's leaves in tree order",
)
def tree_map(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    tu = jax.tree_util
    kind, use = t.p.tree, t.p.use
    a, b, c = t.randn(), t.randn(), t.randn()

    def pick(x, y, z):
        return _trees(jnp, x, y, z)[kind]

    if use == "one-tree":

        def run(x, y, z):
            return tu.tree_leaves(tu.tree_map(lambda v: v * 2 + 1, pick(x, y, z)))

        def check(outs, ins):
            want = [v * 2 + 1 for v in _leaves_np(pick(*[as64(i) for i in ins]))]
            return len(outs) == len(want) and all(matches(t, o, w) for o, w in zip(outs, want))

        return t.call(run, a, b, c).reference("2x + 1 on every leaf, in order", check)
    if use == "two-trees":

        def run(x, y, z):
            return tu.tree_leaves(tu.tree_map(lambda u, v: u * v, pick(x, y, z), pick(z, x, y)))

        def check(outs, ins):
            i = [as64(v) for v in ins]
            want = [u * v for u, v in zip(_leaves_np(pick(*i)), _leaves_np(pick(i[2], i[0], i[1])))]
            return len(outs) == len(want) and all(matches(t, o, w) for o, w in zip(outs, want))

        return t.call(run, a, b, c).reference("x * y leaf by leaf", check)

    def run(x, y, z):
        out = tu.tree_map(lambda v: v[0] * 10 if isinstance(v, tuple) else -v, pick(x, y, z), is_leaf=lambda v: isinstance(v, tuple))
        return tu.tree_leaves(out)

    def check_leaf(outs, ins):
        x, y, z = (as64(v) for v in ins)
        # nested [a, (b, [c]), {"k": a}]: the tuple is one leaf -> b * 10; dict keys sorted: b, w, z
        want = {"nested": [-x, y * 10, -x], "dict": [-y, -x, -z]}[kind]
        return len(outs) == len(want) and all(matches(t, o, w) for o, w in zip(outs, want))

    return t.call(run, a, b, c).reference("tuples reach f whole", check_leaf)


def _leaves_np(tree):
    """tree_leaves for the _trees structures on numpy arrays (dict keys sorted, None dropped)."""
    if tree is None:
        return []
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in _leaves_np(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _leaves_np(item)]
    return [tree]


@cases.case(
    "jax.tree_util.tree_unflatten",
    dtype=["float32", "bfloat16", "int32", "bool"],
    shape=shapes("scalar", "small", "large"),
    params={"tree": ["dict", "nested", "namedtuple", "none-leaves", "custom-node", "empty"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["tree"] in ("nested", "custom-node")))
    and (s == "small" or p["tree"] == "dict")
    and (m == "eager" or (d == "float32" and p["tree"] in ("dict", "custom-node"))),
    grid="small",
    note="flatten, transform the leaves, tree_unflatten(treedef, leaves): the rebuilt tree has the treedef "
    "(returned as a 0/1 flag) and the new leaves; custom-node: a class registered with "
    "register_pytree_node (aux data kept); empty: no leaves ({} and [None])",
)
def tree_unflatten(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    tu = jax.tree_util
    kind = t.p.tree
    a, b, c = t.randn(), t.randn(), t.randn()
    name = t.dtype_name

    def bump(v):
        return ~v if name == "bool" else v + 1

    if kind == "custom-node":

        class Box:
            def __init__(self, lo, hi, label):
                self.lo, self.hi, self.label = lo, hi, label

        tu.register_pytree_node(Box, lambda bx: ((bx.lo, bx.hi), bx.label), lambda label, kids: Box(kids[0], kids[1], label))

        def run(x, y, z):
            leaves, treedef = tu.tree_flatten(Box(x, [y, z], "mudjack"))
            box = tu.tree_unflatten(treedef, [bump(v) for v in leaves])
            same = isinstance(box, Box) and box.label == "mudjack" and tu.tree_structure(box) == treedef
            return jnp.asarray(same), box.lo, box.hi

        def check(outs, ins):
            return bool(outs[0]) and all(matches(t, o, bump(i)) for o, i in zip(outs[1:], ins))

        return t.call(run, a, b, c).reference("a Box again, aux data kept, leaves bumped", check)
    if kind == "empty":

        def run(x, y, z):
            ok = True
            for tree in ({}, [None], ()):
                leaves, treedef = tu.tree_flatten(tree)
                ok = ok and leaves == [] and tu.tree_unflatten(treedef, []) == tree
            return jnp.asarray(ok), x

        return t.call(run, a, b, c).reference(
            "empty trees rebuild; x passes through", lambda outs, ins: bool(outs[0]) and matches(t, outs[1], as64(ins[0]), rtol=0, atol=0)
        )

    def run(x, y, z):
        tree = _trees(jnp, x, y, z)[kind]
        leaves, treedef = tu.tree_flatten(tree)
        rebuilt = tu.tree_unflatten(treedef, [bump(v) for v in leaves])
        return jnp.asarray(tu.tree_structure(rebuilt) == treedef and type(rebuilt) is type(tree)), tu.tree_leaves(rebuilt)

    def check(outs, ins):
        want = [bump(v) for v in _leaves_np(_trees(None, *ins)[kind])]
        return bool(outs[0]) and len(outs) - 1 == len(want) and all(matches(t, o, w) for o, w in zip(outs[1:], want))

    return t.call(run, a, b, c).reference("same treedef and type, leaves bumped", check)
