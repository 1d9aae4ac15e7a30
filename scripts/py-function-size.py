#!/usr/bin/env python3
"""Python functions held to 80 lines, as C++ functions are (scripts/lint.sh).

A function's length is from its `def` line (decorators excluded) to its last
line, nested functions counted in their parent too. Fails, one line per
function, when a function of the checked folders is longer than LIMIT and is
not named in EXCEPTIONS with its reason. Also fails when an exception names a
function that is gone or back within the limit, so the list stays true.

    scripts/py-function-size.py [--root DIR] [--limit N] [--report K]
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path

LIMIT = 80

FOLDERS = ("probe", "python", "scripts", "studies", "bench", "gpu", "suites", "tests/python", "tests/api", "tests/checks")

# "path:qualified.name" -> why it may be longer. Keep it short.
EXCEPTIONS: dict[str, str] = {}


def functions(path: Path, rel: str) -> list[tuple[str, int, int]]:
    """(rel:qualified name, first line, length) of every function in `path`."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    except (SyntaxError, UnicodeDecodeError, OSError) as exc:
        raise SystemExit(f"py-function-size: {rel}: cannot be parsed: {exc}") from None
    out: list[tuple[str, int, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out.append((f"{rel}:{name}", child.lineno, (child.end_lineno or child.lineno) - child.lineno + 1))
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
    walk(tree, "")
    return out


def python_files(root: Path) -> list[str]:
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard",
                             "--", *[f"{f}/*.py" for f in FOLDERS]], check=True, capture_output=True, text=True)
    return sorted(p for p in listed.stdout.splitlines() if (root / p).is_file())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--limit", type=int, default=LIMIT)
    ap.add_argument("--report", type=int, default=0, help="print the K longest functions")
    args = ap.parse_args()
    root = Path(args.root)
    found = [f for rel in python_files(root) for f in functions(root / rel, rel)]
    found.sort(key=lambda f: -f[2])
    for name, line, length in found[:args.report]:
        print(f"{length:5d} {name} (line {line})")
    bad = [f"{name.split(':')[0]}:{line}: {name.split(':')[1]} is {length} lines (limit {args.limit})"
           for name, line, length in found if length > args.limit and name not in EXCEPTIONS]
    known = {name: length for name, _, length in found}
    bad += [f"py-function-size: exception {name} is stale (gone or within the limit)"
            for name in EXCEPTIONS if known.get(name, 0) <= args.limit]
    for line in bad:
        print(line, file=sys.stderr)
    if not bad:
        print(f"py-function-size: {len(found)} functions within {args.limit} lines "
              f"({len(EXCEPTIONS)} named exceptions)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
