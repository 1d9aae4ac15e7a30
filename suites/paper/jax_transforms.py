"""The paper's JAX functions: random keys, transformations and pytrees (PRNGKey,
named_call, vjp, make_jaxpr, disable_jit, stop_gradient, Partial, tree_map,
tree_unflatten).

See jax.py for the plan and the conventions. Importing this file must not
import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import FLOATS, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _jax_common import BOTH, INEXACT, allclose, as64, near

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
        if impl != "threefry2x32":
            return key.dtype == np.uint32 and key.shape == (4,)
        s = seed % (1 << 64)
        return key.dtype == np.uint32 and np.array_equal(key, np.array([s >> 32, s & 0xFFFFFFFF], dtype=np.uint32))

    return t.call(lambda: jax.random.PRNGKey(seed, impl=impl)).check("the seed's two 32-bit halves (threefry)", check)


@cases.case(
    "jax.random.PRNGKey",
    dtype=["int32", "int64", "uint8"],
    shape={"small": (1000,), "large": (1 << 16,)},
    params={"form": ["vmap-seeds"]},
    mode=BOTH,
    where=cross("int32", "small") & compiled_only("int32"),
    note="jax.vmap(PRNGKey) over an array of seeds (traced seeds under jit)",
)
def prng_key_vmap(t: Ctx):
    jax = t.fw
    seeds = t.randn()

    def check(outs, ins):
        u = ins[0].astype(np.int64).view(np.uint64)  # sign-extended to 64 bits
        # 32-bit and narrower seeds: the high word is 0 (a logical shift by 32 of a 32-bit value)
        hi = (u >> np.uint64(32)) if ins[0].dtype.itemsize == 8 else np.zeros_like(u)
        want = np.stack([hi, u & np.uint64(0xFFFFFFFF)], -1).astype(np.uint32)
        return bool(np.array_equal(outs[0], want))

    return t.call(lambda s: jax.vmap(jax.random.PRNGKey)(s), seeds).check("each seed's two 32-bit halves", check)


@cases.case(
    "jax.random.PRNGKey",
    dtype=["float32", "bfloat16", "float64"],
    shape=shapes("small", "large"),
    params={"use": ["split-uniform", "normal"], "impl": ["threefry2x32", "rbg"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["impl"] == "threefry2x32"))
    and (m == "eager" or (d == "float32" and p["impl"] == "threefry2x32")),
    note="a key then used: split + uniform in [0, 1), or normal. threefry2x32 is a counter-based hash in "
    "plain integer ops, expected bit-identical across backends, so compared; rbg uses XLA's "
    "RngBitGenerator, whose bits are documented to differ across backends: not compared, properties only",
)
def prng_key_sample(t: Ctx):
    jax = t.fw
    impl, use, shape, dtype = t.p.impl, t.p.use, tuple(t.shape), t.dtype

    def f():
        # PRNGKey returns raw key data; a non-default impl must be named again to use it
        key = jax.random.wrap_key_data(jax.random.PRNGKey(1234, impl=impl), impl=impl)
        if use == "normal":
            return jax.random.normal(key, shape, dtype=dtype)
        _, k2 = jax.random.split(key)
        return jax.random.uniform(k2, shape, dtype=dtype)

    def check(outs, ins):
        x = outs[0].astype(np.float64)
        if not np.all(np.isfinite(x)):
            return False
        if use == "normal":
            return abs(x.mean()) < 0.2 and 0.8 < x.std() < 1.2
        return bool(np.all((x >= 0) & (x < 1)) and abs(x.mean() - 0.5) < 0.05)

    call = t.call(f).check("in range, mean and spread plausible", check)
    return call.no_compare() if impl == "rbg" else call


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
    note="jax.named_call(f, name=...) only names f's computation in the jaxpr/HLO: values must equal f's; "
    "grad: the gradient of sum(f) through the named call",
)
def named_call(t: Ctx):
    jax = t.fw
    jnp = jax.numpy

    def block(x):
        return jnp.sin(x) * 2 + x

    named = jax.named_call(block, name="mudjack_block")
    if t.p.use == "call":
        return t.call(lambda a: named(a), t.randn()).check("sin(x)*2 + x", near(t, lambda a: np.sin(a) * 2 + a, scale=4.0))
    grad = jax.grad(lambda a: jnp.sum(named(a)))
    return t.call(grad, t.randn()).check("2 cos(x) + 1", near(t, lambda a: 2 * np.cos(a) + 1, scale=4.0))


def vjp(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    form = t.p.f
    x = t.randn()
    if form == "elementwise":
        ct = t.randn()

        def run(a, c):
            out, pull = jax.vjp(lambda z: jnp.sin(z) * z, a)
            return out, pull(c)[0]

        return t.call(run, x, ct).check(
            "pullback = ct (cos(x) x + sin(x))", near(t, lambda a, c: c * (np.cos(a) * a + np.sin(a)), out=1, scale=8.0)
        )
    if form == "matmul":
        v = t.randn((t.shape[1],))
        ct = t.randn((t.shape[0],))
        hi = jax.lax.Precision.HIGHEST

        def run(w, vv, c):
            out, pull = jax.vjp(lambda ww: jnp.tanh(jnp.matmul(ww, vv, precision=hi)), w)
            return out, pull(c)[0]

        def ref(w, vv, c):
            y = np.tanh(w @ vv)
            return np.outer(c * (1 - y * y), vv)

        return t.call(run, x, v, ct).check("pullback = outer(ct (1 - y^2), v)", near(t, ref, out=1, scale=50.0))
    if form == "reduce":

        def run(a):
            out, pull = jax.vjp(lambda z: jnp.sum(z * z), a)
            return out, pull(jnp.ones((), out.dtype))[0]

        return t.call(run, x).check("pullback = 2x", near(t, lambda a: 2 * a, out=1))
    if form == "has_aux":
        ct = t.randn()

        def run(a, c):
            out, pull, aux = jax.vjp(lambda z: (jnp.exp(z), jnp.max(z)), a, has_aux=True)
            return out, pull(c)[0], aux

        return t.call(run, x, ct).check(
            "pullback = ct exp(x); aux = max(x)",
            lambda outs, ins: near(t, lambda a, c: c * np.exp(a), out=1, scale=8.0)(outs, ins) and np.allclose(outs[2], ins[0].max()),
        )
    y, ct_a, ct_b = t.randn(), t.randn(), t.randn()

    def run(a, b, ca, cb):
        out, pull = jax.vjp(lambda d: {"prod": d["a"] * d["b"], "sum": d["a"] + d["b"]}, {"a": a, "b": b})
        return out, pull({"prod": ca, "sum": cb})[0]

    # outputs flattened in sorted-key order: out["prod"], out["sum"], grad["a"], grad["b"]
    return t.call(run, x, y, ct_a, ct_b).check(
        "grad a = ca b + cb, grad b = ca a + cb",
        lambda outs, ins: near(t, lambda a, b, ca, cb: ca * b + cb, out=2, scale=4.0)(outs, ins)
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


for _matmul, _rtol, _atol in (
    (False, {"float32": 1e-5, "complex64": 1e-5}, None),
    (True, {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-5, "complex64": 1e-5}, {"float16": 2e-2, "bfloat16": 5e-2}),
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

    ref = lambda a: np.sin(a) * 2 + a  # noqa: E731
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
    return t.call(run, x).check(
        "the jaxpr has 1 input, 1 output and evaluates to f(x)",
        lambda outs, ins: outs[0][1] == 1 and outs[0][2] == 1 and near(t, want_ref, out=1, scale=4.0)(outs, ins),
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

        return t.call(run, x).check("tanh(x) x", near(t, lambda a: np.tanh(a) * a, scale=4.0))
    if use == "python-control":

        @jax.jit
        def g(a):
            if float(jnp.sum(a)) > 0:  # needs a concrete value
                return a * 2
            return -a

        def run(a):
            with jax.disable_jit():
                return g(a)

        return t.call(run, x).check("2x if sum > 0 else -x", near(t, lambda a: a * 2 if a.sum() > 0 else -a))

    @jax.jit
    def g(a):
        return a + 1, jnp.asarray(0 if isinstance(a, jax.core.Tracer) else 1, dtype=jnp.int32)

    def run(a):
        with jax.disable_jit():
            return g(a)

    return t.call(run, x).check("the argument was concrete", lambda outs, ins: int(outs[1]) == 1)


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
        return t.call(lambda a: lax.stop_gradient(a * 2), x).check("2x", near(t, lambda a: a * 2))
    if use == "grad":
        g = jax.grad(lambda a: jnp.sum(a * lax.stop_gradient(a)).astype(jnp.float32))
        return t.call(g, x).check("gradient is x, not 2x", near(t, lambda a: a, scale=4.0))
    y = t.randn()

    def run(a, b):
        g = jax.grad(lambda d: jnp.sum(d["a"] * d["b"] + lax.stop_gradient(d)["a"] * d["a"]).astype(jnp.float32))
        return g({"a": a, "b": b})

    return t.call(run, x, y).check(
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
        return t.call(lambda x, y: Partial(jnp.add, x)(y), a, b).check("a + b", near(t, np.add))
    if use == "kwargs":
        return t.call(lambda x, y: Partial(jnp.clip, min=x)(y), a, b).check("clip(b, min=a)", near(t, lambda x, y: np.maximum(y, x)))
    if use == "nested":
        return t.call(lambda x, y: Partial(Partial(jnp.clip, y), x)(x + 1), a, b).check("clip(b, a, a + 1)", near(t, lambda x, y: np.clip(y, x, x + 1)))
    if use == "jit-arg":
        apply = jax.jit(lambda p, y: p(y))
        return t.call(lambda x, y: apply(Partial(jnp.multiply, x), y), a, b).check("a * b", near(t, np.multiply))

    def run(x, y):
        p = Partial(jnp.subtract, x, y)
        leaves, treedef = jax.tree_util.tree_flatten(p)
        rebuilt = jax.tree_util.tree_unflatten(treedef, [leaf * 2 for leaf in leaves])
        return jnp.asarray(len(leaves), dtype=jnp.int32), rebuilt()

    return t.call(run, a, b).check(
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
            return len(outs) == len(want) and all(allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs, want))

        return t.call(run, a, b, c).check("2x + 1 on every leaf, in order", check)
    if use == "two-trees":

        def run(x, y, z):
            return tu.tree_leaves(tu.tree_map(lambda u, v: u * v, pick(x, y, z), pick(z, x, y)))

        def check(outs, ins):
            i = [as64(v) for v in ins]
            want = [u * v for u, v in zip(_leaves_np(pick(*i)), _leaves_np(pick(i[2], i[0], i[1])))]
            return len(outs) == len(want) and all(allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs, want))

        return t.call(run, a, b, c).check("x * y leaf by leaf", check)

    def run(x, y, z):
        out = tu.tree_map(lambda v: v[0] * 10 if isinstance(v, tuple) else -v, pick(x, y, z), is_leaf=lambda v: isinstance(v, tuple))
        return tu.tree_leaves(out)

    def check_leaf(outs, ins):
        x, y, z = (as64(v) for v in ins)
        # nested [a, (b, [c]), {"k": a}]: the tuple is one leaf -> b * 10; dict keys sorted: b, w, z
        want = {"nested": [-x, y * 10, -x], "dict": [-y, -x, -z]}[kind]
        return len(outs) == len(want) and all(allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs, want))

    return t.call(run, a, b, c).check("tuples reach f whole", check_leaf)


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
            return bool(outs[0]) and all(allclose(o, bump(i), 1.6e-2, 1e-2) for o, i in zip(outs[1:], ins))

        return t.call(run, a, b, c).check("a Box again, aux data kept, leaves bumped", check)
    if kind == "empty":

        def run(x, y, z):
            ok = True
            for tree in ({}, [None], ()):
                leaves, treedef = tu.tree_flatten(tree)
                ok = ok and leaves == [] and tu.tree_unflatten(treedef, []) == tree
            return jnp.asarray(ok), x

        return t.call(run, a, b, c).check("empty trees rebuild", lambda outs, ins: bool(outs[0]))

    def run(x, y, z):
        tree = _trees(jnp, x, y, z)[kind]
        leaves, treedef = tu.tree_flatten(tree)
        rebuilt = tu.tree_unflatten(treedef, [bump(v) for v in leaves])
        return jnp.asarray(tu.tree_structure(rebuilt) == treedef and type(rebuilt) is type(tree)), tu.tree_leaves(rebuilt)

    def check(outs, ins):
        want = [bump(v) for v in _leaves_np(_trees(None, *ins)[kind])]
        return bool(outs[0]) and len(outs) - 1 == len(want) and all(allclose(o, w, 1.6e-2, 1e-2) for o, w in zip(outs[1:], want))

    return t.call(run, a, b, c).check("same treedef and type, leaves bumped", check)
