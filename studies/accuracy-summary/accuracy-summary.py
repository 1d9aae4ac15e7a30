#!/usr/bin/env python3
"""What the accuracy oracle and the dtype grid found in one run: every
divergence with its cause, the causes counted, and the failures that happen
only on some devices (portability failures) apart from those on every device
(the function lacks the dtype).

  studies/accuracy-summary/accuracy-summary.py RUN_DIR/results.json [--all]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

# The engine's outcome flags (schemas/vocabulary.json, model::props).
OUTCOMES = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "vocabulary.json")
                      .read_text(encoding="utf-8"))["outcome_properties"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--all", action="store_true", help="also list the baseline's own divergences case by case")
    args = parser.parse_args()
    with open(args.results, encoding="utf-8") as f:
        doc = json.load(f)
    baseline = doc["run"]["baseline"]
    cases = doc["cases"]

    print("divergent verdicts by cause (framework, device):")
    by_cause: collections.Counter[tuple[str, str, str]] = collections.Counter()
    for v in doc["verdicts"]:
        if v["verdict"] == "divergent":
            by_cause[(v["framework"], v["device"], v.get("cause") or "full_precision")] += 1
    for (fw, dev, cause), n in sorted(by_cause.items()):
        print(f"  {fw:10} {dev:8} {cause:18} {n}")

    print("\nmismatching cases by cause (framework, device):")
    mism: collections.Counter[tuple[str, str, str]] = collections.Counter()
    for c in cases:
        if c["outcome"] == "mismatch":
            mism[(c["framework"], c["device"], c["numeric"].get("cause") or "check")] += 1
    for (fw, dev, cause), n in sorted(mism.items()):
        print(f"  {fw:10} {dev:8} {cause:18} {n}")

    print("\nevery divergence off the baseline" + (" (and on it)" if args.all else "") + ":")
    for c in sorted(cases, key=lambda c: (c["framework"], c["device"], c["id"])):
        if c["outcome"] != "mismatch" or (c["device"] == baseline and not args.all):
            continue
        n = c["numeric"]
        setting = f" [{n['setting']}]" if n.get("setting") else ""
        print(f"  {c['device']:8} {n.get('cause') or 'check':17} {c['id']}{setting}: {(c['error'] or {}).get('message', '')[:220]}")

    outcome: dict[tuple[str, str], dict[str, str]] = collections.defaultdict(dict)
    for c in cases:
        outcome[(c["framework"], c["id"])][c["device"]] = c["outcome"]
    grid = {c["id"] for c in cases if c.get("grid")}
    only: list[str] = []
    everywhere = 0
    for (fw, cid), devs in sorted(outcome.items()):
        tried = {d: o for d, o in devs.items() if OUTCOMES[o]["attempted"]}
        bad = [d for d, o in tried.items() if OUTCOMES[o]["failed"]]
        if len(tried) >= 2 and len(bad) == len(tried) and all(o == "fail" for o in tried.values()):
            everywhere += 1
        elif bad and len(bad) < len(tried):
            only.append(f"  {','.join(sorted(bad)):8} {'grid ' if cid in grid else '     '}{cid}")
    print(f"\ncases failing on every device that tried them (the function lacks the dtype): {everywhere}")
    print(f"cases failing only on some devices (portability failures): {len(only)}")
    print("\n".join(only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
