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
module, the case's stage, shape and dtype, and the framework versions: a
rerun loads the file instead of exporting again, and measures again. torch's
Inductor and JAX's compilation caches live there too.

Importing this module imports no framework: `mudjack list` reads the labels
and declarations with a bare interpreter.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .api import Call, Cases, Ctx, Metric, np, param
from .errors import Unavailable
from .vocabulary import words

STAGES = words("mode")
LABEL_KEYS = ("name", "author", "task", "framework", "family")
KERAS_BACKENDS = ("jax", "tensorflow", "torch")
AMP_DTYPE = "bfloat16"
TRAIN_LR = 1e-3
_OPSET = 18  # the default; --param opset=N


def read_labels(path: str) -> dict[str, str]:
    """The script's labels from its first line; ValueError naming what is wrong."""
    with open(path, encoding="utf-8") as f:
        first = f.readline().strip()
    prefix = "# labels:"
    if not first.startswith(prefix):
        raise ValueError(f"{path}: the first line must be '{prefix} name::... author::... task::... framework::... family::...'")
    labels: dict[str, str] = {}
    for item in first[len(prefix):].split():
        key, sep, value = item.partition("::")
        if not sep or not key or not value:
            raise ValueError(f"{path}: label {item!r} is not key::value")
        labels[key] = value
    missing = [k for k in LABEL_KEYS if k not in labels]
    if missing:
        raise ValueError(f"{path}: labels line lacks {', '.join(k + '::' for k in missing)}")
    return labels


# --- inputs ---------------------------------------------------------------------


@dataclass
class Inputs:
    """A model's inputs: `tag` names them in the case id ("b1-s128"), `dims`
    are recorded as the case's dims, `make(t)` builds the arguments on the
    device (floating ones from `t.randn`, so the reference sees them widened),
    `samples` is the batch size (throughput in samples/s)."""

    tag: str
    dims: tuple[int, ...]
    make: Callable[[Ctx], tuple[Any, ...]]
    samples: int


def batch_size(default: int = 1) -> int:
    return int(param("batch_size", default))


def seq_length(default: int = 128) -> int:
    return int(param("max_seq_length", default))


def image_size(default: int = 224) -> tuple[int, int]:
    return int(param("height", default)), int(param("width", default))


def ids(t: Ctx, high: int, shape: Sequence[int]) -> Any:
    """Token ids in [0, high) (int64), the same on every device."""
    return t.from_numpy(t.numpy_rng().integers(0, high, size=tuple(shape), dtype=np.int64))


def floats(t: Ctx, shape: Sequence[int]) -> Any:
    """Standard normal float32 values (float64 in the reference run)."""
    return t.randn(tuple(shape), dtype="float32")


def text(vocab: int, batch: int | None = None, seq: int | None = None) -> Inputs:
    b, s = batch or batch_size(), seq or seq_length()
    return Inputs(f"b{b}-s{s}", (b, s), lambda t: (ids(t, vocab, (b, s)),), b)


def image(channels: int = 3, size: tuple[int, int] | None = None, batch: int | None = None,
          channels_last: bool = False) -> Inputs:
    b = batch or batch_size()
    h, w = size or image_size()
    dims = (b, h, w, channels) if channels_last else (b, channels, h, w)
    return Inputs(f"b{b}-{h}x{w}", dims, lambda t: (floats(t, dims),), b)


def tensor(tag: str, dims: Sequence[int], samples: int = 1) -> Inputs:
    """One float tensor of `dims` (audio samples, features, latents)."""
    d = tuple(dims)
    return Inputs(tag, d, lambda t: (floats(t, d),), samples)


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


# --- the build cache ------------------------------------------------------------


