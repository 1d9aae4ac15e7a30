#!/usr/bin/env python3
"""A device's verdicts depend only on that device's outcomes: every published
run under results/ that holds more than one device is judged with this
build's `mudjack report` as stored and again with fewer devices, and the rows
must not move:

- the baseline's cases alone: the baseline's rows (FIELDS: verdict, reason,
  unsupported and kernel_missing dtypes, failing cases) as judged beside
  every device;
- for every other device d, the baseline's and d's cases: d's rows (FIELDS)
  as judged beside every device (the same judgement when the run has only
  those two devices, so it is not repeated);
- d's cases alone: d's refusal fields (REFUSAL: unsupported, kernel_missing,
  failing) as judged beside every device. A failing case is read from its
  own result only (docs/design.md, "failure, unsupported or kernel
  missing"), so its classification must not need another device; the
  verdict and reason may, since a divergence or a latency ratio is measured
  against the baseline.

    tests/checks/one_device_as_two.py MUDJACK [RESULTS_DIR]
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

FIELDS = ("verdict", "reason", "unsupported", "kernel_missing", "failing")
REFUSAL = ("unsupported", "kernel_missing", "failing")
Rows = dict[tuple[str, str, str], dict[str, Any]]


def judge(mudjack: str, run: dict[str, Any], devices: set[str], tmp: Path) -> Rows:
    """`mudjack report --format json` on the run with only these devices'
    cases: every row, keyed by (device, framework, function)."""
    path = tmp / "run.json"
    path.write_text(json.dumps(dict(run, cases=[c for c in run["cases"] if c["device"] in devices])))
    out = subprocess.run([mudjack, "report", str(path), "--format", "json"], capture_output=True, text=True, check=True).stdout
    return {(r["device"], r["framework"], r["function"]): r for r in json.loads(out)["verdicts"]}


def compare(src: Path, what: str, device: str, part: Rows, full: Rows, fields: tuple[str, ...]) -> int:
    """The device's rows of a partial judgement against the full one, on
    these fields; prints the count and the first rows that differ."""
    a = {k: {f: r.get(f) for f in fields} for k, r in part.items() if k[0] == device}
    b = {k: {f: r.get(f) for f in fields} for k, r in full.items() if k[0] == device}
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    print(f"{src}: {len(a)} {device} rows judged {what}: {len(differ)} differ ({', '.join(fields)})")
    for k in differ[:5]:
        changed = [f for f in fields if (a.get(k) or {}).get(f) != (b.get(k) or {}).get(f)]
        print(f"  {k[1]} {k[2]} on {k[0]}, {', '.join(changed)}:")
        for f in changed:
            print(f"    {f}: {what}: {(a.get(k) or {}).get(f)!r}\n    {f}: beside every device: {(b.get(k) or {}).get(f)!r}")
    return len(differ)


def check(mudjack: str, src: Path, tmp: Path) -> int:
    with gzip.open(src, "rt") if src.suffix == ".gz" else src.open() as f:
        run = json.load(f)
    devices = {c["device"] for c in run["cases"]}
    baseline = (run.get("run") or {}).get("baseline") or "cpu"
    if len(devices) < 2 or baseline not in devices:
        return 0
    full = judge(mudjack, run, devices, tmp)
    differ = compare(src, "alone", baseline, judge(mudjack, run, {baseline}, tmp), full, FIELDS)
    for d in sorted(devices - {baseline}):
        if devices != {baseline, d}:
            differ += compare(src, f"beside {baseline} only", d, judge(mudjack, run, {baseline, d}, tmp), full, FIELDS)
        differ += compare(src, "alone", d, judge(mudjack, run, {d}, tmp), full, REFUSAL)
    return differ


def main() -> int:
    mudjack = sys.argv[1]
    root = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[2] / "results"
    runs = sorted(root.rglob("results.json.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        differ = sum(check(mudjack, p, Path(tmp)) for p in runs)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
