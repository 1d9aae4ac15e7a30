"""Timings two runs agree on, and timings independent timers agree on (issue 14).

  python3 bench/agreement/agreement.py pair A.json B.json [--json-out F]
  python3 bench/agreement/agreement.py timers --mudjack build/mudjack --device cuda:0 [--python PY] [--out DIR]
      [--host-rounds 5] [--json-out F]
  python3 bench/agreement/agreement.py repeat TIMERS_A.json TIMERS_B.json

`pair`: two MudJack results.json files (.gz read too; a results folder, i.e.
a `mudjack run --out` DIR, stands for its newest DIR/runs/*/results.json).
Cases are matched by (id, device); only those with a positive median in both
count. Tables per (framework, device, class), per class and overall: how many,
the fraction whose ratio B/A is within 5% and 10% (|B/A - 1| <= 0.05, 0.10),
the median ratio, and the fraction marked unstable in either run; then the
same for cases of at least 20 us in both runs. The class is run A's
latency.timing.bound; a case the runs classify differently also counts under
"class differs". Then the drift detector (timing.drift_ns) per (framework,
device) and run, each run's wall time, and the two targets (>= 90% of
device-bound cases within 5%, >= 90% of all cases within 10%).

`timers`: runs the suite bench/suites/timing with MudJack on the one device
(--no-baseline; off CUDA its host-bound cases only, by --filter), then bench/agreement/events.py in
separate processes with the same interpreter (CUDA events for the
device-bound ops on cuda; torch.utils.benchmark for the host-bound ops), and
prints per op the ratio mudjack / independent and whether it is within
0.97-1.03 (device-bound) or 0.9-1.1 (host-bound); the class and band are
the op table's, MudJack's own class is shown beside it.

`repeat`: two `timers --json-out` files of the same device, made one after
the other: per class, how many ops each timer (MudJack, the independent
timer, timeit) read within 5% and 10% of its own first reading, so MudJack's
run-to-run agreement stands beside the independent timers' own on the same
ops, measured side by side.

Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import subprocess
import sys
import time
from calendar import timegm
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import ops  # noqa: E402  (the op table; imports no framework)

LONG_NS = 20_000.0
# The issue-47 target counts device-bound cases whose calls take at least this.
DEVICE_LONG_NS = 50_000.0
BANDS = {ops.DEVICE_BOUND: (0.97, 1.03), ops.HOST_BOUND: (0.9, 1.1)}
DIFFERS = "class differs"


# ----------------------------------------------------------------- reading


def newest_results(folder: Path) -> Path | None:
    """The newest DIR/runs/*/results.json(.gz) of a `mudjack run --out DIR`."""
    found = list(folder.glob("runs/*/results.json")) + list(folder.glob("runs/*/results.json.gz"))
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def load(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if p.is_dir():
        newest = newest_results(p)
        if newest is None:
            raise SystemExit(f"no runs/*/results.json under {p}")
        p = newest
    raw = p.read_bytes()
    if p.name.endswith(".gz") or raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    data: dict[str, Any] = json.loads(raw)
    return data


