"""One `mudjack check` run read every way — the terminal table, summary.md,
results.csv, report.html and the Python API (`mudjack.load`) — says the same
words for every case: its outcome, how a pass was checked (reference,
property, baseline, float64, none) and its error in eps. One right function
(passes, checked float64) whose float16 run overflows inside (a mismatch)."""

from __future__ import annotations

import csv
import html
import os
import re
import subprocess
from pathlib import Path

import mudjack

REPO = Path(__file__).resolve().parents[2]
TARGET = '''import numpy as np


def ssq(x):
    return np.sqrt(np.sum(x * x, axis=-1))


def ssq_inputs():
    return (np.linspace(-300, 300, 256, dtype=np.float32).reshape(4, 64),)
'''
Key = tuple[str, str, str]


def _eps(text: str) -> str:
    """An error in eps as every view may print it, to 2 significant digits."""
    text = text.strip()
    if text in ("", "-", "\u2013"):  # an en dash: no value
        return "-"
    try:
        return f"{float(text):.2g}"
    except ValueError:
        return text


def terminal_rows(out: str) -> dict[Key, tuple[str, str, str]]:
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("NAME "))
    names = lines[head].split()
    rows = {}
    for line in lines[head + 1:]:
        cells = line.split()
        if line.startswith(" "):
            continue  # a mismatch's explanation, under its row
        if len(cells) < len(names) - 1 or cells[0].endswith(":"):
            break  # the table ends: a short line, or "timing: 1 of 2 timed cases unstable; ..."
        c = dict(zip(names, cells))
        rows[(c["DEVICE"], c["MODE"], c["DTYPE"])] = (c["OUTCOME"], c["CHECKED"], _eps(c["ERROR/BOUND"]))
    return rows


def markdown_rows(text: str) -> dict[Key, tuple[str, str, str]]:
    part = text.split("## Cases", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in part.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and cells[0] == "cpu":
            rows[(cells[0], cells[1], cells[2])] = (cells[3], cells[4], _eps(cells[5]))
    return rows


def csv_rows(path: Path) -> dict[Key, tuple[str, str, str]]:
    with path.open() as f:
        return {(r["device"], r["mode"], r["dtype"]): (r["outcome"], r["checked"] or "-", _eps(r["error_eps"]))
                for r in csv.DictReader(f)}


def html_rows(text: str) -> dict[Key, tuple[str, str, str]]:
    table = text.split('id="cases-table"', 1)[1].split("</table>", 1)[0]
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]:
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        rows[(cells[0], cells[1], cells[2])] = (cells[3], cells[4], _eps(cells[5]))
    return rows


def api_rows(folder: Path) -> dict[Key, tuple[str, str, str]]:
    result = mudjack.load(folder)
    return {(r.device, r.mode, r.dtype): (r.outcome, r.checked or "-", _eps("-" if r.error_eps is None else str(r.error_eps)))
            for r in result.rows}


def test_one_check_run_reads_the_same_in_every_view(tmp_path):
    (tmp_path / "target.py").write_text(TARGET)
    done = subprocess.run([os.environ["MUDJACK_BINARY"], "check", f"{tmp_path / 'target.py'}:ssq", "--mode", "eager",
                           "--dtype", "float16,float32", "--budget-ms", "2", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout + done.stderr  # float16 overflows: a mismatch
    (run,) = (tmp_path / "out" / "runs").iterdir()
    views = {
        "terminal": terminal_rows(done.stdout),
        "summary.md": markdown_rows((run / "summary.md").read_text()),
        "results.csv": csv_rows(run / "results.csv"),
        "report.html": html_rows((run / "report.html").read_text()),
        "python": api_rows(run),
    }
    want = views["terminal"]
    assert want[("cpu", "eager", "float32")][:2] == ("pass", "float64"), want
    assert want[("cpu", "eager", "float16")][0] == "mismatch", want
    for name, rows in views.items():
        assert rows == want, f"{name} says {rows}, the terminal {want}"
