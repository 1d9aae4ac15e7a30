"""The paper's TensorFlow functions, part 3: TF1 graph-and-session APIs, checkpoints, training utilities.

The tf.compat.v1 graph APIs run the way they must in TF2: each body builds a
fresh tf.Graph with its ops pinned to the bound device (`tf.device(t.device)`)
and a tf.compat.v1.Session whose allow_soft_placement follows the adapter's
setting (off inside a case, as in the paper); the timed call is Session.run (or the API itself). Graph
cases are labelled `eager` (the mode axis is eager vs XLA); their notes say
"graph". Names removed from TensorFlow since the study are tested through their
documented successor (`successor=`), or are `unavailable` with the reason.

Sessions, monitored sessions, summary writers and temporary folders a body
creates are closed or removed when the next body of this file starts (and
folders at exit), so bodies can run again and again. See tensorflow.py for the
other conventions.
"""

from __future__ import annotations

from _tf_ref import DEFAULT_GRAPH_SEED, UNIT, equal, exact, module, near, near_all, numpy_dtype, philox_normal, philox_normal_draw, rounded

from mudjack_probe.api import FLOATS, GRID, LARGE, Cases, Ctx, compiled_only, cross, np, shapes  # np: numpy, loaded on first use (listing needs none)
from mudjack_probe.errors import Unavailable

cases = Cases("tensorflow")


# Said in the notes of float32 matmul and convolution cases checked at float32's precision.
_TF32 = (" float32 is checked at float32's precision: a GPU where TensorFlow uses TF32 by default "
        "(tf.config.experimental.enable_tensor_float_32_execution) fails it, and that is the default, not noise")


_STALE: list = []  # what the previous body left open: sessions, writers, temp folders


def _fresh() -> None:
    """Close what earlier bodies of this file left open; called first by every body."""
    import contextlib
    import shutil

    while _STALE:
        item = _STALE.pop()
        if isinstance(item, str):
            shutil.rmtree(item, ignore_errors=True)
            continue
        with contextlib.suppress(Exception):  # a session a case broke may not close cleanly; it is garbage either way
            item.close()


def _tempdir() -> str:
    import atexit
    import shutil
    import tempfile

    d = tempfile.mkdtemp(prefix="mudjack_tf_")
    atexit.register(shutil.rmtree, d, True)
    _STALE.append(d)
    return d


def _config(t: Ctx) -> object:
    """Session config that follows the adapter's soft-placement setting (off inside a case's scope, as the
    paper ran; a runner that re-runs a case with placement on gets sessions with it on too)."""
    tf = t.fw
    return tf.compat.v1.ConfigProto(allow_soft_placement=bool(tf.config.get_soft_device_placement()))


def _session(t: Ctx, graph) -> object:
    v1 = t.fw.compat.v1
    s = v1.Session(graph=graph, config=_config(t))
    _STALE.append(s)
    return s


def _condensed(exc: BaseException) -> BaseException:
    """A graph-mode OpError's message starts 'Graph execution error:' and a Python traceback; the
    cause is after the 'Node:' line. Same exception class, so classification is unchanged."""
    msg = getattr(exc, "message", "") or ""
    if not msg.startswith("Graph execution error"):
        return exc
    lines = msg.splitlines()
    detail = None
    for k, line in enumerate(lines):
        if line.startswith("Node: "):
            rest = [x.strip() for x in lines[k + 1 :] if x.strip() and not x.strip().startswith("[[")]
            if rest:
                detail = f"{rest[0]} ({line.strip()})"
    if detail is None:
        return exc
    try:
        return type(exc)(exc.node_def, exc.op, detail)
    except Exception:
        return exc


def _run(t: Ctx, sess, fetches, feed=None, **kw):
    try:
        return sess.run(fetches, feed_dict=feed, **kw)
    except t.fw.errors.OpError as exc:
        new = _condensed(exc)
        if new is exc:
            raise
        raise new from exc


def _host(t: Ctx, shape, dtype: str | None = None, kind: str = "randn") -> object:
    """Deterministic host data (numpy) for feeds and constants; bfloat16 as an ml_dtypes bfloat16 array
    (rounded to nearest even, as the device cast rounds), so graph constants and feeds have the dtype."""
    from mudjack_probe.adapters.base import host_values

    name = dtype or t.dtype_name
    a = host_values(tuple(shape), name, kind, int(t.numpy_rng().integers(1 << 31)))
    return a.astype(numpy_dtype("bfloat16")) if name == "bfloat16" else a


def _integer(t: Ctx) -> bool:
    return t.dtype_name.startswith(("int", "uint"))


def _excuse_rest(function: str, reason: str, have) -> None:
    """Excuse `function` from every grid dtype its cases do not have."""
    cases.excuse(function, reason, [d for d in GRID if d not in have])


def _flag(ok: bool) -> object:
    return np.asarray(1 if ok else 0, dtype=np.int32)


def _first_is_one(outs, ins) -> bool:
    return bool(np.asarray(outs[0]).reshape(-1)[0] == 1)


def _f64(a) -> object:
    a = np.asarray(a)
    return a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64)


