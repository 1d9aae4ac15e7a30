"""`mudjack check FILE.py:NAME`: a person's own function or torch module as
cases, without writing a suite.

The convention (docs/suite-format.md, "Checking your own code"): FILE
defines NAME, a function (any framework), a `torch.nn.Module`, a Flax linen
module (initialised from a fixed key) or a Keras model (its given dtype
only), and beside
it `NAME_inputs()`, which returns its example inputs (a tuple of tensors or
arrays; one value is taken as a one-tuple). Floating inputs are cast to each
dtype of the grid (float32, float16, bfloat16, float64; `--quick`: only the
dtype they were given in), a module's parameters with them; everything else
passes as given. Each case is judged like any other: against its float64
reference by the accuracy oracle, and timed.

Raised here, at listing, for bad input (the engine prints it on one line and
exits 2): a file that does not import, a NAME that is not there, a model's
class in place of a model, a missing or failing NAME_inputs().
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import os
import site
import sys
import sysconfig
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .api import FLOATS, KNOWN_DTYPES, TRUSTED_REFERENCE_TAG, Call, Cases, Ctx, Metric
from .errors import one_line
from .models import eager_facts

_MODULES: dict[str, Any] = {}
# A model's cases carry this tag: the engine judges a model's outputs as a
# composition (stats::composition), with the reduction depth its operator
# histogram shows; a function keeps its op's bound.
MODEL_TAG = "check.target::model"
# The float64 row of a check whose grid has narrower dtypes: the reference.
REFERENCE_TAG = "check.role::reference"


class CheckTargetError(ValueError):
    """The target cannot be checked; the message is the one line a person sees."""


def _seed(path: Path) -> None:
    """The same weights and inputs in every probe of the run (each imports the
    file anew): seeded before the file runs."""
    import random

    import numpy as np

    random.seed(0)
    np.random.seed(0)
    if "torch" in path.read_text(errors="replace") and importlib.util.find_spec("torch") is not None:
        import torch

        torch.manual_seed(0)


def _site_dirs() -> set[str]:
    """The folders third-party packages are installed in (a venv's too)."""
    paths = sysconfig.get_paths()
    dirs = [paths["purelib"], paths["platlib"], *getattr(site, "getsitepackages", list)()]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return {os.path.realpath(d) for d in dirs}


def _put_on_path(folder: Path) -> None:
    """The target's folder on sys.path, so that the modules beside it import
    (`from helpers import scale`), as they do under `python FILE.py`; but
    after the standard library, not first: a secrets.py or json.py beside
    FILE must not shadow the modules the probe and the frameworks import
    later. Before the site-packages, so that the target's own modules still
    come before installed ones, as under `python FILE.py`."""
    entry = str(folder.resolve())
    if entry in sys.path:
        return
    sites = _site_dirs()
    at = next((i for i, p in enumerate(sys.path) if os.path.realpath(p or ".") in sites), len(sys.path))
    sys.path.insert(at, entry)


def _load(path: Path) -> Any:
    """The file run as a module (once per process), seeded."""
    module = _MODULES.get(str(path.resolve()))
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(f"mudjack_check_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise CheckTargetError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    _put_on_path(path.parent)
    _seed(path)
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:  # sys.exit() at module level; os._exit() ends the probe, uncatchable
        raise CheckTargetError(f"{path}: the script exited at import ({one_line(exc)})") from None
    except Exception as exc:
        raise CheckTargetError(f"{path} does not import: {type(exc).__name__}: {exc}") from exc
    _MODULES[str(path.resolve())] = module
    return module


def load_target(target: str) -> tuple[Any, Callable[[], Any], str]:
    """(NAME's object, NAME_inputs, NAME) from "FILE.py:NAME"."""
    path_text, _, name = target.rpartition(":")
    if not path_text or not name.isidentifier():
        raise CheckTargetError(f"check target {target!r}: expected FILE.py:NAME")
    path = Path(path_text)
    if not path.is_file():
        raise CheckTargetError(f"{path}: no such file")
    module = _load(path)
    if not hasattr(module, name):
        defined = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_"))
        raise CheckTargetError(f"{path} has no {name} (it defines: {', '.join(defined) or 'nothing callable'})")
    refuse_class(getattr(module, name), name, path)
    inputs = getattr(module, f"{name}_inputs", None)
    if not callable(inputs):
        raise CheckTargetError(f"{path} defines {name} but no {name}_inputs() returning its example inputs")
    return getattr(module, name), inputs, name


def model_base(cls: type) -> str | None:
    """The framework model class `cls` derives from (torch.nn.Module, a Flax
    linen or nnx Module, a Keras Model or Layer), found by where its bases
    are defined, with no framework imported; else None. The Python API's
    mudjack._model_base is the same rule."""
    for base in cls.__mro__:
        where = base.__module__ or ""
        if base.__name__ == "Module" and where.startswith(("torch.nn.", "flax.linen.", "flax.nnx.")):
            return ".".join(where.split(".")[:2]) + ".Module"
        if base.__name__ in ("Model", "Layer") and (where.split(".")[0] in ("keras", "tf_keras")
                                                   or where.startswith("tensorflow.python.keras.")):
            return "keras.Model" if base.__name__ == "Model" else "keras.layers.Layer"
    return None


def refuse_class(obj: Any, name: str, path: Path) -> None:
    """CheckTargetError where NAME is a model's class, not a model: called on
    its inputs it would build a model (or fail to: `missing a required
    argument`), not run one."""
    base = model_base(obj) if isinstance(obj, type) else None
    if base is None:
        return
    cls = obj.__name__
    if cls != name:
        raise CheckTargetError(f"{name} is the class {cls} (a {base} subclass), not a model: "
                               f"pass an instance ({name} = {cls}(...))")
    raise CheckTargetError(f"{name} is a class (a {base} subclass), not a model: check an instance "
                           f"(model = {cls}(...) with model_inputs(), then {path.name}:model)")


def load_reference(target: str) -> Callable[..., Any] | None:
    """NAME_reference from "FILE.py:NAME", when FILE defines it: a trusted
    host computation of NAME's outputs (NumPy arrays in, arrays out)."""
    path_text, _, name = target.rpartition(":")
    reference = getattr(_load(Path(path_text)), f"{name}_reference", None)
    if reference is not None and not callable(reference):
        raise CheckTargetError(f"{path_text}: {name}_reference is not callable")
    return reference


def _trusted(t: Ctx, reference: Callable[..., Any]) -> Callable[..., Any]:
    """NAME_reference as the case's float64 reference: called on the widened
    inputs as NumPy arrays on the host, independent of the framework under
    test; its outputs placed back as the framework's arrays (floating ones
    in float64) for the oracle to judge the case against."""
    import numpy as np

    def run(*args: Any) -> Any:
        host = [t.adapter.to_numpy(a)[0][0] if hasattr(a, "shape") else a for a in args]
        out = reference(*host)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        placed = []
        for o in outs:
            a = np.asarray(o)
            wide = np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.complexfloating)
            placed.append(t.adapter.from_numpy(a, ("complex128" if a.dtype.kind == "c" else "float64")
                                               if wide else a.dtype.name))
        return tuple(placed)

    return run


def _example(inputs: Callable[[], Any], name: str) -> tuple[Any, ...]:
    try:
        value = inputs()
    except Exception as exc:
        raise CheckTargetError(f"{name}_inputs() raised {type(exc).__name__}: {exc}") from exc
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _check_signature(obj: Any, example: tuple[Any, ...], name: str) -> None:
    """The inputs must fit NAME's parameters (a module's forward's)."""
    fn = getattr(obj, "forward", obj)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or extension: the call itself will say
        return
    try:
        signature.bind(*example)
    except TypeError as exc:
        raise CheckTargetError(f"{name}{signature} does not take the {len(example)} inputs "
                               f"{name}_inputs() returns: {exc}") from exc


def _floating(x: Any) -> str | None:
    """The dtype name of a floating tensor or array, else None."""
    dtype = getattr(x, "dtype", None)
    if dtype is None or not hasattr(x, "shape"):
        return None
    # numpy, jax and TensorFlow dtypes have a name; torch's print as "torch.float32".
    text = getattr(dtype, "name", None) or str(dtype).replace("torch.", "")
    return text if text in FLOATS else None


# A module's top-level name -> the framework it belongs to.
_ROOTS = {"numpy": "numpy", "torch": "torch", "jax": "jax", "jaxlib": "jax", "flax": "jax",
          "tensorflow": "tensorflow", "keras": "tensorflow"}


def _root(module: Any) -> str | None:
    """The framework of a module name ("jax.numpy" -> "jax"), else None."""
    return _ROOTS.get(str(module or "").split(".")[0])


def _own_module(obj: Any) -> str | None:
    """The framework of the callable's own module: a framework function
    (`torch.nn.functional.gelu`), or an object whose class is built on one
    (an `nn.Module` subclass, a `jax.jit` of a function, a Flax or Keras
    model) anywhere in its MRO."""
    for module in [getattr(obj, "__module__", None), *(cls.__module__ for cls in type(obj).__mro__)]:
        if _root(module) is not None:
            return _root(module)
    return None


def _names(code: Any) -> set[str]:
    """The global names a code object and the functions nested in it use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _imported(obj: Any) -> set[str]:
    """The frameworks the callable (a module's forward) names from its
    globals: modules (`np`, `jnp`) and the objects imported from them."""
    fn = getattr(obj, "forward", obj)
    fn = getattr(fn, "__func__", fn)
    code, space = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or not isinstance(space, dict):
        return set()
    found = set()
    for name in _names(code):
        value = space.get(name)
        if value is None:
            continue
        module = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
        fw = _root(module)
        if fw is not None:
            found.add(fw)
    return found


def _input_frameworks(example: tuple[Any, ...]) -> set[str]:
    """The frameworks of the inputs that are tensors or arrays."""
    return {fw for x in example if hasattr(x, "shape") and (fw := _root(type(x).__module__))}


def _returned(obj: Any, example: tuple[Any, ...]) -> list[str]:
    """The type of each part of NAME's return value that is no tensor or
    array (`float` from `.item()`), from one call on the example inputs;
    nothing when the call raises (the cases will show that) or for a Flax
    module (it needs its parameters first)."""
    if _is_flax(obj):
        return []
    try:
        out = obj(*example)
    except Exception:  # the cases report the failure with its device and dtype
        return []
    parts = list(out.values()) if isinstance(out, dict) else list(out) if isinstance(out, (tuple, list)) else [out]
    return [type(p).__name__ for p in parts if not (hasattr(p, "shape") and hasattr(p, "dtype"))]


def facts(obj: Any, example: tuple[Any, ...], call_once: bool) -> list[str]:
    """What the engine decides NAME's framework from (and refuses a non-tensor
    return by), as case tags: `check.module::F` (the callable's own module),
    `check.imports::F` (each framework its globals name), `check.inputs::F`
    (each framework of its inputs), and with `call_once`, `check.returns::T`
    (each part of its return value that is no tensor). The precedence lives
    in the engine (src/cli/check_framework.cpp)."""
    tags = [f"check.module::{fw}" for fw in [_own_module(obj)] if fw]
    tags += [f"check.imports::{fw}" for fw in sorted(_imported(obj))]
    tags += [f"check.inputs::{fw}" for fw in sorted(_input_frameworks(example))]
    tags += [f"check.returns::{t}" for t in (_returned(obj, example) if call_once else [])]
    return tags


def _flax_apply(module: Any, args: list[Any], dtype: Any) -> Callable[..., Any]:
    """A Flax linen module as a function: its parameters initialised from a
    fixed key (the same in every probe), cast with the case's floating dtype."""
    import jax
    import jax.numpy as jnp

    params = module.init(jax.random.PRNGKey(0), *args)
    params = jax.tree_util.tree_map(
        lambda p: p.astype(dtype) if jnp.issubdtype(p.dtype, jnp.floating) else p, params)
    return lambda *a: module.apply(params, *a)


def _is_flax(obj: Any) -> bool:
    """A Flax linen module (flax already imported by the file that made it)."""
    return "flax.linen" in sys.modules and isinstance(obj, sys.modules["flax.linen"].Module)


def _is_torch_module(obj: Any) -> bool:
    """A torch.nn.Module (torch already imported by the file that made it)."""
    return "torch" in sys.modules and isinstance(obj, sys.modules["torch"].nn.Module)


def _is_model(obj: Any) -> bool:
    """A model rather than a function: the engine judges its outputs as a
    composition of many ops (the tag `check.target::model`)."""
    return _is_torch_module(obj) or _is_flax(obj) or _is_keras(obj)


def _jaxpr_histogram(fn: Callable[..., Any], args: list[Any]) -> list[Metric]:
    """The primitives one traced call of `fn` binds, sub-jaxprs included, as
    `op:<primitive>` metrics (the reduction depth the engine reads); none
    when it does not trace."""
    import jax

    ops: dict[str, int] = {}

    def walk(jaxpr: Any) -> None:
        for eqn in jaxpr.eqns:
            ops[eqn.primitive.name] = ops.get(eqn.primitive.name, 0) + 1
            for value in eqn.params.values():
                inner = getattr(value, "jaxpr", value)
                if hasattr(inner, "eqns"):
                    walk(inner)

    try:
        walk(jax.make_jaxpr(fn)(*args).jaxpr)
    except Exception:  # a function jax cannot trace still runs: no histogram
        return []
    return [Metric(f"op:{k}", v, "op") for k, v in sorted(ops.items())]


def _histogram(fn: Any, args: list[Any]) -> list[Metric]:
    """A model's operator histogram (and its params and FLOPs for torch), from
    one extra forward pass on the case's device."""
    if _is_torch_module(fn):
        return eager_facts(fn, lambda m, *a: m(*a), tuple(args))
    if callable(fn) and "jax" in sys.modules:
        return _jaxpr_histogram(fn, args)
    return []


def _is_keras(obj: Any) -> bool:
    """A Keras layer or model (keras already imported by the file that made it)."""
    return "keras" in sys.modules and isinstance(obj, sys.modules["keras"].layers.Layer)


_FOUND: dict[str, list[tuple[str, Any, tuple[Any, ...]]]] = {}


def holder_name(obj: Any, spaces: list[dict[str, Any]], children: Callable[[Any], Any]) -> str | None:
    """The name a script holds `obj` by, looked up in `spaces` (the script's
    frames' variables, innermost first, its globals last): a variable that
    holds it (`mlp`), else an attribute path below one, through `children`
    (`nn.Module.named_modules`: `model.encoder`); None where none does.
    `_` and dunder names are no names."""
    def named(space: dict[str, Any]) -> list[tuple[str, Any]]:
        return [(k, v) for k, v in list(space.items()) if k != "_" and not k.startswith("__")]

    for space in spaces:
        for key, value in named(space):
            if value is obj:
                return key
    for space in spaces:
        for key, value in named(space):
            for path, sub in children(value):
                if sub is obj and path:
                    return f"{key}.{path}"
    return None


def _script_spaces(script: Path) -> list[dict[str, Any]]:
    """The variables of each frame now running the script's own code,
    innermost first (its module level, the globals, is the outermost)."""
    wanted = os.path.realpath(script)
    spaces = []
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if os.path.realpath(frame.f_code.co_filename) == wanted:
            spaces.append(frame.f_locals)
        frame = frame.f_back
    return spaces


def _unique(name: str, taken: list[str]) -> str:
    """`name`, or `name_2`, `name_3`... where a model found before has it."""
    n = 2
    unique = name
    while unique in taken:
        unique, n = f"{name}_{n}", n + 1
    return unique


def find_models(script: Path) -> list[tuple[str, Any, tuple[Any, ...]]]:
    """Runs `script` (seeded) and returns the torch modules it calls at the
    top level (not a module called inside another), each with the inputs of
    its first call, as benchit finds them by hooking forward; each named by
    the variable of the script that holds it (`mlp`, `model.encoder`:
    holder_name), else by its class (`Block`, `Block_2`)."""
    key = str(script.resolve())
    if key in _FOUND:
        return _FOUND[key]
    try:
        import torch
    except ImportError as exc:
        raise CheckTargetError(f"{script}: finding the models a script calls needs torch here") from exc
    found: list[tuple[str, Any, tuple[Any, ...]]] = []
    seen: set[int] = set()
    depth = [0]
    original = torch.nn.Module.__call__

    def children(value: Any) -> Any:
        return value.named_modules() if isinstance(value, torch.nn.Module) else ()

    def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
        if depth[0] == 0 and id(self) not in seen and not kwargs:
            seen.add(id(self))
            name = holder_name(self, _script_spaces(script), children) or type(self).__name__
            found.append((_unique(name, [n for n, _, _ in found]), self,
                          tuple(a.detach().clone() if isinstance(a, torch.Tensor) else a for a in args)))
        depth[0] += 1
        try:
            return original(self, *args, **kwargs)
        finally:
            depth[0] -= 1

    torch.nn.Module.__call__ = recording
    try:
        _load(script)
    finally:
        torch.nn.Module.__call__ = original
    if not found:
        raise CheckTargetError(f"{script} calls no torch module: name one, FILE.py:NAME")
    _FOUND[key] = found
    return found


def declare(target: str, quick: bool, framework: str = "numpy", call_once: bool = False) -> list[Cases]:
    """The target's cases for `framework` (the engine's decision; the
    parameter `framework`): NAME by dtypes by modes on one shape, "given";
    for a script without NAME, each model it calls. Each case carries the
    facts the engine decides with (`facts`)."""
    if ":" not in target:
        path = Path(target)
        if not path.is_file():
            raise CheckTargetError(f"{path}: no such file")
        return [_declare_one(obj, example, name, target, quick, "torch", [MODEL_TAG])
                for name, obj, example in find_models(path)]
    obj, inputs, name = load_target(target)
    example = _example(inputs, name)
    _check_signature(obj, example, name)
    tags = facts(obj, example, call_once) + ([MODEL_TAG] if _is_model(obj) else [])
    return [_declare_one(obj, example, name, target, quick, framework or "numpy", tags, load_reference(target))]


def _dtype_name(x: Any) -> str | None:
    """The dtype name of a tensor, array or Python number, if the grid knows it."""
    if isinstance(x, (bool, int, float, complex)):
        text = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}[type(x)]
    elif hasattr(x, "shape") and getattr(x, "dtype", None) is not None:
        # numpy, jax and TensorFlow dtypes have a name; torch's print as "torch.float32".
        text = getattr(x.dtype, "name", None) or str(x.dtype).replace("torch.", "")
    else:
        return None
    return text if text in KNOWN_DTYPES else None


def _declare_one(obj: Any, example: tuple[Any, ...], name: str, target: str, quick: bool, framework: str,
                 tags: list[str], reference: Callable[..., Any] | None = None) -> Cases:
    given = [d for d in (_floating(x) for x in example) if d is not None]
    cases = Cases(framework)
    # A Keras model computes in its layers' own dtype policy whatever its
    # inputs are: only the dtype it was given is a real case. Without a
    # floating input, the row is labelled with the inputs' own dtype (int32,
    # bool), which nothing is cast to.
    dtypes = given[:1] if quick or not given or _is_keras(obj) else FLOATS
    if not dtypes:
        dtypes = [d for d in (_dtype_name(x) for x in example) if d is not None][:1] or ["float32"]
    modes = ["eager"] if quick or framework == "numpy" else ["eager", "compiled"]

    @cases.case(name, dtype=dtypes, mode=modes, shape={"given": ()}, tags=tags,
                note=f"mudjack check {target}")
    def body(t: Ctx) -> Call:
        args = []
        for x in example:
            if _floating(x) is None:
                args.append(x)
                continue
            host, _ = t.adapter.to_numpy(x)[0]
            args.append(t.adapter.from_numpy(host, t.dtype_name if not t.widen else "float64"))
        fn = obj
        if framework == "torch" and hasattr(obj, "parameters"):  # an nn.Module: its own copy, cast
            fn = copy.deepcopy(obj).to(device=t.adapter.native_device, dtype=t.dtype)
        elif _is_flax(obj):  # a linen module: init, cast, apply
            fn = _flax_apply(obj, args, t.dtype)
        if t.widen and reference is not None:  # the trusted reference, not NAME widened
            call = t.call(_trusted(t, reference), *args)
            call.trusted_reference = f"{name}_reference"
            return call
        call = t.call(fn, *args)
        if MODEL_TAG in tags and not t.widen and not _is_keras(obj):
            call.metrics.extend(_histogram(fn, args))
        if _is_keras(obj):  # its float64 run would still compute in the layers' float32
            call.no_reference("a Keras model computes in its layers' dtype policy, not float64")
        return call

    # The dtypes check casts to, beyond those NAME was given, are the grid's:
    # one the framework lacks (numpy's bfloat16) is `unsupported`, never a
    # failure (the engine's verdict::unsupported_reason).
    #
    # The float64 row computes what each narrower row's float64 reference
    # computes: it is the reference, judged by their agreement with it
    # (verdict::checks_of), not a case nothing checked.
    # With NAME_reference every row, float64 too, is judged against it.
    for c in cases.defs:
        c.grid = c.dtype not in (given or dtypes)
        if reference is not None:
            c.tags = [*c.tags, TRUSTED_REFERENCE_TAG]
        elif c.dtype == "float64" and any(d != "float64" for d in dtypes):
            c.tags = [*c.tags, REFERENCE_TAG]
    return cases
