"""Regenerates the models suite's generated corpora from the libraries' own
registries, offline, random weights (issue 38): one script per architecture

  suites/models/timm/<name>.py          every timm.list_models() name (pretrained=False)
  suites/models/torchvision/<name>.py   every torchvision classification, detection,
                                        segmentation, video and optical-flow builder
  suites/models/transformers/<type>.py  every transformers model_type whose default
                                        config builds offline (AutoConfig.for_model +
                                        AutoModel.from_config, or the first task
                                        head's auto class where AutoModel has none,
                                        or a sub-model config's own model class)

and suites/models/unbuildable.json: every architecture that could not be
built, with the reason (nothing is dropped silently).

Each model is built on torch's meta device (no memory, no weights: seconds for
the whole registry) to count its parameters (the size:: label); where the meta
device refuses a builder, it is built on the CPU instead, under a time budget.
Run with the torch env's python (it has timm, torchvision and transformers):

  ~/.cache/mudjack/envs/torch-current-*/bin/python scripts/update-models-corpus.py [--only timm,...] [--budget-s 60]

The scripts it writes run alone (`python suites/models/timm/resnet50.py`) with
torch and the library only, and are read by MudJack's models suite.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import inspect
import io
import json
import os
import shutil
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


# --- the script template -------------------------------------------------------

TEMPLATE = '''# labels: {labels}
"""{title}

