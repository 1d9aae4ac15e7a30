"""MudJack benchmarks (numbers for closing notes, not tests).

  python3 bench/run.py [--mudjack build/mudjack] [--out DIR] [--device cpu ...]
  python3 bench/run.py --overhead-only RESULTS.json

(a) Harness overhead: wall time of `mudjack run` (process start to exit) over
    the time the probes spent inside cases (sum of case_ns), for the run it
    makes here or for any results.json given.
(b) Agreement: MudJack's median for each op in bench/suites/agreement against
    an independent timer (torch.utils.benchmark.Timer; timeit for numpy and
    jax), as ratios mudjack / independent.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_time(s: str) -> float:
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def overhead(results: dict, wall_s: float | None = None) -> dict:
    cases = results["cases"]
    inside_s = sum((c.get("extra") or {}).get("case_ns", 0) for c in cases) / 1e9
    engine_s = sum(c.get("wall_s") or 0 for c in cases)
    if wall_s is None:
        wall_s = parse_time(results["run"]["finished_at"]) - parse_time(results["run"]["created_at"])
    return {
        "cases": len(cases),
        "wall_s": round(wall_s, 3),
        "inside_cases_s": round(inside_s, 3),
        "engine_per_case_s": round(engine_s, 3),
        "overhead_ratio": round(wall_s / inside_s, 3) if inside_s else None,
        "per_case_overhead_ms": round((engine_s - inside_s) / max(len(cases), 1) * 1e3, 3),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mudjack", default=str(ROOT / "build" / "mudjack"))
    ap.add_argument("--out", default="/tmp/mudjack-bench")
    ap.add_argument("--device", action="append", default=[])
    ap.add_argument("--budget-ms", default="300")
    ap.add_argument("--serial", action="store_true", help="devices one after another (mudjack run --serial)")
    ap.add_argument("--overhead-only")
    ap.add_argument("--json-out")
    args = ap.parse_args()

    if args.overhead_only:
        import gzip

        raw = Path(args.overhead_only).read_bytes()
        text = gzip.decompress(raw) if args.overhead_only.endswith(".gz") else raw
        print(json.dumps({"overhead": overhead(json.loads(text))}, indent=1))
        return 0

    cmd = [args.mudjack, "run", "--suite-dir", str(ROOT / "bench" / "suites" / "agreement"), "--out", args.out,
           "--budget-ms", args.budget_ms, "--json"]
    for d in args.device:
        cmd += ["--device", d]
    if args.serial:
        cmd.append("--serial")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall_s = time.perf_counter() - t0
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return proc.returncode
    results = json.loads(proc.stdout)
    report: dict = {"overhead": overhead(results, wall_s), "agreement": []}

    env = results["environment"]["machines"][0]
    devices_of: dict[tuple[str, str], float] = {}
    for c in results["cases"]:
        if c["outcome"] == "pass" and c["latency"]["median_ns"]:
            devices_of[(c["framework"], c["function"], c["device"])] = c["latency"]["median_ns"]
    for fw, info in env["frameworks"].items():
        python = info.get("python_executable")
        if not python or info.get("unavailable"):
            continue
        for device in sorted({d for (f, _, d) in devices_of if f == fw}):
            out = subprocess.run([python, str(ROOT / "bench" / "independent.py"), fw, device],
                                 capture_output=True, text=True,
                                 env={**os.environ, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"})
            if out.returncode != 0:
                print(f"{fw} {device}: independent timer failed: {out.stderr[-500:]}", file=sys.stderr)
                continue
            for function, ind_ns in json.loads(out.stdout.strip().splitlines()[-1]).items():
                mj = devices_of.get((fw, function, device))
                if mj:
                    report["agreement"].append({"framework": fw, "function": function, "device": device,
                                                "mudjack_median_ns": round(mj, 1),
                                                "independent_median_ns": round(ind_ns, 1),
                                                "ratio": round(mj / ind_ns, 3)})
    print(json.dumps(report, indent=1))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
