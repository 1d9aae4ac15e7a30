"""What the case scripts the probe writes are made of: values and functions
as source (`Writer`), and the float64 accuracy check a script makes after
the oracle's mismatch (`accuracy_check`). repro.py writes the full script,
minimal.py the minimal one; both build theirs from these parts.

A value is written as source that recreates it: numbers and containers as
literals, arrays as embedded .npy bytes, a function or a suite's class as
its source with what it closes over and the globals it names, a torch module
rebuilt from its one-line repr with its exact weights, a whole model as the
`rebuild` call that made it. What cannot be written raises CannotWrite
naming it.
"""

from __future__ import annotations

import ast
import base64
import contextlib
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

from . import eps
from .api import Call, CaseDef, Ctx, _LazyModule
from .vocabulary import VOCABULARY


class CannotWrite(Exception):
    """Some part of the case cannot be expressed as source."""


def npy_literal(a: np.ndarray) -> str:
    buf = io.BytesIO()
    np.save(buf, np.asarray(a, order="C"), allow_pickle=False)
    return f'_array("{base64.b64encode(buf.getvalue()).decode()}")'


class Writer:
    """Turns values and functions into lines of source, defining each name once.

    `imports` may be shared between writers (one script, several scopes).
    `context`: the case context (`Ctx`) may be written, as the data a check
    reads from it (its dtype, shape, parameters, case); a call cannot have it.
    `owners`: torch parameters and buffers by id, with the module holding
    them (`torch_owners`), so that a parameter is written as its module's."""

    def __init__(self, adapter: Any, imports: list[str] | None = None, context: bool = False,
                 owners: dict[int, tuple[Any, str]] | None = None) -> None:
        self.adapter = adapter
        self.lines: list[str] = []
        self.imports: list[str] = [] if imports is None else imports
        self.defined: set[str] = set()
        self.context = context
        self.owners = owners or {}
        self.named: dict[int, str] = {}  # objects bound to a name in the script, by id
        self.keep: list[Any] = []  # holds what `named` names, so no id is reused
        self.attributes: dict[str, set[str]] = {}  # suite helper module -> attributes written

    def value(self, v: Any, where: str) -> str:
        if id(v) in self.named:
            return self.named[id(v)]
        if isinstance(v, np.generic):  # before float: np.float64 is one, and numpy 2 writes it np.float64(...)
            return f"_np.{type(v).__name__}({self.value(v.item(), where)})"
        if v is None or isinstance(v, (bool, int, float, str, complex)):
            text = repr(v)
            if isinstance(v, float) and not np.isfinite(v):
                text = f'float("{v}")'
            return text
        container = self._container(v, where)
        if container is not None:
            return container
        if isinstance(v, np.ndarray):
            if v.dtype.kind not in "biufcUS":
                raise CannotWrite(f"{where} is a numpy array of {v.dtype}, which cannot be written as source")
            return npy_literal(v)
        if isinstance(v, np.dtype):
            return f"_np.dtype({str(v)!r})"
        if isinstance(v, (types.ModuleType, _LazyModule)):
            return self.module(v)
        if isinstance(v, Ctx):
            return self._context(v, where)
        if isinstance(v, type) and not _installed(v.__module__):
            return self._class(v, where)
        if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)) or (callable(v) and hasattr(v, "__qualname__")):
            return self.function(v, where)
        if not _installed(type(v).__module__) and hasattr(v, "__dict__"):  # an object of a suite's class
            return f"_instance({self._class(type(v), where)}, {self.value(dict(vars(v)), where)})"
        if id(v) in self.owners:  # a module's parameter: the module's own, not a copy
            self.value(self.owners[id(v)][0], where)
            return self.named[id(v)]
        built = self._built_model(v, where)
        if built is not None:
            return built
        special = self._framework_object(v, where)
        if special is not None:
            return special
        return self._framework_array(v, where)

    def _container(self, v: Any, where: str) -> str | None:
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
        return None

    def _framework_array(self, v: Any, where: str) -> str:
        """A framework array: its values, placed on the device as the case did
        (torch: with its strides, and as a leaf that requires grad if it was one)."""
        try:
            arrays = self.adapter.to_numpy(v)
        except Exception:
            arrays = []
        if len(arrays) == 1 and type(v).__module__.split(".")[0] in ("torch", "jax", "jaxlib", "tensorflow"):
            arr, dtype = arrays[0]
            if np.asarray(arr).dtype.kind in "biufc":
                text = f"to_device({npy_literal(np.asarray(arr))}, {dtype!r})"
                if callable(getattr(v, "is_contiguous", None)) and not v.is_contiguous():  # torch: a view, channels_last
                    text = f"_strided({text}, {tuple(v.stride())!r})"
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
        one-line repr, then loaded with their exact weights). A module is bound
        to a name once, and its parameters and buffers to that module's."""
        if type(v).__module__.split(".")[0] != "torch":
            return None
        import torch

        if isinstance(v, torch.device):
            return "DEVICE"
        if not isinstance(v, torch.nn.Module):
            return None
        text = repr(v)
        cls = type(v)
        if "\n" in text or getattr(torch.nn, cls.__name__, None) is not cls:
            raise CannotWrite(f"{where} is a {cls.__qualname__} with submodules, which cannot be written as source")
        state = v.state_dict()
        dtypes = {str(t.dtype).replace("torch.", "") for t in state.values() if t.is_floating_point()}
        entries = ", ".join(f"{k!r}: {self.value(t, f'{where}.{k}')}" for k, t in state.items())
        ctor = f"{self.module(torch.nn)}.{text}"
        dtype = repr(dtypes.pop()) if len(dtypes) == 1 else "None"
        name = f"_module_{sum(1 for n in self.named.values() if n.startswith('_module_') and '.' not in n)}"
        made = f"_module({ctor}, {{{entries}}}, {v.training!r}, {dtype})"
        layout = _memory_format(torch, v)
        self.lines.append(f"{name} = {made}" + (f".to(memory_format={self.module(torch)}.{layout})" if layout else ""))
        self.keep.append(v)
        self.named[id(v)] = name
        for key, t in [*v.named_parameters(), *v.named_buffers()]:
            self.keep.append(t)
            self.named[id(t)] = f"{name}.{key}"
        return name

    def _built_model(self, v: Any, where: str) -> str | None:
        """A whole model a models-suite case built (mudjack_probe.models.BUILT):
        the `rebuild` call that made it, which draws the same weights from the
        same seed, rather than its weights. Bound to a name once; its
        parameters and buffers to that module's."""
        torch = sys.modules.get("torch")
        if torch is None or not isinstance(v, torch.nn.Module):
            return None
        from .models import BUILT, rebuild

        recipe = BUILT.get(v)
        if recipe is None:
            return None
        build, seed, dtype = recipe
        call = (f"{self.value(rebuild, where)}({self.value(build, f'the build() of {where}')}, {seed!r}, DEVICE, "
                f"{self.value(dtype, where)})")
        name = f"_model_{sum(1 for n in self.named.values() if n.startswith('_model_') and '.' not in n)}"
        self.lines.append(f"{name} = {call}")
        self.keep.append(v)
        self.named[id(v)] = name
        for kind, items in (("parameter", v.named_parameters()), ("buffer", v.named_buffers())):
            for key, t in items:
                self.keep.append(t)
                self.named[id(t)] = f"{name}.get_{kind}({key!r})"
        return name

    def _context(self, ctx: Ctx, where: str) -> str:
        """The case context as the data a check reads from it; a call that
        closes over it (to draw inputs as it runs) cannot be written."""
        if not self.context:
            raise CannotWrite(f"{where} is the case context, which cannot be written as source")
        case = ctx.case
        fields = {"id": case.id, "framework": case.framework, "function": case.function, "variant": case.variant,
                  "dtype": case.dtype, "shape_name": case.shape_name, "shape": case.shape, "mode": case.mode,
                  "params": case.params, "rtol": case.rtol, "atol": case.atol}
        parts = [f"case=_ns(**{self.value(fields, where)})", f"p=_ns(**{self.value(dict(case.params), where)})",
                 f"dtype_name={ctx.dtype_name!r}", f"shape={self.value(ctx.shape, where)}", f"mode={ctx.mode!r}",
                 f"seed={ctx.seed!r}", f"widen={ctx.widen!r}", f"fw={self.module(ctx.fw)}", "device=DEVICE"]
        with contextlib.suppress(CannotWrite):  # without it, a check that reads it fails with AttributeError
            parts.append(f"dtype={self.value(ctx.dtype, where)}")
        return f"_ns({', '.join(parts)})"

    def _class(self, cls: type, where: str) -> str:
        """A class of a suite file (a reference's helper), as its source."""
        name = cls.__name__
        if id(cls) in self.named:
            return name
        if cls.__qualname__ != name:
            raise CannotWrite(f"{where} is an instance of {cls.__qualname__}, a class defined inside a function")
        self.keep.append(cls)
        self.named[id(cls)] = name
        try:
            source = textwrap.dedent(inspect.getsource(cls))
        except (OSError, TypeError) as exc:
            raise CannotWrite(f"the source of class {name}, used by {where}, is not available: {exc}") from None
        module = sys.modules.get(cls.__module__)
        scope = vars(module) if module is not None else {}
        for g in sorted(_class_globals(source)):
            if g != name and g in scope:
                self._global(g, scope[g], source, where)
        self.lines.append(source)
        return name

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
        source = _source_of(fn)
        if fn.__name__ != "<lambda>":  # named before its globals: a recursive function is written once
            self.keep.append(fn)
            self.named[id(fn)] = fn.__name__
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
            if name in fn.__globals__:
                self._global(name, fn.__globals__[name], source, where)
        if fn.__name__ == "<lambda>":
            return source
        self.lines.append(source)
        return fn.__name__

    def _global(self, name: str, value: Any, source: str, where: str) -> None:
        """Defines a global the source names. A suite helper module (`ref`,
        which no script can import) becomes a namespace holding the attributes
        the source reads from it, each written as source."""
        if isinstance(value, types.ModuleType) and not _installed(value.__name__):
            have = self.attributes.setdefault(name, set())
            if name not in self.defined:
                self.defined.add(name)
                self.lines.append(f"{name} = _ns()")
            for attr in sorted(_attributes_of(source, name) - have):
                if hasattr(value, attr):
                    have.add(attr)
                    self.lines.append(f"{name}.{attr} = {self.value(getattr(value, attr), f'{name}.{attr}')}")
            return
        if name not in self.defined:
            self.defined.add(name)
            text = self.value(value, name)
            if text != name:  # a function or class is defined under its own name
                self.lines.append(f"{name} = {text}")

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


