"""Runs one case on the bound device under the engine's measurement policy.

The timing loop lives here, in-process, as docs/design.md requires; the engine only
sets the policy. Inputs are built before any clock starts. Every timed block
begins and ends with `adapter.sync()`.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import hashlib
import math
import os
import re
import statistics
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Callable, cast

import numpy as np

from .api import TRUSTED_REFERENCE_TAG, WIDE, Call, CaseDef, Check, Ctx, Metric
from .errors import MachineFault, NameMissing, Skip, SuiteError, Unavailable, UnsupportedDtype, one_line
from .vocabulary import having

# Statuses of a case the framework was asked to run (the outcome flag
# `attempted`): its call was built, so the kernel registry's prediction means something.
_ATTEMPTED = frozenset(having("outcome", "attempted"))


# The policy's fields of protocol 1.0: every engine sends them.
_POLICY_1_0 = ("budget_ms", "min_samples", "max_samples", "warmup_ms", "block_ms")


@dataclass
class Policy:
    # Every value is the engine's, from the `run` request (src/protocol/
    # protocol.hpp Policy, filled from src/run/options.hpp): the probe keeps
    # no default of its own. The fields of protocol 1.0, which every engine
    # sends, have none: `from_json` refuses a request without one. A field a
    # later minor added reads, when an older engine leaves it out, as off
    # (schemas/probe-protocol-v1.md, "Versioning"): false, 0, the device pass
    # not turned off.
    budget_ms: float
    min_samples: int
    max_samples: int
    warmup_ms: float
    block_ms: float
    # The device pass's longest settling (`_device_pass`), ms (1.4; 0: none).
    settle_ms: float = 0.0
    # Run the device pass where the adapter has a device timer (1.4; the
    # engine turns it off for later rounds of cases reported in host time).
    device_timer: bool = True
    # Build the float64 reference of every floating case (protocol 1.3): the
    # engine asks the probe of the baseline device, or every probe when the
    # run has no baseline.
    reference: bool = False
    # A later timing round (protocol 1.4): build the case, time it, report
    # the timing only (no outputs, checks or references); the engine
    # interleaves rounds across cases and keeps the case's first outcome.
    timing_only: bool = False
    # The run policy `once` (protocol 1.6): one call, judged; no warm-up,
    # no timing loop, no drift detector, no device timer. The call's time
    # is reported as `cold_ns` and no samples.
    once: bool = False
    # Slow calls (protocol 1.11, the engine's rule: src/stats/timing.hpp):
    # a case whose calls take at least `slow_call_ms` (0: no such rule)
    # stops sampling once it has `slow_min_samples` within `slow_spread`
    # ((max - min) / median) of each other (`enough_samples`); the engine
    # sends the three together, and the other two are unused without the rule.
    slow_call_ms: float = 0.0
    slow_min_samples: int = 0
    slow_spread: float = 0.0

    @staticmethod
    def from_json(d: dict[str, Any]) -> Policy:
        missing = [key for key in _POLICY_1_0 if key not in d]
        if missing:
            raise ValueError(f"the run request's policy lacks {', '.join(missing)} (every engine sends them)")
        p = Policy(budget_ms=float(d["budget_ms"]), min_samples=int(d["min_samples"]),
                   max_samples=int(d["max_samples"]), warmup_ms=float(d["warmup_ms"]),
                   block_ms=float(d["block_ms"]))
        for key in ("settle_ms", "slow_call_ms", "slow_spread"):
            if key in d:
                setattr(p, key, float(d[key]))
        if "slow_min_samples" in d:
            p.slow_min_samples = int(d["slow_min_samples"])
        p.reference = bool(d.get("reference", False))
        p.timing_only = bool(d.get("timing_only", False))
        p.once = bool(d.get("once", False))
        p.device_timer = bool(d.get("device_timer", True))
        if p.min_samples < 1 or p.max_samples < p.min_samples:
            raise ValueError(f"bad policy: min_samples={p.min_samples} max_samples={p.max_samples}")
        return p


def measure(
    fn: Callable[..., Any],
    sync: Callable[[], None],
    policy: Policy,
    block: Callable[[Any], None] = lambda out: None,
    timer: Any = None,
    args: tuple[Any, ...] = (),
) -> tuple[Any, dict[str, Any]]:
    """Cold call, warm-up, then blocks of k calls of `fn(*args)`. Returns
    (first output, timing).

    Timed as torch.utils.benchmark's `blocked_autorange` and `timeit` time:
    the timed region is `fn(*args)` k times in a bare loop (no closure, no
    attribute lookup, garbage collection off, as timeit has it), between two
    clock reads, closed by `block` and `sync()`. k is sized during the
    warm-up (`block_calls`): the call count doubles until one block lasts
    `block_ms`, and at least 100 times the cost of an empty block (a sync and
    two clock reads: `block_overhead_ns`), so what each block adds besides
    the calls stays under 1% of it.

    `block(out)` waits for one call's output (JAX, whose async dispatch no
    device-wide sync can see); it runs on the last output before each closing
    `sync()`, so a block's calls may still overlap as on a CUDA stream.
    Each block records its wall time per call and the host's enqueue time
    per call (until the k-th call returned, before waiting on the device).
    With a device `timer` (the adapter's `device_timer()`: CUDA events),
    half the budget goes to the device pass (`_device_pass`)."""
    clock = time.perf_counter_ns
    sync()
    t0 = clock()
    out = fn(*args)
    block(out)
    sync()
    cold_ns = clock() - t0
    device_turn().take()  # a shared device: the timing is this probe's alone

    t_warm = clock()
    overhead_ns = _block_overhead_ns(sync, clock)
    block_ns = max(policy.block_ms * 1e6, 100 * overhead_ns)
    k, warmup_calls = block_calls(fn, args, sync, block, clock, block_ns, policy.warmup_ms * 1e6)
    t_samples = clock()

    host_budget_ms = policy.budget_ms / 2 if timer is not None else policy.budget_ms
    samples: list[float] = []
    enqueue: list[float] = []
    budget_end = clock() + int(host_budget_ms * 1e6)
    while True:
        wall, queued = _timed_block(fn, args, k, sync, block, clock)
        samples.append(wall / k)
        enqueue.append(queued / k)
        if enough_samples(samples, policy, clock() >= budget_end):
            break
    timing: dict[str, Any] = {
        "cold_ns": cold_ns,
        "samples_ns": samples,
        "calls_per_sample": k,
        "warmup_calls": warmup_calls,
        "enqueue_ns": statistics.median(enqueue),
        "block_overhead_ns": overhead_ns,
    }
    t_device = clock()
    if timer is not None:
        timing.update(_device_pass(fn, args, timer, policy, statistics.median(samples), timing["enqueue_ns"]))
    timing["phases_ns"] = {"cold": cold_ns, "turn": t_warm - t0 - cold_ns, "warmup": t_samples - t_warm,
                           "samples": t_device - t_samples, "device_pass": clock() - t_device}
    return out, timing


def enough_samples(samples: list[float], policy: Policy, budget_spent: bool) -> bool:
    """Whether sampling stops after `samples` (per-call ns): at
    `max_samples`; once `min_samples` are taken and the budget is spent; or,
    for a slow call (the median at least `slow_call_ms`), as soon as
    `slow_min_samples` are taken and their spread, (max - min) / median, is
    within `slow_spread`: the fewest samples the spread allows, where every
    sample costs a long call."""
    n = len(samples)
    if n >= policy.max_samples or (n >= policy.min_samples and budget_spent):
        return True
    return slow_and_steady(samples, policy)


def slow_and_steady(samples: list[float], policy: Policy) -> bool:
    """The slow-call rule of `enough_samples` alone."""
    threshold_ns = policy.slow_call_ms * 1e6
    # O(1) for every fast case (this runs after each block): its latest
    # sample is already under the threshold.
    if threshold_ns <= 0 or len(samples) < max(1, policy.slow_min_samples) or samples[-1] < threshold_ns:
        return False
    median = statistics.median(samples)
    if median < threshold_ns:
        return False
    return (max(samples) - min(samples)) / median <= policy.slow_spread


def _timed_block(fn: Callable[..., Any], args: tuple[Any, ...], k: int, sync: Callable[[], None],
                 block: Callable[[Any], None], clock: Callable[[], int]) -> tuple[int, int]:
    """k calls between two synchronisations: (wall ns, enqueue ns) of the
    block. Nothing but the calls runs between the clock reads; the last
    call's output is kept for `block`, every other one dropped at once."""
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        sync()
        t0 = clock()
        for _ in repeat(None, k - 1):
            fn(*args)
        last = fn(*args)
        t1 = clock()
        block(last)
        sync()
        t2 = clock()
    finally:
        if gc_was_on:
            gc.enable()
    return t2 - t0, t1 - t0


def _block_overhead_ns(sync: Callable[[], None], clock: Callable[[], int]) -> float:
    """What an empty block costs: a sync between two clock reads, median of 5."""
    spans = []
    for _ in range(5):
        sync()
        t0 = clock()
        sync()
        spans.append(clock() - t0)
    return float(statistics.median(spans))


def block_calls(fn: Callable[..., Any], args: tuple[Any, ...], sync: Callable[[], None],
                block: Callable[[Any], None], clock: Callable[[], int], block_ns: float,
                warmup_ns: float) -> tuple[int, int]:
    """The warm-up, which sizes the blocks: timed blocks whose call count
    doubles (1, 2, 4, ...) while a block lasts less than `block_ns`, then
    blocks of that size, until `warmup_ns` has passed (at least one block).
    Returns (k, calls made): k = block_ns over the per-call time of the
    largest blocks run (the fastest of them: a preempted block reads slow),
    so a measured block lasts about block_ns."""
    deadline = clock() + int(warmup_ns)
    n, calls = 1, 0
    per_call, largest = 1.0, 0
    while True:
        wall, _ = _timed_block(fn, args, n, sync, block, clock)
        calls += n
        if n > largest:
            largest, per_call = n, max(wall / n, 1.0)
        elif n == largest:
            per_call = min(per_call, max(wall / n, 1.0))
        if wall < block_ns and calls < 1_000_000:
            n *= 2
        if clock() >= deadline:
            break
    return max(1, math.ceil(block_ns / per_call)), calls


def _device_pass(fn: Callable[..., Any], args: tuple[Any, ...], timer: Any, policy: Policy,
                 wall_ns: float, enqueue_ns: float) -> dict[str, Any]:
    """Device time per call from the device's own events. First the device
    settles (`timer.settle`): calls back to back in event-timed blocks until
    two blocks agree within 2% or `settle_ms` has passed, the SM clock read
    before and after (`device_settle`: what the GPU session decides the
    warm-up from). Then, on the other half of the budget, per-call device
    time, each call queued behind a cache flush and enough idle device time
    that the host's launch cost never shows (triton's do_bench). A timer
    that cannot time the call leaves the host timing standing; the record
    says why there is no device time."""
    def call() -> Any:
        return fn(*args)

    per_call = wall_ns + timer.overhead_ns
    n = int(policy.budget_ms / 2 * 1e6 / max(per_call, 1))
    n = max(policy.min_samples, min(n, policy.max_samples))
    if policy.slow_call_ms > 0 and wall_ns >= policy.slow_call_ms * 1e6:  # a slow call: fewest events
        n = min(n, max(1, policy.slow_min_samples))
    facts: dict[str, Any] = {}
    try:
        if policy.settle_ms > 0:
            facts["device_settle"] = timer.settle(call, wall_ns, policy.settle_ms * 1e6)
        facts["device_samples_ns"] = timer.time(call, n, enqueue_ns)
    except Exception as exc:  # the host timing stands
        facts["device_error"] = _error("other", exc)["message"]
    return facts


class _Phases:
    """Where a case's time went (`phases_ns`, protocol 1.12): build (the
    body: inputs, modules, weights), timing (cold call, waiting for the
    device's turn, warm-up, samples, device pass), detector, outputs (to the
    host, checks, metrics), save, accuracy (float64 reference, strict run),
    each the wall time since the mark before."""

    def __init__(self) -> None:
        self.spans: dict[str, int] = {}
        self._last = time.perf_counter_ns()

    def mark(self, name: str, parts: dict[str, int] | None = None) -> None:
        now = time.perf_counter_ns()
        if parts:
            self.spans.update({f"{name}.{k}": int(v) for k, v in parts.items()})
        else:
            self.spans[name] = now - self._last
        self._last = now


class DeviceTurn:
    """This probe's turn on a device it shares with other probes (one per
    framework on an accelerator lane: the engine names one lock file per
    device in MUDJACK_DEVICE_LOCK). A case takes the turn after its cold
    call (the compile, which runs on the host beside the other probe's
    timing) and keeps it through its timing: warm-up, timed blocks, device
    pass and drift detector use the device alone. Then it gives the turn
    back, and takes it again only around each untimed call that uses the
    device (`held`: the outputs' copy to the host, the second call, the
    float64 reference, the strict run), so its host work (checks, saving
    outputs, building the reference's body on the host) runs beside another
    probe's timing while no other probe's device work does. How long the
    case waited in all is reported as `device_wait_ns` (protocol 1.12).
    Without the variable, taking the turn does nothing."""

    def __init__(self, path: str | None) -> None:
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600) if path else None
        self._held = False
        self.wait_ns: int | None = None

    def take(self) -> None:
        if self._fd is None or self._held:
            return
        t0 = time.perf_counter_ns()
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._held = True
        self.wait_ns = (self.wait_ns or 0) + time.perf_counter_ns() - t0

    def release(self) -> None:
        """Lets the other probes have the device; the case's wait so far is kept."""
        if self._fd is not None and self._held:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._held = False

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """The turn for one untimed use of the device, given back after
        unless the case already held it."""
        before = self._held
        self.take()
        try:
            yield
        finally:
            if not before:
                self.release()

    def give(self) -> int | None:
        """Ends the case's turn; returns its wait (None when not shared)."""
        self.release()
        wait, self.wait_ns = self.wait_ns, None
        return wait


