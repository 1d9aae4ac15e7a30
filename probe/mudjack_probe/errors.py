"""Exceptions a case body or adapter raises to say something other than 'it broke'."""

from __future__ import annotations


class Unavailable(Exception):
    """The API under test does not exist in the installed framework version."""


class Skip(Exception):
    """A declared requirement is not met here (e.g. two devices)."""


class UnsupportedDtype(Exception):
    """The framework has no such dtype at all (e.g. numpy has no bfloat16)."""
