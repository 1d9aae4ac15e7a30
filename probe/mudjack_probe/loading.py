"""Loading suite folders: every *.py of each folder imported, helpers (files
named _*.py) first, and the declared cases collected by id. Used by the
probe's entry point, the plant tool and the tests; importing this module
touches no file descriptor (unlike `__main__`, which takes the channel)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import api, models
from .errors import MachineFault, machine_fault, one_line


@contextlib.contextmanager
def _bytecode_cache() -> Iterator[None]:
    """Suite files' bytecode kept in MudJack's cache ($MUDJACK_CACHE_DIR, else
    ~/.cache/mudjack: suite-bytecode/), never beside the sources (the engine
    sets PYTHONDONTWRITEBYTECODE): compiling the models suite's ~170 scripts
    is much of a listing's time."""
    root = os.environ.get("MUDJACK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mudjack")
    old = sys.pycache_prefix, sys.dont_write_bytecode
    sys.pycache_prefix, sys.dont_write_bytecode = os.path.join(root, "suite-bytecode"), False
    try:
        yield
    finally:
        sys.pycache_prefix, sys.dont_write_bytecode = old


def _exec_suite_file(loader: Any, module: Any, path: Path) -> None:
    """Runs one suite file. Its own errors are the suite's (ValueError: the
    engine reports a malformed suite), sys.exit() at its top level too; a
    machine fault (no memory to load it, an unreadable disk) stays a
    MachineFault."""
    try:
        with _bytecode_cache():  # only the file's own compile: its imports run outside
            code = loader.get_code(module.__name__)
        exec(code, module.__dict__)
    except SystemExit as exc:  # sys.exit() at module level: the suite's error, not the probe's end
        raise ValueError(f"{path}: the file exited at import ({one_line(exc)})") from None
    except Exception as exc:
        fault = machine_fault(exc)
        if fault is not None:
            raise MachineFault(f"cannot load {path}: {fault}") from exc
        raise ValueError(f"{path}: {type(exc).__name__}: {exc}") from exc


def load_suites(dirs: list[str], framework: str | None) -> dict[str, api.CaseDef]:
    """Import every *.py of each suite folder; return the framework's cases by id."""
    api.reset()
    for d in dirs:
        folder = Path(d)
        if not folder.is_dir():
            raise ValueError(f"suite folder {d} does not exist")
        # Files whose names start with "_" are helpers the case files share:
        # importable by their name (`from _common import ...`), loaded first.
        # The folder itself is never put on sys.path: a case file named
        # torch.py must not shadow torch in this process or its children.
        for path in sorted(folder.glob("_*.py")):
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                raise ValueError(f"{path}: cannot be imported")
            helper = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = helper
            _exec_suite_file(spec.loader, helper, path)
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            name = "mudjack_suite_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ValueError(f"{path}: cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                _exec_suite_file(spec.loader, module, path)
            except ValueError as exc:
                # A model script (labels on its first line) that does not
                # import is its own cases' error; the other models still run.
                if not models.declare_broken(str(path), exc):
                    raise
    cases: dict[str, api.CaseDef] = {}
    for coll in api.collected():
        if framework and coll.framework != framework:
            continue
        for c in coll.defs:
            if c.id in cases:
                raise ValueError(f"duplicate case id {c.id}")
            cases[c.id] = c
    return cases
