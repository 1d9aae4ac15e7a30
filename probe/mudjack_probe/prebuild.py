"""Fill the build cache before a run, several builds at once.

`python -m mudjack_probe.prebuild --framework torch --device D --suite-dir DIR
--seed S --jobs N [--param NAME=VALUE ...] CASE_ID ...` builds what each case
builds into $MUDJACK_BUILD_CACHE, in N processes, timing nothing: an
`onnxruntime` case's body (the model's ONNX export, made on the CPU whatever
D is), and a `compiled` case built and called once on device D, which fills
the compilers' caches (Inductor's FX graphs and kernels, Triton's, AOT
autograd's) that the run on D then reuses. The run that follows, with the
same seed and parameters, finds every export in the cache (build_reused 1)
and every compile warm, and measures. `mudjack cache build` runs this with
the run's interpreter and environment. One JSON line per case on stdout:
{case, status (built, failed, timeout), seconds, message}; the exit code is 0 when every build
succeeded or failed as the case would (a failed export or compile is the
case's finding, reported by the run), 2 when device D cannot be selected.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import sys
import time
from typing import Any

from . import api, network
from .errors import one_line
from .runner import call_once

_state: dict[str, Any] = {}


def _die_with_parent() -> None:
    """A worker is killed when the probe that started it dies (Linux
    PR_SET_PDEATHSIG), as the engine does for the probe: a probe killed
    outright (its engine SIGKILLed) leaves no worker compiling on."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the engine's group kill still reaches them
        pass
    if os.getppid() == 1:  # the probe died before this line: go too
        os._exit(1)


def _init(framework: str, device: str, suite_dirs: list[str], params: dict[str, str], threads: int) -> None:
    _die_with_parent()
    network.guard()
    api.set_params(params)
    from . import adapters
    from .loading import load_suites

    _state["cases"] = load_suites(suite_dirs, framework)
    adapter = adapters.load(framework)
    adapter.select(device)
    _state["adapter"] = adapter
    if framework == "torch" and threads > 0:
        import torch

        torch.set_num_threads(threads)


class BuildTimeout(BaseException):
    """Raised by SIGALRM in the middle of a build: a BaseException, so that
    the build's own `except Exception` (the exporter's wrapper, a compiler's
    fallback) cannot take it for an error of its own and go on."""


def _timed_out(signum: int, frame: Any) -> None:
    raise BuildTimeout()


def _build(job: tuple[str, int, float]) -> dict[str, Any]:
    case_id, seed, timeout_s = job
    case = _state["cases"].get(case_id)
    start = time.perf_counter()
    if case is None:
        return {"case": case_id, "status": "unknown", "seconds": 0.0, "message": "no such case"}
    adapter = _state["adapter"]
    # A build that runs past the deadline (Inductor has spent over 15 minutes
    # simplifying one model's view sizes) is abandoned: SIGALRM raises in this
    # worker's Python code, and the worker goes on with the next case.
    signal.signal(signal.SIGALRM, _timed_out)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        if case.mode == "compiled":
            call_once(adapter, case, seed)
        else:
            with adapter.scope():
                case.body(api.Ctx(adapter, case, seed))
        status, message = "built", ""
    except BuildTimeout:
        status, message = "timeout", f"not built within {timeout_s:g} s"
    except Exception as exc:  # the run reports it as the case's outcome
        status, message = "failed", one_line(exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return {"case": case_id, "status": status, "seconds": round(time.perf_counter() - start, 2), "message": message}


def main() -> int:
    parser = argparse.ArgumentParser(prog="mudjack_probe.prebuild")
    parser.add_argument("--framework", default="torch")
    parser.add_argument("--device", default="cpu", help="where compiled cases compile (cpu, cuda:0, ...)")
    parser.add_argument("--suite-dir", action="append", default=[])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--timeout-s", type=float, default=600.0, help="give up one build after this long")
    parser.add_argument("--threads", type=int, default=0,
                        help="the framework's threads, as the run's lane will have them (0: its default)")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.timeout_s <= 0:
        parser.error("--timeout-s must be positive")
    params = api.parse_param_args(args.param)
    from . import adapters

    try:
        adapters.load(args.framework).select(args.device)
    except Exception as exc:
        print(f"prebuild: cannot use device {args.device}: {one_line(exc)}", file=sys.stderr)
        return 2
    jobs = min(args.jobs, len(args.cases))
    if args.threads > 0:  # as the engine sets it for the run's cpu lane
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    # One compile worker per process: N processes each with a pool as wide
    # as the machine would hold N x cores Pythons that import torch.
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    context = multiprocessing.get_context("spawn")
    initargs = (args.framework, args.device, args.suite_dir, params, args.threads)
    with context.Pool(jobs, initializer=_init, initargs=initargs) as pool:
        for record in pool.imap_unordered(_build, [(c, args.seed, args.timeout_s) for c in args.cases]):
            print(json.dumps(record), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
