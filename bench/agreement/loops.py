"""The probe's timing loop against the best host timers, in one process (issue 34).

  PY bench/agreement/loops.py [--rounds 15] [--budget-ms 20] [--device cpu] [--json-out F]

PY is an interpreter with torch (the torch environment MudJack uses). For
every host-bound op of ops.py, in each of --rounds rounds, four timers run
one after another in a shuffled order, each for about --budget-ms:

- `before`: the probe's loop as it was before issue 34 (commit 760f127:
  `measure(lambda: fn(*args), ...)`, blocks sized from the fastest
  synchronised warm-up call, gc on), copied here verbatim;
- `after`: the probe's loop now (mudjack_probe.runner.measure);
- `benchmark`: torch.utils.benchmark.Timer.blocked_autorange (at least
  50 ms: with less it takes one to three blocks and read 2-4x high here);
- `timeit`: the standard library's timeit, blocks of >= 1 ms, median block.

Each round gives each timer's median per-call time; per op the table shows
the median over rounds of each timer's ratio to `benchmark` in the same
round. Timers in one process, interleaved, see the same machine: a shared,
loaded host shifts all four alike, which separate processes (agreement.py
timers) cannot promise.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
import timeit
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "probe"))
import ops  # noqa: E402
from events import make_inputs  # noqa: E402


def before_measure(fn: Callable[[], Any], sync: Callable[[], None], budget_ms: float,
                   warmup_ms: float = 5.0, block_ms: float = 1.0, min_samples: int = 5) -> float:
    """The probe's loop before issue 34 (host part), median per-call ns."""
    clock = time.perf_counter_ns
    sync()
    fn()
    sync()
    warm_deadline = clock() + int(warmup_ms * 1e6)
    fastest = None
    warmup_calls = 0
    while True:
        t0 = clock()
        fn()
        sync()
        dt = clock() - t0
        warmup_calls += 1
        fastest = dt if fastest is None else min(fastest, dt)
        if clock() >= warm_deadline or warmup_calls >= 10000:
            break
    k = max(1, math.ceil(block_ms * 1e6 / max(fastest or 1, 1)))
    samples: list[float] = []
    budget_end = clock() + int(budget_ms * 1e6)
    while len(samples) < 1000:
        sync()
        t0 = clock()
        last = None
        for _ in range(k):
            last = fn()
        sync()
        samples.append((clock() - t0) / k)
        del last
        if len(samples) >= min_samples and clock() >= budget_end:
            break
    return float(statistics.median(samples))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--budget-ms", type=float, default=20.0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--json-out")
    ap.add_argument("--verbose", action="store_true", help="every round's times on stderr")
    ap.add_argument("--only", default="", help="only case ids containing this text")
    args = ap.parse_args()

    import torch
    from torch.utils import benchmark

    from mudjack_probe.runner import Policy, measure

    device = torch.device(args.device)
    on_cuda = device.type == "cuda"

    def sync() -> None:
        if on_cuda:
            torch.cuda.synchronize(device)

    def synced_clock() -> float:
        sync()
        return time.perf_counter()

    # the engine's other defaults (src/run/options.hpp), as before_measure's
    policy = Policy(budget_ms=args.budget_ms, min_samples=5, max_samples=1000, warmup_ms=5.0, block_ms=1.0)
    rows = []
    random.seed(0)
    for op in (o for o in ops.OPS if o.bound == ops.HOST_BOUND and args.only in o.case_id):
        fn, inputs = op.build(torch), tuple(make_inputs(torch, op, device))
        tub = benchmark.Timer(stmt="fn(*args)", globals={"fn": fn, "args": inputs}, num_threads=torch.get_num_threads())
        ti = timeit.Timer("fn(*args)", timer=synced_clock, globals={"fn": fn, "args": inputs})
        number = 1
        while ti.timeit(number) < 1e-3:
            number *= 2

        def t_before() -> float:
            return before_measure(lambda: fn(*inputs), sync, args.budget_ms)

        def t_after() -> float:
            return float(statistics.median(measure(fn, sync, policy, args=inputs)[1]["samples_ns"]))

        def t_benchmark() -> float:
            # shorter runs leave blocked_autorange one to three blocks, read high
            return float(tub.blocked_autorange(min_run_time=max(args.budget_ms / 1000, 0.05)).median * 1e9)

        def t_timeit() -> float:
            reps = max(5, int(args.budget_ms / 1.0))
            return float(statistics.median(ti.repeat(reps, number))) / number * 1e9

        timers = {"before": t_before, "after": t_after, "benchmark": t_benchmark, "timeit": t_timeit}
        per: dict[str, list[float]] = {name: [] for name in timers}
        for _ in range(args.rounds):
            order = list(timers)
            random.shuffle(order)
            for name in order:
                per[name].append(timers[name]())
        if args.verbose:
            print(per, file=sys.stderr)
        ratios = {name: statistics.median(a / b for a, b in zip(per[name], per["benchmark"])) for name in timers}
        row = {"case": op.case_id, **{f"{n}_ns": statistics.median(v) for n, v in per.items()},
               **{f"{n}/benchmark": r for n, r in ratios.items() if n != "benchmark"}}
        rows.append(row)
        print(f"{op.case_id:42s} " + " ".join(f"{n} {statistics.median(v):7.0f}" for n, v in per.items())
              + "  " + " ".join(f"{n}/bm {ratios[n]:.3f}" for n in ("before", "after", "timeit")), flush=True)
    for name in ("before", "after", "timeit"):
        within = sum(0.9 <= r[f"{name}/benchmark"] <= 1.1 for r in rows)
        print(f"{name}: {within}/{len(rows)} within 0.9-1.1 of torch.utils.benchmark; median ratio "
              f"{statistics.median(r[f'{name}/benchmark'] for r in rows):.3f}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"device": args.device, "rounds": args.rounds,
                                                   "budget_ms": args.budget_ms, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
