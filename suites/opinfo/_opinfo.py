"""The OpInfo suite's shared parts: the manifest, and the case body that runs
one sample input of one OpInfo entry.

PyTorch's own test database (`torch.testing._internal.common_methods_invocations.op_db`)
lists, for every operator it tests, the dtypes it claims per device and a
generator of sample inputs. `scripts/update-opinfo-manifest.py` reads it once
into `manifest.json`, beside this file, so that declaring the cases needs no
torch (listing runs in a bare interpreter). A case body imports op_db itself,
once per probe, when the first case runs.
"""

from __future__ import annotations

import itertools
import json
import random
import warnings
from pathlib import Path
from typing import Any, Callable

from mudjack_probe.api import Call, Ctx
from mudjack_probe.errors import Skip, Unavailable

MANIFEST = Path(__file__).resolve().with_name("manifest.json")

_OPS: dict[tuple[str, str], Any] = {}
"""OpInfo entries by (name, variant), filled on the first case that runs."""


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    """The manifest: {"torch", "command", "grid", "sample_cap", "ops": [record...]}."""
    with open(path, encoding="utf-8") as f:
        manifest: dict[str, Any] = json.load(f)
    return manifest


def function_name(record: dict[str, Any]) -> str:
    """The case's function: the OpInfo name, `.variant` appended when the entry has one."""
    return f"{record['name']}.{record['variant']}" if record["variant"] else str(record["name"])


def seed_for(seed: int, sample: int) -> int:
    """The torch seed a case draws its sample inputs with: the run's seed and the sample index."""
    return (seed * 1000003 + sample) % (1 << 63)


def flagged(record: dict[str, Any], key: str, sample: int) -> bool:
    """Whether the manifest marks sample `sample` of the entry in list `key`
    ("random", "uninitialised", "unrepeatable"): listed, or beyond the
    samples probed while some probed one is listed."""
    marked = record.get(key) or []
    return sample in marked or (sample >= int(record.get("probed", 0)) and bool(marked))


def _op_db(torch: Any) -> dict[tuple[str, str], Any]:
    """op_db by (name, variant). Importing it has side effects this undoes:
    torch's test utilities freeze `torch.backends` flags (so the adapter's
    strict-precision switch would raise) and add warning filters."""
    if not _OPS:
        frozen = torch.backends.flags_frozen()
        with warnings.catch_warnings():
            try:
                from torch.testing._internal.common_methods_invocations import op_db
            except ImportError as exc:  # expecttest missing: the database, not the op, is absent
                raise Unavailable(f"torch {torch.__version__}'s OpInfo database cannot be imported here: "
                                  f"{type(exc).__name__}: {exc} (the torch environment pins expecttest)") from exc
        if not frozen and torch.backends.flags_frozen():
            # The flag is a global of torch/backends/__init__.py, a module
            # that sys.modules holds behind a wrapper: set it where the
            # function that reads it looks.
            torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True
        _OPS.update({(op.name, op.variant_test_name or ""): op for op in op_db})
    return _OPS


def _host_slots(torch: Any, op: Any, t: Ctx, index: int, count: int) -> set[int]:
    """The leaves of the sample that its generator keeps on the CPU when it
    generates for the device under test (tensor_split's indices: an op
    that expects them on the host): the same sample generated once more on
    the device, for its placement only; its values come from the host's.
    Empty when the two samples differ in structure."""
    from torch.utils import _pytree as pytree

    try:
        state = random.getstate()
        try:
            random.seed(seed_for(t.seed, index))
            torch.manual_seed(seed_for(t.seed, index))
            on_device = list(itertools.islice(op.sample_inputs(t.device, getattr(torch, t.dtype_name),
                                                               requires_grad=False), index + 1))
        finally:
            random.setstate(state)
        leaves, _ = pytree.tree_flatten((on_device[index].input, tuple(on_device[index].args), dict(on_device[index].kwargs)))
    except Exception:  # no sample on the device: every tensor goes there
        return set()
    if len(leaves) != count:
        return set()
    return {i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor) and leaf.device.type == "cpu"}


