"""The checks every model case makes: finite outputs, a first output that is
not constant, a finite training loss.
"""

from __future__ import annotations

from typing import Any

from ..api import Call, np


def _finite(outs: list[Any], ins: list[Any]) -> bool:
    return all(np.all(np.isfinite(np.asarray(o, dtype=np.float64))) for o in outs
               if np.asarray(o).dtype.kind in "fcV")  # "V": bfloat16 from ml_dtypes


def _nonconstant(outs: list[Any], ins: list[Any]) -> bool:
    """A model whose output does not depend on its input position (every
    element equal) has lost its computation. Random weights give that in
    two ways: a weight matrix the library leaves all zero, which
    `TorchModel.module` redraws (`draw_zero_matrices`), and a signal that
    fades through the layers of a library's default initialisation
    (transformers' efficientnet, mobilevitv2 and pp_ocrv5_mobile_det: their
    activations fall below 1e-13 within the first blocks), which stays this
    check's failure: the model computes nothing at these weights on any
    device. A discrete first output (EnCodec's and Mimi's codes, LightGlue's
    matches: integers) may be constant at random weights without anything
    lost, so only a floating-point one is held to it."""
    first = np.asarray(outs[0])
    if first.dtype.kind not in "fcV":  # "V": bfloat16 from ml_dtypes
        return True
    values = first.astype(np.float64).ravel()
    return values.size < 2 or bool(np.ptp(values) > 0)


def loss_finite(outs: list[Any], ins: list[Any]) -> bool:
    return bool(np.isfinite(np.asarray(outs[0], dtype=np.float64)).all())


def checked(call: Call) -> Call:
    return (call.sanity("every output is finite", _finite)
            .sanity("the first output is not constant", _nonconstant))
