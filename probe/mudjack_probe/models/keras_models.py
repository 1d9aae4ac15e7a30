"""Keras 3 models as cases, on each of its backends with the same weights.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

from ..api import Call, Cases, Ctx, np
from ..errors import Unavailable
from .cache import compiler_caches, probe_cpu_isa
from .checks import checked
from .inputs import Inputs
from .labels import AMP_DTYPE, KERAS_BACKENDS, read_labels


def _keras(t: Ctx) -> Any:
    os.environ.setdefault("KERAS_BACKEND", t.adapter.name)
    import keras

    if keras.backend.backend() != t.adapter.name:
        raise Unavailable(f"keras runs on {keras.backend.backend()} in this process, not {t.adapter.name}")
    return keras


def _keras_device(t: Ctx) -> str:
    kind, _, index = t.adapter.device_id.partition(":")
    if t.adapter.name == "torch":
        return str(t.adapter.device_id)
    return f"{'gpu' if kind == 'cuda' else kind}:{index or 0}"


def keras_weights(model: Any, seed: int) -> list[Any]:
    """The same weights on every backend: He-normal kernels from NumPy's
    generator; vectors kept where their initializer is a constant (biases,
    batch-norm statistics), else drawn small."""
    rng = np.random.default_rng(seed)
    out = []
    for weight in model.get_weights():
        w = np.asarray(weight, dtype=np.float64)
        if w.ndim >= 2:
            fan_in = int(np.prod(w.shape[:-1]))
            out.append(rng.standard_normal(w.shape) * np.sqrt(2.0 / max(fan_in, 1)))
        elif w.size and np.all(w == w.flat[0]):
            out.append(w)
        else:
            out.append(rng.uniform(-0.05, 0.05, w.shape))
    return out


@dataclass
class KerasModel:
    """A Keras 3 model, run on each backend (its case framework): `build(keras)`
    returns the model; the same NumPy weights are set on every backend."""

    script: str
    build: Callable[[Any], Any]
    inputs: Inputs
    stages: Sequence[str] = ("eager", "compiled", "amp")

    def model(self, t: Ctx, keras: Any, policy: str) -> Any:
        keras.config.set_dtype_policy(policy)
        try:
            keras.utils.set_random_seed(t.seed)
            m = self.build(keras)
        finally:
            keras.config.set_dtype_policy("float32")
        m.set_weights(keras_weights(m, t.seed))
        return m

    def body(self, t: Ctx) -> Call:
        keras = _keras(t)
        stage = "eager" if t.widen else t.mode
        with keras.device(_keras_device(t)):
            args = self.inputs.make(t)
            policy = {"amp": "mixed_bfloat16"}.get(stage, "float64" if t.widen else "float32")
            m = self.model(t, keras, policy)
            out_dtype = "float64" if t.widen else ("bfloat16" if stage == "amp" else "float32")

            def fn(x: Any) -> Any:
                return keras.ops.cast(m(x, training=False), out_dtype)

            if stage == "compiled":
                call = t.call(self._compiled(t, keras, m, out_dtype), *args).self_compiled()
            else:
                call = t.call(fn, *args)
        return checked(call.work(self.inputs.samples, "sample"))

    def _compiled(self, t: Ctx, keras: Any, m: Any, out_dtype: str) -> Callable[..., Any]:
        """The backend's own compiler: jax.jit over the model's stateless call
        (weights as arguments, not constants), tf.function with XLA, torch.compile."""
        compiler_caches()
        backend = t.adapter.name
        if backend == "jax":
            import jax

            if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
                jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
            trainable = [v.value for v in m.trainable_variables]
            frozen = [v.value for v in m.non_trainable_variables]
            jitted = jax.jit(lambda tv, ntv, x: keras.ops.cast(m.stateless_call(tv, ntv, x, training=False)[0], out_dtype))
            return lambda x: jitted(trainable, frozen, x)
        if backend == "tensorflow":
            import tensorflow as tf

            compiled: Callable[..., Any] = tf.function(lambda x: keras.ops.cast(m(x, training=False), out_dtype), jit_compile=True)
            return compiled
        if t.device.type == "cpu":
            probe_cpu_isa()
        # The adapter's compile: every model compiled afresh (TorchAdapter.compile).
        compiled = t.adapter.compile(lambda x: keras.ops.cast(m(x, training=False), out_dtype))
        return compiled

    def declare(self) -> list[Cases]:
        labels = read_labels(self.script)
        tags = [f"{k}::{v}" for k, v in labels.items()]
        shape = {self.inputs.tag: self.inputs.dims}
        note = f"Keras 3 {labels['family']} on the {{}} backend; the same weights on every backend"
        out = []
        for backend in KERAS_BACKENDS:
            cases = Cases(backend)
            plain = [s for s in self.stages if s != "amp"]
            if plain:
                cases.case(labels["name"], dtype=["float32"], shape=shape, mode=plain, tags=tags,
                           note=note.format(backend))(self.body)
            if "amp" in self.stages:
                cases.case(labels["name"], dtype=[AMP_DTYPE], shape=shape, mode=["amp"], tags=tags,
                           note=note.format(backend))(self.body)
            out.append(cases)
        return out


def keras_model(script: str, build: Callable[[Any], Any], inputs: Inputs, **options: Any) -> list[Cases]:
    """Declare a Keras model's cases on every backend (see `KerasModel`)."""
    return KerasModel(script, build, inputs, **options).declare()
