"""What TensorFlow's kernel registry predicts for one call, per device kind.

`kernel_support(fn, args)` traces the call into a graph and asks, for every
op of it and of the functions it calls (while and cond bodies, nested
tf.functions), whether a kernel is registered for the op's type with the
op's dtypes: on CPU and on GPU. It never runs the ops; the CUDA build of
TensorFlow lists its GPU kernels on a machine without a GPU.

Where an op runs decides which registry answers and what a missing kernel
means. Every op gets one of four contexts:

- `eager`: the case's own ops (an eager case traced; while bodies inside
  it). Eager TensorFlow runs each on the device in scope; with soft
  placement off, a missing kernel there is a failure. Its constants are
  tensors made from host data, not Const kernels, and are not asked about.
- `branch`: ops of a cond or case branch of an eager call (and all they
  call). Eager TensorFlow runs only the branch taken, which a trace cannot
  tell: a missing kernel there is listed (`maybe`), not a predicted failure.
- `xla`: ops of a function compiled with jit_compile=True (the `compiled`
  mode, or a case's own) and everything it calls. XLA compiles the whole
  function for XLA_CPU_JIT / XLA_GPU_JIT; an op with no kernel there fails
  the compilation.
- `placed`: ops of a nested tf.function that is not compiled, and of
  TF1 graphs (the graph of a Session the call uses, or one it builds). The
  placer puts an op with no device request wherever a kernel exists, so an
  op with no GPU kernel but a CPU one runs on the CPU (`to_cpu`), not fails.

A kernel matches as TensorFlow's FindKernelRegistration matches it: the
device type's registrations whose type constraints hold for the op's type
attributes (their op-definition defaults where the node omits them) and
whose label is the node's `_kernel` label; failing those, the DEFAULT
device's registrations (not for the XLA compilation devices, which are
symbolic).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import tensorflow as tf
from tensorflow.python.framework import func_graph, kernels, op_callbacks, op_def_registry

# How many ops each list of a device's record names (missing, maybe, to_cpu);
# `<list>_count` says how many there are when there are more.
MISSING_CAP = 8

# Ops that only call a function: the function's ops are what runs.
_CALL_OPS = frozenset(("PartitionedCall", "StatefulPartitionedCall"))
# In an eager trace these are values, not ops: constants are tensors made from
# host data, placeholders the call's arguments.
_EAGER_DATA = frozenset(("Const", "Placeholder"))
# Ops whose functions are alternatives: eager runs one of them.
_BRANCH_OPS = frozenset(("If", "StatelessIf", "Case", "StatelessCase"))
_DEVICES = {"cpu": ("CPU", "XLA_CPU_JIT"), "gpu": ("GPU", "XLA_GPU_JIT")}


class _Kernel(NamedTuple):
    device_type: str
    label: str
    constraints: tuple[tuple[str, frozenset[int]], ...]  # attr name, the DataType enums allowed


class _Node(NamedTuple):
    op: str
    types: tuple[tuple[str, tuple[int, ...]], ...]  # every type attribute of the node, by name
    label: str
    context: str  # eager, branch, xla or placed (module docstring)


@functools.cache
def _kernels(op_type: str) -> tuple[_Kernel, ...]:
    """The registered kernels of `op_type`, on every device type. Cached per op
    type; `_register_xla_kernels` runs before the first lookup, so the cache
    never holds a list taken before XLA registered its kernels."""
    found = []
    for kd in kernels.get_registered_kernels_for_op(op_type).kernel:
        constraints = tuple((c.name, frozenset(c.allowed_values.list.type)) for c in kd.constraint)
        found.append(_Kernel(kd.device_type, kd.label, constraints))
    return tuple(found)


@functools.lru_cache(maxsize=1)
def _register_xla_kernels() -> bool:
    """XLA registers its compilation kernels (XLA_CPU_JIT, XLA_GPU_JIT) in the
    kernel registry on the first jit compilation of the process: one tiny
    compiled call on the CPU makes sure it has happened. True if they are there."""
    def registered() -> bool:
        return any(kd.device_type == "XLA_CPU_JIT" for kd in kernels.get_registered_kernels_for_op("Identity").kernel)

    if not registered():
        with tf.device("/CPU:0"):
            tf.function(lambda x: x + 1, jit_compile=True, autograph=False)(tf.constant(1.0))
    return registered()


def _type_attrs(node_def: Any) -> tuple[tuple[str, tuple[int, ...]], ...] | None:
    """The node's type and list(type) attributes (op-definition defaults filled
    in), or None when its op is not a registered op."""
    op_def = op_def_registry.get(node_def.op)
    if op_def is None:
        return None
    found = []
    for attr in op_def.attr:
        if attr.type not in ("type", "list(type)"):
            continue
        value = node_def.attr[attr.name] if attr.name in node_def.attr else (
            attr.default_value if attr.HasField("default_value") else None)
        if value is None:
            continue
        types = tuple(value.list.type) if attr.type == "list(type)" else (value.type,)
        found.append((attr.name, types))
    return tuple(found)


def _matches(kernel: _Kernel, node: _Node) -> bool:
    if kernel.label != node.label:
        return False
    types = dict(node.types)
    return all(name in types and set(types[name]) <= allowed for name, allowed in kernel.constraints)


def has_kernel(node: _Node, device_type: str) -> bool:
    """Would TensorFlow find a kernel for `node` on `device_type`?"""
    registered = _kernels(node.op)
    if any(k.device_type == device_type and _matches(k, node) for k in registered):
        return True
    if device_type.startswith("XLA_"):  # symbolic devices: no DEFAULT fallback
        return False
    return any(k.device_type == "DEFAULT" and _matches(k, node) for k in registered)


def _describe(node: _Node, device_type: str) -> str:
    """'Svd(T=complex64)': the op with the type attributes its kernels constrain;
    'Svd(no kernel)' when the device type has none of any dtype. XLA's are
    prefixed 'xla:'."""
    prefix = "xla:" if device_type.startswith("XLA_") else ""
    registered = _kernels(node.op)
    usable = {device_type} if device_type.startswith("XLA_") else {device_type, "DEFAULT"}
    if not any(k.device_type in usable for k in registered):
        return f"{prefix}{node.op}(no kernel)"
    constrained = {name for k in registered for name, _ in k.constraints}
    shown = [f"{name}={','.join(tf.dtypes.as_dtype(t).name for t in types)}"
             for name, types in node.types if name in constrained]
    return f"{prefix}{node.op}({', '.join(shown)})"


def _must_compile(node_or_function: Any) -> bool:
    """Does a call node or a FunctionDef carry jit_compile=True (`_XlaMustCompile`)?"""
    attrs = node_or_function.attr
    return "_XlaMustCompile" in attrs and bool(attrs["_XlaMustCompile"].b)


def _func_names(node_def: Any) -> Iterator[str]:
    """The functions a node's attributes name (a call's f, a while's body, a case's branches)."""
    for value in node_def.attr.values():
        if value.HasField("func"):
            yield value.func.name
        elif value.HasField("list"):
            yield from (f.name for f in value.list.func)


def _walk(roots: Iterable[tuple[Iterable[Any], str]], library: dict[str, Any]) -> Iterator[_Node]:
    """Every node that needs a kernel, with its context, from the root node
    lists (with their contexts) through every function they call."""
    seen: set[tuple[str, str]] = set()
    stack: list[tuple[Iterable[Any], str]] = list(roots)
    while stack:
        node_defs, context = stack.pop()
        for nd in node_defs:
            eager = context in ("eager", "branch")
            callee_context = "branch" if eager and nd.op in _BRANCH_OPS else context
            if nd.op in library or nd.op in _CALL_OPS:
                # A call: no kernel of its own; the callee is compiled if it says so.
                callee_context = "placed" if eager else context
                names = [nd.op] if nd.op in library else list(_func_names(nd))
                if _must_compile(nd):
                    callee_context = "xla"
            else:
                names = list(_func_names(nd))
                types = _type_attrs(nd)
                if not (eager and nd.op in _EAGER_DATA):
                    label = nd.attr["_kernel"].s.decode() if "_kernel" in nd.attr else ""
                    yield _Node(nd.op, types if types is not None else (), label, context)
            for name in names:
                fdef = library.get(name)
                if fdef is None:
                    continue
                ctx = "xla" if _must_compile(fdef) else callee_context
                if (name, ctx) not in seen:
                    seen.add((name, ctx))
                    stack.append((fdef.node_def, ctx))


def _graphs_reached(fn: Any, args: tuple[Any, ...]) -> list[Any]:
    """TF1 graphs the call uses that the trace cannot see: those of Sessions,
    graphs and graph tensors in the function's closure (and a tf.function's
    Python function's) and in its arguments, one container deep."""
    python_fn = getattr(fn, "python_function", fn)
    cells = [c.cell_contents for c in (getattr(python_fn, "__closure__", None) or ()) if _filled(c)]
    graphs: list[Any] = []
    for value in [*cells, *args]:
        items = list(value.values()) if isinstance(value, dict) else list(value) if isinstance(value, (list, tuple)) else [value]
        for item in items:
            graph = item if isinstance(item, tf.Graph) else _graph_of(item)
            if graph is not None and not isinstance(graph, func_graph.FuncGraph) and all(graph is not g for g in graphs):
                graphs.append(graph)
    return graphs


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 -- an empty cell raises
    except ValueError:
        return False
    return True


