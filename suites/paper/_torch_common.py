"""Helpers shared by the torch*.py case files (not a case file: its name starts with "_").

Importing it must not import torch: bodies get torch as `t.fw`.
"""

from __future__ import annotations

from typing import Any, Callable

from mudjack_probe.api import WIDE, Cases, Ctx, np  # np: numpy, loaded on first use (listing needs none)

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


def inexact(t: Ctx) -> bool:
    """The case dtype is floating or complex: its tensors can require grad, be scaled by a float and stay in the
    dtype. Integer and bool grid cases skip what only those can do (autograd, scaling) and test the forward."""
    return t.dtype_name in WIDE


def from_host(t: Ctx, array: Any, dtype_name: str | None = None) -> Any:
    """A host array as a tensor of the case dtype (or `dtype_name`) on the device, widened as `t.randn` is when the
    body builds its float64 reference (`Ctx(widen=True)`): rounded to the case dtype first, then to `t.dtype`."""
    name = dtype_name or t.dtype_name
    value = t.adapter.from_numpy(array, name)
    if t.widen and name == t.dtype_name and name in WIDE:
        value = value.to(t.dtype)
    return value
