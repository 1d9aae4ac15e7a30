"""The models suite's one harness for running a model alone, and the reader
of the generated corpora's manifests.

A hand-written script: `python suites/models/bert.py` (or `mudjack check
suites/models/bert.py`) runs the script under its own name, not the models
suite's (`mudjack_suite_...`), and the script then imports these instead of
`mudjack_probe.models`: the same names, taking the same arguments, that
build the model (random weights), make seeded inputs with the framework and
NumPy alone, and run one forward pass, printing the first output's shape
and the time, as MLAgility's scripts did.

A generated model: `python suites/models/_standalone.py timm/resnet50`
builds the entry `resnet50` of `timm.json` (scripts/update-models-corpus.py)
the same way, with torch and its library only. `corpora.py` declares the
entries' cases with the same `entry_build` and `entry_forward`.

Standard parameters keep their defaults here (`--param` is MudJack's).
Imports no framework at load: the suite loader reads this file as a helper.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple


class Inputs(NamedTuple):
    tag: str
    dims: tuple[int, ...]
    make: Callable[[Any], tuple[Any, ...]]
    samples: int


def param(name: str, default: Any) -> Any:
    return default


def batch_size(default: int = 1) -> int:
    return default


def seq_length(default: int = 128) -> int:
    return default


def image_size(default: int = 224) -> tuple[int, int]:
    return default, default


def ids(t: Any, high: int, shape: Sequence[int]) -> Any:
    """Token ids in [0, high): a torch tensor for a torch model, NumPy for Keras."""
    values = t["rng"].integers(0, high, size=tuple(shape), dtype="int64")
    return t["wrap"](values)


def floats(t: Any, shape: Sequence[int]) -> Any:
    values = t["rng"].standard_normal(size=tuple(shape)).astype("float32")
    return t["wrap"](values)


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
    d = tuple(dims)
    return Inputs(tag, d, lambda t: (floats(t, d),), samples)


def _first_tensor(out: Any, is_tensor: Callable[[Any], bool]) -> Any:
    """The first tensor in an output (a tensor, a tuple, a dict, a ModelOutput)."""
    while not is_tensor(out):
        out = out.to_tuple() if hasattr(out, "to_tuple") else out
        out = next(iter(out.values() if isinstance(out, dict) else out))
    return out


def _report(script: str, out: Any, seconds: float) -> None:
    print(f"{script}: output {tuple(out.shape)} {out.dtype} in {seconds:.3f} s")


def torch_model(script: str, build: Callable[[], Any], inputs: Inputs, forward: Callable[..., Any] | None = None,
                **_options: Any) -> None:
    """Builds the model and runs one forward pass (no_grad), torch only."""
    import numpy as np
    import torch

    torch.manual_seed(0)
    model = build().eval()
    args = inputs.make({"rng": np.random.default_rng(0), "wrap": torch.from_numpy})
    start = time.perf_counter()
    with torch.no_grad():
        out = forward(model, *args) if forward else model(*args)
    _report(script, _first_tensor(out, torch.is_tensor), time.perf_counter() - start)


def keras_model(script: str, build: Callable[[Any], Any], inputs: Inputs, **_options: Any) -> None:
    """Builds the model on Keras's configured backend and runs one forward pass."""
    import keras
    import numpy as np

    keras.utils.set_random_seed(0)
    model = build(keras)
    args = inputs.make({"rng": np.random.default_rng(0), "wrap": lambda a: a})
    start = time.perf_counter()
    out = model(*args, training=False)
    _report(script, _first_tensor(out, lambda x: hasattr(x, "shape") and hasattr(x, "dtype")),
            time.perf_counter() - start)


# --- the generated corpora's manifests -------------------------------------------

CORPORA = ("timm", "torchvision", "transformers")
# The order of a generated model's labels (its case's tags).
LABEL_ORDER = ("name", "author", "task", "framework", "family", "corpus", "size", "params", "license")


def manifest(corpus: str) -> dict[str, Any]:
    """suites/models/<corpus>.json: {library, version, labels (those every
    entry carries), models: [entry...], unbuildable: [{name, reason}...]}."""
    with open(Path(__file__).resolve().with_name(f"{corpus}.json"), encoding="utf-8") as f:
        loaded: dict[str, Any] = json.load(f)
    return loaded


def entry_labels(meta: dict[str, Any], entry: dict[str, Any]) -> dict[str, str]:
    """The entry's labels: its own over the manifest's, in LABEL_ORDER, and
    `duplicate-of::NAME` where a hand-written script builds it too."""
    labels = {**meta["labels"], **entry["labels"]}
    ordered = {k: str(labels.pop(k)) for k in LABEL_ORDER if k in labels}
    ordered.update({k: str(v) for k, v in labels.items()})
    if entry.get("duplicate_of"):
        ordered["duplicate-of"] = str(entry["duplicate_of"])
    return ordered