def _source_hash(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def build_dir() -> Path | None:
    """The engine's build cache ($MUDJACK_BUILD_CACHE), or None without one."""
    root = os.environ.get("MUDJACK_BUILD_CACHE", "")
    return Path(root) if root else None


def build_key(identity: str, case: Any, seed: int, versions: dict[str, str]) -> str:
    """What an artifact depends on: the model (`identity`: a hand-written
    script's hash, or a generated model's manifest entry's), this module,
    the case's stage, shape, dims, parameters and dtype, the seed its
    weights are drawn from, and the framework versions."""
    facts = {"model": identity, "models.py": _source_hash(__file__), "stage": case.mode, "seed": seed,
             "shape": case.shape_name, "dims": list(case.shape), "params": {k: str(v) for k, v in case.params.items()},
             "dtype": case.dtype, "versions": versions}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:20]


def cached_build(key: str, facts: dict[str, Any], make: Callable[[Path], None]) -> tuple[Path, float, bool]:
    """The folder of build `key`: made by `make(folder)` when absent (into a
    private folder renamed into place, so a crash or a second probe never
    leaves half an artifact), reused when present. Returns (folder, seconds
    spent, whether it was reused). Without a cache, builds into a temporary
    folder every time."""
    root = build_dir()
    start = time.perf_counter()
    if root is None:
        folder = Path(tempfile.mkdtemp(prefix="mudjack-build-"))
        make(folder)
        return folder, time.perf_counter() - start, False
    folder = root / key
    if (folder / "build.json").is_file():
        info = json.loads((folder / "build.json").read_text())
        info["last_used"] = time.time()
        info["uses"] = int(info.get("uses", 0)) + 1
        _write_json(folder / "build.json", info)
        return folder, time.perf_counter() - start, True
    _mark_cache(root)
    partial = Path(tempfile.mkdtemp(prefix=f".{key}.partial.", dir=root))
    try:
        make(partial)
        spent = time.perf_counter() - start
        size = sum(p.stat().st_size for p in partial.rglob("*") if p.is_file())
        _write_json(partial / "build.json", {**facts, "key": key, "build_s": round(spent, 3), "bytes": size,
                                             "created": time.time(), "last_used": time.time(), "uses": 0})
        try:
            partial.rename(folder)
        except OSError:  # another probe finished the same build first: use its
            shutil.rmtree(partial, ignore_errors=True)
        return folder, spent, False
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _mark_cache(root: Path) -> None:
    """Creates the build cache and marks it as MudJack's: `mudjack cache
    clean-builds` deletes the compilers' cache folders (torchinductor,
    triton, jax) only in a folder that carries this mark or one of our
    builds, so a mis-set MUDJACK_BUILD_CACHE never costs someone's files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".mudjack-build-cache").touch(exist_ok=True)


def _write_json(path: Path, value: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value, indent=1, sort_keys=True))
    os.replace(tmp, path)


def compiler_caches() -> None:
    """Point torch Inductor's (its FX graph and AOT autograd caches),
    Triton's and JAX's persistent caches into the build cache, so a rerun's
    compiles, and another probe's, reuse their artifacts. The probe calls it
    before it imports the framework (JAX reads its settings at import), so
    every compiled case, the paper suite's too, uses the build cache; JAX
    caches every compile (its default keeps only those over 1 s), unless
    JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS says otherwise. A case records
    whether its compile was `cold` or `warm` (`compile_cache`, from each
    adapter's `case_facts`).

    Set, not defaulted: Inductor writes its default into
    TORCHINDUCTOR_CACHE_DIR the first time anything asks for its cache
    folder, and reads the variable again on every later compile, so only an
    assignment moves the compiles that follow. MUDJACK_BUILD_CACHE is the
    one place to move them."""
    root = build_dir()
    if root is None:
        return
    _mark_cache(root)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(root / "torchinductor")
    os.environ["TRITON_CACHE_DIR"] = str(root / "triton")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(root / "jax")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")


def probe_cpu_isa() -> None:
    """Inductor's once-per-process probe of the CPU's vector ISAs (it builds
    and loads a test program per candidate ISA, each load in a new Python
    that imports torch: 20-30 s on a 2-core VM, in every process, cached or
    not) runs while a torch compiled case on the CPU is built, not in its
    cold call: a model's compile time then does not depend on whether it
    was the first to compile in its probe."""
    try:
        from torch._inductor import cpu_vec_isa

        cpu_vec_isa.pick_vec_isa()
    except Exception:  # a private API: without it, the cold call pays the probe
        pass


# --- checks every model case makes --------------------------------------------


def _finite(outs: list[Any], ins: list[Any]) -> bool:
    return all(np.all(np.isfinite(np.asarray(o, dtype=np.float64))) for o in outs
               if np.asarray(o).dtype.kind in "fcV")  # "V": bfloat16 from ml_dtypes


def _nonconstant(outs: list[Any], ins: list[Any]) -> bool:
    """A model whose output does not depend on its input position (every
    element equal) has lost its computation. Random weights give that in
    two ways: a weight matrix the library leaves all zero, which
    `TorchModel.module` redraws (`draw_zero_matrices`), and a signal that
    fades through the layers of a library's default initialisation
    (transformers' efficientnet, mobilevitv2 and pp_ocrv5_mobile_det: their
    activations fall below 1e-13 within the first blocks), which stays this
    check's failure: the model computes nothing at these weights on any
    device. A discrete first output (EnCodec's and Mimi's codes, LightGlue's
    matches: integers) may be constant at random weights without anything
    lost, so only a floating-point one is held to it."""
    first = np.asarray(outs[0])
    if first.dtype.kind not in "fcV":  # "V": bfloat16 from ml_dtypes
        return True
    values = first.astype(np.float64).ravel()
    return values.size < 2 or bool(np.ptp(values) > 0)


def _loss_finite(outs: list[Any], ins: list[Any]) -> bool:
    return bool(np.isfinite(np.asarray(outs[0], dtype=np.float64)).all())


def _checked(call: Call) -> Call:
    return (call.sanity("every output is finite", _finite)
            .sanity("the first output is not constant", _nonconstant))


# --- what a model is: size, work, operators, structure ------------------------
#
# Reported as the case's metrics (numbers, so they travel in results.json,
# results.csv and the Models table without a new field): `params`, `flops`
# (one forward pass, torch.utils.flop_counter), `op:<aten op>` (the operator
# histogram of one eager forward pass, as dispatched) or, for the onnxruntime
# stage, `onnx:<op type>` (the exported graph's nodes), and `structure_hash`
# (the first 52 bits of a SHA-256 over the operators in order, their
# argument shapes, dtypes and non-tensor arguments, not the weights' values;
# the ONNX stage's over node types, attributes and initializer shapes).

HASH_BITS = 52  # exact in a JSON double


def _shape_sig(value: Any) -> Any:
    """A value as its structure: a tensor's shape and dtype, containers
    element by element, anything else its repr."""
    import torch

    if isinstance(value, torch.Tensor):
        return ("T", tuple(value.shape), str(value.dtype))
    if isinstance(value, (list, tuple)):
        return tuple(_shape_sig(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _shape_sig(v)) for k, v in sorted(value.items()))
    return repr(value)


def _hash_metric(digest: Any) -> Metric:
    return Metric("structure_hash", int(digest.hexdigest()[: HASH_BITS // 4], 16), "hash")


def eager_facts(m: Any, forward: Callable[..., Any], args: tuple[Any, ...]) -> list[Metric]:
    """params, flops, the dispatched operator histogram and the structure
    hash, from one extra forward pass. FLOPs are torch's own counter's
    formulas (torch.utils.flop_counter's registry, what FlopCounterMode
    sums), applied here: FlopCounterMode's module tracker asserts on some
    models under no_grad (timm's PiT: "Expected gradient function to be
    set"). A model whose facts cannot be taken still runs: only its params."""
    import torch

    facts = [Metric("params", sum(p.numel() for p in m.parameters()))]
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils.flop_counter import flop_registry
    except ImportError:
        return facts
    ops: dict[str, int] = {}
    flops = [0]
    digest = hashlib.sha256()

    class Recording(TorchDispatchMode):  # type: ignore[misc]
        def __torch_dispatch__(self, func: Any, types: Any, a: Any = (), kw: Any = None) -> Any:
            kw = kw or {}
            packet = func.overloadpacket
            ops[str(packet)] = ops.get(str(packet), 0) + 1
            digest.update(repr((str(func), _shape_sig(a), _shape_sig(kw))).encode())
            out = func(*a, **kw)
            if packet in flop_registry:
                flops[0] += int(flop_registry[packet](*a, **kw, out_val=out))
            return out

    try:
        with torch.no_grad(), Recording():
            forward(m, *args)
    except Exception:  # a model the dispatch mode cannot follow: its case still runs
        return facts
    facts += [Metric("flops", flops[0], "FLOP"), _hash_metric(digest)]
    return facts + [Metric(f"op:{k}", v, "op") for k, v in sorted(ops.items())]


def onnx_facts(path: Path) -> list[Metric]:
    """The exported graph's node histogram and structure hash (weights not read)."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    ops: dict[str, int] = {}
    digest = hashlib.sha256()
    for init in graph.initializer:
        digest.update(repr((init.name, tuple(init.dims), init.data_type)).encode())
    for node in graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
        attrs = sorted((a.name, str(onnx.helper.get_attribute_value(a))[:200]) for a in node.attribute)
        digest.update(repr((node.domain, node.op_type, len(node.input), len(node.output), attrs)).encode())
    return [_hash_metric(digest)] + [Metric(f"onnx:{k}", v, "op") for k, v in sorted(ops.items())]


# --- torch ----------------------------------------------------------------------


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
    opset: int = _OPSET
    labels: dict[str, str] = field(default_factory=dict)
    identity: str = ""

    def __post_init__(self) -> None:
        if not self.labels:
            self.labels = read_labels(self.script)
        if not self.identity:
            self.identity = _source_hash(self.script)

    def module(self, t: Ctx, dtype: Any) -> Any:
        m = rebuild(self.build, t.seed, t.device, dtype)
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
        call = _checked(t.call(fn, *args).work(self.inputs.samples, "sample"))
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

        return t.call(step, *args).work(self.inputs.samples, "sample").check("the loss is finite", _loss_finite)

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

        call = (_checked(t.call(run, *args).work(self.inputs.samples, "sample"))
                .metric("build_s", round(spent, 3), "s").metric("build_reused", int(reused)))
        call.metrics.extend(onnx_facts(folder / "model.onnx"))
        return call

    def declare(self) -> Cases:
        labels = self.labels
        self.opset = int(param("opset", _OPSET))  # the ONNX stage's opset (--param opset=N)
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


# --- Keras 3 --------------------------------------------------------------------


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
        return _checked(call.work(self.inputs.samples, "sample"))

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


# --- a script that does not import -------------------------------------------


def declare_broken(path: str, error: BaseException) -> bool:
    """A model script whose import failed (a syntax error, a bad labels line,
    a declaration that raised) becomes its `declare_error` cases, carrying
    the error: the run reports it and every other model still runs. False
    when the file has no labels line to name it by (not a model script)."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except OSError:
        return False
    if not first.startswith("# labels:"):
        return False
    labels = dict(item.partition("::")[::2] for item in first[len("# labels:"):].split() if "::" in item)
    labels["name"] = labels.get("name") or Path(path).stem
    cause = error.__cause__ or error
    detail = " ".join(str(cause).split())[:400]
    declare_error(labels, f"{os.path.basename(path)} does not load: {type(cause).__name__}: {detail}")
    return True


def declare_error(labels: dict[str, str], message: str) -> None:
    """A model that cannot be declared: one suite `error` case per framework
    its labels name, `<framework>/<name>/float32-script-eager`, carrying
    `message`."""
    framework = labels.get("framework", "")
    frameworks = list(KERAS_BACKENDS) if framework == "keras" else [framework or "torch"]
    for fw in frameworks:
        cases = Cases(fw)

        def body(t: Ctx) -> Call:
            raise RuntimeError(message)

        cases.case(labels["name"], shape={"script": ()}, tags=[f"{k}::{v}" for k, v in labels.items()],
                   note=message)(body)
        for case in cases._defs:
            case.invalid = message
