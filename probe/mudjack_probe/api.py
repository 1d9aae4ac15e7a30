"""How suites declare cases.

A suite is a folder of Python files. Each file creates one or more `Cases`
collections and decorates case bodies with `Cases.case(...)`. Importing a suite
file must never import a framework: the body receives the framework module as
`t.fw` when it runs, so listing works on a machine where the framework is
absent (docs/design.md: metadata is static).

A case body is called once per (case, device), inside the adapter's device
scope, with a `Ctx`. It builds its inputs (outside any timed region) and
returns a `Call`: the function to time and its array arguments. Statics
(dims, flags) belong in the function's closure, arrays in `args`, so that a
compiler (`torch.compile`, `jax.jit`, `tf.function`) traces the arrays and
not constants.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .vocabulary import words

FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMMON = FLOATS + ["complex64", "int32", "int64", "bool"]

GRID = words("grid_dtype")
"""The dtype grid (docs/design.md): every paper function gets a case in each,
or a reason from `EXCUSES` (`Cases.excuse`)."""

KNOWN_DTYPES = words("dtype")
"""Every dtype name a case may declare; another (a typo such as "fp16") makes
the case a suite error (`CaseDef.invalid`), not a framework failure."""

EXCUSES = words("excuse")
"""Why a function has no case in a grid dtype: it takes no tensor at all, only
integer (or bool) tensors, only strings, or its API fixes the dtype. A
function that takes such a tensor but lacks a kernel for it is not excused:
its grid case fails on every device, and reports say so."""

WIDE = {"float16": "float64", "bfloat16": "float64", "float32": "float64", "float64": "float64",
        "complex64": "complex128", "complex128": "complex128"}
"""The dtype a floating or complex case is widened to for its float64 reference."""

MODES = ("eager", "compiled")
# A whole model's further stages (suites/models, `mudjack_probe.models`): the
# body itself autocasts, exports to ONNX Runtime or takes a training step.
MODEL_STAGES = tuple(m for m in words("mode") if m not in MODES)
POLICIES = words("policy")
"""How a case is run (docs/design.md, "run policy"): `timed` measures it
(cold call, warm-up, adaptive blocks, rounds); `once` calls it once and
judges the answer, no timing loop (whole-surface suites, tens of thousands
of cases). A run may override every case's policy (`mudjack run --policy`)."""
DEVICE_KINDS = ("cpu", "cuda", "rocm", "tpu")
"""The device kinds a case's `claims` may name (a device id's prefix)."""
COMPILERS = {
    "torch": "torch.compile",
    "jax": "jax.jit",
    "tensorflow": "tf.function(jit_compile=True)",
    "numpy": "",
}

# --------------------------------------------------------------------------
# Shapes and `where=` predicates that suites share (docs/suite-format.md)
# --------------------------------------------------------------------------

LARGE = 1 << 20
"""Elements of the "large" 1-D shape: about a million, so the op and not the
launch dominates the time."""

STANDARD_SHAPES: Mapping[str, tuple[int, ...]] = {"scalar": (), "empty": (0,), "small": (1000,), "large": (LARGE,)}
"""The 1-D shapes most cases start from, by the name case ids use."""


