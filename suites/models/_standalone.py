"""What a hand-written models script imports when it runs alone.

`python suites/models/bert.py` (or `mudjack check suites/models/bert.py`)
runs the script under its own name, not the models suite's
(`mudjack_suite_...`), and the script then imports these instead of
`mudjack_probe.models`: the same names, taking the same arguments, that
build the model (random weights), make seeded inputs with the framework and
NumPy alone, and run one forward pass, printing the first output's shape
and the time, as MLAgility's scripts did. Standard parameters keep their
defaults here (`--param` is MudJack's); nothing here is imported by the
suite's cases. Imports nothing at load: the suite loader reads this file
as a helper.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple


class Inputs(NamedTuple):
    tag: str
    dims: tuple[int, ...]
    make: Callable[[Any], tuple[Any, ...]]
    samples: int


def param(name: str, default: Any) -> Any:
    return default


def batch_size(default: int = 1) -> int:
    return default


def seq_length(default: int = 128) -> int:
    return default


def image_size(default: int = 224) -> tuple[int, int]:
    return default, default


def ids(t: Any, high: int, shape: Sequence[int]) -> Any:
    """Token ids in [0, high): a torch tensor for a torch model, NumPy for Keras."""
    values = t["rng"].integers(0, high, size=tuple(shape), dtype="int64")
    return t["wrap"](values)


def floats(t: Any, shape: Sequence[int]) -> Any:
    values = t["rng"].standard_normal(size=tuple(shape)).astype("float32")
    return t["wrap"](values)


def text(vocab: int, batch: int | None = None, seq: int | None = None) -> Inputs:
    b, s = batch or batch_size(), seq or seq_length()
    return Inputs(f"b{b}-s{s}", (b, s), lambda t: (ids(t, vocab, (b, s)),), b)


def image(channels: int = 3, size: tuple[int, int] | None = None, batch: int | None = None,
          channels_last: bool = False) -> Inputs:
    b = batch or batch_size()
    h, w = size or image_size()
    dims = (b, h, w, channels) if channels_last else (b, channels, h, w)
    return Inputs(f"b{b}-{h}x{w}", dims, lambda t: (floats(t, dims),), b)


def tensor(tag: str, dims: Sequence[int], samples: int = 1) -> Inputs:
    d = tuple(dims)
    return Inputs(tag, d, lambda t: (floats(t, d),), samples)


def _first_tensor(out: Any, is_tensor: Callable[[Any], bool]) -> Any:
    """The first tensor in an output (a tensor, a tuple, a dict, a ModelOutput)."""
    while not is_tensor(out):
        out = out.to_tuple() if hasattr(out, "to_tuple") else out
        out = next(iter(out.values() if isinstance(out, dict) else out))
    return out


def _report(script: str, out: Any, seconds: float) -> None:
    print(f"{script}: output {tuple(out.shape)} {out.dtype} in {seconds:.3f} s")


def torch_model(script: str, build: Callable[[], Any], inputs: Inputs, forward: Callable[..., Any] | None = None,
                **_options: Any) -> None:
    """Builds the model and runs one forward pass (no_grad), torch only."""
    import numpy as np
    import torch

    torch.manual_seed(0)
    model = build().eval()
    args = inputs.make({"rng": np.random.default_rng(0), "wrap": torch.from_numpy})
    start = time.perf_counter()
    with torch.no_grad():
        out = forward(model, *args) if forward else model(*args)
    _report(script, _first_tensor(out, torch.is_tensor), time.perf_counter() - start)


def keras_model(script: str, build: Callable[[Any], Any], inputs: Inputs, **_options: Any) -> None:
    """Builds the model on Keras's configured backend and runs one forward pass."""
    import keras
    import numpy as np

    keras.utils.set_random_seed(0)
    model = build(keras)
    args = inputs.make({"rng": np.random.default_rng(0), "wrap": lambda a: a})
    start = time.perf_counter()
    out = model(*args, training=False)
    _report(script, _first_tensor(out, lambda x: hasattr(x, "shape") and hasattr(x, "dtype")),
            time.perf_counter() - start)
