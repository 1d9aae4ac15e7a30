# labels: name::shufflenet-v2 author::torchvision task::Computer_Vision framework::torch family::torchvision-classification
"""ShuffleNetV2 x1.0 (torchvision.models.shufflenet_v2_x1_0), random weights; logits."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import torchvision

    return torchvision.models.shufflenet_v2_x1_0(weights=None)


torch_model(__file__, build, image())