_TURN: list[DeviceTurn] = []  # the process's one DeviceTurn, made on first use


def device_turn() -> DeviceTurn:
    """The process's one DeviceTurn, from MUDJACK_DEVICE_LOCK."""
    if not _TURN:
        _TURN.append(DeviceTurn(os.environ.get("MUDJACK_DEVICE_LOCK") or None))
    return _TURN[0]


def once(fn: Callable[[], Any], sync: Callable[[], None],
         block: Callable[[Any], None] = lambda out: None) -> tuple[Any, dict[str, Any]]:
    """The `once` policy: one synchronised call, its output and its time
    (`cold_ns`, compilation and first-call costs included), no samples."""
    sync()
    t0 = time.perf_counter_ns()
    out = fn()
    block(out)
    sync()
    return out, {"cold_ns": time.perf_counter_ns() - t0, "samples_ns": [], "calls_per_sample": 1, "warmup_calls": 0}


def detector_ns(adapter: Any) -> float | None:
    """The drift detector (docs/design.md): the per-call time of one fixed,
    tiny framework op on the bound device (x + x over four float32 values),
    median of 5 blocks of 20 calls, timed beside every case and round. The
    same op on the same machine takes the same time; when it does not, the
    machine changed, not the case."""
    try:
        with adapter.scope():
            x = adapter.from_numpy(np.ones(4, dtype=np.float32), "float32")
            adapter.block(x + x)  # the first call compiles where the framework does
            per_block = []
            for _ in range(5):
                adapter.sync()
                t0 = time.perf_counter_ns()
                last = None
                for _ in range(20):
                    last = x + x
                adapter.block(last)
                adapter.sync()
                per_block.append((time.perf_counter_ns() - t0) / 20)
            return float(statistics.median(per_block))
    except Exception:  # a device that cannot add four numbers fails elsewhere
        return None