def _graph_of(value: Any) -> Any:
    """The graph of a Session, or of a symbolic Tensor or Operation; None otherwise."""
    if isinstance(value, tf.compat.v1.Session):
        return value.graph
    if isinstance(value, (tf.Tensor, tf.Operation)):
        try:
            return value.graph
        except (AttributeError, RuntimeError):  # an eager tensor has no graph
            return None
    return None


def _trace(fn: Any, args: tuple[Any, ...], graphs: list[Any]) -> tuple[list[tuple[Iterable[Any], str]], dict[str, Any]]:
    """The call as graph nodes: (root node lists with their contexts, the
    functions they call by name).

    A tf.function (the compiled mode) gives the concrete function its calls
    used. A plain function is traced with tf.function, autograph off, as
    eager runs its Python (on where Python control flow over a tensor needs
    it); where that fails (a tf.Variable made from an argument cannot be
    lifted out of a function, a Session fed an argument), it is called in a
    fresh TF1 graph with placeholders for its tensor arguments. TF1 graphs
    that the call builds meanwhile are added to `graphs`. TensorFlow's
    traceback filtering is off meanwhile, so an op that refuses a dtype can
    be named (`_refusal`); an error raised is the tf.function trace's."""
    own: list[Any] = []  # the fallback's graph: the call's own ops, not a graph it uses

    def seen(op_type: str, inputs: Any, attrs: Any, outputs: Any, op_name: Any = None, graph: Any = None) -> None:
        if graph is not None and not isinstance(graph, func_graph.FuncGraph) and all(graph is not g for g in graphs + own):
            graphs.append(graph)

    filtering = tf.debugging.is_traceback_filtering_enabled()
    tf.debugging.disable_traceback_filtering()
    op_callbacks.add_op_callback(seen)
    try:
        try:
            concrete = _concrete(fn, args)
        except Exception as first:
            if hasattr(fn, "get_concrete_function") or _refusal(first) is not None:
                raise
            try:
                own.append(tf.Graph())
                with own[0].as_default():
                    fn(*(tf.compat.v1.placeholder(a.dtype, a.shape) if isinstance(a, tf.Tensor) else a for a in args))
            except Exception:
                raise first from None
            graph_def = own[0].as_graph_def()
            return [(graph_def.node, "eager")], {f.signature.name: f for f in graph_def.library.function}
        fdef = concrete.function_def
        library = {f.signature.name: f for f in concrete.graph.as_graph_def().library.function}
        context = "xla" if _must_compile(fdef) else "placed" if hasattr(fn, "get_concrete_function") else "eager"
        return [(fdef.node_def, context)], library
    finally:
        op_callbacks.remove_op_callback(seen)
        if filtering:
            tf.debugging.enable_traceback_filtering()


