"""Fill the build cache before a run, several builds at once (protocol 1.9 `build`).

A probe started with `--framework torch --device D --suite-dir DIR [--param
NAME=VALUE ...]` answers `build {cases, seed, jobs, threads, timeout_s}` by
building what each case builds into $MUDJACK_BUILD_CACHE, in `jobs`
processes, timing nothing: an
`onnxruntime` case's body (the model's ONNX export, made on the CPU whatever
D is), and a `compiled` case built and called once on device D, which fills
the compilers' caches (Inductor's FX graphs and kernels, Triton's, AOT
autograd's) that the run on D then reuses. The run that follows, with the
same seed and parameters, finds every export in the cache (build_reused 1)
and every compile warm, and measures. `mudjack cache build` asks for this
over the protocol with the run's interpreter and environment. The probe
sends one `built` line per case as it finishes {case, status (built,
failed, timeout, unknown), seconds, message} (a failed export or compile is
the case's finding, reported by the run), then `build_done`. A device D
that cannot be selected is the probe's hello (`unavailable`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from typing import Any, Callable

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


def build(framework: str, device: str, suite_dirs: list[str], params: dict[str, str], request: dict[str, Any],
          send: Callable[[dict[str, Any]], None]) -> None:
    """Answers `build`: each case built in a pool of `jobs` processes, one
    `built` line sent as each finishes, then `build_done`. ValueError for a
    request whose numbers are out of range (the probe answers `error`)."""
    cases = [str(c) for c in request.get("cases", [])]
    jobs, threads = int(request.get("jobs", 1)), int(request.get("threads", 0))
    seed, timeout_s = int(request.get("seed", 0)), float(request.get("timeout_s", 600.0))
    if jobs < 1 or timeout_s <= 0 or threads < 0:
        raise ValueError("build: jobs must be at least 1, timeout_s positive and threads not negative")
    if cases:
        if threads > 0:  # as the engine sets it for the run's cpu lane
            os.environ["OMP_NUM_THREADS"] = str(threads)
        # One compile worker per process: N processes each with a pool as wide
        # as the machine would hold N x cores Pythons that import torch.
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        context = multiprocessing.get_context("spawn")
        initargs = (framework, device, suite_dirs, params, threads)
        with context.Pool(min(jobs, len(cases)), initializer=_init, initargs=initargs) as pool:
            for record in pool.imap_unordered(_build, [(c, seed, timeout_s) for c in cases]):
                send({"type": "built", **record})
    send({"type": "build_done", "count": len(cases)})
