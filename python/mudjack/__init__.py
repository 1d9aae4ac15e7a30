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

A function typed at a prompt or in a notebook cell (no source file), a
lambda, a closure, or a module whose class was defined there is pickled by
value with cloudpickle (a dependency of this package, pinned in
pyproject.toml).

    result.ok                   # every case passed (or its dtype is unsupported)
    result.raise_for_failure()  # CheckFailed (an AssertionError) with the table
    result.to_pandas()          # one row per case (pandas, if installed)

In a pytest suite: `mudjack.testing.assert_portable(fn, *inputs)` or the
`mudjack_check` fixture (mudjack/pytest_plugin.py, registered as a pytest11
entry point).

The engine: $MUDJACK_BINARY (an executable file, or CheckError), else
`mudjack` on PATH, else build/mudjack of the repository this package was
installed from (`pip install -e python/`). An engine that cannot start, dies
of a signal or answers with something other than results.json is a
one-line CheckError; an interrupted check (KeyboardInterrupt) stops the
engine with SIGTERM, gives it `_STOP_GRACE_S` to stop its probes, then
kills it, and re-raises.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import pickle
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CheckError", "CheckFailed", "CheckResult", "Row", "check", "load"]


# The words _words() reads, as this version's schemas/vocabulary.json has them:
# for a package installed without the engine's data.
_FALLBACK = (("pass", "skip"), ("numpy", "torch", "jax", "tensorflow", "onnxruntime"))


def _words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The outcomes with nothing to look at (flag `fine`: pass, skip) and the
    engine's frameworks, from schemas/vocabulary.json (the engine writes it:
    every closed list and each outcome's flags) where the engine keeps its
    data ($MUDJACK_DATA_DIR) or in the repository this package was installed
    from (`pip install -e python/`); else `_FALLBACK` (tests/python/
    test_vocabulary.py holds it equal to the file)."""
    roots = (os.environ.get("MUDJACK_DATA_DIR") or "", str(Path(__file__).resolve().parents[2]))
    for root in (r for r in roots if r):
        try:
            doc = json.loads((Path(root) / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))
            fine = tuple(o for o, flags in doc["outcome_properties"].items() if flags["fine"])
            return fine, tuple(doc["$defs"]["framework"]["enum"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return _FALLBACK


_FINE_OUTCOMES, _FRAMEWORKS = _words()

# How long an interrupted check gives the engine, after SIGTERM, to stop its
# probes and exit before it is killed (SIGKILL leaves them to die alone).
_STOP_GRACE_S = 10.0


class CheckError(RuntimeError):
    """The engine refused the check (bad input, exit 2) or could not run it:
    not executable, killed by a signal, an answer that is not results.json.
    The message is one line."""


class CheckFailed(AssertionError):
    """Some case failed, mismatched, crashed or timed out
    (`CheckResult.raise_for_failure`); the message is the table."""


@dataclass
class Row:
    """One case: NAME on one device, in one mode and dtype."""

    device: str
    mode: str
    dtype: str
    # pass, fail, mismatch, crash, timeout, skip, unavailable, error; or
    # unsupported: a failure in a dtype the framework lacks there (numpy's
    # bfloat16), which the engine does not count as a failure.
    outcome: str
    error_eps: float | None  # error against the float64 reference, in the dtype's eps (inf, nan kept)
    bound_eps: float | None  # the bound it was held to
    median_ns: float | None
    timing_class: str  # device_bound | host_bound
    # The engine's spread (noise): (max - min) / median of its timing rounds'
    # medians, with one round (p90 - p10) / median of its samples; None untimed.
    spread: float | None
    message: str
    # How a pass was checked, in the words of every view: reference, property,
    # baseline, float64 (the oracle against its own widened run), none.
    checked: str = ""
    unstable: bool = False  # the engine's word: the rounds spread over 10% (the views say `unstable`)
    # The engine's word for a refused fail (results 1.10): unsupported
    # (outside the function's domain: outcome `unsupported`, no failure) or
    # kernel_missing (a kernel missing on this device: outcome `fail`, a
    # failure); documented when the framework's own claims say so.
    refusal: str = ""
    documented: bool = False
    case_id: str = ""  # the engine's case id: `mudjack repro CASE_ID` writes it as a script
    # The same spread as slowest over fastest: the round medians' max / min
    # (one round: its samples' p90 / p10), which the table prints after a
    # multiplication sign (1.80 times). None untimed.
    ratio: float | None = None


_HEAD = ("device", "mode", "dtype", "outcome", "checked", "error / bound", "median", "class", "noise")
_FINE = (*_FINE_OUTCOMES, "unsupported")  # outcomes that are no failure
_COLOURS = {"pass": "#d8f0d8", "skip": "#eeeeee", "unsupported": "#eeeeee"}  # else failure red


def _refusal_word(r: Row) -> str:
    """"kernel_missing (documented): " before a refused fail's message, as the engine words it."""
    if r.refusal == "kernel_missing":
        return "kernel_missing (documented): " if r.documented else "kernel_missing: "
    return ""


