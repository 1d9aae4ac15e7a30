"""A model script's labels line, and the constants every part of the models
suite shares (the stages, Keras's backends, the AMP dtype).
"""

from __future__ import annotations

from ..vocabulary import words

STAGES = words("mode")
LABEL_KEYS = ("name", "author", "task", "framework", "family")
KERAS_BACKENDS = ("jax", "tensorflow", "torch")
AMP_DTYPE = "bfloat16"
TRAIN_LR = 1e-3
OPSET = 18  # the ONNX stage's default opset; --param opset=N


def read_labels(path: str) -> dict[str, str]:
    """The script's labels from its first line; ValueError naming what is wrong."""
    with open(path, encoding="utf-8") as f:
        first = f.readline().strip()
    prefix = "# labels:"
    if not first.startswith(prefix):
        raise ValueError(f"{path}: the first line must be '{prefix} name::... author::... task::... framework::... family::...'")
    labels: dict[str, str] = {}
    for item in first[len(prefix):].split():
        key, sep, value = item.partition("::")
        if not sep or not key or not value:
            raise ValueError(f"{path}: label {item!r} is not key::value")
        labels[key] = value
    missing = [k for k in LABEL_KEYS if k not in labels]
    if missing:
        raise ValueError(f"{path}: labels line lacks {', '.join(k + '::' for k in missing)}")
    return labels
