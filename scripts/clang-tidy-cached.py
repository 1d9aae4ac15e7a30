#!/usr/bin/env python3
"""clang-tidy over C++ sources, two at a time, skipping a source whose clean
result for the very same input is cached.

The key of a source is the sha256 of clang-tidy's version, .clang-tidy, the
source's compile flags and its preprocessed text (every header it includes,
as the compiler sees it), so any change that could change a finding runs
clang-tidy again; only clean results are cached, so a finding is printed on
every run until it is fixed. The cache lives outside the checkout
(MUDJACK_CACHE_DIR, else ~/.cache/mudjack, /clang-tidy), so clones share it.

    scripts/clang-tidy-cached.py BUILD_DIR SOURCE...

Exit status 0 when every source is clean, 1 when any is not (its output is
printed), 2 on a usage or environment error.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

COMPILER = re.compile(r"(^|/)(g\+\+|c\+\+|clang\+\+)(-[0-9.]+)?$")
NOISE = re.compile(r"warnings generated|^Suppressed|^Use -header-filter")


def cache_dir() -> Path:
    base = os.environ.get("MUDJACK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mudjack")
    return Path(base) / "clang-tidy"


def compile_args(entry: dict[str, object]) -> list[str]:
    """The compiler's arguments for one entry, without launcher, -c and -o."""
    args = entry.get("arguments")
    words = list(args) if isinstance(args, list) else str(entry["command"]).split()
    start = next((i for i, w in enumerate(words) if COMPILER.search(w)), None)
    if start is None:
        raise SystemExit(f"clang-tidy-cached: no compiler in the command for {entry['file']}")
    out: list[str] = []
    skip = False
    for w in words[start:]:
        if skip:
            skip = False
        elif w == "-o":
            skip = True
        elif w != "-c":
            out.append(w)
    return out


def key_of(entry: dict[str, object], salt: bytes) -> str | None:
    args = compile_args(entry)
    done = subprocess.run(args + ["-E"], cwd=str(entry["directory"]), capture_output=True,
                          check=False)
    if done.returncode != 0:
        return None  # let clang-tidy say what is wrong
    # The checkout's own path is left out, so clones at other paths share
    # the cache (the files under it are hashed as the compiler read them).
    root = os.getcwd().encode()
    h = hashlib.sha256(salt)
    h.update("\0".join(args[1:]).encode().replace(root, b"@ROOT@"))
    h.update(done.stdout.replace(root, b"@ROOT@"))
    return h.hexdigest()


def tidy(build: str, source: str, entry: dict[str, object] | None,
         salt: bytes) -> tuple[str, int, str, bool]:
    """(source, clang-tidy's exit status, its output, whether the cache answered)."""
    key = key_of(entry, salt) if entry else None
    mark = cache_dir() / key if key else None
    if mark and mark.exists():
        return source, 0, "", True
    done = subprocess.run(["clang-tidy", "-p", build, "--quiet", source], capture_output=True,
                          text=True, check=False)
    text = done.stdout + done.stderr
    if mark and done.returncode == 0 and "error:" not in text:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.write_text(source + "\n", encoding="utf-8")
    return source, done.returncode, text, False


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, sources = sys.argv[1], sys.argv[2:]
    try:
        entries = json.loads((Path(build) / "compile_commands.json").read_text(encoding="utf-8"))
        version = subprocess.run(["clang-tidy", "--version"], capture_output=True, check=True).stdout
        config = Path(".clang-tidy").read_bytes()
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"clang-tidy-cached: {e}", file=sys.stderr)
        return 2
    by_file = {os.path.realpath(str(e["file"])): e for e in entries}
    salt = version + b"\0" + config + b"\0"
    status = 0
    hits = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [pool.submit(tidy, build, s, by_file.get(os.path.realpath(s)), salt) for s in sources]
        for job in jobs:
            source, rc, text, reused = job.result()
            hits += reused
            if rc != 0 or "error:" in text:
                status = 1
                print(f"== {source} (exit status {rc})")
                print("\n".join(line for line in text.splitlines() if not NOISE.search(line)))
    print(f"clang-tidy-cached: {len(sources)} sources, {hits} clean results reused", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
