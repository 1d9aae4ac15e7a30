"""Writes one case as a standalone Python script, for a framework bug report.

The script needs only the framework and numpy: the case's exact inputs are
embedded (as .npy bytes), the call is written out as source (the case's lambda
or function, with the values it closes over; a torch module is rebuilt once,
with its exact weights, and every use of one of its parameters, such as the
list a backward pass differentiates, names that module's parameter), and the
checks at the end are the ones MudJack applied: the case's own checks
(`Call.check`, `Call.reference`), each written out as source with what it
closes over, then the output against the baseline device's, when the engine
passes that output in, within the case's tolerances. The script exits 1 when
a check fails or the output differs, as the case's outcome did.

After the accuracy oracle's mismatch (the engine passes `bound_eps`), the
script also measures each floating output's error in eps against the float64
reference, as the oracle does (script_writer.accuracy_check), and exits 1
beyond the bound.

What the call needs and cannot be written as source (a closure over a module
with submodules) raises CannotWrite naming it (script_writer.Writer); the
engine reports that. A
check that cannot be written is kept in the script by name, with the reason
and, where Python has it, its source as a comment: it is reported as not run,
never dropped.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

import numpy as np

from . import eps
from .api import Call, CaseDef, Check, Ctx
from .script_writer import OUTS, WIDE, CannotWrite, Writer, accuracy_check, judged_outputs, npy_literal, reference_text, torch_owners

# Per framework: imports, device binding, and the helpers the script uses.
# {device} and {index} are filled in.
_PRELUDE = {
    "numpy": """
import contextlib
import numpy as np

DEVICE = "cpu"
def to_device(a, dtype): return a.astype(dtype)
def to_host(x): return np.asarray(x)
def scope(): return contextlib.nullcontext()
def compile_fn(fn): return fn
def sync(out): pass
""",
    "torch": """
import contextlib
import numpy as np
import torch

DEVICE = torch.device("{device}")
def to_device(a, dtype): return torch.from_numpy(a).to(device=DEVICE, dtype=getattr(torch, dtype))
def to_host(x):
    if isinstance(x, torch.Tensor):
        x = x.detach().resolve_conj().resolve_neg()
        return (x.float() if x.dtype == torch.bfloat16 else x).cpu().numpy()
    return np.asarray(x)
def scope(): return contextlib.nullcontext()
def compile_fn(fn): return torch.compile(fn)
def sync(out):
    if DEVICE.type == "cuda": torch.cuda.synchronize(DEVICE)
def _module(m, state, training, dtype):
    m = m.to(device=DEVICE, dtype=getattr(torch, dtype) if dtype else None)
    for name, value in state.items():  # buffers given to the constructor (a loss's weight)
        if name not in m.state_dict() and "." not in name:
            m.register_buffer(name, value)
    m.load_state_dict(state)
    return m.train(training)
def _strided(x, stride):  # a view's or channels_last layout, as the case had it
    return torch.empty_strided(x.shape, stride, dtype=x.dtype, device=x.device).copy_(x)
""",
    "jax": """
import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)  # as MudJack runs it: else float64 quietly becomes float32
DEVICE = jax.devices("cpu")[0] if "{device}" == "cpu" else [d for d in jax.devices() if d.platform == "gpu"][{index}]
def to_device(a, dtype): return jax.device_put(a.astype(jnp.dtype(dtype)), DEVICE)
def to_host(x):
    if isinstance(x, jax.Array) and x.dtype == jnp.bfloat16: x = x.astype(jnp.float32)
    return np.asarray(x)
def scope(): return jax.default_device(DEVICE)
def compile_fn(fn): return jax.jit(fn)
def sync(out): jax.block_until_ready(out)
""",
    "tensorflow": """
import numpy as np
import tensorflow as tf

tf.config.set_soft_device_placement(False)  # as MudJack runs it (and the paper did)
DEVICE = "/CPU:0" if "{device}" == "cpu" else "/GPU:{index}"
def to_device(a, dtype):
    with tf.device(DEVICE):
        return tf.cast(tf.constant(a), getattr(tf, dtype))
