"""`mudjack repro --minimal`: the smallest script that still shows a case's
failure, and the float64 accuracy check a full repro script adds.

The minimal script imports only numpy and the framework (and what the call's
own source imports). Its inputs are written inline as hex bytes (one line
each, the only lines that may be long); then the call, as the full script
writes it (the case's function as source with what it closes over), eager or
compiled as the case was; then one test of the failure MudJack recorded:

- an accuracy mismatch (the engine passes `bound_eps`): the same function on
  the inputs widened to float64, eagerly, and the error in eps of each
  floating output against it, e_i = |x_i - r_i| / (eps * (|r_i| + s)) with s
  the RMS of the reference's finite values (the oracle's unit,
  src/oracle/accuracy.hpp; a non-finite output where the reference is finite
  is an infinite error): exit 1 beyond the bound;
- a difference from the baseline device's outputs (`expected`):
  `np.testing.assert_allclose` within the case's tolerance (an
  AssertionError, exit 1);
- an exception (the case's outcome `fail`) or a crash: the call itself.

Left out, as nothing the failure needs: timing, the other dtypes and modes of
the grid, the case's own checks, output flattening beyond a tuple or list.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .api import Call, CaseDef, Ctx
from .repro import CannotWrite, _Writer, torch_owners
from .vocabulary import VOCABULARY

# Machine epsilon per real floating dtype: the oracle's (schemas/vocabulary.json).
EPS: dict[str, float] = VOCABULARY["accuracy"]["dtype_eps"]

# Per framework: imports, an inline array placed on the device in a dtype,
# an output to float64 on the host, and compiling.
_HEAD = {
    "numpy": """import numpy as np

def put(hexed, saved, shape, dtype): return np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape).astype(dtype)
def host(x): return np.asarray(x, dtype=np.float64)
def compiled(fn): return fn""",
    "torch": """import numpy as np
import torch

DEVICE = torch.device("{device}")
def put(hexed, saved, shape, dtype):
    a = np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape).copy()
    return torch.from_numpy(a).to(device=DEVICE, dtype=getattr(torch, dtype))
def host(x): return x.detach().cpu().double().numpy()
def compiled(fn): return torch.compile(fn)""",
    "jax": """import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
DEVICE = jax.devices("cpu")[0] if "{device}" == "cpu" else jax.devices("gpu")[{index}]
def put(hexed, saved, shape, dtype):
    return jax.device_put(jnp.asarray(np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape), dtype), DEVICE)
def host(x): return np.asarray(x.astype(jnp.float64))
def compiled(fn): return jax.jit(fn)""",
    "tensorflow": """import numpy as np
import tensorflow as tf

DEVICE = "/CPU:0" if "{device}" == "cpu" else "/GPU:{index}"
def put(hexed, saved, shape, dtype):
    with tf.device(DEVICE):
        return tf.cast(tf.constant(np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape)), getattr(tf, dtype))
def host(x): return tf.cast(x, tf.float64).numpy()
def compiled(fn): return tf.function(fn, jit_compile=True)""",
}

# Per framework: an argument widened to float64 for the reference (floating
# arrays only), written with the script's own imports.
_WIDE = {
    "numpy": 'def wide(a): return a.astype(np.float64) if getattr(getattr(a, "dtype", None), "kind", "") == "f" else a',
    "torch": "def wide(a): return a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a",
    "jax": 'def wide(a): return a.astype(jnp.float64) if jnp.issubdtype(getattr(a, "dtype", object), jnp.floating) else a',
    "tensorflow": 'def wide(a): return tf.cast(a, tf.float64) if getattr(getattr(a, "dtype", None), "is_floating", False) else a',
}

# What the full script's writer may name (repro._Writer), defined only when
# the written call uses it.
_HELPERS = {
    "_np.": "_np = np",
    "_array(": "def _array(b64):\n    import base64, io\n    return np.load(io.BytesIO(base64.b64decode(b64)), allow_pickle=False)",
    "to_device(": "def to_device(a, dtype): return put(a.tobytes().hex(), a.dtype.str, a.shape, dtype)",
    "_ns(": "import types\n_ns = types.SimpleNamespace",
    "_instance(": "def _instance(cls, state):\n    obj = object.__new__(cls)\n    obj.__dict__.update(state)\n    return obj",
    "_module(": """def _module(m, state, training, dtype):
    m = m.to(device=DEVICE, dtype=getattr(torch, dtype) if dtype else None)
    m.load_state_dict(state)
    return m.train(training)""",
    "_strided(": """def _strided(x, stride):
    return torch.empty_strided(x.shape, stride, dtype=x.dtype, device=x.device).copy_(x)""",
}

# The error in eps of each floating output against the float64 reference,
# to 6 significant digits: an error just beyond its bound (6.0004 against 6)
# must not print as the bound itself.
_ACCURACY = """ref = ref_fn(*[wide(a) for a in args])
worst = 0.0
for i, (x, r) in enumerate(zip(outs(out), outs(ref))):
    if not EPS[i]:
        continue
    x, r = host(x), host(r)
    s = float(np.sqrt(np.mean(r[np.isfinite(r)] ** 2))) if np.isfinite(r).any() else 1.0
    e = np.abs(x - r) / (EPS[i] * (np.abs(r) + (s or 1.0)))
    e = np.where(np.isfinite(r) & ~np.isfinite(x), np.inf, np.where(np.isnan(r) & np.isnan(x), 0.0, e))
    worst = max(worst, float(np.nanmax(e)) if e.size else 0.0)
    print(f"output {i}: error {float(np.nanmax(e)) if e.size else 0.0:.6g} eps against float64")