def _attributes_of(source: str, name: str) -> set[str]:
    """The attributes the source reads from `name` (`ref.close` -> close)."""
    tree = ast.parse(source)
    return {n.attr for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name}


def _class_globals(source: str) -> set[str]:
    """Names a class's source loads, annotations aside (the script does not
    evaluate them: `from __future__ import annotations`)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]:
                if arg is not None:
                    arg.annotation = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _memory_format(torch: Any, module: Any) -> str:
    """The memory format a module was moved to ("" for the default)."""
    for p in module.parameters():
        if p.dim() in (4, 5) and not p.is_contiguous():
            layout = "channels_last" if p.dim() == 4 else "channels_last_3d"
            if p.is_contiguous(memory_format=getattr(torch, layout)):
                return layout
    return ""


def torch_owners(roots: list[Any]) -> dict[int, tuple[Any, str]]:
    """Every torch module the roots reach (through closures, the globals a
    function names, defaults and containers), by the id of each of its
    parameters and buffers: a parameter list written on its own would be new
    leaves no module uses, whose gradients are None."""
    torch = sys.modules.get("torch")
    owners: dict[int, tuple[Any, str]] = {}
    if torch is None:
        return owners
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, torch.nn.Module):
            for key, t in [*v.named_parameters(), *v.named_buffers()]:
                owners.setdefault(id(t), (v, key))
        elif isinstance(v, (list, tuple, set, frozenset)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, types.FunctionType) and not _installed(getattr(v, "__module__", "") or ""):
            stack.extend(_cell_values(v))
            stack.extend(v.__globals__[n] for n in _global_names(v.__code__) if n in v.__globals__)
            stack.extend(v.__defaults__ or ())
    return owners


def _cell_values(fn: types.FunctionType) -> list[Any]:
    out = []
    for cell in fn.__closure__ or ():
        with contextlib.suppress(ValueError):  # not bound yet
            out.append(cell.cell_contents)
    return out


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
        # A line of a chained call (`.check("name", lambda ...)`) parses after a name.
        head = "_" + chunk if chunk.lstrip().startswith(".") else chunk
        for attempt in (head, "(" + head + ")", head + ")", head + "))"):
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


# --- the float64 accuracy check ---------------------------------------------
#
# After the oracle's mismatch (the engine passes `bound_eps`), a script runs
# the same function on the inputs widened to float64, eagerly, and measures
# each floating output's error in eps against it with the oracle's own
# error_parts (mudjack_probe/eps.py, embedded by source).

# Per framework: an argument widened to float64 for the reference (floating
# arrays only), written with the script's own imports.
WIDE = {
    "numpy": 'def wide(a): return a.astype(np.float64) if getattr(getattr(a, "dtype", None), "kind", "") == "f" else a',
    "torch": "def wide(a): return a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a",
    "jax": 'def wide(a): return a.astype(jnp.float64) if jnp.issubdtype(getattr(a, "dtype", object), jnp.floating) else a',
    "tensorflow": 'def wide(a): return tf.cast(a, tf.float64) if getattr(getattr(a, "dtype", None), "is_floating", False) else a',
}

OUTS = "def outs(o): return list(o) if isinstance(o, (tuple, list)) else [o]"

# The dtypes a script judges: the real floating ones (a script's `host` is
# real; a complex output is judged by the engine alone).
_JUDGED = tuple(VOCABULARY["accuracy"]["dtype_eps"])


def judged_outputs(adapter: Any, call: Call) -> list[tuple[float, float] | None]:
    """Each output's (eps, largest finite value), error_parts' arguments;
    None for an output the script does not judge. From one call on the
    case's own arguments."""
    with adapter.scope():
        out = call.fn(*call.args)
    return [eps.oracle_dtype(dtype) if dtype in _JUDGED else None for _, dtype in adapter.to_numpy(out)]


