"""Writes one case as a standalone Python script, for a framework bug report.

The script needs only the framework and numpy: the case's exact inputs are
embedded (as .npy bytes), the call is written out as source (the case's lambda
or function, with the values it closes over), and the check at the end is the
one MudJack applied: the output against the baseline device's, when the engine
passes that output in, within the case's tolerances.

What cannot be written as source (a closure over a framework object such as a
module with weights) raises CannotWrite naming it; the engine reports that.
"""

from __future__ import annotations

import ast
import base64
import dis
import importlib.util
import inspect
import io
import sys
import sysconfig
import textwrap
import types
from typing import Any

import numpy as np

from .api import Call, CaseDef, Ctx, _LazyModule

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
""",
    "jax": """
import numpy as np
import jax
import jax.numpy as jnp

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


class CannotWrite(Exception):
    """Some part of the case cannot be expressed as source."""


def _npy_literal(a: np.ndarray) -> str:
    buf = io.BytesIO()
    np.save(buf, np.asarray(a, order="C"), allow_pickle=False)
    return f'_array("{base64.b64encode(buf.getvalue()).decode()}")'


class _Writer:
    """Turns values and functions into lines of source, defining each name once."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.lines: list[str] = []
        self.imports: list[str] = []
        self.defined: set[str] = set()

    def value(self, v: Any, where: str) -> str:
        if v is None or isinstance(v, (bool, int, float, str, complex)):
            text = repr(v)
            if isinstance(v, float) and not np.isfinite(v):
                text = f'float("{v}")'
            return text
        if isinstance(v, (list, tuple)):
            items = [self.value(x, where) for x in v]
            if isinstance(v, tuple):
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            return "[" + ", ".join(items) + "]"
        if isinstance(v, (set, frozenset)):
            return f"{type(v).__name__}([" + ", ".join(self.value(x, where) for x in sorted(v, key=repr)) + "])"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.value(k, where)}: {self.value(x, where)}" for k, x in v.items()) + "}"
        if isinstance(v, slice):
            return f"slice({self.value(v.start, where)}, {self.value(v.stop, where)}, {self.value(v.step, where)})"
        if isinstance(v, np.ndarray):
            if v.dtype.kind not in "biufcUS":
                raise CannotWrite(f"{where} is a numpy array of {v.dtype}, which cannot be written as source")
            return _npy_literal(v)
        if isinstance(v, (np.generic,)):
            return f"np.{type(v).__name__}({v.item()!r})"
        if isinstance(v, np.dtype):
            return f"np.dtype({str(v)!r})"
        if isinstance(v, (types.ModuleType, _LazyModule)):
            return self.module(v)
        if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)) or (callable(v) and hasattr(v, "__qualname__")):
            return self.function(v, where)
        special = self._framework_object(v, where)
        if special is not None:
            return special
        # A framework array: its values, placed on the device as the case did.
        try:
            arrays = self.adapter.to_numpy(v)
        except Exception:
            arrays = []
        if len(arrays) == 1 and type(v).__module__.split(".")[0] in ("torch", "jax", "jaxlib", "tensorflow"):
            arr, dtype = arrays[0]
            if np.asarray(arr).dtype.kind in "biufc":
                text = f"to_device({_npy_literal(np.asarray(arr))}, {dtype!r})"
                if getattr(v, "requires_grad", False):  # torch: a leaf the case differentiates
                    text += ".requires_grad_()"
                return text
        rep = repr(v)
        for prefix in ("torch.", "tf.", "jnp."):
            if rep.startswith(prefix) and "(" not in rep and " " not in rep:
                return rep  # a dtype such as torch.float32
        raise CannotWrite(f"{where} is a {type(v).__module__}.{type(v).__qualname__}, which cannot be written as source")

    def _framework_object(self, v: Any, where: str) -> str | None:
        """torch devices and simple torch.nn modules (rebuilt from their
        one-line repr, then loaded with their exact weights)."""
        if type(v).__module__.split(".")[0] != "torch":
            return None
        import torch

        if isinstance(v, torch.device):
            return "DEVICE"
        if isinstance(v, torch.nn.Module):
            text = repr(v)
            cls = type(v)
            if "\n" in text or getattr(torch.nn, cls.__name__, None) is not cls:
                raise CannotWrite(f"{where} is a {cls.__qualname__} with submodules, which cannot be written as source")
            state = v.state_dict()
            dtypes = {str(t.dtype).replace("torch.", "") for t in state.values() if t.is_floating_point()}
            entries = ", ".join(f"{k!r}: {self.value(t, f'{where}.{k}')}" for k, t in state.items())
            ctor = f"{self.module(torch.nn)}.{text}"
            dtype = repr(dtypes.pop()) if len(dtypes) == 1 else "None"
            return f"_module({ctor}, {{{entries}}}, {v.training!r}, {dtype})"
        return None

    def module(self, m: Any) -> str:
        name = m._name if isinstance(m, _LazyModule) else m.__name__
        alias = "_m_" + name.replace(".", "_")
        line = f"import {name} as {alias}"
        if line not in self.imports:
            self.imports.append(line)
        return alias

    def function(self, fn: Any, where: str) -> str:
        if not isinstance(fn, types.FunctionType):
            return self._importable(fn, where)
        if fn.__name__ != "<lambda>" and _installed(getattr(fn, "__module__", "") or ""):
            return self._importable(fn, where)
        code = fn.__code__
        # What the function closes over, and the globals it names.
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            if name not in self.defined:
                self.defined.add(name)
                try:
                    content = cell.cell_contents
                except ValueError:
                    raise CannotWrite(f"{name}, used by {where}, is not bound yet") from None
                self.lines.append(f"{name} = {self.value(content, name)}")
        for name in _global_names(code):
            if name in self.defined or name not in fn.__globals__:
                continue
            self.defined.add(name)
            self.lines.append(f"{name} = {self.value(fn.__globals__[name], name)}")
        source = _source_of(fn)
        if fn.__name__ == "<lambda>":
            return source
        self.lines.append(source)
        return fn.__name__

    def _importable(self, fn: Any, where: str) -> str:
        module = getattr(fn, "__module__", None)
        qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
        candidates = [module] if module else []
        candidates += [self.adapter.module.__name__] if getattr(self.adapter, "module", None) is not None else []
        for mod_name in candidates:
            try:
                obj: Any = __import__(mod_name, fromlist=["_"])
                for part in (qual or "").split("."):
                    obj = getattr(obj, part)
            except (ImportError, AttributeError, TypeError):
                continue
            if obj is fn:
                return f"{self.module(__import__(mod_name, fromlist=['_']))}.{qual}"
        raise CannotWrite(f"{where} ({fn!r}) cannot be named from an import")


# Python 3.10 lists the standard library's modules; on 3.9 a module is found
# there by where it lives (its folders below) or by being built in.
_STDLIB_NAMES = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)
_STDLIB_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")})


def _installed(module: str) -> bool:
    """Is `module` part of Python or an installed package (so a script can
    import it), rather than a suite file or other code only MudJack loads?"""
    top = module.split(".")[0]
    if not top or module.startswith("mudjack_suite_") or top == "mudjack_probe":
        return False
    if top in _STDLIB_NAMES:
        return True
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    origin = (spec.origin or "") if spec else ""
    if origin in ("built-in", "frozen") or origin.startswith(_STDLIB_DIRS):
        return True
    return "site-packages" in origin or "dist-packages" in origin


def _global_names(code: types.CodeType) -> list[str]:
    """Names the code loads as globals (not attribute names, which co_names also holds)."""
    names = [i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _global_names(const)
    return names


def _names_in(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def _source_of(fn: types.FunctionType) -> str:
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise CannotWrite(f"the source of {fn.__qualname__} is not available: {exc}") from None
    if fn.__name__ != "<lambda>":
        tree = ast.parse(src)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                node.decorator_list = []  # @cases.case(...) registers; the script only calls
        return ast.unparse(tree)
    # The lambda sits inside a longer statement: find it in the parsed lines.
    lines = src.splitlines()
    for end in range(len(lines), 0, -1):
        chunk = "\n".join(lines[:end])
        for attempt in (chunk, "(" + chunk + ")", chunk + ")", chunk + "))"):
            try:
                tree = ast.parse(attempt)
            except SyntaxError:
                continue
            lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
            want = list(fn.__code__.co_varnames[: fn.__code__.co_argcount])
            # Several lambdas may share the line and the argument names: the
            # one whose names are the function's (globals, attributes and
            # closure variables) is it.
            names = set(fn.__code__.co_names) | set(fn.__code__.co_freevars)
            candidates = [n for n in lambdas if [a.arg for a in n.args.args] == want]
            candidates.sort(key=lambda n: _names_in(n.body) - set(want) != names)
            for lam in candidates:
                text = ast.get_source_segment(attempt, lam)
                if text:
                    return "(" + text + ")"
    raise CannotWrite(f"the lambda of {fn.__qualname__} could not be isolated from its source line")


def make_script(adapter: Any, case: CaseDef, seed: int, device: str, seen: str = "",
                expected: list[str] | None = None, rtol: float = 1e-3, atol: float = 1e-3) -> str:
    """The script. `expected` are .npy files of the baseline device's outputs,
    compared within rtol/atol (the engine's tolerance for this case)."""
    with adapter.scope():
        call: Call = case.body(Ctx(adapter, case, seed))
    w = _Writer(adapter)
    fn_text = w.value(call.fn, "the called function")
    args_text = [w.value(a, f"argument {i + 1}") for i, a in enumerate(call.args)]
    expected_text = [_npy_literal(np.load(p, allow_pickle=False)) for p in (expected or [])]
    index = device.split(":")[1] if ":" in device else "0"
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
    out += [
        f"Needs only {case.framework} and numpy. Exit 0: ran"
        + (" and matched the baseline's output" if expected_text else "")
        + "; an exception or exit 1 reproduces the problem.",
        '"""',
        "from __future__ import annotations",
        "",
        "import base64, io, sys",
        _PRELUDE[case.framework].format(device=device, index=index).strip(),
        "",
        "def _array(b64):",
        "    return np.load(io.BytesIO(base64.b64decode(b64)), allow_pickle=False)",
        "",
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
        "def _flat(x):",
        "    if isinstance(x, (list, tuple)):",
        "        return [y for item in x for y in _flat(item)]",
        "    if isinstance(x, dict):",
        "        return [y for k in sorted(x) for y in _flat(x[k])]",
        "    return [to_host(x)]",
        "",
        "_got = _flat(_out)",
        "for _i, _g in enumerate(_got):",
        '    print(f"output {_i}: shape {getattr(_g, \'shape\', ())} dtype {getattr(_g, \'dtype\', type(_g).__name__)}")',
    ]
    if expected_text:
        out += [
            f"_expected = [{', '.join(expected_text)}]",
            "if len(_got) != len(_expected): sys.exit(f'{len(_got)} outputs, the baseline had {len(_expected)}')",
            "for _i, (_g, _e) in enumerate(zip(_got, _expected)):",
            f"    np.testing.assert_allclose(np.asarray(_g, dtype=_e.dtype), _e, rtol={rtol!r}, atol={atol!r}, equal_nan=True,",
            '                               err_msg=f"output {_i} differs from the baseline device\'s")',
            'print("matches the baseline output")',
        ]
    return "\n".join(out) + "\n"
