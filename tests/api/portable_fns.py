"""Functions the Python API's tests check (tests/api/): one right, one that
overflows float32 (an infinite error against its float64 reference), one
that returns a Python float, one on integers; a layer norm with its eps
outside the square root (a formula bug its own float64 run shares) and the
trusted reference that catches it."""

import numpy as np


def scaled_cumsum(x):
    return np.cumsum(x) * 2


def overflows(x):
    return x * 1e30 * 1e30 / 1e30


def total(x):
    return float(np.sum(x))


def doubled(x):
    return x * 2


def layer_norm_eps_outside(x):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / (np.sqrt(v) + 1e-5)


def layer_norm_reference(x):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5)
