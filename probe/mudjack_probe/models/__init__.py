"""Whole models as cases: the `models` suite's machinery (suites/models).

One script per model. Its first line is its labels, `# labels: name::bert
author::huggingface task::Natural_Language_Processing framework::torch
family::transformers-encoder` (every key of `LABEL_KEYS`, more allowed); the
rest builds the model from a literal config with random weights and declares
it with `torch_model(__file__, ...)` or `keras_model(__file__, ...)`.

Each model is one function (its `name` label) with one case per stage
(`STAGES`, the case's mode): `eager`; `compiled` (torch.compile, or for Keras
the backend's compiler: jax.jit, tf.function with XLA, torch.compile);
`amp` (autocast to bfloat16, a bfloat16 case); `onnxruntime` (exported to ONNX
by torch's dynamo exporter and run by ONNX Runtime on the device's execution
provider); `train` (forward, backward, one SGD step). Every stage's float64
reference is the model run eagerly in float64 on the same inputs, so the
accuracy oracle judges each stage against the same answer.

Weights come from a fixed seed on the host (torch's CPU generator; NumPy for
Keras, the same values on every backend), so every device and stage runs the
same model. Exported ONNX files are kept in the build cache the engine names
($MUDJACK_BUILD_CACHE; `mudjack cache builds`), keyed by the script, this
package's source, the case's stage, shape and dtype, and the framework
versions: a rerun loads the file instead of exporting again, and measures
again. torch's Inductor and JAX's compilation caches live there too.

One module per part: `labels` (a script's labels, the shared constants),
`inputs`, `cache` (the build cache), `checks` (what every model case
checks), `facts` (what a model is: its metrics), `torch_models`,
`keras_models`, `broken` (a script that does not import). Everything a
suite, the probe or a test imports is re-exported here.

Importing this package imports no framework: `mudjack list` reads the labels
and declarations with a bare interpreter.
"""

from __future__ import annotations

from .broken import declare_broken, declare_error
from .cache import build_dir, build_key, cached_build, compiler_caches, probe_cpu_isa
from .checks import checked
from .facts import HASH_BITS, eager_facts, onnx_facts
from .inputs import Inputs, batch_size, floats, ids, image, image_size, seq_length, tensor, text
from .keras_models import KerasModel, keras_model, keras_weights
from .labels import AMP_DTYPE, KERAS_BACKENDS, LABEL_KEYS, OPSET, STAGES, TRAIN_LR, read_labels
from .torch_models import (
    BUILT,
    ZERO_DRAW_STD,
    ExportError,
    TorchModel,
    corpus_model,
    draw_zero_matrices,
    first_tensor,
    rebuild,
    reseeder,
    torch_model,
)

__all__ = [
    "AMP_DTYPE", "BUILT", "HASH_BITS", "KERAS_BACKENDS", "LABEL_KEYS", "OPSET", "STAGES", "TRAIN_LR",
    "ZERO_DRAW_STD", "ExportError", "Inputs", "KerasModel", "TorchModel", "batch_size", "build_dir",
    "build_key", "cached_build", "checked", "compiler_caches", "corpus_model", "declare_broken",
    "declare_error", "draw_zero_matrices", "eager_facts", "first_tensor", "floats", "ids", "image",
    "image_size", "keras_model", "keras_weights", "onnx_facts", "probe_cpu_isa", "read_labels", "rebuild",
    "reseeder", "seq_length", "tensor", "text", "torch_model",
]
