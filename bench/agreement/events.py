"""Independent timings of the ops in bench/agreement/ops.py (issue 14).

Run with the framework's own interpreter (the one MudJack's torch probe uses):

  python3 bench/agreement/events.py --device cuda:0          # device-bound ops, CUDA events
  python3 bench/agreement/events.py --host --device cuda:0   # host-bound ops, torch.utils.benchmark
  python3 bench/agreement/events.py --host --device cpu

Device mode (triton `do_bench` style): per op, inputs on the device, about
25 ms of warm-up, then for each of --reps calls: zero a 256 MiB int8 buffer
(flushes L2), record a start event, call the op, record an end event; one
synchronise at the end; per-call time = start.elapsed_time(end), median.
Host mode: torch.utils.benchmark.Timer(...).blocked_autorange() median
(blocks of calls between synchronisations), or with `--timer timeit` the
standard library's timeit (blocks of at least 10 ms, each ending in a
synchronisation on CUDA; the median block), in --rounds R rounds (default 5)
over every op of min_run_time / R s each (default 1.0 s in all); the median
of the round medians. `--rounds 1` is one blocked_autorange(min_run_time=1.0)
per op; on an H200 host two such processes differed by up to 28% per op,
five rounds by up to 13%.

Prints {case_id: median_ns} as JSON on the last line of stdout; progress on
stderr. Case ids are MudJack's (ops.Op.case_id).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from typing import Any, Callable

import ops


def make_inputs(torch: Any, op: ops.Op, device: Any) -> list[Any]:
    gen = torch.Generator(device="cpu").manual_seed(0)
    args = []
    for spec in op.inputs:
        dtype = spec.dtype or op.dtype
        if dtype == "bool":
            args.append((torch.rand(spec.dims, generator=gen) < 0.5).to(device))
        else:
            args.append(torch.randn(spec.dims, generator=gen).to(device=device, dtype=getattr(torch, dtype)))
    return args


def time_events(torch: Any, fn: Callable[..., Any], args: list[Any], flush: Any, reps: int, warmup_ms: float) -> float:
    """Median per-call device time in ns, CUDA events around each call."""
    fn(*args)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        flush.zero_()
        fn(*args)
    end.record()
    torch.cuda.synchronize()
    estimate_ms = max(start.elapsed_time(end) / 5, 1e-3)
    for _ in range(max(1, math.ceil(warmup_ms / estimate_ms))):
        fn(*args)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for s, e in zip(starts, ends):
        flush.zero_()
        s.record()
        fn(*args)
        e.record()
    torch.cuda.synchronize()
    return float(statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))) * 1e6


def sm_clock(torch: Any, device: Any) -> str:
    """The SM clock now, for the progress lines (needs pynvml; "" without)."""
    try:
        return f", SM {torch.cuda.clock_rate(device)} MHz"
    except Exception:
        return ""


def time_host(torch: Any, fn: Callable[..., Any], args: list[Any], min_run_time: float) -> float:
    """Median per-call time in ns by torch.utils.benchmark (syncs CUDA around blocks)."""
    from torch.utils import benchmark

    fn(*args)
    timer = benchmark.Timer(stmt="fn(*args)", globals={"fn": fn, "args": args}, num_threads=torch.get_num_threads())
    return float(timer.blocked_autorange(min_run_time=min_run_time).median * 1e9)


def time_timeit(fn: Callable[..., Any], args: list[Any], min_run_time: float, sync: Callable[[], None]) -> float:
    """Median per-call time in ns by the standard library's timeit: the call
    count per block doubled until a block lasts 10 ms (timeit.autorange's
    way, gc off as timeit does), then blocks for min_run_time s, each closed
    by `sync` in the clock read (CUDA: synchronise, as torch.utils.benchmark does)."""
    import time
    import timeit

    def clock() -> float:
        sync()
        return time.perf_counter()

    fn(*args)
    timer = timeit.Timer("fn(*args)", timer=clock, globals={"fn": fn, "args": args})
    number = 1
    while timer.timeit(number) < 0.01:
        number *= 2
    repeat = max(3, math.ceil(min_run_time / max(timer.timeit(number), 1e-9)))
    return float(statistics.median(timer.repeat(repeat, number))) / number * 1e9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--host", action="store_true", help="host-bound ops with torch.utils.benchmark (else device-bound ops with CUDA events)")
    ap.add_argument("--reps", type=int, default=100, help="device mode: timed calls per op")
    ap.add_argument("--warmup-ms", type=float, default=25.0, help="device mode: warm-up per op, ms")
    ap.add_argument("--min-run-time", type=float, default=1.0, help="host mode: blocked_autorange's min_run_time per op, s (split over the rounds)")
    ap.add_argument("--rounds", type=int, default=5, help="host mode: rounds over every op; reports the median of round medians")
    ap.add_argument("--only", default="", help="only case ids containing this text")
    ap.add_argument("--timer", choices=("benchmark", "timeit"), default="benchmark",
                    help="host mode: torch.utils.benchmark's blocked_autorange, or the standard library's timeit")
    args = ap.parse_args()

    import torch

    device = torch.device(args.device)
    if not args.host and device.type != "cuda":
        print("events.py: device mode needs a cuda device (use --host for cpu)", file=sys.stderr)
        return 2
    on_cuda = device.type == "cuda"
    if on_cuda:
        torch.cuda.set_device(device)
    chosen = [op for op in ops.OPS if op.bound == (ops.HOST_BOUND if args.host else ops.DEVICE_BOUND) and args.only in op.case_id]
    out: dict[str, float] = {}
    if args.host:  # tiny inputs: all kept; grad mode left on, as in MudJack's probe
        sync = (lambda: torch.cuda.synchronize(device)) if on_cuda else (lambda: None)
        calls = [(op, op.build(torch), make_inputs(torch, op, device)) for op in chosen]
        rounds: dict[str, list[float]] = {op.case_id: [] for op in chosen}
        for r in range(max(1, args.rounds)):
            for op, fn, inputs in calls:
                share = args.min_run_time / max(1, args.rounds)
                ns = time_host(torch, fn, inputs, share) if args.timer == "benchmark" else time_timeit(fn, inputs, share, sync)
                rounds[op.case_id].append(ns)
                clock = sm_clock(torch, device) if on_cuda else ""
                print(f"{op.case_id}: round {r}: {ns:.1f} ns{clock}", file=sys.stderr)
        out = {k: round(float(statistics.median(v)), 1) for k, v in rounds.items()}
    else:
        flush = torch.empty(256 << 20, dtype=torch.int8, device=device)
        for op in chosen:
            inputs = make_inputs(torch, op, device)
            ns = time_events(torch, op.build(torch), inputs, flush, args.reps, args.warmup_ms)
            out[op.case_id] = round(ns, 1)
            print(f"{op.case_id}: {ns:.1f} ns{sm_clock(torch, device)}", file=sys.stderr)
            del inputs
            torch.cuda.empty_cache()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
