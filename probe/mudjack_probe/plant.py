"""Can a case's checks see a wrong answer? Plants one and counts.

`python -m mudjack_probe.plant --framework F --device D --suite-dir DIR
[--cases FILE] [--match TEXT] --out FILE` runs each listed case (default:
every case of the framework) once (no timing), evaluates its
checks on the real outputs, then on planted wrong outputs:

- `scaled`: every element of every floating or complex output times (1+1e-2);
  integer outputs get +1 and booleans are flipped, element 0 of each;
- `nan`: one element of every floating or complex output set to NaN (no plant
  where no output can hold a NaN).

A plant is caught when at least one check fails on it. A plant that leaves
every output as it was (all zeros scaled) has no effect and is not counted.
One JSON line per case goes to `--out`: the case, whether its checks passed,
the kinds of its checks, and per plant `caught`, `missed` or `none`.

bench/plant/plant-checks.py drives it over a results.json and prints the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from . import api
from .runner import _check_ok, call_once


def _scaled(arrays: list[np.ndarray]) -> list[np.ndarray] | None:
    out, changed = [], False
    for a in arrays:
        b = np.array(a, copy=True, order="C")  # C order: reshape(-1) is then a view, so writes land
        if b.size and b.dtype.kind in "fc":
            with np.errstate(all="ignore"):
                b = b * b.dtype.type(1 + 1e-2)
        elif b.size and b.dtype.kind in "iu":
            b.reshape(-1)[0] += 1
        elif b.size and b.dtype.kind == "b":
            b.reshape(-1)[0] = not b.reshape(-1)[0]
        changed = changed or not np.array_equal(a, b, equal_nan=b.dtype.kind in "fc")
        out.append(b)
    return out if changed else None


def _nan(arrays: list[np.ndarray]) -> list[np.ndarray] | None:
    out, changed = [], False
    for a in arrays:
        b = np.array(a, copy=True, order="C")  # C order: reshape(-1) is then a view, so writes land
        if b.size and b.dtype.kind in "fc":
            b.reshape(-1)[b.size // 2] = np.nan
            changed = True
        out.append(b)
    return out if changed else None


def plant_case(adapter: Any, case: api.CaseDef, seed: int) -> dict[str, Any]:
    row: dict[str, Any] = {"case": case.id}
    try:
        call, out = call_once(adapter, case, seed)
        with adapter.scope():
            arrays = [a for a, _ in adapter.to_numpy(out)]
            inputs = [a for a, _ in adapter.to_numpy(call.args)] if call.checks else []
    except Exception as exc:  # the case did not run here: nothing to plant
        row.update(ran=False, error=f"{type(exc).__name__}: {str(exc)[:200]}")
        return row
    row.update(ran=True, kinds=sorted({c.kind for c in call.checks}),
               passed=all(_check_ok(c.fn, [(a, "") for a in arrays], [(i, "") for i in inputs]) for c in call.checks))
    for name, planted in (("scaled", _scaled(arrays)), ("nan", _nan(arrays))):
        if planted is None or not call.checks:
            row[name] = "none" if planted is None else "missed"
            continue
        wrong = [(a, "") for a in planted]
        ins = [(i, "") for i in inputs]
        row[name] = "caught" if any(not _check_ok(c.fn, wrong, ins) for c in call.checks) else "missed"
    return row


def main() -> int:
    parser = argparse.ArgumentParser(prog="mudjack_probe.plant")
    parser.add_argument("--framework", required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--suite-dir", action="append", default=[])
    parser.add_argument("--cases", help="a file of case ids, one a line (default: every case of the framework)")
    parser.add_argument("--match", default="", help="only the case ids containing this text")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from . import adapters
    from .loading import load_suites

    adapter = adapters.load(args.framework)
    adapter.select(args.device)
    cases = load_suites(args.suite_dir, args.framework)
    if args.cases:
        with open(args.cases, encoding="utf-8") as f:
            wanted = [line.strip() for line in f if line.strip()]
    else:
        wanted = list(cases)
    wanted = [c for c in wanted if args.match in c]
    with open(args.out, "w", encoding="utf-8") as out:
        for case_id in wanted:
            case = cases.get(case_id)
            row = {"case": case_id, "ran": False, "error": "not in the suite"} if case is None \
                else plant_case(adapter, case, args.seed)
            out.write(json.dumps(row) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
