#!/usr/bin/env python3
"""Where a run's time went (issue 47): per (framework, device, mode), the
cases' wall time (every timing round) and the probe's phases of their first
round (`extra.phases_ns`, results 1.12: build, cold call, turn wait, warm-up,
samples, device pass, detector, outputs, save, accuracy), in seconds summed
over the cases; and each lane's first and last case, in seconds from the
run's first case, which says which lane the run waited for.

    python3 bench/phases/phases.py [--per-case] RESULTS.json[.gz] [...]

A markdown table per file; --per-case adds one row per case (its first
round's phases, in seconds), the models suite's breakdown. Standard library
only.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter, defaultdict
from datetime import datetime
from typing import Any

COLUMNS = [("build", "build"), ("timing.cold", "cold call"), ("timing.turn", "turn wait"),
           ("timing.warmup", "warm-up"), ("timing.samples", "samples"), ("timing.device_pass", "device pass"),
           ("detector", "detector"), ("outputs", "outputs"), ("save", "save"), ("accuracy", "accuracy")]


def when(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def table(doc: dict[str, Any]) -> str:
    cases = [c for c in doc["cases"] if c.get("started_at") and c.get("finished_at")]
    if not cases:
        return "no timed cases"
    t0 = min(when(c["started_at"]) for c in cases)
    sums: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    span: dict[tuple[str, str], list[float]] = {}
    for c in cases:
        s = sums[(c["framework"], c["device"], c["mode"])]
        s["cases"] += 1
        s["wall"] += c.get("wall_s") or 0
        for name, ns in ((c.get("extra") or {}).get("phases_ns") or {}).items():
            s[name] += ns / 1e9
        lane = (c["framework"], c["device"])
        first, last = when(c["started_at"]) - t0, when(c["finished_at"]) - t0
        span[lane] = [min(span.get(lane, [first, last])[0], first), max(span.get(lane, [first, last])[1], last)]
    out = ["lanes, s from the first case: " + "; ".join(f"{fw} on `{dev}` {a:.0f}-{b:.0f}" for (fw, dev), (a, b) in sorted(span.items())), "",
           "| framework, device, mode | cases | case wall (all rounds) | " + " | ".join(t for _, t in COLUMNS) + " |",
           "|---|" + "--:|" * (len(COLUMNS) + 2)]
    for (fw, dev, mode), s in sorted(sums.items()):
        out.append(f"| {fw} `{dev}` {mode} | {s['cases']:.0f} | {s['wall']:.0f} | " + " | ".join(f"{s[k]:.0f}" for k, _ in COLUMNS) + " |")
    return "\n".join(out)


def per_case(doc: dict[str, Any]) -> str:
    out = ["| case | device | mode | wall | " + " | ".join(t for _, t in COLUMNS) + " |",
           "|---|---|---|" + "--:|" * (len(COLUMNS) + 1)]
    for c in sorted(doc["cases"], key=lambda c: (c["device"], c["mode"], c["id"])):
        phases = Counter({k: ns / 1e9 for k, ns in ((c.get("extra") or {}).get("phases_ns") or {}).items()})
        out.append(f"| {c['id']} | `{c['device']}` | {c['mode']} | {c.get('wall_s') or 0:.1f} | "
                   + " | ".join(f"{phases[k]:.1f}" for k, _ in COLUMNS) + " |")
    return "\n".join(out)


def main(args: list[str]) -> int:
    if not args or {"-h", "--help"} & set(args):
        print(__doc__, file=sys.stderr)
        return 0 if args else 2
    cases = "--per-case" in args
    paths = [a for a in args if a != "--per-case"]
    unknown = [a for a in paths if a.startswith("-")]
    if unknown:
        print(f"phases: unknown option {unknown[0]} (see --help)", file=sys.stderr)
        return 2
    for path in paths:
        try:
            with gzip.open(path) if path.endswith(".gz") else open(path, "rb") as f:
                doc = json.load(f)
        except (OSError, ValueError) as exc:
            print(f"phases: cannot read {path}: {exc}", file=sys.stderr)
            return 1
        print(f"## {path}\n\n{table(doc)}\n")
        if cases:
            print(per_case(doc) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
