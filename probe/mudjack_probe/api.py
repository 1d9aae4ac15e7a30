"""How suites declare cases.

A suite is a folder of Python files. Each file creates one or more `Cases`
collections and decorates case bodies with `Cases.case(...)`. Importing a suite
file must never import a framework: the body receives the framework module as
`t.fw` when it runs, so listing works on a machine where the framework is
absent (DESIGN.md: metadata is static).

A case body is called once per (case, device), inside the adapter's device
scope, with a `Ctx`. It builds its inputs (outside any timed region) and
returns a `Call`: the function to time and its array arguments. Statics
(dims, flags) belong in the function's closure, arrays in `args`, so that a
compiler (`torch.compile`, `jax.jit`, `tf.function`) traces the arrays and
not constants.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMMON = FLOATS + ["complex64", "int32", "int64", "bool"]

MODES = ("eager", "compiled")
COMPILERS = {
    "torch": "torch.compile",
    "jax": "jax.jit",
    "tensorflow": "tf.function(jit_compile=True)",
    "numpy": "",
}


class Params:
    """Attribute access to a variant's parameters: `t.p.dim`."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)


@dataclass
class Check:
    """A cheap property of the output: `fn(outputs_as_numpy, inputs_as_numpy) -> bool`."""

    name: str
    fn: Callable[..., bool]


@dataclass
class Call:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    checks: list[Check] = field(default_factory=list)
    compare: bool = True  # False: outputs are not compared across devices (random sampling, ids)

    def check(self, name: str, fn: Callable[..., bool]) -> "Call":
        self.checks.append(Check(name, fn))
        return self

    def no_compare(self) -> "Call":
        self.compare = False
        return self


@dataclass
class CaseDef:
    id: str
    framework: str
    function: str
    variant: str
    dtype: str
    shape_name: str
    shape: Any
    mode: str
    params: dict[str, Any]
    body: Callable[["Ctx"], Call]
    requires: dict[str, Any]
    note: str
    rtol: float | None
    atol: float | None
    successor: str | None
    tags: list[str]

    def metadata(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "framework": self.framework,
            "function": self.function,
            "variant": self.variant,
            "dtype": self.dtype,
            "shape": self.shape_name,
            "dims": _jsonable(self.shape),
            "mode": self.mode,
            "compiler": COMPILERS.get(self.framework, "") if self.mode == "compiled" else "",
            "params": {k: _jsonable(v) for k, v in self.params.items()},
            "requires": self.requires,
            "note": self.note,
            "rtol": self.rtol,
            "atol": self.atol,
            "successor": self.successor,
            "tags": self.tags,
        }


def _jsonable(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return repr(v)


def _token(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "x".join(_token(x) for x in v) or "none"
    return str(v).replace("/", "_").replace(" ", "")


class Ctx:
    """What a case body sees. Built by the runner; owned by it."""

    def __init__(self, adapter: Any, case: CaseDef, seed: int) -> None:
        self.adapter = adapter
        self.fw = adapter.module
        self.case = case
        self.dtype_name = case.dtype
        self.shape = case.shape
        self.mode = case.mode
        self.p = Params(case.params)
        self.seed = seed
        self.device = adapter.native_device
        self._counter = 0

    @property
    def dtype(self) -> Any:
        return self.adapter.dtype(self.dtype_name)

    def _next_seed(self) -> int:
        self._counter += 1
        return self.seed * 1000003 + self._counter

    def randn(self, shape: Sequence[int] | None = None, dtype: str | None = None) -> Any:
        """Standard normal values (uniform ints for integer dtypes) on the device."""
        return self.adapter.make(
            tuple(self.shape if shape is None else shape),
            dtype or self.dtype_name,
            "randn",
            self._next_seed(),
        )

    def positive(self, shape: Sequence[int] | None = None, dtype: str | None = None) -> Any:
        """Values in [0.5, 2.5): safe for log, sqrt, division."""
        return self.adapter.make(
            tuple(self.shape if shape is None else shape),
            dtype or self.dtype_name,
            "positive",
            self._next_seed(),
        )

    def from_numpy(self, array: Any) -> Any:
        return self.adapter.from_numpy(array)

    def numpy_rng(self) -> Any:
        import numpy as np

        return np.random.default_rng(self._next_seed())

    def call(self, fn: Callable[..., Any], *args: Any) -> Call:
        return Call(fn, args)


_ALL: list["Cases"] = []


class Cases:
    """A collection of cases for one framework. Create at module level."""

    def __init__(self, framework: str) -> None:
        self.framework = framework
        self.defs: list[CaseDef] = []
        _ALL.append(self)

    def case(
        self,
        function: str,
        *,
        dtype: Iterable[str] = ("float32",),
        shape: Mapping[str, Any] | None = None,
        mode: Iterable[str] = ("eager",),
        params: Mapping[str, Iterable[Any]] | None = None,
        where: Callable[[str, str, str, dict[str, Any]], bool] | None = None,
        requires: Mapping[str, Any] | None = None,
        note: str = "",
        rtol: float | Mapping[str, float] | None = None,
        atol: float | Mapping[str, float] | None = None,
        successor: str | None = None,
        tags: Iterable[str] = (),
    ) -> Callable[[Callable[[Ctx], Call]], Callable[[Ctx], Call]]:
        """Declare the cross product dtype x shape x params x mode as cases.

        Variant names are `<dtype>-<shape>[-<param>=<value>...]-<mode>`; they are
        part of the case id, so renaming a shape or param breaks history.
        `where(dtype, shape_name, mode, params)` drops combinations.
        `rtol`/`atol` override the engine's cross-device tolerance, either for
        every dtype or per dtype ({"float16": 1e-2, "float32": 1e-4}; a dtype
        left out keeps the engine's default).
        """
        shapes = dict(shape) if shape else {"default": ()}
        grid = dict(params) if params else {}
        for m in mode:
            if m not in MODES:
                raise ValueError(f"{function}: mode {m!r} is not one of {MODES}")

        def register(body: Callable[[Ctx], Call]) -> Callable[[Ctx], Call]:
            keys = list(grid)
            for d, (sname, sval), combo, m in itertools.product(
                list(dtype), shapes.items(), itertools.product(*[list(grid[k]) for k in keys]), list(mode)
            ):
                p = dict(zip(keys, combo))
                if where is not None and not where(d, sname, m, p):
                    continue
                parts = [d, sname] + [f"{k}={_token(v)}" for k, v in p.items()] + [m]
                variant = "-".join(parts)
                self.defs.append(
                    CaseDef(
                        id=f"{self.framework}/{function}/{variant}",
                        framework=self.framework,
                        function=function,
                        variant=variant,
                        dtype=d,
                        shape_name=sname,
                        shape=sval,
                        mode=m,
                        params=p,
                        body=body,
                        requires=dict(requires or {}),
                        note=note,
                        rtol=_for_dtype(rtol, d),
                        atol=_for_dtype(atol, d),
                        successor=successor,
                        tags=list(tags),
                    )
                )
            return body

        return register


def _for_dtype(tol: float | Mapping[str, float] | None, dtype: str) -> float | None:
    if isinstance(tol, Mapping):
        return tol.get(dtype)
    return tol


def collected() -> list["Cases"]:
    return list(_ALL)


def reset() -> None:
    _ALL.clear()


class _LazyModule:
    """A module imported on first attribute access, so that suite files can
    name numpy at top level and still be listed by an interpreter without it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            import importlib

            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)


np: Any = _LazyModule("numpy")
