# labels: name::squeezenet author::torchvision task::Computer_Vision framework::torch family::torchvision-classification
"""SqueezeNet 1.1 (torchvision.models.squeezenet1_1), random weights; logits."""

from __future__ import annotations

from mudjack_probe.models import image, torch_model


def build():
    import torchvision

    return torchvision.models.squeezenet1_1(weights=None)


torch_model(__file__, build, image())
