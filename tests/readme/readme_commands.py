#!/usr/bin/env python3
"""Runs every `mudjack` command README.md shows, and checks each one's exit code.

Usage: readme_commands.py MUDJACK_BINARY [--readme FILE] [--list]

What is extracted, from README.md's fenced code blocks whose info string is
`sh`, `bash`, `shell` or empty (```python, ```text, ```toml ... are never run):

- A command: a line that starts with `mudjack ` or `build/mudjack ` (a line
  ending in `\\` continues on the next). The leading `mudjack` or
  `build/mudjack` is replaced by the binary given as argv[1]; the rest of the
  line runs as the README shows it, with `bash -c` (so quotes, globs and `>`
  work), in one temporary working folder shared by all commands, in README
  order (a later command may use the runs an earlier one stored).
- A file: a `cat > PATH <<'EOF'` line opens a here-document whose lines, up
  to the closing `EOF` (any delimiter word), are written to PATH inside the
  working folder (parents created) at that point in README order. This is how
  the README's own-suite example (`my_cases/mine.py`) and its expected-failures
  file get there. PATH must be relative and stay inside the folder.
- Any other line (`mkdir`, `export`, `scripts/...`, `curl`) is not run.

Markers, in a command's trailing comment (`# ...` after the command):

- `not run in tests` anywhere in the comment: the command is listed as
  skipped and not run. Only for commands that need a GPU, a cluster, the
  network or podman, or that take minutes; prefer making the command cheap.
- `exit N` at the start of the comment (`# exit 1: stops at ...`): the exit
  code the command must end with; `exit N|M` allows either (for a result that
  depends on timing noise, such as `compare`). Without it the command must
  exit 0.

Prints one line per command with its exit code and time; on the first
command that ends otherwise, stops and exits 1 naming the command, its exit
code and the tail of its stderr. Exits 2 on bad usage or when the README
yields no command at all (the extraction itself broke).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

RUNNABLE_FENCES = {"", "sh", "bash", "shell"}
COMMAND_RE = re.compile(r"^(build/mudjack|mudjack)(?=\s)")
HEREDOC_RE = re.compile(r"""^cat\s+>\s*(\S+)\s+<<-?\s*(['"]?)(\w+)\2\s*$""")
EXIT_RE = re.compile(r"^exit\s+(\d+(?:\|\d+)*)\b")
SKIP_MARKER = "not run in tests"
COMMAND_TIMEOUT_S = 300


@dataclass
class Command:
    line: int  # 1-based line in the README
    text: str  # as the README shows it, without the trailing comment
    expected: set[int] = field(default_factory=lambda: {0})
    skipped: bool = False


@dataclass
class File:
    line: int
    path: str
    content: str


Step = Union[Command, File]  # Python 3.9, like the rest of the repository's Python


def split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing comment: the first `#` outside quotes after whitespace."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def command_from(line_no: int, text: str) -> Command:
    body, comment = split_comment(text)
    cmd = Command(line_no, body)
    if SKIP_MARKER in comment:
        cmd.skipped = True
    match = EXIT_RE.match(comment)
    if match:
        cmd.expected = {int(code) for code in match.group(1).split("|")}
    return cmd


def extract(readme: str) -> list[Step]:
    steps: list[Step] = []
    lines = readme.split("\n")
    i = 0
    in_block = False
    runnable = False
    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if stripped.startswith("```"):
            if in_block:
                in_block = False
            else:
                in_block = True
                runnable = stripped[3:].strip().lower() in RUNNABLE_FENCES
            i += 1
            continue
        if not (in_block and runnable):
            i += 1
            continue
        heredoc = HEREDOC_RE.match(stripped)
        if heredoc:
            path, delimiter = heredoc.group(1), heredoc.group(3)
            end = i + 1
            while end < len(lines) and lines[end].strip() != delimiter:
                if lines[end].strip().startswith("```"):
                    raise SystemExit(f"README.md:{i + 1}: here-document for {path} has no closing {delimiter}")
                end += 1
            steps.append(File(i + 1, path, "\n".join(lines[i + 1 : end]) + "\n"))
            i = end + 1
            continue
        if COMMAND_RE.match(stripped):
            start = i
            text = stripped
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1].rstrip() + " " + lines[i].strip()
            steps.append(command_from(start + 1, text))
        i += 1
    return steps


def write_file(step: File, workdir: Path) -> None:
    target = (workdir / step.path).resolve()
    if Path(step.path).is_absolute() or workdir.resolve() not in target.parents:
        raise SystemExit(f"README.md:{step.line}: {step.path} is outside the working folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(step.content, encoding="utf-8")


def tail(text: str, lines: int = 15) -> str:
    return "\n".join("    " + line for line in text.rstrip().split("\n")[-lines:])


def run_command(cmd: Command, binary: str, workdir: Path) -> tuple[int, str, float]:
    shell = COMMAND_RE.sub(lambda _: shlex.quote(binary), cmd.text, count=1)
    started = time.monotonic()
    try:
        done = subprocess.run(
            ["bash", "-c", shell],
            check=False,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=COMMAND_TIMEOUT_S,
        )
        code, stderr = done.returncode, done.stderr or done.stdout
    except subprocess.TimeoutExpired as e:
        partial = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        code, stderr = 124, f"timed out after {COMMAND_TIMEOUT_S} s\n{partial}"
    return code, stderr, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", help="the mudjack binary to run in place of `mudjack`")
    parser.add_argument("--readme", default=str(Path(__file__).resolve().parents[2] / "README.md"))
    parser.add_argument("--list", action="store_true", help="print what would run, run nothing")
    args = parser.parse_args()

    binary = str(Path(args.binary).resolve())
    if not args.list and not os.access(binary, os.X_OK):
        print(f"readme_commands: {args.binary} is not an executable", file=sys.stderr)
        return 2
    name = Path(args.readme).name
    steps = extract(Path(args.readme).read_text(encoding="utf-8"))
    commands = [s for s in steps if isinstance(s, Command)]
    to_run = [c for c in commands if not c.skipped]
    if not to_run:
        print(f"readme_commands: no `mudjack` command found in {args.readme}", file=sys.stderr)
        return 2

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mudjack-readme-") as tmp:
        workdir = Path(tmp)
        n = 0
        for step in steps:
            if isinstance(step, File):
                if not args.list:
                    write_file(step, workdir)
                print(f"          file  {step.path}  ({name}:{step.line})")
                continue
            if step.skipped:
                print(f"       skipped  {step.text}  ({name}:{step.line}: {SKIP_MARKER})")
                continue
            n += 1
            want = "|".join(str(c) for c in sorted(step.expected))
            if args.list:
                print(f"[{n:2}/{len(to_run)}] exit {want}  {step.text}")
                continue
            code, stderr, took = run_command(step, binary, workdir)
            print(f"[{n:2}/{len(to_run)}] exit {code:<3} {took:5.1f} s  {step.text}", flush=True)
            if code not in step.expected:
                print(
                    f"readme_commands: {name}:{step.line}: `{step.text}` exited {code}, README says {want}; stderr ends:\n{tail(stderr)}",
                    file=sys.stderr,
                )
                return 1
    if not args.list:
        print(f"{len(to_run)} README commands ended as the README says ({len(commands) - len(to_run)} skipped) in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