def shapes(*names: str, **extra: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """A `shape=` table: the named `STANDARD_SHAPES` in the order given, then
    `extra` (`shapes("scalar", "small", "large")`,
    `shapes("small", matrix=(64, 128))`). KeyError for an unknown name."""
    table = {name: STANDARD_SHAPES[name] for name in names}
    table.update(extra)
    return table


Predicate = Callable[[str, str, str, dict[str, Any]], bool]
"""What `where=` takes: `(dtype, shape_name, mode, params) -> keep`."""


class Where:
    """A `where=` predicate with a name. `a & b` keeps a combination both keep,
    `a | b` one either keeps; either side may be a plain lambda."""

    def __init__(self, test: Predicate, text: str) -> None:
        self._test = test
        self.text = text

    def __call__(self, dtype: str, shape: str, mode: str, params: dict[str, Any]) -> bool:
        return bool(self._test(dtype, shape, mode, params))

    def __and__(self, other: Predicate) -> Where:
        return Where(lambda d, s, m, p: self(d, s, m, p) and bool(other(d, s, m, p)), f"{self.text} & {_text(other)}")

    def __rand__(self, other: Predicate) -> Where:
        return Where(lambda d, s, m, p: bool(other(d, s, m, p)) and self(d, s, m, p), f"{_text(other)} & {self.text}")

    def __or__(self, other: Predicate) -> Where:
        return Where(lambda d, s, m, p: self(d, s, m, p) or bool(other(d, s, m, p)), f"({self.text} | {_text(other)})")

    def __ror__(self, other: Predicate) -> Where:
        return Where(lambda d, s, m, p: bool(other(d, s, m, p)) or self(d, s, m, p), f"({_text(other)} | {self.text})")

    def __repr__(self) -> str:
        return f"Where({self.text})"


def _text(pred: Predicate) -> str:
    return pred.text if isinstance(pred, Where) else getattr(pred, "__name__", repr(pred))


def _names(value: str | Iterable[str]) -> frozenset[str]:
    return frozenset((value,)) if isinstance(value, str) else frozenset(value)


def cross(dtype: str | Iterable[str], shape: str | Iterable[str]) -> Where:
    """Keeps every shape of `dtype` and every dtype of `shape`: the row and the
    column of the dtype x shape grid that cross there. The usual way to keep a
    grid small: float32 gets every shape, the other dtypes the one shape
    (`cross("float32", "small")`). Either argument may be several names."""
    dtypes, shape_names = _names(dtype), _names(shape)
    return Where(lambda d, s, m, p: d in dtypes or s in shape_names, f"cross({sorted(dtypes)}, {sorted(shape_names)})")


def compiled_only(dtype: str | Iterable[str] | None = None, shape: str | Iterable[str] | None = None, **params: Any) -> Where:
    """Keeps every eager combination, and compiled ones only for `dtype`,
    `shape` (None: any) and the given parameter values: compiling costs
    seconds, so a few compiled variants per function are enough
    (`compiled_only("float32", "large")`, `compiled_only("float32", training=True)`)."""
    dtypes = None if dtype is None else _names(dtype)
    shape_names = None if shape is None else _names(shape)

    def keep(d: str, s: str, m: str, p: dict[str, Any]) -> bool:
        if m == "eager":
            return True
        return (dtypes is None or d in dtypes) and (shape_names is None or s in shape_names) and all(p.get(k) == v for k, v in params.items())

    text = ", ".join([repr(sorted(x)) for x in (dtypes, shape_names) if x is not None] + [f"{k}={v!r}" for k, v in params.items()])
    return Where(keep, f"compiled_only({text})")


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


# A case whose float64 reference is a trusted host computation (`mudjack
# check`'s NAME_reference) carries this tag: the runner computes that
# reference for its float64 rows too, and the engine judges them with it.
TRUSTED_REFERENCE_TAG = "reference::trusted"


@dataclass
class Check:
    """A test of the output: `fn(outputs_as_numpy, inputs_as_numpy) -> bool`.

    `kind` says what the test knows (docs/design.md, "How a pass was checked"):
    "reference" compares the values with a host computation that does not use
    the framework under test (NumPy/SciPy in float64, an analytic answer);
    "property" tests something the right answer must satisfy (orthogonal
    factors, a sorted order, a sample mean). Either must be able to fail on a
    wrong answer: a check that cannot fail is no check. "sanity" (`.sanity`)
    is what any wrong answer of the right shape passes: it fails a case, but
    a pass it alone checked is unverified."""

    name: str
    fn: Callable[..., bool]
    kind: str = "property"


@dataclass
class Metric:
    """A measured figure of the case other than its latency (final loss,
    accuracy, iterations, an optimum). `value` is a number, or
    `fn(outputs_as_numpy, inputs_as_numpy) -> number` evaluated once after
    timing, on the cold call's outputs. `unit` is free text ("" = a count or
    a plain number; "1" = a fraction; "s"; "FLOP")."""

    name: str
    value: Any
    unit: str = ""


@dataclass
class Call:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    checks: list[Check] = field(default_factory=list)
    compare: bool = True  # False: outputs are not compared across devices (random sampling, ids)
    work_amount: float | None = None  # work one call of fn does, in work_unit
    work_unit: str = ""
    metrics: list[Metric] = field(default_factory=list)
    compiled_by_case: bool = False  # True: the body compiled fn itself; the runner must not
    no_reference_reason: str = ""  # why the case has no float64 reference (`no_reference`)
    # A widened call that is a trusted host computation, not the function
    # itself widened (`mudjack check`'s NAME_reference): its name, recorded
    # with the reference so the engine says what judged the pass.
    trusted_reference: str = ""
    on_host: frozenset[int] = frozenset()  # outputs meant to live on the host (`host_outputs`)
    # Why a second call is not the same computation (`stateful`): the call
    # changes state it reads. Empty: a second call on the same arguments
    # must give the same outputs.
    stateful_reason: str = ""

    def stateful(self, why: str) -> Call:
        """Declare that the call changes state it reads (an optimizer step
        on parameters it keeps, an increment of a variable): each call starts
        where the last left off, so a second call is not the same
        computation. The probe then makes no second call to judge the
        case's determinism by (protocol 1.14: `again` is `{skipped}`); the
        outputs judged stay the first call's."""
        self.stateful_reason = why
        return self

    def check(self, name: str, fn: Callable[..., bool]) -> Call:
        """Add a property check (see `Check`)."""
        self.checks.append(Check(name, fn))
        return self

    def sanity(self, name: str, fn: Callable[..., bool]) -> Call:
        """Add a sanity property: one any wrong answer of the right shape
        passes (every output finite, the first output not constant). A failing
        one fails the case like any check, but a pass checked only by sanity
        properties is `unverified`: they are not evidence the answer is right."""
        self.checks.append(Check(name, fn, "sanity"))
        return self

    def reference(self, name: str, fn: Callable[..., bool]) -> Call:
        """Add a reference check: `fn` compares the outputs with a host
        computation independent of the framework under test (see `Check`)."""
        self.checks.append(Check(name, fn, "reference"))
        return self

    def no_compare(self) -> Call:
        self.compare = False
        return self

    def host_outputs(self, *indices: int) -> Call:
        """Outputs (by index in the flattened outputs) that the function is
        meant to leave on the host (a copy to the CPU, a length, a list of
        learning rates). Every other tensor output must live on the device
        under test, or the case fails."""
        self.on_host = frozenset(indices)
        return self

    def no_reference(self, reason: str) -> Call:
        """The case has no float64 reference: its answer at float64 is not
        its answer rounded (random draws whose bits depend on the dtype).
        Its outputs are compared with the baseline device's instead."""
        self.no_reference_reason = reason
        return self

    def work(self, amount: float, unit: str) -> Call:
        """Declare the work one call does (2*n**3 "FLOP", n "element", batch
        "sample"); the engine reports throughput = amount / median latency
        in `unit`/s."""
        if not amount > 0:
            raise ValueError(f"work must be positive, got {amount!r}")
        self.work_amount = float(amount)
        self.work_unit = unit
        return self

    def metric(self, name: str, value: Any, unit: str = "") -> Call:
        """Report a measured figure beside the latency (see `Metric`)."""
        self.metrics.append(Metric(name, value, unit))
        return self

    def self_compiled(self) -> Call:
        """The body compiled what it times (a training step inside a loop, a
        jitted solver); in `compiled` mode the runner then times fn as is."""
        self.compiled_by_case = True
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
    body: Callable[[Ctx], Call]
    requires: dict[str, Any]
    note: str
    rtol: float | None
    atol: float | None
    successor: str | None
    tags: list[str]
    reduction: int | None = None
    excused: dict[str, str] = field(default_factory=dict)
    grid: bool = False  # generated for the dtype grid (`Cases.case(grid=...)`)
    invalid: str = ""  # why the declaration is wrong (an unknown dtype): the case is a suite error
    policy: str = "timed"  # `POLICIES`
    # Device kind -> whether the framework claims the case's dtype there (its
    # own op database's word); a kind left out: no claim known.
    claims: dict[str, bool] = field(default_factory=dict)

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
            "reduction": self.reduction,
            "excused": dict(self.excused),
            "grid": self.grid,
            **({"invalid": self.invalid} if self.invalid else {}),
            **({"policy": self.policy} if self.policy != "timed" else {}),
            **({"claims": dict(self.claims)} if self.claims else {}),
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
    """What a case body sees. Built by the runner; owned by it.

    With `widen=True` the body builds the case's float64 reference
    (docs/design.md, "accuracy oracle"): `t.dtype` is the case dtype widened
    (float16/bfloat16/float32 to float64, complex64 to complex128), and
    inputs from `randn`/`positive`/`from_numpy` are drawn exactly as in the
    case, rounded to the case's dtype, then widened, so the reference sees
    the very values the device saw."""

    def __init__(self, adapter: Any, case: CaseDef, seed: int, widen: bool = False) -> None:
        self.adapter = adapter
        self.fw = adapter.module
        self.case = case
        self.dtype_name = case.dtype
        self.shape = case.shape
        self.mode = case.mode
        self.p = Params(case.params)
        self.seed = seed
        self.device = adapter.native_device
        self.widen = widen and case.dtype in WIDE
        self._counter = 0

    @property
    def dtype(self) -> Any:
        return self.adapter.dtype(WIDE[self.dtype_name] if self.widen else self.dtype_name)

    def _next_seed(self) -> int:
        self._counter += 1
        return self.seed * 1000003 + self._counter

    def _make(self, shape: Sequence[int] | None, dtype: str | None, kind: str) -> Any:
        name = dtype or self.dtype_name
        if self.widen and name == WIDE[self.dtype_name]:
            name = self.dtype_name  # "the case's dtype, widened": draw it as the case does
        value = self.adapter.make(tuple(self.shape if shape is None else shape), name, kind, self._next_seed())
        if self.widen and name in WIDE:
            value = self.adapter.cast(value, WIDE[name])
        return value

    def rounded(self, x: Any) -> Any:
        """In the widened run, `x` rounded to the case's dtype and widened
        back: what the case computes in its own dtype before its call
        (weights scaled into a module, a constant folded into an input);
        `x` itself otherwise."""
        if not self.widen:
            return x
        return self.adapter.cast(self.adapter.cast(x, self.dtype_name), WIDE[self.dtype_name])

    def randn(self, shape: Sequence[int] | None = None, dtype: str | None = None) -> Any:
        """Standard normal values (uniform ints for integer dtypes) on the device."""
        return self._make(shape, dtype, "randn")

    def positive(self, shape: Sequence[int] | None = None, dtype: str | None = None) -> Any:
        """Values in [0.5, 2.5): safe for log, sqrt, division."""
        return self._make(shape, dtype, "positive")

    def from_numpy(self, array: Any) -> Any:
        value = self.adapter.from_numpy(array)
        kind = getattr(getattr(array, "dtype", None), "kind", "")
        if self.widen and kind in ("f", "c"):
            value = self.adapter.cast(value, "complex128" if kind == "c" else "float64")
        return value

    def numpy_rng(self) -> Any:
        import numpy as np

        return np.random.default_rng(self._next_seed())

    def call(self, fn: Callable[..., Any], *args: Any) -> Call:
        return Call(fn, args)

    def param(self, name: str, default: T, *, path: bool = False) -> T:
        """A run parameter (`mudjack run --param NAME=VALUE`); see `param`."""
        return param(name, default, path=path)


_ALL: list[Cases] = []

# Run parameters: `mudjack run --param NAME=VALUE` reaches every probe as
# `--param NAME=VALUE`. Suites read them with `param(name, default)`, at
# import time (to shape the case grid: case ids then name the value) or in a
# body. Every name read is recorded with its type and default, so the listing
# probe can tell the engine which parameters its suites understand.
_PARAMS: dict[str, str] = {}
_READ: dict[str, dict[str, Any]] = {}

T = TypeVar("T")


def set_params(values: Mapping[str, str]) -> None:
    """Called once by the probe's entry point, before any suite is imported."""
    _PARAMS.clear()
    _PARAMS.update(values)
    _READ.clear()


def parse_param_args(items: Iterable[str]) -> dict[str, str]:
    """`["a=1", "b=x,y"]` -> {"a": "1", "b": "x,y"}; ValueError on a bad item."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ValueError(f"--param {item!r}: expected NAME=VALUE with NAME an identifier")
        out[name] = value.strip()
    return out


def _type_name(default: Any) -> str:
    if isinstance(default, tuple):
        inner = _type_name(default[0]) if default else "str"
        return f"list[{inner}]"
    return type(default).__name__


def _convert(name: str, text: str, default: Any) -> Any:
    if isinstance(default, tuple):
        element = default[0] if default else ""
        items = [x for x in (s.strip() for s in text.split(",")) if x]
        if not items:
            raise ValueError(f"param {name}={text!r}: expected a comma-separated list")
        return tuple(_convert(name, x, element) for x in items)
    if isinstance(default, bool):
        low = text.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"param {name}={text!r}: expected true or false")
    if isinstance(default, int):
        try:
            value = float(text)  # accepts 1e6
        except ValueError:
            raise ValueError(f"param {name}={text!r}: expected an integer") from None
        if not value.is_integer():
            raise ValueError(f"param {name}={text!r}: expected an integer")
        return int(value)
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"param {name}={text!r}: expected a number") from None
    if isinstance(default, str):
        return text
    raise TypeError(f"param {name}: default of type {type(default).__name__} is not supported")


def param(name: str, default: T, *, path: bool = False) -> T:
    """The value of run parameter `name`, converted to the type of `default`
    (int, float, bool, str, or a tuple of one of those from a comma-separated
    list); `default` when the run did not set it. ValueError if the value does
    not convert. `path=True` declares that the value names a file, folder or
    program on the machine: `mudjack serve` refuses such a parameter from a
    request (a request never names what the server reads or runs)."""
    text = _PARAMS.get(name)
    value = default if text is None else _convert(name, text, default)
    _READ[name] = {"type": _type_name(default), "default": _jsonable(default), "value": _jsonable(value)}
    if path:
        _READ[name]["path"] = True
    return value


def params_read() -> dict[str, dict[str, Any]]:
    """Every parameter the imported suites read: {name: {type, default, value}}."""
    return {k: dict(v) for k, v in _READ.items()}


class Cases:
    """A collection of cases for one framework. Create at module level."""

    def __init__(self, framework: str) -> None:
        self.framework = framework
        self._defs: list[CaseDef] = []
        self._ids: set[str] = set()  # the ids in _defs: a declaration checks its own against them
        self._excused: dict[str, dict[str, str]] = {}
        _ALL.append(self)

    @property
    def defs(self) -> list[CaseDef]:
        """Every declared case, in declaration order; grid cases of an excused
        dtype left out, and every case carrying its function's excuses."""
        out = []
        declared = {c.id for c in self._defs if not c.grid}
        for c in self._defs:
            excused = self._excused.get(c.function, {})
            if c.grid and (c.dtype in excused or c.id in declared):
                continue  # excused, or declared by hand (later in the file)
            c.excused = dict(excused)
            out.append(c)
        return out

    def excuse(self, function: str, reason: str, dtypes: Iterable[str] = GRID) -> None:
        """State once per function why it has no case in `dtypes` of the grid:
        a reason from `EXCUSES` (`no_tensor_input`, `integer_only`,
        `string_only`, `dtype_fixed_by_api`). ValueError for another reason
        or a dtype outside the grid."""
        if reason not in EXCUSES:
            raise ValueError(f"{function}: excuse {reason!r} is not one of {EXCUSES}")
        names = list(dtypes)
        bad = [d for d in names if d not in GRID]
        if bad:
            raise ValueError(f"{function}: {bad} not in the dtype grid {GRID}")
        self._excused.setdefault(function, {}).update(dict.fromkeys(names, reason))

    def case(
        self,
        function: str,
        *,
        dtype: Iterable[str] = ("float32",),
        shape: Mapping[str, Any] | None = None,
        mode: Iterable[str] = ("eager",),
        params: Mapping[str, Iterable[Any]] | None = None,
        where: Predicate | None = None,
        requires: Mapping[str, Any] | None = None,
        note: str = "",
        rtol: float | Mapping[str, float] | None = None,
        atol: float | Mapping[str, float] | None = None,
        successor: str | None = None,
        tags: Iterable[str] = (),
        grid: str | None = None,
        reduction: int | Callable[[Any, dict[str, Any]], int] | None = None,
        policy: str = "timed",
        claims: Mapping[str, Iterable[str]] | None = None,
        case_id: str | None = None,
    ) -> Callable[[Callable[[Ctx], Call]], Callable[[Ctx], Call]]:
        """Declare the cross product dtype x shape x params x mode as cases.

        Variant names are `<dtype>-<shape>[-<param>=<value>...]-<mode>`; they are
        part of the case id, so renaming a shape or param breaks history.
        `where(dtype, shape_name, mode, params)` drops combinations.
        `rtol`/`atol` loosen the engine's accuracy bounds for floating
        outputs, either for every dtype or per dtype ({"float16": 1e-2,
        "float32": 1e-4}; a dtype left out keeps the engine's bounds).
        `grid` names the representative shape (a key of `shape`; "default"
        without one): every `GRID` dtype the declaration leaves out gets an
        eager case there (and a compiled one when `mode` has "compiled"),
        with each parameter's first value, `where` not applied; a dtype the
        function is excused from (`excuse`) gets none.
        `reduction` is how many input elements each output element sums
        over (K of a matmul, the length of a reduced axis), or a function
        `(dims, params) -> int`; the engine's accuracy bound grows as
        sqrt(reduction). Left out, the engine uses its default for the
        function's op family.
        `policy` is how the cases run (`POLICIES`: "once" for whole-surface
        suites). `claims` is what the framework itself says the function
        supports: {device kind: the dtypes it claims there} (`DEVICE_KINDS`),
        from its own op database; each case records whether its dtype is
        claimed on each kind named, and reports set that claim against what
        happened.
        `case_id` names the case outright instead of
        `<framework>/<function>/<variant>` (the built-in suite `fuzz`:
        `fuzz/<graph hash>/<backend>`); only for a declaration that yields
        exactly one case and no grid (ValueError otherwise). Its variant is
        what follows `<function>/` in `case_id` when it starts so.
        """
        shapes = dict(shape) if shape else {"default": ()}
        claimed = _checked_claims(function, policy, claims, mode)
        grid_params = dict(params) if params else {}

        def register(body: Callable[[Ctx], Call]) -> Callable[[Ctx], Call]:
            combos = _combinations(function, list(dtype), shapes, grid_params, list(mode), where, grid)
            if case_id is not None and len(combos) != 1:
                raise ValueError(f"{function}: case_id {case_id!r} needs a declaration of exactly one case, not {len(combos)}")
            common: dict[str, Any] = {"framework": self.framework, "function": function, "body": body,
                                      "requires": dict(requires or {}), "note": note, "successor": successor,
                                      "tags": list(tags), "policy": policy}
            for d, sname, sval, p, m, generated in combos:
                named = self._name(function, d, sname, p, m, case_id, generated)
                if named is None:
                    continue  # the declaration has it already
                self._defs.append(CaseDef(
                    id=named[0], variant=named[1], dtype=d, shape_name=sname, shape=sval, mode=m, params=p,
                    rtol=_for_dtype(rtol, d), atol=_for_dtype(atol, d),
                    reduction=int(reduction(sval, p)) if callable(reduction) else reduction,
                    grid=generated, invalid=_dtype_mistake(d), claims={k: d in v for k, v in claimed.items()},
                    **common))
            return body

        return register

    def _name(self, function: str, d: str, sname: str, p: dict[str, Any], m: str, case_id: str | None,
              generated: bool) -> tuple[str, str] | None:
        """(id, variant) of one declared combination, recorded as seen; None
        for a grid case the declaration has already."""
        seen = self._ids  # not rebuilt per declaration: a whole-surface suite declares thousands
        variant = "-".join([d, sname] + [f"{k}={_token(v)}" for k, v in p.items()] + [m])
        this_id = f"{self.framework}/{function}/{variant}"
        if case_id is not None:
            if case_id in seen:
                raise ValueError(f"{function}: case_id {case_id!r} is declared twice")
            this_id = case_id
            variant = case_id[len(function) + 1:] if case_id.startswith(function + "/") else variant
        if generated and this_id in seen:
            return None
        seen.add(this_id)
        return this_id, variant


def _checked_claims(function: str, policy: str, claims: Mapping[str, Iterable[str]] | None,
                    mode: Iterable[str]) -> dict[str, frozenset[str]]:
    """A declaration's claims by device kind, after its policy, claims and
    modes are checked (ValueError naming the function)."""
    if policy not in POLICIES:
        raise ValueError(f"{function}: policy {policy!r} is not one of {POLICIES}")
    claimed = {k: frozenset(v) for k, v in (claims or {}).items()}
    for k in claimed:
        if k not in DEVICE_KINDS:
            raise ValueError(f"{function}: claims name device kind {k!r}, not one of {DEVICE_KINDS}")
    for m in mode:
        if m not in MODES + MODEL_STAGES:
            raise ValueError(f"{function}: mode {m!r} is not one of {MODES + MODEL_STAGES}")
    return claimed


def _combinations(function: str, declared: list[str], shapes: dict[str, Any], grid_params: dict[str, Iterable[Any]],
                  mode: list[str], where: Predicate | None,
                  grid: str | None) -> list[tuple[str, str, Any, dict[str, Any], str, bool]]:
    """(dtype, shape name, shape, params, mode, generated for the grid) of
    every case a declaration yields (`Cases.case`)."""
    keys = list(grid_params)
    combos: list[tuple[str, str, Any, dict[str, Any], str, bool]] = []
    for d, (sname, sval), combo, m in itertools.product(
        declared, shapes.items(), itertools.product(*[list(grid_params[k]) for k in keys]), mode
    ):
        p = dict(zip(keys, combo))
        if where is not None and not where(d, sname, m, p):
            continue
        combos.append((d, sname, sval, p, m, False))
    if grid is not None:
        if grid not in shapes:
            raise ValueError(f"{function}: grid shape {grid!r} is not one of {list(shapes)}")
        first = {k: next(iter(grid_params[k])) for k in keys}
        modes = [m for m in MODES if m in mode]
        combos += [(d, grid, shapes[grid], first, m, True) for d in GRID if d not in declared for m in modes]
    return combos


def _dtype_mistake(name: str) -> str:
    """Why `name` is not a dtype a case may declare ("" when it is one)."""
    if name in KNOWN_DTYPES:
        return ""
    near = difflib.get_close_matches(name, KNOWN_DTYPES, n=1, cutoff=0.5)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"unknown dtype {name!r}{hint} (known: {', '.join(KNOWN_DTYPES)})"


def _for_dtype(tol: float | Mapping[str, float] | None, dtype: str) -> float | None:
    if isinstance(tol, Mapping):
        return tol.get(dtype)
    return tol


def collected() -> list[Cases]:
    return list(_ALL)


def reset() -> None:
    """Forget declared cases and the parameters read (not their values)."""
    _ALL.clear()
    _READ.clear()


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


def as64(x: Any) -> Any:
    """x as a numpy array for a host reference: floats (bfloat16 from
    ml_dtypes included) widened to float64, complex to complex128; integers,
    bools, strings and objects kept as they are."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    if x.dtype.kind == "f" or x.dtype.kind not in "biuSUO":  # "V": bfloat16 from ml_dtypes
        return x.astype(np.float64)
    return x