Generated by scripts/update-models-corpus.py from {library} {version}'s registry
(random weights, nothing downloaded); regenerate, do not edit. Runs alone with
torch and {library} only: `python {relpath}` builds the model and runs one
forward pass; MudJack's models suite reads the same file.
"""

from __future__ import annotations

# The inputs: (argument, kind, dims); kind "float" (standard normal) or an int
# (token ids below it); a dim naming a standard parameter takes its value.
INPUTS = {inputs!r}
DEFAULTS = {defaults!r}


def build():
{build}


def forward(m, *args):
{forward}


def example(**params):
    """The inputs (standard parameters over DEFAULTS), with torch alone."""
    import torch

    dims, g = {{**DEFAULTS, **params}}, torch.Generator().manual_seed(0)
    shapes = [(kind, [dims[d] if isinstance(d, str) else d for d in shape]) for _, kind, shape in INPUTS]
    return tuple(torch.randn(s, generator=g) if kind == "float" else torch.randint(0, kind, s, generator=g)
                 for kind, s in shapes)


if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import generated

    generated(__file__, build, INPUTS, DEFAULTS, forward)
else:  # alone (python this file, or mudjack check this file): build, one forward pass
    import time

    import torch

    class Model(torch.nn.Module):
        """The model called positionally, its first output tensor returned."""

        def __init__(self):
            super().__init__()
            self.model = build().eval()

        def forward(self, *args):
            out = forward(self.model, *args)
            while not isinstance(out, torch.Tensor):
                out = out.to_tuple() if hasattr(out, "to_tuple") else out
                out = next(iter(out.values() if isinstance(out, dict) else out))
            return out

    torch.manual_seed(0)
    model, args = Model(), example()
    start = time.perf_counter()
    with torch.no_grad():
        y = model(*args)
    print(f"{{__file__}}: output {{tuple(y.shape)}} {{y.dtype}} in {{time.perf_counter() - start:.3f}} s")
'''


def indent(code: str) -> str:
    return "\n".join("    " + line if line else "" for line in code.strip("\n").splitlines())


def write(corpus: str, name: str, labels: dict[str, str], title: str, inputs: list[Any], defaults: dict[str, int],
          build: str, forward: str, version: str) -> None:
    folder = ROOT / f".{corpus}.new"  # swapped in when the corpus is complete
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    text = TEMPLATE.format(labels=" ".join(f"{k}::{v}" for k, v in labels.items()), title=title, library=corpus,
                           version=version, relpath=f"suites/models/{corpus}/{name}.py", inputs=inputs,
                           defaults=defaults, build=indent(build), forward=indent(forward))
    path.write_text(text)


def labels_for(name: str, author: str, task: str, family: str, corpus: str, params: int) -> dict[str, str]:
    return {"name": name, "author": author, "task": task, "framework": "torch", "family": family,
            "corpus": corpus, "size": size_class(params), "params": str(params), "license": LICENSES[corpus]}


IMAGE = [("x", "float", ("batch_size", "num_channels", "height", "width"))]


# --- timm -----------------------------------------------------------------------


def timm_corpus(seconds: float, unbuildable: dict[str, str]) -> int:
    import timm
    from timm.models import _registry

    made = 0
    for name in timm.list_models():
        def build(name: str = name) -> Any:
            return timm.create_model(name, pretrained=False)

        try:
            params, _ = count(build, seconds)
        except Exception as exc:
            unbuildable[f"timm/{name}"] = reason(exc)
            continue
        cfg = timm.models.get_pretrained_cfg(name)
        size = tuple(cfg.input_size) if cfg is not None and cfg.input_size else (3, 224, 224)
        module = _registry._model_to_module.get(name, "timm")
        fixed = bool(cfg is not None and cfg.fixed_input_size)
        labels = labels_for(f"timm-{name}", "timm", "Computer_Vision", f"timm-{module}", "timm", params)
        title = (f"timm {name} (timm.create_model({name!r}, pretrained=False), module timm.models.{module}), "
                 f"{size[1]}x{size[2]} input{' (fixed)' if fixed else ''}, random weights.")
        write("timm", name, labels, title, IMAGE,
              {"batch_size": 1, "num_channels": size[0], "height": size[1], "width": size[2]},
              f"import timm\n\nreturn timm.create_model({name!r}, pretrained=False)", "return m(*args)",
              timm.__version__)
        made += 1
    return made


# --- torchvision ----------------------------------------------------------------

DETECTION_FORWARD = """\
# The deterministic parts (model.transform and NMS bypassed): the backbone's
# features and the head's raw outputs.
features = m.backbone(args[0])
maps = list(features.values()) if isinstance(features, dict) else [features]
head = m.head(maps) if hasattr(m, "head") else m.rpn.head(maps)
outs = list(head.values()) if isinstance(head, dict) else [t for part in head for t in part]
return tuple(maps) + tuple(outs)"""


def torchvision_corpus(seconds: float, unbuildable: dict[str, str]) -> int:
    import torchvision
    from torchvision import models

    groups = [("classification", models, "Computer_Vision", (3, 224, 224), "images"),
              ("detection", models.detection, "Computer_Vision", (3, 320, 320), "images"),
              ("segmentation", models.segmentation, "Computer_Vision", (3, 224, 224), "images"),
              ("video", models.video, "Computer_Vision", (3, 16, 112, 112), "clips"),
              ("optical_flow", models.optical_flow, "Computer_Vision", (3, 128, 128), "image pairs")]
    made = 0
    for family, module, task, size, what in groups:
        for name in models.list_models(module=module):
            builder = models.get_model_builder(name)
            kwargs = {"weights": None}
            if "weights_backbone" in inspect.signature(builder).parameters:
                kwargs["weights_backbone"] = None
            if name == "inception_v3" or name == "googlenet":
                kwargs["init_weights"] = True  # scipy-free default init, no warning
            call = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())

            def build(builder: Any = builder, kwargs: dict[str, Any] = kwargs) -> Any:
                return builder(**kwargs)

            try:
                params, _ = count(build, seconds)
            except Exception as exc:
                unbuildable[f"torchvision/{name}"] = reason(exc)
                continue
            defaults: dict[str, int] = {"batch_size": 1, "num_channels": size[0]}
            forward = "return m(*args)"
            if family == "video":
                inputs = [("x", "float", ("batch_size", "num_channels", "frames", "height", "width"))]
                frames, hw = (16, 224) if name.startswith(("mvit", "swin3d", "s3d")) else (16, 112)
                defaults.update({"frames": frames, "height": hw, "width": hw})
            elif family == "optical_flow":
                inputs = [("image1", "float", ("batch_size", "num_channels", "height", "width")),
                          ("image2", "float", ("batch_size", "num_channels", "height", "width"))]
                defaults.update({"height": size[1], "width": size[2]})
                forward = "return m(*args, num_flow_updates=4)[-1]"
            else:
                hw = 299 if name == "inception_v3" else (384 if name.endswith("_h_14") else size[1])
                inputs = IMAGE
                defaults.update({"height": hw, "width": hw})
                if family == "detection":
                    defaults.update({"height": 300 if name.startswith("ssd300") else hw,
                                     "width": 300 if name.startswith("ssd300") else hw})
                    forward = DETECTION_FORWARD
                elif family == "segmentation":
                    forward = 'return m(*args)["out"]'
            labels = labels_for(f"tv-{name}", "torchvision", task, f"torchvision-{family.replace('_', '-')}",
                                "torchvision", params)
            title = (f"torchvision {name} (torchvision.models.get_model_builder({name!r})({call})), "
                     f"{family} on {what}, random weights.")
            build_code = f"import torchvision\n\nreturn torchvision.models.get_model_builder({name!r})({call})"
            write("torchvision", name, labels, title, inputs, defaults, build_code, forward, torchvision.__version__)
            made += 1
    return made


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
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    if task != "Natural_Language_Processing":
        return {"Multimodal": "transformers-multimodal", "Computer_Vision": "transformers-vision",
                "Audio": "transformers-audio"}[task]
    if getattr(config, "is_encoder_decoder", False):
        return "transformers-seq2seq"
    if config.model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return "transformers-decoder"
    return "transformers-encoder"


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


def transformers_corpus(seconds: float, unbuildable: dict[str, str]) -> int:
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    made = 0
    for model_type in sorted(CONFIG_MAPPING_NAMES):
        key = f"transformers/{model_type}"
        try:
            config = AutoConfig.for_model(model_type)
        except Exception as exc:
            unbuildable[key] = "default config: " + reason(exc)
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
            unbuildable[key] = reason(exc)
            holder.clear()
            gc.collect()
            continue
        feed = hf_inputs(holder[0], config)
        if isinstance(feed, str):
            unbuildable[key] = f"builds ({type(holder[0]).__name__}), but {feed}"
            holder.clear()
            continue
        inputs, defaults, task, family = feed
        names = [i[0] for i in inputs]
        forward = f"return m(**dict(zip({names!r}, args)), return_dict=True)"
        cls = type(holder[0]).__name__
        labels = labels_for(f"hf-{model_type}".replace("_", "-"), "huggingface", task, family, "transformers", params)
        title = (f"transformers {model_type} ({cls}: {auto}(AutoConfig.for_model({model_type!r})), "
                 f"the library's default config), random weights.")
        build_code = (f"import transformers\n\nconfig = transformers.AutoConfig.for_model({model_type!r})\n"
                      f"return transformers.{auto}(config)")
        write("transformers", model_type, labels, title, inputs, defaults, build_code, forward,
              transformers.__version__)
        holder.clear()
        gc.collect()
        made += 1
    return made


CORPORA: dict[str, Callable[[float, dict[str, str]], int]] = {
    "timm": timm_corpus, "torchvision": torchvision_corpus, "transformers": transformers_corpus}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(CORPORA), help="comma list of corpora to regenerate")
    parser.add_argument("--budget-s", type=float, default=60.0, help="seconds one model may take to build")
    args = parser.parse_args()
    report = ROOT / "unbuildable.json"
    known = json.loads(report.read_text()) if report.is_file() else {}
    for corpus in args.only.split(","):
        if corpus not in CORPORA:
            parser.error(f"unknown corpus {corpus!r}; known: {', '.join(CORPORA)}")
        fresh = ROOT / f".{corpus}.new"
        shutil.rmtree(fresh, ignore_errors=True)
        known = {k: v for k, v in known.items() if not k.startswith(corpus + "/")}
        start = time.perf_counter()
        unbuildable: dict[str, str] = {}
        made = CORPORA[corpus](args.budget_s, unbuildable)
        shutil.rmtree(ROOT / corpus, ignore_errors=True)  # the old corpus goes only once the new one is whole
        fresh.mkdir(exist_ok=True)
        fresh.rename(ROOT / corpus)
        known.update(unbuildable)
        print(f"{corpus}: {made} scripts, {len(unbuildable)} unbuildable, {time.perf_counter() - start:.0f} s",
              file=sys.stderr, flush=True)
        report.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
