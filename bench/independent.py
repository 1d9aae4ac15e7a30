"""Independent timings of the ops in suites/agreement, for bench/run.py.

Run with a framework's own interpreter:  python independent.py FRAMEWORK DEVICE
Prints {"function": median_ns, ...} as JSON. torch uses
torch.utils.benchmark.Timer (blocked_autorange); numpy and jax use timeit
with autorange, median over repeats.
"""

from __future__ import annotations

import json
import statistics
import sys
import timeit

N = 1 << 20
M = 512


def timeit_median_ns(fn, repeats: int = 15) -> float:
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=repeats, number=number)
    return statistics.median(runs) / number * 1e9


def numpy_ops() -> dict[str, float]:
    import numpy as np

    rng = np.random.default_rng(0)
    v = rng.standard_normal(N).astype(np.float32)
    a = rng.standard_normal((M, M)).astype(np.float32)
    b = rng.standard_normal((M, M)).astype(np.float32)
    return {"numpy.sum": timeit_median_ns(lambda: np.sum(v)), "numpy.matmul": timeit_median_ns(lambda: a @ b)}


def torch_ops(device: str) -> dict[str, float]:
    import torch
    import torch.utils.benchmark as benchmark

    dev = torch.device(device)
    v = torch.randn(N, device=dev)
    w = torch.randn(N, device=dev)
    a = torch.randn(M, M, device=dev)
    b = torch.randn(M, M, device=dev)
    out = {}
    for name, stmt, env in [
        ("torch.sum", "torch.sum(v)", {"v": v}),
        ("torch.matmul", "torch.matmul(a, b)", {"a": a, "b": b}),
        ("torch.add", "torch.add(v, w)", {"v": v, "w": w}),
    ]:
        timer = benchmark.Timer(stmt=stmt, globals={"torch": torch, **env}, num_threads=torch.get_num_threads())
        m = timer.blocked_autorange(min_run_time=1.0)
        out[name] = m.median * 1e9
    return out


def jax_ops(device: str) -> dict[str, float]:
    import jax
    import jax.numpy as jnp

    platform = "cpu" if device == "cpu" else "gpu"
    index = 0 if device == "cpu" else int(device.split(":")[1])
    dev = jax.devices(platform)[index]
    v = jax.device_put(jnp.ones(N, jnp.float32), dev)
    a = jax.device_put(jnp.ones((M, M), jnp.float32), dev)
    b = jax.device_put(jnp.ones((M, M), jnp.float32), dev)
    fsum = jax.jit(jnp.sum)
    fmm = jax.jit(jnp.matmul)
    fsum(v).block_until_ready()
    fmm(a, b).block_until_ready()
    # Like MudJack and torch's Timer: a block of calls, then one sync.
    k = 32

    def block(f, *xs):
        def run() -> None:
            r = None
            for _ in range(k):
                r = f(*xs)
            r.block_until_ready()

        return run

    return {
        "jax.numpy.sum": timeit_median_ns(block(fsum, v)) / k,
        "jax.numpy.matmul": timeit_median_ns(block(fmm, a, b)) / k,
    }


def main() -> None:
    framework, device = sys.argv[1], sys.argv[2]
    if framework == "numpy":
        result = numpy_ops()
    elif framework == "torch":
        result = torch_ops(device)
    elif framework == "jax":
        result = jax_ops(device)
    else:
        raise SystemExit(f"unknown framework {framework}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
