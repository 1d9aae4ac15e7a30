"""Every skip visible, as scripts/ctest-no-skips.sh is for CTest: a test (or
a test file) that pytest skips, or that fails as expected (xfail), is
listed with its reason at the end, and when nothing failed the exit status
is 77, which CTest reads as Skipped (SKIP_RETURN_CODE 77 on
python_api_tests) and ctest-no-skips.sh fails on."""

from __future__ import annotations

from typing import Any

import pytest

SKIPPED = 77
_NOT_RUN: list[str] = []  # `node id: why`, one per test or file that did not run


def _why(report: pytest.TestReport | pytest.CollectReport) -> str:
    """A skip's reason (pytest keeps it as (file, line, message)), or an xfail's."""
    if hasattr(report, "wasxfail"):
        return f"expected failure: {report.wasxfail}".rstrip(": ")
    longrepr: Any = report.longrepr
    return f"skipped: {str(longrepr[2]).removeprefix('Skipped: ')}" if isinstance(longrepr, tuple) and len(longrepr) == 3 else "skipped"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped:
        _NOT_RUN.append(f"{report.nodeid}: {_why(report)}")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:
        _NOT_RUN.append(f"{report.nodeid}: {_why(report)}")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _NOT_RUN:
        terminalreporter.write_line(f"api-tests: {len(_NOT_RUN)} test(s) did not run (exit 77):")
        for line in _NOT_RUN:
            terminalreporter.write_line(f"  {line}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if exitstatus == 0 and _NOT_RUN:
        session.exitstatus = SKIPPED
