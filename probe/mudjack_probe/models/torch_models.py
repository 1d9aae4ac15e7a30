"""torch models as cases: `TorchModel` and its stages (eager, compiled, amp,
onnxruntime, train), `torch_model` for a hand-written script,
`corpus_model` for a generated corpus's entry, and `rebuild`, which a
repro script calls too.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..api import Call, Cases, Ctx, param
from ..errors import Unavailable
from .cache import build_key, cached_build, compiler_caches, probe_cpu_isa, source_hash
from .checks import checked, loss_finite
from .facts import eager_facts, onnx_facts
from .inputs import Inputs, floats, ids
from .labels import AMP_DTYPE, OPSET, STAGES, TRAIN_LR, read_labels


def first_tensor(out: Any) -> tuple[Any, ...]:
    """The first tensor of a model's output (last_hidden_state, logits, ...)."""
    import torch

    if isinstance(out, torch.Tensor):
        return (out,)
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        for item in out:
            found = first_tensor(item)
            if found:
                return found
    return ()


def _positional(module: Any, *args: Any) -> Any:
    return module(*args)


ZERO_DRAW_STD = 0.02  # the scale timm and transformers draw their other linear weights at


def draw_zero_matrices(module: Any, seed: int) -> None:
    """Redraw every weight matrix (2 or more dims) a library initialised to
    all zeros, from N(0, ZERO_DRAW_STD^2) seeded by `seed`, in parameter
    order. Trained checkpoints fill them; with random
    weights a zero head (timm's MLP-Mixer, gMLP, ResMLP, Sequencer2d and
    Hiera heads, torchvision's ViT head) makes every output equal, which the
    case's own check would call a lost computation. Vectors (biases, norms'
    scales, zero-initialised residual gates) stay as the library made them."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            if isinstance(p, torch.nn.parameter.UninitializedParameter):
                continue
            if p.dim() >= 2 and p.is_floating_point() and p.device.type == "cpu" and not bool(torch.any(p)):
                p.copy_(torch.randn(p.shape, generator=generator, dtype=p.dtype) * ZERO_DRAW_STD)


def reseeder(device: Any, seed: int) -> Callable[[], None]:
    """A call that puts the generators a forward pass on `device` draws from
    (the CPU's, and a CUDA device's own) back to `seed`. It runs inside the
    timed call, so it seeds only those: about 1.4 us on this project's CPU,
    where torch.manual_seed, which seeds every backend, took 160-200 us."""
    import torch

    cuda = (device.index or 0) if device.type == "cuda" else None

    def reseed() -> None:  # closes over a module and numbers only: a repro script writes it as source
        torch.default_generator.manual_seed(seed)
        if cuda is not None:
            torch.cuda.default_generators[cuda].manual_seed(seed)

    return reseed


PRISTINE_LIMIT_BYTES = 1 << 30
"""The largest module (its parameters and buffers) a probe keeps pristine."""

_PRISTINE: list[tuple[Callable[[], Any], int, Any, Any]] = []
"""At most one entry: the last module a probe built, as `build()` and the
seed left it (CPU, float32, eval mode), with the CPU generator's state after
drawing it: (build, seed, module, state); a copy leaves the generators as a
build would. A model's stages (eager, compiled, amp, train, and the float64
reference) follow one another in a probe, and drawing a large model's
weights takes seconds (convnext: 5 of the 10 s an eager case on an H200
spent building); a copy of the kept one takes a fraction of that and holds
the same weights."""


def _pristine(build: Callable[[], Any], seed: int) -> Any:
    import copy

    import torch

    for b, s, m, state in _PRISTINE:
        if b is build and s == seed:
            try:
                copied = copy.deepcopy(m)
            except Exception:  # a module that cannot be copied is built again
                break
            torch.manual_seed(seed)
            torch.set_rng_state(state)
            return copied
    _PRISTINE.clear()
    m = rebuild(build, seed, "cpu", torch.float32)
    size = sum(t.numel() * t.element_size() for t in [*m.parameters(), *m.buffers()])
    if size <= PRISTINE_LIMIT_BYTES:
        with contextlib.suppress(Exception):  # not kept: the next stage builds it again
            _PRISTINE.append((build, seed, copy.deepcopy(m), torch.get_rng_state()))
    return m


def rebuild(build: Callable[[], Any], seed: int, device: Any, dtype: Any) -> Any:
    """The module `build()` makes, as every stage runs it: its weights drawn
    under torch.manual_seed(seed), the matrices left all zero redrawn
    (`draw_zero_matrices`), in eval mode, on `device` in `dtype` (a float64
    reference widens the float32 draw exactly). A repro script calls it too
    (`BUILT`), so it has the run's weights without carrying them."""
    import torch

    torch.manual_seed(seed)
    m = build()
    draw_zero_matrices(m, seed)
    m.eval()
    return m.to(device=device, dtype=dtype)


def kept(build: Callable[[], Any], seed: int, device: Any, dtype: Any) -> Any:
    """`rebuild`'s module, copied from the one the probe kept when its last
    build was this one (`_PRISTINE`): the same weights, seconds sooner."""
    return _pristine(build, seed).to(device=device, dtype=dtype)


