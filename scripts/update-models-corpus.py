"""Regenerates the models suite's generated corpora from the libraries' own
registries, offline, random weights (issues 38, 49): one manifest per registry,
one entry per architecture,

  suites/models/timm.json          every timm.list_models() name (pretrained=False)
  suites/models/torchvision.json   every torchvision classification, detection,
                                   segmentation, video and optical-flow builder
  suites/models/transformers.json  every transformers model_type whose default
                                   config builds offline (AutoConfig.for_model +
                                   AutoModel.from_config, or the first task
                                   head's auto class where AutoModel has none,
                                   or a sub-model config's own model class)

each with its `unbuildable` list: every architecture that could not be built
or fed, with the reason (nothing is dropped silently). An entry that a
hand-written script of the same library and name also builds is marked
`duplicate_of` that script's name (its cases stay listed: their ids differ).

Each model is built on torch's meta device (no memory, no weights: seconds for
the whole registry) to count its parameters (the size:: label); where the meta
device refuses a builder, it is built on the CPU instead, under a time budget.
Run with the torch env's python (it has timm, torchvision and transformers):

  ~/.cache/mudjack/envs/torch-current-*/bin/python scripts/update-models-corpus.py \\
      [--only timm,...] [--match GLOB] [--out DIR] [--budget-s 60]

suites/models/corpora.py declares an entry's cases; `python
suites/models/_standalone.py timm/resnet50` builds it and runs one forward
pass with torch and the library only.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import gc
import inspect
import io
import json
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                   "TRANSFORMERS_VERBOSITY": "error"})
warnings.filterwarnings("ignore")

ROOT = Path(__file__).resolve().parent.parent / "suites" / "models"
LICENSES = {"timm": "Apache-2.0", "torchvision": "BSD-3-Clause", "transformers": "Apache-2.0"}
# size:: classes by parameter count (upper bounds, exclusive)
SIZES = ((10_000_000, "tiny"), (100_000_000, "small"), (1_000_000_000, "medium"))


def size_class(params: int) -> str:
    for bound, name in SIZES:
        if params < bound:
            return name
    return "large"


class Timeout(Exception):
    pass


@contextlib.contextmanager
def budget(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Timeout(f"did not build within {seconds:g} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# A builder the meta device refuses is built on the CPU only below this many
# parameters (estimated from its config where the library has one): this is
# a shared machine, and transformers' default configs reach 7B parameters.
CPU_LIMIT = 400_000_000


def count(build: Callable[[], Any], seconds: float, estimate: int | None = None) -> tuple[int, str]:
    """(parameter count, where it was built: meta or cpu)."""
    import torch

    quiet = io.StringIO()
    try:
        with budget(seconds), contextlib.redirect_stdout(quiet), torch.device("meta"):
            m = build()
        return sum(p.numel() for p in m.parameters()), "meta"
    except Timeout:
        raise
    except Exception as exc:
        if estimate is not None and estimate > CPU_LIMIT:
            raise RuntimeError(f"does not build on the meta device ({reason(exc)}), and its config "
                               f"(~{estimate / 1e9:.1f}B parameters) is too large to build on this CPU") from exc
    with budget(seconds), contextlib.redirect_stdout(quiet):
        m = build()
    n = sum(p.numel() for p in m.parameters())
    del m
    gc.collect()
    return n, "cpu"


def config_estimate(config: Any) -> int:
    """A rough parameter count from a transformers config: embeddings and 12 h^2 per layer;
    unknown dimensions count as too large."""
    text = getattr(config, "text_config", None) or config
    h = next((getattr(text, k) for k in ("hidden_size", "d_model", "n_embd", "dim") if getattr(text, k, None)), None)
    layers = sum(int(getattr(text, k, 0) or 0) for k in ("num_hidden_layers", "n_layer", "num_layers",
                                                            "decoder_layers", "encoder_layers"))
    if not isinstance(h, int) or not layers:
        return 10 * CPU_LIMIT
    return int(getattr(text, "vocab_size", 0) or 0) * h + layers * 12 * h * h


def reason(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:240]


# --- the manifests -------------------------------------------------------------

# Labels every entry of a corpus carries, kept once per manifest.
COMMON = {"timm": {"author": "timm"}, "torchvision": {"author": "torchvision"},
          "transformers": {"author": "huggingface"}}


def entry(name: str, labels: dict[str, str], builder: dict[str, Any], inputs: list[Any], defaults: dict[str, int],
          forward: str, **extra: Any) -> dict[str, Any]:
    """One manifest entry (suites/models/_standalone.py reads it): its
    varying labels, how to build it (`builder`: a dotted call, its args and
    kwargs, and for transformers the model_type whose default config is the
    first argument), its inputs (argument, kind, dims), the defaults of the
    standard parameters its dims name, and its forward kind."""
    return json.loads(json.dumps({"name": name, "labels": labels, "builder": builder, "inputs": inputs,
                                  "defaults": defaults, "forward": forward, **extra}))


def labels_for(name: str, task: str, family: str, params: int) -> dict[str, str]:
    return {"name": name, "task": task, "family": family, "size": size_class(params), "params": str(params)}


def hand_written(folder: Path) -> dict[str, str]:
    """The hand-written scripts' architectures, "author/name" -> name label,
    read from their labels lines: a generated entry of the same library and
    name is marked `duplicate_of` (still listed: its case ids are its own)."""
    out: dict[str, str] = {}
    for path in sorted(folder.glob("*.py")):
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        if not first.startswith("# labels:"):
            continue
        labels = dict(w.split("::", 1) for w in first[len("# labels:"):].split() if "::" in w)
        if "name" in labels and "author" in labels:
            out[f"{labels['author']}/{labels['name']}"] = labels["name"]
    return out


PREFIXES = {"timm": "timm-", "torchvision": "tv-", "transformers": "hf-"}


def mark_duplicates(corpus: str, entries: list[dict[str, Any]], hand: dict[str, str]) -> int:
    """Marks the entries a hand-written script already builds (same author,
    the same name without the corpus's prefix); returns how many."""
    author = COMMON[corpus]["author"]
    marked = 0
    for e in entries:
        e.pop("duplicate_of", None)
        bare = e["labels"]["name"].removeprefix(PREFIXES[corpus])
        if f"{author}/{bare}" in hand:
            e["duplicate_of"] = hand[f"{author}/{bare}"]
            marked += 1
    return marked


def manifest_text(corpus: str, version: str, entries: list[dict[str, Any]], unbuildable: dict[str, str]) -> str:
    """The manifest, one entry per line (a diff shows the entries that changed)."""
    head = {"library": corpus, "version": version, "generator": "scripts/update-models-corpus.py",
            "labels": {**COMMON[corpus], "framework": "torch", "corpus": corpus, "license": LICENSES[corpus]}}
    models = ",\n".join(json.dumps(e) for e in sorted(entries, key=lambda e: e["name"]))
    failed = ",\n".join(json.dumps({"name": k, "reason": v}) for k, v in sorted(unbuildable.items()))
    text = f'{json.dumps(head)[:-1]},\n "models": [\n{models}\n ],\n "unbuildable": [\n{failed}\n ]}}\n'
    json.loads(text)  # the hand-made layout is still JSON
    return text


IMAGE = [("x", "float", ("batch_size", "num_channels", "height", "width"))]


# --- timm -----------------------------------------------------------------------


def timm_corpus(seconds: float, unbuildable: dict[str, str], wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import timm
    from timm.models import _registry

    entries = []
    for name in filter(wanted, timm.list_models()):
        def build(name: str = name) -> Any:
            return timm.create_model(name, pretrained=False)

        try:
            params, _ = count(build, seconds)
        except Exception as exc:
            unbuildable[name] = reason(exc)
            continue
        cfg = timm.models.get_pretrained_cfg(name)
        size = tuple(cfg.input_size) if cfg is not None and cfg.input_size else (3, 224, 224)
        module = _registry._model_to_module.get(name, "timm")
        fixed = {"fixed_input_size": True} if cfg is not None and cfg.fixed_input_size else {}
        entries.append(entry(name, labels_for(f"timm-{name}", "Computer_Vision", f"timm-{module}", params),
                             {"call": "timm.create_model", "args": [name], "kwargs": {"pretrained": False}}, IMAGE,
                             {"batch_size": 1, "num_channels": size[0], "height": size[1], "width": size[2]},
                             "positional", **fixed))
    return entries


# --- torchvision ----------------------------------------------------------------

# torchvision's model groups: (family, module, default input size).
TV_GROUPS = (("classification", "", (3, 224, 224)), ("detection", "detection", (3, 320, 320)),
             ("segmentation", "segmentation", (3, 224, 224)), ("video", "video", (3, 16, 112, 112)),
             ("optical_flow", "optical_flow", (3, 128, 128)))


def tv_feed(family: str, name: str, size: tuple[int, ...]) -> tuple[list[Any], dict[str, int], str]:
    """(inputs, defaults, forward kind) of a torchvision builder: a clip for a
    video model, an image pair for optical flow (4 flow updates, the last
    flow), the backbone's and head's raw outputs for detection (see
    _standalone.py's `detection`), the "out" map for segmentation."""
    defaults: dict[str, int] = {"batch_size": 1, "num_channels": size[0]}
    if family == "video":
        frames, hw = (16, 224) if name.startswith(("mvit", "swin3d", "s3d")) else (16, 112)
        defaults.update({"frames": frames, "height": hw, "width": hw})
        return [("x", "float", ("batch_size", "num_channels", "frames", "height", "width"))], defaults, "positional"
    if family == "optical_flow":
        defaults.update({"height": size[1], "width": size[2]})
        return [("image1", "float", IMAGE[0][2]), ("image2", "float", IMAGE[0][2])], defaults, "optical_flow"
    hw = 299 if name == "inception_v3" else (384 if name.endswith("_h_14") else size[1])
    if family == "detection" and name.startswith("ssd300"):
        hw = 300
    defaults.update({"height": hw, "width": hw})
    return IMAGE, defaults, {"detection": "detection", "segmentation": "segmentation"}.get(family, "positional")


def torchvision_corpus(seconds: float, unbuildable: dict[str, str],
                       wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    from torchvision import models

    entries = []
    for family, sub, size in TV_GROUPS:
        for name in filter(wanted, models.list_models(module=getattr(models, sub) if sub else models)):
            builder = models.get_model_builder(name)
            kwargs: dict[str, Any] = {"weights": None}
            if "weights_backbone" in inspect.signature(builder).parameters:
                kwargs["weights_backbone"] = None
            if name == "inception_v3" or name == "googlenet":
                kwargs["init_weights"] = True  # scipy-free default init, no warning

            def build(builder: Any = builder, kwargs: dict[str, Any] = kwargs) -> Any:
                return builder(**kwargs)

            try:
                params, _ = count(build, seconds)
            except Exception as exc:
                unbuildable[name] = reason(exc)
                continue
            inputs, defaults, forward = tv_feed(family, name, size)
            labels = labels_for(f"tv-{name}", "Computer_Vision", f"torchvision-{family.replace('_', '-')}", params)
            entries.append(entry(name, labels, {"call": "torchvision.models.get_model", "args": [name], "kwargs": kwargs},
                                 inputs, defaults, forward))
    return entries


# --- transformers ---------------------------------------------------------------


def hf_inputs(model: Any, config: Any) -> tuple[list[Any], dict[str, int], str, str] | str:
    """(inputs, defaults, task, family) from the model's forward signature and
    config, or the reason the generator cannot feed it."""
    sig = inspect.signature(type(model).forward).parameters
    main = getattr(model, "main_input_name", "input_ids")
    text = getattr(config, "text_config", None) or config
    vocab = getattr(text, "vocab_size", None) or getattr(config, "vocab_size", None)
    inputs: list[Any] = []
    defaults: dict[str, int] = {"batch_size": 1}
    if "input_ids" in sig and vocab:
        inputs.append(("input_ids", int(min(vocab, 1000)), ("batch_size", "max_seq_length")))
        # a text tower with few positions (OWL-ViT's 16) takes no more tokens than it has
        positions = getattr(text, "max_position_embeddings", None)
        defaults["max_seq_length"] = min(32, positions) if isinstance(positions, int) and positions > 0 else 32
    if "pixel_values" in sig and (main == "pixel_values" or "input_ids" in sig):
        inputs.append(hf_pixels(config, defaults))
    if main == "input_values" and "input_values" in sig:
        inputs.append(hf_waveform(config, defaults))
    if main == "input_features" and "input_features" in sig:
        mels = int(getattr(config, "num_mel_bins", 0) or getattr(config, "input_feat_per_channel", 0) or 80)
        if "whisper" in config.model_type:
            inputs.append(("input_features", "float", ("batch_size", mels, 2 * int(config.max_source_positions))))
        else:
            inputs.append(("input_features", "float", ("batch_size", "max_audio_seq_length", mels)))
            defaults["max_audio_seq_length"] = 200
    if not inputs or (main not in [i[0] for i in inputs]):
        return f"no input the generator can make for its main input {main!r}"
    if getattr(config, "is_encoder_decoder", False) and "decoder_input_ids" in sig and vocab:
        inputs.append(("decoder_input_ids", int(min(vocab, 1000)), ("batch_size", 16)))
    names = [i[0] for i in inputs]
    missing = [n for n, p in sig.items() if n != "self" and n not in names and p.default is inspect.Parameter.empty
               and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    if missing:
        return f"its forward also requires {', '.join(missing)}, which the generator cannot make"
    task = ("Multimodal" if "input_ids" in names and "pixel_values" in names else
            "Computer_Vision" if main == "pixel_values" else
            "Audio" if main in ("input_values", "input_features") else "Natural_Language_Processing")
    return inputs, defaults, task, hf_family(config, task)


def hf_pixels(config: Any, defaults: dict[str, int]) -> tuple[Any, ...]:
    """pixel_values: an image at the config's size (height and width apart
    where it names two, ViTPose's 256 x 192), a clip of the config's
    num_frames for a video model (VideoMAE, ViViT), a pair of images for a
    keypoint matcher (LightGlue, EfficientLoFTR)."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_KEYPOINT_MATCHING_MAPPING_NAMES

    vision = getattr(config, "vision_config", None) or config
    # The size may live only in the backbone's config (SAM2's 1024 x 1024,
    # LW-DETR's 1024, RF-DETR's 518): the first config that names it.
    sized = [vision, getattr(vision, "backbone_config", None), getattr(config, "backbone_config", None)]
    img = next((c.image_size for c in sized if getattr(c, "image_size", None)), 224)
    height, width = (img[0], img[1]) if isinstance(img, (list, tuple)) else (img, img)
    channels = next((c.num_channels for c in sized if getattr(c, "num_channels", None)), 3)
    defaults.update({"num_channels": int(channels), "height": int(height), "width": int(width)})
    image = ("num_channels", "height", "width")
    frames = getattr(vision, "num_frames", None)
    if isinstance(frames, int) and frames > 1:
        return ("pixel_values", "float", ("batch_size", frames, *image))
    if config.model_type in MODEL_FOR_KEYPOINT_MATCHING_MAPPING_NAMES:
        return ("pixel_values", "float", ("batch_size", 2, *image))
    return ("pixel_values", "float", ("batch_size", *image))


def hf_waveform(config: Any, defaults: dict[str, int]) -> tuple[Any, ...]:
    """input_values: a waveform (a neural codec's has a channel axis: EnCodec,
    Mimi, DAC), or a spectrogram of the config's frames and mel bins (the
    Audio Spectrogram Transformer's)."""
    defaults["max_audio_seq_length"] = 16000
    if getattr(config, "codebook_size", None):
        return ("input_values", "float", ("batch_size", int(getattr(config, "audio_channels", 1) or 1),
                                          "max_audio_seq_length"))
    if getattr(config, "num_mel_bins", None) and getattr(config, "max_length", None):
        del defaults["max_audio_seq_length"]
        return ("input_values", "float", ("batch_size", int(config.max_length), int(config.num_mel_bins)))
    return ("input_values", "float", ("batch_size", "max_audio_seq_length"))


def hf_family(config: Any, task: str) -> str:
    """The architecture kind. A text model is an encoder-decoder where its
    config says so; a decoder where its config says it decodes (BLIP's and
    Pix2Struct's text towers) or where it has a causal-LM head and no
    masked-LM one (GPT-2, Llama); else an encoder: BERT, RoBERTa and ELECTRA
    have a causal-LM head too (the encoder run with is_decoder=True), but
    they are encoders, as their masked-LM head says."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if task != "Natural_Language_Processing":
        return {"Multimodal": "transformers-multimodal", "Computer_Vision": "transformers-vision",
                "Audio": "transformers-audio"}[task]
    if getattr(config, "is_encoder_decoder", False):
        return "transformers-encoder-decoder"
    if getattr(config, "is_decoder", False):
        return "transformers-decoder"
    causal, masked = (config.model_type in m for m in (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
                                                         MODEL_FOR_MASKED_LM_MAPPING_NAMES))
    return "transformers-decoder" if causal and not masked else "transformers-encoder"


# The auto class that builds a model_type: the bare AutoModel where it has
# one, else the first task head whose mapping names the type.
AUTO_CLASSES = (("MODEL_MAPPING_NAMES", "AutoModel"), ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "AutoModelForCausalLM"),
                ("MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", "AutoModelForSeq2SeqLM"),
                ("MODEL_FOR_MASKED_LM_MAPPING_NAMES", "AutoModelForMaskedLM"),
                ("MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES", "AutoModelForImageTextToText"),
                ("MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES", "AutoModelForImageClassification"),
                ("MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES", "AutoModelForSpeechSeq2Seq"),
                ("MODEL_FOR_CTC_MAPPING_NAMES", "AutoModelForCTC"),
                ("MODEL_FOR_AUDIO_CLASSIFICATION_MAPPING_NAMES", "AutoModelForAudioClassification"),
                ("MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES", "AutoModelForSequenceClassification"),
                ("MODEL_FOR_OBJECT_DETECTION_MAPPING_NAMES", "AutoModelForObjectDetection"),
                ("MODEL_FOR_SEMANTIC_SEGMENTATION_MAPPING_NAMES", "AutoModelForSemanticSegmentation"),
                ("MODEL_FOR_DEPTH_ESTIMATION_MAPPING_NAMES", "AutoModelForDepthEstimation"),
                ("MODEL_FOR_BACKBONE_MAPPING_NAMES", "AutoBackbone"))


def auto_class(model_type: str, config: Any) -> str:
    """The call that builds the type from its config: an auto class's
    from_config, else (a sub-model's config: a composite's text or vision
    tower) the model class named after the config class, "XTextConfig" ->
    "XTextModel"."""
    import transformers
    from transformers.models.auto import modeling_auto

    for mapping, name in AUTO_CLASSES:
        if model_type in getattr(modeling_auto, mapping, {}):
            return f"{name}.from_config"
    own = type(config).__name__.removesuffix("Config") + "Model"
    return own if hasattr(transformers, own) else "AutoModel.from_config"


def transformers_corpus(seconds: float, unbuildable: dict[str, str],
                        wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    entries = []
    for model_type in filter(wanted, sorted(CONFIG_MAPPING_NAMES)):
        try:
            config = AutoConfig.for_model(model_type)
        except Exception as exc:
            unbuildable[model_type] = "default config: " + reason(exc)
            continue
        holder: list[Any] = []
        auto = auto_class(model_type, config)
        owner, _, method = auto.partition(".")

        def build(config: Any = config, holder: list[Any] = holder, owner: str = owner, method: str = method) -> Any:
            maker = getattr(transformers, owner)
            holder[:] = [getattr(maker, method)(config) if method else maker(config)]
            return holder[0]

        try:
            params, _ = count(build, seconds, config_estimate(config))
        except Exception as exc:
            unbuildable[model_type] = reason(exc)
            holder.clear()
            gc.collect()
            continue
        feed = hf_inputs(holder[0], config)
        if isinstance(feed, str):
            unbuildable[model_type] = f"builds ({type(holder[0]).__name__}), but {feed}"
            holder.clear()
            continue
        inputs, defaults, task, family = feed
        labels = labels_for(f"hf-{model_type}".replace("_", "-"), task, family, params)
        entries.append(entry(model_type, labels, {"call": f"transformers.{auto}", "config": model_type}, inputs,
                             defaults, "keywords", **{"class": type(holder[0]).__name__}))
        holder.clear()
        gc.collect()
    return entries


Corpus = Callable[[float, dict[str, str], Callable[[str], bool]], list[dict[str, Any]]]
CORPORA: dict[str, Corpus] = {"timm": timm_corpus, "torchvision": torchvision_corpus,
                              "transformers": transformers_corpus}


def regenerate(corpus: str, out: Path, match: str, budget_s: float, hand: dict[str, str]) -> None:
    """Writes out/<corpus>.json: every architecture of the registry, or, with
    a `match` other than "*", those whose names match it, over the entries
    of the manifest already there (the others kept as they are)."""
    import importlib

    path = out / f"{corpus}.json"
    old = json.loads(path.read_text(encoding="utf-8")) if match != "*" and path.is_file() else {}
    start = time.perf_counter()
    unbuildable: dict[str, str] = {}
    entries = CORPORA[corpus](budget_s, unbuildable, lambda name: fnmatch.fnmatchcase(name, match))
    entries += [e for e in old.get("models", []) if not fnmatch.fnmatchcase(e["name"], match)]
    unbuildable.update({u["name"]: u["reason"] for u in old.get("unbuildable", [])
                        if not fnmatch.fnmatchcase(u["name"], match)})
    duplicates = mark_duplicates(corpus, entries, hand)
    version = str(importlib.import_module(corpus).__version__)
    out.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(manifest_text(corpus, version, entries, unbuildable), encoding="utf-8")
    os.replace(tmp, path)  # the old manifest goes only once the new one is whole
    print(f"{corpus}: {len(entries)} models ({duplicates} also hand-written), {len(unbuildable)} unbuildable, "
          f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(CORPORA), help="comma list of corpora to regenerate")
    parser.add_argument("--match", default="*", help="only the registry names matching this glob (the rest kept)")
    parser.add_argument("--out", default=str(ROOT), help="folder of the manifests (default suites/models)")
    parser.add_argument("--budget-s", type=float, default=60.0, help="seconds one model may take to build")
    args = parser.parse_args()
    hand = hand_written(ROOT)
    for corpus in args.only.split(","):
        if corpus not in CORPORA:
            parser.error(f"unknown corpus {corpus!r}; known: {', '.join(CORPORA)}")
        regenerate(corpus, Path(args.out), args.match, args.budget_s, hand)
    return 0


if __name__ == "__main__":
    sys.exit(main())
