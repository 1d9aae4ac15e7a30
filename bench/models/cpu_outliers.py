"""Why is a model slow on one CPU? One call of each case, eager on the CPU,
as MudJack builds it (the suite's script, seed and parameters), timed as it
is and under switches that name a cause, then the heaviest operators:

  python3 bench/models/cpu_outliers.py [--seconds S] CASE_ID ...
  e.g. torch/unet-1d/float32-b1-2x4096-eager torch/edgeconv/float32-n1000-e8000-eager

Run it with the torch probe's interpreter from the repository root (the
probe's package and suites/models are found from there). Variants, each one
call after one warm-up call: `as is`; `flush denormals`
(torch.set_flush_denormal: subnormal floats, slow on some CPUs);
`no oneDNN` (torch.backends.mkldnn.enabled = False: its convolutions and
matmuls replaced by ATen's own); `1 thread`. Then torch.profiler's top 8
operators by self CPU time of one call as is. A variant that would take
longer than --seconds (from the first call) is skipped with that reason.
Prints the CPU model and thread count first. Standard library and torch only.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "probe"))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


@contextlib.contextmanager
def variant(name: str) -> Iterator[None]:
    import torch

    threads = torch.get_num_threads()
    mkldnn = torch.backends.mkldnn.enabled
    try:
        if name == "flush denormals":
            torch.set_flush_denormal(True)
        elif name == "no oneDNN":
            torch.backends.mkldnn.enabled = False
        elif name == "1 thread":
            torch.set_num_threads(1)
        yield
    finally:
        torch.set_flush_denormal(False)
        torch.backends.mkldnn.enabled = mkldnn
        torch.set_num_threads(threads)


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--seconds", type=float, default=60.0, help="skip a variant whose call would take longer")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    from mudjack_probe import adapters, api
    from mudjack_probe.loading import load_suites

    print(f"cpu: {cpu_model()}; torch {torch.__version__}, {torch.get_num_threads()} threads")
    cases = load_suites([str(ROOT / "suites" / "models")], "torch")
    adapter = adapters.load("torch")
    adapter.select("cpu")
    for case_id in args.cases:
        case = cases.get(case_id)
        if case is None:
            print(f"{case_id}: no such case")
            continue
        call = case.body(api.Ctx(adapter, case, args.seed))
        with torch.no_grad():
            first = timed(lambda: call.fn(*call.args))
            print(f"\n{case_id}: first call {first:.3f} s")
            for name in ("as is", "flush denormals", "no oneDNN", "1 thread"):
                limit = first * (8 if name == "1 thread" else 2)
                if limit > args.seconds:
                    print(f"  {name:16} skipped: would take about {limit:.0f} s")
                    continue
                with variant(name):
                    call.fn(*call.args)
                    print(f"  {name:16} {timed(lambda: call.fn(*call.args)):.4f} s")
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                call.fn(*call.args)
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8))
    return 0


if __name__ == "__main__":
    sys.exit(main())
