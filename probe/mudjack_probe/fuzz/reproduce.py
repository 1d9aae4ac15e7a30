"""One (graph, backend, device, seed) run and judged against the NumPy reference.

Shared by `python -m mudjack_probe.fuzz check` (every backend here on the
fixture graphs) and embedded in each reproduction script (script.py), after
graph.py, the backend's materializer and ops_numpy.py. A backend is reached
through its `glue`, a dict of functions over one framework:

    function(graph, device) -> fn   the graph as fn(*device inputs) -> outputs
    place(array, device)            a host array on the device
    host(value) -> numpy array      an output back on the host
    sync(device, out)               wait until `out` is computed
    compile(fn) -> fn               the framework's compiler
    scope(device)                   a context the calls run in
    version() -> str                what ran
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import threading
import time
import traceback
from typing import Any, Callable

import numpy as np

from .graph import BACKENDS, Graph, alone_bound, draw_inputs, error_eps, is_float
from .ops_numpy import evaluate

Glue = dict[str, Callable[..., Any]]


def run_backend(graph: Graph, backend: str, device: str, inputs: list[np.ndarray], glue: Glue,
                compiled: bool | None = None) -> list[np.ndarray]:
    """The backend's outputs for host `inputs`, on the host. Raises what the backend raises."""
    fn = _callable(graph, backend, device, glue, compiled)
    with glue["scope"](device):
        args = [glue["place"](a, device) for a in inputs]
        out = fn(*args)
        glue["sync"](device, out)
    return [glue["host"](o) for o in out]


def _callable(graph: Graph, backend: str, device: str, glue: Glue, compiled: bool | None) -> Callable[..., Any]:
    with glue["scope"](device):
        fn: Callable[..., Any] = glue["function"](graph, device)
    if compiled is None:
        compiled = BACKENDS[backend][1] == "compiled"
    if not compiled:
        return fn
    made: Callable[..., Any] = glue["compile"](fn)
    return made


def compare(graph: Graph, outputs: list[Any], reference: list[Any],
            bound_eps: float | None = None) -> tuple[bool, list[str]]:
    """Whether every output agrees with the reference, and one line per
    output: a floating output by the accuracy oracle's error in eps of its
    own dtype, within `bound_eps` (default: the oracle's bound for a device
    judged alone, alone_bound(its dtype, the graph's reduction)); integer
    and bool outputs exactly."""
    ok, lines = True, []
    if len(outputs) != len(reference):
        return False, [f"{len(outputs)} outputs, the graph has {len(reference)}"]
    for name, out, r in zip(graph.outputs, outputs, reference):
        dtype = graph.dtypes[name]
        x = np.asarray(out)
        if x.shape != tuple(graph.shapes[name]):
            ok = False
            lines.append(f"{name} ({dtype}): shape {list(x.shape)}, expected {list(graph.shapes[name])}")
        elif is_float(dtype):
            bound = bound_eps if bound_eps is not None else alone_bound(dtype, graph.reduction)
            err = error_eps(x, r, dtype)
            ok = ok and err <= bound
            lines.append(f"{name} ({dtype}{list(x.shape)}): {err:.3g} eps of the float64 reference (bound {bound:.3g})")
        else:
            wrong = int(np.sum(x.astype(np.int64) != np.asarray(r).astype(np.int64)))
            ok = ok and wrong == 0
            seen = f"{wrong} of {x.size} elements differ from the reference" if wrong else "equal to the reference"
            lines.append(f"{name} ({dtype}{list(x.shape)}): {seen}")
    return ok, lines


