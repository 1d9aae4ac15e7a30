"""Local training data for the capability suite: never a download.

`load_images(data_dir)` reads MNIST-style IDX files from a folder the user
has (`mudjack run --param data_dir=DIR`); without a folder it uses the
handwritten-digits set that scikit-learn ships inside its package (1,797 8x8
images). Both come back as float32 images in [0, 1], shape (N, H, W, 1)
(NHWC), and int64 labels.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

# IDX (yann.lecun.com's MNIST format): magic = 0x00 0x00 <type> <ndim>, then
# ndim big-endian uint32 sizes, then the values, big-endian, row-major.
_IDX_TYPES: dict[int, str] = {
    0x08: ">u1",
    0x09: ">i1",
    0x0B: ">i2",
    0x0C: ">i4",
    0x0D: ">f4",
    0x0E: ">f8",
}

# MNIST's file names; each may also end in .gz.
IDX_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}


def read_idx(path: str) -> np.ndarray:
    """One IDX file (optionally gzip-compressed) as a numpy array in native
    byte order. ValueError names the file when it is not well-formed IDX."""
    opener: Any = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{path}: not an IDX file (bad magic)")
    type_code, ndim = raw[2], raw[3]
    if type_code not in _IDX_TYPES:
        raise ValueError(f"{path}: unknown IDX value type 0x{type_code:02x}")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: truncated IDX header")
    dims = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_IDX_TYPES[type_code])
    count = int(np.prod(dims)) if dims else 1
    if len(raw) - header != count * dtype.itemsize:
        raise ValueError(f"{path}: {len(raw) - header} bytes of data, dims {dims} need {count * dtype.itemsize}")
    return np.frombuffer(raw, dtype=dtype, count=count, offset=header).reshape(dims).astype(dtype.newbyteorder("="))


def write_idx(path: str, array: np.ndarray) -> None:
    """Writes `array` as IDX (uint8, int8, int16, int32, float32, float64)."""
    a = np.asarray(array)
    code = next((c for c, name in _IDX_TYPES.items() if np.dtype(name).newbyteorder("=") == a.dtype), None)
    if code is None:
        raise ValueError(f"IDX has no type for {a.dtype}")
    name = _IDX_TYPES[code]
    head = bytes([0, 0, code, a.ndim]) + np.asarray(a.shape, dtype=">u4").tobytes()
    with open(path, "wb") as f:
        f.write(head + a.astype(np.dtype(name)).tobytes())


@dataclass
class ImageSet:
    train_x: np.ndarray  # (N, H, W, 1) float32 in [0, 1]
    train_y: np.ndarray  # (N,) int64
    test_x: np.ndarray
    test_y: np.ndarray
    source: str  # where the data came from, for the results


def _find(data_dir: str, stem: str) -> str:
    for name in (stem, stem + ".gz"):
        path = os.path.join(data_dir, name)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"{data_dir}: no {stem} (or {stem}.gz)")


def _images(a: np.ndarray, path: str) -> np.ndarray:
    if a.ndim != 3:
        raise ValueError(f"{path}: images must have 3 dimensions, not {a.ndim}")
    scale = 255.0 if a.dtype == np.uint8 else 1.0
    return (a.astype(np.float32) / np.float32(scale))[..., None]


def load_idx_dir(data_dir: str) -> ImageSet:
    """MNIST's four IDX files from `data_dir`."""
    paths = {k: _find(data_dir, v) for k, v in IDX_FILES.items()}
    arrays = {k: read_idx(p) for k, p in paths.items()}
    train_x, test_x = _images(arrays["train_images"], paths["train_images"]), _images(arrays["test_images"], paths["test_images"])
    train_y, test_y = arrays["train_labels"].astype(np.int64), arrays["test_labels"].astype(np.int64)
    for x, y, what in ((train_x, train_y, "train"), (test_x, test_y, "test")):
        if len(x) != len(y):
            raise ValueError(f"{data_dir}: {len(x)} {what} images but {len(y)} labels")
    return ImageSet(train_x, train_y, test_x, test_y, f"idx:{os.path.abspath(data_dir)}")


def load_digits(test_fraction: float = 0.2) -> ImageSet:
    """scikit-learn's bundled digits (read from its package, no network),
    split deterministically: the last `test_fraction` of the rows are the test set."""
    from sklearn.datasets import load_digits as sk_digits

    d = sk_digits()
    x = (np.asarray(d.images, dtype=np.float32) / np.float32(16.0))[..., None]
    y = np.asarray(d.target, dtype=np.int64)
    cut = round(len(x) * (1 - test_fraction))
    return ImageSet(x[:cut], y[:cut], x[cut:], y[cut:], "sklearn-digits")


def load_images(data_dir: str = "") -> ImageSet:
    return load_idx_dir(data_dir) if data_dir else load_digits()
