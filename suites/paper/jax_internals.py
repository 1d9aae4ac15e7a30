"""The paper's JAX functions: internals (jax._src.interpreters.partial_eval,
trace_to_jaxpr_dynamic, jax._src.core.get_aval, jax.core.eval_context), resolved
at run time: cases with api=listed are `unavailable` where the name is gone,
cases with api=successor test its public successor.

See jax.py for the plan and the conventions. Importing this file must not
import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import COMMON, FLOATS, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)

from _jax_common import BOTH, INEXACT, exact_kind, f64, host_data, near

cases = Cases("jax")


# --------------------------------------------------------------------------
# internals: resolved at run time (jax._src.* and jax.core.* move between releases)
# --------------------------------------------------------------------------


def _resolve(dotted: str):
    """The object at a dotted path, or raise NameMissing naming what is missing
    (Unavailable when no module of the path imports)."""
    import importlib

    from mudjack_probe.errors import NameMissing, Unavailable

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for j, attr in enumerate(parts[i:]):
            if not hasattr(obj, attr):
                import jax

                missing = ".".join(parts[: i + j + 1])
                raise NameMissing(missing, f"{missing} does not exist in jax {jax.__version__}")
            obj = getattr(obj, attr)
        return obj
    raise Unavailable(f"{dotted}: no importable module")


def _pe_f(jnp):
    def f(x, y):
        a = jnp.sin(x) * 2
        return a * y + jnp.cos(x)

    return f


def _pe_ref(x, y):
    x, y = f64(x), f64(y)  # integer and bool inputs: sin promotes to a float
    return np.sin(x) * 2 * y + np.cos(x)


def _pe_terms(x, y):
    """Half precision, op by op: sin(x), sin(x)*2*y and cos(x) are each rounded (see HALF_ULPS)."""
    x, y = f64(x), f64(y)
    return 4 * np.abs(np.sin(x) * y) + np.abs(np.cos(x))


@cases.case(
    "jax._src.interpreters.partial_eval",
    dtype=FLOATS + ["complex64"],
    shape=shapes("scalar", "small", "large"),
    params={"api": ["listed"], "op": ["partial_eval_jaxpr_nounits", "dce_jaxpr"], "unknown": ["y", "x"]},
    mode=BOTH,
    where=lambda d, s, m, p: (p["op"] == "partial_eval_jaxpr_nounits" or p["unknown"] == "y")
    and (d == "float32" or (s == "small" and p["unknown"] == "y"))
    and (m == "eager" or (d == "float32" and s != "scalar" and p["unknown"] == "y")),
    grid="small",
    note="the module is internal: resolved at run time, unavailable where it is gone. "
    "partial_eval_jaxpr_nounits splits the jaxpr of f(x, y) = sin(x)*2*y + cos(x) into a known part "
    "(evaluated first, giving residuals) and an unknown part (y or x unknown); the case evaluates both with "
    "jax.core.eval_jaxpr and must get f(x, y), plus the equation counts of each part. dce_jaxpr removes a "
    "dead output's equations (counts before/after and the live value)",
)
def partial_eval_module(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    pe = _resolve("jax._src.interpreters.partial_eval")
    op = getattr(pe, t.p.op, None)
    if op is None:
        from mudjack_probe.errors import NameMissing

        raise NameMissing(f"jax._src.interpreters.partial_eval.{t.p.op}",
                          f"jax._src.interpreters.partial_eval.{t.p.op} does not exist in jax {jax.__version__}")
    f = _pe_f(jnp)
    x, y = t.randn(), t.randn()
    core = jax.core
    if t.p.op == "dce_jaxpr":

        def run(a, b):
            closed = jax.make_jaxpr(lambda u, v: (f(u, v), jnp.exp(u) * 3 + v))(a, b)
            live, used = op(closed.jaxpr, [True, False])
            value = core.eval_jaxpr(live, closed.consts, *[v for v, keep in zip((a, b), used) if keep])[0]
            return jnp.asarray(np.array([len(closed.jaxpr.eqns), len(live.eqns), sum(used)], dtype=np.int64)), value

        return t.call(run, x, y).reference(
            "dead equations dropped; value f(x, y)",
            lambda outs, ins: outs[0][1] < outs[0][0] and near(t, _pe_ref, out=1, scale=4.0, terms=_pe_terms)(outs, ins),
        )
    unknown_x = t.p.unknown == "x"

    def run(a, b):
        closed = jax.make_jaxpr(f)(a, b)
        known, unknown, out_unknowns, res_avals = op(closed, [unknown_x, not unknown_x], False)
        known_in = b if unknown_x else a
        unknown_in = a if unknown_x else b
        kouts = core.eval_jaxpr(known.jaxpr, known.consts, known_in)
        n_res = len(res_avals)
        residuals = kouts[len(kouts) - n_res:] if n_res else []
        value = core.eval_jaxpr(unknown.jaxpr, unknown.consts, *residuals, unknown_in)[0]
        counts = np.array([len(known.jaxpr.eqns), len(unknown.jaxpr.eqns), n_res, sum(out_unknowns)], dtype=np.int64)
        return jnp.asarray(counts), value

    return t.call(run, x, y).reference(
        "known then unknown part give f(x, y); the output is unknown",
        lambda outs, ins: outs[0][3] == 1 and near(t, _pe_ref, out=1, scale=4.0, terms=_pe_terms)(outs, ins),
    )


@cases.case(
    "jax._src.interpreters.partial_eval",
    dtype=FLOATS + ["complex64"],
    shape=shapes("scalar", "small", "large"),
    params={"api": ["successor"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or (d == "float32" and s != "scalar")),
    successor="jax.linearize",
    note="the public face of partial evaluation: jax.linearize partially evaluates the JVP of "
    "f(x) = sin(x)*2*x + cos(x) (known primal, unknown tangent); the case returns f(x) and the linear map at "
    "a random tangent, checked against the derivative (2 cos(x) x + 2 sin(x) - sin(x)) * tangent",
)
def partial_eval_successor(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    x, tangent = t.randn(), t.randn()

    def run(a, v):
        out, lin = jax.linearize(lambda z: jnp.sin(z) * 2 * z + jnp.cos(z), a)
        return out, lin(v)

    return t.call(run, x, tangent).reference(
        "f(x) and f'(x) v", lambda outs, ins: near(t, lambda a, v: np.sin(a) * 2 * a + np.cos(a), out=0, scale=4.0,
                                              terms=lambda a, v: _pe_terms(a, a))(outs, ins)
        and near(t, lambda a, v: (2 * np.cos(a) * a + 2 * np.sin(a) - np.sin(a)) * v, out=1, scale=8.0,
                 terms=lambda a, v: 2 * (2 * np.abs(np.cos(a) * a) + 3 * np.abs(np.sin(a))) * np.abs(v))(outs, ins)
    )


@cases.case(
    "jax._src.interpreters.partial_eval.trace_to_jax_pr_dynamic",
    dtype=INEXACT + ["int32"],
    shape=shapes("scalar", "small", "large"),
    params={"api": ["listed", "successor"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or (d == "float32" and s != "scalar")),
    grid="small",
    successor="jax._src.interpreters.partial_eval.trace_to_jaxpr_dynamic",
    note="the paper prints trace_to_jax_pr_dynamic, a typo for trace_to_jaxpr_dynamic (no release has the "
    "typo'd name). As every paper typo (docs/suite-format.md): listed tries the name as printed (missing: "
    "listed name missing); successor is the corrected name, partial_eval.trace_to_jaxpr_dynamic(lu.wrap_init(f, "
    "debug_info=...), in_avals), resolved at run time (unavailable where it or its calling convention is gone). "
    "Both return the jaxpr as ints (equations, inputs, outputs, constants) and its value at the input "
    "through jax.core.eval_jaxpr, f(x, y) = sin(x)*2*y + cos(x) (integers and bool: f = x*2*y + x, exact)",
)
def trace_to_jaxpr_dynamic(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    from mudjack_probe.errors import Unavailable

    is_int = exact_kind(t.dtype_name)
    f = (lambda u, v: u * 2 * v + u) if is_int else _pe_f(jnp)
    ref = (lambda u, v: u * 2 * v + u) if is_int else _pe_ref
    x, y = t.randn(), t.randn()

    if t.p.api == "listed":  # the name as printed: no release has it
        trace = _resolve("jax._src.interpreters.partial_eval.trace_to_jax_pr_dynamic")
    else:
        trace = _resolve("jax._src.interpreters.partial_eval.trace_to_jaxpr_dynamic")
    lu = _resolve("jax._src.linear_util")
    api_util = _resolve("jax._src.api_util")
    import inspect

    if "debug_info" not in inspect.signature(lu.wrap_init).parameters or not hasattr(api_util, "debug_info"):
        raise Unavailable(f"jax {jax.__version__}: lu.wrap_init has no debug_info parameter; calling convention changed")

    def run(a, b):
        flat = lambda *args: [f(*args)]  # noqa: E731 - the traced function takes and returns flat lists
        wrapped = lu.wrap_init(flat, debug_info=api_util.debug_info("mudjack", flat, (a, b), {}))
        traced = trace(wrapped, [jax.typeof(a), jax.typeof(b)] if hasattr(jax, "typeof") else [jax.core.get_aval(a), jax.core.get_aval(b)])
        jaxpr, consts = traced[0], traced[2] if len(traced) > 2 else []
        counts = [len(jaxpr.eqns), len(jaxpr.invars), len(jaxpr.outvars), len(consts)]
        return jnp.asarray(np.array(counts, dtype=np.int64)), jax.core.eval_jaxpr(jaxpr, consts, a, b)[0]

    return t.call(run, x, y).reference(
        "2 inputs, 1 output; evaluates to f(x, y)",
        lambda outs, ins: outs[0][1] == 2 and outs[0][2] == 1 and near(t, ref, out=1, scale=4.0, terms=_pe_terms)(outs, ins),
    )


def _aval_ints(jnp, aval, weak_default=False):
    """An aval as ints: ndim, itemsize, dtype kind (ord), weak_type, then the shape."""
    dtype = np.dtype(aval.dtype)
    weak = int(bool(getattr(aval, "weak_type", weak_default)))
    return jnp.asarray(np.array([len(aval.shape), dtype.itemsize, ord(dtype.kind), weak] + list(aval.shape), dtype=np.int64))


_AVAL_ARGS = {
    "array": None,
    "python-float": 2.5,
    "python-int": 7,
    "numpy": "numpy",
}


@cases.case(
    "jax._src.core.get_aval",
    dtype=COMMON,
    shape={"scalar": (), "empty": (0, 3), "matrix": (64, 128), "large": (LARGE,)},
    params={"api": ["successor", "listed"], "arg": list(_AVAL_ARGS)},
    mode=BOTH,
    where=lambda d, s, m, p: (p["arg"] == "array" or (d == "float32" and s == "scalar"))
    and (d == "float32" or s == "matrix")
    and (m == "eager" or (p["arg"] == "array" and d in ("float32", "bfloat16") and s in ("scalar", "matrix"))),
    grid="matrix",
    successor="jax.typeof",
    note="listed: jax._src.core.get_aval (removed in jax 0.10 -- also tried as jax.core.get_aval; unavailable "
    "where neither exists); successor: jax.typeof. The aval as ints: ndim, itemsize, dtype kind, weak_type, "
    "shape. Python scalars are weakly typed (weak_type 1, 64-bit with x64); compiled: the aval of a Tracer",
)
def get_aval(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    from mudjack_probe.errors import NameMissing, Unavailable

    if t.p.api == "listed":
        fn = None
        for path in ("jax._src.core.get_aval", "jax.core.get_aval"):
            try:
                fn = _resolve(path)
                break
            except Unavailable:
                continue
        if fn is None:
            raise NameMissing("jax._src.core.get_aval",
                              f"jax._src.core.get_aval (and jax.core.get_aval) do not exist in jax {jax.__version__}; successor jax.typeof")
    else:
        fn = _resolve("jax.typeof")
    arg = t.p.arg
    want_dtype = np.dtype(t.dtype)
    if arg == "array":
        shape = tuple(t.shape)
        return t.call(lambda a: _aval_ints(jnp, fn(a)), t.randn()).reference(
            "ndim, itemsize, kind, not weak, shape",
            lambda outs, ins: list(outs[0]) == [len(shape), want_dtype.itemsize, ord(want_dtype.kind), 0] + list(shape),
        )
    if arg == "numpy":
        host = host_data(t)
        return t.call(lambda: _aval_ints(jnp, fn(host))).reference(
            "the numpy array's ndim, dtype, shape; not weak",
            lambda outs, ins: list(outs[0]) == [host.ndim, host.dtype.itemsize, ord(host.dtype.kind), 0, *host.shape],
        )
    value = _AVAL_ARGS[arg]
    kind = "f" if isinstance(value, float) else "i"
    return t.call(lambda: _aval_ints(jnp, fn(value))).reference(
        "0-d, 64-bit, weakly typed", lambda outs, ins: list(outs[0]) == [0, 8, ord(kind), 1]
    )


@cases.case(
    "jax.core.eval_context",
    dtype=FLOATS + ["complex64"],
    shape={"scalar": (), "small": (1000,), "matrix": (64, 128), "large": (LARGE,)},
    params={"api": ["listed", "successor"]},
    mode=BOTH,
    where=cross("float32", "small") & compiled_only(("float32", "bfloat16")),
    grid="small",
    successor="jax.ensure_compile_time_eval",
    note="listed: jax.core.eval_context (internal; unavailable where gone); successor: "
    "jax.ensure_compile_time_eval. Inside the context a table cos(linspace(0, 1, n)) is computed; under jit "
    "(compiled) it must still be a concrete value, not a Tracer (returned as a 0/1 flag), and x + table "
    "must be right either way",
)
def eval_context(t: Ctx):
    jax = t.fw
    jnp = jax.numpy
    ctx = _resolve("jax.core.eval_context") if t.p.api == "listed" else _resolve("jax.ensure_compile_time_eval")
    shape = tuple(t.shape)
    n = int(np.prod(shape)) if shape else 1
    dtype = t.dtype

    real = np.float64 if t.dtype_name in ("float64", "complex128") else np.float32
    # integer and bool cases: the table is cast to the case dtype (truncated; bool: nonzero), as on the host
    exact = np.dtype(t.dtype_name) if exact_kind(t.dtype_name) else None

    def table_ref():
        table = np.cos(np.linspace(0.0, 1.0, n, dtype=real)).reshape(shape)
        return table.astype(exact) if exact is not None else table

    def run(a):
        with ctx():
            table = jnp.cos(jnp.linspace(0.0, 1.0, n, dtype=real)).reshape(shape).astype(dtype)
            concrete = not isinstance(table, jax.core.Tracer)
        return a + table, jnp.asarray(1 if concrete else 0, dtype=jnp.int32)

    return t.call(run, t.randn()).reference(
        "table concrete; x + table",
        lambda outs, ins: int(outs[1]) == 1
        and near(t, lambda a: a + table_ref(), scale=4.0,
                 terms=lambda a: np.abs(np.cos(np.linspace(0.0, 1.0, n, dtype=real))).reshape(shape))(outs, ins),
    )