def _load_per_core() -> float | None:
    """The machine's 1-minute load average per core: above 1, more threads
    wanted the cores than there were while the case was timed."""
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return None


def _reset_host_peak() -> None:
    # Linux: writing 5 to clear_refs resets VmHWM, so the peak is per case.
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
    except OSError:
        pass


def _host_peak_bytes() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def artifact_name(case_id: str) -> str:
    """The file name stem of a case's outputs: readable, short enough for any
    file system (at most 100 characters plus the hash), and unique per exact
    case id ("a b" and "a_b" read alike, their hashes differ)."""
    readable = re.sub(r"[^A-Za-z0-9_.=-]+", "_", case_id)[:100]
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{readable}-{digest}"


def _error(kind: str, exc: BaseException) -> dict[str, Any]:
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    lines = [line.strip() for line in f"{type(exc).__name__}: {exc}".splitlines() if line.strip()]
    message = lines[0] if lines else type(exc).__name__
    if message.endswith(":") and len(lines) > 1:  # "Graph execution error:" says nothing by itself
        message = f"{message} {lines[-1]}"
    return {"kind": kind, "message": message[:500],
            "exception": type(exc).__name__, "traceback": tb[-4000:]}


def run_case(adapter: Any, case: CaseDef, seed: int, policy: Policy, artifact_dir: str | None) -> dict[str, Any]:
    """One case on the adapter's device. Never raises for a case's own failure.
    Where the framework has a kernel registry, a case whose call was built
    and that passed, mismatched or failed also gets the registry's
    prediction (`_add_kernels`), after every other call of the case."""
    built: list[tuple[Any, tuple[Any, ...]]] = []
    try:
        result = _run_case(adapter, case, seed, policy, artifact_dir, built)
        if built and adapter.has_kernel_registry and not policy.timing_only and result.get("status") in _ATTEMPTED:
            _add_kernels(adapter, *built[0], result)
    finally:
        wait = device_turn().give()
    if wait is not None:
        result["device_wait_ns"] = wait
    return result


