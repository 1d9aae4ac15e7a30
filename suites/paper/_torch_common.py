"""Helpers shared by the torch*.py case files (not a case file: its name starts with "_").

Importing it must not import torch: bodies get torch as `t.fw`.
"""

from __future__ import annotations

from typing import Any, Callable

from mudjack_probe.api import Cases, Ctx, np  # np: numpy, loaded on first use (listing needs none)

# Accumulating ops (reductions, matmuls, convolutions) reorder sums across
# devices; these per-dtype (rtol, atol) bounds replace the engine's defaults.
ACCUMULATING = {
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
    "float32": (1e-4, 1e-4),
    "complex64": (1e-4, 1e-4),
}


def declare(cases: Cases, default_tol: dict | None = None) -> Callable[..., Any]:
    """cases.case, also taking `tol={dtype: (rtol, atol)}` (default `default_tol`)."""

    def case(function: str, *, tol: dict | None = default_tol, **kw: Any) -> Any:
        if tol is not None:
            kw["rtol"] = {d: r for d, (r, _) in tol.items()}
            kw["atol"] = {d: a for d, (_, a) in tol.items()}
        return cases.case(function, **kw)

    return case


def flag(t: Ctx, *values: bool) -> Any:
    """Python booleans as one bool tensor on the case's device: the probe saves and
    compares arrays, and checks that the (first) output lives on the device under test."""
    return t.fw.tensor([bool(v) for v in values], device=t.device)


def all_true(outs: list, ins: list) -> bool:
    return bool(np.all(outs[0]))
