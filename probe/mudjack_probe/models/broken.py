"""A model script that does not import, or a model that cannot be declared:
its `error` cases, so the run reports it and every other model runs.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..api import Call, Cases, Ctx
from .labels import KERAS_BACKENDS


def declare_broken(path: str, error: BaseException) -> bool:
    """A model script whose import failed (a syntax error, a bad labels line,
    a declaration that raised) becomes its `declare_error` cases, carrying
    the error: the run reports it and every other model still runs. False
    when the file has no labels line to name it by (not a model script)."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except OSError:
        return False
    if not first.startswith("# labels:"):
        return False
    labels = dict(item.partition("::")[::2] for item in first[len("# labels:"):].split() if "::" in item)
    labels["name"] = labels.get("name") or Path(path).stem
    cause = error.__cause__ or error
    detail = " ".join(str(cause).split())[:400]
    declare_error(labels, f"{os.path.basename(path)} does not load: {type(cause).__name__}: {detail}")
    return True


def declare_error(labels: dict[str, str], message: str) -> None:
    """A model that cannot be declared: one suite `error` case per framework
    its labels name, `<framework>/<name>/float32-script-eager`, carrying
    `message`."""
    framework = labels.get("framework", "")
    frameworks = list(KERAS_BACKENDS) if framework == "keras" else [framework or "torch"]
    for fw in frameworks:
        cases = Cases(fw)

        def body(t: Ctx) -> Call:
            raise RuntimeError(message)

        cases.case(labels["name"], shape={"script": ()}, tags=[f"{k}::{v}" for k, v in labels.items()],
                   note=message)(body)
        for case in cases._defs:
            case.invalid = message