def _duration(ns: float) -> str:
    """A time as the engine's views print it (report::duration_text): whole ns
    below a microsecond, us and ms to one decimal, s to two."""
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.1f} us"
    if ns < 1e9:
        return f"{ns / 1e6:.1f} ms"
    return f"{ns / 1e9:.2f} s"


def _median(r: Row) -> str:
    """The median; in brackets where the engine calls its timing unstable."""
    if r.median_ns is None:
        return "-"
    return f"[{_duration(r.median_ns)}]" if r.unstable else _duration(r.median_ns)


def _noise(r: Row) -> str:
    """The spread as a ratio, slowest over fastest, after a multiplication
    sign (1.80 times; two decimals, as a 10% spread is unstable), and the
    engine's word `unstable` where it says so."""
    if r.ratio is None:
        return "unstable" if r.unstable else "-"
    digits = ".2f" if r.ratio < 10 else ".1f" if r.ratio < 100 else ".0f"
    return "\u00d7" + format(r.ratio, digits) + (" unstable" if r.unstable else "")


def _eps(error: float | None, bound: float | None) -> str:
    """The error in eps against its bound (`12 / 64 eps`), to 3 significant
    digits, more where 3 would print an error beyond its bound as the bound
    itself (6.0004 / 6): 6, else Python's shortest round trip."""
    if error is None:
        return "-" if bound is None else f"- / {bound:.3g} eps"
    if bound is None:
        return f"{error:.3g} eps"
    for digits in (3, 6):
        e, b = format(error, f".{digits}g"), format(bound, f".{digits}g")
        if e != b or error == bound:
            return f"{e} / {b} eps"
    return f"{error!r} / {bound!r} eps"


