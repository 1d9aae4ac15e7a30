#!/usr/bin/env python3
"""Facts for a closing note or a results README, from one results.json.

  studies/summarize-run/summarize-run.py RESULTS.json [--baseline cpu]

Prints, per framework: cases per function (min/median/max), outcome counts per
device, wall time per device (sum of the engine's per-case wall time), and
every function whose verdict differs between the baseline and another device,
with the first error that made it differ. Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from collections import Counter, defaultdict
from pathlib import Path

# The engine's outcome flags (schemas/vocabulary.json, model::props).
OUTCOMES = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "vocabulary.json")
                      .read_text(encoding="utf-8"))["outcome_properties"]


def load(path: str) -> dict:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--baseline", default="cpu")
    args = ap.parse_args()
    d = load(args.results)
    cases = d["cases"]
    frameworks = sorted({c["framework"] for c in cases})
    verdicts = {(v["framework"], v["function"], v["device"]): v for v in d["verdicts"]}
    for fw in frameworks:
        mine = [c for c in cases if c["framework"] == fw]
        devices = sorted({c["device"] for c in mine}, key=lambda x: (x != args.baseline, x))
        per_fn = Counter(c["function"] for c in mine if c["device"] == devices[0])
        sizes = sorted(per_fn.values())
        print(f"## {fw}: {len(per_fn)} functions, {sum(sizes)} cases; cases per function "
              f"min {sizes[0]} / median {statistics.median(sizes):g} / max {sizes[-1]}")
        for dev in devices:
            on = [c for c in mine if c["device"] == dev]
            counts = Counter(c["outcome"] for c in on)
            wall = sum(c.get("wall_s") or 0 for c in on)
            v = Counter(vv["verdict"] for (f, _, dd), vv in verdicts.items() if f == fw and dd == dev)
            print(f"- {dev}: outcomes {dict(sorted(counts.items()))}; verdicts {dict(sorted(v.items()))}; "
                  f"wall {wall:.0f} s")
        for dev in devices[1:]:
            diffs = []
            for fn in sorted(per_fn):
                a = verdicts.get((fw, fn, args.baseline))
                b = verdicts.get((fw, fn, dev))
                label = lambda v: v["verdict"] + "".join(f"+{f}" for f in sorted(v.get("flags") or []))
                if a and b and label(a) != label(b):
                    bad = [c for c in mine if c["device"] == dev and c["function"] == fn
                           and not OUTCOMES[c["outcome"]]["fine"]]
                    bad.sort(key=lambda c: c["outcome"] != "mismatch")
                    why = ""
                    if bad:
                        e = bad[0].get("error") or {}
                        why = f" — {bad[0]['variant']}: {bad[0]['outcome']} {e.get('kind') or ''}: {(e.get('message') or '')[:160]}"
                    diffs.append(f"  - {fn}: {label(a)} on {args.baseline}, {label(b)} on {dev}{why}")
            print(f"- verdict or flags differ, {args.baseline} vs {dev}: {len(diffs)} functions")
            for line in diffs:
                print(line)
        print()


if __name__ == "__main__":
    main()
