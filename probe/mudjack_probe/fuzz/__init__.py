"""`mudjack fuzz`'s Python side: generated graphs (docs/fuzz.md) materialized
per backend, their NumPy reference, and reproduction scripts.

- `graph`: the graph format, its inputs, what materializers share, the
  accuracy oracle's bound (its error in eps: ../eps.py);
- `ops_numpy` (the float64 reference and the `numpy` backend), `ops_torch`,
  `ops_jax`, `ops_tf`, `ops_onnx`: a graph as a callable, each importing only
  its framework and numpy;
- `reproduce`: one (graph, backend, device, seed) run and judged;
- `script`: a standalone reproduction script (those modules' sources
  concatenated);
- `suite`: the built-in suite `fuzz`'s cases (suites/fuzz).

No policy lives here: the engine decides what to run and how to judge it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

MODULES = {"numpy": ("ops_numpy", "numpy"), "torch": ("ops_torch", "torch"), "jax": ("ops_jax", "jax"),
           "tensorflow": ("ops_tf", "tf"), "onnxruntime": ("ops_onnx", "onnx")}
"""Framework -> (its materializer module, the prefix of that module's names)."""


def glue(framework: str) -> dict[str, Callable[..., Any]]:
    """The framework's glue for `reproduce` (imports the framework)."""
    module, prefix = MODULES[framework]
    loaded = importlib.import_module(f"{__name__}.{module}")
    made: dict[str, Callable[..., Any]] = getattr(loaded, f"{prefix}_glue")()
    return made