def _on_device(torch: Any, leaf: Any, device: Any) -> Any:
    """A non-tensor leaf of a sample, with the CPU named as a device (factory
    functions' `device="cpu"`, `Tensor.to("cpu")`: OpInfo names the device
    the test runs on) replaced by the device under test."""
    if device.type != "cpu" and (leaf == "cpu" if isinstance(leaf, str) else isinstance(leaf, torch.device) and leaf.type == "cpu"):
        return device
    return leaf


def _samples(torch: Any, op: Any, dtype_name: str, seed: int, count: int) -> list[Any]:
    """The entry's first `count` sample inputs in dtype `dtype_name`, made on
    the host after seeding torch and Python's `random` (some generators
    draw scalars from it) with `seed`; Python's generator is left as it was."""
    state = random.getstate()
    try:
        torch.manual_seed(seed)
        random.seed(seed)
        return list(itertools.islice(op.sample_inputs("cpu", getattr(torch, dtype_name), requires_grad=False), count))
    finally:
        random.setstate(state)


def sample_call(t: Ctx, record: dict[str, Any]) -> Call:
    """The case body: sample input `t.p.sample` of the OpInfo entry, generated
    on the host in the case's dtype (also in the widened run, whose arguments
    the runner widens itself), its tensors moved to the device and passed as
    the call's arguments; everything else stays in the closure."""
    torch = t.fw
    from torch.utils import _pytree as pytree

    name, variant, index = record["name"], record["variant"], int(t.p.sample)
    op = _op_db(torch).get((name, variant))
    if op is None:
        raise Unavailable(f"torch {torch.__version__}'s OpInfo database has no entry {function_name(record)!r}")
    taken = _samples(torch, op, t.dtype_name, seed_for(t.seed, index), index + 1)
    if len(taken) <= index:
        plural = "" if len(taken) == 1 else "s"
        raise Skip(f"OpInfo {function_name(record)} yields {len(taken)} sample input{plural} in {t.dtype_name}, none at index {index}")
    sample = taken[index]
    leaves, spec = pytree.tree_flatten((sample.input, tuple(sample.args), dict(sample.kwargs)))
    slots = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
    statics = [None if isinstance(leaf, torch.Tensor) else _on_device(torch, leaf, t.device) for leaf in leaves]
    host = _host_slots(torch, op, t, index, len(leaves)) if t.device.type != "cpu" else set()
    tensors = [leaves[i] if i in host else leaves[i].to(t.device) for i in slots]

    def call(*arrays: Any) -> Any:
        filled = list(statics)
        for i, a in zip(slots, arrays):
            filled[i] = a
        inp, args, kw = pytree.tree_unflatten(filled, spec)
        return normalise(torch, op(inp, *args, **kw))

    result = t.call(call, *tensors)
    for key, reason in _UNCOMPARABLE.items():
        if flagged(record, key, index):
            return result.no_compare().no_reference(reason)
    expected = _numpy_reference(torch, op, sample, t.dtype_name)
    if expected is not None:
        dtype_name = t.dtype_name
        result.reference("OpInfo's NumPy reference", lambda outs, ins: _agrees(outs, expected, dtype_name))
    return result


# How far an output may be from OpInfo's NumPy reference, (rtol, atol) by
# the case's dtype: the reference runs in NumPy's own arithmetic for that
# dtype (float16 in float16, bfloat16 widened to float32), so the bounds are
# looser than torch's own test tolerances, to catch a wrong kernel rather
# than a rounding difference.
_REFERENCE_TOLERANCE = {
    "float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-5),
    "complex64": (1e-4, 1e-5), "float64": (1e-7, 1e-7), "complex128": (1e-7, 1e-7),
}


def _numpy_reference(torch: Any, op: Any, sample: Any, dtype_name: str) -> list[Any] | None:
    """The entry's NumPy reference (`OpInfo.ref`) on the sample, computed on
    the host, flattened: a check independent of torch's kernels. None when
    the entry has none, when torch's own tests expect its reference test to
    fail or skip it for this dtype on the cpu, or when it cannot run on this
    sample (then the case has no reference check, never a failed one)."""
    ref = getattr(op, "ref", None)
    if ref is None or ref is NotImplemented or _reference_test_excused(torch, op, dtype_name):
        return None
    try:
        s = sample.numpy()
        return _flat(ref(s.input, *s.args, **s.kwargs))
    except Exception:
        return None


