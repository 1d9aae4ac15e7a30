"""A model's inputs: `Inputs`, and helpers that shape them from the run's
parameters (batch size, sequence length, image size).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

from ..api import Ctx, np, param


@dataclass
class Inputs:
    """A model's inputs: `tag` names them in the case id ("b1-s128"), `dims`
    are recorded as the case's dims, `make(t)` builds the arguments on the
    device (floating ones from `t.randn`, so the reference sees them widened),
    `samples` is the batch size (throughput in samples/s)."""

    tag: str
    dims: tuple[int, ...]
    make: Callable[[Ctx], tuple[Any, ...]]
    samples: int


def batch_size(default: int = 1) -> int:
    return int(param("batch_size", default))


def seq_length(default: int = 128) -> int:
    return int(param("max_seq_length", default))


def image_size(default: int = 224) -> tuple[int, int]:
    return int(param("height", default)), int(param("width", default))


def ids(t: Ctx, high: int, shape: Sequence[int]) -> Any:
    """Token ids in [0, high) (int64), the same on every device."""
    return t.from_numpy(t.numpy_rng().integers(0, high, size=tuple(shape), dtype=np.int64))


def floats(t: Ctx, shape: Sequence[int]) -> Any:
    """Standard normal float32 values (float64 in the reference run)."""
    return t.randn(tuple(shape), dtype="float32")


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
    """One float tensor of `dims` (audio samples, features, latents)."""
    d = tuple(dims)
    return Inputs(tag, d, lambda t: (floats(t, d),), samples)
