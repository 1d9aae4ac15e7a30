#!/usr/bin/env python3
"""(function, dtype) coverage of the dtype grid, per framework, from
`mudjack list --json` (docs/design.md, "dtype grid").

Every pair of a listed function and a grid dtype either has a case, or the
function states why not with a reason from the closed list (`excused` in the
listing); anything else is missing. Exit 1 when a pair is missing, or when a
listing names a reason outside the closed list.

  build/mudjack list --suite paper --json | studies/dtype-coverage/dtype-coverage.py
  studies/dtype-coverage/dtype-coverage.py listing.json [--missing]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

# The grid and the excuse reasons as the engine spells them (schemas/vocabulary.json).
_LISTS = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))["$defs"]
GRID = tuple(_LISTS["grid_dtype"]["enum"])
REASONS = tuple(_LISTS["excuse"]["enum"])


def coverage(cases: list[dict]) -> tuple[dict[str, dict[str, int]], list[str], list[str]]:
    has: dict[tuple[str, str], set[str]] = defaultdict(set)
    excused: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for c in cases:
        key = (c["framework"], c["function"])
        has[key].add(c["dtype"])
        excused[key].update(c.get("excused") or {})
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    missing: list[str] = []
    bad: list[str] = []
    for (framework, function), dtypes in sorted(has.items()):
        row = table[framework]
        row["functions"] += 1
        for dtype in GRID:
            row["pairs"] += 1
            reason = excused[(framework, function)].get(dtype)
            if dtype in dtypes:
                row["cases"] += 1
            elif reason in REASONS:
                row["excused"] += 1
            else:
                row["missing"] += 1
                missing.append(f"{framework} {function} {dtype}")
            if reason is not None and reason not in REASONS:
                bad.append(f"{framework} {function} {dtype}: reason {reason!r} is not one of {REASONS}")
    return table, missing, bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("listing", nargs="?", help="mudjack list --json output (default: stdin)")
    parser.add_argument("--missing", action="store_true", help="print every missing pair")
    args = parser.parse_args()
    text = open(args.listing, encoding="utf-8").read() if args.listing else sys.stdin.read()
    try:
        cases = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"dtype-coverage: not a JSON listing: {exc}", file=sys.stderr)
        return 2
    table, missing, bad = coverage(cases)
    print(f"{'framework':12} {'functions':>9} {'pairs':>6} {'case':>6} {'excused':>8} {'missing':>8} "
          f"{'case %':>7} {'case or reason %':>17}")
    for framework, row in sorted(table.items()):
        pairs = row["pairs"]
        print(f"{framework:12} {row['functions']:9} {pairs:6} {row['cases']:6} {row['excused']:8} "
              f"{row['missing']:8} {100 * row['cases'] / pairs:6.1f}% {100 * (row['cases'] + row['excused']) / pairs:16.1f}%")
    if args.missing:
        for line in missing:
            print(f"missing: {line}")
    for line in bad:
        print(f"dtype-coverage: {line}", file=sys.stderr)
    return 1 if missing or bad else 0


if __name__ == "__main__":
    sys.exit(main())
