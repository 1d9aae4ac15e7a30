#!/usr/bin/env python3
"""Published runs re-judge to themselves: every results.json(.gz) under
results/ is judged again by this build's `mudjack report` and every
device's verdict rows (verdict, reason, unsupported, kernel_missing,
failing, flags) must equal the stored ones. A difference means the page
was judged by another engine (regenerate it: --write) or the published form
lost what the judge needs.

    tests/checks/published_rejudge.py MUDJACK [RESULTS_DIR] [--write | --all]

--write re-publishes each differing run in place with this build
(`mudjack report FILE --publish`): its results.json.gz and summary.md.
--all re-publishes every run outside history/ the same way (a publish
that drops more than before, e.g. the artifact paths, shrinks them all).
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

FIELDS = ("verdict", "reason", "unsupported", "kernel_missing", "failing", "flags")
Row = dict[str, Any]


def rows(doc: dict[str, Any]) -> dict[tuple[str, str, str], Row]:
    """(framework, function, device) -> the judged fields; an absent list is empty."""
    out: dict[tuple[str, str, str], Row] = {}
    for v in doc.get("verdicts", []):
        out[(v["framework"], v["function"], v["device"])] = {
            f: v.get(f) if f in ("verdict", "reason") else (v.get(f) or []) for f in FIELDS}
    return out


def load(path: Path) -> dict[str, Any]:
    with gzip.open(path) if path.suffix == ".gz" else path.open("rb") as f:
        return json.load(f)  # type: ignore[no-any-return]


def rejudged(mudjack: str, path: Path) -> dict[str, Any]:
    out = subprocess.run([mudjack, "report", str(path), "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def republish(mudjack: str, path: Path) -> None:
    """The run judged by this build, written over its published files."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([mudjack, "report", str(path), "--publish", tmp], capture_output=True, text=True, check=True)
        write(path, Path(tmp, "results.json").read_bytes())
        summary = path.parent / "summary.md"
        if summary.exists():
            shutil.copyfile(Path(tmp, "summary.md"), summary)
        elif summary.with_suffix(".md.gz").exists():
            write(summary.with_suffix(".md.gz"), Path(tmp, "summary.md").read_bytes())


def write(path: Path, data: bytes) -> None:
    """`data` to `path`, gzipped (without a timestamp) when it ends in .gz."""
    if path.suffix != ".gz":
        path.write_bytes(data)
        return
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(data)


def main(argv: list[str]) -> int:
    every = "--all" in argv
    write = "--write" in argv or every
    args = [a for a in argv[1:] if a not in ("--write", "--all")]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    mudjack = args[0]
    root = Path(args[1]) if len(args) > 1 else Path(__file__).resolve().parents[2] / "results"
    files = sorted(p for p in root.rglob("results.json*") if p.name in ("results.json", "results.json.gz"))
    bad = 0
    for path in files:
        stored, now = rows(load(path)), rows(rejudged(mudjack, path))
        differ = sorted(k for k in stored.keys() | now.keys() if stored.get(k) != now.get(k))
        if not differ and not (every and "history" not in path.relative_to(root).parts):
            continue
        if write:
            republish(mudjack, path)
            after = rows(load(path))
            differ = sorted(k for k in now.keys() | after.keys() if now.get(k) != after.get(k))
            print(f"{path.relative_to(root)}: re-published; {len(differ)} rows differ after")
            bad += bool(differ)
            continue
        bad += 1
        print(f"{path.relative_to(root)}: {len(differ)} of {len(now)} verdict rows differ from the stored ones")
        for k in differ[:8]:
            was, is_ = stored.get(k) or {}, now.get(k) or {}
            fields = [f for f in FIELDS if was.get(f) != is_.get(f)]
            print(f"  {k[0]} {k[1]} on {k[2]}: " + "; ".join(f"{f} {str(was.get(f))[:80]!s} -> {str(is_.get(f))[:80]!s}" for f in fields))
    print(f"published_rejudge: {len(files)} published runs, {bad} with verdict rows that differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