def _not_runnable(adapter: Any, case: CaseDef, need: int) -> dict[str, Any] | None:
    """The status and error of a case that cannot start here: it needs more
    devices than there are (skip), or its declaration is bad (error)."""
    kind = adapter.device_id.split(":")[0]
    if need > 1 and adapter.device_count(kind) < need:
        return {"status": "skip", "error": {"kind": "other", "message": f"needs {need} {kind} devices, {adapter.device_count(kind)} here"}}
    if case.invalid:  # a bad declaration: nothing to run
        return {"status": "error", "error": {"kind": "other", "message": f"suite error: {case.invalid}"}}
    return None


def _suite_error(exc: SuiteError) -> dict[str, Any]:
    """The error of a case whose suite code is broken, not the framework."""
    error: dict[str, Any] = {"kind": "other", "message": f"suite error: {exc}"[:500], "exception": "SuiteError"}
    if exc.__cause__ is not None:  # the suite code's own traceback
        error = {**_error("other", exc.__cause__), **error}
    return error


def _misplaced(adapter: Any, placed: str | None, need: int) -> dict[str, Any] | None:
    """The error when the framework quietly ran (or left) a one-device case's
    output elsewhere: not portable. A case that spans several devices
    (requires devices > 1) leaves its output sharded over them."""
    if need == 1 and placed is not None and placed != adapter.device_id:
        return {"kind": "device_error", "message": f"output lives on {placed}, not on {adapter.device_id}"}
    return None