def reference_text(adapter: Any, case: CaseDef, seed: int, call: Call, w: Writer, fn_name: str) -> str:
    """The function the float64 reference calls: the case's body built
    widened (a module's weights in float64), as source; the call's own
    function (`fn_name`) when the body gives the same one."""
    with adapter.scope():
        wide: Call = case.body(Ctx(adapter, case, seed, widen=True))
    return fn_name if wide.fn is call.fn else w.value(wide.fn, "the float64 reference's function")


def accuracy_check(fail: str) -> list[str]:
    """The check, once `error_parts`, `wide`, `host` (to float64 on the
    host), `outs`, `ref_fn`, `args`, `out` and `_EPS, _BOUND` (each output's
    judged_outputs entry, the engine's bound) are defined; `fail` is the
    statement run when the worst error is beyond the bound. Errors print to 6
    significant digits: one just beyond its bound (6.0004 against 6) must
    not print as the bound itself."""
    return [
        "ref = ref_fn(*[wide(a) for a in args])",
        ("errors = [float(np.max(error_parts(host(x), host(r), *j), initial=0.0)) if j else 0.0"
         " for x, r, j in zip(outs(out), outs(ref), _EPS)]"),
        "for i, e in enumerate(errors):",
        '    print(f"output {i}: " + (f"error {e:.6g} eps against float64" if _EPS[i] else "not judged"))',
        "worst = max(errors, default=0.0)",
        """print(f"worst error {worst:.6g} eps; MudJack's bound {_BOUND:g} eps")""",
        "if not worst <= _BOUND:",
        f"    {fail}",
    ]
