"""`mudjack repro --minimal`: the smallest script that still shows a case's
failure.

The minimal script imports only numpy and the framework (and what the call's
own source imports). Its inputs are written inline as hex bytes (one line
each, the only lines that may be long); then the call, as the full script
writes it (the case's function as source with what it closes over, by
script_writer.Writer), eager or compiled as the case was; then one test of
the failure MudJack recorded:

- an accuracy mismatch (the engine passes `bound_eps`): the same function on
  the inputs widened to float64, eagerly, and the error in eps of each
  floating output against it, by the oracle's own error_parts
  (mudjack_probe/eps.py, embedded by source; script_writer.accuracy_check):
  exit 1 beyond the bound;
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

from . import eps
from .api import Call, CaseDef, Ctx
from .script_writer import OUTS, WIDE, CannotWrite, Writer, accuracy_check, judged_outputs, reference_text, torch_owners

# Per framework: imports, an inline array placed on the device in a dtype,
# and an output to float64 on the host.
_HEAD = {
    "numpy": """import numpy as np
def put(hexed, saved, shape, dtype): return np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape).astype(dtype)
def host(x): return np.asarray(x, dtype=np.float64)""",
    "torch": """import numpy as np
import torch

DEVICE = torch.device("{device}")
def put(hexed, saved, shape, dtype):
    a = np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape).copy()
    return torch.from_numpy(a).to(device=DEVICE, dtype=getattr(torch, dtype))
def host(x): return x.detach().cpu().double().numpy()""",
    "jax": """import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
DEVICE = jax.devices("cpu")[0] if "{device}" == "cpu" else jax.devices("gpu")[{index}]
def put(hexed, saved, shape, dtype):
    return jax.device_put(jnp.asarray(np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape), dtype), DEVICE)
def host(x): return np.asarray(x.astype(jnp.float64))""",
    "tensorflow": """import numpy as np
import tensorflow as tf

DEVICE = "/CPU:0" if "{device}" == "cpu" else "/GPU:{index}"
def put(hexed, saved, shape, dtype):
    with tf.device(DEVICE):
        return tf.cast(tf.constant(np.frombuffer(bytes.fromhex(hexed), saved).reshape(shape)), getattr(tf, dtype))
def host(x): return tf.cast(x, tf.float64).numpy()""",
}

# Per framework: the compiler of a compiled case (only such a script calls it).
_COMPILE = {"numpy": "fn", "torch": "torch.compile(fn)", "jax": "jax.jit(fn)",
            "tensorflow": "tf.function(fn, jit_compile=True)"}

# What the full script's writer may name (script_writer.Writer), defined only when
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

def _inline(adapter: Any, value: Any, where: str, w: Writer) -> str:
    """An argument: a framework array as one `put(...)` line of hex bytes,
    anything else as the full script writes it."""
    module = type(value).__module__.split(".")[0]
    if isinstance(value, np.ndarray) or module in ("torch", "jax", "jaxlib", "tensorflow"):
        arrays = adapter.to_numpy(value)
        if len(arrays) == 1 and np.asarray(arrays[0][0]).dtype.kind in "biuf":
            host, dtype = np.ascontiguousarray(arrays[0][0]), arrays[0][1]
            return f"put({host.tobytes().hex()!r}, {host.dtype.str!r}, {host.shape!r}, {dtype!r})"
    return w.value(value, where)


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
    w = Writer(adapter, owners=torch_owners([call.fn, *call.args]))
    fn_text = w.value(call.fn, "the called function")
    args_text = [_inline(adapter, a, f"argument {i + 1}", w) for i, a in enumerate(call.args)]
    if bound_eps is not None:
        tail = _accuracy(adapter, case, seed, call, w, fn_text, bound_eps)
    else:
        tail = _against_baseline(expected, rtol, atol)
    body = [line for ln in w.lines for line in ln.splitlines()]
    compiled = case.mode == "compiled" and not call.compiled_by_case
    index = device.split(":")[1] if ":" in device else "0"
    out = [*_docstring(case, device, seen, bound_eps is not None, bool(expected)),
           _HEAD[case.framework].format(device=device, index=index), *w.imports,
           *_helpers("\n".join(body + args_text + tail)), *body, f"fn = {fn_text}",
           "args = [", *[f"    {a}," for a in args_text], "]",
           f"out = {_COMPILE[case.framework] if compiled else 'fn'}(*args)",
           OUTS, *tail]
    return "\n".join(out) + "\n"


def _docstring(case: CaseDef, device: str, seen: str, accuracy: bool, compared: bool) -> list[str]:
    shows = ("the error in eps against float64 (MudJack's: error_parts) beyond the bound" if accuracy
             else "an output that differs from the baseline device's" if compared
             else "the exception the call raises, if it raises")
    return [f'"""Minimal reproduction of {case.id} on {device} (mudjack repro --minimal).',
            *([f"What MudJack saw: {seen}"] if seen else []),
            f'Exit 1 (or an exception) shows {shows}; exit 0: not reproduced."""']


def _accuracy(adapter: Any, case: CaseDef, seed: int, call: Call, w: Writer, fn_text: str,
              bound_eps: float) -> list[str]:
    """The float64 accuracy check (script_writer.accuracy_check): exit 1 beyond the bound."""
    ref_text = reference_text(adapter, case, seed, call, w, fn_text)
    return [WIDE[case.framework], eps.embedded("error_parts"),
            f"ref_fn, _EPS, _BOUND = {ref_text}, {judged_outputs(adapter, call)!r}, {bound_eps!r}",
            *accuracy_check("raise SystemExit(1)")]


def _against_baseline(expected: list[str] | None, rtol: float, atol: float) -> list[str]:
    """The outputs against the baseline device's, within the case's
    tolerance; without them, only the call (an exception shows itself)."""
    if not expected:
        return ['print("ran without an exception")']
    lines = ["expected = ["]
    for p in expected:
        e = np.ascontiguousarray(np.load(p, allow_pickle=False))
        lines.append(f"    np.frombuffer(bytes.fromhex({e.tobytes().hex()!r}), {e.dtype.str!r}).reshape({e.shape!r}),")
    return [*lines, "]", "for x, e in zip(outs(out), expected):",
            f"    np.testing.assert_allclose(host(x), e, rtol={rtol!r}, atol={atol!r}, equal_nan=True)",
            'print("matches the baseline output")']