def _matmul_ref(t: Ctx, a, b, transpose_b: bool = False):
    """Check: the product of two host matrices against numpy in float64, each element within
    2 u sqrt(k) sum_j |a_ij b_jk| (a k-term dot product summed in order in the dtype)."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if transpose_b:
        b64 = b64.T
    u = UNIT.get(t.dtype_name, 0.0)
    bound = 2 * u * np.sqrt(a64.shape[1]) * (np.abs(a64) @ np.abs(b64))
    return near(t, lambda: a64 @ b64, atol=lambda: bound)


# --------------------------------------------------------------------------- tf.compat.v1.placeholder


def _doubled_row_sums(dtype: str):
    """Row sums of 2x against numpy in float64, rounded to the dtype; atol: 32 terms summed in order in the
    dtype, u sqrt(31) sum|2x| (as tensorflow.py's reduce_mean bound); integers exactly."""
    u = UNIT.get(dtype, 0.0)
    if dtype.startswith(("int", "uint")):  # fixed-width integers wrap: 2x and the sum, each in the dtype
        nd = numpy_dtype(dtype)
        return exact(lambda f: np.sum((f.astype(nd) * nd.type(2)).astype(nd), axis=1, dtype=nd).astype(np.int64))
    return near(dtype, lambda f: 2 * f.sum(axis=1), atol=lambda f: u * np.sqrt(f.shape[1] - 1.0) * 2 * np.abs(f).sum(axis=1))


@cases.case(
    "tf.compat.v1.placeholder",
    dtype=["float32", "float64", "int32", "float16"],
    shape={"empty": (0, 32), "small": (64, 32), "large": (32768, 32)},
    params={"shape_spec": ["rows_unknown", "unknown_rank"]},
    where=lambda d, s, m, p: (p["shape_spec"] == "rows_unknown" and (d, s) in (("float16", "small"), ("float32", "large")))
    or (p["shape_spec"] == "unknown_rank" and d == "float32" and s == "small"),
    note="TF1 API, graph: a tf.compat.v1.Graph with a placeholder of shape [None, 32] (unknown_rank: "
    "shape=None) feeding reduce_sum(2x, axis=1), pinned to the bound device without soft placement; the "
    "timed call is Session.run with a host feed (so it includes the feed's copy to the device)",
)
def placeholder(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        x = v1.placeholder(t.dtype, shape=[None, t.shape[1]] if getattr(t.p, "shape_spec", "rows_unknown") == "rows_unknown" else None)
        y = tf.reduce_sum(x * 2, axis=1)
    session = _session(t, graph)
    from mudjack_probe.adapters.base import host_values

    feed = host_values(t.shape, t.dtype_name, "randn", t.seed)
    # The host feed is passed as the call's argument so the check sees it.
    return t.call(lambda f: _run(t, session, y, {x: f}), feed).reference("row sums of 2x", _doubled_row_sums(t.dtype_name))


@cases.case(
    "tf.compat.v1.placeholder",
    dtype=["float32", "bool"],
    shape={"scalar": (), "small": (64, 32)},
    where=lambda d, s, m, p: (d == "float32") == (s == "scalar"),
    note="graph: scalar: a shape-[] placeholder, y = 2x + 1; bool: a bool placeholder, y = logical_not(x)",
)
def placeholder_other(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        x = v1.placeholder(t.dtype, shape=list(t.shape))
        y = tf.logical_not(x) if t.dtype_name == "bool" else x * 2 + 1
    session = _session(t, graph)
    feed = _host(t, t.shape)
    want = (lambda a: np.logical_not(a)) if t.dtype_name == "bool" else (lambda a: a * 2 + 1)
    return t.call(lambda f: _run(t, session, y, {x: f}), feed).reference("computes y", exact(want, dtype=t.dtype_name))


# Keep the first cut's ids: float32/float64/int32 x empty/small without a shape_spec parameter.
placeholder_first_cut = cases.case(
    "tf.compat.v1.placeholder",
    dtype=["float32", "float64", "int32"],
    shape={"empty": (0, 32), "small": (64, 32)},
    grid="small",
    reduction=32,
    note="TF1 API, graph: a tf.compat.v1.Graph with a placeholder of shape [None, 32] feeding "
    "reduce_sum(2x, axis=1), pinned to the bound device without soft placement; the timed call is "
    "Session.run with a host feed (so it includes the feed's copy to the device). Integer row sums wrap in "
    "the dtype (two's complement), as the check's numpy reference does. bool-small is placeholder_other's "
    "(logical_not), declared first",
)(placeholder)


# --------------------------------------------------------------------------- tf.Tensor.eval


@cases.case(
    "tf.Tensor.eval",
    dtype=["float16", "float32", "float64", "int32", "int64", "bool", "complex64"],
    shape=shapes("scalar", "empty", "small", "large"),
    params={"session": ["explicit", "default"]},
    where=lambda d, s, m, p: (p["session"] == "explicit" and (s == "small" or d == "float32"))
    or (p["session"] == "default" and d == "float32" and s == "small"),
    grid="small",
    note="graph: y = x + x (logical_not for bool) on a fed placeholder; the timed call is y.eval(feed_dict, "
    "session=sess) (explicit) or y.eval(feed_dict) inside `with sess.as_default()` (default)",
)
def tensor_eval(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        x = v1.placeholder(t.dtype, shape=list(t.shape))
        y = tf.logical_not(x) if t.dtype_name == "bool" else x + x
    sess = _session(t, graph)
    feed = _host(t, t.shape)
    explicit = t.p.session == "explicit"

    def fn(f):
        try:
            if explicit:
                return y.eval(feed_dict={x: f}, session=sess)
            with sess.as_default():
                return y.eval(feed_dict={x: f})
        except tf.errors.OpError as exc:
            new = _condensed(exc)
            if new is exc:
                raise
            raise new from exc

    want = (lambda a: np.logical_not(a)) if t.dtype_name == "bool" else (lambda a: a + a)
    return t.call(fn, feed).reference("computes y", exact(want, dtype=t.dtype_name))


@cases.case(
    "tf.Tensor.eval",
    dtype=["float32"],
    shape={"matmul_constants": (128, 128)},
    note="graph: eval of matmul(a, b) of two constants (no feed): the whole computation stays on the device;" + _TF32,
)
def tensor_eval_const(t: Ctx):
    _fresh()
    tf = t.fw
    graph = tf.Graph()
    a, b = _host(t, t.shape), _host(t, t.shape[::-1]) * 0.1
    with graph.as_default(), tf.device(t.device):
        y = tf.matmul(tf.constant(a), tf.constant(b))
    sess = _session(t, graph)
    return t.call(lambda: y.eval(session=sess)).reference("a @ b", _matmul_ref(t, a, b))


# --------------------------------------------------------------------------- tf.compat.v1.Session.run


@cases.case(
    "tf.compat.v1.Session.run",
    dtype=["float16", "float32", "float64", "int32", "int64", "bool", "complex64"],
    shape=shapes("scalar", "empty", "small"),
    where=cross("float32", "small"),
    grid="small",
    note="graph: fetch one tensor, x + y of two device constants (logical_xor for bool); no feed",
)
def session_run(t: Ctx):
    _fresh()
    tf = t.fw
    graph = tf.Graph()
    a, b = _host(t, t.shape), _host(t, t.shape, kind="positive")
    with graph.as_default(), tf.device(t.device):
        ca, cb = tf.constant(a), tf.constant(b)
        y = tf.math.logical_xor(ca, cb) if t.dtype_name == "bool" else ca + cb
    sess = _session(t, graph)
    want = np.logical_xor(a, b) if t.dtype_name == "bool" else rounded(_f64(a) + _f64(b), t.dtype_name)
    return t.call(lambda: _run(t, sess, y)).reference("x + y", exact(lambda: want))


@cases.case(
    "tf.compat.v1.Session.run",
    dtype=["float32", "float64"],
    shape={"matmul": (512, 512), "feed_large": (LARGE,), "structure": (64,), "op_fetch": (64,), "run_options": (64,)},
    where=cross("float32", "matmul"),
    note="graph. matmul: a 512x512 product; feed_large: a 2^20 host feed through 2x + 1; structure: fetches "
    "as {'a': t, 'b': [t, (t,)]} come back in the same nest; op_fetch: [train_op, tensor] gives [None, "
    "value]; run_options: RunOptions(FULL_TRACE) with run_metadata, which must then hold step stats;" + _TF32,
)
def session_run_variants(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    s = t.case.shape_name
    sess_holder = {}
    with graph.as_default(), tf.device(t.device):
        if s == "matmul":
            a = _host(t, t.shape) / 16.0
            y = tf.matmul(tf.constant(a), tf.constant(a))
            sess = _session(t, graph)
            return t.call(lambda: _run(t, sess, y)).reference("a @ a", _matmul_ref(t, a, a))
        if s == "feed_large":
            x = v1.placeholder(t.dtype, [None])
            y = x * 2 + 1
            sess = _session(t, graph)
            return t.call(lambda f: _run(t, sess, y, {x: f}), _host(t, t.shape)).reference(
                "2x + 1", exact(lambda f: f * 2 + 1, dtype=t.dtype_name))
        base_host = _host(t, t.shape)
        b64 = base_host.astype(np.float64)
        base = tf.constant(base_host)
        if s == "structure":
            fetches = {"a": base * 2, "b": [base + 1, (tf.reduce_sum(base),)]}
            sess = _session(t, graph)

            # leaves in key order: a = 2x, b = [x + 1, (sum x,)]; the sum within its rounding bound
            want = [2 * b64, b64 + 1, np.sum(b64)]
            sum_bound = UNIT.get(t.dtype_name, 0.0) * np.sqrt(b64.size) * np.abs(b64).sum()
            return t.call(lambda: _run(t, sess, fetches)).reference("same nest: 2x, x + 1, sum x", lambda o, i: len(o) == 3 and all(
                near(t, lambda w=w: w, atol=sum_bound if k == 2 else None, out=k)(o, []) for k, w in enumerate(want)))
        if s == "op_fetch":
            v = tf.Variable(tf.zeros(t.shape, t.dtype))
            train = tf.group(v.assign_add(base))
            triple = base * 3
            sess = _session(t, graph)
            sess_holder["init"] = v1.global_variables_initializer()
            _run(t, sess, sess_holder["init"])
            # [None, 3x]: the op's None leaves one array
            return t.call(lambda: _run(t, sess, [train, triple])).reference(
                "op fetch is None, the tensor 3x", lambda o, i: len(o) == 1 and near(t, lambda: 3 * b64)(o, []))
        y = tf.nn.relu(base)
        sess = _session(t, graph)

    def traced():
        meta = v1.RunMetadata()
        out = _run(t, sess, y, options=v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE), run_metadata=meta)
        return out, _flag(len(meta.step_stats.dev_stats) > 0)

    return t.call(traced).check("run_metadata has step stats", lambda o, i: int(o[1]) == 1).reference(
        "relu(x)", exact(lambda: np.maximum(b64, 0.0)))


# --------------------------------------------------------------------------- tf.Graph.as_default


@cases.case(
    "tf.Graph.as_default",
    dtype=["float32", "float64"],
    shape={"enter": (), "build_and_run": (64, 64), "nested": ()},
    where=cross("float32", "build_and_run"),
    note="enter: inside g.as_default() the default graph is g and TF is not executing eagerly, and after "
    "exit eager execution is back (flags); build_and_run: a matmul built under as_default() runs in a "
    "Session on the device; nested: an inner graph's as_default() restores the outer one on exit;" + _TF32,
)
def graph_as_default(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    s = t.case.shape_name
    if s == "enter":
        g = tf.Graph()

        def fn():
            with g.as_default():
                inside = v1.get_default_graph() is g and not tf.executing_eagerly()
            return np.array([inside, tf.executing_eagerly()], dtype=np.int32)

        return t.call(fn).check("default inside, eager after", lambda o, i: list(o[0]) == [1, 1])
    if s == "nested":
        outer, inner = tf.Graph(), tf.Graph()

        def nested():
            with outer.as_default():
                with inner.as_default():
                    a = v1.get_default_graph() is inner
                b = v1.get_default_graph() is outer
            return np.array([a, b], dtype=np.int32)

        return t.call(nested).check("inner then outer", lambda o, i: list(o[0]) == [1, 1])
    a = _host(t, t.shape) / 8.0
    g = tf.Graph()
    sess = _session(t, g)

    def build_and_run():
        with g.as_default(), tf.device(t.device):
            y = tf.matmul(tf.constant(a), tf.constant(a), transpose_b=True)
        return _run(t, sess, y)

    return t.call(build_and_run).reference("a @ a.T", _matmul_ref(t, a, a, transpose_b=True))


# as_default() takes no tensor (a Graph and no arguments): the dtypes above are the matmul's it builds.
_excuse_rest("tf.Graph.as_default", "no_tensor_input", ("float32", "float64"))


# --------------------------------------------------------------------------- tf.compat.v1.variable_scope


@cases.case(
    "tf.compat.v1.variable_scope",
    dtype=["float32", "float64", "int32"],
    shape={"matrix": (3, 4), "large": (1024, 1024)},
    params={"reuse": ["auto", "true", "none_raises", "scope_initializer"]},
    where=lambda d, s, m, p: (p["reuse"] == "auto" and (s == "matrix" or d == "float32")) or (p["reuse"] != "auto" and d == "float32" and s == "matrix"),
    grid="matrix",
    note="graph (variable_scope_test): get_variable('w') in variable_scope('outer')/variable_scope('inner'). auto: "
    "reuse=AUTO_REUSE gives back the same variable, named outer/inner/w:0; true: reuse=True after creation; "
    "none_raises: reuse unset must raise ValueError for an existing name; scope_initializer: the scope's "
    "initializer (constant 0.5) applies. The timed call re-enters the scopes and runs the variable",
)
def variable_scope(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    value = _host(t, t.shape)
    mode = t.p.reuse
    dtype = t.dtype

    def get(reuse, scope_init=None):
        with graph.as_default(), tf.device(t.device), v1.variable_scope("outer", reuse=reuse, initializer=scope_init), v1.variable_scope("inner"):
            if scope_init is not None:
                return v1.get_variable("w", shape=t.shape, dtype=dtype)
            return v1.get_variable("w", initializer=tf.constant(value), dtype=dtype)

    scope_init = v1.constant_initializer(0.5) if mode == "scope_initializer" else None
    first = get(v1.AUTO_REUSE if mode == "auto" else None, scope_init)
    with graph.as_default():
        init = v1.global_variables_initializer()
    sess = _session(t, graph)
    _run(t, sess, init)

    if mode == "none_raises":
        def fn():
            try:
                get(None)
            except ValueError:
                return _flag(True)
            return _flag(False)

        return t.call(fn).check("raises ValueError", _first_is_one)

    reuse = {"auto": v1.AUTO_REUSE, "true": True, "scope_initializer": True}[mode]

    def fn():
        w = get(reuse, scope_init)
        return np.array([w.name == "outer/inner/w:0", w is first], dtype=np.int32), _run(t, sess, w)

    want = np.full(t.shape, 0.5) if mode == "scope_initializer" else value
    return t.call(fn).check("same variable, named outer/inner/w:0", lambda o, i: list(o[0]) == [1, 1]).reference(
        "its value: the initializer's", exact(lambda: want, out=1))


# --------------------------------------------------------------------------- tf.compat.v1.get_collection


@cases.case(
    "tf.compat.v1.get_collection",
    dtype=["float32"],
    shape={"global_variables": (5,), "trainable": (5,), "scope_filter": (6,), "custom_key": (10,), "absent_key": (0,), "large": (5000,)},
    note="graph (ops_test): global_variables: 5 variables; trainable: TRAINABLE_VARIABLES skips 2 made with "
    "trainable=False; scope_filter: scope 'a' is a re.match prefix, so it also takes 'ab/' names; "
    "custom_key: 10 tensors added with add_to_collection; absent_key: []; large: 5000 items filtered by "
    "scope. Output: the count and the names (checked against the expected names)",
)
def get_collection(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    s = t.case.shape_name
    key, scope = v1.GraphKeys.GLOBAL_VARIABLES, None
    with graph.as_default(), tf.device(t.device):
        if s in ("global_variables", "trainable"):
            for k in range(5):
                v1.get_variable(f"v{k}", shape=[2], trainable=(k < 3))
            if s == "trainable":
                key = v1.GraphKeys.TRAINABLE_VARIABLES
        elif s == "scope_filter":
            for name, count in (("a", 3), ("b", 2), ("ab", 1)):
                with v1.variable_scope(name):
                    for k in range(count):
                        v1.get_variable(f"w{k}", shape=[1])
            scope = "a"
        else:
            key = "mudjack_custom"
            n = t.shape[0]
            for k in range(n):
                with tf.name_scope(f"s{k % 7}"):
                    v1.add_to_collection(key, tf.constant(float(k), name="c"))
            if s == "absent_key":
                key = "mudjack_absent"
            if s == "large":
                scope = "s1"
    names = sorted(_collection_names(s, t.shape[0]))

    def fn():
        with graph.as_default():
            items = v1.get_collection(key, scope)
        return np.asarray(len(items), dtype=np.int64), np.array(sorted(x.name for x in items))

    return t.call(fn).reference("the expected count and names", lambda o, i: int(o[0]) == len(names) and list(o[1]) == names)


def _collection_names(shape_name: str, n: int) -> list:
    """The names get_collection must give, worked out from how the body names things: variables
    '<scope>/<name>:0'; the k-th constant 'c' under name_scope('s<k % 7>'), whose j-th reuse TF
    uniquifies as 's<k % 7>_<j>'; scope filters are re.match prefixes ('a' also takes 'ab/')."""
    if shape_name == "global_variables":
        return [f"v{k}:0" for k in range(5)]
    if shape_name == "trainable":
        return [f"v{k}:0" for k in range(3)]
    if shape_name == "scope_filter":
        return ["a/w0:0", "a/w1:0", "a/w2:0", "ab/w0:0"]
    if shape_name == "absent_key":
        return []
    names = [f"s{k % 7}" + (f"_{k // 7}" if k >= 7 else "") + "/c:0" for k in range(n)]
    return [x for x in names if x.startswith("s1")] if shape_name == "large" else names


# get_collection(key, scope) takes a collection key and a scope string, never a tensor.
_excuse_rest("tf.compat.v1.get_collection", "no_tensor_input", ("float32",))


# --------------------------------------------------------------------------- tf.compat.v1.global_variables_initializer


@cases.case(
    "tf.compat.v1.global_variables_initializer",
    dtype=["float32", "float64", "int32", "float16"],
    shape={"few": (3, 16), "many": (100, 16), "large": (1, LARGE), "none": (0, 1), "random": (1, 10000)},
    where=cross("float32", "few"),
    grid="few",
    note="graph: dims are (number of variables, elements each). The timed Session.run runs the initializer "
    "and reads every variable after it (control dependencies), so outputs are the initial values: "
    "constants from the host, except random (random_normal, op seed 7, not compared across devices; mean "
    "and std checked, and the values against a numpy Philox4x32-10 + Box-Muller, the generator TF's "
    "kernels use on every device); none: no variables, the initializer is a no_op",
)
def global_variables_initializer(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    count, size = t.shape
    shift = (lambda a, k: a ^ bool(k % 2)) if t.dtype_name == "bool" else (lambda a, k: a + a.dtype.type(k))  # each variable its own values
    inits = [shift(_host(t, (size,)), k) for k in range(count)] if t.case.shape_name != "random" else []
    with graph.as_default(), tf.device(t.device):
        if t.case.shape_name == "random":
            variables = [v1.get_variable("r", initializer=v1.random_normal([size], seed=7, dtype=t.dtype))]
        else:
            variables = [v1.get_variable(f"v{k}", initializer=tf.constant(a)) for k, a in enumerate(inits)]
        init = v1.global_variables_initializer()
        with tf.control_dependencies([init]):
            reads = [v.read_value() for v in variables] or [tf.constant(0)]
    sess = _session(t, graph)
    call = t.call(lambda: _run(t, sess, reads))
    if t.case.shape_name == "random":
        # 10000 samples: the mean within 6 standard errors (0.06) of 0, the std within 6 of its (0.042) of 1
        return call.no_compare().check(
            "standard normal", lambda o, i: abs(float(o[0].mean())) < 0.06 and abs(float(o[0].std()) - 1) < 0.042).reference(
            "TF's Philox4x32-10 stream for seeds (87654321, 7), Box-Muller, in numpy",
            lambda o, i: bool(np.allclose(o[0], philox_normal(size, DEFAULT_GRAPH_SEED, 7), rtol=1e-5, atol=1e-5)))
    if not inits:  # the fetch is the constant 0 the control dependency hangs on
        return call.reference("the no_op initializer ran; the fetch is 0", exact(lambda: np.zeros((), np.int64)))
    return call.reference("initial values", lambda o, i: len(o) == len(inits) and all(equal(x, a) for x, a in zip(o, inits)))


# --------------------------------------------------------------------------- tf.compat.v1.metrics.accuracy


@cases.case(
    "tf.compat.v1.metrics.accuracy",
    dtype=["int32", "int64", "float32", "bool"],
    shape={"small": (1000,), "matrix": (100, 10), "empty": (0,), "large": (LARGE,)},
    params={"weights": [False, True]},
    where=lambda d, s, m, p: (not p["weights"] and (s == "small" or d == "int32" or (s == "large" and d == "int64")))
    or (p["weights"] and s == "small" and d == "int32"),
    grid="small",
    note="graph (metrics_test): labels in [0, 4), predictions equal to them 70% of the time; (accuracy, "
    "update_op) with local variables initialised; the timed call runs update_op, whose value after any "
    "number of runs on the same batch is that batch's accuracy (weighted: weights in [0, 1)). empty: 0",
)
def metrics_accuracy(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    rng = t.numpy_rng()
    labels = rng.integers(0, 4, size=t.shape)
    preds = np.where(rng.random(t.shape) < 0.7, labels, rng.integers(0, 4, size=t.shape))
    if t.dtype_name == "bool":
        labels, preds = labels % 2 == 0, preds % 2 == 0
    np_dtype = numpy_dtype(t.dtype_name)
    labels, preds = labels.astype(np_dtype), preds.astype(np_dtype)
    weights = rng.random(t.shape).astype(np.float32) if t.p.weights else None
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        _acc, update = v1.metrics.accuracy(tf.constant(labels), tf.constant(preds), weights=None if weights is None else tf.constant(weights))
        init = v1.local_variables_initializer()
    sess = _session(t, graph)
    _run(t, sess, init)
    correct = (labels == preds).astype(np.float64)
    w = np.ones_like(correct) if weights is None else weights.astype(np.float64)
    want = float((correct * w).sum() / w.sum()) if w.sum() > 0 else 0.0
    return t.call(lambda: _run(t, sess, update)).reference("the batch accuracy", near("float32", lambda: want))


# --------------------------------------------------------------------------- tf.compat.v1.train.get_global_step


@cases.case(
    "tf.compat.v1.train.get_global_step",
    dtype=["int64"],
    shape={"created": (), "none": (), "collection": (), "default_graph": ()},
    note="graph (training_util_test): created: create_global_step, incremented 3 times, then "
    "get_global_step(graph) is read in a Session (3); none: no global step gives None (flag); collection: "
    "an int64 variable put in the GLOBAL_STEP collection by hand is found; default_graph: get_global_step() "
    "with no argument inside graph.as_default()",
)
def get_global_step(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    s = t.case.shape_name
    with graph.as_default(), tf.device(t.device):
        if s == "collection":
            step = v1.get_variable("my_step", initializer=tf.constant(0, tf.int64), trainable=False)
            v1.add_to_collection(v1.GraphKeys.GLOBAL_STEP, step)
        elif s != "none":
            step = v1.train.create_global_step(graph)
        if s != "none":
            inc = v1.assign_add(step, 1)
        init = v1.global_variables_initializer()
    sess = _session(t, graph)
    _run(t, sess, init)
    if s == "none":
        return t.call(lambda: _flag(v1.train.get_global_step(graph) is None)).reference("None without one", _first_is_one)
    for _ in range(3):
        _run(t, sess, inc)

    def fn():
        if s == "default_graph":
            with graph.as_default():
                gs = v1.train.get_global_step()
        else:
            gs = v1.train.get_global_step(graph)
        return _run(t, sess, gs)

    return t.call(fn).reference("value 3 (three increments)", exact(lambda: np.int64(3)))


# get_global_step(graph) takes a graph; the step it finds is an int64 variable by construction.
_excuse_rest("tf.compat.v1.train.get_global_step", "no_tensor_input", ("int64",))


# --------------------------------------------------------------------------- tf.compat.v1.test.compute_gradient_error

_GRAD_FNS = {
    "square": lambda tf, x: x * x,
    "tanh": lambda tf, x: tf.tanh(x),
    "matmul": lambda tf, x: tf.matmul(x, tf.constant(np.linspace(-1, 1, 20).reshape(4, 5), dtype=x.dtype)),
    "reduce_sum": lambda tf, x: tf.reduce_sum(x, axis=1),
}


@cases.case(
    "tf.compat.v1.test.compute_gradient_error",
    dtype=["float32", "float64"],
    shape={"small": (3, 4), "medium": (10, 4)},
    params={"fn": list(_GRAD_FNS)},
    where=lambda d, s, m, p: (s == "small" and (d == "float64" or p["fn"] in ("tanh", "matmul"))) or (s == "medium" and d == "float64" and p["fn"] == "tanh"),
    grid="small",
    note="graph (gradient_checker_test): the max difference between the symbolic and the finite-difference "
    "(delta 1e-3) Jacobian of y = f(x), inside `with sess.as_default()`; must be below 1e-4 for float64, "
    "5e-2 for float32 and complex64; float16 1 and bfloat16 8 (a difference of width 2e-3 of values rounded to "
    "u |f| is off by about u |f| / 2e-3). Not compared across devices (finite-difference noise)",
)
def compute_gradient_error(t: Ctx):
    _fresh()
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    xv = _host(t, t.shape)
    f = _GRAD_FNS[t.p.fn]
    with graph.as_default(), tf.device(t.device):
        x = tf.constant(xv)
        y = f(tf, x)
    sess = _session(t, graph)
    y_shape = y.shape.as_list()
    x_shape = list(t.shape)

    def fn():
        with graph.as_default(), sess.as_default():
            try:
                return np.asarray(v1.test.compute_gradient_error(x, x_shape, y, y_shape, x_init_value=xv))
            except tf.errors.OpError as exc:
                new = _condensed(exc)
                if new is exc:
                    raise
                raise new from exc

    bound = {"float64": 1e-4, "complex128": 1e-4, "float16": 1.0, "bfloat16": 8.0}.get(t.dtype_name, 5e-2)
    call = t.call(fn).no_compare().check(f"error < {bound}", lambda o, i: 0 <= float(o[0]) < bound)
    host = _GRAD_HOST.get(t.p.fn) if t.dtype_name == "float64" else None
    if host is not None:
        call.reference("the error the same central differences give in numpy", _gradient_error_ref(xv, *host))
    return call


# Host twins of the float64 cases whose error numpy can reproduce: (f, f') elementwise. tanh's error is the
# central difference's truncation, delta^2 / 6 |f'''|, about 1e-7, next to which rounding (1e-13) is
# nothing; the central difference of x^2 is exact but for rounding, which IEEE float64 makes the same here.
# (matmul and reduce_sum: the error is rounding noise of TF's own summation order, and float32's too.)
_GRAD_HOST = {
    "tanh": (lambda x: np.tanh(x), lambda x: 1 - np.tanh(x) ** 2),
    "square": (lambda x: x * x, lambda x: 2 * x),
}


def _gradient_error_ref(xv, f, df, delta: float = 1e-3):
    """compute_gradient_error's definition in numpy: max |J_theory - J_numeric| over the Jacobian of an
    elementwise f, J_numeric[i, i] = (f(x + delta e_i) - f(x - delta e_i)) / (2 delta) (the same
    perturbed inputs gradient_checker feeds), off-diagonal entries exactly 0 on both sides."""
    x = np.asarray(xv, np.float64).ravel()
    numeric = (f(x + delta) - f(x - delta)) / np.float64(2 * delta)
    want = float(np.max(np.abs(df(x) - numeric)))
    return lambda o, i: bool(np.isclose(float(o[0]), want, rtol=1e-3, atol=0.0))


# --------------------------------------------------------------------------- tf.compat.v1.saved_model.simple_save


@cases.case(
    "tf.compat.v1.saved_model.simple_save",
    dtype=["float32", "float64"],
    shape={"small": (3, 2), "large": (1024, 1024), "two_outputs": (3, 2)},
    where=cross("float32", "small"),
    grid="small",
    note="graph: y = x @ W + b with variables, saved by simple_save(session, export_dir, inputs, outputs) to "
    "a fresh folder per call (the timed call writes the SavedModel: graph, variables). The check loads the "
    "first export with tf.compat.v1.saved_model.loader.load in a new graph and session, runs it on a feed "
    "and compares with x @ W + b (and 2 relu) computed in numpy (round trip);" + _TF32,
)
def simple_save(t: Ctx):
    _fresh()
    import os

    tf = t.fw
    v1 = tf.compat.v1
    n_in, n_out = t.shape
    if _integer(t):  # small values (W in [0, 3), x in [0, 13)): no integer overflow
        nd = numpy_dtype(t.dtype_name)
        w0 = (_host(t, (n_in, n_out)) % nd.type(3)).astype(nd)
        feed = (_host(t, (5, n_in), kind="positive") % nd.type(13)).astype(nd)
    elif t.dtype_name == "bool":  # MatMul has no bool kernel: TF refuses the graph
        w0, feed = _host(t, (n_in, n_out)), _host(t, (5, n_in))
    else:
        w0 = _host(t, (n_in, n_out)) / float(np.sqrt(n_in))  # a Python float keeps the dtype (NEP 50)
        feed = _host(t, (5, n_in), kind="positive")
    graph = tf.Graph()
    with graph.as_default():
        with tf.device(t.device):
            x = v1.placeholder(t.dtype, [None, n_in], name="x")
            w = v1.get_variable("w", initializer=tf.constant(w0))
            b = v1.get_variable("b", initializer=tf.constant(np.arange(n_out, dtype=w0.dtype)))
            y = tf.matmul(x, w) + b
            outputs = {"y": y}
            if t.case.shape_name == "two_outputs":
                outputs["z"] = tf.nn.relu(y) * 2
        init = v1.global_variables_initializer()
    sess = _session(t, graph)
    _run(t, sess, init)
    y64 = _f64(feed) @ _f64(w0) + np.arange(n_out)
    expected = {"y": y64, "z": 2 * np.maximum(np.real(y64), 0.0)}
    u = UNIT.get(t.dtype_name, 0.0)
    bound = 2 * u * np.sqrt(n_in) * (np.abs(_f64(feed)) @ np.abs(_f64(w0)) + np.arange(n_out))
    root = _tempdir()
    counter = [0]

    def fn():
        export = os.path.join(root, f"m{counter[0]}")
        counter[0] += 1
        with graph.as_default():
            v1.saved_model.simple_save(sess, export, {"x": x}, outputs)
        return np.asarray(os.path.isfile(os.path.join(export, "saved_model.pb")), dtype=np.int32)

    def round_trip(o, i) -> bool:
        g2 = tf.Graph()
        with g2.as_default(), v1.Session(graph=g2) as s2:
            meta = v1.saved_model.loader.load(s2, [v1.saved_model.tag_constants.SERVING], os.path.join(root, "m0"), clear_devices=True)
            sig = meta.signature_def[v1.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
            got = s2.run({k: sig.outputs[k].name for k in outputs}, {sig.inputs["x"].name: feed})
        return all(near(t, lambda k=k: expected[k], atol=2 * bound)([got[k]], []) for k in outputs)

    return t.call(fn).no_compare().check("saved_model.pb written", _first_is_one).reference(
        "loads back, and computes x @ W + b (relu * 2) as numpy does", round_trip)


# --------------------------------------------------------------------------- tf.compat.v1.TextLineReader.restore_state


@cases.case(
    "tf.compat.v1.TextLineReader.restore_state",
    dtype=["string"],
    shape={"mid_file": (3,), "empty_state": (0,), "header_skip": (3,)},
    note="graph (reader_ops_test): restore_state(state) on a TextLineReader over a 20-line file; mid_file: a "
    "ReaderBaseState proto saying 3 records were read of the file (serialize_state cannot produce one: "
    "TextLineReader implements neither SerializeState nor RestoreState); empty_state: b''; header_skip: "
    "skip_header_lines=1. The output is num_records_produced() after the restore, which must be the state's "
    "count (0 for the empty state). TF's TextLineReader kernel answers Unimplemented('Reader RestoreState') on every "
    "device, a genuine gap, not a case error. Reader kernels are CPU-only",
)
def textlinereader_restore_state(t: Ctx):
    _fresh()
    import os

    tf = t.fw
    v1 = tf.compat.v1
    cls = getattr(v1, "TextLineReader", None)
    if cls is None:
        raise Unavailable(f"TensorFlow {tf.__version__} has no tf.compat.v1.TextLineReader")
    path = os.path.join(_tempdir(), "lines.txt")
    with open(path, "w", encoding="ascii") as f:
        f.writelines(f"line-{k}\n" for k in range(20))
    state = b""
    if t.case.shape_name != "empty_state":
        try:
            from tensorflow.core.framework import reader_base_pb2

            state = reader_base_pb2.ReaderBaseState(
                work_started=1, work_finished=0, num_records_produced=t.shape[0], current_work=path.encode()
            ).SerializeToString()
        except ImportError:  # the proto module moved: restore an empty state instead
            state = b""
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        reader = cls(skip_header_lines=1 if t.case.shape_name == "header_skip" else None)
        ph = v1.placeholder(tf.string, [])
        restore = reader.restore_state(ph)
        produced = reader.num_records_produced()
    sess = _session(t, graph)
    # the restored reader reports the state's count: 3 records, or 0 from the empty (default) state
    want = 0 if t.case.shape_name == "empty_state" else t.shape[0]
    return t.call(lambda: (_run(t, sess, restore, {ph: state}), _run(t, sess, produced))[1]).reference(
        f"num_records_produced() is the state's {want}", exact(lambda: np.int64(want)))


# restore_state(state) takes a serialized state, a string tensor.
_excuse_rest("tf.compat.v1.TextLineReader.restore_state", "string_only", ())


# --------------------------------------------------------------------------- tf.compat.v1.distributions.Normal


def _normal_dist(tf):
    cls = getattr(getattr(tf.compat.v1, "distributions", None), "Normal", None)
    if cls is None:
        raise Unavailable(f"TensorFlow {tf.__version__} has no tf.compat.v1.distributions.Normal (successor: "
                          "tfp.distributions.Normal in TensorFlow Probability)")
    return cls


_NORMAL_SHAPES = {
    "scalar": ((), (), ()),  # loc, scale, x
    "empty": ((), (), (0,)),
    "vector": ((), (), (1000,)),
    "batch": ((4, 1), (1, 5), (3, 4, 5)),
    "large": ((), (), (LARGE,)),
    "tails": ((), (), (1000,)),
}


def _normal_inputs(t: Ctx):
    loc_s, scale_s, x_s = _NORMAL_SHAPES[t.case.shape_name]
    rng = t.numpy_rng()
    loc = rng.standard_normal(loc_s) * 0.5
    scale = rng.random(scale_s) * 1.5 + 0.5
    x = np.linspace(-12, 12, x_s[0]) if t.case.shape_name == "tails" else rng.standard_normal(x_s) * 2
    return loc, scale, x


def _normal_log_prob(x, loc, scale):
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - 0.5 * np.log(2 * np.pi)


def _normal_sf(x, loc, scale):
    import math

    z = (np.asarray(x, np.float64) - loc) / (scale * math.sqrt(2.0))
    return 0.5 * np.vectorize(math.erfc, otypes=[np.float64])(z)


@cases.case(
    "tf.compat.v1.distributions.Normal",
    dtype=FLOATS,
    shape={k: _NORMAL_SHAPES[k][2] for k in ("scalar", "batch", "large")},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (s == "batch" or (d == "float32") or (s == "large" and d == "float64"))
    and (m == "eager" or (d == "float32" and s in ("batch", "large"))),
    grid="batch",
    note="eager (the class works outside graphs in TF2): Normal(loc, scale) built in the timed call, then "
    "log_prob, cdf, mean, stddev, entropy; batch: loc [4, 1] and scale [1, 5] broadcast against x [3, 4, 5]. "
    "log_prob checked against the formula. float16 and bfloat16: cdf goes through special_math.ndtr, "
    "which handles float32/float64 only (a TypeError everywhere; log_prob alone would run)",
)
def normal(t: Ctx):
    tf = t.fw
    normal_cls = _normal_dist(tf)
    loc, scale, x = _normal_inputs(t)
    args = [t.adapter.from_numpy(a, t.dtype_name) for a in (loc, scale, x)]

    def fn(lc, sc, xx):
        d = normal_cls(loc=lc, scale=sc)
        return d.log_prob(xx), d.cdf(xx), d.mean(), d.stddev(), d.entropy()

    return t.call(fn, *args).reference("log_prob, cdf, mean, stddev, entropy against the float64 formulas", near_all(t, _normal_all))


def _normal_all(loc, scale, x):
    """Normal(loc, scale)'s log_prob(x), cdf(x) (scipy.special.ndtr), mean, stddev and entropy
    (0.5 log(2 pi e) + log scale), the last three broadcast to the batch shape of loc and scale."""
    batch = np.broadcast(loc, scale).shape
    ndtr = module("scipy.special").ndtr
    return [_normal_log_prob(x, loc, scale), ndtr((x - loc) / scale), np.broadcast_to(loc, batch), np.broadcast_to(scale, batch),
            np.broadcast_to(0.5 * np.log(2 * np.pi * np.e) + np.log(scale), batch)]


@cases.case(
    "tf.compat.v1.distributions.Normal",
    dtype=["float32"],
    shape={"sample": (1000, 4, 5), "graph": (3, 4, 5)},
    note="sample: d.sample(1000, seed=3) with batch loc/scale, random so not compared; the draws are checked "
    "against a numpy Philox4x32-10 + Box-Muller (TF's generator), and the sample mean must be "
    "within 6 standard errors of loc. graph: the same log_prob built in a tf.compat.v1 graph and run in a "
    "Session on the device",
)
def normal_other(t: Ctx):
    tf = t.fw
    normal_cls = _normal_dist(tf)
    rng = t.numpy_rng()
    loc = rng.standard_normal((4, 1)) * 0.5
    scale = rng.random((1, 5)) * 1.5 + 0.5
    if t.case.shape_name == "sample":
        lc, sc = (t.adapter.from_numpy(a, "float32") for a in (loc, scale))

        def ok(o, i):
            # 1000 draws per batch member: each sample mean within 6 standard errors of loc; the 20000
            # standardized draws' std within 6 of its standard errors (1 / sqrt(2 * 20000)) of 1
            s = o[0].astype(np.float64)
            z = (s - loc) / scale
            return s.shape == (1000, 4, 5) and bool(np.all(np.abs(s.mean(axis=0) - loc) < 6 * scale / np.sqrt(1000))
                                                    and abs(z.std() - 1) < 6 / np.sqrt(2 * z.size))

        loc32, scale32 = np.float32(loc), np.float32(scale)

        def philox(o, i) -> bool:
            # sample(n, seed=3) is random_normal(seed=3) * scale + loc in float32, the normals drawn by an
            # eager kernel with seeds (87654321, 3), cached with its counter: find the call, compare all
            got = o[0].astype(np.float64)
            z = philox_normal_draw(float((got.flat[0] - loc32[0, 0]) / scale32[0, 0]), got.size, DEFAULT_GRAPH_SEED, 3)
            if z is None:
                return False
            want = (z.reshape(got.shape).astype(np.float32) * scale32 + loc32).astype(np.float64)
            return bool(np.allclose(got, want, rtol=1e-5, atol=1e-5))

        return t.call(lambda a, b: normal_cls(loc=a, scale=b).sample(1000, seed=3), lc, sc).no_compare().check(
            "sample means near loc, standardized std near 1", ok).reference(
            "TF's Philox4x32-10 stream for seeds (87654321, 3), Box-Muller, times scale plus loc, in numpy", philox)
    _fresh()
    x = rng.standard_normal((3, 4, 5)) * 2
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        d = normal_cls(loc=tf.constant(loc, tf.float32), scale=tf.constant(scale, tf.float32))
        lp = d.log_prob(tf.constant(x, tf.float32))
    sess = _session(t, graph)
    # the constants are float32: compare with the formula on the float32-rounded loc, scale and x
    loc32, scale32, x32 = (np.float32(a).astype(np.float64) for a in (loc, scale, x))
    return t.call(lambda: _run(t, sess, lp)).reference("log_prob formula", near(t, lambda: _normal_log_prob(x32, loc32, scale32)))


@cases.case(
    "tf.compat.v1.distributions.Normal.survival_function",
    dtype=FLOATS,
    shape={k: _NORMAL_SHAPES[k][2] for k in _NORMAL_SHAPES},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (s == "vector" or d == "float32" or (s in ("tails", "batch") and d == "float64"))
    and (m == "eager" or (d == "float32" and s == "vector") or (d == "float64" and s == "tails")),
    grid="vector",
    note="sf(x) = 1 - cdf(x), computed by TF as ndtr(-z) so the upper tail keeps its relative accuracy; "
    "checked against 0.5 erfc(z / sqrt 2) in float64 (tails: x in [-12, 12], sf down to 1e-33). "
    "float16 and bfloat16: ndtr handles float32/float64 only (a TypeError everywhere)",
)
def normal_survival_function(t: Ctx):
    tf = t.fw
    normal_cls = _normal_dist(tf)
    loc, scale, x = _normal_inputs(t)
    args = [t.adapter.from_numpy(a, t.dtype_name) for a in (loc, scale, x)]
    rtol = {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-4}.get(t.dtype_name, 1e-9)
    atol = {"float16": 1e-3, "bfloat16": 1e-2}.get(t.dtype_name, 0.0)

    def ok(o, i):
        return bool(np.allclose(_f64(o[0]), _normal_sf(_f64(i[2]), _f64(i[0]), _f64(i[1])), rtol=rtol, atol=atol))

    return t.call(lambda lc, sc, xx: normal_cls(loc=lc, scale=sc).survival_function(xx), *args).reference("0.5 erfc(z / sqrt 2)", ok)


@cases.case(
    "tf.compat.v1.distributions.Normal.survival_function",
    dtype=["float32", "float64"],
    shape={"graph": (3, 4, 5)},
    note="graph: Normal(loc [4, 1], scale [1, 5]).survival_function(x [3, 4, 5]) built in a tf.compat.v1 graph "
    "on the device and run in a Session; checked against 0.5 erfc(z / sqrt 2)",
)
def normal_survival_function_graph(t: Ctx):
    _fresh()
    tf = t.fw
    normal_cls = _normal_dist(tf)
    rng = t.numpy_rng()
    loc = rng.standard_normal((4, 1)) * 0.5
    scale = rng.random((1, 5)) * 1.5 + 0.5
    x = rng.standard_normal(t.shape) * 2
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        sf = normal_cls(loc=tf.constant(loc, t.dtype), scale=tf.constant(scale, t.dtype)).survival_function(tf.constant(x, t.dtype))
    sess = _session(t, graph)
    rtol = 1e-4 if t.dtype_name == "float32" else 1e-9
    return t.call(lambda: _run(t, sess, sf)).reference(
        "0.5 erfc(z / sqrt 2)", lambda o, i: bool(np.allclose(o[0], _normal_sf(x, loc, scale), rtol=rtol, atol=0)))


@cases.case(
    "tf.compat.v1.distributions.Normal.param_shapes",
    dtype=["int32"],
    shape={"graph": (2, 3)},
    note="graph: param_shapes(placeholder) with the sample shape fed at Session.run",
)
def normal_param_shapes_graph(t: Ctx):
    _fresh()
    tf = t.fw
    normal_cls = _normal_dist(tf)
    graph = tf.Graph()
    with graph.as_default(), tf.device(t.device):
        ph = tf.compat.v1.placeholder(tf.int32, [2])
        shapes = normal_cls.param_shapes(ph)
    sess = _session(t, graph)
    return t.call(lambda f: _run(t, sess, shapes, {ph: f}), np.asarray(t.shape, np.int32)).reference(
        "loc and scale have the sample shape", lambda o, i: len(o) == 2 and all(list(x) == [2, 3] for x in o))


@cases.case(
    "tf.compat.v1.distributions.Normal.param_shapes",
    dtype=["int32", "int64"],
    shape={"scalar": (), "vector": (5,), "matrix": (2, 3), "rank4": (2, 3, 4, 5)},
    params={"sample_shape": ["tensor", "list"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (d == "int32" or (s == "matrix" and p["sample_shape"] == "tensor" and m == "eager"))
    and (m == "eager" or (s == "matrix" and p["sample_shape"] == "tensor")),
    grid="matrix",
    note="the classmethod param_shapes(sample_shape) gives {'loc': shape, 'scale': shape}; sample_shape as a "
    "Python list or a shape tensor (int32; int64 is refused by its int32 conversion, a finding)",
)
def normal_param_shapes(t: Ctx):
    tf = t.fw
    normal_cls = _normal_dist(tf)
    dims = list(t.shape)

    def ok(o, i):
        return len(o) == 2 and all(list(x) == dims for x in o)

    if t.p.sample_shape == "list":
        return t.call(lambda: normal_cls.param_shapes(dims)).reference("loc and scale have the sample shape", ok)
    shape_t = t.adapter.from_numpy(np.asarray(dims, dtype=np.int64).reshape(len(dims)), t.dtype_name)
    return t.call(lambda s: normal_cls.param_shapes(s), shape_t).reference("loc and scale have the sample shape", ok)


# param_shapes(sample_shape) takes a shape: an integer tensor (the grid's int8, uint8, int16 cases test those).
cases.excuse("tf.compat.v1.distributions.Normal.param_shapes", "integer_only",
             ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "bool"])


# --------------------------------------------------------------------------- tf.train.list_variables


@cases.case(
    "tf.train.list_variables",
    dtype=["float16", "bfloat16", "float32", "float64", "complex64", "int32", "int64", "bool"],
    shape={"matrix": (3, 4), "scalar": (), "empty": (0,), "many": (100, 8)},
    params={"writer": ["checkpoint", "checkpoint_dir", "saver_v1"]},
    where=lambda d, s, m, p: (p["writer"] == "checkpoint" and (s == "matrix" or d == "float32"))
    or (p["writer"] != "checkpoint" and s == "matrix" and d in ("float32", "float64") and (p["writer"] == "saver_v1" or d == "float32")),
    grid="matrix",
    note="checkpoint_utils_test: variables written by tf.train.Checkpoint.write (listed by prefix), "
    "Checkpoint.save (listed by folder, through the 'checkpoint' state file) or a TF1 Saver in a graph; "
    "list_variables must name each with its shape (TF2 names are '<attr>/.ATTRIBUTES/VARIABLE_VALUE'). "
    "many: 100 variables of 8 elements. Output: names and shapes",
)
def list_variables(t: Ctx):
    _fresh()
    import os

    tf = t.fw
    v1 = tf.compat.v1
    root = _tempdir()
    many = t.case.shape_name == "many"
    shape = (t.shape[1],) if many else tuple(t.shape)
    count = t.shape[0] if many else 1
    values = [_host(t, shape) for _ in range(count)]
    writer = t.p.writer
    if writer == "saver_v1":
        graph = tf.Graph()
        with graph.as_default():
            with tf.device(t.device):
                variables = [v1.get_variable(f"v{k}", initializer=tf.constant(a)) for k, a in enumerate(values)]
            saver = v1.train.Saver(variables)
            init = v1.global_variables_initializer()
        sess = _session(t, graph)
        _run(t, sess, init)
        with graph.as_default():  # Saver.save refuses to run while TF executes eagerly
            target = saver.save(sess, os.path.join(root, "model"))
        expected = {f"v{k}": list(shape) for k in range(count)}
    else:
        variables = {f"v{k}": tf.Variable(t.adapter.from_numpy(a, t.dtype_name)) for k, a in enumerate(values)}
        ckpt = tf.train.Checkpoint(**variables)
        if writer == "checkpoint":
            target = ckpt.write(os.path.join(root, "ckpt"))
        else:
            ckpt.save(os.path.join(root, "ckpt"))
            target = root
        expected = {f"v{k}/.ATTRIBUTES/VARIABLE_VALUE": list(shape) for k in range(count)}

    def fn():
        listed = tf.train.list_variables(target)
        names = np.array([n for n, _ in listed])
        dims = np.array([d for _, s in listed for d in ([len(s)] + list(s))], dtype=np.int64)
        return names, dims

    # TF2 checkpoints also hold the object graph, and Checkpoint.save a save counter (both scalars)
    bookkeeping = {"_CHECKPOINTABLE_OBJECT_GRAPH": [], "save_counter/.ATTRIBUTES/VARIABLE_VALUE": []}

    def ok(o, i):
        names = [str(n) for n in o[0]]
        dims, pos, found = [int(d) for d in o[1]], 0, {}
        for n in names:
            if pos >= len(dims) or not 0 <= dims[pos] <= len(dims) - pos - 1:
                return False
            r = dims[pos]
            found[n] = dims[pos + 1 : pos + 1 + r]
            pos += 1 + r
        extra = {k: v for k, v in found.items() if k not in expected}
        return pos == len(dims) and all(found.get(k) == v for k, v in expected.items()) and all(
            bookkeeping.get(k) == v for k, v in extra.items())

    return t.call(fn).reference("lists every variable with its shape, and nothing else", ok)


# --------------------------------------------------------------------------- tf.train.ExponentialMovingAverage


@cases.case(
    "tf.train.ExponentialMovingAverage",
    dtype=FLOATS,
    shape={"scalar": (), "vector": (1000,), "large": (LARGE,)},
    params={"variant": ["plain", "num_updates", "zero_debias", "five_vars"]},
    mode=["eager", "compiled"],
    where=lambda d, s, m, p: (
        (p["variant"] == "plain" and (s == "vector" or d == "float32"))
        or (p["variant"] != "plain" and d == "float32" and s == "vector")
    ) and (m == "eager" or (d == "float32" and p["variant"] == "plain" and s in ("vector", "large"))),
    grid="vector",
    note="moving_averages_test: decay 0.9; the body applies once (shadow = x0) and sets the variable to x1; "
    "the timed call is ema.apply([v]) then average(v), so the first output is 0.9 x0 + 0.1 x1 (checked; TF "
    "converts the decay to a float32 tensor before casting, so float64 averages use float32(0.9)). "
    "num_updates: a step variable of 5 caps decay at (1 + 5) / (10 + 5) = 0.4; zero_debias: asked for, but "
    "moving_averages debiases only averages of tensors, not of variables, so the update is the plain one; "
    "five_vars: five variables in one apply",
)
def exponential_moving_average(t: Ctx):
    tf = t.fw
    variant = t.p.variant
    n_vars = 5 if variant == "five_vars" else 1
    x0 = [_host(t, t.shape) for _ in range(n_vars)]
    x1 = [_host(t, t.shape, kind="positive") for _ in range(n_vars)]
    variables = [tf.Variable(t.adapter.from_numpy(a, t.dtype_name)) for a in x0]
    kwargs = {}
    decay = np.float32(0.9)  # TF holds the decay as a float32 tensor, even for float64 variables
    if variant == "num_updates":
        kwargs["num_updates"] = tf.Variable(5, dtype=tf.int64)
        decay = min(decay, (np.float32(1) + np.float32(5)) / (np.float32(10) + np.float32(5)))
    if variant == "zero_debias":
        kwargs["zero_debias"] = True
    ema = tf.train.ExponentialMovingAverage(0.9, **kwargs)
    ema.apply(variables)
    for v, a in zip(variables, x1):
        v.assign(t.adapter.from_numpy(a, t.dtype_name))

    def fn():
        ema.apply(variables)
        return [ema.average(v).read_value() for v in variables]

    # assign_moving_average: shadow -= (shadow - x1) * (1 - decay), with 1 - decay taken in float32 and
    # cast to the variable's dtype, each step rounded in that dtype (numpy's float16 and ml_dtypes'
    # bfloat16 round every operation as TF's kernels do). The body's first apply leaves the shadow at x0.
    nd = numpy_dtype(t.dtype_name)
    one_minus = (np.float32(1) - decay).astype(nd)
    want = [(a.astype(nd) - (a.astype(nd) - b.astype(nd)) * one_minus).astype(np.float64) for a, b in zip(x0, x1)]
    return t.call(fn).reference("x0 - (x0 - x1) (1 - decay), rounded as the dtype does", near_all(t, lambda: want))


# --------------------------------------------------------------------------- tf.summary.flush


def _event_count(tf, folder: str) -> int:
    import glob
    import os

    total = 0
    for path in glob.glob(os.path.join(folder, "events.out.tfevents.*")):
        total += sum(1 for _ in tf.compat.v1.train.summary_iterator(path))
    return total


@cases.case(
    "tf.summary.flush",
    dtype=["float32", "float64", "int32"],
    shape={"default_writer": (), "explicit_writer": (), "no_writer": (), "many": (100,), "in_function": ()},
    where=cross("float32", "default_writer"),
    grid="default_writer",
    note="summary_ops_test: tf.summary.write (the core op; tf.summary.scalar needs TensorBoard) then flush() "
    "with the writer as default; explicit_writer: flush(writer=w) with no default; no_writer: flush() with "
    "no default writer is a no-op; many: 100 writes per flush; in_function: write and flush inside a "
    "tf.function (graph, not XLA: summary ops do not compile). After the run the event file must hold "
    "the written events",
)
def summary_flush(t: Ctx):
    _fresh()
    tf = t.fw
    s = t.case.shape_name
    logdir = _tempdir()
    writer = tf.summary.create_file_writer(logdir)
    _STALE.append(writer)
    value = t.adapter.from_numpy(_host(t, t.shape), t.dtype_name)
    if s == "no_writer":
        def quiet():
            try:
                tf.summary.flush()
            except (tf.errors.OpError, ValueError, TypeError):
                return _flag(False)
            return _flag(True)

        # the writer's file holds at most its version record: flush() without a default writer wrote nothing
        return t.call(quiet).check("no error", _first_is_one).check(
            "nothing written to the unused writer", lambda o, i: _event_count(tf, logdir) <= 1)
    # Each fn returns what tf.summary.write returns: True when a default writer recorded the value.
    if s == "explicit_writer":
        def fn(v):
            with writer.as_default():
                ok = tf.summary.write("x", v, step=1)
            tf.summary.flush(writer=writer)
            return ok
    elif s == "many":
        def fn(v):
            with writer.as_default():
                oks = [tf.summary.write("x", v[k], step=k) for k in range(100)]
                tf.summary.flush()
            return tf.stack(oks)
    elif s == "in_function":
        @tf.function
        def graph_fn(v):
            with writer.as_default():
                ok = tf.summary.write("x", v, step=1)
                tf.summary.flush()
            return ok

        fn = graph_fn
    else:
        def fn(v):
            with writer.as_default():
                ok = tf.summary.write("x", v, step=1)
                tf.summary.flush()
            return ok

    return t.call(fn, value).check("every write recorded (True)", lambda o, i: o[0].dtype == bool and bool(np.all(o[0]))).check(
        "the event file holds the writes", lambda o, i: _event_count(tf, logdir) >= 2)


# --------------------------------------------------------------------------- tf.lookup.KeyValueTensorInitializer

_KV_PAIRS = [
    ("string", "int64"), ("int64", "string"), ("int64", "int64"), ("int32", "int32"), ("int64", "float32"),
    ("string", "float32"), ("int32", "float32"), ("string", "string"), ("float32", "int64"), ("int64", "bool"),
]


def _kv_array(kind: str, ints: np.ndarray) -> np.ndarray:
    if kind == "string":
        return np.array([b"k%d" % v for v in ints.tolist()], dtype=object)
    if kind == "bool":
        return ints % 2 == 1
    if kind.startswith(("int", "uint")):
        return ints.astype(np.int64).astype(numpy_dtype(kind))  # wraps into the narrow dtypes
    return ints.astype(numpy_dtype(kind))


@cases.case(
    "tf.lookup.KeyValueTensorInitializer",
    dtype=["int64", "string", "int32", "float32", "bool"],
    shape={"small": (100,), "large": (100000,), "empty": (0,)},
    params={"key": ["string", "int64", "int32", "float32"]},
    where=lambda d, s, m, p: ((p["key"], d) in _KV_PAIRS and s == "small")
    or (s == "large" and (p["key"], d) in (("string", "int64"), ("int64", "int64")))
    or (s == "empty" and (p["key"], d) == ("int64", "int64")),
    grid="small",
    note="lookup_ops_test: the dtype is the values', key the keys'; a StaticHashTable is built from "
    "KeyValueTensorInitializer(keys, values) in the timed call and looks up half present, half missing "
    "keys (missing -> the default). float32 keys and bool values have no hash-table kernel, and empty "
    "keys are refused ('keys and values cannot be empty'): failures everywhere. Table kernels are CPU-only. "
    "The grid's value dtypes (string keys) hold (7 id) mod 1000 in the dtype (wrapping for int8/uint8/int16); "
    "the default is -1 (0 for uint8)",
)
def key_value_initializer(t: Ctx):
    tf = t.fw
    key_kind, value_kind = t.p.key, t.dtype_name
    n = t.shape[0]
    ids = np.arange(n) * 3 + 1
    keys = _kv_array(key_kind, ids)
    values = _kv_array(value_kind, (ids * 7) % 1000)
    rng = t.numpy_rng()
    query_ids = np.concatenate([rng.permutation(ids)[: n // 2], ids[: n - n // 2] * 3 + 2])  # +2: never a key
    queries = _kv_array(key_kind, query_ids)
    default = {"string": b"?", "bool": False, "uint8": 0}.get(value_kind, -1)
    const = lambda a: tf.constant(a) if a.dtype == object else t.adapter.from_numpy(a)  # noqa: E731
    kt, vt, qt = const(keys), const(values), const(queries)
    lookup = dict(zip(ids.tolist(), values.tolist()))

    def fn(k, v, q):
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(k, v), default)
        return table.lookup(q)

    def ok(o, i):
        want = [lookup.get(x, default) for x in query_ids.tolist()]
        return list(o[0].tolist()) == want

    return t.call(fn, kt, vt, qt).reference("present keys give values, missing the default", ok)


# --------------------------------------------------------------------------- tf.keras.optimizers.experimental.Adadelta


def _adadelta(tf):
    for path in ("experimental.Adadelta", "Adadelta"):
        obj = None
        try:
            obj = tf.keras.optimizers
            for part in path.split("."):
                obj = getattr(obj, part)
        except (AttributeError, ImportError, ModuleNotFoundError):
            obj = None
        if obj is not None:
            return obj
    raise Unavailable(f"TensorFlow {tf.__version__}: neither tf.keras.optimizers.experimental.Adadelta nor "
                      "tf.keras.optimizers.Adadelta (is Keras installed?)")


def _keras_variable(tf, value):
    try:
        import keras

        if hasattr(keras, "Variable"):  # Keras 3
            return keras.Variable(value)
    except ImportError:
        pass
    return tf.Variable(value)


@cases.case(
    "tf.keras.optimizers.experimental.Adadelta",
    dtype=FLOATS,
    shape={"scalar": (), "vector": (1000,), "large": (LARGE,), "sparse": (1000, 16)},
    mode=["eager", "compiled"],
    successor="tf.keras.optimizers.Adadelta",
    where=cross("float32", "vector") & compiled_only("float32", ("vector", "large")),
    grid="vector",
    note="Keras 3 (installed with TF 2.21) dropped optimizers.experimental; the Adadelta there became "
    "tf.keras.optimizers.Adadelta. One apply_gradients step, learning_rate 1.0 (rho 0.95, epsilon 1e-7), "
    "slots built in the body; the first output is checked against Adadelta's update from zero "
    "accumulators, x - sqrt(eps) g / sqrt((1 - rho) g^2 + eps), in float64. sparse: an IndexedSlices gradient "
    "for 50 of 1000 rows",
)
def adadelta(t: Ctx):
    tf = t.fw
    opt_cls = _adadelta(tf)
    x0 = _host(t, t.shape)
    var = _keras_variable(tf, t.adapter.from_numpy(x0, t.dtype_name))
    opt = opt_cls(learning_rate=1.0)
    opt.build([var])
    rho, eps = 0.95, 1e-7
    if t.case.shape_name == "sparse":
        idx = np.sort(t.numpy_rng().permutation(t.shape[0])[:50]).astype(np.int32)
        g_rows = _host(t, (50, t.shape[1]))
        dense_shape = tf.constant(list(t.shape), tf.int64)

        def fn(values, indices):
            opt.apply_gradients([(tf.IndexedSlices(values, indices, dense_shape), var)])
            return tf.identity(var)

        g = np.zeros(t.shape)
        g[idx] = g_rows
        args = (t.adapter.from_numpy(g_rows, t.dtype_name), t.adapter.from_numpy(idx, "int32"))
    else:
        g = _host(t, t.shape, kind="positive") - 1.5

        def fn(grad):
            opt.apply_gradients([(grad, var)])
            return tf.identity(var)

        args = (t.adapter.from_numpy(g, t.dtype_name),)
    x0h, gh = _f64(rounded(_f64(x0), t.dtype_name)), _f64(rounded(_f64(g), t.dtype_name))
    step = np.sqrt(eps) / np.sqrt((1 - rho) * gh * gh + eps) * gh
    want = x0h - step
    if _integer(t):  # an integer variable holds the step rounded: |step| < sqrt(eps / (1 - rho)) < 0.01, so x0
        want = np.rint(want)
    # half precision holds epsilon 1e-7 as 1.19e-7 (float16's subnormals) and rounds the accumulators:
    # the step may be off by a quarter of itself, and the result by its own rounding
    slack = 0.25 * np.abs(step) if t.dtype_name in ("float16", "bfloat16") else 0.0
    return (t.call(fn, *args)
            .stateful("one apply_gradients step per call: the variable and its accumulators carry over")
            .reference("one Adadelta step from zero accumulators", near(t, lambda *_: want, atol=lambda *_: slack + 1e-7)))


# --------------------------------------------------------------------------- tf.distribute.Strategy.get_per_replica_batch_size


def _input_context_method(tf):
    fn = getattr(getattr(tf.distribute, "Strategy", None), "get_per_replica_batch_size", None)
    if fn is not None:
        return None  # the listed method exists: test it directly
    cls = getattr(tf.distribute, "InputContext", None)
    if cls is None or not hasattr(cls, "get_per_replica_batch_size"):
        raise Unavailable(f"TensorFlow {tf.__version__} has neither tf.distribute.Strategy.get_per_replica_batch_size "
                          "nor tf.distribute.InputContext.get_per_replica_batch_size")
    return cls


@cases.case(
    "tf.distribute.Strategy.get_per_replica_batch_size",
    dtype=["int64"],
    shape={"1_replica": (64, 1), "2_replicas": (64, 2), "8_replicas": (64, 8), "indivisible": (10, 4), "strategy": (32, 1)},
    successor="tf.distribute.InputContext.get_per_replica_batch_size",
    note="tf.distribute.Strategy has no get_per_replica_batch_size (in 2.11 either); the method is "
    "InputContext's, which a strategy hands to distribute_datasets_from_function. dims are (global batch, "
    "replicas): global / replicas, and ValueError when it does not divide (flag). strategy: the context "
    "a OneDeviceStrategy on the bound device passes to distribute_datasets_from_function",
)
def per_replica_batch_size(t: Ctx):
    tf = t.fw
    cls = _input_context_method(tf)
    global_batch, replicas = t.shape
    if cls is None:  # pragma: no cover - a future TF with the listed method
        strategy = tf.distribute.OneDeviceStrategy(t.device)
        return t.call(lambda: np.asarray(strategy.get_per_replica_batch_size(global_batch)))
    if t.case.shape_name == "strategy":
        captured = []

        def dataset_fn(ctx):
            captured.append(ctx)
            return tf.data.Dataset.range(8).batch(ctx.get_per_replica_batch_size(global_batch))

        strategy = tf.distribute.OneDeviceStrategy(t.device)
        strategy.distribute_datasets_from_function(dataset_fn)
        ctx = captured[0]
    else:
        ctx = cls(num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=replicas)
    if global_batch % replicas:
        def bad():
            try:
                ctx.get_per_replica_batch_size(global_batch)
            except ValueError:
                return _flag(True)
            return _flag(False)

        return t.call(bad).check("raises ValueError", _first_is_one)
    want = global_batch // replicas
    return t.call(lambda: np.asarray(ctx.get_per_replica_batch_size(global_batch), dtype=np.int64)).reference(
        f"global batch / replicas = {want}", exact(lambda: np.int64(want)))


# get_per_replica_batch_size(global_batch_size) takes a Python int.
_excuse_rest("tf.distribute.Strategy.get_per_replica_batch_size", "no_tensor_input", ("int64",))


# --------------------------------------------------------------------------- tf.estimator hooks


def _hook_class(tf, name: str):
    estimator = getattr(tf, "estimator", None)
    cls = getattr(estimator, name, None) if estimator is not None else None
    if cls is None:
        cls = getattr(tf.compat.v1.train, name, None)
    if cls is None:
        raise Unavailable(f"TensorFlow {tf.__version__} has neither tf.estimator.{name} (tf.estimator was removed "
                          f"in 2.16) nor tf.compat.v1.train.{name}")
    return cls


def _monitored(t: Ctx, shape, w_value, hooks_fn):
    """A graph with a global step, a variable v and a fixed w; a SingularMonitoredSession with the hooks.
    Returns (graph, session, inc); run the session inside graph.as_default(), as TF1 code does (the
    hooks' Saver refuses to save while TF executes eagerly)."""
    tf = t.fw
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        step = v1.train.get_or_create_global_step()
        with tf.device(t.device):
            v = v1.get_variable("v", initializer=tf.constant(_host(t, shape)))
            w = v1.get_variable("w", initializer=tf.constant(w_value), trainable=False)
            update = v.assign(tf.logical_not(v)) if v.dtype == tf.bool else v.assign_add(tf.ones(shape, v.dtype))
        with tf.control_dependencies([update]):
            inc = v1.assign_add(step, 1)
        hooks = hooks_fn(v, w, step)
        session = v1.train.SingularMonitoredSession(hooks=hooks, config=_config(t))
    _STALE.append(session)
    return graph, session, inc


@cases.case(
    "tf.estimator.CheckpointSaverHook",
    dtype=["float32"],
    shape={"small": (16,), "large": (LARGE,)},
    params={"save_steps": [1, 100], "listener": [False, True]},
    successor="tf.compat.v1.train.CheckpointSaverHook",
    where=lambda d, s, m, p: (s == "small" or p["save_steps"] == 1) and (not p["listener"] or (s == "small" and p["save_steps"] == 1)),
    grid="small",
    note="tf.estimator was removed in TF 2.16; its CheckpointSaverHook is tf.compat.v1.train.CheckpointSaverHook. "
    "graph: a SingularMonitoredSession with the hook; the timed call is one training step (v += 1, "
    "global_step += 1), which saves a checkpoint when the step is due (save_steps 1: every step). The check "
    "lists the latest checkpoint: it must hold v and global_step. listener: a CheckpointSaverListener must "
    "see before_save/after_save around every save. Saver kernels are CPU-only",
)
def checkpoint_saver_hook(t: Ctx):
    _fresh()
    tf = t.fw
    cls = _hook_class(tf, "CheckpointSaverHook")
    folder = _tempdir()
    save_steps = t.p.save_steps
    events: list = []
    listeners = []
    if t.p.listener:
        base = tf.compat.v1.train.CheckpointSaverListener

        class Recorder(base):
            def before_save(self, session, global_step_value):
                events.append(("before", int(global_step_value)))

            def after_save(self, session, global_step_value):
                events.append(("after", int(global_step_value)))

        listeners = [Recorder()]
    graph, session, inc = _monitored(t, t.shape, _host(t, (4,)), lambda v, w, step: [cls(folder, save_steps=save_steps, listeners=listeners)])

    def fn():
        try:
            with graph.as_default():
                return session.run(inc)
        except tf.errors.OpError as exc:
            new = _condensed(exc)
            if new is exc:
                raise
            raise new from exc

    def ok(o, i):
        latest = tf.train.latest_checkpoint(folder)
        if latest is None:
            return False
        names = {n for n, _ in tf.train.list_variables(latest)}
        return {"v", "global_step"} <= names

    call = (t.call(fn).stateful("each call runs a training step: the global step and v advance")
            .reference("first step is 1", exact(lambda: np.int64(1))).check("a checkpoint with v and global_step", ok))
    if t.p.listener:
        call.check("listener brackets each save", lambda o, i: len(events) >= 4 and len(events) % 2 == 0
                   and all(a[0] == "before" and b[0] == "after" and a[1] == b[1] for a, b in zip(events[::2], events[1::2])))
    return call


@cases.case(
    "tf.estimator.LoggingTensorHook",
    dtype=["float32", "float64"],
    shape={"small": (16,)},
    params={"every": ["n_iter_1", "n_iter_10", "n_secs_3600"]},
    successor="tf.compat.v1.train.LoggingTensorHook",
    where=lambda d, s, m, p: d == "float32" or p["every"] == "n_iter_1",
    grid="small",
    note="tf.estimator was removed in TF 2.16; its LoggingTensorHook is tf.compat.v1.train.LoggingTensorHook. "
    "graph: a SingularMonitoredSession with the hook logging {'w2': 2w} (w a non-trainable variable the "
    "step does not touch), every_n_iter 1 or 10, or every_n_secs 3600 (logs the first step only); a "
    "formatter captures what is logged, which must be 2w. The timed call is one training step",
)
def logging_tensor_hook(t: Ctx):
    _fresh()
    tf = t.fw
    cls = _hook_class(tf, "LoggingTensorHook")
    logged: list = []
    every = t.p.every

    def formatter(values):
        logged.append(dict(values))
        return ""

    def hooks(v, w, step):
        kw = {"every_n_secs": 3600} if every == "n_secs_3600" else {"every_n_iter": 1 if every == "n_iter_1" else 10}
        return [cls({"w2": tf.logical_not(w) if w.dtype == tf.bool else w * 2}, formatter=formatter, **kw)]

    w_host = _host(t, (4,))
    graph, session, inc = _monitored(t, t.shape, w_host, hooks)

    def fn():
        try:
            with graph.as_default():
                return session.run(inc)
        except tf.errors.OpError as exc:
            new = _condensed(exc)
            if new is exc:
                raise
            raise new from exc

    want = np.logical_not(w_host) if t.dtype_name == "bool" else 2 * _f64(w_host)
    return t.call(fn).stateful("each call runs a training step: the global step and v advance").reference(
        "first step is 1", exact(lambda: np.int64(1))).reference(
        "logged 2w (bool: not w)", lambda o, i: bool(logged) and equal(logged[0]["w2"], want))
