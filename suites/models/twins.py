# labels: name::twins author::timm task::Computer_Vision framework::torch family::timm-classification
"""Twins-SVT-S (timm.create_model('twins_svt_small', pretrained=False)), timm's built-in config, random weights, fixed 224x224 input; logits judged."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import timm

    return timm.create_model("twins_svt_small", pretrained=False)


torch_model(__file__, build, image(size=(224, 224)))
