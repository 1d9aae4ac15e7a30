"""Exceptions a case body or adapter raises to say something other than 'it broke'."""

from __future__ import annotations

import errno


class Unavailable(Exception):
    """The API under test does not exist in the installed framework version."""


class NameMissing(Unavailable):
    """The callable a case names does not exist in the installed version: the
    probe reports `missing_name` (protocol 1.8), so a function whose listed
    name is missing is told apart from one unavailable for another reason."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


class Skip(Exception):
    """A declared requirement is not met here (e.g. two devices)."""


class UnsupportedDtype(Exception):
    """The framework has no such dtype at all (e.g. numpy has no bfloat16)."""


class SuiteError(Exception):
    """The suite's own code is wrong, not the framework: a body that does not
    return `t.call(...)`, an unknown dtype name, a check or metric that
    raises. Reported with status `error` (protocol 1.5) and the traceback;
    never counted in a verdict."""


class MachineFault(Exception):
    """The machine, not the case, failed: outputs could not be saved, a suite
    or the framework could not be loaded (a full disk, a read-only folder, an
    address-space limit). The probe reports it as `engine_fault` (protocol
    1.1), never as a case's outcome."""


# Errors of the machine, by errno: what any case would meet on this machine.
_MACHINE_ERRNOS = frozenset(
    getattr(errno, name) for name in
    ("ENOMEM", "ENOSPC", "EDQUOT", "EROFS", "EIO", "EMFILE", "ENFILE", "ENAMETOOLONG")
    if hasattr(errno, name))
# What the dynamic loader and allocators say when the address space runs out.
_MACHINE_TEXT = ("failed to map segment from shared object", "cannot allocate memory",
                 "no space left on device", "too many open files", "read-only file system",
                 "memory allocation still failed")


def machine_fault(exc: BaseException) -> str | None:
    """One line naming the machine fault behind `exc` (or its causes), else None.

    For failures outside the call under test only (loading the framework, a
    suite, saving outputs): inside a case, a MemoryError is the case's own
    out-of-memory failure.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current)
        if isinstance(current, (MachineFault, MemoryError)) or (
                isinstance(current, OSError) and current.errno in _MACHINE_ERRNOS) or any(
                    t in text.lower() for t in _MACHINE_TEXT):
            return one_line(current)
        current = current.__cause__ or current.__context__
    return None


def one_line(exc: BaseException) -> str:
    """`Type: message`, its last non-empty line when the message spans several
    (numpy's ImportError ends with the original error), at most 500 characters."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[-1] if lines else ""
    if isinstance(exc, MachineFault):
        return (lines[0] if lines else "machine fault")[:500]
    return f"{type(exc).__name__}: {text}"[:500] if text else type(exc).__name__
