"""`python -m unittest ARGS...` with every skip visible, as
scripts/ctest-no-skips.sh is for CTest: a test that skips (or fails as
expected) is listed with its reason and the exit status is 77, which CTest
reads as Skipped (SKIP_RETURN_CODE 77) and ctest-no-skips.sh fails on.
Exit 0: every test ran and passed; 1: a test failed, errored or passed
unexpectedly; 5: no test ran at all (as unittest from Python 3.12 and
pytest); 77: every test that ran passed, but some did not run.
Standard library only: it runs with each framework environment's Python.
    python scripts/unittest-no-skips.py discover -s tests/python -t tests/python [-v] [-k PATTERN]
"""

from __future__ import annotations

import sys
import unittest

SKIPPED = 77
NO_TESTS = 5


def not_run(result: unittest.TestResult) -> list[str]:
    """Each test that did not run as a plain pass: `id: why`."""
    lines = [f"{test.id()}: skipped: {why}" for test, why in result.skipped]
    lines += [f"{test.id()}: expected failure" for test, _ in result.expectedFailures]
    return lines


def main() -> int:
    program = unittest.main(module=None, argv=sys.argv, exit=False)
    result = program.result
    if not result.wasSuccessful():
        return 1
    if result.testsRun == 0:
        print("unittest-no-skips: no test ran", file=sys.stderr)
        return NO_TESTS
    hidden = not_run(result)
    if hidden:
        print(f"unittest-no-skips: {len(hidden)} test(s) did not run:", file=sys.stderr)
        for line in hidden:
            print(f"  {line}", file=sys.stderr)
        return SKIPPED
    return 0


if __name__ == "__main__":
    sys.exit(main())
