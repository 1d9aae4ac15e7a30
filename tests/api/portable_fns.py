"""Functions the Python API's tests check (tests/api/): one right, one that
overflows float32 (an infinite error against its float64 reference), one
that returns a Python float, one on integers."""

import numpy as np


def scaled_cumsum(x):
    return np.cumsum(x) * 2


def overflows(x):
    return x * 1e30 * 1e30 / 1e30


def total(x):
    return float(np.sum(x))


def doubled(x):
    return x * 2
