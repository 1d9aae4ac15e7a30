#!/usr/bin/env python3
"""Writes suites/opinfo/manifest.json from PyTorch's own OpInfo database.

Run it with the torch environment's interpreter, from the checkout's root:

  ~/.cache/mudjack/envs/torch-current-<hash>/bin/python scripts/update-opinfo-manifest.py

(`--out PATH` writes elsewhere; `--cap N` counts at most N sample inputs per
dtype, 8 by default; `--names-only` runs no sample: it reads the manifest at
`--out` and sets each record's `aten_name` and `aliases` alone, for a
manifest written before they were recorded, by the same torch.) The suite `suites/opinfo` declares its cases from the
manifest alone, so listing it needs no torch; regenerate the manifest when the
torch version the environment pins changes.

One record per OpInfo entry (`op_db`), sorted by name and variant:

- `name`, `variant`: the entry's name and `variant_test_name` ("" if none);
- `aten_name`: the aten operator the entry tests (OpInfo's `aten_name`,
  which is the name unless the entry says otherwise: `nn.functional.conv2d`
  tests `conv2d`); `aliases`: the other Python names of the same op
  (`special.softmax`). `mudjack portability` maps the aten operators a
  model dispatched to entries by them (docs/portability.md);
- `cpu`, `cuda`: the grid dtypes (mudjack_probe.api.GRID) the entry claims on
  each device kind (`supported_dtypes`; cuda's is read without a GPU), none
  on the other kind for an entry whose tests are decorated `onlyCUDA` or
  `onlyCPU` (`only` then names the kind): jiterator ops run on CUDA only;
- `samples`: how many sample inputs `sample_inputs("cpu", dtype)` yields per
  grid dtype, counted up to the cap; `errors`: for a dtype whose generation
  raised (its count is 0), the exception in one line;
- `probed`: how many samples were tried for the next three lists, the
  first (up to the cap) of float32 (or another claimed dtype where float32
  has none); `probe_error` says why an entry could not be tried;
- `random`: the indices of the samples on which the op draws random
  numbers: the call dispatches an aten op tagged `nondeterministic_seeded`,
  or two calls after one seed agree and a call after another seed does not
  (OpInfo wraps many random ops in `wrapper_set_seed`, which reseeds inside
  every call, so seeds alone do not show them; their draws still differ
  from device to device);
- `uninitialised`: those whose output holds memory that an `empty`-like aten
  op allocated and nothing wrote (`empty`, `new_empty_strided`...): its
  values are whatever the allocator left there, which no seed decides;
- `unrepeatable`: the others on which two calls after the same seed
  disagree beyond rounding.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import random
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "probe"))

from mudjack_probe.api import GRID  # noqa: E402

COMMAND = "python scripts/update-opinfo-manifest.py  (the torch environment's python)"
SEEDS = (1234, 1234, 98765)


def one_line(exc: BaseException, limit: int = 200) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:limit]


def grid_names(dtypes: Any) -> list[str]:
    """The grid dtypes among a set of torch dtypes, in grid order."""
    names = {str(d).removeprefix("torch.") for d in dtypes}
    return [d for d in GRID if d in names]


def count_samples(torch: Any, op: Any, dtype_name: str, cap: int) -> tuple[int, str]:
    """(samples generated on the CPU, up to cap; the error, "" if none)."""
    torch.manual_seed(0)
    random.seed(0)
    try:
        samples = op.sample_inputs("cpu", getattr(torch, dtype_name), requires_grad=False)
        return sum(1 for _ in itertools.islice(samples, cap)), ""
    except Exception as exc:  # the generator itself fails for this dtype
        return 0, one_line(exc)


def same(torch: Any, a: Any, b: Any) -> bool:
    """Outputs equal up to rounding: floating values within 1e-3 (relative
    and absolute; NaNs in the same places), others exactly. Not bitwise: some
    LAPACK drivers (gelsy) differ in the last bits from call to call."""
    from torch.utils import _pytree as pytree

    la, sa = pytree.tree_flatten(a)
    lb, sb = pytree.tree_flatten(b)
    if sa != sb or len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            try:
                torch.testing.assert_close(x, y, rtol=1e-3, atol=1e-3, equal_nan=True)
            except AssertionError:
                return False
        elif x != y and not (x != x and y != y):  # NaN is not itself
            return False
    return True


EMPTY_OPS = frozenset(("empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided", "empty_permuted"))
"""aten ops (overload packets) that return memory without writing it."""


def storage(torch: Any, x: Any) -> int | None:
    """The address of a dense tensor's storage; None for anything else or an empty one."""
    if not isinstance(x, torch.Tensor) or x.layout != torch.strided or x.numel() == 0:
        return None
    try:
        return int(x.untyped_storage().data_ptr())
    except (RuntimeError, NotImplementedError):  # tensors without storage
        return None


