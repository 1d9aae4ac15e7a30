#!/usr/bin/env python3
"""Checks that src/ keeps the layer order of ARCHITECTURE.md's `## Layers`.

The section's numbered list is the order, bottom first: each item names the
src/ folders (`src/util/`) or root files (`src/main.cpp`) of one layer, in
backticks, before an optional ` — ` and a description. A file of a folder may
include the headers of its own folder and of folders on lower layers only;
folders on the same layer are independent of each other (CONTRIBUTING.md,
"Layers"). An include counts when it is written `#include "folder/..."` and
`folder` is a src/ folder or a listed one; every other include (the standard
library, packages: `<...>`) is not the layers' business.

  scripts/check-layers.py [--root DIR]

Prints one line per violation, `src/a/x.cpp:12: includes c/y.hpp, a higher
layer (a is layer 2, c is layer 5)`, and one per src/ folder or root file the
list does not name. Exit 0: clean; 1: violations; 2: the list can't be read.
"""

import re
import sys
from pathlib import Path

from architecture_lists import SOURCE_SUFFIXES, ListError, run_checker, section

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"/]+)/([^"]+)"')
ITEM = re.compile(r"^(\d+)\.\s+(.*)$")
MEMBER = re.compile(r"^src/(?:([A-Za-z0-9_]+)/|([A-Za-z0-9_.]+))$")





def read_layers(architecture: Path) -> dict[str, int]:
    """Unit name (folder `util`, or root file `main.cpp`) -> layer number."""
    layer_of: dict[str, int] = {}
    expected = 1
    for line in section(architecture.read_text(encoding="utf-8"), "Layers"):
        m = ITEM.match(line.strip())
        if not m:
            continue
        number, body = int(m.group(1)), m.group(2)
        if number != expected:
            raise ListError(f"layer {number} follows layer {expected - 1}; number them 1, 2, 3...")
        names = body.split(" — ", 1)[0]
        members = re.findall(r"`([^`]+)`", names)
        if not members:
            raise ListError(f"layer {number} names no `src/...` folder")
        for member in members:
            mm = MEMBER.match(member)
            if not mm:
                raise ListError(f"layer {number}: `{member}` is neither `src/FOLDER/` nor `src/FILE`")
            unit = mm.group(1) or mm.group(2)
            if unit in layer_of:
                raise ListError(f"`{member}` is listed on layers {layer_of[unit]} and {number}")
            layer_of[unit] = number
        expected += 1
    if not layer_of:
        raise ListError("the '## Layers' section has no numbered list")
    return layer_of


def unit_of(src: Path, path: Path) -> str:
    rel = path.relative_to(src)
    return rel.parts[0]


def sources(src: Path):
    for path in sorted(src.rglob("*")):
        if path.is_file() and path.name.endswith(SOURCE_SUFFIXES):
            yield path


def check(root: Path) -> tuple[list[str], int]:
    src = root / "src"
    layer_of = read_layers(root / "ARCHITECTURE.md")
    problems = []
    units = sorted({unit_of(src, p) for p in sources(src)})
    for unit in units:
        if unit not in layer_of:
            shown = f"src/{unit}/" if (src / unit).is_dir() else f"src/{unit}"
            problems.append(f"{shown}: not in ARCHITECTURE.md's '## Layers' list")
    folders = {p.name for p in src.iterdir() if p.is_dir()} | set(layer_of)
    n_files = 0
    for path in sources(src):
        n_files += 1
        unit = unit_of(src, path)
        if unit not in layer_of:
            continue  # reported above, once
        here = layer_of[unit]
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for lineno, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) not in folders:
                continue
            target = m.group(1)
            if target == unit or target not in layer_of:
                continue  # own folder; an unlisted folder is reported above
            there = layer_of[target]
            where = f"{path.relative_to(root).as_posix()}:{lineno}: includes {target}/{m.group(2)}"
            if there > here:
                problems.append(f"{where}, a higher layer ({unit} is layer {here}, "
                                f"{target} is layer {there})")
            elif there == here:
                problems.append(f"{where}, a folder of the same layer ({unit} and {target} "
                                f"are layer {here})")
    return problems, n_files


def main() -> int:
    return run_checker("check-layers", __doc__.splitlines()[0], check, "{n} files keep the layer order")

if __name__ == "__main__":
    sys.exit(main())