def _run_case(adapter: Any, case: CaseDef, seed: int, policy: Policy, artifact_dir: str | None,
              built: list[tuple[Any, tuple[Any, ...]]]) -> dict[str, Any]:
    """run_case without the kernel prediction; `built` receives the case's
    call (fn, args) once its body has built it."""
    result: dict[str, Any] = {"type": "result", "case": case.id, "device": adapter.device_id}
    need = int(case.requires.get("devices", 1))
    refused = _not_runnable(adapter, case, need)
    if refused is not None:
        return {**result, **refused}
    _reset_host_peak()
    adapter.reset_peak_memory()
    adapter.case_begin()
    phases = _Phases()
    try:
        with adapter.scope():
            ctx = Ctx(adapter, case, seed)
            call: Call = _built(case.body, case.body(ctx))
            fn = call.fn
            if case.mode == "compiled" and not call.compiled_by_case:
                fn = adapter.compile(fn)
            args = call.args
            built.append((fn, args))
            phases.mark("build")
            out, timing = _timed(adapter, fn, args, policy)
            phases.mark("timing", timing.pop("phases_ns", None))
            result.update(timing)
            result.update(adapter.case_facts())
            if not policy.once:
                result["drift_ns"] = detector_ns(adapter)
                result["load"] = _load_per_core()
            phases.mark("detector")
            if policy.timing_only:  # a later round: the timing is all the engine asked for
                result["status"] = "pass"
                result["phases_ns"] = phases.spans
                return result
            device_turn().release()  # timed: from here only its device calls need the turn
            with device_turn().held():
                result["output_device"] = _placed(adapter, out, call.on_host)
                arrays = adapter.to_numpy(out)
                inputs = adapter.to_numpy(args) if call.checks or call.metrics else []
            failed = _failed_checks(call.checks, arrays, inputs)
            metrics = _metrics(call.metrics, arrays, inputs)
            phases.mark("outputs")
    except SuiteError as exc:  # the suite is broken, not the framework
        result.update(status="error", error=_suite_error(exc))
        return result
    except Unavailable as exc:
        result.update(status="unavailable", error={"kind": "other", "message": str(exc)})
        if isinstance(exc, NameMissing):
            result["missing_name"] = exc.name
        return result
    except Skip as exc:
        result.update(status="skip", error={"kind": "other", "message": str(exc)})
        return result
    except UnsupportedDtype as exc:
        result.update(status="fail", error=_error("unsupported_dtype", exc))
        return result
    except Exception as exc:  # a case's failure is data, not a probe failure
        return _failed(adapter, case, seed, result, exc)
    misplaced = _misplaced(adapter, result["output_device"], need)
    if misplaced is not None:
        result.update(status="fail", error=misplaced)
        return result
    result["memory"] = {"peak_device_bytes": adapter.peak_device_bytes(), "peak_host_bytes": _host_peak_bytes()}
    result["outputs"] = _save(arrays, case.id, artifact_dir, result) if call.compare else []
    phases.mark("save")
    if result["outputs"] and not policy.once:
        result["again"] = ({"skipped": f"stateful: {call.stateful_reason}"} if call.stateful_reason
                           else _again(adapter, fn, args, arrays, case.id, artifact_dir))
    if result["outputs"]:
        result.update(_accuracy_runs(adapter, case, seed, policy, artifact_dir, call, fn, args,
                                     inputs if failed else None))
    phases.mark("accuracy")
    _conclude(result, phases, call, metrics, failed)
    return result


