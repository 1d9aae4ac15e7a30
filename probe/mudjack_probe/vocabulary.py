"""Every closed list of MudJack, as the engine wrote it (schemas/vocabulary.json).

The engine writes that file from its C++ definitions (`build/vocabulary`,
tools/vocabulary.cpp; CTest `vocabulary` holds it): outcomes, verdicts,
causes, check kinds, error kinds, modes, policies, dtypes, excuse reasons,
frameworks, fuzz symptoms, the fuzz ops with their arity and dtypes, the
accuracy oracle's constants, and each outcome's and verdict's flags
(model::props: ran, failed, failure, attempted; an outcome's judged, fine).
The probe reads the lists here and never spells them again; python/mudjack,
the scripts and the studies read the same file. Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PATH = Path(__file__).resolve().parents[2] / "schemas" / "vocabulary.json"


def _load() -> dict[str, Any]:
    try:
        doc = json.loads(PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"{PATH}: cannot be read: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("$defs"), dict):
        raise RuntimeError(f"{PATH}: not a vocabulary (no $defs)")
    return doc


VOCABULARY: dict[str, Any] = _load()


def words(name: str) -> tuple[str, ...]:
    """The closed list `name` (a key of the file's `$defs`: outcome, verdict,
    cause, check, error_kind, mode, policy, grid_dtype, dtype, excuse,
    framework, fuzz_op, fuzz_value_dtype, fuzz_graph_dtype, fuzz_symptom), in
    the engine's order."""
    return tuple(VOCABULARY["$defs"][name]["enum"])


def having(name: str, flag: str) -> tuple[str, ...]:
    """The words of `name` (outcome or verdict) whose `flag` is true, in the
    engine's order: the one grouping of outcomes and verdicts (model.hpp,
    props), e.g. having("outcome", "ran") is pass and mismatch."""
    props = VOCABULARY[f"{name}_properties"]
    return tuple(w for w in words(name) if props[w][flag])


def fuzz_part() -> dict[str, Any]:
    """What fuzz/graph.py reads: a reproduction script embeds this much as its
    own `VOCABULARY` (fuzz/script.py), so it needs no file beside it."""
    keep = ("fuzz_op", "fuzz_value_dtype", "fuzz_graph_dtype")
    return {"$defs": {k: VOCABULARY["$defs"][k] for k in keep},
            "fuzz_ops": VOCABULARY["fuzz_ops"], "accuracy": VOCABULARY["accuracy"]}
