"""The JAX adapter's device list under a faked TPU platform: jax.devices()
answers two devices whose platform is "tpu" (the real CPU client stays), and
the adapter must list them as tpu:0 and tpu:1 beside cpu and map outputs on
them back to those ids. Run with the jax environment's Python:
PYTHONPATH=probe python tests/adapters/jax_tpu_names.py"""

from __future__ import annotations

import sys
from typing import Any

import jax

from mudjack_probe.adapters import jax_adapter


class FakeTpu:
    platform = "tpu"
    device_kind = "TPU v5 lite"

    def __init__(self, ident: int) -> None:
        self.id = ident
        self.client = type("Client", (), {"platform_version": "PJRT TPU fake"})()

    def memory_stats(self) -> dict[str, Any]:
        return {"bytes_limit": 16 << 30}


def main() -> int:
    tpus = [FakeTpu(7), FakeTpu(9)]
    real = jax.devices

    def devices(backend: str | None = None) -> list[Any]:
        if backend in (None, "tpu"):
            return list(tpus)
        return list(real(backend))

    jax.devices = devices  # type: ignore[assignment]
    adapter = jax_adapter.JaxAdapter()
    records = {d["id"]: d for d in adapter.devices()}
    problems = []
    if sorted(records) != ["cpu", "tpu:0", "tpu:1"]:
        problems.append(f"ids {sorted(records)}, expected cpu, tpu:0, tpu:1")
    elif records["tpu:1"]["jax_device_id"] != 9 or records["tpu:0"]["kind"] != "tpu":
        problems.append(f"tpu:1 record {records['tpu:1']}")
    adapter.select("tpu:1")
    if adapter.native_device is not tpus[1]:
        problems.append("select('tpu:1') did not bind the second TPU")
    for p in problems:
        print(p, file=sys.stderr)
    print("jax tpu names: ok" if not problems else "jax tpu names: FAILED")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
