"""Adapters, one per framework; `load(name)` imports only the one asked for."""

from __future__ import annotations

import importlib

from ..vocabulary import words
from .base import Adapter

NAMES = words("framework")  # the engine's frameworks (envs::kFrameworks): one <name>_adapter module each


def load(name: str) -> Adapter:
    """Import the framework and return its adapter; ImportError if it is absent."""
    if name not in NAMES:
        raise ValueError(f"unknown framework {name!r}; known: {', '.join(NAMES)}")
    module = importlib.import_module(f".{name}_adapter", __name__)
    adapter: Adapter = module.create()
    return adapter