def watch_mode(torch: Any) -> Any:
    """A dispatch mode that watches one call: `drew` turns True when an aten
    op tagged `nondeterministic_seeded` (a random draw) runs, and `fresh`
    holds the storages `EMPTY_OPS` returned that no op has written since."""
    from torch.utils import _pytree as pytree
    from torch.utils._python_dispatch import TorchDispatchMode

    class Watch(TorchDispatchMode):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.drew = False
            self.fresh: set[int] = set()

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if torch.Tag.nondeterministic_seeded in func.tags:
                self.drew = True
            for i, arg in enumerate(func._schema.arguments):
                if arg.alias_info is not None and arg.alias_info.is_write:
                    value = args[i] if i < len(args) else kwargs.get(arg.name)
                    for leaf in pytree.tree_leaves(value):
                        self.fresh.discard(storage(torch, leaf))
            out = func(*args, **kwargs)
            if func.overloadpacket.__name__ in EMPTY_OPS:
                self.fresh.update(p for p in (storage(torch, leaf) for leaf in pytree.tree_leaves(out)) if p is not None)
            return out

    return Watch()


def randomness(torch: Any, op: Any, dtype_name: str, cap: int) -> dict[str, Any]:
    """Over the first `cap` samples of dtype_name: `probed` (how many), the
    indices of the `random`, `uninitialised` and `unrepeatable` ones, and
    `probe_error` when the op raised on every one."""
    from torch.utils import _pytree as pytree

    torch.manual_seed(0)
    random.seed(0)
    samples = list(itertools.islice(op.sample_inputs("cpu", getattr(torch, dtype_name), requires_grad=False), cap))
    out: dict[str, Any] = {"probed": len(samples), "random": [], "uninitialised": [], "unrepeatable": []}
    errors = []
    for i, s in enumerate(samples):
        outs = []
        uninitialised = drew = False
        try:
            for seed in SEEDS:
                torch.manual_seed(seed)
                with watch_mode(torch) as mode:
                    result = op(s.input, *s.args, **s.kwargs)
                outs.append(result)
                drew = drew or mode.drew
                uninitialised = uninitialised or any(storage(torch, x) in mode.fresh for x in pytree.tree_leaves(result))
        except Exception as exc:  # the op fails on this sample: not known to be random
            errors.append(f"{dtype_name} sample {i}: {one_line(exc)}")
            continue
        repeats = same(torch, outs[0], outs[1])
        if uninitialised:
            out["uninitialised"].append(i)
        elif not repeats:
            out["unrepeatable"].append(i)
        elif drew or not same(torch, outs[0], outs[2]):
            out["random"].append(i)
    if errors and len(errors) == len(samples):
        out["probe_error"] = errors[0]
    return out


ONLY = {"onlyCUDA": "cuda", "onlyCPU": "cpu"}
"""OpInfo decorators that confine an entry's tests to one device kind."""


def only_kind(op: Any) -> str:
    """The device kind the entry's tests are confined to ("" for none)."""
    kinds = {ONLY[name] for name in (getattr(d, "__name__", "") for d in op.decorators or ()) if name in ONLY}
    return kinds.pop() if len(kinds) == 1 else ""


def names(op: Any) -> dict[str, Any]:
    """The entry's identity: name, variant, the aten operator it tests, its aliases."""
    return {
        "name": op.name,
        "variant": op.variant_test_name or "",
        "aten_name": str(op.aten_name),
        "aliases": sorted(str(a.name) for a in (op.aliases or ())),
    }