def parse_time(text: str | None) -> float | None:
    """Seconds since the epoch of "2026-11-26T16:22:13.123Z" (fraction and Z optional)."""
    m = re.match(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(\.\d+)?", text or "")
    if not m:
        return None
    whole = timegm(tuple(int(x) for x in m.groups()[:6]) + (0, 0, 0))
    return whole + (float(m.group(7)) if m.group(7) else 0.0)


def wall_s(results: dict[str, Any]) -> float | None:
    run = results.get("run") or {}
    a, b = parse_time(run.get("created_at")), parse_time(run.get("finished_at"))
    return None if a is None or b is None else b - a


def timing_of(case: dict[str, Any]) -> dict[str, Any]:
    return ((case.get("latency") or {}).get("timing")) or {}


def median_of(case: dict[str, Any]) -> float | None:
    m = (case.get("latency") or {}).get("median_ns")
    return float(m) if isinstance(m, (int, float)) and m > 0 else None


def bound_of(case: dict[str, Any]) -> str:
    return timing_of(case).get("bound") or "unknown"


def drift_normalized(case: dict[str, Any]) -> float | None:
    """A host-bound case's median of round medians, each divided by the
    drift detector read beside that round (unitless: the case's time in
    detector calls). Cancels a host that changed speed between rounds or
    runs, as far as the case slows with the detector. None without one
    detector reading per round."""
    both = rounds_of(case)
    if bound_of(case) != "host_bound" or both is None:
        return None
    return float(ESTIMATORS["median of rounds / detector"](*both))


# Candidate estimators of a case's time from its rounds (latency.timing.rounds,
# one median per round, and drift_ns, the detector beside each round), for
# the `estimators` table of `pair`: which one two runs agree on best. MudJack
# reports the first ("median of rounds").
ESTIMATORS: dict[str, Any] = {
    "median of rounds": lambda rounds, detector: statistics.median(rounds),
    "min of rounds": lambda rounds, detector: min(rounds),
    "first round only": lambda rounds, detector: rounds[0],
    "median of rounds / detector": lambda rounds, detector: statistics.median(r / d for r, d in zip(rounds, detector)),
    "min of rounds / detector": lambda rounds, detector: min(r / d for r, d in zip(rounds, detector)),
}


def rounds_of(case: dict[str, Any]) -> tuple[list[float], list[float]] | None:
    """A case's round medians and detector readings, one each per round, all positive."""
    t = timing_of(case)
    rounds, detector = t.get("rounds") or [], t.get("drift_ns") or []
    values = [*rounds, *detector]
    if not rounds or len(rounds) != len(detector) or not all(isinstance(v, (int, float)) and v > 0 for v in values):
        return None
    return [float(r) for r in rounds], [float(d) for d in detector]


def estimator_table(ta: dict[tuple[str, str], dict[str, Any]], tb: dict[tuple[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """Per estimator and class: within 5% and 10%, as measured and after
    dividing out the runs' whole shift (the median ratio over the class)."""
    out = []
    keys = [k for k in sorted(ta.keys() & tb.keys()) if rounds_of(ta[k]) and rounds_of(tb[k])]
    for name, fn in ESTIMATORS.items():
        for cls in sorted({bound_of(ta[k]) for k in keys}) + ["all"]:
            ks = [k for k in keys if cls in ("all", bound_of(ta[k]))]
            if not ks:
                continue
            ratios = []
            for k in ks:
                ra, rb = rounds_of(ta[k]), rounds_of(tb[k])
                assert ra and rb
                ratios.append(fn(*rb) / fn(*ra))
            shift = statistics.median(ratios)
            n = len(ratios)
            out.append({"group": f"{name}: {cls}", "n": n,
                        "within_5pct": sum(abs(x - 1) <= 0.05 for x in ratios) / n,
                        "within_10pct": sum(abs(x - 1) <= 0.10 for x in ratios) / n,
                        "median_ratio": shift,
                        "unshifted_5pct": sum(abs(x / shift - 1) <= 0.05 for x in ratios) / n,
                        "unshifted_10pct": sum(abs(x / shift - 1) <= 0.10 for x in ratios) / n})
    return out


def timed_cases(results: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(c["id"], c.get("device", "")): c for c in results.get("cases", []) if median_of(c)}


def percentile(sorted_xs: list[float], q: float) -> float:
    """Linear interpolation between closest ranks; q in [0, 1]."""
    pos = q * (len(sorted_xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


# ----------------------------------------------------------------- pair


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = [r["ratio"] for r in rows]
    n = len(rows)
    return {
        "n": n,
        "within_5pct": sum(abs(x - 1) <= 0.05 for x in ratios) / n if n else None,
        "within_10pct": sum(abs(x - 1) <= 0.10 for x in ratios) / n if n else None,
        "median_ratio": statistics.median(ratios) if n else None,
        "unstable": sum(r["unstable"] for r in rows) / n if n else None,
    }


def grouped(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(rows, key=lambda r: (r["framework"], r["device"], r["class"])):
        groups.setdefault(f"{r['framework']} {r['device']} {r['class']}", []).append(r)
    for cls in sorted({r["class"] for r in rows}):
        groups[f"all {cls}"] = [r for r in rows if r["class"] == cls]
    groups[DIFFERS] = [r for r in rows if r["class_b"] != r["class"]]
    groups["all"] = rows
    return [{"group": g, **summarise(rs)} for g, rs in groups.items()]


def drift(results: dict[str, Any]) -> list[dict[str, Any]]:
    per: dict[tuple[str, str], list[float]] = {}
    for c in results.get("cases", []):
        values = [float(x) for x in timing_of(c).get("drift_ns") or [] if isinstance(x, (int, float)) and x > 0]
        if values:
            per.setdefault((c.get("framework", ""), c.get("device", "")), []).extend(values)
    out = []
    for (fw, dev), xs in sorted(per.items()):
        xs.sort()
        p10, p50, p90 = (percentile(xs, q) for q in (0.1, 0.5, 0.9))
        out.append({"group": f"{fw} {dev}", "n": len(xs), "p10_ns": p10, "p50_ns": p50, "p90_ns": p90, "p90_over_p10": p90 / p10})
    return out


def fmt(v: Any, pct: bool = False) -> str:
    if v is None:
        return "-"
    if pct:
        return f"{100 * v:.0f}%"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.0f}"
    return str(v)


def print_table(rows: list[dict[str, Any]], cols: list[str], pct: tuple[str, ...] = ()) -> None:
    cells = [[fmt(r.get(c), c in pct) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for row in cells:
        print("  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(row, widths))))


def pair(args: argparse.Namespace) -> int:
    a, b = load(args.a), load(args.b)
    ta, tb = timed_cases(a), timed_cases(b)
    rows = []
    for key in sorted(ta.keys() & tb.keys()):
        ca, cb = ta[key], tb[key]
        ma, mb = median_of(ca), median_of(cb)
        assert ma and mb
        rows.append({
            "id": key[0], "device": key[1], "framework": ca.get("framework", ""),
            "class": bound_of(ca), "class_b": bound_of(cb),
            "a_ns": ma, "b_ns": mb, "ratio": mb / ma,
            "unstable": bool(timing_of(ca).get("unstable") or timing_of(cb).get("unstable")),
        })
    # The same pairs with host-bound cases in detector units (drift_normalized).
    norm_rows = []
    for r in rows:
        na, nb = drift_normalized(ta[(r["id"], r["device"])]), drift_normalized(tb[(r["id"], r["device"])])
        norm_rows.append({**r, "ratio": nb / na} if na and nb else r)
    long_rows = [r for r in rows if min(r["a_ns"], r["b_ns"]) >= LONG_NS]
    estimators = estimator_table(ta, tb)
    # Device-bound cases of >= 50 us: MudJack's estimate beside the plain
    # reading of the same CUDA events (the median of every event span the
    # run kept, rounds pooled; raw results only: --publish drops samples).
    device_rows = [r for r in rows if r["class"] == ops.DEVICE_BOUND and r["class_b"] == ops.DEVICE_BOUND
                   and min(r["a_ns"], r["b_ns"]) >= DEVICE_LONG_NS]
    events_rows = []
    for r in device_rows:
        sa = ta[(r["id"], r["device"])].get("latency", {}).get("samples_ns") or []
        sb = tb[(r["id"], r["device"])].get("latency", {}).get("samples_ns") or []
        if sa and sb:
            events_rows.append({**r, "ratio": statistics.median(sb) / statistics.median(sa)})
    device_table = [{"group": "mudjack", **summarise(device_rows)}]
    if events_rows:
        device_table.append({"group": "CUDA events, pooled median", **summarise(events_rows)})
    report: dict[str, Any] = {
        "a": {"path": str(args.a), "timed": len(ta), "wall_s": wall_s(a), "drift": drift(a)},
        "b": {"path": str(args.b), "timed": len(tb), "wall_s": wall_s(b), "drift": drift(b)},
        "matched": len(rows),
        "groups": grouped(rows),
        "groups_20us": grouped(long_rows),
        "groups_drift_normalized": grouped(norm_rows),
        "estimators": estimators,
        "device_50us": device_table,
        "cases": rows,
    }
    cols = ["group", "n", "within_5pct", "within_10pct", "median_ratio", "unstable"]
    pct = ("within_5pct", "within_10pct", "unstable")
    print(f"A: {args.a}: {len(ta)} timed cases; B: {args.b}: {len(tb)}; matched by (id, device): {len(rows)}")
    print("\nratio B/A, every matched case (class: run A's)")
    print_table(report["groups"], cols, pct)
    print(f"\nratio B/A, cases >= {LONG_NS / 1000:.0f} us in both runs")
    print_table(report["groups_20us"], cols, pct)
    print("\nratio B/A with host-bound cases normalized by the drift detector (each round over its detector reading)")
    print_table(report["groups_drift_normalized"], cols, pct)
    print("\nestimators from each case's rounds (cases with a round median and a detector reading per round "
          "in both runs); unshifted: after dividing out the median ratio of the class")
    print_table(estimators, ["group", "n", "within_5pct", "within_10pct", "median_ratio", "unshifted_5pct", "unshifted_10pct"],
                ("within_5pct", "within_10pct", "unshifted_5pct", "unshifted_10pct"))
    print(f"\ndevice-bound cases >= {DEVICE_LONG_NS / 1000:.0f} us in both runs (both runs' class): "
          "MudJack's estimate and the same runs' CUDA events")
    print_table(device_table, cols, pct)
    for name in ("a", "b"):
        print(f"\ndrift detector, run {name.upper()} (per-call ns of the fixed op beside each case and round)")
        print_table(report[name]["drift"], ["group", "n", "p10_ns", "p50_ns", "p90_ns", "p90_over_p10"])
    walls = [report[n]["wall_s"] for n in ("a", "b")]
    print("\nwall time: " + ", ".join(f"run {n} " + ("-" if w is None else f"{w:.1f} s") for n, w in zip("AB", walls)))
    by_group = {g["group"]: g for g in report["groups"]}
    targets = [("device_bound cases within 5%", by_group.get(f"all {ops.DEVICE_BOUND}", {}).get("within_5pct")),
               (f"device_bound cases >= {DEVICE_LONG_NS / 1000:.0f} us within 5%", device_table[0].get("within_5pct")),
               ("all timed cases within 10%", by_group["all"]["within_10pct"])]
    report["targets"] = {name: {"fraction": v, "met": v is not None and v >= 0.9} for name, v in targets}
    for name, v in targets:
        print(f"target: >= 90% of {name}: {fmt(v, pct=True)} ({'met' if v is not None and v >= 0.9 else 'NOT met'})")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=1))
    return 0


# ----------------------------------------------------------------- timers


def host_filter() -> str:
    """A --filter regex (RE2, partial match) selecting the host-bound cases."""
    ids = [op.case_id.replace(".", r"\.") for op in ops.OPS if op.bound == ops.HOST_BOUND]
    return "^(" + "|".join(ids) + ")$"


def run_independent(python: str, device: str, host: bool, rounds: int, timer: str = "benchmark") -> dict[str, float]:
    cmd = [python, str(HERE / "events.py"), "--device", device] + (["--host", "--rounds", str(rounds), "--timer", timer] if host else [])
    print("$ " + " ".join(cmd), file=sys.stderr)
    proc = subprocess.run(cmd, check=False, stdout=subprocess.PIPE, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        print(f"events.py failed (exit {proc.returncode})", file=sys.stderr)
        return {}
    result: dict[str, float] = json.loads(lines[-1])
    return result


def timers(args: argparse.Namespace) -> int:
    out = Path(args.out)
    cmd = [args.mudjack, "run", "--suite-dir", str(ROOT / "bench" / "suites" / "timing"), "--framework", "torch",
           "--device", args.device, "--no-baseline", "--out", str(out)] + args.run_arg
    if args.python:
        cmd += ["--python", f"torch={args.python}"]
    if not args.device.startswith("cuda"):
        cmd += ["--filter", host_filter()]  # device-bound ops: no independent timer off CUDA, and slow
    print("$ " + " ".join(cmd), file=sys.stderr)
    started = time.time()
    proc = subprocess.run(cmd, check=False)
    path = newest_results(out)
    if path is None or path.stat().st_mtime < started:
        print(f"mudjack run exited {proc.returncode} and wrote no new results under {out}", file=sys.stderr)
        return proc.returncode or 1
    results = load(path)
    python = args.python or ((results.get("run") or {}).get("options") or {}).get("python", {}).get("torch") or "python3"

    independent: dict[str, float] = {}
    if args.device.startswith("cuda"):
        independent.update(run_independent(python, args.device, False, 1))
    independent.update(run_independent(python, args.device, True, args.host_rounds))
    by_timeit = run_independent(python, args.device, True, args.host_rounds, "timeit")

    cases = {c["id"]: c for c in results.get("cases", []) if c.get("device") == args.device}
    rows = []
    for op in ops.OPS:
        c = cases.get(op.case_id) or {}
        mj, ind = median_of(c), independent.get(op.case_id)
        if not c and ind is None:
            continue  # not run here (device-bound ops off CUDA)
        lo, hi = BANDS[op.bound]
        ratio = mj / ind if mj and ind else None
        ti = by_timeit.get(op.case_id)
        rows.append({
            "case": op.case_id, "class": op.bound, "mudjack_class": bound_of(c) if c else None,
            "rule": timing_of(c).get("rule"), "outcome": c.get("outcome"),
            "mudjack_ns": mj, "independent_ns": ind, "ratio": ratio,
            "within": None if ratio is None else lo <= ratio <= hi,
            "timeit_ns": ti, "ratio_timeit": mj / ti if mj and ti else None,
            "unstable": timing_of(c).get("unstable"), "spread": timing_of(c).get("spread"),
        })
    print(f"\nresults: {path}")
    print_table(rows, ["case", "class", "mudjack_class", "rule", "mudjack_ns", "independent_ns", "ratio", "within",
                       "timeit_ns", "ratio_timeit", "unstable", "spread"])
    summary = []
    for cls, (lo, hi) in BANDS.items():
        judged = [r for r in rows if r["class"] == cls and r["within"] is not None]
        ok = sum(bool(r["within"]) for r in judged)
        summary.append({"class": cls, "band": [lo, hi], "judged": len(judged), "within": ok,
                        "class_agrees": sum(r["mudjack_class"] == cls for r in judged)})
        by_ti = [r["ratio_timeit"] for r in rows if r["class"] == cls and r["ratio_timeit"] is not None]
        summary[-1]["within_timeit"] = sum(lo <= x <= hi for x in by_ti)
        summary[-1]["judged_timeit"] = len(by_ti)
        print(f"{cls}: {ok}/{len(judged)} within {lo}-{hi}; MudJack's class agrees on {summary[-1]['class_agrees']}"
              + (f"; against timeit {summary[-1]['within_timeit']}/{len(by_ti)}" if by_ti else ""))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"results": str(path), "device": args.device, "rows": rows, "summary": summary}, indent=1))
    return 0


def repeat(args: argparse.Namespace) -> int:
    a, b = (json.loads(Path(f).read_text()) for f in (args.a, args.b))
    rows_b = {r["case"]: r for r in b["rows"]}
    timers = (("mudjack", "mudjack_ns"), ("independent", "independent_ns"), ("timeit", "timeit_ns"))
    table = []
    for cls in BANDS:
        for name, key in timers:
            ratios = []
            for r in a["rows"]:
                other = rows_b.get(r["case"])
                if r["class"] == cls and other and r.get(key) and other.get(key):
                    ratios.append(other[key] / r[key])
            if not ratios:
                continue
            table.append({"class": cls, "timer": name, "n": len(ratios),
                          "within_5pct": sum(abs(x - 1) <= 0.05 for x in ratios) / len(ratios),
                          "within_10pct": sum(abs(x - 1) <= 0.10 for x in ratios) / len(ratios),
                          "median_ratio": statistics.median(ratios)})
    print(f"run to run, {a.get('device')}: {args.a} then {args.b}")
    print_table(table, ["class", "timer", "n", "within_5pct", "within_10pct", "median_ratio"])
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pair", help="agreement of two results.json")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--json-out")
    t = sub.add_parser("timers", help="MudJack against independent timers on bench/suites/timing")
    t.add_argument("--mudjack", default=str(ROOT / "build" / "mudjack"))
    t.add_argument("--device", required=True)
    t.add_argument("--python", help="the torch interpreter (default: the one MudJack used)")
    t.add_argument("--out", default="/tmp/mudjack-timing")
    t.add_argument("--run-arg", action="append", default=[], help="more for `mudjack run`, e.g. --run-arg=--budget-ms=300 (repeatable)")
    t.add_argument("--host-rounds", type=int, default=5, help="events.py --host --rounds: rounds over the host-bound ops")
    t.add_argument("--json-out")
    r = sub.add_parser("repeat", help="run-to-run agreement of two timers --json-out files, per timer")
    r.add_argument("a")
    r.add_argument("b")
    args = ap.parse_args()
    return {"pair": pair, "timers": timers, "repeat": repeat}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