def median_s(fn: Callable[..., Any], args: list[Any], glue: Glue, device: str, calls: int = 20) -> float:
    """The median time of one call, after a first (compiling) call and a warm-up."""
    with glue["scope"](device):
        glue["sync"](device, fn(*args))
        for _ in range(3):
            glue["sync"](device, fn(*args))
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            glue["sync"](device, fn(*args))
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def reproduce(graph: Graph, backend: str, device: str, seed: int, symptom: str, glue: Glue,
              bound_eps: float | None = None, slow_ratio: float = 10.0, timeout_s: float = 60.0,
              eager: str = "") -> int:
    """Runs the graph as the finding says and prints what it saw; 1 when the
    symptom shows (the backend raises: `raise`; the process dies: `crash`;
    an output beyond the bound: `mismatch`; compiled over its eager twin's
    median by more than `slow_ratio`: `slow`, the twin named by the engine in
    `eager`; no answer within `timeout_s`: `timeout`), 0 when it does not."""
    print(f"backend {backend} on {device}, seed {seed}; {glue['version']()}; numpy {np.__version__}; python {sys.version.split()[0]}")
    print(f"graph: {len(graph.inputs)} inputs, {len(graph.nodes)} nodes ({', '.join(sorted({n.op for n in graph.nodes}))}), dtype {graph.dtype}")
    inputs = draw_inputs(graph, seed)
    if symptom == "crash":
        return _crash(graph, backend, device, inputs, glue)
    if symptom == "timeout":
        return _timeout(graph, backend, device, inputs, glue, timeout_s)
    if symptom == "slow":
        return _slow(graph, backend, eager, device, inputs, glue, slow_ratio)
    try:
        outputs = run_backend(graph, backend, device, inputs, glue)
    except Exception as exc:  # what the finding is about, or not
        print(f"the backend raised: {type(exc).__name__}: {exc}")
        traceback.print_exc()
        return 1 if symptom == "raise" else 0
    ok, lines = compare(graph, outputs, evaluate(graph, inputs), bound_eps)
    for line in lines:
        print("  " + line)
    if symptom == "raise":
        print("the backend did not raise")
        return 0
    print("every output agrees with the reference" if ok else "an output disagrees with the reference")
    return 0 if ok else 1


def _crash(graph: Graph, backend: str, device: str, inputs: list[np.ndarray], glue: Glue) -> int:
    """Crash: the run in a child process (this script again), which exits 0
    when the backend answers, 3 when it raises; any other end is the crash."""
    if os.environ.get("MUDJACK_FUZZ_CHILD") == "1":
        try:
            run_backend(graph, backend, device, inputs, glue)
        except Exception:
            traceback.print_exc()
            os._exit(3)
        os._exit(0)
    script = os.path.abspath(sys.argv[0]) if sys.argv and os.path.isfile(sys.argv[0]) else ""
    if not script:  # no file to start again (stdin): a crash ends this process instead
        run_backend(graph, backend, device, inputs, glue)
        print("the backend answered: no crash")
        return 0
    child = subprocess.run([sys.executable, script, *sys.argv[1:]], env={**os.environ, "MUDJACK_FUZZ_CHILD": "1"}, check=False)
    code = child.returncode
    if code in (0, 3):
        print("the backend " + ("answered" if code == 0 else "raised") + ": no crash")
        return 0
    print(f"the process running the backend died: {'signal ' + str(-code) if code < 0 else 'exit status ' + str(code)}")
    return 1


def _timeout(graph: Graph, backend: str, device: str, inputs: list[np.ndarray], glue: Glue, timeout_s: float) -> int:
    def expire() -> None:
        print(f"no answer within {timeout_s:g} s: the symptom shows", flush=True)
        os._exit(1)

    timer = threading.Timer(timeout_s, expire)
    timer.daemon = True
    timer.start()
    t0 = time.perf_counter()
    try:
        run_backend(graph, backend, device, inputs, glue)
    except Exception as exc:
        print(f"the backend raised: {type(exc).__name__}: {exc}")
    timer.cancel()
    print(f"answered in {time.perf_counter() - t0:.3g} s (limit {timeout_s:g} s)")
    return 0


def _slow(graph: Graph, backend: str, eager: str, device: str, inputs: list[np.ndarray], glue: Glue,
          ratio: float) -> int:
    if not eager:
        print(f"{backend} is not a compiled backend: slow compares a compiled backend with its eager twin")
        return 0
    times = {}
    for name, compiled in ((eager, False), (backend, True)):
        fn = _callable(graph, backend, device, glue, compiled)
        with glue["scope"](device):
            args = [glue["place"](a, device) for a in inputs]
        times[name] = median_s(fn, args, glue, device)
        print(f"  {name}: median {times[name] * 1e6:.1f} us per call")
    seen = times[backend] / max(times[eager], 1e-12)
    print(f"{backend} / {eager} = {seen:.3g} (threshold {ratio:g})")
    return 1 if seen > ratio and math.isfinite(seen) else 0
