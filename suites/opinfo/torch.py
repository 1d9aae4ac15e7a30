"""The whole PyTorch operator surface that PyTorch's own OpInfo database tests.

One case per OpInfo entry x grid dtype x sample input (`sample=0..N-1`, N the
run parameter `opinfo_samples`, 2 by default): the entry's sample input in the
case's dtype, generated on the host from the run's seed, its tensors moved to
the device, the entry's op called on them once (policy `once`, eager only).
Every case carries the dtypes the entry claims on cpu and cuda (`claims`), so
reports can set OpInfo's word against what happened: an unclaimed dtype is
expected to fail, a claimed one to pass.

The entries, their claims and their sample counts come from `manifest.json`
(`scripts/update-opinfo-manifest.py`), so listing needs no torch. An entry
with fewer sample inputs in a dtype than the case's index is skipped; a
generator that raises for the dtype fails the case. Random entries are not
compared across devices and have no float64 reference.
"""

from __future__ import annotations

from typing import Any

from mudjack_probe.api import GRID, Cases, param

from _opinfo import body_for, function_name, load_manifest

cases = Cases("torch")

SAMPLES = param("opinfo_samples", 2)
"""Sample inputs per entry and dtype (`--param opinfo_samples=N`)."""

MANIFEST = load_manifest()


def declare(record: dict[str, Any]) -> None:
    """The entry's cases: every grid dtype, samples 0..SAMPLES-1, eager, once."""
    name = function_name(record)
    torch_version = MANIFEST.get("torch", "?")
    variant = f" (variant {record['variant']})" if record["variant"] else ""
    cases.case(
        name,
        dtype=GRID,
        params={"sample": range(SAMPLES)},
        policy="once",
        claims={"cpu": record["cpu"], "cuda": record["cuda"]},
        tags=["opinfo"],
        note=f"OpInfo entry {record['name']}{variant} of torch {torch_version}'s op_db: its sample input number `sample`",
    )(body_for(record))


_seen: set[str] = set()
for _record in MANIFEST["ops"]:
    _name = function_name(_record)
    if _name in _seen:
        raise ValueError(f"two OpInfo entries make the function name {_name!r}")
    _seen.add(_name)
    declare(_record)