@dataclass
class CheckResult:
    rows: list[Row]
    verdicts: list[dict[str, Any]]
    run_id: str
    raw: dict[str, Any] = field(repr=False)
    folder: str | None = None  # the kept temporary folder (check(keep=True), or a failed check), else None
    # The results folder holding the run (`mudjack repro --out`), while it is
    # kept: check's `out`, its kept folder's results, a loaded run's; else None.
    results_dir: str | None = None

    @property
    def ok(self) -> bool:
        """Every case passed, was skipped or is in a dtype the framework
        lacks, and every pass was checked by something (the engine's
        `unverified` is not ok: nothing says the answer was right)."""
        return not self.failures and not self.unverified

    @property
    def failures(self) -> list[Row]:
        return [r for r in self.rows if r.outcome not in _FINE]

    @property
    def unverified(self) -> list[Row]:
        """Passes checked by nothing (no float64 reference, property or
        checked baseline: integer or bool inputs, a Keras model)."""
        return [r for r in self.rows if r.outcome == "pass" and r.checked in ("", "none")]

    def _verdict(self) -> str:
        """The one line every rendering of the result says."""
        if self.ok:
            return "portable here"
        parts = [f"{len(self.failures)} of {len(self.rows)} cases failed"] if self.failures else []
        if self.unverified:
            parts.append(f"{len(self.unverified)} passes checked by nothing (unverified)")
        return "; ".join(parts)

    def _cells(self) -> list[list[str]]:
        return [[r.device, r.mode, r.dtype, r.outcome, r.checked or "-", _eps(r.error_eps, r.bound_eps), _median(r),
                 r.timing_class or "-", _noise(r)] for r in self.rows]

    def repro_command(self, row: Row) -> str:
        """The command that writes `row`'s case as a standalone script
        (`mudjack repro`, from the run's results folder); with no results
        folder kept, the case id alone."""
        if not self.results_dir:
            return f"case {row.case_id}"
        return (f"mudjack repro {shlex.quote(row.case_id)} --device {shlex.quote(row.device)} "
                f"--run {shlex.quote(self.run_id)} --out {shlex.quote(self.results_dir)}")

    def _why(self, r: Row) -> tuple[str, str]:
        """Under a row: why it did not pass (a failure, an unsupported dtype)
        and, for a failure, how to reproduce it; "" for what it lacks."""
        why = _refusal_word(r) + r.message.splitlines()[0][:200] if r.outcome not in _FINE_OUTCOMES and \
            r.message else ""
        return why, self.repro_command(r) if r.outcome not in _FINE and r.case_id else ""

    def __str__(self) -> str:
        rows = [list(_HEAD), *self._cells()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        for i, r in enumerate(self.rows):
            lines[i + 1] += "".join("\n    " + line for line in self._why(r) if line)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """A table for a notebook: each row green (pass), grey (skip,
        unsupported) or red, the error in eps beside its bound, and under a
        failure why and its `mudjack repro` line."""
        from html import escape
        head = "".join(f"<th>{escape(h)}</th>" for h in _HEAD)
        body = []
        for r, c in zip(self.rows, self._cells()):
            colour = _COLOURS.get(r.outcome, "#f6d0d0")
            beyond = r.error_eps is not None and r.bound_eps is not None and not r.error_eps <= r.bound_eps
            why, repro = self._why(r)
            under = (f"<br><small>{escape(why)}</small>" if why else "") + \
                (f"<br><small><code>{escape(repro)}</code></small>" if repro else "")
            cells = [escape(x) for x in c]
            cells[3] = f"<b>{cells[3]}</b>{under}"
            cells[5] = f"<b>{cells[5]}</b>" if beyond else cells[5]
            body.append(f'<tr style="background:{colour}">' + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
        verdict = self._verdict()
        return (f'<table class="mudjack-check"><caption>mudjack check, run {escape(self.run_id)}: '
                f"{escape(verdict)}</caption><tr>{head}</tr>{''.join(body)}</table>")

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame, one row per case. CheckError
        (one line) where pandas is not installed."""
        try:
            import pandas as pd
        except ImportError:
            raise CheckError("to_pandas needs pandas: pip install pandas (or read result.rows)") from None
        return pd.DataFrame([vars(r) for r in self.rows], columns=list(Row.__dataclass_fields__))

    def raise_for_failure(self) -> CheckResult:
        """CheckFailed (an AssertionError: pytest shows it) with the table
        when a case failed or a pass was checked by nothing; else the result
        itself."""
        __tracebackhide__ = True  # pytest: show the table, not this frame
        if self.ok:
            return self
        which = ", ".join(sorted({f"{r.dtype} on {r.device}" for r in self.failures + self.unverified}))
        raise CheckFailed(f"{self._verdict()} ({which}); run {self.run_id}:\n{self}")


def _binary() -> str:
    """The engine: $MUDJACK_BINARY, which must then be an executable file
    (never silently another engine), else mudjack on PATH, else the
    repository's build/mudjack."""
    chosen = os.environ.get("MUDJACK_BINARY")
    if chosen:
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            raise CheckError(f"MUDJACK_BINARY={chosen} is not an executable file")
        return chosen
    for candidate in (shutil.which("mudjack"), str(Path(__file__).resolve().parents[2] / "build" / "mudjack")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise CheckError("no mudjack binary: set MUDJACK_BINARY, put mudjack on PATH, or build the repository")


def _run_engine(args: list[str]) -> tuple[int, str, str]:
    """The engine's exit status (negative: the signal that ended it), stdout
    and stderr. Interrupted (KeyboardInterrupt, or any exception while it
    runs), the engine is stopped as `_stop` says and the exception goes on."""
    try:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as exc:  # not executable after all, a bad interpreter line, a foreign binary
        raise CheckError(f"cannot start the engine {args[0]}: {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate()
    except BaseException:
        _stop(proc)
        raise
    return proc.returncode, out, err


def _stop(proc: subprocess.Popen[str]) -> None:
    """SIGTERM first, so the engine stops its probes and cleans up (as on
    Ctrl-C in a terminal), up to `_STOP_GRACE_S` for it to exit, then
    SIGKILL. A second interrupt while waiting ends the grace."""
    if proc.poll() is None:
        proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired, KeyboardInterrupt):
        proc.communicate(timeout=_STOP_GRACE_S)  # drained meanwhile: a full pipe must not hold it up
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _answer(code: int, out: str, err: str) -> dict[str, Any]:
    """The engine's results.json from its exit status and output; CheckError
    in one line where it refused the check, died or printed no JSON."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        raise CheckError(f"the engine died of {name} (signal {-code})")
    if code not in (0, 1):
        lines = [line for line in err.splitlines() if line.strip()]
        why = lines[-1] if lines else f"mudjack check exited {code}"
        raise CheckError(why.removeprefix("mudjack: error: "))
    try:
        return json.loads(out)  # type: ignore[no-any-return]
    except ValueError:
        text = out.strip().splitlines()[0][:100] if out.strip() else ""
        raise CheckError(f"the engine printed no JSON results (exit {code}): {text!r}") from None


def _result(doc: Any, source: str) -> CheckResult:
    """results.json as a CheckResult; CheckError naming `source` where it
    lacks what this package reads."""
    try:
        return CheckResult(_rows(doc), doc.get("verdicts", []), doc["run"]["id"], doc)
    except KeyError as exc:
        raise CheckError(f"{source} lacks {exc.args[0]!r}: not results.json as this package reads it") from None
    except (TypeError, AttributeError, ValueError) as exc:
        raise CheckError(f"{source} is not results.json as this package reads it: {type(exc).__name__}: {exc}") \
            from None


def _by_value(obj: Any, name: str, why: str) -> str:
    """A module file that unpickles `obj` by value (cloudpickle): a function
    or class with no source file, a lambda, a closure."""
    try:
        import cloudpickle
    except ImportError:
        raise CheckError(f"{why}: checking it needs cloudpickle (pip install cloudpickle==3.1.3, "
                         "or pip install the mudjack package)") from None
    try:
        data = cloudpickle.dumps(obj)
    except Exception as exc:
        raise CheckError(f"cannot hand {type(obj).__name__} to the engine: {exc}") from exc
    # Classes it names by reference are found where the caller found them.
    home = getattr(sys.modules.get(type(obj).__module__), "__file__", None)
    path = f"import sys\nsys.path.insert(0, {str(Path(home).parent)!r})\n" if home else ""
    return f"{path}import pickle\n{name} = pickle.loads({data!r})\n"


def _source(obj: Any, name: str) -> str:
    """A module file defining `name` as `obj`: the function's source with the
    modules and picklable values it names; else `obj` pickled (by value
    where it was defined at a prompt, in a notebook or in a closure)."""
    if not isinstance(obj, types.FunctionType):
        if type(obj).__module__ == "__main__" or _defined_at_prompt(type(obj)):
            return _by_value(obj, name, f"{type(obj).__name__} was defined at a prompt")
        try:
            data = pickle.dumps(obj)
        except Exception:
            return _by_value(obj, name, f"{type(obj).__name__} does not pickle by reference")
        # Its class is found where the caller found it: the folder of its module's file.
        home = getattr(sys.modules.get(type(obj).__module__), "__file__", None)
        path = f"import sys\nsys.path.insert(0, {str(Path(home).parent)!r})\n" if home else ""
        return f"{path}import pickle\n{name} = pickle.loads({data!r})\n"
    if obj.__name__ == "<lambda>":
        return _by_value(obj, name, "a lambda has no source")
    if obj.__code__.co_freevars:
        return _by_value(obj, name, f"{obj.__name__} closes over {', '.join(obj.__code__.co_freevars)}")
    try:
        text = textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):  # typed at a prompt: no file holds its source
        return _by_value(obj, name, f"{obj.__name__} was defined at a prompt (no source file)")
    return _imports(obj, set()) + "\n\n" + text + (f"\n{name} = {obj.__name__}\n" if obj.__name__ != name else "")


def _defined_at_prompt(cls: type) -> bool:
    """Whether a class has no source file the probe could import it from."""
    module = sys.modules.get(cls.__module__)
    return module is None or not getattr(module, "__file__", None)


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
          out: str | None = None, keep: bool | None = None, framework: str | None = None,
          reference: Any = None) -> CheckResult:
    """Checks `fn(*inputs)` on every local device (or `devices`), in the
    floating dtypes of the grid (or `dtypes`) and eager and compiled (or
    `modes`); `quick`: eager, the inputs' dtype, one timing round. Returns
    one Row per case. CheckError for bad input, with the engine's one line.
    `framework` (numpy, torch, jax, tensorflow) overrides what the engine
    decides from fn's own module, the frameworks it names and its inputs.
    `reference`: a trusted host computation of fn's outputs (NumPy arrays
    in, arrays out: `NAME_reference` of `mudjack check FILE.py:NAME`), which
    every case is judged against instead of fn's own float64 run, so a
    formula bug (eps outside a square root) is caught.

    The target, its pickled inputs and (without `out`) the results go to a
    temporary `mudjack-check-*` folder that is removed when the check ends,
    also when it is refused, unless a case failed: then it is kept (its path:
    CheckResult.folder), so that the `mudjack repro` line under each failed
    row runs. `keep=True` keeps it always, `keep=False` never.
    Interrupted (Ctrl-C, a notebook's stop button), the engine gets SIGTERM
    and up to 10 s to stop its probes before SIGKILL, and the
    KeyboardInterrupt goes on."""
    _refuse_class(fn)
    own = getattr(fn, "__name__", "")
    name = own if isinstance(fn, types.FunctionType) and own.isidentifier() else "target"
    folder = Path(tempfile.mkdtemp(prefix="mudjack-check-"))
    kept = False
    try:
        result = _check_in(folder, fn, name, inputs, devices=devices, dtypes=dtypes, modes=modes,
                           quick=quick, budget_ms=budget_ms, out=out, framework=framework, reference=reference)
        kept = keep is True or (keep is None and bool(result.failures))
    finally:
        if not kept:
            shutil.rmtree(folder, ignore_errors=True)
    # `mudjack repro` finds a check's case through its target, in the folder.
    result.folder = str(folder) if kept else None
    result.results_dir = (os.path.abspath(out) if out else str(folder / "results")) if kept else None
    return result


def _model_base(cls: type) -> str | None:
    """The framework model class `cls` derives from (torch.nn.Module, a Flax
    linen or nnx Module, a Keras Model or Layer), found by where its bases
    are defined, with no framework imported; else None. The probe's
    mudjack_probe.checking.model_base is the same rule."""
    for base in cls.__mro__:
        where, root = base.__module__ or "", (base.__module__ or "").split(".")[0]
        if base.__name__ == "Module" and where.startswith(("torch.nn.", "flax.linen.", "flax.nnx.")):
            return ".".join(where.split(".")[:2]) + ".Module"
        if base.__name__ in ("Model", "Layer") and (root in ("keras", "tf_keras")
                                                   or where.startswith("tensorflow.python.keras.")):
            return "keras.Model" if base.__name__ == "Model" else "keras.layers.Layer"
    return None


def _refuse_class(fn: Any) -> None:
    """CheckError where `fn` is a model's class, not a model: calling it on
    the inputs would build a model, not run one."""
    base = _model_base(fn) if isinstance(fn, type) else None
    if base is not None:
        raise CheckError(f"{fn.__name__} is a class (a {base} subclass), not a model: pass an instance, "
                         f"mudjack.check({fn.__name__}(...), ...)")


def _check_in(folder: Path, fn: Any, name: str, inputs: tuple[Any, ...], *,
              devices: list[str] | None, dtypes: list[str] | None, modes: list[str] | None,
              quick: bool, budget_ms: float | None, out: str | None, framework: str | None,
              reference: Any = None) -> CheckResult:
    """check()'s work in `folder`, which the caller removes."""
    try:
        data = pickle.dumps(inputs)
    except Exception as exc:
        raise CheckError(f"cannot hand the inputs to the engine: {exc}") from exc
    (folder / "inputs.pkl").write_bytes(data)
    if reference is not None and not callable(reference):
        raise CheckError(f"reference must be a function of the inputs, not {type(reference).__name__}")
    trusted = "" if reference is None else "\n\n" + _source(reference, f"{name}_reference")
    (folder / "target.py").write_text(
        _source(fn, name) + trusted + f"\n\ndef {name}_inputs():\n    import pickle\n"
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
    args += ["--framework", framework] if framework else []
    return _result(_answer(*_run_engine(args)), "the engine's answer")


def load(path: str | os.PathLike[str]) -> CheckResult:
    """A stored run as a CheckResult: its results.json, or the run folder
    holding it (`mudjack check --out`, `mudjack run`), read as `check` reads
    the engine's answer, so a run made on the command line reads the same
    in a notebook."""
    p = Path(path)
    p = p / "results.json" if p.is_dir() else p
    try:
        doc = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise CheckError(f"cannot read {p}: {exc}") from exc
    result = _result(doc, str(p))
    # RESULTS/runs/RUN_ID/results.json: RESULTS is what `mudjack repro --out` reads.
    run = p.resolve().parent
    if run.parent.name == "runs" and (run.parent.parent / "mudjack.db").is_file():
        result.results_dir = str(run.parent.parent)
    return result


def _float(v: Any) -> float | None:
    """A number of results.json as a float: its non-finite values are the
    strings "inf", "-inf" and "nan"."""
    return None if v is None else float(v)


def _ratio(latency: dict[str, Any]) -> float | None:
    """The spread the engine measured as slowest over fastest: its round
    medians' max / min, with one round its samples' p90 / p10
    (stats/timing.hpp); None untimed, inf where the fastest took no time."""
    rounds = [float(x) for x in (latency.get("timing") or {}).get("rounds") or []]
    lo, hi = (min(rounds), max(rounds)) if len(rounds) > 1 else (_float(latency.get("p10_ns")),
                                                                 _float(latency.get("p90_ns")))
    if lo is None or hi is None or latency.get("median_ns") is None:
        return None
    return hi / lo if lo > 0 else float("inf")


def _rows(doc: dict[str, Any]) -> list[Row]:
    """One Row per case of results.json; a failed case whose dtype its
    verdict lists as unsupported (the engine's judgement) is `unsupported`;
    each row carries the engine's refusal word (results 1.10: the case's
    `refusal`)."""
    unsupported = {(v["function"], v["device"], u["dtype"]) for v in doc.get("verdicts", [])
                   for u in v.get("unsupported") or []}
    rows = []
    for c in doc["cases"]:
        numeric = c.get("numeric") or {}
        latency = c.get("latency") or {}
        timing = latency.get("timing") or {}
        timed = bool(timing) and latency.get("median_ns") is not None
        outcome = c["outcome"]
        refusal = c.get("refusal") or {}
        if outcome == "fail" and (refusal.get("refusal") == "unsupported" or (
                "refusal" not in c and (c.get("function"), c["device"], c["dtype"]) in unsupported)):
            outcome = "unsupported"
        rows.append(Row(c["device"], c["mode"], c["dtype"], outcome, _float(numeric.get("error_eps")),
                        _float(numeric.get("bound_eps")), _float(latency.get("median_ns")), timing.get("bound", ""),
                        _float(timing.get("spread")) if timed else None,
                        (c.get("error") or {}).get("message", "") or numeric.get("message", "") or "",
                        c.get("checked", "") if c["outcome"] == "pass" else "", bool(timing.get("unstable")),
                        refusal.get("refusal", ""), bool(refusal.get("documented")), c.get("id", ""),
                        _ratio(latency) if timed else None))
    return rows
