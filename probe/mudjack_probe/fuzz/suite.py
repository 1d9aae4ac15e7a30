"""The cases of the built-in suite `fuzz` (suites/fuzz, docs/fuzz.md).

`declare(framework)` reads the run parameter `graphs` (a folder of
`<hash>.json` graph files; unset or empty: no cases) and declares, for each
graph file and each backend of the framework, the case `fuzz/<hash>/<backend>`:
function `fuzz/<hash>`, variant the backend, mode eager or compiled, the
graph's dtype and reduction, tag `fuzz`, policy timed. Listing reads the
JSON files only (no framework, no numpy). A file that does not load still
gets its cases: each answers `error` with the file's one-line fault.

The body draws the graph's inputs from the case's seed (graph.draw_inputs),
puts them on the device with the adapter and returns the graph's callable
on them; the runner compiles it in compiled mode. Widened (the runner's
float64 reference run), the call is NumPy's float64 evaluation of the same
graph on the host (ops_numpy.evaluate), which the accuracy oracle judges
floating outputs against. Every case also checks its own answer against the
same evaluation (a reference check, reproduce.compare): integer and bool
outputs must equal it, floating ones be within the oracle's bound for a
device judged alone. So integer graphs are differential too, float64
outputs (which no wider reference judges) are judged, and a pass is checked
by a reference, never `unverified`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Callable

from ..api import Call, Cases, Ctx, param
from ..errors import SuiteError
from .graph import BACKENDS, GRAPH_DTYPES, Graph, is_float, load_graph

Materialize = Callable[[Ctx, Graph], Callable[..., Any]]
"""How a backend turns a graph into the function a case times, in the body."""

def graph_files(folder: str) -> list[str]:
    """The `*.json` files of `folder`, sorted; [] for an empty name.
    ValueError when the folder does not exist."""
    if not folder:
        return []
    if not os.path.isdir(folder):
        raise ValueError(f"graphs={folder}: not a folder")
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json"))


def declare(framework: str, backends: Mapping[str, str] | None = None,
            materialize: Materialize | None = None) -> Cases:
    """The fuzz cases of `framework`: one per graph file and backend.
    `backends` maps backend name -> mode (default: the framework's backends
    of docs/fuzz.md); `materialize` replaces the framework's materializer
    (the planted-bug fixture)."""
    cases = Cases(framework)
    chosen = dict(backends) if backends is not None else {b: m for b, (fw, m) in BACKENDS.items() if fw == framework}
    for path in graph_files(param("graphs", "", path=True)):
        graph, fault = _read(path)
        digest = os.path.basename(path)[: -len(".json")]
        dtype = graph.dtype if graph is not None else _loose_dtype(path)
        for backend, mode in chosen.items():
            make = materialize or _MATERIALIZERS[framework]
            cases.case(
                f"fuzz/{digest}",
                dtype=[dtype],
                shape={"graph": ()},
                mode=[mode],
                tags=["fuzz"],
                reduction=graph.reduction if graph is not None else None,
                note=f"generated graph {path} on backend {backend}",
                case_id=f"fuzz/{digest}/{backend}",
            )(_body(graph, fault, make))
    return cases


_READ: dict[str, tuple[Graph | None, str]] = {}
"""Graph files read in this process, by path: each suite file of `fuzz`
declares the same graphs for its framework, and a listing imports them all."""


def _read(path: str) -> tuple[Graph | None, str]:
    """The graph in `path`, or None and the file's one-line fault."""
    if path not in _READ:
        try:
            _READ[path] = (load_graph(path), "")
        except ValueError as exc:
            _READ[path] = (None, str(exc))
    return _READ[path]


def _loose_dtype(path: str) -> str:
    """A broken file's dtype if it names a known one, else float32: the case
    needs one, and answers `error` whatever it is."""
    try:
        with open(path, encoding="utf-8") as f:
            dtype = json.load(f).get("dtype")
    except (OSError, ValueError, AttributeError):
        return "float32"
    return dtype if dtype in GRAPH_DTYPES else "float32"


def _body(graph: Graph | None, fault: str, make: Materialize) -> Callable[[Ctx], Call]:
    def body(t: Ctx) -> Call:
        if graph is None:
            raise SuiteError(fault)
        from .graph import draw_inputs
        from .ops_numpy import evaluate
        from .reproduce import compare

        args = [t.from_numpy(a) for a in draw_inputs(graph, t.seed)]
        if t.widen:  # the float64 reference: NumPy on the host, from the case's own arguments widened
            adapter = t.adapter
            return t.call(lambda *xs: _reference(graph, [a for a, _ in adapter.to_numpy(list(xs))]), *args)
        call = t.call(make(t, graph), *args)
        return call.reference(CHECK, lambda outs, ins: compare(graph, outs, evaluate(graph, ins))[0])

    return body


CHECK = "outputs agree with NumPy's float64 evaluation of the graph"


def _reference(graph: Graph, inputs: list[Any]) -> tuple[Any, ...]:
    from .ops_numpy import evaluate

    outs = evaluate(graph, inputs)
    return tuple(o if is_float(graph.dtypes[n]) else o.astype(graph.dtypes[n]) for n, o in zip(graph.outputs, outs))


def _numpy(t: Ctx, graph: Graph) -> Callable[..., Any]:
    from .ops_numpy import evaluate

    return lambda *xs: tuple(evaluate(graph, xs, native=True))


CLEAR_EVERY = 200
"""Every this many graphs a probe builds for JAX, its compile caches are
cleared (jax.clear_caches()): every graph compiles code of its own that
nothing reuses, and a probe that runs thousands would keep it all. Cleared
before a case is built, never between its calls (as suites/jax-primitives
does). torch needs no such step: its adapter clears Dynamo before every
compile (TorchAdapter.compile)."""
_BUILT = [0]


def _now_and_then(clear: Callable[[], None]) -> None:
    _BUILT[0] += 1
    if _BUILT[0] % CLEAR_EVERY == 0:
        clear()


def _torch(t: Ctx, graph: Graph) -> Callable[..., Any]:
    from .ops_torch import torch_function

    return torch_function(graph)


def _jax(t: Ctx, graph: Graph) -> Callable[..., Any]:
    from .ops_jax import jax_function

    _now_and_then(t.fw.clear_caches)
    return jax_function(graph)


def _tensorflow(t: Ctx, graph: Graph) -> Callable[..., Any]:
    from .ops_tf import tf_function

    return tf_function(graph)


def _onnxruntime(t: Ctx, graph: Graph) -> Callable[..., Any]:
    from .ops_onnx import onnx_function

    return onnx_function(graph, t.adapter.providers())


_MATERIALIZERS: dict[str, Materialize] = {
    "numpy": _numpy, "torch": _torch, "jax": _jax, "tensorflow": _tensorflow, "onnxruntime": _onnxruntime,
}