def _conclude(result: dict[str, Any], phases: _Phases, call: Call, metrics: dict[str, dict[str, Any]],
              failed: list[str]) -> None:
    """The result's last fields: phases, work, metrics, checks and status."""
    result["phases_ns"] = phases.spans
    if call.work_amount is not None:
        result["work"] = {"amount": call.work_amount, "unit": call.work_unit}
    if metrics:
        result["metrics"] = metrics
    if failed:
        result.update(status="mismatch", error={"kind": "other", "message": "property check failed: " + ", ".join(failed)})
    else:
        result["status"] = "pass"
    result["checks"] = [{"name": c.name, "kind": c.kind, "ok": c.name not in failed} for c in call.checks]


def _again(adapter: Any, fn: Callable[..., Any], args: tuple[Any, ...], first: list[tuple[np.ndarray, str]],
           case_id: str, artifact_dir: str | None) -> dict[str, Any]:
    """The case's call once more on the same arguments (protocol 1.13):
    `identical` when its outputs equal the first call's bit for bit (NaNs in
    the same places), else its outputs saved, for the engine to say whether a
    mismatch is the function's own nondeterminism. A call that raises is
    recorded; it never changes the case's outcome."""
    try:
        with device_turn().held(), adapter.scope():
            out = fn(*args)
            adapter.block(out)
            adapter.sync()
            again = adapter.to_numpy(out)
    except Exception as exc:  # recorded; the engine judges without it
        return {"outputs": [], "error": _error(adapter.classify(exc), exc)["message"]}
    if len(again) == len(first) and all(_same_bits(a, b) for (a, _), (b, _) in zip(first, again)):
        return {"identical": True}
    return {"outputs": _save(again, f"{case_id}#again", artifact_dir)}


def _same_bits(a: Any, b: Any) -> bool:
    """Whether two outputs hold the same values (NaN equal to NaN)."""
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    try:
        return bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    except (TypeError, ValueError):  # objects, strings: not compared by the engine either
        return True


def _timed(adapter: Any, fn: Callable[..., Any], args: tuple[Any, ...], policy: Policy) -> tuple[Any, dict[str, Any]]:
    """The case's call under the policy: one call (`once`), or measured."""
    if policy.once:
        return once(lambda: fn(*args), adapter.sync, adapter.block)
    timer = adapter.device_timer() if policy.device_timer else None
    return measure(fn, adapter.sync, policy, adapter.block, timer, args)


def _failed(adapter: Any, case: CaseDef, seed: int, result: dict[str, Any], exc: Exception) -> dict[str, Any]:
    """A case whose call raised: the error, and whether the device is still
    usable or the call would have run with soft placement."""
    result.update(status="fail", error=_error(adapter.classify(exc), exc))
    unusable = adapter.device_unusable()
    if unusable is not None:  # the probe is replaced; nothing more runs in it
        result["device_unusable"] = unusable
    elif adapter.has_soft_placement and adapter.device_id != "cpu":
        result["fallback"] = _runs_with_soft_placement(adapter, case, seed)
    return result


def _add_kernels(adapter: Any, fn: Any, args: tuple[Any, ...], result: dict[str, Any]) -> None:
    """The framework's kernel registry's prediction for the case's call
    (adapter.kernel_support) as result["kernels"]: asked once, untimed.
    Whatever it raises is recorded as {"error": ...}; the outcome stays."""
    try:
        with adapter.scope():
            support = adapter.kernel_support(fn, args)
    except Exception as exc:  # a prediction is never the case's failure
        support = {"error": one_line(exc)}
    if support is not None:
        result["kernels"] = support


