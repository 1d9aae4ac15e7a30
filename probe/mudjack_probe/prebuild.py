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
the case's finding, reported by the run), then `build_done`. A worker that
gives a build up retires (a fresh one takes the next case), and one that
dies in a build is that case's `failed`. A device D that cannot be selected
is the probe's hello (`unavailable`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing.connection import wait
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


def _worker(initargs: tuple[Any, ...], conn: Any) -> None:
    """One build process: builds each case the probe sends it and sends
    back its record. A build given up mid-way (SIGALRM) may have been inside
    an import or a compiler's bookkeeping, leaving this interpreter
    half-made (`partially initialized module 'torch._dynamo'` in the next
    case), so the worker retires after a timeout; a fresh one takes the
    next case."""
    try:
        _init(*initargs)
    except Exception as exc:  # each case it is given fails with the reason, in a fresh worker each
        if (job := conn.recv()) is not None:
            conn.send({"case": job[0], "status": "failed", "seconds": 0.0, "retiring": True,
                       "message": f"the build process could not start: {one_line(exc)}"})
        return
    while (job := conn.recv()) is not None:
        record = _build(job)
        record["retiring"] = record["status"] == "timeout"
        conn.send(record)
        if record["retiring"]:
            return


def build(framework: str, device: str, suite_dirs: list[str], params: dict[str, str], request: dict[str, Any],
          send: Callable[[dict[str, Any]], None]) -> None:
    """Answers `build`: each case built in `jobs` processes, one `built`
    line sent as each finishes, then `build_done`. A worker that dies in a
    build (a compiler's segfault) is that case's `failed` record, and a
    fresh worker goes on. ValueError for a request whose numbers are out of
    range (the probe answers `error`)."""
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
        _Pool((framework, device, suite_dirs, params, threads), send).run(
            [(c, seed, timeout_s) for c in cases], min(jobs, len(cases)))
    send({"type": "build_done", "count": len(cases)})


class _Pool:
    """Build processes fed one case at a time over a pipe each, so that the
    probe knows which case a dead worker was building."""

    def __init__(self, initargs: tuple[Any, ...], send: Callable[[dict[str, Any]], None]) -> None:
        self.context = multiprocessing.get_context("spawn")
        self.initargs, self.send = initargs, send
        self.workers: dict[Any, tuple[Any, Any]] = {}  # the probe's end of the pipe -> (process, case or None)

    def run(self, todo: list[tuple[str, int, float]], width: int) -> None:
        todo.reverse()  # popped from the end, in the order asked
        try:
            for _ in range(width):
                self._start(todo)
            while self.workers:
                ready = wait([*self.workers, *(p.sentinel for p, _ in self.workers.values())])
                for conn in [c for c in self.workers if c in ready or self.workers[c][0].sentinel in ready]:
                    self._collect(conn, todo)
        finally:
            for conn, (process, _) in self.workers.items():
                process.kill()
                conn.close()

    def _start(self, todo: list[tuple[str, int, float]]) -> None:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_worker, args=(self.initargs, theirs), daemon=True)
        process.start()
        theirs.close()
        self.workers[ours] = (process, None)
        self._feed(ours, todo)

    def _feed(self, conn: Any, todo: list[tuple[str, int, float]]) -> None:
        process, _ = self.workers[conn]
        job = todo.pop() if todo else None
        conn.send(job)
        self.workers[conn] = (process, job[0] if job else None)
        if job is None:
            self._retire(conn)

    def _retire(self, conn: Any) -> None:
        process, _ = self.workers.pop(conn)
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
        conn.close()

    def _collect(self, conn: Any, todo: list[tuple[str, int, float]]) -> None:
        process, case = self.workers[conn]
        try:
            record = conn.recv()
        except EOFError:  # died in the build: its record was never sent
            process.join()
            self._retire(conn)
            self.send({"type": "built", "case": case, "status": "failed", "seconds": 0.0,
                       "message": f"the build process died ({_exit_text(process.exitcode)})"})
            if todo:
                self._start(todo)
            return
        retiring = record.pop("retiring")  # the worker says when it leaves
        self.send({"type": "built", **record})
        if retiring:
            self._retire(conn)
            if todo:
                self._start(todo)
        else:
            self._feed(conn, todo)


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"
