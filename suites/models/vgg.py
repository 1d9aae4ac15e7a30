# labels: name::vgg author::torchvision task::Computer_Vision framework::torch family::torchvision-classification
"""VGG-11 (torchvision.models.vgg11), random weights; logits."""

from __future__ import annotations

from mudjack_probe.models import image, torch_model


def build():
    import torchvision

    return torchvision.models.vgg11(weights=None)


torch_model(__file__, build, image())
