"""Ops timed both by MudJack and by an independent timer (bench/independent.py).

Shapes here and there must match; the values do not matter for timing, and
outputs are not compared (that is the paper suite's job).
"""

from __future__ import annotations

from mudjack_probe.api import Cases, Ctx

N = 1 << 20
M = 512

np_cases = Cases("numpy")
torch_cases = Cases("torch")
jax_cases = Cases("jax")


@np_cases.case("numpy.sum", shape={"1m": (N,)})
def np_sum(t: Ctx):
    return t.call(lambda a: t.fw.sum(a), t.randn()).no_compare()


@np_cases.case("numpy.matmul", shape={"512": (M, M)})
def np_matmul(t: Ctx):
    return t.call(lambda a, b: a @ b, t.randn(), t.randn()).no_compare()


@torch_cases.case("torch.sum", shape={"1m": (N,)})
def torch_sum(t: Ctx):
    return t.call(lambda a: t.fw.sum(a), t.randn()).no_compare()


@torch_cases.case("torch.matmul", shape={"512": (M, M)})
def torch_matmul(t: Ctx):
    return t.call(lambda a, b: t.fw.matmul(a, b), t.randn(), t.randn()).no_compare()


@torch_cases.case("torch.add", shape={"1m": (N,)})
def torch_add(t: Ctx):
    return t.call(lambda a, b: t.fw.add(a, b), t.randn(), t.randn()).no_compare()


@jax_cases.case("jax.numpy.sum", shape={"1m": (N,)}, mode=["compiled"])
def jax_sum(t: Ctx):
    return t.call(lambda a: t.fw.numpy.sum(a), t.randn()).no_compare()


@jax_cases.case("jax.numpy.matmul", shape={"512": (M, M)}, mode=["compiled"])
def jax_matmul(t: Ctx):
    return t.call(lambda a, b: t.fw.numpy.matmul(a, b), t.randn(), t.randn()).no_compare()
