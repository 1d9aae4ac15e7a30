#!/usr/bin/env python3
"""Writes suites/jax-primitives/manifest.json from JAX's own primitive test
harnesses (`jax._src.internal_test_util.test_harnesses`), for the
`jax-primitives` suite (suites/jax-primitives/jax.py) to declare one case per
harness without importing jax.

Run it with any Python that has jax (and absl-py, which the harnesses import),
from the repository root; the framework environment scripts/install.sh builds
has both:

  ~/.cache/mudjack/envs/jax-current-*/bin/python scripts/update-jax-primitives-manifest.py

Which harnesses exist depends on the jax version, on x64 (float64, int64,
uint64 and complex128 harnesses are defined only with it on) and on the
platform the harnesses see (JAX's `jtu.supported_dtypes()`). So x64 is enabled
as the probe's jax adapter does it, before the harnesses are imported, and the
platform is the CPU (`JAX_PLATFORMS=cpu`), which lists every dtype the suite
knows; the claims below come from the harnesses' `Limitation`s, not from the
platform, so no GPU is needed to state JAX's word for one.

Per harness the manifest records its `fullname` (its key in JAX), `group`
(the primitive), `dtype` (as the probe names dtypes), `largest_dim` (the
largest dimension of its dynamic arguments, for the accuracy bound of the
groups that reduce), and per device kind (`cpu`; `cuda`, JAX's "gpu") whether
the harness claims support: no enabled `Limitation` in `jax_unimplemented`
applies to that device and the harness's dtype (`Harness.filter`, as JAX's
own tests skip them). The descriptions of the limitations that apply are in
`limits`; `skip_run` names the device kinds on which JAX says the harness
must not even be invoked (it may crash the process). Harnesses whose dtype the
probe does not know (float8, int4) are left out and counted.

The file is written one harness per line, sorted by group and fullname, so a
regenerated manifest diffs by harness.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "suites" / "jax-primitives" / "manifest.json"

# The dtype names a case may declare (probe/mudjack_probe/api.py KNOWN_DTYPES),
# read from the probe so that the two lists cannot drift apart.
sys.path.insert(0, str(ROOT / "probe"))
from mudjack_probe.api import KNOWN_DTYPES  # noqa: E402

# JAX's device names -> the probe's device kinds.
DEVICES = {"cpu": "cpu", "cuda": "gpu"}


def _largest_dim(args: list[Any]) -> int:
    """The largest dimension of the harness's dynamic array arguments (1 for none)."""
    dims = [int(d) for a in args for d in getattr(a, "shape", ())]
    return max(dims, default=1)


def _entry(harness: Any, dtype: str, np: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"fullname": harness.fullname, "group": harness.group_name, "dtype": dtype}
    limits: dict[str, list[str]] = {}
    skip_run: list[str] = []
    for kind, jax_device in DEVICES.items():
        applying = [lim for lim in harness.jax_unimplemented if lim.filter(device=jax_device, dtype=harness.dtype)]
        # Harness.filter: limited when an enabled limitation applies to the device and dtype.
        entry[kind] = harness.filter(jax_device)
        if applying:
            limits[kind] = sorted({lim.description for lim in applying})
        if any(lim.skip_run for lim in applying):
            skip_run.append(kind)
    if limits:
        entry["limits"] = limits
    if skip_run:
        entry["skip_run"] = skip_run
    entry["largest_dim"] = _largest_dim(harness.dyn_args_maker(np.random.RandomState(0)))
    return entry


def build(command: str) -> dict[str, Any]:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import numpy as np

    jax.config.update("jax_enable_x64", True)  # as probe/mudjack_probe/adapters/jax_adapter.py
    from jax._src.internal_test_util import test_harnesses

    entries: list[dict[str, Any]] = []
    left_out: Counter[str] = Counter()
    for harness in test_harnesses.all_harnesses:
        dtype = np.dtype(harness.dtype).name
        if dtype not in KNOWN_DTYPES:
            left_out[dtype] += 1
            continue
        entries.append(_entry(harness, dtype, np))
    entries.sort(key=lambda e: (e["group"], e["fullname"]))
    names = [e["fullname"] for e in entries]
    if len(set(names)) != len(names):
        raise SystemExit("harness fullnames are not unique: " + ", ".join(sorted(n for n, c in Counter(names).items() if c > 1)[:5]))
    return {
        "jax": str(jax.__version__),
        "python": platform.python_version(),
        "command": command,
        "x64": True,
        "count": len(entries),
        "left_out": {"count": sum(left_out.values()), "by_dtype": dict(sorted(left_out.items()))},
        "harnesses": entries,
    }


def dump(manifest: dict[str, Any]) -> str:
    """JSON with one harness per line (keys in `_entry`'s order, no spaces),
    the header fields first."""
    head = {k: v for k, v in manifest.items() if k != "harnesses"}
    lines = ["{"]
    lines += [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}," for k, v in head.items()]
    rows = [json.dumps(e, separators=(",", ":")) for e in manifest["harnesses"]]
    lines.append('"harnesses": [')
    lines += [f"{row}," for row in rows[:-1]] + rows[-1:]
    lines += ["]", "}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where to write (default: {DEFAULT_OUT.relative_to(ROOT)})")
    args = parser.parse_args()
    started = time.perf_counter()
    command = "python scripts/update-jax-primitives-manifest.py"
    manifest = build(command)
    text = dump(manifest)
    json.loads(text)  # the hand-made layout must still be JSON
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    entries = manifest["harnesses"]
    groups = {e["group"] for e in entries}
    no_cpu = sum(1 for e in entries if not e["cpu"])
    no_cuda = sum(1 for e in entries if not e["cuda"])
    print(f"{args.out}: jax {manifest['jax']}, {len(entries)} harnesses in {len(groups)} groups "
          f"({manifest['left_out']['count']} left out: {manifest['left_out']['by_dtype']}); "
          f"no claim on cpu {no_cpu}, on cuda {no_cuda}; {len(text) / 1e6:.2f} MB "
          f"in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