def _concrete(fn: Any, args: tuple[Any, ...]) -> Any:
    if hasattr(fn, "get_concrete_function"):
        return fn.get_concrete_function(*args)
    try:
        return tf.function(fn, autograph=False).get_concrete_function(*args)
    except tf.errors.OperatorNotAllowedInGraphError:  # a tensor as a Python bool: autograph makes it a cond
        return tf.function(fn).get_concrete_function(*args)


_REFUSED = re.compile(r"Value passed to parameter '(\w+)' has DataType (\w+) not in list of allowed values")


def _refusal(exc: BaseException) -> str | None:
    """'Svd(T=bfloat16)' when the trace failed because an op's definition
    allows no such dtype (on any device: there can be no kernel); else None.
    The op is the one whose `_apply_op_helper` frame raised."""
    match = _REFUSED.search(str(exc))
    if match is None:
        return None
    op = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "_apply_op_helper":
            op = tb.tb_frame.f_locals.get("op_type_name")
        tb = tb.tb_next
    if not isinstance(op, str):
        return None
    param, dtype = match.groups()
    op_def = op_def_registry.get(op)
    attr = next((a.type_attr or a.type_list_attr for a in op_def.input_arg if a.name == param), "") if op_def else ""
    return f"{op}({attr or param}={dtype})"


