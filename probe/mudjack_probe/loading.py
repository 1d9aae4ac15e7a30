"""Loading suite folders: every *.py of each folder imported, helpers (files
named _*.py) first, and the declared cases collected by id. Used by the
probe's entry point, the plant tool and the tests; importing this module
touches no file descriptor (unlike `__main__`, which takes the channel)."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from . import api, models
from .errors import MachineFault, machine_fault


def _exec_suite_file(loader: Any, module: Any, path: Path) -> None:
    """Runs one suite file. Its own errors are the suite's (ValueError: the
    engine reports a malformed suite); a machine fault (no memory to load it,
    an unreadable disk) stays a MachineFault."""
    try:
        loader.exec_module(module)
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
        # One level of sub-folders too (suites/models/timm/...: generated
        # corpora); their files are cases, never helpers.
        for path in sorted(folder.glob("*.py")) + sorted(folder.glob("*/*.py")):
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