def record(torch: Any, op: Any, cap: int) -> dict[str, Any]:
    rec: dict[str, Any] = names(op)
    only = only_kind(op)
    for kind in ("cpu", "cuda"):
        rec[kind] = grid_names(op.supported_dtypes(kind)) if only in ("", kind) else []
    if only:
        rec["only"] = only
    samples: dict[str, int] = {}
    errors: dict[str, str] = {}
    for d in GRID:
        samples[d], err = count_samples(torch, op, d, cap)
        if err:
            errors[d] = err
    rec["samples"] = samples
    if errors:
        rec["errors"] = errors
    probe = "float32" if "float32" in rec["cpu"] and samples["float32"] else next((d for d in rec["cpu"] if samples[d]), "")
    if probe:
        rec.update(randomness(torch, op, probe, cap))
    else:
        rec.update(probed=0, random=[], uninitialised=[], unrepeatable=[], probe_error="no dtype claimed on the cpu has a sample")
    return rec


def manifest_text(version: str, cap: int, records: list[dict[str, Any]]) -> str:
    """The manifest as written: a header, then one record per line."""
    lines = [
        "{",
        f'"torch": {json.dumps(version)},',
        f'"command": {json.dumps(COMMAND)},',
        f'"grid": {json.dumps(list(GRID))},',
        f'"sample_cap": {cap},',
        '"ops": [',
        ",\n".join(json.dumps(r, separators=(",", ":")) for r in records),
        "]",
        "}",
    ]
    return "\n".join(lines) + "\n"


def names_only(torch: Any, op_db: Any, out: Path) -> int:
    """Sets aten_name and aliases in the manifest at `out`, leaving every other field as it is."""
    manifest = json.loads(out.read_text(encoding="utf-8"))
    if manifest["torch"] != str(torch.__version__):
        print(f"the manifest is of torch {manifest['torch']}, this is {torch.__version__}: regenerate it whole", file=sys.stderr)
        return 1
    by_key = {(op.name, op.variant_test_name or ""): names(op) for op in op_db}
    records = []
    for rec in manifest["ops"]:
        fresh = by_key.get((rec["name"], rec["variant"]))
        if fresh is None:
            print(f"no OpInfo entry {rec['name']} {rec['variant']!r} in this torch: regenerate the manifest whole", file=sys.stderr)
            return 1
        records.append({**fresh, **{k: v for k, v in rec.items() if k not in fresh}})
    out.write_text(manifest_text(manifest["torch"], int(manifest["sample_cap"]), records), encoding="utf-8")
    print(f"set aten_name and aliases of {len(records)} entries in {out}", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "suites" / "opinfo" / "manifest.json"))
    ap.add_argument("--cap", type=int, default=8, help="sample inputs counted per dtype at most")
    ap.add_argument("--names-only", action="store_true", help="set aten_name and aliases in the manifest at --out alone")
    args = ap.parse_args()

    t0 = time.perf_counter()
    torch: Any = importlib.import_module("torch")

    with warnings.catch_warnings():
        from torch.testing._internal.common_methods_invocations import op_db
    t_import = time.perf_counter() - t0
    if args.names_only:
        return names_only(torch, op_db, Path(args.out))

    t1 = time.perf_counter()
    records = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in op_db:
            records.append(record(torch, op, args.cap))
    records.sort(key=lambda r: (r["name"], r["variant"]))
    t_ops = time.perf_counter() - t1

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(manifest_text(str(torch.__version__), args.cap, records), encoding="utf-8")

    differ = sum(1 for r in records if r["cpu"] != r["cuda"])
    print(f"torch {torch.__version__}: {len(records)} entries, {len({r['name'] for r in records})} op names", file=sys.stderr)
    print(f"claims differ between cpu and cuda: {differ} entries", file=sys.stderr)
    print(f"random: {sum(bool(r['random']) for r in records)}, uninitialised: {sum(bool(r['uninitialised']) for r in records)}, "
          f"unrepeatable: {sum(bool(r['unrepeatable']) for r in records)}, "
          f"not probed: {sum('probe_error' in r for r in records)}", file=sys.stderr)
    print(f"sample generation errors: {sum(len(r.get('errors', {})) for r in records)} (entry, dtype) pairs "
          f"in {sum('errors' in r for r in records)} entries", file=sys.stderr)
    print(f"time: import {t_import:.1f} s, entries {t_ops:.1f} s, total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    print(f"wrote {out} ({out.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
