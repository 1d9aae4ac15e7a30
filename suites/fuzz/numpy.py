"""The fuzz suite's numpy backends (docs/fuzz.md): `numpy`: the graph in its own dtypes, evaluated by NumPy on the CPU (cheap; what CI runs).

One case `fuzz/<hash>/<backend>` per graph file of the run parameter
`graphs` (`mudjack run --suite fuzz --param graphs=DIR`); none without it.
The declarations, bodies and checks are `mudjack_probe.fuzz.suite`'s.
"""

from mudjack_probe.fuzz.suite import declare

cases = declare("numpy")