print(f"worst error {worst:.6g} eps; MudJack's bound {BOUND:g} eps")
if not worst <= BOUND:
    raise SystemExit(1)"""

_OUTS = "def outs(o): return list(o) if isinstance(o, (tuple, list)) else [o]"


def _inline(adapter: Any, value: Any, where: str, w: _Writer) -> str:
    """An argument: a framework array as one `put(...)` line of hex bytes,
    anything else as the full script writes it."""
    module = type(value).__module__.split(".")[0]
    if isinstance(value, np.ndarray) or module in ("torch", "jax", "jaxlib", "tensorflow"):
        arrays = adapter.to_numpy(value)
        if len(arrays) == 1 and np.asarray(arrays[0][0]).dtype.kind in "biuf":
            host, dtype = np.ascontiguousarray(arrays[0][0]), arrays[0][1]
            return f"put({host.tobytes().hex()!r}, {host.dtype.str!r}, {host.shape!r}, {dtype!r})"
    return w.value(value, where)


def _output_eps(adapter: Any, call: Call) -> list[float]:
    """Each output's epsilon (0 for an output the oracle does not judge),
    from one call on the case's own arguments."""
    with adapter.scope():
        out = call.fn(*call.args)
    return [EPS.get(dtype, 0.0) for _, dtype in adapter.to_numpy(out)]


def accuracy_lines(adapter: Any, case: CaseDef, seed: int, call: Call, bound_eps: float, w: _Writer,
                   fn_name: str) -> list[str]:
    """The float64 accuracy check as lines of a full repro script (its
    prelude: `to_host`, `scope`; its call: `_fn`, `_args`, `_out`), run
    after its call: it appends to `_problems` instead of exiting."""
    ref_text = _reference(adapter, case, seed, call, w, fn_name)
    test = _ACCURACY.replace("raise SystemExit(1)", '_problems.append(f"error {worst:.6g} eps beyond the bound {BOUND:g} eps")')
    return [_OUTS, _WIDE[case.framework], "def host(x): return np.asarray(to_host(x), dtype=np.float64)",
            f"EPS, BOUND = {_output_eps(adapter, call)!r}, {bound_eps!r}",
            "args, out = _args, _out", "with scope():", f"    ref_fn = {ref_text}",
            *["    " + line for line in test.splitlines()]]


def _reference(adapter: Any, case: CaseDef, seed: int, call: Call, w: _Writer, fn_name: str) -> str:
    """The function the float64 reference calls: the case's body built
    widened (a module's weights in float64), as source; the call's own
    function when the body gives the same one."""
    with adapter.scope():
        wide: Call = case.body(Ctx(adapter, case, seed, widen=True))
    return fn_name if wide.fn is call.fn else w.value(wide.fn, "the float64 reference's function")


def _helpers(text: str) -> list[str]:
    return [line for mark, line in _HELPERS.items() if mark in text]


def make_minimal(adapter: Any, case: CaseDef, seed: int, device: str, seen: str = "",
                 expected: list[str] | None = None, rtol: float = 1e-3, atol: float = 1e-3,
                 bound_eps: float | None = None) -> str:
    """The minimal script (the module docstring). CannotWrite when the call
    cannot be written as source."""
    if case.framework not in _HEAD:
        raise CannotWrite(f"a minimal script is not written for {case.framework}")
    with adapter.scope():
        call: Call = case.body(Ctx(adapter, case, seed))
    w = _Writer(adapter, owners=torch_owners([call.fn, *call.args]))
    fn_text = w.value(call.fn, "the called function")
    args_text = [_inline(adapter, a, f"argument {i + 1}", w) for i, a in enumerate(call.args)]
    tail = _tail(adapter, case, seed, call, w, fn_text, expected, rtol, atol, bound_eps)
    body = [line for ln in w.lines for line in ln.splitlines()]
    compiled = case.mode == "compiled" and not call.compiled_by_case
    shows = ("the error against float64 beyond the bound" if bound_eps is not None
             else "an output that differs from the baseline device's" if expected
             else "the exception the call raises, if it raises")
    out = [f'"""Minimal reproduction of {case.id} on {device} (mudjack repro --minimal).', ""]
    if seen:
        out.append(f"What MudJack saw: {seen}")
    index = device.split(":")[1] if ":" in device else "0"
    out += [f"Exit 1 (or an exception) shows {shows}; exit 0: not reproduced.", '"""',
            _HEAD[case.framework].format(device=device, index=index), *w.imports,
            *_helpers("\n".join(body + args_text + tail)), *body, f"fn = {fn_text}",
            "args = [", *[f"    {a}," for a in args_text], "]",
            f"out = {'compiled(fn)' if compiled else 'fn'}(*args)", _OUTS, *tail]
    return "\n".join(out) + "\n"


def _tail(adapter: Any, case: CaseDef, seed: int, call: Call, w: _Writer, fn_text: str,
          expected: list[str] | None, rtol: float, atol: float, bound_eps: float | None) -> list[str]:
    """The test of the failure MudJack recorded (the module docstring)."""
    if bound_eps is not None:
        return [_WIDE[case.framework], f"ref_fn = {_reference(adapter, case, seed, call, w, fn_text)}",
                f"EPS, BOUND = {_output_eps(adapter, call)!r}, {bound_eps!r}", _ACCURACY]
    if not expected:
        return ['print("ran without an exception")']
    lines = ["expected = ["]
    for p in expected:
        e = np.ascontiguousarray(np.load(p, allow_pickle=False))
        lines.append(f"    np.frombuffer(bytes.fromhex({e.tobytes().hex()!r}), {e.dtype.str!r}).reshape({e.shape!r}),")
    return [*lines, "]", "for x, e in zip(outs(out), expected):",
            f"    np.testing.assert_allclose(host(x), e, rtol={rtol!r}, atol={atol!r}, equal_nan=True)",
            'print("matches the baseline output")']
