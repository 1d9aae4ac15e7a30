"""The fuzz suite's jax backends (docs/fuzz.md): `jax` (`jax.numpy`/`jax.lax` op by op) and `jax-jit` (`jax.jit` of the whole graph).

One case `fuzz/<hash>/<backend>` per graph file of the run parameter
`graphs` (`mudjack run --suite fuzz --param graphs=DIR`); none without it.
The declarations, bodies and checks are `mudjack_probe.fuzz.suite`'s.
"""

from mudjack_probe.fuzz.suite import declare

cases = declare("jax")
