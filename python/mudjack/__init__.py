"""`import mudjack`: check your own code from Python or a notebook.

    import mudjack
    result = mudjack.check(my_layer_norm, torch.randn(64, 256), quick=True)
    result            # a table in a notebook; print(result) in a terminal
    result.rows[0].error_eps

It drives the engine binary (`mudjack check`) with this interpreter as the
framework's Python, so nothing is implemented twice: the function (or torch
module) and its inputs are written to a temporary folder as `FILE.py:NAME`
with `NAME_inputs()` (docs/suite-format.md, "Checking your own code without a
suite"), and the engine's results.json comes back as objects.

The engine: $MUDJACK_BINARY, else `mudjack` on PATH, else build/mudjack of
the repository this package was installed from (`pip install -e python/`).
"""

from __future__ import annotations

import inspect
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import textwrap
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CheckError", "CheckResult", "Row", "check"]

_FRAMEWORKS = ("numpy", "torch", "jax", "tensorflow")


class CheckError(RuntimeError):
    """The engine refused the check (bad input, exit 2) or could not run it."""


@dataclass
class Row:
    """One case: NAME on one device, in one mode and dtype."""

    device: str
    mode: str
    dtype: str
    outcome: str
    error_eps: float | None  # error against the float64 reference, in the dtype's eps
    bound_eps: float | None  # the bound it was held to
    median_ns: float | None
    timing_class: str  # device_bound | host_bound
    spread: float | None  # the spread of its timing rounds (noise), None with one round
    message: str
    # How a pass was checked, in the words of every view: reference, property,
    # baseline, float64 (the oracle against its own widened run), none.
    checked: str = ""


_HEAD = ("device", "mode", "dtype", "outcome", "checked", "error (eps)", "bound (eps)", "median", "class",
         "noise")


@dataclass
class CheckResult:
    rows: list[Row]
    verdicts: list[dict[str, Any]]
    run_id: str
    raw: dict[str, Any] = field(repr=False)
    folder: str | None = None  # the kept temporary folder (check(keep=True)), else None

    @property
    def ok(self) -> bool:
        return all(r.outcome in ("pass", "skip") for r in self.rows)

    def _cells(self) -> list[list[str]]:
        def num(v: float | None, fmt: str) -> str:
            return "-" if v is None else format(v, fmt)
        return [[r.device, r.mode, r.dtype, r.outcome, r.checked or "-", num(r.error_eps, ".3g"),
                 num(r.bound_eps, ".3g"),
                 "-" if r.median_ns is None else f"{r.median_ns / 1e3:.1f} us", r.timing_class or "-",
                 "-" if r.spread is None else f"{100 * r.spread:.1f}%"] for r in self.rows]

    def __str__(self) -> str:
        rows = [list(_HEAD), *self._cells()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows)

    def _repr_html_(self) -> str:
        from html import escape
        head = "".join(f"<th>{escape(h)}</th>" for h in _HEAD)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in self._cells())
        return f"<table><tr>{head}</tr>{body}</table>"