def construct(spec: dict[str, Any]) -> Any:
    """Calls the builder `spec`: its dotted `call` with `args` and `kwargs`,
    after the default config of model_type `config` where it names one."""
    import importlib

    module, *path = str(spec["call"]).split(".")
    target: Any = importlib.import_module(module)
    for attr in path:
        target = getattr(target, attr)
    args = list(spec.get("args", []))
    if "config" in spec:
        import transformers

        args.insert(0, transformers.AutoConfig.for_model(spec["config"]))
    return target(*args, **spec.get("kwargs", {}))


def entry_build(entry: dict[str, Any]) -> Callable[[], Any]:
    """The entry's `build()`: the module, random weights, on the CPU."""
    spec = entry["builder"]

    def build() -> Any:
        return construct(spec)

    return build


def positional(m: Any, *args: Any) -> Any:
    return m(*args)


def segmentation(m: Any, *args: Any) -> Any:
    return m(*args)["out"]


def optical_flow(m: Any, *args: Any) -> Any:
    return m(*args, num_flow_updates=4)[-1]


def detection(m: Any, *args: Any) -> Any:
    """The deterministic parts (model.transform and NMS bypassed): the
    backbone's features and the head's raw outputs."""
    features = m.backbone(args[0])
    maps = list(features.values()) if isinstance(features, dict) else [features]
    head = m.head(maps) if hasattr(m, "head") else m.rpn.head(maps)
    outs = list(head.values()) if isinstance(head, dict) else [t for part in head for t in part]
    return tuple(maps) + tuple(outs)


FORWARDS: dict[str, Callable[..., Any]] = {"positional": positional, "segmentation": segmentation,
                                           "optical_flow": optical_flow, "detection": detection}


def entry_forward(entry: dict[str, Any]) -> Callable[..., Any]:
    """The entry's `forward(module, *args)`: a kind of FORWARDS, or
    "keywords" (transformers: the inputs by their names, return_dict)."""
    if entry["forward"] != "keywords":
        return FORWARDS[entry["forward"]]
    names = [str(i[0]) for i in entry["inputs"]]

    def keywords(m: Any, *args: Any) -> Any:
        return m(**dict(zip(names, args)), return_dict=True)

    return keywords


def entry_example(entry: dict[str, Any], **params: int) -> tuple[Any, ...]:
    """The entry's inputs (standard parameters over its defaults), with torch
    alone: kind "float" standard normal, an int token ids below it."""
    import torch

    dims, g = {**entry["defaults"], **params}, torch.Generator().manual_seed(0)
    shapes = [(kind, [dims[d] if isinstance(d, str) else d for d in shape]) for _, kind, shape in entry["inputs"]]
    return tuple(torch.randn(s, generator=g) if kind == "float" else torch.randint(0, kind, s, generator=g)
                 for kind, s in shapes)


def find_entry(ref: str) -> dict[str, Any]:
    """The entry CORPUS/NAME (timm/resnet50); ValueError naming what is wrong."""
    corpus, _, name = ref.partition("/")
    if corpus not in CORPORA or not name:
        raise ValueError(f"{ref!r} is not CORPUS/NAME with CORPUS one of {', '.join(CORPORA)}")
    meta = manifest(corpus)
    found = [e for e in meta["models"] if e["name"] == name]
    if found:
        return dict(found[0])
    why = [u["reason"] for u in meta.get("unbuildable", []) if u["name"] == name]
    raise ValueError(f"{corpus}.json lists {name} as unbuildable: {why[0]}" if why else f"{corpus}.json has no {name}")


def run_entry(ref: str, entry: dict[str, Any]) -> None:
    """Builds the entry (seed 0) and runs one forward pass under no_grad."""
    import torch

    torch.manual_seed(0)
    model = entry_build(entry)().eval()
    args, forward = entry_example(entry), entry_forward(entry)
    start = time.perf_counter()
    with torch.no_grad():
        out = forward(model, *args)
    _report(ref, _first_tensor(out, torch.is_tensor), time.perf_counter() - start)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python suites/models/_standalone.py CORPUS/NAME (timm/resnet50: an entry of timm.json)",
              file=sys.stderr)
        return 2
    try:
        entry = find_entry(argv[0])
    except (ValueError, OSError) as exc:
        print(f"_standalone.py: {exc}", file=sys.stderr)
        return 2
    run_entry(argv[0], entry)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
