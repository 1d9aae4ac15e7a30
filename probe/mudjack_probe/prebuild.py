"""Fill the build cache before a run, several builds at once.

`python -m mudjack_probe.prebuild --framework torch --suite-dir DIR --seed S
--jobs N [--param NAME=VALUE ...] CASE_ID ...` builds what each case's body
builds (a model's ONNX export) into $MUDJACK_BUILD_CACHE, in N processes on
the CPU, without calling or timing anything. The run that follows, with the
same seed and parameters, finds every build in the cache (build_reused 1) and
measures only. `mudjack cache build` runs this with the run's interpreter and
environment. One JSON line per case on stdout: {case, status, seconds,
message}; the exit code is 0 when every build succeeded or failed as the
case would (a failed export is the case's finding, reported by the run).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from typing import Any

from . import api, network
from .errors import one_line

_state: dict[str, Any] = {}


def _init(framework: str, suite_dirs: list[str], params: dict[str, str], threads: int) -> None:
    network.guard()
    api.set_params(params)
    from . import adapters
    from .loading import load_suites

    _state["cases"] = load_suites(suite_dirs, framework)
    adapter = adapters.load(framework)
    adapter.select("cpu")
    _state["adapter"] = adapter
    if framework == "torch":
        import torch

        torch.set_num_threads(threads)


def _build(job: tuple[str, int]) -> dict[str, Any]:
    case_id, seed = job
    case = _state["cases"].get(case_id)
    start = time.perf_counter()
    if case is None:
        return {"case": case_id, "status": "unknown", "seconds": 0.0, "message": "no such case"}
    adapter = _state["adapter"]
    try:
        with adapter.scope():
            case.body(api.Ctx(adapter, case, seed))
        status, message = "built", ""
    except Exception as exc:  # the run reports it as the case's outcome
        status, message = "failed", one_line(exc)
    return {"case": case_id, "status": status, "seconds": round(time.perf_counter() - start, 2), "message": message}


def main() -> int:
    parser = argparse.ArgumentParser(prog="mudjack_probe.prebuild")
    parser.add_argument("--framework", default="torch")
    parser.add_argument("--suite-dir", action="append", default=[])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    params = api.parse_param_args(args.param)
    jobs = min(args.jobs, len(args.cases))
    threads = max(1, (os.cpu_count() or 1) // jobs)
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs, initializer=_init, initargs=(args.framework, args.suite_dir, params, threads)) as pool:
        for record in pool.imap_unordered(_build, [(c, args.seed) for c in args.cases]):
            print(json.dumps(record), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
