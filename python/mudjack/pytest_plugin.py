"""pytest-mudjack: the `mudjack_check` fixture. pytest loads this module
through the `pytest11` entry point python/pyproject.toml declares (or with
`-p mudjack.pytest_plugin` where the package is on the path but not
installed)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from . import CheckResult
from .testing import assert_portable


@pytest.fixture  # type: ignore[untyped-decorator]  # pytest is untyped to the linters
def mudjack_check() -> Callable[..., CheckResult]:
    """`mudjack_check(fn, *inputs, devices=..., dtypes=...)`: asserts fn is
    portable (mudjack.testing.assert_portable): by default `mudjack check`'s
    grid on the devices present (`quick=True`: eager in the inputs' dtype);
    a failure or a pass checked by nothing shows MudJack's table, with the
    `mudjack repro` line of each failed case."""
    return assert_portable
