"""The fuzz suite's onnxruntime backends (docs/fuzz.md): `onnxruntime`: an ONNX model built from the graph, run by an `InferenceSession`.

One case `fuzz/<hash>/<backend>` per graph file of the run parameter
`graphs` (`mudjack run --suite fuzz --param graphs=DIR`); none without it.
The declarations, bodies and checks are `mudjack_probe.fuzz.suite`'s.
"""

from mudjack_probe.fuzz.suite import declare

cases = declare("onnxruntime")
