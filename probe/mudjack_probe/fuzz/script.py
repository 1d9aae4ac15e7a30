"""A standalone script that reproduces one finding of `mudjack fuzz`.

`make_script(...)` writes one Python file that needs only the backend's
framework and numpy: the graph's JSON embedded, then the accuracy oracle's
error (mudjack_probe/eps.py, `embedded`) and the sources of graph.py, the
backend's materializer, ops_numpy.py and reproduce.py,
concatenated (their `from __future__` lines gathered at the top, their
imports of each other dropped: the names are then defined in the one file),
then a call of `reproduce(...)` with the finding's backend, device, seed and
symptom. The script prints what it saw (versions, each output's error
against the float64 reference, or the exception) and exits 1 when the
symptom shows, 0 when it does not.

The engine asks for one over the probe protocol (`repro_graph`, answered by
mudjack_probe.repro.graph_script beside the case scripts it writes).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from .. import eps
from ..vocabulary import fuzz_part, words
from . import MODULES
from .graph import BACKENDS, parse_graph

_HERE = Path(__file__).resolve().parent

SYMPTOMS = tuple(s for s in words("fuzz_symptom") if s != "suspect")
"""What a finding saw, as a reproduction script checks for it (reproduce.py):
the engine's symptoms (schemas/vocabulary.json) but `suspect`, a mismatch at
its dtype's noise floor that is never a finding."""


def module_source(module: str) -> str:
    """The source of fuzz/<module>.py without its `from __future__` import and
    its imports of sibling modules (relative imports)."""
    text = (_HERE / f"{module}.py").read_text(encoding="utf-8")
    drop: set[int] = set()
    for node in ast.parse(text).body:
        if isinstance(node, ast.ImportFrom) and (node.level > 0 or node.module == "__future__"):
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    lines = text.splitlines()
    return "\n".join(line for i, line in enumerate(lines, 1) if i not in drop).strip() + "\n"


EPS_NAMES = ("ORACLE_DTYPES", "oracle_dtype", "error_parts", "error_eps")
"""What graph.py's `error_eps` is made of (mudjack_probe/eps.py)."""


def modules_for(framework: str) -> list[str]:
    """The modules a script for `framework` embeds, in order."""
    materializer = MODULES[framework][0]
    middle = [] if materializer == "ops_numpy" else [materializer]
    return ["graph", *middle, "ops_numpy", "reproduce"]


def make_script(graph_text: str, name: str, backend: str, device: str, seed: int, symptom: str = "mismatch",
                bound_eps: float | None = None, slow_ratio: float = 10.0, timeout_s: float = 60.0,
                eager: str = "") -> str:
    """The reproduction script of graph `graph_text` (its file's name, the
    hash, is `name`) on `backend` and `device` with inputs from `seed`;
    `eager` is the backend's eager twin, the engine's rule (slow).
    ValueError for a malformed graph, an unknown backend or symptom."""
    parse_graph(graph_text)  # refuse a malformed graph here, not in the script
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    if symptom not in SYMPTOMS:
        raise ValueError(f"unknown symptom {symptom!r}; known: {', '.join(SYMPTOMS)}")
    framework = BACKENDS[backend][0]
    prefix = MODULES[framework][1]
    needs = "numpy" if framework == "numpy" else f"{framework} and numpy"
    head = [
        "#!/usr/bin/env python3",
        f'"""MudJack fuzz: graph {name} on backend {backend}, device {device}, inputs from seed {seed}.',
        "",
        f"Reproduces the symptom `{symptom}` (docs/fuzz.md); exits 1 when it shows, 0 when it",
        f"does not. Needs only {needs}. Written by MudJack's probe (protocol `repro_graph`):",
        "the graph, then MudJack's own sources (the graph format, the backend's materializer,",
        'the NumPy float64 reference, the run and its judgement), then the call."""',
        "",
        "from __future__ import annotations",
        "",
        f"GRAPH_JSON = {graph_text.strip()!r}",
        f"VOCABULARY = {fuzz_part()!r}",
        "",
    ]
    body = [f"# ---- mudjack_probe/eps.py {'-' * 62}\n\n" + eps.embedded(*EPS_NAMES) + "\n"]
    body += [f"# ---- mudjack_probe/fuzz/{m}.py " + "-" * max(4, 60 - len(m)) + "\n\n" + module_source(m) for m in modules_for(framework)]
    call = (f"\n# ---- the finding {'-' * 60}\n\nif __name__ == \"__main__\":\n    import sys as _sys\n\n"
            f"    _sys.exit(reproduce(parse_graph(GRAPH_JSON), {backend!r}, {device!r}, {seed!r}, {symptom!r}, {prefix}_glue(),\n"
            f"                        bound_eps={bound_eps!r}, slow_ratio={slow_ratio!r}, timeout_s={timeout_s!r},\n"
            f"                        eager={eager!r}))\n")
    return "\n".join(head) + "\n\n".join(body) + call


def script_for_file(path: str, backend: str, device: str, seed: int, symptom: str = "mismatch",
                    bound_eps: float | None = None, slow_ratio: float = 10.0, timeout_s: float = 60.0,
                    eager: str = "") -> str:
    """make_script for the graph in file `path` (named by its file name's stem)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot be read: {exc}") from None
    name = os.path.splitext(os.path.basename(path))[0]
    return make_script(text, name, backend, device, seed, symptom, bound_eps, slow_ratio, timeout_s, eager)
