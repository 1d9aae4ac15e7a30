"""The fuzz suite's tensorflow backends (docs/fuzz.md): `tensorflow` (TF ops one by one) and `tensorflow-xla` (`tf.function(jit_compile=True)`).

One case `fuzz/<hash>/<backend>` per graph file of the run parameter
`graphs` (`mudjack run --suite fuzz --param graphs=DIR`); none without it.
The declarations, bodies and checks are `mudjack_probe.fuzz.suite`'s.
"""

from mudjack_probe.fuzz.suite import declare

cases = declare("tensorflow")
