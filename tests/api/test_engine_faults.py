"""The API with a broken or interrupted engine: fake engines ($MUDJACK_BINARY
set to a small shell script) that are not executable, print no JSON, print
JSON that is not results.json or die of a signal each give a one-line
CheckError; an interrupted check stops the engine with SIGTERM, waits for it,
and re-raises the KeyboardInterrupt."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import mudjack
import numpy as np
import pytest
from portable_fns import scaled_cumsum

REPO = Path(__file__).resolve().parents[2]
X = np.linspace(0, 1, 8, dtype=np.float32)


def fake_engine(folder: Path, body: str, mode: int = 0o755) -> Path:
    """A shell script standing in for the engine; it ignores its arguments."""
    path = folder / "fake-mudjack"
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(mode)
    return path


def check_with(monkeypatch: pytest.MonkeyPatch, engine: Path) -> None:
    monkeypatch.setenv("MUDJACK_BINARY", str(engine))
    mudjack.check(scaled_cumsum, X, quick=True)


def test_an_engine_that_cannot_run_is_a_check_error(tmp_path, monkeypatch):
    with pytest.raises(mudjack.CheckError, match=r"^MUDJACK_BINARY=.*fake-mudjack is not an executable file$"):
        check_with(monkeypatch, fake_engine(tmp_path, "echo '{}'\n", 0o644))
    with pytest.raises(mudjack.CheckError, match=r"^MUDJACK_BINARY=.* is not an executable file$"):
        check_with(monkeypatch, tmp_path)  # a folder
    binary = tmp_path / "foreign"
    binary.write_bytes(b"\x7fELF not really")  # executable, but no format the kernel runs
    binary.chmod(0o755)
    with pytest.raises(mudjack.CheckError, match=r"^cannot start the engine .*foreign: Exec format error$"):
        check_with(monkeypatch, binary)


@pytest.mark.parametrize(("body", "message"), [
    ("echo 'Segmentation fault? {not json'\n", r"^the engine printed no JSON results \(exit 0\): 'Segmentation fault\? \{not json'$"),
    ("exit 1\n", r"^the engine printed no JSON results \(exit 1\): ''$"),
    ("echo '{\"cases\": []}'\n", r"^the engine's answer lacks 'run': not results.json as this package reads it$"),
    ("echo '[1, 2]'\n", r"^the engine's answer is not results.json as this package reads it: AttributeError: "),
    ("echo 'a last word' >&2; kill -SEGV $$\n", r"^the engine died of SIGSEGV \(signal 11\)$"),
])
def test_an_engine_that_answers_wrongly_is_a_one_line_check_error(tmp_path, monkeypatch, body, message):
    with pytest.raises(mudjack.CheckError, match=message) as caught:
        check_with(monkeypatch, fake_engine(tmp_path, body))
    assert "\n" not in str(caught.value)


def test_a_stored_results_json_that_lacks_a_key_is_a_check_error(tmp_path):
    (tmp_path / "results.json").write_text('{"run": {"id": "r1"}, "cases": [{"device": "cpu"}]}')
    with pytest.raises(mudjack.CheckError, match=r"results.json lacks 'outcome': not results.json"):
        mudjack.load(tmp_path)


def interrupted_check(tmp_path: Path, engine_body: str, grace_s: float) -> subprocess.CompletedProcess[str]:
    """A Python process that runs mudjack.check with the fake engine, sent
    SIGINT (alone, as a notebook's stop button does) once the engine has
    started; what it printed."""
    engine = fake_engine(tmp_path, engine_body)
    code = textwrap.dedent(f"""
        import numpy as np, mudjack
        mudjack._STOP_GRACE_S = {grace_s}
        try:
            mudjack.check(lambda x: x + 1, np.ones(3, dtype=np.float32), quick=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt re-raised")
        """)
    env = dict(os.environ, MUDJACK_BINARY=str(engine), PYTHONPATH=str(REPO / "python"), MARKS=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "started").exists(), "the fake engine never started"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_an_interrupted_check_stops_the_engine_with_sigterm_first(tmp_path):
    started = time.monotonic()
    done = interrupted_check(tmp_path, """
        trap 'echo TERM > "$MARKS/stopped"; exit 143' TERM
        touch "$MARKS/started"
        while :; do sleep 0.1; done
        """, grace_s=30)
    assert done.stdout.strip() == "KeyboardInterrupt re-raised", done.stderr
    assert (tmp_path / "stopped").read_text().strip() == "TERM"
    assert time.monotonic() - started < 25, "the engine exited at SIGTERM: no need to wait out the grace"


def test_an_engine_that_ignores_sigterm_is_killed_after_the_grace(tmp_path):
    done = interrupted_check(tmp_path, """
        trap 'echo TERM >> "$MARKS/stopped"' TERM
        echo $$ > "$MARKS/pid"
        touch "$MARKS/started"
        while :; do sleep 0.1; done
        """, grace_s=1)
    assert done.stdout.strip() == "KeyboardInterrupt re-raised", done.stderr
    assert "TERM" in (tmp_path / "stopped").read_text()
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped
