# labels: name::mlp-mixer author::timm task::Computer_Vision framework::torch family::timm-classification
"""MLP-Mixer B/16 (timm.create_model('mixer_b16_224', pretrained=False)), timm's built-in config, random weights (head re-drawn: timm zero-inits it), fixed 224x224 input; logits judged."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import timm
    import torch

    m = timm.create_model("mixer_b16_224", pretrained=False)
    # timm's Mixer init zeroes the classifier head, so random-weight logits would be constant
    torch.nn.init.trunc_normal_(m.head.weight, std=0.02)
    return m


torch_model(__file__, build, image(size=(224, 224)))
