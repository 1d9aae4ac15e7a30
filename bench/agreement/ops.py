"""The ops of the timing benchmark (issue 14): one table, read by the MudJack
suite bench/suites/timing/timing.py and by the independent timers
(bench/agreement/events.py, agreement.py), so both time identical shapes.

Not run on its own. Imports no framework: each op's `build(torch)` returns the
function of its arrays (statics such as dims and scalars in its closure).

DEVICE_BOUND ops are large (the GPU's work dominates a call); HOST_BOUND ops
are tiny (launch and dispatch dominate). Sizes are fixed on purpose: the
independent timers must see the very shapes the suite declares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

DEVICE_BOUND = "device_bound"
HOST_BOUND = "host_bound"

M64 = 1 << 26  # 64M elements
M16 = 1 << 24  # 16M elements
BIG = 4096


@dataclass(frozen=True)
class Input:
    dims: tuple[int, ...]
    dtype: str | None = None  # None: the op's dtype; "bool": a random mask


@dataclass(frozen=True)
class Op:
    function: str
    shape_name: str
    dtype: str
    bound: str
    inputs: tuple[Input, ...]
    build: Callable[[Any], Callable[..., Any]]

    @property
    def case_id(self) -> str:
        """The MudJack case id the suite gives this op."""
        return f"torch/{self.function}/{self.dtype}-{self.shape_name}-eager"


def _op(function: str, shape_name: str, bound: str, build: Callable[[Any], Callable[..., Any]], *inputs: Input, dtype: str = "float32") -> Op:
    return Op(function, shape_name, dtype, bound, tuple(inputs), build)


def _f(dims: tuple[int, ...]) -> Input:
    return Input(dims)


def _conv(torch: Any) -> Callable[..., Any]:
    return lambda x, w: torch.nn.functional.conv2d(x, w, padding=1)


def _layer_norm(torch: Any) -> Callable[..., Any]:
    return lambda x: torch.nn.functional.layer_norm(x, (BIG,))


OPS: tuple[Op, ...] = (
    # Device-bound: large inputs.
    _op("torch.matmul", "4096", DEVICE_BOUND, lambda torch: lambda a, b: torch.matmul(a, b), _f((BIG, BIG)), _f((BIG, BIG))),
    _op("torch.matmul", "4096", DEVICE_BOUND, lambda torch: lambda a, b: torch.matmul(a, b), _f((BIG, BIG)), _f((BIG, BIG)), dtype="float16"),
    _op("torch.softmax", "4096", DEVICE_BOUND, lambda torch: lambda a: torch.softmax(a, -1), _f((BIG, BIG))),
    _op("torch.nn.functional.conv2d", "64x64x56x56", DEVICE_BOUND, _conv, _f((64, 64, 56, 56)), _f((64, 64, 3, 3))),
    _op("torch.sort", "16m", DEVICE_BOUND, lambda torch: lambda a: torch.sort(a), _f((M16,))),
    _op("torch.nn.functional.layer_norm", "8192x4096", DEVICE_BOUND, _layer_norm, _f((8192, BIG))),
    _op("torch.cumsum", "64m", DEVICE_BOUND, lambda torch: lambda a: torch.cumsum(a, 0), _f((M64,))),
    _op("torch.bmm", "64x512x512", DEVICE_BOUND, lambda torch: lambda a, b: torch.bmm(a, b), _f((64, 512, 512)), _f((64, 512, 512))),
    _op("torch.add", "64m", DEVICE_BOUND, lambda torch: lambda a, b: torch.add(a, b), _f((M64,)), _f((M64,))),
    # Host-bound: tiny inputs.
    _op("torch.add", "16", HOST_BOUND, lambda torch: lambda a, b: torch.add(a, b), _f((16,)), _f((16,))),
    _op("torch.sum", "16", HOST_BOUND, lambda torch: lambda a: torch.sum(a), _f((16,))),
    _op("torch.relu", "16", HOST_BOUND, lambda torch: lambda a: torch.relu(a), _f((16,))),
    _op("torch.cat", "8x8", HOST_BOUND, lambda torch: lambda a, b: torch.cat((a, b)), _f((8, 8)), _f((8, 8))),
    _op("torch.matmul", "8x8", HOST_BOUND, lambda torch: lambda a, b: torch.matmul(a, b), _f((8, 8)), _f((8, 8))),
    _op("torch.transpose", "8x8", HOST_BOUND, lambda torch: lambda a: torch.transpose(a, 0, 1).contiguous(), _f((8, 8))),
    _op("torch.zeros_like", "16", HOST_BOUND, lambda torch: lambda a: torch.zeros_like(a), _f((16,))),
    _op("torch.where", "16", HOST_BOUND, lambda torch: lambda c, a, b: torch.where(c, a, b), Input((16,), "bool"), _f((16,)), _f((16,))),
    _op("torch.mul", "16", HOST_BOUND, lambda torch: lambda a: torch.mul(a, 2.5), _f((16,))),
)

BY_ID: dict[str, Op] = {op.case_id: op for op in OPS}
assert len(BY_ID) == len(OPS), "two ops share a case id"
