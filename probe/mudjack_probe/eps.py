"""The accuracy oracle's error in eps, once in Python.

The engine's oracle (src/oracle/accuracy.hpp, "Error unit";
src/oracle/accuracy.cpp `measure` and `part_error`) judges an output x
against its float64 reference r part by part (a complex element as its real
and its imaginary part):

    e_i = |x_i - r_i| / (eps * (|r_i| + s))

s the root mean square of r's finite parts (1 when that is 0 or overflows),
eps the output dtype's. A NaN reference needs NaN; an infinite reference, or
one beyond the dtype's largest finite value, the infinity (or the largest
finite value) of its sign; a non-finite output where the reference is within
range is an infinite error. The output's error is the largest e_i.

`error_parts` is the one Python copy: the fuzz judge (fuzz/graph.py
`error_eps`) calls it, and the scripts the probe writes (repro.py,
minimal.py, fuzz/script.py) embed it by source (`embedded`), so a standalone
script judges as the engine does. tests/fixtures/eps_vectors.json holds it,
and the C++ oracle, to one table (tests/python/test_eps_vectors.py).

Standard library and the oracle's epsilons (schemas/vocabulary.json) at
import; numpy inside the functions (listing the fuzz suite needs no numpy).
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from typing import Any

from .vocabulary import VOCABULARY

F32_MAX = 3.4028234663852886e38
F64_MAX = 1.7976931348623157e308

# The largest finite value of an output as accuracy.cpp `largest_finite`
# reads it from the saved file: bfloat16 is saved as float32, so float32's.
_BIG = {"float16": 65504.0, "bfloat16": F32_MAX, "float32": F32_MAX, "float64": F64_MAX}
# A complex output is judged part by part, each part as this dtype.
_PARTS = {"complex64": "float32", "complex128": "float64"}
_EPS: dict[str, float] = VOCABULARY["accuracy"]["dtype_eps"]  # the oracle's, by the real floating dtypes

ORACLE_DTYPES: dict[str, tuple[float, float]] = {
    name: (_EPS[part], _BIG[part]) for name, part in {**{d: d for d in _EPS}, **_PARTS}.items()}
"""Each floating dtype the oracle judges: (eps, largest finite value)."""


def oracle_dtype(dtype: str) -> tuple[float, float] | None:
    """(eps, largest finite value) of an output dtype the oracle judges
    ("torch.float16" as "float16"); None for integers, bools and the rest."""
    return ORACLE_DTYPES.get(dtype.rsplit(".", 1)[-1])


def error_parts(x: Any, r: Any, eps: float, big: float) -> Any:
    """Each part's error in eps (the module docstring), flattened in C order,
    a complex element as its real then its imaginary part; `big` is the
    output dtype's largest finite value. Output and reference of different
    shapes, or one complex and one not: one infinite error."""
    import numpy as np

    if np.shape(x) != np.shape(r) or np.iscomplexobj(x) != np.iscomplexobj(r):
        return np.array([np.inf])
    x, r = (np.ravel(a).astype(np.complex128 if np.iscomplexobj(a) else np.float64).view(np.float64) for a in (x, r))
    f = r[np.isfinite(r)]
    with np.errstate(all="ignore"):  # overflows and inf - inf are answered below, as the oracle does
        s = float(np.sqrt(np.sum(f * f) / f.size)) if f.size else 0.0
        e = np.where(np.isfinite(x), np.abs(x - r) / (eps * (np.abs(r) + (s if 0 < s < np.inf else 1.0))), np.inf)
    same = (np.signbit(x) == np.signbit(r)) & (np.isinf(x) | (np.abs(x) >= big))
    e = np.where(np.isinf(r) | (np.abs(r) > big), np.where(same, 0.0, np.inf), e)
    return np.where(np.isnan(r), np.where(np.isnan(x), 0.0, np.inf), e)


def error_eps(x: Any, r: Any, dtype: str) -> float:
    """The output's error: its largest part error (0 for an empty output).
    ValueError for a dtype the oracle does not judge."""
    import numpy as np

    judged = oracle_dtype(dtype)
    if judged is None:
        raise ValueError(f"{dtype}: not a floating dtype the accuracy oracle judges")
    return float(np.max(error_parts(x, r, *judged), initial=0.0))


def embedded(*names: str) -> str:
    """This module's `names` as a standalone script defines them: a
    function by its source, without annotations or docstring (the script
    imports no typing and keeps few lines), a constant by its repr."""
    module = sys.modules[__name__]
    out = []
    for name in names:
        value = getattr(module, name)
        if not inspect.isfunction(value):
            out.append(f"{name} = {value!r}")
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(value)))
        fn = tree.body[0]
        if not isinstance(fn, ast.FunctionDef):
            raise TypeError(f"{name}: not a function of {__name__}")
        fn.returns = None
        for arg in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]:
            arg.annotation = None
        doc = fn.body[0]
        if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str):
            fn.body = fn.body[1:]
        out.append(ast.unparse(tree))
    return "\n".join(out)