BUILT: weakref.WeakKeyDictionary[Any, tuple[Callable[[], Any], int, Any]] = weakref.WeakKeyDictionary()
"""Every module a model case built, with (build, seed, dtype): mudjack_probe.repro
writes such a module as the `rebuild` call that made it."""


@dataclass
class TorchModel:
    """A torch model: `build()` returns the module (random weights, CPU,
    float32); `forward(module, *args)` calls it (default: positionally);
    `pick(output)` is the tuple of tensors judged and exported (default: the
    first tensor). A hand-written script's labels are its first line and
    its identity (what keys its builds) its hash; a generated model's
    (`corpus_model`) are given, and `script` names its manifest entry."""

    script: str
    build: Callable[[], Any]
    inputs: Inputs
    forward: Callable[..., Any] = _positional
    pick: Callable[[Any], tuple[Any, ...]] = first_tensor
    stages: Sequence[str] = STAGES
    opset: int = OPSET
    labels: dict[str, str] = field(default_factory=dict)
    identity: str = ""

    def __post_init__(self) -> None:
        if not self.labels:
            self.labels = read_labels(self.script)
        if not self.identity:
            self.identity = source_hash(self.script)

    def module(self, t: Ctx, dtype: Any) -> Any:
        m = kept(self.build, t.seed, t.device, dtype)
        BUILT[m] = (self.build, t.seed, dtype)
        return m

    def body(self, t: Ctx) -> Call:
        import torch

        if t.mode == "onnxruntime" and not t.widen and t.device.type != "cpu":
            _ort_provider(t)  # unavailable before any export work
        args = self.inputs.make(t)
        # The float64 reference of every stage is the eager model, but for a
        # training step: the same step in float64.
        stage = "eager" if t.widen and t.mode != "train" else t.mode
        if stage == "train":
            return self._train(t, args)
        if stage == "onnxruntime":
            return self._onnxruntime(t, args)
        dtype = torch.float32 if stage == "amp" else t.dtype
        m = self.module(t, dtype)
        pick, forward, out_dtype = self.pick, self.forward, t.dtype  # the calls close over no Ctx: repro writes them
        reseed = reseeder(t.device, t.seed)
        if stage == "amp":
            kind = t.device.type

            def fn(*a: Any) -> Any:
                reseed()  # see `eager` below
                with torch.no_grad(), torch.autocast(kind, dtype=torch.bfloat16):
                    return tuple(x.to(torch.bfloat16) for x in pick(forward(m, *a)))
        elif stage == "compiled":
            compiler_caches()
            if t.device.type == "cpu":
                probe_cpu_isa()

            def fn(*a: Any) -> Any:  # traced whole: no reseeding inside the compiled region
                with torch.no_grad():
                    return tuple(x.to(out_dtype) if x.is_floating_point() else x for x in pick(forward(m, *a)))
        else:

            def fn(*a: Any) -> Any:
                # Every call draws from the same seeded state: a model that draws
                # random numbers in its forward pass (ViT-MAE's mask, VITS's
                # durations, UnivNet's noise) draws the same ones in the run and
                # in its float64 reference, and is judged, not called divergent.
                reseed()
                with torch.no_grad():
                    return tuple(x.to(out_dtype) if x.is_floating_point() else x for x in pick(forward(m, *a)))
        call = checked(t.call(fn, *args).work(self.inputs.samples, "sample"))
        if stage == "eager" and not t.widen:
            call.metrics.extend(eager_facts(m, forward, args))
        return call

    def _train(self, t: Ctx, args: tuple[Any, ...]) -> Call:
        """Forward, a mean-square loss on the picked output, backward
        (autograd), and one SGD step computed out of place, so every call
        starts from the same weights: (loss, first and last updated weight)."""
        import torch

        m = self.module(t, t.dtype)
        names = [n for n, p in m.named_parameters() if p.requires_grad]
        params = dict(m.named_parameters())
        pick, forward, dtype = self.pick, self.forward, t.dtype

        reseed = reseeder(t.device, t.seed)

        def step(*a: Any) -> Any:
            reseed()  # as the eager stage: a forward pass that draws, draws alike
            out = pick(forward(m, *a))[0]
            loss = out.to(dtype).square().mean()
            grads = torch.autograd.grad(loss, [params[n] for n in names], allow_unused=True)
            new = [params[n] - TRAIN_LR * g if g is not None else params[n] for n, g in zip(names, grads)]
            return loss.detach(), new[0].detach(), new[-1].detach()

        return t.call(step, *args).work(self.inputs.samples, "sample").check("the loss is finite", loss_finite)

    def _onnxruntime(self, t: Ctx, args: tuple[Any, ...]) -> Call:
        import torch

        providers = _ort_provider(t)
        import onnxruntime as ort

        m = self.module(t, torch.float32)
        pick, forward = self.pick, self.forward

        class Picked(torch.nn.Module):  # type: ignore[misc]
            def __init__(self) -> None:
                super().__init__()
                self.model = m

            def forward(self, *a: Any) -> Any:
                return pick(forward(self.model, *a))

        def export(folder: Path) -> None:
            try:
                torch.onnx.export(Picked().eval(), tuple(a.cpu() for a in args), str(folder / "model.onnx"),
                                  dynamo=True, opset_version=self.opset, external_data=True)
            except Exception as exc:  # the exporter's own words are in its innermost cause
                raise ExportError(f"ONNX export failed: {type(exc).__name__}: {_root_cause(exc)}") from exc

        import onnx

        versions = {"torch": torch.__version__, "onnx": onnx.__version__, "onnxscript": _version("onnxscript"),
                    "opset": str(self.opset)}
        key = build_key(self.identity, t.case, t.seed, versions)
        folder, spent, reused = cached_build(key, {"model": self.labels["name"], "framework": "torch", "stage": "onnxruntime",
                                                    "shape": t.case.shape_name, "dtype": t.dtype_name, "versions": versions,
                                                    "script": os.path.basename(self.script)}, export)
        session = ort.InferenceSession(str(folder / "model.onnx"), providers=providers)
        names = [i.name for i in session.get_inputs()]

        def run(*a: Any) -> Any:
            return tuple(session.run(None, {n: x.numpy() for n, x in zip(names, a)}))

        call = (checked(t.call(run, *args).work(self.inputs.samples, "sample"))
                .metric("build_s", round(spent, 3), "s").metric("build_reused", int(reused)))
        call.metrics.extend(onnx_facts(folder / "model.onnx"))
        return call

    def declare(self) -> Cases:
        labels = self.labels
        self.opset = int(param("opset", OPSET))  # the ONNX stage's opset (--param opset=N)
        cases = Cases("torch")
        tags = [f"{k}::{v}" for k, v in labels.items()]
        shape = {self.inputs.tag: self.inputs.dims}
        plain = [s for s in self.stages if s != "amp"]
        note = f"{labels['author']} {labels['family']}; stages: {', '.join(self.stages)}"
        if plain:
            cases.case(labels["name"], dtype=["float32"], shape=shape, mode=plain, tags=tags, note=note)(self.body)
        if "amp" in self.stages:
            cases.case(labels["name"], dtype=[AMP_DTYPE], shape=shape, mode=["amp"], tags=tags, note=note)(self.body)
        return cases


