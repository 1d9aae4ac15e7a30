"""The fuzz suite's torch backends (docs/fuzz.md): `torch` (op by op) and `torch-compile` (`torch.compile` of the whole graph).

One case `fuzz/<hash>/<backend>` per graph file of the run parameter
`graphs` (`mudjack run --suite fuzz --param graphs=DIR`); none without it.
The declarations, bodies and checks are `mudjack_probe.fuzz.suite`'s.
"""

from mudjack_probe.fuzz.suite import declare

cases = declare("torch")