# Cases narrower than their widened dtype get a float64 reference; float64 and
# complex128 cases have none wider (the engine compares them device to device),
# unless the case's reference is a trusted host computation (the tag: check's
# NAME_reference), which judges them too.
_NARROW = frozenset(d for d, wide in WIDE.items() if d != wide)
# TF32 and default matmul precision change float32 and complex64 results only.
_PRECISION_KNOBBED = frozenset(("float32", "complex64"))


def _accuracy_runs(adapter: Any, case: CaseDef, seed: int, policy: Policy, artifact_dir: str | None,
                   call: Call, fn: Callable[..., Any], args: tuple[Any, ...],
                   failed_inputs: list[tuple[np.ndarray, str]] | None) -> dict[str, Any]:
    """The extra untimed calls the accuracy oracle judges with (protocol 1.3).

    `reference` (when the engine asked for it): the body built again widened
    (`Ctx(widen=True)`: modules, weights and constants in float64), called
    eagerly on the very arguments the case was timed with, widened, so
    whatever the body computed before its call is rounded as in the case.
    `strict`: the timed function itself, called once more on the same
    arguments with every precision knob at its strictest (on a device where
    one differs from its default); when the case's checks failed
    (`failed_inputs`: its host inputs), `checks_ok` says whether they hold on
    the strict outputs (the engine then names the setting as the cause). A
    call that raises is recorded with its error; it never changes the case's
    outcome. A reference must pass the case's own checks, as any right answer
    does: one that fails them (a framework whose float64 kernel is broken) is
    dropped with the reason."""
    extra: dict[str, Any] = {}
    if policy.reference and (case.dtype in _NARROW or TRUSTED_REFERENCE_TAG in case.tags):
        if call.no_reference_reason:
            extra["reference"] = {"outputs": [], "error": f"no float64 reference: {call.no_reference_reason}"}
        else:
            wide: list[Call] = []
            wide_args = tuple(adapter.widened(a) for a in args)

            def widened() -> Any:
                with adapter.scope():
                    wide.append(case.body(Ctx(adapter, case, seed, widen=True)))
                    return wide[0].fn(*wide_args)

            extra["reference"], arrays = _extra_run(adapter, widened, case.id, artifact_dir, "ref")
            if wide and wide[0].trusted_reference:
                extra["reference"]["trusted"] = wide[0].trusted_reference
            if extra["reference"]["outputs"] and wide[0].checks:
                inputs = adapter.to_numpy(wide_args)
                failed = [c.name for c in wide[0].checks if not _check_ok(c.fn, arrays, inputs)]
                if failed:
                    extra["reference"] = {"outputs": [], "error": "the float64 reference fails the case's own checks: " + ", ".join(failed)}
    if case.dtype in _PRECISION_KNOBBED and adapter.precision_matters(fn, args):
        with adapter.strict_precision() as setting:
            if setting:
                def strict() -> Any:
                    with adapter.scope():
                        return fn(*args)
                extra["strict"], arrays = _extra_run(adapter, strict, case.id, artifact_dir, "strict")
                extra["strict"]["setting"] = setting
                if failed_inputs is not None and arrays:
                    extra["strict"]["checks_ok"] = all(_check_ok(c.fn, arrays, failed_inputs) for c in call.checks)
    return extra


def _extra_run(adapter: Any, run: Callable[[], Any], case_id: str, artifact_dir: str | None,
               tag: str) -> tuple[dict[str, Any], list[tuple[np.ndarray, str]]]:
    """One extra call: its record (outputs saved, or the error) and its host arrays."""
    try:
        with device_turn().held():
            out = run()
            adapter.block(out)
            adapter.sync()
            arrays = adapter.to_numpy(out)
    except Exception as exc:  # recorded; the engine judges without it
        return {"outputs": [], "error": _error(adapter.classify(exc), exc)["message"]}, []
    return {"outputs": _save(arrays, f"{case_id}#{tag}", artifact_dir)}, arrays


def _placed(adapter: Any, out: Any, on_host: frozenset[int]) -> str | None:
    """Where the case's outputs live: the first tensor output (other than
    those declared host outputs) that is not on the probe's device, so no
    output's placement escapes; else the device; None if not known."""
    places = adapter.placements(out)
    if not places:
        return cast("str | None", adapter.output_device(out))
    known = [p for i, p in enumerate(places) if p is not None and i not in on_host]
    return next((p for p in known if p != adapter.device_id), known[0] if known else None)


