"""tests/api/conftest.py: a skipped or xfailed test makes the run exit 77
(CTest's Skipped, which scripts/ctest-no-skips.sh fails on), listed with its
reason; a failure stays a failure."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path


def pytest_in(folder: Path, tests: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(Path(__file__).with_name("conftest.py"), folder / "conftest.py")
    (folder / "test_some.py").write_text(textwrap.dedent(tests))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
                          capture_output=True, text=True, cwd=folder, timeout=120, check=False)


def test_a_skip_or_an_xfail_exits_77_and_is_listed(tmp_path):
    done = pytest_in(tmp_path, """
        import pytest
        def test_runs(): pass
        @pytest.mark.skip(reason="needs a GPU")
        def test_gpu(): pass
        @pytest.mark.xfail(reason="known bug")
        def test_known(): raise ValueError
        """)
    assert done.returncode == 77, done.stdout + done.stderr
    assert "api-tests: 2 test(s) did not run (exit 77):" in done.stdout
    assert "test_some.py::test_gpu: skipped: needs a GPU" in done.stdout
    assert "test_some.py::test_known: expected failure: known bug" in done.stdout


def test_a_failure_stays_1(tmp_path):
    done = pytest_in(tmp_path, """
        import pytest
        def test_fails(): assert False
        @pytest.mark.skip(reason="later")
        def test_later(): pass
        """)
    assert done.returncode == 1, done.stdout + done.stderr