def kernel_support(fn: Any, args: tuple[Any, ...]) -> dict[str, Any]:
    """The prediction for fn(*args), small enough for every result:

    {"ops": N, "cpu": {"kernels": bool, "missing": [...]}, "gpu": {...}}

    `ops`: the distinct (op type, dtypes, context) checked. Per device kind,
    `kernels` is whether every op can run there; `missing` the ops that
    cannot (MISSING_CAP at most; `missing_count` when there are more);
    `maybe` the ops with no kernel there in a cond branch of an eager call,
    which fail it only if their branch is taken; `to_cpu` (GPU) the ops in
    graphs the placer places that would run on the CPU instead. `xla`: true when some op is compiled by XLA. `graphs`: the
    TF1 graphs included. `refused`: the trace stopped at an op whose
    definition allows no such dtype ('Svd(T=bfloat16)'), missing on every
    device. `trace_error`: the trace failed otherwise, and only the TF1 graphs
    the call reaches were looked at. Raises when there is nothing to look
    at; the adapter turns that into {"error": ...}."""
    xla_ok = _register_xla_kernels()
    graphs = _graphs_reached(fn, args)
    roots: list[tuple[Iterable[Any], str]] = []
    library: dict[str, Any] = {}
    trace_error = ""
    refused = None
    try:
        roots, library = _trace(fn, args, graphs)
    except Exception as exc:
        refused = _refusal(exc)
        if refused is None and not graphs:
            raise
        if refused is None:
            trace_error = error_line(exc)[:200]
    for graph in graphs:
        graph_def = graph.as_graph_def()
        for f in graph_def.library.function:
            library.setdefault(f.signature.name, f)
        roots.append((graph_def.node, "placed"))

    nodes = sorted(set(_walk(roots, library)))
    record: dict[str, Any] = {"ops": len(nodes)}
    if any(n.context == "xla" for n in nodes):
        if not xla_ok:
            raise RuntimeError("XLA's compilation kernels are not registered in this process")
        record["xla"] = True
    if graphs:
        record["graphs"] = len(graphs)
    if refused:
        record["refused"] = refused
    if trace_error:
        record["trace_error"] = trace_error
    for kind, (device_type, xla_type) in _DEVICES.items():
        missing: list[str] = [refused] if refused else []
        maybe: list[str] = []
        to_cpu: list[str] = []
        for node in nodes:
            target = xla_type if node.context == "xla" else device_type
            if has_kernel(node, target):
                continue
            if node.context == "placed" and kind != "cpu" and has_kernel(node, "CPU"):
                to_cpu.append(_describe(node, target))
            elif node.context == "branch":
                maybe.append(_describe(node, target))
            else:
                missing.append(_describe(node, target))
        entry: dict[str, Any] = {"kernels": not missing}
        _listed(entry, "missing", missing)
        _listed(entry, "maybe", maybe)
        _listed(entry, "to_cpu", to_cpu)
        record[kind] = entry
    return record


def _listed(entry: dict[str, Any], key: str, names: list[str]) -> None:
    unique = sorted(set(names))
    if unique:
        entry[key] = unique[:MISSING_CAP]
        if len(unique) > MISSING_CAP:
            entry[f"{key}_count"] = len(unique)


def error_line(exc: BaseException) -> str:
    """`Type: message` on one line, at most 300 characters: the last line
    that names an error (a TensorFlow error from inside a traced function
    ends with the original one, after the user code's frames), else the
    message's first line."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    named = [line for line in lines if re.match(r"^\w+(Error|Exception|Warning): ", line)]
    if named:
        return named[-1][:300]
    return f"{type(exc).__name__}: {lines[0]}"[:300] if lines else type(exc).__name__
