"""Portability as a test assertion: one line in an existing pytest (or
unittest) file.

    from mudjack.testing import assert_portable

    def test_layer_norm_is_portable():
        assert_portable(my_layer_norm, torch.randn(64, 256))

or, with the `mudjack_check` fixture of the pytest plugin
(mudjack/pytest_plugin.py, loaded by pytest through the `pytest11` entry
point once the package is installed):

    def test_layer_norm_is_portable(mudjack_check):
        mudjack_check(my_layer_norm, torch.randn(64, 256))

A failure is `mudjack.CheckFailed` (an AssertionError) whose message is
MudJack's table: which dtype on which device, the error in eps against its
bound, why, and under each failed row the `mudjack repro CASE_ID --device
DEV --run RUN_ID --out RESULTS` line that writes it as a script (its
folder kept for that).
"""

from __future__ import annotations

from typing import Any

from . import CheckResult, check

__all__ = ["assert_portable"]


def assert_portable(fn: Any, *inputs: Any, devices: list[str] | None = None, dtypes: list[str] | None = None,
                    modes: list[str] | None = None, quick: bool = False, budget_ms: float | None = None,
                    framework: str | None = None, reference: Any = None) -> CheckResult:
    """Checks `fn(*inputs)` with `mudjack.check` and raises CheckFailed with
    the table when a case failed, mismatched, crashed or timed out, or a
    pass was checked by nothing (`unverified`; a dtype the framework lacks
    is no failure). By default the grid `mudjack check` runs (float16,
    bfloat16, float32, float64; eager and compiled) on every device present,
    so a softmax that overflows in float16 is not called portable;
    `quick=True` is the opt-in for eager in the inputs' own dtype.
    `reference`: a trusted host computation (see `mudjack.check`). Returns
    the result when every case passed."""
    __tracebackhide__ = True  # pytest: show the table, not this frame
    return check(fn, *inputs, devices=devices, dtypes=dtypes, modes=modes, quick=quick, budget_ms=budget_ms,
                 framework=framework, reference=reference).raise_for_failure()