def to_host(x):
    x = tf.cast(x, tf.float32) if getattr(x, "dtype", None) == tf.bfloat16 else x
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)
def scope(): return tf.device(DEVICE)
def compile_fn(fn): return tf.function(fn, jit_compile=True)
def sync(out): pass
""",
}


# What every script defines, whatever the framework: the embedded arrays,
# outputs flattened as the probe flattens them (runner: `adapter.to_numpy`),
# and what a check's source may be written with.
_COMMON = '''
def _array(b64):
    return np.load(io.BytesIO(base64.b64decode(b64)), allow_pickle=False)
def _flat(x):  # as MudJack flattens outputs: sequences in order, dicts by key, None dropped
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _flat(item)]
    if isinstance(x, dict):
        return [y for k in sorted(x, key=str) for y in _flat(x[k])]
    return [] if x is None else [to_host(x)]
def _instance(cls, state):  # an object of a suite's class, with its attributes
    obj = object.__new__(cls)
    obj.__dict__.update(state)
    return obj
_ns = types.SimpleNamespace  # the case context a check reads; a suite helper module's functions
_np = np  # values are written with it: a check's scope may bind `np` after using one
'''

# The case's own checks on the host outputs and inputs, as the runner applies
# them (`_check_ok`: a check that raises has failed).
_RUN_CHECKS = '''
_problems = []
for _name, _kind, _make, _why in _CHECKS:
    if _make is None:
        print(f"check {_name!r} ({_kind}): NOT RUN by this script: {_why}")
        continue
    try:
        with scope():
            _ok = bool(_make()(_got, _ins))
    except Exception as _exc:
        print(f"check {_name!r} raised {type(_exc).__name__}: {_exc}", file=sys.stderr)
        _ok = False
    print(f"check {_name!r} ({_kind}): {'held' if _ok else 'FAILED'}")
    if not _ok:
        _problems.append(f"property check failed: {_name}")
'''

_COMPARE = '''
_differs = len(_problems)
if len(_got) != len(_expected):
    _problems.append(f"{len(_got)} outputs, the baseline had {len(_expected)}")
for _i, (_g, _e) in enumerate(zip(_got, _expected)):
    try:
        np.testing.assert_allclose(np.asarray(_g, dtype=_e.dtype), _e, rtol=_RTOL, atol=_ATOL, equal_nan=True,
                                   err_msg=f"output {_i} differs from the baseline device's")
    except (AssertionError, TypeError, ValueError) as _exc:
        print(_exc, file=sys.stderr)
        _problems.append(f"output {_i} differs from the baseline device's")
if len(_problems) == _differs:
    print("matches the baseline output")
'''

_END = '''
if _problems:
    print("reproduced: " + "; ".join(_problems), file=sys.stderr)
    sys.exit(1)
'''


def _checks(adapter: Any, checks: list[Check], imports: list[str]) -> tuple[list[str], list[str]]:
    """Each check as a function that returns it (`_check_N`), its closures in
    that function's scope, and the `_CHECKS` entries. A check that cannot be
    written stays an entry, with the reason and its source as a comment."""
    lines: list[str] = []
    entries: list[str] = []
    for i, check in enumerate(checks):
        w = Writer(adapter, list(imports), context=True)
        try:
            text = w.value(check.fn, f"the check {check.name!r}")
        except Exception as exc:  # CannotWrite, or a source Python cannot parse: never fatal for the script
            reason = str(exc) if isinstance(exc, CannotWrite) else f"{type(exc).__name__}: {exc}"
            lines += [f"# The check {check.name!r} could not be written as source ({reason}).", *_source_comment(check.fn), ""]
            entries.append(f"    ({check.name!r}, {check.kind!r}, None, {reason!r}),")
            continue
        imports += [line for line in w.imports if line not in imports]
        body = [line for ln in w.lines for line in ln.splitlines()]
        lines += [f"def _check_{i}():  # {check.kind}: {check.name}", *["    " + ln for ln in body], f"    return {text}", ""]
        entries.append(f"    ({check.name!r}, {check.kind!r}, _check_{i}, ''),")
    return lines, entries


def _source_comment(fn: Any) -> list[str]:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return ["# Its source is not available either."]
    return ["# Its source, as the suite has it:", *[("# " + ln).rstrip() for ln in source.splitlines()]]


def _header(case: CaseDef, device: str, seen: str, compared: bool, checks: list[Check]) -> list[str]:
    out = [
        "#!/usr/bin/env python3",
        f'"""Reproduces {case.id} on {device}.',
        "",
        f"Written by mudjack repro. Function: {case.function}; dtype {case.dtype}; mode {case.mode}.",
    ]
    if case.note:
        out.append(f"Case note: {case.note}")
    if seen:
        out.append(f"What MudJack saw: {seen}")
    if checks:
        out.append("The case's checks: " + "; ".join(f"{c.name} ({c.kind})" for c in checks) + ".")
    out += [
        f"Needs only {case.framework} and numpy. Exit 0: ran"
        + (", every check held" if checks else "")
        + (" and matched the baseline's output" if compared else "")
        + "; an exception or exit 1 (a failed check, a differing output) reproduces the problem.",
        '"""',
    ]
    return out