def call_once(adapter: Any, case: CaseDef, seed: int, soft: bool = False) -> tuple[Call, Any]:
    """The case's call, built and run once (compiled in `compiled` mode),
    synchronised, in the adapter's scope: no timing. Raises what the case raises."""
    with adapter.scope(soft=soft):
        call = case.body(Ctx(adapter, case, seed))
        fn = call.fn
        if case.mode == "compiled" and not call.compiled_by_case:
            fn = adapter.compile(fn)
        out = fn(*call.args)
        adapter.block(out)
        adapter.sync()
    return call, out


def _runs_with_soft_placement(adapter: Any, case: CaseDef, seed: int) -> bool:
    """Would the failed case have run had the framework been allowed to move
    ops to another device? The paper's TensorFlow GPU failures fell from 16
    functions to 3 with soft placement on; this records that per case."""
    try:
        call_once(adapter, case, seed, soft=True)
        return True
    except Exception:
        return False


def _built(body: Callable[..., Any], call: Any) -> Call:
    """The body's answer, which must be `t.call(...)`: anything else is the
    suite's mistake (a body that returns the tensor it computed)."""
    if not isinstance(call, Call):
        code = getattr(body, "__code__", None)
        where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
        raise SuiteError(f"the case body {getattr(body, '__name__', '?')}{where} returned "
                         f"{type(call).__name__}, not t.call(fn, *args)")
    return call


def _metrics(declared: list[Metric], outputs: list[tuple[np.ndarray, str]],
             inputs: list[tuple[np.ndarray, str]]) -> dict[str, dict[str, Any]]:
    """{name: {value, unit}}; a value that is not a finite number is null.
    A metric that raises or is not a number is the suite's error (SuiteError)."""
    out: dict[str, dict[str, Any]] = {}
    for m in declared:
        try:
            value = m.value
            if callable(value):
                value = value([a for a, _ in outputs], [a for a, _ in inputs])
            number = float(np.asarray(value).item()) if value is not None else None
        except Exception as exc:
            raise SuiteError(f"metric {m.name!r} raised {one_line(exc)}") from exc
        out[m.name] = {"value": number if number is not None and math.isfinite(number) else None,
                       "unit": m.unit}
    return out


def _failed_checks(checks: list[Check], outputs: list[tuple[np.ndarray, str]],
                   inputs: list[tuple[np.ndarray, str]]) -> list[str]:
    """The names of the case's checks that do not hold on its outputs. A check
    that raises is the suite's error (SuiteError), not a failed check."""
    failed = []
    for c in checks:
        try:
            ok = bool(c.fn([a for a, _ in outputs], [a for a, _ in inputs]))
        except Exception as exc:
            raise SuiteError(f"check {c.name!r} raised {one_line(exc)}") from exc
        if not ok:
            failed.append(c.name)
    return failed


def _check_ok(fn: Callable[..., bool], outputs: list[tuple[np.ndarray, str]], inputs: list[tuple[np.ndarray, str]]) -> bool:
    try:
        return bool(fn([a for a, _ in outputs], [a for a, _ in inputs]))
    except Exception:  # a check that cannot be evaluated has failed
        return False


def _save(arrays: list[tuple[np.ndarray, str]], case_id: str, artifact_dir: str | None,
          result: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Saves the outputs as .npy files. The case has run by now: a file that
    cannot be written (a full disk, a read-only folder) is the machine's
    fault, raised as MachineFault, never the case's outcome. An output that
    is not numbers (strings, objects) is not compared: it is listed in
    result["skipped_outputs"] with its index, dtype and why, never dropped
    silently."""
    if not artifact_dir:
        return []
    saved = []
    try:
        os.makedirs(artifact_dir, exist_ok=True)
        for i, (arr, dtype_name) in enumerate(arrays):
            a = np.asarray(arr, order="C")  # not ascontiguousarray: it turns 0-d into shape (1,)
            if a.dtype.kind not in "biufc":  # bfloat16 from ml_dtypes, objects, strings
                try:
                    a = a.astype(np.float32)
                except (TypeError, ValueError):
                    if result is not None:
                        result.setdefault("skipped_outputs", []).append(
                            {"index": i, "dtype": dtype_name, "reason": f"{a.dtype} values are not compared"})
                    continue
            path = os.path.join(artifact_dir, f"{artifact_name(case_id)}.{i}.npy")
            np.save(path, a, allow_pickle=False)
            saved.append({"path": path, "dtype": dtype_name, "saved_dtype": str(a.dtype), "shape": list(a.shape)})
    except OSError as exc:
        raise MachineFault(f"cannot save outputs in {artifact_dir}: {type(exc).__name__}: {exc}") from exc
    return saved
