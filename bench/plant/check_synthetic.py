#!/usr/bin/env python3
"""CTest plant_oracle_synthetic: `plant_oracle synthetic` on a small size
prints its table whole (every plant for every family, six dtype-and-mode
columns) and the sensitivity targets hold in it (bench/plant/README.md):
no false alarm; 4 eps everywhere caught on elementwise ops beside a correct
baseline and 8 eps alone, in float16, bfloat16 and float32; a float32 sum
missing 0.1% of its terms caught alone and beside a baseline; NaN and inf
always caught.

    check_synthetic.py build/plant_oracle
"""

from __future__ import annotations

import subprocess
import sys

FAMILIES = ["elementwise", "reduction (sum)", "matmul", "ill-conditioned (solve)"]
PLANTS = 16
COLUMNS = ["float16 alone", "float16 base", "bfloat16 alone", "bfloat16 base", "float32 alone", "float32 base"]


def table(binary: str) -> dict[tuple[str, str], dict[str, str]]:
    out = subprocess.run([binary, "synthetic", "--trials", "2", "--n", "256", "--k", "4096"],
                         check=True, capture_output=True, text=True).stdout
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    if header != ["plant", "family", *COLUMNS]:
        sys.exit(f"check_synthetic: header {header}")
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != len(header):
            sys.exit(f"check_synthetic: row of {len(cells)} cells: {line}")
        rows[(cells[0], cells[1])] = dict(zip(COLUMNS, cells[2:]))
    if len(rows) != PLANTS * len(FAMILIES) or {f for _, f in rows} != set(FAMILIES):
        sys.exit(f"check_synthetic: {len(rows)} rows, families {sorted({f for _, f in rows})}")
    return rows


def expect(rows: dict[tuple[str, str], dict[str, str]], plant: str, family: str, columns: list[str], want: str) -> list[str]:
    got = rows[(plant, family)]
    return [f"{plant} | {family} | {c}: {got[c]}, want {want}" for c in columns if got[c] != want]


def main() -> int:
    rows = table(sys.argv[1])
    alone = [c for c in COLUMNS if c.endswith("alone")]
    base = [c for c in COLUMNS if c.endswith("base")]
    wrong: list[str] = []
    for family in FAMILIES:
        wrong += expect(rows, "none (false alarm)", family, COLUMNS, "0%")
        wrong += expect(rows, "NaN at one index", family, COLUMNS, "100%")
        wrong += expect(rows, "inf at one index", family, COLUMNS, "100%")
    wrong += expect(rows, "4 eps everywhere", "elementwise", base, "100%")
    wrong += expect(rows, "8 eps everywhere", "elementwise", alone, "100%")
    wrong += expect(rows, "0.1% of terms dropped", "reduction (sum)", ["float32 alone", "float32 base"], "100%")
    wrong += expect(rows, "0.1% of terms dropped", "elementwise", COLUMNS, "-")
    for line in wrong:
        print(f"check_synthetic: {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