def _accuracy(adapter: Any, case: CaseDef, seed: int, call: Call, bound_eps: float, w: Writer,
              fn_name: str) -> list[str]:
    """The float64 accuracy check, after the script's call and checks (its
    prelude: `to_host`, `scope`; its call: `_fn`, `_args`, `_out`): a
    problem beyond the bound, reported with the others at the end."""
    ref_text = reference_text(adapter, case, seed, call, w, fn_name)
    fail = '_problems.append(f"error {worst:.6g} eps beyond the bound {_BOUND:g} eps")'
    return ["", OUTS, WIDE[case.framework], eps.embedded("error_parts"),
            "def host(x): return np.asarray(to_host(x), dtype=np.float64)",
            f"_EPS, _BOUND = {judged_outputs(adapter, call)!r}, {bound_eps!r}",
            "args, out = _args, _out", "with scope():", f"    ref_fn = {ref_text}",
            *["    " + line for line in accuracy_check(fail)]]


def make_script(adapter: Any, case: CaseDef, seed: int, device: str, seen: str = "",
                expected: list[str] | None = None, rtol: float = 1e-3, atol: float = 1e-3,
                bound_eps: float | None = None) -> str:
    """The script. `expected` are .npy files of the baseline device's outputs,
    compared within rtol/atol (the engine's tolerance for this case);
    `bound_eps`, when the run's outcome was the accuracy oracle's mismatch:
    the outputs' error against the float64 reference, held to that bound
    (`_accuracy`)."""
    with adapter.scope():
        call: Call = case.body(Ctx(adapter, case, seed))
    w = Writer(adapter, owners=torch_owners([call.fn, *call.args]))
    fn_text = w.value(call.fn, "the called function")
    args_text = [w.value(a, f"argument {i + 1}") for i, a in enumerate(call.args)]
    accuracy: list[str] = []
    if bound_eps is not None:  # before the call's lines are written: it may add the reference's function
        accuracy = _accuracy(adapter, case, seed, call, bound_eps, w, fn_text)
    check_lines, entries = _checks(adapter, call.checks, w.imports)
    expected_text = [npy_literal(np.load(p, allow_pickle=False)) for p in (expected or [])]
    index = device.split(":")[1] if ":" in device else "0"
    out = [
        *_header(case, device, seen, bool(expected_text), call.checks),
        "from __future__ import annotations",
        "",
        "import base64, io, sys, types",
        _PRELUDE[case.framework].format(device=device, index=index).strip(),
        _COMMON,
        *w.imports,
        "",
        "with scope():",
        *["    " + line for ln in w.lines for line in ln.splitlines()],
        f"    _fn = {fn_text}",
    ]
    if case.mode == "compiled" and not call.compiled_by_case:  # as the runner does
        out.append("    _fn = compile_fn(_fn)")
    out += [
        f"    _args = [{', '.join(args_text)}]",
        "    _out = _fn(*_args)",
        "    sync(_out)",
        "",
        *check_lines,
        "_CHECKS = [",
        *entries,
        "]",
        "_got = _flat(_out)",
        "_ins = _flat(_args)",
        "for _i, _g in enumerate(_got):",
        '    print(f"output {_i}: shape {getattr(_g, \'shape\', ())} dtype {getattr(_g, \'dtype\', type(_g).__name__)}")',
        _RUN_CHECKS,
    ]
    if expected_text:
        out += [f"_expected = [{', '.join(expected_text)}]", f"_RTOL, _ATOL = {rtol!r}, {atol!r}", _COMPARE]
    return "\n".join(out + accuracy) + _END


def graph_script(request: dict[str, Any]) -> dict[str, Any]:
    """The reply to `repro_graph` (protocol 1.9): a fuzz graph's finding as a
    standalone script (mudjack_probe.fuzz.script), or why it cannot be one."""
    from .fuzz.script import script_for_file

    graph = str(request.get("graph", ""))
    reply: dict[str, Any] = {"type": "repro", "case": graph, "script": "", "unwritable": None}
    bound = request.get("bound_eps")
    try:
        reply["script"] = script_for_file(graph, str(request.get("backend", "")), str(request.get("device", "cpu")),
                                          int(request.get("seed", 0)), str(request.get("symptom", "mismatch")),
                                          None if bound is None else float(bound),
                                          float(request.get("slow_ratio", 10.0)), float(request.get("timeout_s", 60.0)),
                                          str(request.get("eager") or ""))
    except ValueError as exc:  # a graph that cannot be read, an unknown backend or symptom
        reply["unwritable"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return reply
