#!/usr/bin/env python3
"""Checks that lifecycle entry points are used only where ARCHITECTURE.md allows.

ARCHITECTURE.md's `## Lifecycle entry points` lists one function per item,
at the start of a line:

  - `supervisor::execute` — callable from: `src/run/`, `src/cli/`, `src/server/runs.cpp`

The name is qualified below `mudjack::`. A place ending in `/` is a folder and
everything under it; any other place is one file. The function's own folder
(`src/supervisor/`) is always allowed. A use is the qualified name (optionally
preceded by `mudjack::` or `::mudjack::`) anywhere in a src/ file outside
comments, string and character literals: a call, a `using` declaration, taking
its address. Unqualified calls (argument-dependent lookup, namespace aliases)
are not seen, which is why entry points are called by their qualified name.

  scripts/check-entry-points.py [--root DIR]

Prints one line per use outside the allowed places, `src/a/x.cpp:12: uses
supervisor::execute, allowed only from src/run/, src/cli/`. Exit 0: clean;
1: violations; 2: the section can't be read.
"""

import re
import sys
from pathlib import Path

from architecture_lists import SOURCE_SUFFIXES, ListError, run_checker, section

ENTRY = re.compile(r"^- `([A-Za-z_]\w*(?:::[A-Za-z_]\w*)+)` — callable from: (.+)$")
PLACE = re.compile(r"^src/[A-Za-z0-9_./-]*$")





def read_entries(architecture: Path) -> dict[str, list[str]]:
    """Qualified name -> allowed places (its own folder first)."""
    entries: dict[str, list[str]] = {}
    for line in section(architecture.read_text(encoding="utf-8"), "Lifecycle entry points"):
        if not line.startswith("- `"):
            continue
        m = ENTRY.match(line.rstrip())
        if not m:
            raise ListError(f"can't read entry: {line.strip()!r} (format: - `ns::name` — "
                            "callable from: `src/folder/`, `src/folder/file.cpp`)")
        name, rest = m.group(1), m.group(2)
        if name.startswith("mudjack::"):
            raise ListError(f"`{name}`: write the name below mudjack:: ({name[9:]})")
        places = re.findall(r"`([^`]+)`", rest)
        if not places or re.sub(r"`[^`]+`", "", rest).strip(", ") != "":
            raise ListError(f"`{name}`: places are a comma list of `src/...` in backticks")
        for place in places:
            if not PLACE.match(place) or ".." in place:
                raise ListError(f"`{name}`: place `{place}` is not a path under src/")
        if name in entries:
            raise ListError(f"`{name}` is listed twice")
        entries[name] = [f"src/{name.split('::')[0]}/"] + places
    return entries


def blank_comments_and_literals(text: str) -> str:
    """The text with comments and string/char literals turned into spaces; newlines kept."""
    out = []
    i, n = 0, len(text)

    def blank(s: str) -> str:
        return re.sub(r"[^\n]", " ", s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(blank(text[i:j]))
            i = j
        elif c == '"' and re.search(r'(?:^|[^\w])(?:u8|[uUL])?R$', text[max(0, i - 3):i]):
            m = re.compile(r'"([^()\\\s]{0,16})\(').match(text, i)
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(blank(text[i:j]))
            i = j
        elif c == '"' or (c == "'" and not re.search(r"[\w]$", text[max(0, i - 1):i])) or (
                c == "'" and re.search(r"(?:^|\W)(?:u8|[uUL])$", text[max(0, i - 3):i])):
            # A ' after a digit or letter is a digit separator (1'000), not a
            # literal, unless the letters are a literal's prefix (L'x', u8'x').
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(blank(text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def allowed(path: str, places: list[str]) -> bool:
    return any(path.startswith(p) if p.endswith("/") else path == p for p in places)


def check(root: Path) -> tuple[list[str], int]:
    entries = read_entries(root / "ARCHITECTURE.md")
    patterns = {
        name: re.compile(r"(?<![\w:])(?:::)?(?:mudjack::)?" + re.escape(name) + r"(?!\w)")
        for name in entries
    }
    problems = []
    n_files = 0
    for path in sorted((root / "src").rglob("*")):
        if not (path.is_file() and path.name.endswith(SOURCE_SUFFIXES)):
            continue
        n_files += 1
        rel = path.relative_to(root).as_posix()
        code = None
        for name, places in entries.items():
            if allowed(rel, places):
                continue
            if code is None:
                code = blank_comments_and_literals(
                    path.read_text(encoding="utf-8", errors="replace"))
            for m in patterns[name].finditer(code):
                lineno = code.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{lineno}: uses {name}, allowed only from "
                                f"{', '.join(places)}")
    return problems, n_files


def main() -> int:
    return run_checker("check-entry-points", __doc__.splitlines()[0], check, "{n} files call entry points only where allowed")

if __name__ == "__main__":
    sys.exit(main())
