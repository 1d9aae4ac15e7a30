#!/usr/bin/env python3
"""A device's verdicts depend only on that device's outcomes: every published
run under results/ that holds more than one device is judged twice with this
build's `mudjack report` — as stored, and with only its baseline device's
cases — and the baseline device's rows (verdict, reason, unsupported and
kernel_missing dtypes) must be the same both ways.

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


def rows(mudjack: str, path: Path, device: str) -> dict[tuple[str, str], dict[str, Any]]:
    out = subprocess.run([mudjack, "report", str(path), "--format", "json"], capture_output=True, text=True, check=True).stdout
    return {(r["framework"], r["function"]): {f: r.get(f) for f in FIELDS} for r in json.loads(out)["verdicts"] if r["device"] == device}


def check(mudjack: str, src: Path, tmp: Path) -> int:
    run = json.load(gzip.open(src) if src.suffix == ".gz" else src.open())
    devices = sorted({c["device"] for c in run["cases"]})
    baseline = (run.get("run") or {}).get("baseline") or "cpu"
    if len(devices) < 2 or baseline not in devices:
        return 0
    both, alone = tmp / "both.json", tmp / "alone.json"
    both.write_text(json.dumps(run))
    run["cases"] = [c for c in run["cases"] if c["device"] == baseline]
    alone.write_text(json.dumps(run))
    a, b = rows(mudjack, alone, baseline), rows(mudjack, both, baseline)
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    print(f"{src}: {len(a)} {baseline} rows judged alone and beside {', '.join(d for d in devices if d != baseline)}: {len(differ)} differ")
    for k in differ[:5]:
        print(f"  {k[0]} {k[1]}: alone {a.get(k)}\n    beside {b.get(k)}")
    return len(differ)


def main() -> int:
    mudjack = sys.argv[1]
    root = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[2] / "results"
    runs = sorted(root.rglob("results.json.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        differ = sum(check(mudjack, p, Path(tmp)) for p in runs)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
