"""The float64 reference's magnitudes of a fuzz graph (protocol 1.9 `reference`).

Nothing is judged here: the engine's suspect rule (src/fuzz/suspect.hpp)
reads, for each output, its dtype, the op that produces it, the root mean
square of its finite values and of each operand of that op (None for one
that is not floating). A graph that cannot be evaluated is a reply with its
one-line `error`.
"""

from __future__ import annotations

from typing import Any

from .graph import is_float, load_graph


def _rms(value: Any) -> float:
    """The root mean square of the finite elements of `value` (0 when none)."""
    import numpy as np

    x = np.asarray(value, dtype=np.float64)
    x = x[np.isfinite(x)]
    return float(np.sqrt(np.mean(x * x))) if x.size else 0.0


def reference_facts(path: str, seed: int) -> dict[str, Any]:
    """The `reference` reply for the graph in file `path`, its inputs drawn from `seed`."""
    from .graph import draw_inputs
    from .ops_numpy import evaluate_values

    try:
        graph = load_graph(path)
        values = evaluate_values(graph, draw_inputs(graph, seed))
    except (ValueError, ArithmeticError, MemoryError) as exc:
        return {"type": "reference", "graph": path, "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    producer = {n.name: n for n in graph.nodes}
    outputs = []
    for name in graph.outputs:
        node = producer.get(name)
        operands = node.inputs if node is not None else ()
        outputs.append({"name": name, "dtype": graph.dtypes[name], "op": node.op if node is not None else "",
                        "rms": _rms(values[name]),
                        "operand_rms": [_rms(values[a]) if is_float(graph.dtypes[a]) else None for a in operands]})
    return {"type": "reference", "graph": path, "reduction": graph.reduction, "outputs": outputs}
