"""What check-layers.py and check-entry-points.py share: reading a `## title`
section of ARCHITECTURE.md and which files are engine sources."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

SOURCE_SUFFIXES = (".hpp", ".cpp", ".hpp.in", ".cpp.in", ".h", ".cc")


class ListError(Exception):
    """ARCHITECTURE.md's list cannot be read (exit 2, not a violation)."""


def section(text: str, title: str) -> list[str]:
    """Lines of the `## title` section, without its heading."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "## " + title:
            out = []
            for rest in lines[i + 1:]:
                if rest.startswith("## "):
                    break
                out.append(rest)
            return out
    raise ListError(f"ARCHITECTURE.md has no '## {title}' section")


def run_checker(name: str, description: str,
                check: Callable[[Path], tuple[list[str], int]], clean: str) -> int:
    """The command line both checkers share: --root, one line per violation,
    exit 0 clean (printing `clean`, with {n} for the files read), 1
    violations, 2 when the list cannot be read."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="checkout to check (default: this script's)")
    args = parser.parse_args()
    try:
        problems, n_files = check(args.root)
    except (ListError, OSError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"{name}: {len(problems)} violation(s) in {n_files} files", file=sys.stderr)
        return 1
    print(f"{name}: " + clean.format(n=n_files))
    return 0