def torch_model(script: str, build: Callable[[], Any], inputs: Inputs, **options: Any) -> Cases:
    """Declare a torch model's cases (see `TorchModel`)."""
    return TorchModel(script, build, inputs, **options).declare()


class ExportError(RuntimeError):
    """torch's ONNX exporter refused the model (a finding about the exporter)."""


def _root_cause(exc: BaseException) -> str:
    """The innermost cause's first meaningful line: what the exporter met."""
    seen = {id(exc)}
    while exc.__cause__ is not None and id(exc.__cause__) not in seen:
        exc = exc.__cause__
        seen.add(id(exc))
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}"
    return text[:300]


def _version(module: str) -> str:
    import importlib

    try:
        return str(importlib.import_module(module).__version__)
    except ImportError:
        return ""


def _ort_provider(t: Ctx) -> list[str]:
    """ONNX Runtime's execution provider for the case's device; Unavailable
    with the reason where this installation has none."""
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise Unavailable(f"onnxruntime is not installed beside {t.adapter.name}: {exc}") from exc
    kind = t.adapter.device_id.split(":")[0]
    want = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider", "rocm": "ROCMExecutionProvider"}.get(kind)
    have = ort.get_available_providers()
    if want is None or want not in have:
        raise Unavailable(f"onnxruntime {ort.__version__} has no execution provider for {t.adapter.device_id} "
                          f"(it has {', '.join(have)}; the CUDA one comes with onnxruntime-gpu)")
    if kind == "cpu":
        return [want]
    return [(want, {"device_id": int(t.adapter.device_id.split(":")[1])})]  # type: ignore[list-item]


def corpus_model(source: str, labels: dict[str, str], entry: dict[str, Any], build: Callable[[], Any],
                 forward: Callable[..., Any]) -> Cases:
    """A generated corpus's model (suites/models/corpora.py declares one per
    manifest entry, scripts/update-models-corpus.py): `source` names it in
    messages ("timm.json#resnet50"); `entry` is its manifest entry with the
    library and version, whose content keys its builds; its `inputs` are
    (argument, kind, dims), kind "float" or an int (token ids below it), a
    dim that is a string naming a standard parameter (`--param height=64`),
    its default in `defaults`."""
    dims = {name: int(param(name, value)) for name, value in entry["defaults"].items()}
    shapes = [(kind, tuple(dims[d] if isinstance(d, str) else int(d) for d in shape))
              for _, kind, shape in entry["inputs"]]
    batch = dims.get("batch_size", 1)
    first = shapes[0][1]
    tag = f"b{batch}-" + "x".join(str(d) for d in first[1:])

    def make(t: Ctx) -> tuple[Any, ...]:
        return tuple(floats(t, s) if kind == "float" else ids(t, int(kind), s) for kind, s in shapes)

    identity = hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()
    return TorchModel(source, build, Inputs(tag, first, make, batch), forward=forward, labels=labels,
                      identity=identity).declare()