def _reference_test_excused(torch: Any, op: Any, dtype_name: str) -> bool:
    """Whether one of the entry's decorators (expected failures, skips,
    tolerance overrides) targets torch's `test_reference_testing` for this
    dtype on the cpu."""
    dtype = getattr(torch, dtype_name)
    for info in list(getattr(op, "decorators", ()) or ()) + list(getattr(op, "skips", ()) or ()):
        if getattr(info, "test_name", None) != "test_reference_testing":
            continue
        dtypes = getattr(info, "dtypes", None)
        device = getattr(info, "device_type", None)
        if (dtypes is None or dtype in dtypes) and device in (None, "cpu"):
            return True
    return False


def _flat(out: Any) -> list[Any]:
    """Arrays of a (nested) output, as the adapter flattens outputs."""
    import numpy as np

    if isinstance(out, (list, tuple)):
        return [a for x in out for a in _flat(x)]
    if out is None:
        return []
    return [np.asarray(out)]


def _agrees(outs: list[Any], expected: list[Any], dtype_name: str) -> bool:
    """The outputs against the reference: as many, of the same shapes,
    integers and bools exactly, floating and complex values within the
    dtype's `_REFERENCE_TOLERANCE` (NaN where NaN)."""
    import numpy as np

    if len(outs) != len(expected):
        return False
    for out, ref in zip(outs, expected):
        got, want = np.asarray(out), np.asarray(ref)
        if got.shape != want.shape:
            return False
        if got.dtype.kind in "biu" and want.dtype.kind in "biu":
            # NumPy may compute in a wider integer than torch's result
            # (int8 products summed in int64): compared in the result's own
            # dtype, with its wraparound.
            if not np.array_equal(got, want.astype(got.dtype)):
                return False
            continue
        # The loosest of the bounds of the case's dtype, the output's and
        # the reference's (an integer or bool case whose op computes in
        # float32, as torch.sin does, while NumPy computes a bool's sine in
        # float16).
        bounds = [_REFERENCE_TOLERANCE.get(dtype_name, (0.0, 0.0))] + [
            _REFERENCE_TOLERANCE.get(str(a.dtype), (1e-4, 1e-5) if a.dtype.kind in "fcV" else (0.0, 0.0))
            for a in (got, want)]
        rtol, atol = max(b[0] for b in bounds), max(b[1] for b in bounds)
        wide = np.complex128 if "c" in (got.dtype.kind, want.dtype.kind) else np.float64
        if not np.allclose(got.astype(wide), want.astype(wide), rtol=rtol, atol=atol, equal_nan=True):
            return False
    return True


_UNCOMPARABLE = {
    "random": "random draws",
    "uninitialised": "uninitialised memory (an empty-like op's output)",
    "unrepeatable": "the output is not repeatable: two calls after one seed differ",
}
"""Why a sample's outputs are neither compared across devices nor given a
float64 reference, by the manifest's list that marks it."""


def normalise(torch: Any, out: Any) -> Any:
    """An op's output in the shapes and dtypes the adapter saves (tensors,
    tuples, lists and dicts of them, numbers, None): a tuple subclass
    (torch.return_types, torch.Size) as a plain tuple, a dtype, device or
    layout as its name, and a tensor of a dtype numpy lacks widened to one it
    has, exactly (complex32 to complex64, float8 to float32)."""
    if isinstance(out, torch.Tensor):
        if out.dtype == torch.complex32:
            return out.to(torch.complex64)
        if str(out.dtype).startswith("torch.float8"):
            return out.to(torch.float32)
        return out
    if out is None or isinstance(out, (bool, int, float, complex)):
        return out
    if isinstance(out, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return str(out)
    if isinstance(out, (list, tuple)):  # named tuples and torch.return_types as plain tuples
        items = [normalise(torch, x) for x in out]
        return items if isinstance(out, list) else tuple(items)
    if isinstance(out, dict):
        return {k: normalise(torch, v) for k, v in out.items()}
    return out


Body = Callable[[Ctx], Call]


def body_for(record: dict[str, Any]) -> Body:
    """The body of an entry's cases, bound to its manifest record."""

    def body(t: Ctx) -> Call:
        return sample_call(t, record)

    body.__name__ = body.__qualname__ = "opinfo_" + function_name(record).replace(".", "_").replace("-", "_")
    return body
