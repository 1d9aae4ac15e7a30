# labels: name::resnest author::timm task::Computer_Vision framework::torch family::timm-classification
"""ResNeSt-14d (timm.create_model('resnest14d', pretrained=False)), timm's built-in config, random weights; logits judged."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import timm

    return timm.create_model("resnest14d", pretrained=False)


torch_model(__file__, build, image())