def _binary() -> str:
    for candidate in (os.environ.get("MUDJACK_BINARY"), shutil.which("mudjack"),
                      str(Path(__file__).resolve().parents[2] / "build" / "mudjack")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise CheckError("no mudjack binary: set MUDJACK_BINARY, put mudjack on PATH, or build the repository")


def _source(obj: Any, name: str) -> str:
    """A module file defining `name` as `obj`: the function's source with the
    modules and picklable values it names, or a module instance unpickled."""
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        raise CheckError("a lambda has no source the engine can load: define it with def")
    if not isinstance(obj, types.FunctionType):
        try:
            data = pickle.dumps(obj)
        except Exception as exc:
            raise CheckError(f"cannot hand {type(obj).__name__} to the engine: {exc}") from exc
        # Its class is found where the caller found it: the folder of its module's file.
        home = getattr(sys.modules.get(type(obj).__module__), "__file__", None)
        path = f"import sys\nsys.path.insert(0, {str(Path(home).parent)!r})\n" if home else ""
        return f"{path}import pickle\n{name} = pickle.loads({data!r})\n"
    if obj.__code__.co_freevars:
        raise CheckError(f"{obj.__name__} closes over {', '.join(obj.__code__.co_freevars)}: "
                         "define it at module level, passing those as inputs")
    return _imports(obj, set()) + "\n\n" + textwrap.dedent(inspect.getsource(obj)) + (
        f"\n{name} = {obj.__name__}\n" if obj.__name__ != name else "")


def _imports(fn: types.FunctionType, done: set[str]) -> str:
    """What `fn` names from its globals: modules imported, values unpickled,
    functions of its own module written out (theirs too)."""
    lines = []
    for ref in fn.__code__.co_names:
        if ref in done or ref not in fn.__globals__:
            continue
        done.add(ref)
        value = fn.__globals__[ref]
        if isinstance(value, types.ModuleType):
            lines.append(f"import {value.__name__} as {ref}")
        elif isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            lines.append(_imports(value, done) + "\n" + textwrap.dedent(inspect.getsource(value)))
        elif callable(value) and getattr(value, "__module__", None) not in (None, fn.__module__):
            lines.append(f"from {value.__module__} import {value.__name__} as {ref}")
        else:
            lines.append(f"{ref} = __import__('pickle').loads({pickle.dumps(value)!r})")
    return "\n".join(lines)


def check(fn: Any, *inputs: Any, devices: list[str] | None = None, dtypes: list[str] | None = None,
          modes: list[str] | None = None, quick: bool = False, budget_ms: float | None = None,
          out: str | None = None, keep: bool = False) -> CheckResult:
    """Checks `fn(*inputs)` on every local device (or `devices`), in the
    floating dtypes of the grid (or `dtypes`) and eager and compiled (or
    `modes`); `quick`: eager, the inputs' dtype, one timing round. Returns
    one Row per case. CheckError for bad input, with the engine's one line.

    The target, its pickled inputs and (without `out`) the results go to a
    temporary `mudjack-check-*` folder that is removed when the check ends,
    also when it fails; `keep=True` keeps it (its path: CheckResult.folder)."""
    own = getattr(fn, "__name__", "")
    name = own if isinstance(fn, types.FunctionType) and own.isidentifier() else "target"
    folder = Path(tempfile.mkdtemp(prefix="mudjack-check-"))
    try:
        result = _check_in(folder, fn, name, inputs, devices=devices, dtypes=dtypes, modes=modes,
                           quick=quick, budget_ms=budget_ms, out=out)
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    result.folder = str(folder) if keep else None
    return result


def _check_in(folder: Path, fn: Any, name: str, inputs: tuple[Any, ...], *,
              devices: list[str] | None, dtypes: list[str] | None, modes: list[str] | None,
              quick: bool, budget_ms: float | None, out: str | None) -> CheckResult:
    """check()'s work in `folder`, which the caller removes."""
    try:
        data = pickle.dumps(inputs)
    except Exception as exc:
        raise CheckError(f"cannot hand the inputs to the engine: {exc}") from exc
    (folder / "inputs.pkl").write_bytes(data)
    (folder / "target.py").write_text(
        _source(fn, name) + f"\n\ndef {name}_inputs():\n    import pickle\n"
        f"    with open({str(folder / 'inputs.pkl')!r}, 'rb') as f:\n        return pickle.load(f)\n")
    # This interpreter, which made fn and its inputs, runs them whatever their framework.
    args = [_binary(), "check", f"{folder / 'target.py'}:{name}", "--json",
            "--out", out or str(folder / "results")]
    args += [x for fw in _FRAMEWORKS for x in ("--python", f"{fw}={sys.executable}")]
    args += ["--quick"] if quick else []
    args += [x for d in devices or [] for x in ("--device", d)]
    args += ["--dtype", ",".join(dtypes)] if dtypes else []
    args += ["--mode", ",".join(modes)] if modes else []
    args += ["--budget-ms", str(budget_ms)] if budget_ms else []
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        why = lines[-1] if lines else f"mudjack check exited {done.returncode}"
        raise CheckError(why.removeprefix("mudjack: error: "))
    doc = json.loads(done.stdout)
    rows = []
    for c in doc["cases"]:
        numeric = c.get("numeric") or {}
        latency = c.get("latency") or {}
        timing = latency.get("timing") or {}
        rounds = timing.get("rounds") or []
        rows.append(Row(c["device"], c["mode"], c["dtype"], c["outcome"], numeric.get("error_eps"),
                        numeric.get("bound_eps"), latency.get("median_ns"), timing.get("bound", ""),
                        timing.get("spread") if len(rounds) > 1 else None,
                        (c.get("error") or {}).get("message", ""),
                        c.get("checked", "") if c["outcome"] == "pass" else ""))
    return CheckResult(rows, doc.get("verdicts", []), doc["run"]["id"], doc)
