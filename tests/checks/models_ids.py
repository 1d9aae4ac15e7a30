#!/usr/bin/env python3
"""The models suite lists the same case ids as before its generated corpora
became manifests (issue 49): `mudjack list --suite models` against the sorted
ids committed beside this file (models_ids.txt.gz, 10,589 ids of 9ea70a4,
when the corpora were 1,945 scripts). A model added or renamed on purpose
updates the file:

  tests/checks/models_ids.py BINARY            check (CTest models_ids)
  tests/checks/models_ids.py BINARY --write    rewrite models_ids.txt.gz

Reads this checkout's suites (MUDJACK_DATA_DIR), whatever BINARY was built from.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IDS = Path(__file__).resolve().with_name("models_ids.txt.gz")


def listed(binary: str) -> list[str]:
    """The sorted case ids `list --suite models` prints for this checkout."""
    env = {**os.environ, "MUDJACK_DATA_DIR": str(ROOT)}
    run = subprocess.run([binary, "list", "--suite", "models", "--json"], capture_output=True, text=True, env=env,
                         check=False)
    if run.returncode != 0:
        sys.exit(f"models_ids: {binary} list --suite models exited {run.returncode}: {run.stderr.strip()[:400]}")
    return sorted(case["id"] for case in json.loads(run.stdout))


def write(ids: list[str]) -> None:
    with open(IDS, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
        f.write(("\n".join(ids) + "\n").encode())


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or argv[1:] not in ([], ["--write"]):
        sys.exit("usage: tests/checks/models_ids.py BINARY [--write]")
    ids = listed(argv[0])
    if argv[1:] == ["--write"]:
        write(ids)
        print(f"models_ids: wrote {len(ids)} ids to {IDS.name}")
        return 0
    want = gzip.decompress(IDS.read_bytes()).decode().split()
    gone, new = sorted(set(want) - set(ids)), sorted(set(ids) - set(want))
    if gone or new or len(ids) != len(want):
        print(f"models_ids: {len(ids)} ids listed, {len(want)} in {IDS.name}; {len(gone)} gone "
              f"(first: {gone[:3]}), {len(new)} new (first: {new[:3]})", file=sys.stderr)
        return 1
    print(f"models_ids: the {len(ids)} ids of {IDS.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
