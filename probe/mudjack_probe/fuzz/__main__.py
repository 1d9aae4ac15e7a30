"""`python -m mudjack_probe.fuzz check ...`: a developer's tool (tests/adapters/fuzz_backends.sh).

The engine never starts this: it reaches the fuzz code only over the probe
protocol (schemas/probe-protocol-v1.md: `repro_graph` writes a finding's
script, `reference` its float64 magnitudes).

check GRAPH.json... [--backend B]... [--framework F]... [--device D] [--seed N] [--expect FILE]
    runs every graph on every backend whose framework this interpreter has (or
    the ones named) and judges each against the NumPy reference, as a
    reproduction script would for `mismatch`; prints a table; exits 1 when a
    backend disagrees or raises, unless FILE lists that (graph, backend) as a
    known disagreement (lines `GRAPH BACKEND why`); 2 for bad usage.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from .graph import BACKENDS, load_graph


def _available() -> list[str]:
    """The backends whose framework this interpreter can import (not imported here)."""
    modules = {"numpy": "numpy", "torch": "torch", "jax": "jax", "tensorflow": "tensorflow", "onnxruntime": "onnxruntime"}
    return [b for b, (fw, _) in BACKENDS.items() if importlib.util.find_spec(modules[fw]) is not None
            and (fw != "onnxruntime" or importlib.util.find_spec("onnx") is not None)]


def read_expected(path: str | None) -> dict[tuple[str, str], str]:
    """{(graph, backend): why} from a file of lines `GRAPH BACKEND why` (# comments)."""
    if not path:
        return {}
    expected = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split("#", 1)[0].split(None, 2) if not line.lstrip().startswith("#") else []
            if len(fields) >= 2:
                expected[(fields[0], fields[1])] = fields[2].strip() if len(fields) > 2 else ""
    return expected


def check(paths: list[str], backends: list[str], device: str, seed: int, expected: dict[tuple[str, str], str] | None = None) -> int:
    """Every graph on every backend, judged; one line each; 1 on a
    disagreement that `expected` does not list."""
    from . import glue  # numpy and the frameworks: only here (writing a script needs neither)
    from .graph import draw_inputs
    from .ops_numpy import evaluate
    from .reproduce import compare, run_backend

    expected = expected or {}
    bad = known = 0
    glues = {}
    print(f"{'graph':16}  {'dtype':8}  {'backend':15}  {'result':8}  worst output")
    for path in paths:
        graph = load_graph(path)
        name = path.rsplit("/", 1)[-1].removesuffix(".json")
        inputs = draw_inputs(graph, seed)
        reference = evaluate(graph, inputs)
        for backend in backends:
            framework = BACKENDS[backend][0]
            if framework not in glues:
                glues[framework] = glue(framework)
            try:
                outputs = run_backend(graph, backend, device, inputs, glues[framework])
                ok, lines = compare(graph, outputs, reference)
                result, detail = ("agrees" if ok else "DIFFERS"), max(lines, key=_badness)
            except Exception as exc:  # a backend that raises disagrees too
                text = str(exc).strip().splitlines()
                ok, result, detail = False, "RAISES", f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
            why = expected.get((name, backend))
            if not ok and why is not None:
                known += 1
                result, detail = "expected", f"{detail} (known: {why})"
            elif not ok:
                bad += 1
            elif why is not None:
                detail = f"{detail} (listed as a known disagreement, but it agrees now)"
            print(f"{name:16}  {graph.dtype:8}  {backend:15}  {result:8}  {detail}", flush=True)
    print(f"{bad} disagreements, {known} known ones")
    return 1 if bad else 0


def _badness(line: str) -> float:
    """How bad one of compare's lines is: its error in eps; a wrong shape or
    differing integers worst of all."""
    if "differ" in line or "shape" in line:
        return float("inf")
    try:
        return float(line.split("): ", 1)[1].split(" eps", 1)[0])
    except (IndexError, ValueError):
        return -1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mudjack_probe.fuzz")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="every backend here against the NumPy reference")
    c.add_argument("graphs", nargs="+")
    c.add_argument("--backend", action="append", choices=list(BACKENDS), default=None)
    c.add_argument("--framework", action="append", default=None, help="only this framework's backends")
    c.add_argument("--device", default="cpu")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--expect", default=None, help="known disagreements: lines GRAPH BACKEND why")
    args = parser.parse_args(argv)
    try:
        backends = args.backend or _available()
        if args.framework:
            backends = [b for b in backends if BACKENDS[b][0] in args.framework]
        return check(args.graphs, backends, args.device, args.seed, read_expected(args.expect))
    except ValueError as exc:
        print(f"mudjack_probe.fuzz: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
