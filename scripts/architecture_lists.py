"""What check-layers.py and check-entry-points.py share: reading a `## title`
section of ARCHITECTURE.md and which files are engine sources."""

from __future__ import annotations

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
